"""Broken fixtures for the publication family (publication.json semantics); hash-aware."""

from __future__ import annotations

FILE = "publication.json"
HEADLINE = '"person_contact_all_test"'
PLAN_AND_SLICES = ("benchmark-manifest.json", "benchmark-evidence.json")


def _rename(old: str, new: str) -> list[dict]:
    return [{"op": "replace_text", "file": name, "old": old, "new": new, "count": -1} for name in PLAN_AND_SLICES]


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
    {"code": "publication.gold_slice_unsupported", "slug": "headline-slice-renamed", "base": "nerb-enron",
     "ops": _rename(HEADLINE, '"person_contact_panel_test"'), "reseal": True,
     "description": "The headline gold slice is renamed in the manifest plan and the evidence alike (resealed): the "
                    "publication's gold counts no longer have the slice they are taken from.",
     "expect": {"codes": ["publication.gold_slice_unsupported"]}},
    {"code": "publication.gold_slice_unsupported", "slug": "headline-id-on-the-contact-slice", "base": "nerb-enron",
     "ops": _rename(HEADLINE, '"swap_placeholder"') + _rename('"contact_all_test"', HEADLINE)
     + _rename('"swap_placeholder"', '"contact_all_test"')
     + [{"op": "json_set", "file": FILE, "pointer": "/scope/gold_spans", "value": 126}],
     "reseal": True,
     "description": "The headline id and the contact slice's id are swapped in the plan and the evidence, and the "
                    "publication's gold spans restated from the contact slice (resealed).",
     "expect": {"codes": ["publication.gold_slice_unsupported"]}},
]
