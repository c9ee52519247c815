"""Performance family: the real bundle's published figures recomputed from raw samples, and broken inputs.

Published figures (spec 20 section 13, the bundle's summary): 143,057.2 docs/s at 13,201 patterns, 6,810.8 at
100k, 932,400.9 at 1k, 53,299.6 at 10k, 26,714.8 at 25k; whole-input median 0.699 ms; per-document median
9.021 us and p95 55.250 us; cold compile 7.792 s; break-even candidate_already_better at n = 1; decision grade
passed; all 378 statistic fields, 20 same-path and 12 cross-path comparisons match.
"""

from __future__ import annotations

import copy
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nerb_verify import schema_validation  # noqa: E402
from nerb_verify.bundle import open_bundle  # noqa: E402
from nerb_verify.checks import performance  # noqa: E402
from nerb_verify.checks.raw import schema_check  # noqa: E402
from nerb_verify.checks.performance import codes as C  # noqa: E402
from nerb_verify.checks.performance import hashes  # noqa: E402
from nerb_verify.checks.performance.breakeven import breakeven_result  # noqa: E402
from nerb_verify.checks.performance.decision import decimal_text  # noqa: E402
from nerb_verify.checks.performance.floatpolicy import double_matches  # noqa: E402
from nerb_verify.context import (  # noqa: E402
    EVIDENCE,
    PERFORMANCE_REPORT,
    VerifyContext,
    VerifyOptions,
)
from nerb_verify.findings import Collector  # noqa: E402

REAL = REPO / "fixtures" / "bundles" / "nerb-enron"


@pytest.fixture(scope="module")
def base_ctx() -> VerifyContext:
    ctx = VerifyContext(root=REAL, options=VerifyOptions(), collector=Collector())
    open_bundle(ctx)
    schema_check.run(ctx)
    return ctx


def fresh_ctx(base: VerifyContext, edit: Any = None) -> VerifyContext:
    """A new context over the real bundle's parsed artifacts (deep-copied), optionally edited, then the family run."""
    ctx = VerifyContext(root=REAL, options=VerifyOptions(), collector=Collector())
    ctx.files = base.files
    ctx.artifacts = {k: copy.deepcopy(v) for k, v in base.artifacts.items()}
    ctx.loaded = ctx.artifacts
    ctx.inventories = copy.deepcopy(base.inventories)
    if edit is not None:
        edit(ctx)
    performance.run(ctx)
    return ctx


@pytest.fixture(scope="module")
def real_ctx(base_ctx: VerifyContext) -> VerifyContext:
    return fresh_ctx(base_ctx)


def codes_of(ctx: VerifyContext) -> set[str]:
    return {f.code for f in ctx.collector.findings}


def test_real_bundle_has_no_performance_findings(real_ctx: VerifyContext) -> None:
    assert codes_of(real_ctx) == set()
    assert real_ctx.collector.checks_run["performance"]["status"] == "ran"


def test_all_378_statistics_are_recomputed_and_match(real_ctx: VerifyContext) -> None:
    stats = [r for r in real_ctx.collector.recomputed if r.figure.startswith("performance.stats.")]
    assert len(stats) == 378
    assert all(r.status == "match" for r in stats)
    assert all(r.pointer.startswith("/performance/workloads/") for r in stats)
    everything = [r for r in real_ctx.collector.recomputed if r.figure.startswith("performance.")]
    assert all(r.status == "match" for r in everything)


def test_comparisons_and_hashes_are_all_recorded(real_ctx: VerifyContext) -> None:
    figures = [r.figure for r in real_ctx.collector.recomputed]
    assert figures.count("performance.same_path.permutation_p_value") == 20
    assert figures.count("performance.same_path.result") == 20
    assert figures.count("performance.cross_path.noise_floor") == 12
    assert figures.count("performance.cross_path.result") == 12
    assert figures.count("performance.workload_sha256") == 42
    assert figures.count("performance.comparison_plan_sha256") == 32
    assert figures.count("performance.model_plan_sha256") == 1
    for name in ("performance.run_sha256", "performance.plan_sha256", "performance.breakeven.breakeven_units"):
        assert name in figures
    p_values = {r.pointer: r.exact for r in real_ctx.collector.recomputed
                if r.figure == "performance.same_path.permutation_p_value"}
    assert p_values["/performance/comparisons/3/permutation_p_value"] == "73/256"  # cold compile 292/1024


