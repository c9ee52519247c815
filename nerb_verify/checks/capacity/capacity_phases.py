"""The capacity report's five phases, inside and across: what a coherent forger of capacity-decision.json must keep.

Called by :mod:`nerb_verify.checks.capacity` with the schema-valid report. Every rule here compares two things the
report itself states, so a resealed edit (every hash recomputed, :mod:`nerb_verify.seal_capacity`) that changes one
and not the other is caught:

* **commitment hashes**: each phase's ``commitments_sha256`` is the canonical hash of its ``commitments``;
* **commitment chain**: a phase restates every commitment of the phase before it (the source rows, the prepared
  artifact, the split roles, the bank, the sealed-access state ...) unchanged, except its own privacy-scan hash; the
  report's privacy block restates the phases (privacy-scan chain = canonical hash of the phases' scan hashes in order,
  scanner, violation count, sealed state); the preparation commitments restate the policy's source and reader;
* **conservation**: source input rows = prepared + rejected rows; prepared records = prepared source rows; the split
  roles' records and artifact bytes add up to the prepared records and bytes (role files are the exact prepared lines
  routed by role); each phase's ``records`` and ``processed_bytes`` are what its commitments say it processed (the
  policy's ``processed_bytes_by_phase``); the report's rows accounted are the source input rows;
* **replay**: the deep replay's bank and validation-run hashes equal the build's, exactly when ``replay_equal``;
* **retained samples**: every retained resource sample lies within its phase's recorded extremes (peak RSS, owned
  disk high water, minimum free disk, worst observation gap and acquisition time, retries), in sequence and time,
  and its gap is the time since the retained sample before it when they are consecutive (at most that otherwise);
  the checkpoint samples are every checkpoint, in order, ending at the phase's records, with the recorded worst
  record gap; retained progress signals stay within the phase's counts and worst wall gap;
* **extremes**: the retained samples include the ones that set each extreme and the last observation, so each
  phase figure (peak RSS, owned-disk high water, minimum free disk, worst gaps, observation and signal counts) is
  recomputed from them exactly;
* **production claim**: with ``production_evidence`` true, the execution meets the policy's production
  requirements (monitor interval, process containment, clean tree, fresh worker, isolated bootstrap);
* **execution identity**: the runtime-environment hash is the hash of ``environment.runtime``; module hashes agree
  between ``core_source_sha256``, ``relevant_module_sha256`` and the capacity implementation; the native and reader
  identities of the runtime equal the execution's and the policy's; every phase ran the measured commit and its
  recorded runner.

:func:`gate_facts` derives the gates whose truth is a plain reading of the commitments (replay, sealed access,
tombstones); the capacity family reports a true gate whose fact is false as ``capacity.gate_unsupported``.
"""

from __future__ import annotations

import operator
from typing import Any

from nerb_verify.canonical import python_canonical_sha256
from nerb_verify.checks.raw._access import as_dict, as_int, as_list, dig, same
from nerb_verify.codes import register
from nerb_verify.context import CAPACITY_DECISION as A
from nerb_verify.context import VerifyContext
from nerb_verify.findings import Label
from nerb_verify.pointers import join, key_segment, known_keys

COMMITMENT_HASH = register(
    "capacity.commitment_hash_mismatch", "A capacity phase's commitments_sha256 is not the hash of its commitments.",
    "Each phase of the capacity report seals its commitments (source, preparation, split, bank and replay facts) "
    "with commitments_sha256, the canonical SHA-256 of the commitments object. A mismatch means the commitments "
    "changed after the phase sealed them.")
COMMITMENT_CHAIN = register(
    "capacity.commitment_chain_broken", "A capacity phase restates an earlier commitment differently.",
    "The phases run in order and each restates the commitments of the one before it (source rows, prepared "
    "artifact, split roles, bank, sealed-access state ...), adding its own; only its privacy-scan hash is its own. "
    "The report's privacy block restates the phases: its privacy_scan_chain_sha256 is the canonical hash of the "
    "phases' privacy_scan_sha256 values in order, and its scanner, violation count and sealed state are the phases'. "
    "The preparation commitments restate the policy's dataset, revision, reader version and reader adapters. Two "
    "different values for one fact mean one of them is false.")
CONSERVATION = register(
    "capacity.conservation_mismatch", "Capacity rows, records or bytes do not add up.",
    "Recomputed from the commitments: source input rows = prepared source rows + rejected source rows; prepared "
    "records = prepared source rows; train + validation + test records = prepared records and their artifact bytes "
    "= the prepared artifact's bytes (role files are the prepared lines routed by role); each phase's records and "
    "processed_bytes are what its commitments say it read (preparation: source rows, prepared plus rejection "
    "artifact bytes; split: prepared records, role artifact bytes; build: train; streaming validation: validation "
    "records, validation text bytes; deep replay: train plus validation); report totals.source_rows_accounted = "
    "source input rows.")
