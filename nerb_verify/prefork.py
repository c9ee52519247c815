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

import gc
import os
import pickle
import select
import signal
import struct
import threading
import time
from collections.abc import Callable, Hashable, Sequence

from nerb_verify import memo

Job = tuple[tuple[Hashable, ...], Callable[[], object], int]
FRAME = struct.Struct(">Q")

# How long this process waits for the child's frames before it computes a job itself for the first time. The first
# job costs this process what the child has already paid (importing the stage's modules: the privacy scanner, about
# 30 ms), so helping a child that is about to finish would only delay the result (issue 16, speed).
FIRST_JOB_PATIENCE = 0.025


class Child:
    """A forked child computing ``jobs`` (in this order: largest first), and the read end of its result pipe."""

    def __init__(self, pid: int, fd: int, jobs: tuple[Job, ...]) -> None:
        """Hold the child's process id, the read end of its pipe and its jobs."""
        self.pid: int = pid
        self.fd: int = fd
        self.jobs: tuple[Job, ...] = jobs


class Outcome:
    """How the jobs of one :func:`finish` were computed: sent by the child, computed here while the child was still
    busy (from the small end), or left to the caller (a failed child)."""

    def __init__(self, from_child: int = 0, in_parent: int = 0, left: int = 0) -> None:
        """Start from the given counts (none by default); :func:`finish` counts each job once."""
        self.from_child: int = from_child
        self.in_parent: int = in_parent
        self.left: int = left


def can_fork() -> bool:
    """Whether a child can be forked safely here: the platform has ``fork``, this process runs no other thread and
    the memo (where results are published) is on."""
    return hasattr(os, "fork") and threading.active_count() == 1 and memo.enabled()


def start(jobs: Sequence[Job]) -> Child | None:
    """Fork a child that computes every job not already memoised, largest ``size`` first, writing one frame
    (length, pickled ``(index, value)``) per job to a pipe as it completes; return it, or None when there is nothing
    to compute or no child can be forked (the caller then computes)."""
    pending = sorted((job for job in jobs if not memo.contains(job[0])), key=lambda job: -job[2])
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
            # The child computes a bounded list of pure jobs and exits: the reference cycles its scans may leave are
            # few and go with it, so the cyclic collector's passes over the parent's objects would only cost time.
            gc.disable()
            for index, (_, compute, _) in enumerate(pending):
                payload = pickle.dumps((index, compute()), protocol=pickle.HIGHEST_PROTOCOL)
                view = memoryview(FRAME.pack(len(payload)) + payload)
                while view:
                    view = view[os.write(write_fd, view):]
            status = 0
        except BaseException:  # noqa: BLE001 - any failure only means the parent computes the rest itself
            status = 1
        finally:
            os._exit(status)
    os.close(write_fd)
    os.set_blocking(read_fd, False)
    return Child(pid=pid, fd=read_fd, jobs=tuple(pending))


def _frames(buffer: bytearray, count: int, jobs: tuple[Job, ...], results: dict[int, object]) -> int:
    """Move every complete frame at the start of ``buffer`` into ``results`` (the child sends job ``count`` next);
    return the new count, or -1 when a frame is not the job expected (nothing more is taken from this child)."""
    while len(buffer) >= FRAME.size:
        (length,) = FRAME.unpack_from(buffer)
        if len(buffer) < FRAME.size + length:
            break
        try:
            index, value = pickle.loads(bytes(buffer[FRAME.size:FRAME.size + length]))
        except Exception:  # noqa: BLE001 - an unreadable frame: the caller computes what is missing
            return -1
        del buffer[:FRAME.size + length]
        if index != count or count >= len(jobs):
            return -1
        results[index] = value
        count += 1
    return count


def finish(child: Child | None, patience: float = FIRST_JOB_PATIENCE) -> Outcome:
    """Take the child's results as they come while computing the remaining jobs here from the small end, stop the
    child once every job is covered, and publish every result into the memo.

    The child works from the largest job down and this process from the smallest up (after waiting up to
    ``patience`` seconds, :data:`FIRST_JOB_PATIENCE` by default, for the child first), so the two meet in the middle
    and at most the job both were on is computed twice (the same pure value). A job neither side finished (the child
    failed or sent something unexpected) is left to the caller's stage, which computes it on a memo miss."""
    if child is None:
        return Outcome()
    jobs = child.jobs
    results: dict[int, object] = {}
    own: dict[int, object] = {}
    buffer = bytearray()
    count = 0
    alive = True
    next_own = len(jobs) - 1
    patience_ends = time.monotonic() + patience
    try:
        while alive and count <= next_own:
            try:
                chunk = os.read(child.fd, 1 << 20)
            except BlockingIOError:
                chunk = None
            except OSError:
                chunk, alive = b"", False
            if chunk:
                buffer += chunk
                count = _frames(buffer, count, jobs, results)
                if count < 0:
                    alive, count = False, len(results)
                continue
            if chunk == b"":
                alive = False
                break
            wait = patience_ends - time.monotonic()
            if not own and wait > 0:
                select.select([child.fd], [], [], wait)  # a frame, the child's exit, or the end of the patience
                continue
            try:
                own[next_own] = jobs[next_own][1]()
            except Exception:  # noqa: BLE001 - a defect: leave the job to the family, which reports it as its own
                break
            next_own -= 1
    finally:
        os.close(child.fd)
        if alive:
            try:
                os.kill(child.pid, signal.SIGKILL)  # its remaining work is covered here, or left to the caller
            except ProcessLookupError:
                pass
        try:
            os.waitpid(child.pid, 0)
        except ChildProcessError:
            pass
    outcome = Outcome()
    for index, (key, _, _) in enumerate(jobs):
        if index in results:
            memo.store(key, results[index])
            outcome.from_child += 1
        elif index in own:
            memo.store(key, own[index])
            outcome.in_parent += 1
        else:
            outcome.left += 1
    return outcome
