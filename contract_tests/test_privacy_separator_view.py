"""The odd-separator view (nerb_verify/privacy/separator_view.py): digit groups split by any punctuation or symbol.

Issue 17 class 4 ("any separator"): under the strict profiles a number written with an odd separator reads as the
same number written with hyphens; the prefilter never skips such a text; the repository profile is not widened.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nerb_verify.privacy import separator_view
from nerb_verify.privacy.engine import scan_full, scan_uncached
from nerb_verify.privacy.profiles import PROFILES, STRICT_NUMBER_RULES
from nerb_verify.privacy.rules.phone import PHONE
from nerb_verify.privacy.rules.ssn import SSN

CONTRACT, REPOSITORY, RENDERED = PROFILES["contract"], PROFILES["repository"], PROFILES["rendered"]
NUMBER_CODES = {PHONE, SSN}
# Odd separators: the ASCII ones, and non-ASCII punctuation and symbols of several blocks (box drawing, bullets,
# arrows, currency, an Arabic full stop, a CJK bracket).
ODD = st.sampled_from(list(separator_view.ODD_ASCII) + ["|", "\u2500", "\u25e6", "\u2023", "\u23af", "\u06d4",
                                                        "\u2192", "\u20ac", "\u300c", "\u2605", "\u00a7"])
SPACES = st.sampled_from(["", " ", "\t", "  "])


def _digits(n: int):
    return st.text(alphabet="0123456789", min_size=n, max_size=n)


@settings(max_examples=300, deadline=None)
@given(groups=st.sampled_from([(3, 3, 4), (3, 2, 4), (2, 2, 2, 2, 2), (3, 3, 2, 2), (4, 3, 4)]), data=st.data(),
       separator=ODD, pad=SPACES, prefix=st.sampled_from(["", "call ", "x=", "id "]),
       suffix=st.sampled_from(["", " today", ".", ";"]))
def test_an_odd_separator_reads_as_a_hyphen_under_the_strict_profiles(groups, data, separator, pad, prefix, suffix):
    parts = [data.draw(_digits(n)) for n in groups]
    if separator == "|":
        pad = ""  # a spaced bar is a table border (see the module)
    odd = prefix + (pad + separator + pad).join(parts) + suffix
    hyphens = prefix + (pad + "-" + pad).join(parts) + suffix
    for profile in (CONTRACT, RENDERED):
        expected = scan_full(hyphens, profile) & NUMBER_CODES
        got = scan_full(odd, profile) & NUMBER_CODES
        assert expected <= got, (odd, profile.name)
        # the prefilter never skips what the full path flags
        assert scan_uncached(odd, profile) == scan_full(odd, profile)


def test_only_strict_number_rules_read_the_view():
    assert STRICT_NUMBER_RULES and all(name.startswith(("ssn.", "phone.")) for name in STRICT_NUMBER_RULES)
    assert not STRICT_NUMBER_RULES & set(REPOSITORY.rule_names)
    assert STRICT_NUMBER_RULES <= set(CONTRACT.rule_names) and STRICT_NUMBER_RULES <= set(RENDERED.rule_names)


def test_the_rewrite_changes_separators_between_digits_only():
    assert separator_view.rewrite("713;555;0123") == "713-555-0123"
    assert separator_view.rewrite("(713)&555 & 0123") == "(713)-555 - 0123"
    assert separator_view.rewrite("| 256 | 512 |") == "| 256 | 512 |"
    assert separator_view.rewrite("a;b 1;x ;2") == "a;b 1;x ;2"
    assert separator_view.rewrite("713\u2500\u2500555") == "713-555"
    assert separator_view.rewrite("1,234") == "1,234" and separator_view.rewrite("1@2") == "1@2"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789 \t()[]|ab,.-@") + list(separator_view.ODD_ASCII)
                                        + ["\u2500", "\u00e9", "\u0663", "\U0001f600", "\u3001", "\u0301"]),
               max_size=40))
def test_the_screens_are_necessary_conditions_of_the_rewrite(text):
    # rewrite changes something -> HINT matches -> the byte screen holds (each screen only skips what cannot match)
    if separator_view.rewrite(text) != text:
        assert separator_view.HINT.search(text), text
    if separator_view.HINT.search(text):
        assert separator_view.may_hold(text.encode("utf-8", "surrogatepass")), text
