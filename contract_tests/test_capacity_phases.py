"""The capacity report's phases inside and across (nerb_verify/checks/capacity/capacity_phases.py), on coherent forgeries.

Each edit is applied to the real capacity decision in memory and resealed with the forger's tool
(:func:`nerb_verify.seal_capacity.seal_capacity_decision`: every internal hash recomputed), so only the semantic rule
can catch it. Broken fixtures (tools/mutations/capacity.py) cover each code end to end through the CLI path; these
tests pin the directions and corners the fixtures do not.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract_tests.conftest import open_real_bundle
from nerb_verify import context as C
from nerb_verify.canonical import self_hash
from nerb_verify.checks import capacity
from nerb_verify.checks.capacity import capacity_phases
from nerb_verify.context import VerifyContext, VerifyOptions
from nerb_verify.findings import Collector
from nerb_verify.seal_capacity import seal_capacity_decision

OTHER = "sha256:" + "6" * 64


@pytest.fixture(scope="module")
def opened() -> VerifyContext:
    return open_real_bundle()


def _run(opened: VerifyContext, edit: Callable[[dict[str, Any]], None], reseal: bool = True) -> list[str]:
    decision = copy.deepcopy(opened.artifacts[C.CAPACITY_DECISION])
    edit(decision)
    if reseal:
        seal_capacity_decision(decision)
    artifacts = dict(opened.artifacts)
    artifacts[C.CAPACITY_DECISION] = decision
    ctx = VerifyContext(root=opened.root, options=VerifyOptions(), collector=Collector(), files=opened.files,
                        artifacts=artifacts, loaded=opened.loaded, inventories=opened.inventories,
                        figures=dict(opened.figures))
    capacity.run(ctx)
    return sorted({f.code for f in ctx.collector.findings})


def _phase(decision: dict[str, Any], index: int) -> dict[str, Any]:
    return decision["report"]["phases"][index]


def _commit(index: int, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: _phase(d, index)["commitments"].__setitem__(key, value)


def _restate(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(decision: dict[str, Any]) -> None:
        for phase in decision["report"]["phases"]:
            if key in phase["commitments"]:
                phase["commitments"][key] = value
    return edit


def _swap_samples(index: int) -> Callable[[dict[str, Any]], None]:
    def edit(decision: dict[str, Any]) -> None:
        samples = _phase(decision, index)["resource_samples"]
        samples[3]["sequence"], samples[4]["sequence"] = samples[4]["sequence"], samples[3]["sequence"]
    return edit


def test_the_real_report_holds_every_rule_and_every_fact_gate(opened: VerifyContext) -> None:
    assert _run(opened, lambda d: None, reseal=False) == []
    report = opened.artifacts[C.CAPACITY_DECISION]["report"]
    assert capacity_phases.gate_facts(report) == dict.fromkeys(
        ("replay_equal", "preseal_access_count_zero", "sealed_test_unaccessed", "sealed_state_unbound",
         "private_tombstone_bound"), True)


@pytest.mark.parametrize(("name", "edit", "expected"), [
    # replay_equal is false although both replayed hashes are equal: the flag is false, and so is its gate's claim.
    ("replay-flag-false-hashes-equal", _commit(4, "replay_equal", False),
     ["capacity.gate_unsupported", "capacity.replay_mismatch"]),
    ("replay-validation-run-differs", _commit(4, "replay_validation_run_sha256", OTHER), ["capacity.replay_mismatch"]),
    # An incoherent edit (one phase only) breaks the chain and the identity it takes part in.
    ("rejected-rows-in-preparation-only", _commit(0, "rejected_source_rows", 223),
     ["capacity.commitment_chain_broken", "capacity.conservation_mismatch"]),
    ("split-roles-not-the-prepared-records", _restate("train_records", 413753),
     ["capacity.conservation_mismatch", "capacity.evidence_binding_mismatch"]),
    ("prepared-source-rows-not-records", _restate("prepared_source_rows", 517178),
     ["capacity.conservation_mismatch"]),
    ("validation-text-bytes-not-processed", _restate("validation_text_utf8_bytes", 12070381),
     ["capacity.conservation_mismatch"]),
    ("phase-scan-violation-counted", _commit(2, "privacy_scan_violation_count", 1),
     ["capacity.commitment_chain_broken"]),
    ("policy-dataset-restated-differently", _restate("dataset_id", "another/dataset"),
     ["capacity.commitment_chain_broken", "capacity.evidence_binding_mismatch"]),
    ("phases-out-of-order", lambda d: d["report"]["phases"].__setitem__(
        slice(3, 5), [d["report"]["phases"][4], d["report"]["phases"][3]]),
     ["capacity.commitment_chain_broken"]),
    ("samples-out-of-sequence", _swap_samples(1), ["capacity.resource_sample_mismatch"]),
    ("sample-free-disk-below-minimum", lambda d: _phase(d, 2)["resource_samples"][7].__setitem__(
        "free_disk_bytes", 25086013439), ["capacity.phase_extreme_mismatch", "capacity.resource_sample_mismatch"]),
    ("sample-rss-acquisition-longer-than-whole", lambda d: _phase(d, 3)["resource_samples"][2].__setitem__(
        "rss_acquisition_duration_ns", 10**9), ["capacity.resource_sample_mismatch"]),
    ("more-samples-than-observations", lambda d: _phase(d, 3).__setitem__("resource_observation_count", 190),
     ["capacity.phase_extreme_mismatch", "capacity.resource_sample_mismatch"]),
    # Sample 1 and 2 of the preparation phase are consecutive: the second's gap is exactly the wall time between.
    ("consecutive-sample-gap-off-by-one", lambda d: _phase(d, 0)["resource_samples"][1].__setitem__(
        "resource_observation_wall_gap_ns", 8432001), ["capacity.resource_sample_mismatch"]),
    ("sample-wall-time-moved", lambda d: _phase(d, 0)["resource_samples"][1].__setitem__(
        "wall_elapsed_ns", 13298626), ["capacity.resource_sample_mismatch"]),
    ("signal-gap-longer-than-time-since-previous", lambda d: _phase(d, 3)["progress_signals"][1].__setitem__(
        "progress_wall_gap_ns", _phase(d, 3)["progress_signals"][1]["wall_elapsed_ns"]
        - _phase(d, 3)["progress_signals"][0]["wall_elapsed_ns"] + 1), ["capacity.checkpoint_mismatch"]),
    ("checkpoint-count-inflated", lambda d: _phase(d, 0).__setitem__("checkpoint_count", 53),
     ["capacity.checkpoint_mismatch"]),
    ("last-checkpoint-short-of-records", lambda d: _phase(d, 3)["checkpoint_samples"][-1].__setitem__(
        "completed_records", 51722), ["capacity.checkpoint_mismatch"]),
    ("progress-gap-above-worst", lambda d: _phase(d, 2)["progress_signals"][5].__setitem__(
        "progress_wall_gap_ns", 16861269501), ["capacity.checkpoint_mismatch", "capacity.phase_extreme_mismatch"]),
    ("phase-ran-another-commit", lambda d: _phase(d, 1).__setitem__("executable_git_commit", "0" * 40),
     ["capacity.execution_identity_mismatch"]),
    ("phase-ran-another-runner", lambda d: _phase(d, 4).__setitem__("runner_implementation_sha256", OTHER),
     ["capacity.execution_identity_mismatch"]),
    ("runtime-native-extension-differs", lambda d: d["report"]["environment"]["runtime"].__setitem__(
        "native_extension_sha256", OTHER), ["capacity.execution_identity_mismatch"]),
    ("production-monitor-interval-slower", lambda d: d["report"]["execution"].__setitem__(
        "monitor_interval_ns", 200000000), ["capacity.production_policy_mismatch"]),
    ("production-bootstrap-processes-pth", lambda d: d["report"]["environment"]["runtime"]["capacity_bootstrap"]
     .__setitem__("pth_processing", True), ["capacity.production_policy_mismatch"]),
    ("production-containment-for-another-os", lambda d: d["report"]["execution"]["process_containment"].__setitem__(
        "mode", "linux_seccomp_deny_process_creation"), ["capacity.production_policy_mismatch"]),
    ("effective-cap-not-from-memory", lambda d: d["report"]["environment"].__setitem__(
        "effective_rss_cap_bytes", 8589934591), ["capacity.report_arithmetic_mismatch"]),
    ("sealed-test-accessed-everywhere", lambda d: (_restate("sealed_test_accessed", True)(d),
                                                   d["report"]["privacy"].__setitem__("sealed_test_accessed", True)),
     ["capacity.gate_unsupported"]),
    # Phase figures are the extremes of the retained samples (which keep the extreme ones and the last one): a
    # figure raised with everything that restates it still verifies only if a sample attains it.
    ("phase-peak-raised-with-totals-and-receipt", lambda d: (
        _phase(d, 4).__setitem__("peak_process_tree_rss_bytes", 3122921473),
        d["report"]["totals"].__setitem__("peak_process_tree_rss_bytes", 3122921473),
        d["attempt_chain"][-1].__setitem__("peak_process_tree_rss_bytes", 3122921473)),
     ["capacity.phase_extreme_mismatch"]),
    ("owned-disk-high-water-lowered", lambda d: (
        _phase(d, 0).__setitem__("owned_disk_high_water_bytes", 8789528575)),
     ["capacity.phase_extreme_mismatch", "capacity.resource_sample_mismatch"]),
    ("observation-count-raised", lambda d: _phase(d, 1).__setitem__("resource_observation_count", 22049),
     ["capacity.phase_extreme_mismatch"]),
    ("signal-count-raised", lambda d: _phase(d, 2).__setitem__("progress_signal_count", 11657),
     ["capacity.phase_extreme_mismatch"]),
    ("worst-acquisition-raised-with-total", lambda d: (
        _phase(d, 4).__setitem__("maximum_resource_acquisition_duration_ns", 92436334),
        d["report"]["totals"].__setitem__("maximum_resource_acquisition_duration_ns", 92436334)),
     ["capacity.phase_extreme_mismatch"]),
    ("worst-progress-gap-raised", lambda d: _phase(d, 3).__setitem__(
        "maximum_progress_checkpoint_wall_gap_ns", 8808887251), ["capacity.phase_extreme_mismatch"]),
    # Nothing retained: the count must then be 0 (the extremes cannot be recomputed and are not judged).
    ("no-signals-retained-count-kept", lambda d: _phase(d, 3).__setitem__("progress_signals", []),
     ["capacity.phase_extreme_mismatch"]),
    ("no-signals-retained-none-counted", lambda d: (_phase(d, 3).__setitem__("progress_signals", []),
                                                    _phase(d, 3).__setitem__("progress_signal_count", 0)), []),
    # The final owned disk is the pre-report owned disk plus the report file and the 26-byte commit marker.
    ("final-owned-disk-raised-with-receipt", lambda d: (
        d["report"]["totals"].__setitem__("final_owned_disk_bytes", 14003381782),
        d["attempt_chain"][-1].__setitem__("final_owned_disk_bytes", 14003381782)),
     []),
    # The report's privacy flags declare aggregate-only content.
    ("report-declares-paths-included", lambda d: d["report"]["privacy"].__setitem__("paths_included", True),
     ["capacity.privacy_mismatch"]),
    ("report-not-aggregate-only", lambda d: d["report"]["privacy"].__setitem__("aggregate_only", False),
     ["capacity.privacy_mismatch"]),
    ("tombstones-above-retention", lambda d: (d["report"]["environment"].__setitem__(
        "preexisting_private_tombstone_count", 1025), d["attempt_chain"][-1].__setitem__(
        "preexisting_private_tombstone_count", 1025)), ["capacity.gate_unsupported"]),
])
def test_coherent_forgery_raises_exactly(opened: VerifyContext, name: str, edit: Callable[[dict[str, Any]], None],
                                         expected: list[str]) -> None:
    assert _run(opened, edit) == expected


def test_production_requirements_apply_only_to_a_production_claim(opened: VerifyContext) -> None:
    def edit(decision: dict[str, Any]) -> None:
        decision["report"]["execution"]["git_tree_clean"] = False
        decision["report"]["execution"]["production_evidence"] = False
        decision["attempt_chain"][-1]["production_evidence"] = False
    assert _run(opened, edit) == []


def test_a_resealed_edit_of_an_opaque_commitment_restated_everywhere_is_not_detectable(opened: VerifyContext) -> None:
    """The limit, stated: a commitment to private data that nothing else repeats (the reader isolation hash),
    changed coherently in every phase and resealed, verifies. docs/findings/capacity.md lists these."""
    assert _run(opened, _restate("source_reader_isolation_sha256", OTHER)) == []


def test_commitment_hashes_are_recorded(opened: VerifyContext) -> None:
    decision = opened.artifacts[C.CAPACITY_DECISION]
    ctx = VerifyContext(root=opened.root, options=VerifyOptions(), collector=Collector(), files=opened.files,
                        artifacts=dict(opened.artifacts), loaded=opened.loaded, inventories=opened.inventories,
                        figures=dict(opened.figures))
    capacity_phases.run(ctx, decision["report"])
    records = [r for r in ctx.collector.recomputed if r.figure == "capacity_commitments_sha256"]
    assert len(records) == 5 and all(r.status == "match" for r in records)
    assert ctx.collector.checks_run["capacity.phases"]["phases"] == 5


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 2**64), st.text(max_size=8),
                    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=4), st.integers(), max_size=3))
_PLACES = st.sampled_from([("phases",), ("phases", 0), ("phases", 2, "commitments"), ("phases", 4, "resource_samples"),
                           ("phases", 1, "resource_samples", 0), ("phases", 3, "checkpoint_samples"),
                           ("phases", 0, "progress_signals", 1), ("policy", "processed_bytes_by_phase"),
                           ("execution", "core_source_sha256"), ("environment", "runtime"), ("privacy",),
                           ("phases", 4, "commitments", "replay_equal"), ("policy", "physical_memory_fraction")])


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(place=_PLACES, value=_VALUES)
def test_hostile_shapes_give_findings_not_tracebacks(opened: VerifyContext, place: tuple, value: Any) -> None:
    report = copy.deepcopy(opened.artifacts[C.CAPACITY_DECISION]["report"])
    node: Any = report
    for key in place[:-1]:
        node = node[key]
    node[place[-1]] = value
    ctx = VerifyContext(root=opened.root, options=VerifyOptions(), collector=Collector(), files=opened.files,
                        artifacts=dict(opened.artifacts), loaded=opened.loaded, inventories=opened.inventories,
                        figures=dict(opened.figures))
    capacity_phases.run(ctx, report)
    capacity_phases.gate_facts(report)
    for finding in ctx.collector.findings:
        assert finding.code.startswith("capacity.")


def test_pre_report_owned_disk_is_final_minus_report_and_marker(opened: VerifyContext) -> None:
    """The seal re-derives the pre-report owned disk from the final one (a coherent forger would); left stale, a
    nudge is caught, and the real report's figures satisfy the identity exactly."""
    totals = opened.artifacts[C.CAPACITY_DECISION]["report"]["totals"]
    assert totals["final_owned_disk_bytes"] == (totals["pre_report_owned_disk_bytes"] + totals["report_bytes"]
                                                + capacity.COMMIT_MARKER_BYTES)

    def nudge(decision: dict[str, Any]) -> None:
        decision["report"]["totals"]["pre_report_owned_disk_bytes"] += 1
        seal_capacity_decision(decision, skip=["pre_report_owned_disk_bytes"])
    assert _run(opened, nudge, reseal=False) == ["capacity.report_arithmetic_mismatch"]


