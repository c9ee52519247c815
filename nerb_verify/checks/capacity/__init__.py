"""capacity-decision.json (``nerb.enron_capacity_portable_decision``): everything checkable from the file itself.

Layer 1 of the derivation graph (``nerb_verify.checks``): capacity-decision.json re-derived from its own leaves.

Checked standalone (no git, no file modes):

* self hashes: ``decision_sha256``, ``report.run_sha256``, ``report.policy.policy_sha256``, every receipt's
  ``attempt_sha256``, ``attestation.sha256``, ``verification_scope.sha256``, ``privacy.privacy_sha256``;
* the policy's protocol fields equal NERB's published policy and its corpus-binding fields are bound to the corpus
  the run measured (the published one for the published benchmark, else the bundle's own source):
  :mod:`nerb_verify.checks.capacity.capacity_policy`;
* ``report.totals.report_bytes`` equals the length of the report in NERB's pretty form (plus its newline), and the
  pre-report owned disk is the final owned disk less that report file and the commit marker;
* the attempt chain: 1-based consecutive ``sequence``/``attempt_sequence``, ``previous_attempt_sha256`` links,
  unique nonces, outcome/failure-code consistency, resource bounds of a passed receipt;
* the terminal attempt: equal to the last receipt, the only passed receipt for this report, cross-bound to the
  report's execution, environment and totals;
* the attestation fields derivable from the file (report, chain and terminal hashes, source inventory, commit, tree,
  native and reader lock hashes equal to the report's execution block, reader environment of the preparation);
* the verification scope equals the published constant; the privacy block is the constant shape and names the
  report's scanner; the report's own privacy flags declare aggregate-only content;
* every report gate is true, and the gates that are arithmetic or a plain reading of the commitments are
  recomputed; the RSS caps follow from the policy and the physical memory;
* the five phases inside and across (:mod:`nerb_verify.checks.capacity.capacity_phases`): commitment hashes, the
  phase-to-phase commitment chain, conservation of rows, records and bytes, replay equality, retained resource
  samples and checkpoints against their phase's figures, each phase figure recomputed as the extreme of its
  retained samples, the execution identity;
* every fact the phases repeat from the evidence equals it (source, preparation, split roles, bank hashes, sizes and
  pattern counts).

What needs the publisher's git history (commit object, root tree, ``ls-tree`` digest) runs only with
``--source-repo PATH`` (:mod:`nerb_verify.checks.capacity.capacity_source`); otherwise ``checks_run`` says it was not run.
The capacity file is hashed in one canonical serialisation of the report, reused for the decision hash.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from nerb_verify import context as C
from nerb_verify.canonical import (
    python_canonical_bytes,
    python_canonical_sha256,
    self_hash,
)
from nerb_verify.checks.capacity import capacity_phases, capacity_policy, capacity_source
from nerb_verify.checks.raw._access import as_dict, as_int, as_list, dig, same
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext
from nerb_verify.decision_scope import CAPACITY_NOT_EVALUATED
from nerb_verify.findings import Label
from nerb_verify.pointers import join, safe_pointer

A = C.CAPACITY_DECISION

MALFORMED = register(
    "capacity.malformed", "Capacity decision lacks a required part or has the wrong type there.",
    "The portable capacity decision must be an object with report, attempt_chain, terminal_attempt, attestation, "
    "verification_scope, privacy and decision_sha256 in the shapes NERB publishes. The schema family reports the "
    "detail; this code says the capacity checks could not look at that part.")
DECISION_HASH = register(
    "capacity.decision_hash_mismatch", "decision_sha256 is not the canonical hash of the decision.",
    "decision_sha256 must be the canonical (Python-style) SHA-256 of the whole decision without that key. A "
    "mismatch means some part of the file changed after it was sealed.")
REPORT_HASH = register(
    "capacity.report_hash_mismatch", "The capacity report's run_sha256 is not its canonical hash.",
    "report.run_sha256 must be the canonical SHA-256 of the report without run_sha256.")
REPORT_BYTES = register(
    "capacity.report_bytes_mismatch", "report.totals.report_bytes does not match the report's size.",
    "The report records its own size in NERB's pretty JSON form (indent 2, sorted keys, trailing newline); the "
    "recomputed size differs, or exceeds the 4 MiB cap.")
POLICY_HASH = register(
    "capacity.policy_hash_mismatch", "The capacity policy's policy_sha256 is not its canonical hash.",
    "report.policy.policy_sha256 must be the canonical hash of the policy without that key; the terminal receipt "
    "must name the same hash. (Which policy values are allowed is capacity.policy_protocol_mismatch and "
    "capacity.policy_corpus_mismatch: with both clean, a published-benchmark policy hashes to the published hash.)")
ATTEMPT_HASH = register(
    "capacity.attempt_hash_mismatch", "An attempt receipt's attempt_sha256 is not its canonical hash.",
    "Each receipt in attempt_chain is sealed by attempt_sha256 over the receipt without that key; an edited "
    "receipt no longer matches.")
CHAIN_BROKEN = register(
    "capacity.attempt_chain_broken", "The attempt chain is not a consecutive, linked sequence.",
    "Receipts are numbered 1, 2, 3 ... in both sequence and attempt_sequence; the first has no previous hash and "
    "each later one names the attempt_sha256 of the receipt before it.")
NONCE_REUSED = register(
    "capacity.attempt_nonce_reused", "Two attempt receipts share a nonce.",
    "Every attempt carries a fresh attempt_nonce_sha256; a repeated nonce means a receipt was duplicated.")
OUTCOME_INVALID = register(
    "capacity.attempt_outcome_invalid", "An attempt's outcome and failure code disagree.",
    "A passed receipt has no failure code; a failed or interrupted receipt names one of the capacity failure codes "
    "(interrupted: phase_interrupted). The measurement boundary is the published constant.")
ATTEMPT_BOUNDS = register(
    "capacity.attempt_bounds_exceeded", "A passed attempt lacks a resource figure or exceeds a resource bound.",
    "A passed receipt must record runtime, RSS, free disk, observation gap and owned disk, within the published "
    "bounds: runtime at most 4 h, RSS at most 8 GiB, free disk at least 5 GiB, observation gap at most 0.5 s, owned "
    "disk at most 20 GiB.")
TERMINAL = register(
    "capacity.terminal_attempt_mismatch", "The terminal attempt is not the one passed receipt for this report.",
    "terminal_attempt must equal the last receipt of the chain, be passed, name the report's run_sha256, and be the "
    "only passed receipt that does.")
TERMINAL_BINDING = register(
    "capacity.terminal_binding_mismatch", "The terminal attempt disagrees with the report it certifies.",
    "The terminal receipt must carry the report's policy hash, commit, implementation, tree and runtime environment "
    "hashes, the canonical hash of report.execution, the report's count of pre-existing private tombstones, and "
    "resource figures consistent with report totals.")
ATTESTATION = register(
    "capacity.attestation_mismatch", "The attestation does not match what it attests.",
    "attestation.sha256 seals the attestation; its report, attempt-chain and terminal hashes must be recomputed "
    "from the file, its measured source inventory is the canonical hash of execution.relevant_module_sha256 (and "
    "equals the at-commit inventory), its commit, tree, native and reader-lock hashes equal the report's execution "
    "block and its reader environment is the one the preparation phase committed to.")
SCOPE = register(
    "capacity.verification_scope_mismatch", "The verification scope is not the published constant.",
    "verification_scope lists what a clean-clone verification covers and what it does not; it must be exactly the "
    "published constant, sealed by its own sha256.")
PRIVACY = register(
    "capacity.privacy_mismatch", "The capacity privacy block is not the aggregate-only constant.",
    "privacy must declare aggregate-only content with no private paths, payloads or correctness rows, zero scan "
    "violations, name the report's privacy scanner, and be sealed by privacy_sha256. The report's own privacy "
    "block declares the same: aggregate_only true and no paths, document ids, detector values or correctness rows "
    "included (a public capacity report that declares private content states that it is not publishable).")
GATES = register(
    "capacity.gates_failed", "A capacity gate is false.",
    "Every gate in report.gates, including passed, must be true for a capacity decision to stand.")
ARITHMETIC = register(
    "capacity.report_arithmetic_mismatch", "A capacity report total or phase rate does not follow from its parts.",
    "Each phase's throughput_milli_records_per_second is floor(records * 10^12 / elapsed_ns); the report totals are "
    "the worst case over the phases (peak RSS and owned-disk high water the maximum, free disk the minimum, "
    "observation gap and acquisition duration the maximum, retries the sum), and total elapsed time and "
    "observation count are at least the phases' sums; the final owned disk is the pre-report owned disk plus the "
    "report file (its recomputed size) and the 26-byte commit marker written after it. The RSS caps follow from the policy and the machine: "
    "effective cap = min(absolute cap, floor(physical memory x the policy's physical-memory fraction)), maximum "
    "peak = floor(effective cap x the policy's peak fraction).")
GATE_UNSUPPORTED = register(
    "capacity.gate_unsupported", "A capacity gate is true but the figures it bounds violate the policy.",
    "Recomputed from the policy and the report: total runtime, owned disk, runtime and preflight free disk, "
    "observation cadence, resource acquisition duration, peak RSS against the maximum peak and the effective cap, "
    "source conservation, phase throughput, checkpoint wall cadence and checkpoint record gap; and read from the "
    "phase commitments: replay equality, no pre-seal access, sealed test unaccessed and unbound, pre-existing "
    "private tombstones within the retention limit. A gate that says passed while its bound or fact does not hold "
    "is unsupported.")
EVIDENCE_BINDING = register(
    "capacity.evidence_binding_mismatch", "The capacity report disagrees with the benchmark evidence.",
    "Every fact the capacity phases repeat from the evidence (and so from the manifest) must equal it, where a "
    "phase first commits to it: source id, revision, input rows and content hash; prepared artifact hash, bytes "
    "and records; split manifest and policy hashes and each role's records, artifact hash and bytes; the bank's "
    "canonical and artifact hashes, canonical JSON size (not the physical artifact size) and active pattern, name "
    "and entity counts; and the report's rows accounted.")

MAX_REPORT_BYTES = 4 * 1024 * 1024
# NERB's built-in capacity policy (nerb.enron_capacity_policy.v1) is a published constant (capacity_policy.py).
PUBLISHED_POLICY_SHA256 = capacity_policy.PUBLISHED_POLICY_SHA256
MEASUREMENT_BOUNDARY = ("resource_observations_through_report_write_fsync_staging_scan_atomic_promotion_and_promoted"
                        "_final_tree_scan_before_attempt_append")
VERIFICATION_SCOPE = {
    "not_independently_attested": [
        "original_private_payload_bytes",
        "original_promoted_inode_or_private_filesystem_identity",
        "original_runtime_timing_rss_or_disk_observations",
        "failed_attempt_cleanup_fields_or_durable_wipe_state",
        "recorded_native_binary_bytes_or_reproducible_binary_build",
        "observed_runtime_reader_distribution_file_bytes",
        "lower_http_dependency_file_bytes_beyond_critical_reader_set",
    ],
    "prerequisite": ("trusted_access_controlled_host_with_measured_git_commit_complete_history_and_fresh_uv_managed"
                     "_install_from_checked_in_lock"),
    "verified": [
        "closed_report_arithmetic_and_hashes",
        "full_attempt_receipt_hash_chain_and_terminal_cross_bindings",
        "git_commit_object_root_tree_and_recorded_source_blobs_from_clone",
        "reader_lock_and_native_build_source_commitments",
    ],
}
# The report's privacy flags: an aggregate-only public report declares no private content.
REPORT_PRIVACY_FLAGS = {
    "aggregate_only": True,
    "correctness_rows_included": False,
    "detector_values_included": False,
    "document_ids_included": False,
    "paths_included": False,
}
# What the run writes into the owned tree after the pre-report scan: the report file and this commit marker.
COMMIT_MARKER_BYTES = len(b"nerb.enron.private-run.v2\n")
PRIVACY_CONST = {
    "aggregate_only": True,
    "private_paths_included": False,
    "private_payloads_included": False,
    "correctness_rows_included": False,
    "privacy_scan_violation_count": 0,
}
# Passed-receipt bounds (spec 30 A.7): (field, kind, bound).
BOUNDS = [
    ("elapsed_ns", "max", 4 * 3600 * 10**9),
    ("maximum_peak_rss_bytes", "max", 8 * 1024**3),
    ("peak_process_tree_rss_bytes", "max", 8 * 1024**3),
    ("minimum_free_disk_bytes", "min", 5 * 1024**3),
    ("maximum_resource_observation_wall_gap_ns", "max", 500_000_000),
    ("final_owned_disk_bytes", "max", 20 * 1024**3),
]
PASSED_REQUIRED = ("execution_sha256", "report_sha256", "resource_observation_count", "runtime_environment_sha256",
                   "repository_tree_sha256")
FAILURE_CODES = frozenset({
    "checkpoint_wall_gap", "phase_execution_failed", "private_tree_invalid", "production_identity_invalid",
    "resource_measurement_failed", "resource_observation_gap", "phase_interrupted", "resource_bound_exceeded",
    "report_invalid", "privacy_scan_failed", "source_conservation_failed", "replay_mismatch", "disk_bound_exceeded",
    "rss_bound_exceeded", "runtime_bound_exceeded", "watchdog_interrupted",
})


def _member_bytes(obj: dict[str, Any]) -> dict[str, bytes]:
    """Canonical bytes of each member of an object, keyed by member name."""
    return {key: python_canonical_bytes(value) for key, value in obj.items()}


def _object_bytes(members: dict[str, bytes]) -> bytes:
    """Canonical bytes of an object from its members' canonical bytes (keys sorted by code point)."""
    return b"{" + b",".join(json.dumps(k, ensure_ascii=False).encode("utf-8") + b":" + members[k]
                            for k in sorted(members)) + b"}"


