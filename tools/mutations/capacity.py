"""Broken fixtures for the capacity family (capacity-decision.json), hash-aware.

``reseal: true`` runs :func:`nerb_verify.seal.seal_bundle`, which recomputes the capacity file's *whole internal
chain* bottom-up (:func:`nerb_verify.seal_capacity.seal_capacity_decision`: phase commitments, privacy-scan chain,
runtime hash, report size and run hash, the passing receipt's hash copies, receipt links and hashes, terminal copy,
attestation, scope, privacy, decision hash) the way a forger who rewrote the file would, so only the semantic problem
under test remains. Cases about one stale internal hash run the ``capacity_internal_seal`` transform with ``keep``
naming the steps to skip, without the full reseal, and refresh only the publication list.

Coherent forgeries edit a value *and* everything derived from it: ``capacity_restate`` sets a commitment in every
phase that carries it (so the phase-to-phase chain stays intact), and a case lists every other field the forger
would change with it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nerb_verify.canonical import nerb_pretty_bytes, self_hash
from nerb_verify.seal_capacity import STEPS, seal_capacity_decision

FILE = "capacity-decision.json"
OTHER = "sha256:" + "6" * 64


def _edit_file(bundle_dir: Path, fn: Any) -> None:
    path = bundle_dir / FILE
    decision = json.loads(path.read_text(encoding="utf-8"))
    fn(decision)
    path.write_bytes(nerb_pretty_bytes(decision))


def capacity_internal_seal(bundle_dir: Path, keep: list[str] | None = None) -> None:
    """Recompute the capacity decision's internal hashes except the steps named in ``keep``."""
    _edit_file(bundle_dir, lambda decision: seal_capacity_decision(decision, skip=keep or []))


def capacity_restate(bundle_dir: Path, key: str, value: Any) -> None:
    """Set commitment ``key`` to ``value`` in every phase that carries it (a coherent restatement)."""
    def edit(decision: dict[str, Any]) -> None:
        for phase in decision["report"]["phases"]:
            if key in phase["commitments"]:
                phase["commitments"][key] = value
    _edit_file(bundle_dir, edit)


TRANSFORMS = {"capacity_internal_seal": capacity_internal_seal, "capacity_restate": capacity_restate}


def _seal(keep: list[str] | None = None) -> dict:
    return {"op": "json_edit", "transform": "capacity_internal_seal", "args": {"keep": keep or []}}


def _set(pointer: str, value: object) -> dict:
    return {"op": "json_set", "file": FILE, "pointer": pointer, "value": value}


def _case(code: str, slug: str, ops: list, description: str, **extra: object) -> dict:
    case = {"code": code, "slug": slug, "base": "nerb-enron", "ops": ops, "reseal": True,
            "description": description, "expect": {"codes": [code]}}
    case.update(extra)
    return case


def _stale(code: str, slug: str, ops: list, keep: list[str], description: str, **extra: object) -> dict:
    """A case that leaves the ``keep`` internal hashes stale: no full reseal, publication list refreshed."""
    return _case(code, slug, ops + [_seal(keep)], description, reseal=False, post_seal=["publication"], **extra)


def _restate(key: str, value: object) -> dict:
    return {"op": "json_edit", "transform": "capacity_restate", "args": {"key": key, "value": value}}


ONLY_DECISION_HASH = [step for step in STEPS if step != "decision_sha256"]
PREP, SPLIT, BUILD, STREAM, REPLAY = (f"/report/phases/{i}" for i in range(5))

