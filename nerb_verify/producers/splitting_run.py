"""The split run: committed preparation in, frozen sealed + development bundles out.

Layout under ``<private_root>/enron-split/<run>/``:
``sealed/`` (written first): ``test.jsonl``, ``memberships.jsonl``, ``group-assignments.jsonl``,
``leakage-audit.json``, ``manifest.json`` (the full split manifest), ``PRESEAL_VERIFIED.json``, and last
``PAIR_COMMITTED.json``; ``development/``: ``train.jsonl``, ``validation.jsonl``, ``memberships.jsonl`` (train and
validation rows only), a redacted ``manifest.json`` (test counts only, plus ``full_split_manifest_sha256``) and
``split-freeze-receipt.json``. Role files are the exact prepared lines routed by role, in ``document_id`` order.
A frozen run is never overwritten. The access lineage is ``<private_root>/enron-split/lineage.jsonl``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from nerb_verify.canonical import nerb_pretty_bytes, python_canonical_sha256
from nerb_verify.producers import splitting
from nerb_verify.producers.preparation import load_committed_manifest, peak_rss_bytes
from nerb_verify.producers.progress import Progress
from nerb_verify.producers.sealed import file_ref
from nerb_verify.producers.splitting import ROLES, SplitError


@dataclass
class SplitResult:
    """Counts and manifests of a frozen split (paths are private)."""

    split_dir: Path
    manifest: dict[str, Any]
    audit: dict[str, Any]
    floor_failures: list[str]
    cohorts: dict[str, dict[str, int]]
    peak_rss_bytes: int = 0
    created: list[Path] = field(default_factory=list)  # folders this run created (outermost first)


def _private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)
    return path


def _write(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _new_private(path: Path) -> Path:
    """Create (or truncate) ``path`` with mode 0600 and return it."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
    return path


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
                    for row in rows)


def source_card(prep_manifest: dict[str, Any]) -> dict[str, Any]:
    """The source identity the bank card needs, carried from the preparation into the split manifests.

    ``dataset_id`` is the id ``prepare`` was given (the public ``source.id``), ``dataset_revision`` the public
    ``source.revision`` (:func:`public_sections.public_revision`) and ``dataset_split`` the declared source split
    (None for a preparation made before it was recorded: the card then asks for ``--dataset-split``).
    """
    from nerb_verify.producers.public_sections import public_revision

    return {"dataset_id": prep_manifest.get("dataset_id"), "dataset_revision": public_revision(prep_manifest),
            "dataset_split": prep_manifest.get("dataset_split")}


def discard(created: list[Path]) -> None:
    """Remove the folders a split run created (innermost first), leaving what existed before."""
    for path in reversed(created):
        shutil.rmtree(path, ignore_errors=True)


def run_split(prepared_run: Path, private_root: Path, *, run: str = "run", seed: str = "nerb-verify-split",
              mode: str = "production", progress: bool = False, cluster: Any = None,
              partitions: int | None = None) -> SplitResult:
    """Group, assign, audit and freeze; raises :class:`SplitError` (fail closed) on any broken invariant.

    A run that is refused or fails removes every folder it created (so a refused split leaves nothing behind and
    the same command can be run again); a frozen run is never touched. ``SplitResult.created`` lists the folders a
    successful run created, for a caller that must still withdraw it (:func:`discard`). With ``cluster`` (a Dask
    Client, ``local:N`` or a scheduler address) the feature reading and the grouping run on the cluster over
    ``partitions`` ranges of the prepared records (:mod:`nerb_verify.producers.cluster_split`); every artifact is
    byte-identical to the single-process run, and a failed cluster run (``ClusterError``) leaves nothing behind.
    """
    prep_manifest = load_committed_manifest(prepared_run)
    prepared_path = prepared_run / "prepared.jsonl"
    if file_ref(prepared_path, "prepared_records") != prep_manifest["prepared_artifact"]:
        raise SplitError("prepared_artifact_changed")
    split_dir = private_root / "enron-split" / run
    if (split_dir / "sealed" / "PAIR_COMMITTED.json").exists():
        raise SplitError("split_already_frozen")
    created = [path for path in (private_root / "enron-split", split_dir, split_dir / "sealed",
                                 split_dir / "development") if not path.exists()]
    try:
        result = _run_split(prepared_run, prep_manifest, split_dir, seed=seed, mode=mode, progress=progress,
                            cluster=cluster, partitions=partitions)
    except BaseException:
        discard(created)
        raise
    result.created = created
    return result


