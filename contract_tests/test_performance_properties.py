"""Hypothesis properties: order statistics and the permutation p-value equal brute-force definitions."""

from __future__ import annotations

import itertools
import math
import statistics
import sys
from fractions import Fraction
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nerb_verify.checks.performance.permutation import permutation_count  # noqa: E402
from nerb_verify.checks.performance.statistics import mad4, median2, nearest_rank_index  # noqa: E402

samples = st.lists(st.integers(min_value=1, max_value=10**6), min_size=1, max_size=60)


@given(samples, st.integers(min_value=1, max_value=100))
def test_nearest_rank_is_the_smallest_value_covering_q_percent(values: list[int], percent: int) -> None:
    ordered = sorted(values)
    n = len(ordered)
    chosen = ordered[nearest_rank_index(n, percent)]
    # Brute force: the smallest sample x such that at least q% of the samples are <= x.
    brute = min(x for x in ordered if Fraction(sum(1 for y in ordered if y <= x), n) >= Fraction(percent, 100))
    assert chosen == brute
    assert nearest_rank_index(n, percent) == max(0, math.ceil(percent * n / 100) - 1) or n > 10000


@given(samples)
def test_median_and_mad_equal_the_textbook_definition(values: list[int]) -> None:
    exact = [Fraction(v) for v in values]
    median = statistics.median(exact)
    assert Fraction(median2(sorted(values)), 2) == median
    assert Fraction(mad4(values, median2(sorted(values))), 4) == statistics.median([abs(x - median) for x in exact])


def _pooled(values: list[int], metric: str) -> Fraction:
    ordered = sorted(values)
    if metric == "median_seconds":
        return statistics.median([Fraction(v) for v in ordered])
    return Fraction(ordered[nearest_rank_index(len(ordered), 99 if metric == "p99_seconds" else 95)])


def _direct_p_value(cand: list[list[int]], ctrl: list[list[int]], metric: str) -> tuple[int, int]:
    def statistic(a: list[int], b: list[int]) -> Fraction:
        x, y = _pooled(a, metric), _pooled(b, metric)
        return max(x, y) / min(x, y)

    observed = statistic([v for blk in cand for v in blk], [v for blk in ctrl for v in blk])
    hits = 0
    count = len(cand)
    for swaps in itertools.product((False, True), repeat=count):
        a = [v for i in range(count) for v in (ctrl[i] if swaps[i] else cand[i])]
        b = [v for i in range(count) for v in (cand[i] if swaps[i] else ctrl[i])]
        hits += statistic(a, b) >= observed
    return hits, 2**count


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=1, max_value=6), st.integers(min_value=1, max_value=6),
       st.sampled_from(["median_seconds", "p99_seconds", "p95_seconds"]), st.data())
def test_permutation_count_equals_direct_enumeration(blocks: int, size: int, metric: str, data: st.DataObject) -> None:
    block = st.lists(st.integers(min_value=1, max_value=50), min_size=size, max_size=size)
    cand = data.draw(st.lists(block, min_size=blocks, max_size=blocks))
    ctrl = data.draw(st.lists(block, min_size=blocks, max_size=blocks))
    assert permutation_count(cand, ctrl, metric) == _direct_p_value(cand, ctrl, metric)