def test_the_frozen_policy_carries_the_charter_bounds(opened: VerifyContext) -> None:
    """The published policy's floors and ceilings are the bounds spec 30 A.7 states for a passed receipt (4 h
    runtime, 8 GiB RSS, 5 GiB runtime free disk, 0.5 s observation gap, 20 GiB owned disk), and the sizes the
    verifier enforces (report 4 MiB, at most 1,024 attempts)."""
    policy = opened.artifacts[C.CAPACITY_DECISION]["report"]["policy"]
    bounds = {field: bound for field, _, bound in capacity.BOUNDS}
    assert policy["maximum_total_runtime_ns"] == bounds["elapsed_ns"]
    assert policy["max_absolute_rss_bytes"] == bounds["peak_process_tree_rss_bytes"]
    assert policy["minimum_runtime_free_disk_bytes"] == bounds["minimum_free_disk_bytes"]
    assert policy["maximum_resource_observation_wall_gap_ns"] == bounds["maximum_resource_observation_wall_gap_ns"]
    assert policy["maximum_owned_disk_bytes"] == bounds["final_owned_disk_bytes"]
    assert policy["maximum_capacity_report_bytes"] == capacity.MAX_REPORT_BYTES
    assert policy["maximum_portable_attempts"] == 1024


_SIGNAL_KEYS = ("sequence", "wall_elapsed_ns", "progress_wall_gap_ns", "completed_records", "kind")
_SIGNAL_VALUES = st.one_of(st.integers(-2, 3), st.integers(0, 10**10), st.booleans(), st.none(), st.floats(0, 5),
                           st.just("x"))


