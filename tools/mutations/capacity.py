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
    _case("capacity.policy_hash_mismatch", "policy-edited-and-rehashed",
          [{"op": "json_edit", "transform": "capacity_policy_edit"}],
          "A policy constant changed and every hash was recomputed: the policy is no longer NERB's published one."),
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
    _case("capacity.evidence_binding_mismatch", "test-records-differ",
          [_set(BUILD + "/commitments/test_records", 51705)],
          "The build phase records another test-role size than the evidence."),
]


def capacity_policy_edit(bundle_dir: Path) -> None:
    """Change one policy constant and recompute the policy hash on the policy and the passing receipt."""
    path = bundle_dir / FILE
    decision = json.loads(path.read_text(encoding="utf-8"))
    policy = decision["report"]["policy"]
    policy["activity_record_interval"] = 1001
    policy["policy_sha256"] = self_hash(policy, "policy_sha256")
    decision["attempt_chain"][-1]["policy_sha256"] = policy["policy_sha256"]
    path.write_bytes(nerb_pretty_bytes(decision))


TRANSFORMS["capacity_policy_edit"] = capacity_policy_edit