def _decision_bytes(decision: dict[str, Any], report_bytes: bytes) -> bytes:
    """Canonical bytes of the decision without decision_sha256, splicing in the already-serialised report."""
    parts = []
    for key in sorted(k for k in decision if k != "decision_sha256"):
        value = report_bytes if key == "report" else python_canonical_bytes(decision[key])
        parts.append(json.dumps(key, ensure_ascii=False).encode("utf-8") + b":" + value)
    return b"{" + b",".join(parts) + b"}"


def capacity_absent(ctx: VerifyContext) -> bool:
    """True when the bundle has no capacity-decision.json at all (as opposed to one that is unreadable or invalid)."""
    return A not in ctx.files and A not in ctx.shared.get("bundle.unusable", set())


def run(ctx: VerifyContext) -> None:
    """Check the portable capacity decision (see module docstring); one canonical pass over the large report."""
    col = ctx.collector
    decision = ctx.artifact(A)
    if capacity_absent(ctx):
        # Absent altogether (not unreadable): a decision-grade requirement, reported by scope (decision_scope.py).
        col.add(CAPACITY_NOT_EVALUATED, A, "")
        col.ran("capacity", "not_evaluated", reason=Label("capacity-decision.json absent"))
        return
    if not isinstance(decision, dict):
        col.ran("capacity", "not_evaluated", reason=Label("capacity-decision.json missing or invalid"))
        return
    report = as_dict(decision.get("report"))
    chain = as_list(decision.get("attempt_chain"))
    if report is None or chain is None:
        col.add(MALFORMED, A, join(["report" if report is None else "attempt_chain"]))
        col.ran("capacity", "not_evaluated", reason=Label("report or attempt_chain missing"))
        return
    try:
        parts = _member_bytes(report)
        report_full = _object_bytes(parts)
        report_wo = _object_bytes({k: v for k, v in parts.items() if k != "run_sha256"})
        decision_bytes = _decision_bytes(decision, report_full)
    except (TypeError, ValueError):
        col.add(MALFORMED, A, "")
        col.ran("capacity", "not_evaluated", reason=Label("not serialisable"))
        return
    decision_hash = "sha256:" + hashlib.sha256(decision_bytes).hexdigest()
    ok = decision.get("decision_sha256") == decision_hash
    col.record(A, "/decision_sha256", "decision_sha256", decision.get("decision_sha256"), decision_hash, ok)
    if not ok:
        col.add(DECISION_HASH, A, "/decision_sha256")
    run_hash = "sha256:" + hashlib.sha256(report_wo).hexdigest()
    ok = report.get("run_sha256") == run_hash
    col.record(A, "/report/run_sha256", "report_run_sha256", report.get("run_sha256"), run_hash, ok)
    if not ok:
        col.add(REPORT_HASH, A, "/report/run_sha256")
    _report_size(ctx, report, len(report_full))
    _policy(ctx, report)
    _gates(ctx, report)
    _report_arithmetic(ctx, report)
    capacity_phases.run(ctx, report)
    chain_hash = _chain(ctx, chain)
    _terminal(ctx, decision, report, chain, run_hash)
    _attestation(ctx, decision, report, run_hash, chain_hash)
    _scope_and_privacy(ctx, decision, report)
    _evidence_binding(ctx, report)
    if ctx.options.source_repo is not None:
        capacity_source.run(ctx, decision)
        col.ran("capacity.source_repo", "ran")
    else:
        col.ran("capacity.source_repo", "not_run", reason=Label("needs --source-repo PATH (publisher's git history)"))
    col.ran("capacity", attempts=len(chain))


