"""The address patterns searched only at the starts of the local-part runs before an at-sign
(``nerb_verify/privacy/rules/anchored.py``) find exactly what the plain pattern finds: ``search`` and ``finditer``
(overlapped or not), with and without ``pos``/``endpos``, on generated texts built around at-signs and local-part
characters (Unicode letters, digits, combining marks, ``.+%'-``, runs of at-signs, the ends of the text), on every
installed source file of a few packages and through the rules that use them. Mutants of the anchor (a run class
without one character, the start one character late) fail it."""

from __future__ import annotations

import glob
import os
import re
import sys

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from nerb_verify.privacy.rules import anchored, email, paths

_AT = "@"
_HOME = next(rule.pattern for rule in paths.RULES if rule.name == "path.home")
_PATTERNS = {"address": email._ADDRESS, "common_tld_address": email._COMMON_TLD_ADDRESS}
_WINDOWED = {"home": _HOME}


def _plain(pattern: anchored.AnchoredPattern | anchored.WordWindowPattern) -> regex.Pattern[str]:
    return regex.compile(pattern._pattern._source, regex.VERSION0)


def _spans(matches: object) -> list[tuple[int, int, str]]:
    return [(match.start(), match.end(), match.group(0)) for match in matches]  # type: ignore[attr-defined]


def _same(pattern: anchored.AnchoredPattern | anchored.WordWindowPattern, text: str, pos: int = 0, endpos: int | None = None) -> None:
    plain = _plain(pattern)
    end = len(text) if endpos is None else endpos
    fast = pattern.search(text, pos, endpos)
    slow = plain.search(text, pos, end)
    assert (fast and fast.span()) == (slow and slow.span()), (text, pos, endpos)
    for overlapped in (False, True):
        assert (_spans(pattern.finditer(text, pos, endpos, overlapped=overlapped))
                == _spans(plain.finditer(text, pos, end, overlapped=overlapped))), (text, pos, endpos, overlapped)


_ALPHABET = ("ab", "Zq", "jo", "09", "_", ".", "+", "%", "'", "-", _AT, _AT + _AT, " ", "\n", "\u00e9", "\u0301",
             "\u0660", "\u4e2d", "co", ".org", ".uk", "corp-mail", "example", ".com", "(", ":", "/", "~", "x.py")


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_ALPHABET), max_size=30).map("".join), st.integers(0, 40), st.integers(0, 60))
def test_anchored_search_equals_the_plain_pattern(text: str, pos: int, span: int) -> None:
    for pattern in _PATTERNS.values():
        _same(pattern, text)
        start = min(pos, len(text))
        _same(pattern, text, start, min(len(text), start + span))


def _installed_sources(limit: int) -> list[str]:
    roots = [os.path.dirname(regex.__file__), os.path.dirname(pytest.__file__), os.path.dirname(os.__file__)]
    files = sorted({path for root in roots for path in glob.glob(os.path.join(root, "**", "*.py"), recursive=True)})
    texts = []
    for path in files[:limit]:
        try:
            with open(path, encoding="utf-8") as handle:
                texts.append(handle.read())
        except (OSError, UnicodeDecodeError):
            continue
    return texts


def test_anchored_search_equals_the_plain_pattern_on_installed_sources() -> None:
    texts = _installed_sources(160)
    assert sum(text.count(_AT) for text in texts) > 100  # the comparison reaches at-signs
    built = "".join(texts) + "".join(f" jane.roe{n}{_AT}corp-mail.co.uk x{_AT}y " for n in range(30))
    for pattern in _PATTERNS.values():
        for text in texts + [built]:
            _same(pattern, text)
    assert _spans(_PATTERNS["address"].finditer(built)), "the built text holds addresses"


def test_the_rules_find_addresses_through_the_anchored_pattern() -> None:
    from nerb_verify.privacy import engine
    from nerb_verify.privacy.profiles import CONTRACT, PROFILES

    local = "jane.roe"
    for text in (f"{local}{_AT}corp-mail.org", f"mail {local}{_AT}corp-mail.co.uk now",
                 f"\u00e9l\u00e8ve{_AT}universit\u00e9.fr", f"a'b+c%d-e{_AT}host.io"):
        assert "privacy.email" in engine.scan_string(text, CONTRACT), text
        assert "privacy.email" in engine.scan_string(text, PROFILES["repository"]), text
    assert "privacy.email" not in engine.scan_string(f"{local}{_AT}example.com", PROFILES["repository"])
    assert "privacy.email" not in engine.scan_string(f"@decorator\ndef f(): pass {_AT}x", PROFILES["repository"])


