"""Every binding hash of the performance area, as pure functions over parsed dicts.

All of them are NERB's Python-canonical object hashes (:func:`nerb_verify.canonical.python_canonical_sha256`) over a
fixed projection of the object. The projections commit plan identity only (what was measured and how), never the
measured values or outcomes, so a plan hash is invariant to timings. The functions never raise on schema-valid input;
they may raise ``TypeError``/``ValueError``/``KeyError`` on malformed input, which callers turn into findings.

The lead's sealing tool (``nerb_verify/seal.py``) imports :func:`performance_manifest_sha256`, :func:`run_sha256`,
:func:`plan_sha256` and :func:`reseal_performance_section`.
"""

from __future__ import annotations

import copy
import marshal
from typing import Any

from nerb_verify.canonical import python_canonical_sha256, self_hash

DESCRIPTOR_COLLECTIONS = ("banks", "inputs", "harnesses", "baselines")

WORKLOAD_PLAN_KEYS = (
    "id", "phase", "promotion_gate", "decision_grade", "harness_id", "harness_sha256", "bank_id", "bank_hash",
    "input_id", "input_sha256", "baseline_id", "warmups", "sample_unit", "work_per_sample", "concurrency",
    "process_model", "median_method", "percentile_method",
)
# Measured (non-plan) fields of a workload: everything else is plan identity.
WORKLOAD_MEASURED_KEYS = (
    "samples_seconds", "samples_ref", "stats", "records_per_sample", "rss_samples_bytes", "peak_rss_bytes",
)
COMPARISON_COMMON_KEYS = (
    "id", "candidate_workload_id", "baseline_workload_id", "comparison_kind", "metric", "direction", "noise_method",
)
SAME_PATH_POLICY_KEYS = (
    "block_count", "samples_per_block", "block_assignment", "significance_level", "stability_tolerance",
)
CROSS_PATH_POLICY_KEYS = ("noise_multiplier", "regression_tolerance")
MODEL_PLAN_KEYS = ("id", "parameter_name", "parameter_unit", "value_unit", "minimum_units", "maximum_units")
COMPONENT_PLAN_KEYS = (
    "id", "side", "application", "category", "source", "description", "workload_id", "assumption_sha256",
)
DECLARED_ASSUMPTION = "declared_assumption"

PLAN_SCHEMA = "nerb.enron_performance_plan.v1"
OPERATION_SCHEMA = "nerb.enron_performance_operation.v1"

# Phase -> implementation label of the operation spec (the two exploratory harnesses are keyed by harness id).
PHASE_IMPLEMENTATION = {
    "source_profile": "source_profile",
    "source_build": "source_build_subprocess",
    "cold_compile": "bank_compile",
    "helper_cache_miss": "json_helper_scan",
    "helper_cache_hit": "json_helper_scan",
    "end_to_end": "json_helper_scan",
    "direct_bank_scan": "direct_bank_scan",
}
EXPLORATORY_IMPLEMENTATION = {
    "generic_regex_harness": "generic_email_regex",
    "python_literal_harness": "python_literal_catalog",
}

DECISION_THRESHOLDS: dict[str, Any] = {
    "max_cross_path_noise_floor": 0.25,
    "max_document_p99_seconds": 0.05,
    "min_documents_per_second": 100.0,
    "min_mib_per_second": 1.0,
    "max_peak_rss_bytes": 8589934592,
}
DECISION_SAMPLE_POLICY: dict[str, Any] = {
    "setup_samples": 20, "scan_samples": 1000, "cache_value_samples": 100, "document_samples": 1000,
    "exact_control_blocks": 10, "setup_samples_per_block": 2, "scan_samples_per_block": 100,
    "cache_value_samples_per_block": 10, "document_samples_per_block": 100, "warmups": 3,
    "interleaving": "ten_block_exact_swap_with_williams_cross_path", "promotable": True,
}
SMOKE_SAMPLE_POLICY: dict[str, Any] = {
    "setup_samples": 5, "scan_samples": 5, "cache_value_samples": None, "document_samples": None,
    "exact_control_blocks": None, "setup_samples_per_block": None, "scan_samples_per_block": None,
    "cache_value_samples_per_block": None, "document_samples_per_block": None, "warmups": 3,
    "interleaving": "candidate_only", "promotable": False,
}
SMOKE_WORKLOAD_IDS = (
    "real_cold_compile", "real_helper_cache_miss", "real_helper_cache_hit", "real_direct_throughput",
    "real_end_to_end", "scale_1000_direct", "scale_1000_concurrency_4",
)


def descriptor_sha256(descriptor: dict[str, Any]) -> str:
    """Bank / input / harness / baseline descriptor hash: the whole descriptor minus ``descriptor_sha256``."""
    return self_hash(descriptor, "descriptor_sha256")


