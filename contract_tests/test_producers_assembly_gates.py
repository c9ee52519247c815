"""Assembly's frozen performance gates for a decision run (nerb_verify/producers/assembly.py).

The real bundle is the oracle: NERB published 107 performance gates for its 19 decision cells. Our assembly, given
the same performance section, must produce the same targets, operators and thresholds, and the verifier's policy
(required gate set, budgets that may not loosen) must accept every one of them.
"""

from __future__ import annotations

import json
from pathlib import Path

from contract_tests.conftest import REAL_BUNDLE
from nerb_verify.checks.raw import gate_eval
from nerb_verify.checks.cross_artifact.performance_gate_policy import budget, required_fields
from nerb_verify.producers import harness
from nerb_verify.producers.assembly import decision_cell_gates, gate_checks

EVIDENCE = json.loads((REAL_BUNDLE / "benchmark-evidence.json").read_text())
PERFORMANCE = EVIDENCE["performance"]
CELLS = [(i, w) for i, w in enumerate(PERFORMANCE["workloads"]) if w["decision_grade"] is True]


def test_decision_gates_equal_the_published_gate_set():
    ours = {c["target"]: c for c in decision_cell_gates(PERFORMANCE, CELLS)}
    published = {c["target"]: c for c in EVIDENCE["promotion"]["checks"] if c["category"] == "performance"}
    assert len(CELLS) == 19 and len(ours) == 107
    assert set(ours) == set(published)
    for target, check in ours.items():
        assert (check["operator"], check["threshold"]) == (published[target]["operator"],
                                                           published[target]["threshold"]), target
        assert type(check["threshold"]) is type(published[target]["threshold"]), target


def test_every_threshold_is_within_its_budget_and_every_required_gate_exists():
    ours = {c["target"]: c for c in decision_cell_gates(PERFORMANCE, CELLS)}
    inputs = {item["id"]: item for item in PERFORMANCE["inputs"]}
    for position, workload in CELLS:
        for field, operator in required_fields(workload).items():
            target = (f"/performance/workloads/{position}/peak_rss_bytes" if field == "peak_rss_bytes"
                      else f"/performance/workloads/{position}/stats/{field}")
            check = ours[target]
            assert check["operator"] == operator
            _, bound = budget(workload, field, inputs.get(workload.get("input_id")))
            threshold = gate_eval.decimal_value(check["threshold"])
            assert threshold <= bound if operator == "lte" else threshold >= bound, target


def test_smoke_sections_keep_only_the_headline_gates():
    smoke = json.loads((Path(REAL_BUNDLE).parent / "synthetic-smoke" / "benchmark-evidence.json").read_text())
    checks = gate_checks(None, smoke["performance"])
    performance = [c for c in checks if c["category"] == "performance"]
    assert {c["target"].rsplit("/", 1)[-1] for c in performance} == {"documents_per_second", "mib_per_second",
                                                                      "peak_rss_bytes"}


def test_decision_headlines_are_promotion_gates_and_nothing_else_is():
    descriptors = {harness_id: {"descriptor_sha256": "sha256:" + "0" * 64}
                   for harness_id in harness.PHASE_HARNESS.values()}
    descriptors["i"] = {"descriptor_sha256": "sha256:" + "1" * 64}

    def spec(workload_id: str, phase: str, decision: bool) -> dict:
        return harness.cell_spec(workload_id, phase, "b", None if phase == "cold_compile" else "i", 1, decision,
                                 descriptors, {"b": "sha256:" + "2" * 64})

    assert spec("real_direct_throughput", "direct_bank_scan", True)["promotion_gate"] is True
    assert spec("real_direct_latency", "direct_bank_scan", True)["promotion_gate"] is True
    assert spec("real_direct_throughput", "direct_bank_scan", False)["promotion_gate"] is False
    assert spec("scale_1000_direct", "direct_bank_scan", True)["promotion_gate"] is False
    assert spec("real_cold_compile", "cold_compile", True)["promotion_gate"] is False
    assert spec("real_direct_cache_value", "direct_bank_scan", True)["promotion_gate"] is False
    assert harness.control_spec(spec("real_direct_latency", "direct_bank_scan", True))["promotion_gate"] is False