def test_published_headlines(real_ctx: VerifyContext) -> None:
    decision = real_ctx.collector.decisions["performance"]
    assert decision["decision_grade"] == "passed"
    assert decision["failure_codes"] == []
    by_size = {row["active_patterns"]: Fraction(row["documents_per_second"]["exact"]) for row in decision["bank_sizes"]}
    shown = {size: decimal_text(value, 1, True) for size, value in by_size.items()}
    assert shown == {1000: "932,400.9", 10000: "53,299.6", 13201: "143,057.2", 25000: "26,714.8",
                     100000: "6,810.8"}
    assert by_size[13201] == Fraction(100_000_000_000, 699_021)
    headline = decision["headline"]
    throughput = headline["whole_input_throughput"]
    assert decimal_text(Fraction(throughput["median_seconds"]["exact"]) * 1000, 3, False) == "0.699"
    latency = headline["document_latency"]
    assert Fraction(latency["median_seconds"]["exact"]) == Fraction(18041, 2_000_000_000)  # (9,000 + 9,041) / 2 ns
    assert decimal_text(Fraction(latency["median_seconds"]["exact"]) * 10**6, 3, False) == "9.021"
    assert decimal_text(Fraction(latency["p95_seconds"]["exact"]) * 10**6, 3, False) == "55.250"
    assert decimal_text(Fraction(headline["cold_compile_median_seconds"]["exact"]), 3, False) == "7.792"
    assert decision["breakeven"] == {"result": "candidate_already_better", "units": 1}
    table = "\n".join(real_ctx.shared["text.tables"][0])
    for text in ("143,057.2", "6,810.8", "932,400.9", "53,299.6", "26,714.8", "decision grade: passed"):
        assert text in table


def test_float_policy_deviation_is_reported(real_ctx: VerifyContext) -> None:
    policy = real_ctx.collector.decisions["performance"]["float_policy"]
    assert policy["policy"] == "exact_or_float_step_bit_identical"
    assert policy["matched_float_step_only"] > 0  # the MADs were computed in float steps
    assert 0 < policy["max_relative_deviation"] < 1e-11


def test_exact_figures_for_the_gates(real_ctx: VerifyContext) -> None:
    figures = real_ctx.figures
    assert figures["/performance/workloads/28/stats/documents_per_second"] == Fraction(100_000_000_000, 699_021)
    assert figures["/performance/workloads/28/stats/sample_count"] == 1000
    assert figures["/performance/workloads/25/stats/p99_seconds"] is None  # setup phase
    assert figures["/performance/workloads/25/stats/mad_seconds"] == Fraction(371696455, 10**10)
    assert isinstance(figures["/performance/workloads/28/peak_rss_bytes"], int)
    assert sum(1 for key in figures if key.startswith("/performance/workloads/")) == 42 * 10


def test_float_policy_accepts_exact_or_float_step_only() -> None:
    exact = Fraction(1, 1000)
    assert double_matches(0.001, exact, 0.0010000000000000009)  # exact producer (the synthetic fixture)
    assert double_matches(0.0010000000000000009, exact, 0.0010000000000000009)  # float-step producer
    assert not double_matches(0.0010000000000000002, exact, 0.0010000000000000009)  # neither
    assert not double_matches(True, Fraction(1), 1.0)
    assert double_matches(None, None, None) and not double_matches(0.0, None, None)


def test_hash_functions_reproduce_the_published_hashes() -> None:
    report = json.loads((REAL / PERFORMANCE_REPORT).read_text())
    assert hashes.plan_sha256(report) == report["plan_sha256"]
    assert hashes.run_sha256(report) == report["run_sha256"]
    assert hashes.performance_manifest_sha256(report["performance"]) == report["performance_manifest_sha256"]
    resealed = copy.deepcopy(report["performance"])
    hashes.reseal_performance_section(resealed)
    assert resealed == report["performance"]
    resealed["workloads"][0]["warmups"] = 4
    hashes.reseal_performance_section(resealed)
    assert resealed["workloads"][0]["workload_sha256"] != report["performance"]["workloads"][0]["workload_sha256"]


