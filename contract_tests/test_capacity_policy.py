"""The capacity policy split (nerb_verify/checks/capacity/capacity_policy.py, docs/findings/capacity.md): protocol
fields frozen to NERB's published policy in every bundle, corpus-binding fields bound to the published corpus on the
published benchmark and to the bundle's own source otherwise. Every policy field is edited here, with the policy hash
recomputed as a forger would."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from contract_tests.conftest import open_real_bundle
from nerb_verify import context as C
from nerb_verify.canonical import python_canonical_sha256, self_hash
from nerb_verify.checks import capacity
from nerb_verify.checks.capacity import capacity_policy
from nerb_verify.context import VerifyContext, VerifyOptions
from nerb_verify.findings import Collector

OWN_SOURCE = {"id": "acme_mail_archive", "revision": "0123456789abcdef0123456789abcdef01234567", "input_records": 2000}


@pytest.fixture(scope="module")
def opened() -> VerifyContext:
    return open_real_bundle()


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [leaf for key in value for leaf in _leaves(value[key], path + (key,))]
    if isinstance(value, list):
        return [leaf for index, item in enumerate(value) for leaf in _leaves(item, path + (index,))]
    return [path]


def _nudged(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if len(value) == 40 and all(c in "0123456789abcdef" for c in value):
        return value[:-1] + ("0" if value[-1] != "0" else "1")  # still a well-formed revision
    return value + "x"


def _edited(policy: dict[str, Any], leaf: tuple[Any, ...]) -> dict[str, Any]:
    edited = copy.deepcopy(policy)
    parent = edited
    for part in leaf[:-1]:
        parent = parent[part]
    parent[leaf[-1]] = _nudged(parent[leaf[-1]])
    edited["policy_sha256"] = self_hash(edited, "policy_sha256")
    return edited


def _ctx(opened: VerifyContext, kind: str | None = None, source: dict[str, Any] | None = None) -> VerifyContext:
    """A context whose manifest and evidence (as loaded) say ``kind`` and name ``source`` (default: as published)."""
    loaded = dict(opened.loaded)
    for name in (C.MANIFEST, C.EVIDENCE):
        document = dict(loaded[name])
        if kind is not None:
            document["artifact_kind"] = kind
        if source is not None:
            document["source"] = dict(document["source"], **source)
        loaded[name] = document
    return VerifyContext(root=opened.root, options=VerifyOptions(), collector=Collector(), loaded=loaded)


def _codes(ctx: VerifyContext, policy: dict[str, Any]) -> list[str]:
    capacity._policy(ctx, {"policy": policy})
    return sorted(f.code for f in ctx.collector.findings)


def _own_policy(policy: dict[str, Any]) -> dict[str, Any]:
    own = dict(policy, dataset_id=OWN_SOURCE["id"], dataset_revision=OWN_SOURCE["revision"],
               source_rows=OWN_SOURCE["input_records"])
    own["policy_sha256"] = self_hash(own, "policy_sha256")
    return own


def test_the_shipped_policy_is_the_published_one(opened: VerifyContext) -> None:
    published = capacity_policy.published_policy()
    assert published["policy_sha256"] == self_hash(published, "policy_sha256") == capacity.PUBLISHED_POLICY_SHA256
    assert published == opened.artifacts[C.CAPACITY_DECISION]["report"]["policy"]
    assert set(capacity_policy.CORPUS_FIELDS) < set(published)
    assert len(capacity_policy.PROTOCOL_FIELDS) + len(capacity_policy.CORPUS_FIELDS) + 1 == len(published)


def test_the_real_policy_passes_and_a_stale_self_hash_is_caught(opened: VerifyContext) -> None:
    policy = opened.artifacts[C.CAPACITY_DECISION]["report"]["policy"]
    assert _codes(_ctx(opened), policy) == []
    stale = dict(policy, activity_record_interval=1001)
    assert _codes(_ctx(opened), stale) == ["capacity.policy_hash_mismatch", "capacity.policy_protocol_mismatch"]


@pytest.mark.parametrize("kind", [None, "synthetic_fixture"])
def test_every_protocol_field_is_frozen_in_every_bundle(opened: VerifyContext, kind: str | None) -> None:
    """On the published benchmark and on a synthetic fixture with its own corpus alike, an edit of any protocol leaf
    (its hash recomputed) is capacity.policy_protocol_mismatch, and nothing else."""
    policy = opened.artifacts[C.CAPACITY_DECISION]["report"]["policy"]
    base = policy if kind is None else _own_policy(policy)
    source = None if kind is None else OWN_SOURCE
    leaves = [leaf for leaf in _leaves(base) if leaf[0] in capacity_policy.PROTOCOL_FIELDS]
    assert len(leaves) > 70
    assert _codes(_ctx(opened, kind, source), base) == []
    for leaf in leaves:
        assert _codes(_ctx(opened, kind, source), _edited(base, leaf)) == ["capacity.policy_protocol_mismatch"], leaf
    removed = {k: v for k, v in base.items() if k != "activity_record_interval"}
    assert _codes(_ctx(opened, kind, source), removed) == ["capacity.policy_hash_mismatch",
                                                          "capacity.policy_protocol_mismatch"]


def test_every_corpus_field_is_the_published_one_on_the_published_benchmark(opened: VerifyContext) -> None:
    policy = opened.artifacts[C.CAPACITY_DECISION]["report"]["policy"]
    leaves = [leaf for leaf in _leaves(policy) if leaf[0] in capacity_policy.CORPUS_FIELDS]
    assert len(leaves) == len(capacity_policy.CORPUS_FIELDS) + 4  # five reader versions
    for leaf in leaves:
        assert _codes(_ctx(opened), _edited(policy, leaf)) == ["capacity.policy_corpus_mismatch"], leaf
    # A mixed or missing kind binds the published corpus too (fail closed).
    mixed = _ctx(opened)
    mixed.loaded[C.EVIDENCE] = dict(mixed.loaded[C.EVIDENCE], artifact_kind="synthetic_fixture")
    assert _codes(mixed, _own_policy(policy)) == ["capacity.policy_corpus_mismatch"] * 3


@pytest.mark.parametrize("kind", ["synthetic_fixture", "real_benchmark"])
def test_another_corpus_binds_its_own_source(opened: VerifyContext, kind: str) -> None:
    """A synthetic fixture, or a real run on another dataset, binds dataset id, revision and source rows to its own
    manifest and evidence; the published corpus's values are then wrong for it."""
    policy = opened.artifacts[C.CAPACITY_DECISION]["report"]["policy"]
    own = _own_policy(policy)
    assert _codes(_ctx(opened, kind, OWN_SOURCE), own) == []
    assert _codes(_ctx(opened, kind, OWN_SOURCE), policy) == ["capacity.policy_corpus_mismatch"] * 6
    for key in ("dataset_id", "dataset_revision", "source_rows"):
        codes = _codes(_ctx(opened, kind, OWN_SOURCE), _edited(own, (key,)))
        assert codes == ["capacity.policy_corpus_mismatch"] * 2, key  # against the manifest and the evidence
    # The reader fields of another corpus are the run's own description of its reader: the policy check leaves them
    # to the preparation commitments and the runtime, which restate them (test_reader_fields_are_restated).
    for leaf in _leaves(own):
        if leaf[0] in capacity_policy.CORPUS_FIELDS and leaf[0] not in ("dataset_id", "dataset_revision",
                                                                          "source_rows"):
            assert _codes(_ctx(opened, kind, OWN_SOURCE), _edited(own, leaf)) == [], leaf


