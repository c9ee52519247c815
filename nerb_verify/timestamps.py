"""Strict RFC 3339 timestamps with an exact, timezone-aware order.

NERB parses timestamps with Python's ``datetime.fromisoformat`` after replacing ``Z`` (a version-dependent parser that
accepts forms RFC 3339 does not). nerb-verify accepts exactly the RFC 3339 ``date-time`` production with an upper-case
``T`` separator and either ``Z`` or a ``+HH:MM``/``-HH:MM`` offset. A timestamp without an offset (naive) is refused
separately from one that does not parse at all, because a naive time cannot be ordered against the others.

Instants are compared exactly: the whole seconds as an aware UTC ``datetime`` and the fraction of a second as a
``Fraction`` of its decimal digits (so ``.1234567`` is not truncated to microseconds). Leap seconds (``:60``) are not
representable and are refused.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from fractions import Fraction
from typing import NamedTuple

_RFC3339 = re.compile(
    r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})T(?P<h>[0-9]{2}):(?P<m>[0-9]{2}):(?P<s>[0-9]{2})"
    r"(?:\.(?P<frac>[0-9]{1,32}))?(?P<offset>Z|[+-][0-9]{2}:[0-9]{2})?",
    re.ASCII,
)


class Instant(NamedTuple):
    """An exact point in time: whole UTC seconds plus the decimal fraction of a second."""

    # Instants compare and sort as the tuple (utc, fraction), as the order=True dataclass did.

    utc: datetime
    fraction: Fraction


class TimestampError(ValueError):
    """The text is not an RFC 3339 date-time; ``naive`` tells a missing offset apart from a parse failure."""

    def __init__(self, naive: bool) -> None:
        super().__init__("naive timestamp" if naive else "unparseable timestamp")
        self.naive = naive


def parse(text: object) -> Instant:
    """Parse an RFC 3339 timestamp with an offset into an :class:`Instant` (raises :class:`TimestampError`)."""
    if not isinstance(text, str):
        raise TimestampError(naive=False)
    match = _RFC3339.fullmatch(text)
    if match is None:
        raise TimestampError(naive=False)
    try:
        base = datetime.strptime(f"{match['date']}T{match['h']}:{match['m']}:{match['s']}", "%Y-%m-%dT%H:%M:%S")
    except ValueError as exc:
        raise TimestampError(naive=False) from exc
    offset = match["offset"]
    if offset is None:
        raise TimestampError(naive=True)
    if offset == "Z":
        delta = timedelta(0)
    else:
        hours, minutes = int(offset[1:3]), int(offset[4:6])
        if hours > 23 or minutes > 59:
            raise TimestampError(naive=False)
        delta = timedelta(hours=hours, minutes=minutes) * (1 if offset[0] == "+" else -1)
    try:
        utc = (base - delta).replace(tzinfo=timezone.utc)
    except OverflowError as exc:
        raise TimestampError(naive=False) from exc
    frac_digits = match["frac"] or ""
    fraction = Fraction(int(frac_digits), 10 ** len(frac_digits)) if frac_digits else Fraction(0)
    return Instant(utc, fraction)


def try_parse(text: object) -> Instant | None:
    """:func:`parse`, returning None instead of raising."""
    try:
        return parse(text)
    except TimestampError:
        return None
