"""Write the JSON Schemas for publication.json, bank-card.json, capacity-decision.json and inventories.

The shapes are NERB's published contract (spec 30, A.5-A.7). The closed key sets of the large capacity decision are
taken from the vendored real bundle (every object closed, keys required when present in every instance, nullable
when null somewhere), then tightened by hand-written rules below: constants, hash and commit patterns, text and
category grammars, ratio bounds, list bounds. Run ``python tools/gen_bundle_schemas.py`` to regenerate; the output is
deterministic (sorted keys, indent 2) and is committed under ``schemas/``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BUNDLE = REPO / "fixtures" / "bundles" / "nerb-enron"
OUT = REPO / "schemas"
BASE = "https://schemas.nerb-verify.invalid/"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
MAX_INT = 2**63 - 1

DEFS: dict[str, Any] = {
    "hash": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
    "git_commit": {"type": "string", "pattern": "^[0-9a-f]{40}$"},
    "count": {"type": "integer", "minimum": 0, "maximum": MAX_INT},
    "positive_count": {"type": "integer", "minimum": 1, "maximum": MAX_INT},
    "text": {"type": "string", "minLength": 1, "maxLength": 256, "pattern": "^[^\\u0000-\\u001f\\u007f]+$"},
    "long_text": {"type": "string", "minLength": 1, "maxLength": 4096, "pattern": "^[^\\u0000-\\u001f\\u007f]+$"},
    "category": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,127}$"},
    "ratio": {"type": "number", "minimum": 0, "maximum": 1},
}


def ref(name: str) -> dict[str, Any]:
    """The shared primitive ``name``, inlined: fastjsonschema pays a formatting cost on every ``$ref`` call, which
    adds up to half a second over the capacity decision's ~45,000 values."""
    return dict(DEFS[name])


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or null. Primitive schemas get a type list (no anyOf: cheap to validate in hot lists)."""
    if "$ref" in schema and len(schema) == 1:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name in DEFS:
            schema = DEFS[name]
    kind = schema.get("type")
    if isinstance(kind, str) and kind != "object" and kind != "array" and "anyOf" not in schema:
        merged = dict(schema)
        merged["type"] = [kind, "null"]
        return merged
    if isinstance(kind, list):
        return dict(schema, type=sorted(set(kind) | {"null"}))
    return {"anyOf": [schema, {"type": "null"}]}


def infer(values: list[Any], path: tuple[str, ...], rules: dict[tuple[str, ...], Any]) -> dict[str, Any]:
    """A closed schema for every instance in ``values`` (all found at ``path``); ``rules`` override by path."""
    if path in rules:
        rule = rules[path]
        return rule(values) if callable(rule) else rule
    present = [v for v in values if v is not None]
    has_null = len(present) < len(values)
    if not present:
        schema: dict[str, Any] = {"type": ["boolean", "integer", "string"], "minimum": 0, "maximum": MAX_INT,
                                  "pattern": "^sha256:[0-9a-f]{64}$"}
    elif all(isinstance(v, dict) for v in present):
        keys = sorted({k for v in present for k in v})
        schema = {
            "type": "object",
            "additionalProperties": False,
            "required": [k for k in keys if all(k in v for v in present)],
            "properties": {k: infer([v[k] for v in present if k in v], path + (k,), rules) for k in keys},
        }
    elif all(isinstance(v, list) for v in present):
        items = [x for v in present for x in v]
        schema = {"type": "array", "maxItems": 10000}
        if items:
            schema["items"] = infer(items, path + ("*",), rules)
    elif all(isinstance(v, bool) for v in present):
        schema = {"type": "boolean"}
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        schema = ref("count") if all(v >= 0 for v in present) else {"type": "integer"}
    elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        schema = {"type": "number", "minimum": 0} if all(v >= 0 for v in present) else {"type": "number"}
    elif all(isinstance(v, str) for v in present):
        if all(v.startswith("sha256:") and len(v) == 71 for v in present):
            schema = ref("hash")
        elif all(len(v) == 40 and all(c in "0123456789abcdef" for c in v) for v in present):
            schema = ref("git_commit")
        else:
            schema = ref("long_text")
    else:
        raise SystemExit(f"mixed types at {'/'.join(path)}")
    return nullable(schema) if has_null else schema


def document(name: str, title: str, body: dict[str, Any]) -> dict[str, Any]:
    out = {"$schema": DRAFT, "$id": BASE + name, "title": title}
    out.update(body)
    return out


def const_rule(value: Any) -> dict[str, Any]:
    return {"const": value}


# ---------------------------------------------------------------------------------------------------------------
def publication_schema() -> dict[str, Any]:
    decision_keys = {
        "standalone_privacy_audit_status": {"enum": ["accepted", "quality_gates_failed", "invalidated_gold_defect",
                                                     "not_run_insufficient_support"]},
        "standalone_privacy_audit_outcome": {"enum": ["quality_eligible", "do_not_ship"]},
        "catalog_conformance_passed": {"type": "boolean"},
        "capacity_gates_passed": {"type": "boolean"},
        "performance_gates_passed": {"type": "boolean"},
        "standalone_privacy_redaction_quality_passed": {"type": "boolean"},
        "standalone_privacy_redaction_allowed": {"type": "boolean"},
    }
    scope_keys = {
        "source_input_rows": ref("count"),
        "prepared_records": ref("count"),
        "sealed_test_frame_documents": ref("count"),
        "gold_sample_documents": nullable(ref("count")),
        "gold_spans": nullable(ref("count")),
        "active_patterns": ref("count"),
        "candidate_count": ref("count"),
    }
    binding_keys = {k: ref("hash") for k in (
        "benchmark_manifest_sha256", "evidence_manifest_sha256", "bank_sha256", "performance_manifest_sha256",
        "performance_run_sha256", "capacity_decision_sha256", "audit_chain_sha256", "gold_sha256",
        "catalog_binding_sha256", "score_manifest_sha256", "prediction_audit_manifest_sha256")}
    binding_keys["measurement_git_commit"] = ref("git_commit")
    # A smoke (non-decision-grade) bundle may ship without a capacity decision; the binding is then null and the
    # verifier requires capacity-decision.json to be absent (docs/decision-grade.md).
    binding_keys["capacity_decision_sha256"] = nullable(ref("hash"))
    privacy = {"aggregate_only": True, "raw_text_included": False, "direct_identifiers_included": False,
               "bank_values_included": False, "document_ids_included": False, "span_surfaces_included": False,
               "private_paths_included": False, "violation_count": 0}

    def closed(props: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": False, "required": sorted(props),
                "properties": dict(sorted(props.items()))}

    artifact = closed({
        "path": {"type": "string", "minLength": 1, "maxLength": 512,
                 "pattern": "^(?!/)(?!.*(^|/)\\.\\.(/|$))[A-Za-z0-9_.\\-/]+$"},
        "sha256": ref("hash"),
        "bytes": ref("count"),
    })
    body = closed({
        "schema_version": {"const": "nerb.enron_publication"},
        "artifact_kind": {"const": "aggregate_benchmark_publication"},
        "decision": closed(decision_keys),
        "scope": closed(scope_keys),
        "bindings": closed(binding_keys),
        "artifacts": {"type": "array", "minItems": 1, "maxItems": 1000, "items": artifact},
        "privacy": {"const": privacy},
        "publication_sha256": ref("hash"),
    })
    return document("nerb.enron_publication.json", "NERB Enron aggregate publication (publication.json)", body)


# ---------------------------------------------------------------------------------------------------------------
CARD_RATIOS = ("catalog_coverage", "cataloged_recall", "labeled_span_recall", "negative_document_false_alarm_rate",
               "open_world_recall", "over_redaction_rate", "precision")


def card_rules() -> dict[tuple[str, ...], Any]:
    rules: dict[tuple[str, ...], Any] = {
        ("schema_version",): const_rule("nerb.enron_public_bank_card"),
        ("benchmark_version",): ref("text"),
        ("bank", "id"): ref("text"),
        ("bank", "version"): ref("text"),
        ("bank", "canonical_json_bytes"): ref("positive_count"),
        ("source", "dataset_id"): ref("text"),
        ("source", "dataset_revision"): ref("text"),
        ("source", "dataset_split"): ref("text"),
        ("builder", "iteration_count"): ref("positive_count"),
        ("builder", "selected_iteration_id"): ref("category"),
        ("candidate_funnel", "schema_version"): const_rule("nerb.enron_candidate_funnel.v2"),
        ("candidate_funnel", "total_candidates"): ref("positive_count"),
        ("candidate_funnel", "by_primary_reason"): {
            "type": "object", "minProperties": 1, "maxProperties": 64,
            "propertyNames": {"pattern": "^[a-z][a-z0-9_]{0,127}$"}, "additionalProperties": ref("count")},
        ("iterations", "*", "id"): ref("category"),
        ("iterations", "*", "parent_id"): nullable(ref("category")),
        ("iterations", "*", "decision"): {"enum": ["keep", "discard"]},
        ("iterations", "*", "decision_reason_code"): ref("category"),
        ("iterations", "*", "contact_labeled_spans"): ref("positive_count"),
        ("iterations", "*", "contact_labeled_recall"): ref("ratio"),
        ("iterations", "*", "active_patterns"): ref("positive_count"),
        ("iterations", "*", "canonical_json_bytes"): ref("positive_count"),
        ("iterations", "*", "person_labeled_spans"): nullable(ref("count")),
        ("iterations", "*", "person_cataloged_false_negative"): nullable(ref("count")),
        ("iterations", "*", "person_cataloged_wrong_canonical"): nullable(ref("count")),
        ("development_validation", "label_strength"): ref("category"),
        ("development_validation", "unsupported_reason_code"): ref("category"),
        ("development_validation", "person", "reason_code"): ref("category"),
        ("catalog_conformance", "label_artifact_id"): nullable(ref("category")),
        ("catalog_conformance", "policy_sha256"): nullable(ref("hash")),
        ("catalog_conformance", "recall"): nullable(ref("ratio")),
        ("privacy",): const_rule({"aggregate_only": True, "raw_text_included": False,
                                  "direct_identifiers_included": False, "bank_values_included": False,
                                  "private_paths_included": False, "violation_count": 0}),
    }
    artifact = nullable({"type": "object", "additionalProperties": False, "required": ["bytes", "id", "sha256"],
                         "properties": {"bytes": ref("positive_count"), "id": ref("text"), "sha256": ref("hash")}})
    rules[("catalog_conformance", "positive_cases_artifact")] = artifact
    rules[("catalog_conformance", "negative_cases_artifact")] = artifact
    for cls in ("contact", "person"):
        for name in CARD_RATIOS:
            rules[("development_validation", cls, name)] = nullable(ref("ratio"))
    return rules


def card_schema(card: dict[str, Any]) -> dict[str, Any]:
    body = infer([card], (), card_rules())
    body["properties"]["iterations"].update({"minItems": 1, "maxItems": 16})
    return document("nerb.enron_public_bank_card.json", "NERB Enron public bank card (bank-card.json)", body)


# ---------------------------------------------------------------------------------------------------------------
def capacity_rules(decision: dict[str, Any]) -> dict[tuple[str, ...], Any]:
    scope = dict(decision["verification_scope"])
    scope_schema = {
        "type": "object", "additionalProperties": False, "required": sorted(scope),
        "properties": {k: ({"const": v} if k != "sha256" else ref("hash")) for k, v in sorted(scope.items())},
    }
    rules: dict[tuple[str, ...], Any] = {
        ("schema_version",): const_rule("nerb.enron_capacity_portable_decision"),
        ("artifact_kind",): const_rule("aggregate_capacity_portable_decision"),
        ("report", "schema_version"): const_rule("nerb.enron_capacity_report.v1"),
        ("report", "artifact_kind"): const_rule("aggregate_capacity_evidence"),
        ("report", "evidence_status"): const_rule("pre_terminal_non_decision"),
        ("attestation", "kind"): const_rule("clean_clone_source_and_hash_chain_verification"),
        ("verification_scope",): scope_schema,
        ("attempt_chain", "*", "schema_version"): const_rule("nerb.enron_capacity_attempt.v1"),
        ("attempt_chain", "*", "outcome"): {"enum": ["passed", "failed", "interrupted"]},
        ("attempt_chain", "*", "failure_code"): nullable(ref("category")),
        ("attempt_chain", "*", "sequence"): ref("positive_count"),
        ("attempt_chain", "*", "attempt_sequence"): ref("positive_count"),
        ("terminal_attempt", "outcome"): {"enum": ["passed", "failed", "interrupted"]},
        ("terminal_attempt", "failure_code"): nullable(ref("category")),
        ("privacy", "aggregate_only"): const_rule(True),
        ("privacy", "private_paths_included"): const_rule(False),
        ("privacy", "private_payloads_included"): const_rule(False),
        ("privacy", "correctness_rows_included"): const_rule(False),
        ("privacy", "privacy_scan_violation_count"): const_rule(0),
    }
    return rules


def capacity_schema(decision: dict[str, Any]) -> dict[str, Any]:
    rules = capacity_rules(decision)
    # The terminal attempt is one of the receipts: infer both from all of them so null-ness matches.
    receipts = list(decision["attempt_chain"]) + [decision["terminal_attempt"]]
    receipt_schema = infer(receipts, ("attempt_chain", "*"), rules)
    rules[("attempt_chain", "*")] = receipt_schema
    rules[("terminal_attempt",)] = receipt_schema
    body = infer([decision], (), rules)
    body["properties"]["attempt_chain"] = {"type": "array", "minItems": 1, "maxItems": 1024,
                                           "items": {"$ref": "#/$defs/attempt"}}
    body["properties"]["terminal_attempt"] = {"$ref": "#/$defs/attempt"}
    body["properties"]["report"]["properties"]["phases"].update({"minItems": 5, "maxItems": 5})
    doc = document("nerb.enron_capacity_portable_decision.json",
                   "NERB Enron portable capacity decision (capacity-decision.json)", body)
    doc["$defs"] = {"attempt": receipt_schema}
    return doc


def inventory_schema() -> dict[str, Any]:
    row = {"type": "object", "additionalProperties": False, "required": ["bytes", "records"],
           "properties": {"bytes": ref("count"), "records": ref("count")}}
    body = {"type": "array", "minItems": 1, "maxItems": 10000, "items": row}
    return document("nerb.enron_inventory.json", "NERB Enron performance input inventory (inventories/<id>.json)",
                    body)


def main() -> int:
    card = json.loads((BUNDLE / "bank-card.json").read_text(encoding="utf-8"))
    decision = json.loads((BUNDLE / "capacity-decision.json").read_text(encoding="utf-8"))
    outputs = {
        "nerb.enron_publication.json": publication_schema(),
        "nerb.enron_public_bank_card.json": card_schema(card),
        "nerb.enron_capacity_portable_decision.json": capacity_schema(decision),
        "nerb.enron_inventory.json": inventory_schema(),
    }
    for name, schema in outputs.items():
        (OUT / name).write_text(json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n",
                                encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
