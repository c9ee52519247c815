"""The sealing tool (nerb_verify/seal.py) on broken bundles: it reseals what it can and never raises."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from contract_tests.conftest import REPO, verify_dir
from nerb_verify.seal import seal_bundle, seal_steps

SYNTHETIC = REPO / "fixtures" / "bundles" / "synthetic-smoke"


def test_sealing_a_bundle_whose_plan_cannot_be_rebuilt_leaves_the_plan_hash(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(SYNTHETIC, bundle)
    path = bundle / "benchmark-evidence.json"
    evidence = json.loads(path.read_text())
    evidence["performance"]["harnesses"].pop()  # a workload now names a missing harness
    path.write_text(json.dumps(evidence))
    report_before = json.loads((bundle / "performance-report.json").read_text())["plan_sha256"]
    seal_bundle(bundle)
    seal_steps(bundle, ["plan_sha256"])
    assert json.loads((bundle / "performance-report.json").read_text())["plan_sha256"] == report_before
    codes = {f.code for f in verify_dir(bundle).collector.findings}
    assert {"performance.plan_hash", "performance.unknown_reference"} <= codes


def test_sealing_a_comparison_of_the_wrong_kind_does_not_raise(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(REPO / "fixtures" / "bundles" / "nerb-enron", bundle)
    path = bundle / "benchmark-evidence.json"
    evidence = json.loads(path.read_text())
    evidence["performance"]["comparisons"][0]["comparison_kind"] = "cross_path_value"
    path.write_text(json.dumps(evidence))
    seal_bundle(bundle)
    assert verify_dir(bundle).verdict == "rejected"


# -- the capacity decision's internal chain (nerb_verify/seal_capacity.py) ------------------------------------------
REAL = REPO / "fixtures" / "bundles" / "nerb-enron"
CAPACITY_HASH_CODES = {"capacity.decision_hash_mismatch", "capacity.report_hash_mismatch",
                       "capacity.report_bytes_mismatch", "capacity.attempt_hash_mismatch",
                       "capacity.attempt_chain_broken", "capacity.terminal_attempt_mismatch",
                       "capacity.terminal_binding_mismatch", "capacity.attestation_mismatch",
                       "capacity.commitment_hash_mismatch", "capacity.privacy_mismatch",
                       "capacity.verification_scope_mismatch"}


def _real_decision() -> dict:
    return json.loads((REAL / "capacity-decision.json").read_text(encoding="utf-8"))


def test_capacity_seal_reproduces_every_published_internal_hash() -> None:
    """Resealing the published decision changes nothing: every recipe (phase commitments, privacy-scan chain,
    runtime environment, report size and run hash, receipt copies and links, attestation, decision) is NERB's."""
    from nerb_verify.seal_capacity import seal_capacity_decision

    decision = _real_decision()
    seal_capacity_decision(decision)
    assert decision == _real_decision()


def test_capacity_seal_reseals_an_edit_deep_inside_the_report(tmp_path: Path) -> None:
    """An edit inside a phase's commitments, resealed, leaves no stale hash anywhere in the file."""
    bundle = tmp_path / "bundle"
    shutil.copytree(REAL, bundle)
    path = bundle / "capacity-decision.json"
    decision = json.loads(path.read_text(encoding="utf-8"))
    before = {"commitments": decision["report"]["phases"][4]["commitments_sha256"],
              "chain": decision["report"]["privacy"]["privacy_scan_chain_sha256"],
              "run": decision["report"]["run_sha256"], "attempt": decision["terminal_attempt"]["attempt_sha256"],
              "decision": decision["decision_sha256"]}
    decision["report"]["phases"][4]["commitments"]["privacy_scan_sha256"] = "sha256:" + "6" * 64
    path.write_text(json.dumps(decision))
    seal_bundle(bundle)
    sealed = json.loads(path.read_text(encoding="utf-8"))
    after = {"commitments": sealed["report"]["phases"][4]["commitments_sha256"],
             "chain": sealed["report"]["privacy"]["privacy_scan_chain_sha256"],
             "run": sealed["report"]["run_sha256"], "attempt": sealed["terminal_attempt"]["attempt_sha256"],
             "decision": sealed["decision_sha256"]}
    assert all(before[k] != after[k] for k in before)
    codes = {f.code for f in verify_dir(bundle).collector.findings}
    assert not codes & CAPACITY_HASH_CODES
    assert not {c for c in codes if c.startswith("binding.")}


def test_capacity_seal_skip_leaves_exactly_that_hash_stale() -> None:
    from nerb_verify.seal_capacity import seal_capacity_decision

    decision = _real_decision()
    decision["report"]["phases"][4]["commitments"]["privacy_scan_sha256"] = "sha256:" + "6" * 64
    published = _real_decision()
    seal_capacity_decision(decision, skip=["commitments_sha256"])
    assert decision["report"]["phases"][4]["commitments_sha256"] == published["report"]["phases"][4][
        "commitments_sha256"]
    assert decision["report"]["run_sha256"] != published["report"]["run_sha256"]


def test_capacity_seal_refuses_unknown_steps() -> None:
    import pytest

    from nerb_verify.seal_capacity import seal_capacity_decision

    with pytest.raises(ValueError):
        seal_capacity_decision(_real_decision(), skip=["no_such_step"])


def test_capacity_seal_never_raises_on_malformed_decisions() -> None:
    """Hostile shapes (wrong types, NaN, missing parts) keep their values; sealing never raises."""
    from nerb_verify.seal_capacity import seal_capacity_decision

    shapes: list = [None, [], {"report": []}, {"report": {"phases": "x", "totals": 3}, "attempt_chain": {}},
                    {"report": {"phases": [1, {"commitments": float("nan")}], "privacy": {}, "totals": {}},
                     "attempt_chain": [None, {"outcome": "passed"}], "attestation": [], "privacy": 1},
                    {"report": {"policy": {"x": float("nan")}, "execution": {"relevant_module_sha256": []},
                                "environment": {"runtime": {"y": float("inf")}}},
                     "attempt_chain": [], "terminal_attempt": {}, "attestation": {"report_sha256": None}}]
    for shape in shapes:
        seal_capacity_decision(shape)