def test_schemas_accept_the_real_bundle_and_match_the_generator() -> None:
    from tools import write_performance_schemas as generator

    for name, text in generator.outputs().items():
        assert (REPO / "schemas" / name).read_text(encoding="utf-8") == text
    report = json.loads((REAL / PERFORMANCE_REPORT).read_text())
    evidence = json.loads((REAL / EVIDENCE).read_text())
    assert schema_validation.validate("nerb.enron_performance_run.v1.json", report) == []
    assert schema_validation.validate("nerb.enron_performance.v2.json", evidence["performance"]) == []
    broken = copy.deepcopy(evidence["performance"])
    broken["workloads"][0]["rss_samples_bytes"][0] = 1.5
    assert schema_validation.validate("nerb.enron_performance.v2.json", broken) != []


def test_breakeven_rule() -> None:
    f = Fraction
    assert breakeven_result(f(10), f(0), f(1), f(5), 1, 100) == ("finite_breakeven", 3)
    assert breakeven_result(f(10), f(0), f(5), f(5), 1, 100) == ("no_breakeven_within_range", None)
    assert breakeven_result(f(1), f(0), f(1), f(5), 1, 100) == ("candidate_already_better", 1)
    assert breakeven_result(f(1000), f(0), f(1), f(2), 1, 100) == ("no_breakeven_within_range", None)


def test_missing_performance_section_is_not_evaluated(base_ctx: VerifyContext) -> None:
    ctx = fresh_ctx(base_ctx, lambda c: c.artifacts[EVIDENCE].pop("performance"))
    assert ctx.collector.checks_run["performance"]["status"] == "not_evaluated"
    assert ctx.collector.decisions["performance"]["decision_grade"] == "not_evaluated"


def test_missing_report_fails_the_decision_closed(base_ctx: VerifyContext) -> None:
    ctx = fresh_ctx(base_ctx, lambda c: c.artifacts.pop(PERFORMANCE_REPORT))
    decision = ctx.collector.decisions["performance"]
    assert decision["decision_grade"] == "failed"
    assert "performance_report_unavailable" in decision["failure_codes"]


def test_malformed_values_become_findings_not_tracebacks(base_ctx: VerifyContext) -> None:
    def edit(ctx: VerifyContext) -> None:
        section = ctx.artifacts[EVIDENCE]["performance"]
        section["workloads"][3]["stats"] = "fast"
        section["workloads"][4]["samples_seconds"] = [True, "x"]
        section["comparisons"][0]["block_assignment"] = None
        section["breakeven_models"][0]["components"] = "none"
        section["banks"][0]["composition"] = []

    ctx = fresh_ctx(base_ctx, edit)
    found = codes_of(ctx)
    assert {C.INVALID_SAMPLE, C.STATISTIC_MISMATCH, C.SECTION_MALFORMED, C.BANK_COMPOSITION} <= found
    assert ctx.collector.decisions["performance"]["decision_grade"] == "failed"


def test_collections_of_the_wrong_type_fail_closed(base_ctx: VerifyContext) -> None:
    ctx = fresh_ctx(base_ctx, lambda c: c.artifacts[EVIDENCE]["performance"].__setitem__("workloads", {"a": 1}))
    assert C.SECTION_MALFORMED in codes_of(ctx)
    assert ctx.collector.decisions["performance"]["decision_grade"] == "failed"


def test_inventory_rows_of_the_wrong_shape(base_ctx: VerifyContext) -> None:
    ctx = fresh_ctx(base_ctx, lambda c: c.inventories.__setitem__("real_validation_inventory", [{"bytes": 1}]))
    assert C.INVENTORY_SHAPE in codes_of(ctx)


