"""Producers: the harness's cache-value part (Williams four-path blocks, cross-path comparisons, break-even model).

The schedule is tested as a pure function and through the runner with a recording stub. The measured part runs a
small demo once (~10 s), then one paired ``decision`` run with 10 rounds per twin and block (100 samples per
exact-value path, so p99 exists and the proxy is the verifier's 100-sample support cell) on the six cells the
comparisons and the model need. Fresh-process samples run in this process for the test (``sampling.fresh_sample`` stubbed,
the helper cache saved and restored around each one): the Williams block alone has 400 fresh samples, ~0.15 s each
as real worker processes. The run is spliced into a copy of the demo bundle (report relabelled ``decision``),
resealed, and verified: the verifier must recompute every comparison and the model with no authenticity finding,
and catch a swapped or flipped sample of a cross-path cell.
"""

from __future__ import annotations

import json
import shutil
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from contract_tests.conftest import REPO, harness_inputs, in_process_sample, verify_dir

pytest.importorskip("re2")

sys.path.insert(0, str(REPO))
from nerb_verify.checks.performance import blocks
from nerb_verify.checks.performance.cross_path import noise_floor
from nerb_verify.producers import harness, harness_value, sampling

# The session's one demo run (conftest ``demo``) is shared by the tests of this group: one xdist worker runs them all.
pytestmark = pytest.mark.xdist_group("demo")

EV = "benchmark-evidence.json"
REPORT = "performance-report.json"
PATHS = [path_id for path_id, _phase in harness_value.CACHE_VALUE_PATHS]
MODEL_CELLS = {"real_source_profile", "real_source_build", "real_cold_compile", "real_direct_throughput"}
AUTHENTICITY = {"performance.comparison_invalid", "performance.comparison_value_mismatch",
                "performance.comparison_result_mismatch", "performance.comparison_hash",
                "performance.breakeven_component", "performance.breakeven_mismatch",
                "performance.statistic_mismatch", "performance.workload_hash", "performance.descriptor_hash",
                "performance.manifest_hash", "performance.run_hash", "performance.plan_hash",
                "performance.block_assignment", "performance.records_per_sample", "performance.phase_contract",
                "performance.unknown_reference", "performance.section_malformed", "performance.descriptor_order",
                "performance.invalid_sample", "performance.rss_samples"}


# ---------------------------------------------------------------------------------------------- the schedule

def test_williams_rows_are_a_balanced_latin_square():
    rows = harness_value.WILLIAMS_ROWS
    assert all(sorted(row) == [0, 1, 2, 3] for row in rows)
    assert all(sorted(row[i] for row in rows) == [0, 1, 2, 3] for i in range(4))  # each path once per position
    adjacent = [(row[i], row[i + 1]) for row in rows for i in range(3)]
    assert sorted(adjacent) == sorted((a, b) for a in range(4) for b in range(4) if a != b)  # each pair once
    assert harness_value.ROW_PATTERN == (0, 1, 2, 3, 1, 0, 3, 2)


@pytest.mark.parametrize("per_twin", [1, 3, 10])
def test_williams_schedule_rounds_labels_and_rows(per_twin):
    schedule = harness_value.williams_schedule(10, per_twin)
    assert len(schedule) == 10
    for first, rounds in zip(blocks.block_assignment(10), schedule):
        assert [role for role, _row in rounds] == blocks.abba_labels(first, per_twin)
        assert [row for _role, row in rounds] == [
            harness_value.WILLIAMS_ROWS[harness_value.ROW_PATTERN[r % 8]] for r in range(2 * per_twin)]
    # 20 rounds x 4 paths x 10 blocks = 800 observations, 100 per workload, at the frozen k = 10
    total = sum(len(rounds) * 4 for rounds in schedule)
    assert total == 10 * 2 * per_twin * 4


