"""Structured identifiers: telephone numbers.

Shapes (after normalisation, so look-alike hyphens, dots, spaces and other scripts' digits are ASCII):

* E.164 ``+`` and 8-15 digits, and formatted international numbers (``+`` then digits with spaces, dots, hyphens,
  slashes, underscores or parentheses) with 8 to 20 digits, so padded ones are included while a long digit run (a
  digest, a counter) is not a phone number;
* the ``00`` international prefix, compact or formatted;
* national formats: North American (area code in round, square, angle or curly brackets or none, any separator,
  optional leading 1),
  trunk-prefixed (a 0, then 2-4, 3-4 and 3-4 digit groups) and French-style pairs (a 0 and four more pairs);
* a number of 10-15 digits right after a word that says phone (``tel``, ``phone``, ``ph``, ``mobile``, ``fax``,
  ``call``, ``tlf``, ... see ``CONTEXT_WORDS``),
  letters glued on after the word included;
* (contract profile) compact North American numbers, 10 or 11 digits, outside longer runs of digits and decimals.
* grouped national numbers (three digits, then three groups of two or three, one separator throughout) and numbers
  written one digit at a time; separators include ``~ : +``, brackets, ``--`` and line breaks;
* (contract profile) a bare 11-13 digit run that libphonenumber calls valid once a ``+`` is put in front;
* (repository profile) compact plausible North American numbers inside a URL's path or query (``url_payload``).

The repository profile uses the same shapes but, for formatted North American numbers, requires a plausible area
code and exchange (first digit 2-9) and skips the 555-0100 to 555-0199 range reserved for fiction, so port lists,
counters and documentation examples are not flagged. The contract profile flags every shape.
"""

from __future__ import annotations

import re

import regex

from nerb_verify.codes import register
from nerb_verify.privacy.rules.base import EIGHT_DIGITS, FastPattern, Rule, compile_rule, digit_count

PHONE = register(
    "privacy.phone", "Text has the shape of a telephone number.",
    "E.164, formatted international, 00-prefixed and national phone shapes with any separator are structured "
    "identifiers. Look-alike separators, other scripts' digits, combining marks and zero-width characters are "
    "normalised first. The value is never printed.")

# A separator between digit groups: one to three of hyphen, dot, slash, underscore, tilde, colon, plus, brackets (so
# ``--``, ``) (`` and ``]-`` count), with spaces or tabs around, or a line break, or spaces alone.
_SEP = r"(?:[ \t]{0,8}(?:[-./_~:+()\[\]]{1,3}|\r?\n)[ \t]{0,8}|[ \t]{1,8})"
_GROUPED = r"[\d() \t./_~:\[\]-]*\d"
# One digit at a time, each followed by the same one-character separator ("7 1 3 5 5 5 ...").
_SPACED_DIGITS = r"(?<![\w.+])\d(?P<s>[ \t.\-_/~:])\d(?:(?P=s)\d){8,13}(?![\w]|[ \t.\-_/~:]\d)"

def _international(match: regex.Match[str]) -> bool:
    text = match.group(0)
    if regex.fullmatch(r"\+\d+\.\d+", text):  # a signed decimal such as +0.123456789 or +1.23456789
        return False
    return 8 <= digit_count(text) <= 20


def _double_zero(match: regex.Match[str]) -> bool:
    return 10 <= digit_count(match.group(0)) <= 20


def _trunk(match: regex.Match[str]) -> bool:
    return 10 <= digit_count(match.group(0)) <= 11


def _double_zero_public(match: regex.Match[str]) -> bool:
    """Repository profile: not the item part of a DOI (``10.1016/0021-9991(79)90025-1``: a number right after a
    slash is a path segment) nor the middle of a list of numbers (a hexdump's offsets, ``0000 0010 0020 ...``)."""
    start = match.start()
    if start > 0 and match.string[start - 1] == "/":
        return False
    return _double_zero(match) and not _after_number(match)


def _after_number(match: regex.Match[str]) -> bool:
    """The match follows another number, separated by spaces only (it is one item of a list of numbers)."""
    return regex.search(r"\d[ \t]+$", match.string[max(0, match.start() - 9):match.start()]) is not None


