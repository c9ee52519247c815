"""The gate panel's support floors: an honest insufficient-support bundle is a decision outcome, a hidden one is false.

Charter: the combined panel must hold exactly the 100 sampled documents, at least 100 gold spans, at least 20
negative documents and at least 500 sensitive characters, with gold of both classes. NERB's audit chain records a
panel that misses a floor as an ``insufficient_support`` score naming the failed floors (spec 10 section 9.6). So:

* the **valid control** (``HONEST_INSUFFICIENT_SUPPORT``) coherently moves twelve negative documents of the real
  panel to documents with gold (19 negatives, below the floor of 20), re-derives every rate, gate actual, summary
  number and figure label, and declares the insufficient support in the chain and the publication: it verifies, the
  standalone-redaction decision is not eligible with ``quality_support`` among its failed gates, and only
  ``--require-standalone-redaction-eligible`` turns it into exit 3;
* the same panel with the chain still claiming a scored audit is ``manifest.gate_support_floor``;
* a chain that names another support failure than the panel shows is ``manifest.support_failures_mismatch``.
"""

from __future__ import annotations

from typing import Any

from nerb_verify.checks.provenance.lineage import EMPTY_AUDIT_ARTIFACTS_SHA256

EVIDENCE = "benchmark-evidence.json"
PUBLICATION = "publication.json"
FAILURES = ["negative_documents_below_minimum"]


def _set(pointer: str, value: Any, file: str = EVIDENCE) -> dict[str, Any]:
    return {"op": "json_set", "file": file, "pointer": pointer, "value": value}


def _text(file: str, old: str, new: str) -> dict[str, Any]:
    return {"op": "replace_text", "file": file, "old": old, "new": new}


# Twelve of the 31 negative documents now have gold: 19 negatives, 81 documents with gold, the 62 documents with a
# miss unchanged (document leakage 62/81 = 76.54%, documents without a miss 19/81, bar 500 x 19/81 = 117 px).
PANEL = [
    {"op": "json_edit", "transform": "quality_forge_slice",
     "args": {"slice": 0, "counts": {"negative_documents": 19, "documents_with_sensitive_gold": 81}}},
    _text("summary.md", "| Document leakage | 89.86% |", "| Document leakage | 76.54% |"),
    _text("summary.md", "| Documents without an exact-span miss | 7 / 69 |",
          "| Documents without an exact-span miss | 19 / 81 |"),
    _text("summary.md", "and 31 exhaustive negatives", "and 19 exhaustive negatives"),
    _text("figures/standalone-redaction.svg", "7 of 69 documents without", "19 of 81 documents without"),
    _text("figures/standalone-redaction.svg", ">7 / 69<", ">19 / 81<"),
    _text("figures/standalone-redaction.svg", '<rect x="260" y="232" width="51"', '<rect x="260" y="232" width="117"'),
]


def insufficient_support_chain(failures: list[str]) -> list[dict[str, Any]]:
    """The audit chain's insufficient-support terminal (spec 10 section 9.6) and the publication's audit status."""
    score, audit = "/audit_chain/score/", "/audit_chain/prediction_audit/"
    return [
        _set(score + "status", "insufficient_support"),
        _set(score + "support_failure_codes", failures),
        _set(score + "artifacts_sha256", EMPTY_AUDIT_ARTIFACTS_SHA256),
        _set(score + "prediction_commitment_sha256", None),
        _set(score + "quality_decision_sha256", None),
        _set(score + "quality_decision_passed", False),
        _set(audit + "status", "not_run_insufficient_support"),
        *[_set(audit + field, None) for field in ("receipt_sha256", "manifest_sha256", "artifacts_sha256",
                                                  "prediction_commitment_sha256")],
        _set("/decision/standalone_privacy_audit_status", "not_run_insufficient_support", PUBLICATION),
    ]


HONEST_INSUFFICIENT_SUPPORT: dict[str, Any] = {
    "code": "manifest.gate_support_floor", "slug": "honest-insufficient-support-is-an-outcome", "base": "nerb-enron",
    "ops": PANEL + insufficient_support_chain(FAILURES), "reseal": True,
    "description": "VALID CONTROL. The gate panel honestly has 19 negative documents (below the floor of 20), every "
                   "rate, gate actual, summary number and figure label re-derived, and the audit chain and the "
                   "publication declare the insufficient support: verified, standalone redaction not eligible "
                   "(quality_support failed), exit 3 only under --require-standalone-redaction-eligible.",
    "expect": {"verdict": "verified", "codes": [], "decisions": {
        "standalone_redaction": {"eligible": False, "support_failures": FAILURES}}},
}


def _case(code: str, slug: str, ops: list[dict[str, Any]], description: str, codes: list[str]) -> dict[str, Any]:
    return {"code": code, "slug": slug, "base": "nerb-enron", "ops": ops, "reseal": True, "description": description,
            "expect": {"verdict": "rejected", "codes": codes}}


CASES = [
    HONEST_INSUFFICIENT_SUPPORT,
    _case("manifest.gate_support_floor", "insufficient-support-hidden-by-a-scored-chain", PANEL,
          "The same honest 19-negative panel, but the audit chain still reports a scored audit: the bundle states "
          "support its panel does not have.", ["manifest.gate_support_floor"]),
    _case("manifest.support_failures_mismatch", "chain-names-another-support-failure",
          PANEL + insufficient_support_chain(["gold_spans_below_minimum"]),
          "The 19-negative panel declares insufficient support, but names a gold-span shortfall (1,393 gold spans) "
          "instead of the negative-document one.",
          ["manifest.gate_support_floor", "manifest.support_failures_mismatch"]),
    _case("manifest.support_failures_mismatch", "supported-panel-declared-insufficient",
          insufficient_support_chain(["negative_documents_below_minimum"]),
          "The real panel (31 negatives, every floor met) is declared insufficient support.",
          ["manifest.support_failures_mismatch"]),
]
