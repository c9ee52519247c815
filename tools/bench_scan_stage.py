"""Benchmark the privacy stage of ``nerb-verify verify`` on the vendored bundle, against a baseline checkout.

Usage:

    git archive <commit> | tar -x -C /tmp/base
    python tools/bench_scan_stage.py --baseline /tmp/base [--rounds 4] [--repeats 5] [--out result.json]

Each run is a fresh process of one tree (this checkout, or ``--baseline``), alternated A B B A so drifting load hits
both alike, each pinned to CPU 0 where ``taskset`` exists. A run measures, in CPU time of its own process
(``process_time``):

* ``import_ms``: importing the privacy family (``nerb_verify.checks.raw.privacy_scan``) after the verifier's core
  modules (codes, findings, loader, memo, pointers), i.e. the privacy stack's own import cost (with the few verifier
  modules only it imports, such as ``display``);
* ``first_ms``: the privacy stage on its first run in the process (the bundle opened and every other family run
  first, as ``verify`` does): what a fresh ``nerb-verify verify`` pays;
* ``cold_ms``: the median of ``--repeats`` further runs with the memo and every per-string and per-token cache of
  the scanner emptied before each (the same work as a first run, without first-use costs);

* ``json_ms``: parsing and contract-scanning every JSON file of the bundle (the scanner's caches emptied first;
  median of ``--repeats``), the figure behind the MB/s on evidence JSON;

and, as a separate fresh process, ``process_cpu_ms``: a whole ``python -m nerb_verify verify BUNDLE`` (user +
system CPU from ``getrusage``). Reported: the median of each figure over the runs of each tree, the ratio of the
medians (baseline / this tree), the findings of both (they must be the same), and every sample in the JSON.
Nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUNDLE = "fixtures/bundles/nerb-enron"

# Run inside the measured tree (its own ``nerb_verify`` first on the path); prints one JSON line.
_PROBE = r"""
import importlib, json, pkgutil, statistics, sys, time
sys.path.insert(0, ".")
from pathlib import Path
# The verifier's core modules first, so the figure is the privacy stack's own import.
import nerb_verify.codes, nerb_verify.findings, nerb_verify.loader, nerb_verify.memo, nerb_verify.pointers
assert not any(name.startswith("nerb_verify.privacy") for name in sys.modules)
start = time.process_time()
import nerb_verify.checks.raw.privacy_scan
import_ms = 1000 * (time.process_time() - start)
from nerb_verify import families, layout, memo
from nerb_verify.bundle import open_bundle
from nerb_verify.context import VerifyContext, VerifyOptions
from nerb_verify.findings import Collector
import nerb_verify.privacy as privacy
names = ["nerb_verify.privacy." + m.name for m in pkgutil.iter_modules(privacy.__path__)]
names += ["nerb_verify.privacy.rules." + m.name for m in pkgutil.iter_modules([privacy.__path__[0] + "/rules"])]
caches = [value for name in names for value in vars(importlib.import_module(name)).values()
          if hasattr(value, "cache_clear") and hasattr(value, "cache_info")]
# Per-string and per-token caches only: the compiled hint tables and rule tuples are built once per process.
caches = [cache for cache in caches if cache.__name__ not in ("_hints", "_rules", "_screen_profile")]
ctx = VerifyContext(root=Path(sys.argv[1]), options=VerifyOptions(), collector=Collector())
open_bundle(ctx)
layout.check_layout(ctx)
stages = dict(families.FAMILY_ORDER)
for family, run in families.FAMILY_ORDER:
    if family != "privacy":
        run(ctx)
def privacy_run():
    before = len(ctx.collector.findings)
    start = time.process_time()
    stages["privacy"](ctx)
    took = 1000 * (time.process_time() - start)
    return took, sorted((f.code, f.artifact, f.pointer) for f in ctx.collector.findings[before:])
first_ms, found = privacy_run()
cold = []
for _ in range(int(sys.argv[2])):
    memo.clear()
    for cache in caches:
        cache.cache_clear()
    took, again = privacy_run()
    assert again == found
    cold.append(took)