REPLAY = register(
    "capacity.replay_mismatch", "The deep replay's replay_equal disagrees with the hashes it compares.",
    "The deep-replay phase rebuilds the bank and re-runs validation; replay_equal is true exactly when its "
    "replay_bank_sha256 equals the build's bank_sha256 and its replay_validation_run_sha256 equals the validation "
    "run hash it restates.")
RESOURCE_SAMPLE = register(
    "capacity.resource_sample_mismatch", "A retained resource sample lies outside its phase's recorded extremes.",
    "Each phase keeps up to the policy's maximum of resource samples out of resource_observation_count "
    "observations. Every retained sample must be within what the phase records: process-tree RSS at most the "
    "phase's peak, owned disk at most its high water, free disk at least its minimum, observation gap and acquisition "
    "time at most its worst, retries at most its total; sequence numbers increase and stay within the observation "
    "count, times increase and stay within the phase's elapsed time, each observation gap is the wall time since the "
    "retained sample before it when the two are consecutive (and at most that time otherwise), and the RSS and "
    "filesystem acquisition times are within the sample's acquisition time.")
CHECKPOINT = register(
    "capacity.checkpoint_mismatch", "A capacity phase's checkpoints or progress signals disagree with its figures.",
    "checkpoint_samples are every checkpoint of the phase (checkpoint_count of them, at most the policy's maximum), "
    "numbered 1, 2, 3 ..., with completed records strictly increasing to the phase's records and the largest record "
    "step equal to maximum_checkpoint_gap_records; their times increase within the phase's elapsed time. Retained "
    "progress signals number at most progress_signal_count and the policy's retention limit, in sequence within "
    "that count, with completed records within the phase's records, each wall gap the time since the retained "
    "signal before it when the two are consecutive (at most that time otherwise) and at most the phase's worst "
    "progress gap.")
EXECUTION_IDENTITY = register(
    "capacity.execution_identity_mismatch", "The capacity report's execution identity contradicts itself.",
    "execution.runtime_environment_sha256 is the canonical hash of environment.runtime; the capacity implementation "
    "hash and every core_source_sha256 module hash equal that module's relevant_module_sha256 entry; the runtime's "
    "native extension hashes, bootstrap launcher and import guard, reader policy and reader versions equal the "
    "execution's, the relevant modules' and the policy's; every phase ran the measured commit with the runner the "
    "execution records for it.")

EXTREME = register(
    "capacity.phase_extreme_mismatch", "A capacity phase's figure is not the extreme of its retained samples.",
    "A phase retains a bounded set of its resource samples and progress signals, and the set always includes the "
    "samples that set the phase's extremes and its last observation (every phase of NERB's published run shows "
    "it). So each summary figure is recomputed from the retained samples and must equal it: peak process-tree RSS "
    "and owned-disk high water the maxima of the samples' RSS and owned disk, minimum free disk their minimum, the "
    "worst observation gap and acquisition time their maxima, resource_observation_count the last sample's "
    "sequence; progress_signal_count the last retained signal's sequence and the worst progress-checkpoint wall "
    "gap the largest retained signal gap. A figure the samples do not attain was stated, not measured.")
PRODUCTION = register(
    "capacity.production_policy_mismatch", "The report claims production evidence its execution does not satisfy.",
    "With execution.production_evidence true the run must have followed the policy's production requirements: the "
    "production monitor interval; the policy's process containment for the runtime's operating system, on the "
    "runtime's architecture, installed before the workload and attested at run time; a clean git tree and a fresh "
    "worker; the isolated, site-disabled bootstrap without .pth processing, with one layout per dependency root; and "
    "one critical reader distribution per pinned reader version. A production claim with any of these false is "
    "itself false.")

