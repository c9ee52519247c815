"""Cache-value part of the performance harness (spec 20 sections 4.3, 8 and 9): Williams blocks, cross-path
comparisons and the compile-once / scan-many break-even model.

* :func:`williams_schedule` / :func:`measure_cache_value`: the four exact-value paths P0..P3 =
  ``real_direct_cache_value`` (the direct-scan proxy), ``real_helper_cache_hit``, ``real_helper_cache_miss``,
  ``real_end_to_end`` run together. Each of the ten frozen blocks runs the ABBA / BAAB label sequence of
  :func:`~nerb_verify.checks.performance.blocks.abba_labels` (k rounds per twin); round r runs all four paths in
  Williams row ``ROW_PATTERN[r mod 8]`` with the candidate workloads in a candidate round and the ``control_*``
  workloads in a control round. Sample i of every path therefore comes from the same block and round (cross-path
  pairing by index). Reused sessions (proxy, helper hit) are fresh per block and twin.
* :func:`cross_path_comparison`: the 12 directional comparisons, each value computed with the verifier's own exact
  statistics and its paired-ratio noise floor (``checks.performance.cross_path.noise_floor``).
* :func:`breakeven_model`: the nine-component value model, result from the verifier's ``breakeven_result``.

Published doubles are the correctly rounded exact values (float policy reference (a)); outcomes are decided on the
exact values, as the verifier decides them. Nothing here prints or logs a sample, a document or a bank value.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

from nerb_verify.checks.performance import hashes
from nerb_verify.checks.performance.blocks import abba_labels, block_assignment
from nerb_verify.checks.performance.breakeven import breakeven_result
from nerb_verify.checks.performance.cross_path import (
    HIGHER_IS_BETTER,
    LOWER_IS_BETTER,
    cross_path_outcome,
    noise_floor,
)
from nerb_verify.checks.performance.statistics import (
    Denominators,
    compute_stats,
    samples_to_ns,
)
from nerb_verify.producers import sampling

Runs = tuple[list[int], list[int], list[int], list[str]]  # ns, RSS bytes, records, correctness hash per sample

PROXY_ID = "real_direct_cache_value"
CACHE_VALUE_PATHS: tuple[tuple[str, str], ...] = (
    (PROXY_ID, "direct_bank_scan"), ("real_helper_cache_hit", "helper_cache_hit"),
    ("real_helper_cache_miss", "helper_cache_miss"), ("real_end_to_end", "end_to_end"),
)
WILLIAMS_IDS = frozenset(path_id for path_id, _phase in CACHE_VALUE_PATHS)
WILLIAMS_ROWS: tuple[tuple[int, int, int, int], ...] = ((0, 1, 3, 2), (1, 2, 0, 3), (2, 3, 1, 0), (3, 0, 2, 1))
ROW_PATTERN = (0, 1, 2, 3, 1, 0, 3, 2)
ROLES = ("candidate", "control")

CROSS_PATH_PAIRS = (
    ("real_helper_cache_hit", "real_helper_cache_miss"), (PROXY_ID, "real_helper_cache_miss"),
    (PROXY_ID, "real_helper_cache_hit"), (PROXY_ID, "real_end_to_end"),
)
CROSS_PATH_METRICS = ("median_seconds", "p99_seconds", "mib_per_second")
NOISE_MULTIPLIER = 2.0
REGRESSION_TOLERANCE = 0.05

MODEL_ID = "compile_once_scan_many_breakeven"
MINIMUM_UNITS = 1
MAXIMUM_UNITS = 1_000_000_000
CURATION_SECONDS = 60.0
MODEL_WORKLOADS = ("real_source_profile", "real_source_build", "real_cold_compile", "real_direct_throughput",
                   "real_helper_cache_miss")
SHARED_DESCRIPTIONS = {
    "build": "Shared measured bank build time; identical on both cache paths.",
    "source_curation": "Shared declared curation scenario; identical on both cache paths.",
    "source_profiling": "Shared measured source-profiling time; identical on both cache paths.",
}


# ------------------------------------------------------------------------------------------------ the schedule

def williams_schedule(block_count: int, per_twin: int) -> list[list[tuple[str, tuple[int, ...]]]]:
    """Per block, the rounds in order: (``candidate`` | ``control``, the four path indices in execution order).

    Labels are the block's ABBA (candidate-first) or BAAB (control-first) sequence with ``per_twin`` rounds per
    twin; round r of a block uses Williams row ``ROW_PATTERN[r % 8]``.
    """
    schedule = []
    for first in block_assignment(block_count):
        labels = abba_labels(first, per_twin)
        schedule.append([(role, WILLIAMS_ROWS[ROW_PATTERN[r % len(ROW_PATTERN)]]) for r, role in enumerate(labels)])
    return schedule


def _open_sessions(first: str, bank: dict[str, Any], documents: list[bytes], bank_raw: bytes
                   ) -> dict[tuple[str, int], Any]:
    """Fresh reused-process sessions of one block (proxy and helper hit, per twin), first twin first, 3 warmups."""
    order = ROLES if first == "candidate_first" else ROLES[::-1]
    sessions: dict[tuple[str, int], Any] = {}
    for role in order:
        for index, (_path_id, phase) in enumerate(CACHE_VALUE_PATHS):
            if phase in sampling.FRESH:
                continue
            session = sampling.Session(phase, 1, bank, documents, bank_raw, "whole_input")
            for _ in range(sampling.WARMUPS):
                session.operation()
            session.reset()
            sessions[(role, index)] = session
    return sessions


def _take_sample(phase: str, session: Any, request: dict[str, Any]) -> tuple[int, int, int, str]:
    """One timed observation: a fresh worker process for fresh phases, else one call on the block's session."""
    if session is None:
        result = sampling.fresh_sample({**request, "phase": phase})
        return (int(result["elapsed_ns"]), int(result["peak_rss_bytes"]), int(result["record_count"]),
                str(result["correctness_sha256"]))
    start = time.perf_counter_ns()
    found, digest = session.operation()
    elapsed = max(1, time.perf_counter_ns() - start)
    return elapsed, sampling.rss_bytes(), found, digest


