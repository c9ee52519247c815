"""Broken fixtures for the schema family: each failing keyword has its own code."""

from __future__ import annotations

EVIDENCE = "benchmark-evidence.json"
MANIFEST = "benchmark-manifest.json"


def _case(code: str, slug: str, ops: list, description: str, codes: list | None = None) -> dict:
    return {"code": code, "slug": slug, "base": "nerb-enron", "ops": ops, "reseal": True,
            "description": description, "expect": {"codes": codes if codes is not None else [code]}}


def _set(file: str, pointer: str, value: object) -> dict:
    return {"op": "json_set", "file": file, "pointer": pointer, "value": value}


CASES = [
    _case("schema.unknown_version", "evidence-v3", [_set(EVIDENCE, "/schema_version", "nerb.enron_evidence.v3")],
          "An evidence file in a version this verifier does not know is rejected, not skipped."),
    _case("schema.type", "count-as-float", [_set(EVIDENCE, "/quality/slices/0/documents", 100.0)],
          "A count written as 100.0: integers must be exact JSON integers."),
    _case("schema.type", "bool-as-count", [_set(EVIDENCE, "/catalog_conformance/missed", False)],
          "A boolean where a count belongs."),
    _case("schema.required", "missing-metric", [{"op": "json_remove", "file": EVIDENCE,
                                                  "pointer": "/quality/slices/1/metrics/f1"}],
          "A rate removed from a slice."),
    _case("schema.additional_properties", "extra-key", [_set(EVIDENCE, "/quality/slices/0/bonus", 1)],
          "An undeclared key in a closed object."),
    _case("schema.const", "verifier-version", [_set(MANIFEST, "/verifier/version", "9.9.9")],
          "A constant field changed."),
    _case("schema.enum", "outcome", [_set(EVIDENCE, "/test_access/lineage/0/outcome", "mostly_passed")],
          "A value outside its enumeration."),
    _case("schema.pattern", "uppercase-hash", [_set(EVIDENCE, "/bank/artifact_sha256", "sha256:" + "A" * 64)],
          "A hash in uppercase hex."),
    _case("schema.minimum", "negative-count", [_set(EVIDENCE, "/quality/slices/2/false_positive", -1)],
          "A negative count."),
    _case("schema.maximum", "rate-above-one", [_set(EVIDENCE, "/quality/slices/2/metrics/precision", 1.5)],
          "A rate above 1."),
    _case("schema.min_items", "no-commands", [_set(MANIFEST, "/commands", [])], "An empty command list."),
    _case("schema.unique_items", "duplicate-role", [_set(EVIDENCE, "/test_access/optimization_roles",
                                                         ["train", "train"])],
          "A repeated role in a unique list."),
    _case("schema.min_length", "empty-owner", [_set(MANIFEST, "/source/owner", "")], "An empty required string."),
    _case("schema.max_length", "long-id", [_set(MANIFEST, "/commands/0/id", "c" * 300)], "An id over 256 chars."),
    _case("schema.exclusive_minimum", "zero-timeout", [_set(MANIFEST, "/commands/0/timeout_seconds", 0)],
          "A command timeout of zero seconds."),
    _case("schema.max_properties", "funnel-reasons-flood",
          [{"op": "json_set", "file": "bank-card.json", "pointer": "/candidate_funnel/by_primary_reason",
            "value": {f"reason_{i:03d}": 0 for i in range(65)}}],
          "A candidate funnel with more primary reasons than the card format allows."),
    _case("schema.min_properties", "funnel-reasons-empty",
          [_set("bank-card.json", "/candidate_funnel/by_primary_reason", {})],
          "A candidate funnel without any primary reason."),
    _case("schema.pattern", "funnel-reason-name",
          [_set("bank-card.json", "/candidate_funnel/by_primary_reason", {"Reason With Spaces": 1})],
          "A funnel reason whose name is not a lower-case identifier."),
    _case("schema.missing_artifact", "bank-card-deleted",
          [{"op": "delete", "file": "bank-card.json"},
           {"op": "json_remove", "file": "publication.json", "pointer": "/artifacts/0"}],
          "The bank card deleted and removed from the publication list (resealed)."),
    _case("schema.type", "nullable-metric-string", [_set(EVIDENCE, "/quality/slices/0/metrics/f1", "0.18")],
          "A rate written as a string."),
]
