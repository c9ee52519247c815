"""Time ``nerb-verify verify`` of the vendored real bundle as a whole process from an installed wheel, against NERB.

Whole-process mode (the default) builds a wheel of this tree (and of ``--baseline DIR``, a ``git archive`` copy of
another commit, when given), installs each into its own throwaway virtual environment (no system site-packages, the
dependencies from the package index), and runs fresh processes of

* ``nerb-verify verify BUNDLE`` from each of those environments, and
* NERB 0.0.12 from ``--nerb-python``'s environment
  (``python3 -m venv /tmp/nerb-venv && /tmp/nerb-venv/bin/pip install nerb==0.0.12 google-re2``), two ways:

  - ``nerb``: its verifier, ``verify-enron-evidence --bundle B`` (NERB's console-script function);
  - ``nerb_checks``: every NERB bundle check that can be called on its own, each once
    (``tools/nerb_api_probe.py --checks-only B``: capacity decision, manifest and evidence contracts with the
    inventories, performance decision, bank card, privacy scan of every file, publication manifest),

alternated in a palindrome (A B C D D C B A, repeated), so that each subject is measured in the same minutes as the
others and a slow spell of the shared machine falls on all of them alike. It prints, per subject, the median wall
time, user+system CPU and peak RSS (``/usr/bin/time``'s maximum resident set size of the child), the exit codes seen,
and the ratios of the medians from the same run; ``--json FILE`` writes every sample too. No assertions: timing is
informational.

NERB layout (``--nerb-layout``). ``scratch`` (default): NERB runs the way it expects to, from a git repository
holding its package under ``src/nerb`` and the bundle under ``evidence/enron``, committed
(``tools/interop_nerb.scratch_repository``, with ``PYTHONPATH=<repo>/src``; ``__pycache__`` is excluded from git
and the untimed warm-up run writes NERB's ``.pyc`` files, as ``pip`` did for ours). NERB's verifier then gets past
the start of its capacity step but still stops inside it (exit 1, "Portable capacity decision verification
failed.") when it asks git for its own sources at the measured commit, which only NERB's full history holds
(docs/interop.md). ``pip``: NERB's console script on the vendored bundle as installed, which stops earlier in the
same step. Neither is a full NERB verification, so both ratios are lower bounds; ``nerb_checks`` (every other check
run to its end) is the closest to one this machine can run.

``--floor`` adds two subjects run from this tree's environment, the floor under any whole-process Python verifier
of the bundle: ``start_floor`` (the interpreter starting and exiting, ``python -c pass``) and ``parse_floor``
(``tools/verify_floor.py``: start, then read, hash and parse every file of the bundle, checking nothing).

``--stages`` instead times each stage in this process (opening and parsing the bundle, then every family in
``families.FAMILY_ORDER``), minimum and first of ``--runs`` fresh contexts; the memo is cleared before each.

Usage: python tools/bench_verify.py [--runs N] [--baseline DIR] [--nerb-python PY] [--nerb-layout scratch|pip]
                                    [--json FILE] [--floor] [--stages]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUNDLE = REPO / "fixtures" / "bundles" / "nerb-enron"
TIME = "/usr/bin/time"
NERB_PYTHON = "/tmp/nerb-venv/bin/python"
IGNORED = shutil.ignore_patterns(".git", "build", "*.egg-info", "__pycache__", ".hypothesis", ".pytest_cache",
                                 "_compiled", "nerb-public")


def install_wheel(tree: Path, work: Path) -> Path:
    """Build a wheel of ``tree`` and install it, with its dependencies, into a new venv under ``work``; return the
    venv's ``nerb-verify`` console script."""
    source = work / "source"
    shutil.copytree(tree, source, ignore=IGNORED)
    wheels = work / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(wheels)],
                   check=True, cwd=work, stdout=subprocess.DEVNULL)
    env_dir = work / "venv"
    venv.EnvBuilder(system_site_packages=False, with_pip=True).create(env_dir)
    wheel = next(wheels.glob("nerb_verify-*.whl"))
    subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    str(wheel)], check=True, cwd=work, stdout=subprocess.DEVNULL)
    return env_dir / "bin" / "nerb-verify"


