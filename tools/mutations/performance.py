"""Broken fixtures for the performance family, one case per code, hash-aware.

Every case edits the evidence's ``performance`` section (``reseal`` then re-derives every descriptor, workload,
comparison and model hash, the manifest hash, copies the section into performance-report.json and refreshes
run_sha256 and the publication list), so only recomputation from the raw samples can catch the mutant. Cases that
must break a hash itself edit after sealing (``post_ops``) and refresh only what a forger would.

Transforms (``json_edit``) recompute the consequences of an edit the way a careful forger would: ``perf_restat``
rewrites a workload's stats from its (edited) samples with the float-step definitions, ``perf_scale_samples`` slows
a control twin and rewrites its stats and the comparison outputs (optionally keeping a false ``within_tolerance``).

Exempt (not reachable by a schema-valid bundle; unit-tested in contract_tests/test_performance.py):
``performance.section_malformed`` and ``performance.inventory_shape``.
"""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from nerb_verify.canonical import nerb_pretty_bytes, python_canonical_bytes, self_hash  # noqa: E402
from nerb_verify.checks.performance.blocks import split_blocks  # noqa: E402
from nerb_verify.checks.performance.permutation import permutation_count  # noqa: E402
from nerb_verify.checks.performance.statistics import (  # noqa: E402
    Denominators,
    compute_stats,
    samples_to_ns,
)
from nerb_verify.loader import sha256_prefixed  # noqa: E402

EVIDENCE = "benchmark-evidence.json"
REPORT = "performance-report.json"
MANIFEST = "benchmark-manifest.json"
OTHER = "sha256:" + "7" * 64
BASE = "nerb-enron"


def _load(root: Path, rel: str) -> Any:
    return json.loads((root / rel).read_text(encoding="utf-8"))


def _store(root: Path, rel: str, data: Any) -> None:
    (root / rel).write_bytes(nerb_pretty_bytes(data))


def _workload(performance: dict[str, Any], wid: str) -> dict[str, Any]:
    return next(w for w in performance["workloads"] if w["id"] == wid)


def _restat(performance: dict[str, Any], workload: dict[str, Any]) -> None:
    ns, _bad = samples_to_ns(workload["samples_seconds"])
    assert ns is not None
    work = workload["work_per_sample"]
    if workload["sample_unit"] == "whole_input":
        item = next(i for i in performance["inputs"] if i["id"] == workload["input_id"])
        records = workload["records_per_sample"]
        den = Denominators("whole_input", item["documents"] * work, item["bytes"] * work,
                           records if records is not None else item["records"] * work, work)
    else:
        den = Denominators(workload["sample_unit"], None, None, None, work)
    workload["stats"] = dict(compute_stats(ns, workload["phase"], den).float_step)


def perf_restat(bundle_dir: Path, workload: str) -> None:
    """Rewrite one workload's stats from its current samples (float-step values, as NERB would)."""
    evidence = _load(bundle_dir, EVIDENCE)
    performance = evidence["performance"]
    _restat(performance, _workload(performance, workload))
    _store(bundle_dir, EVIDENCE, evidence)


def perf_drop_sample(bundle_dir: Path, workload: str, index: int, restat: bool = True) -> None:
    """Drop one timing sample and its RSS sample; optionally rewrite the stats to match."""
    evidence = _load(bundle_dir, EVIDENCE)
    performance = evidence["performance"]
    item = _workload(performance, workload)
    del item["samples_seconds"][index]
    del item["rss_samples_bytes"][index]
    item["peak_rss_bytes"] = max(item["rss_samples_bytes"])
    if restat:
        _restat(performance, item)
    _store(bundle_dir, EVIDENCE, evidence)


def perf_p99_rank(bundle_dir: Path, workload: str, index: int) -> None:
    """Store p99 as the sorted sample at ``index`` (another rank rule than nearest rank)."""
    evidence = _load(bundle_dir, EVIDENCE)
    item = _workload(evidence["performance"], workload)
    item["stats"]["p99_seconds"] = sorted(item["samples_seconds"])[index]
    _store(bundle_dir, EVIDENCE, evidence)