PHASE_ORDER = ("preparation", "split", "build", "streaming_validation", "deep_replay")
OWN_COMMITMENTS = frozenset({"privacy_scan_sha256"})  # the one commitment each phase does not restate
ROLES = ("train", "validation", "test")
# What each phase reads, as commitment keys summed (records) ...
PHASE_RECORDS: dict[str, tuple[str, ...]] = {
    "preparation": ("source_input_rows",), "split": ("prepared_records",), "build": ("train_records",),
    "streaming_validation": ("validation_records",), "deep_replay": ("train_records", "validation_records"),
}
# ... and the policy's processed_bytes_by_phase meanings, as commitment keys summed (bytes).
PROCESSED_BYTES: dict[str, tuple[str, ...]] = {
    "prepared_records_artifact_bytes_plus_rejections_artifact_bytes": ("prepared_artifact_bytes",
                                                                       "rejection_artifact_bytes"),
    "train_plus_validation_plus_test_role_jsonl_artifact_bytes": tuple(f"{r}_artifact_bytes" for r in ROLES),
    "development_train_jsonl_artifact_bytes": ("train_artifact_bytes",),
    "selected_validation_text_utf8_bytes": ("validation_text_utf8_bytes",),
    "development_train_plus_validation_jsonl_artifact_bytes": ("train_artifact_bytes", "validation_artifact_bytes"),
}
# Preparation commitments that restate the policy: (commitment key, policy path).
POLICY_RESTATED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("dataset_id", ("dataset_id",)), ("dataset_revision", ("dataset_revision",)),
    ("source_reader_package_version", ("critical_reader_versions", "datasets")),
    ("source_reader_cache_lock_mode", ("reader_cache_lock_mode",)),
    ("source_reader_cache_lock_adapter_sha256", ("reader_cache_lock_adapter_sha256",)),
    ("source_reader_network_activity_adapter_sha256", ("reader_network_activity_adapter_sha256",)),
    ("source_reader_endpoint_sha256", ("reader_official_endpoint_sha256",)),
)
# Resource-sample field, phase field, relation the sample must satisfy against the phase value.
SAMPLE_BOUNDS: tuple[tuple[str, str, str], ...] = (
    ("process_tree_rss_bytes", "peak_process_tree_rss_bytes", "le"),
    ("owned_disk_bytes", "owned_disk_high_water_bytes", "le"),
    ("free_disk_bytes", "minimum_free_disk_bytes", "ge"),
    ("resource_observation_wall_gap_ns", "maximum_resource_observation_wall_gap_ns", "le"),
    ("resource_acquisition_duration_ns", "maximum_resource_acquisition_duration_ns", "le"),
    ("resource_acquisition_retry_count", "resource_acquisition_retry_count", "le"),
    ("elapsed_ns", "elapsed_ns", "le"),
    ("wall_elapsed_ns", "elapsed_ns", "le"),
    ("sequence", "resource_observation_count", "le"),
)

# Phase summary figures recomputed from the retained observations: (phase field, list, item field, combine).
EXTREMES: tuple[tuple[str, str, str, str], ...] = (
    ("peak_process_tree_rss_bytes", "resource_samples", "process_tree_rss_bytes", "max"),
    ("owned_disk_high_water_bytes", "resource_samples", "owned_disk_bytes", "max"),
    ("minimum_free_disk_bytes", "resource_samples", "free_disk_bytes", "min"),
    ("maximum_resource_observation_wall_gap_ns", "resource_samples", "resource_observation_wall_gap_ns", "max"),
    ("maximum_resource_acquisition_duration_ns", "resource_samples", "resource_acquisition_duration_ns", "max"),
    ("resource_observation_count", "resource_samples", "sequence", "last"),
    ("progress_signal_count", "progress_signals", "sequence", "last"),
    ("maximum_progress_checkpoint_wall_gap_ns", "progress_signals", "progress_wall_gap_ns", "max"),
)


def _hash(value: Any) -> str | None:
    try:
        return python_canonical_sha256(value)
    except (TypeError, ValueError, RecursionError):
        return None