def _pairs_public(match: regex.Match[str]) -> bool:
    """Repository profile: five pairs that are not part of a longer run of pairs (a byte dump, ``01 00 00 00 05 00
    00 00``): a national number in pairs has exactly five."""
    after = match.string[match.end():match.end() + 12]
    sep = regex.escape(match.group("sep"))
    return regex.match(rf"{sep}\d{{2}}(?!\d)", after) is None and not _after_number(match)


def _trunk_public(match: regex.Match[str]) -> bool:
    """Repository profile: after the trunk 0 comes an area code, which never starts with another 0 (``0002-002
    0001`` is a run of ids; ``00`` is the international prefix)."""
    digits = "".join(char for char in match.group(0) if "0" <= char <= "9")
    return _trunk(match) and digits[1] != "0"


def _nanp(match: regex.Match[str]) -> bool:
    area, exchange = match.group("area"), match.group("exchange")
    fictional = exchange == "555" and match.group("line").startswith("01")  # 555-0100..0199: reserved for fiction
    return area[0] in "23456789" and exchange[0] in "23456789" and not fictional and not _citation_or_list(match)


# What a formatted North American number is not, in prose and data (repository profile): a page range followed by a
# year in brackets or after a full stop ("pp. 292-303 (1992)", "573-583. 2020"), or three numbers of a longer list
# ("256 512 1024 2048"). A phone number does not open a bracket before its last group (unless every group is
# bracketed, three digits, three digits and four digits each in brackets) or put it after a sentence break.
_YEAR_AFTER_BREAK = regex.compile(r"(?<![)\]])[(\[]|\.[ \t]")


def _citation_or_list(match: regex.Match[str]) -> bool:
    text = match.string
    between = text[match.end("exchange"):match.start("line")]
    if _YEAR_AFTER_BREAK.search(between):
        return True
    gap = _list_gap(match)
    following = regex.match(rf"{gap}\d", text[match.end():match.end() + 18])
    preceding = regex.search(rf"\d{gap}$", text[max(0, match.start() - 18):match.start()])
    return following is not None or preceding is not None


# What separates the items of a list of numbers: spaces or tabs; or, when the shape itself is written over several
# lines (numbers one per line: a column pasted from a table, a JSON array of numbers joined line by line), one line
# break with spaces or tabs around it. A shape on one line is never made a list item by a number on the next line
# (a line's verdict does not depend on its neighbours, and a number put after a phone on the next line hides nothing).
_SPACE_GAP = r"[ \t]+"
_LINE_GAP = r"[ \t]{0,8}\r?\n[ \t]{0,8}"


def _list_gap(match: regex.Match[str]) -> str:
    return _LINE_GAP if "\n" in match.group(0) else _SPACE_GAP


def _not_in_number_list(match: regex.Match[str]) -> bool:
    """Contract profile: the shape is not three items of a list of whole numbers separated by spaces or one per line
    (the joined view of a JSON array of batch sizes, "256 512 1024 2048"; an SVG axis, "0 250 500 750 1000"; a
    column of counts). A list has another whole number right before the match or right after it, spaces or a line
    break between; a phone number written in prose has a word or punctuation there ("7719 9am" is a time after the
    number, not a list)."""
    text = match.string
    gap = _list_gap(match)
    after = regex.match(rf"{gap}\d+(?![\w.])", text[match.end():match.end() + 32])
    before = regex.search(rf"(?<![\w.])\d+{gap}$", text[max(0, match.start() - 32):match.start()])
    return after is None and before is None


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
    """Repository profile: also not a number glued to a unit or word after it (``phone9923(359087px``: an
    identifier and a measurement, not a number after the word phone)."""
    glued = match.string[match.end():match.end() + 1].isalpha()
    return _context(match) and not _fictional(match.group("number")) and not glued


_NORTH_AMERICAN = (
    rf"(?<![\w.+])(?:\+?1{_SEP}?)?[(\[<{{]?(?:(?P<area>\d{{3}})[)\]>}}][ \t]*(?P<exchange>\d{{3}})(?:{_SEP})?"
    rf"|(?P<area>\d{{3}}){_SEP}(?P<exchange>\d{{3}}){_SEP})(?P<line>\d{{4}})(?![\w]|[.]\d)"
)