def _read_nodes(prepared_path: Path, total: int, progress: bool) -> tuple[list[splitting.Node], list[bool]]:
    """The grouping features and natural-view flags of every prepared record, checking ``document_id`` order."""
    meter = Progress("split: read features", total=total, enabled=progress)
    nodes: list[splitting.Node] = []
    natural: list[bool] = []
    previous = ""
    with open(prepared_path, "rb") as handle:
        for line in handle:
            record = json.loads(line)
            node = splitting.node_from_record(record)
            if node.document_id <= previous:
                raise SplitError("prepared_not_sorted")
            previous = node.document_id
            nodes.append(node)
            natural.append(bool(record["views"]["subject_current_body"]))
            meter.update()
    meter.finish()
    return nodes, natural


def _run_split(prepared_run: Path, prep_manifest: dict[str, Any], split_dir: Path, *, seed: str, mode: str,
               progress: bool, cluster: Any = None, partitions: int | None = None) -> SplitResult:
    """The split proper, into ``split_dir`` (not frozen); the grouping on ``cluster`` when one is given."""
    prepared_path = prepared_run / "prepared.jsonl"
    if cluster is None:
        nodes, natural = _read_nodes(prepared_path, prep_manifest["output_records"], progress)
        if len(nodes) != prep_manifest["output_records"]:
            raise SplitError("prepared_record_count")
        grouping = splitting.build_groups(nodes)
    else:
        from nerb_verify.producers.cluster_split import group_on_cluster

        nodes, natural, grouping = group_on_cluster(cluster, prepared_path, parts=partitions)
        if len(nodes) != prep_manifest["output_records"]:
            raise SplitError("prepared_record_count")
    components = splitting.components_of(nodes, grouping)
    splitting.assign_roles(components, seed)
    roles = [""] * len(nodes)
    for component in components:
        for index in component.members:
            roles[index] = component.role
    crossings = splitting.audit_crossings(nodes, roles, grouping)
    crossing_groups = sum(1 for c in components if len({roles[i] for i in c.members}) > 1) + sum(crossings.values())
    if crossing_groups:
        raise SplitError("leakage_crossing")
    role_records = Counter(roles)
    role_groups = Counter(component.role for component in components)
    for role in ROLES:
        if role_records[role] == 0:
            raise SplitError(f"empty_role_{role}")
    sealed_dir = _private_dir(split_dir / "sealed")
    development_dir = _private_dir(split_dir / "development")
    # memberships are written as they are generated (one row in memory at a time)
    cohorts: dict[str, Counter] = {role: Counter() for role in ROLES}
    membership_hash = hashlib.sha256()
    with open(_new_private(sealed_dir / "memberships.jsonl"), "wb") as sealed_rows, \
            open(_new_private(development_dir / "memberships.jsonl"), "wb") as development_rows:
        for row in splitting.memberships(nodes, components, natural):
            line = _jsonl([row])
            sealed_rows.write(line)
            membership_hash.update(line)
            if row["role"] != "test":
                development_rows.write(line)
            counter = cohorts[row["role"]]
            counter[f"identity:{row['identities']['recurrence']}"] += 1
            for label in row["identities"]["contains_frequency"]:
                counter[f"frequency:{label}"] += 1
            counter[f"natural:{row['views']['natural']}"] += 1
            counter[f"structured:{row['views']['structured']}"] += 1
            counter[f"mailbox:{row['mailbox_recurrence']}"] += 1
            for challenge in row["challenges"]:
                counter[f"challenge:{challenge}"] += 1
    largest = max(len(c.members) for c in components)
    truncated = sum(1 for node in nodes if node.truncated)
    failures = splitting.production_floor_failures(role_records, role_groups, largest, len(nodes), truncated, cohorts)
    if mode == "production" and failures:
        raise SplitError("production_floors")
    # role files: exact prepared lines routed by role, document_id order
    handles = {"test": open(sealed_dir / "test.jsonl", "wb"), "train": open(development_dir / "train.jsonl", "wb"),
               "validation": open(development_dir / "validation.jsonl", "wb")}
    try:
        for path in (sealed_dir / "test.jsonl", development_dir / "train.jsonl", development_dir / "validation.jsonl"):
            os.chmod(path, 0o600)
        with open(prepared_path, "rb") as handle:
            for index, line in enumerate(handle):
                handles[roles[index]].write(line)
    finally:
        for out in handles.values():
            out.close()
    role_refs = {"test": file_ref(sealed_dir / "test.jsonl", "test"),
                 "train": file_ref(development_dir / "train.jsonl", "train"),
                 "validation": file_ref(development_dir / "validation.jsonl", "validation")}
    assignments = [{"group_id": c.group_id, "role": c.role, "records": len(c.members), "anchor_utc": c.anchor_utc,
                    "families": sorted(c.families)} for c in components]
    _write(sealed_dir / "group-assignments.jsonl", _jsonl(assignments))
    largest_fraction = Fraction(largest, len(nodes))
    audit = {
        "schema_version": "nerb_verify.enron_split_leakage_audit.v1",
        "records": len(nodes),
        "groups": len(components),
        "crossing_groups": crossing_groups,
        "crossing_keys_by_family": dict(sorted(crossings.items())),
        "edge_counts": {family: grouping.edge_counts.get(family, 0) for family in splitting.EDGE_FAMILIES},
        "near_candidate_raw_emissions": grouping.near_raw_emissions,
        "near_candidate_pairs": len(grouping.near_pairs),
        "largest_group_records": largest,
        "largest_group_fraction": f"{largest_fraction.numerator}/{largest_fraction.denominator}",
        "grouping_truncated_records": truncated,
    }
    audit_bytes = nerb_pretty_bytes(audit)
    _write(sealed_dir / "leakage-audit.json", audit_bytes)
    seed_sha = splitting.seed_commitment(seed)
    policy = splitting.split_policy(seed_sha)
    manifest = {
        "schema_version": "nerb_verify.enron_split_manifest.v1",
        "mode": mode,
        "promotable": mode == "production" and not failures,
        "preparation_manifest_sha256": file_ref(prepared_run / "manifest.json", "preparation_manifest")["sha256"],
        "prepared_artifact": prep_manifest["prepared_artifact"],
        "policy": policy,
        "policy_sha256": python_canonical_sha256(policy),
        "seed_sha256": seed_sha,
        "source_card": source_card(prep_manifest),
        "records": len(nodes),
        "roles": {role: {"records": role_records[role], "groups": role_groups[role], "artifact": role_refs[role]}
                  for role in ROLES},
        "leakage_audit_sha256": "sha256:" + hashlib.sha256(audit_bytes).hexdigest(),
        "memberships_sha256": "sha256:" + membership_hash.hexdigest(),
        "group_assignments_sha256": file_ref(sealed_dir / "group-assignments.jsonl", "x")["sha256"],
        "cohorts": {role: dict(sorted(cohorts[role].items())) for role in ROLES},
        "floor_failures": failures,
    }
    manifest_bytes = nerb_pretty_bytes(manifest)
    _write(sealed_dir / "manifest.json", manifest_bytes)
    preseal = {"verified": {name: file_ref(sealed_dir / name, name)
                            for name in ("test.jsonl", "memberships.jsonl", "group-assignments.jsonl",
                                         "leakage-audit.json", "manifest.json")}}
    if preseal["verified"]["test.jsonl"]["sha256"] != role_refs["test"]["sha256"]:
        raise SplitError("preseal_mismatch")
    _write(sealed_dir / "PRESEAL_VERIFIED.json", nerb_pretty_bytes(preseal))
    full_manifest_sha = "sha256:" + hashlib.sha256(manifest_bytes).hexdigest()
    redacted = {**manifest, "roles": {**manifest["roles"], "test": {"records": role_records["test"],
                                                                    "groups": role_groups["test"]}},
                "cohorts": {role: manifest["cohorts"][role] for role in ("train", "validation")},
                "memberships_sha256": None, "full_split_manifest_sha256": full_manifest_sha}
    _write(development_dir / "manifest.json", nerb_pretty_bytes(redacted))
    _write(development_dir / "split-freeze-receipt.json", nerb_pretty_bytes(
        {"full_split_manifest_sha256": full_manifest_sha, "policy_sha256": manifest["policy_sha256"],
         "roles": {role: role_refs[role] for role in ("train", "validation")}}))
    _write(sealed_dir / "PAIR_COMMITTED.json", nerb_pretty_bytes(
        {"full_split_manifest_sha256": full_manifest_sha,
         "development_manifest_sha256": file_ref(development_dir / "manifest.json", "x")["sha256"]}))
    return SplitResult(split_dir=split_dir, manifest=manifest, audit=audit, floor_failures=failures,
                       cohorts=manifest["cohorts"], peak_rss_bytes=peak_rss_bytes())
