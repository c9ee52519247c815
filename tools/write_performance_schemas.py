"""Write schemas/nerb.enron_performance.v2.json (the evidence ``performance`` section) and
schemas/nerb.enron_performance_run.v1.json (performance-report.json).

Closed objects everywhere; integers where the wire format is integer (counts, bytes, RSS); sample seconds within
[1e-9, 86400]. Field tables: spec 20 sections 1-2 and 7-9, checked against the real bundle. Run
``python tools/write_performance_schemas.py`` after editing; a test checks the committed files equal this output.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

BASE = "https://schemas.nerb-verify.invalid/"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
OUT = Path(__file__).resolve().parent.parent / "schemas"
COMMON = "nerb.enron_common.v2.json"
SECTION = "nerb.enron_performance.v2.json"
RUN = "nerb.enron_performance_run.v1.json"
MAX_INT = 2**63 - 1
MAX_ITEMS = 10000


def c(name: str) -> dict:
    return {"$ref": f"{COMMON}#/$defs/{name}"}


def d(name: str) -> dict:
    return {"$ref": f"#/$defs/{name}"}


def closed(props: dict) -> dict:
    return {"type": "object", "properties": props, "required": sorted(props), "additionalProperties": False}


def nullable(schema: dict) -> dict:
    return {"anyOf": [schema, {"type": "null"}]}


def array(items: dict, min_items: int = 0, max_items: int = MAX_ITEMS) -> dict:
    out: dict = {"type": "array", "items": items, "maxItems": max_items}
    if min_items:
        out["minItems"] = min_items
    return out


COUNT = c("count")
POSITIVE = c("positive_count")
HASH = c("hash")
ID = c("id")
TEXT = c("text")
NUMBER = {"type": "number", "minimum": -1e300, "maximum": 1e300}
NONNEG = c("nonnegative_number")
SECONDS = {"type": "number", "minimum": 0, "maximum": 1e300}
SAMPLE = {"type": "number", "minimum": 1e-9, "maximum": 86400}
PHASES = ["source_profile", "source_build", "cold_compile", "helper_cache_miss", "helper_cache_hit",
          "direct_bank_scan", "end_to_end"]
STAT_NUMBERS = ["median_seconds", "p95_seconds", "p99_seconds", "mad_seconds", "documents_per_second",
                "mib_per_second", "records_per_second", "seconds_per_document"]


def section_defs() -> dict:
    generator = closed({"id": ID, "version": TEXT, "source_sha256": HASH, "spec_sha256": HASH, "seed": TEXT})
    artifact = closed({"id": ID, "sha256": HASH, "bytes": COUNT})
    taxon = closed({"entity_class": ID, "entities": COUNT, "canonical_names": COUNT, "aliases": COUNT,
                    "literal_patterns": COUNT, "regex_patterns": COUNT})
    bank = closed({
        "id": ID, "kind": {"enum": ["evaluated_bank", "synthetic_scale"]}, "bank_hash": HASH, "artifact": d("artifact"),
        "generator": nullable(d("generator")), "composition": closed({"taxonomy": array(d("taxon"), 1)}),
        "descriptor_sha256": HASH, "active_entities": POSITIVE, "active_names": COUNT, "active_aliases": COUNT,
        "active_patterns": POSITIVE, "canonical_json_bytes": COUNT, "native_source_bytes": COUNT})
    length = closed({"minimum_bytes": COUNT, "p50_bytes": COUNT, "p95_bytes": COUNT, "p99_bytes": COUNT,
                     "maximum_bytes": COUNT, "mean_bytes": NONNEG})
    hits = closed({"negative_documents": COUNT, "documents_with_records": COUNT, "minimum_records": COUNT,
                   "p50_records": COUNT, "p95_records": COUNT, "p99_records": COUNT, "maximum_records": COUNT,
                   "mean_records": NONNEG})
    item = closed({
        "id": ID, "kind": {"enum": ["real_input", "synthetic_input"]}, "bank_id": ID, "bank_hash": HASH,
        "artifact": d("artifact"), "inventory_ref": d("artifact"), "generator": nullable(d("generator")),
        "documents": POSITIVE, "bytes": COUNT, "records": COUNT,
        "hit_density": {"enum": ["negative", "sparse", "normal", "dense"]},
        "size_cohort": {"enum": ["small", "medium", "large", "huge"]},
        "document_length_distribution": length, "hit_distribution": hits, "descriptor_sha256": HASH})
    harness = closed({"id": ID, "phase": {"enum": PHASES}, "command_id": ID, "source_sha256": HASH,
                      "operation_spec_sha256": HASH, "source_artifact": nullable(d("artifact")),
                      "descriptor_sha256": HASH})
    stats: dict = {"sample_count": POSITIVE}
    stats.update({name: nullable(SECONDS) for name in STAT_NUMBERS})
    stats["median_seconds"] = SECONDS
    stats["mad_seconds"] = SECONDS
    workload = closed({
        "id": ID, "phase": {"enum": PHASES}, "promotion_gate": {"type": "boolean"},
        "decision_grade": {"type": "boolean"}, "workload_sha256": HASH, "harness_id": ID, "harness_sha256": HASH,
        "bank_id": ID, "bank_hash": HASH, "input_id": c("id_or_null"), "input_sha256": c("hash_or_null"),
        "baseline_id": c("id_or_null"), "warmups": COUNT,
        "sample_unit": {"enum": ["operation", "whole_input", "document"]}, "work_per_sample": POSITIVE,
        "concurrency": {"type": "integer", "minimum": 1, "maximum": 1024},
        "process_model": {"enum": ["fresh_process_per_sample", "reused_process"]},
        "median_method": {"const": "standard_even_average"}, "percentile_method": {"const": "nearest_rank"},
        "samples_seconds": array(SAMPLE), "samples_ref": nullable(d("artifact")), "stats": closed(stats),
        "records_per_sample": nullable(COUNT), "rss_samples_bytes": array(POSITIVE),
        "peak_rss_bytes": nullable(POSITIVE)})
    capabilities = closed({k: {"type": "boolean"} for k in ("literal_patterns", "regex_patterns", "aliases",
                                                              "canonical_mapping", "unicode")})
    baseline = closed({"id": ID, "name": TEXT, "version": TEXT, "source_sha256": HASH, "capabilities": capabilities,
                       "semantic_equivalence": {"enum": ["exact", "subset", "not_equivalent"]},
                       "descriptor_sha256": HASH})
    metric = {"enum": ["sample_count", *STAT_NUMBERS]}
    common = {"id": ID, "candidate_workload_id": ID, "baseline_workload_id": ID, "metric": metric,
              "candidate_value": NUMBER, "baseline_value": NUMBER, "comparison_plan_sha256": HASH}
    same = closed({**common, "comparison_kind": {"const": "same_path_stability"},
                   "direction": {"const": "symmetric"}, "noise_method": {"const": "exact_block_swap"},
                   "block_count": {"const": 10}, "samples_per_block": POSITIVE,
                   "block_assignment": array({"enum": ["candidate_first", "control_first"]}, 10, 10),
                   "significance_level": {"type": "number", "minimum": 0, "maximum": 1},
                   "stability_tolerance": {"type": "number", "minimum": 0, "maximum": 1},
                   "absolute_log_ratio": NONNEG, "absolute_relative_gap": NONNEG,
                   "permutation_p_value": {"type": "number", "minimum": 0, "maximum": 1},
                   "result": {"enum": ["within_tolerance", "unstable", "inconclusive"]}})
    cross = closed({**common, "comparison_kind": {"const": "cross_path_value"},
                    "direction": {"enum": ["lower_is_better", "higher_is_better"]},
                    "noise_method": {"const": "paired_block_ratio_mad"},
                    "noise_multiplier": {"type": "number", "minimum": 1, "maximum": 5},
                    "regression_tolerance": {"type": "number", "minimum": 0, "maximum": 0.1},
                    "relative_degradation": NUMBER, "noise_floor": NONNEG,
                    "result": {"enum": ["improved", "equivalent_within_noise", "regressed"]}})
    component = closed({
        "id": ID, "side": {"enum": ["candidate", "baseline"]}, "application": {"enum": ["fixed", "per_unit"]},
        "category": {"enum": ["source_curation", "source_profiling", "bank_build", "cold_compile", "scan"]},
        "source": {"enum": ["declared_assumption", "workload_median_seconds", "workload_seconds_per_request",
                            "workload_seconds_per_scan", "workload_seconds_per_document",
                            "workload_seconds_per_mib", "workload_seconds_per_record"]},
        "description": TEXT, "workload_id": c("id_or_null"), "assumption_sha256": c("hash_or_null"),
        "value": nullable(NONNEG)})
    model = closed({
        "id": ID, "parameter_name": ID, "parameter_unit": {"enum": ["request", "scan", "document", "mib", "record"]},
        "value_unit": {"const": "seconds"}, "minimum_units": POSITIVE, "maximum_units": POSITIVE,
        "components": array(d("breakeven_component"), 1), "candidate_fixed_value": nullable(NONNEG),
        "baseline_fixed_value": nullable(NONNEG), "candidate_value_per_unit": nullable(NONNEG),
        "baseline_value_per_unit": nullable(NONNEG), "breakeven_units": nullable(POSITIVE),
        "result": {"enum": ["candidate_already_better", "finite_breakeven", "no_breakeven_within_range"]},
        "model_plan_sha256": HASH})
    return {"artifact": artifact, "generator": generator, "taxon": taxon, "bank": bank, "input": item,
            "harness": harness, "workload": workload, "baseline": baseline, "same_path_comparison": same,
            "cross_path_comparison": cross, "breakeven_component": component, "breakeven_model": model}


def section_schema() -> dict:
    schema = closed({
        "evaluated": {"type": "boolean"}, "banks": array(d("bank")), "inputs": array(d("input")),
        "harnesses": array(d("harness")), "workloads": array(d("workload")), "baselines": array(d("baseline")),
        "comparisons": array({"oneOf": [d("same_path_comparison"), d("cross_path_comparison")]}),
        "breakeven_models": array(d("breakeven_model"))})
    return {"$schema": DRAFT, "$id": BASE + SECTION,
            "description": "The performance section of nerb.enron_evidence.v2 (and of nerb.enron_performance_run.v1).",
            "$defs": section_defs(), **schema}


def run_schema() -> dict:
    privacy = closed({"status": {"const": "passed"}, "raw_text_included": {"const": False},
                      "direct_identifiers_included": {"const": False}, "private_paths_included": {"const": False},
                      "violation_count": {"const": 0}})
    decision = closed({"passed": {"type": "boolean"},
                       "failure_codes": {"type": "array", "items": {"type": "string", "minLength": 1,
                                                                   "maxLength": 256},
                                         "uniqueItems": True, "maxItems": MAX_ITEMS}})
    schema = closed({
        "schema_version": {"const": "nerb.enron_performance_run.v1"}, "suite": {"const": "enron_cache_value"},
        "benchmark_version": {"const": "enron"}, "profile": {"enum": ["smoke", "decision"]}, "plan_sha256": HASH,
        "performance_manifest_sha256": HASH, "performance": {"$ref": SECTION}, "environment": c("environment"),
        "software": c("software"), "decision_grade": decision, "sealed_test_accessed": {"type": "boolean"},
        "privacy": privacy, "run_sha256": HASH})
    return {"$schema": DRAFT, "$id": BASE + RUN,
            "description": "performance-report.json: one NERB Enron performance run (public form).", **schema}


def render(schema: dict) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def outputs() -> dict[str, str]:
    """File name -> exact text of each schema this script owns."""
    return {SECTION: render(section_schema()), RUN: render(run_schema())}


def main() -> int:
    for name, text in outputs().items():
        (OUT / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