# Words that say "phone" before a number, lower case, none longer than six letters (the context rules' lead below):
# English and abbreviations ("ph", "mob", "cel"), Scandinavian "tlf" and "tfn", German "Handy", Spanish "movil".
CONTEXT_WORDS = ("tel", "phone", "ph", "mobile", "mob", "cell", "cel", "fax", "call", "tlf", "tfn", "handy", "movil")
_CONTEXT = (rf"(?i)(?<![a-z])(?:{'|'.join(CONTEXT_WORDS)})[^\w\n]{{0,3}}"
            r"(?P<number>\+?\d[\d() \t./_-]{8,}\d)(?!\d)")
_INTERNATIONAL = compile_rule(rf"(?<![\w+])\+(?:[(\[][ \t]?)?[1-9]{_GROUPED}(?!\w)")
_DOUBLE_ZERO = compile_rule(rf"(?<![\w.+])(?:00|011)[ \t]?[(\[]?[1-9]{_GROUPED}(?!\w)")
_TRUNK = compile_rule(
    rf"(?<![\w.+])(?:\(0\)[ \t]{{0,2}}\d{{2,4}}|[(\[]?0\d{{2,4}}){_SEP}\d{{3,4}}{_SEP}\d{{3,4}}(?![\w]|[.]\d)")
# Pairs and groupings use one separator throughout (a date and a time, "07-15 09:26:30", mix them).
_PAIRS = compile_rule(rf"(?<![\w.+])0[1-9](?P<sep>{_SEP})\d{{2}}(?:(?P=sep)\d{{2}}){{3}}(?![\w]|[.]\d)")
# Three digits (the first group may be bracketed), then three groups of two or three (3-3-2-2, 3-2-2-3, 3-3-3-2,
# ...) with one separator throughout: 10 or 11 digits in all.
_GROUPED_NATIONAL = FastPattern(
    rf"(?<![\w.+])(?:[(\[]\d{{3}}[)\]][ \t]{{0,8}}\d{{2,3}}(?P<sep>{_SEP})\d{{2,3}}(?P=sep)\d{{2,3}}"
    rf"|\d{{3}}(?P<sep2>{_SEP})\d{{2,3}}(?P=sep2)\d{{2,3}}(?P=sep2)\d{{2,3}})(?![\w]|[.]\d|{_SEP}\d)")
_COMPACT = compile_rule(r"(?<![\w.+])1?[2-9]\d{2}[2-9]\d{6}(?!\w|[.]\d)")
# National numbers as most of the world writes them at home (contract and rendered profiles): the trunk prefix 0 and
# an area code of one to five digits, then one to three groups ("07911 123456", "030 90182735", "0151/23456789",
# "03-3581-4221", "06-12345678", "098450 12345"), one separator throughout (a date and a time, "01/02/2026 10:30",
# mix them), or an area code of one to four digits in brackets, with or without the 0 ("(02) 9374 4000",
# "(11) 98765-4321"), then one or two groups; 10 to 12 digits in all. libphonenumber was measured as a validator
# here and does not narrow these shapes: nearly every such digit string is a valid number of some region whose trunk
# prefix is 0 (see docs/privacy-scanner.md), so the shape and the digit count decide. A number that continues a digit
# run after a separator is part of something longer (a date glued to another date, "2026-03-142026-03-15").
_NATIONAL = FastPattern(
    rf"(?<![\w.+])(?<!\d[-./_~:+])(?:0[1-9]\d{{0,4}}(?P<sep>{_SEP})\d{{2,8}}(?:(?P=sep)\d{{2,8}}){{0,2}}"
    rf"|[(\[]0?[1-9]\d{{0,3}}[)\]][ \t]{{0,8}}(?:\r?\n[ \t]{{0,8}})?\d{{2,8}}(?:{_SEP}\d{{2,8}})?)"
    rf"(?![\w]|[.]\d|{_SEP}\d)")
