"""Gate family: strict targets, exact-copy actuals, exact rational comparisons, threshold hash, policy, required gates.

Expected values come from spec 10 sections 5.5, 7, 9.7, 9.9 and 11.2 and the real bundle (121 checks, thresholds hash
db7504..., every stored `passed` reproduced). Mutations are built in memory and re-sealed where a producer would
recompute the threshold hash, so only the gate rule can catch them.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "contract_tests"))

from evidence_helpers import (  # noqa: E402
    all_figures,
    codes,
    make_ctx,
    real_evidence,
    real_manifest,
    reseal,
    run_families,
)

from nerb_verify.checks.cross_artifact import gates  # noqa: E402
from nerb_verify.checks.raw import gate_eval  # noqa: E402

PUBLISHED_THRESHOLDS = "sha256:db75046ed5e9d296cd6a650eae48c73767574eb15618896c4c13d82d9876e2a1"
CHECKS = "promotion", "checks"


def by_id(evidence: dict[str, Any], check_id: str) -> dict[str, Any]:
    [check] = [c for c in evidence["promotion"]["checks"] if c["id"] == check_id]
    return check


def run_gates(evidence: dict[str, Any], figures: dict[str, Any] | None = None):
    figures = all_figures(evidence) if figures is None else figures
    return run_families(make_ctx(evidence, real_manifest(), figures), gates.run)


def gate_codes(evidence: dict[str, Any], figures: dict[str, Any] | None = None, seal: bool = True) -> set[str]:
    if seal:
        reseal(evidence)
    return codes(run_gates(evidence, figures), "gate")


def add_check(evidence: dict[str, Any], **check: Any) -> None:
    base = {"id": "extra", "category": "quality", "operator": "eq", "passed": True}
    base.update(check)
    evidence["promotion"]["checks"].append(base)


# -- the real bundle ---------------------------------------------------------------------------------------------------
def test_real_bundle_every_gate_reproduced() -> None:
    ctx = run_gates(real_evidence())
    assert codes(ctx) == set()
    assert ctx.collector.checks_run["gate"] == {"status": "ran", "checks": 121, "evaluated": 121, "not_evaluated": 0}
    passed = [r for r in ctx.collector.recomputed if r.figure == "gate.passed"]
    assert len(passed) == 121 and all(r.status == "match" for r in passed)
    [threshold_hash] = [r for r in ctx.collector.recomputed if r.figure == "gate.thresholds_sha256"]
    assert threshold_hash.exact == PUBLISHED_THRESHOLDS and threshold_hash.status == "match"


def test_real_quality_gates_compare_the_exact_fractions() -> None:
    ctx = run_gates(real_evidence())
    values = {r.pointer: r.exact for r in ctx.collector.recomputed if r.figure == "gate.comparison_value"}
    assert values["/promotion/checks/1/actual"] == "146/1393"   # catalog_coverage
    assert values["/promotion/checks/3/actual"] == "71/73"      # cataloged_recall 142/146, reduced
    assert values["/promotion/checks/9/actual"] == "142/1393"   # open_world_recall
    assert values["/promotion/checks/120/actual"] == "1061/4972"  # sensitive_character_recall 3183/14916, reduced


def test_gates_fail_closed_without_figures() -> None:
    evidence = real_evidence()
    ctx = run_gates(evidence, figures={})
    assert codes(ctx) == {"gate.not_evaluated"}
    # The 8 quality-metric and 107 performance targets cannot be evaluated without their exact figures.
    assert ctx.collector.checks_run["gate"]["not_evaluated"] == 115


def test_null_figure_is_not_evaluated_never_passed() -> None:
    evidence = real_evidence()
    figures = all_figures(evidence)
    figures["/quality/slices/0/metrics/over_redaction_rate"] = None
    assert gate_codes(evidence, figures, seal=False) == {"gate.not_evaluated"}


# -- actual must be an exact, type-strict copy ------------------------------------------------------------------------
@pytest.mark.parametrize("check_id,actual", [
    ("catalog_coverage", math.nextafter(0.1048097631012204, 1.0)),
    ("catalog_coverage", math.nextafter(0.1048097631012204, 0.0)),
    ("catalog_coverage", 0.1048097631),
    ("cataloged_wrong_canonical", 0.0),      # integer count copied as a float
    ("cataloged_wrong_canonical", False),    # integer copied as a boolean
    ("clean_git", 0),                        # boolean copied as an integer
    ("privacy_scan", "Passed"),
    ("negative_document_false_alarm_rate", 0),
    ("negative_document_false_alarm_rate", -0.0),
])
def test_actual_must_copy_the_stored_value_exactly(check_id: str, actual: Any) -> None:
    evidence = real_evidence()
    by_id(evidence, check_id)["actual"] = actual
    assert gate_codes(evidence) == {"gate.actual"}


# -- strict pointers ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("token", ["-1", "+0", "00", "01", " 0", "0 ", "1_0", "0x0", "3", "\u0660"])
def test_targets_resolve_strictly(token: str) -> None:
    evidence = real_evidence()
    add_check(evidence, target=f"/quality/slices/{token}/true_positive", threshold=142, actual=142)
    assert gate_codes(evidence) == {"gate.target"}


def test_canonical_index_resolves() -> None:
    evidence = real_evidence()
    add_check(evidence, target="/quality/slices/2/true_positive", threshold=20, actual=20, operator="gte")
    assert gate_codes(evidence) == set()


@pytest.mark.parametrize("target", ["/quality/slices/0", "/quality/slices", "/quality/slices/0/metrics"])
def test_target_must_be_a_scalar(target: str) -> None:
    evidence = real_evidence()
    add_check(evidence, target=target, threshold=0, actual=0)
    assert gate_codes(evidence) == {"gate.target"}


@pytest.mark.parametrize("target", ["/performance/workloads/0/samples_seconds/0", "/performance/evaluated",
                                    "/performance/workloads/01/stats/median_seconds",
                                    "/performance/workloads/0/stats/median_seconds/"])
def test_performance_targets_name_a_statistic(target: str) -> None:
    evidence = real_evidence()
    add_check(evidence, category="performance", target=target, operator="lte", threshold=1.0, actual=0)
    assert "gate.target" in gate_codes(evidence)


@pytest.mark.parametrize("category,target", [
    ("quality", "/catalog_conformance/passed"), ("privacy", "/software/git_dirty"),
    ("provenance", "/privacy/status"), ("catalog_conformance", "/quality/slices/0/true_positive"),
    ("performance", "/quality/slices/0/true_positive"),
])
def test_category_prefixes(category: str, target: str) -> None:
    evidence = real_evidence()
    add_check(evidence, category=category, target=target, threshold=0, actual=0, id="x")
    assert "gate.category_target" in gate_codes(evidence)


# -- exact rational comparisons ----------------------------------------------------------------------------------------
def test_threshold_equal_to_the_stored_double_does_not_pass_a_rational_gate() -> None:
    """Spec 10 section 9.7: threshold = stored double 0.1048097631012204 > 146/1393, so gte must fail."""
    evidence = real_evidence()
    check = by_id(evidence, "catalog_coverage")
    check["threshold"] = 0.1048097631012204
    check["passed"] = True
    assert gate_codes(evidence) == {"gate.result", "gate.threshold_policy"}
    check["passed"] = False
    assert gate_codes(evidence) == {"gate.threshold_policy"}


def test_threshold_read_as_its_decimal() -> None:
    """0.1 as a double is above 1/10, but as a threshold it is exactly 1/10: a 1/10 rate passes lte 0.1."""
    assert gate_eval.decimal_value(0.1) == Fraction(1, 10)
    assert gate_eval.decimal_value(0.95) == Fraction(19, 20)
    assert gate_eval.decimal_value(1e-05) == Fraction(1, 100000)
    assert gate_eval.decimal_value(True) is None
    evidence = real_evidence()
    add_check(evidence, target="/quality/slices/0/metrics/precision", operator="lte", threshold=0.953020134228188,
              actual=evidence["quality"]["slices"][0]["metrics"]["precision"], passed=True)
    # 142/149 = 0.95302013422818791946... <= 0.953020134228188 exactly.
    assert gate_codes(evidence) == set()


@pytest.mark.parametrize("check_id", ["clean_git", "catalog_conformance", "privacy_scan", "cataloged_wrong_canonical",
                                      "over_redaction_rate", "performance_20_documents_per_second"])
def test_flipped_result(check_id: str) -> None:
    evidence = real_evidence()
    by_id(evidence, check_id)["passed"] = not by_id(evidence, check_id)["passed"]
    assert gate_codes(evidence) == {"gate.result"}


@pytest.mark.parametrize("target,operator,threshold,actual", [
    ("/bank/active_patterns", "eq", "13201", 13201),
    ("/bank/active_patterns", "gte", None, 13201),
    ("/bank/active_patterns", "gte", True, 13201),
    ("/software/git_commit", "gte", "a", "f574b79caaf194f17ba8b8113939bd22c9380bc3"),
    ("/splits/test_sealed", "eq", 1, True),
    ("/source/revision", "eq", None, "cfc06c758093d90993abce1a43668fb7357258a6"),
])
def test_incomparable_values(target: str, operator: str, threshold: Any, actual: Any) -> None:
    evidence = real_evidence()
    add_check(evidence, category="provenance", target=target, operator=operator, threshold=threshold, actual=actual)
    assert gate_codes(evidence) == {"gate.comparison"}


def test_quality_metric_gate_with_string_threshold_is_incomparable_and_vacuous() -> None:
    evidence = real_evidence()
    by_id(evidence, "over_redaction_rate")["threshold"] = "0.05"
    assert gate_codes(evidence) == {"gate.comparison", "gate.vacuous_threshold"}


# -- uniqueness and the threshold hash ---------------------------------------------------------------------------------
def test_duplicate_id_and_target() -> None:
    evidence = real_evidence()
    add_check(evidence, id="clean_git", category="provenance", target="/software/git_commit", threshold="x",
              actual="f574b79caaf194f17ba8b8113939bd22c9380bc3", passed=False)
    assert gate_codes(evidence) == {"gate.duplicate_id"}
    evidence = real_evidence()
    add_check(evidence, id="other", category="provenance", target="/software/git_dirty", threshold=False,
              actual=False)
    assert gate_codes(evidence) == {"gate.duplicate_target"}


def test_threshold_edit_breaks_the_hash_unless_resealed() -> None:
    evidence = real_evidence()
    by_id(evidence, "over_redaction_rate")["threshold"] = 0.04
    assert gate_codes(evidence, seal=False) == {"gate.thresholds_hash", "gate.thresholds_copy"}
    assert gate_codes(evidence, seal=True) == set()  # tightening is allowed once it is frozen again


def test_threshold_hash_covers_every_category_and_only_the_five_fields() -> None:
    evidence = real_evidence()
    by_id(evidence, "performance_20_documents_per_second")["threshold"] = 101.0
    assert "gate.thresholds_hash" in gate_codes(evidence, seal=False)
    evidence = real_evidence()
    by_id(evidence, "clean_git")["actual"] = True
    by_id(evidence, "clean_git")["passed"] = False
    ctx = run_gates(evidence)
    assert "gate.thresholds_hash" not in codes(ctx)


def test_int_and_float_thresholds_hash_differently() -> None:
    evidence = real_evidence()
    by_id(evidence, "cataloged_recall")["threshold"] = 1
    assert gate_codes(evidence, seal=False) == {"gate.thresholds_hash", "gate.thresholds_copy"}


@pytest.mark.parametrize("pointer", [("audit_chain", "score", "thresholds_sha256"),
                                     ("test_access", "frozen_target", "thresholds_sha256")])
def test_each_copy_of_the_threshold_hash(pointer: tuple[str, ...]) -> None:
    evidence = real_evidence()
    reseal(evidence)
    node = evidence
    for key in pointer[:-1]:
        node = node[key]
    node[pointer[-1]] = "sha256:" + "4" * 64
    assert gate_codes(evidence, seal=False) == {"gate.thresholds_copy"}


# -- threshold policy and required gates (always checked) ----------------------------------------------------------------
LOOSER = {"open_world_recall": 0.94, "catalog_coverage": 0.79, "cataloged_recall": 0.999,
          "sensitive_character_recall": 0.97, "document_leak_rate": 0.051, "sensitive_character_leak_rate": 0.021,
          "negative_document_false_alarm_rate": 0.51, "over_redaction_rate": 0.0500001}


@pytest.mark.parametrize("metric,looser", sorted(LOOSER.items()))
def test_weakened_threshold_breaks_policy_even_when_resealed_and_not_promoted(metric: str, looser: float) -> None:
    evidence = real_evidence()
    check = by_id(evidence, metric)
    check["threshold"] = looser
    exact = all_figures(evidence)[check["target"]]
    check["passed"] = gate_eval.compare(exact, check["operator"], gate_eval.decimal_value(looser))
    assert evidence["promotion"]["passed"] is False
    assert gate_codes(evidence) == {"gate.threshold_policy"}


@pytest.mark.parametrize("metric", sorted(LOOSER))
def test_tightened_thresholds_are_allowed(metric: str) -> None:
    evidence = real_evidence()
    check = by_id(evidence, metric)
    bound = gates.POLICY[metric][1]
    check["threshold"] = float((bound + 1) / 2) if check["operator"] == "gte" else float(bound / 2)
    exact = all_figures(evidence)[check["target"]]
    check["passed"] = gate_eval.compare(exact, check["operator"], gate_eval.decimal_value(check["threshold"]))
    assert gate_codes(evidence) == set()


@pytest.mark.parametrize("metric,operator,threshold", [
    ("over_redaction_rate", "lte", 1.0), ("over_redaction_rate", "lte", 1), ("open_world_recall", "gte", 0.0),
    ("open_world_recall", "gte", 1.5), ("document_leak_rate", "lte", -0.1),
])
def test_vacuous_thresholds(metric: str, operator: str, threshold: Any) -> None:
    evidence = real_evidence()
    check = by_id(evidence, metric)
    check["threshold"] = threshold
    exact = all_figures(evidence)[check["target"]]
    check["passed"] = gate_eval.compare(exact, operator, gate_eval.decimal_value(threshold))
    assert gate_codes(evidence) == {"gate.vacuous_threshold"}


def test_performance_threshold_must_be_positive() -> None:
    evidence = real_evidence()
    check = by_id(evidence, "performance_20_median_seconds")
    check["threshold"] = 0.0
    check["passed"] = False
    assert gate_codes(evidence) == {"gate.vacuous_threshold"}


def test_wrong_direction_on_a_non_gate_slice_is_a_policy_finding() -> None:
    evidence = real_evidence()
    add_check(evidence, id="contact_recall", target="/quality/slices/1/metrics/open_world_recall", operator="lte",
              threshold=0.99, actual=evidence["quality"]["slices"][1]["metrics"]["open_world_recall"], passed=True)
    assert gate_codes(evidence) == {"gate.threshold_policy"}


@pytest.mark.parametrize("check_id", ["catalog_conformance", "privacy_scan", "clean_git", "cataloged_false_negative",
                                      "cataloged_wrong_canonical", "documents_with_any_cataloged_miss",
                                      "open_world_recall", "catalog_coverage", "cataloged_recall",
                                      "sensitive_character_recall", "document_leak_rate",
                                      "sensitive_character_leak_rate", "negative_document_false_alarm_rate",
                                      "over_redaction_rate"])
def test_every_required_gate(check_id: str) -> None:
    evidence = real_evidence()
    evidence["promotion"]["checks"].remove(by_id(evidence, check_id))
    assert gate_codes(evidence) == {"gate.missing_required"}


@pytest.mark.parametrize("check_id,field,value", [
    ("catalog_conformance", "threshold", 1), ("privacy_scan", "threshold", "failed"),
    ("clean_git", "threshold", True), ("cataloged_false_negative", "threshold", 1),
    ("open_world_recall", "operator", "eq"), ("document_leak_rate", "operator", "gte"),
])
def test_required_gate_semantics(check_id: str, field: str, value: Any) -> None:
    evidence = real_evidence()
    check = by_id(evidence, check_id)
    check[field] = value
    outcome = gate_eval.evaluate(check, evidence, all_figures(evidence))
    if outcome.status == "ok":
        check["passed"] = outcome.result
    assert "gate.required_semantics" in gate_codes(evidence)


def test_required_count_gate_accepts_integer_valued_float_threshold() -> None:
    evidence = real_evidence()
    by_id(evidence, "cataloged_wrong_canonical")["threshold"] = 0.0
    assert gate_codes(evidence) == set()


# -- malformed and hostile input ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("check", [None, 5, "x", [], {}, {"category": "nope", "target": "/q", "operator": "eq"},
                                   {"category": "quality", "target": 5, "operator": "eq"},
                                   {"category": "quality", "target": "/quality/evaluated", "operator": "gt"}])
def test_malformed_checks(check: Any) -> None:
    evidence = real_evidence()
    evidence["promotion"]["checks"].append(check)
    assert "gate.malformed" in gate_codes(evidence, seal=False)


def test_missing_checks_list_is_malformed_not_passed() -> None:
    evidence = real_evidence()
    evidence["promotion"]["checks"] = []
    ctx = run_gates(evidence)
    assert codes(ctx) == {"gate.malformed"}
    assert ctx.collector.checks_run["gate"]["status"] == "not_evaluated"


scalars = st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False,
                                                                               allow_infinity=False) | st.text(max_size=6)


@settings(max_examples=300, deadline=None)
@given(check=st.dictionaries(st.sampled_from(["id", "category", "target", "operator", "threshold", "actual",
                                              "passed"]),
                             scalars | st.sampled_from(["quality", "gte", "lte", "eq", "/quality/slices/0/gold_spans",
                                                        "/quality/slices/0/metrics/f1", "/privacy/status"])))
def test_evaluate_never_raises(check: dict[str, Any]) -> None:
    evidence = real_evidence_cached()
    outcome = gate_eval.evaluate(check, evidence, FIGURES)
    assert outcome.status in ("ok", "malformed", "category_target", "target", "not_evaluated", "comparison")


_CACHE: dict[str, Any] = {}


def real_evidence_cached() -> dict[str, Any]:
    if "e" not in _CACHE:
        _CACHE["e"] = real_evidence()
    return _CACHE["e"]


FIGURES = {"/quality/slices/0/metrics/f1": Fraction(284, 1542)}


@settings(max_examples=300, deadline=None)
@given(num=st.integers(0, 10**6), den=st.integers(1, 10**6), digits=st.integers(1, 17),
       scaled=st.integers(0, 10**17), operator=st.sampled_from(["gte", "lte", "eq"]))
def test_rational_gate_matches_brute_force(num: int, den: int, digits: int, scaled: int, operator: str) -> None:
    """A count-derived gate decides exactly like integer cross-multiplication against the written decimal."""
    num = min(num, den)
    text = f"{scaled % 10**digits}e-{digits}"
    threshold = float(text)
    pointer = "/quality/slices/0/metrics/f1"
    check = {"category": "quality", "target": pointer, "operator": operator, "threshold": threshold}
    outcome = gate_eval.evaluate(check, real_evidence_cached(), {pointer: Fraction(num, den)})
    decimal = Fraction(repr(threshold))
    lhs, rhs = num * decimal.denominator, decimal.numerator * den
    expected = {"gte": lhs >= rhs, "lte": lhs <= rhs, "eq": lhs == rhs}[operator]
    assert outcome.status == "ok" and outcome.result is expected


# -- the insufficient-support terminal ----------------------------------------------------------------------------------
def insufficient_support_evidence() -> dict[str, Any]:
    evidence = real_evidence()
    evidence["quality"]["evaluated"] = False
    evidence["quality"]["slices"] = []
    chain = evidence["audit_chain"]
    chain["score"]["status"] = "insufficient_support"
    chain["prediction_audit"]["status"] = "not_run_insufficient_support"
    for check in evidence["promotion"]["checks"]:
        if check["category"] == "quality":
            check["actual"] = None
            check["passed"] = False
    return evidence


def test_insufficient_support_keeps_failed_frozen_quality_gates() -> None:
    evidence = insufficient_support_evidence()
    ctx = run_gates(evidence, figures=all_figures(real_evidence()))
    assert codes(ctx, "gate") == set()
    assert ctx.collector.checks_run["gate"]["insufficient_support"] == 11


@pytest.mark.parametrize("change", ["passed", "actual", "score", "claims", "target"])
def test_insufficient_support_exception_is_narrow(change: str) -> None:
    evidence = insufficient_support_evidence()
    check = by_id(evidence, "catalog_coverage")
    if change == "passed":
        check["passed"] = True
    elif change == "actual":
        check["actual"] = 0.0
    elif change == "score":
        evidence["audit_chain"]["score"]["status"] = "scored_pending_prediction_audit"
    elif change == "claims":
        evidence["promotion"]["claims"] = [{}]
    else:
        check["target"] = "/quality/slices/1/metrics/catalog_coverage"
    assert "gate.target" in gate_codes(evidence, figures=all_figures(real_evidence()))