def measure_cache_value(per_block: int, bank: dict[str, Any], documents: list[bytes], bank_raw: bytes,
                        request: dict[str, Any], block_count: int = sampling.BLOCKS) -> dict[str, dict[str, Runs]]:
    """Run the Williams schedule; returns path id -> ``candidate`` / ``control`` -> (ns, rss, records, hashes).

    ``request`` carries the ``bank`` and ``input`` file paths for the fresh-process paths (helper miss, end to end).
    """
    runs: dict[str, dict[str, Runs]] = {path_id: {role: ([], [], [], []) for role in ROLES}
                                        for path_id, _phase in CACHE_VALUE_PATHS}
    for first, rounds in zip(block_assignment(block_count), williams_schedule(block_count, per_block)):
        sessions = _open_sessions(first, bank, documents, bank_raw)
        for role, row in rounds:
            for index in row:
                path_id, phase = CACHE_VALUE_PATHS[index]
                sample = _take_sample(phase, sessions.get((role, index)), request)
                for column, value in zip(runs[path_id][role], sample):
                    column.append(value)  # type: ignore[arg-type]
    return runs


# ------------------------------------------------------------------------------------- cross-path comparisons

def exact_stats(workload: dict[str, Any], item: dict[str, Any] | None) -> dict[str, Fraction | int | None]:
    """The workload's exact statistics, from its published samples, as the verifier recomputes them."""
    ns, _bad = samples_to_ns(workload["samples_seconds"])
    if ns is None:
        raise ValueError("a workload sample is not a representable nanosecond count")
    work = workload["work_per_sample"]
    if workload["sample_unit"] == "whole_input" and item is not None:
        den = Denominators("whole_input", item["documents"] * work, item["bytes"] * work,
                           workload["records_per_sample"], work)
    else:
        den = Denominators(workload["sample_unit"], None, None, None, work)
    return compute_stats(ns, workload["phase"], den).exact


def _direction(metric: str) -> str:
    if metric in LOWER_IS_BETTER:
        return "lower_is_better"
    if metric in HIGHER_IS_BETTER:
        return "higher_is_better"
    raise ValueError("a cross-path metric needs a direction")


def cross_path_comparison(candidate: dict[str, Any], baseline: dict[str, Any], metric: str,
                          item: dict[str, Any]) -> dict[str, Any] | None:
    """One directional comparison (spec 20 section 8), or None when the metric is undefined (p99 below 100 samples).

    Noise floor = 2 x MAD / median of the index-paired sample ratios (the verifier's ``noise_floor``);
    relative degradation (C - B) / B, or (B - C) / B for rates; regressed above noise + 5 %, improved below its
    negative, else equivalent within noise.
    """
    a_ns, _ = samples_to_ns(candidate["samples_seconds"])
    b_ns, _ = samples_to_ns(baseline["samples_seconds"])
    if a_ns is None or b_ns is None or len(a_ns) != len(b_ns):
        raise ValueError("cross-path pairs need the same number of valid samples")
    c_value, b_value = exact_stats(candidate, item)[metric], exact_stats(baseline, item)[metric]
    if not isinstance(c_value, Fraction) or not isinstance(b_value, Fraction) or b_value <= 0:
        return None
    direction = _direction(metric)
    floor, _float_floor = noise_floor(a_ns, b_ns, Fraction(repr(NOISE_MULTIPLIER)), NOISE_MULTIPLIER)
    degradation, result = cross_path_outcome(c_value, b_value, direction, floor, Fraction(repr(REGRESSION_TOLERANCE)))
    comparison = {
        "baseline_value": float(b_value), "baseline_workload_id": baseline["id"], "candidate_value": float(c_value),
        "candidate_workload_id": candidate["id"], "comparison_kind": "cross_path_value",
        "comparison_plan_sha256": None, "direction": direction,
        "id": f"compare_{candidate['id']}_vs_{baseline['id']}_{metric}", "metric": metric,
        "noise_floor": float(floor), "noise_method": "paired_block_ratio_mad", "noise_multiplier": NOISE_MULTIPLIER,
        "regression_tolerance": REGRESSION_TOLERANCE, "relative_degradation": float(degradation), "result": result,
    }
    comparison["comparison_plan_sha256"] = hashes.comparison_plan_sha256(comparison)
    return comparison


