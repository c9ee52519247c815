"""Issue 17 (classes 2 and 5, encodings), session 21: CSS escapes are read in a view of their own.

``\\40 `` (a backslash, hex digits, one optional space) is an at-sign to a browser reading a style sheet, an SVG
``<style>`` or a ``content:`` value; ``\\000040`` too, and ``\\40`` before a letter that is no hex digit. The fixed
point cannot decode them (``\\d`` and ``\\be`` in regular expressions and LaTeX would change), so the engine scans
the text with every CSS escape decoded as one more view, only when an escape stands for a character that carries an
identifier's shape. Must-reject values are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nerb_verify.privacy.normalise import decode_css_escapes, has_css_escape
from nerb_verify.privacy.profiles import CONTRACT, REPOSITORY
from nerb_verify.privacy.runner import scan_paths

B = chr(92)
LOCAL, HOST = "jane." + "roe", "corp-" + "mail.org"


def _css(text: str) -> str:
    """``text`` with every character written as a CSS escape with its terminating space."""
    return "".join(f"{B}{ord(char):x} " for char in text)


@pytest.mark.parametrize("written, expected", [
    (B + "40 ", "@"), (B + "000040x", "@x"), (B + "40mail", "@mail"), (B + "2e" + "\r\n" + "x", ".x"),
    (B + "110000 ", "\ufffd"), (B + "d800 ", "\ufffd"), (B + "040 ", B + "040 "), (B + "040a", "\u040a"),
])
def test_decoding_follows_the_css_syntax(written: str, expected: str) -> None:
    assert decode_css_escapes(written) == expected


@pytest.mark.parametrize("text, hinted", [
    (B + "40 ", True), (B + "0040 ", True), (B + "000040", True), (B + "2F", True), (B + "37 ", True),
    (B + "040", False), (B + "40c", False), (B + "d{3}", False), (B + "begin", False), (B + "6a ", False),
])
def test_the_view_is_taken_only_for_an_escape_of_a_shape_character(text: str, hinted: bool) -> None:
    assert has_css_escape(text) is hinted


def test_a_style_sheet_and_a_json_value_are_read_with_their_escapes(tmp_path: Path) -> None:
    sheet = tmp_path / "card.css"
    address = LOCAL + B + "40 " + HOST.replace(".", B + "2e ")
    sheet.write_text(".card { color: red; }\n.card::after {\n  content: \"" + address + "\";\n}\n", encoding="utf-8")
    every = tmp_path / "every.css"
    every.write_text("a::before { content: \"" + _css(LOCAL + chr(64) + HOST) + "\" }\n", encoding="utf-8")
    data = tmp_path / "style.json"
    data.write_text('{"style": "a { content: \\"' + LOCAL + B + B + "000040" + HOST + '\\" }"}', encoding="utf-8")
    for profile in (REPOSITORY, CONTRACT):
        found = sorted((f.code, Path(f.artifact).name, f.line) for f in scan_paths([str(tmp_path)], profile).findings)
        assert found == [("privacy.email", "card.css", 3), ("privacy.email", "every.css", 1),
                         ("privacy.email", "style.json", None)], profile.name


def test_octal_escapes_and_regular_expressions_stay_as_they_were(tmp_path: Path) -> None:
    source = tmp_path / "escapes.py"
    source.write_text('SPACE = "a' + B + '040b"\nDIGITS = r"' + B + 'd{3}-' + B + 'd{2}"\nTEX = r"' + B
                      + 'begin{document}' + B + 'be"\n', encoding="utf-8")
    assert scan_paths([str(source)], CONTRACT).findings == []
