"""Issue 17, number windows: a number rule searched only around digit runs (``Rule.window``, ``rules/base.py``)
finds exactly what the same rule searched over the whole text finds.

* Differential, per windowed rule: ``rule.hits`` against the same rule without its window, on generated digit-heavy
  text (digits, every separator, brackets, ``+``, letters, other scripts' digits, the joined-view separator,
  phone-shaped fragments, letter padding so the runs are sparse), with the spans forced (no whole-text fallback,
  no merging: the proof at its strictest) and with the shipped settings.
* Pinned proofs: the table of windowed rules and their digit counts; for each rule a counting match with the fewest
  digits it can have is found (and, where that minimum is the window's own, missed with a window one larger); a
  lead shorter than the international rule's ``+(`` and space misses its match.

Must-reject values are assembled at run time from parts (this file passes the repository's own scan).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nerb_verify.privacy.rules import ALL_RULES, base
from nerb_verify.privacy.rules.base import Rule

SETTINGS = settings(max_examples=200, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# The windowed rules and the digits every counting match holds (the comments at RULES in phone.py and ssn.py).
WINDOWS = {
    "phone.international": 8, "phone.international_public": 8,
    "phone.double_zero": 10, "phone.double_zero_public": 10,
    "phone.north_american": 10, "phone.north_american_plausible": 10,
    "phone.trunk": 9, "phone.trunk_public": 9, "phone.pairs": 10, "phone.pairs_public": 10,
    "phone.grouped": 9, "phone.grouped_public": 9, "phone.spaced_digits": 10, "phone.spaced_digits_public": 10,
    "phone.compact": 10, "phone.compact_in_url": 10, "phone.e164_bare": 11,
    "phone.national": 10, "phone.national_compact": 10,
    "phone.context": 10, "phone.context_public": 10,
    "ssn.shape": 9, "ssn.issuable_shape": 9, "ssn.spaced_digits": 9, "ssn.spaced_digits_issuable": 9,
    "ssn.context": 9,
}
WINDOWED = sorted(WINDOWS)


def _spaced(digits: str, sep: str = " ") -> str:
    return sep.join(digits)


def _groups(*parts: str, sep: str = " ") -> str:
    return sep.join(parts)


# For each rule, a text whose only counting match has the fewest digits the rule can count (assembled from parts).
_DASH = "-"
MINIMAL = {
    "phone.international": "+" + "1234" + "5678", "phone.international_public": "+" + "1234" + "5678",
    "phone.double_zero": "00" + "1234" + "5678", "phone.double_zero_public": "00" + "1234" + "5678",
    "phone.north_american": _groups("212", "456", "7890", sep=_DASH),
    "phone.north_american_plausible": _groups("212", "456", "7890", sep=_DASH),
    "phone.trunk": _groups("020", "794", "6012"), "phone.trunk_public": _groups("020", "794", "6012"),
    "phone.pairs": _groups("01", "23", "45", "67", "89"),
    "phone.pairs_public": _groups("01", "23", "45", "67", "89"),
    "phone.grouped": _groups("123", "456", "78", "90"), "phone.grouped_public": _groups("123", "456", "78", "90"),
    "phone.spaced_digits": _spaced("2124567891"), "phone.spaced_digits_public": _spaced("2124567891"),
    "phone.compact": "212" + "456" + "7890", "phone.compact_in_url": "212" + "456" + "7890",
    "phone.e164_bare": "1650" + "253" + "0000",
    "phone.national": _groups("07", "1234", "5678"), "phone.national_compact": "04" + "1234" + "5678",
    "phone.context": "mobile:: +" + "212" + "456" + "7890",
    "phone.context_public": "mobile:: +" + "212" + "456" + "7890",
    "ssn.shape": _groups("123", "45", "6789", sep=_DASH), "ssn.issuable_shape": _groups("123", "45", "6789", sep=_DASH),
    "ssn.spaced_digits": _spaced("123456789"), "ssn.spaced_digits_issuable": _spaced("123456789"),
    "ssn.context": "Social  \t Security  Number: " + "123" + "456" + "789",
}
# Rules whose window is below their validator's minimum (the pattern's own minimum is used, which is safe).
_CONSERVATIVE = {"phone.trunk", "phone.trunk_public", "phone.grouped", "phone.grouped_public"}


def _whole(rule: Rule) -> Rule:
    return rule._replace(window=None)


def _strict(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spans always used, never merged: every match must come from its own run's span."""
    monkeypatch.setattr(base, "_MAX_SHARE", float("inf"))
    monkeypatch.setattr(base, "_MERGE_GAP", -10**9)


