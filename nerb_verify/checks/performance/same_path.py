"""Same-path symmetric stability comparisons (candidate vs its exact control twin).

C and B are the recomputed pooled statistics (median for setup/helper/end-to-end/proxy cells, nearest-rank p99 for
decision direct scans). gap = max/min - 1; within_tolerance iff max <= min * (1 + 0.05) exactly (20*max <= 21*min);
otherwise unstable if the exact block-swap p-value <= 0.05, else inconclusive. The p-value enumerates all 2**10
whole-block label swaps (:mod:`.permutation`) on the raw integer-ns samples.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nerb_verify.checks.performance import codes as C
from nerb_verify.checks.performance.blocks import block_assignment, split_blocks
from nerb_verify.checks.performance.floatpolicy import (
    double_matches,
    is_number,
    log_matches,
)
from nerb_verify.checks.performance.permutation import permutation_count
from nerb_verify.checks.performance.state import PerfState, label

MATCHED_FIELDS = ("phase", "bank_id", "bank_hash", "input_id", "input_sha256", "warmups", "sample_unit",
                  "work_per_sample", "concurrency", "process_model", "median_method", "percentile_method")
BLOCK_COUNT = 10
TOLERANCE = Fraction(1, 20)
SIGNIFICANCE = Fraction(1, 20)


def required_metric(candidate: dict[str, Any]) -> str:
    """p99 for decision-grade direct scans, median for every other cell (setup, helper, end-to-end, proxy)."""
    if candidate.get("phase") == "direct_bank_scan" and candidate.get("decision_grade") is True:
        return "p99_seconds"
    return "median_seconds"


def _valid_pair(state: PerfState, position: int, comparison: dict[str, Any],
                cand: tuple[int, dict[str, Any]], ctrl: tuple[int, dict[str, Any]]) -> bool:
    base = ("comparisons", position)
    problems: list[str] = []
    candidate, control = cand[1], ctrl[1]
    if candidate.get("baseline_id") is not None:
        problems.append("candidate_has_baseline")
    baseline = state.lookup("baselines", control.get("baseline_id"))
    if baseline is None or baseline[1].get("semantic_equivalence") != "exact":
        problems.append("control_not_exact")
    h1 = state.lookup("harnesses", candidate.get("harness_id"))
    h2 = state.lookup("harnesses", control.get("harness_id"))
    if h1 is None or h2 is None or any(h1[1].get(k) != h2[1].get(k)
                                       for k in ("operation_spec_sha256", "source_artifact")):
        problems.append("harness")
    for key in MATCHED_FIELDS:
        if candidate.get(key) != control.get(key):
            problems.append(key)
    if comparison.get("metric") != required_metric(candidate):
        problems.append("metric")
    fixed = {"direction": "symmetric", "noise_method": "exact_block_swap"}
    for key, value in fixed.items():
        if comparison.get(key) != value:
            problems.append(key)
    if not is_number(comparison.get("stability_tolerance")) or Fraction(
            repr(float(comparison["stability_tolerance"]))) != TOLERANCE:
        problems.append("stability_tolerance")
    if not is_number(comparison.get("significance_level")) or Fraction(
            repr(float(comparison["significance_level"]))) != SIGNIFICANCE:
        problems.append("significance_level")
    for name in problems:
        state.add(C.COMPARISON_INVALID, (*base,), "Same-path pair is not comparable: {what}.", what=label(name))
    return not problems


def check_same_path(state: PerfState, position: int, comparison: dict[str, Any]) -> None:
    """Recompute one same-path comparison, its permutation p-value and result."""
    base = ("comparisons", position)
    cand = state.lookup("workloads", comparison.get("candidate_workload_id"))
    ctrl = state.lookup("workloads", comparison.get("baseline_workload_id"))
    if cand is None or ctrl is None:
        state.add(C.COMPARISON_INVALID, base, "A compared workload does not exist.")
        return
    valid = _valid_pair(state, position, comparison, cand, ctrl)
    if comparison.get("block_assignment") != block_assignment(BLOCK_COUNT):
        state.add(C.BLOCK_ASSIGNMENT, (*base, "block_assignment"))
    metric = comparison.get("metric")
    a_ns, b_ns = state.ns.get(cand[0]), state.ns.get(ctrl[0])
    a_stats, b_stats = state.stats.get(cand[0]), state.stats.get(ctrl[0])
    if a_ns is None or b_ns is None or a_stats is None or b_stats is None or metric not in (
            "median_seconds", "p99_seconds"):
        state.add(C.COMPARISON_INVALID, base, "The compared workloads have no usable samples or metric.")
        return
    per_block = comparison.get("samples_per_block")
    if comparison.get("block_count") != BLOCK_COUNT or type(per_block) is not int or len(a_ns) != len(b_ns) or \
            len(a_ns) != BLOCK_COUNT * per_block:
        state.add(C.COMPARISON_INVALID, (*base, "samples_per_block"), "The samples do not split into the frozen "
                  "blocks.")
        valid = False
    if cand[1].get("sample_unit") == "document":
        found = state.lookup("inputs", cand[1].get("input_id"))
        if found is None or per_block != found[1].get("documents"):
            state.add(C.COMPARISON_INVALID, (*base, "samples_per_block"), "A document block must be one complete "
                      "pass over the input's documents.")
            valid = False
    c_value, b_value = a_stats.exact.get(metric), b_stats.exact.get(metric)
    if not isinstance(c_value, Fraction) or not isinstance(b_value, Fraction) or c_value <= 0 or b_value <= 0:
        state.add(C.COMPARISON_INVALID, (*base, "metric"), "The metric is null for the compared workloads.")
        return
    _compare_value(state, base, "candidate_value", comparison, c_value, a_stats.float_step.get(metric))
    _compare_value(state, base, "baseline_value", comparison, b_value, b_stats.float_step.get(metric))
    high, low = max(c_value, b_value), min(c_value, b_value)
    ratio = high / low
    f_c, f_b = a_stats.float_step.get(metric), b_stats.float_step.get(metric)
    f_ratio = (max(f_c, f_b) / min(f_c, f_b)) if isinstance(f_c, float) and isinstance(f_b, float) else None
    gap = ratio - 1
    state.max_gap = gap if state.max_gap is None or gap > state.max_gap else state.max_gap
    published_gap = comparison.get("absolute_relative_gap")
    gap_ok = double_matches(published_gap, gap, None if f_ratio is None else f_ratio - 1, state.tracker)
    state.record((*base, "absolute_relative_gap"), "performance.same_path.absolute_relative_gap", published_gap,
                 gap, gap_ok)
    log_ok = log_matches(comparison.get("absolute_log_ratio"), ratio, f_ratio)
    state.record((*base, "absolute_log_ratio"), "performance.same_path.absolute_log_ratio",
                 comparison.get("absolute_log_ratio"), ratio, log_ok)
    for name, ok in (("absolute_relative_gap", gap_ok), ("absolute_log_ratio", log_ok)):
        if not ok:
            state.add(C.COMPARISON_VALUE_MISMATCH, (*base, name), "{field} is not supported by the samples.",
                      field=label(name))
    within = high <= low * (1 + TOLERANCE)
    p_value: Fraction | None = None
    if valid:
        hits, total = permutation_count(split_blocks(a_ns, BLOCK_COUNT) or [], split_blocks(b_ns, BLOCK_COUNT) or [],
                                        metric)
        p_value = Fraction(hits, total)
        published_p = comparison.get("permutation_p_value")
        p_ok = is_number(published_p) and published_p == float(p_value) and float(p_value) == p_value
        state.record((*base, "permutation_p_value"), "performance.same_path.permutation_p_value", published_p,
                     p_value, p_ok)
        if not p_ok:
            state.add(C.COMPARISON_VALUE_MISMATCH, (*base, "permutation_p_value"), "The p-value is not the one all "
                      "{n} block swaps give.", n=total)
    result = "within_tolerance" if within else (
        "unstable" if p_value is not None and p_value <= SIGNIFICANCE else "inconclusive")
    state.same_path_results[position] = result
    published_result = comparison.get("result")
    state.record((*base, "result"), "performance.same_path.result", published_result, result,
                 published_result == result)
    if published_result != result:
        state.add(C.COMPARISON_RESULT_MISMATCH, (*base, "result"), "Published result differs; the samples give "
                  "{result} (gap {gap}).", result=label(result), gap=gap)
    if result != "within_tolerance":
        state.failures.add("comparison_regression_or_noise")
        state.add(C.COMPARISON_FAILED, (*base, "result"), "Same-path gap {gap} exceeds the 5 % tolerance "
                  "({result}).", gap=gap, result=label(result))


def _compare_value(state: PerfState, base: tuple[str | int, ...], key: str, comparison: dict[str, Any],
                   exact: Fraction, float_step: Any) -> None:
    published = comparison.get(key)
    ok = double_matches(published, exact, float_step if isinstance(float_step, float) else None, state.tracker)
    state.record((*base, key), f"performance.comparison.{key}", published, exact, ok)
    if not ok:
        state.add(C.COMPARISON_VALUE_MISMATCH, (*base, key), "{field} is not the recomputed statistic.",
                  field=label(key))