def operation_spec_sha256(harness: dict[str, Any]) -> str | None:
    """The operation-spec hash a harness must carry, from its phase (or exploratory id); None if unknown phase."""
    exploratory = EXPLORATORY_IMPLEMENTATION.get(harness.get("id"))  # type: ignore[arg-type]
    if exploratory is not None:
        # The exploratory (non-equivalent) harnesses hash only their implementation and equivalence label.
        return python_canonical_sha256({"implementation": exploratory, "semantic_equivalence": "not_equivalent"})
    implementation = PHASE_IMPLEMENTATION.get(harness.get("phase"))  # type: ignore[arg-type]
    if implementation is None:
        return None
    return python_canonical_sha256({"schema_version": OPERATION_SCHEMA, "phase": harness.get("phase"),
                                   "operation_spec_version": "1", "implementation": implementation})


def workload_sha256(workload: dict[str, Any]) -> str:
    """Workload plan hash: the 18 plan-identity keys (no timings, no stats)."""
    return python_canonical_sha256({key: workload[key] for key in WORKLOAD_PLAN_KEYS})


def comparison_plan_keys(comparison: dict[str, Any]) -> tuple[str, ...]:
    """The plan keys of a comparison: the common ones plus the frozen policy of its kind."""
    if comparison.get("comparison_kind") == "same_path_stability":
        return COMPARISON_COMMON_KEYS + SAME_PATH_POLICY_KEYS
    return COMPARISON_COMMON_KEYS + CROSS_PATH_POLICY_KEYS


def comparison_plan_sha256(comparison: dict[str, Any]) -> str:
    """Comparison plan hash: kind, ids, metric, direction and the frozen policy (never values or outcomes)."""
    return python_canonical_sha256({key: comparison[key] for key in comparison_plan_keys(comparison)})


def _component_plan(component: dict[str, Any]) -> dict[str, Any]:
    projected = {key: component[key] for key in COMPONENT_PLAN_KEYS}
    if component.get("source") == DECLARED_ASSUMPTION:
        projected["value"] = component["value"]
    return projected


def model_plan_sha256(model: dict[str, Any]) -> str:
    """Break-even model plan hash: roles, sources, units and range; values only for declared assumptions."""
    projected: dict[str, Any] = {key: model[key] for key in MODEL_PLAN_KEYS}
    components = sorted(model["components"], key=lambda c: c["id"])
    projected["components"] = [_component_plan(c) for c in components]
    return python_canonical_sha256(projected)


def declared_assumption_sha256(value: Any) -> str:
    """Hash of a declared scenario value in seconds (the curation assumption)."""
    return python_canonical_sha256({"unit": "seconds", "value": value, "kind": "declared_scenario"})


def performance_manifest_sha256(performance: dict[str, Any]) -> str:
    """Manifest hash: per collection, id plus its *recomputed* inner hash, sorted by id (invariant to timings)."""
    manifest: dict[str, Any] = {}
    for name in DESCRIPTOR_COLLECTIONS:
        manifest[name] = sorted(({"id": d["id"], "descriptor_sha256": descriptor_sha256(d)}
                                 for d in performance[name]), key=lambda row: row["id"])
    manifest["workloads"] = sorted(({"id": w["id"], "workload_sha256": workload_sha256(w)}
                                    for w in performance["workloads"]), key=lambda row: row["id"])
    manifest["comparisons"] = sorted(({"id": c["id"], "comparison_plan_sha256": comparison_plan_sha256(c)}
                                      for c in performance["comparisons"]), key=lambda row: row["id"])
    manifest["breakeven_models"] = sorted(({"id": m["id"], "model_plan_sha256": model_plan_sha256(m)}
                                           for m in performance["breakeven_models"]), key=lambda row: row["id"])
    return python_canonical_sha256(manifest)


def run_sha256(report: dict[str, Any]) -> str:
    """Run hash of performance-report.json: the whole report minus ``run_sha256`` (samples included)."""
    return self_hash(report, "run_sha256")


def _plan_performance(performance: dict[str, Any]) -> dict[str, Any]:
    """The report's performance object with every measured field and every comparison/model output removed."""
    planned: dict[str, Any] = {key: value for key, value in performance.items()
                               if key not in ("workloads", "comparisons", "breakeven_models")}
    planned["workloads"] = [{k: v for k, v in w.items() if k not in WORKLOAD_MEASURED_KEYS}
                            for w in performance["workloads"]]
    planned["comparisons"] = [{k: c[k] for k in comparison_plan_keys(c) + ("comparison_plan_sha256",)}
                              for c in performance["comparisons"]]
    models = []
    for model in performance["breakeven_models"]:
        kept = {k: model[k] for k in MODEL_PLAN_KEYS + ("model_plan_sha256",)}
        kept["components"] = [dict(c, value=c["value"] if c.get("source") == DECLARED_ASSUMPTION else None)
                              for c in model["components"]]
        models.append(kept)
    planned["breakeven_models"] = models
    return planned


