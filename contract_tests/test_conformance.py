"""Conformance family: exact recall, recomputed pass flag, plan/label/bank binding, unevaluated rules.

Spec: 10-manifest-evidence.md sections 5.2 and 9.4; charter "Coverage, Conformance, And Recall".
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from contract_tests.family_harness import codes, real_artifacts, run_families
from nerb_verify.checks.quality import conformance
from nerb_verify.context import EVIDENCE, MANIFEST


def run(artifacts: dict[str, Any]):
    return run_families(artifacts, (conformance.run,))


def section(artifacts: dict[str, Any]) -> dict[str, Any]:
    return artifacts[EVIDENCE]["catalog_conformance"]


def test_real_bundle_recall_and_pass() -> None:
    ctx = run(real_artifacts())
    assert ctx.collector.findings == []
    assert ctx.figures["/catalog_conformance/recall"] == Fraction(39604, 39604) == 1
    assert ctx.figures["/catalog_conformance/passed"] is True
    assert ctx.figures["/catalog_conformance/approved_positive_cases"] == 39604
    recorded = {r.pointer: r for r in ctx.collector.recomputed}
    assert recorded["/catalog_conformance/recall"].status == "match"
    assert recorded["/catalog_conformance/recall"].exact == "1"
    assert recorded["/catalog_conformance/passed"].status == "match"


def test_recall_within_nerb_tolerance_is_a_mismatch() -> None:
    a = real_artifacts()
    section(a)["recall"] = 0.9999999999
    assert codes(run(a)) == {"conformance.recall_mismatch"}


def test_recall_null_and_recall_where_undefined() -> None:
    a = real_artifacts()
    section(a)["recall"] = None
    assert codes(run(a)) == {"conformance.recall_unexpected_null"}
    a = real_artifacts()
    section(a).update(approved_positive_cases=0, correctly_mapped=0, patterns_with_positive_cases=0)
    found = codes(run(a))
    assert "conformance.recall_should_be_null" in found and "conformance.empty" in found


def test_wrong_mapping_recomputes_pass_false() -> None:
    a = real_artifacts()
    section(a).update(correctly_mapped=39603, wrong_canonical=1, recall=39603 / 39604, passed=False)
    ctx = run(a)
    assert ctx.collector.findings == []
    assert ctx.figures["/catalog_conformance/passed"] is False
    assert ctx.figures["/catalog_conformance/recall"] == Fraction(39603, 39604)


def test_stored_pass_over_failing_counts() -> None:
    a = real_artifacts()
    section(a)["unexpected_negative_matches"] = 1
    ctx = run(a)
    assert codes(ctx) == {"conformance.passed_mismatch"}
    assert ctx.figures["/catalog_conformance/passed"] is False


def test_stored_fail_over_clean_counts() -> None:
    a = real_artifacts()
    section(a)["passed"] = False
    assert codes(run(a)) == {"conformance.passed_mismatch"}


@pytest.mark.parametrize("edit,code", [
    ({"patterns_with_positive_cases": 13200}, "conformance.incomplete_pattern_support"),
    ({"active_patterns": 13200, "patterns_with_positive_cases": 13200}, "conformance.bank_mismatch"),
    ({"negative_cases": 0}, "conformance.empty"),
    ({"policy_sha256": None}, "conformance.missing_artifact"),
    ({"missed": 1}, "conformance.arithmetic"),
    ({"unexpected_negative_matches": 1211}, "conformance.negative_bounds"),
    ({"approved_positive_cases": 13200, "correctly_mapped": 13200}, "conformance.pattern_case_support"),
])
def test_rules(edit: dict[str, Any], code: str) -> None:
    a = real_artifacts()
    section(a).update(edit)
    ctx = run(a)
    assert code in codes(ctx)
    assert "conformance.passed_mismatch" in codes(ctx)  # every one of these breaks the gate


def test_missing_label_does_not_change_the_gate() -> None:
    a = real_artifacts()
    section(a)["label_artifact_id"] = None
    ctx = run(a)
    assert codes(ctx) == {"conformance.missing_label", "conformance.plan_binding"}
    assert ctx.figures["/catalog_conformance/passed"] is True


def test_plan_and_label_binding() -> None:
    a = real_artifacts()
    a[MANIFEST]["conformance_plan"]["negative_cases"] = 1211
    assert codes(run(a)) == {"conformance.plan_binding"}
    a = real_artifacts()
    a[MANIFEST]["labels"][3]["span_count"] = 39605
    assert codes(run(a)) == {"conformance.label_binding"}
    a = real_artifacts()
    a[MANIFEST]["labels"][3]["label_strength"] = "independent"
    assert codes(run(a)) == {"conformance.label_binding"}


def test_unevaluated_must_be_empty() -> None:
    a = real_artifacts()
    section(a)["evaluated"] = False
    ctx = run(a)
    assert codes(ctx) == {"conformance.invalid_unevaluated"}
    assert ctx.figures["/catalog_conformance/passed"] is False
    a = real_artifacts()
    s = section(a)
    for key in ("active_patterns", "patterns_with_positive_cases", "approved_positive_cases", "correctly_mapped",
                "missed", "wrong_canonical", "negative_cases", "unexpected_negative_matches"):
        s[key] = 0
    for key in ("label_artifact_id", "positive_cases_artifact", "negative_cases_artifact", "policy_sha256",
                "recall"):
        s[key] = None
    s.update(evaluated=False, passed=False)
    assert codes(run(a)) == set()


@pytest.mark.parametrize("value", [5.0, True, "5", -1, None])
def test_hostile_counts(value: Any) -> None:
    a = real_artifacts()
    section(a)["missed"] = value
    ctx = run(a)
    found = {(f.code, f.pointer) for f in ctx.collector.findings}
    assert ("conformance.count_invalid", "/catalog_conformance/missed") in found
    # the gate cannot be recomputed, so a stored pass is not accepted
    assert ("conformance.passed_mismatch", "/catalog_conformance/passed") in found
    assert ctx.figures["/catalog_conformance/passed"] is None


@pytest.mark.parametrize("value", [None, [], {"evaluated": "yes", "passed": True}])
def test_malformed_section(value: Any) -> None:
    a = real_artifacts()
    a[EVIDENCE]["catalog_conformance"] = value
    ctx = run(a)
    assert codes(ctx) == {"conformance.malformed_section"}
    assert ctx.collector.checks_run["conformance"]["status"] == "not_evaluated"


def test_recall_not_number() -> None:
    a = real_artifacts()
    section(a)["recall"] = "1.0"
    assert "conformance.recall_not_number" in codes(run(a))
