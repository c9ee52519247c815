"""Structured identifiers: telephone numbers.

Shapes (after normalisation, so look-alike hyphens, dots, spaces and other scripts' digits are ASCII):

* E.164 ``+`` and 8-15 digits, and formatted international numbers (``+`` then digits with spaces, dots, hyphens,
  slashes, underscores or parentheses) with 8 to 20 digits, so padded ones are included while a long digit run (a
  digest, a counter) is not a phone number;
* the ``00`` international prefix, compact or formatted;
* national formats: North American (area code in parentheses or not, any separator, optional leading 1),
  trunk-prefixed (a 0, then 2-4, 3-4 and 3-4 digit groups) and French-style pairs (a 0 and four more pairs);
* a number of 10-15 digits right after a word that says phone (``tel``, ``phone``, ``mobile``, ``fax``, ``call``),
  letters glued on after the word included;
* (contract profile) compact North American numbers, 10 or 11 digits, outside longer runs of digits and decimals.

The repository profile uses the same shapes but, for formatted North American numbers, requires a plausible area
code and exchange (first digit 2-9) and skips the 555-0100 to 555-0199 range reserved for fiction, so port lists,
counters and documentation examples are not flagged. The contract profile flags every shape.
"""

from __future__ import annotations

import regex

from nerb_verify.codes import register
from nerb_verify.privacy.rules.base import EIGHT_DIGITS, Rule, compile_rule, digit_count

PHONE = register(
    "privacy.phone", "Text has the shape of a telephone number.",
    "E.164, formatted international, 00-prefixed and national phone shapes with any separator are structured "
    "identifiers. Look-alike separators, other scripts' digits, combining marks and zero-width characters are "
    "normalised first. The value is never printed.")

_SEP = r"(?:[ \t]{0,8}[-./_][ \t]{0,8}|[ \t]{1,8})"
_GROUPED = r"[\d() \t./_-]*\d"


def _international(match: regex.Match[str]) -> bool:
    text = match.group(0)
    if regex.fullmatch(r"\+\d+\.\d+", text):  # a signed decimal such as +0.123456789 or +1.23456789
        return False
    return 8 <= digit_count(text) <= 20


def _double_zero(match: regex.Match[str]) -> bool:
    return 10 <= digit_count(match.group(0)) <= 20


def _trunk(match: regex.Match[str]) -> bool:
    return 10 <= digit_count(match.group(0)) <= 11


def _nanp(match: regex.Match[str]) -> bool:
    area, exchange = match.group("area"), match.group("exchange")
    fictional = exchange == "555" and match.group("line").startswith("01")  # 555-0100..0199: reserved for fiction
    return area[0] in "23456789" and exchange[0] in "23456789" and not fictional


def _context(match: regex.Match[str]) -> bool:
    return 10 <= digit_count(match.group("number")) <= 15


def _fictional(text: str) -> bool:
    """A North American number in the 555-0100..0199 range reserved for fiction (with or without the +1 prefix)."""
    digits = "".join(char for char in text if "0" <= char <= "9")
    if len(digits) == 11 and digits[0] == "1":
        digits = digits[1:]
    return len(digits) == 10 and digits[3:6] == "555" and digits[6:8] == "01"


def _international_public(match: regex.Match[str]) -> bool:
    return _international(match) and not _fictional(match.group(0))


def _context_public(match: regex.Match[str]) -> bool:
    return _context(match) and not _fictional(match.group("number"))


_NORTH_AMERICAN = (
    rf"(?<![\w.+])(?:\+?1{_SEP}?)?(?:\((?P<area>\d{{3}})\)[ \t]*|(?P<area>\d{{3}}){_SEP})"
    rf"(?P<exchange>\d{{3}}){_SEP}(?P<line>\d{{4}})(?![\w]|[.]\d)"
)

_CONTEXT = (r"(?i)(?<![a-z])(?:tel|phone|mobile|cell|fax|call)[^\w\n]{0,3}"
            r"(?P<number>\+?\d[\d() \t./_-]{8,}\d)(?!\d)")
_INTERNATIONAL = compile_rule(rf"(?<![\w+])\+[1-9]{_GROUPED}(?!\w)")
_DOUBLE_ZERO = compile_rule(rf"(?<![\w.+])00[ \t]?[1-9]{_GROUPED}(?!\w)")
_TRUNK = compile_rule(rf"(?<![\w.+])0\d{{2,4}}{_SEP}\d{{3,4}}{_SEP}\d{{3,4}}(?![\w]|[.]\d)")
_PAIRS = compile_rule(rf"(?<![\w.+])0[1-9](?:{_SEP}\d{{2}}){{4}}(?![\w]|[.]\d)")
_COMPACT = compile_rule(r"(?<![\w.+])1?[2-9]\d{2}[2-9]\d{6}(?!\w|[.]\d)")
_FULL = ("full",)

RULES = (
    Rule("phone.international", PHONE, _INTERNATIONAL, _FULL, _international, "+", EIGHT_DIGITS),
    Rule("phone.international_public", PHONE, _INTERNATIONAL, _FULL, _international_public, "+", EIGHT_DIGITS),
    Rule("phone.double_zero", PHONE, _DOUBLE_ZERO, _FULL, _double_zero, None, EIGHT_DIGITS),
    Rule("phone.north_american", PHONE, compile_rule(_NORTH_AMERICAN), _FULL, None, None, EIGHT_DIGITS),
    Rule("phone.north_american_plausible", PHONE, compile_rule(_NORTH_AMERICAN), _FULL, _nanp, None, EIGHT_DIGITS),
    Rule("phone.trunk", PHONE, _TRUNK, _FULL, _trunk, None, EIGHT_DIGITS),
    Rule("phone.pairs", PHONE, _PAIRS, _FULL, None, None, EIGHT_DIGITS),
    Rule("phone.context", PHONE, compile_rule(_CONTEXT), _FULL, _context, None, EIGHT_DIGITS),
    Rule("phone.context_public", PHONE, compile_rule(_CONTEXT), _FULL, _context_public, None, EIGHT_DIGITS),
    Rule("phone.compact", PHONE, _COMPACT, _FULL, None, None, EIGHT_DIGITS),
)
