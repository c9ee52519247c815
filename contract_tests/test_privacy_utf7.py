"""Issue 17 class 5 (payloads), session 15: UTF-7 shift sequences (RFC 2152) are read in a view of their own.

``normalise.decode_utf7`` must agree with Python's own UTF-7 codec on every text of printable ASCII and fullwidth
characters, whatever it encodes; leave sequences of other characters alone; and ``normalise.UTF7_HINT`` (which the
prefilter uses) must hold wherever decoding changes a text. Must-reject values are assembled at run time.
"""

from __future__ import annotations

import base64
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from nerb_verify.privacy import normalise
from nerb_verify.privacy.engine import prefilter_skips, scan_full, scan_string
from nerb_verify.privacy.normalise import decode_utf7, has_utf7
from nerb_verify.privacy.profiles import CONTRACT, REPOSITORY

_PRINTABLE = st.characters(min_codepoint=0x20, max_codepoint=0x7E)
_FULLWIDTH = st.characters(min_codepoint=0xFF01, max_codepoint=0xFF5E)


def _shifted(text: str) -> str:
    """Every character of ``text`` in one shift sequence (an encoder may shift any character)."""
    return "+" + base64.b64encode(text.encode("utf-16-be")).decode("ascii").rstrip("=") + "-"


@settings(max_examples=400, deadline=None)
@given(st.text(st.one_of(_PRINTABLE, _FULLWIDTH), min_size=1, max_size=40))
def test_decoding_agrees_with_the_codec(text: str) -> None:
    assert decode_utf7(text.encode("utf-7").decode("ascii")) == text
    assert decode_utf7(_shifted(text)) == text
    assert has_utf7(_shifted(text))


@settings(max_examples=400, deadline=None)
@given(st.text(st.sampled_from("+-/AaCHZwz019 x@") | _PRINTABLE, max_size=30))
def test_the_hint_holds_wherever_decoding_changes_the_text(text: str) -> None:
    if decode_utf7(text) != text:
        assert has_utf7(text)


def test_sequences_of_other_scripts_and_text_that_only_looks_shifted_are_left_alone() -> None:
    for text in ("\u65e5\u672c\u8a9e".encode("utf-7").decode("ascii"), "x = a+self.b", "C++", "+Zm9v-bar", "i+=1"):
        assert decode_utf7(text) == text
    assert decode_utf7("1+-2") == "1+2"


def test_a_narrower_hint_misses_a_tilde() -> None:
    # "~" is U+007E: its second base64 character is "H", the last the hint allows after "A".
    assert _shifted("~").startswith("+AH")
    narrower = re.compile(r"\+(?:A[C-G]|/[w-z01])")
    assert has_utf7(_shifted("~")) and narrower.search(_shifted("~")) is None
    assert normalise.UTF7_HINT != narrower.pattern


def test_an_address_a_path_and_a_number_in_utf7_are_found_and_not_skipped() -> None:
    at, address = "@", "jane.roe" + "@" + "corp-mail.org"
    for text, code in ((address.replace(at, "+AEA-"), "privacy.email"),
                       (address.replace(at, _shifted("\uff20")), "privacy.email"),
                       ("/ho" + _shifted("me/jroe") + "/notes", "privacy.personal_path"),
                       (_shifted("415-382-" + "7719"), "privacy.phone")):
        for profile in (CONTRACT, REPOSITORY):
            assert code in scan_string(text, profile), (text, profile.name)
            assert not prefilter_skips(text, profile)
            assert code not in scan_full(text.replace("+", " "), profile)  # (not found without the decoding)
