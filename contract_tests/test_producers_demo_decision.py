"""The decision-profile demo (issue 19.3), reduced so it fits in CI.

The full run is ``nerb-verify demo --profile decision`` (docs/producers.md gives its cost). Here the same pipeline runs
with the decision profile, 10 samples per block and twin instead of the frozen counts, on the six cells the value
model and the cross-path comparisons need (``performance_only``, a test-only knob), fresh-process samples taken in this
process (as in test_producers_harness_value). What is checked is what the decision profile adds to the smoke demo:
the report says ``decision``; the combined slice is the quality gate on exactly 100 sampled documents of the fixture's
own test frame with the charter's floors met, so ``manifest.missing_gate_slice`` is no longer unmet; the gate
thresholds are frozen and evaluated; the only error findings are the reduced sample counts of the direct cell
(``performance.protocol_count``, not exactly its 1,000, and ``performance.sample_support``, below them; the setup
cells keep their frozen 20, which also makes this run about 3x faster than 10 per block everywhere); the
capacity decision is measured and verifies in full; the smoke demo is unchanged (no gate, not decision, no capacity).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("re2")

from contract_tests.conftest import in_process_sample  # noqa: E402
from nerb_verify.producers import demo_pipeline, sampling  # noqa: E402

pytestmark = pytest.mark.xdist_group("demo")
CELLS = {"real_source_profile", "real_source_build", "real_cold_compile", "real_direct_throughput",
         "real_direct_cache_value"}


@pytest.fixture(scope="module")
def decision_demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("decision-demo") / "run"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sampling, "fresh_sample", in_process_sample)
        return demo_pipeline.run_demo(out, messages=demo_pipeline.DECISION_MESSAGES, seed=7,
                                      progress=lambda _m: None, profile="decision", paired_per_block=10,
                                      performance_only=CELLS)


def _json(result, name: str) -> dict[str, Any]:
    return json.loads((result.bundle / name).read_text())


def test_reduced_decision_demo_fails_only_on_its_sample_counts(decision_demo):
    assert decision_demo.error_codes == ["performance.protocol_count", "performance.sample_support"]
    # only the direct cell and its twin are below their frozen counts: the setup cells keep theirs (20)
    workloads = _json(decision_demo, "benchmark-evidence.json")["performance"]["workloads"]
    cells = {workloads[int(pointer.split("/")[3])]["id"] for _, _, pointer in decision_demo.errors}
    assert cells == {"real_direct_throughput", "control_real_direct_throughput"}
    assert decision_demo.second_access_refused


def test_decision_demo_has_the_charter_gate_slice(decision_demo):
    manifest, evidence = _json(decision_demo, "benchmark-manifest.json"), _json(decision_demo, "benchmark-evidence.json")
    assert manifest["artifact_kind"] == evidence["artifact_kind"] == "synthetic_fixture"
    gate = [p for p in manifest["quality_plan"] if p["promotion_gate"]]
    assert [p["id"] for p in gate] == ["person_contact_all_test"]
    assert gate[0]["sample_documents"] == 100
    assert gate[0]["frame_documents"] == manifest["splits"]["roles"]["test"]["records"] != 51704
    sliced = evidence["quality"]["slices"][0]
    assert sliced["promotion_gate"] is True and sliced["label_strength"] == "independent"
    assert sliced["documents"] == 100 and sliced["gold_spans"] >= 100
    assert sliced["negative_documents"] >= 20 and sliced["sensitive_gold_characters"] >= 500
    quality_checks = [c for c in evidence["promotion"]["checks"] if c["category"] == "quality"]
    assert quality_checks and all(c["target"].startswith("/quality/slices/0/") for c in quality_checks)
    assert "manifest.missing_gate_slice" not in decision_demo.unmet_requirements
    assert "performance.not_decision_profile" not in decision_demo.unmet_requirements


def test_decision_demo_report_is_a_decision_run(decision_demo):
    report = _json(decision_demo, "performance-report.json")
    assert report["profile"] == "decision"
    workloads = {w["id"]: w for w in report["performance"]["workloads"]}
    assert "control_real_direct_throughput" in workloads
    assert workloads["real_direct_throughput"]["decision_grade"] is True
    assert report["performance"]["breakeven_models"] and report["performance"]["comparisons"]


def test_smoke_demo_keeps_no_gate(demo):
    assert not (demo.bundle / "capacity-decision.json").exists()
    assert "capacity.not_evaluated" in demo.unmet_requirements
    manifest = json.loads((demo.bundle / "benchmark-manifest.json").read_text())
    assert not any(p["promotion_gate"] for p in manifest["quality_plan"])
    assert json.loads((demo.bundle / "performance-report.json").read_text())["profile"] == "smoke"


@pytest.mark.parametrize("kwargs", [{"profile": "decision", "paired_per_block": 9},
                                    {"profile": "smoke", "paired_per_block": 10}, {"profile": "fast"}])
def test_reduced_and_profile_arguments_are_checked_first(tmp_path, kwargs):
    out = tmp_path / "run"
    with pytest.raises(demo_pipeline.DemoPrerequisiteError):
        demo_pipeline.run_demo(out, progress=lambda _m: None, **kwargs)
    assert not out.exists()


def _grade(comparisons: list[dict[str, Any]]) -> list[str]:
    from nerb_verify.producers import harness

    performance = {"workloads": [], "inputs": [], "comparisons": comparisons, "breakeven_models": []}
    return harness.report_failure_codes(performance, {"git_dirty": False}, {"cpu_count": 2, "memory_bytes": 1})


@pytest.mark.parametrize(("comparison", "fails"), [
    ({"comparison_kind": "same_path_stability", "result": "within_tolerance"}, False),
    ({"comparison_kind": "same_path_stability", "result": "unstable"}, True),
    ({"comparison_kind": "same_path_stability", "result": "inconclusive"}, True),
    ({"comparison_kind": "cross_path_value", "result": "equivalent", "noise_floor": 0.25}, False),
    ({"comparison_kind": "cross_path_value", "result": "equivalent", "noise_floor": 0.2500001}, True),
    ({"comparison_kind": "cross_path_value", "result": "regressed", "noise_floor": 0.01}, True),
])
def test_report_grade_fails_on_an_unstable_or_regressed_comparison(comparison, fails):
    """The verifier adds comparison_regression_or_noise for these (same_path.py, cross_path.py); the producer's report
    must say the same, or a decision run with one noisy cell is rejected with performance.decision_grade_mismatch."""
    assert ("comparison_regression_or_noise" in _grade([comparison])) is fails


# -- the capacity decision (issue 19, item 2): producers/capacity.py, capacity_pipeline.py, capacity_observer.py --

def test_decision_demo_carries_a_verified_capacity_decision(decision_demo):
    """The decision demo measures prepare, split and bank build (and the streaming validation and deep replay) and
    ships capacity-decision.json: the capacity family runs in full with no finding, the requirement is met, the
    policy is the published protocol bound to the demo's own corpus, and the publication binds it."""
    from nerb_verify.checks.capacity import capacity_policy

    assert (decision_demo.bundle / "capacity-decision.json").is_file(), "a capacity gate failed (see the progress)"
    decision = _json(decision_demo, "capacity-decision.json")
    assert not [e for e in decision_demo.errors if e[0].startswith(("capacity.", "card."))]
    assert "capacity.not_evaluated" not in decision_demo.unmet_requirements
    report = decision["report"]
    assert [p["phase"] for p in report["phases"]] == list(capacity_policy.PUBLISHED["phases"])
    manifest = _json(decision_demo, "benchmark-manifest.json")
    policy = report["policy"]
    assert all(policy[k] == capacity_policy.PUBLISHED[k] for k in capacity_policy.PROTOCOL_FIELDS)
    assert (policy["dataset_id"], policy["dataset_revision"], policy["source_rows"]) == (
        manifest["source"]["id"], manifest["source"]["revision"], manifest["source"]["input_records"])
    assert report["gates"]["passed"] and all(report["gates"].values())
    for phase in report["phases"]:
        assert phase["resource_observation_count"] >= 1 and phase["peak_process_tree_rss_bytes"] > 0
        assert phase["throughput_milli_records_per_second"] == phase["records"] * 10**12 // phase["elapsed_ns"]
    commitments = report["phases"][-1]["commitments"]
    assert commitments["replay_equal"] is True and commitments["sealed_state"] == "sealed_unbound"
    assert commitments["source_input_rows"] == commitments["prepared_source_rows"] + commitments["rejected_source_rows"]
    assert [r["outcome"] for r in decision["attempt_chain"]] == ["passed"]
    publication = _json(decision_demo, "publication.json")
    assert publication["bindings"]["capacity_decision_sha256"] == decision["decision_sha256"]
    assert publication["decision"]["capacity_gates_passed"] is True
    text = (decision_demo.bundle / "capacity-decision.json").read_text()
    assert str(decision_demo.private) not in text and "message_id" not in text


