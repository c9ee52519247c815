"""Broken fixtures for the publication family (publication.json semantics); hash-aware."""

from __future__ import annotations

FILE = "publication.json"


def _case(code: str, slug: str, pointer: str, value: object, description: str) -> dict:
    return {"code": code, "slug": slug, "base": "nerb-enron",
            "ops": [{"op": "json_set", "file": FILE, "pointer": pointer, "value": value}],
            "reseal": True, "description": description, "expect": {"codes": [code]}}


CASES = [
    {"code": "publication.hash_mismatch", "slug": "publication-hash-zeroed", "base": "nerb-enron", "ops": [],
     "reseal": False,
     "post_ops": [{"op": "json_set", "file": FILE, "pointer": "/publication_sha256", "value": "sha256:" + "0" * 64}],
     "description": "publication_sha256 does not seal the publication.",
     "expect": {"codes": ["publication.hash_mismatch"]}},
    _case("publication.decision_mismatch", "audit-status-accepted",
          "/decision/standalone_privacy_audit_status", "accepted",
          "The publication reports the prediction audit as accepted; the audit chain says the gates failed."),
    _case("publication.decision_mismatch", "performance-understated",
          "/decision/performance_gates_passed", False,
          "The publication understates the performance decision grade (resealed)."),
    _case("publication.scope_mismatch", "candidate-count-off", "/scope/candidate_count", 82174,
          "The publication's candidate count is one more than the bank card's (resealed)."),
    _case("publication.binding_mismatch", "bank-binding-replaced", "/bindings/bank_sha256", "sha256:" + "8" * 64,
          "The publication binds another bank than the evidence evaluated (resealed)."),
    {"code": "publication.artifacts_unsorted", "slug": "bank-card-listed-second", "base": "nerb-enron",
     "ops": [{"op": "json_remove", "file": FILE, "pointer": "/artifacts/0"},
             {"op": "json_insert", "file": FILE, "pointer": "/artifacts/1",
              "value": {"path": "bank-card.json", "sha256": "sha256:" + "0" * 64, "bytes": 1}}],
     "reseal": True, "description": "The artifact list is out of path order (hashes refreshed).",
     "expect": {"codes": ["publication.artifacts_unsorted"]}},
]