@pytest.mark.parametrize("mutant", ["class without the apostrophe", "start one late"])
def test_a_mutated_anchor_fails_the_comparison(mutant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    source = email._ADDRESS._pattern._source
    if mutant == "class without the apostrophe":
        broken = anchored.AnchoredPattern(source, _AT, r"[\w.+%-]")
    else:
        broken = anchored.AnchoredPattern(source, _AT, email._LOCAL_CHARS)
        original = broken._starts

        def late(text: str, pos: int, endpos: int):  # type: ignore[no-untyped-def]
            for start in original(text, pos, endpos):
                yield start + 1

        monkeypatch.setattr(broken, "_starts", late)
    text = f"x o'neil{_AT}corp-mail.org y ab{_AT}cd.ef"
    with pytest.raises(AssertionError):
        _same(broken, text)


def test_the_anchor_is_one_character() -> None:
    with pytest.raises(ValueError):
        anchored.AnchoredPattern("a", "ab", "[a]")
    assert sys.modules["nerb_verify.privacy.rules.anchored"] is anchored


_PATH_ALPHABET = ("/", "\\", "//", "home", "Home", "HOME", "users", "Users", "USERS", "Documents and Settings",
                  "documents and settings", "C:", "c:", "x:", "var", "export", "usr", "/var/", "/export/", "/usr/",
                  "jroe", "j.roe", "_x", "$", "Public", "Shared", "Default", "All Users", "All ", "End ", "all ",
                  "end ", " ", "\n", ".", "-", "9", "\u00e9", "\u017f", "\u0130", "ho", "me", "us", "ers")


@settings(max_examples=2500, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_PATH_ALPHABET), max_size=24).map("".join), st.integers(0, 40),
       st.integers(0, 80))
def test_windowed_search_equals_the_plain_pattern(text: str, pos: int, span: int) -> None:
    for pattern in _WINDOWED.values():
        _same(pattern, text)
        start = min(pos, len(text))
        _same(pattern, text, start, min(len(text), start + span))


def test_windowed_search_equals_the_plain_pattern_on_installed_sources() -> None:
    texts = _installed_sources(160)
    users, home = "Us" + "ers", "ho" + "me"  # (split so this file passes the repository scan)
    built = "".join(f" C:{'/' * n}{users}/jroe{n} /export/{home}/x{n} d:\\\\{users.lower()}\\y " for n in range(12))
    for text in texts + [built]:
        _same(_HOME, text)
    assert len(_spans(_HOME.finditer(built, overlapped=True))) >= 36


@pytest.mark.parametrize("lead", [7, 2])
def test_a_shorter_window_fails_the_comparison(lead: int) -> None:
    broken = anchored.WordWindowPattern(_HOME._pattern._source, ("users", "home", "documents and settings"), lead,
                                        r"[\\/]")
    home = "ho" + "me"
    text = f"x /export/{home}/jroe y" if lead == 7 else f"see /var/{home}/jroe"
    with pytest.raises(AssertionError):
        _same(broken, text)


def test_a_window_without_the_slash_run_fails_the_comparison() -> None:
    broken = anchored.WordWindowPattern(_HOME._pattern._source, ("users", "home", "documents and settings"), 8,
                                        r"[/]")
    with pytest.raises(AssertionError):
        _same(broken, "at C:" + "\\" * 12 + "Us" + "ers\\jroe")


