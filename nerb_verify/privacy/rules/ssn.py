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
from nerb_verify.privacy.rules.base import EIGHT_DIGITS, Rule, compile_rule

SSN = register(
    "privacy.ssn", "Text has the shape of a US Social Security number.",
    "A 3-2-4 digit group with any separator (or nine digits next to the words SSN / social security) is treated as "
    "a structured identifier. Look-alike hyphens and dots, other scripts' digits and zero-width characters are "
    "normalised first. The value is never printed.")

_SEP = r"(?:[ \t\r\n]{0,8}[-./_][ \t\r\n]{0,8}|[ \t\r\n]+)"
_SHAPE = rf"(?<!\d[-./_]?)(?<!\d)(\d{{3}}){_SEP}(\d{{2}}){_SEP}(\d{{4}})(?![-./_]?\d)"


def _issuable(match: regex.Match[str]) -> bool:
    area, group, serial = match.group(1), match.group(2), match.group(3)
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


RULES = (
    Rule("ssn.shape", SSN, compile_rule(_SHAPE), ("full",), gate=EIGHT_DIGITS),
    Rule("ssn.issuable_shape", SSN, compile_rule(_SHAPE), ("full",), gate=EIGHT_DIGITS, validate=_issuable),
    Rule("ssn.context", SSN, compile_rule(
        r"(?i)(?<![^\W_])(?:ssn|ss\#|social[ \t_-]*security(?:[ \t_-]*(?:no|num|number|\#))?)[^\w\n]{0,5}\d{9}(?!\d)"),
        ("full",), gate=EIGHT_DIGITS),
)