def _small_phase(data: st.DataObject) -> dict[str, Any]:
    """A phase of up to 8 progress signals, mostly consistent (sequences rising, gaps the time since the one before)
    with random edits, so that both answers of the fast path are exercised."""
    count = data.draw(st.integers(0, 8))
    signals: list[Any] = []
    wall, sequence = 0, 0
    for _ in range(count):
        step, jump = data.draw(st.integers(0, 50)), data.draw(st.sampled_from([1, 1, 1, 1, 2, 0]))
        sequence += jump
        gap = step if jump == 1 and data.draw(st.integers(0, 4)) else data.draw(st.integers(0, step))
        wall += step
        signals.append({"sequence": sequence, "wall_elapsed_ns": wall, "progress_wall_gap_ns": gap,
                        "completed_records": data.draw(st.integers(0, 20)), "kind": "activity"})
    for _ in range(data.draw(st.sampled_from([0, 0, 1, 2]))):
        if signals:
            signal = signals[data.draw(st.integers(0, len(signals) - 1))]
            key = data.draw(st.sampled_from(_SIGNAL_KEYS))
            if data.draw(st.booleans()):
                signal[key] = data.draw(_SIGNAL_VALUES)
            else:
                signal.pop(key, None)
    if signals and data.draw(st.integers(0, 9)) == 0:
        signals[0] = data.draw(st.sampled_from([None, [], 7]))
    # the phase's totals fit the signals as generated (before the edits) unless a draw replaces them
    fitting = {"progress_signal_count": sequence + data.draw(st.integers(0, 2)), "records": 20,
               "maximum_progress_checkpoint_wall_gap_ns": 50}
    other = {"progress_signal_count": st.one_of(st.integers(0, 12), st.none(), st.just(True)),
             "records": st.one_of(st.integers(0, 25), st.none()),
             "maximum_progress_checkpoint_wall_gap_ns": st.one_of(st.integers(0, 60), st.none())}
    phase: dict[str, Any] = {"progress_signals": signals}
    for key, value in fitting.items():
        phase[key] = data.draw(other[key]) if data.draw(st.integers(0, 3)) == 0 else value
    return phase


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_signal_fast_path_gives_the_loops_answer(data: st.DataObject) -> None:
    """The column-wise test of the progress signals (_signals_fine) says "fine" only when the per-signal loop finds
    no problem, so _signal_problem returns exactly what the loop returns."""
    phase = _small_phase(data)
    cap = data.draw(st.one_of(st.integers(8, 10), st.integers(0, 10), st.none()))
    loop = capacity_phases._Phases._signal_problem_loop(phase, cap)
    assert capacity_phases._Phases._signal_problem(phase, cap) == loop
    if capacity_phases._signals_fine(phase, cap):
        assert loop is None


@given(st.lists(st.one_of(st.fixed_dictionaries({"v": _SIGNAL_VALUES}), st.just({}), st.none(), st.just([1])),
                max_size=6))
def test_int_column_equals_as_int_per_item(items: list[Any]) -> None:
    from nerb_verify.checks.raw._access import as_int

    expected = [as_int(item.get("v")) if isinstance(item, dict) else None for item in items]
    assert capacity_phases._int_column(items, "v") == expected


def test_signal_fast_path_accepts_the_real_phases(opened: VerifyContext) -> None:
    """On the real bundle every phase's signals are fine by the fast path (the loop never runs)."""
    report = opened.loaded[C.CAPACITY_DECISION]["report"]
    cap = report["policy"]["maximum_retained_progress_signals_per_phase"]
    assert all(capacity_phases._signals_fine(phase, cap) for phase in report["phases"])
