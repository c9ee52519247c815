"""Workload statistics from raw samples: exact on integer nanoseconds, plus the float-step replica.

Definitions (charter "Performance And Scale Protocol", spec 20 section 5): median with the standard even rule (mean
of the middle pair), unscaled MAD (median of absolute deviations from the median), nearest-rank percentile at 0-based
index ``ceil(q*n) - 1`` of the sorted samples; p95 needs n >= 20, p99 needs n >= 100 and a non-setup phase. Rates
use the workload median and the bound input's totals; MiB = 2**20 bytes.

Exact values are kept as integers scaled to stay integral: ``m2`` = 2 x median in ns, ``mad4`` = 4 x MAD in ns.
No ``Fraction`` is created per sample; only the handful of final statistics become Fractions. The two MADs
(exact and float-step) are read off the sorted samples by a binary search (:func:`mad4_sorted`,
:func:`float_mad_sorted`), not by sorting a list of deviations.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple

NS_PER_SECOND = 1_000_000_000
MIB = 1024 * 1024
MIN_SAMPLE_NS = 1
MAX_SAMPLE_NS = 86_400 * NS_PER_SECOND
SETUP_PHASES = frozenset({"source_profile", "source_build", "cold_compile"})
STAT_FIELDS = (
    "sample_count", "median_seconds", "p95_seconds", "p99_seconds", "mad_seconds", "documents_per_second",
    "mib_per_second", "records_per_second", "seconds_per_document",
)


def samples_to_ns(values: Any) -> tuple[list[int] | None, int | None]:
    """Convert published seconds to integer ns; returns (ns, None) or (None, index of the first bad sample).

    A sample is accepted only if it is a finite non-bool number in [1 ns, 86,400 s] whose double equals
    ``ns / 1e9`` exactly for the integer ``ns`` nearest to it (every published sample satisfies this).
    """
    if not isinstance(values, list):
        return None, -1
    out: list[int] = []
    append = out.append
    for index, value in enumerate(values):
        kind = type(value)
        if kind is float:
            if not (1e-9 <= value <= 86400.0):
                return None, index
            ns = round(value * 1e9)
            if ns / 1e9 != value:
                return None, index
        elif kind is int:
            if not (1 <= value <= 86400):
                return None, index
            ns = value * NS_PER_SECOND
        else:
            return None, index
        append(ns)
    return out, None


def median2(ordered: list[int]) -> int:
    """Twice the median of a sorted non-empty integer list (standard even rule), as an integer."""
    n = len(ordered)
    mid = n // 2
    if n % 2:
        return 2 * ordered[mid]
    return ordered[mid - 1] + ordered[mid]


def mad4(values: list[int], m2: int) -> int:
    """Four times the unscaled MAD: deviations |2x - m2| are integers; their median x2 gives 4 x MAD."""
    deviations = sorted([abs(2 * x - m2) for x in values])
    return median2(deviations)


def _merged_middle(below: Callable[[int], Any], n_below: int, above: Callable[[int], Any], n_above: int,
                   k: int) -> tuple[Any, Any]:
    """Items ``k`` and ``k + 1`` (0-based; the second None past the end) of the ascending merge of two ascending
    sequences given by index functions, found by a binary search of the split (``permutation.split_at``'s rule:
    the smallest ``i`` whose ``below(i)`` is not below ``above(k - i)``); requires ``0 <= k < n_below + n_above``.
    Reads O(log n) items, so a median of deviations needs no list of them."""
    first, last = max(0, k + 1 - n_above), min(k + 1, n_below)
    while first < last:
        i = (first + last) // 2
        if below(i) < above(k - i):
            first = i + 1
        else:
            last = i
    i, j = first, k + 1 - first
    item = above(j - 1) if i == 0 else below(i - 1) if j == 0 else max(below(i - 1), above(j - 1))
    following = None
    if i < n_below or j < n_above:
        following = (above(j) if i == n_below else below(i) if j == n_above else min(below(i), above(j)))
    return item, following


def mad4_sorted(ordered: list[int], m2: int) -> int:
    """:func:`mad4` of an ascending list, without building the deviations: those of the samples below the median
    (``2x < m2``) read backwards and those of the rest are two ascending runs, whose merged middle pair is found by a
    binary search (exactly :func:`mad4`; the property tests compare the two)."""
    n = len(ordered)
    split = bisect.bisect_right(ordered, (m2 - 1) // 2)  # samples with 2x < m2

    def below(i: int) -> int:
        return m2 - 2 * ordered[split - 1 - i]

    def above(j: int) -> int:
        return 2 * ordered[split + j] - m2

    mid = n // 2
    if n % 2:
        item, _ = _merged_middle(below, split, above, n - split, mid)
        return 2 * item
    item, following = _merged_middle(below, split, above, n - split, mid - 1)
    return item + following


def float_mad_sorted(ordered: list[int], f_median: float) -> float:
    """The float-step MAD, ``float_median(sorted(abs(x / 1e9 - f_median) for x in ordered))``, of ascending
    integer ns without building the deviations. ``x / 1e9`` and ``- f_median`` are correctly rounded and so never
    reverse an order, and a negated difference rounds to the negated rounding, so the deviations of the samples
    whose ``x / 1e9`` lies below the median, read backwards, and those of the rest are two ascending runs (ties
    included); their merged middle gives the same float as sorting (property tests compare the two)."""
    n = len(ordered)
    split = bisect.bisect_left(ordered, f_median, key=lambda x: x / 1e9)

    def below(i: int) -> float:
        return abs(ordered[split - 1 - i] / 1e9 - f_median)

    def above(j: int) -> float:
        return abs(ordered[split + j] / 1e9 - f_median)

    mid = n // 2
    if n % 2:
        item, _ = _merged_middle(below, split, above, n - split, mid)
        return item  # type: ignore[no-any-return]
    item, following = _merged_middle(below, split, above, n - split, mid - 1)
    return (item + following) / 2  # type: ignore[no-any-return]


def nearest_rank_index(n: int, percent: int) -> int:
    """0-based nearest-rank index ``max(0, ceil(percent/100 * n) - 1)``, in exact integer arithmetic."""
    return max(0, -(-percent * n // 100) - 1)


def float_median(ordered: list[float]) -> float:
    """Float-step median of sorted doubles (mid-pair sum rounded, then halved)."""
    n = len(ordered)
    mid = n // 2
    if n % 2:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2


class Denominators(NamedTuple):
    """Throughput denominators of a workload: documents, bytes and records per sample (None when not applicable)."""

    unit: str
    documents: int | None
    bytes: int | None
    records: int | None
    work: int


class WorkloadStats:
    """Exact and float-step statistics of one workload (exact values drive every decision)."""

    def __init__(self, exact: dict[str, Fraction | int | None], float_step: dict[str, float | int | None], m2: int,
                 ordered: list[int]) -> None:
        self.exact: dict[str, Fraction | int | None] = exact
        self.float_step: dict[str, float | int | None] = float_step
        self.m2: int = m2
        self.ordered: list[int] = ordered


def compute_stats(ns: list[int], phase: Any, den: Denominators) -> WorkloadStats:
    """All nine statistic fields, exactly and in float steps, from chronological integer-ns samples (n >= 1)."""
    ordered = sorted(ns)
    n = len(ordered)
    m2 = median2(ordered)
    quad = mad4_sorted(ordered, m2)
    two_billion = 2 * NS_PER_SECOND
    median = Fraction(m2, two_billion)
    exact: dict[str, Fraction | int | None] = {"sample_count": n, "median_seconds": median,
                                               "mad_seconds": Fraction(quad, 4 * NS_PER_SECOND)}
    # The float steps need the sorted doubles only at the middle and the two ranks: x / 1e9 there, not for every x.
    mid = n // 2
    f_median = ordered[mid] / 1e9 if n % 2 else (ordered[mid - 1] / 1e9 + ordered[mid] / 1e9) / 2
    fstep: dict[str, float | int | None] = {"sample_count": n, "median_seconds": f_median,
                                            "mad_seconds": float_mad_sorted(ordered, f_median)}
    p95 = nearest_rank_index(n, 95)
    p99 = nearest_rank_index(n, 99)
    exact["p95_seconds"] = Fraction(ordered[p95], NS_PER_SECOND) if n >= 20 else None
    fstep["p95_seconds"] = ordered[p95] / 1e9 if n >= 20 else None
    has_p99 = n >= 100 and phase not in SETUP_PHASES
    exact["p99_seconds"] = Fraction(ordered[p99], NS_PER_SECOND) if has_p99 else None
    fstep["p99_seconds"] = ordered[p99] / 1e9 if has_p99 else None
    for key in ("documents_per_second", "mib_per_second", "records_per_second", "seconds_per_document"):
        exact[key] = None
        fstep[key] = None
    if den.unit == "whole_input" and den.documents is not None and den.bytes is not None and den.records is not None:
        exact["documents_per_second"] = Fraction(den.documents * two_billion, m2)
        exact["mib_per_second"] = Fraction(den.bytes * two_billion, m2 * MIB)
        exact["records_per_second"] = Fraction(den.records * two_billion, m2)
        exact["seconds_per_document"] = Fraction(m2, two_billion * den.documents) if den.documents else None
        fstep["documents_per_second"] = den.documents / f_median
        fstep["mib_per_second"] = (den.bytes / MIB) / f_median
        fstep["records_per_second"] = den.records / f_median
        fstep["seconds_per_document"] = f_median / den.documents if den.documents else None
    elif den.unit == "document":
        exact["seconds_per_document"] = Fraction(m2, two_billion * den.work)
        fstep["seconds_per_document"] = f_median / den.work
    return WorkloadStats(exact=exact, float_step=fstep, m2=m2, ordered=ordered)