def test_messages_never_echo_input_strings(base_ctx: VerifyContext) -> None:
    secret = "someone@example.com"

    def edit(ctx: VerifyContext) -> None:
        section = ctx.artifacts[EVIDENCE]["performance"]
        section["harnesses"][0]["command_id"] = secret
        section["workloads"][0]["phase"] = secret

    ctx = fresh_ctx(base_ctx, edit)
    assert ctx.collector.findings
    for finding in ctx.collector.findings:
        assert secret not in finding.message and secret not in finding.pointer


def test_every_code_is_documented() -> None:
    from nerb_verify.codes import REGISTRY

    text = (REPO / "docs" / "findings" / "performance.md").read_text(encoding="utf-8")
    for code in REGISTRY:
        if code.startswith("performance."):
            assert f"## `{code}`" in text, code


def test_every_code_has_a_broken_fixture_or_a_documented_exemption() -> None:
    from nerb_verify.codes import REGISTRY
    from tools.mutations import decision_scope, synthetic
    from tools.mutations import performance as mutations

    covered = {case["code"] for case in mutations.CASES + decision_scope.CASES + synthetic.CASES}
    exempt = {"performance.section_malformed", "performance.inventory_shape"}
    for code in REGISTRY:
        if code.startswith("performance."):
            assert code in covered or code in exempt, code
    for case in mutations.CASES:  # a warning's fixture names its code among the warnings (the bundle verifies)
        assert case["code"] in case["expect"]["codes"] + case["expect"].get("warnings", [])


def test_block_assignment_and_abba_schedule() -> None:
    from nerb_verify.checks.performance.blocks import (
        abba_labels,
        block_assignment,
        split_blocks,
    )

    assignment = block_assignment(10)
    assert assignment == ["control_first", "candidate_first", "control_first", "candidate_first", "control_first",
                          "candidate_first", "control_first", "control_first", "candidate_first", "candidate_first"]
    assert assignment.count("candidate_first") == 5
    assert abba_labels("candidate_first", 2) == ["candidate", "control", "control", "candidate"]
    assert abba_labels("control_first", 2) == ["control", "candidate", "candidate", "control"]
    labels = abba_labels("candidate_first", 10)
    assert labels.count("candidate") == labels.count("control") == 10
    assert split_blocks(list(range(20)), 10) == [[2 * i, 2 * i + 1] for i in range(10)]
    assert split_blocks(list(range(19)), 10) is None


# ------------------------------------------------------------------------------ exact protocol counts (issue 16)

def _position(ctx: VerifyContext, workload_id: str) -> int:
    return next(i for i, w in enumerate(ctx.artifacts[EVIDENCE]["performance"]["workloads"]) if w["id"] == workload_id)


def _protocol_pointers(ctx: VerifyContext) -> set[str]:
    return {f.pointer for f in ctx.collector.findings if f.code == C.PROTOCOL_COUNT}


def test_frozen_sample_census_of_the_real_bundle(base_ctx: VerifyContext) -> None:
    """Spec 20 section 3: 26 x 1000, 10 x 100 and 6 x 20 samples, each exactly its cell's frozen count."""
    from collections import Counter

    from nerb_verify.checks.performance.protocol import frozen_sample_count

    workloads = base_ctx.artifacts[EVIDENCE]["performance"]["workloads"]
    assert Counter(frozen_sample_count(w) for w in workloads) == {1000: 26, 100: 10, 20: 6}
    assert all(len(w["samples_seconds"]) == frozen_sample_count(w) for w in workloads)


@pytest.mark.parametrize("workload_id,extra", [("explore_generic_email_regex", 1), ("control_real_cold_compile", 2),
                                               ("real_direct_throughput", 100), ("real_helper_cache_hit", 10)])
def test_more_samples_than_the_frozen_count_is_a_protocol_count(base_ctx: VerifyContext, workload_id: str,
                                                                 extra: int) -> None:
    def edit(ctx: VerifyContext) -> None:
        workload = ctx.artifacts[EVIDENCE]["performance"]["workloads"][_position(ctx, workload_id)]
        workload["samples_seconds"] += workload["samples_seconds"][:extra]
        workload["rss_samples_bytes"] += workload["rss_samples_bytes"][:extra]

    ctx = fresh_ctx(base_ctx, edit)
    assert _protocol_pointers(ctx) == {f"/performance/workloads/{_position(ctx, workload_id)}/samples_seconds"}


