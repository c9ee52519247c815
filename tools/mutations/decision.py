"""Broken fixtures for the decision family (hash-aware: every case is resealed).

``decision.standalone_redaction_ineligible`` is exempt: it is raised only when
``--require-standalone-redaction-eligible`` is given (exit 3), which the fixture runner does not pass; it is tested in
contract_tests/test_decision.py on the real bundle.
"""

from __future__ import annotations

from typing import Any

EVIDENCE = "benchmark-evidence.json"
CARD = "bank-card.json"
PUBLICATION = "publication.json"


def _set(file: str, pointer: str, value: Any) -> dict[str, Any]:
    return {"op": "json_set", "file": file, "pointer": pointer, "value": value}


def _case(code: str, slug: str, ops: list[dict[str, Any]], description: str,
          codes: list[str] | None = None) -> dict[str, Any]:
    return {"code": code, "slug": slug, "base": "nerb-enron", "ops": ops, "reseal": True,
            "description": description,
            "expect": {"verdict": "rejected", "codes": sorted(codes if codes is not None else [code])}}


CASES = [
    _case("decision.bundle_overstates_eligibility", "publication-allows-redaction",
          [_set(PUBLICATION, "/decision/standalone_privacy_redaction_allowed", True)],
          "publication.json allows standalone redaction although 8 gates fail on the exact fractions."),
    _case("decision.bundle_overstates_known_bank_contract", "publication-hides-conformance-failure",
          [_set(f, "/catalog_conformance/" + k, v) for f in (EVIDENCE, CARD)
           for k, v in (("correctly_mapped", 39603), ("missed", 1), ("recall", 39603 / 39604), ("passed", False))]
          + [_set(EVIDENCE, "/promotion/checks/0/actual", False), _set(EVIDENCE, "/promotion/checks/0/passed", False)],
          "The evidence honestly records one missed positive (contract FAIL) but publication.json still says the "
          "catalog-conformance contract passed."),
]

# summary.md still says the known-bank contract passed, which the recomputed verdict no longer supports.
ALSO = {"publication-hides-conformance-failure": ["summary.verdict_mismatch"]}
for _case_item in CASES:
    _case_item["expect"]["codes"] = sorted(set(_case_item["expect"]["codes"]) | set(ALSO.get(_case_item["slug"], [])))