_FRAGMENTS = [
    "0", "1", "2", "5", "9", "00", "011", "212", "456", "7890", "555", "0123", "45", "6789", "+", "+1", "+44", "(",
    ")", "[", "]", "(0)", "-", "--", ".", "/", "_", "~", ":", " ", "  ", "\t", "\n", "\r\n", "x", "ab", "Tel", "v1.2",
    "mobile", "phone: ", "fax#", "call ", "cell\u00e9", "TEL.", "tel:+", "SSN", "ss#", "social security no. ",
    "e", "E", "#", ",", ";", "=", "@", "\u0663", "\uff13", "\u0967", "\u2603", "\u00e9", "\u00a0",
    "+( 1234", "00 49", "(212) 456", "1 2 3 4 5", "0.9530201342281879", "2026-07-15T09:26:30Z",
] + list(MINIMAL.values())
_PAD = st.sampled_from(["", " ", "word ", "x" * 30, "lorem ipsum dolor sit amet, ", "\n", "abc" * 25])
_pieces = st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(alphabet="0123456789 -.()+/", max_size=6)),
                   min_size=1, max_size=6).map("".join)
_texts = st.lists(st.tuples(_PAD, _pieces), min_size=1, max_size=6).map(
    lambda parts: "".join(pad + piece for pad, piece in parts))


def test_window_table_is_pinned() -> None:
    """Every windowed rule is listed here with its digit count (a new window needs its proof and a row)."""
    assert {name: rule.window for name, rule in ALL_RULES.items() if rule.window is not None} == WINDOWS
    assert {name: rule.window_lead for name, rule in ALL_RULES.items() if rule.window_lead != base._LEAD} == {
        "phone.context": 10, "phone.context_public": 10, "ssn.context": None}


@pytest.mark.parametrize("name", WINDOWED)
def test_minimal_match_is_found(name: str) -> None:
    """A counting match with the fewest digits is found in the windows, inside other text too."""
    rule = ALL_RULES[name]
    for text in (MINIMAL[name], "see " + MINIMAL[name] + " here", "x" * 200 + " " + MINIMAL[name] + " " + "y" * 200):
        assert _whole(rule).hits(text, {}), (name, "the example must match the rule")
        assert rule.hits(text, {}) and rule.hits(text)
        if name not in _CONSERVATIVE:
            assert not rule._replace(window=rule.window + 1).hits(text, {}), (
                name, "the window must be the tight minimum: one more digit misses the example")


def test_shorter_lead_misses_the_context_match() -> None:
    """The context rule consumes ``mobile``, three other characters and ``+`` before the first digit: a lead of 9
    misses it, its own 10 finds it."""
    rule = ALL_RULES["phone.context"]
    text = "x" * 100 + " " + MINIMAL["phone.context"] + " " + "y" * 100
    assert _whole(rule).hits(text, {}) and rule.hits(text, {})
    assert not rule._replace(window_lead=9).hits(text, {})


def test_shorter_lead_misses_the_international_match() -> None:
    """The international rule consumes ``+(`` and a space before the first digit: a lead of 2 misses it (so the
    differential below can fail), the default 3 finds it."""
    rule = ALL_RULES["phone.international"]
    text = "x" * 100 + " +( " + "1234" + "5678 " + "y" * 100
    assert rule.window_lead == base._LEAD == 3
    assert _whole(rule).hits(text, {})
    assert rule.hits(text, {})
    assert not rule._replace(window_lead=2).hits(text, {})


