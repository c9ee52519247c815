"""Benchmark the privacy scanner: whole-process runs of ``nerb-verify scan --profile repository`` alternating (ABBA)
with detect-secrets on the same trees, plus the contract profile over the vendored bundle in process.

Usage:

    python3 -m venv /tmp/ds-venv && /tmp/ds-venv/bin/pip install detect-secrets
    python tools/bench_scan.py --detect-secrets /tmp/ds-venv/bin/detect-secrets [--real-mb 13] [--tree-mb 10]
                               [--rounds 2] [--real-tree DIR] [--baseline DIR] [--floor] [--out result.json]

``--profile`` (default ``repository``, the pre-commit hook's) is the profile of our scans of the two trees.

Trees: a *real mixed tree*, the installed third-party packages' ``.py``, ``.md``, ``METADATA``, ``.json``, ``.txt``
and ``.cfg`` files (``tools/fp_corpus.py build``, ``--real-mb`` MB, or ``--real-tree DIR``), and a *generated tree*
(deterministic Python, Markdown and JSON files, ``--tree-mb`` MB). Each round runs, in fresh processes, ours, theirs,
theirs, ours (ABBA), so drifting load hits both alike (with ``--baseline DIR``, a checkout of another commit, its
scanner runs too: ours, baseline, theirs, theirs, baseline, ours); with ``--one-core`` (the default, where
``taskset`` exists) all are pinned to CPU 0 (detect-secrets starts a worker pool per core it sees; pinned, the
pool shares one core).
With ``--floor``, two floors (``tools/scan_floor.py``) run in the same alternation, just inside ours: ``read_floor``
(start, walk, read, decode and split every file) and ``rules_floor`` (the same, then every rule of the repository
profile asked once of each file's whole text: no normaliser, no payloads, no joined views), with the ratio of our
median CPU time to each.
Per run: wall time (``perf_counter_ns``) and CPU time (user + system of the process and every descendant it waited
for, from ``getrusage(RUSAGE_CHILDREN)`` deltas). Reported: medians, MB/s (bytes of the tree's regular files over
the median), and the ratio of medians from the same run (theirs / ours). detect-secrets is never a dependency;
without ``--detect-secrets`` (or ``detect-secrets`` on PATH) the comparison is reported as not run. Its output
(file names and hashed secrets) and ours are counted, never printed. The bundle figure is in process: the
scanner's caches are cleared before every repeat (cold). Output: JSON on stdout (and ``--out``), then a Markdown
table for ``docs/privacy-scanner.md``; nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nerb_verify.findings import Collector  # noqa: E402
from nerb_verify.loader import BUNDLE_LIMITS, parse_json_bytes  # noqa: E402
from nerb_verify.privacy import engine  # noqa: E402
from nerb_verify.privacy.json_scan import scan_json  # noqa: E402
from nerb_verify.privacy.profiles import CONTRACT  # noqa: E402
from tools.fp_corpus import build as build_real_tree  # noqa: E402

BUNDLE = REPO / "fixtures" / "bundles" / "nerb-enron"

WORDS = ("alpha beta gamma delta evidence bundle verify scanner profile contract repository manifest quality "
         "slice metric recall precision throughput latency median sample pattern entity alias document").split()


def _scanner_caches() -> list[object]:
    """Every per-string and per-token cache of the scanner (``functools.lru_cache`` functions of its modules), not
    the compiled hint and rule tables, which a process builds once."""
    import importlib
    import pkgutil

    import nerb_verify.privacy as privacy

    names = ["nerb_verify.privacy." + module.name for module in pkgutil.iter_modules(privacy.__path__)]
    names += ["nerb_verify.privacy.rules." + module.name
              for module in pkgutil.iter_modules([str(Path(privacy.__path__[0]) / "rules")])]
    found = {id(value): value for name in names for value in vars(importlib.import_module(name)).values()
             if hasattr(value, "cache_clear") and hasattr(value, "cache_info")}
    return [cache for cache in found.values() if getattr(cache, "__name__", "") not in ("_hints", "_rules",
                                                                                        "_screen_profile")]


def _clear_caches() -> None:
    """Empty the scanner's per-string and per-token caches, so a repeat is what a fresh process sees."""
    for cached in _scanner_caches():
        cached.cache_clear()  # type: ignore[attr-defined]


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
        _clear_caches()
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


def tree_bytes(tree: Path) -> tuple[int, int]:
    """(files, bytes) of the regular files under ``tree`` (symbolic links not followed)."""
    files = size = 0
    for folder, _dirs, names in os.walk(tree):
        for name in names:
            path = Path(folder) / name
            if path.is_file() and not path.is_symlink():
                files += 1
                size += path.stat().st_size
    return files, size