def test_a_real_run_naming_the_published_dataset_binds_the_published_corpus(opened: VerifyContext) -> None:
    policy = opened.artifacts[C.CAPACITY_DECISION]["report"]["policy"]
    same_name = dict(OWN_SOURCE, id=policy["dataset_id"])
    own = dict(_own_policy(policy), dataset_id=policy["dataset_id"])
    own["policy_sha256"] = self_hash(own, "policy_sha256")
    assert _codes(_ctx(opened, "real_benchmark", same_name), own) == ["capacity.policy_corpus_mismatch"] * 2


def test_reader_fields_are_restated_by_the_preparation_and_the_runtime(opened: VerifyContext) -> None:
    """Changing a reader field of the policy alone (every hash resealed) breaks the preparation's restatement or
    the runtime's reader environment, whichever corpus is bound."""
    from nerb_verify.checks.capacity import capacity_phases
    from nerb_verify.seal_capacity import seal_capacity_decision

    for key, expected in (("reader_official_endpoint_sha256", "capacity.commitment_chain_broken"),
                          ("reader_phase_environment_policy_sha256", "capacity.execution_identity_mismatch")):
        decision = copy.deepcopy(opened.artifacts[C.CAPACITY_DECISION])
        decision["report"]["policy"][key] = python_canonical_sha256(key)
        seal_capacity_decision(decision)
        ctx = _ctx(opened)
        capacity_phases.run(ctx, decision["report"])
        assert expected in {f.code for f in ctx.collector.findings}, key
