"""The derivation model (docs/derivation.md): no leaf of a base bundle is unclassified, the table has no dead or
malformed row, and the classifier itself reports a leaf nothing classifies."""

from __future__ import annotations

import copy
import importlib
import json

import pytest

from nerb_verify import catalog, derivation, schema_validation
from nerb_verify.report import build_report

from contract_tests.conftest import REPO, run_cli, verify_dir

BASES = ("nerb-enron", "synthetic-smoke")


@pytest.fixture(scope="module")
def results():
    """One verification per base bundle, shared by this module's tests."""
    return {base: verify_dir(REPO / "fixtures" / "bundles" / base) for base in BASES}


@pytest.mark.parametrize("base", BASES)
def test_no_leaf_is_unclassified(results, base: str) -> None:
    result = results[base]
    assert result.verdict == "verified"
    coverage = derivation.classify(result.ctx)
    assert coverage.unclassified == []
    totals = coverage.totals()
    assert totals.unclassified == 0
    assert totals.total == totals.derived + totals.primitive > 0
    # Every artifact of the bundle, JSON and rendered, was walked.
    walked = set(coverage.artifacts)
    assert {"benchmark-evidence.json", "publication.json", "summary.md", "figures/{name}.svg"} <= walked


@pytest.mark.parametrize("base", BASES)
def test_no_leaf_is_a_known_gap(results, base: str) -> None:
    """Issue 16: every leaf that should be bound or derived is; the table keeps no `unchecked` row, and no leaf of
    either base is counted as one."""
    assert [row.pointer for row in derivation.load_table() if row.policy == "unchecked"] == []
    assert derivation.classify(results[base].ctx).totals().by_policy.get("unchecked", 0) == 0


def test_every_table_row_matches_a_leaf_of_a_base(results) -> None:
    used: set[tuple[str, str]] = set()
    for result in results.values():
        used |= derivation.classify(result.ctx).used_rows
    dead = [(row.artifact, row.pointer) for row in derivation.load_table() if (row.artifact, row.pointer) not in used]
    assert dead == []


def test_every_row_names_a_policy_or_a_check_that_exists() -> None:
    rows = derivation.load_table()
    codes = {info.code for info in catalog.all_codes()}
    seen: set[tuple[str, str]] = set()
    for row in rows:
        assert (row.artifact, row.pointer) not in seen, "a pattern is listed twice"
        seen.add((row.artifact, row.pointer))
        assert "@key" not in row.pointer, "a keyed map is a named wildcard {name}, never a position"
        if row.kind == "primitive":
            assert row.policy in derivation.POLICIES
            assert row.reason and len(row.reason.split()) >= 4
        else:
            assert row.function is not None
        if row.check is not None:
            assert row.check in codes, row.check
        if row.function is not None:
            module, _, name = row.function.rpartition(".")
            assert callable(getattr(importlib.import_module(module), name))


def test_table_shape_is_enforced() -> None:
    good = {"schema_version": derivation.TABLE_SCHEMA_VERSION, "rows": [
        {"artifact": "publication.json", "class": "primitive", "policy": "frozen", "reason": "a schema constant",
         "pointers": ["/schema_version"]}]}
    assert [r.policy for r in derivation.parse_table(good)] == ["frozen"]
    for change in ({"policy": "trusted"}, {"reason": ""}, {"class": "maybe"}, {"pointers": []},
                   {"policy": "identity"}, {"pointers": ["schema_version"]}):
        bad = copy.deepcopy(good)
        bad["rows"][0].update(change)
        with pytest.raises(derivation.TableError):
            derivation.parse_table(bad)
    derived = {"schema_version": derivation.TABLE_SCHEMA_VERSION, "rows": [
        {"artifact": "publication.json", "class": "derived", "pointers": ["/publication_sha256"]}]}
    with pytest.raises(derivation.TableError):
        derivation.parse_table(derived)


def test_the_classifier_reports_a_made_up_leaf(results) -> None:
    ctx = results["synthetic-smoke"].ctx
    evidence = ctx.loaded["benchmark-evidence.json"]
    forged = copy.copy(ctx.loaded)
    forged["benchmark-evidence.json"] = dict(evidence, quality=dict(evidence["quality"], made_up_leaf=1))
    original = ctx.loaded
    ctx.loaded = forged
    try:
        coverage = derivation.classify(ctx)
    finally:
        ctx.loaded = original
    assert coverage.unclassified == [("benchmark-evidence.json", "/quality/@key")]
    assert coverage.artifacts["benchmark-evidence.json"].unclassified == 1


def test_a_recorded_leaf_is_derived_and_an_unmatched_row_set_leaves_leaves_unclassified(results) -> None:
    ctx = results["synthetic-smoke"].ctx
    bare = derivation.classify(ctx, rows=[])
    # With no table only recorded figures are derived; everything else is unclassified, never primitive.
    recorded = {(item.artifact, item.pointer) for item in ctx.collector.recomputed}
    assert bare.totals().derived == sum(
        1 for artifact, pointer in recorded
        if artifact in ctx.loaded and derivation_resolves(ctx.loaded[artifact], pointer))
    assert bare.totals().primitive == 0
    assert bare.totals().unclassified > 0


def derivation_resolves(document: object, pointer: str) -> bool:
    """True when a recorded pointer names a leaf (not a container) of the document."""
    return any(concrete == pointer for concrete, _ in derivation.json_leaves(document))


def test_rendered_numbers_are_derived_only_when_the_summary_family_ran(results) -> None:
    ctx = results["synthetic-smoke"].ctx
    status = ctx.collector.checks_run["summary"]
    ctx.collector.checks_run["summary"] = {"status": "not_evaluated"}
    try:
        coverage = derivation.classify(ctx)
    finally:
        ctx.collector.checks_run["summary"] = status
    assert coverage.artifacts["summary.md"].unclassified == coverage.artifacts["summary.md"].total > 0


def test_coverage_is_in_the_json_report_only_when_asked(results) -> None:
    result = results["nerb-enron"]
    assert "derivation" not in build_report(result)
    report = build_report(result, derivation.classify(result.ctx))
    assert schema_validation.validate("nerb_verify.report.v1.json", report) == []
    assert report["derivation"]["totals"]["unclassified"] == 0


def test_verify_coverage_prints_the_counts() -> None:
    out = run_cli("verify", "fixtures/bundles/synthetic-smoke", "--coverage")
    assert out.code == 0, out.stderr
    assert "Derivation coverage (leaves): derived, primitive, unclassified, total" in out.stdout
    assert "unclassified:" not in out.stdout
    plain = run_cli("verify", "fixtures/bundles/synthetic-smoke", "--format", "json")
    assert "derivation" not in json.loads(plain.stdout)