# ... and written without separators: a 0, then a digit other than 0 and 8 to 10 more ("0412345678").
_NATIONAL_COMPACT = FastPattern(r"(?<![\w.+])(?<!\d[-./_~:+])0[1-9]\d{8,10}(?!\w|[.]\d)")
# A bare run of 11 to 13 digits: E.164 written without its plus (contract profile, validated by libphonenumber).
_E164_BARE = FastPattern(r"(?<![\w.+])[1-9]\d{10,12}(?!\w|[.]\d)")
_BARE_RUN = re.compile(r"\d{11}")
# Five digits one at a time with one separator: what every spaced-digit phone and SSN holds (shared gate).
SPACED_GATE = re.compile(r"\d([ \t.\-_/~:])\d\1\d\1\d\1\d")
_FULL = ("full",)
# Where a compact number also counts in the repository profile: inside a URL's path or query (the charter: URL
# payloads cannot smuggle an identifier).
_URL_PARTS = ("url_payload",)


def _grouped(match: regex.Match[str]) -> bool:
    text = match.group(0)
    if regex.fullmatch(r"(?:0|[1-9]\d{0,2})(?:\.(?:0|[1-9]\d{0,2})){3}", text) and all(
            int(part) <= 255 for part in text.split(".")):
        return False  # a dotted IPv4 address (written without leading zeros)
    return 10 <= digit_count(text) <= 11


def _grouped_public(match: regex.Match[str]) -> bool:
    """Repository profile: also not four dotted groups of one to three digits without leading zeros, the shape of
    an IPv4 address (an invented one such as ``198.11.222.333`` included)."""
    text = match.group(0)
    if regex.fullmatch(r"(?:0|[1-9]\d{0,2})(?:\.(?:0|[1-9]\d{0,2})){3}", text):
        return False
    return _grouped(match) and not _fictional(text)


def _national(match: regex.Match[str]) -> bool:
    """10 to 12 digits, not one digit repeated nor counting up or down by one (``0123 456789``: a list)."""
    digits = "".join(char for char in match.group(0) if "0" <= char <= "9")
    return 10 <= len(digits) <= 12 and not _counting(digits)


def _spaced(match: regex.Match[str]) -> bool:
    digits = "".join(char for char in match.group(0) if "0" <= char <= "9")
    return 10 <= len(digits) <= 15 and not _counting(digits)


def _counting(digits: str) -> bool:
    """One digit repeated, or digits counting up or down by one (0 1 2 ... 9 0): a list, not a number."""
    steps = {(int(b) - int(a)) % 10 for a, b in zip(digits, digits[1:])}
    return len(steps) == 1 and steps <= {0, 1, 9}


def _spaced_public(match: regex.Match[str]) -> bool:
    if match.group("s") == ".":
        return False  # an object identifier or a version (1.3.6.1.5.5.7.1.1), not a number read out digit by digit
    digits = "".join(char for char in match.group(0) if "0" <= char <= "9")
    if len(digits) == 11 and digits[0] == "1":
        digits = digits[1:]
    return len(digits) == 10 and _plausible_nanp(digits) and not _counting(digits)


def _plausible_nanp(digits: str) -> bool:
    """Ten digits whose area code and exchange could be dialled (first digit 2-9), outside the fictional range."""
    return digits[0] in "23456789" and digits[3] in "23456789" and not (digits[3:6] == "555" and digits[6:8] == "01")


def _compact_public(match: regex.Match[str]) -> bool:
    """A plausible compact number that is not the numeric tail of a word (``#issuecomment-2106349096``, ``id_...``:
    ids in URLs are glued to a word by a hyphen or an underscore)."""
    digits = match.group(0)
    if regex.search(r"[A-Za-z][-_]$", match.string[max(0, match.start() - 2):match.start()]):
        return False
    return _plausible_nanp(digits[1:] if len(digits) == 11 else digits)


def _e164_bare(match: regex.Match[str]) -> bool:
    """A bare digit run that libphonenumber accepts as a valid number once a plus is put in front (so timestamps,
    counters and other runs that start with no country code, or have the wrong length for it, pass)."""
    import phonenumbers  # imported on first candidate only: most texts never get here

    try:
        number = phonenumbers.parse("+" + match.group(0), None)
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.is_valid_number(number)


_NANP_RULE = compile_rule(_NORTH_AMERICAN)
_CONTEXT_RULE = compile_rule(_CONTEXT)
_SPACED_RULE = FastPattern(_SPACED_DIGITS)