def test_runner_pairs_every_path_by_index(monkeypatch):
    """Every observation returns its global sequence number as its time: sample i of any two paths falls in the same
    round (sequence // 4), rounds run in their Williams row order, and sessions are fresh per block."""
    counter = iter(range(10**6))
    opened: list[str] = []

    def sessions(first, _bank, _documents, _raw):
        opened.append(first)
        return {(role, index): (role, index) for role in ("candidate", "control") for index in range(4)}

    def sample(_phase, session, _request):
        return next(counter) + 1, 1, 0, "sha256:" + "0" * 64

    monkeypatch.setattr(harness_value, "_open_sessions", sessions)
    monkeypatch.setattr(harness_value, "_take_sample", sample)
    runs = harness_value.measure_cache_value(3, {}, [], b"", {})
    assert opened == blocks.block_assignment(10)
    schedule = [step for rounds in harness_value.williams_schedule(10, 3) for step in rounds]
    for role in ("candidate", "control"):
        by_path = {p: [n - 1 for n in runs[p][role][0]] for p in PATHS}
        assert all(len(seq) == 30 for seq in by_path.values())
        rounds = {p: [n // 4 for n in seq] for p, seq in by_path.items()}
        assert all(rounds[p] == rounds[PATHS[0]] for p in PATHS)  # cross-path pairing by index
        for index, path_id in enumerate(PATHS):
            for n in by_path[path_id]:
                step_role, row = schedule[n // 4]
                assert step_role == role and row[n % 4] == index


# ------------------------------------------------------------------------------------------ the measured run



@pytest.fixture(scope="module")
def value_run(demo, tmp_path_factory):
    inputs = harness_inputs(demo, tmp_path_factory.mktemp("value-perf"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sampling, "fresh_sample", in_process_sample)
        section, _inventories = harness.run_profile("decision", inputs, paired_per_block=10,
                                                    only=MODEL_CELLS | {"real_direct_cache_value"})
    return section


def _splice(demo, section: dict[str, Any], bundle: Path) -> None:
    """Copy the demo bundle, put the run's workloads (winning by id), comparisons, baselines and model in, say
    ``decision`` in the report, and reseal every hash."""
    from nerb_verify.seal import seal_bundle

    shutil.copytree(demo.bundle, bundle)
    evidence = json.loads((bundle / EV).read_text())
    performance = evidence["performance"]
    merged = {w["id"]: w for w in performance["workloads"]}
    merged.update({w["id"]: w for w in section["workloads"]})
    performance["workloads"] = [merged[k] for k in sorted(merged)]
    for key in ("comparisons", "baselines", "breakeven_models"):
        performance[key] = section[key]
    (bundle / EV).write_text(json.dumps(evidence))
    report = json.loads((bundle / REPORT).read_text())
    report["profile"] = "decision"
    (bundle / REPORT).write_text(json.dumps(report))
    seal_bundle(bundle)


def _verify(bundle: Path) -> tuple[set[str], list[Any], list[Any]]:
    result = verify_dir(bundle)
    errors = [f for f in result.collector.findings if f.severity == "error"]
    return {f.code for f in errors}, errors, result.collector.recomputed


@pytest.fixture(scope="module")
def spliced(demo, value_run, tmp_path_factory):
    bundle = tmp_path_factory.mktemp("value-bundle") / "bundle"
    _splice(demo, value_run, bundle)
    return bundle


def test_smoke_profile_stays_without_cache_value_structure(demo):
    performance = json.loads((demo.bundle / EV).read_text())["performance"]
    assert performance["comparisons"] == [] and performance["breakeven_models"] == []
    assert not {w["id"] for w in performance["workloads"]} & {"real_direct_cache_value",
                                                                "control_real_direct_cache_value"}
    assert all(w["decision_grade"] is False and w["promotion_gate"] is False for w in performance["workloads"])


def test_cache_value_cells_and_twins(value_run):
    workloads = {w["id"]: w for w in value_run["workloads"]}
    for path_id in PATHS:
        for wid in (path_id, f"control_{path_id}"):
            assert len(workloads[wid]["samples_seconds"]) == 100
    proxy = workloads["real_direct_cache_value"]
    assert {k: proxy[k] for k in ("phase", "bank_id", "input_id", "sample_unit", "process_model", "warmups",
                                  "work_per_sample", "concurrency", "decision_grade", "promotion_gate",
                                  "baseline_id")} == {
        "phase": "direct_bank_scan", "bank_id": "evaluated_bank", "input_id": "real_validation_input",
        "sample_unit": "whole_input", "process_model": "reused_process", "warmups": 3, "work_per_sample": 1,
        "concurrency": 1, "decision_grade": False, "promotion_gate": False, "baseline_id": None}
    assert all(workloads[p]["decision_grade"] is True for p in PATHS[1:])
    control = workloads["control_real_direct_cache_value"]
    plan = [k for k in proxy if k not in ("id", "baseline_id", "workload_sha256", "samples_seconds", "stats",
                                           "rss_samples_bytes", "peak_rss_bytes")]
    assert {k: control[k] for k in plan} == {k: proxy[k] for k in plan}
    assert control["baseline_id"] == harness.SAME_PATH_BASELINE["id"]
    same = {c["candidate_workload_id"]: c for c in value_run["comparisons"]
            if c["comparison_kind"] == "same_path_stability"}
    assert same["real_direct_cache_value"]["metric"] == "median_seconds"
    assert {same[p]["samples_per_block"] for p in PATHS} == {10}


def test_cross_path_comparisons_and_model_shape(value_run):
    cross = [c for c in value_run["comparisons"] if c["comparison_kind"] == "cross_path_value"]
    assert [c["id"] for c in cross] == sorted(
        f"compare_{a}_vs_{b}_{m}" for a, b in harness_value.CROSS_PATH_PAIRS for m in harness_value.CROSS_PATH_METRICS)
    assert [c["id"] for c in value_run["comparisons"]] == sorted(c["id"] for c in value_run["comparisons"])
    for comparison in cross:
        assert comparison["direction"] == ("higher_is_better" if comparison["metric"] == "mib_per_second"
                                           else "lower_is_better")
        assert (comparison["noise_method"], comparison["noise_multiplier"], comparison["regression_tolerance"]) == (
            "paired_block_ratio_mad", 2.0, 0.05)
    floors = {(c["candidate_workload_id"], c["baseline_workload_id"]): set() for c in cross}
    for comparison in cross:
        floors[(comparison["candidate_workload_id"], comparison["baseline_workload_id"])].add(comparison["noise_floor"])
    assert all(len(values) == 1 for values in floors.values())  # one noise floor per pair, for all three metrics
    [model] = value_run["breakeven_models"]
    assert model["id"] == "compile_once_scan_many_breakeven"
    assert [c["id"] for c in model["components"]] == sorted([
        "baseline_fixed_build", "baseline_fixed_source_curation", "baseline_fixed_source_profiling",
        "baseline_per_request_uncached", "candidate_fixed_build", "candidate_fixed_cold_compile",
        "candidate_fixed_source_curation", "candidate_fixed_source_profiling", "candidate_per_request_direct_reuse"])
    curation = {c["id"]: c for c in model["components"]}["candidate_fixed_source_curation"]
    assert (curation["value"], curation["workload_id"], curation["source"]) == (60.0, None, "declared_assumption")


def test_verifier_recomputes_the_spliced_comparisons_and_model(spliced):
    codes, _errors, recomputed = _verify(spliced)
    assert not codes & AUTHENTICITY, sorted(codes & AUTHENTICITY)
    floors = [r for r in recomputed if r.figure == "performance.cross_path.noise_floor"]
    assert len(floors) == 12 and all(r.status == "match" for r in floors)
    model = [r for r in recomputed if r.figure.startswith("performance.breakeven.")]
    assert len(model) == 9 + 4 + 2 and all(r.status == "match" for r in model)


def _cross_path_errors(errors: list[Any]) -> set[str]:
    return {f.code for f in errors if f.pointer.startswith("/performance/comparisons/")}


def test_swapped_proxy_samples_break_the_index_pairing(demo, value_run, tmp_path):
    """Swapping two proxy samples keeps every statistic of the cell but not the paired ratios: only the cross-path
    noise floor (recomputed from index-paired samples) can see it."""
    section = json.loads(json.dumps(value_run))
    workloads = {w["id"]: w for w in section["workloads"]}
    proxy, miss = workloads["real_direct_cache_value"], workloads["real_helper_cache_miss"]
    ns = [round(s * 1e9) for s in proxy["samples_seconds"]]
    base = [round(s * 1e9) for s in miss["samples_seconds"]]
    published = noise_floor(ns, base, Fraction(2), 2.0)[0]
    pairs = ((a, b) for a in range(len(ns)) for b in range(a + 1, len(ns)) if ns[a] != ns[b])
    for i, j in pairs:
        swapped = list(ns)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        if noise_floor(swapped, base, Fraction(2), 2.0)[0] != published:
            break
    else:
        pytest.fail("no swap changes the paired noise floor")
    proxy["samples_seconds"] = [n / 1e9 for n in swapped]
    bundle = tmp_path / "bundle"
    _splice(demo, section, bundle)
    codes, errors, _recomputed = _verify(bundle)
    assert "performance.comparison_value_mismatch" in _cross_path_errors(errors)
    assert "performance.statistic_mismatch" not in codes


def test_flipped_sample_in_a_cross_path_cell_is_caught(demo, value_run, tmp_path):
    section = json.loads(json.dumps(value_run))
    miss = {w["id"]: w for w in section["workloads"]}["real_helper_cache_miss"]
    samples = miss["samples_seconds"]
    ordered = sorted(range(len(samples)), key=lambda i: samples[i])
    samples[ordered[50]] = round(samples[ordered[50]] * 1e9) * 3 / 1e9  # the upper median sample, tripled
    bundle = tmp_path / "bundle"
    _splice(demo, section, bundle)
    codes, errors, _recomputed = _verify(bundle)
    assert "performance.statistic_mismatch" in codes
    assert "performance.comparison_value_mismatch" in _cross_path_errors(errors)


def test_comparisons_and_model_need_all_their_cells(value_run):
    workloads = [w for w in value_run["workloads"] if w["id"] != "real_helper_cache_miss"]
    assert harness_value.cross_path_comparisons(workloads, value_run["inputs"]) == []
    assert harness_value.breakeven_model(workloads) is None
