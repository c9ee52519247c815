"""Cross-path directional cache-value comparisons (paired-block timing-ratio MAD noise floor).

r_i = candidate_i / baseline_i over index-paired raw samples (same Williams block and round); c = median(r),
noise_floor = median(|r_i - c|) / c * multiplier (identical for all metrics of a pair). relative_degradation =
(C - B)/B for lower-is-better metrics, (B - C)/B for rates. regressed if rd > noise + tolerance, improved if
rd < -(noise + tolerance), else equivalent_within_noise. A noise floor above 0.25 is nonpromotable by itself.
The ratios are exact rationals (100 per pair, computed once per pair; not in a hot loop).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nerb_verify.checks.performance import codes as C
from nerb_verify.checks.performance.floatpolicy import double_matches, is_number
from nerb_verify.checks.performance.state import PerfState, label
from nerb_verify.checks.performance.statistics import float_median

LOWER_IS_BETTER = frozenset({"median_seconds", "p95_seconds", "p99_seconds", "seconds_per_document"})
HIGHER_IS_BETTER = frozenset({"documents_per_second", "mib_per_second", "records_per_second"})
ALLOWED_PHASES = frozenset({("direct_bank_scan", "helper_cache_miss"), ("direct_bank_scan", "helper_cache_hit"),
                            ("direct_bank_scan", "end_to_end"), ("helper_cache_hit", "helper_cache_miss")})
MATCHED_FIELDS = ("bank_id", "bank_hash", "input_id", "input_sha256", "sample_unit", "work_per_sample",
                  "concurrency", "median_method", "percentile_method")
NOISE_CEILING = Fraction(1, 4)
# The frozen cross-path policy (spec 20 section 8; the charter: comparison hashes commit "the applicable frozen
# policy"). The schema allows 1..5 and 0..0.1, but a comparison with another multiplier or tolerance is not the frozen
# comparison: a tolerance of 0 turns the published helper hit-vs-miss "equivalent_within_noise" into "improved".
NOISE_MULTIPLIER = Fraction(2)
REGRESSION_TOLERANCE = Fraction(1, 20)



def cross_path_outcome(candidate: Fraction, baseline: Fraction, direction: str, floor: Fraction,
                       tolerance: Fraction) -> tuple[Fraction, str]:
    """Relative degradation and result of a directional comparison (spec 20 section 8), exactly.

    Degradation is (C - B) / B when lower is better and (B - C) / B for rates; beyond noise floor + tolerance it
    is ``regressed``, below its negative ``improved``, else ``equivalent_within_noise``. Shared by the verifier and
    the harness so both decide alike.
    """
    if direction == "lower_is_better":
        degradation = (candidate - baseline) / baseline
    else:
        degradation = (baseline - candidate) / baseline
    boundary = floor + tolerance
    if degradation > boundary:
        return degradation, "regressed"
    if degradation < -boundary:
        return degradation, "improved"
    return degradation, "equivalent_within_noise"

def _exact_median(ordered: list[Fraction]) -> Fraction:
    n = len(ordered)
    mid = n // 2
    return ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def is_direct_proxy(workload: dict[str, Any], count: int) -> bool:
    """The 100-sample direct-cache-value support cell: direct, non-decision, no baseline, reused, whole input."""
    return (workload.get("phase") == "direct_bank_scan" and workload.get("decision_grade") is not True
            and workload.get("promotion_gate") is not True and workload.get("baseline_id") is None
            and workload.get("sample_unit") == "whole_input" and workload.get("work_per_sample") == 1
            and workload.get("process_model") == "reused_process" and type(workload.get("warmups")) is int
            and workload["warmups"] >= 3 and count == 100)


def noise_floor(cand: list[int], base: list[int], multiplier: Fraction, f_multiplier: float) -> tuple[Fraction, float]:
    """Exact and float-step paired-ratio MAD noise floor."""
    ratios = sorted(Fraction(a, b) for a, b in zip(cand, base))
    center = _exact_median(ratios)
    mad = _exact_median(sorted(abs(r - center) for r in ratios))
    f_ratios = [(a / 1e9) / (b / 1e9) for a, b in zip(cand, base)]
    f_center = float_median(sorted(f_ratios))
    f_mad = float_median(sorted(abs(r - f_center) for r in f_ratios))
    return mad / center * multiplier, (f_mad / f_center) * f_multiplier


def check_cross_path(state: PerfState, position: int, comparison: dict[str, Any]) -> None:
    """Recompute one cross-path comparison: validity, values, noise floor, degradation and result."""
    base = ("comparisons", position)
    cand = state.lookup("workloads", comparison.get("candidate_workload_id"))
    ref = state.lookup("workloads", comparison.get("baseline_workload_id"))
    if cand is None or ref is None:
        state.add(C.COMPARISON_INVALID, base, "A compared workload does not exist.")
        return
    candidate, baseline = cand[1], ref[1]
    a_ns, b_ns = state.ns.get(cand[0]), state.ns.get(ref[0])
    a_stats, b_stats = state.stats.get(cand[0]), state.stats.get(ref[0])
    if a_ns is None or b_ns is None or a_stats is None or b_stats is None:
        state.add(C.COMPARISON_INVALID, base, "The compared workloads have no usable samples.")
        return
    metric = comparison.get("metric")
    problems: list[str] = []
    if candidate.get("baseline_id") is not None or baseline.get("baseline_id") is not None:
        problems.append("baseline_id")
    if baseline.get("decision_grade") is not True:
        problems.append("baseline_not_decision")
    if candidate.get("decision_grade") is not True and not is_direct_proxy(candidate, len(a_ns)):
        problems.append("candidate_not_decision")
    if candidate.get("sample_unit") != "whole_input":
        problems.append("sample_unit")
    if len(a_ns) != len(b_ns):
        problems.append("sample_count")
    if (candidate.get("phase"), baseline.get("phase")) not in ALLOWED_PHASES:
        problems.append("phase")
    problems.extend(key for key in MATCHED_FIELDS if candidate.get(key) != baseline.get(key))
    direction = "lower_is_better" if metric in LOWER_IS_BETTER else (
        "higher_is_better" if metric in HIGHER_IS_BETTER else None)
    if direction is None or comparison.get("direction") != direction:
        problems.append("direction")
    if comparison.get("noise_method") != "paired_block_ratio_mad":
        problems.append("noise_method")
    multiplier = comparison.get("noise_multiplier")
    tolerance = comparison.get("regression_tolerance")
    if not is_number(multiplier) or Fraction(repr(float(multiplier))) != NOISE_MULTIPLIER:
        problems.append("noise_multiplier")
    if not is_number(tolerance) or Fraction(repr(float(tolerance))) != REGRESSION_TOLERANCE:
        problems.append("regression_tolerance")
    for name in problems:
        state.add(C.COMPARISON_INVALID, base, "Cross-path pair is not comparable: {what}.", what=label(name))
    if problems:
        return
    c_value, b_value = a_stats.exact.get(metric), b_stats.exact.get(metric)  # type: ignore[arg-type]
    if not isinstance(c_value, Fraction) or not isinstance(b_value, Fraction) or b_value <= 0:
        state.add(C.COMPARISON_INVALID, (*base, "metric"), "The metric is null for the compared workloads.")
        return
    f_c, f_b = a_stats.float_step.get(metric), b_stats.float_step.get(metric)  # type: ignore[arg-type]
    exact_multiplier = Fraction(repr(float(multiplier)))
    exact_tolerance = Fraction(repr(float(tolerance)))
    cache = state.noise_cache
    key = (cand[0], ref[0], exact_multiplier)
    if key not in cache:
        cache[key] = noise_floor(a_ns, b_ns, exact_multiplier, float(multiplier))
    floor, f_floor = cache[key]
    state.noise_floors[position] = floor
    degradation, result = cross_path_outcome(c_value, b_value, str(direction), floor, exact_tolerance)
    if direction == "lower_is_better":
        f_degradation = (f_c - f_b) / f_b if isinstance(f_c, float) and isinstance(f_b, float) else None
    else:
        f_degradation = (f_b - f_c) / f_b if isinstance(f_c, float) and isinstance(f_b, float) else None
    outputs = (("candidate_value", c_value, f_c), ("baseline_value", b_value, f_b),
               ("noise_floor", floor, f_floor), ("relative_degradation", degradation, f_degradation))
    for key, exact, f_value in outputs:
        published = comparison.get(key)
        ok = double_matches(published, exact, f_value if isinstance(f_value, float) else None, state.tracker)
        state.record((*base, key), f"performance.cross_path.{key}", published, exact, ok)
        if not ok:
            state.add(C.COMPARISON_VALUE_MISMATCH, (*base, key), "{field} is not supported by the paired samples.",
                      field=label(key))
    state.cross_path_results[position] = result
    published_result = comparison.get("result")
    state.record((*base, "result"), "performance.cross_path.result", published_result, result,
                 published_result == result)
    if published_result != result:
        state.add(C.COMPARISON_RESULT_MISMATCH, (*base, "result"), "Published result differs; the samples give "
                  "{result}.", result=label(result))
    if result == "regressed" or floor > NOISE_CEILING:
        state.failures.add("comparison_regression_or_noise")
        state.add(C.COMPARISON_FAILED, (*base, "result"), "Cross-path comparison is {result} with noise floor "
                  "{floor} (ceiling 1/4).", result=label(result), floor=floor)