def measure(command: list[str], env: dict[str, str] | None = None) -> dict[str, float | int]:
    """One fresh process of ``command``, run from a neutral folder: wall seconds (this process's clock), user+system
    CPU seconds and peak RSS KiB (``/usr/bin/time``), exit code."""
    start = time.perf_counter()
    done = subprocess.run([TIME, "-f", "%U %S %M %x", *command], cwd=tempfile.gettempdir(), capture_output=True,
                          text=True, check=False, env=env)
    wall = time.perf_counter() - start
    user, system, rss, code = done.stderr.strip().splitlines()[-1].split()
    return {"wall_s": wall, "cpu_s": float(user) + float(system), "rss_kib": int(rss), "exit_code": int(code)}


def summarise(samples: list[dict[str, float | int]]) -> dict[str, object]:
    """Medians of wall, CPU and RSS, and the exit codes seen."""
    return {"runs": len(samples),
            "median_wall_s": statistics.median(float(s["wall_s"]) for s in samples),
            "median_cpu_s": statistics.median(float(s["cpu_s"]) for s in samples),
            "median_rss_mib": statistics.median(int(s["rss_kib"]) for s in samples) / 1024,
            "exit_codes": sorted({int(s["exit_code"]) for s in samples})}


def whole_process(args: argparse.Namespace) -> dict[str, object]:
    """Install, then run every subject alternately; return the JSON-ready result."""
    bundle = str(BUNDLE)
    commands: dict[str, list[str]] = {}
    envs: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as scratch:
        work = Path(scratch)
        if args.baseline is not None:
            (work / "baseline").mkdir()
            commands["baseline"] = [str(install_wheel(args.baseline.resolve(), work / "baseline")), "verify", bundle]
        (work / "this").mkdir()
        commands["this_tree"] = [str(install_wheel(REPO, work / "this")), "verify", bundle]
        if args.floor:
            python = str(Path(commands["this_tree"][0]).with_name("python"))
            commands["start_floor"] = [python, "-c", "pass"]
            commands["parse_floor"] = [python, str(FLOOR), bundle]
        if Path(args.nerb_python).is_file():
            nerb_commands, nerb_env = nerb_subjects(args.nerb_python, args.nerb_layout, work / "nerb")
            commands.update(nerb_commands)
            envs.update({name: nerb_env for name in nerb_commands})
        else:
            print(f"no NERB interpreter at {args.nerb_python}: install it (see --help); comparing without it",
                  file=sys.stderr)
        names = list(commands)
        order: list[str] = []
        while len(order) < args.runs * len(names):
            order += names + names[::-1]
        order = order[:args.runs * len(names)]
        for name in names:  # one untimed warm-up each (page cache, .pyc files)
            measure(commands[name], envs.get(name))
        samples: dict[str, list[dict[str, float | int]]] = {name: [] for name in names}
        load_before = os.getloadavg()
        for name in order:
            samples[name].append(measure(commands[name], envs.get(name)))
        load_after = os.getloadavg()
    medians = {name: summarise(items) for name, items in samples.items()}
    ratios: dict[str, float] = {}
    ours = medians["this_tree"]
    for name in names:
        if name != "this_tree":
            ratios[f"{name}/this_tree wall"] = float(medians[name]["median_wall_s"]) / float(ours["median_wall_s"])
            ratios[f"{name}/this_tree cpu"] = float(medians[name]["median_cpu_s"]) / float(ours["median_cpu_s"])
    return {"bundle": "fixtures/bundles/nerb-enron", "nerb_layout": args.nerb_layout, "order": order,
            "cpus": os.cpu_count(),
            "loadavg_before": load_before, "loadavg_after": load_after,
            "commands": {name: [Path(c).name if i == 0 or Path(c).is_absolute() else c for i, c in enumerate(cmd)]
                         for name, cmd in commands.items()},
            "medians": medians, "ratios": ratios, "samples": samples}


