"""Claim family: scope, label strength, subject and provenance support; conservative rounding; promotion prerequisites.

Spec 10 sections 5.5, 9.8, 9.9 and 11.3. The real bundle makes no claims; spec 10 section 9.8 records which of its
gate-slice figures could never be claimed (open_world_recall, f1, catalog_coverage, cataloged_recall and
sensitive_character_recall round above their fractions, sensitive_character_leak_rate below).
"""

from __future__ import annotations

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
    run_families,
)

from nerb_verify.canonical import python_canonical_sha256  # noqa: E402
from nerb_verify.checks.presentation import claims  # noqa: E402
from tools.mutations.claim import claim  # noqa: E402

GATE_SLICE_UNCLAIMABLE = {
    "open_world_recall": "above", "f1": "above", "catalog_coverage": "above", "cataloged_recall": "above",
    "sensitive_character_recall": "above", "sensitive_character_leak_rate": "below",
}


def run_claims(evidence: dict[str, Any], figures: dict[str, Any] | None = None):
    figures = all_figures(evidence) if figures is None else figures
    return run_families(make_ctx(evidence, real_manifest(), figures), claims.run)


def claim_codes(evidence: dict[str, Any], figures: dict[str, Any] | None = None) -> set[str]:
    return codes(run_claims(evidence, figures), "claim")


def with_claims(*items: dict[str, Any], verifier: bool = False) -> dict[str, Any]:
    evidence = real_evidence()
    evidence["promotion"]["claims"] = list(items)
    evidence["verifier"]["passed"] = verifier
    return evidence


# -- the real bundle -------------------------------------------------------------------------------------------------
def test_real_bundle_claims_nothing_and_lists_what_it_could_never_claim() -> None:
    ctx = run_claims(real_evidence())
    assert codes(ctx) == set()
    decision = ctx.collector.decisions["claims"]
    assert decision["made"] == 0
    gate = {u["metric"]: u["direction"] for u in decision["unclaimable"]
            if u["pointer"].startswith("/quality/slices/0/")}
    assert gate == GATE_SLICE_UNCLAIMABLE
    assert not any(u["pointer"] == "/catalog_conformance/recall" for u in decision["unclaimable"])


def test_unclaimable_entries_explain_the_exact_fraction() -> None:
    ctx = run_claims(real_evidence())
    [coverage] = [u for u in ctx.collector.decisions["claims"]["unclaimable"]
                  if u["pointer"] == "/quality/slices/0/metrics/catalog_coverage"]
    assert coverage == {"pointer": "/quality/slices/0/metrics/catalog_coverage", "metric": "catalog_coverage",
                        "direction": "above", "better": "higher", "exact": "146/1393"}
    assert Fraction("0.1048097631012204") > Fraction(146, 1393)


def test_decision_grade_prerequisites_are_reported_for_a_non_promoted_bundle() -> None:
    ctx = run_claims(real_evidence())
    assert ctx.collector.decisions["claims"]["decision_grade_unmet"] == ["every_gate_passed", "audit_chain_accepted"]
    assert ctx.collector.decisions["claims"]["decision_grade_claimed"] is False


# -- one claim -------------------------------------------------------------------------------------------------------
def test_supported_claim_only_needs_a_passing_verifier() -> None:
    assert claim_codes(with_claims(claim())) == {"claim.unverified"}
    ctx = run_claims(with_claims(claim()))
    [record] = [r for r in ctx.collector.recomputed if r.figure == "claim.value"]
    assert record.exact == "142/149" and record.status == "match"


@pytest.mark.parametrize("metric,direction", sorted(GATE_SLICE_UNCLAIMABLE.items()))
def test_stored_doubles_that_round_favourably_cannot_be_claimed(metric: str, direction: str) -> None:
    evidence = real_evidence()
    stored = evidence["quality"]["slices"][0]["metrics"][metric]
    evidence = with_claims(claim(metric=metric, value=stored))
    assert claim_codes(evidence) == {"claim.favourable_rounding", "claim.unverified"}


def test_conservatively_rounded_value_is_supported_but_not_a_copy() -> None:
    evidence = with_claims(claim(metric="open_world_recall", value=0.1019))
    assert claim_codes(evidence) == {"claim.value_mismatch", "claim.unverified"}


def test_claim_of_a_null_metric_is_a_mismatch() -> None:
    evidence = with_claims(claim())
    evidence["quality"]["slices"][0]["metrics"]["precision"] = None
    figures = all_figures(evidence)
    assert claim_codes(evidence, figures) == {"claim.value_mismatch", "claim.unverified"}


