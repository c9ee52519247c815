"""Time the full ``nerb-verify verify`` of the vendored real bundle, and the performance family alone.

Prints medians of several runs (wall clock, and CPU time where a busy machine would distort wall time): in-process (``verify_bundle``), the performance family on its own, and as a
subprocess (``python -m nerb_verify verify``, which includes interpreter start-up and imports). No assertions:
timing is informational (the target is well under a second for the whole bundle on one core).

Usage: python tools/bench_verify.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nerb_verify.checks import performance  # noqa: E402
from nerb_verify.verify import verify_bundle  # noqa: E402

BUNDLE = REPO / "fixtures" / "bundles" / "nerb-enron"


def _median_seconds(action, runs: int, clock=time.perf_counter) -> float:
    times = []
    for _ in range(runs):
        start = clock()
        action()
        times.append(clock() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    result = verify_bundle(BUNDLE)
    ctx = result.ctx

    def family_only() -> None:
        ctx.collector.findings.clear()
        ctx.collector.recomputed.clear()
        ctx.shared.pop("text.tables", None)
        performance.run(ctx)

    in_process = _median_seconds(lambda: verify_bundle(BUNDLE), args.runs)
    in_process_cpu = _median_seconds(lambda: verify_bundle(BUNDLE), args.runs, time.process_time)
    family = _median_seconds(family_only, args.runs)
    family_cpu = _median_seconds(family_only, args.runs, time.process_time)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "nerb_verify", "verify", str(BUNDLE)]
    subprocess_time = _median_seconds(
        lambda: subprocess.run(command, env=env, capture_output=True, check=False), args.runs)
    print(f"verdict: {result.verdict}")
    print(f"verify, in process (median of {args.runs}): {in_process:.3f} s")
    print(f"verify, in process CPU time (median of {args.runs}): {in_process_cpu:.3f} s")
    print(f"performance family alone (median of {args.runs}): {family:.3f} s wall, {family_cpu:.3f} s CPU")
    print(f"verify, subprocess (median of {args.runs}): {subprocess_time:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