NERB_MAIN = "import sys; from nerb.cli import main; sys.exit(main())"  # NERB 0.0.12's console-script function
PROBE = Path(__file__).resolve().parent / "nerb_api_probe.py"
FLOOR = Path(__file__).resolve().parent / "verify_floor.py"


def nerb_subjects(python: str, layout: str, work: Path) -> tuple[dict[str, list[str]], dict[str, str]]:
    """NERB's two subjects (its verifier, and each of its checks once) and the environment they run in.

    ``scratch``: a committed git repository in NERB's layout (see the module docstring); ``pip``: the vendored
    bundle and the installed package as they are. Bytecode is written (the warm-up compiles NERB once).
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    bundle = BUNDLE
    if layout == "scratch":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import interop_nerb

        work.mkdir()
        repo, _ = interop_nerb.scratch_repository(interop_nerb.nerb_package_dir(python), BUNDLE, work)
        (repo / ".git" / "info").mkdir(parents=True, exist_ok=True)
        with open(repo / ".git" / "info" / "exclude", "a", encoding="utf-8") as exclude:
            exclude.write("__pycache__/\n")
        env["PYTHONPATH"] = str(repo / "src")
        bundle = repo / "evidence" / "enron"
    commands = {"nerb": [python, "-c", NERB_MAIN, "verify-enron-evidence", "--bundle", str(bundle)],
                "nerb_checks": [python, str(PROBE), "--checks-only", str(bundle)]}
    return commands, env


def stages(runs: int) -> dict[str, dict[str, float]]:
    """Milliseconds per stage in this process: minimum and first of ``runs`` fresh verifications."""
    sys.path.insert(0, str(REPO))
    from nerb_verify import families, layout, memo
    from nerb_verify.bundle import open_bundle
    from nerb_verify.context import VerifyContext, VerifyOptions
    from nerb_verify.findings import Collector

    times: dict[str, list[float]] = {}
    for _ in range(runs):
        memo.clear()
        ctx = VerifyContext(root=BUNDLE, options=VerifyOptions(), collector=Collector())
        start = time.perf_counter()
        layout.has_publication_entry(BUNDLE)
        open_bundle(ctx)
        layout.check_layout(ctx)
        times.setdefault("open", []).append(time.perf_counter() - start)
        for family, run in families.FAMILY_ORDER:
            start = time.perf_counter()
            run(ctx)
            times.setdefault(family, []).append(time.perf_counter() - start)
    return {name: {"min_ms": 1000 * min(values), "first_ms": 1000 * values[0]} for name, values in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="timed processes per subject (default 10)")
    parser.add_argument("--baseline", type=Path, help="a checkout of another commit to compare with")
    parser.add_argument("--nerb-python", default=NERB_PYTHON, help="interpreter of the venv holding nerb 0.0.12")
    parser.add_argument("--nerb-layout", choices=("scratch", "pip"), default="scratch",
                        help="run NERB from a scratch git repository in its own layout (default) or as installed")
    parser.add_argument("--json", type=Path, help="write the result, every sample included, to this file")
    parser.add_argument("--floor", action="store_true",
                        help="also time the interpreter's start and a read, hash and parse of the bundle")
    parser.add_argument("--stages", action="store_true", help="time each stage in this process instead")
    args = parser.parse_args(argv)
    if args.stages:
        result: dict[str, object] = {"stages": stages(args.runs)}
        for name, value in result["stages"].items():  # type: ignore[union-attr]
            print(f"{name:12s} min {value['min_ms']:7.1f} ms   first {value['first_ms']:7.1f} ms")
    else:
        result = whole_process(args)
        for name, value in result["medians"].items():  # type: ignore[union-attr]
            print(f"{name:10s} median of {value['runs']}: {value['median_wall_s']:.3f} s wall, "
                  f"{value['median_cpu_s']:.3f} s CPU, {value['median_rss_mib']:.1f} MiB, exit {value['exit_codes']}")
        for name, ratio in result["ratios"].items():  # type: ignore[union-attr]
            print(f"ratio {name}: {ratio:.2f}x")
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
