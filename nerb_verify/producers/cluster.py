"""Producers on a Dask cluster: connection, input partitions and opaque task keys (the ``distributed`` extra).

``--cluster local:N`` starts a LocalCluster of N single-threaded worker processes on this machine; any other value is
a scheduler address (``tcp://host:8786``) of a running cluster. Workers read the input and write under the private
root, so on a real cluster both must be on a filesystem every worker mounts at the same path.

A ``local:N`` cluster keeps its workers' scratch space in a private temporary folder; on a real cluster, start the
workers with ``--local-directory`` on storage only the run's account can read (docs/producers.md).

Task keys are ``nerb-<stage>-<random token>-<part number>``: they carry no path, file name, text or digest of the
input, so the dashboard, the scheduler's logs and the task stream show nothing private.
"""

from __future__ import annotations

import logging
import re
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nerb_verify.producers.sources import (MAX_MESSAGE_BYTES, SourceItem, iter_jsonl, iter_one_file,
                                           jsonl_line_starts, message_files, resolve_kind)

LOCAL = re.compile(r"^local:([1-9][0-9]{0,2})$")
ADDRESS = re.compile(r"^(tcp|tls|inproc|ucx)://[A-Za-z0-9_.:\[\]/-]{1,200}$")


class ClusterError(Exception):
    """The cluster run could not complete; ``code`` is a stable reason (no input value, no library text)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def cluster_spec_problem(spec: str) -> str | None:
    """Why ``spec`` is not a ``local:N`` or scheduler address (None when usable); checked before anything runs."""
    if LOCAL.match(spec) or ADDRESS.match(spec):
        return None
    return "--cluster must be local:N (N workers on this machine) or a scheduler address such as tcp://host:8786"


def dask_available() -> bool:
    """True when ``dask.distributed`` can be imported (the ``distributed`` extra is installed)."""
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        return False
    return True


@contextmanager
def connect(cluster: Any) -> Iterator[Any]:
    """A ``dask.distributed.Client`` for ``cluster``: an existing Client (used as is), ``local:N`` or an address.

    A LocalCluster started here has single-threaded worker processes (the cleaning is pure Python: threads would
    share one GIL), no dashboard, quiet logs, and is closed on exit. Its workers' scratch space (where Dask spills
    task results: feature digests, document ids, spool indexes) is a fresh 0700 folder removed on exit, not Dask's
    shared default under the temporary directory, whose folders and files other local accounts can read.
    """
    from dask.distributed import Client, LocalCluster

    if isinstance(cluster, Client):
        yield cluster
        return
    match = LOCAL.match(str(cluster))
    if match:
        scratch = tempfile.mkdtemp(prefix="nerb-dask-")  # mode 0700
        try:
            local = LocalCluster(n_workers=int(match.group(1)), threads_per_worker=1, processes=True,
                                 dashboard_address=None, silence_logs=logging.ERROR, local_directory=scratch)
            client = Client(local)
            try:
                yield client
            finally:
                client.close()
                local.close()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return
    client = Client(str(cluster))
    try:
        yield client
    finally:
        client.close()


def task_keys(stage: str, count: int) -> list[str]:
    """``count`` opaque task keys for one stage of one run (a random token, never derived from the input)."""
    token = secrets.token_hex(6)
    return [f"nerb-{stage}-{token}-{index:05d}" for index in range(count)]


def worker_count(client: Any) -> int:
    """How many workers the scheduler currently knows (at least 1)."""
    return max(1, len(client.scheduler_info().get("workers", {})))


@dataclass(frozen=True)
class Partition:
    """One unit of partitioned input: a byte range of a JSONL file, or a run of message files under a root."""

    kind: str  # "jsonl" or "messages"
    root: str
    start: int = 0
    end: int = 0
    files: tuple[str, ...] = ()  # relative names under root, in streaming order

    def items(self) -> Iterator[SourceItem]:
        """The source items of this partition, exactly as the single-process stream yields them for its range."""
        root = Path(self.root)
        if self.kind == "jsonl":
            yield from iter_jsonl(root, start=self.start, end=self.end)
            return
        for rel in self.files:
            path = root if root.is_file() else root / rel
            yield from iter_one_file(path, rel, MAX_MESSAGE_BYTES)


def partitions(path: Path, kind: str, parts: int) -> list[Partition]:
    """Cut the input into at most ``parts`` partitions whose concatenated streams are the single-process stream.

    JSONL: byte ranges cut at line starts. Messages: the sorted file list (maildir subtrees, mbox files, .eml files)
    in contiguous runs; an mbox file is never cut.
    """
    if resolve_kind(path, kind) == "jsonl":
        cuts = jsonl_line_starts(path, parts)
        return [Partition("jsonl", str(path), cuts[k], cuts[k + 1]) for k in range(len(cuts) - 1)] or [
            Partition("jsonl", str(path), 0, 0)]
    names = [rel for _, rel in message_files(path)]
    parts = max(1, min(parts, len(names)))
    size, extra = divmod(len(names), parts)
    result, position = [], 0
    for k in range(parts):
        take = size + (1 if k < extra else 0)
        result.append(Partition("messages", str(path), files=tuple(names[position:position + take])))
        position += take
    return result


def add_cluster_arguments(parser: Any) -> None:
    """``--cluster ADDR|local:N`` and ``--partitions K`` (shared by prepare, split and scan-bank)."""
    parser.add_argument("--cluster", metavar="ADDR|local:N", default=None,
                        help="run on Dask (the `distributed` extra): a scheduler address or local:N worker processes; "
                             "the artifacts are byte-identical to the single-process run")
    parser.add_argument("--partitions", type=int, default=None, metavar="K",
                        help="input partitions on --cluster (default: 4 per worker)")


def cluster_argument_problem(args: Any) -> str | None:
    """Why ``--cluster``/``--partitions`` cannot be used (None when absent or usable); no input value is echoed."""
    if args.cluster is None:
        return "--partitions needs --cluster" if args.partitions is not None else None
    problem = cluster_spec_problem(args.cluster)
    if problem:
        return problem
    if args.partitions is not None and not 1 <= args.partitions <= 100_000:
        return "--partitions must be 1..100000"
    if not dask_available():
        return "--cluster needs the distributed extra: pip install '.[distributed]' (from a clone)"
    return None
