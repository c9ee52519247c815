"""Recompute every internal hash of a portable capacity decision, bottom-up, the way a forger who rewrote it would.

``capacity-decision.json`` seals itself in layers: each phase's ``commitments_sha256`` covers its commitments; the
report's privacy block chains the phases' privacy-scan hashes; the execution block hashes the runtime environment;
the report records its own size (and so the owned disk before it was written) and ``run_sha256``; the passing (last) receipt names the report, execution and
policy hashes; every receipt hashes itself and links to its predecessor; the terminal attempt copies the last
receipt; the attestation names the report, chain and terminal hashes and the source inventory; the scope and privacy
blocks hash themselves; ``decision_sha256`` covers everything. :func:`seal_capacity_decision` recomputes all of them
in that order, so an edit anywhere inside the file can be resealed and only the semantic checks can catch it.

Each step has a name; ``skip`` leaves the named steps out, so a fixture can keep exactly one stale hash. The function
never raises on a malformed decision: a part it cannot hash keeps its value (the verifier reports it).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from nerb_verify.canonical import python_canonical_sha256, self_hash

STEPS = (
    "policy_sha256", "commitments_sha256", "privacy_scan_chain_sha256", "runtime_environment_sha256",
    "report_bytes", "pre_report_owned_disk_bytes", "run_sha256", "terminal_receipt", "attempt_hashes", "terminal", "attestation",
    "verification_scope_sha256", "privacy_sha256", "decision_sha256",
)
_ERRORS = (TypeError, ValueError, KeyError, AttributeError, RecursionError)


def _dict(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _hash(value: Any) -> str | None:
    try:
        return python_canonical_sha256(value)
    except _ERRORS:
        return None


def _self(obj: dict[str, Any], key: str) -> None:
    try:
        obj[key] = self_hash(obj, key)
    except _ERRORS:
        pass


def _phases(report: dict[str, Any]) -> list[dict[str, Any]]:
    phases = report.get("phases")
    return [p for p in phases if isinstance(p, dict)] if isinstance(phases, list) else []


# Bytes of the commit marker the run writes into the owned tree after the report (capacity.COMMIT_MARKER_BYTES).
_COMMIT_MARKER_BYTES = 26


def _report_size(report: dict[str, Any], skip: frozenset[str]) -> None:
    """totals.report_bytes: the report's length in NERB's pretty form plus a newline; and the pre-report owned disk
    that follows from it (final owned disk - report - commit marker). Iterated to a fixed point, since each value's
    digits count towards the size."""
    totals = _dict(report.get("totals"))
    if totals is None:
        return
    for _ in range(6):
        try:
            size = len(json.dumps(report, sort_keys=True, indent=2, ensure_ascii=False,
                                  allow_nan=False).encode("utf-8")) + 1
        except _ERRORS:
            return
        wanted: dict[str, Any] = {}
        if "report_bytes" not in skip:
            wanted["report_bytes"] = size
        final = totals.get("final_owned_disk_bytes")
        if "pre_report_owned_disk_bytes" not in skip and isinstance(final, int) and not isinstance(final, bool):
            wanted["pre_report_owned_disk_bytes"] = final - size - _COMMIT_MARKER_BYTES
        if all(totals.get(key) == value for key, value in wanted.items()):
            return
        totals.update(wanted)


def _report(report: dict[str, Any], skip: frozenset[str]) -> None:
    """The report's layers: policy, phase commitments, privacy chain, runtime environment, size, run hash."""
    policy = _dict(report.get("policy"))
    if policy is not None and "policy_sha256" not in skip:
        _self(policy, "policy_sha256")
    phases = _phases(report)
    if "commitments_sha256" not in skip:
        for phase in phases:
            value = _hash(phase.get("commitments")) if isinstance(phase.get("commitments"), dict) else None
            if value is not None:
                phase["commitments_sha256"] = value
    privacy = _dict(report.get("privacy"))
    if privacy is not None and "privacy_scan_chain_sha256" not in skip:
        scans = [(_dict(p.get("commitments")) or {}).get("privacy_scan_sha256") for p in phases]
        value = _hash(scans)
        if value is not None:
            privacy["privacy_scan_chain_sha256"] = value
    execution = _dict(report.get("execution"))
    runtime = _dict((_dict(report.get("environment")) or {}).get("runtime"))
    if execution is not None and runtime is not None and "runtime_environment_sha256" not in skip:
        value = _hash(runtime)
        if value is not None:
            execution["runtime_environment_sha256"] = value
    _report_size(report, skip)
    if "run_sha256" not in skip:
        _self(report, "run_sha256")


