"""The one place that says how published doubles are compared with recomputed statistics.

Policy (also in ``docs/performance-float-policy.md``):

1. Every statistic is recomputed **exactly** from the raw samples (integer nanoseconds, exact rationals). The exact
   value is what other families see (``ctx.figures``) and what every gate, comparison outcome and decision uses.
2. A published double *matches* its statistic iff it is bit-identical to one of two reference doubles:
   (a) the correctly rounded double of the exact value, or
   (b) the "float-step" value: the charter definition evaluated in IEEE-754 double arithmetic, one correctly rounded
   operation per step in the documented order (sort, mid-pair sum then halve, each ``|x - m|`` rounded, each division
   rounded once, MiB step ``bytes / 2**20`` before dividing by the median).
   No other tolerance exists. NERB computes in float steps, so the real bundle's MADs (and a few medians and rates)
   differ from (a) by 1-2 ulps and match (b); a producer computing exactly matches (a).
3. Outcomes (within tolerance / unstable, improved / regressed, break-even result and units, gate pass/fail) are
   decided on exact values only and must equal the published outcome exactly. A tolerance can therefore never turn a
   failing gate into a passing one.
4. The largest deviation between a published double and the correctly rounded exact value is measured in ulps and
   reported in ``decisions.performance.float_policy``.

For transcendental outputs (``absolute_log_ratio``) the two references are ``math.log`` of the correctly rounded exact
ratio and ``math.log`` of the float-step ratio; nothing else is accepted.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction
from typing import Any

POLICY_NAME = "exact_or_float_step_bit_identical"


def is_number(value: Any) -> bool:
    """A JSON number that is not a bool (bool is never a number in the contract)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _ordered_bits(value: float) -> int:
    """The double's bit pattern mapped to an integer line on which adjacent doubles differ by one."""
    bits = struct.unpack("<q", struct.pack("<d", value))[0]
    return bits if bits >= 0 else -(bits & 0x7FFFFFFFFFFFFFFF)


def ulp_distance(published: float, exact: Fraction) -> int:
    """How many representable doubles lie between ``published`` and the correctly rounded ``exact`` value."""
    return abs(_ordered_bits(float(published)) - _ordered_bits(float(exact)))


class DeviationTracker:
    """Largest published-vs-exact deviation seen (ulps of the value and relative), for the decision record.

    Deviations in ulps of the *result* can be large where a float step subtracts nearby numbers (a MAD of 7 s
    samples, a 0.004 % gap): the error is a few ulps of the operands, many ulps of the small difference. The relative
    deviation is reported beside it.
    """

    def __init__(self, max_ulps: int = 0, max_relative: Fraction = Fraction(0), compared: int = 0,
                 float_step_only: int = 0) -> None:
        self.max_ulps: int = max_ulps
        self.max_relative: Fraction = max_relative
        self.compared: int = compared
        self.float_step_only: int = float_step_only

    def note(self, published: float, exact: Fraction) -> None:
        self.compared += 1
        if published == float(exact):
            return
        self.float_step_only += 1
        self.max_ulps = max(self.max_ulps, ulp_distance(float(published), exact))
        if exact != 0:
            self.max_relative = max(self.max_relative, abs(Fraction(published) - exact) / abs(exact))

    def to_json(self) -> dict[str, Any]:
        return {"policy": POLICY_NAME, "compared": self.compared,
                "matched_float_step_only": self.float_step_only, "max_deviation_ulps": self.max_ulps,
                "max_relative_deviation": float(self.max_relative)}


def double_matches(published: Any, exact: Fraction | int | None, float_step: float | None,
                   tracker: DeviationTracker | None = None) -> bool:
    """Apply the policy to one published value. ``None`` published matches only a ``None`` (null) statistic."""
    if exact is None:
        return published is None
    if not is_number(published):
        return False
    if isinstance(published, float) and not math.isfinite(published):
        return False
    exact_double = float(exact)
    ok = published == exact_double or (float_step is not None and published == float_step)
    if ok and tracker is not None and isinstance(published, float):
        tracker.note(published, Fraction(exact))
    return ok


def log_matches(published: Any, exact_ratio: Fraction, float_step_ratio: float | None) -> bool:
    """``absolute_log_ratio``: equal to ``log`` of the rounded exact ratio or of the float-step ratio."""
    if not is_number(published):
        return False
    candidates = [math.log(float(exact_ratio))]
    if float_step_ratio is not None and float_step_ratio > 0:
        candidates.append(math.log(float_step_ratio))
    return any(published == value for value in candidates)
