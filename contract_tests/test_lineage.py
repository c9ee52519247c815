"""Lineage family: sealed-test access, append-only lineage, trusted prefix, audit chain, audit-plan copies.

Expected values come from the spec (10-manifest-evidence.md sections 5.3, 5.4, 7, 9.5, 9.6) and the real bundle's
published hashes; every mutation is built in memory from the real evidence and, where a producer would have
recomputed hashes, re-sealed so that only the lineage rule can catch it.
"""

from __future__ import annotations

import copy
import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "contract_tests"))

from evidence_helpers import (  # noqa: E402
    all_figures,
    codes,
    make_ctx,
    real_evidence,
    real_manifest,
    reseal,
    run_families,
)

from nerb_verify import timestamps  # noqa: E402
from nerb_verify.checks.provenance import lineage  # noqa: E402
from tools.mutations.lineage import (  # noqa: E402
    add_predecessors_dict,
    add_successor_dict,
    relink_dict,
    set_and_rehash_entries_dict,
)

PUBLISHED_ENTRY = "sha256:8105afe6f86f13f01e521b9e94fe256d6c960aecd3144104892b98124b7738c3"
PUBLISHED_CHAIN = "sha256:beebdf6016bdb1e6aa49e1593d624d3c352c665ee2e8b30318119bbe8681234a"
OTHER = "sha256:" + "1" * 64


def run_lineage(evidence: dict[str, Any], manifest: dict[str, Any] | None = None, **options: Any):
    manifest = real_manifest() if manifest is None else manifest
    return run_families(make_ctx(evidence, manifest, all_figures(evidence), **options), lineage.run)


def lineage_codes(evidence: dict[str, Any], **options: Any) -> set[str]:
    return codes(run_lineage(evidence, **options), "lineage")


# -- the real bundle ---------------------------------------------------------------------------------------------------
def test_real_bundle_has_no_lineage_findings_and_reproduces_published_hashes() -> None:
    ctx = run_lineage(real_evidence())
    assert codes(ctx) == set()
    figures = {r.figure: r for r in ctx.collector.recomputed}
    assert figures["lineage.entry_sha256"].exact == PUBLISHED_ENTRY
    assert figures["lineage.entry_sha256"].status == "match"
    assert figures["lineage.head_sha256"].exact == PUBLISHED_ENTRY
    assert figures["audit_chain.chain_sha256"].exact == PUBLISHED_CHAIN
    assert figures["audit_chain.quality_decision_passed"].exact == "false"
    assert figures["audit_chain.quality_decision_passed"].status == "match"


def test_without_trusted_lineage_the_append_only_check_is_recorded_as_not_run() -> None:
    ctx = run_lineage(real_evidence())
    assert ctx.collector.checks_run["lineage"]["append_only"] == "not_run_no_trusted_lineage"


def test_missing_evidence_is_not_evaluated_never_passed() -> None:
    ctx = run_families(make_ctx(None), lineage.run)
    assert ctx.collector.checks_run["lineage"]["status"] == "not_evaluated"


# -- one rule at a time --------------------------------------------------------------------------------------------------
def _set(evidence: dict[str, Any], pointer: str, value: Any) -> None:
    parts = pointer.split("/")[1:]
    node: Any = evidence
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if isinstance(node, list):
        node[int(parts[-1])] = value
    else:
        node[parts[-1]] = value


def sets(*pairs: tuple[str, Any]) -> Callable[[dict[str, Any]], None]:
    def apply(evidence: dict[str, Any]) -> None:
        for pointer, value in pairs:
            _set(evidence, pointer, value)
    return apply


