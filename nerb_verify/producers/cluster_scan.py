"""The bank scan over a JSONL corpus on a Dask cluster: one task per line-start byte range, outputs concatenated.

Two task layers with opaque keys: ``scan-lines`` counts the lines of each range (a document without an id is named
by its line number in the whole file, as in the single-process scan), then ``scan`` compiles the bank once per worker
process and writes the records of its range to a private part file (0600, temporary name then rename). The client
concatenates the parts in range order into the output, so the bytes equal the single-process scan's. A refused
document (over 10 MiB, invalid UTF-8, malformed line) is reported with its number in the whole file and, unlike the
single-process scan (which streams), nothing is written to the output.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any

from nerb_verify.producers.cluster import ClusterError, connect, task_keys, worker_count
from nerb_verify.producers.sources import jsonl_line_starts, parse_scan_line

PARTS_PER_WORKER = 4
_COMPILED: dict[tuple[str, int, int], Any] = {}


def _compiled(bank_path: str, shard_size: int) -> Any:
    """The compiled bank, cached per worker process (keyed by path, size and modification time)."""
    from nerb_verify.producers.bank_format import load_bank
    from nerb_verify.producers.engine import compile_bank

    stat = os.stat(bank_path)
    key = (bank_path, shard_size, stat.st_mtime_ns)
    if key not in _COMPILED:
        _COMPILED.clear()
        _COMPILED[key] = compile_bank(load_bank(Path(bank_path)), shard_size=shard_size)
    return _COMPILED[key]


def _lines(path: str, start: int, end: int) -> Any:
    with open(path, "rb") as handle:
        handle.seek(start)
        while handle.tell() < end:
            line = handle.readline()
            if not line:
                return
            yield line


def count_task(path: str, start: int, end: int) -> int:
    """Layer 1: the number of lines starting in ``[start, end)``."""
    return sum(1 for _ in _lines(path, start, end))


def scan_task(bank_path: str, shard_size: int, offsets: str, path: str, start: int, end: int, first_line: int,
              part: str) -> dict[str, Any]:
    """Layer 2: scan the documents of one range into ``part``; counts, or the local number of a refused document."""
    from nerb_verify.producers.engine import ScanInputError

    compiled = _compiled(bank_path, shard_size)
    documents = records = 0
    temporary = part + ".tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        for number, line in enumerate(_lines(path, start, end), first_line):
            if not line.strip():
                continue
            try:
                document_id, data = parse_scan_line(number, line)
            except ValueError:
                return {"documents": documents, "records": records, "error": "malformed"}
            documents += 1
            try:
                for record in compiled.scan_bytes(data, offsets):
                    records += 1
                    out.write(json.dumps({"document_id": document_id, **record}, ensure_ascii=False,
                                         sort_keys=False) + "\n")
            except ScanInputError as exc:
                return {"documents": documents, "records": records, "error": "refused", "message": str(exc)}
    os.replace(temporary, part)
    return {"documents": documents, "records": records, "error": None}


def scan_on_cluster(cluster: Any, bank_path: Path, input_path: Path, *, offsets: str, shard_size: int,
                    out: IO[str], parts: int | None = None, work_parent: Path | None = None) -> dict[str, Any]:
    """Scan ``input_path`` on ``cluster``; writes the records to ``out`` only when every range was scanned.

    The part files go to a private folder under ``work_parent`` (the output's folder: on a real cluster a filesystem
    every worker mounts). Returns ``{"documents", "records", "error", ...}``; ``error`` is None, ``"refused"`` (with the engine's fixed
    message) or ``"malformed"``, and ``documents`` then counts up to the refused document in the whole file.
    """
    work = Path(tempfile.mkdtemp(prefix=".nerb-scan-", dir=None if work_parent is None else str(work_parent)))
    os.chmod(work, 0o700)
    try:
        with connect(cluster) as client:
            cuts = jsonl_line_starts(input_path, parts or PARTS_PER_WORKER * worker_count(client))
            count = len(cuts) - 1
            count_keys = task_keys("scan-lines", count)
            sizes = client.gather([client.submit(count_task, str(input_path), cuts[k], cuts[k + 1], key=key,
                                                 pure=False, retries=3) for k, key in enumerate(count_keys)])
            keys = task_keys("scan", count)
            futures = [client.submit(scan_task, str(bank_path), shard_size, offsets, str(input_path), cuts[k],
                                     cuts[k + 1], 1 + sum(sizes[:k]), str(work / f"{key}.part"), key=key,
                                     pure=False, retries=3) for k, key in enumerate(keys)]
            results = client.gather(futures)
        documents = records = 0
        for result in results:
            documents += result["documents"]
            records += result["records"]
            if result["error"]:
                return {**result, "documents": documents + (1 if result["error"] == "malformed" else 0),
                        "records": records}
        for key in keys:
            with open(work / f"{key}.part", encoding="utf-8") as part:
                shutil.copyfileobj(part, out)
        return {"documents": documents, "records": records, "error": None}
    except ClusterError:
        raise
    except Exception as exc:  # noqa: BLE001 - a lost cluster or a worker killed beyond the retries
        raise ClusterError("cluster_run_failed") from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)
