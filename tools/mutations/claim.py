"""Broken fixtures for the claim family: claims that say more than their evidence, and promotion prerequisites.

The real bundle makes no claims and its verifier did not pass, so every injected claim is also ``claim.unverified``.
The claim template below is *supported* in every other respect (the gate slice's precision, copied exactly, which
rounds conservatively); each case breaks one thing about it. Cases are re-sealed (claims are not hashed, but the
publication list must follow the edited evidence).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from nerb_verify.canonical import python_canonical_sha256

EV = "benchmark-evidence.json"
MF = "benchmark-manifest.json"
_REAL = Path(__file__).resolve().parent.parent.parent / "fixtures" / "bundles" / "nerb-enron" / EV


def _template() -> dict[str, Any]:
    evidence = json.loads(_REAL.read_text(encoding="utf-8"))
    gate = evidence["quality"]["slices"][0]
    return {
        "id": "gate_slice_precision",
        "kind": "open_world_quality",
        "metric": "precision",
        "value": gate["metrics"]["precision"],
        "label_strength": "independent",
        "annotation_completeness": "exhaustive_within_scope",
        "quality_slice_id": gate["id"],
        "performance_workload_id": None,
        "scope": {field: gate[field] for field in ("entity_class", "cohort", "split_role", "text_view")},
        "benchmark_version": evidence["test_access"]["benchmark_version"],
        "source_revision": evidence["source"]["revision"],
        "bank_hash": evidence["bank"]["canonical_hash"],
        "evaluator_source_sha256": evidence["evaluator"]["source_sha256"],
        "environment_sha256": python_canonical_sha256(evidence["environment"]),
    }


TEMPLATE = _template()


def claim(**changes: Any) -> dict[str, Any]:
    """The supported template claim with some fields changed."""
    out = copy.deepcopy(TEMPLATE)
    for key, value in changes.items():
        if key == "scope":
            out["scope"].update(value)
        else:
            out[key] = value
    return out


def _claims(*items: dict[str, Any]) -> dict[str, Any]:
    return {"op": "json_set", "file": EV, "pointer": "/promotion/claims", "value": list(items)}


def _set(pointer: str, value: Any, file: str = EV) -> dict[str, Any]:
    return {"op": "json_set", "file": file, "pointer": pointer, "value": value}


def _case(code: str, slug: str, ops: list, description: str, *, codes: list | None = None) -> dict:
    return {"code": code, "slug": slug, "base": "nerb-enron", "ops": ops, "reseal": True, "description": description,
            "expect": {"codes": codes if codes is not None else [code, "claim.unverified"], "verdict": "rejected"}}


EXEMPTIONS = {
    "claim.malformed": "Only reachable with schema-invalid claims; unit-tested on in-memory dicts.",
    "claim.not_evaluated": "A claim's figure is missing only when another family could not compute it, which that "
                           "family reports with its own code; unit-tested with figures removed in memory.",
}

PROMOTED = ["claim.decision_grade_prerequisite", "claim.missing_required", "claim.promotion_prerequisite",
            "decision.bundle_overstates_eligibility", "lineage.trusted_lineage_required"]

CASES = [
    _case("claim.unverified", "supported-claim-failed-verifier", [_claims(claim())],
          "A claim that its evidence supports, published although the verifier did not pass.",
          codes=["claim.unverified"]),
    _case("claim.provenance", "other-source-revision", [_claims(claim(source_revision="0" * 40))],
          "The claim names another source revision than the evidence."),
    _case("claim.unsupported", "weak-labels-claimed-independent",
          [_claims(claim(label_strength="structured_weak"))],
          "The claim's label strength differs from its independent, exhaustive slice."),
    _case("claim.unsupported", "scope-widened-to-validation", [_claims(claim(scope={"split_role": "validation"}))],
          "The claim's scope names another split than its slice."),
    _case("claim.value_mismatch", "precision-rounded-down", [_claims(claim(value=0.95))],
          "The claimed precision 0.95 is conservative but not the stored value."),
    _case("claim.favourable_rounding", "recall-stored-double-above-exact",
          [_claims(claim(id="gate_slice_recall", metric="open_world_recall", value=0.10193826274228285))],
          "The stored open_world_recall double, read as the decimal 0.10193826274228285, is above 142/1393."),
    _case("claim.favourable_rounding", "leak-rate-stored-double-below-exact",
          [_claims(claim(id="gate_slice_char_leak", metric="sensitive_character_leak_rate",
                         value=0.7866049879324215))],
          "The stored sensitive_character_leak_rate double, read as a decimal, is below 11733/14916 (lower is "
          "better, so below is the favourable side)."),
    _case("claim.synthetic_fixture", "synthetic-fixture-claims",
          [_set("/artifact_kind", "synthetic_fixture"), _set("/artifact_kind", "synthetic_fixture", MF),
           _claims(claim())],
          "A synthetic fixture carries a claim.",
          codes=["claim.synthetic_fixture", "claim.unverified"]),
    _case("claim.promotion_prerequisite", "promoted-without-verifier", [_set("/promotion/passed", True)],
          "Promotion claimed with a failed verifier and no claims.", codes=PROMOTED),
    _case("claim.decision_grade_prerequisite", "verifier-passed-on-failed-gates", [_set("/verifier/passed", True)],
          "The evidence claims its verifier passed although gates and the audit chain failed.",
          codes=["claim.decision_grade_prerequisite", "lineage.trusted_lineage_required"]),
    _case("claim.missing_required", "promoted-with-one-claim",
          [_set("/promotion/passed", True), _set("/verifier/passed", True), _claims(claim())],
          "Promotion claimed with only the precision claim.",
          codes=["claim.decision_grade_prerequisite", "claim.missing_required",
                 "decision.bundle_overstates_eligibility", "lineage.trusted_lineage_required"]),
]
