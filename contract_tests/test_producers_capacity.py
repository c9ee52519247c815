"""The capacity producer's parts without a demo run (producers/capacity.py, capacity_observer.py): the process-tree
observer, the phase order, the sample retention and the cumulative commitments. The demo-level tests (a verified
decision, a failed attempt kept, a false gate) are in test_producers_demo_decision.py."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from nerb_verify.checks.capacity import capacity_policy
from nerb_verify.producers import capacity, capacity_identity
from nerb_verify.producers.capacity_observer import Observer, observer_problem, tree_bytes, tree_rss

pytestmark = pytest.mark.skipif(observer_problem() is not None, reason="needs /proc (Linux)")


def test_tree_rss_counts_the_children_and_tree_bytes_the_files(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", "import sys, time; b = bytearray(64 * 2**20); "
                              "sys.stdout.write('ready\\n'); sys.stdout.flush(); time.sleep(30)"],
                             stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        alone = tree_rss(child.pid)
        assert alone >= 64 * 2**20
        assert tree_rss(os.getpid()) >= alone + 1  # this process plus its child
    finally:
        child.kill()
        child.wait()
    (tmp_path / "a").write_bytes(b"x" * 1000)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_bytes(b"y" * 24)
    (tmp_path / "link").symlink_to(tmp_path / "a")  # not followed, not counted
    assert tree_bytes(tmp_path) == 1024


def test_the_observer_samples_continuously_and_at_boundaries(tmp_path):
    observer = Observer(tmp_path, interval_ns=20_000_000)
    observer.start()
    try:
        first = observer.boundary()
        time.sleep(0.15)
        second = observer.boundary()
    finally:
        observer.stop()
    assert second > first
    between = [s for s in observer.samples if first < s["t"] <= second]
    assert len(between) >= 3 and between[-1]["kind"] == "boundary"
    assert all(s["rss"] > 0 and s["free"] > 0 and s["owned"] == 0 for s in between)
    assert set(between[0]) == {"t", "rss", "rss_ns", "free", "owned", "fs_ns", "late", "kind"}


def test_phases_run_once_each_in_the_policy_order(tmp_path):
    run = capacity.CapacityRun(tmp_path, commit="0" * 40, dirty=True, interval_ns=20_000_000)
    run.begin()
    try:
        with pytest.raises(capacity.CapacityError):
            with run.phase("split"):
                pass
        with run.phase("preparation") as phase:
            phase.checkpoint(5)
            phase.checkpoint(5)  # not strictly more: ignored
        assert [c[1] for c in run.phases[0].checkpoints] == [5]
        with pytest.raises(capacity.CapacityError):
            run.finish([], capacity_policy.published_policy())  # not all five phases
    finally:
        run.fail("phase_execution_failed")
    assert [r["outcome"] for r in run.chain()] == ["failed"]
    assert run.chain()[0]["previous_attempt_sha256"] is None


def test_retention_keeps_every_extreme_and_the_last():
    rows = [{"process_tree_rss_bytes": 10, "owned_disk_bytes": 5, "free_disk_bytes": 100,
             "resource_observation_wall_gap_ns": 1, "resource_acquisition_duration_ns": 1, "sequence": i + 1}
            for i in range(1000)]
    rows[123]["process_tree_rss_bytes"] = 99
    rows[456]["free_disk_bytes"] = 1
    rows[789]["resource_observation_wall_gap_ns"] = 7
    kept = capacity._retain(rows, 256)
    sequences = [r["sequence"] for r in kept]
    assert len(kept) == 256 and sequences == sorted(sequences)
    assert {124, 457, 790, 1000} <= set(sequences)
    assert capacity._retain(rows[:10], 256) == rows[:10]


def test_commitments_are_cumulative_with_an_own_privacy_scan():
    own = [{"a": 1}, {"b": 2}, {"c": 3}, {"d": 4}, {"a": 1, "e": 5}]
    chained = capacity.chain_commitments(own, lambda name, c: (capacity_identity.declared(name, sorted(c)), 0))
    assert [sorted(k for k in c if not k.startswith("privacy_scan")) for c in chained] == [
        ["a"], ["a", "b"], ["a", "b", "c"], ["a", "b", "c", "d"], ["a", "b", "c", "d", "e"]]
    assert len({c["privacy_scan_sha256"] for c in chained}) == 5


def test_the_run_policy_is_the_published_protocol_bound_to_the_run_corpus():
    source = {"id": "local_corpus", "revision": "ab" * 20, "input_records": 12}
    policy = capacity.run_policy(source, capacity_identity.reader_versions())
    published = capacity_policy.published_policy()
    assert all(policy[k] == published[k] for k in capacity_policy.PROTOCOL_FIELDS)
    assert (policy["dataset_id"], policy["dataset_revision"], policy["source_rows"]) == ("local_corpus", "ab" * 20, 12)
    assert policy["policy_sha256"] != published["policy_sha256"]
    assert set(capacity_identity.MODULE_SLOTS) <= set(capacity_identity.relevant_modules(list(
        capacity_identity.MODULE_SLOTS)))
    assert capacity_identity.file_sha256(None) == capacity_identity.ABSENT
