"""Character codes written as a list of numbers: ``106,97,110,101,...`` (JavaScript's ``String.fromCharCode``),
``0x6a, 0x61, ...`` (a C byte array) or ``152 141 156 ...`` (octal bytes, as ``od -b`` prints them).

Every other payload the scanner reads is one token; a list of numbers is many, separated by commas, semicolons or
white space, and each number is innocent alone. A reader who runs the list through ``String.fromCharCode`` or
``bytes(...)`` reads the text it spells, so the engine decodes such lists and scans what they spell as a payload (a
lone at-sign or a generic path found only in one is dropped, as for every payload).

A *run* is at least ``MIN_CODES`` numbers with one kind of separator between them (commas, semicolons, or spaces
and tabs alone; white space and line breaks around a comma or a semicolon belong to it), not glued to a word or a
decimal point at either end. It is read as hex bytes when every number is ``0x``-prefixed; else as decimal code
points (bytes when all are below 256, so UTF-8 and UTF-16 text is read too) and, when every number is three octal
digits, as octal bytes as well (each reading that is text is scanned). The decoded text must pass the payload text
test (:func:`payloads.as_text`: printable, written as text), which number lists of counts, sizes, coordinates or
pixels do not: most of their values are control characters or spell no script.
"""

from __future__ import annotations

import re

from nerb_verify.privacy.payloads import _printable, as_text

MIN_CODES = 6
MAX_CODE_POINT = 0x10FFFF
# A number of a run: ``0x`` and one or two hex digits, or one to seven decimal digits (a code point).
_NUMBER = r"(?:0[xX][0-9A-Fa-f]{1,2}|\d{1,7})"
# The separators: commas (white space and line breaks around them allowed: an array written one number per line),
# semicolons (likewise), spaces and tabs alone (not line breaks: lines of counts are not one list).
_SEPARATORS = (r"\s*,\s*", r"\s*;\s*", r"[ \t]+")
# Necessary conditions of a run, one per kind of separator (for the prefilter and the engine's cheap test): a run
# of ``MIN_CODES`` numbers holds five separators of its kind with a number between each two of them. Each pattern
# starts with its separator (a literal: the white-space kind has two hints, the last character before the first
# inner number being a space or a tab), which the standard library's engine scans for fast; one led by the numbers
# would try every digit of a source file (measured: ten times slower on Python source), one led by a class of
# space and tab twice as slow.
_INTERIOR = MIN_CODES - 2  # numbers with a separator on both sides
HINTS = (rf",\s*{_NUMBER}(?:\s*,\s*{_NUMBER}){{{_INTERIOR - 1}}}\s*,",
         rf";\s*{_NUMBER}(?:\s*;\s*{_NUMBER}){{{_INTERIOR - 1}}}\s*;",
         rf" {_NUMBER}(?:[ \t]+{_NUMBER}){{{_INTERIOR - 1}}}[ \t]",
         rf"\t{_NUMBER}(?:[ \t]+{_NUMBER}){{{_INTERIOR - 1}}}[ \t]")
_HINTS = tuple(re.compile(hint) for hint in HINTS)
_RUNS = [re.compile(rf"(?<![\w.]){_NUMBER}(?:{separator}{_NUMBER}){{{MIN_CODES - 1},}}(?![\w.])")
         for separator in _SEPARATORS]
_TOKEN = re.compile(_NUMBER)
_OCTAL = re.compile(r"[0-7]{3}")


def has_char_codes(text: str) -> bool:
    """True when ``text`` may hold a run of character codes (one of ``HINTS``)."""
    return any(hint.search(text) is not None for hint in _HINTS)


def _readings(tokens: list[str]) -> list[str]:
    """The texts a run's numbers spell (see the module docstring): as hex bytes when every number is ``0x``-prefixed;
    else as decimal code points and, when every number is three octal digits, as octal bytes too (``050 067`` reads
    as printable text both ways: each reading that is text is scanned)."""
    if all(token[:2] in ("0x", "0X") for token in tokens):
        text = as_text(bytes(int(token, 16) for token in tokens))
        return [text] if text is not None else []
    if any(token[:2] in ("0x", "0X") for token in tokens):
        return []
    readings: list[str | None] = []
    values = [int(token) for token in tokens]
    if max(values) < 256:
        readings.append(as_text(bytes(values)))
    elif max(values) <= MAX_CODE_POINT and all(value < 0xD800 or value > 0xDFFF for value in values):
        readings.append(_printable("".join(chr(value) for value in values)))
    if all(_OCTAL.fullmatch(token) for token in tokens):
        readings.append(as_text(bytes(int(token, 8) for token in tokens)))
    return [text for text in readings if text is not None]


def char_code_texts(text: str) -> list[str]:
    """The texts spelled by every run of character codes in ``text`` (see the module docstring), in order found;
    each run is read once, for each kind of separator that makes it one."""
    if not has_char_codes(text):
        return []
    texts: list[str] = []
    for pattern in _RUNS:
        for match in pattern.finditer(text):
            for decoded in _readings(_TOKEN.findall(match.group(0))):
                if decoded not in texts:
                    texts.append(decoded)
    return texts