def test_claim_without_an_exact_figure_is_not_evaluated() -> None:
    evidence = with_claims(claim())
    figures = all_figures(evidence)
    del figures["/quality/slices/0/metrics/precision"]
    assert claim_codes(evidence, figures) == {"claim.not_evaluated", "claim.unverified"}
    figures["/quality/slices/0/metrics/precision"] = None
    assert claim_codes(evidence, figures) == {"claim.not_evaluated", "claim.unverified"}


@pytest.mark.parametrize("field,value", [
    ("benchmark_version", "enron-b"), ("source_revision", "0" * 40), ("evaluator_source_sha256", "sha256:" + "2" * 64),
    ("environment_sha256", "sha256:" + "3" * 64),
])
def test_provenance_fields(field: str, value: str) -> None:
    ctx = run_claims(with_claims(claim(**{field: value})))
    assert codes(ctx) == {"claim.provenance", "claim.unverified"}
    [finding] = [f for f in ctx.collector.findings if f.code == "claim.provenance"]
    assert finding.pointer == f"/promotion/claims/0/{field}"


def test_environment_hash_is_the_canonical_hash_of_the_environment() -> None:
    evidence = real_evidence()
    assert claim()["environment_sha256"] == python_canonical_sha256(evidence["environment"])


@pytest.mark.parametrize("changes", [
    {"label_strength": "structured_weak"}, {"annotation_completeness": "partial"},
    {"scope": {"split_role": "validation"}}, {"scope": {"entity_class": "person"}}, {"scope": {"cohort": "x"}},
    {"scope": {"text_view": "full_body"}}, {"bank_hash": "sha256:" + "5" * 64}, {"quality_slice_id": "no_such_slice"},
    {"metric": "direct_bank_scan_p99_seconds"}, {"performance_workload_id": "density_dense_direct"},
])
def test_claims_may_not_exceed_their_evidence(changes: dict[str, Any]) -> None:
    assert claim_codes(with_claims(claim(**changes))) == {"claim.unsupported", "claim.unverified"}


def test_claim_on_a_weakly_labelled_slice_is_unsupported() -> None:
    evidence = with_claims(claim())
    evidence["quality"]["slices"][0]["label_strength"] = "structured_weak"
    assert claim_codes(evidence) == {"claim.unsupported", "claim.unverified"}


def conformance_claim(**changes: Any) -> dict[str, Any]:
    base = claim(kind="catalog_conformance", metric="catalog_conformance_recall", value=1.0,
                 label_strength="synthetic_conformance", quality_slice_id=None,
                 scope={"entity_class": None, "cohort": None, "split_role": None, "text_view": None})
    base.update(changes)
    return base


def test_conformance_claim() -> None:
    assert claim_codes(with_claims(conformance_claim())) == {"claim.unverified"}
    assert claim_codes(with_claims(conformance_claim(value=1))) == {"claim.unverified"}  # 1 and 1.0 are one number
    assert claim_codes(with_claims(conformance_claim(label_strength="independent"))) == {"claim.unsupported",
                                                                                          "claim.unverified"}
    assert claim_codes(with_claims(conformance_claim(value=1.0000000000000002))) == {
        "claim.value_mismatch", "claim.favourable_rounding", "claim.unverified"}


def performance_claim(evidence: dict[str, Any], unit: str, metric: str) -> tuple[dict[str, Any], str]:
    index, workload = next((i, w) for i, w in enumerate(evidence["performance"]["workloads"])
                           if w["phase"] == "direct_bank_scan" and w["sample_unit"] == unit)
    field = claims.PERFORMANCE_METRICS[metric]
    made = claim(kind="performance", metric=metric, value=workload["stats"][field], label_strength="unlabeled",
                 annotation_completeness="not_applicable", quality_slice_id=None,
                 performance_workload_id=workload["id"], bank_hash=workload["bank_hash"],
                 scope={"entity_class": None, "cohort": None, "split_role": None, "text_view": None})
    return made, f"/performance/workloads/{index}/stats/{field}"


@pytest.mark.parametrize("unit,metric", [("whole_input", "direct_bank_scan_mib_per_second"),
                                         ("document", "direct_bank_scan_p99_seconds"),
                                         ("document", "direct_bank_scan_seconds_per_document")])
def test_performance_claims_against_the_recomputed_statistic(unit: str, metric: str) -> None:
    evidence = real_evidence()
    made, pointer = performance_claim(evidence, unit, metric)
    evidence = with_claims(made)
    figures = all_figures(evidence)
    exact = Fraction(repr(made["value"]))
    figures[pointer] = exact
    assert claim_codes(evidence, figures) == {"claim.unverified"}
    # If the raw samples give a slightly worse figure than the stored one, the stored value rounds favourably.
    worse = exact * Fraction(999999, 1000000) if metric in claims.HIGHER_IS_BETTER else exact * Fraction(1000001,
                                                                                                          1000000)
    figures[pointer] = worse
    assert claim_codes(evidence, figures) == {"claim.favourable_rounding", "claim.unverified"}


