"""Structured identifiers: US Social Security number shapes.

Three digits, two digits, four digits, separated by any common separator (hyphen, dot, slash, underscore, space,
tab, newline, or several of them with spaces around), after normalisation has mapped look-alike hyphens and dots and
other scripts' digits. Nine contiguous digits count only where the text says SSN / social security. The contract
profile rejects every such shape; the repository profile only those whose area, group and serial numbers could be
issued (not 000, 666 or 9xx; not 00; not 0000), which keeps version strings and test data with zeros out.
"""

from __future__ import annotations

import regex

from nerb_verify.codes import register
from nerb_verify.privacy.lowercase import lowered
from nerb_verify.privacy.rules.base import EIGHT_DIGITS, FastPattern, Rule, compile_rule
from nerb_verify.privacy.rules.phone import SPACED_GATE

SSN = register(
    "privacy.ssn", "Text has the shape of a US Social Security number.",
    "A 3-2-4 digit group with any separator (or nine digits next to the words SSN / social security) is treated as "
    "a structured identifier. Look-alike hyphens and dots, other scripts' digits and zero-width characters are "
    "normalised first. The value is never printed.")

_SEP = r"(?:[ \t\r\n]{0,8}[-./_~:+()\[\]]{1,3}[ \t\r\n]{0,8}|[ \t\r\n]+)"
_SHAPE = rf"(?<!\d[-./_~:+]?)(?<!\d)[(\[]?(\d{{3}}){_SEP}(\d{{2}}){_SEP}(\d{{4}})(?![-./_~:+]?\d|[ \t]{{1,8}}\d)"
# Nine digits one at a time, each followed by the same one-character separator ("2 1 9 0 9 ...").
_SPACED = r"(?<![\w.+])(?<!\d[ \t.\-_/~:])\d(?P<s>[ \t.\-_/~:])\d(?:(?P=s)\d){7}(?![\w]|[ \t.\-_/~:]\d)"


def _issuable(match: regex.Match[str]) -> bool:
    """An issuable 3-2-4 shape with no bracket opened between its groups (``387.27 (2008)``: a volume, an issue
    and a year in brackets), unless every group is bracketed (square brackets around each of the three groups)."""
    area, group, serial = match.group(1), match.group(2), match.group(3)
    text = match.string
    if regex.search(r"(?<![)\]])[(\[]", text[match.end(1):match.start(3)]):
        return False
    return _issuable_digits(area + group + serial)


def _issuable_digits(digits: str) -> bool:
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def _spaced(match: regex.Match[str]) -> bool:
    return len(set(char for char in match.group(0) if "0" <= char <= "9")) > 1


def _spaced_issuable(match: regex.Match[str]) -> bool:
    if match.group("s") == ".":
        return False  # an object identifier or a version (1.3.6.1.5.5.7.1.1)
    return _issuable_digits("".join(char for char in match.group(0) if "0" <= char <= "9"))


# Number windows (``Rule.window``, conditions (a)-(d) in ``rules/base.py``): the shape and the spaced digits consume
# only digits, brackets and the separators of ``_SEP`` and ``_SPACED`` (a), at most one bracket before the first
# digit (b), end with a digit and read past one character only in ``[-./_~:+]?\d``, ``[ \t]{1,8}\d`` and
# ``[ \t.\-_/~:]\d`` lookaheads (c), and hold 9 digits (3 + 2 + 4; 1 + 1 + 7) (d). The context rule consumes the
# words before the number, with no bound on the spaces in them (no lead): its nine digits in a row only make a run
# with nine digits a necessary condition, and the whole text is searched when one exists.


def _has_ssn_word(text: str) -> bool:
    """The context rule's words: every match starts with "ssn", "ss#" or "social" in some case, with no letter or
    digit right before it (the rule's lookbehind). In ASCII text only ASCII letters can match the words
    case-insensitively, and lower-casing keeps every position, so a text whose lower-cased form holds no such
    occurrence cannot match: the rule's case-insensitive search over a long block then runs only where one is written
    (code is full of "classname", which is not one). Other text is always searched."""
    if not text.isascii():
        return True
    low = lowered(text)
    for word in ("ssn", "ss#", "social"):
        at = low.find(word)
        while at != -1:
            if at == 0 or not low[at - 1].isalnum():
                return True
            at = low.find(word, at + 1)
    return False


RULES = (
    Rule("ssn.shape", SSN, compile_rule(_SHAPE), ("full",), gate=EIGHT_DIGITS, window=9),
    Rule("ssn.issuable_shape", SSN, compile_rule(_SHAPE), ("full",), gate=EIGHT_DIGITS, validate=_issuable,
         window=9),
    Rule("ssn.spaced_digits", SSN, FastPattern(_SPACED), ("full",), gate=SPACED_GATE, validate=_spaced, window=9),
    Rule("ssn.spaced_digits_issuable", SSN, FastPattern(_SPACED), ("full",), gate=SPACED_GATE,
         validate=_spaced_issuable, window=9),
    Rule("ssn.context", SSN, compile_rule(
        r"(?i)(?<![^\W_])(?:ssn|ss\#|social[ \t_-]*security(?:[ \t_-]*(?:no|num|number|\#))?)[^\w\n]{0,5}\d{9}(?!\d)"),
        ("full",), gate=EIGHT_DIGITS, prefilter=_has_ssn_word, window=9, window_lead=None),
)