from nerb_verify.loader import BUNDLE_LIMITS, parse_json_bytes
from nerb_verify.privacy.json_scan import scan_json
from nerb_verify.privacy.profiles import CONTRACT
raws = [(path.relative_to(ctx.root).as_posix(), path.read_bytes()) for path in sorted(ctx.root.rglob("*.json"))]
json_ms = []
for _ in range(int(sys.argv[2])):
    for cache in caches:
        cache.cache_clear()
    start = time.process_time()
    parsed = [(rel, parse_json_bytes(raw, BUNDLE_LIMITS, root="any")) for rel, raw in raws]
    evidence = dict(parsed).get("benchmark-evidence.json")
    for rel, data in parsed:
        scan_json(data, CONTRACT, Collector(), rel, pointer_root=evidence)
    json_ms.append(1000 * (time.process_time() - start))
print(json.dumps({"import_ms": import_ms, "first_ms": first_ms, "cold_ms": statistics.median(cold),
                  "cold_samples_ms": cold, "json_ms": statistics.median(json_ms),
                  "json_bytes": sum(len(raw) for _rel, raw in raws), "findings": found}))
"""


def _probe(tree: Path, repeats: int, pin: list[str]) -> dict[str, object]:
    done = subprocess.run(pin + [sys.executable, "-c", _PROBE, str(tree / BUNDLE), str(repeats)], cwd=tree,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _process_cpu_ms(tree: Path, pin: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(pin + [sys.executable, "-m", "nerb_verify", "verify", BUNDLE], cwd=tree, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return 1000 * (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)


FIGURES = ("import_ms", "first_ms", "cold_ms", "json_ms", "process_cpu_ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="a checkout of the commit to compare with")
    parser.add_argument("--rounds", type=int, default=4, help="A B B A rounds (two processes per tree each)")
    parser.add_argument("--repeats", type=int, default=5, help="cold repeats inside each process")
    parser.add_argument("--no-one-core", dest="one_core", action="store_false", help="do not pin to CPU 0")
    parser.add_argument("--out", type=Path, help="also write the JSON (every sample) here")
    args = parser.parse_args(argv)
    pin = ["taskset", "-c", "0"] if args.one_core and shutil.which("taskset") else []
    trees = {"baseline": args.baseline.resolve(), "this_tree": REPO}
    samples: dict[str, dict[str, list[float]]] = {name: {figure: [] for figure in FIGURES} for name in trees}
    findings: dict[str, object] = {}
    json_bytes = 0
    loads = [os.getloadavg()[0]]
    for _round in range(args.rounds):
        for name in ("baseline", "this_tree", "this_tree", "baseline"):
            probe = _probe(trees[name], args.repeats, pin)
            for figure in ("import_ms", "first_ms", "cold_ms", "json_ms"):
                samples[name][figure].append(float(probe[figure]))  # type: ignore[arg-type]
            samples[name]["process_cpu_ms"].append(_process_cpu_ms(trees[name], pin))
            findings[name] = probe["findings"]
            json_bytes = int(probe["json_bytes"])  # type: ignore[call-overload]
        loads.append(os.getloadavg()[0])
    medians = {name: {figure: round(statistics.median(values), 1) for figure, values in figures.items()}
               for name, figures in samples.items()}
    ratios = {figure: round(medians["baseline"][figure] / medians["this_tree"][figure], 2) for figure in FIGURES}
    result = {"bundle": BUNDLE, "runs_per_tree": 2 * args.rounds, "cold_repeats": args.repeats, "pinned": bool(pin),
              "load_average_1min": loads, "same_findings": findings["baseline"] == findings["this_tree"],
              "findings": len(findings["this_tree"]),  # type: ignore[arg-type]
              "json_bytes": json_bytes,
              "json_mb_s": {name: round(json_bytes / 1000 / medians[name]["json_ms"], 2) for name in trees},
              "medians": medians, "ratios_baseline_over_this": ratios, "samples": samples}
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    print()
    print("| median CPU ms | baseline | this tree | ratio |")
    print("|---|---:|---:|---:|")
    labels = {"import_ms": "import of the privacy stack", "first_ms": "privacy stage, first run in the process",
              "cold_ms": "privacy stage, caches emptied", "json_ms": "parse + contract scan of the bundle's JSON",
              "process_cpu_ms": "whole `nerb-verify verify` process"}
    for figure in FIGURES:
        print(f"| {labels[figure]} | {medians['baseline'][figure]} | {medians['this_tree'][figure]} | "
              f"{ratios[figure]}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