def _sum(obj: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    values = [as_int(obj.get(k)) for k in keys]
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


class _Phases:
    """One pass over the report's phases."""

    def __init__(self, ctx: VerifyContext, report: dict[str, Any]) -> None:
        self.ctx = ctx
        self.add = ctx.collector.add
        self.report = report
        self.policy = as_dict(report.get("policy")) or {}
        self.execution = as_dict(report.get("execution")) or {}
        self.phases = [p if isinstance(p, dict) else {} for p in as_list(report.get("phases")) or []]
        self.commitments = [as_dict(p.get("commitments")) or {} for p in self.phases]

    def pointer(self, index: int, *parts: str | int) -> str:
        return join(["report", "phases", index, *parts])

    def first_carrying(self, *keys: str) -> int | None:
        """Index of the first phase whose commitments carry every key (where the fact is introduced)."""
        for index, commitments in enumerate(self.commitments):
            if all(k in commitments for k in keys):
                return index
        return None

    # -- commitment hashes and chain -----------------------------------------------------------------------------
    def commitment_hashes(self) -> None:
        for index, phase in enumerate(self.phases):
            recomputed = _hash(self.commitments[index])
            stored = phase.get("commitments_sha256")
            ok = recomputed is not None and stored == recomputed
            self.ctx.collector.record(A, self.pointer(index, "commitments_sha256"), "capacity_commitments_sha256",
                                      stored if isinstance(stored, str) else None, recomputed, ok)
            if not ok:
                self.add(COMMITMENT_HASH, A, self.pointer(index, "commitments_sha256"))

    def chain(self) -> None:
        names = [p.get("phase") for p in self.phases]
        if tuple(names) != PHASE_ORDER:
            self.add(COMMITMENT_CHAIN, A, "/report/phases", "The phases are not the five capacity phases in order.")
        for index in range(1, len(self.commitments)):
            previous, current = self.commitments[index - 1], self.commitments[index]
            for position, key in enumerate(previous):
                if key in OWN_COMMITMENTS:
                    continue
                if key not in current or not same(current[key], previous[key]):
                    self.add(COMMITMENT_CHAIN, A, self.pointer(index, "commitments", key_segment(key, position)),
                             "Phase {index} restates {field} differently from phase {before}.", index=index,
                             field=_field(key), before=index - 1)
        privacy = as_dict(self.report.get("privacy")) or {}
        scans = [c.get("privacy_scan_sha256") for c in self.commitments]
        chain_hash = _hash(scans)
        stored = privacy.get("privacy_scan_chain_sha256")
        ok = chain_hash is not None and stored == chain_hash
        self.ctx.collector.record(A, "/report/privacy/privacy_scan_chain_sha256", "capacity_privacy_scan_chain",
                                  stored if isinstance(stored, str) else None, chain_hash, ok)
        if not ok:
            self.add(COMMITMENT_CHAIN, A, "/report/privacy/privacy_scan_chain_sha256",
                     "privacy_scan_chain_sha256 is not the hash of the phases' privacy-scan hashes.")
        last = self.commitments[-1] if self.commitments else {}
        counts = [as_int(c.get("privacy_scan_violation_count")) for c in self.commitments]
        total = None if any(v is None for v in counts) else sum(v for v in counts if v is not None)
        restated = [("privacy_scanner_source_sha256", last.get("privacy_scanner_source_sha256")),
                    ("privacy_scan_violation_count", total),
                    ("sealed_state", last.get("sealed_state")),
                    ("sealed_test_accessed", last.get("sealed_test_accessed")),
                    ("sealed_access_state_sha256", last.get("sealed_access_state_sha256"))]
        for key, expected in restated:
            if expected is None or not same(privacy.get(key), expected):
                self.add(COMMITMENT_CHAIN, A, join(["report", "privacy", key]),
                         "The report's privacy block restates {field} differently from the phases.", field=Label(key))
        first = self.commitments[0] if self.commitments else {}
        for key, path in POLICY_RESTATED:
            expected = dig(self.policy, *path)
            if expected is None or not same(first.get(key), expected):
                self.add(COMMITMENT_CHAIN, A, self.pointer(0, "commitments", key),
                         "The preparation commitments restate the policy's {field} differently.", field=Label(key))

    # -- conservation --------------------------------------------------------------------------------------------
    def conservation(self) -> None:
        identities: list[tuple[tuple[str, ...], str]] = [
            (("prepared_source_rows", "rejected_source_rows"), "source_input_rows"),
            (("prepared_source_rows",), "prepared_records"),
            (tuple(f"{r}_records" for r in ROLES), "prepared_records"),
            (tuple(f"{r}_artifact_bytes" for r in ROLES), "prepared_artifact_bytes"),
        ]
        for parts, whole in identities:
            index = self.first_carrying(whole, *parts)
            if index is None:
                self.add(CONSERVATION, A, "/report/phases", "No phase commits to {field}.", field=Label(whole))
                continue
            commitments = self.commitments[index]
            if _sum(commitments, parts) != as_int(commitments.get(whole)):
                self.add(CONSERVATION, A, self.pointer(index, "commitments", whole),
                         "{field} does not equal the sum of its parts.", field=Label(whole))
        index = self.first_carrying("source_input_rows")
        rows = as_int(self.commitments[index].get("source_input_rows")) if index is not None else None
        accounted = as_int(dig(self.report, "totals", "source_rows_accounted"))
        if rows is None or accounted != rows:
            self.add(CONSERVATION, A, "/report/totals/source_rows_accounted",
                     "source_rows_accounted is not the source input rows the phases commit to.")
        meanings = as_dict(self.policy.get("processed_bytes_by_phase")) or {}
        for index, phase in enumerate(self.phases):
            name = phase.get("phase")
            commitments = self.commitments[index]
            record_keys = PHASE_RECORDS.get(name) if isinstance(name, str) else None
            if record_keys is None or _sum(commitments, record_keys) != as_int(phase.get("records")):
                self.add(CONSERVATION, A, self.pointer(index, "records"),
                         "The phase's records are not what its commitments say it read.")
            meaning = meanings.get(name) if isinstance(name, str) else None
            byte_keys = PROCESSED_BYTES.get(meaning) if isinstance(meaning, str) else None
            if byte_keys is None or _sum(commitments, byte_keys) != as_int(phase.get("processed_bytes")):
                self.add(CONSERVATION, A, self.pointer(index, "processed_bytes"),
                         "The phase's processed bytes are not what the policy and its commitments give.")

    # -- replay ----------------------------------------------------------------------------------------------------
    def replay(self) -> None:
        index = self.first_carrying("replay_equal", "replay_bank_sha256", "replay_validation_run_sha256")
        build = self.first_carrying("bank_sha256")
        if index is None or build is None:
            self.add(REPLAY, A, "/report/phases", "No phase records the replay and the bank it replays.")
            return
        replay = self.commitments[index]
        equal = (isinstance(replay.get("replay_bank_sha256"), str)
                 and replay.get("replay_bank_sha256") == self.commitments[build].get("bank_sha256")
                 and isinstance(replay.get("replay_validation_run_sha256"), str)
                 and replay.get("replay_validation_run_sha256") == replay.get("validation_run_sha256"))
        if replay.get("replay_equal") is not equal:
            self.add(REPLAY, A, self.pointer(index, "commitments", "replay_equal"),
                     "replay_equal is {stated} while the replayed hashes are {found}.",
                     stated=replay.get("replay_equal") is True, found=Label("equal" if equal else "different"))

    # -- retained samples ------------------------------------------------------------------------------------------
    def resource_samples(self) -> None:
        limit = as_int(self.policy.get("maximum_retained_resource_samples_per_phase"))
        for index, phase in enumerate(self.phases):
            samples = as_list(phase.get("resource_samples")) or []
            count = as_int(phase.get("resource_observation_count"))
            if limit is None or count is None or len(samples) > min(limit, count):
                self.add(RESOURCE_SAMPLE, A, self.pointer(index, "resource_samples"),
                         "The phase retains more resource samples than it observed or the policy allows.")
            bounds = [(field, as_int(phase.get(phase_field)), rel) for field, phase_field, rel in SAMPLE_BOUNDS]
            flagged: set[str] = set()
            retries = 0
            previous: dict[str, int] = {}
            for position, sample in enumerate(samples):
                sample = sample if isinstance(sample, dict) else {}
                for field, bound, relation in bounds:
                    value = as_int(sample.get(field))
                    bad = value is None or bound is None or (value > bound if relation == "le" else value < bound)
                    if bad and field not in flagged:
                        flagged.add(field)
                        self.add(RESOURCE_SAMPLE, A, self.pointer(index, "resource_samples", position, field),
                                 "A retained sample's {field} lies outside the phase's recorded extreme.",
                                 field=Label(field))
                total = as_int(sample.get("resource_acquisition_duration_ns"))
                for part in ("rss_acquisition_duration_ns", "filesystem_acquisition_duration_ns"):
                    value = as_int(sample.get(part))
                    if (value is None or total is None or value > total) and part not in flagged:
                        flagged.add(part)
                        self.add(RESOURCE_SAMPLE, A, self.pointer(index, "resource_samples", position, part),
                                 "A retained sample's {field} exceeds its whole acquisition time.", field=Label(part))
                retries += as_int(sample.get("resource_acquisition_retry_count")) or 0
                if not _gap_fits(sample, "resource_observation_wall_gap_ns", previous) and "gap" not in flagged:
                    flagged.add("gap")
                    self.add(RESOURCE_SAMPLE, A, self.pointer(index, "resource_samples", position,
                                                              "resource_observation_wall_gap_ns"),
                             "A retained sample's observation gap does not fit the time since the sample before it.")
                for field, strict in (("sequence", True), ("elapsed_ns", False), ("wall_elapsed_ns", False)):
                    value = as_int(sample.get(field))
                    before = previous.get(field)
                    if value is not None and before is not None and (value <= before if strict else value < before):
                        if "order:" + field not in flagged:
                            flagged.add("order:" + field)
                            self.add(RESOURCE_SAMPLE, A, self.pointer(index, "resource_samples", position, field),
                                     "Retained samples are out of order in {field}.", field=Label(field))
                    if value is not None:
                        previous[field] = value
            total_retries = as_int(phase.get("resource_acquisition_retry_count"))
            if total_retries is not None and retries > total_retries and "retries" not in flagged:
                self.add(RESOURCE_SAMPLE, A, self.pointer(index, "resource_acquisition_retry_count"),
                         "The retained samples retried more often than the phase's total.")

    def extremes(self) -> None:
        """Each phase summary figure equals the extreme (or last value) of the retained items it summarises."""
        record = self.ctx.collector.record
        for index, phase in enumerate(self.phases):
            for field, items_key, item_field, combine in EXTREMES:
                items = as_list(phase.get(items_key)) or []
                values = _int_column(items, item_field)
                stated = as_int(phase.get(field))
                pointer = self.pointer(index, field)
                recomputed: int | None
                if not values and combine != "last":
                    # Nothing retained: no extreme to recompute (the count rows, 0 without items, say if that is honest).
                    record(A, pointer, "capacity_phase_" + field, stated, None, False, evaluated=False)
                    continue
                if any(v is None for v in values):
                    recomputed = None
                elif combine == "last":
                    recomputed = values[-1] if values else 0
                else:
                    recomputed = (max if combine == "max" else min)(v for v in values if v is not None)
                ok = recomputed is not None and stated == recomputed
                record(A, pointer, "capacity_phase_" + field, stated, recomputed, ok)
                if not ok:
                    self.add(EXTREME, A, pointer, "{field} is not what the phase's retained {items} give.",
                             field=Label(field), items=Label(items_key))

    def checkpoints(self) -> None:
        cap = as_int(self.policy.get("maximum_checkpoints_per_phase"))
        signal_cap = as_int(self.policy.get("maximum_retained_progress_signals_per_phase"))
        for index, phase in enumerate(self.phases):
            problem = self._checkpoint_problem(phase, cap)
            if problem is not None:
                self.add(CHECKPOINT, A, self.pointer(index, problem[0]), problem[1])
            problem = self._signal_problem(phase, signal_cap)
            if problem is not None:
                self.add(CHECKPOINT, A, self.pointer(index, problem[0]), problem[1])

    @staticmethod
    def _checkpoint_problem(phase: dict[str, Any], cap: int | None) -> tuple[str, str] | None:
        samples = [s if isinstance(s, dict) else {} for s in as_list(phase.get("checkpoint_samples")) or []]
        count, records = as_int(phase.get("checkpoint_count")), as_int(phase.get("records"))
        elapsed = as_int(phase.get("elapsed_ns"))
        if count is None or cap is None or count != len(samples) or count > cap:
            return "checkpoint_count", "checkpoint_count is not the number of checkpoint samples within the policy cap."
        done, gap, times = 0, 0, {"elapsed_ns": 0, "wall_elapsed_ns": 0}
        for position, sample in enumerate(samples):
            completed = as_int(sample.get("completed_records"))
            if as_int(sample.get("sequence")) != position + 1 or completed is None or completed <= done:
                return "checkpoint_samples", "Checkpoints are not numbered 1, 2, 3 ... with increasing records."
            gap, done = max(gap, completed - done), completed
            for field in times:
                value = as_int(sample.get(field))
                if value is None or value < times[field] or elapsed is None or value > elapsed:
                    return "checkpoint_samples", "Checkpoint times do not increase within the phase's elapsed time."
                times[field] = value
        if samples and done != records:
            return "records", "The last checkpoint is not at the phase's records."
        if samples and gap != as_int(phase.get("maximum_checkpoint_gap_records")):
            return "maximum_checkpoint_gap_records", "The largest checkpoint step is not the recorded maximum gap."
        return None

    @staticmethod
    def _signal_problem(phase: dict[str, Any], cap: int | None) -> tuple[str, str] | None:
        """The first problem of the phase's retained progress signals (see :func:`_signal_problem_loop`), or None;
        the common case, every signal fine, is decided by :func:`_signals_fine` in C-level passes over columns."""
        if _signals_fine(phase, cap):
            return None
        return _Phases._signal_problem_loop(phase, cap)

    @staticmethod
    def _signal_problem_loop(phase: dict[str, Any], cap: int | None) -> tuple[str, str] | None:
        signals = [s if isinstance(s, dict) else {} for s in as_list(phase.get("progress_signals")) or []]
        count, records = as_int(phase.get("progress_signal_count")), as_int(phase.get("records"))
        worst = as_int(phase.get("maximum_progress_checkpoint_wall_gap_ns"))
        if count is None or cap is None or len(signals) > min(count, cap):
            return "progress_signals", "More progress signals are retained than were counted or the policy allows."
        sequence = 0
        previous: dict[str, int] = {}
        for signal in signals:
            current, completed = as_int(signal.get("sequence")), as_int(signal.get("completed_records"))
            gap = as_int(signal.get("progress_wall_gap_ns"))
            if current is None or current <= sequence or current > count:
                return "progress_signals", "Retained progress signals are not in sequence within the signal count."
            if not _gap_fits(signal, "progress_wall_gap_ns", previous):
                return "progress_signals", "A progress signal's wall gap does not fit the time since the one before it."
            sequence = current
            previous = {"sequence": current, "wall_elapsed_ns": as_int(signal.get("wall_elapsed_ns")) or 0}
            if completed is None or records is None or completed > records:
                return "progress_signals", "A progress signal counts more records than the phase processed."
            if gap is None or worst is None or gap > worst:
                return "maximum_progress_checkpoint_wall_gap_ns", "A progress signal's wall gap exceeds the worst gap."
        return None

    # -- execution identity ----------------------------------------------------------------------------------------
    def execution_identity(self) -> None:
        execution = self.execution
        runtime = as_dict(dig(self.report, "environment", "runtime")) or {}
        relevant = as_dict(execution.get("relevant_module_sha256")) or {}
        core = as_dict(execution.get("core_source_sha256")) or {}
        pairs: list[tuple[str, Any, Any]] = [
            ("/report/execution/runtime_environment_sha256", execution.get("runtime_environment_sha256"),
             _hash(runtime) if runtime else None),
            ("/report/execution/capacity_implementation_sha256", execution.get("capacity_implementation_sha256"),
             relevant.get("src/nerb/enron_capacity.py")),
            ("/report/environment/runtime/capacity_bootstrap/launcher_source_sha256",
             dig(runtime, "capacity_bootstrap", "launcher_source_sha256"),
             relevant.get("scripts/run_enron_capacity.py")),
            ("/report/environment/runtime/capacity_bootstrap/source_import_guard_sha256",
             dig(runtime, "capacity_bootstrap", "source_import_guard_sha256"), core.get("_capacity_bootstrap")),
            ("/report/environment/runtime/reader_phase_environment_policy_sha256",
             runtime.get("reader_phase_environment_policy_sha256"),
             self.policy.get("reader_phase_environment_policy_sha256")),
            ("/report/environment/runtime/reader_environment/critical_reader_versions",
             dig(runtime, "reader_environment", "critical_reader_versions"),
             self.policy.get("critical_reader_versions")),
            ("/report/environment/runtime/reader_environment/datasets_version",
             dig(runtime, "reader_environment", "datasets_version"), dig(self.policy, "critical_reader_versions",
                                                                         "datasets")),
        ]
        for key in ("native_build_source_sha256", "native_extension_build_source_sha256", "native_extension_sha256"):
            pairs.append((join(["report", "environment", "runtime", key]), runtime.get(key), execution.get(key)))
        for position, module in enumerate(core):
            pairs.append((join(["report", "execution", "core_source_sha256", key_segment(module, position)]),
                          core.get(module), relevant.get(f"src/nerb/{module}.py")))
        runners = as_dict(execution.get("runner_implementation_sha256")) or {}
        for index, phase in enumerate(self.phases):
            name = phase.get("phase")
            pairs.append((self.pointer(index, "executable_git_commit"), phase.get("executable_git_commit"),
                          execution.get("executable_git_commit")))
            pairs.append((self.pointer(index, "runner_implementation_sha256"),
                          phase.get("runner_implementation_sha256"),
                          runners.get(name) if isinstance(name, str) else None))
        for pointer, stated, expected in pairs:
            if expected is None or not same(stated, expected):
                self.add(EXECUTION_IDENTITY, A, pointer)


def _production(ctx: VerifyContext, report: dict[str, Any]) -> None:
    """The production requirements of the policy, when the report claims production evidence (see PRODUCTION)."""
    execution = as_dict(report.get("execution")) or {}
    if execution.get("production_evidence") is not True:
        return
    policy = as_dict(report.get("policy")) or {}
    runtime = as_dict(dig(report, "environment", "runtime")) or {}
    containment = as_dict(execution.get("process_containment")) or {}
    bootstrap = as_dict(runtime.get("capacity_bootstrap")) or {}
    reader = as_dict(runtime.get("reader_environment")) or {}
    system = runtime.get("kernel_system")
    layouts = as_list(bootstrap.get("dependency_root_layouts"))
    versions = as_dict(policy.get("critical_reader_versions"))
    expected: list[tuple[list[str], Any, Any]] = [
        (["execution", "monitor_interval_ns"], execution.get("monitor_interval_ns"),
         policy.get("production_monitor_interval_ns")),
        (["execution", "process_containment", "mode"], containment.get("mode"),
         dig(policy, "production_process_containment", system.lower()) if isinstance(system, str) else None),
        (["execution", "process_containment", "architecture"], containment.get("architecture"),
         runtime.get("architecture")),
        (["execution", "process_containment", "runtime_attested"], containment.get("runtime_attested"),
         policy.get("production_process_containment_runtime_attested")),
        (["execution", "process_containment", "installed_before_workload"],
         containment.get("installed_before_workload"), True),
        (["execution", "git_tree_clean"], execution.get("git_tree_clean"), True),
        (["execution", "fresh_worker"], execution.get("fresh_worker"), True),
        (["environment", "runtime", "capacity_bootstrap", "mode"], bootstrap.get("mode"), "isolated_site_disabled"),
        (["environment", "runtime", "capacity_bootstrap", "isolated"], bootstrap.get("isolated"), True),
        (["environment", "runtime", "capacity_bootstrap", "site_disabled"], bootstrap.get("site_disabled"), True),
        (["environment", "runtime", "capacity_bootstrap", "pth_processing"], bootstrap.get("pth_processing"), False),
        (["environment", "runtime", "capacity_bootstrap", "dependency_root_count"],
         bootstrap.get("dependency_root_count"), len(layouts) if layouts is not None else None),
        (["environment", "runtime", "reader_environment", "critical_reader_distribution_count"],
         reader.get("critical_reader_distribution_count"), len(versions) if versions is not None else None),
    ]
    for parts, stated, wanted in expected:
        if wanted is None or not same(stated, wanted):
            ctx.collector.add(PRODUCTION, A, join(["report", *parts]),
                              "The production claim needs {field} as the policy requires.", field=Label(parts[-1]))


def _int_column(items: list[Any], key: str) -> list[int | None]:
    """``[as_int(item.get(key)) if isinstance(item, dict) else None for item in items]``, by C-level passes when
    every item is an object holding an int there (the schema-valid case)."""
    if set(map(type, items)) <= {dict}:
        values = [item.get(key) for item in items]
        if set(map(type, values)) <= {int}:
            return values
    return [as_int(item.get(key)) if isinstance(item, dict) else None for item in items]


def _signals_fine(phase: dict[str, Any], cap: int | None) -> bool:
    """True only when :meth:`_Phases._signal_problem_loop` finds no problem: every retained progress signal is an
    object whose sequence, wall time, wall gap and completed records are ints; sequences rise strictly from above 0
    to at most the signal count; each gap equals the wall time since the signal before (the phase start for the
    first) when the two are consecutive and is at most that otherwise; no signal counts more records than the phase
    or a gap above the worst gap; and no more are retained than counted or allowed. Decided on whole columns
    (``map``, ``zip``, ``min``/``max``); False means: run the loop, which finds the first problem."""
    signals = as_list(phase.get("progress_signals"))
    count, records = as_int(phase.get("progress_signal_count")), as_int(phase.get("records"))
    worst = as_int(phase.get("maximum_progress_checkpoint_wall_gap_ns"))
    if not signals or count is None or cap is None or records is None or worst is None:
        return False
    if len(signals) > min(count, cap) or set(map(type, signals)) != {dict}:
        return False
    columns = []
    for key in ("sequence", "wall_elapsed_ns", "progress_wall_gap_ns", "completed_records"):
        column = [signal.get(key) for signal in signals]
        if set(map(type, column)) != {int}:
            return False
        columns.append(column)
    sequences, walls, gaps, completed = columns
    if sequences[0] <= 0 or sequences[-1] > count or not all(map(operator.lt, sequences, sequences[1:])):
        return False
    if max(completed) > records or max(gaps) > worst:
        return False
    since = list(map(operator.sub, walls, [0, *walls[:-1]]))
    follows = map(operator.eq, sequences, [1, *[sequence + 1 for sequence in sequences[:-1]]])
    return all([gap == span if consecutive else gap <= span for gap, span, consecutive in zip(gaps, since, follows)])


def _gap_fits(item: dict[str, Any], gap_key: str, previous: dict[str, int]) -> bool:
    """A retained observation's gap is the wall time since the observation just before it (the phase start for
    the first). The one retained before it is at least that far back, so gap <= wall - previous retained wall,
    with equality when the two are consecutive in sequence."""
    gap, wall, sequence = as_int(item.get(gap_key)), as_int(item.get("wall_elapsed_ns")), as_int(item.get("sequence"))
    if gap is None or wall is None or sequence is None:
        return False
    before_wall, before_sequence = previous.get("wall_elapsed_ns", 0), previous.get("sequence", 0)
    since = wall - before_wall
    return gap == since if sequence == before_sequence + 1 else gap <= since


def _field(key: str) -> Label:
    """A commitment name for a message: the key itself when it is schema vocabulary, else a fixed word."""
    return Label(key if key in known_keys() else "a commitment")


def run(ctx: VerifyContext, report: dict[str, Any]) -> None:
    """Check the phases of a schema-valid capacity report (see module docstring)."""
    phases = _Phases(ctx, report)
    phases.commitment_hashes()
    phases.chain()
    phases.conservation()
    phases.replay()
    phases.resource_samples()
    phases.extremes()
    phases.checkpoints()
    phases.execution_identity()
    _production(ctx, report)
    ctx.collector.ran("capacity.phases", phases=len(phases.phases))


def gate_facts(report: dict[str, Any]) -> dict[str, bool]:
    """Gates that are a plain reading of the report: each maps to whether its fact holds.

    ``replay_equal``: the deep replay says its replay was equal; ``preseal_access_count_zero``: no phase counts a
    pre-seal access; ``sealed_test_unaccessed`` / ``sealed_state_unbound``: no phase nor the privacy block says the
    sealed test was accessed or bound; ``private_tombstone_bound``: pre-existing private tombstones are within the
    policy's retention limit.
    """
    commitments = [as_dict(dig(p, "commitments")) or {} for p in as_list(report.get("phases")) or []]
    privacy = as_dict(report.get("privacy")) or {}
    policy = as_dict(report.get("policy")) or {}

    def every(key: str, expected: Any, include_privacy: bool = False) -> bool:
        values = [c[key] for c in commitments if key in c] + ([privacy.get(key)] if include_privacy else [])
        return bool(values) and all(same(v, expected) for v in values)

    tombstones = as_int(dig(report, "environment", "preexisting_private_tombstone_count"))
    tombstone_cap = as_int(policy.get("maximum_retained_private_tombstones"))
    return {
        "replay_equal": every("replay_equal", True),
        "preseal_access_count_zero": every("preseal_access_count", 0),
        "sealed_test_unaccessed": every("sealed_test_accessed", False, include_privacy=True),
        "sealed_state_unbound": every("sealed_state", "sealed_unbound", include_privacy=True),
        "private_tombstone_bound": tombstones is not None and tombstone_cap is not None and tombstones <= tombstone_cap,
    }
