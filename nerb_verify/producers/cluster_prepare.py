"""Preparation on a Dask cluster: one map task per input partition, merged into the single-process commit.

Each task streams its partition, validates, cleans the first occurrence (within the partition) of every distinct row
and writes the canonical lines to a private spool ``<run>/.parts/<key>.spool`` (0600, written under a temporary name
and renamed, so a retried or repeated task leaves one whole file). It returns counts and hashes only: the tally, the
additive multiset commitment (a sum modulo 2^512, so partial sums merge in any order), rejection and occurrence
counts keyed by digest, and the spool index (document id, offset, length).

The client merges the partial results, concatenates the spools (a row seen in several partitions is kept once: its
cleaned line depends only on the row) and hands the merged spool to the same commit step as the single-process run,
which sorts by ``document_id`` and writes every artifact. So the bytes cannot depend on the partitioning or the
number of workers. Nothing in the run folder changes until every task has succeeded; on failure the parts are removed
and :class:`ClusterError` is raised (the previous committed run, if any, is left as it was).
"""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any

from nerb_verify.canonical import python_canonical_sha256
from nerb_verify.producers import preparation
from nerb_verify.producers.cluster import ClusterError, Partition, connect, partitions, task_keys, worker_count
from nerb_verify.producers.sources import SourceTally

PARTS_PER_WORKER = 4


def prepare_partition(part: Partition, spool: str, dataset_id: str, revision: str,
                      policy_sha: str) -> dict[str, Any]:
    """Map task: stream, validate and clean one partition into a private spool; returns counts and hashes only."""
    tally = SourceTally()
    rejections: Counter = Counter()
    occurrences: Counter = Counter()
    failed: dict[str, str] = {}
    index: list[tuple[str, int, int]] = []
    temporary = spool + ".tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    offset = 0
    with os.fdopen(fd, "wb") as out:
        for item in part.items():
            tally.add(item)
            if item.reason is not None:
                rejections[(item.digest, item.reason, item.truncated_before_rejection)] += 1
                continue
            occurrences[item.digest] += 1
            if occurrences[item.digest] != 1:
                continue
            digest, line, code = preparation._clean_task((item.row, item.digest, dataset_id, revision, policy_sha))
            if line is None:
                failed[digest] = code or "mime_structure"
                continue
            index.append((preparation._doc_id_of(line), offset, len(line)))
            out.write(line)
            offset += len(line)
    os.replace(temporary, spool)
    return {"input_records": tally.input_records, "accepted": tally.accepted, "rejected": tally.rejected,
            "commitment": (tally.commitment.count, tally.commitment.acc), "rejections": dict(rejections),
            "occurrences": dict(occurrences), "failed": failed, "index": index, "spool_bytes": offset}


def prepare_on_cluster(cluster: Any, input_path: Path, run_dir: Path, *, input_kind: str, dataset_id: str,
                       revision: str, dataset_split: str, progress: bool,
                       parts: int | None = None) -> preparation.PrepareResult:
    """Run the preparation on ``cluster`` (a Client, ``local:N`` or an address) and commit ``run_dir``."""
    policy_sha = python_canonical_sha256(preparation.cleaning_policy())
    grouping_sha = python_canonical_sha256(preparation.grouping_policy())
    parts_dir = run_dir / ".parts"
    start = time.perf_counter()
    try:
        with connect(cluster) as client:
            pieces = partitions(input_path, input_kind, parts or PARTS_PER_WORKER * worker_count(client))
            keys = task_keys("prepare", len(pieces))
            preparation._private_dir(parts_dir)
            futures = [client.submit(prepare_partition, piece, str(parts_dir / f"{key}.spool"), dataset_id,
                                     revision, policy_sha, key=key, pure=False, retries=3)
                       for piece, key in zip(pieces, keys)]
            results = client.gather(futures)
        elapsed = time.perf_counter() - start
        spool_path = run_dir / "prepared.unsorted.tmp"
        tally, spool, rejections = _merge(results, [parts_dir / f"{key}.spool" for key in keys], spool_path)
    except Exception as exc:  # noqa: BLE001 - a lost cluster, a killed worker beyond retries, an unreadable part
        shutil.rmtree(parts_dir, ignore_errors=True)
        (run_dir / "prepared.unsorted.tmp").unlink(missing_ok=True)
        raise ClusterError("cluster_run_failed") from exc
    shutil.rmtree(parts_dir, ignore_errors=True)
    (run_dir / "COMMITTED").unlink(missing_ok=True)
    for digest, code in spool.failed.items():
        count = spool.occurrences.pop(digest)
        for _ in range(count):
            tally.reject_after_validation("cleaning_" + code)
        rejections[(digest, "cleaning_" + code, False)] += count
    result = preparation._commit(run_dir, spool_path, spool, tally, rejections, dataset_id, revision, policy_sha,
                                 grouping_sha, progress, dataset_split)
    result.elapsed_seconds = elapsed
    return result


