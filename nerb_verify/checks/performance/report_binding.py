"""performance-report.json (nerb.enron_performance_run.v1) bound to the evidence, and the area's top-level hashes."""

from __future__ import annotations

from typing import Any

from nerb_verify import pointers
from nerb_verify.canonical import canonical_equal
from nerb_verify.checks.performance import codes as C
from nerb_verify.checks.performance import hashes
from nerb_verify.checks.performance.state import PerfState, label
from nerb_verify.context import EVIDENCE, MANIFEST, PERFORMANCE_REPORT
from nerb_verify.decision_scope import NOT_DECISION_PROFILE

SMOKE = "smoke"
# The cells every smoke run measures (spec 20 section 1.3), and the cells it may add: the two setup cells (our
# producer measures every lifecycle phase) and the two exploratory ones.
SMOKE_CELLS = hashes.SMOKE_WORKLOAD_IDS
SMOKE_OPTIONAL_CELLS = ("real_source_profile", "real_source_build", "explore_generic_email_regex",
                        "explore_python_literal_scan")
EXPLORATORY_SAMPLES = 100
SMOKE_NONPROMOTABLE = "smoke_profile_nonpromotable"
PRIVACY = {"status": "passed", "raw_text_included": False, "direct_identifiers_included": False,
           "private_paths_included": False, "violation_count": 0}


def check_manifest_hash(state: PerfState) -> str | None:
    """Recompute performance_manifest_sha256 and compare every copy (evidence, manifest, frozen target)."""
    try:
        recomputed = hashes.performance_manifest_sha256(state.performance)
    except (KeyError, TypeError, ValueError):
        state.add(C.MANIFEST_HASH, (), "The performance manifest could not be recomputed.")
        return None
    collector = state.ctx.collector
    evidence = state.ctx.evidence if isinstance(state.ctx.evidence, dict) else {}
    copies: list[tuple[str, str, Any]] = [(EVIDENCE, "/performance_manifest_sha256",
                                           evidence.get("performance_manifest_sha256"))]
    manifest = state.ctx.manifest
    if isinstance(manifest, dict):
        copies.append((MANIFEST, "/performance_manifest_sha256", manifest.get("performance_manifest_sha256")))
    test_access = evidence.get("test_access")
    target = test_access.get("frozen_target") if isinstance(test_access, dict) else None
    if isinstance(target, dict):
        copies.append((EVIDENCE, "/test_access/frozen_target/performance_manifest_sha256",
                       target.get("performance_manifest_sha256")))
    for artifact, pointer, published in copies:
        collector.record(artifact, pointer, "performance.performance_manifest_sha256", published, recomputed,
                         published == recomputed)
        if published != recomputed:
            collector.add(C.MANIFEST_HASH, artifact, pointer)
    return recomputed


def _check_hash(state: PerfState, key: str, published: Any, compute: Any, figure: str, code: str) -> None:
    collector = state.ctx.collector
    try:
        recomputed = compute()
    except (KeyError, TypeError, ValueError, AttributeError):
        collector.add(code, PERFORMANCE_REPORT, "/" + key, "The hash could not be recomputed from the report.")
        return
    collector.record(PERFORMANCE_REPORT, "/" + key, figure, published, recomputed, published == recomputed)
    if published != recomputed:
        collector.add(code, PERFORMANCE_REPORT, "/" + key)


def _canonical_equal(a: Any, b: Any) -> bool:
    """Type-strict equality of two JSON values (canonical bytes: ``1``, ``1.0`` and ``true`` all differ)."""
    return canonical_equal(a, b)


def check_report(state: PerfState, report: dict[str, Any], manifest_hash: str | None) -> None:
    """Report envelope, equality with the evidence, run/plan/manifest hashes."""
    collector = state.ctx.collector
    evidence = state.ctx.evidence if isinstance(state.ctx.evidence, dict) else {}
    fixed = {"schema_version": "nerb.enron_performance_run.v1", "suite": "enron_cache_value",
             "benchmark_version": "enron", "sealed_test_accessed": False, "privacy": PRIVACY}
    profile = report.get("profile")
    if profile == SMOKE:
        collector.add(NOT_DECISION_PROFILE, PERFORMANCE_REPORT, "/profile")
        check_smoke_shape(state)
    elif profile != "decision":
        collector.add(C.REPORT_ENVELOPE, PERFORMANCE_REPORT, "/profile", "profile is neither decision nor smoke.")
    for key, value in fixed.items():
        if report.get(key) != value or (key == "sealed_test_accessed" and report.get(key) is not False):
            collector.add(C.REPORT_ENVELOPE, PERFORMANCE_REPORT, pointers.join([key]), "{field} is not the "
                          "promotable value.", field=label(key))
    identical = state.ctx.shared.get("schema.report_performance_identical")
    if identical is None:
        identical = _canonical_equal(report.get("performance"), state.performance)
    if not identical:
        collector.add(C.REPORT_MISMATCH, PERFORMANCE_REPORT, "/performance", "The report's performance section "
                      "differs from the evidence's.")
    # (copies of performance_manifest_sha256 are compared by the binding family; we compare it with the recomputed
    # manifest hash below)
    for key in ("software", "environment"):
        if not _canonical_equal(report.get(key), evidence.get(key)):
            collector.add(C.REPORT_MISMATCH, PERFORMANCE_REPORT, pointers.join([key]), "{field} differs from the "
                          "evidence.", field=label(key))
    if manifest_hash is not None:
        published = report.get("performance_manifest_sha256")
        collector.record(PERFORMANCE_REPORT, "/performance_manifest_sha256", "performance.performance_manifest_sha256",
                         published, manifest_hash, published == manifest_hash)
        if published != manifest_hash:
            collector.add(C.MANIFEST_HASH, PERFORMANCE_REPORT, "/performance_manifest_sha256")
    _check_hash(state, "run_sha256", report.get("run_sha256"), lambda: hashes.run_sha256(report),
                "performance.run_sha256", C.RUN_HASH)
    _check_hash(state, "plan_sha256", report.get("plan_sha256"), lambda: hashes.plan_sha256(report),
                "performance.plan_sha256", C.PLAN_HASH)


