"""The capacity run's resource observer: a separate process that samples the whole process tree (spec 30 A.7).

The observer is started by the measured process and runs outside its interpreter, so a workload that holds the GIL
(a long RE2 compile) cannot stall the samples (the policy's ``resource_observer_workload_gil_independent_required``).
Every ``interval_ns`` (and at once when the parent writes a line to its stdin, for the phase boundaries) it takes one
sample and writes it as one JSON line to stdout:

* ``t``: ``CLOCK_MONOTONIC`` in ns when the sample completed (the same clock as ``time.monotonic_ns`` in the parent);
* ``rss``: the sum of ``VmRSS`` over the observed root process and all its descendants (the observer is one of
  them: ``resource_observer_included_in_measured_process_tree``), from ``/proc``; ``rss_ns`` the time it took;
* ``free``: free bytes of the owned root's filesystem (``statvfs``: ``f_bavail * f_frsize``), ``owned``: the exact
  byte size of every regular file under the owned root (no symlink followed); ``fs_ns`` the time both took;
* ``late``: how late the sample started against its schedule; ``kind``: ``continuous`` or ``boundary``.

Linux only (``/proc``); elsewhere :func:`observer_problem` says why and the producer writes no capacity decision.
The observer stops when its stdin is closed or the observed process is gone. It never reads file contents, and the
lines carry numbers only.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

PROC = Path("/proc")
DEFAULT_INTERVAL_NS = 100_000_000


def observer_problem() -> str | None:
    """Why process-tree RSS cannot be observed here (None when it can)."""
    if not (PROC / "self" / "status").is_file():
        return "process-tree RSS needs /proc (Linux)"
    return None


def _children(pid: int) -> list[int]:
    """Direct children of ``pid`` from /proc/<pid>/task/*/children (every thread's children)."""
    out: list[int] = []
    try:
        tasks = list((PROC / str(pid) / "task").iterdir())
    except OSError:
        return out
    for task in tasks:
        try:
            out.extend(int(x) for x in (task / "children").read_text().split())
        except (OSError, ValueError):
            continue
    return out


def _rss(pid: int) -> int:
    """VmRSS of one process in bytes (0 when it is gone or has no memory: a zombie or kernel thread)."""
    try:
        for line in (PROC / str(pid) / "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return 0


def tree_rss(root: int) -> int:
    """The resident set of ``root`` and every descendant, summed."""
    seen: set[int] = set()
    stack = [root]
    total = 0
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _rss(pid)
        stack.extend(_children(pid))
    return total


def tree_bytes(root: Path) -> int:
    """Exact byte size of the regular files under ``root`` (symlinks are not followed; vanished files skipped)."""
    total = 0
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
    return total


def free_bytes(root: Path) -> int:
    """Free bytes available to an unprivileged writer on ``root``'s filesystem."""
    stats = os.statvfs(root)
    return stats.f_bavail * stats.f_frsize


def sample(root_pid: int, owned: Path, scheduled_ns: int, kind: str) -> dict[str, Any]:
    """One observation (module docstring)."""
    start = time.monotonic_ns()
    rss = tree_rss(root_pid)
    middle = time.monotonic_ns()
    free = free_bytes(owned)
    owned_bytes = tree_bytes(owned)
    end = time.monotonic_ns()
    return {"t": end, "rss": rss, "rss_ns": middle - start, "free": free, "owned": owned_bytes,
            "fs_ns": end - middle, "late": max(0, start - scheduled_ns), "kind": kind}


def main(argv: list[str]) -> int:
    """``python -m nerb_verify.producers.capacity_observer ROOT_PID OWNED_DIR INTERVAL_NS``."""
    root_pid, owned, interval = int(argv[0]), Path(argv[1]), int(argv[2])
    out = sys.stdout
    scheduled = time.monotonic_ns()
    stdin = sys.stdin.fileno()
    while True:
        wait = max(0, scheduled - time.monotonic_ns()) / 1e9
        ready, _, _ = select.select([stdin], [], [], wait)
        kind = "continuous"
        if ready:
            line = os.read(stdin, 4096)
            if not line:
                return 0
            kind = "boundary"
        if not (PROC / str(root_pid)).exists() or not owned.is_dir():
            return 0
        out.write(json.dumps(sample(root_pid, owned, scheduled if kind == "continuous" else time.monotonic_ns(),
                                    kind)) + "\n")
        out.flush()
        if kind == "continuous":
            scheduled += interval
            now = time.monotonic_ns()
            if scheduled < now:  # fell behind: the next sample is due now, the gap shows in the samples
                scheduled = now


@dataclass
class Observer:
    """The parent's side: start the observer process, collect its samples, ask for boundary samples, stop it."""

    owned: Path
    interval_ns: int = DEFAULT_INTERVAL_NS
    samples: list[dict[str, Any]] = field(default_factory=list)
    _process: subprocess.Popen[bytes] | None = None
    _reader: threading.Thread | None = None

    def start(self) -> None:
        """Start the observer on this process's tree and wait for its first sample."""
        self._process = subprocess.Popen(
            [sys.executable, "-m", "nerb_verify.producers.capacity_observer", str(os.getpid()), str(self.owned),
             str(self.interval_ns)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=str(Path(__file__).resolve().parents[2]))
        self._reader = threading.Thread(target=self._read, args=(self._process.stdout,), daemon=True)
        self._reader.start()
        deadline = time.monotonic() + 10
        while not self.samples and time.monotonic() < deadline and self._process.poll() is None:
            time.sleep(0.01)
        if not self.samples:
            self.stop()
            raise OSError("the resource observer did not start")

    def _read(self, stream: IO[bytes] | None) -> None:
        if stream is None:
            return
        for raw in stream:
            try:
                self.samples.append(json.loads(raw))
            except ValueError:
                continue

    def boundary(self) -> int:
        """Ask for a sample now; wait until it arrives; return its time (ns, the monotonic clock)."""
        if self._process is None or self._process.stdin is None:
            raise OSError("the resource observer is not running")
        count = len(self.samples)
        self._process.stdin.write(b"s\n")
        self._process.stdin.flush()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            for item in self.samples[count:]:
                if item.get("kind") == "boundary":
                    return int(item["t"])
            time.sleep(0.002)
        raise OSError("the resource observer stopped answering")

    def stop(self) -> None:
        """Close the observer's stdin and wait for it (killed after 5 s)."""
        if self._process is None:
            return
        try:
            if self._process.stdin is not None:
                self._process.stdin.close()
            self._process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()
        if self._reader is not None:
            self._reader.join(timeout=5)
        self._process = None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