def then(*steps: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def apply(evidence: dict[str, Any]) -> None:
        for step in steps:
            step(evidence)
    return apply


L0 = "/test_access/lineage/0"
FT = "/test_access/frozen_target"
NAIVE = "2026-07-15T09:26:30.373967"

# (name, mutation, reseal afterwards, exact set of lineage codes expected)
CASES: list[tuple[str, Callable[[dict[str, Any]], None], bool, set[str]]] = [
    ("test-optimized", sets(("/test_access/optimization_roles", ["train", "test"])), True,
     {"lineage.test_optimized"}),
    ("accessed-at-differs", sets(("/test_access/current_version_accessed_at", "2026-07-15T09:30:34Z")), True,
     {"lineage.access_timestamp"}),
    ("count-zero-but-timestamp", sets(("/test_access/current_version_access_count", 0), (L0 + "/benchmark_version",
                                                                                         "enron-old")), True,
     {"lineage.access_timestamp", "lineage.aggregate_without_access"}),
    ("count-two", sets(("/test_access/current_version_access_count", 2)), True, {"lineage.repeated_access"}),
    ("naive-frozen-at", sets((FT + "/frozen_at", NAIVE), (L0 + "/frozen_target/frozen_at", NAIVE)), True,
     {"lineage.invalid_timestamp"}),
    ("unparseable-accessed-at", sets((L0 + "/accessed_at", "yesterday"),
                                     ("/test_access/current_version_accessed_at", "yesterday")), True,
     {"lineage.invalid_timestamp"}),
    ("space-separated-timestamp", sets((L0 + "/accessed_at", "2026-07-15 09:30:33Z"),
                                       ("/test_access/current_version_accessed_at", "2026-07-15 09:30:33Z")), True,
     {"lineage.invalid_timestamp"}),
    *[(f"frozen-{field}", sets((FT + "/" + field, value), (L0 + "/frozen_target/" + field, value)), True,
       {"lineage.freeze_mismatch"})
      for field, value in (("bank_hash", OTHER), ("evaluator_source_sha256", OTHER), ("split_manifest_sha256", OTHER),
                           ("test_artifact_sha256", OTHER), ("performance_manifest_sha256", OTHER),
                           ("git_commit", "0" * 39 + "1"))],
    ("frozen-audit-plan", sets((FT + "/audit_plan_sha256", OTHER), (L0 + "/frozen_target/audit_plan_sha256", OTHER)),
     True, {"lineage.audit_plan_mismatch"}),
    ("version-not-manifest", sets(("/test_access/benchmark_version", "b"), (L0 + "/benchmark_version", "b")), True,
     {"lineage.benchmark_version_mismatch"}),
    ("frozen-before-manifest", sets((FT + "/frozen_at", "2026-07-15T09:26:30.373966Z"),
                                    (L0 + "/frozen_target/frozen_at", "2026-07-15T09:26:30.373966Z")), True,
     {"lineage.freeze_before_manifest"}),
    ("frozen-at-manifest-time-with-offset", sets((FT + "/frozen_at", "2026-07-15T11:26:30.373967+02:00"),
                                                 (L0 + "/frozen_target/frozen_at", "2026-07-15T11:26:30.373967+02:00")),
     True, set()),
    ("sequence-two", sets((L0 + "/sequence", 2)), True, {"lineage.sequence"}),
    ("sequence-bool", sets((L0 + "/sequence", True)), True, {"lineage.sequence"}),
    ("entry-edited-unsealed", sets((L0 + "/outcome", "aborted")), False,
     {"lineage.entry_hash_mismatch", "lineage.head_mismatch"}),
    ("entry-hash-replaced", sets((L0 + "/entry_sha256", OTHER)), False, {"lineage.entry_hash_mismatch"}),
    ("accessed-before-frozen", sets((FT + "/frozen_at", "2026-07-15T09:31:00Z"),
                                    (L0 + "/frozen_target/frozen_at", "2026-07-15T09:31:00Z")), True,
     {"lineage.access_before_freeze"}),
    ("origin-has-predecessor-version", sets((L0 + "/predecessor_benchmark_version", "enron-rc0")), True,
     {"lineage.origin"}),
    ("origin-discloses", sets((L0 + "/changes_informed_by_predecessor", ["bank_rebuild"])), True, {"lineage.origin"}),
    ("origin-links-hash", lambda e: set_and_rehash_entries_dict(e, L0 + "/previous_entry_sha256", OTHER), False,
     {"lineage.origin"}),
    ("head-replaced", sets(("/test_access/lineage_head_sha256", OTHER)), False, {"lineage.head_mismatch"}),
    ("head-null-with-entries", sets(("/test_access/lineage_head_sha256", None)), False, {"lineage.head_mismatch"}),
    ("current-under-old-version", sets((L0 + "/benchmark_version", "enron-old")), True, {"lineage.access_count"}),
    ("results-without-access", sets((L0 + "/benchmark_version", "enron-old"),
                                    ("/test_access/current_version_access_count", 0),
                                    ("/test_access/current_version_accessed_at", None)), True,
     {"lineage.aggregate_without_access"}),
    ("entry-frozen-differently", sets((L0 + "/frozen_target/frozen_at", "2026-07-15T09:27:00Z")), True,
     {"lineage.current_freeze_mismatch"}),
    ("evidence-before-access", sets(("/created_at", "2026-07-15T09:30:00Z")), True,
     {"lineage.evidence_before_access"}),
    ("promoted-after-failed-access", sets(("/promotion/passed", True), (L0 + "/outcome", "failed")), True,
     {"lineage.failed_test_promotion", "lineage.trusted_lineage_required"}),
    ("verifier-passed-without-trusted", sets(("/verifier/passed", True)), True, {"lineage.trusted_lineage_required"}),
    # Longer lineages: a valid base first, then one break.
    ("two-predecessors-valid", lambda e: add_predecessors_dict(e, 2), False, set()),
    ("successor-after-current", add_successor_dict, False, {"lineage.current_not_head"}),
    ("predecessor-version-reused", then(lambda e: add_predecessors_dict(e, 2),
                                        sets(("/test_access/lineage/1/benchmark_version", "enron-rc1"),
                                             ("/test_access/lineage/2/predecessor_benchmark_version", "enron-rc1"))),
     True, {"lineage.version_reused"}),
    ("predecessor-test-reused", then(lambda e: add_predecessors_dict(e, 1),
                                     sets(("/test_access/lineage/0/frozen_target/test_artifact_sha256",
                                           "sha256:65fd4b403661a42d9895cfc33d1e293d50952be48e00ca9679faa6778edccbcf"))),
     True, {"lineage.test_artifact_reused"}),
    ("predecessor-same-instant", then(lambda e: add_predecessors_dict(e, 1),
                                      sets(("/test_access/lineage/0/accessed_at", "2026-07-15T11:30:33.248206+02:00"),
                                           ("/test_access/lineage/0/frozen_target/frozen_at",
                                            "2026-07-15T09:00:00Z"))), True,
     {"lineage.timestamp_order", "lineage.successor_frozen_before_outcome"}),
    ("predecessor-plan-reused", then(lambda e: add_predecessors_dict(e, 1),
                                     sets(("/test_access/lineage/0/frozen_target/audit_plan_sha256",
                                           "sha256:761d5b34f8e9cb8665d73d33e4a9e0d591f0ebf2de1eaa76052a522c49571b30"))),
     True, {"lineage.audit_plan_reused"}),
    ("successor-plan-reused", then(add_successor_dict,
                                   sets(("/test_access/lineage/1/frozen_target/audit_plan_sha256",
                                         "sha256:761d5b34f8e9cb8665d73d33e4a9e0d591f0ebf2de1eaa76052a522c49571b30"))),
     True, {"lineage.current_not_head", "lineage.audit_plan_reused"}),
    ("successor-frozen-before-predecessor-read", then(lambda e: add_predecessors_dict(e, 1),
                                                      sets(("/test_access/lineage/0/accessed_at",
                                                            "2026-07-15T09:28:00Z"))),
     True, {"lineage.successor_frozen_before_outcome"}),
    ("successor-frozen-at-predecessor-read", then(lambda e: add_predecessors_dict(e, 1),
                                                  sets(("/test_access/lineage/0/accessed_at",
                                                        "2026-07-15T09:26:30.373967Z"))),
     True, {"lineage.successor_frozen_before_outcome"}),
    ("successor-frozen-just-after-predecessor-read", then(lambda e: add_predecessors_dict(e, 1),
                                                          sets(("/test_access/lineage/0/accessed_at",
                                                                "2026-07-15T09:26:30.373966Z"))),
     True, set()),
    ("link-broken", then(lambda e: add_predecessors_dict(e, 1),
                         lambda e: set_and_rehash_entries_dict(e, "/test_access/lineage/1/previous_entry_sha256",
                                                               OTHER)), False, {"lineage.predecessor_hash"}),
    ("wrong-predecessor-version", then(lambda e: add_predecessors_dict(e, 1),
                                       sets(("/test_access/lineage/1/predecessor_benchmark_version", "x"))), True,
     {"lineage.predecessor_version"}),
    ("no-disclosure", then(lambda e: add_predecessors_dict(e, 1),
                           sets(("/test_access/lineage/1/changes_informed_by_predecessor", []))), True,
     {"lineage.missing_disclosure"}),
    ("duplicated-entry", lambda e: e["test_access"]["lineage"].append(copy.deepcopy(e["test_access"]["lineage"][0])),
     True, {"lineage.sequence", "lineage.version_reused", "lineage.test_artifact_reused", "lineage.timestamp_order",
            "lineage.predecessor_version", "lineage.missing_disclosure", "lineage.access_count",
            "lineage.audit_plan_reused", "lineage.successor_frozen_before_outcome"}),
    # Audit chain.
    ("chain-hash-replaced", sets(("/audit_chain/chain_sha256", OTHER)), False, {"lineage.audit_chain_hash"}),
    ("chain-edited-unsealed", sets(("/audit_chain/gold/receipt_sha256", OTHER)), False, {"lineage.audit_chain_hash"}),
    *[(f"chain-binding-{stage}-{field}", sets((f"/audit_chain/{stage}/{field}", OTHER)), True,
       {"lineage.audit_chain_binding"})
      for stage, field in (("gold", "audit_output_binding_sha256"), ("catalog", "sample_artifact_sha256"),
                           ("score", "sample_artifact_sha256"), ("score", "gold_sha256"),
                           ("prediction_audit", "gold_sha256"), ("score", "catalog_binding_sha256"),
                           ("prediction_audit", "catalog_binding_sha256"),
                           ("prediction_audit", "score_manifest_sha256"), ("score", "evaluator_source_sha256"))],
    *[(f"chain-plan-{where}", sets((f"/audit_chain{where}/audit_plan_sha256", OTHER)), True,
       {"lineage.audit_plan_mismatch"}) for where in ("", "/gold", "/catalog", "/score", "/prediction_audit")],
    ("gold-unresolved", sets(("/audit_chain/gold/unresolved", 1)), True, {"lineage.audit_chain_unresolved"}),
    ("prediction-unresolved", sets(("/audit_chain/prediction_audit/unresolved_cases", 3)), True,
     {"lineage.audit_chain_unresolved"}),
    ("no-decision-hash", sets(("/audit_chain/score/quality_decision_sha256", None)), True,
     {"lineage.audit_chain_terminal"}),
    ("support-failures-on-scored", sets(("/audit_chain/score/support_failure_codes", ["documents_below_minimum"])),
     True, {"lineage.audit_chain_terminal"}),
    ("commitments-differ", sets(("/audit_chain/prediction_audit/prediction_commitment_sha256", OTHER)), True,
     {"lineage.audit_chain_terminal"}),
    ("failed-but-shipped", sets(("/audit_chain/prediction_audit/release", "quality_eligible")), True,
     {"lineage.audit_chain_terminal"}),
    ("gold-defect-without-defects", sets(("/audit_chain/prediction_audit/status", "invalidated_gold_defect")), True,
     {"lineage.audit_chain_terminal"}),
    ("gold-defect-valid", sets(("/audit_chain/prediction_audit/status", "invalidated_gold_defect"),
                               ("/audit_chain/prediction_audit/gold_defects", 2)), True, set()),
    ("accepted-with-failed-gates", sets(("/audit_chain/score/quality_decision_passed", True),
                                        ("/audit_chain/prediction_audit/status", "accepted"),
                                        ("/audit_chain/prediction_audit/decision_eligible", True),
                                        ("/audit_chain/prediction_audit/release", "quality_eligible")), True,
     {"lineage.audit_chain_quality_decision"}),
    ("decision-flag-flipped", sets(("/audit_chain/score/quality_decision_passed", True)), True,
     {"lineage.audit_chain_quality_decision", "lineage.audit_chain_terminal"}),
    ("catalog-not-completed", sets(("/audit_chain/catalog/status", "pending")), True,
     {"lineage.audit_chain_terminal"}),
]


@pytest.mark.parametrize("name,mutate,seal,expected", CASES, ids=[c[0] for c in CASES])
def test_each_rule_raises_exactly_its_code(name: str, mutate: Callable[[dict[str, Any]], None], seal: bool,
                                           expected: set[str]) -> None:
    evidence = real_evidence()
    mutate(evidence)
    if seal:
        reseal(evidence)
    assert lineage_codes(evidence) == expected


@pytest.mark.parametrize(("manifest_created", "evidence_created", "expected"), [
    # Unparseable or naive creation times are errors, never a silently skipped ordering.
    ("15 July 2026", None, {("lineage.invalid_timestamp", "benchmark-manifest.json")}),
    (NAIVE, None, {("lineage.invalid_timestamp", "benchmark-manifest.json")}),
    (None, "2026-07-15T10:55:05", {("lineage.invalid_timestamp", "benchmark-evidence.json")}),
    # The evidence cannot predate the manifest it evaluates (nor, here, the access it reports).
    (None, "2026-07-15T09:26:30.373966Z", {("lineage.evidence_before_manifest", "benchmark-evidence.json"),
                                           ("lineage.evidence_before_access", "benchmark-evidence.json")}),
    # Equal instants in another offset are in order.
    ("2026-07-15T11:26:30.373967+02:00", "2026-07-15T12:55:05+02:00", set()),
])
def test_creation_times_parse_and_order(manifest_created: str | None, evidence_created: str | None,
                                        expected: set[tuple[str, str]]) -> None:
    manifest, evidence = real_manifest(), real_evidence()
    if manifest_created is not None:
        manifest["created_at"] = manifest_created
    if evidence_created is not None:
        evidence["created_at"] = evidence_created
    ctx = run_lineage(evidence, manifest)
    assert {(f.code, f.artifact) for f in ctx.collector.findings if f.code.startswith("lineage.")} == expected


def test_evidence_before_manifest_without_any_access() -> None:
    """With no test access there is no access time to order against: the manifest still bounds the evidence."""
    manifest, evidence = real_manifest(), real_evidence()
    manifest["created_at"] = "2026-07-15T11:00:00Z"
    ta = evidence["test_access"]
    ta.update(current_version_access_count=0, current_version_accessed_at=None, lineage=[],
              lineage_head_sha256=None)
    ta["frozen_target"]["frozen_at"] = "2026-07-15T11:00:00Z"
    got = codes(run_lineage(evidence, manifest), "lineage")
    assert "lineage.evidence_before_manifest" in got
    manifest["created_at"] = "2026-07-15T10:55:05Z"
    assert "lineage.evidence_before_manifest" not in codes(run_lineage(evidence, manifest), "lineage")


def test_findings_point_at_the_offending_field() -> None:
    evidence = real_evidence()
    add_predecessors_dict(evidence, 1)
    evidence["test_access"]["lineage"][1]["predecessor_benchmark_version"] = "x"
    reseal(evidence)
    ctx = run_lineage(evidence)
    [finding] = [f for f in ctx.collector.findings if f.code.startswith("lineage.")]
    assert finding.pointer == "/test_access/lineage/1/predecessor_benchmark_version"
    assert finding.artifact == "benchmark-evidence.json"


def insufficient_support(evidence: dict[str, Any]) -> None:
    """Turn the real chain into a valid insufficient-support terminal."""
    score = evidence["audit_chain"]["score"]
    score.update(status="insufficient_support", support_failure_codes=["documents_below_minimum",
                                                                       "gold_spans_below_minimum"],
                 artifacts_sha256=lineage.EMPTY_AUDIT_ARTIFACTS_SHA256, prediction_commitment_sha256=None,
                 quality_decision_sha256=None, quality_decision_passed=False)
    audit = evidence["audit_chain"]["prediction_audit"]
    audit.update(status="not_run_insufficient_support", receipt_sha256=None, manifest_sha256=None,
                 artifacts_sha256=None, prediction_commitment_sha256=None, gold_defects=0, decision_eligible=False,
                 release="do_not_ship")


def test_valid_insufficient_support_terminal() -> None:
    evidence = real_evidence()
    insufficient_support(evidence)
    reseal(evidence)
    assert lineage_codes(evidence) == set()


@pytest.mark.parametrize("pointer,value", [
    ("/audit_chain/score/support_failure_codes", ["gold_spans_below_minimum", "documents_below_minimum"]),
    ("/audit_chain/score/support_failure_codes", []),
    ("/audit_chain/score/support_failure_codes", ["documents_below_minimum", "documents_below_minimum"]),
    ("/audit_chain/score/support_failure_codes", ["not_a_code"]),
    ("/audit_chain/score/artifacts_sha256", OTHER),
    ("/audit_chain/score/quality_decision_passed", True),
    ("/audit_chain/prediction_audit/receipt_sha256", OTHER),
    ("/audit_chain/prediction_audit/status", "quality_gates_failed"),
    ("/audit_chain/prediction_audit/release", "quality_eligible"),
])
def test_insufficient_support_terminal_rules(pointer: str, value: Any) -> None:
    evidence = real_evidence()
    insufficient_support(evidence)
    _set(evidence, pointer, value)
    reseal(evidence)
    assert lineage_codes(evidence) == {"lineage.audit_chain_terminal"}


# -- recomputed quality decision ----------------------------------------------------------------------------------------
def test_quality_decision_is_unknown_without_figures_unless_a_gate_already_fails() -> None:
    evidence = real_evidence()
    assert lineage.recompute_quality_decision(evidence, {}) is False  # cataloged_false_negative 4 != 0 (stored int)
    evidence["promotion"]["checks"] = [c for c in evidence["promotion"]["checks"]
                                       if c["target"].startswith("/quality/slices/0/metrics/")]
    assert lineage.recompute_quality_decision(evidence, {}) is None
    assert lineage.recompute_quality_decision(evidence, all_figures(evidence)) is False


def test_quality_decision_is_false_without_quality_gates() -> None:
    evidence = real_evidence()
    evidence["promotion"]["checks"] = [c for c in evidence["promotion"]["checks"] if c["category"] != "quality"]
    assert lineage.recompute_quality_decision(evidence, all_figures(evidence)) is False


# -- trusted lineage (append-only) ---------------------------------------------------------------------------------------
def longer_evidence() -> dict[str, Any]:
    evidence = real_evidence()
    add_predecessors_dict(evidence, 2)
    reseal(evidence)
    return evidence


@pytest.mark.parametrize("trusted_of,expected", [
    (lambda lin: [], set()),
    (lambda lin: lin[:1], set()),
    (lambda lin: lin[:2], set()),
    (lambda lin: lin[:3], set()),
    (lambda lin: lin[1:2], {"lineage.not_append_only"}),          # the first entry was dropped
    (lambda lin: lin[:2] + [lin[0]], {"lineage.not_append_only"}),
    (lambda lin: lin + [lin[0]], {"lineage.not_append_only"}),      # trusted is longer than this lineage
    (lambda lin: [dict(lin[0], outcome="passed")], {"lineage.not_append_only"}),   # rewritten history
    (lambda lin: [dict(lin[0], sequence=1.0)], {"lineage.not_append_only"}),        # type-strict comparison
    (lambda lin: [1, 2], {"lineage.trusted_lineage_shape"}),
    (lambda lin: "not a list", {"lineage.trusted_lineage_shape"}),
])
def test_trusted_lineage_must_be_a_prefix(trusted_of: Callable[[list[Any]], Any], expected: set[str]) -> None:
    evidence = longer_evidence()
    trusted = copy.deepcopy(trusted_of(evidence["test_access"]["lineage"]))
    ctx = run_lineage(evidence, trusted_lineage=trusted)
    assert codes(ctx, "lineage") == expected
    if not expected:
        assert ctx.collector.checks_run["lineage"]["append_only"] == "ran"


def test_dropping_a_failed_entry_is_caught_against_the_trusted_lineage() -> None:
    published = longer_evidence()
    trusted = copy.deepcopy(published["test_access"]["lineage"][:2])
    rewritten = real_evidence()
    add_predecessors_dict(rewritten, 1)  # one failed predecessor hidden: a shorter, self-consistent lineage
    reseal(rewritten)
    assert lineage_codes(rewritten) == set()
    assert lineage_codes(rewritten, trusted_lineage=trusted) == {"lineage.not_append_only"}


def test_promoted_bundle_with_trusted_lineage_does_not_need_one_more() -> None:
    evidence = real_evidence()
    evidence["promotion"]["passed"] = True
    reseal(evidence)
    assert "lineage.trusted_lineage_required" in lineage_codes(evidence)
    assert "lineage.trusted_lineage_required" not in lineage_codes(evidence, trusted_lineage=[])


def test_trusted_lineage_finding_never_echoes_the_path(tmp_path: Path) -> None:
    from contract_tests.conftest import REAL_BUNDLE, run_cli

    secret_dir = tmp_path / "private-name-8675309"
    secret_dir.mkdir()
    trusted = secret_dir / "lineage.json"
    trusted.write_text(json.dumps([1, 2]), encoding="utf-8")
    result = run_cli("verify", str(REAL_BUNDLE), "--format", "json", "--trusted-lineage", str(trusted))
    report = json.loads(result.stdout)
    found = [f for f in report["findings"] if f["code"].startswith("lineage.")]
    assert [f["code"] for f in found] == ["lineage.trusted_lineage_shape"]
    assert "8675309" not in result.stdout


def test_cli_accepts_the_correct_prefix(tmp_path: Path) -> None:
    from contract_tests.conftest import REAL_BUNDLE, run_cli

    trusted = tmp_path / "lineage.json"
    trusted.write_text("[]", encoding="utf-8")
    result = run_cli("verify", str(REAL_BUNDLE), "--format", "json", "--trusted-lineage", str(trusted))
    report = json.loads(result.stdout)
    assert not [f for f in report["findings"] if f["code"].startswith("lineage.")]


# -- hostile shapes never crash --------------------------------------------------------------------------------------
json_values = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False,
                                                                                       allow_infinity=False)
                           | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                       max_size=3), max_leaves=8)