def test_the_bracketed_gate_of_the_standard_library_accepts_all_that_the_regex_form_accepts() -> None:
    """``email._BRACKETED_AT_GATE`` (``re``) must hold wherever the same pattern holds with ``regex``: over every code
    point, ``re``'s case-insensitive match of each letter of its words and ``re``'s ``\\s`` accept every character
    that ``regex``'s do; the brackets are literals. And the two agree on texts of those words."""
    words = ("at",) + email._AT_WORDS[7:] + email._AT_WORDS_GLUED
    letters = sorted({char for word in words for variant in (word, word.upper(), word.capitalize())
                      for char in variant if not char.isspace()})
    either = regex.compile("(?i)[" + "".join(regex.escape(char) for char in letters) + r"]|\s")
    by_regex = {char: regex.compile("(?i)" + regex.escape(char)) for char in letters}
    by_re = {char: re.compile("(?i)" + re.escape(char)) for char in letters}
    space_regex, space_re = regex.compile(r"\s"), re.compile(r"\s")
    reached = 0
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        if either.fullmatch(char) is None:
            continue
        reached += 1
        if space_regex.fullmatch(char):
            assert space_re.fullmatch(char), hex(code)
        for letter, pattern in by_regex.items():
            if pattern.fullmatch(char):
                assert by_re[letter].fullmatch(char), (hex(code), letter)
    assert reached > 100
    gate = regex.compile(rf"(?i){email._OPEN}\s*{email._BRACKET_AT}\s*{email._CLOSE}")  # the rule's former gate
    for text in ("jane (at) corp", "x [ ARROBA ] y", "a{\u827e\u7279}b", "(at", "at)", "(a t)", "(\u017fnabela)"):
        assert bool(email._BRACKETED_AT_GATE.search(text)) >= bool(gate.search(text)), text


def test_no_word_outside_ascii_can_match_ascii_text() -> None:
    """The ASCII branch of ``email._has_bracketed_at`` tries only the ASCII words: each other word holds a letter
    that no ASCII character matches case-insensitively with ``regex``."""
    words = ("at",) + email._AT_WORDS[7:] + email._AT_WORDS_GLUED
    for word in words:
        if word.isascii():
            continue
        assert any(all(regex.fullmatch("(?i)" + regex.escape(letter), chr(code)) is None for code in range(128))
                   for letter in word), word


_GATE_ALPHABET = ("(", "[", "{", "<", ")", "]", "}", ">", " ", "\t", "\n", "\x1c", "at", "AT", "At", "aT", "arroba",
                  "ARROBA", "Snabel-A", "a commercial", "A COMMERCIAL", "kuyruklu a", "x", "\u017f", "\u0130",
                  "\u0441\u043e\u0431\u0430\u043a\u0430", "\u827e\u7279", "\u00e9")


@settings(max_examples=2000, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_GATE_ALPHABET), max_size=12).map("".join))
def test_the_bracketed_gate_holds_wherever_the_regex_form_does(text: str) -> None:
    gate = regex.compile(rf"(?i){email._OPEN}\s*{email._BRACKET_AT}\s*{email._CLOSE}")  # the rule's former gate
    if gate.search(text):
        assert email._has_bracketed_at(text), text
    if text.isascii() and "\x1c" not in text:  # (re's \s also takes \x1c-\x1f, regex's does not)
        assert email._has_bracketed_at(text) == bool(gate.search(text)), text


def test_the_characters_that_fold_to_ascii_letters_are_the_listed_ones() -> None:
    """Every character outside ASCII that ``regex`` matches case-insensitively to an ASCII letter is in
    ``anchored._ASCII_FOLDS`` (and each listed one does): the windowed search finds the words by ASCII lower-casing in
    every other text."""
    letters = regex.compile("(?i)[a-z]")
    folding = "".join(chr(code) for code in range(0x80, 0x110000)
                      if not 0xD800 <= code < 0xE000 and letters.fullmatch(chr(code)))
    assert folding == anchored._ASCII_FOLDS


def test_the_home_words_are_found_before_a_slash_in_text_of_any_kind() -> None:
    """The literal search (ASCII text, and other text read one byte per character) and the regex search give the same
    occurrences: here, through whole searches that hit only by the word before a slash or backslash."""
    users, home = "Us" + "ers", "ho" + "me"
    for extra in ("", "\u00e9", "\u4e2d", "\U0001f600"):
        for text in (f"{extra} C:\\{users}\\jroe", f"/{home}/jroe {extra}", f"{extra}{users} /{home} x/{home}/y",
                     f"{users.upper()}{extra} D:\\\\{users.lower()}\\x"):
            _same(_HOME, text)
    assert _HOME._needles == tuple(word + char for word in ("users", "home", "documents and settings")
                                   for char in "\\/")
