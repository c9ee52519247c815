"""Benchmark the privacy scanner: MB/s of the contract profile over the vendored bundle, and of the repository profile
over a large generated tree beside detect-secrets on the same tree, in the same run.

Usage: python tools/bench_scan.py [--tree-mb 20] [--repeats 5] [--keep-tree DIR]

detect-secrets is not a dependency: install it for the benchmark only (``pip install detect-secrets``); without it
the comparison is reported as not run. Timings are integer nanoseconds from ``time.perf_counter_ns``; each figure is
the median of ``--repeats`` runs, and the scanner's string cache is cleared before every run (cold cache), so the
figures are what a single invocation sees. Results go to stdout as JSON and as a Markdown table for
docs/performance.md; nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nerb_verify.findings import Collector  # noqa: E402
from nerb_verify.loader import BUNDLE_LIMITS, parse_json_bytes  # noqa: E402
from nerb_verify.privacy import engine  # noqa: E402
from nerb_verify.privacy.json_scan import scan_json  # noqa: E402
from nerb_verify.privacy.profiles import CONTRACT, REPOSITORY  # noqa: E402
from nerb_verify.privacy.runner import scan_paths  # noqa: E402

BUNDLE = REPO / "fixtures" / "bundles" / "nerb-enron"

WORDS = ("alpha beta gamma delta evidence bundle verify scanner profile contract repository manifest quality "
         "slice metric recall precision throughput latency median sample pattern entity alias document").split()


def _median_ns(samples: list[int]) -> int:
    return int(statistics.median(samples))


def _mb_per_s(size: int, ns: int) -> float:
    return (size / 1_000_000) / (ns / 1_000_000_000) if ns else float("inf")


def bench_bundle(repeats: int) -> dict[str, object]:
    """Contract profile over every JSON file of the vendored bundle: parse + scan, and scan of parsed data alone."""
    files = sorted(p for p in BUNDLE.rglob("*.json"))
    raws = [(p.relative_to(BUNDLE).as_posix(), p.read_bytes()) for p in files]
    size = sum(len(raw) for _rel, raw in raws)
    total: list[int] = []
    scan_only: list[int] = []
    cpu: list[int] = []
    findings = 0
    for _ in range(repeats):
        engine._cached.cache_clear()
        cpu_start = time.process_time_ns()
        start = time.perf_counter_ns()
        parsed = [(rel, parse_json_bytes(raw, BUNDLE_LIMITS, root="any")) for rel, raw in raws]
        middle = time.perf_counter_ns()
        evidence = dict(parsed).get("benchmark-evidence.json")
        collector = Collector()
        for rel, data in parsed:
            scan_json(data, CONTRACT, collector, rel, pointer_root=evidence)
        end = time.perf_counter_ns()
        cpu.append(time.process_time_ns() - cpu_start)
        total.append(end - start)
        scan_only.append(end - middle)
        findings = len(collector.findings)
    return {"files": len(raws), "bytes": size, "findings": findings,
            "parse_and_scan_ns": _median_ns(total), "scan_only_ns": _median_ns(scan_only),
            "parse_and_scan_cpu_ns": _median_ns(cpu),
            "parse_and_scan_mb_s": round(_mb_per_s(size, _median_ns(total)), 2),
            "scan_only_mb_s": round(_mb_per_s(size, _median_ns(scan_only)), 2)}


def _paragraph(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30)))


def _python_file(rng: random.Random) -> str:
    lines = ['"""Module docstring: ' + _paragraph(rng) + '."""', "", "import re", ""]
    for index in range(rng.randint(20, 120)):
        lines.append(f"def function_{index}(value: int, ratio: float = {rng.random():.4f}) -> int:")
        lines.append(f"    # {_paragraph(rng)}")
        lines.append(f"    pattern = re.compile(r\"\\d{{3}}-{rng.randint(0, 99)}\")")
        lines.append(f"    return value * {rng.randint(1, 10**6)} // {rng.randint(1, 999)}  # see docs/x.md, 5 / 3")
        lines.append("")
    return "\n".join(lines) + "\n"


def _markdown_file(rng: random.Random) -> str:
    lines = ["# " + _paragraph(rng)[:40], ""]
    for _ in range(rng.randint(10, 60)):
        lines.append(_paragraph(rng) + f" [link](https://example.org/{rng.choice(WORDS)}?q={rng.randint(0, 999)}).")
        lines.append(f"| {rng.randint(0, 99999)} / {rng.randint(1, 99999)} | {rng.random():.2%} | /tmp/out |")
        lines.append("")
    return "\n".join(lines) + "\n"


def _json_file(rng: random.Random) -> str:
    rows = [{"id": f"row_{i}", "count": rng.randint(0, 10**6), "note": _paragraph(rng),
             "sha256": "sha256:" + "".join(rng.choice("0123456789abcdef") for _ in range(64))}
            for i in range(rng.randint(20, 200))]
    return json.dumps({"rows": rows}, indent=2) + "\n"


def make_tree(root: Path, target_mb: float, seed: int = 20260710) -> int:
    """Write a deterministic tree of Python, Markdown and JSON files totalling about ``target_mb`` MB."""
    rng = random.Random(seed)
    makers = (("py", _python_file), ("md", _markdown_file), ("json", _json_file))
    size = 0
    index = 0
    while size < target_mb * 1_000_000:
        extension, maker = makers[index % len(makers)]
        folder = root / f"pkg{index % 17}" / f"sub{index % 5}"
        folder.mkdir(parents=True, exist_ok=True)
        text = maker(rng)
        (folder / f"file_{index}.{extension}").write_text(text, encoding="utf-8")
        size += len(text.encode("utf-8"))
        index += 1
    return size


def bench_tree(tree: Path, size: int, repeats: int) -> dict[str, object]:
    """Repository profile over the tree (in process), and detect-secrets' default plugins on the same files."""
    ours: list[int] = []
    ours_cpu: list[int] = []
    findings = 0
    files = 0
    for _ in range(repeats):
        engine._cached.cache_clear()
        cpu_start = time.process_time_ns()
        start = time.perf_counter_ns()
        result = scan_paths([str(tree)], REPOSITORY)
        ours.append(time.perf_counter_ns() - start)
        ours_cpu.append(time.process_time_ns() - cpu_start)
        findings = len(result.findings)
        files = result.summary.files_scanned
    out: dict[str, object] = {"bytes": size, "files": files, "findings": findings, "nerb_verify_ns": _median_ns(ours),
                              "nerb_verify_cpu_ns": _median_ns(ours_cpu),
                              "nerb_verify_mb_s": round(_mb_per_s(size, _median_ns(ours)), 2)}
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        out["detect_secrets"] = "not installed (pip install detect-secrets)"
        return out
    paths = sorted(str(p) for p in tree.rglob("*") if p.is_file())
    theirs: list[int] = []
    theirs_cpu: list[int] = []
    for _ in range(max(1, repeats // 2)):
        cpu_start = time.process_time_ns()
        start = time.perf_counter_ns()
        with default_settings():
            secrets = SecretsCollection()
            for path in paths:
                secrets.scan_file(path)
        theirs.append(time.perf_counter_ns() - start)
        theirs_cpu.append(time.process_time_ns() - cpu_start)
    from importlib.metadata import version

    out.update({"detect_secrets_version": version("detect-secrets"), "detect_secrets_ns": _median_ns(theirs),
                "detect_secrets_cpu_ns": _median_ns(theirs_cpu),
                "detect_secrets_mb_s": round(_mb_per_s(size, _median_ns(theirs)), 2),
                "speedup": round(_median_ns(theirs) / _median_ns(ours), 2)})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree-mb", type=float, default=20.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--keep-tree", type=Path, help="write the generated tree here instead of a temp folder")
    args = parser.parse_args()
    bundle = bench_bundle(args.repeats)
    with tempfile.TemporaryDirectory() as scratch:
        tree = args.keep_tree or Path(scratch) / "tree"
        tree.mkdir(parents=True, exist_ok=True)
        size = make_tree(tree, args.tree_mb)
        repository = bench_tree(tree, size, args.repeats)
    machine = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
               "system": platform.system()}
    print(json.dumps({"machine": machine, "contract_bundle": bundle, "repository_tree": repository}, indent=2))
    print()
    print("| measurement | bytes | median wall time | MB/s (wall) | median CPU time | MB/s (CPU) |")
    print("|---|---:|---:|---:|---:|---:|")

    def row(label: str, size: int, wall: int, cpu_ns: int | None) -> None:
        cpu_text = f"{cpu_ns / 1e9:.3f} s | {_mb_per_s(size, cpu_ns):.2f}" if cpu_ns else "- | -"
        print(f"| {label} | {size:,} | {wall / 1e9:.3f} s | {_mb_per_s(size, wall):.2f} | {cpu_text} |")

    row(f"contract profile, vendored bundle ({bundle['files']} JSON files): parse + scan", bundle["bytes"],
        bundle["parse_and_scan_ns"], bundle["parse_and_scan_cpu_ns"])
    row("contract profile, vendored bundle: scan of parsed data", bundle["bytes"], bundle["scan_only_ns"], None)
    row(f"repository profile, generated tree ({repository['files']} files)", repository["bytes"],
        repository["nerb_verify_ns"], repository["nerb_verify_cpu_ns"])
    if "detect_secrets_ns" in repository:
        row(f"detect-secrets {repository['detect_secrets_version']} (default plugins), same tree",
            repository["bytes"], repository["detect_secrets_ns"], repository["detect_secrets_cpu_ns"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