CASES = [
    {"code": "capacity.decision_hash_mismatch", "slug": "decision-hash-zeroed", "base": "nerb-enron", "ops": [],
     "reseal": False, "post_ops": [_set("/decision_sha256", "sha256:" + "0" * 64)], "post_seal": ["publication"],
     "description": "decision_sha256 no longer seals the file (publication list refreshed).",
     "expect": {"codes": ["capacity.decision_hash_mismatch"]}},
    _stale("capacity.report_hash_mismatch", "run-hash-replaced", [_set("/report/run_sha256", OTHER)],
           ONLY_DECISION_HASH, "The report's run_sha256 is not its canonical hash (only the decision hash resealed)."),
    _stale("capacity.report_bytes_mismatch", "report-size-off-by-one", [_set("/report/totals/report_bytes", 1808084)],
           ["report_bytes"], "The report claims one byte more than it has (every other internal hash resealed)."),
    _stale("capacity.policy_hash_mismatch", "policy-hash-replaced", [_set("/report/policy/policy_sha256", OTHER)],
           ["policy_sha256"], "The policy's policy_sha256 is not its canonical hash (every other internal hash, the "
           "passing receipt's copy included, resealed)."),
    _case("capacity.policy_protocol_mismatch", "checkpoint-gap-bound-loosened",
          [{"op": "json_edit", "transform": "capacity_policy_edit",
            "args": {"key": "maximum_checkpoint_record_gap", "value": 20000}}],
          "A protocol bound of the policy (the checkpoint record gap, 10,000 -> 20,000) was loosened and every hash "
          "recomputed: the corpus may be another one, the protocol may not."),
    _case("capacity.policy_protocol_mismatch", "activity-interval-edited",
          [{"op": "json_edit", "transform": "capacity_policy_edit",
            "args": {"key": "activity_record_interval", "value": 1001}}],
          "A protocol interval of the policy changed and every hash was recomputed."),
    _case("capacity.policy_corpus_mismatch", "reader-version-restated",
          [{"op": "json_edit", "transform": "capacity_reader_version", "args": {"version": "26.0.0"}}],
          "The published benchmark's policy and runtime coherently name another pyarrow version than the published "
          "corpus's reader (resealed): on the published benchmark the corpus fields are the published ones."),
    _case("capacity.policy_corpus_mismatch", "other-revision-everywhere-on-real-kind",
          [{"op": "json_edit", "transform": "capacity_other_revision", "args": {"synthetic": False}}],
          "Manifest, evidence, bank card, every capacity phase and the policy coherently name another revision of "
          "the published dataset while the bundle stays real_benchmark (resealed): the published benchmark binds "
          "the published revision."),
    _case("capacity.policy_corpus_mismatch", "own-corpus-bound-is-valid-control",
          [{"op": "json_edit", "transform": "capacity_other_revision", "args": {"synthetic": True}}],
          "Valid control: the same coherent revision change on a bundle that says synthetic_fixture (manifest and "
          "evidence) binds the corpus fields to its own source, so it verifies.",
          expect={"verdict": "verified", "codes": []}),
    _stale("capacity.attempt_hash_mismatch", "failed-attempt-edited", [_set("/attempt_chain/2/elapsed_ns", 1)],
           ["attempt_hashes"], "A failed attempt's elapsed time was edited after its receipt was sealed."),
    _case("capacity.attempt_chain_broken", "sequence-skips", [_set("/attempt_chain/3/sequence", 5)],
          "Receipt 4 is numbered 5 (resealed)."),
    _case("capacity.attempt_nonce_reused", "nonce-copied",
          [{"op": "json_copy", "file": FILE, "from": "/attempt_chain/0/attempt_nonce_sha256",
            "pointer": "/attempt_chain/1/attempt_nonce_sha256"}],
          "Two receipts share one nonce (resealed)."),
    _case("capacity.attempt_outcome_invalid", "failed-without-code", [_set("/attempt_chain/0/failure_code", None)],
          "A failed receipt names no failure code (resealed)."),
    _case("capacity.attempt_bounds_exceeded", "runtime-over-four-hours",
          [_set("/attempt_chain/6/elapsed_ns", 14400000000001)],
          "The passing attempt ran longer than the 4-hour bound (resealed)."),
    _stale("capacity.terminal_attempt_mismatch", "terminal-differs-from-last",
           [_set("/terminal_attempt/recovered_from_inflight", True)], ["terminal"],
           "The terminal attempt is not the chain's last receipt (its own hash recomputed)."),
    _stale("capacity.terminal_binding_mismatch", "runtime-environment-differs",
           [_set("/attempt_chain/6/runtime_environment_sha256", OTHER)], ["terminal_receipt"],
           "The passing receipt names another runtime environment than the report's execution (receipt resealed)."),
    _case("capacity.attestation_mismatch", "native-binary-differs",
          [_set("/attestation/native_binary_sha256", OTHER)],
          "The attestation names another native binary than the report (attestation resealed)."),
    _stale("capacity.verification_scope_mismatch", "scope-hash-zeroed",
           [_set("/verification_scope/sha256", "sha256:" + "0" * 64)], ["verification_scope_sha256"],
           "The verification scope's own hash does not seal it."),
    _stale("capacity.privacy_mismatch", "privacy-hash-zeroed", [_set("/privacy/privacy_sha256", "sha256:" + "0" * 64)],
           ["privacy_sha256"], "The capacity privacy block's own hash does not seal it."),
    _case("capacity.gates_failed", "owned-disk-gate-false", [_set("/report/gates/owned_disk", False)],
          "One capacity gate is false (resealed)."),
    _case("capacity.report_arithmetic_mismatch", "phase-rate-edited",
          [_set(SPLIT + "/throughput_milli_records_per_second", 218074)],
          "The split phase's rate is one milli-record per second above what its records and time give."),
    _case("capacity.gate_unsupported", "preflight-disk-below-minimum",
          [_set("/report/environment/preflight_free_disk_bytes", 26843545599)],
          "The preflight free-disk gate passes although free disk was one byte below the policy minimum."),
    # -- coherent forgeries: a value and everything derived from it, every internal hash resealed ----------------
    _case("capacity.resource_sample_mismatch", "sample-above-phase-peak",
          [_set(PREP + "/resource_samples/5/process_tree_rss_bytes", 1547223041)],
          "A retained resource sample of the preparation phase is one byte above the phase's recorded peak RSS "
          "(the round-1 miss: resealed, it verified); the peak is then not the samples' maximum either.",
          expect={"codes": ["capacity.phase_extreme_mismatch", "capacity.resource_sample_mismatch"]}),
    _case("capacity.phase_extreme_mismatch", "phase-peak-raised-coherently",
          [_set(REPLAY + "/peak_process_tree_rss_bytes", 3122921473),
           _set("/report/totals/peak_process_tree_rss_bytes", 3122921473),
           _set("/attempt_chain/6/peak_process_tree_rss_bytes", 3122921473)],
          "The deep replay's peak RSS is one byte above every retained sample, with the report total and the "
          "passing receipt raised to match (resealed): no retained sample attains the stated peak."),
    _case("capacity.phase_extreme_mismatch", "observation-count-raised",
          [_set(SPLIT + "/resource_observation_count", 22049)],
          "The split phase counts one resource observation more than its last retained sample's sequence "
          "(resealed)."),
    _case("capacity.privacy_mismatch", "report-declares-document-ids",
          [_set("/report/privacy/document_ids_included", True)],
          "The capacity report's own privacy block declares that it includes document ids (resealed)."),
    _stale("capacity.report_arithmetic_mismatch", "pre-report-owned-disk-nudged",
           [_set("/report/totals/pre_report_owned_disk_bytes", 14001573673)], ["pre_report_owned_disk_bytes"],
           "The pre-report owned disk is one byte more than the final owned disk minus the report file and the "
           "commit marker (every hash resealed)."),
    _stale("capacity.commitment_hash_mismatch", "phase-commitment-edited",
           [_set(REPLAY + "/commitments/privacy_scan_sha256", OTHER)], ["commitments_sha256"],
           "The deep-replay phase's privacy-scan commitment changed (privacy chain, report and receipts resealed), "
           "but its commitments_sha256 was left as published."),
    _case("capacity.commitment_chain_broken", "replay-restates-other-evaluator",
          [_set(REPLAY + "/commitments/evaluator_sha256", OTHER)],
          "The deep-replay phase restates another evaluator than the build and validation phases it replays "
          "(resealed)."),
    _case("capacity.conservation_mismatch", "rejected-rows-restated",
          [_restate("rejected_source_rows", 223)],
          "Every phase restates 223 rejected source rows (coherently), so input rows no longer equal prepared plus "
          "rejected rows (resealed)."),
    _case("capacity.replay_mismatch", "replay-bank-differs",
          [_set(REPLAY + "/commitments/replay_bank_sha256", OTHER)],
          "The deep replay rebuilt another bank than the build phase while replay_equal and its gate stay true "
          "(resealed)."),
    _case("capacity.evidence_binding_mismatch", "test-artifact-restated",
          [_restate("test_artifact_sha256", OTHER)],
          "Every phase from split on restates another sealed test artifact than the evidence's (resealed)."),
    _case("capacity.evidence_binding_mismatch", "bank-size-physical-for-canonical",
          [_restate("bank_canonical_json_bytes", 35863690)],
          "The capacity phases record the bank's physical artifact size as its canonical JSON size (resealed)."),
    _case("capacity.evidence_binding_mismatch", "source-revision-elsewhere",
          [{"op": "json_set", "file": name, "pointer": pointer, "value": "0123456789abcdef0123456789abcdef01234567"}
           for name, pointer in (("benchmark-evidence.json", "/source/revision"),
                                 ("benchmark-manifest.json", "/source/revision"),
                                 ("bank-card.json", "/source/dataset_revision"))],
          "Manifest, evidence and bank card coherently name another source revision than the one the capacity run "
          "read (and its pinned policy names); resealed."),
    _case("capacity.evidence_binding_mismatch", "active-patterns-restated",
          [_restate("active_pattern_count", 13202), _restate("active_name_count", 13202)],
          "Every phase from build on restates one more active pattern and name than the evidence (resealed)."),
    _case("capacity.conservation_mismatch", "replay-records-inflated",
          [_set(REPLAY + "/records", 465476), _set(REPLAY + "/throughput_milli_records_per_second", 724505),
           _set(REPLAY + "/checkpoint_samples/46/completed_records", 465476)],
          "The deep replay claims one record more than train plus validation, with its rate and last checkpoint "
          "recomputed to match (resealed)."),
    _case("capacity.commitment_chain_broken", "privacy-block-other-sealed-state",
          [_set("/report/privacy/sealed_access_state_sha256", OTHER)],
          "The report's privacy block names another sealed-access state than every phase commits to (resealed)."),
    _case("capacity.checkpoint_mismatch", "checkpoint-step-above-recorded-gap",
          [_set(SPLIT + "/checkpoint_samples/3/completed_records", 40001)],
          "A split checkpoint lands one record late, so one step exceeds the phase's recorded worst record gap "
          "(resealed)."),
    _case("capacity.execution_identity_mismatch", "core-module-hash-differs",
          [_set("/report/execution/core_source_sha256/engine", OTHER)],
          "The execution's core-source hash for one module is not that module's recorded source hash (execution "
          "hash on the passing receipt resealed)."),
    _case("capacity.gate_unsupported", "preseal-access-counted",
          [_restate("preseal_access_count", 1)],
          "Every phase counts one pre-seal access of the sealed test while preseal_access_count_zero stays true "
          "(resealed)."),
    _case("capacity.gate_unsupported", "peak-above-maximum-peak",
          [_set(STREAM + "/peak_process_tree_rss_bytes", 7516192768),
           _set(STREAM + "/resource_samples/100/process_tree_rss_bytes", 7516192768),
           _set("/report/totals/peak_process_tree_rss_bytes", 7516192768),
           _set("/attempt_chain/6/peak_process_tree_rss_bytes", 7516192768)],
          "A phase peaked at 7 GiB, above the 6 GiB maximum peak, with a retained sample, the totals and the passing "
          "receipt raised to match, while the peak_rss gate stays true (resealed)."),
    _case("capacity.report_arithmetic_mismatch", "maximum-peak-raised-to-cap",
          [_set("/report/environment/maximum_peak_rss_bytes", 8589934592),
           _set("/attempt_chain/6/maximum_peak_rss_bytes", 8589934592)],
          "The maximum peak RSS is raised to the whole effective cap (not three quarters of it), in the report and "
          "the passing receipt (resealed)."),
    _case("capacity.attestation_mismatch", "reader-environment-differs",
          [_set("/attestation/reader_environment_sha256", OTHER)],
          "The attestation names another source-reader environment than the preparation phase used (resealed)."),
    _case("capacity.production_policy_mismatch", "production-run-from-dirty-tree",
          [_set("/report/execution/git_tree_clean", False)],
          "The report still claims production evidence while its execution says the git tree was dirty "
          "(execution hash on the passing receipt resealed)."),
    _case("capacity.terminal_binding_mismatch", "tombstones-differ",
          [_set("/report/environment/preexisting_private_tombstone_count", 4)],
          "The report counts another number of pre-existing private tombstones than its passing receipt "
          "(resealed)."),
]