def _pretty_extra(value: Any, depth: int) -> int:
    """Bytes NERB's pretty form (indent 2, ``": "``) adds to the compact canonical form below ``value``.

    A non-empty container of ``n`` members at depth ``d`` adds a newline and ``2(d+1)`` spaces before each member,
    a newline and ``2d`` spaces before its closing bracket, and, for an object, one space after each colon:
    ``n(3 + 2d) + 1 + 2d`` (``+ n`` for an object). Counted level by level: the containers of one depth are summed
    in C-level passes and their container members make the next level (no recursion, one pass per depth).
    """
    total = 0
    level = [value] if isinstance(value, (dict, list)) else []
    while level:
        objects = [item for item in level if isinstance(item, dict) and item]
        arrays = [item for item in level if isinstance(item, list) and item]
        object_members = sum(map(len, objects))
        array_members = sum(map(len, arrays))
        total += ((3 + 2 * depth) * (object_members + array_members) + object_members
                  + (1 + 2 * depth) * (len(objects) + len(arrays)))
        level = [child for item in objects for child in item.values() if isinstance(child, (dict, list))]
        level += [child for item in arrays for child in item if isinstance(child, (dict, list))]
        depth += 1
    return total


def _report_size(ctx: VerifyContext, report: dict[str, Any], canonical_size: int) -> None:
    """The report's size in NERB's pretty form, from its canonical size plus the whitespace indentation adds.

    (Python's json encoder falls back to pure Python when indenting; counting the added whitespace is 5x faster.)
    """
    published = as_int(dig(report, "totals", "report_bytes"))
    size = canonical_size + _pretty_extra(report, 0) + 1
    ok = published == size and size <= MAX_REPORT_BYTES
    ctx.collector.record(A, "/report/totals/report_bytes", "report_bytes", published, size, ok)
    if not ok:
        ctx.collector.add(REPORT_BYTES, A, "/report/totals/report_bytes")
    # After the pre-report scan the run writes the report file and the commit marker into the owned tree.
    totals = as_dict(report.get("totals")) or {}
    final, stated = as_int(totals.get("final_owned_disk_bytes")), as_int(totals.get("pre_report_owned_disk_bytes"))
    recomputed = None if final is None else final - size - COMMIT_MARKER_BYTES
    ok = recomputed is not None and stated == recomputed
    ctx.collector.record(A, "/report/totals/pre_report_owned_disk_bytes", "pre_report_owned_disk_bytes", stated,
                         recomputed, ok)
    if not ok:
        ctx.collector.add(ARITHMETIC, A, "/report/totals/pre_report_owned_disk_bytes")


