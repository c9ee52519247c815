"""Broken fixtures for the conformance family (hash-aware: every case is resealed).

The bank card repeats the evidence's ``catalog_conformance`` object, so every evidence edit is applied to the card's
copy too: the card stays consistent and only the conformance recomputation can catch the mutant. Where a broken count
necessarily changes the recomputed pass flag, the stored flag stays ``true`` and ``conformance.passed_mismatch`` is
expected beside the case's own code.

Exempt (schema-unreachable, unit-tested in contract_tests/test_conformance.py): ``conformance.malformed_section``,
``conformance.count_invalid``, ``conformance.recall_not_number``.
"""

from __future__ import annotations

from typing import Any

EVIDENCE = "benchmark-evidence.json"
MANIFEST = "benchmark-manifest.json"
CARD = "bank-card.json"


def _both(field: str, value: Any) -> list[dict[str, Any]]:
    """Set a conformance field in the evidence and in the bank card's copy."""
    return [{"op": "json_set", "file": f, "pointer": "/catalog_conformance/" + field, "value": value}
            for f in (EVIDENCE, CARD)]


def _set(file: str, pointer: str, value: Any) -> dict[str, Any]:
    return {"op": "json_set", "file": file, "pointer": pointer, "value": value}


def _case(code: str, slug: str, ops: list[dict[str, Any]], description: str,
          codes: list[str] | None = None) -> dict[str, Any]:
    return {"code": code, "slug": slug, "base": "nerb-enron", "ops": ops, "reseal": True,
            "description": description,
            "expect": {"verdict": "rejected", "codes": sorted(codes if codes is not None else [code])}}


def _text(file: str, old: str, new: str) -> dict[str, Any]:
    return {"op": "replace_text", "file": file, "old": old, "new": new}


# VALID CONTROL: one active pattern honestly untested, the gate reported failed everywhere it is stated.
HONEST_UNTESTED_PATTERN: dict[str, Any] = {
    "code": "conformance.incomplete_pattern_support", "slug": "honest-untested-pattern-is-an-outcome",
    "base": "nerb-enron", "reseal": True,
    "ops": _both("patterns_with_positive_cases", 13200) + _both("passed", False) + [
        _set(EVIDENCE, "/promotion/checks/0/actual", False), _set(EVIDENCE, "/promotion/checks/0/passed", False),
        _set("publication.json", "/decision/catalog_conformance_passed", False),
        _text("summary.md", "**Known-bank contract evidence: PASS.** NERB detected and correctly mapped 39,604 of "
              "39,604 approved cases across 13,201 of 13,201 active patterns.",
              "**Known-bank contract evidence: FAIL.** NERB detected and correctly mapped 39,604 of 39,604 approved "
              "cases across 13,200 of 13,201 active patterns."),
        _text("summary.md", "| Active patterns exercised | 13,201 / 13,201 |",
              "| Active patterns exercised | 13,200 / 13,201 |"),
        _text("figures/known-bank-contract.svg", "13,201 of 13,201 active patterns exercised; minimum threshold "
              "100.00%; result pass", "13,200 of 13,201 active patterns exercised; minimum threshold 100.00%; "
              "result fail"),
        _text("figures/known-bank-contract.svg", ">13,201 / 13,201<", ">13,200 / 13,201<"),
        # the row's bar in the failing rows' colour (its first bar is the patterns row's)
        _text("figures/known-bank-contract.svg", 'fill="#29c7a9"', 'fill="#f05b67"')],
    "description": "VALID CONTROL. One active pattern honestly has no positive case and the conformance gate is "
                   "reported failed in the evidence, its gate, the card, the publication, the summary and the "
                   "figure: verified, known-bank contract FAIL (a decision outcome, not a finding).",
    "expect": {"verdict": "verified", "codes": [], "decisions": {"known_bank_contract": {"verdict": "FAIL"}}},
}

