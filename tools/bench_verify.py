"""Time the full ``nerb-verify verify`` of the vendored real bundle, and the performance family alone.

Prints medians of several runs (wall clock, and CPU time where a busy machine would distort wall time): in-process (``verify_bundle``), the performance family on its own, and as a
subprocess (``python -m nerb_verify verify``, which includes interpreter start-up and imports). No assertions:
timing is informational (the target is well under a second for the whole bundle on one core).

In-process runs clear the content-addressed memo first (:mod:`nerb_verify.memo`), so a repeated verification of
the same bytes is timed as a fresh one, not as a memo hit. ``--baseline DIR`` (a ``git archive`` copy of another
commit) times whole processes of both trees alternately (ABBA, fresh processes, same minutes) and prints the
medians of wall time, user CPU and peak RSS, and their ratios.

Usage: python tools/bench_verify.py [--runs N] [--baseline DIR]
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

from nerb_verify import memo  # noqa: E402
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


def _fresh_verify() -> None:
    memo.clear()
    verify_bundle(BUNDLE)


def _process(tree: Path) -> tuple[float, float, int]:
    """(wall s, user CPU s, peak RSS KiB) of one fresh ``python -m nerb_verify verify`` of the real bundle run from
    ``tree`` (its own ``nerb_verify``)."""
    command = ["/usr/bin/time", "-f", "%e %U %M", sys.executable, "-m", "nerb_verify", "verify", str(BUNDLE)]
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    wall, user, rss = done.stderr.strip().splitlines()[-1].split()
    return float(wall), float(user), int(rss)


def compare(baseline: Path, runs: int) -> None:
    """ABBA whole-process comparison of this tree (B) against ``baseline`` (A); prints medians and ratios."""
    results: dict[str, list[tuple[float, float, int]]] = {"A": [], "B": []}
    order = "ABBA" * ((runs + 1) // 2)
    for label in order:
        results[label].append(_process(baseline if label == "A" else REPO))
    medians = {label: [statistics.median(run[i] for run in items) for i in range(3)]
               for label, items in results.items()}
    for label, name in (("A", f"baseline {baseline}"), ("B", "this tree")):
        wall, user, rss = medians[label]
        print(f"{name}: median of {len(results[label])}: {wall:.3f} s wall, {user:.3f} s user, {rss / 1024:.1f} MiB")
    print(f"ratio baseline/this tree: wall {medians['A'][0] / medians['B'][0]:.2f}x, "
          f"user {medians['A'][1] / medians['B'][1]:.2f}x")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="a checkout of another commit to compare with (ABBA)")
    args = parser.parse_args(argv)
    if args.baseline is not None:
        compare(args.baseline.resolve(), args.runs)
        return 0
    result = verify_bundle(BUNDLE)
    ctx = result.ctx

    def family_only() -> None:
        ctx.collector.findings.clear()
        ctx.collector.recomputed.clear()
        ctx.shared.pop("text.tables", None)
        performance.run(ctx)

    in_process = _median_seconds(_fresh_verify, args.runs)
    in_process_cpu = _median_seconds(_fresh_verify, args.runs, time.process_time)
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
