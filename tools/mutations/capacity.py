"""Broken fixtures for the capacity family (capacity-decision.json), hash-aware.

Most cases edit one field and then run the ``capacity_internal_seal`` transform, which recomputes the capacity
file's *internal* hashes (report run hash and size, receipt hashes and links, terminal copy, attestation) the way a
careful forger would, so only the semantic problem under test remains; ``reseal`` then refreshes decision_sha256 and
the publication list. ``keep`` names internal steps to skip so the broken hash itself survives.
"""

from __future__ import annotations

import json
from pathlib import Path

from nerb_verify.canonical import nerb_pretty_bytes, python_canonical_sha256, self_hash

FILE = "capacity-decision.json"
OTHER = "sha256:" + "6" * 64


def capacity_internal_seal(bundle_dir: Path, keep: list[str] | None = None) -> None:
    """Recompute the capacity decision's internal hashes except the steps named in ``keep``."""
    keep = keep or []
    path = bundle_dir / FILE
    decision = json.loads(path.read_text(encoding="utf-8"))
    report = decision["report"]
    if "report_bytes" not in keep:
        for _ in range(3):  # the size field is part of the report; iterate to a fixed point
            size = len(json.dumps(report, sort_keys=True, indent=2, ensure_ascii=False).encode("utf-8")) + 1
            report["totals"]["report_bytes"] = size
    report["run_sha256"] = self_hash(report, "run_sha256")
    chain = decision["attempt_chain"]
    chain[-1]["report_sha256"] = report["run_sha256"]
    previous = None
    for receipt in chain:
        receipt["previous_attempt_sha256"] = previous
        if "attempt_hashes" not in keep:
            receipt["attempt_sha256"] = self_hash(receipt, "attempt_sha256")
        previous = receipt["attempt_sha256"]
    if "terminal" not in keep:
        decision["terminal_attempt"] = json.loads(json.dumps(chain[-1]))
    else:
        terminal = decision["terminal_attempt"]
        terminal["attempt_sha256"] = self_hash(terminal, "attempt_sha256")
    att = decision["attestation"]
    att["report_sha256"] = report["run_sha256"]
    att["attempt_chain_sha256"] = python_canonical_sha256(chain)
    att["terminal_attempt_sha256"] = decision["terminal_attempt"]["attempt_sha256"]
    att["sha256"] = self_hash(att, "sha256")
    path.write_bytes(nerb_pretty_bytes(decision))


TRANSFORMS = {"capacity_internal_seal": capacity_internal_seal}


def _seal(keep: list[str] | None = None) -> dict:
    return {"op": "json_edit", "transform": "capacity_internal_seal", "args": {"keep": keep or []}}


def _set(pointer: str, value: object) -> dict:
    return {"op": "json_set", "file": FILE, "pointer": pointer, "value": value}


def _case(code: str, slug: str, ops: list, description: str, **extra: object) -> dict:
    case = {"code": code, "slug": slug, "base": "nerb-enron", "ops": ops, "reseal": True,
            "description": description, "expect": {"codes": [code]}}
    case.update(extra)
    return case


CASES = [
    {"code": "capacity.decision_hash_mismatch", "slug": "decision-hash-zeroed", "base": "nerb-enron", "ops": [],
     "reseal": False, "post_ops": [_set("/decision_sha256", "sha256:" + "0" * 64)], "post_seal": ["publication"],
     "description": "decision_sha256 no longer seals the file (publication list refreshed).",
     "expect": {"codes": ["capacity.decision_hash_mismatch"]}},
    _case("capacity.report_hash_mismatch", "run-hash-replaced", [_set("/report/run_sha256", OTHER)],
          "The report's run_sha256 is not its canonical hash."),
    _case("capacity.report_bytes_mismatch", "report-size-off-by-one",
          [_set("/report/totals/report_bytes", 1808084), _seal(["report_bytes"])],
          "The report claims one byte more than it has (internal hashes resealed)."),
    _case("capacity.policy_hash_mismatch", "policy-edited-and-rehashed",
          [{"op": "json_edit", "transform": "capacity_policy_edit"}, _seal()],
          "A policy constant changed and every hash was recomputed: the policy is no longer NERB's published one."),
    _case("capacity.attempt_hash_mismatch", "failed-attempt-edited",
          [_set("/attempt_chain/2/elapsed_ns", 1), _seal(["attempt_hashes"])],
          "A failed attempt's elapsed time was edited after its receipt was sealed."),
    _case("capacity.attempt_chain_broken", "sequence-skips", [_set("/attempt_chain/3/sequence", 5), _seal()],
          "Receipt 4 is numbered 5 (hashes recomputed)."),
    _case("capacity.attempt_nonce_reused", "nonce-copied",
          [{"op": "json_copy", "file": FILE, "from": "/attempt_chain/0/attempt_nonce_sha256",
            "pointer": "/attempt_chain/1/attempt_nonce_sha256"}, _seal()],
          "Two receipts share one nonce (hashes recomputed)."),
    _case("capacity.attempt_outcome_invalid", "failed-without-code", [_set("/attempt_chain/0/failure_code", None),
                                                                       _seal()],
          "A failed receipt names no failure code."),
    _case("capacity.attempt_bounds_exceeded", "runtime-over-four-hours",
          [_set("/attempt_chain/6/elapsed_ns", 14400000000001), _seal()],
          "The passing attempt ran longer than the 4-hour bound."),
    _case("capacity.terminal_attempt_mismatch", "terminal-differs-from-last",
          [_set("/terminal_attempt/recovered_from_inflight", True), _seal(["terminal"])],
          "The terminal attempt is not the chain's last receipt (its own hash recomputed)."),
    _case("capacity.terminal_binding_mismatch", "runtime-environment-differs",
          [_set("/attempt_chain/6/runtime_environment_sha256", OTHER), _seal()],
          "The passing receipt names another runtime environment than the report's execution."),
    _case("capacity.attestation_mismatch", "native-binary-differs",
          [_set("/attestation/native_binary_sha256", OTHER), _seal()],
          "The attestation names another native binary than the report (attestation resealed)."),
    _case("capacity.verification_scope_mismatch", "scope-hash-zeroed",
          [_set("/verification_scope/sha256", "sha256:" + "0" * 64)],
          "The verification scope's own hash does not seal it."),
    _case("capacity.privacy_mismatch", "privacy-hash-zeroed", [_set("/privacy/privacy_sha256", "sha256:" + "0" * 64)],
          "The capacity privacy block's own hash does not seal it."),
    _case("capacity.gates_failed", "owned-disk-gate-false", [_set("/report/gates/owned_disk", False), _seal()],
          "One capacity gate is false (report size and hashes recomputed)."),
    _case("capacity.report_arithmetic_mismatch", "phase-rate-edited",
          [_set("/report/phases/1/throughput_milli_records_per_second", 218074), _seal()],
          "The split phase's rate is one milli-record per second above what its records and time give."),
    _case("capacity.gate_unsupported", "preflight-disk-below-minimum",
          [_set("/report/environment/preflight_free_disk_bytes", 26843545599), _seal()],
          "The preflight free-disk gate passes although free disk was one byte below the policy minimum."),
    _case("capacity.evidence_binding_mismatch", "test-records-differ",
          [_set("/report/phases/2/commitments/test_records", 51705), _seal()],
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

