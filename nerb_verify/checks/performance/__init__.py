"""Performance family: every statistic, stability test, comparison, break-even figure and hash recomputed.

Layer 1 of the derivation graph (``nerb_verify.checks``): the performance report re-derived from its own leaves.

Reads the evidence's ``performance`` section (the gates target it), the inventories and performance-report.json;
writes findings, recomputed figures, exact statistics into ``ctx.figures`` and ``decisions["performance"]``.
Promotion-level plan and policy checks always run (spec 00 decision 3). Anything required that is missing fails
closed: a finding, and a failed decision grade, never a silent pass.

Modules: statistics (integer-ns definitions), floatpolicy (how published doubles are compared), inventories,
structure (order, descriptor hashes, references), workloads (samples, stats, RSS, phase rules), protocol (exact
frozen counts of a decision run), blocks and
permutation (same-path test), same_path, cross_path, breakeven, policy, hashes, report_binding, decision,
command_time (a command's elapsed time), rss_platform (RSS only where the worker measures it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nerb_verify.checks.performance import (
    breakeven,
    command_time,
    cross_path,
    decision,
    hashes,
    inventories,
    policy,
    protocol,
    report_binding,
    rss_platform,
    same_path,
    structure,
    workloads,
)
from nerb_verify.checks.performance import codes as C
from nerb_verify.checks.performance.state import PerfState, label
from nerb_verify.context import PERFORMANCE_REPORT, VerifyContext
from nerb_verify.findings import Label

FAMILY = "performance"
# Findings that make the recomputed decision grade fail (policy and fail-closed codes).
POLICY_CODES = frozenset({
    C.SECTION_EMPTY, C.SECTION_MALFORMED, C.INVENTORY_MISSING, C.INVENTORY_SHAPE, C.INVALID_SAMPLE, C.RSS_SAMPLES,
    C.PHASE_CONTRACT, C.SAMPLE_SUPPORT, C.COMPARISON_INVALID, C.COMPARISON_FAILED, C.VALUE_MODEL_POLICY,
    C.DECISION_MATRIX, C.SWEEP_UNCONTROLLED, C.CPU_CAPACITY, C.MEMORY_CAPACITY, C.ABSOLUTE_POLICY,
    C.BREAKEVEN_COMPONENT, C.BASELINE_CAPABILITY, C.HARNESS_COMMAND_FAILED,
})
MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError, AssertionError)


def _guard(state: PerfState, stage: str, step: Callable[[], Any]) -> Any:
    """Run one stage; malformed input it trips over becomes a finding (fail closed), never a traceback."""
    try:
        return step()
    except MALFORMED:
        state.add(C.SECTION_MALFORMED, (), "Stage {stage} met malformed input and did not complete.",
                  stage=label(stage))
        state.blockers.add("malformed_performance_section")
        return None


def _check_hash_fields(state: PerfState) -> None:
    for position, workload in enumerate(state.items("workloads")):
        recomputed = hashes.workload_sha256(workload)
        published = workload.get("workload_sha256")
        state.record(("workloads", position, "workload_sha256"), "performance.workload_sha256", published, recomputed,
                     published == recomputed)
        if published != recomputed:
            state.add(C.WORKLOAD_HASH, ("workloads", position, "workload_sha256"))
    for position, comparison in enumerate(state.items("comparisons")):
        recomputed = hashes.comparison_plan_sha256(comparison)
        published = comparison.get("comparison_plan_sha256")
        state.record(("comparisons", position, "comparison_plan_sha256"), "performance.comparison_plan_sha256",
                     published, recomputed, published == recomputed)
        if published != recomputed:
            state.add(C.COMPARISON_HASH, ("comparisons", position, "comparison_plan_sha256"))
    for position, model in enumerate(state.items("breakeven_models")):
        recomputed = hashes.model_plan_sha256(model)
        published = model.get("model_plan_sha256")
        state.record(("breakeven_models", position, "model_plan_sha256"), "performance.model_plan_sha256", published,
                     recomputed, published == recomputed)
        if published != recomputed:
            state.add(C.COMPARISON_HASH, ("breakeven_models", position, "model_plan_sha256"))


def _per_workload(state: PerfState) -> None:
    for position, workload in enumerate(state.items("workloads")):
        _guard(state, "workload", lambda p=position, w=workload: workloads.check_workload(state, p, w))
    for position, workload in enumerate(state.items("workloads")):
        _guard(state, "decision_support",
               lambda p=position, w=workload: workloads.check_decision_support(state, p, w))


def _comparisons(state: PerfState) -> None:
    for position, comparison in enumerate(state.items("comparisons")):
        kind = comparison.get("comparison_kind")
        if kind == "same_path_stability":
            _guard(state, "same_path", lambda p=position, c=comparison: same_path.check_same_path(state, p, c))
        elif kind == "cross_path_value":
            _guard(state, "cross_path", lambda p=position, c=comparison: cross_path.check_cross_path(state, p, c))
        else:
            state.add(C.COMPARISON_INVALID, ("comparisons", position, "comparison_kind"))
    for position, model in enumerate(state.items("breakeven_models")):
        _guard(state, "breakeven", lambda p=position, m=model: breakeven.check_model(state, p, m))


def run(ctx: VerifyContext) -> None:
    """Verify the performance section, its inventories and performance-report.json (see module docstring)."""
    evidence = ctx.evidence
    performance = evidence.get("performance") if isinstance(evidence, dict) else None
    if not isinstance(performance, dict):
        ctx.collector.ran(FAMILY, "not_evaluated", reason=Label("evidence performance section unavailable"))
        ctx.collector.decisions[FAMILY] = {"decision_grade": "not_evaluated", "failure_codes": []}
        return
    state = PerfState(ctx=ctx, performance=performance)
    if performance.get("evaluated") is not True or not state.items("workloads"):
        state.add(C.SECTION_EMPTY, ("evaluated",))
        state.blockers.add("performance_not_evaluated")
    usable = structure.check_collections(state)
    if usable:
        _guard(state, "descriptor_hashes", lambda: structure.check_descriptor_hashes(state))
        _guard(state, "plan_hashes", lambda: _check_hash_fields(state))
        _guard(state, "bank_composition", lambda: structure.check_bank_composition(state))
        _guard(state, "references", lambda: structure.check_references(state))
        _guard(state, "baselines", lambda: structure.check_baselines(state))
        _guard(state, "inventories", lambda: inventories.check_inventories(state))
        _per_workload(state)
        report = ctx.artifact(PERFORMANCE_REPORT)
        profile = report.get("profile") if isinstance(report, dict) else None
        _guard(state, "protocol_counts", lambda: protocol.check_protocol_counts(state, profile))
        _comparisons(state)
        manifest_hash = _guard(state, "manifest_hash", lambda: report_binding.check_manifest_hash(state))
        _guard(state, "matrix", lambda: policy.check_matrix(state))
        _guard(state, "sweeps", lambda: policy.check_sweeps(state))
        environment = report.get("environment") if isinstance(report, dict) else evidence.get("environment")
        _guard(state, "capacity", lambda: policy.check_capacity(state, environment))
        _guard(state, "harness_commands", lambda: policy.check_harness_commands(state))
        _guard(state, "command_time", lambda: command_time.check_command_elapsed(state))
        _guard(state, "rss_platform", lambda: rss_platform.check_rss_platform(state))
        _guard(state, "absolute", lambda: policy.check_absolute(state))
        _guard(state, "value_model", lambda: policy.check_value_model(state))
    else:
        state.blockers.add("malformed_performance_section")
        manifest_hash, report = None, ctx.artifact(PERFORMANCE_REPORT)
    if isinstance(report, dict):
        software = report.get("software")
        if not isinstance(software, dict) or software.get("git_dirty") is not False:
            state.failures.add("dirty_git_worktree")
        report_failures = sorted(state.failures)
        _guard(state, "report", lambda: report_binding.check_report(state, report, manifest_hash))
        _guard(state, "decision_grade", lambda: report_binding.check_decision_grade(state, report, report_failures))
    else:
        state.blockers.add("performance_report_unavailable")
    failures = sorted(state.failures)
    finding_codes = sorted({f.code for f in ctx.collector.findings
                            if f.code.startswith(FAMILY + ".") and f.severity == "error"})
    # The decision fails on NERB's report-level failure codes (recomputed), on our own fail-closed reasons, and on
    # every promotion-level policy finding (always run). Authenticity findings (a stale hash, a stored figure the
    # samples do not support) reject the bundle through the verdict; the grade itself is computed from recomputed
    # values only, so it does not depend on what the artifact claims.
    blocking = [code for code in finding_codes if code in POLICY_CODES]
    reasons = failures + sorted(state.blockers) + blocking
    record = _guard(state, "decision", lambda: decision.build_decision(state, reasons))
    if record is None:  # the section was too malformed to summarise: fail closed with the reasons known so far
        reasons = sorted(set(reasons) | {"malformed_performance_section"})
        record = {"decision_grade": "failed", "failure_codes": reasons, "bank_sizes": [], "headline": {},
                  "float_policy": state.tracker.to_json()}
    record["report_failure_codes"] = failures
    ctx.collector.decisions[FAMILY] = record
    table = _guard(state, "table", lambda: decision.table_lines(state, record))
    if table is not None:
        ctx.shared.setdefault("text.tables", []).append(table)
    ctx.collector.ran(FAMILY, workloads=len(state.items("workloads")), statistics=len(state.stats) * 9,
                      comparisons=len(state.same_path_results) + len(state.cross_path_results))
