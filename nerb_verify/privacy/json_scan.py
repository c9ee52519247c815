"""Contract- or repository-profile scan of a parsed JSON value: every string value and every object key, plus (in
the contract profile) integers of identifier length in free-form fields.

Pointers are built by :func:`nerb_verify.pointers.for_path`: list indices, keys of our shipped schema vocabulary, and
``@key:<position>`` for every other key, so no input key is ever printed. A flagged key is always reported by
position. Promotion-gate targets (``/promotion/checks/<n>/target``) that are valid JSON pointers resolving into the
evidence skip the path rules, which is the one place evidence legitimately stores a slash-rooted string.
"""

from __future__ import annotations

from typing import Any

import regex

from nerb_verify import pointers
from nerb_verify.codes import register
from nerb_verify.findings import Collector
from nerb_verify.privacy import messages
from nerb_verify.privacy.engine import scan_string
from nerb_verify.privacy.profiles import Profile

IDENTIFIER_NUMBER = register(
    "privacy.identifier_number", "A free-form JSON number has the length of a phone number or SSN.",
    "In the contract profile an integer of 9 to 15 digits is treated as a possible SSN or phone number stored as a "
    "number, unless its field is typed: a key from the schema vocabulary, or a name that states a unit or a count "
    "(..._ns, ..._bytes, ..._seconds, ..._records, ..._count and similar).")

_QUANTITY_KEY = regex.compile(
    r"(?:^|_)(?:ns|us|ms|seconds|bytes|records|rows|count|counts|units|documents|patterns|entities|spans|aliases"
    r"|names|items|size|total|actual|threshold|numerator|denominator|index|offset|id)$")


def _free_form(path: tuple[tuple[str | int, int], ...]) -> bool:
    """A number is in a free-form field unless its nearest key is schema vocabulary or names a unit or count."""
    for item, _position in reversed(path):
        if isinstance(item, str):
            return item not in pointers.known_keys() and _QUANTITY_KEY.search(item) is None
    return True


def _is_gate_target(path: tuple[tuple[str | int, int], ...], value: str, pointer_root: Any) -> bool:
    if len(path) != 4 or pointer_root is None:
        return False
    (first, _), (second, _), (index, _), (last, _) = path
    if (first, second, last) != ("promotion", "checks", "target") or not isinstance(index, int):
        return False
    found, _target = pointers.resolve(pointer_root, value)
    return found and value.startswith("/")


def scan_json(document: Any, profile: Profile, collector: Collector, artifact: str,
              pointer_root: Any = None, limit: int = messages.MAX_FINDINGS_PER_FILE) -> int:
    """Scan every key and string of ``document`` (and identifier-length numbers in the contract profile); add one
    finding per (place, code) to ``collector``. ``pointer_root`` is the evidence document that gate targets must
    resolve into. Returns the number of findings added (at most ``limit``, then one truncation warning)."""
    added = 0
    stack: list[tuple[Any, tuple[tuple[str | int, int], ...]]] = [(document, ())]
    while stack:
        value, path = stack.pop()
        hits: list[tuple[str, str, messages.Label]] = []
        if isinstance(value, dict):
            base = pointers.for_path(path)
            for position, (key, child) in enumerate(value.items()):
                for code in sorted(scan_string(key, profile)):
                    hits.append((code, f"{base}/@key:{position}", messages.KEY))
                stack.append((child, path + ((key, position),)))
        elif isinstance(value, list):
            for index in range(len(value) - 1, -1, -1):
                stack.append((value[index], path + ((index, index),)))
        elif isinstance(value, str):
            skip_paths = profile.permit_gate_targets and _is_gate_target(path, value, pointer_root)
            codes = scan_string(value, profile, skip_paths)
            if codes:
                pointer = pointers.for_path(path)
                hits.extend((code, pointer, messages.VALUE) for code in sorted(codes))
        elif (profile.flag_numbers and isinstance(value, int) and not isinstance(value, bool)
              and 9 <= len(str(abs(value))) <= 15 and _free_form(path)):
            hits.append((IDENTIFIER_NUMBER, pointers.for_path(path), messages.NUMBER))
        for code, pointer, where in hits:
            if added >= limit:
                collector.add(messages.TRUNCATED, artifact, "")
                return added
            messages.add(collector, code, artifact, pointer, where, profile.name)
            added += 1
    return added