def cross_path_comparisons(workloads: list[dict[str, Any]], inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The 4 pairs x 3 metrics, sorted by id; empty unless all four exact-value paths were measured."""
    by_id = {w["id"]: w for w in workloads}
    if not WILLIAMS_IDS <= set(by_id):
        return []
    items = {i["id"]: i for i in inputs}
    out = []
    for cand_id, base_id in CROSS_PATH_PAIRS:
        for metric in CROSS_PATH_METRICS:
            comparison = cross_path_comparison(by_id[cand_id], by_id[base_id], metric,
                                               items[by_id[cand_id]["input_id"]])
            if comparison is not None:
                out.append(comparison)
    return sorted(out, key=lambda c: c["id"])


# ------------------------------------------------------------------------------------------ break-even model

def _component(component_id: str, side: str, application: str, category: str, source: str, description: str,
               value: Fraction, workload_id: str | None) -> dict[str, Any]:
    declared = source == hashes.DECLARED_ASSUMPTION
    return {"application": application,
            "assumption_sha256": hashes.declared_assumption_sha256(float(value)) if declared else None,
            "category": category, "description": description, "id": component_id, "side": side,
            "source": source, "value": float(value), "workload_id": workload_id}


def model_components(medians: dict[str, Fraction]) -> list[dict[str, Any]]:
    """The nine frozen roles, sorted by id, from exact workload medians (seconds; work per sample is 1)."""
    shared = (("build", "bank_build", "workload_median_seconds", "real_source_build"),
              ("source_curation", "source_curation", hashes.DECLARED_ASSUMPTION, None),
              ("source_profiling", "source_profiling", "workload_median_seconds", "real_source_profile"))
    components = []
    for side in ("baseline", "candidate"):
        for role, category, source, workload_id in shared:
            value = Fraction(CURATION_SECONDS) if workload_id is None else medians[workload_id]
            components.append(_component(f"{side}_fixed_{role}", side, "fixed", category, source,
                                         SHARED_DESCRIPTIONS[role], value, workload_id))
    components.append(_component(
        "candidate_fixed_cold_compile", "candidate", "fixed", "cold_compile", "workload_median_seconds",
        "Measured one-time cold compile.", medians["real_cold_compile"], "real_cold_compile"))
    components.append(_component(
        "candidate_per_request_direct_reuse", "candidate", "per_unit", "scan", "workload_seconds_per_request",
        "Measured direct compiled-bank reuse cost per whole-input request.", medians["real_direct_throughput"],
        "real_direct_throughput"))
    components.append(_component(
        "baseline_per_request_uncached", "baseline", "per_unit", "scan", "workload_seconds_per_request",
        "Measured helper-cache-miss cost per whole-input request.", medians["real_helper_cache_miss"],
        "real_helper_cache_miss"))
    return sorted(components, key=lambda c: c["id"])


def breakeven_model(workloads: list[dict[str, Any]]) -> dict[str, Any] | None:
    """``compile_once_scan_many_breakeven`` (spec 20 section 9), or None if a bound workload was not measured.

    Totals are exact sums per (side, application); the result and units are the verifier's ``breakeven_result``.
    """
    by_id = {w["id"]: w for w in workloads}
    if any(wid not in by_id for wid in MODEL_WORKLOADS):
        return None
    medians: dict[str, Fraction] = {}
    for wid in MODEL_WORKLOADS:
        median = exact_stats(by_id[wid], None)["median_seconds"]
        if not isinstance(median, Fraction) or by_id[wid]["work_per_sample"] != 1:
            raise ValueError("a model workload has no median or a work per sample other than 1")
        medians[wid] = median
    components = model_components(medians)
    totals: dict[tuple[str, str], Fraction] = {}
    for component in components:
        exact = medians[component["workload_id"]] if component["workload_id"] else Fraction(CURATION_SECONDS)
        key = (component["side"], component["application"])
        totals[key] = totals.get(key, Fraction(0)) + exact
    cf, bf = totals[("candidate", "fixed")], totals[("baseline", "fixed")]
    cu, bu = totals[("candidate", "per_unit")], totals[("baseline", "per_unit")]
    result, units = breakeven_result(cf, bf, cu, bu, MINIMUM_UNITS, MAXIMUM_UNITS)
    model = {
        "baseline_fixed_value": float(bf), "baseline_value_per_unit": float(bu), "breakeven_units": units,
        "candidate_fixed_value": float(cf), "candidate_value_per_unit": float(cu), "components": components,
        "id": MODEL_ID, "maximum_units": MAXIMUM_UNITS, "minimum_units": MINIMUM_UNITS, "model_plan_sha256": None,
        "parameter_name": "whole_input_scan_requests", "parameter_unit": "request", "result": result,
        "value_unit": "seconds",
    }
    model["model_plan_sha256"] = hashes.model_plan_sha256(model)
    return model
