"""Pure evaluation of one promotion gate check, shared by the gate, lineage (audit-chain decision) and claim families.

A gate ``{id, category, target, operator, threshold, actual, passed}`` is evaluated in four steps:

1. the ``target`` must be an RFC 6901 pointer under the prefix its ``category`` allows (performance targets must name
   a workload statistic or the peak RSS exactly);
2. it must resolve *strictly* (:func:`nerb_verify.pointers.resolve`: list indices are canonical decimals, so NERB's
   ``-1``, ``+1``, ``01`` quirks do not resolve) to a JSON scalar in the evidence;
3. the comparison value is the verifier's own exact figure where one exists (``ctx.figures``: quality metrics,
   conformance recall, performance statistics and peak RSS); a figure that is missing or ``None`` makes the gate
   *not evaluated*, never passed. Other targets (integer counts, booleans, strings) compare their stored scalar;
4. the threshold is read as the exact decimal it is written as (``Fraction(str(threshold))``), and ``gte``/``lte``/
   ``eq`` are decided on exact rationals. A stored double used as a comparison value counts at its exact binary value.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Literal, NamedTuple

from nerb_verify import pointers

CATEGORY_PREFIXES: dict[str, tuple[str, ...]] = {
    "quality": ("/quality/",),
    "catalog_conformance": ("/catalog_conformance/",),
    "performance": ("/performance/",),
    "privacy": ("/privacy/",),
    "provenance": ("/software/", "/splits/", "/bank/", "/source/", "/preparation/"),
}
OPERATORS = ("gte", "lte", "eq")
PERFORMANCE_STATS = ("sample_count", "median_seconds", "p95_seconds", "p99_seconds", "mad_seconds",
                     "documents_per_second", "mib_per_second", "records_per_second", "seconds_per_document")
_INDEX = r"(?:0|[1-9][0-9]*)"
PERFORMANCE_TARGET = re.compile(
    rf"/performance/workloads/{_INDEX}/(?:peak_rss_bytes|stats/(?:{'|'.join(PERFORMANCE_STATS)}))", re.ASCII)
QUALITY_METRIC_TARGET = re.compile(rf"/quality/slices/(?P<slice>{_INDEX})/metrics/(?P<metric>[a-z0-9_]+)", re.ASCII)
CONFORMANCE_RECALL_TARGET = "/catalog_conformance/recall"

Status = Literal["ok", "malformed", "category_target", "target", "not_evaluated", "comparison"]


class GateOutcome(NamedTuple):
    """What evaluating one gate found. ``result`` is the recomputed pass/fail when ``status == "ok"``."""

    status: Status
    reason: str = ""
    found: bool = False
    stored: Any = None
    value: Any = None
    result: bool | None = None


def is_scalar(value: object) -> bool:
    """JSON scalars: null, booleans, numbers and strings."""
    return value is None or isinstance(value, (bool, int, float, str))


def exact_copy(copy: object, original: object) -> bool:
    """Whether ``copy`` is an exact, type-strict copy of the scalar ``original``.

    Booleans never equal numbers, integers never equal floats (a copy keeps its JSON type, as the canonical hash
    does), and floats must be bit-identical (a one-ulp drift is a different value).
    """
    if type(copy) is not type(original):
        return False
    if isinstance(copy, float):
        return copy.hex() == original.hex()  # type: ignore[union-attr]
    return copy == original


def is_number(value: object) -> bool:
    """A JSON number (an int or float, never a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def decimal_value(value: object) -> Fraction | None:
    """The exact decimal a JSON number is written as: ``0.95`` is 19/20 (``Fraction(str(x))``). None if not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):
        return Fraction(value)
    try:
        return Fraction(repr(value))
    except (ValueError, OverflowError):
        return None


def binary_value(value: object) -> Fraction | None:
    """The exact value of a stored number (a double at its binary value). None if not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return Fraction(value)
    except (ValueError, OverflowError):
        return None


def uses_figure(target: str) -> bool:
    """Whether the gate compares the verifier's own recomputed figure rather than the stored scalar."""
    return (QUALITY_METRIC_TARGET.fullmatch(target) is not None or target == CONFORMANCE_RECALL_TARGET
            or PERFORMANCE_TARGET.fullmatch(target) is not None)


def compare(value: Fraction, operator: str, threshold: Fraction) -> bool:
    """Exact rational comparison."""
    if operator == "gte":
        return value >= threshold
    if operator == "lte":
        return value <= threshold
    return value == threshold


def evaluate(check: object, evidence: object, figures: dict[str, Any]) -> GateOutcome:
    """Evaluate one gate check against the evidence and the exact figures (see module docstring). Never raises."""
    if not isinstance(check, dict):
        return GateOutcome("malformed", "check")
    category, target, operator = check.get("category"), check.get("target"), check.get("operator")
    if not isinstance(category, str) or category not in CATEGORY_PREFIXES:
        return GateOutcome("malformed", "category")
    if not isinstance(target, str):
        return GateOutcome("malformed", "target")
    if not isinstance(operator, str) or operator not in OPERATORS:
        return GateOutcome("malformed", "operator")
    if not target.startswith(CATEGORY_PREFIXES[category]):
        return GateOutcome("category_target", "prefix")
    if category == "performance" and PERFORMANCE_TARGET.fullmatch(target) is None:
        return GateOutcome("target", "performance_shape")
    found, stored = pointers.resolve(evidence, target)
    if not found:
        return GateOutcome("target", "unresolved")
    if not is_scalar(stored):
        return GateOutcome("target", "not_scalar", found=True)
    threshold = check.get("threshold")
    if uses_figure(target):
        if target not in figures:
            return GateOutcome("not_evaluated", "figure_missing", True, stored)
        value = figures[target]
        if value is None:
            return GateOutcome("not_evaluated", "figure_null", True, stored)
        exact = binary_value(value) if not isinstance(value, Fraction) else value
        if exact is None:
            return GateOutcome("not_evaluated", "figure_missing", True, stored)
        limit = decimal_value(threshold)
        if limit is None:
            return GateOutcome("comparison", "threshold_not_number", True, stored, exact)
        return GateOutcome("ok", "", True, stored, exact, compare(exact, operator, limit))
    if is_number(stored):
        exact = binary_value(stored)
        limit = decimal_value(threshold)
        if exact is None or limit is None:
            return GateOutcome("comparison", "threshold_not_number", True, stored, exact)
        return GateOutcome("ok", "", True, stored, exact, compare(exact, operator, limit))
    # Booleans, strings and null: only equality is meaningful, and only against a threshold of the same JSON type
    # (a boolean compared with a string or a number is a malformed gate, not a failed one).
    if operator != "eq":
        return GateOutcome("comparison", "ordering_not_number", True, stored, stored)
    if type(threshold) is not type(stored):
        return GateOutcome("comparison", "threshold_type", True, stored, stored)
    return GateOutcome("ok", "", True, stored, stored, threshold == stored)
