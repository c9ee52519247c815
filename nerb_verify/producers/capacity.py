"""The capacity decision producer: measure the pipeline's five phases and write ``capacity-decision.json`` (spec 30 A.7).

A :class:`CapacityRun` is one measured pipeline run over a private root. It keeps an append-only attempt chain under
``<private>/capacity/attempts.jsonl``: every attempt, failed ones included, is a sealed receipt linked to the one
before it, and only a passing attempt produces a report. An attempt:

1. preflight: physical memory, the RSS caps the published policy derives from it, free disk at the private root
   and at the output, the process tree's RSS, no pre-existing private tombstones; the resource observer
   (:mod:`nerb_verify.producers.capacity_observer`, a separate process sampling the whole process tree every
   100 ms) and a watchdog (``SIGALRM`` after the policy's total runtime) are started;
2. the five phases in the policy's order (preparation, split, build, streaming validation, deep replay), each
   between two boundary samples, with progress checkpoints (completed records at a time) that the caller reports;
   the demo runs the first three through ``prepare``, ``split`` and ``bank build``, :func:`validation_phases` runs
   the last two (re-streaming the validation texts through the built bank; rebuilding the bank from the development
   split and re-running validation: replay equality);
3. :meth:`CapacityRun.finish`: each phase's figures from its observations (peaks, minima, worst gaps, counts), the
   retained samples (at most the policy's 256, always including the ones that set a figure and the last), the
   throughput as ``floor(records * 10**12 / elapsed_ns)`` milli-records per second, the cumulative commitments
   (:func:`chain_commitments`, each phase restating the one before), the gates computed from the figures and the
   policy, the report written into the owned tree with the commit marker, the receipt, and the decision sealed
   with :func:`nerb_verify.seal_capacity.seal_capacity_decision` (the verifier's own hashing). A false gate makes
   the attempt a failed receipt (its failure code) and no decision.

The policy is NERB's published policy with its corpus-binding fields bound to this run's corpus
(:func:`run_policy`; docs/findings/capacity.md, "The policy: protocol and corpus"). The report carries aggregate
numbers and hashes only: no path, document id or text.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nerb_verify.canonical import nerb_pretty_bytes, python_canonical_sha256, self_hash
from nerb_verify.checks.capacity import capacity_policy
from nerb_verify.loader import sha256_prefixed
from nerb_verify.producers import capacity_identity as identity
from nerb_verify.producers.capacity_observer import Observer, free_bytes, observer_problem, tree_bytes, tree_rss
from nerb_verify.seal_capacity import seal_capacity_decision

PHASES = ("preparation", "split", "build", "streaming_validation", "deep_replay")
COMMIT_MARKER = b"nerb.enron.private-run.v2\n"  # 26 bytes, written into the owned tree after the report
ATTEMPT_BOUNDARY = ("resource_observations_through_report_write_fsync_staging_scan_atomic_promotion_and_promoted"
                    "_final_tree_scan_before_attempt_append")
REPORT_BOUNDARY = "resource_observations_through_phase_execution_and_pre_report_staging_tree_scan"
SEALED_UNBOUND = "sealed_unbound"
ZERO = "sha256:" + "0" * 64


class CapacityError(Exception):
    """The capacity run cannot go on (our own message; no input value)."""


class WatchdogInterrupted(Exception):
    """The watchdog stopped a phase at the policy's total runtime."""


@dataclass
class Phase:
    """One measured phase: its boundary times and the progress checkpoints the caller reports."""

    name: str
    start_ns: int
    end_ns: int = 0
    checkpoints: list[tuple[int, int]] = field(default_factory=list)

    def checkpoint(self, completed_records: int) -> None:
        """Record that ``completed_records`` records are done now (strictly more than the last checkpoint)."""
        if self.checkpoints and completed_records <= self.checkpoints[-1][1]:
            return
        self.checkpoints.append((time.monotonic_ns(), completed_records))


