"""Compute memoisable per-file stages in a forked child process while this process runs the other check families.

The privacy family's per-file scans are pure functions of a file's raw bytes and the scan parameters (that is what
lets :mod:`nerb_verify.memo` keep them), they read nothing another family writes, and on the real bundle they are
the largest single stage (issue 16, speed). With ``verify --jobs 2`` the verifier forks right after the bundle is
opened: the child runs those scans and sends their results back through a pipe; the parent runs every other family
meanwhile and, just before the privacy family, publishes the child's results into the memo, where the family finds
them under the same keys it would have computed. So the findings, their order and every count are the ones a single
process produces.

Failing closed: if the platform cannot fork, other threads are running (a fork would copy them in an unknown state),
the memo is off, the child exits with anything but 0 or its pipe holds anything but a complete result, nothing is
published and the privacy family computes every scan itself. Nothing is ever skipped because a child was used.

The child never writes to standard output or error, never runs exit handlers (``os._exit``) and holds only what
the fork gave it; the pipe carries the pickled findings of our own code, which hold codes, pointers and rules but no
input value.
"""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from nerb_verify import memo

Job = tuple[tuple[Hashable, ...], Callable[[], object]]


@dataclass
class Child:
    """A forked child computing ``keys`` (in order), and the read end of its result pipe."""

    pid: int
    fd: int
    keys: tuple[tuple[Hashable, ...], ...]


def can_fork() -> bool:
    """Whether a child can be forked safely here: the platform has ``fork``, this process runs no other thread and
    the memo (where results are published) is on."""
    return hasattr(os, "fork") and threading.active_count() == 1 and memo.enabled()


def start(jobs: Sequence[Job]) -> Child | None:
    """Fork a child that computes every job not already memoised and writes ``[(key, value), ...]`` to a pipe;
    return it, or None when there is nothing to compute or no child can be forked (the caller then computes)."""
    pending = [(key, compute) for key, compute in jobs if not memo.contains(key)]
    if not pending or not can_fork():
        return None
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:  # pragma: no cover - the child's lines run in another process
        status = 1
        try:
            os.close(read_fd)
            results = [(key, compute()) for key, compute in pending]
            payload = pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL)
            view = memoryview(payload)
            while view:
                view = view[os.write(write_fd, view):]
            status = 0
        except BaseException:  # noqa: BLE001 - any failure only means the parent computes the scans itself
            status = 1
        finally:
            os._exit(status)
    os.close(write_fd)
    return Child(pid=pid, fd=read_fd, keys=tuple(key for key, _ in pending))


def finish(child: Child | None) -> int:
    """Wait for ``child``, publish its results into the memo and return how many were published (0 when the child
    failed or sent an incomplete or unexpected result: the caller's stage then computes them itself)."""
    if child is None:
        return 0
    chunks: list[bytes] = []
    try:
        while True:
            chunk = os.read(child.fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        chunks = []
    finally:
        os.close(child.fd)
    try:
        _, status = os.waitpid(child.pid, 0)
    except ChildProcessError:
        return 0
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0 or not chunks:
        return 0
    try:
        results = pickle.loads(b"".join(chunks))
    except Exception:  # noqa: BLE001 - a truncated pipe: compute in this process instead
        return 0
    if not isinstance(results, list) or tuple(key for key, _ in results) != child.keys:
        return 0
    for key, value in results:
        memo.store(key, value)
    return len(results)
