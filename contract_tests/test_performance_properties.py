"""Hypothesis properties: order statistics and the permutation p-value equal brute-force definitions."""

from __future__ import annotations

import itertools
import math
import statistics
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nerb_verify.checks.performance.permutation import permutation_count  # noqa: E402
from nerb_verify.checks.performance.statistics import (  # noqa: E402
    mad4,
    median2,
    nearest_rank_index,
    samples_to_ns,
)

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


def _samples_to_ns_by_definition(values: list[object]) -> tuple[list[int] | None, int | None]:
    """The sample rule one value at a time: a finite non-bool number in [1 ns, 86,400 s] that is an exact ns count."""
    out = []
    for index, value in enumerate(values):
        if type(value) is int and 1 <= value <= 86400:
            out.append(value * 10**9)
        elif type(value) is float and math.isfinite(value) and 1e-9 <= value <= 86400.0 \
                and round(value * 1e9) / 1e9 == value:
            out.append(round(value * 1e9))
        else:
            return None, index
    return out, None


edge_sample = st.sampled_from([0.0, -0.0, 1e-9, 5e-10, 86400.0, 86400.000001, 86401.0, -1.0, math.nan, math.inf,
                               -math.inf, 0.1, 1.5e-9, True, False, 0, 1, 86400, 86401, None, "1"])
published_sample = st.integers(min_value=1, max_value=10**12).map(lambda ns: ns / 1e9)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(published_sample, published_sample, st.floats(), edge_sample), max_size=40))
def test_samples_to_ns_equals_the_rule_applied_one_value_at_a_time(values: list[object]) -> None:
    """samples_to_ns applies the sample rule (spec 20 section 5) to every value and names the first bad sample."""
    assert samples_to_ns(values) == _samples_to_ns_by_definition(values)


@given(st.lists(published_sample, min_size=1, max_size=40))
def test_samples_to_ns_accepts_every_published_form(values: list[float]) -> None:
    ns, bad = samples_to_ns(values)
    assert bad is None and ns == [round(v * 1e9) for v in values]


# --- robustness: arbitrary values anywhere in the section never raise -------------------------------------------

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**63), max_value=2**63 - 1),
                      st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8),
                      st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=4), st.integers(),
                                                                           max_size=2))


def _paths(node: object, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("samples_seconds", "rss_samples_bytes"):
                out.append(prefix + (key,))
                out.append(prefix + (key, 0))
                continue
            out.extend(_paths(value, prefix + (key,)))
    elif isinstance(node, list):
        for index, value in enumerate(node[:3]):
            out.extend(_paths(value, prefix + (index,)))
    return out


_STATE: dict = {}


def _base():
    if not _STATE:
        from nerb_verify.bundle import open_bundle
        from nerb_verify.checks.raw import schema_check
        from nerb_verify.context import VerifyContext, VerifyOptions
        from nerb_verify.findings import Collector

        root = Path(__file__).resolve().parent.parent / "fixtures" / "bundles" / "nerb-enron"
        ctx = VerifyContext(root=root, options=VerifyOptions(), collector=Collector())
        open_bundle(ctx)
        schema_check.run(ctx)
        _STATE["ctx"] = ctx
        _STATE["paths"] = _paths(ctx.artifacts["benchmark-evidence.json"]["performance"])
    return _STATE["ctx"], _STATE["paths"]


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_any_edit_of_the_section_is_a_finding_never_a_traceback(data: st.DataObject) -> None:
    import copy

    from nerb_verify.checks import performance
    from nerb_verify.context import VerifyContext, VerifyOptions
    from nerb_verify.findings import Collector

    base, paths = _base()
    path = data.draw(st.sampled_from(paths[1:]))
    value = data.draw(json_leaf)
    ctx = VerifyContext(root=base.root, options=VerifyOptions(), collector=Collector())
    ctx.files = base.files
    ctx.artifacts = dict(base.artifacts)
    evidence = copy.deepcopy(base.artifacts["benchmark-evidence.json"])
    ctx.artifacts["benchmark-evidence.json"] = evidence
    ctx.inventories = base.inventories
    node = evidence["performance"]
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    performance.run(ctx)  # must not raise
    assert ctx.collector.checks_run["performance"]["status"] in ("ran", "not_evaluated")
    assert ctx.collector.decisions["performance"]["decision_grade"] in ("passed", "failed", "not_evaluated")


@given(st.lists(st.integers(min_value=1, max_value=86_400 * 10**9), min_size=1, max_size=60))
def test_float_step_statistics_equal_their_one_value_at_a_time_definition(ns: list[int]) -> None:
    """The float-step replica (what a publisher's float arithmetic gives) computed in C-level passes equals the same
    steps written per value: x / 1e9, the float median, then the median of |x / 1e9 - median|."""
    from nerb_verify.checks.performance.statistics import Denominators, compute_stats, float_median

    stats = compute_stats(ns, "end_to_end", Denominators("operation", None, None, None, 1))
    floats = sorted([x / 1e9 for x in ns])
    median = float_median(floats)
    assert stats.float_step["median_seconds"] == median
    assert stats.float_step["mad_seconds"] == float_median(sorted([abs(x / 1e9 - median) for x in ns]))
    assert stats.float_step["p95_seconds"] == (floats[nearest_rank_index(len(ns), 95)] if len(ns) >= 20 else None)
    assert Fraction(stats.exact["mad_seconds"]) == Fraction(mad4(ns, median2(sorted(ns))), 4 * 10**9)


@given(st.lists(st.one_of(st.integers(-5, 10**20), st.booleans(), st.floats(), st.none()), max_size=12))
def test_rss_samples_rule_is_every_item_a_positive_int(values: list[object]) -> None:
    from nerb_verify.checks.performance.workloads import _positive_ints

    assert _positive_ints(values) == all(type(v) is int and v > 0 for v in values)  # type: ignore[operator]


@given(json_leaf | st.lists(json_leaf, max_size=3) | st.dictionaries(st.text(max_size=3), json_leaf, max_size=3))
def test_json_copy_is_a_deep_copy_with_the_same_types(value: object) -> None:
    import copy

    from nerb_verify.canonical import python_canonical_bytes
    from nerb_verify.checks.performance.hashes import json_copy

    copied = json_copy({"v": value, "nested": [value]})
    assert python_canonical_bytes(copied) == python_canonical_bytes(copy.deepcopy({"v": value, "nested": [value]}))
    copied["nested"].append(1)
    assert copied["v"] is not value or not isinstance(value, (list, dict))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=30), max_size=25),
       st.lists(st.integers(min_value=1, max_value=30), max_size=25), st.data())