@settings(max_examples=60, deadline=None)
@given(where=st.sampled_from(["/test_access", "/audit_chain", "/test_access/lineage", "/test_access/lineage/0",
                              "/test_access/frozen_target", "/audit_chain/score", "/audit_chain/prediction_audit",
                              "/test_access/lineage/0/frozen_target", "/promotion/checks"]),
       value=json_values)
def test_hostile_shapes_give_findings_not_tracebacks(where: str, value: Any) -> None:
    evidence = real_evidence()
    _set(evidence, where, value)
    ctx = run_lineage(evidence, trusted_lineage=[value] if isinstance(value, dict) else None)
    assert ctx.collector.checks_run["lineage"]["status"] in ("ran", "not_evaluated")


# -- timestamps ------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,naive", [
    ("2026-07-15T09:30:33", True),
    ("2026-07-15T09:30:33.5", True),
    ("2026-07-15 09:30:33Z", False),
    ("2026-07-15t09:30:33Z", False),
    ("2026-07-15T09:30:60Z", False),
    ("2026-02-30T09:30:33Z", False),
    ("2026-07-15T09:30:33+24:00", False),
    ("2026-07-15T09:30Z", False),
    ("20260715T093033Z", False),
    ("", False),
    (None, False),
    (1752571833, False),
])
def test_timestamps_that_are_refused(text: Any, naive: bool) -> None:
    with pytest.raises(timestamps.TimestampError) as caught:
        timestamps.parse(text)
    assert caught.value.naive is naive