def _unopened_copy(decision_demo, dest):
    """A copy of the demo's private root as it was before the sealed test was opened (its access markers and the
    lineage removed), for measuring further attempts on the same pipeline outputs."""
    import shutil

    private = dest / "private"
    shutil.copytree(decision_demo.private, private)
    sealed = private / "enron-split" / "run" / "sealed"
    for name in ("EVIDENCE_BOUND.json", "ACCESS_CLAIMED.json", "ACCESS_OUTCOME.json"):
        (sealed / name).unlink(missing_ok=True)
    (private / "enron-split" / "lineage.jsonl").unlink(missing_ok=True)
    shutil.rmtree(private / "capacity")
    return private


def _attempt(private, commit="0" * 40):
    """One capacity attempt over ``private``: the first three phases re-run as checkpoints only (their outputs
    exist), then the demo's own streaming validation, deep replay and report."""
    from nerb_verify.producers import capacity, capacity_pipeline
    from nerb_verify.producers.bank_format import load_bank
    from nerb_verify.producers.engine import compile_bank

    sections = json.loads((private / "public-sections" / "manifest-sections.json").read_text())
    bank_sections = json.loads((private / "public-sections" / "manifest-bank.json").read_text())
    card = json.loads((private / "public-sections" / "bank-card.json").read_text())
    split_dir = private / "enron-split" / "run"
    compiled = compile_bank(load_bank(private / "bank" / "bank.json"))
    validation = [json.loads(x) for x in (split_dir / "development" / "validation.jsonl").read_text().splitlines()]
    validation_sha, _ = capacity_pipeline.validation_run(compiled, validation)
    run = capacity.CapacityRun(private, commit=commit, dirty=True)
    run.begin()
    counts = {"preparation": sections["source"]["input_records"],
              "split": sections["preparation"]["output_records"],
              "build": sections["splits"]["roles"]["train"]["records"]}
    for name, count in counts.items():
        with run.phase(name) as phase:
            phase.checkpoint(count)
    return run, demo_pipeline.measure_capacity(run, private, split_dir, sections, bank_sections, card, compiled,
                                               validation_sha)