def _chain(decision: dict[str, Any], report: dict[str, Any], skip: frozenset[str]) -> None:
    """The passing receipt's hash copies, every receipt's link and self hash, the terminal copy."""
    chain = decision.get("attempt_chain")
    if not isinstance(chain, list):
        return
    last = _dict(chain[-1]) if chain else None
    if last is not None and "terminal_receipt" not in skip and last.get("outcome") == "passed":
        execution = _dict(report.get("execution")) or {}
        copies = {"report_sha256": report.get("run_sha256"), "execution_sha256": _hash(execution),
                  "policy_sha256": (_dict(report.get("policy")) or {}).get("policy_sha256"),
                  "runtime_environment_sha256": execution.get("runtime_environment_sha256")}
        for key, value in copies.items():
            if isinstance(value, str):
                last[key] = value
    if "attempt_hashes" not in skip:
        previous = None
        for receipt in chain:
            if not isinstance(receipt, dict):
                previous = None
                continue
            receipt["previous_attempt_sha256"] = previous
            _self(receipt, "attempt_sha256")
            previous = receipt.get("attempt_sha256")
    terminal = _dict(decision.get("terminal_attempt"))
    if "terminal" not in skip and last is not None:
        decision["terminal_attempt"] = copy.deepcopy(last)
    elif terminal is not None:
        _self(terminal, "attempt_sha256")


def _attestation(decision: dict[str, Any], report: dict[str, Any]) -> None:
    att = _dict(decision.get("attestation"))
    if att is None:
        return
    relevant = (_dict(report.get("execution")) or {}).get("relevant_module_sha256")
    inventory = _hash(relevant) if isinstance(relevant, dict) else None
    updates = {"report_sha256": report.get("run_sha256"),
               "attempt_chain_sha256": _hash(decision.get("attempt_chain")),
               "terminal_attempt_sha256": (_dict(decision.get("terminal_attempt")) or {}).get("attempt_sha256"),
               "measured_source_inventory_sha256": inventory, "commit_source_inventory_sha256": inventory}
    for key, value in updates.items():
        if isinstance(value, str) and key in att:
            att[key] = value
    _self(att, "sha256")


def seal_capacity_decision(decision: Any, skip: list[str] | tuple[str, ...] | frozenset[str] = ()) -> None:
    """Recompute, in place and bottom-up, every internal hash of a capacity decision except the ``skip`` steps.

    Order (each step reads only what the steps before it wrote): policy hash; each phase's commitments hash; the
    privacy-scan chain; the runtime-environment hash; the report size and the pre-report owned disk; the report run hash; the passing receipt's
    report, execution, policy and runtime hashes; receipt links and hashes; the terminal copy; the attestation
    (report, chain, terminal and source-inventory hashes, then its own); scope and privacy self hashes; the decision
    hash. Unknown step names are refused so a typo cannot silently keep a hash fresh.
    """
    skipped = frozenset(skip)
    unknown = skipped - set(STEPS)
    if unknown:
        raise ValueError(f"unknown capacity seal steps: {sorted(unknown)}")
    if not isinstance(decision, dict):
        return
    report = _dict(decision.get("report"))
    if report is not None:
        _report(report, skipped)
        _chain(decision, report, skipped)
        if "attestation" not in skipped:
            _attestation(decision, report)
    for key, field in (("verification_scope", "sha256"), ("privacy", "privacy_sha256")):
        block = _dict(decision.get(key))
        if block is not None and f"{key}_sha256" not in skipped and field in block:
            _self(block, field)
    if "decision_sha256" not in skipped:
        _self(decision, "decision_sha256")