CASES = [
    _case("conformance.recall_mismatch", "recall-within-nerb-tolerance", _both("recall", 0.9999999999),
          "Recall 39,604/39,604 stored as 0.9999999999: accepted by a 1e-9 tolerance, not the exact double 1.0."),
    _case("conformance.recall_unexpected_null", "recall-null", _both("recall", None),
          "Recall is null although 39,604 approved positives define it."),
    _case("conformance.recall_should_be_null", "no-approved-positives",
          _both("approved_positive_cases", 0) + _both("correctly_mapped", 0) + _both("patterns_with_positive_cases", 0),
          "No approved positives, yet recall 1.0 is published (also empties the conformance and unbinds the plan).",
          codes=["conformance.empty", "conformance.incomplete_pattern_support", "conformance.label_binding",
                 "conformance.passed_mismatch", "conformance.plan_binding", "conformance.recall_should_be_null",
                 "decision.bundle_overstates_known_bank_contract"]),
    _case("conformance.passed_mismatch", "passed-false-but-all-clean",
          _both("passed", False) + [_set(EVIDENCE, "/promotion/checks/0/actual", False),
                                    _set(EVIDENCE, "/promotion/checks/0/passed", False)],
          "Every count is clean but the section (and its gate) say failed: the flag must be recomputed."),
    _case("conformance.invalid_unevaluated", "unevaluated-with-counts", _both("evaluated", False),
          "Conformance is marked not evaluated but keeps its counts, references and pass; the publication still "
          "says the contract passed.",
          codes=["conformance.invalid_unevaluated", "decision.bundle_overstates_known_bank_contract"]),
    _case("conformance.missing_label", "label-null", _both("label_artifact_id", None),
          "Evaluated conformance names no label artifact (so it no longer matches its plan either).",
          codes=["conformance.missing_label", "conformance.plan_binding"]),
    _case("conformance.label_binding", "label-span-count-differs",
          [_set(MANIFEST, "/labels/3/span_count", 39605),
           _set(MANIFEST, "/labels/3/role_populations/0/spans", 39605)],
          "The synthetic label artifact holds 39,605 spans but 39,604 positives were evaluated (the conformance "
          "plan is unbound from the label too).",
          codes=["conformance.label_binding", "manifest.conformance_plan_label_binding"]),
    _case("conformance.label_binding", "label-documents-differ",
          [_set(MANIFEST, "/labels/3/role_populations/0/documents", 39605)],
          "The label's conformance population claims 39,605 documents for 39,604 single-span positive cases.",
          codes=["conformance.label_binding"]),
    _case("conformance.plan_binding", "negative-count-not-planned",
          [_set(MANIFEST, "/conformance_plan/negative_cases", 1211)],
          "The plan froze 1,211 negative cases; 1,210 were evaluated."),
    _case("conformance.bank_mismatch", "conformance-on-fewer-patterns",
          _both("active_patterns", 13200) + _both("patterns_with_positive_cases", 13200),
          "Conformance exercised 13,200 active patterns; the bank has 13,201 (the pass flag must follow).",
          codes=["conformance.bank_mismatch", "conformance.passed_mismatch",
                 "decision.bundle_overstates_known_bank_contract"]),
    _case("conformance.incomplete_pattern_support", "one-pattern-untested",
          _both("patterns_with_positive_cases", 13200),
          "One active pattern has no positive case (the pass flag must follow).",
          codes=["conformance.incomplete_pattern_support", "conformance.passed_mismatch",
                 "decision.bundle_overstates_known_bank_contract"]),
    HONEST_UNTESTED_PATTERN,
    _case("conformance.pattern_case_support", "fewer-cases-than-patterns",
          _both("patterns_with_positive_cases", 13201) + _both("active_patterns", 13201)
          + _both("approved_positive_cases", 13200) + _both("correctly_mapped", 13200),
          "13,200 approved positives cannot support 13,201 patterns.",
          codes=["conformance.label_binding", "conformance.passed_mismatch", "conformance.pattern_case_support",
                 "conformance.plan_binding", "decision.bundle_overstates_known_bank_contract"]),
    _case("conformance.empty", "no-negative-cases", _both("negative_cases", 0),
          "Evaluated conformance without negative cases.",
          codes=["conformance.empty", "conformance.passed_mismatch", "conformance.plan_binding",
                 "decision.bundle_overstates_known_bank_contract"]),
    _case("conformance.missing_artifact", "policy-null", _both("policy_sha256", None),
          "Evaluated conformance without its policy hash.",
          codes=["conformance.missing_artifact", "conformance.passed_mismatch", "conformance.plan_binding",
                 "decision.bundle_overstates_known_bank_contract"]),
    _case("conformance.arithmetic", "outcomes-exceed-approved", _both("wrong_canonical", 1),
          "39,604 correct + 1 wrong canonical exceed 39,604 approved positives.",
          codes=["conformance.arithmetic", "conformance.passed_mismatch",
                 "decision.bundle_overstates_known_bank_contract"]),
    _case("conformance.negative_bounds", "more-matches-than-negatives", _both("unexpected_negative_matches", 1211),
          "1,211 negative cases matched out of 1,210.",
          codes=["conformance.negative_bounds", "conformance.passed_mismatch",
                 "decision.bundle_overstates_known_bank_contract"]),
]

# Codes other families must raise for the same edits: summary.md states the known-bank contract PASS (and prints the
# conformance counts), which the recomputed verdict no longer supports.
ALSO = {
    "no-approved-positives": ["summary.number_not_traced", "summary.verdict_mismatch"],
    "unevaluated-with-counts": ["summary.verdict_mismatch"],
    "conformance-on-fewer-patterns": ["summary.verdict_mismatch"],
    "one-pattern-untested": ["summary.verdict_mismatch"],
    "fewer-cases-than-patterns": ["summary.number_not_traced", "summary.verdict_mismatch"],
    "no-negative-cases": ["summary.number_not_traced", "summary.verdict_mismatch"],
    "policy-null": ["summary.verdict_mismatch"],
    "outcomes-exceed-approved": ["summary.verdict_mismatch"],
    "more-matches-than-negatives": ["summary.verdict_mismatch"],
}
for _case_item in CASES:
    _case_item["expect"]["codes"] = sorted(set(_case_item["expect"]["codes"]) | set(ALSO.get(_case_item["slug"], [])))