def test_timestamps_compare_exactly_across_offsets_and_beyond_microseconds() -> None:
    parse = timestamps.parse
    assert parse("2026-07-15T11:30:33+02:00") == parse("2026-07-15T09:30:33Z")
    assert parse("2026-07-15T09:30:33.1234567Z") > parse("2026-07-15T09:30:33.123456Z")
    assert parse("2026-07-15T09:30:33.10Z") == parse("2026-07-15T09:30:33.1Z")
    assert parse("2026-07-15T00:30:00-01:00") > parse("2026-07-15T01:00:00+00:00")


@settings(max_examples=200, deadline=None)
@given(a=st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2200, 1, 1)),
       b=st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2200, 1, 1)),
       offset=st.integers(-23 * 60, 23 * 60))
def test_timestamp_order_matches_datetime_order(a: datetime, b: datetime, offset: int) -> None:
    tz = timezone(timedelta(minutes=offset))
    aware_a = a.replace(tzinfo=timezone.utc)
    aware_b = b.replace(tzinfo=timezone.utc)
    text_a = aware_a.astimezone(tz).isoformat()
    text_b = aware_b.isoformat().replace("+00:00", "Z")
    assert (timestamps.parse(text_a) < timestamps.parse(text_b)) == (aware_a < aware_b)
    assert (timestamps.parse(text_a) == timestamps.parse(text_b)) == (aware_a == aware_b)


def test_relink_helper_reproduces_the_published_hashes() -> None:
    evidence = real_evidence()
    relink_dict(evidence)
    assert evidence["test_access"]["lineage_head_sha256"] == PUBLISHED_ENTRY