def capacity_policy_edit(bundle_dir: Path, key: str, value: Any) -> None:
    """Change one policy field and recompute the policy hash on the policy and the passing receipt."""
    path = bundle_dir / FILE
    decision = json.loads(path.read_text(encoding="utf-8"))
    policy = decision["report"]["policy"]
    policy[key] = value
    policy["policy_sha256"] = self_hash(policy, "policy_sha256")
    decision["attempt_chain"][-1]["policy_sha256"] = policy["policy_sha256"]
    path.write_bytes(nerb_pretty_bytes(decision))


def capacity_reader_version(bundle_dir: Path, version: str) -> None:
    """Name another pyarrow version in the policy and in the runtime's reader environment (coherently)."""
    def edit(decision: dict[str, Any]) -> None:
        report = decision["report"]
        report["policy"]["critical_reader_versions"]["pyarrow"] = version
        report["environment"]["runtime"]["reader_environment"]["critical_reader_versions"]["pyarrow"] = version
    _edit_file(bundle_dir, edit)


OTHER_REVISION = "0123456789abcdef0123456789abcdef01234567"


def capacity_other_revision(bundle_dir: Path, synthetic: bool) -> None:
    """Another source revision everywhere it is stated (manifest, evidence, card, every phase, the policy); with
    ``synthetic`` the manifest and the evidence also say synthetic_fixture."""
    for name, pointer in (("benchmark-manifest.json", ("source", "revision")),
                          ("benchmark-evidence.json", ("source", "revision")),
                          ("bank-card.json", ("source", "dataset_revision"))):
        path = bundle_dir / name
        document = json.loads(path.read_text(encoding="utf-8"))
        document[pointer[0]][pointer[1]] = OTHER_REVISION
        if synthetic and name != "bank-card.json":
            document["artifact_kind"] = "synthetic_fixture"
        path.write_bytes(nerb_pretty_bytes(document))

    def edit(decision: dict[str, Any]) -> None:
        decision["report"]["policy"]["dataset_revision"] = OTHER_REVISION
        for phase in decision["report"]["phases"]:
            phase["commitments"]["dataset_revision"] = OTHER_REVISION
    _edit_file(bundle_dir, edit)


TRANSFORMS["capacity_policy_edit"] = capacity_policy_edit
TRANSFORMS["capacity_reader_version"] = capacity_reader_version
TRANSFORMS["capacity_other_revision"] = capacity_other_revision

