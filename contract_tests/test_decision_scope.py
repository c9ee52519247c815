"""Decision-grade scope (nerb_verify/decision_scope.py, docs/decision-grade.md).

The synthetic smoke bundle (``tools/make_synthetic_bundle.py``) verifies with no finding and lists its unmet
decision-grade requirements; the real bundle is decision grade; a bundle cannot declare itself smoke to escape the
requirements (the broken fixtures under ``fixtures/invalid/*smoke*`` and ``*capacity-removed`` cover those paths).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from contract_tests.conftest import REPO, run_cli, verify_dir
from nerb_verify import decision_scope
from nerb_verify.context import VerifyContext, VerifyOptions
from nerb_verify.findings import Collector
from nerb_verify.seal import seal_bundle

SYNTHETIC = REPO / "fixtures" / "bundles" / "synthetic-smoke"
EVIDENCE = "benchmark-evidence.json"
REPORT = "performance-report.json"
SMOKE_UNMET = {"capacity.not_evaluated", "manifest.missing_gate_slice", "performance.decision_matrix",
               "performance.not_decision_profile", "performance.sweep_uncontrolled",
               "performance.value_model_policy"}


def test_synthetic_smoke_bundle_verifies_with_no_finding_and_lists_what_it_lacks():
    result = verify_dir(SYNTHETIC)
    assert result.verdict == "verified" and result.exit_code == 0
    assert result.collector.findings == []
    grade = result.collector.decisions["decision_grade"]
    assert grade["scope"] == "smoke" and grade["eligible"] is False and grade["scope_reasons"] == []
    assert {item["code"] for item in grade["unmet"]} == SMOKE_UNMET
    assert all(set(item) == {"code", "artifact", "pointer"} for item in grade["unmet"])
    mismatched = [r.to_json() for r in result.collector.recomputed if r.status == "mismatch"]
    assert mismatched == []


def test_synthetic_smoke_bundle_text_and_json_outputs_say_not_decision_grade():
    text = run_cli("verify", str(SYNTHETIC))
    assert text.code == 0
    assert "Decision grade: NOT ELIGIBLE (declared smoke bundle; unmet requirements: capacity.not_evaluated" in text.stdout
    report = json.loads(run_cli("verify", "--format", "json", str(SYNTHETIC)).stdout)
    assert report["verdict"] == "verified" and report["decisions"]["decision_grade"]["scope"] == "smoke"


def test_require_decision_grade_exits_3_on_smoke_and_0_on_the_real_bundle(real_bundle):
    smoke = run_cli("verify", "--require-decision-grade", str(SYNTHETIC))
    assert smoke.code == 3, smoke.stdout
    assert "decision.decision_grade_ineligible" in smoke.stdout
    assert "performance.not_decision_profile" in smoke.stdout
    real = run_cli("verify", "--require-decision-grade", str(real_bundle))
    assert real.code == 0, real.stdout
    assert "Decision grade: eligible" in real.stdout


def test_real_bundle_is_in_decision_scope_and_eligible(real_result):
    grade = real_result.collector.decisions["decision_grade"]
    assert grade == {"scope": "decision", "scope_reasons": ["performance report profile is not smoke",
                                                             "performance report decision_grade.passed is not false"],
                     "eligible": True, "blocked_by": [], "unmet": []}


def _context(report, evidence) -> VerifyContext:
    ctx = VerifyContext(root=Path("."), options=VerifyOptions(), collector=Collector())
    if report is not None:
        ctx.loaded[REPORT] = report
    if evidence is not None:
        ctx.loaded[EVIDENCE] = evidence
    return ctx


SMOKE_REPORT = {"profile": "smoke", "decision_grade": {"passed": False, "failure_codes": ["x"]}}
SMOKE_EVIDENCE = {"promotion": {"passed": False, "claims": []}, "verifier": {"passed": False}}


@pytest.mark.parametrize("report,evidence,reason", [
    (None, SMOKE_EVIDENCE, "performance report profile is not smoke"),
    ({"profile": "Smoke", "decision_grade": {"passed": False}}, SMOKE_EVIDENCE,
     "performance report profile is not smoke"),
    ({"profile": "smoke"}, SMOKE_EVIDENCE, "performance report decision_grade.passed is not false"),
    ({"profile": "smoke", "decision_grade": {"passed": 0}}, SMOKE_EVIDENCE,
     "performance report decision_grade.passed is not false"),
    (SMOKE_REPORT, None, "evidence promotion.passed is not false"),
    (SMOKE_REPORT, {"promotion": {"passed": True, "claims": []}, "verifier": {"passed": False}},
     "evidence promotion.passed is not false"),
    (SMOKE_REPORT, {"promotion": {"passed": False, "claims": []}, "verifier": {"passed": True}},
     "evidence verifier.passed is not false"),
    (SMOKE_REPORT, {"promotion": {"passed": False, "claims": [{}]}, "verifier": {"passed": False}},
     "evidence makes claims"),
    (SMOKE_REPORT, {"promotion": {"passed": False}, "verifier": {"passed": False}}, "evidence makes claims"),
])
def test_anything_short_of_a_clear_smoke_declaration_is_decision_scope(report, evidence, reason):
    scope, reasons = decision_scope.declared_scope(_context(report, evidence))
    assert scope == "decision" and reason in reasons


def test_a_clear_smoke_declaration_is_smoke_scope():
    assert decision_scope.declared_scope(_context(SMOKE_REPORT, SMOKE_EVIDENCE)) == ("smoke", [])


def test_requirement_findings_move_out_only_in_smoke_scope():
    for evidence, moved in ((SMOKE_EVIDENCE, True), ({**SMOKE_EVIDENCE, "verifier": {"passed": True}}, False)):
        ctx = _context(SMOKE_REPORT, evidence)
        ctx.collector.add("performance.decision_matrix", EVIDENCE, "/performance/workloads")
        ctx.collector.add("performance.statistic_mismatch", EVIDENCE, "/performance/workloads/0/stats")
        decision_scope.apply(ctx)
        codes = [f.code for f in ctx.collector.findings]
        assert "performance.statistic_mismatch" in codes  # integrity findings always stay
        assert ("performance.decision_matrix" in codes) is not moved
        unmet = ctx.collector.decisions["decision_grade"]["unmet"]
        assert unmet == [{"code": "performance.decision_matrix", "artifact": EVIDENCE,
                          "pointer": "/performance/workloads"}]
        assert ctx.collector.decisions["decision_grade"]["eligible"] is False


def test_integrity_findings_still_reject_a_smoke_bundle(tmp_path):
    """A hash-aware edit of a smoke bundle's raw sample that moves a statistic is caught as on a decision bundle."""
    bundle = tmp_path / "bundle"
    shutil.copytree(SYNTHETIC, bundle)
    evidence = json.loads((bundle / EVIDENCE).read_text())
    samples = evidence["performance"]["workloads"][0]["samples_seconds"]
    # move the median sample above the maximum: the median (and so a stored statistic) must change
    samples[samples.index(sorted(samples)[len(samples) // 2])] = round(max(samples) * 3, 9)
    (bundle / EVIDENCE).write_text(json.dumps(evidence))
    seal_bundle(bundle)
    result = verify_dir(bundle)
    assert result.verdict == "rejected"
    assert "performance.statistic_mismatch" in {f.code for f in result.collector.findings}
    assert result.collector.decisions["decision_grade"]["scope"] == "smoke"


def test_every_requirement_code_is_registered_and_documented():
    page = (REPO / "docs" / "decision-grade.md").read_text(encoding="utf-8")
    from nerb_verify import catalog, codes

    catalog.all_codes()
    for code in decision_scope.REQUIREMENT_CODES:
        assert codes.get(code).severity == "error"
        assert f"`{code}`" in page


def test_eligibility_needs_the_recomputed_performance_grade_to_pass():
    """A failure code with no error finding of its own (a dirty worktree) still makes the bundle not eligible."""
    decision_report = {"profile": "decision", "decision_grade": {"passed": True, "failure_codes": []}}
    for grade, eligible in (("passed", True), ("failed", False), (None, False)):
        ctx = _context(decision_report, SMOKE_EVIDENCE)
        for family in decision_scope.REQUIREMENT_FAMILIES:
            ctx.collector.ran(family)
        if grade is not None:
            ctx.collector.decisions["performance"] = {"decision_grade": grade}
        decision_scope.apply(ctx)
        record = ctx.collector.decisions["decision_grade"]
        assert record["eligible"] is eligible, grade
        assert ("performance_grade_not_passed" in record["blocked_by"]) is not eligible



# ------------------------------------------------------------------ honest failure is a decision outcome (issue 16)

NOT_PASSED_REPORT = {"profile": "decision",
                     "decision_grade": {"passed": False, "failure_codes": ["comparison_regression_or_noise"]}}


def test_a_decision_run_reporting_its_grade_not_passed_is_not_claimed_scope():
    assert decision_scope.declared_scope(_context(NOT_PASSED_REPORT, SMOKE_EVIDENCE)) == ("not_claimed", [])


@pytest.mark.parametrize("report,evidence", [
    ({**NOT_PASSED_REPORT, "profile": "Decision"}, SMOKE_EVIDENCE),
    ({**NOT_PASSED_REPORT, "decision_grade": {"passed": True, "failure_codes": []}}, SMOKE_EVIDENCE),
    (NOT_PASSED_REPORT, {**SMOKE_EVIDENCE, "verifier": {"passed": True}}),
    (NOT_PASSED_REPORT, {"promotion": {"passed": True, "claims": []}, "verifier": {"passed": False}}),
    (NOT_PASSED_REPORT, {"promotion": {"passed": False, "claims": [{}]}, "verifier": {"passed": False}}),
])
def test_any_claim_keeps_a_decision_run_in_decision_scope(report, evidence):
    scope, reasons = decision_scope.declared_scope(_context(report, evidence))
    assert scope == "decision" and reasons


def test_requirement_findings_are_outcomes_in_not_claimed_scope_and_errors_otherwise():
    for report, moved in ((NOT_PASSED_REPORT, True), ({**NOT_PASSED_REPORT, "decision_grade": {"passed": True}}, False)):
        ctx = _context(report, SMOKE_EVIDENCE)
        ctx.collector.add("performance.comparison_failed", EVIDENCE, "/performance/comparisons/0/result")
        ctx.collector.add("performance.comparison_result_mismatch", EVIDENCE, "/performance/comparisons/0/result")
        decision_scope.apply(ctx)
        codes = [f.code for f in ctx.collector.findings]
        assert "performance.comparison_result_mismatch" in codes  # a false statement stays an error
        assert ("performance.comparison_failed" in codes) is not moved
        assert ctx.collector.decisions["decision_grade"]["eligible"] is False


def _honest_bundle(tmp_path: Path) -> Path:
    from tools.fixturelib import materialize
    from tools.mutations.decision_scope import HONEST_UNSTABLE

    return materialize(HONEST_UNSTABLE, tmp_path)


def test_honest_unstable_cell_verifies_and_exits_3_only_when_decision_grade_is_required(tmp_path):
    """Charter: unstable and inconclusive cells are nonpromotable, not invalid. The honest bundle verifies, reports
    the decision, and fails only the flag that requires decision grade."""
    bundle = _honest_bundle(tmp_path)
    plain = run_cli("verify", str(bundle))
    assert plain.code == 0, plain.stdout
    assert ("Decision grade: NOT ELIGIBLE (the bundle reports its decision grade as not passed; unmet requirements: "
            "performance.comparison_failed, performance.decision_matrix)") in plain.stdout
    required = run_cli("verify", "--require-decision-grade", str(bundle))
    assert required.code == 3, required.stdout
    assert "decision.decision_grade_ineligible" in required.stdout and "performance.comparison_failed" in required.stdout
    report = json.loads(run_cli("verify", "--format", "json", str(bundle)).stdout)
    assert report["verdict"] == "verified"
    assert report["decisions"]["performance"]["decision_grade"] == "failed"
    assert "comparison_regression_or_noise" in report["decisions"]["performance"]["failure_codes"]


def test_the_same_unstable_cell_under_a_passed_grade_is_rejected(tmp_path):
    """Claiming decision grade over the unstable cell is false: the requirement finding is an error again."""
    bundle = _honest_bundle(tmp_path)
    report = json.loads((bundle / REPORT).read_text())
    report["decision_grade"] = {"passed": True, "failure_codes": []}
    (bundle / REPORT).write_text(json.dumps(report))
    seal_bundle(bundle)
    result = verify_dir(bundle)
    codes = {f.code for f in result.collector.findings if f.severity == "error"}
    assert {"performance.comparison_failed", "performance.decision_grade_mismatch"} <= codes
    assert result.verdict == "rejected"