def _policy(ctx: VerifyContext, report: dict[str, Any]) -> None:
    policy = as_dict(report.get("policy"))
    if policy is None:
        ctx.collector.add(MALFORMED, A, "/report/policy")
        return
    if policy.get("policy_sha256") != self_hash(policy, "policy_sha256"):
        ctx.collector.add(POLICY_HASH, A, "/report/policy/policy_sha256")
    capacity_policy.check(ctx, policy)


def _gates(ctx: VerifyContext, report: dict[str, Any]) -> None:
    gates = as_dict(report.get("gates"))
    if gates is None or not gates:
        ctx.collector.add(MALFORMED, A, "/report/gates")
        return
    for name in gates:
        if gates[name] is not True:
            ctx.collector.add(GATES, A, "/report" + safe_pointer(report, ["gates", name]))


def _ints(*values: Any) -> list[int] | None:
    out = [as_int(v) for v in values]
    return None if any(v is None for v in out) else [v for v in out if v is not None]


def _report_arithmetic(ctx: VerifyContext, report: dict[str, Any]) -> None:
    """Phase rates and report totals recomputed from the phases; gate bounds recomputed from the policy."""
    col = ctx.collector
    phases = [p for p in as_list(report.get("phases")) or [] if isinstance(p, dict)]
    totals = as_dict(report.get("totals")) or {}
    policy = as_dict(report.get("policy")) or {}
    environment = as_dict(report.get("environment")) or {}
    gates = as_dict(report.get("gates")) or {}
    for index, phase in enumerate(phases):
        got = _ints(phase.get("records"), phase.get("elapsed_ns"), phase.get("throughput_milli_records_per_second"))
        if got is None or got[1] <= 0 or got[0] * 10**12 // got[1] != got[2]:
            col.add(ARITHMETIC, A, join(["report", "phases", index, "throughput_milli_records_per_second"]))

    _environment_caps(ctx, policy, environment)

    def column(key: str) -> list[int] | None:
        return _ints(*(p.get(key) for p in phases)) if phases else None

    aggregates = [("peak_process_tree_rss_bytes", max, "eq"), ("owned_disk_high_water_bytes", max, "eq"),
                  ("minimum_free_disk_bytes", min, "eq"), ("maximum_resource_observation_wall_gap_ns", max, "eq"),
                  ("maximum_resource_acquisition_duration_ns", max, "eq"),
                  ("resource_acquisition_retry_count", sum, "eq"), ("elapsed_ns", sum, "ge"),
                  ("resource_observation_count", sum, "ge")]
    for key, combine, relation in aggregates:
        values, total = column(key), as_int(totals.get(key))
        ok = values is not None and total is not None and (
            total == combine(values) if relation == "eq" else total >= combine(values))
        if not ok:
            col.add(ARITHMETIC, A, join(["report", "totals", key]))
    bounds = [
        ("total_runtime", totals.get("elapsed_ns"), "le", policy.get("maximum_total_runtime_ns")),
        ("owned_disk", totals.get("owned_disk_high_water_bytes"), "le", policy.get("maximum_owned_disk_bytes")),
        ("runtime_free_disk", totals.get("minimum_free_disk_bytes"), "ge", policy.get("minimum_runtime_free_disk_bytes")),
        ("preflight_free_disk", environment.get("preflight_free_disk_bytes"), "ge",
         policy.get("minimum_preflight_free_disk_bytes")),
        ("resource_observation_cadence", totals.get("maximum_resource_observation_wall_gap_ns"), "le",
         policy.get("maximum_resource_observation_wall_gap_ns")),
        ("resource_acquisition_duration", totals.get("maximum_resource_acquisition_duration_ns"), "le",
         policy.get("maximum_resource_acquisition_duration_ns")),
        ("peak_rss", totals.get("peak_process_tree_rss_bytes"), "le", environment.get("maximum_peak_rss_bytes")),
        ("peak_rss", totals.get("peak_process_tree_rss_bytes"), "le", environment.get("effective_rss_cap_bytes")),
        ("peak_rss", environment.get("effective_rss_cap_bytes"), "le", policy.get("max_absolute_rss_bytes")),
        ("source_conservation", totals.get("source_rows_accounted"), "eq", policy.get("source_rows")),
    ]
    minimum_rate = as_int(policy.get("minimum_phase_records_per_second"))
    for phase in phases:
        bounds.append(("phase_throughput", phase.get("throughput_milli_records_per_second"), "ge",
                       minimum_rate * 1000 if minimum_rate is not None else None))
        bounds.append(("checkpoint_wall_cadence", phase.get("maximum_progress_checkpoint_wall_gap_ns"), "le",
                       policy.get("maximum_progress_checkpoint_wall_gap_ns")))
        bounds.append(("checkpoint_progress", phase.get("maximum_checkpoint_gap_records"), "le",
                       policy.get("maximum_checkpoint_record_gap")))
    for gate, holds in capacity_phases.gate_facts(report).items():
        bounds.append((gate, int(holds), "eq", 1))
    reported: set[str] = set()
    for gate, value, relation, bound in bounds:
        if gates.get(gate) is not True or gate in reported:
            continue  # a false gate is capacity.gates_failed already
        pair = _ints(value, bound)
        holds = pair is not None and {"le": pair[0] <= pair[1], "ge": pair[0] >= pair[1],
                                      "eq": pair[0] == pair[1]}[relation]
        if not holds:
            reported.add(gate)
            col.add(GATE_UNSUPPORTED, A, join(["report", "gates", gate]))