# Number windows (``Rule.window``, conditions (a)-(d) in ``rules/base.py``). Every pattern below consumes only
# digits, ``+``, brackets, spaces, tabs, line breaks and the separators of ``_SEP``/``_GROUPED`` (a), ends with a
# digit and reads past one character only in ``[.]\d``, ``{_SEP}\d`` or ``[ \t.\-_/~:]\d`` lookaheads (c); the
# characters before a match's first digit are at most ``+(`` and a space (international), one bracket or ``+``
# (North American, trunk, grouped), none otherwise (b). The digits every counting match holds (d):
#   international  8   (its validators: 8 to 20 digits)         double_zero  10  (validators: 10 to 20)
#   north_american 10  (3 + 3 + 4 in the pattern)               trunk         9  (3 + 3 + 3 at least)
#   pairs          10  (2 + 4 x 2)                              grouped       9  (3 + 2 + 2 + 2 at least)
#   spaced_digits  10  (1 + 1 + 8 at least)                     compact      10  (10 or 11)
#   e164_bare      11  (11 to 13)                               national     10  (its validator: 10 to 12)
# The context rules consume a word (at most six characters: ``mobile``), up to three others and an optional ``+``
# before the number's first digit (b, lead 10); from that digit on only ``[\d() \t./_-]`` (a); the number ends with a
# digit and the lookahead reads one character (c); the validators want 10 to 15 digits in the number (d).
RULES = (
    Rule("phone.international", PHONE, _INTERNATIONAL, _FULL, _international, "+", EIGHT_DIGITS, window=8),
    Rule("phone.international_public", PHONE, _INTERNATIONAL, _FULL, _international_public, "+", EIGHT_DIGITS,
         window=8),
    Rule("phone.double_zero", PHONE, _DOUBLE_ZERO, _FULL, _double_zero, None, EIGHT_DIGITS, window=10),
    Rule("phone.double_zero_public", PHONE, _DOUBLE_ZERO, _FULL, _double_zero_public, None, EIGHT_DIGITS, window=10),
    Rule("phone.north_american", PHONE, _NANP_RULE, _FULL, _not_in_number_list, None, EIGHT_DIGITS, window=10),
    Rule("phone.north_american_plausible", PHONE, _NANP_RULE, _FULL, _nanp, None, EIGHT_DIGITS, window=10),
    Rule("phone.trunk", PHONE, _TRUNK, _FULL, _trunk, None, EIGHT_DIGITS, window=9),
    Rule("phone.trunk_public", PHONE, _TRUNK, _FULL, _trunk_public, None, EIGHT_DIGITS, window=9),
    Rule("phone.pairs", PHONE, _PAIRS, _FULL, None, None, EIGHT_DIGITS, window=10),
    Rule("phone.pairs_public", PHONE, _PAIRS, _FULL, _pairs_public, None, EIGHT_DIGITS, window=10),
    Rule("phone.grouped", PHONE, _GROUPED_NATIONAL, _FULL, _grouped, None, EIGHT_DIGITS, window=9),
    Rule("phone.grouped_public", PHONE, _GROUPED_NATIONAL, _FULL, _grouped_public, None, EIGHT_DIGITS, window=9),
    Rule("phone.spaced_digits", PHONE, _SPACED_RULE, _FULL, _spaced, None, SPACED_GATE, window=10),
    Rule("phone.spaced_digits_public", PHONE, _SPACED_RULE, _FULL, _spaced_public, None, SPACED_GATE, window=10),
    Rule("phone.context", PHONE, _CONTEXT_RULE, _FULL, _context, None, EIGHT_DIGITS,
         window=10, window_lead=10),
    Rule("phone.context_public", PHONE, _CONTEXT_RULE, _FULL, _context_public, None, EIGHT_DIGITS,
         window=10, window_lead=10),
    Rule("phone.compact", PHONE, _COMPACT, _FULL, None, None, EIGHT_DIGITS, window=10),
    Rule("phone.compact_in_url", PHONE, _COMPACT, _URL_PARTS, _compact_public, None, EIGHT_DIGITS, window=10),
    Rule("phone.e164_bare", PHONE, _E164_BARE, _FULL, _e164_bare, None, _BARE_RUN, window=11),
    Rule("phone.national", PHONE, _NATIONAL, _FULL, _national, None, EIGHT_DIGITS, window=10),
    Rule("phone.national_compact", PHONE, _NATIONAL_COMPACT, _FULL, _national, None, EIGHT_DIGITS, window=10),
)
