"""Write schemas/nerb.enron_common.v2.json, nerb.enron_manifest.v2.json and nerb.enron_evidence.v2.json.

The contract schemas are authored here with small shorthands (hash, non-empty string, closed object) because the
manifest and evidence share most of their sub-objects and a hand-copied 600-line JSON file drifts. Run
``python tools/write_contract_schemas.py`` after editing; a test checks the committed files equal this output.
The field tables come from NERB's published contract (spec 10 sections 3-5).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

BASE = "https://schemas.nerb-verify.invalid/"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
OUT = Path(__file__).resolve().parent.parent / "schemas"
COMMON = "nerb.enron_common.v2.json"

MAX_INT = 2**63 - 1


def ref(name: str, file: str | None = None) -> dict:
    return {"$ref": f"{file or ''}#/$defs/{name}"}


def c(name: str) -> dict:
    """Reference into the common schema."""
    return ref(name, COMMON)


def closed(props: dict, required: list[str] | None = None) -> dict:
    return {
        "type": "object",
        "properties": props,
        "required": sorted(props) if required is None else required,
        "additionalProperties": False,
    }


def nullable(schema: dict) -> dict:
    return {"anyOf": [schema, {"type": "null"}]}


def array(items: dict, min_items: int = 0, unique: bool = False) -> dict:
    out: dict = {"type": "array", "items": items, "maxItems": 10000}
    if min_items:
        out["minItems"] = min_items
    if unique:
        out["uniqueItems"] = True
    return out


def common_defs() -> dict:
    S = {"type": "string", "minLength": 1, "maxLength": 4096}
    ID = {"type": "string", "minLength": 1, "maxLength": 256}
    defs: dict = {
        "hash": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
        "hash_or_null": nullable({"$ref": "#/$defs/hash"}),
        "git_commit": {"type": "string", "pattern": "^[0-9a-f]{40}$"},
        "text": S,
        "text_or_null": nullable(S),
        "id": ID,
        "id_or_null": nullable(ID),
        "timestamp": {"type": "string", "minLength": 1, "maxLength": 64},
        "timestamp_or_null": nullable({"type": "string", "minLength": 1, "maxLength": 64}),
        "count": {"type": "integer", "minimum": 0, "maximum": MAX_INT},
        "positive_count": {"type": "integer", "minimum": 1, "maximum": MAX_INT},
        "unit_or_null": nullable({"type": "number", "minimum": 0, "maximum": 1}),
        "nonnegative_number": {"type": "number", "minimum": 0, "maximum": 1e300},
        "string_set": array(S, unique=True),
        "string_set_nonempty": array(S, min_items=1, unique=True),
        "split_role": {"enum": ["train", "validation", "test"]},
        "label_role": {"enum": ["train", "validation", "test", "conformance"]},
        "label_strength": {"enum": ["independent", "structured_weak", "synthetic_conformance", "unlabeled"]},
        "annotation_completeness": {"enum": ["exhaustive_within_scope", "partial", "not_applicable"]},
    }
    H = {"$ref": "#/$defs/hash"}
    defs["artifact_ref"] = closed({"id": ID, "sha256": H, "bytes": {"$ref": "#/$defs/positive_count"}})
    defs["artifact_ref_or_null"] = nullable({"$ref": "#/$defs/artifact_ref"})
    defs["evaluator"] = closed({"id": ID, "version": S, "source_sha256": H, "label_schema_sha256": H})
    defs["verifier_identity"] = closed(
        {"id": {"const": "nerb-enron-contract"}, "version": {"const": "2.2.0"}, "source_sha256": H})
    defs["verifier_result"] = closed(
        {"id": {"const": "nerb-enron-contract"}, "version": {"const": "2.2.0"}, "source_sha256": H,
         "passed": {"type": "boolean"}})
    defs["source"] = closed({"id": ID, "revision": S, "owner": S, "access": S, "content_sha256": H,
                             "input_records": {"$ref": "#/$defs/positive_count"}})
    defs["software"] = closed({"package_version": S, "engine_version": S,
                               "git_commit": {"$ref": "#/$defs/git_commit"}, "git_dirty": {"type": "boolean"}})
    defs["command"] = closed({
        "id": ID, "argv": array(S, min_items=1), "cwd": S,
        "timeout_seconds": nullable({"type": "number", "exclusiveMinimum": 0, "maximum": 1e300}),
        "exit_status": {"type": "integer", "minimum": -255, "maximum": 255},
        "elapsed_seconds": {"$ref": "#/$defs/nonnegative_number"},
    })
    defs["environment"] = closed({"os": S, "architecture": S, "python": S,
                                  "cpu_count": {"$ref": "#/$defs/positive_count"}, "cpu_model": S,
                                  "memory_bytes": {"$ref": "#/$defs/positive_count"}})
    defs["privacy"] = closed({"status": {"enum": ["passed", "failed", "not_run"]},
                              "raw_text_included": {"type": "boolean"},
                              "direct_identifiers_included": {"type": "boolean"}, "scanner": S,
                              "scanner_source_sha256": H, "report_sha256": H,
                              "violation_count": {"$ref": "#/$defs/count"}})
    role = closed({"records": {"$ref": "#/$defs/positive_count"}, "groups": {"$ref": "#/$defs/positive_count"},
                   "artifact": {"$ref": "#/$defs/artifact_ref"}})
    defs["split_role_record"] = role
    defs["splits"] = closed({
        "manifest_sha256": H, "policy_sha256": H, "leakage_audit_sha256": H,
        "leakage_groups_crossing": {"$ref": "#/$defs/count"}, "test_sealed": {"type": "boolean"}, "seed": S,
        "roles": closed({"train": {"$ref": "#/$defs/split_role_record"},
                         "validation": {"$ref": "#/$defs/split_role_record"},
                         "test": {"$ref": "#/$defs/split_role_record"}}),
    })
    defs["bank"] = closed({
        "id": ID, "canonical_hash": H, "artifact_sha256": H,
        "artifact_bytes": {"$ref": "#/$defs/positive_count"},
        "active_entities": {"$ref": "#/$defs/positive_count"}, "active_names": {"$ref": "#/$defs/positive_count"},
        "active_aliases": {"$ref": "#/$defs/count"}, "active_patterns": {"$ref": "#/$defs/positive_count"},
        "canonical_json_bytes": {"$ref": "#/$defs/positive_count"},
        "native_source_bytes": {"$ref": "#/$defs/positive_count"},
    })
    defs["annotation_scope"] = closed({
        "entity_classes": {"$ref": "#/$defs/string_set_nonempty"},
        "document_regions": {"$ref": "#/$defs/string_set_nonempty"},
        "span_policy_sha256": H, "exclusions": {"$ref": "#/$defs/string_set"},
    })
    defs["label_role_population"] = closed({"role": {"$ref": "#/$defs/label_role"},
                                            "documents": {"$ref": "#/$defs/positive_count"},
                                            "spans": {"$ref": "#/$defs/count"}})
    defs["annotation_provenance"] = closed({
        "protocol_sha256": H, "producer_id": ID, "reviewer_id": {"$ref": "#/$defs/id_or_null"},
        "independently_reviewed": {"type": "boolean"},
        "adjudication_artifact": {"$ref": "#/$defs/artifact_ref_or_null"},
    })
    defs["label_artifact"] = closed({
        "id": ID, "label_strength": {"$ref": "#/$defs/label_strength"},
        "annotation_scope": {"$ref": "#/$defs/annotation_scope"},
        "annotation_completeness": {"$ref": "#/$defs/annotation_completeness"},
        "roles": array({"$ref": "#/$defs/label_role"}, min_items=1, unique=True),
        "role_populations": array({"$ref": "#/$defs/label_role_population"}, min_items=1),
        "annotation_provenance": {"$ref": "#/$defs/annotation_provenance"},
        "artifact": {"$ref": "#/$defs/artifact_ref"}, "span_count": {"$ref": "#/$defs/count"},
    })
    defs["prepared_text_view"] = closed({
        "id": ID, "artifact_sha256": H, "content_policy_sha256": H,
        "document_regions": {"$ref": "#/$defs/string_set_nonempty"},
        "primary_for_quality": {"type": "boolean"}, "answer_bearing_fields_included": {"type": "boolean"},
    })
    defs["preparation"] = closed({
        "cleaning_policy_sha256": H, "grouping_policy_sha256": H,
        "output_records": {"$ref": "#/$defs/positive_count"},
        "prepared_artifact": {"$ref": "#/$defs/artifact_ref"},
        "text_views": array({"$ref": "#/$defs/prepared_text_view"}, min_items=1),
    })
    return defs


def common_schema() -> dict:
    return {"$schema": DRAFT, "$id": BASE + COMMON, "title": "Shared sub-objects of NERB manifest v2 / evidence v2",
            "$defs": common_defs()}


def manifest_schema() -> dict:
    S = c("text")
    ID = c("id")
    H = c("hash")
    sample_design = closed({
        "method": {"const": "deterministic_stratified_without_replacement"}, "policy_sha256": H,
        "seed_sha256": H, "membership_artifact": c("artifact_ref"),
    })
    plan_slice = closed({
        "id": ID, "label_artifact_id": ID, "split_role": c("split_role"), "entity_class": S, "cohort": S,
        "text_view": S, "promotion_gate": {"type": "boolean"}, "sample_design": sample_design,
        "sample_documents": c("positive_count"), "frame_documents": c("positive_count"),
    })
    conformance_plan = closed({
        "label_artifact_id": ID, "positive_cases_artifact": c("artifact_ref"),
        "positive_cases": c("positive_count"), "negative_cases_artifact": c("artifact_ref"),
        "negative_cases": c("positive_count"), "policy_sha256": H,
    })
    props = {
        "schema_version": {"const": "nerb.enron_manifest.v2"},
        "charter_version": {"const": "2"},
        "artifact_kind": {"enum": ["real_benchmark", "synthetic_fixture"]},
        "benchmark_version": S,
        "created_at": c("timestamp"),
        "evaluator": c("evaluator"),
        "verifier": c("verifier_identity"),
        "source": c("source"),
        "preparation": c("preparation"),
        "splits": c("splits"),
        "bank": c("bank"),
        "audit_plan_sha256": H,
        "thresholds_sha256": H,
        "performance_manifest_sha256": H,
        "labels": array(c("label_artifact"), min_items=1),
        "quality_plan": array(plan_slice, min_items=1),
        "conformance_plan": conformance_plan,
        "software": c("software"),
        "commands": array(c("command"), min_items=1),
        "environment": c("environment"),
        "privacy": c("privacy"),
    }
    schema = {"$schema": DRAFT, "$id": BASE + "nerb.enron_manifest.v2.json",
              "title": "NERB Enron benchmark manifest v2 (nerb.enron_manifest.v2)"}
    schema.update(closed(props))
    return schema


COUNT_FIELDS = [
    "documents", "documents_with_sensitive_gold", "documents_with_any_miss", "documents_with_cataloged_gold",
    "documents_with_any_cataloged_miss", "documents_with_any_leaked_character", "gold_spans", "predicted_spans",
    "true_positive", "false_positive", "false_negative", "cataloged_gold_spans", "cataloged_true_positive",
    "cataloged_false_negative", "cataloged_wrong_canonical", "sensitive_gold_characters",
    "covered_sensitive_characters", "leaked_sensitive_characters", "predicted_characters",
    "over_redacted_characters", "evaluated_characters", "negative_documents", "negative_documents_with_predictions",
]
METRICS = [
    "precision", "open_world_recall", "f1", "catalog_coverage", "cataloged_recall", "document_leak_rate",
    "cataloged_document_leak_rate", "sensitive_character_recall", "sensitive_character_leak_rate",
    "negative_document_false_alarm_rate", "over_redaction_rate",
]
PERF_METRICS = [
    "direct_bank_scan_median_seconds", "direct_bank_scan_p95_seconds", "direct_bank_scan_p99_seconds",
    "direct_bank_scan_mib_per_second", "direct_bank_scan_records_per_second",
    "direct_bank_scan_seconds_per_document",
]


def evidence_schema() -> dict:
    S = c("text")
    ID = c("id")
    H = c("hash")
    H0 = c("hash_or_null")
    N0 = c("count")
    slice_props = {
        "id": ID, "label_artifact_id": ID, "label_strength": c("label_strength"),
        "annotation_scope": c("annotation_scope"), "annotation_completeness": c("annotation_completeness"),
        "entity_class": S, "cohort": S, "split_role": c("split_role"), "text_view": S,
        "promotion_gate": {"type": "boolean"},
        "metrics": closed({m: c("unit_or_null") for m in METRICS}),
    }
    slice_props.update({f: N0 for f in COUNT_FIELDS})
    quality = closed({
        "evaluated": {"type": "boolean"},
        "matching_semantics": {"const": "one_to_one_exact_span_and_class"},
        "character_position_semantics": {"const": "document_id_unicode_scalar_index"},
        "slices": array(closed(slice_props)),
    })
    conformance = closed({
        "evaluated": {"type": "boolean"}, "label_artifact_id": c("id_or_null"),
        "active_patterns": N0, "patterns_with_positive_cases": N0, "approved_positive_cases": N0,
        "correctly_mapped": N0, "missed": N0, "wrong_canonical": N0, "negative_cases": N0,
        "unexpected_negative_matches": N0, "positive_cases_artifact": c("artifact_ref_or_null"),
        "negative_cases_artifact": c("artifact_ref_or_null"), "policy_sha256": H0, "recall": c("unit_or_null"),
        "passed": {"type": "boolean"},
    })
    frozen = closed({
        "frozen_at": c("timestamp"), "audit_plan_sha256": H, "bank_hash": H, "evaluator_source_sha256": H,
        "split_manifest_sha256": H, "test_artifact_sha256": H, "thresholds_sha256": H,
        "performance_manifest_sha256": H, "git_commit": c("git_commit"),
    })
    lineage_entry = closed({
        "sequence": c("positive_count"), "benchmark_version": S, "accessed_at": c("timestamp"),
        "outcome": {"enum": ["passed", "failed", "aborted"]}, "aggregate_artifact": c("artifact_ref"),
        "frozen_target": {"$ref": "#/$defs/frozen_target"}, "predecessor_benchmark_version": c("text_or_null"),
        "changes_informed_by_predecessor": c("string_set"), "previous_entry_sha256": H0, "entry_sha256": H,
    })
    test_access = closed({
        "benchmark_version": S,
        "optimization_roles": array(c("split_role"), unique=True),
        "current_version_access_count": {"type": "integer", "minimum": 0, "maximum": 1},
        "current_version_accessed_at": c("timestamp_or_null"),
        "frozen_target": {"$ref": "#/$defs/frozen_target"},
        "lineage": array({"$ref": "#/$defs/lineage_entry"}),
        "lineage_head_sha256": H0,
    })
    gold_hashes = ["audit_plan_sha256", "audit_output_binding_sha256", "receipt_sha256", "manifest_sha256",
                   "artifacts_sha256", "sample_artifact_sha256", "gold_sha256"]
    gold = closed({"status": {"const": "completed"}, **{k: H for k in gold_hashes},
                   "annotation_policy_sha256": H, "unresolved": N0})
    catalog = closed({"status": {"const": "completed"}, **{k: H for k in gold_hashes},
                      "catalog_binding_sha256": H, "binding_artifact_sha256": H, "review_artifact_sha256": H,
                      "catalog_policy_sha256": H, "unresolved": N0})
    score = closed({
        "status": {"enum": ["scored_pending_prediction_audit", "insufficient_support"]},
        **{k: H for k in gold_hashes}, "catalog_binding_sha256": H, "prediction_commitment_sha256": H0,
        "scoring_policy_sha256": H, "thresholds_sha256": H, "evaluator_source_sha256": H,
        "quality_decision_sha256": H0, "quality_decision_passed": {"type": "boolean"},
        "support_failure_codes": c("string_set"),
    })
    prediction = closed({
        "status": {"enum": ["accepted", "quality_gates_failed", "invalidated_gold_defect",
                            "not_run_insufficient_support"]},
        "audit_plan_sha256": H, "audit_output_binding_sha256": H, "receipt_sha256": H0, "manifest_sha256": H0,
        "artifacts_sha256": H0, "gold_sha256": H, "catalog_binding_sha256": H, "score_manifest_sha256": H,
        "prediction_commitment_sha256": H0, "prediction_audit_policy_sha256": H, "unresolved_cases": N0,
        "gold_defects": N0, "decision_eligible": {"type": "boolean"},
        "release": {"enum": ["quality_eligible", "do_not_ship"]},
    })
    chain_privacy = closed({
        "aggregate_only": {"const": True}, "raw_text_included": {"const": False},
        "document_ids_included": {"const": False}, "reviewer_ids_included": {"const": False},
        "span_coordinates_included": {"const": False}, "span_surfaces_included": {"const": False},
        "private_paths_included": {"const": False},
    })
    audit_chain = closed({
        "schema_version": {"const": "nerb.enron_audit_chain.v1"}, "audit_plan_sha256": H,
        "audit_output_binding_sha256": H, "gold": gold, "catalog": catalog, "score": score,
        "prediction_audit": prediction, "privacy": chain_privacy, "chain_sha256": H,
    })
    scalar = {"anyOf": [{"type": "number", "minimum": -1e300, "maximum": 1e300}, {"type": "boolean"},
                        {"type": "string", "minLength": 1, "maxLength": 4096}, {"type": "null"}]}
    check = closed({
        "id": ID, "category": {"enum": ["quality", "catalog_conformance", "performance", "privacy", "provenance"]},
        "target": {"type": "string", "pattern": "^/", "maxLength": 4096},
        "operator": {"enum": ["gte", "lte", "eq"]}, "threshold": scalar, "actual": scalar,
        "passed": {"type": "boolean"},
    })
    claim = closed({
        "id": ID, "kind": {"enum": ["catalog_conformance", "open_world_quality", "performance"]},
        "metric": {"enum": ["catalog_conformance_recall", *METRICS, *PERF_METRICS]},
        "value": c("nonnegative_number"), "label_strength": c("label_strength"),
        "annotation_completeness": c("annotation_completeness"), "quality_slice_id": c("id_or_null"),
        "performance_workload_id": c("id_or_null"),
        "scope": closed({"entity_class": c("text_or_null"), "cohort": c("text_or_null"),
                         "split_role": nullable(c("split_role")), "text_view": c("text_or_null")}),
        "benchmark_version": S, "source_revision": S, "bank_hash": H, "evaluator_source_sha256": H,
        "environment_sha256": H,
    })
    promotion = closed({"passed": {"type": "boolean"}, "checks": array(check, min_items=1),
                        "claims": array(claim)})
    props = {
        "schema_version": {"const": "nerb.enron_evidence.v2"},
        "charter_version": {"const": "2"},
        "artifact_kind": {"enum": ["real_benchmark", "synthetic_fixture"]},
        "created_at": c("timestamp"),
        "manifest_sha256": H,
        "audit_plan_sha256": H,
        "evaluator": c("evaluator"),
        "source": c("source"),
        "preparation": c("preparation"),
        "splits": c("splits"),
        "bank": c("bank"),
        "software": c("software"),
        "commands": array(c("command"), min_items=1),
        "environment": c("environment"),
        "privacy": c("privacy"),
        "quality": quality,
        "catalog_conformance": conformance,
        "test_access": test_access,
        "performance": {"$ref": "nerb.enron_performance.v2.json"},
        "performance_manifest_sha256": H,
        "thresholds_sha256": H,
        "audit_chain": audit_chain,
        "promotion": promotion,
        "verifier": c("verifier_result"),
    }
    schema = {"$schema": DRAFT, "$id": BASE + "nerb.enron_evidence.v2.json",
              "title": "NERB Enron benchmark evidence v2 (nerb.enron_evidence.v2)",
              "$defs": {"frozen_target": frozen, "lineage_entry": lineage_entry}}
    schema.update(closed(props))
    return schema


def rendered() -> dict[str, str]:
    """File name -> exact text of every schema this script owns."""
    out = {}
    for name, schema in ((COMMON, common_schema()), ("nerb.enron_manifest.v2.json", manifest_schema()),
                         ("nerb.enron_evidence.v2.json", evidence_schema())):
        out[name] = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return out


def main() -> int:
    for name, text in rendered().items():
        (OUT / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
