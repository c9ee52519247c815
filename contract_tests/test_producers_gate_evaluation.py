"""The producer's gate evaluation (assembly.evaluate_checks) decides every gate as the verifier does.

The verifier compares its exact figure (from counts or raw samples) with the threshold read as a decimal
(``gate.result``). A producer that compared the stored double instead failed a recall of exactly 19/20 against
``gte 0.95`` (the double 0.95 lies below 19/20) and wrote ``passed: false`` where the verifier recomputes true: the
reduced decision demo hit this when its gate slice came out at exactly 0.95. The real bundle is the oracle for the
published gates; the edge cases are built here at the threshold itself.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from contract_tests.conftest import REAL_BUNDLE
from nerb_verify.checks.raw import gate_eval
from nerb_verify.producers.assembly import evaluate_checks
from nerb_verify.producers.gate_figures import exact_figure

EVIDENCE = json.loads((REAL_BUNDLE / "benchmark-evidence.json").read_text())


def _unfilled(checks):
    return [{k: v for k, v in c.items() if k not in ("actual", "passed")} for c in checks]


def test_the_real_bundles_gates_are_re_evaluated_to_their_published_results():
    published = EVIDENCE["promotion"]["checks"]
    ours = evaluate_checks(_unfilled(published), EVIDENCE)
    assert len(ours) == len(published) > 100
    for mine, theirs in zip(ours, published):
        assert mine["passed"] is theirs["passed"], mine["id"]
        assert gate_eval.exact_copy(mine["actual"], theirs["actual"]), mine["id"]


def _slice_evidence(true_positive: int, gold: int) -> dict:
    return {"quality": {"slices": [{"label_strength": "independent", "annotation_completeness": "exhaustive_within_scope",
                                    "true_positive": true_positive, "gold_spans": gold,
                                    "metrics": {"open_world_recall": float(Fraction(true_positive, gold))
                                                if gold else None}}]}}


RECALL_GATE = {"id": "open_world_recall", "category": "quality", "operator": "gte", "threshold": 0.95,
               "target": "/quality/slices/0/metrics/open_world_recall"}


def test_a_recall_of_exactly_the_threshold_passes_although_its_double_is_below_it():
    evidence = _slice_evidence(114, 120)
    assert Fraction(0.95) < Fraction(19, 20)  # the trap: the stored double is below the exact rate
    [check] = evaluate_checks([dict(RECALL_GATE)], evidence)
    assert check["passed"] is True and check["actual"] == 0.95
    [below] = evaluate_checks([dict(RECALL_GATE)], _slice_evidence(113, 120))
    assert below["passed"] is False


def test_a_rate_that_cannot_be_derived_fails_its_gate():
    [empty] = evaluate_checks([dict(RECALL_GATE)], _slice_evidence(0, 0))
    assert empty["passed"] is False and empty["actual"] is None
    weak = _slice_evidence(114, 120)
    weak["quality"]["slices"][0]["label_strength"] = "silver"
    [ineligible] = evaluate_checks([dict(RECALL_GATE)], weak)
    assert ineligible["passed"] is False


def test_a_p99_of_exactly_the_budget_passes_although_its_double_is_above_it():
    workload = {"phase": "direct_bank_scan", "sample_unit": "document", "work_per_sample": 1,
                "samples_seconds": [0.05] * 100, "rss_samples_bytes": [4096] * 100, "peak_rss_bytes": 4096,
                "stats": {"p99_seconds": 0.05}}
    evidence = {"performance": {"inputs": [], "workloads": [workload]}}
    gate = {"id": "p99", "category": "performance", "operator": "lte", "threshold": 0.05,
            "target": "/performance/workloads/0/stats/p99_seconds"}
    assert Fraction(0.05) > Fraction(1, 20)
    assert exact_figure(evidence, gate["target"])[2] == Fraction(1, 20)
    [check] = evaluate_checks([gate], evidence)
    assert check["passed"] is True
    slower = copy.deepcopy(evidence)
    slower["performance"]["workloads"][0]["samples_seconds"] = [0.05] * 98 + [0.050000001] * 2
    [late] = evaluate_checks([gate], slower)
    assert late["passed"] is False


@settings(max_examples=300, deadline=None)
@given(scale=st.integers(1, 400), data=st.data(),
       threshold=st.sampled_from(["0.95", "0.8", "0.98", "1.0", "0.5", "0.05", "0.02", "0.999"]),
       operator=st.sampled_from(["gte", "lte"]))
def test_a_quality_gate_is_the_exact_comparison_of_its_counts(scale, data, threshold, operator):
    # Counts on and around the threshold itself, where a double comparison goes wrong: the gold count is a multiple
    # of the threshold's denominator (so the exact threshold is reachable) or any count.
    gold = data.draw(st.sampled_from([Fraction(threshold).denominator * scale, scale * 13 + 1]))
    near = int(Fraction(threshold) * gold)
    true_positive = data.draw(st.integers(max(0, near - 2), min(gold, near + 2)))
    gate = {**RECALL_GATE, "operator": operator, "threshold": float(threshold)}
    [check] = evaluate_checks([gate], _slice_evidence(true_positive, gold))
    exact = Fraction(true_positive, gold)
    expected = exact >= Fraction(threshold) if operator == "gte" else exact <= Fraction(threshold)
    assert check["passed"] is expected
    outcome = gate_eval.evaluate(check, _slice_evidence(true_positive, gold), {gate["target"]: exact})
    assert outcome.result is expected