def json_copy(value: Any) -> Any:
    """A deep copy of a parsed JSON value (``copy.deepcopy`` for these types, as one C-level marshal round trip:
    every type and float bit kept; the value holds no shared mutable parts, so there is no aliasing to keep)."""
    try:
        return marshal.loads(marshal.dumps(value, 2))
    except ValueError:  # not plain JSON data
        return copy.deepcopy(value)


def _smoke_performance(decision: dict[str, Any]) -> dict[str, Any]:
    """The smoke profile's plan: the seven smoke cells (non-decision) plus the exploratory cells, no comparisons."""
    smoke = json_copy(decision)
    workloads = []
    for workload in smoke["workloads"]:
        if workload["id"] in SMOKE_WORKLOAD_IDS:
            workload["decision_grade"] = False
            workload["promotion_gate"] = False
            workload["workload_sha256"] = workload_sha256(workload)
            workloads.append(workload)
        elif str(workload["id"]).startswith("explore_"):
            workloads.append(workload)
    used_baselines = {w.get("baseline_id") for w in workloads}
    smoke["workloads"] = workloads
    smoke["baselines"] = [b for b in smoke["baselines"] if b["id"] in used_baselines]
    smoke["comparisons"] = []
    smoke["breakeven_models"] = []
    return smoke


def rebuild_plan(report: dict[str, Any]) -> dict[str, Any]:
    """Reconstruct the private plan from the public report (spec 20 section 1.3), ``plan_sha256`` excluded."""
    performance = report["performance"]
    harnesses = {h["id"]: h for h in performance["harnesses"]}
    decision = _plan_performance(performance)
    smoke = _smoke_performance(decision)
    return {
        "schema_version": PLAN_SCHEMA,
        "suite": report["suite"],
        "benchmark_version": report["benchmark_version"],
        "scale_axis": "active_matcher_patterns",
        "catalog_aliases_reported_separately": True,
        "decision_thresholds": dict(DECISION_THRESHOLDS),
        "source_profile_artifact": harnesses["source_profile_harness"]["source_artifact"],
        "source_build_artifact": harnesses["source_build_harness"]["source_artifact"],
        "profiles": {
            "smoke": {"sample_policy": dict(SMOKE_SAMPLE_POLICY),
                      "performance_manifest_sha256": performance_manifest_sha256(smoke), "performance": smoke},
            "decision": {"sample_policy": dict(DECISION_SAMPLE_POLICY),
                         "performance_manifest_sha256": performance_manifest_sha256(decision),
                         "performance": decision},
        },
    }


def plan_sha256(report: dict[str, Any]) -> str:
    """The plan hash rebuilt from the public report (NERB's bundle verifier does not check it; we do)."""
    return python_canonical_sha256(rebuild_plan(report))


def reseal_performance_section(performance: dict[str, Any]) -> None:
    """Re-derive, in place and bottom-up, every descriptor, workload, comparison and model hash of a section.

    Order: bank/input/harness/baseline descriptors; workload references to harness and input descriptors
    (``harness_sha256``, ``input_sha256``); workload hashes; comparison and model plan hashes. ``bank_hash`` (the
    bank's content identity) and inventory references (file hashes) are not descriptor hashes and are left alone.
    Used by fixture tools to produce hash-aware mutants.
    """
    for name in DESCRIPTOR_COLLECTIONS:
        for descriptor in performance.get(name) or []:
            descriptor["descriptor_sha256"] = descriptor_sha256(descriptor)
    harnesses = {h["id"]: h["descriptor_sha256"] for h in performance.get("harnesses") or []}
    inputs = {i["id"]: i["descriptor_sha256"] for i in performance.get("inputs") or []}
    for workload in performance.get("workloads") or []:
        if workload.get("harness_id") in harnesses:
            workload["harness_sha256"] = harnesses[workload["harness_id"]]
        if workload.get("input_id") in inputs:
            workload["input_sha256"] = inputs[workload["input_id"]]
        workload["workload_sha256"] = workload_sha256(workload)
    for comparison in performance.get("comparisons") or []:
        try:
            comparison["comparison_plan_sha256"] = comparison_plan_sha256(comparison)
        except (KeyError, TypeError, ValueError):
            pass  # a comparison too malformed to hash keeps its value (the verifier reports it)
    for model in performance.get("breakeven_models") or []:
        try:
            model["model_plan_sha256"] = model_plan_sha256(model)
        except (KeyError, TypeError, ValueError):
            pass