def _merge(results: list[dict[str, Any]], spools: list[Path],
           spool_path: Path) -> tuple[SourceTally, preparation._Spool, Counter]:
    """Merge partial results in partition order and concatenate the spools (each distinct row kept once)."""
    tally = SourceTally()
    spool = preparation._Spool()
    rejections: Counter = Counter()
    fd = os.open(spool_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    base = 0
    with os.fdopen(fd, "wb") as out:
        for result, part_spool in zip(results, spools):
            tally.input_records += result["input_records"]
            tally.accepted += result["accepted"]
            for reason, count in result["rejected"].items():
                tally.rejected[reason] = tally.rejected.get(reason, 0) + count
            count, acc = result["commitment"]
            tally.commitment.count += count
            tally.commitment.acc = (tally.commitment.acc + acc) % (1 << 512)
            rejections.update(result["rejections"])
            spool.occurrences.update(result["occurrences"])
            spool.failed.update(result["failed"])
            with open(part_spool, "rb") as part:
                if part.seek(0, os.SEEK_END) != result["spool_bytes"]:
                    raise ClusterError("partition_spool_mismatch")
                part.seek(0)
                shutil.copyfileobj(part, out)
            for doc_id, offset, length in result["index"]:
                spool.index.setdefault(doc_id, (base + offset, length))
            base += result["spool_bytes"]
    return tally, spool, rejections


def prepare(input_path: Path, private_root: Path, *, cluster: Any = None, partitions: int | None = None,
            run: str = "run", input_kind: str = "auto", dataset_id: str = "local", revision: str = "",
            dataset_split: str = "train", progress: bool = False, limit: int | None = None,
            workers: int = 1) -> preparation.PrepareResult:
    """:func:`nerb_verify.producers.preparation.prepare`, with the per-record stages on ``cluster`` (a Dask Client,
    ``local:N`` or a scheduler address) over ``partitions`` input partitions when one is given; the artifacts are
    byte-identical to the single-process path. A failed cluster run raises
    :class:`~nerb_verify.producers.cluster.ClusterError` and commits nothing (a run folder it created is removed)."""
    if cluster is None:
        return preparation.prepare(input_path, private_root, run=run, input_kind=input_kind, dataset_id=dataset_id,
                                   revision=revision, workers=workers, progress=progress, limit=limit,
                                   dataset_split=dataset_split)
    if limit is not None:
        raise ValueError("limit is not supported on a cluster")
    target = private_root / "enron-preparation" / run
    existed = target.exists()
    try:
        return prepare_on_cluster(cluster, input_path, preparation._private_dir(target), input_kind=input_kind,
                                  dataset_id=dataset_id, revision=revision, dataset_split=dataset_split,
                                  progress=progress, parts=partitions)
    except Exception:
        if not existed:
            shutil.rmtree(target, ignore_errors=True)
        raise
