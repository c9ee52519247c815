"""The odd-separator view: digit groups split by a character the number rules do not read as a separator.

The SSN and phone rules read hyphens, dots, slashes, underscores, tildes, colons, plus signs, brackets, spaces, tabs and
line breaks between digit groups (after the normaliser has turned look-alike dashes, dots and spaces into ASCII).
Anything else a writer can put between the groups still reads as a number to a person: ``713;555;0123``,
``219|09|9999``, ``713 ' 555 ' 0123``, a box-drawing line or a bullet (``713\u2500555\u25260123``). Issue 17 class 4
asks for "any separator"; widening every rule's separator would also widen what the repository profile flags in
Markdown tables (``| 256 | 512 | 1024 |``) and source code, so instead the strict number rules (contract and rendered
profiles, ``STRICT_NUMBER_RULES``) also see a *view* of the text around such a separator in which each one between two
digits is a hyphen.

The odd separators are the ASCII punctuation marks outside the rules' own set except the comma (thousands and
lists, ``13,201``) and the at-sign (an address, which the e-mail rules read), that is ``! " # $ % & ' * ; < = > ? \\ ^
` { }``, and every non-ASCII character that is not a letter, a digit, a mark or white space (punctuation and
symbols of any script), one to three of them, with up to three spaces or tabs on each side, between a digit or a
closing bracket and a digit or an opening bracket; and the vertical bar with no space around it (with spaces it is a
Markdown table's cell border).
"""

from __future__ import annotations

import re

import regex

from nerb_verify.privacy.lazy import LazyPattern

ODD_ASCII = "!\"#$%&'*;<=>?\\^`{}"
# A necessary condition (``re``): what the rewrite changes, with any non-ASCII character standing for an odd one (the
# exact class, letters and digits of other scripts excluded, is the rewrite's).
HINT = re.compile(rf"[0-9)\]][ \t]{{0,3}}(?:[{re.escape(ODD_ASCII)}|]|[^\x00-\x7f]){{1,3}}[ \t]{{0,3}}[0-9(\[]")
# The ASCII part of what the rewrite changes, as the prefilter needs it (non-ASCII text always takes the full path).
PREFILTER_PATTERN = (rf"[0-9)\]](?:[ \t]{{0,3}}[{re.escape(ODD_ASCII)}]{{1,3}}[ \t]{{0,3}}|[|]{{1,3}})[0-9(\[]")
# ... and a cheaper weaker form of it: one odd separator or vertical bar anywhere (one class searched in C).
PREFILTER_GATE = rf"[{re.escape(ODD_ASCII)}|]"
_ODD = rf"(?:[{regex.escape(ODD_ASCII)}]|[^\x00-\x7f\p{{L}}\p{{N}}\p{{M}}\s])"
# Between a digit (or a closing bracket) and a digit (or an opening bracket); a vertical bar only with nothing around
# it (``| 256 | 512 | 1024 |`` is a Markdown table row, ``713|555|0123`` is not).
_BETWEEN_DIGITS = LazyPattern(
    rf"(?<=[0-9)\]][ \t]{{0,3}}){_ODD}{{1,3}}(?=[ \t]{{0,3}}[0-9(\[])|(?<=[0-9)\]])[|]{{1,3}}(?=[0-9(\[])")


# A whole-text screen in C for HINT, on the text's UTF-8 bytes: spaces and tabs deleted, a digit marked "d", a closing
# bracket "c", an opening bracket "p", an odd ASCII separator, a vertical bar or any byte of a non-ASCII character (up
# to four bytes a character) "o", everything else a dot. HINT can only match where the marks match _SCREEN (deleting
# every space and tab allows more than its three).
_MARKS = bytearray(b"." * 256)
for _chars, _mark in (("0123456789", "d"), (")]", "c"), ("([", "p"), (ODD_ASCII + "|", "o")):
    for _char in _chars:
        _MARKS[ord(_char)] = ord(_mark)
for _byte in range(0x80, 0x100):
    _MARKS[_byte] = ord("o")
MARKS = bytes(_MARKS)
_SCREEN = re.compile(rb"[dc]o{1,12}[dp]")


def may_hold(raw: bytes) -> bool:
    """False only when ``HINT`` cannot match the text whose UTF-8 (``surrogatepass``) is ``raw``."""
    return _SCREEN.search(raw.translate(MARKS, b" \t")) is not None


def rewrite(window: str) -> str:
    """``window`` with every run of one to three odd separators between two digit groups replaced by one hyphen."""
    return _BETWEEN_DIGITS.sub("-", window)
