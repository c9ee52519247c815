"""Decision family: the verifier's own known-bank and standalone-redaction decisions, and the headline table.

Published figures (issue 3, summary.md): known-bank contract PASS with 39,604/39,604 positives, 13,201/13,201
patterns, 1,210/1,210 negatives clean, 0 wrong mappings; standalone redaction NOT ELIGIBLE with 142/1,393 exact,
146/1,393 catalog coverage, 3,183/14,916 sensitive characters, 7/69 documents without a miss, 142/149 predictions
exact.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from contract_tests.conftest import run_cli
from contract_tests.family_harness import codes, mutate, real_artifacts, run_families, slice_of
from nerb_verify.checks.cross_artifact import decisions
from nerb_verify.context import EVIDENCE, PUBLICATION

FAILED = ["open_world_recall", "catalog_coverage", "cataloged_recall", "sensitive_character_recall",
          "document_leak_rate", "sensitive_character_leak_rate", "cataloged_false_negative",
          "documents_with_any_cataloged_miss"]


@pytest.fixture(scope="module")
def real_ctx():
    return run_families(real_artifacts())


def test_known_bank_contract_pass(real_ctx) -> None:
    known = real_ctx.collector.decisions["known_bank_contract"]
    assert known["verdict"] == "PASS" and known["passed"] is True
    assert known["approved_positives_mapped"] == {"count": 39604, "of": 39604}
    assert known["patterns_with_positive_cases"] == {"count": 13201, "of": 13201}
    assert known["negatives_without_unexpected_match"] == {"count": 1210, "of": 1210}
    assert known["wrong_canonical_mappings"] == 0
    assert known["recall"] == "1"


def test_standalone_not_eligible_with_failed_gates(real_ctx) -> None:
    standalone = real_ctx.collector.decisions["standalone_redaction"]
    assert standalone["eligible"] is False
    assert standalone["failed_gates"] == FAILED
    assert standalone["quality_gates_passed"] is False
    assert standalone["gate_slices"] == [0]
    head = standalone["headline"]
    assert head["spans_detected_exactly"] == {"count": 142, "of": 1393}
    assert head["catalog_coverage"] == {"count": 146, "of": 1393}
    assert head["sensitive_characters_covered"] == {"count": 3183, "of": 14916}
    assert head["documents_without_miss"] == {"count": 7, "of": 69}
    assert head["predictions_exact"] == {"count": 142, "of": 149}
    gates = {g["gate"]: g for g in standalone["gates"]}
    assert gates["catalog_coverage"]["threshold"] == "4/5" and gates["catalog_coverage"]["value"] == "146/1393"
    assert gates["over_redaction_rate"]["passed"] is True
    assert gates["negative_document_false_alarm_rate"]["passed"] is True
    assert gates["cataloged_wrong_canonical"]["passed"] is True
    assert gates["catalog_conformance"]["passed"] is True


def test_no_bundle_statement_overstates(real_ctx) -> None:
    assert real_ctx.collector.findings == []


def test_failed_gate_names_come_from_our_vocabulary(real_ctx) -> None:
    vocabulary = {g.name for g in decisions.QUALITY_GATES} | set(decisions.OTHER_GATES)
    assert set(real_ctx.collector.decisions["standalone_redaction"]["failed_gates"]) <= vocabulary


def test_headline_table_text(real_ctx) -> None:
    lines = real_ctx.shared["text.tables"][0]
    text = "\n".join(lines)
    assert "Known-bank contract (recomputed): PASS" in text
    assert "Standalone redaction (recomputed): NOT ELIGIBLE" in text
    for fragment in ("39,604 / 39,604", "13,201 / 13,201", "1,210 / 1,210", "142 / 1,393", "10.19%",
                     "146 / 1,393", "10.48%", "3,183 / 14,916", "21.34%", "7 / 69", "10.14%", "142 / 149",
                     "95.30%", "142 / 146", "97.26%"):
        assert fragment in text, fragment
    gate_lines = {line.split()[0]: line for line in lines if line.startswith("  ") and line.split()
                  and line.split()[0] in FAILED + ["over_redaction_rate"]}
    assert gate_lines["open_world_recall"].rstrip().endswith("FAIL")
    assert gate_lines["over_redaction_rate"].rstrip().endswith("pass")


def test_percent_rounds_exactly() -> None:
    assert decisions.percent(142, 1393) == "10.19%"
    assert decisions.percent(1, 8) == "12.50%"
    assert decisions.percent(1, 80000) == "0.00%"   # 0.00125% rounds half-even down
    assert decisions.percent(3, 0) == "n/a"


def test_eligible_when_every_gate_passes() -> None:
    """A slice that meets every frozen threshold is eligible (performance decision supplied as passed)."""
    def edit(a: dict[str, Any]) -> None:
        s = slice_of(a, 0)
        s.update(true_positive=1393, false_negative=0, predicted_spans=1400, false_positive=7,
                 cataloged_true_positive=146, cataloged_false_negative=0, documents_with_any_miss=0,
                 documents_with_any_cataloged_miss=0, covered_sensitive_characters=14916,
                 leaked_sensitive_characters=0, predicted_characters=15142, documents_with_any_leaked_character=0)
        from tools.mutations.quality import recompute_metrics
        recompute_metrics(s)

    ctx = mutate(edit)
    standalone = ctx.collector.decisions["standalone_redaction"]
    # catalog coverage 146/1393 still fails: coverage is about the bank, not the matcher
    assert standalone["failed_gates"] == ["catalog_coverage"]
    assert standalone["eligible"] is False


def test_not_evaluated_is_never_eligible() -> None:
    a = real_artifacts()
    a[EVIDENCE]["quality"]["slices"][0]["promotion_gate"] = False
    ctx = run_families(a)
    standalone = ctx.collector.decisions["standalone_redaction"]
    assert standalone["eligible"] is None
    assert "open_world_recall" in standalone["not_evaluated_gates"]


def test_thresholds_are_exact_decimals_and_never_looser_than_policy() -> None:
    a = real_artifacts()
    checks = a[EVIDENCE]["promotion"]["checks"]
    for check in checks:
        if check["target"] == "/quality/slices/0/metrics/catalog_coverage":
            check["threshold"] = 0.1048097631012204  # the stored double: float >= passes, exact 146/1393 < it
        if check["target"] == "/quality/slices/0/metrics/over_redaction_rate":
            check["threshold"] = 0.5  # looser than the 0.05 policy ceiling: the policy applies
    ctx = run_families(a)
    gates = {g["gate"]: g for g in ctx.collector.decisions["standalone_redaction"]["gates"]}
    assert gates["catalog_coverage"]["threshold"] == "4/5" and gates["catalog_coverage"]["threshold_source"] == "policy"
    assert gates["over_redaction_rate"]["threshold"] == "1/20"
    a = real_artifacts()
    for check in a[EVIDENCE]["promotion"]["checks"]:
        if check["target"] == "/quality/slices/0/metrics/over_redaction_rate":
            check["threshold"] = 0.0003830222830839734  # tighter than policy, equal to the stored double
    gates = {g["gate"]: g for g in run_families(a).collector.decisions["standalone_redaction"]["gates"]}
    assert gates["over_redaction_rate"]["threshold_source"] == "frozen"
    # exact 226/590044 is below the decimal 0.0003830222830839734? compare exactly
    assert gates["over_redaction_rate"]["passed"] is (Fraction(226, 590044) <= Fraction("0.0003830222830839734"))


@pytest.mark.parametrize("edit,pointer", [
    (lambda a: a[PUBLICATION]["decision"].__setitem__("standalone_privacy_redaction_allowed", True),
     "/decision/standalone_privacy_redaction_allowed"),
    (lambda a: a[PUBLICATION]["decision"].__setitem__("standalone_privacy_redaction_quality_passed", True),
     "/decision/standalone_privacy_redaction_quality_passed"),
    (lambda a: a[EVIDENCE]["promotion"].__setitem__("passed", True), "/promotion/passed"),
    (lambda a: a[EVIDENCE]["audit_chain"]["score"].__setitem__("quality_decision_passed", True),
     "/audit_chain/score/quality_decision_passed"),
    (lambda a: a[EVIDENCE]["audit_chain"]["prediction_audit"].__setitem__("release", "quality_eligible"),
     "/audit_chain/prediction_audit/release"),
])
def test_bundle_overstating_eligibility(edit, pointer: str) -> None:
    ctx = mutate(edit)
    assert {(f.code, f.pointer) for f in ctx.collector.findings} == {
        ("decision.bundle_overstates_eligibility", pointer)}


def test_bundle_overstating_known_bank_contract() -> None:
    def edit(a: dict[str, Any]) -> None:
        a[EVIDENCE]["catalog_conformance"].update(correctly_mapped=39603, missed=1, recall=39603 / 39604,
                                                  passed=False)

    ctx = mutate(edit)
    assert codes(ctx) == {"decision.bundle_overstates_known_bank_contract"}
    assert ctx.collector.decisions["known_bank_contract"]["verdict"] == "FAIL"


def test_cli_require_eligible_exits_3_naming_failed_gates() -> None:
    result = run_cli("verify", "fixtures/bundles/nerb-enron", "--require-standalone-redaction-eligible")
    assert result.code == 3, result.stdout + result.stderr
    assert "decision.standalone_redaction_ineligible" in result.stdout
    for gate in FAILED:
        assert gate in result.stdout


def test_cli_text_prints_headline_table() -> None:
    result = run_cli("verify", "fixtures/bundles/nerb-enron")
    assert result.code == 0, result.stdout + result.stderr
    for fragment in ("Known-bank contract (recomputed): PASS", "NOT ELIGIBLE", "142 / 1,393", "3,183 / 14,916"):
        assert fragment in result.stdout


def test_eligible_true_only_when_every_gate_passes() -> None:
    from contract_tests.family_harness import ALL_FAMILIES
    from tools.mutations.quality import recompute_metrics

    a = real_artifacts()
    s = slice_of(a, 0)
    s.update(true_positive=1393, false_negative=0, predicted_spans=1400, false_positive=7,
             cataloged_gold_spans=1200, cataloged_true_positive=1200, cataloged_false_negative=0,
             documents_with_any_miss=0, documents_with_any_cataloged_miss=0,
             covered_sensitive_characters=14916, leaked_sensitive_characters=0, predicted_characters=15142,
             documents_with_any_leaked_character=0)
    recompute_metrics(s)

    def performance_passed(ctx) -> None:
        ctx.collector.decisions["performance"] = {"decision_grade": "passed"}

    ctx = run_families(a, ALL_FAMILIES[:-1] + (performance_passed, decisions.run))
    standalone = ctx.collector.decisions["standalone_redaction"]
    assert standalone["failed_gates"] == [] and standalone["not_evaluated_gates"] == []
    assert standalone["eligible"] is True

    def performance_failed(ctx) -> None:
        ctx.collector.decisions["performance"] = {"decision_grade": "failed"}

    ctx = run_families(a, ALL_FAMILIES[:-1] + (performance_failed, decisions.run))
    assert ctx.collector.decisions["standalone_redaction"]["failed_gates"] == ["performance"]
    assert ctx.collector.decisions["standalone_redaction"]["eligible"] is False


def test_headline_table_snapshot(real_ctx, snapshot) -> None:
    """The readable table of the real bundle's recomputed headline figures (syrupy snapshot)."""
    assert real_ctx.shared["text.tables"][0] == snapshot


def test_missing_evidence_decides_nothing() -> None:
    ctx = run_families({})
    assert ctx.collector.decisions["standalone_redaction"]["eligible"] is None
    assert ctx.collector.decisions["known_bank_contract"]["verdict"] == "NOT_EVALUATED"
    assert ctx.collector.checks_run["decision"]["status"] == "not_evaluated"