def test_a_decision_cell_below_its_minimum_is_reported_once_as_sample_support(base_ctx: VerifyContext) -> None:
    def edit(ctx: VerifyContext) -> None:
        workload = ctx.artifacts[EVIDENCE]["performance"]["workloads"][_position(ctx, "real_cold_compile")]
        del workload["samples_seconds"][-2:], workload["rss_samples_bytes"][-2:]

    ctx = fresh_ctx(base_ctx, edit)
    assert C.SAMPLE_SUPPORT in codes_of(ctx) and _protocol_pointers(ctx) == set()


def test_a_sample_is_one_work_unit(base_ctx: VerifyContext) -> None:
    def edit(ctx: VerifyContext) -> None:
        ctx.artifacts[EVIDENCE]["performance"]["workloads"][_position(ctx, "explore_python_literal_scan")][
            "work_per_sample"] = 2

    ctx = fresh_ctx(base_ctx, edit)
    assert f"/performance/workloads/{_position(ctx, 'explore_python_literal_scan')}/work_per_sample" in \
        _protocol_pointers(ctx)


def test_the_frozen_request_is_the_100_document_input(base_ctx: VerifyContext) -> None:
    """Charter: one request is one scan of all 100 documents of the frozen input (and a document block one pass)."""
    def edit(ctx: VerifyContext) -> None:
        for item in ctx.artifacts[EVIDENCE]["performance"]["inputs"]:
            if item["id"] == "real_validation_input":
                item["documents"] = 99

    ctx = fresh_ctx(base_ctx, edit)
    components = ctx.artifacts[EVIDENCE]["performance"]["breakeven_models"][0]["components"]
    request = {f"/performance/breakeven_models/0/components/{i}/workload_id" for i, c in enumerate(components)
               if c["source"] == "workload_seconds_per_request" and c["workload_id"] in (
                   "real_direct_throughput", "real_helper_cache_miss")}
    latency = f"/performance/workloads/{_position(ctx, 'real_direct_latency')}/input_id"
    assert _protocol_pointers(ctx) == request | {latency}


def test_a_smoke_report_has_its_own_counts(base_ctx: VerifyContext) -> None:
    ctx = fresh_ctx(base_ctx, lambda c: c.artifacts[PERFORMANCE_REPORT].__setitem__("profile", "smoke"))
    assert C.SMOKE_PROFILE_SHAPE in codes_of(ctx) and _protocol_pointers(ctx) == set()


# ------------------------------------------------------------------------------------ harness records (issue 16)

def _harness_findings(ctx: VerifyContext) -> set[str]:
    return {f.pointer for f in ctx.collector.findings if f.code == C.HARNESS_COMMAND_FAILED}


@pytest.mark.parametrize("field,value", [("exit_status", 1), ("exit_status", -9), ("elapsed_seconds", 7200.5)])
def test_a_decision_grade_command_must_record_success(base_ctx: VerifyContext, field: str, value: Any) -> None:
    ctx = fresh_ctx(base_ctx, lambda c: c.artifacts[EVIDENCE]["commands"][0].__setitem__(field, value))
    assert _harness_findings(ctx) == {"/commands/0"}
    assert ctx.collector.decisions["performance"]["decision_grade"] == "failed"


def test_success_within_the_timeout_and_non_decision_commands_pass(base_ctx: VerifyContext) -> None:
    def edit(ctx: VerifyContext) -> None:
        evidence = ctx.artifacts[EVIDENCE]
        evidence["commands"][0]["elapsed_seconds"] = 7200.0  # exactly the timeout still succeeds
        evidence["commands"].append(dict(evidence["commands"][0], id="exploratory_runner", exit_status=1))
        for harness in evidence["performance"]["harnesses"]:
            if harness["id"] == "generic_regex_harness":  # measures only the non-decision explore cell
                harness["command_id"] = "exploratory_runner"

    assert _harness_findings(fresh_ctx(base_ctx, edit)) == set()