def check_smoke_shape(state: PerfState) -> None:
    """A smoke report is the smoke plan (spec 20 §1.3) and holds no decision-grade structure.

    No decision or promotion-gate cell, no comparison, no value model; it measures the seven frozen smoke cells, may
    add the two setup cells and the two exploratory cells, and nothing else (no control twins, no decision-only
    cells); each smoke cell has exactly the smoke sample policy's 5 samples, one work unit per sample and no baseline
    (an exploratory cell 100, with its not-equivalent baseline). This is what stops a decision report from being relabelled as smoke, and a
    smoke report from quietly dropping a cell.
    """
    for position, workload in enumerate(state.items("workloads")):
        for key in ("decision_grade", "promotion_gate"):
            if workload.get(key) is not False:
                state.add(C.SMOKE_PROFILE_SHAPE, ("workloads", position, key), "A smoke workload has {field} set.",
                          field=label(key))
        workload_id = workload.get("id")
        exploratory = isinstance(workload_id, str) and workload_id.startswith("explore_")
        if workload_id not in SMOKE_CELLS and workload_id not in SMOKE_OPTIONAL_CELLS:
            state.add(C.SMOKE_PROFILE_SHAPE, ("workloads", position, "id"), "Not a cell of the smoke plan.")
            continue
        samples = workload.get("samples_seconds")
        expected = EXPLORATORY_SAMPLES if exploratory else hashes.SMOKE_SAMPLE_POLICY["scan_samples"]
        if not isinstance(samples, list) or len(samples) != expected:
            state.add(C.SMOKE_PROFILE_SHAPE, ("workloads", position, "samples_seconds"), "A smoke cell has {n} "
                      "samples, not the smoke policy's {m}.", n=len(samples) if isinstance(samples, list) else 0,
                      m=expected)
        if not exploratory and workload.get("baseline_id") is not None:
            state.add(C.SMOKE_PROFILE_SHAPE, ("workloads", position, "baseline_id"), "A smoke cell has a baseline.")
        if workload.get("work_per_sample") != 1 or type(workload.get("work_per_sample")) is not int:
            state.add(C.SMOKE_PROFILE_SHAPE, ("workloads", position, "work_per_sample"), "A smoke cell measures one "
                      "work unit per sample, as its decision counterpart does.")
    for collection in ("comparisons", "breakeven_models"):
        if state.items(collection):
            state.add(C.SMOKE_PROFILE_SHAPE, (collection,), "A smoke report has {field}.", field=label(collection))
    present = {w.get("id") for w in state.items("workloads")}
    missing = [cell for cell in SMOKE_CELLS if cell not in present]
    if missing:
        state.add(C.SMOKE_PROFILE_SHAPE, ("workloads",), "{n} of the frozen smoke cells are missing.", n=len(missing))


def recomputed_decision_grade(report: dict[str, Any], failures: list[str]) -> dict[str, Any]:
    """The decision_grade a report must carry: a smoke run is always ``smoke_profile_nonpromotable``; a decision run
    passes iff the recomputed failure codes are empty (spec 20 §10.1)."""
    if report.get("profile") == SMOKE:
        return {"passed": False, "failure_codes": [SMOKE_NONPROMOTABLE]}
    return {"passed": not failures, "failure_codes": failures}


def check_decision_grade(state: PerfState, report: dict[str, Any], failures: list[str]) -> None:
    """The report's decision_grade equals the recomputed one (see :func:`recomputed_decision_grade`)."""
    published = report.get("decision_grade")
    recomputed = recomputed_decision_grade(report, failures)
    failures = recomputed["failure_codes"]
    matches = published == recomputed
    state.ctx.collector.record(PERFORMANCE_REPORT, "/decision_grade/passed", "performance.decision_grade.passed",
                               published.get("passed") if isinstance(published, dict) else None,
                               "passed" if not failures else "failed", matches)
    if not matches:
        state.ctx.collector.add(C.DECISION_GRADE_MISMATCH, PERFORMANCE_REPORT, "/decision_grade",
                                "The recomputed decision grade has {n} failure codes and passed={passed}.",
                                n=len(failures), passed=not failures)