def run_process(command: list[str], cwd: Path) -> tuple[int, int, int, bytes]:
    """Run ``command`` to completion: (wall ns, CPU ns of it and its waited-for descendants, exit code, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter_ns()
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter_ns() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1e9
    return wall, int(cpu), done.returncode, done.stdout


def _ours(tree: Path, pin: list[str], checkout: Path = REPO, profile: str = "repository") -> tuple[list[str], Path]:
    return pin + [sys.executable, "-m", "nerb_verify", "scan", "--profile", profile, "--format", "json",
                  str(tree)], checkout


def _theirs(tree: Path, pin: list[str], detect_secrets: str) -> tuple[list[str], Path]:
    return pin + [detect_secrets, "scan", "--all-files", "."], tree


def _count_ours(stdout: bytes) -> int:
    return len(json.loads(stdout).get("findings", []))


def _count_theirs(stdout: bytes) -> int:
    return sum(len(found) for found in json.loads(stdout).get("results", {}).values())


def _summary(size: int, walls: list[int], cpus: list[int], found: int) -> dict[str, object]:
    wall, cpu = _median_ns(walls), _median_ns(cpus)
    return {"runs": len(walls), "wall_ns": walls, "cpu_ns": cpus, "median_wall_ns": wall, "median_cpu_ns": cpu,
            "mb_s_wall": round(_mb_per_s(size, wall), 3), "mb_s_cpu": round(_mb_per_s(size, cpu), 3),
            "findings": found}


FLOOR = Path(__file__).resolve().parent / "scan_floor.py"
FLOORS = ("read_floor", "rules_floor")


def _floor(tree: Path, pin: list[str], subject: str) -> tuple[list[str], Path]:
    return pin + [sys.executable, str(FLOOR), subject.removesuffix("_floor"), str(tree)], REPO


def bench_tree_abba(tree: Path, rounds: int, detect_secrets: str | None, pin: list[str],
                    baseline: Path | None = None, profile: str = "repository",
                    floors: bool = False) -> dict[str, object]:
    """``rounds`` ABBA rounds (ours, theirs, theirs, ours) of whole-process scans of ``tree``; with ``baseline`` (a
    checkout of another commit) A B C C B A rounds: ours, the baseline's scanner, theirs, theirs, baseline, ours;
    with ``floors``, the two floors of ``tools/scan_floor.py`` (``read_floor``, ``rules_floor``) run just inside
    ours (and the baseline), in the same mirrored order."""
    files, size = tree_bytes(tree)
    samples: dict[str, tuple[list[int], list[int]]] = {who: ([], []) for who in ("ours", "baseline", "theirs",
                                                                                  *FLOORS)}
    found = dict.fromkeys(samples, 0)
    loads = [os.getloadavg()[0]]
    middle = ("theirs", "theirs") if detect_secrets else ()
    inner = FLOORS if floors else ()
    first = ("ours", "baseline", *inner) if baseline else ("ours", *inner)
    order = (*first, *middle, *reversed(first))
    for _round in range(rounds):
        for who in order:
            if who == "theirs":
                command, cwd = _theirs(tree, pin, detect_secrets or "")
            elif who in FLOORS:
                command, cwd = _floor(tree, pin, who)
            else:
                command, cwd = _ours(tree, pin, baseline if who == "baseline" and baseline else REPO, profile)
            wall, cpu, code, stdout = run_process(command, cwd)
            if who in FLOORS:
                if code != 0:
                    raise SystemExit(f"{who} failed (exit {code})")
                found[who] = int(stdout.split(b", ")[3].split()[0])  # the rule hits (0 for the read floor)
            elif who != "theirs" and code not in (0, 1):
                raise SystemExit(f"nerb-verify scan failed (exit {code})")
            elif who == "theirs" and code != 0:
                raise SystemExit(f"detect-secrets failed (exit {code})")
            else:
                found[who] = _count_theirs(stdout) if who == "theirs" else _count_ours(stdout)
            samples[who][0].append(wall)
            samples[who][1].append(cpu)
        loads.append(os.getloadavg()[0])
    out: dict[str, object] = {"files": files, "bytes": size, "load_average_1min": loads,
                              "nerb_verify": _summary(size, *samples["ours"], found["ours"])}
    if baseline:
        before = _summary(size, *samples["baseline"], found["baseline"])
        out["baseline"] = before
        out["ratio_cpu_baseline_over_ours"] = round(
            int(before["median_cpu_ns"]) / int(out["nerb_verify"]["median_cpu_ns"]), 2)  # type: ignore[index]
    if floors:
        for who in FLOORS:
            floor = _summary(size, *samples[who], found[who])
            out[who] = floor
            out[f"ratio_cpu_ours_over_{who}"] = round(
                int(out["nerb_verify"]["median_cpu_ns"]) / int(floor["median_cpu_ns"]), 2)  # type: ignore[index]
    if not detect_secrets:
        out["detect_secrets"] = "not run (pass --detect-secrets PATH, or put detect-secrets on PATH)"
        return out
    theirs = _summary(size, *samples["theirs"], found["theirs"])
    ours = out["nerb_verify"]
    assert isinstance(ours, dict)
    out["detect_secrets"] = theirs
    out["ratio_cpu"] = round(int(theirs["median_cpu_ns"]) / int(ours["median_cpu_ns"]), 2)  # type: ignore[arg-type]
    out["ratio_wall"] = round(int(theirs["median_wall_ns"]) / int(ours["median_wall_ns"]), 2)  # type: ignore[arg-type]
    return out


def _detect_secrets_version(executable: str) -> str:
    done = subprocess.run([executable, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--detect-secrets", help="the detect-secrets executable (default: on PATH, if any)")
    parser.add_argument("--real-mb", type=float, default=13.0, help="size of the real mixed tree to build")
    parser.add_argument("--real-tree", type=Path, help="scan this tree as the real mixed tree instead")
    parser.add_argument("--tree-mb", type=float, default=10.0, help="size of the generated tree")
    parser.add_argument("--rounds", type=int, default=2, help="ABBA rounds per tree")
    parser.add_argument("--repeats", type=int, default=5, help="in-process repeats of the bundle figure")
    parser.add_argument("--no-one-core", dest="one_core", action="store_false", help="do not pin to CPU 0")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    parser.add_argument("--baseline", type=Path, help="a checkout of another commit: its scanner is alternated too")
    parser.add_argument("--floor", action="store_true",
                        help="also time tools/scan_floor.py's read and rules floors in the same alternation")
    parser.add_argument("--profile", default="repository", choices=("repository", "contract", "rendered"),
                        help="the profile of our scans of the trees (default: repository, the pre-commit hook's)")
    args = parser.parse_args(argv)
    baseline = args.baseline.resolve() if args.baseline else None
    detect_secrets = args.detect_secrets or shutil.which("detect-secrets")
    pin = ["taskset", "-c", "0"] if args.one_core and shutil.which("taskset") else []
    bundle = bench_bundle(args.repeats)
    trees: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as scratch:
        real = args.real_tree
        if real is None:
            real = Path(scratch) / "real"
            real.mkdir()
            build_real_tree(Path(sysconfig.get_paths()["purelib"]), real, args.real_mb, 2.5)
        trees["real_mixed_tree"] = bench_tree_abba(real, args.rounds, detect_secrets, pin, baseline, args.profile,
                                                   args.floor)
        generated = Path(scratch) / "generated"
        generated.mkdir()
        make_tree(generated, args.tree_mb)
        trees["generated_tree"] = bench_tree_abba(generated, args.rounds, detect_secrets, pin, baseline, args.profile,
                                                  args.floor)
    machine = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
               "system": platform.system(), "pinned_to_one_core": bool(pin)}
    result = {"machine": machine, "profile": args.profile,
              "detect_secrets_version": _detect_secrets_version(detect_secrets)
              if detect_secrets else None, "contract_bundle_in_process": bundle, f"{args.profile}_profile": trees}
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    print()
    print("| tree | MB | nerb-verify CPU s (MB/s) | nerb-verify wall s | detect-secrets CPU s (MB/s) | "
          "detect-secrets wall s | ratio CPU | ratio wall |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, tree in trees.items():
        assert isinstance(tree, dict)
        ours, theirs = tree["nerb_verify"], tree["detect_secrets"]
        megabytes = int(tree["bytes"]) / 1e6
        cells = [name, f"{megabytes:.1f}", f"{ours['median_cpu_ns'] / 1e9:.2f} ({ours['mb_s_cpu']:.2f})",
                 f"{ours['median_wall_ns'] / 1e9:.2f}"]
        if isinstance(theirs, dict):
            cells += [f"{theirs['median_cpu_ns'] / 1e9:.2f} ({theirs['mb_s_cpu']:.2f})",
                      f"{theirs['median_wall_ns'] / 1e9:.2f}", f"{tree['ratio_cpu']}", f"{tree['ratio_wall']}"]
        else:
            cells += ["not run", "-", "-", "-"]
        print("| " + " | ".join(cells) + " |")
    if baseline:
        print("\n| tree | baseline CPU s (MB/s), findings | this tree CPU s (MB/s), findings | ratio CPU |")
        print("|---|---:|---:|---:|")
        for name, tree in trees.items():
            assert isinstance(tree, dict)
            ours, before = tree["nerb_verify"], tree["baseline"]
            print(f"| {name} | {before['median_cpu_ns'] / 1e9:.2f} ({before['mb_s_cpu']:.2f}), {before['findings']} | "
                  f"{ours['median_cpu_ns'] / 1e9:.2f} ({ours['mb_s_cpu']:.2f}), {ours['findings']} | "
                  f"{tree['ratio_cpu_baseline_over_ours']} |")
    if args.floor:
        print("\n| tree | read floor CPU s (MB/s) | rules floor CPU s (MB/s) | this tree CPU s (MB/s) |")
        print("|---|---:|---:|---:|")
        for name, tree in trees.items():
            assert isinstance(tree, dict)
            cells = [name] + [f"{tree[who]['median_cpu_ns'] / 1e9:.2f} ({tree[who]['mb_s_cpu']:.2f})"
                              for who in (*FLOORS, "nerb_verify")]
            print("| " + " | ".join(cells) + " |")
    print(f"\ncontract profile, vendored bundle in process: parse + scan {bundle['parse_and_scan_cpu_ns'] / 1e9:.3f} "
          f"s CPU ({_mb_per_s(int(bundle['bytes']), int(bundle['parse_and_scan_cpu_ns'])):.2f} MB/s), scan of parsed "
          f"data {bundle['scan_only_mb_s']} MB/s (wall)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