def test_merged_order_statistic_by_split_equals_sorting(lo: list[int], hi: list[int], data: st.DataObject) -> None:
    """The permutation test's binary search for an item of a merged pool (``permutation._kth``, ``_kth_pair``) gives
    the item of the sorted concatenation, ties and one-sided splits included."""
    from nerb_verify.checks.performance import permutation

    lo, hi = sorted(lo), sorted(hi)
    merged = sorted(lo + hi)
    if not merged:
        return
    k = data.draw(st.integers(min_value=0, max_value=len(merged) - 1))
    assert permutation._kth(lo, hi, k) == merged[k]
    if k + 1 < len(merged):
        assert permutation._kth_pair(lo, hi, k) == merged[k] + merged[k + 1]


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=6), st.integers(min_value=1, max_value=6),
       st.sampled_from(["median_seconds", "p99_seconds", "p95_seconds"]), st.data())
def test_permutation_count_by_search_equals_direct_enumeration(blocks: int, size: int, metric: str,
                                                               data: st.DataObject) -> None:
    """The same p-value when every merged pool is searched instead of sorted (the path the real bundle's 100-sample
    medians take; the small pools drawn here would otherwise be sorted)."""
    from nerb_verify.checks.performance import permutation

    block = st.lists(st.integers(min_value=1, max_value=50), min_size=size, max_size=size)
    cand = data.draw(st.lists(block, min_size=blocks, max_size=blocks))
    ctrl = data.draw(st.lists(block, min_size=blocks, max_size=blocks))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(permutation, "SEARCH_ABOVE", 0)
        assert permutation_count(cand, ctrl, metric) == _direct_p_value(cand, ctrl, metric)


clustered = st.integers(min_value=1, max_value=4).flatmap(
    lambda spread: st.lists(st.integers(min_value=10**9 - spread, max_value=10**9 + spread), min_size=1, max_size=40))


@given(samples | clustered)
def test_mad_by_split_search_equals_sorting_the_deviations(values: list[int]) -> None:
    """The exact MAD read off the sorted samples by a binary search (mad4_sorted) equals the MAD of the sorted list of
    deviations (mad4), ties and one- and two-sample lists included."""
    from nerb_verify.checks.performance.statistics import mad4_sorted

    ordered = sorted(values)
    assert mad4_sorted(ordered, median2(ordered)) == mad4(values, median2(ordered))


@given(st.lists(st.integers(min_value=1, max_value=86_400 * 10**9), min_size=1, max_size=60) | clustered)
def test_float_mad_by_split_search_equals_sorting_the_float_deviations(ns: list[int]) -> None:
    """The float-step MAD by a binary search (float_mad_sorted) is the same double as the median of the sorted
    |x / 1e9 - median| (doubles whose deviations tie or round alike included)."""
    from nerb_verify.checks.performance.statistics import float_mad_sorted, float_median

    ordered = sorted(ns)
    median = float_median([x / 1e9 for x in ordered])
    assert float_mad_sorted(ordered, median) == float_median(sorted([abs(x / 1e9 - median) for x in ns]))