def test_a_failed_attempt_is_kept_and_the_next_one_verifies(decision_demo, tmp_path):
    """A phase that raises leaves a failed receipt in the private attempt chain; the next attempt links to it, and
    the decision that carries both verifies in the demo bundle (resealed) exactly as the demo's own."""
    import shutil

    from nerb_verify.producers import capacity
    from nerb_verify.seal import seal_bundle
    from nerb_verify.verify import verify_bundle

    private = _unopened_copy(decision_demo, tmp_path)
    first = capacity.CapacityRun(private, commit="0" * 40, dirty=True)
    first.begin()
    with pytest.raises(RuntimeError):
        with first.phase("preparation"):
            raise RuntimeError("planted")
    run, decision = _attempt(private)
    assert decision is not None, run.last_gates
    chain = decision["attempt_chain"]
    assert [(r["outcome"], r["failure_code"]) for r in chain] == [("failed", "phase_execution_failed"),
                                                                  ("passed", None)]
    assert chain[1]["previous_attempt_sha256"] == chain[0]["attempt_sha256"]
    assert run.chain() == chain  # the private chain is the published one
    bundle = tmp_path / "bundle"
    shutil.copytree(decision_demo.bundle, bundle)
    from nerb_verify.canonical import nerb_pretty_bytes

    (bundle / "capacity-decision.json").write_bytes(nerb_pretty_bytes(decision))
    seal_bundle(bundle)
    result = verify_bundle(bundle)
    codes = sorted({f.code for f in result.collector.findings if f.severity == "error"})
    assert codes == decision_demo.error_codes


def test_a_false_gate_is_a_failed_receipt_and_no_decision(decision_demo, tmp_path):
    """Measured after the sealed test was opened (the demo's private root as it is), the sealed-state gates are
    false: the attempt is a failed receipt (private_tree_invalid) and no capacity decision is written."""
    import shutil

    private = tmp_path / "private"
    shutil.copytree(decision_demo.private, private)
    shutil.rmtree(private / "capacity")
    run, decision = _attempt(private)
    assert decision is None
    false = {gate for gate, ok in run.last_gates.items() if not ok}
    assert {"sealed_state_unbound", "sealed_test_unaccessed", "preseal_access_count_zero", "passed"} <= false
    chain = run.chain()
    assert [r["outcome"] for r in chain] == ["failed"]
    # private_tree_invalid, unless a measured bound (an observation gap on a loaded machine) failed first
    assert chain[0]["failure_code"] == "private_tree_invalid" or false - {
        "sealed_state_unbound", "sealed_test_unaccessed", "preseal_access_count_zero", "passed"}, false