def _environment_caps(ctx: VerifyContext, policy: dict[str, Any], environment: dict[str, Any]) -> None:
    """The RSS caps follow from the policy and the machine: effective cap = min(absolute cap, floor(physical memory
    x physical_memory_fraction)); maximum peak = floor(effective cap x peak_rss_fraction_of_effective_cap)."""
    def fraction(name: str) -> tuple[int, int] | None:
        pair = _ints(dig(policy, name, "numerator"), dig(policy, name, "denominator"))
        return (pair[0], pair[1]) if pair is not None and pair[1] > 0 else None

    memory, absolute = as_int(environment.get("physical_memory_bytes")), as_int(policy.get("max_absolute_rss_bytes"))
    share, peak_share = fraction("physical_memory_fraction"), fraction("peak_rss_fraction_of_effective_cap")
    cap = (min(absolute, memory * share[0] // share[1]) if memory is not None and absolute is not None
           and share is not None else None)
    peak = cap * peak_share[0] // peak_share[1] if cap is not None and peak_share is not None else None
    for key, expected in (("effective_rss_cap_bytes", cap), ("maximum_peak_rss_bytes", peak)):
        stated = as_int(environment.get(key))
        ok = expected is not None and stated == expected
        ctx.collector.record(A, join(["report", "environment", key]), "capacity_" + key, stated, expected, ok,
                             evaluated=expected is not None)
        if not ok:
            ctx.collector.add(ARITHMETIC, A, join(["report", "environment", key]),
                              "environment.{field} does not follow from the policy and the physical memory.",
                              field=Label(key))


def _chain(ctx: VerifyContext, chain: list[Any]) -> str | None:
    """Check every receipt; return the canonical hash of the whole chain (None when it cannot be computed)."""
    col = ctx.collector
    if not 1 <= len(chain) <= 1024:
        col.add(CHAIN_BROKEN, A, "/attempt_chain", "The attempt chain must hold 1 to 1,024 receipts.")
    previous: Any = None
    nonces: set[Any] = set()
    for index, receipt in enumerate(chain):
        base = ["attempt_chain", index]
        if not isinstance(receipt, dict):
            col.add(MALFORMED, A, join(base))
            previous = None
            continue
        if receipt.get("attempt_sha256") != self_hash(receipt, "attempt_sha256"):
            col.add(ATTEMPT_HASH, A, join(base + ["attempt_sha256"]))
        for key in ("sequence", "attempt_sequence"):
            if as_int(receipt.get(key)) != index + 1:
                col.add(CHAIN_BROKEN, A, join(base + [key]), "Receipt {n} is not numbered {n}.", n=index + 1)
        if receipt.get("previous_attempt_sha256") != previous:
            col.add(CHAIN_BROKEN, A, join(base + ["previous_attempt_sha256"]),
                    "Receipt {n} does not link to the receipt before it.", n=index + 1)
        previous = receipt.get("attempt_sha256")
        nonce = receipt.get("attempt_nonce_sha256")
        if isinstance(nonce, str):
            if nonce in nonces:
                col.add(NONCE_REUSED, A, join(base + ["attempt_nonce_sha256"]))
            nonces.add(nonce)
        _outcome(ctx, receipt, base)
    try:
        return python_canonical_sha256(chain)
    except (TypeError, ValueError):
        return None


def _outcome(ctx: VerifyContext, receipt: dict[str, Any], base: list[str | int]) -> None:
    col = ctx.collector
    outcome = receipt.get("outcome")
    failure = receipt.get("failure_code")
    good = (
        (outcome == "passed" and failure is None)
        or (outcome == "failed" and isinstance(failure, str) and failure in FAILURE_CODES)
        or (outcome == "interrupted" and failure == "phase_interrupted")
    )
    if not good:
        col.add(OUTCOME_INVALID, A, join(base + ["outcome"]))
    if receipt.get("measurement_boundary") != MEASUREMENT_BOUNDARY:
        col.add(OUTCOME_INVALID, A, join(base + ["measurement_boundary"]),
                "The receipt's measurement boundary is not the published constant.")
    if outcome != "passed":
        return
    for key in PASSED_REQUIRED:
        if receipt.get(key) is None:
            col.add(ATTEMPT_BOUNDS, A, join(base + [key]), "A passed receipt must record {field}.", field=Label(key))
    for key, kind, bound in BOUNDS:
        value = as_int(receipt.get(key))
        if value is None or value < 0 or (value > bound if kind == "max" else value < bound):
            col.add(ATTEMPT_BOUNDS, A, join(base + [key]), "A passed receipt's {field} is missing or out of bounds.",
                    field=Label(key))


def _terminal(ctx: VerifyContext, decision: dict[str, Any], report: dict[str, Any], chain: list[Any],
              run_hash: str) -> None:
    col = ctx.collector
    terminal = as_dict(decision.get("terminal_attempt"))
    if terminal is None:
        col.add(MALFORMED, A, "/terminal_attempt")
        return
    if not chain or not same(terminal, chain[-1]):
        col.add(TERMINAL, A, "/terminal_attempt", "The terminal attempt is not the last receipt of the chain.")
    if terminal.get("outcome") != "passed" or terminal.get("report_sha256") != run_hash:
        col.add(TERMINAL, A, "/terminal_attempt/report_sha256",
                "The terminal attempt is not a passed receipt for this report.")
    _record_terminal_copy(ctx, chain, terminal, "report_sha256", run_hash,
                          terminal.get("report_sha256") == run_hash)
    passed_for_report = [i for i, r in enumerate(chain) if isinstance(r, dict) and r.get("outcome") == "passed"
                         and r.get("report_sha256") == run_hash]
    if len(passed_for_report) > 1:
        col.add(TERMINAL, A, join(["attempt_chain", passed_for_report[0]]),
                "More than one passed receipt names this report ({n}).", n=len(passed_for_report))
    execution = as_dict(report.get("execution")) or {}
    totals = as_dict(report.get("totals")) or {}
    environment = as_dict(report.get("environment")) or {}
    equal = [
        ("policy_sha256", dig(report, "policy", "policy_sha256")),
        ("executable_git_commit", execution.get("executable_git_commit")),
        ("capacity_implementation_sha256", execution.get("capacity_implementation_sha256")),
        ("repository_tree_sha256", execution.get("repository_tree_sha256")),
        ("runtime_environment_sha256", execution.get("runtime_environment_sha256")),
        ("production_evidence", execution.get("production_evidence")),
        ("maximum_peak_rss_bytes", environment.get("maximum_peak_rss_bytes")),
        ("final_owned_disk_bytes", totals.get("final_owned_disk_bytes")),
        ("peak_process_tree_rss_bytes", totals.get("peak_process_tree_rss_bytes")),
        ("preexisting_private_tombstone_count", environment.get("preexisting_private_tombstone_count")),
    ]
    try:
        equal.append(("execution_sha256", python_canonical_sha256(execution)))
    except (TypeError, ValueError):
        pass
    for key, expected in equal:
        ok = expected is not None and same(terminal.get(key), expected)
        _record_terminal_copy(ctx, chain, terminal, key, expected, ok)
        if not ok:
            col.add(TERMINAL_BINDING, A, join(["terminal_attempt", key]),
                    "The terminal attempt's {field} does not match the report.", field=Label(key))
    # The attempt's measurement boundary is wider than the report's, so its figures bound the report's.
    at_least = [("elapsed_ns", "elapsed_ns"), ("resource_observation_count", "resource_observation_count"),
                ("maximum_resource_observation_wall_gap_ns", "maximum_resource_observation_wall_gap_ns")]
    for key, total_key in at_least:
        mine, theirs = as_int(terminal.get(key)), as_int(totals.get(total_key))
        if mine is None or theirs is None or mine < theirs:
            col.add(TERMINAL_BINDING, A, join(["terminal_attempt", key]),
                    "The terminal attempt's {field} is below the report total.", field=Label(key))
    mine, theirs = as_int(terminal.get("minimum_free_disk_bytes")), as_int(totals.get("minimum_free_disk_bytes"))
    if mine is None or theirs is None or mine > theirs:
        col.add(TERMINAL_BINDING, A, "/terminal_attempt/minimum_free_disk_bytes",
                "The terminal attempt's minimum free disk is above the report's.")


def _record_terminal_copy(ctx: VerifyContext, chain: list[Any], terminal: dict[str, Any], key: str, expected: Any,
                          ok: bool) -> None:
    """Record a report fact that the terminal attempt (and the last receipt it copies) repeats.

    The passing receipt certifies this report, so these of its leaves are derived from the report, not attempt
    history: recording them (at the terminal copy and at the last receipt) tells the derivation model so and gives
    a forward re-derivation the value to write. A flag is recorded as 0 or 1."""
    shown = int(expected) if isinstance(expected, bool) else expected if isinstance(expected, (str, int)) else None
    mine = terminal.get(key)
    published = mine if isinstance(mine, (str, int, bool)) else None
    ctx.collector.record(A, join(["terminal_attempt", key]), "capacity.terminal." + key, published, shown, ok,
                         evaluated=shown is not None)
    last = chain[-1] if chain and isinstance(chain[-1], dict) else None
    if last is not None:
        value = last.get(key)
        ctx.collector.record(A, join(["attempt_chain", len(chain) - 1, key]), "capacity.terminal." + key,
                             value if isinstance(value, (str, int, bool)) else None, shown,
                             expected is not None and same(value, expected), evaluated=shown is not None)


def _attestation(ctx: VerifyContext, decision: dict[str, Any], report: dict[str, Any], run_hash: str,
                 chain_hash: str | None) -> None:
    col = ctx.collector
    att = as_dict(decision.get("attestation"))
    if att is None:
        col.add(MALFORMED, A, "/attestation")
        return
    execution = as_dict(report.get("execution")) or {}
    expected = {
        "kind": "clean_clone_source_and_hash_chain_verification",
        "report_sha256": run_hash,
        "attempt_chain_sha256": chain_hash,
        "terminal_attempt_sha256": dig(decision, "terminal_attempt", "attempt_sha256"),
        "executable_git_commit": execution.get("executable_git_commit"),
        "repository_tree_sha256": execution.get("repository_tree_sha256"),
        "native_binary_sha256": execution.get("native_extension_sha256"),
        "native_build_source_sha256": execution.get("native_build_source_sha256"),
        "native_extension_build_source_sha256": execution.get("native_extension_build_source_sha256"),
        "reader_lock_sha256": execution.get("reader_lock_sha256"),
        "reader_environment_sha256": _prep_commitment(report, "source_reader_environment_sha256"),
        "measured_source_inventory_sha256": _source_inventory(execution),
        "sha256": self_hash(att, "sha256"),
    }
    for key, value in expected.items():
        ok = value is not None and att.get(key) == value
        if key.endswith("sha256") and key != "sha256":
            col.record(A, join(["attestation", key]), "attestation_" + key, att.get(key), value, ok,
                       evaluated=value is not None)
        if not ok:
            col.add(ATTESTATION, A, join(["attestation", key]),
                    "The attestation's {field} does not match the file.", field=Label(key))
    if att.get("measured_source_inventory_sha256") != att.get("commit_source_inventory_sha256"):
        col.add(ATTESTATION, A, "/attestation/commit_source_inventory_sha256",
                "The measured and at-commit source inventories differ.")


def _prep_commitment(report: dict[str, Any], key: str) -> Any:
    """A commitment of the first phase (preparation), where the source reader is described."""
    return dig(report, "phases", 0, "commitments", key)


def _source_inventory(execution: dict[str, Any]) -> str | None:
    """The measured source inventory: the canonical hash of execution.relevant_module_sha256."""
    relevant = execution.get("relevant_module_sha256")
    try:
        return python_canonical_sha256(relevant) if isinstance(relevant, dict) else None
    except (TypeError, ValueError):
        return None


def _scope_and_privacy(ctx: VerifyContext, decision: dict[str, Any], report: dict[str, Any]) -> None:
    col = ctx.collector
    scope = as_dict(decision.get("verification_scope"))
    if scope is None:
        col.add(MALFORMED, A, "/verification_scope")
    else:
        body = {k: v for k, v in scope.items() if k != "sha256"}
        if not same(body, VERIFICATION_SCOPE) or scope.get("sha256") != self_hash(scope, "sha256"):
            col.add(SCOPE, A, "/verification_scope")
    report_privacy = as_dict(report.get("privacy")) or {}
    for key, expected in REPORT_PRIVACY_FLAGS.items():
        if report_privacy.get(key) is not expected:
            col.add(PRIVACY, A, join(["report", "privacy", key]))
    privacy = as_dict(decision.get("privacy"))
    if privacy is None:
        col.add(MALFORMED, A, "/privacy")
        return
    expected = dict(PRIVACY_CONST)
    expected["privacy_scanner_source_sha256"] = dig(report, "privacy", "privacy_scanner_source_sha256")
    expected["privacy_sha256"] = self_hash(privacy, "privacy_sha256")
    if not same(privacy, expected) or expected["privacy_scanner_source_sha256"] is None:
        col.add(PRIVACY, A, "/privacy")


# Facts the capacity phases repeat from the evidence (and so from the manifest, which the binding family holds equal
# to the evidence): commitment key -> evidence path. Checked where a phase first commits to the fact; the phases
# after it must restate it unchanged (capacity.commitment_chain_broken).
EVIDENCE_FACTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("dataset_id", ("source", "id")),
    ("dataset_revision", ("source", "revision")),
    ("source_input_rows", ("source", "input_records")),
    ("source_row_multiset_sha256", ("source", "content_sha256")),
    ("prepared_artifact_sha256", ("preparation", "prepared_artifact", "sha256")),
    ("prepared_artifact_bytes", ("preparation", "prepared_artifact", "bytes")),
    ("prepared_records", ("preparation", "output_records")),
    ("full_split_manifest_sha256", ("splits", "manifest_sha256")),
    ("split_policy_sha256", ("splits", "policy_sha256")),
    *((f"{role}_{field}", ("splits", "roles", role) + path) for role in ("train", "validation", "test")
      for field, path in (("records", ("records",)), ("artifact_sha256", ("artifact", "sha256")),
                          ("artifact_bytes", ("artifact", "bytes")))),
    ("bank_sha256", ("bank", "canonical_hash")),
    ("bank_artifact_sha256", ("bank", "artifact_sha256")),
    ("bank_canonical_json_bytes", ("bank", "canonical_json_bytes")),
    ("active_pattern_count", ("bank", "active_patterns")),
    ("active_name_count", ("bank", "active_names")),
    ("active_entity_count", ("bank", "active_entities")),
)


