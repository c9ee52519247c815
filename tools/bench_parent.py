"""Time the parent's own path of ``nerb-verify verify --jobs 2`` (everything but the privacy stage), in fresh processes.

With ``--jobs 2`` the verifier forks after opening the bundle: the child computes the privacy scans (and the ahead
stages, docs/performance.md), the parent runs every other family. The wall time is the later of the two, so each
side has its own budget (issue 16). This tool runs ``verify`` of the real bundle through each given interpreter (a
venv with nerb-verify installed from a wheel: ``python -m venv V && V/bin/pip install .``), alternated A B B A, and
stamps, from just before the process is started:

* ``fork``: the parent forks its child (``prefork.start``);
* ``privacy``: the parent reaches the privacy family (the first ``prefork.finish``): every other family is done;
* ``finished``: the privacy stage's wait and share of scans are over;
* ``exit``: the process has exited.

The parent's path is ``privacy`` plus what follows ``finished`` (rendering the output, shutting down): ``exit -
(finished - privacy)``. The stamps are taken by a wrapper that imports ``nerb_verify.cli`` and ``nerb_verify.prefork``
and patches the two ``prefork`` functions; nothing else differs from the console script (``cli.main()`` with no
arguments, so ``--jobs auto`` is 2 on Linux with two CPUs).

Usage: python tools/bench_parent.py --python /tmp/vb/bin/python --python /tmp/vp/bin/python [--runs 8] [--json F]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUNDLE = REPO / "fixtures" / "bundles" / "nerb-enron"

WRAPPER = """
import os, sys, time
from nerb_verify import cli, prefork
stamps = {}
start, finish = prefork.start, prefork.finish
def timed_start(*args, **kwargs):
    stamps.setdefault("fork", time.time())
    return start(*args, **kwargs)
def timed_finish(child):
    stamps.setdefault("privacy", time.time())
    outcome = finish(child)
    stamps.setdefault("finished", time.time())
    return outcome
prefork.start, prefork.finish = timed_start, timed_finish
def write_stamps():
    with open(os.environ["NERB_BENCH_STAMPS"], "a") as out:
        out.write(repr(stamps) + "\\n")
end = getattr(cli, "end_process", None)
if end is not None:  # the console verify ends the process itself once its output is flushed
    def timed_end(code):
        write_stamps()
        end(code)
    cli.end_process = timed_end
sys.argv = ["nerb-verify", "verify", sys.argv[1]]
code = cli.main()
write_stamps()
sys.exit(code)
"""


def run_once(python: str, wrapper: Path, stamps: Path) -> dict[str, float]:
    """One fresh process: milliseconds from just before the start to each stamp and to the exit."""
    before = stamps.read_text().count("\n") if stamps.exists() else 0
    began = time.time()
    done = subprocess.run([python, str(wrapper), str(BUNDLE)], stdout=subprocess.DEVNULL, cwd=tempfile.gettempdir(),
                          env=dict(os.environ, NERB_BENCH_STAMPS=str(stamps)), check=False)
    ended = time.time()
    lines = stamps.read_text().splitlines()
    if done.returncode != 0 or len(lines) != before + 1:
        raise SystemExit(f"{python}: exit {done.returncode}")
    marks = ast.literal_eval(lines[-1])
    result = {name: 1000 * (value - began) for name, value in marks.items()}
    result["exit"] = 1000 * (ended - began)
    if "privacy" in result and "finished" in result:
        result["parent_path"] = result["exit"] - (result["finished"] - result["privacy"])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", required=True, help="an interpreter with nerb-verify installed")
    parser.add_argument("--runs", type=int, default=8, help="processes per interpreter (default 8)")
    parser.add_argument("--json", type=Path, help="write every sample to this file")
    args = parser.parse_args(argv)
    samples: dict[str, list[dict[str, float]]] = {python: [] for python in args.python}
    with tempfile.TemporaryDirectory() as work:
        wrapper, stamps = Path(work) / "wrapper.py", Path(work) / "stamps.txt"
        wrapper.write_text(WRAPPER, encoding="utf-8")
        order = list(args.python)
        for _ in range(args.runs):
            for python in order:
                samples[python].append(run_once(python, wrapper, stamps))
            order.reverse()  # A B B A ...
    medians = {python: {name: statistics.median(sample[name] for sample in rows)
                        for name in rows[0]} for python, rows in samples.items()}
    for python, values in medians.items():
        print(python)
        for name, value in values.items():
            print(f"  {name:12s} {value:7.1f} ms")
    if args.json:
        args.json.write_text(json.dumps({"medians": medians, "samples": samples}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