def perf_swap_blocks(bundle_dir: Path, workload: str, first: int, second: int, size: int) -> None:
    """Exchange two chronological blocks of one workload's samples (and RSS samples)."""
    evidence = _load(bundle_dir, EVIDENCE)
    item = _workload(evidence["performance"], workload)
    for key in ("samples_seconds", "rss_samples_bytes"):
        values = item[key]
        a, b = values[first * size:(first + 1) * size], values[second * size:(second + 1) * size]
        values[first * size:(first + 1) * size] = b
        values[second * size:(second + 1) * size] = a
    _store(bundle_dir, EVIDENCE, evidence)


def perf_scale_samples(bundle_dir: Path, comparison: str, numerator: int, denominator: int,
                       honest: bool = False) -> None:
    """Slow the control twin of a same-path comparison by numerator/denominator (whole ns), rewrite its stats and
    the comparison outputs; keep ``within_tolerance`` unless ``honest`` (then also fail the report's grade)."""
    evidence = _load(bundle_dir, EVIDENCE)
    performance = evidence["performance"]
    comp = next(c for c in performance["comparisons"] if c["id"] == comparison)
    control = _workload(performance, comp["baseline_workload_id"])
    ns, _bad = samples_to_ns(control["samples_seconds"])
    assert ns is not None
    control["samples_seconds"] = [(x * numerator // denominator) / 1e9 for x in ns]
    _restat(performance, control)
    published_result = comp["result"]
    _recompare_same_path(performance, comp)
    if not honest:
        comp["result"] = published_result  # the forger keeps "within_tolerance"
    _store(bundle_dir, EVIDENCE, evidence)
    if honest:
        report = _load(bundle_dir, REPORT)
        report["decision_grade"] = {"passed": False, "failure_codes": ["comparison_regression_or_noise"]}
        _store(bundle_dir, REPORT, report)


def _recompare_same_path(performance: dict[str, Any], comp: dict[str, Any]) -> None:
    """Rewrite one same-path comparison's outputs from its two workloads' samples and stats (float steps)."""
    candidate = _workload(performance, comp["candidate_workload_id"])
    control = _workload(performance, comp["baseline_workload_id"])
    metric = comp["metric"]
    c_value, b_value = candidate["stats"][metric], control["stats"][metric]
    high, low = max(c_value, b_value), min(c_value, b_value)
    comp["candidate_value"], comp["baseline_value"] = c_value, b_value
    comp["absolute_relative_gap"] = high / low - 1
    comp["absolute_log_ratio"] = math.log(high / low)
    a_ns, _ = samples_to_ns(candidate["samples_seconds"])
    b_ns, _ = samples_to_ns(control["samples_seconds"])
    hits, total = permutation_count(split_blocks(a_ns, 10), split_blocks(b_ns, 10), metric)  # type: ignore[arg-type]
    comp["permutation_p_value"] = hits / total
    within = 20 * Fraction(high) <= 21 * Fraction(low)
    comp["result"] = "within_tolerance" if within else ("unstable" if Fraction(hits, total) <= Fraction(1, 20)
                                                        else "inconclusive")


def _regate(evidence: dict[str, Any], positions: set[int]) -> None:
    """Rewrite every promotion check on the given workloads: actual copied, passed decided on the exact value."""
    performance = evidence["performance"]
    for check in evidence["promotion"]["checks"]:
        parts = check["target"].split("/")
        if parts[1:3] != ["performance", "workloads"] or int(parts[3]) not in positions:
            continue
        workload = performance["workloads"][int(parts[3])]
        if parts[4] == "peak_rss_bytes":
            check["actual"] = value = workload["peak_rss_bytes"]
            exact: Any = Fraction(value)
        else:
            check["actual"] = workload["stats"][parts[5]]
            exact = _exact_stats(performance, workload)[parts[5]]
        limit = Fraction(str(check["threshold"]))
        check["passed"] = exact is not None and (exact <= limit if check["operator"] == "lte" else exact >= limit
                                                 if check["operator"] == "gte" else exact == limit)


def _exact_stats(performance: dict[str, Any], workload: dict[str, Any]) -> dict[str, Any]:
    ns, _bad = samples_to_ns(workload["samples_seconds"])
    assert ns is not None
    work = workload["work_per_sample"]
    if workload["sample_unit"] == "whole_input":
        item = next(i for i in performance["inputs"] if i["id"] == workload["input_id"])
        den = Denominators("whole_input", item["documents"] * work, item["bytes"] * work,
                           workload["records_per_sample"], work)
    else:
        den = Denominators(workload["sample_unit"], None, None, None, work)
    return dict(compute_stats(ns, workload["phase"], den).exact)


def perf_resample_cell(bundle_dir: Path, candidate: str, extra_per_block: int) -> None:
    """A coherent forgery of a cell's sample count: each of the ten blocks of the candidate and of its control twin
    gets ``extra_per_block`` more samples (copies of the block's first ones, RSS alike), then their stats, the
    stability comparison (block size, values, gap, log ratio, p-value over all 1,024 swaps, result) and every gate
    actual and outcome on the two workloads are rewritten. Only the frozen per-cell count is left to catch it."""
    evidence = _load(bundle_dir, EVIDENCE)
    performance = evidence["performance"]
    comp = next(c for c in performance["comparisons"] if c["comparison_kind"] == "same_path_stability"
                and c["candidate_workload_id"] == candidate)
    size = comp["samples_per_block"]
    positions = set()
    for wid in (comp["candidate_workload_id"], comp["baseline_workload_id"]):
        workload = _workload(performance, wid)
        positions.add(performance["workloads"].index(workload))
        for key in ("samples_seconds", "rss_samples_bytes"):
            values = workload[key]
            blocks = [values[b * size:(b + 1) * size] for b in range(10)]
            workload[key] = [v for block in blocks for v in block + block[:extra_per_block]]
        workload["peak_rss_bytes"] = max(workload["rss_samples_bytes"])
        _restat(performance, workload)
    comp["samples_per_block"] = size + extra_per_block
    _recompare_same_path(performance, comp)
    _regate(evidence, positions)
    _rebreakeven(performance)
    _store(bundle_dir, EVIDENCE, evidence)


def _rebreakeven(performance: dict[str, Any]) -> None:
    """Rewrite every measured break-even component from its workload's current median, then totals and result."""
    from nerb_verify.checks.performance.breakeven import breakeven_result

    for model in performance["breakeven_models"]:
        for item in model["components"]:
            if item["source"] == "declared_assumption":
                continue
            workload = _workload(performance, item["workload_id"])
            median = workload["stats"]["median_seconds"]
            item["value"] = median if item["source"] == "workload_median_seconds" else \
                median / workload["work_per_sample"]
        exact = {}
        for side, application, name in (("candidate", "fixed", "candidate_fixed_value"),
                                        ("baseline", "fixed", "baseline_fixed_value"),
                                        ("candidate", "per_unit", "candidate_value_per_unit"),
                                        ("baseline", "per_unit", "baseline_value_per_unit")):
            parts = [item["value"] for item in model["components"]
                     if item["side"] == side and item["application"] == application]
            model[name] = sum(parts, 0.0)
            exact[name] = sum((Fraction(v) for v in parts), Fraction(0))
        model["result"], model["breakeven_units"] = breakeven_result(
            exact["candidate_fixed_value"], exact["baseline_fixed_value"], exact["candidate_value_per_unit"],
            exact["baseline_value_per_unit"], model["minimum_units"], model["maximum_units"])


def perf_set_both(bundle_dir: Path, pointer: str, value: Any) -> None:
    """After sealing: set one field of the performance section in both the evidence and the report, then refresh
    the report's plan_sha256 and run_sha256 (a forger who edits a hash and keeps everything else consistent)."""
    parts = [p for p in pointer.split("/") if p]
    for rel in (EVIDENCE, REPORT):
        doc = _load(bundle_dir, rel)
        node = doc["performance"]
        for part in parts[:-1]:
            node = node[int(part)] if isinstance(node, list) else node[part]
        last = parts[-1]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
        if rel == REPORT:
            from nerb_verify.checks.performance.hashes import plan_sha256

            doc["plan_sha256"] = plan_sha256(doc)
            doc["run_sha256"] = self_hash(doc, "run_sha256")
        _store(bundle_dir, rel, doc)


def perf_reseal_plan(bundle_dir: Path) -> None:
    """After sealing: recompute the report's plan_sha256 (a forger would) and then its run_sha256."""
    from nerb_verify.checks.performance.hashes import plan_sha256

    report = _load(bundle_dir, REPORT)
    report["plan_sha256"] = plan_sha256(report)
    report["run_sha256"] = self_hash(report, "run_sha256")
    _store(bundle_dir, REPORT, report)


def perf_set_report(bundle_dir: Path, field: str, value: Any) -> None:
    """After sealing: set a top-level report field and refresh run_sha256 (so only the named check can catch it)."""
    report = _load(bundle_dir, REPORT)
    report[field] = value
    if field != "run_sha256":
        report["run_sha256"] = self_hash(report, "run_sha256")
    _store(bundle_dir, REPORT, report)


def perf_environment(bundle_dir: Path, field: str, value: Any) -> None:
    """Set one environment field in the manifest, the evidence and the report alike (they must stay equal)."""
    for rel in ("benchmark-manifest.json", EVIDENCE, REPORT):
        doc = _load(bundle_dir, rel)
        doc["environment"][field] = value
        _store(bundle_dir, rel, doc)


def inventory_rewrite(bundle_dir: Path, inventory: str, row: int | None = None, field: str = "bytes",
                      delta: int = 0, pretty: bool = False) -> None:
    """Edit one inventory row (or just its formatting) and rebind every input's inventory_ref to the new bytes."""
    path = bundle_dir / "inventories" / f"{inventory}.json"
    rows = json.loads(path.read_text(encoding="utf-8"))
    if row is not None:
        rows[row][field] += delta
    raw = (json.dumps(rows, indent=1) if pretty else python_canonical_bytes(rows).decode("utf-8")).encode("utf-8")
    path.write_bytes(raw)
    evidence = _load(bundle_dir, EVIDENCE)
    for item in evidence["performance"]["inputs"]:
        if item["inventory_ref"]["id"] == inventory:
            item["inventory_ref"]["sha256"] = sha256_prefixed(raw)
            item["inventory_ref"]["bytes"] = len(raw)
    _store(bundle_dir, EVIDENCE, evidence)


def perf_breakeven_value(bundle_dir: Path, component: str, value: float | None = None,
                         workload: str | None = None) -> None:
    """Change a break-even component (value and/or workload) and rewrite the four totals consistently."""
    evidence = _load(bundle_dir, EVIDENCE)
    model = evidence["performance"]["breakeven_models"][0]
    for item in model["components"]:
        if item["id"] == component:
            if workload is not None:
                item["workload_id"] = workload
                if value is None:
                    value = _workload(evidence["performance"], workload)["stats"]["median_seconds"]
            item["value"] = value
    for side, application, name in (("candidate", "fixed", "candidate_fixed_value"),
                                    ("baseline", "fixed", "baseline_fixed_value"),
                                    ("candidate", "per_unit", "candidate_value_per_unit"),
                                    ("baseline", "per_unit", "baseline_value_per_unit")):
        total = 0.0
        for item in model["components"]:
            if item["side"] == side and item["application"] == application:
                total += item["value"]
        model[name] = total
    _store(bundle_dir, EVIDENCE, evidence)


TRANSFORMS = {
    "perf_restat": perf_restat, "perf_drop_sample": perf_drop_sample, "perf_p99_rank": perf_p99_rank,
    "perf_swap_blocks": perf_swap_blocks, "perf_scale_samples": perf_scale_samples, "perf_set_both": perf_set_both,
    "perf_set_report": perf_set_report, "perf_environment": perf_environment, "inventory_rewrite": inventory_rewrite,
    "perf_breakeven_value": perf_breakeven_value, "perf_reseal_plan": perf_reseal_plan,
    "perf_resample_cell": perf_resample_cell,
}


def _edit(transform: str, **args: Any) -> dict[str, Any]:
    return {"op": "json_edit", "transform": transform, "args": args}


def _set(pointer: str, value: Any, file: str = EVIDENCE) -> dict[str, Any]:
    return {"op": "json_set", "file": file, "pointer": pointer, "value": value}


def _case(code: str, slug: str, ops: list[dict[str, Any]], codes: list[str], post_ops: list[dict[str, Any]] | None
          = None, post_seal: list[str] | None = None, reseal: bool = True) -> dict[str, Any]:
    """A case; after a reseal the plan hash is re-derived too (unless the case is about it) and publication.json
    refreshed, so the plan commitment never gives a mutant away."""
    case: dict[str, Any] = {"code": code, "slug": slug, "base": BASE, "ops": ops, "reseal": reseal,
                            "expect": {"verdict": "rejected", "codes": sorted(set(codes))}}
    post = list(post_ops or [])
    seal_steps = list(post_seal or [])
    if reseal and code != "performance.plan_hash":
        post.insert(0, _edit("perf_reseal_plan"))
        if "publication" not in seal_steps:
            seal_steps.append("publication")
    if post:
        case["post_ops"] = post
    if seal_steps:
        case["post_seal"] = seal_steps
    return case


P = "/performance"
W = P + "/workloads"
# Workload positions in the real bundle (sorted by id).
CONTROL_SCALE_1000 = 15  # control_scale_1000_direct
CONTROL_COLD = 3  # control_real_cold_compile
REAL_COLD = 25  # real_cold_compile
REAL_THROUGHPUT = 28  # real_direct_throughput

CASES: list[dict[str, Any]] = [
    _case("performance.section_empty", "not-evaluated", [_set(P + "/evaluated", False)],
          ["performance.section_empty", "summary.verdict_mismatch"]),
    _case("performance.descriptor_order", "baselines-swapped",
          [{"op": "json_copy", "file": EVIDENCE, "from": P + "/baselines/0", "pointer": P + "/baselines/-"},
           {"op": "json_remove", "file": EVIDENCE, "pointer": P + "/baselines/0"}],
          ["performance.descriptor_order"]),
    _case("performance.descriptor_hash", "operation-spec-edited",
          [_set(P + "/harnesses/0/operation_spec_sha256", OTHER)], ["performance.descriptor_hash"]),
    _case("performance.workload_hash", "stale-workload-hash", [],
          ["performance.workload_hash"], post_ops=[_edit("perf_set_both", pointer=f"/workloads/{CONTROL_SCALE_1000}"
                                                         "/workload_sha256", value=OTHER)], post_seal=["publication"]),
    _case("performance.comparison_hash", "stale-comparison-hash", [],
          ["performance.comparison_hash"], post_ops=[_edit("perf_set_both", pointer="/comparisons/0/"
                                                           "comparison_plan_sha256", value=OTHER)],
          post_seal=["publication"]),
    _case("performance.manifest_hash", "manifest-copy-stale", [],
          ["performance.manifest_hash", "binding.performance_manifest_sha256"],
          post_ops=[_edit("perf_set_report", field="performance_manifest_sha256", value=OTHER)],
          post_seal=["publication"]),
    _case("performance.run_hash", "run-hash-stale", [], ["performance.run_hash", "publication.binding_mismatch"],
          post_ops=[_edit("perf_set_report", field="run_sha256", value=OTHER)], post_seal=["publication"]),
    _case("performance.plan_hash", "plan-hash-other", [], ["performance.plan_hash"],
          post_ops=[_edit("perf_set_report", field="plan_sha256", value=OTHER)], post_seal=["run_sha256", "publication"]),
    _case("performance.report_mismatch", "report-integer-for-float", [], ["performance.report_mismatch"],
          post_ops=[{"op": "json_set", "file": REPORT,
                     "pointer": "/performance/inputs/0/document_length_distribution/mean_bytes", "value": 10240}],
          post_seal=["plan_sha256", "run_sha256", "publication"]),
    _case("performance.report_mismatch", "report-environment-differs",
          [_set("/environment/python", "3.12.0", REPORT)], ["performance.report_mismatch"]),
    _case("performance.report_envelope", "sealed-test-accessed",
          [_set("/sealed_test_accessed", True, REPORT)], ["performance.report_envelope"]),
    _case("performance.decision_grade_mismatch", "grade-failed-claimed",
          [_set("/decision_grade", {"passed": False, "failure_codes": ["decision_cell_count"]}, REPORT)],
          ["performance.decision_grade_mismatch", "publication.decision_mismatch"]),
    dict(_case("performance.decision_grade_mismatch", "smoke-failure-codes-emptied",
               [_set("/decision_grade/failure_codes", [], REPORT)], ["performance.decision_grade_mismatch"]),
         base="synthetic-smoke"),
    _case("performance.inventory_missing", "huge-inventory-deleted",
          [{"op": "delete", "file": "inventories/controlled_negative_huge_inventory.json"}],
          ["performance.inventory_missing", "binding.declared_missing", "summary.verdict_mismatch"]),
    _case("performance.inventory_hash", "inventory-not-canonical",
          [_edit("inventory_rewrite", inventory="controlled_negative_huge_inventory", pretty=True)],
          ["performance.inventory_hash"]),
    _case("performance.inventory_arithmetic", "inventory-row-bytes",
          [_edit("inventory_rewrite", inventory="controlled_negative_huge_inventory", row=0, delta=1)],
          ["performance.inventory_arithmetic"]),
    _case("performance.bank_composition", "taxonomy-pattern-count",
          [_set(P + "/banks/3/composition/taxonomy/0/literal_patterns", 90903)], ["performance.bank_composition"]),
    _case("performance.baseline_capability", "exact-baseline-without-unicode",
          [_set(P + "/baselines/1/capabilities/unicode", False)],
          ["performance.baseline_capability", "summary.verdict_mismatch"]),
    # Found by the every-artifact nudge sweep (tools/sweep_nudges.py --every-artifact): descriptive or plan values
    # that nothing pinned.
    _case("performance.baseline_capability", "exploratory-regex-claims-aliases",
          [_set(P + "/baselines/0/capabilities/aliases", True)], ["performance.baseline_capability", "summary.verdict_mismatch"]),
    _case("performance.comparison_invalid", "cross-path-tolerance-zero",
          [_set(P + "/comparisons/18/regression_tolerance", 0.0)], ["performance.comparison_invalid", "summary.verdict_mismatch"]),
    _case("performance.comparison_invalid", "cross-path-noise-multiplier-one",
          [_set(P + "/comparisons/5/noise_multiplier", 1.0)], ["performance.comparison_invalid", "summary.verdict_mismatch"]),
    _case("performance.value_model_policy", "unit-range-widened",
          [_set(P + "/breakeven_models/0/maximum_units", 10**12)], ["performance.value_model_policy", "summary.verdict_mismatch"]),
    _case("performance.unknown_reference", "evaluated-bank-canonical-bytes",
          [_set(P + "/banks/0/canonical_json_bytes", 22947010)], ["performance.unknown_reference"]),
    _case("performance.unknown_reference", "harness-command-unknown",
          [_set(P + "/harnesses/0/command_id", "another_runner")], ["performance.unknown_reference"]),
    _case("performance.unused_descriptor", "unused-baseline",
          [{"op": "json_copy", "file": EVIDENCE, "from": P + "/baselines/3", "pointer": P + "/baselines/-"},
           _set(P + "/baselines/4/id", "zz_unused_baseline")], ["performance.unused_descriptor"]),
    _case("performance.invalid_sample", "half-nanosecond-sample",
          [_set(f"{W}/{CONTROL_SCALE_1000}/samples_seconds/5", 0.0001072505)],
          ["performance.invalid_sample", "performance.comparison_invalid", "performance.decision_matrix",
           "summary.verdict_mismatch"]),
    _case("performance.statistic_mismatch", "p99-other-rank-rule",
          [_edit("perf_p99_rank", workload="control_scale_1000_direct", index=990)],
          ["performance.statistic_mismatch"]),
    _case("performance.statistic_mismatch", "dropped-sample-stats-kept",
          [_edit("perf_drop_sample", workload="control_scale_1000_direct", index=500, restat=False)],
          ["performance.statistic_mismatch", "performance.comparison_invalid", "performance.comparison_value_mismatch",
           "performance.protocol_count", "summary.verdict_mismatch"]),
    _case("performance.rss_samples", "peak-not-max",
          [_set(f"{W}/{CONTROL_SCALE_1000}/peak_rss_bytes", 999999999)],
          ["performance.rss_samples", "summary.verdict_mismatch"]),
    # The headline throughput's RSS falls inside block 0 (one worker session): the second sample below the first,
    # the peak kept (session 12, from a coherent-forgery probe).
    _case("performance.rss_decreasing", "rss-falls-within-a-block",
          [_set(f"{W}/{REAL_THROUGHPUT}/rss_samples_bytes/1", 472563712 - 4096 * 64)],
          ["performance.rss_decreasing"]),
    # The runner's recorded command line says --profile smoke while the report it produced says decision.
    _case("performance.command_profile_mismatch", "command-ran-smoke",
          [_set("/commands/0/argv/5", "smoke"), _set("/commands/0/argv/5", "smoke", "benchmark-manifest.json")],
          ["performance.command_profile_mismatch"]),
    _case("performance.records_per_sample", "records-per-sample-inflated",
          [_set(f"{W}/{CONTROL_SCALE_1000}/records_per_sample", 7),
           _edit("perf_restat", workload="control_scale_1000_direct")], ["performance.records_per_sample"]),
    _case("performance.phase_contract", "fresh-process-warmups",
          [_set(f"{W}/{CONTROL_COLD}/warmups", 1), _set(f"{W}/{REAL_COLD}/warmups", 1)],
          ["performance.phase_contract", "summary.verdict_mismatch"]),
    _case("performance.phase_contract", "workload-renamed",
          [_set(f"{W}/{REAL_COLD}/id", "real_cold_compile_fast")],
          ["performance.breakeven_component", "performance.comparison_invalid", "performance.decision_grade_mismatch",
           "performance.decision_matrix", "performance.phase_contract", "performance.value_model_policy",
           "summary.verdict_mismatch"]),
    _case("performance.phase_contract", "reused-warmups-raised",
          [_set(f"{W}/36/warmups", 4), _set(f"{W}/14/warmups", 4)],
          ["performance.phase_contract", "performance.sweep_uncontrolled", "summary.verdict_mismatch"]),
    _case("performance.phase_contract", "explore-concurrency-raised",
          [_set(f"{W}/24/concurrency", 2)],
          ["performance.phase_contract", "summary.verdict_mismatch"]),
    _case("performance.phase_contract", "harness-phase-changed",
          [_set(P + "/harnesses/3/phase", "cold_compile")],
          ["performance.phase_contract", "summary.verdict_mismatch"]),
    _case("performance.value_model_policy", "model-parameter-renamed",
          [_set(P + "/breakeven_models/0/parameter_name", "whole_input_scan_requestsx")],
          ["performance.value_model_policy", "summary.verdict_mismatch"]),
    _case("performance.sample_support", "decision-warmups-two",
          [_set(f"{W}/36/warmups", 2), _set(f"{W}/14/warmups", 2)],
          ["performance.phase_contract", "performance.sample_support", "performance.sweep_uncontrolled",
           "summary.verdict_mismatch"]),
    _case("performance.block_assignment", "assignment-reordered",
          [_set(P + "/comparisons/0/block_assignment/0", "candidate_first"),
           _set(P + "/comparisons/0/block_assignment/1", "control_first")], ["performance.block_assignment"]),
    _case("performance.comparison_invalid", "significance-loosened",
          [_set(P + "/comparisons/0/significance_level", 0.1)],
          ["performance.comparison_invalid", "summary.verdict_mismatch"]),
    _case("performance.comparison_invalid", "dropped-sample-restated",
          [_edit("perf_drop_sample", workload="control_scale_1000_direct", index=500)],
          ["performance.comparison_invalid", "performance.comparison_value_mismatch", "performance.protocol_count",
           "summary.verdict_mismatch"]),
    _case("performance.comparison_value_mismatch", "p-value-off-by-one-mask",
          [_set(P + "/comparisons/3/permutation_p_value", 0.2861328125)], ["performance.comparison_value_mismatch"]),
    _case("performance.comparison_value_mismatch", "block-reordered",
          [_edit("perf_swap_blocks", workload="control_real_cold_compile", first=0, second=3, size=2)],
          ["performance.comparison_value_mismatch"]),
    _case("performance.comparison_result_mismatch", "gap-claimed-within-tolerance",
          [_edit("perf_scale_samples", comparison="compare_scale_1000_direct_vs_control_scale_1000_direct_p99_seconds",
                 numerator=11, denominator=10)],
          ["performance.comparison_result_mismatch", "performance.comparison_failed", "performance.decision_matrix",
           "performance.decision_grade_mismatch", "summary.verdict_mismatch"]),
    _case("performance.comparison_failed", "unstable-cell-under-a-passed-grade",
          [_edit("perf_scale_samples", comparison="compare_scale_1000_direct_vs_control_scale_1000_direct_p99_seconds",
                 numerator=11, denominator=10, honest=True),
           _set("/decision_grade", {"passed": True, "failure_codes": []}, file=REPORT)],
          ["performance.comparison_failed", "performance.decision_grade_mismatch", "performance.decision_matrix",
           "summary.verdict_mismatch"]),
    _case("publication.decision_mismatch", "unstable-cell-reported-gates-still-passed",
          [_edit("perf_scale_samples", comparison="compare_scale_1000_direct_vs_control_scale_1000_direct_p99_seconds",
                 numerator=11, denominator=10, honest=True)],
          ["publication.decision_mismatch", "summary.verdict_mismatch"]),
    _case("performance.harness_command_failed", "runner-exit-status-one",
          [_set("/commands/0/exit_status", 1), _set("/commands/0/exit_status", 1, file="benchmark-manifest.json")],
          ["performance.harness_command_failed", "summary.verdict_mismatch"]),
    _case("performance.protocol_count", "source-profile-cell-30-samples",
          [_edit("perf_resample_cell", candidate="real_source_profile", extra_per_block=1)],
          ["performance.protocol_count"]),
    _case("performance.breakeven_component", "cold-compile-value-nudged",
          [_edit("perf_breakeven_value", component="candidate_fixed_cold_compile", value=7.7)],
          ["performance.breakeven_component", "performance.breakeven_mismatch", "summary.verdict_mismatch"]),
    _case("performance.breakeven_mismatch", "units-two", [_set(P + "/breakeven_models/0/breakeven_units", 2)],
          ["performance.breakeven_mismatch"]),
    _case("performance.value_model_policy", "uncached-bound-to-end-to-end",
          [_edit("perf_breakeven_value", component="baseline_per_request_uncached", workload="real_end_to_end")],
          ["performance.value_model_policy", "summary.verdict_mismatch"]),
    _case("performance.decision_matrix", "latency-headline-ungated",
          [_set(f"{W}/27/promotion_gate", False)],
          ["performance.decision_matrix", "summary.number_not_traced", "summary.verdict_mismatch"]),
    _case("performance.sweep_uncontrolled", "scale-generator-version",
          [_set(P + "/banks/3/generator/version", "1.0.1")],
          ["performance.sweep_uncontrolled", "summary.verdict_mismatch"]),
    _case("performance.sweep_uncontrolled", "scale-bank-unrealistic-classes",
          [_set(P + "/banks/3/composition/taxonomy/0/literal_patterns", 70902),
           _set(P + "/banks/3/composition/taxonomy/1/literal_patterns", 29090)],
          ["performance.sweep_uncontrolled", "summary.verdict_mismatch"]),
    _case("performance.cpu_capacity", "three-cpus",
          [_edit("perf_environment", field="cpu_count", value=3)],
          ["performance.cpu_capacity", "performance.decision_grade_mismatch", "summary.verdict_mismatch"]),
    _case("performance.memory_capacity", "rss-above-machine-memory",
          [_edit("perf_environment", field="memory_bytes", value=1073741824)],
          ["performance.memory_capacity", "performance.decision_grade_mismatch", "summary.verdict_mismatch"]),
    _case("performance.absolute_policy", "rss-above-eight-gib",
          [_set(f"{W}/{REAL_COLD}/rss_samples_bytes/19", 9000000000),
           _set(f"{W}/{REAL_COLD}/peak_rss_bytes", 9000000000)],
          ["performance.absolute_policy", "performance.decision_grade_mismatch", "gate.actual", "gate.result",
           "summary.verdict_mismatch"]),
    dict(_case("performance.command_elapsed_below_samples", "runner-shorter-than-its-samples",
               [_set("/commands/0/elapsed_seconds", 1.0), _set("/commands/0/elapsed_seconds", 1.0, MANIFEST)], []),
         base="synthetic-smoke", expect={"verdict": "verified", "codes": [],
                                         "warnings": ["performance.command_elapsed_below_samples"]}),
    _case("performance.rss_unsupported_platform", "rss-samples-on-another-platform",
          [_set("/environment/os", "Windows", f) for f in (MANIFEST, EVIDENCE, REPORT)],
          ["performance.rss_unsupported_platform"]),
]