def _recordable(value: Any) -> int | str | None:
    """A value safe to put in the report beside its recomputation: an integer or a hash, nothing else."""
    if as_int(value) is not None:
        return value
    if isinstance(value, str) and value.startswith("sha256:") and len(value) == 71 and value[7:].isalnum():
        return value
    return None


def _evidence_binding(ctx: VerifyContext, report: dict[str, Any]) -> None:
    """Every fact the capacity phases repeat from the evidence equals the evidence's value (spec 30 A.2 step 8,
    extended to every repeated fact: source, preparation, split roles, bank sizes and pattern counts)."""
    evidence = ctx.evidence
    if not isinstance(evidence, dict):
        ctx.collector.ran("capacity.evidence_binding", "not_evaluated", reason=Label("evidence missing or invalid"))
        return
    commitments = [as_dict(dig(p, "commitments")) or {} for p in as_list(report.get("phases")) or []]
    pairs: list[tuple[str, Any, Any]] = [("/report/totals/source_rows_accounted",
                                          dig(report, "totals", "source_rows_accounted"),
                                          dig(evidence, "source", "input_records"))]
    for key, path in EVIDENCE_FACTS:
        index = next((i for i, c in enumerate(commitments) if key in c), None)
        pointer = join(["report", "phases", index, "commitments", key]) if index is not None else "/report/phases"
        pairs.append((pointer, commitments[index].get(key) if index is not None else None, dig(evidence, *path)))
    for pointer, mine, theirs in pairs:
        ok = mine is not None and same(mine, theirs)
        ctx.collector.record(A, pointer, "capacity_evidence_binding", _recordable(mine), _recordable(theirs), ok)
        if not ok:
            ctx.collector.add(EVIDENCE_BINDING, A, pointer)
    ctx.collector.ran("capacity.evidence_binding", facts=len(pairs))