def test_per_document_metric_needs_a_document_workload() -> None:
    evidence = real_evidence()
    made, _pointer = performance_claim(evidence, "whole_input", "direct_bank_scan_median_seconds")
    made["metric"] = "direct_bank_scan_seconds_per_document"
    assert "claim.unsupported" in claim_codes(with_claims(made))


# -- the claims list and promotion ---------------------------------------------------------------------------------
def test_synthetic_fixture_may_not_claim() -> None:
    evidence = with_claims(claim())
    evidence["artifact_kind"] = "synthetic_fixture"
    assert claim_codes(evidence) == {"claim.synthetic_fixture", "claim.unverified"}


def test_promotion_without_verifier_or_claims() -> None:
    evidence = real_evidence()
    evidence["promotion"]["passed"] = True
    ctx = run_claims(evidence)
    assert codes(ctx) == {"claim.promotion_prerequisite", "claim.missing_required",
                          "claim.decision_grade_prerequisite"}
    missing = [f.message for f in ctx.collector.findings if f.code == "claim.missing_required"]
    assert len(missing) == 11 + 1 + 2


def full_claim_set(evidence: dict[str, Any]) -> list[dict[str, Any]]:
    made = [claim(metric=m, value=evidence["quality"]["slices"][0]["metrics"][m]) for m in claims.QUALITY_METRICS]
    made.append(conformance_claim())
    made.append(performance_claim(evidence, "document", "direct_bank_scan_p99_seconds")[0])
    made.append(performance_claim(evidence, "whole_input", "direct_bank_scan_mib_per_second")[0])
    return made


def test_required_claims_are_counted_per_gate_slice_and_workload() -> None:
    evidence = real_evidence()
    evidence["promotion"]["passed"] = True
    evidence["verifier"]["passed"] = True
    evidence["promotion"]["claims"] = full_claim_set(evidence)
    ctx = run_claims(evidence)
    assert "claim.missing_required" not in codes(ctx)
    assert "claim.decision_grade_prerequisite" in codes(ctx)
    evidence["promotion"]["claims"].pop(0)
    assert "claim.missing_required" in claim_codes(evidence)


def test_decision_grade_findings_point_at_the_flag_that_claims_it() -> None:
    evidence = real_evidence()
    evidence["verifier"]["passed"] = True
    ctx = run_claims(evidence)
    found = {(f.code, f.pointer) for f in ctx.collector.findings}
    assert found == {("claim.decision_grade_prerequisite", "/verifier/passed")}


def test_decision_grade_claims_must_be_about_gate_subjects() -> None:
    evidence = real_evidence()
    evidence["verifier"]["passed"] = True
    diagnostic = claim(quality_slice_id=evidence["quality"]["slices"][1]["id"],
                       scope={f: evidence["quality"]["slices"][1][f] for f in claims.SCOPE_FIELDS},
                       value=evidence["quality"]["slices"][1]["metrics"]["precision"])
    evidence["promotion"]["claims"] = [diagnostic]
    assert "claim.unsupported" in claim_codes(evidence)


@pytest.mark.parametrize("claims_value", [None, 3, "x", {"a": 1}])
def test_malformed_claims_list(claims_value: Any) -> None:
    evidence = real_evidence()
    evidence["promotion"]["claims"] = claims_value
    assert claim_codes(evidence) == {"claim.malformed"}


@pytest.mark.parametrize("item", [None, 3, [], {}, {"kind": "open_world_quality"}, {"kind": "astrology"}])
def test_malformed_claims_never_crash(item: Any) -> None:
    evidence = with_claims(item)
    found = claim_codes(evidence)
    assert "claim.unverified" in found and len(found) >= 2


# -- the rounding rule, exhaustively on small fractions ---------------------------------------------------------------
@settings(max_examples=500, deadline=None)
@given(num=st.integers(0, 10**7), den=st.integers(1, 10**7), higher=st.booleans(), digits=st.integers(1, 8))
def test_rounding_rule_matches_brute_force(num: int, den: int, higher: bool, digits: int) -> None:
    """The stored double is favourable iff its decimal text is on the good side; a floor/ceil decimal never is."""
    exact = Fraction(num, den)
    stored = num / den
    text = repr(stored)
    decimal = Fraction(text)
    expected = decimal > exact if higher else decimal < exact
    assert claims.favourable(stored, exact, higher) is expected
    scale = 10**digits
    conservative = (exact.numerator * scale // exact.denominator) if higher else -(
        -exact.numerator * scale // exact.denominator)
    value = float(Fraction(conservative, scale))
    # A value printed from a conservative decimal is read back as that decimal, so it is never favourable.
    if Fraction(repr(value)) == Fraction(conservative, scale):
        assert claims.favourable(value, exact, higher) is False