@pytest.mark.parametrize("name", WINDOWED)
@SETTINGS
@given(text=_texts)
def test_windows_equal_whole_text_strict(name: str, text: str) -> None:
    """Spans forced, never merged, never the whole text: windowed ``hits`` equals the whole-text search."""
    with pytest.MonkeyPatch.context() as patch:
        _strict(patch)
        rule = ALL_RULES[name]
        assert rule.hits(text, {}) == _whole(rule).hits(text, {})


@pytest.mark.parametrize("name", WINDOWED)
@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts)
def test_windows_equal_whole_text_shipped(name: str, text: str) -> None:
    """With the shipped merge gap and whole-text fallback, windowed ``hits`` equals the whole-text search."""
    rule = ALL_RULES[name]
    assert rule.hits(text, {}) == _whole(rule).hits(text, {})


def test_shared_gates_across_rules() -> None:
    """The runs cached in one text's gate dictionary serve every rule alike (the engine shares one per text)."""
    text = "ref 12.5 and " + MINIMAL["ssn.shape"] + " then " + MINIMAL["phone.compact"] + " end " + "z" * 80
    gates: dict[object, object] = {}
    for name in WINDOWED:
        rule = ALL_RULES[name]
        assert rule.hits(text, gates) == _whole(rule).hits(text, {}), name


def test_run_digit_class_is_the_documented_superset() -> None:
    """A run's digits are the ASCII digits and every non-ASCII character but U+2603 (a superset of ``\\d`` in either
    engine); its separators are exactly the documented ones; everything else ASCII is a breaker."""
    import re

    digit = re.compile(f"[{base._DIGIT_CLASS}]")
    for point in list(range(0x3000)) + [0xFF13, 0x1E950, 0x10FFFF]:
        char = chr(point)
        expected = ("0" <= char <= "9") or (not char.isascii() and char != "\u2603")
        assert (digit.fullmatch(char) is not None) == expected, hex(point)
    assert set(base._RUN_SEPARATORS) == set("-./_~:+()[]<>{} \t\r\n")
    # the run pattern's separator class is the same set: each separator joins two digit groups into one run
    for separator in base._RUN_SEPARATORS:
        assert base._NUMBER_RUN.fullmatch("1234" + separator + "5678") is not None, repr(separator)
    assert base._NUMBER_RUN.fullmatch("1234" + "x" + "5678") is None


# --- the SSN context rule's word prefilter (session 11) -------------------------------------------------------

_CONTEXT_PIECES = ["SSN", "ssn", "Ssn", "sSn", "ss#", "SS#", "social", "Social", "SOCIAL", " security", " number",
                   " no", "#", ":", " ", "  ", "-", "_", "x", "a", "1", "9", "ss", "n", "soc", "ial",
                   "123" + "45" + "6789", "987" + "654" + "321", "12345678", "\n", "é", "\u017f"]


def test_the_context_words_prefilter_holds_wherever_the_rule_matches() -> None:
    """``ssn._has_ssn_word`` is the rule's prefilter: wherever the rule's pattern finds a match (searched without it),
    it holds; and it refuses some texts (otherwise it would save nothing)."""
    import random

    from nerb_verify.privacy.rules import ssn

    rule = ALL_RULES["ssn.context"]
    assert rule.prefilter is ssn._has_ssn_word
    bare = rule._replace(prefilter=None)
    rng = random.Random(16)
    matched = refused = 0
    for _ in range(20000):
        text = "".join(rng.choice(_CONTEXT_PIECES) for _ in range(rng.randint(1, 10)))
        if bare.hits(text, {}):
            assert ssn._has_ssn_word(text), text
            matched += 1
        refused += not ssn._has_ssn_word(text)
    assert matched > 500 and refused > 2000
    # A word glued to a letter or digit before it is not one (the rule's lookbehind); after an underscore it is.
    digits = "123" + "45" + "6789"
    assert not ssn._has_ssn_word(f"classname {digits}") and ssn._has_ssn_word(f"_ssn {digits}")
