"""Broken fixtures for the lineage family: sealed-test access, append-only lineage, audit chain, audit-plan copies.

The real bundle has a one-entry lineage. Codes that need a longer lineage start from a *valid* longer one built by the
``lineage_predecessors`` / ``lineage_successor`` transforms (earlier failed release candidates with their own sealed
tests, properly linked and disclosed), then break one thing. Hash-aware cases re-seal so that only the lineage rule
can catch the edit; cases about a stale hash edit after sealing and refresh only the publication list.

The pure ``*_dict`` helpers work on an evidence dict in memory and are reused by contract_tests/test_lineage.py.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from nerb_verify.canonical import nerb_pretty_bytes, self_hash

from tools.fixturelib import make_case

EV = "benchmark-evidence.json"
MF = "benchmark-manifest.json"
OTHER_HASH = "sha256:" + "1" * 64


# -- pure helpers over an evidence dict -----------------------------------------------------------------------------
def relink_dict(evidence: dict[str, Any], *, links: bool = True) -> None:
    """Recompute previous links (unless ``links`` is False), every entry hash and the head, in place."""
    access = evidence["test_access"]
    previous = None
    for entry in access["lineage"]:
        if links:
            entry["previous_entry_sha256"] = previous
        entry["entry_sha256"] = self_hash(entry, "entry_sha256")
        previous = entry["entry_sha256"]
    access["lineage_head_sha256"] = previous


def rehash_chain_dict(evidence: dict[str, Any]) -> None:
    """Recompute audit_chain.chain_sha256 in place."""
    evidence["audit_chain"]["chain_sha256"] = self_hash(evidence["audit_chain"], "chain_sha256")


def _predecessor(current: dict[str, Any], j: int) -> dict[str, Any]:
    entry = copy.deepcopy(current)
    day = f"2026-07-{j + 1:02d}"
    entry["sequence"] = j + 1
    entry["benchmark_version"] = f"enron-rc{j + 1}"
    entry["accessed_at"] = f"{day}T12:00:00Z"
    entry["outcome"] = "failed"
    entry["frozen_target"]["frozen_at"] = f"{day}T11:00:00Z"
    entry["frozen_target"]["test_artifact_sha256"] = "sha256:" + f"{j + 160:02x}" * 32
    entry["frozen_target"]["audit_plan_sha256"] = "sha256:" + f"{j + 192:02x}" * 32  # each candidate preregistered
    entry["aggregate_artifact"]["sha256"] = "sha256:" + f"{j + 176:02x}" * 32
    entry["predecessor_benchmark_version"] = None if j == 0 else f"enron-rc{j}"
    entry["changes_informed_by_predecessor"] = [] if j == 0 else ["threshold_review"]
    return entry


def add_predecessors_dict(evidence: dict[str, Any], count: int = 1) -> None:
    """Prepend ``count`` earlier failed release candidates (valid, linked, disclosed) before the current entry."""
    lineage = evidence["test_access"]["lineage"]
    current = lineage[-1]
    earlier = [_predecessor(current, j) for j in range(count)]
    current["sequence"] = count + 1
    current["predecessor_benchmark_version"] = earlier[-1]["benchmark_version"]
    current["changes_informed_by_predecessor"] = ["bank_rebuild"]
    lineage[:] = earlier + [current]
    relink_dict(evidence)


def add_successor_dict(evidence: dict[str, Any]) -> None:
    """Append a later access of another version after the current entry (valid on its own terms)."""
    lineage = evidence["test_access"]["lineage"]
    current = lineage[-1]
    entry = copy.deepcopy(current)
    entry["sequence"] = current["sequence"] + 1
    entry["benchmark_version"] = "enron-next"
    entry["accessed_at"] = "2026-07-20T12:00:00Z"
    entry["frozen_target"]["frozen_at"] = "2026-07-20T11:00:00Z"
    entry["frozen_target"]["test_artifact_sha256"] = "sha256:" + "c0" * 32
    entry["frozen_target"]["audit_plan_sha256"] = "sha256:" + "c1" * 32
    entry["predecessor_benchmark_version"] = current["benchmark_version"]
    entry["changes_informed_by_predecessor"] = ["bank_rebuild"]
    lineage.append(entry)
    relink_dict(evidence)


def _on_file(root: Path, fn: Any, **args: Any) -> None:
    path = root / EV
    evidence = json.loads(path.read_text(encoding="utf-8"))
    fn(evidence, **args)
    path.write_bytes(nerb_pretty_bytes(evidence))


def _set_pointer(evidence: dict[str, Any], pointer: str, value: Any) -> None:
    parts = pointer.split("/")[1:]
    node: Any = evidence
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


def set_and_rehash_entries_dict(evidence: dict[str, Any], pointer: str, value: Any) -> None:
    """Set one field, then recompute entry hashes and head without repairing previous links."""
    _set_pointer(evidence, pointer, value)
    relink_dict(evidence, links=False)


def set_and_rehash_chain_dict(evidence: dict[str, Any], pointer: str, value: Any) -> None:
    """Set one field inside the audit chain, then recompute chain_sha256."""
    _set_pointer(evidence, pointer, value)
    rehash_chain_dict(evidence)


TRANSFORMS = {
    "lineage_predecessors": lambda root, count=1: _on_file(root, add_predecessors_dict, count=count),
    "lineage_successor": lambda root: _on_file(root, add_successor_dict),
    "lineage_set_rehash_entries": lambda root, pointer, value: _on_file(
        root, set_and_rehash_entries_dict, pointer=pointer, value=value),
    "chain_set_rehash": lambda root, pointer, value: _on_file(root, set_and_rehash_chain_dict, pointer=pointer,
                                                              value=value),
}


# -- cases ----------------------------------------------------------------------------------------------------------
def _set(pointer: str, value: Any, file: str = EV) -> dict[str, Any]:
    return {"op": "json_set", "file": file, "pointer": pointer, "value": value}


def _edit(transform: str, **args: Any) -> dict[str, Any]:
    op: dict[str, Any] = {"op": "json_edit", "transform": transform}
    if args:
        op["args"] = args
    return op


_case = make_case  # the shared case builder (tools/fixturelib.py)


L0 = "/test_access/lineage/0"
FROZEN = "/test_access/frozen_target"
NAIVE = "2026-07-15T09:26:30.373967"

# Promoting the real bundle (which fails its quality gates) also fails every promotion prerequisite.
PROMOTED_CODES = ["claim.decision_grade_prerequisite", "claim.missing_required", "claim.promotion_prerequisite",
                  "decision.bundle_overstates_eligibility", "lineage.trusted_lineage_required"]

# Codes without a broken fixture, and why (each is covered by contract_tests/test_lineage.py).
EXEMPTIONS = {
    "lineage.malformed": "Only reachable with schema-invalid evidence, which the lineage family never receives "
                         "from the pipeline; unit-tested on in-memory dicts.",
    "lineage.repeated_access": "The evidence schema caps current_version_access_count at 1; unit-tested in memory.",
    "lineage.trusted_lineage_shape": "Needs the --trusted-lineage option, which fixture cases cannot pass; covered "
                                     "by in-memory and CLI tests.",
    "lineage.not_append_only": "Needs the --trusted-lineage option, which fixture cases cannot pass; covered by "
                               "in-memory and CLI tests.",
}

CASES = [
    _case("lineage.test_optimized", "test-in-optimization-roles",
          [_set("/test_access/optimization_roles", ["train", "validation", "test"])],
          "The final test is declared an optimisation role (resealed)."),
    _case("lineage.optimization_roles_understated", "validation-role-dropped",
          [_set("/test_access/optimization_roles", ["train"])],
          "The evidence says only train was tuned on, while the card's iterations were selected on validation "
          "(resealed; found by the array sweep, tools/sweep_nudges.py --every-artifact --arrays)."),
    _case("lineage.access_timestamp", "accessed-at-differs-from-entry",
          [_set("/test_access/current_version_accessed_at", "2026-07-15T09:30:34Z")],
          "current_version_accessed_at is not the current entry's accessed_at (resealed)."),
    _case("lineage.invalid_timestamp", "naive-frozen-at",
          [_set(FROZEN + "/frozen_at", NAIVE), _set(L0 + "/frozen_target/frozen_at", NAIVE)],
          "The freeze time has no UTC offset, in the frozen target and its lineage entry alike (resealed)."),
    _case("lineage.freeze_mismatch", "frozen-commit-differs",
          [_set(FROZEN + "/git_commit", "0123456789abcdef0123456789abcdef01234567"),
           _set(L0 + "/frozen_target/git_commit", "0123456789abcdef0123456789abcdef01234567")],
          "The frozen target names another commit than the evidence's software (resealed)."),
    _case("lineage.benchmark_version_mismatch", "access-version-not-manifest",
          [_set("/test_access/benchmark_version", "enron-b"), _set(L0 + "/benchmark_version", "enron-b")],
          "The test access belongs to another benchmark version than the manifest (resealed)."),
    _case("lineage.freeze_before_manifest", "frozen-before-manifest",
          [_set(FROZEN + "/frozen_at", "2026-07-15T09:00:00Z"),
           _set(L0 + "/frozen_target/frozen_at", "2026-07-15T09:00:00Z")],
          "The target was frozen before the manifest existed (resealed)."),
    _case("lineage.sequence", "sequence-starts-at-two", [_set(L0 + "/sequence", 2)],
          "The only lineage entry has sequence 2 (resealed)."),
    _case("lineage.version_reused", "predecessor-version-twice",
          [_edit("lineage_predecessors", count=2), _set("/test_access/lineage/1/benchmark_version", "enron-rc1"),
           _set("/test_access/lineage/2/predecessor_benchmark_version", "enron-rc1")],
          "Two earlier accesses share one benchmark version (resealed)."),
    _case("lineage.test_artifact_reused", "predecessor-test-reused",
          [_edit("lineage_predecessors", count=1),
           _set("/test_access/lineage/0/frozen_target/test_artifact_sha256",
                "sha256:65fd4b403661a42d9895cfc33d1e293d50952be48e00ca9679faa6778edccbcf")],
          "An earlier release candidate used the same sealed test artifact (resealed)."),
    _case("lineage.entry_hash_mismatch", "entry-edited-after-sealing", [],
          "The lineage entry's aggregate size changed after its hash was taken; publication list refreshed.",
          post_ops=[_set(L0 + "/aggregate_artifact/bytes", 2739)], post_seal=["publication"],
          codes=["lineage.entry_hash_mismatch", "lineage.head_mismatch"]),
    _case("lineage.entry_hash_mismatch", "entry-hash-replaced", [],
          "The stored entry hash was replaced; head and content untouched; publication list refreshed.",
          post_ops=[_set(L0 + "/entry_sha256", OTHER_HASH)], post_seal=["publication"]),
    _case("lineage.access_before_freeze", "accessed-before-frozen",
          [_set(FROZEN + "/frozen_at", "2026-07-15T09:31:00Z"),
           _set(L0 + "/frozen_target/frozen_at", "2026-07-15T09:31:00Z")],
          "The sealed test was read before the target was frozen (resealed)."),
    _case("lineage.timestamp_order", "predecessor-after-current",
          [_edit("lineage_predecessors", count=1), _set("/test_access/lineage/0/accessed_at", "2026-07-15T09:30:33.248206Z"),
           _set("/test_access/lineage/0/frozen_target/frozen_at", "2026-07-15T09:00:00Z")],
          "An earlier entry was accessed at the same instant as the current one (resealed); the current target, "
          "frozen before that instant, then also precedes the outcome it discloses.",
          codes=["lineage.timestamp_order", "lineage.successor_frozen_before_outcome"]),
    _case("lineage.audit_plan_reused", "predecessor-plan-reused",
          [_edit("lineage_predecessors", count=1),
           _set("/test_access/lineage/0/frozen_target/audit_plan_sha256",
                "sha256:761d5b34f8e9cb8665d73d33e4a9e0d591f0ebf2de1eaa76052a522c49571b30")],
          "A failed earlier release candidate, with its own sealed test, ran under the current candidate's "
          "preregistered audit plan (resealed)."),
    _case("lineage.successor_frozen_before_outcome", "frozen-before-predecessor-read",
          [_edit("lineage_predecessors", count=1),
           _set("/test_access/lineage/0/accessed_at", "2026-07-15T09:28:00Z")],
          "The failed predecessor's test was read two minutes after the current candidate was frozen, yet the "
          "current entry discloses changes informed by that outcome (resealed)."),
    _case("lineage.origin", "discloses-missing-predecessor",
          [_set(L0 + "/predecessor_benchmark_version", "enron-rc0"),
           _set(L0 + "/changes_informed_by_predecessor", ["bank_rebuild"])],
          "The only entry discloses changes informed by a predecessor version that is not in the lineage "
          "(resealed)."),
    _case("lineage.origin", "origin-discloses-changes",
          [_set(L0 + "/changes_informed_by_predecessor", ["bank_rebuild"])],
          "The first entry discloses changes informed by a predecessor it cannot have (resealed)."),
    _case("lineage.predecessor_hash", "link-broken",
          [_edit("lineage_predecessors", count=1)],
          "The current entry links to another hash than its predecessor's; entry hashes recomputed.",
          post_ops=[_edit("lineage_set_rehash_entries", pointer="/test_access/lineage/1/previous_entry_sha256",
                          value=OTHER_HASH)],
          post_seal=["publication"]),
    _case("lineage.predecessor_version", "wrong-predecessor-version",
          [_edit("lineage_predecessors", count=1),
           _set("/test_access/lineage/1/predecessor_benchmark_version", "enron-rc9")],
          "The current entry names another predecessor version (resealed)."),
    _case("lineage.missing_disclosure", "follow-up-discloses-nothing",
          [_edit("lineage_predecessors", count=1), _set("/test_access/lineage/1/changes_informed_by_predecessor", [])],
          "The run after a failed one discloses no informed changes (resealed)."),
    _case("lineage.head_mismatch", "head-replaced", [],
          "lineage_head_sha256 is not the last entry's hash; publication list refreshed.",
          post_ops=[_set("/test_access/lineage_head_sha256", OTHER_HASH)], post_seal=["publication"]),
    _case("lineage.access_count", "current-entry-under-old-version",
          [_set(L0 + "/benchmark_version", "enron-old")],
          "The access is counted but its lineage entry names another version (resealed)."),
    _case("lineage.aggregate_without_access", "test-results-without-access",
          [_set(L0 + "/benchmark_version", "enron-old"), _set("/test_access/current_version_access_count", 0),
           _set("/test_access/current_version_accessed_at", None)],
          "Test-split slices are published while no access is recorded for this version (resealed)."),
    _case("lineage.current_not_head", "entry-after-current",
          [_edit("lineage_successor")],
          "A later access follows the current one in the lineage (resealed)."),
    _case("lineage.current_freeze_mismatch", "entry-frozen-differently",
          [_set(L0 + "/frozen_target/frozen_at", "2026-07-15T09:27:00Z")],
          "The current entry was run against a target frozen at another time (resealed)."),
    _case("lineage.evidence_before_manifest", "evidence-predates-manifest",
          [_set("/created_at", "2026-07-15T09:26:30Z")],
          "The evidence claims to be created before the manifest it evaluates, and so before the access it reports "
          "(resealed).", codes=["lineage.evidence_before_access", "lineage.evidence_before_manifest"]),
    _case("lineage.invalid_timestamp", "manifest-created-at-unparseable",
          [_set("/created_at", "2026-07-15T09:26:30.373967Zx", file="benchmark-manifest.json")],
          "The manifest's creation time is not an RFC 3339 date-time, so nothing can be ordered against it "
          "(resealed)."),
    _case("lineage.evidence_before_access", "evidence-predates-access",
          [_set("/created_at", "2026-07-15T09:30:00Z")],
          "The evidence claims to be created before the test access it reports (resealed)."),
    _case("lineage.audit_chain_hash", "chain-hash-replaced", [],
          "chain_sha256 replaced; publication list refreshed.",
          post_ops=[_set("/audit_chain/chain_sha256", OTHER_HASH)], post_seal=["publication"]),
    _case("lineage.audit_chain_binding", "score-manifest-differs",
          [_set("/audit_chain/prediction_audit/score_manifest_sha256", OTHER_HASH)],
          "The prediction audit names another score manifest (resealed)."),
    _case("lineage.audit_chain_binding", "gold-annotation-policy-differs",
          [_set("/audit_chain/gold/annotation_policy_sha256", OTHER_HASH)],
          "Gold claims an annotation policy other than the labels' span policy (resealed; found by the string "
          "sweep, tools/sweep_nudges.py --every-artifact --strings)."),
    _case("lineage.audit_chain_unresolved", "gold-unresolved",
          [_set("/audit_chain/gold/unresolved", 1)],
          "One gold case is unresolved (resealed)."),
    _case("lineage.audit_chain_terminal", "scored-without-decision-hash",
          [_set("/audit_chain/score/quality_decision_sha256", None)],
          "A scored audit without its quality-decision commitment (resealed)."),
    _case("lineage.audit_chain_terminal", "support-failure-on-scored-chain",
          [_set("/audit_chain/score/support_failure_codes", ["documents_below_minimum"])],
          "A scored audit (not insufficient support) lists a support failure (resealed): its support_failure_codes "
          "must be empty."),
    _case("lineage.audit_chain_quality_decision", "accepted-despite-failed-gates",
          [_set("/audit_chain/score/quality_decision_passed", True),
           _set("/audit_chain/prediction_audit/status", "accepted"),
           _set("/audit_chain/prediction_audit/decision_eligible", True),
           _set("/audit_chain/prediction_audit/release", "quality_eligible")],
          "The chain claims the quality decision passed although the quality gates fail (resealed).",
          codes=["lineage.audit_chain_quality_decision", "decision.bundle_overstates_eligibility",
                 "publication.decision_mismatch"]),
    _case("lineage.audit_plan_mismatch", "gold-stage-plan-differs",
          [_set("/audit_chain/gold/audit_plan_sha256", OTHER_HASH)],
          "The gold stage names another audit plan (resealed)."),
    _case("lineage.failed_test_promotion", "promoted-after-failed-access",
          [_set("/promotion/passed", True), _set(L0 + "/outcome", "failed")],
          "Promotion claimed although the current access failed (resealed); every promotion prerequisite fails too.",
          codes=PROMOTED_CODES + ["lineage.failed_test_promotion"]),
    _case("lineage.trusted_lineage_required", "promoted-without-trusted-lineage",
          [_set("/promotion/passed", True)],
          "Promotion claimed; no --trusted-lineage given (resealed); every promotion prerequisite fails too.",
          codes=PROMOTED_CODES),
    _case("lineage.version_reused", "duplicated-lineage-entry",
          [{"op": "json_copy", "file": EV, "from": L0, "pointer": "/test_access/lineage/1"}],
          "The lineage entry is duplicated (resealed): the copy repeats sequence, version, test, audit plan, freeze "
          "and timestamp.",
          codes=["lineage.access_count", "lineage.audit_plan_reused", "lineage.missing_disclosure",
                 "lineage.predecessor_version", "lineage.sequence", "lineage.successor_frozen_before_outcome",
                 "lineage.test_artifact_reused", "lineage.timestamp_order", "lineage.version_reused"]),
]
