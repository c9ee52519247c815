"""The capacity report's policy: protocol fields frozen, corpus-binding fields bound to the corpus the run measured.

NERB publishes one built-in capacity policy (``nerb.enron_capacity_policy.v1``, shipped here as
``nerb_verify/data/capacity_policy.json``; its canonical hash is :data:`PUBLISHED_POLICY_SHA256`). Most of its fields
are the measurement *protocol*: every bound, interval, cadence, fraction, size limit, requirement flag and semantics
string. A few name the *corpus* the published run read: the dataset, its revision, its row count and the reader that
loaded it (:data:`CORPUS_FIELDS`). Pinning the whole policy to the published hash would mean that no run on any other
corpus (a synthetic fixture, an organisation's own mail) could ever carry a valid capacity decision. So
(docs/findings/capacity.md, "The policy: protocol and corpus"):

* every **protocol field** must equal the published policy's value exactly, in every bundle
  (``capacity.policy_protocol_mismatch``), and the policy holds no key the published one lacks;
* the **corpus-binding fields** must equal the published ones when the run is the published benchmark (manifest and
  evidence both ``real_benchmark`` on the published dataset, or either kind missing or mixed: fail closed); otherwise
  the dataset id, revision and source rows must be this bundle's own source (the manifest's and the evidence's
  ``source.id``, ``source.revision``, ``source.input_records``) (``capacity.policy_corpus_mismatch``). The reader
  fields of another corpus are the run's own description of its reader; the preparation phase restates them and the
  runtime's reader environment repeats the versions (``capacity.commitment_chain_broken``,
  ``capacity.execution_identity_mismatch`` in :mod:`nerb_verify.checks.capacity.capacity_phases`);
* ``policy_sha256`` stays the policy's canonical self-hash (``capacity.policy_hash_mismatch``), so a published-corpus
  policy that passes both rules hashes to the published hash.
"""

from __future__ import annotations

import json
from typing import Any

from nerb_verify import context as C
from nerb_verify import resources
from nerb_verify.checks.raw._access import as_dict, dig, same
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext
from nerb_verify.findings import Label
from nerb_verify.pointers import join, safe_pointer

A = C.CAPACITY_DECISION
POLICY_FILE = "capacity_policy.json"
PUBLISHED_POLICY_SHA256 = "sha256:8261ac172e7313265bef4cd3c3357a5bc7fb2d6fb4d91473bfe9ff9de07c3a52"
REAL_KIND = "real_benchmark"
SYNTHETIC_KIND = "synthetic_fixture"
# Fields that name the corpus and its reader; every other field (but policy_sha256) is protocol.
CORPUS_FIELDS = (
    "dataset_id", "dataset_revision", "source_rows", "critical_reader_versions",
    "reader_cache_lock_adapter_sha256", "reader_network_activity_adapter_sha256", "reader_official_endpoint_sha256",
    "reader_phase_environment_policy_sha256",
)
# Corpus fields bound to the bundle's own source when the run is not the published benchmark: field -> source key.
OWN_SOURCE_FACTS = (("dataset_id", "id"), ("dataset_revision", "revision"), ("source_rows", "input_records"))

PROTOCOL = register(
    "capacity.policy_protocol_mismatch", "A capacity policy protocol field differs from the published policy.",
    "The capacity policy's protocol fields (every bound, interval, cadence, fraction, size limit, requirement flag "
    "and semantics string; everything but the dataset, its revision, its row count and the reader's versions and "
    "adapter hashes) are NERB's published built-in policy and must equal it exactly, in every bundle; the policy "
    "carries no field the published one lacks. A run on another corpus may change which corpus it binds, never how "
    "it was measured.")
CORPUS = register(
    "capacity.policy_corpus_mismatch", "A capacity policy corpus field is not bound to the corpus the run measured.",
    "The policy's corpus-binding fields (dataset id, revision, source rows, critical reader versions, reader "
    "adapter, endpoint and environment hashes) must equal NERB's published policy when the bundle is the published "
    "benchmark (manifest and evidence real_benchmark on the published dataset, or an artifact kind missing or "
    "mixed); otherwise the dataset id, revision and source rows must be the bundle's own source (the manifest's and "
    "the evidence's source id, revision and input records).")


def published_policy() -> dict[str, Any]:
    """NERB's published built-in capacity policy (a published constant; a test pins its hash)."""
    with open(resources.data_dir() / POLICY_FILE, encoding="utf-8") as handle:
        policy = json.load(handle)
    if not isinstance(policy, dict):
        raise ValueError("the shipped capacity policy is not an object")
    return policy


PUBLISHED = published_policy()
PROTOCOL_FIELDS = tuple(k for k in PUBLISHED if k not in CORPUS_FIELDS and k != "policy_sha256")


def _loaded(ctx: VerifyContext, name: str) -> dict[str, Any]:
    value = ctx.loaded.get(name)
    return value if isinstance(value, dict) else {}


def binds_published_corpus(ctx: VerifyContext) -> bool:
    """True when the corpus fields must be the published ones: the bundle is the published benchmark.

    False only when the manifest and the evidence (as loaded) both say ``synthetic_fixture``, or both say
    ``real_benchmark`` and both name the same source id, which is not the published dataset. A missing or mixed kind
    or source binds the published corpus (fail closed)."""
    manifest, evidence = _loaded(ctx, C.MANIFEST), _loaded(ctx, C.EVIDENCE)
    kinds = (manifest.get("artifact_kind"), evidence.get("artifact_kind"))
    if kinds == (SYNTHETIC_KIND, SYNTHETIC_KIND):
        return False
    ids = (dig(manifest, "source", "id"), dig(evidence, "source", "id"))
    return not (kinds == (REAL_KIND, REAL_KIND) and isinstance(ids[0], str) and ids[0] == ids[1]
                and ids[0] != PUBLISHED.get("dataset_id"))


def check(ctx: VerifyContext, policy: dict[str, Any]) -> None:
    """Protocol fields equal the published policy; corpus fields bound to the published or the bundle's own corpus."""
    add = ctx.collector.add
    for key in PROTOCOL_FIELDS:
        if key not in policy or not same(policy[key], PUBLISHED[key]):
            add(PROTOCOL, A, join(["report", "policy", key]), "The policy's {field} is not the published protocol.",
                field=Label(key))
    for key in policy:
        if key not in PUBLISHED:
            add(PROTOCOL, A, "/report" + safe_pointer({"policy": policy}, ["policy", key]),
                "The policy carries a field the published policy does not have.")
    if binds_published_corpus(ctx):
        for key in CORPUS_FIELDS:
            if key not in policy or not same(policy[key], PUBLISHED[key]):
                add(CORPUS, A, join(["report", "policy", key]),
                    "The policy's {field} is not the published corpus's, and the bundle is the published benchmark.",
                    field=Label(key))
        return
    for name in (C.MANIFEST, C.EVIDENCE):
        source = as_dict(_loaded(ctx, name).get("source")) or {}
        for key, fact in OWN_SOURCE_FACTS:
            if key not in policy or fact not in source or not same(policy[key], source[fact]):
                add(CORPUS, A, join(["report", "policy", key]),
                    "The policy's {field} is not this bundle's own source ({document}).", field=Label(key),
                    document=Label(name))
