"""The decision-profile demo (issue 19.3), reduced so it fits in CI.

The full run is ``nerb-verify demo --profile decision`` (docs/producers.md gives its cost). Here the same pipeline runs
with the decision profile, 10 samples per block and twin instead of the frozen counts, on the six cells the value
model and the cross-path comparisons need (``performance_only``, a test-only knob), fresh-process samples taken in this
process (as in test_producers_harness_value). What is checked is what the decision profile adds to the smoke demo:
the report says ``decision``; the combined slice is the quality gate on exactly 100 sampled documents of the fixture's
own test frame with the charter's floors met, so ``manifest.missing_gate_slice`` is no longer unmet; the gate
thresholds are frozen and evaluated; the only error findings are the reduced sample counts
(``performance.protocol_count`` for the setup cells, above their frozen 20; ``performance.sample_support`` for the
direct cell, below its 1,000); the smoke demo is unchanged (no gate, not decision).
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