def run_policy(source: dict[str, Any], reader: dict[str, str]) -> dict[str, Any]:
    """NERB's published policy with its corpus-binding fields bound to this run's corpus and reader."""
    policy = copy.deepcopy(capacity_policy.published_policy())
    policy.update(dataset_id=source["id"], dataset_revision=source["revision"], source_rows=source["input_records"],
                  critical_reader_versions=dict(reader),
                  reader_cache_lock_adapter_sha256=identity.declared("reader_cache_lock_adapter", "none"),
                  reader_network_activity_adapter_sha256=identity.declared("reader_network_activity_adapter",
                                                                           "none"),
                  reader_official_endpoint_sha256=identity.declared("reader_official_endpoint", "local_file"),
                  reader_phase_environment_policy_sha256=identity.declared("reader_phase_environment_policy",
                                                                           "inherited_process_environment"))
    policy["policy_sha256"] = self_hash(policy, "policy_sha256")
    return policy


def _physical_memory() -> int:
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError):
        return 0


def _fraction(policy: dict[str, Any], name: str) -> tuple[int, int]:
    return int(policy[name]["numerator"]), int(policy[name]["denominator"])


class CapacityRun:
    """A measured pipeline run over ``private`` (module docstring); ``output`` is where the public bundle goes."""

    def __init__(self, private: Path, *, commit: str, dirty: bool, output: Path | None = None,
                 interval_ns: int = 100_000_000) -> None:
        self.private = private
        self.output = output or private.parent
        self.commit = commit
        self.dirty = dirty
        self.interval_ns = interval_ns
        self.folder = private / "capacity"
        self.phases: list[Phase] = []
        self.observer: Observer | None = None
        self.attempt_start = 0
        self.preflight: dict[str, int] = {}
        self.watchdog = False
        # the sealed-access state recomputed after the last phase (the gate compares it with the phases')
        self.sealed_states: list[str] = []
        # the gates of the last finished attempt (for the caller's message: which gate failed)
        self.last_gates: dict[str, bool] = {}

    # -- attempt lifecycle --------------------------------------------------------------------------------------
    def begin(self) -> None:
        """Preflight, start the observer and the watchdog (step 1 of the module docstring)."""
        problem = observer_problem()
        if problem is not None:
            raise CapacityError(problem)
        self.folder.mkdir(mode=0o700, exist_ok=True)
        self.phases = []
        self.attempt_start = time.monotonic_ns()
        self.preflight = {"free": free_bytes(self.private), "output_free": free_bytes(self.output),
                          "rss": tree_rss(os.getpid()), "memory": _physical_memory()}
        self.observer = Observer(self.private, self.interval_ns)
        self.observer.start()
        self.watchdog = True

    def _arm_watchdog(self) -> Any:
        """While a phase runs, SIGALRM at the rest of the policy's total runtime interrupts it (main thread only;
        elsewhere the watchdog is unsupported and its gate false). Returns the previous handler, or None."""
        limit_ns = int(capacity_policy.PUBLISHED["maximum_total_runtime_ns"])
        remaining = max(1, limit_ns - (time.monotonic_ns() - self.attempt_start))

        def interrupt(_signum: int, _frame: Any) -> None:
            raise WatchdogInterrupted()

        try:
            previous = signal.signal(signal.SIGALRM, interrupt)
            signal.setitimer(signal.ITIMER_REAL, remaining / 1e9)
        except (ValueError, OSError, AttributeError):
            self.watchdog = False
            return None
        return previous

    @staticmethod
    def _disarm_watchdog(previous: Any) -> None:
        if previous is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    def _disarm(self) -> None:
        if self.observer is not None:
            self.observer.stop()

    @contextmanager
    def phase(self, name: str) -> Iterator[Phase]:
        """Measure one phase between two boundary samples; a phase that raises fails the attempt."""
        if self.observer is None or len(self.phases) >= len(PHASES) or PHASES[len(self.phases)] != name:
            raise CapacityError("capacity phases run once each, in the policy's order")
        current = Phase(name, self.observer.boundary())
        previous = self._arm_watchdog()
        try:
            yield current
        except WatchdogInterrupted:
            self.fail("watchdog_interrupted")
            raise
        except BaseException:
            self.fail("phase_execution_failed")
            raise
        finally:
            self._disarm_watchdog(previous)
        current.end_ns = self.observer.boundary()
        self.phases.append(current)

    def fail(self, code: str) -> dict[str, Any]:
        """Append a failed receipt with ``code`` and stop measuring; returns the receipt."""
        samples = self.observer.samples if self.observer is not None else []
        self._disarm()
        receipt = self._receipt("failed", code, samples, None, None)
        self._append(receipt)
        return receipt

    # -- the chain ----------------------------------------------------------------------------------------------
    def chain(self) -> list[dict[str, Any]]:
        """The attempt receipts so far, in order."""
        path = self.folder / "attempts.jsonl"
        if not path.is_file():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    def _append(self, receipt: dict[str, Any]) -> None:
        fd = os.open(self.folder / "attempts.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(receipt, sort_keys=True, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def _receipt(self, outcome: str, failure: str | None, samples: list[dict[str, Any]],
                 report: dict[str, Any] | None, environment: dict[str, Any] | None) -> dict[str, Any]:
        chain = self.chain()
        in_attempt = [s for s in samples if s["t"] >= self.attempt_start]
        execution = (report or {}).get("execution") or {}
        totals = (report or {}).get("totals") or {}
        passed = outcome == "passed"
        receipt: dict[str, Any] = {
            "attempt_nonce_sha256": sha256_prefixed(os.urandom(32)), "attempt_sequence": len(chain) + 1,
            "capacity_implementation_sha256": identity.file_sha256(identity.MODULE_SLOTS["src/nerb/enron_capacity.py"]),
            "elapsed_ns": time.monotonic_ns() - self.attempt_start, "executable_git_commit": self.commit,
            "execution_sha256": python_canonical_sha256(execution) if passed else None, "failure_code": failure,
            "final_owned_disk_bytes": totals.get("final_owned_disk_bytes") if passed else None,
            "maximum_peak_rss_bytes": (environment or {}).get("maximum_peak_rss_bytes") if passed else None,
            "maximum_resource_observation_wall_gap_ns": _worst_gap(in_attempt) if passed else None,
            "measurement_boundary": ATTEMPT_BOUNDARY,
            "minimum_free_disk_bytes": min(s["free"] for s in in_attempt) if passed and in_attempt else None,
            "outcome": outcome, "path_tree_removed": None,
            "peak_process_tree_rss_bytes": totals.get("peak_process_tree_rss_bytes") if passed else None,
            "policy_sha256": ((report or {}).get("policy") or {}).get("policy_sha256", ZERO),
            "preexisting_private_tombstone_count": 0 if passed else None,
            "previous_attempt_sha256": chain[-1]["attempt_sha256"] if chain else None,
            "production_evidence": False, "promoted_name_sha256": None, "promoted_parent_device": None,
            "promoted_parent_inode": None, "promoted_root_device": None, "promoted_root_inode": None,
            "recovered_from_inflight": False, "report_sha256": (report or {}).get("run_sha256") if passed else None,
            "repository_tree_sha256": execution.get("repository_tree_sha256") if passed else None,
            "resource_observation_count": len(in_attempt) if passed else None,
            "retained_private_tombstone_count": 0,
            "runtime_environment_sha256": execution.get("runtime_environment_sha256") if passed else None,
            "schema_version": "nerb.enron_capacity_attempt.v1", "sensitive_content_wiped": None,
            "sequence": len(chain) + 1,
        }
        receipt["attempt_sha256"] = self_hash(receipt, "attempt_sha256")
        return receipt

    # -- the report ---------------------------------------------------------------------------------------------
    def finish(self, commitments: list[dict[str, Any]], policy: dict[str, Any]) -> dict[str, Any] | None:
        """Build, check, write and seal the report and decision (step 3); None and a failed receipt if a gate is
        false. ``commitments``: the five phases' cumulative commitments (:func:`chain_commitments`)."""
        if self.observer is None or [p.name for p in self.phases] != list(PHASES):
            raise CapacityError("the five capacity phases have not all run")
        observer = self.observer
        samples = list(observer.samples)
        policy_memory = self.preflight["memory"]
        share, peak_share = _fraction(policy, "physical_memory_fraction"), _fraction(
            policy, "peak_rss_fraction_of_effective_cap")
        cap = min(int(policy["max_absolute_rss_bytes"]), policy_memory * share[0] // share[1])
        environment_caps = {"effective_rss_cap_bytes": cap, "maximum_peak_rss_bytes": cap * peak_share[0] // peak_share[1]}
        phases = [self._phase_block(p, c, samples, policy) for p, c in zip(self.phases, commitments)]
        execution, runtime = self._execution(policy)
        environment = {**environment_caps, "monitored_filesystem_count": 1,
                       "output_preflight_free_disk_bytes": self.preflight["output_free"],
                       "physical_memory_bytes": policy_memory, "preexisting_private_tombstone_count": 0,
                       "preflight_free_disk_bytes": self.preflight["free"],
                       "preflight_process_tree_rss_bytes": self.preflight["rss"], "runtime": runtime}
        first, last = self.phases[0].start_ns, self.phases[-1].end_ns
        between = [s for s in samples if first < s["t"] <= last]
        pre_report = tree_bytes(self.private)
        totals = {
            "elapsed_ns": last - first, "final_owned_disk_bytes": 0,
            "maximum_resource_acquisition_duration_ns": max(p["maximum_resource_acquisition_duration_ns"]
                                                            for p in phases),
            "maximum_resource_observation_wall_gap_ns": max(p["maximum_resource_observation_wall_gap_ns"]
                                                            for p in phases),
            "minimum_free_disk_bytes": min(p["minimum_free_disk_bytes"] for p in phases),
            "owned_disk_high_water_bytes": max(p["owned_disk_high_water_bytes"] for p in phases),
            "peak_process_tree_rss_bytes": max(p["peak_process_tree_rss_bytes"] for p in phases),
            "pre_report_owned_disk_bytes": pre_report, "report_bytes": 0,
            "resource_acquisition_retry_count": sum(p["resource_acquisition_retry_count"] for p in phases),
            "resource_observation_count": max(len(between), sum(p["resource_observation_count"] for p in phases)),
            "source_rows_accounted": commitments[0]["source_input_rows"],
        }
        last_commitments = commitments[-1]
        privacy = {"aggregate_only": True, "correctness_rows_included": False, "detector_values_included": False,
                   "document_ids_included": False, "paths_included": False,
                   "privacy_scan_chain_sha256": python_canonical_sha256([c["privacy_scan_sha256"]
                                                                         for c in commitments]),
                   "privacy_scan_violation_count": 0,
                   "privacy_scanner_source_sha256": last_commitments["privacy_scanner_source_sha256"],
                   "sealed_access_state_sha256": last_commitments["sealed_access_state_sha256"],
                   "sealed_state": last_commitments["sealed_state"],
                   "sealed_test_accessed": last_commitments["sealed_test_accessed"]}
        report: dict[str, Any] = {
            "artifact_kind": "aggregate_capacity_evidence", "environment": environment,
            "evidence_status": "pre_terminal_non_decision", "execution": execution, "gates": {},
            "phases": phases, "policy": policy, "privacy": privacy, "run_sha256": ZERO,
            "schema_version": "nerb.enron_capacity_report.v1", "totals": totals}
        report["gates"] = self.gates(report, commitments)
        self.last_gates = dict(report["gates"])
        if not report["gates"]["passed"]:
            self.fail(_failure_code(report["gates"]))
            return None
        decision = self._decision(report)
        self._write_report(decision, pre_report)
        samples = list(observer.samples)
        self._disarm()
        receipt = self._receipt("passed", None, samples, decision["report"], decision["report"]["environment"])
        decision["attempt_chain"] = self.chain() + [receipt]
        seal_capacity_decision(decision)
        self._append(decision["attempt_chain"][-1])
        return decision

    def _write_report(self, decision: dict[str, Any], pre_report: int) -> None:
        """Fix the report size and the final owned disk (pre-report + report file + marker), then write both files."""
        report = decision["report"]
        totals = report["totals"]
        for _ in range(8):
            seal_capacity_decision(decision)
            if totals["pre_report_owned_disk_bytes"] == pre_report:
                break
            totals["final_owned_disk_bytes"] += pre_report - totals["pre_report_owned_disk_bytes"]
            totals["pre_report_owned_disk_bytes"] = pre_report
        else:
            raise CapacityError("the report size did not settle")
        raw = nerb_pretty_bytes(report)
        if len(raw) != totals["report_bytes"]:
            raise CapacityError("the written report's size is not the recorded one")
        for name, data in (("report.json", raw), ("COMMITTED", COMMIT_MARKER)):
            fd = os.open(self.folder / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())

    def _decision(self, report: dict[str, Any]) -> dict[str, Any]:
        from nerb_verify.checks import capacity as check

        totals = report["totals"]
        totals["final_owned_disk_bytes"] = totals["pre_report_owned_disk_bytes"] + COMMIT_MARKER_LEN
        execution = report["execution"]
        git = identity.git_facts(self.commit)
        attestation = {
            "attempt_chain_sha256": ZERO, "commit_object_sha256": git["commit_object_sha256"],
            "commit_source_inventory_sha256": ZERO, "executable_git_commit": self.commit,
            "kind": "clean_clone_source_and_hash_chain_verification", "measured_source_inventory_sha256": ZERO,
            "native_binary_sha256": execution["native_extension_sha256"],
            "native_build_source_sha256": execution["native_build_source_sha256"],
            "native_extension_build_source_sha256": execution["native_extension_build_source_sha256"],
            "reader_environment_sha256": report["phases"][0]["commitments"]["source_reader_environment_sha256"],
            "reader_lock_sha256": execution["reader_lock_sha256"], "report_sha256": ZERO,
            "repository_tree_sha256": execution["repository_tree_sha256"],
            "root_tree_object_id": git["root_tree_object_id"], "sha256": ZERO, "terminal_attempt_sha256": ZERO}
        privacy = dict(check.PRIVACY_CONST, privacy_scanner_source_sha256=report["privacy"][
            "privacy_scanner_source_sha256"], privacy_sha256=ZERO)
        return {"artifact_kind": "aggregate_capacity_portable_decision", "attempt_chain": [],
                "attestation": attestation, "decision_sha256": ZERO, "privacy": privacy, "report": report,
                "schema_version": "nerb.enron_capacity_portable_decision", "terminal_attempt": {},
                "verification_scope": dict(copy.deepcopy(check.VERIFICATION_SCOPE), sha256=ZERO)}

    def _execution(self, policy: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        from nerb_verify.schema_validation import schema_by_name

        schema = schema_by_name("nerb.enron_capacity_portable_decision.json")
        slots = list(schema["properties"]["report"]["properties"]["execution"]["properties"]
                     ["relevant_module_sha256"]["required"])
        relevant = identity.relevant_modules(slots)
        core = {name: relevant[f"src/nerb/{name}.py"] for name in identity.CORE_MODULES}
        native = identity.native_extension_sha256()
        runtime = identity.runtime(native, dict(policy["critical_reader_versions"]),
                                   policy["reader_phase_environment_policy_sha256"],
                                   relevant["scripts/run_enron_capacity.py"], core["_capacity_bootstrap"])
        execution = {
            "attempt_measurement_boundary": ATTEMPT_BOUNDARY,
            "capacity_implementation_sha256": relevant["src/nerb/enron_capacity.py"], "core_source_sha256": core,
            "executable_git_commit": self.commit,
            "extraction_execution_sha256": identity.file_sha256("nerb_verify/producers/engine.py"),
            "fresh_worker": False, "git_tree_clean": not self.dirty, "monitor_interval_ns": self.interval_ns,
            "native_build_source_sha256": identity.ABSENT, "native_extension_build_source_sha256": identity.ABSENT,
            "native_extension_sha256": native,
            "process_containment": {"architecture": runtime["architecture"], "installed_before_workload": False,
                                    "mode": "none", "policy_sha256": identity.declared("process_containment", "none"),
                                    "runtime_attested": False},
            "production_evidence": False, "reader_lock_sha256": identity.file_sha256("pyproject.toml"),
            "relevant_module_sha256": relevant, "report_measurement_boundary": REPORT_BOUNDARY,
            "repository_tree_sha256": identity.repository_tree_sha256(),
            "resource_probe_implementation_sha256": identity.file_sha256(
                "nerb_verify/producers/capacity_observer.py"),
            "runner_implementation_sha256": {name: identity.file_sha256(path)
                                             for name, path in identity.RUNNERS.items()},
            "runtime_environment_sha256": python_canonical_sha256(runtime),
        }
        return execution, runtime

    def _phase_block(self, phase: Phase, commitments: dict[str, Any], samples: list[dict[str, Any]],
                     policy: dict[str, Any]) -> dict[str, Any]:
        """One phase of the report from its observations, checkpoints and commitments."""
        observed = [s for s in samples if phase.start_ns < s["t"] <= phase.end_ns]
        elapsed = phase.end_ns - phase.start_ns
        rows = []
        previous = phase.start_ns
        for sequence, item in enumerate(observed, start=1):
            rows.append({"completed_records": None, "elapsed_ns": item["t"] - phase.start_ns,
                         "filesystem_acquisition_duration_ns": item["fs_ns"], "free_disk_bytes": item["free"],
                         "owned_disk_bytes": item["owned"], "process_tree_rss_bytes": item["rss"],
                         "resource_acquisition_duration_ns": item["rss_ns"] + item["fs_ns"],
                         "resource_acquisition_retry_count": 0,
                         "resource_observation_wall_gap_ns": item["t"] - previous,
                         "rss_acquisition_duration_ns": item["rss_ns"], "sample_kind": item["kind"],
                         "scheduler_lateness_ns": item["late"], "sequence": sequence,
                         "wall_elapsed_ns": item["t"] - phase.start_ns})
            previous = item["t"]
        records = sum(int(commitments[key]) for key in _PHASE_RECORDS[phase.name])
        checkpoints = list(phase.checkpoints)
        if not checkpoints or checkpoints[-1][1] != records:
            checkpoints = [c for c in checkpoints if c[1] < records] + [(phase.end_ns, records)]
        checkpoint_rows, signals, step, last_records, last_wall = [], [], 0, 0, 0
        for sequence, (at, done) in enumerate(checkpoints, start=1):
            wall = min(at, phase.end_ns) - phase.start_ns
            checkpoint_rows.append({"completed_records": done, "elapsed_ns": wall, "sequence": sequence,
                                    "wall_elapsed_ns": wall})
            signals.append({"completed_records": done, "kind": "checkpoint", "progress_wall_gap_ns": wall - last_wall,
                            "sequence": sequence, "wall_elapsed_ns": wall})
            step, last_records, last_wall = max(step, done - last_records), done, wall
        retained = _retain(rows, int(policy["maximum_retained_resource_samples_per_phase"]))
        processed = sum(int(commitments[key]) for key in _PHASE_BYTES[phase.name])
        return {
            "checkpoint_count": len(checkpoint_rows), "checkpoint_samples": checkpoint_rows,
            "commitments": commitments, "commitments_sha256": python_canonical_sha256(commitments),
            "elapsed_ns": elapsed, "executable_git_commit": self.commit,
            "maximum_checkpoint_gap_records": step,
            "maximum_progress_checkpoint_wall_gap_ns": max(s["progress_wall_gap_ns"] for s in signals),
            "maximum_resource_acquisition_duration_ns": max(r["resource_acquisition_duration_ns"] for r in rows),
            "maximum_resource_observation_wall_gap_ns": max(r["resource_observation_wall_gap_ns"] for r in rows),
            "minimum_free_disk_bytes": min(r["free_disk_bytes"] for r in rows),
            "owned_disk_high_water_bytes": max(r["owned_disk_bytes"] for r in rows), "owned_root_count": 1,
            "peak_process_tree_rss_bytes": max(r["process_tree_rss_bytes"] for r in rows), "phase": phase.name,
            "processed_bytes": processed, "progress_signal_count": len(signals), "progress_signals": signals,
            "records": records, "resource_acquisition_retry_count": 0, "resource_observation_count": len(rows),
            "resource_samples": retained, "runner_implementation_sha256": identity.file_sha256(
                identity.RUNNERS[phase.name]),
            "throughput_milli_records_per_second": records * 10**12 // elapsed if elapsed > 0 else 0,
        }

    def gates(self, report: dict[str, Any], commitments: list[dict[str, Any]]) -> dict[str, bool]:
        """Every report gate, computed from the figures and the policy (``passed``: all of them)."""
        from nerb_verify.checks.capacity import capacity_phases

        policy, totals, environment = report["policy"], report["totals"], report["environment"]
        phases = report["phases"]
        states = {c.get("sealed_access_state_sha256") for c in commitments if "sealed_access_state_sha256" in c}
        states |= set(self.sealed_states)
        chain_ok = all(all(k in later and later[k] == v for k, v in earlier.items() if k != "privacy_scan_sha256")
                       for earlier, later in zip(commitments, commitments[1:]))
        gates = {
            "checkpoint_progress": all(p["maximum_checkpoint_gap_records"] <= policy["maximum_checkpoint_record_gap"]
                                       for p in phases),
            "checkpoint_wall_cadence": all(p["maximum_progress_checkpoint_wall_gap_ns"]
                                           <= policy["maximum_progress_checkpoint_wall_gap_ns"] for p in phases),
            "closed_commitment_chain": chain_ok,
            "continuous_resource_monitoring": all(p["resource_observation_count"] > 0 for p in phases),
            "owned_disk": totals["owned_disk_high_water_bytes"] <= policy["maximum_owned_disk_bytes"],
            "peak_rss": totals["peak_process_tree_rss_bytes"] <= environment["maximum_peak_rss_bytes"],
            "phase_throughput": all(p["throughput_milli_records_per_second"]
                                    >= policy["minimum_phase_records_per_second"] * 1000 for p in phases),
            "preflight_free_disk": environment["preflight_free_disk_bytes"]
            >= policy["minimum_preflight_free_disk_bytes"],
            "process_tree_rss_supported": observer_problem() is None,
            "resource_acquisition_duration": totals["maximum_resource_acquisition_duration_ns"]
            <= policy["maximum_resource_acquisition_duration_ns"],
            "resource_observation_cadence": totals["maximum_resource_observation_wall_gap_ns"]
            <= policy["maximum_resource_observation_wall_gap_ns"],
            "runtime_free_disk": totals["minimum_free_disk_bytes"] >= policy["minimum_runtime_free_disk_bytes"],
            "sealed_access_state_stable": len(states) == 1,
            "source_conservation": totals["source_rows_accounted"] == policy["source_rows"],
            "total_runtime": totals["elapsed_ns"] <= policy["maximum_total_runtime_ns"],
            "watchdog_interruption_supported": self.watchdog,
        }
        gates.update(capacity_phases.gate_facts(report))
        gates["passed"] = all(gates.values())
        return dict(sorted(gates.items()))


COMMIT_MARKER_LEN = len(COMMIT_MARKER)
_PHASE_RECORDS = {"preparation": ("source_input_rows",), "split": ("prepared_records",), "build": ("train_records",),
                  "streaming_validation": ("validation_records",),
                  "deep_replay": ("train_records", "validation_records")}
_PHASE_BYTES = {"preparation": ("prepared_artifact_bytes", "rejection_artifact_bytes"),
                "split": ("train_artifact_bytes", "validation_artifact_bytes", "test_artifact_bytes"),
                "build": ("train_artifact_bytes",), "streaming_validation": ("validation_text_utf8_bytes",),
                "deep_replay": ("train_artifact_bytes", "validation_artifact_bytes")}
# Gate -> the failure code a false gate gives its attempt (the policy's failure vocabulary).
_GATE_FAILURES = (("source_conservation", "source_conservation_failed"), ("replay_equal", "replay_mismatch"),
                  ("peak_rss", "rss_bound_exceeded"), ("owned_disk", "disk_bound_exceeded"),
                  ("runtime_free_disk", "disk_bound_exceeded"), ("preflight_free_disk", "disk_bound_exceeded"),
                  ("total_runtime", "runtime_bound_exceeded"),
                  ("resource_observation_cadence", "resource_observation_gap"),
                  ("checkpoint_wall_cadence", "checkpoint_wall_gap"),
                  ("sealed_state_unbound", "private_tree_invalid"), ("sealed_test_unaccessed", "private_tree_invalid"),
                  ("preseal_access_count_zero", "private_tree_invalid"),
                  ("sealed_access_state_stable", "private_tree_invalid"))


def _failure_code(gates: dict[str, bool]) -> str:
    for gate, code in _GATE_FAILURES:
        if not gates.get(gate, False):
            return code
    return "resource_bound_exceeded"


def _worst_gap(samples: list[dict[str, Any]]) -> int:
    times = [s["t"] for s in samples]
    return max((b - a for a, b in zip(times, times[1:])), default=0)


def _retain(rows: list[dict[str, Any]], cap: int) -> list[dict[str, Any]]:
    """At most ``cap`` samples, always those that set a phase figure (max RSS, owned disk, gap, acquisition; min
    free disk) and the last, the rest evenly spaced; in sequence order."""
    if len(rows) <= cap:
        return rows
    keep = {len(rows) - 1}
    for key, pick in (("process_tree_rss_bytes", max), ("owned_disk_bytes", max), ("free_disk_bytes", min),
                      ("resource_observation_wall_gap_ns", max), ("resource_acquisition_duration_ns", max)):
        keep.add(pick(range(len(rows)), key=lambda i, k=key: rows[i][k]))
    room = cap - len(keep)
    for n in range(room):
        if len(keep) >= cap:
            break
        keep.add(n * len(rows) // room)
    for index in range(len(rows)):  # a spaced index that was already kept leaves room: fill it in order
        if len(keep) >= cap:
            break
        keep.add(index)
    return [rows[i] for i in sorted(keep)]


def chain_commitments(own: list[dict[str, Any]], scan: Any) -> list[dict[str, Any]]:
    """Cumulative phase commitments: phase i restates phase i-1's and adds its own ``own[i]``; each phase gets its
    own privacy-scan hash from ``scan(phase_name, commitments) -> (sha256, violations)``."""
    out: list[dict[str, Any]] = []
    carried: dict[str, Any] = {}
    for name, mine in zip(PHASES, own):
        carried = {**{k: v for k, v in carried.items() if k != "privacy_scan_sha256"}, **mine}
        digest, violations = scan(name, carried)
        carried["privacy_scan_sha256"] = digest
        carried["privacy_scan_violation_count"] = violations
        out.append(dict(sorted(carried.items())))
    return out
