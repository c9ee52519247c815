#!/usr/bin/env python3
"""Run NERB's own bundle verifier on bundles we produced, and compare with ``nerb-verify verify``.

NERB's verifier is ``nerb verify-enron-evidence --bundle DIR`` (spec 30 part A): exit 0 with one JSON line on
stdout when it accepts, exit 1 with ``Error: <fixed message>`` on stderr when it rejects, exit 2 on a usage error.
This tool runs it from a NERB source checkout the user points to, or from an interpreter where NERB is installed
(NERB is not vendored here and cannot be fetched by this tool), runs our verifier on the same folder, and prints one
JSON report:

    {"nerb_checkout_commit": ..., "results": [{"bundle", "agree",
                                               "nerb": {"verdict", "accepted", "exit", "message"},
                                               "ours": {"verdict", "exit", "error_codes"}}],
     "notes": [...]}   # notes only when NERB is imported from outside a git checkout (see nerb_in_git_worktree)

Usage::

    python tools/interop_nerb.py [--nerb-checkout ~/src/nerb] BUNDLE [BUNDLE ...]
        [--runner uv|python] [--python PYTHON] [--command "TEMPLATE with {bundle}"] [--timeout 600]
        [--out report.json]

``--runner uv`` (default; needs ``--nerb-checkout``) runs ``uv run --project CHECKOUT nerb verify-enron-evidence
--bundle B`` (NERB's console script). ``--runner python`` calls the console script's function in ``--python`` (default:
this interpreter): ``PYTHON -c "import sys; from nerb.cli import main; sys.exit(main())" verify-enron-evidence
--bundle B``, with ``CHECKOUT/src`` on ``PYTHONPATH`` when a checkout is given. (``python -m nerb.cli`` would do
nothing: NERB 0.0.12's ``cli`` module has no ``__main__`` guard, so it exits 0 without running a command.)
``--command`` replaces both with an explicit argv template (split like a shell, ``{bundle}`` and ``{checkout}``
substituted).

NERB's answer is one of three: ``accepted`` (exit 0 and a JSON line whose ``valid`` is true), ``rejected`` (exit 1 with
an ``Error:`` line, or exit 0 with ``valid`` false) or ``no_verdict`` (anything else: no output, a usage error, a
traceback, an import failure). ``no_verdict`` means NERB could not run; it is never reported as a rejection and it is
never compared (``agree`` is null). Exit codes: 0 every bundle got the same accept/reject answer from both verifiers,
1 they disagreed on at least one bundle, 2 the tool could not run (bad arguments, no checkout, NERB's command missing
or timed out, or NERB gave no verdict on some bundle).

NERB's messages are fixed strings (they never contain file contents, spec 30 A.1), so they are copied verbatim;
our own findings are reported by code only.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


class InteropError(Exception):
    """The tool cannot run; the message names no input content."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="interop_nerb", description=__doc__.split("\n\n")[0])
    parser.add_argument("--nerb-checkout", type=Path,
                        help="a NERB source checkout (has src/nerb); needed by --runner uv, optional otherwise")
    parser.add_argument("bundles", nargs="+", type=Path, metavar="BUNDLE", help="bundle folders to verify")
    parser.add_argument("--runner", choices=("uv", "python", "api"), default="uv",
                        help="api: NERB's Python API check by check in --python, generated-file comparison off, "
                             "the bundle committed into a scratch git repository (see run_api)")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter for --runner python (one where NERB and its dependencies import)")
    parser.add_argument("--command", help="explicit argv template with {bundle} (and optionally {checkout})")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--out", type=Path, help="also write the JSON report here")
    parser.add_argument("--require-standalone-redaction-eligible", action="store_true")
    return parser.parse_args(argv)


def check_checkout(checkout: Path) -> None:
    """The checkout must be a folder holding NERB's package sources (``src/nerb/enron_publication.py``)."""
    if not checkout.is_dir():
        raise InteropError("--nerb-checkout is not a folder")
    if not (checkout / "src" / "nerb" / "enron_publication.py").is_file():
        raise InteropError("--nerb-checkout does not look like a NERB source checkout (no src/nerb/enron_publication.py)")


# NERB 0.0.12's console script is ``nerb = nerb.cli:main``; its ``cli`` module has no ``__main__`` guard, so
# ``python -m nerb.cli`` imports it and exits 0 without running anything. Call the entry point function instead.
NERB_MAIN = "import sys; from nerb.cli import main; sys.exit(main())"
REJECT_EXIT = 1  # NERB's COMMAND_ERROR_EXIT_CODE; 2 is a usage error (also printed as "Error: ..."), not a verdict


def check_runner(args: argparse.Namespace) -> None:
    """The chosen runner has what it needs: ``uv`` and ``{checkout}`` need a checkout; a given checkout must be one."""
    if args.nerb_checkout is not None:
        check_checkout(args.nerb_checkout)
        return
    if args.command and "{checkout}" in args.command:
        raise InteropError("--command uses {checkout} but no --nerb-checkout was given")
    if args.runner == "api":
        return
    if not args.command and args.runner == "uv":
        raise InteropError("--runner uv needs --nerb-checkout (or use --runner python with an interpreter that has "
                           "NERB installed)")


def nerb_argv(args: argparse.Namespace, bundle: Path) -> list[str]:
    """The argv that runs NERB's bundle verifier on ``bundle``."""
    extra = ["--require-standalone-redaction-eligible"] if args.require_standalone_redaction_eligible else []
    if args.command:
        template = shlex.split(args.command)
        if not any("{bundle}" in part for part in template):
            raise InteropError("--command must contain {bundle}")
        return [part.replace("{bundle}", str(bundle)).replace("{checkout}", str(args.nerb_checkout))
                for part in template] + extra
    if args.runner == "uv":
        return ["uv", "run", "--project", str(args.nerb_checkout), "nerb", "verify-enron-evidence", "--bundle",
                str(bundle), *extra]
    return [args.python, "-c", NERB_MAIN, "verify-enron-evidence", "--bundle", str(bundle), *extra]


def classify(returncode: int, stdout: str, stderr: str) -> dict[str, Any]:
    """NERB's answer from its exit code and output: ``accepted``, ``rejected`` or ``no_verdict``.

    Accepted: exit 0 and a last stdout line that is a JSON object with ``valid: true``. Rejected: exit 1 with an
    ``Error: <fixed message>`` line on stderr, or exit 0 with ``valid: false``. Anything else (an exit code with no
    output, a usage error, a traceback) is ``no_verdict``: NERB could not run, which says nothing about the bundle.
    Only NERB's fixed ``Error:`` message is kept (its messages never carry file contents, spec 30 A.1).
    """
    valid = None
    lines = stdout.strip().splitlines()
    if lines:
        try:
            payload = json.loads(lines[-1])
        except ValueError:
            payload = None
        if isinstance(payload, dict) and isinstance(payload.get("valid"), bool):
            valid = payload["valid"]
    message = next((line[len("Error: "):] for line in stderr.splitlines() if line.startswith("Error: ")), None)
    if returncode == 0 and valid is True:
        verdict = "accepted"
    elif (returncode == REJECT_EXIT and message is not None) or (returncode == 0 and valid is False):
        verdict = "rejected"
    else:
        verdict, message = "no_verdict", None
    accepted = {"accepted": True, "rejected": False}.get(verdict)
    return {"verdict": verdict, "accepted": accepted, "exit": returncode, "message": message}


def run_nerb(args: argparse.Namespace, bundle: Path) -> dict[str, Any]:
    """Run NERB once on ``bundle`` (an absolute path) and classify its answer (:func:`classify`)."""
    env = dict(os.environ)
    if args.runner == "python" and not args.command and args.nerb_checkout is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(args.nerb_checkout / "src"), env.get("PYTHONPATH", "")])
    cwd = str(args.nerb_checkout) if args.nerb_checkout is not None else None
    try:
        done = subprocess.run(nerb_argv(args, bundle), capture_output=True, timeout=args.timeout, env=env,
                              cwd=cwd, check=False)
    except FileNotFoundError:
        raise InteropError("NERB's command was not found (install uv, or use --runner python / --command)") from None
    except subprocess.TimeoutExpired:
        raise InteropError("NERB's verifier timed out") from None
    return classify(done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"))


def nerb_in_git_worktree(args: argparse.Namespace) -> bool | None:
    """For ``--runner python``: is the ``nerb`` package that interpreter imports inside a git work tree?

    NERB verifies a capacity decision only from a full-history source checkout (it reads its own sources back from
    git, spec 30 C.1): an installed package rejects every bundle that reaches that check with "Portable capacity
    decision verification failed." The report says so, so that rejection is not mistaken for a verdict on the
    bundle's contents. None when not known (another runner, or the package does not import).
    """
    if args.command or args.runner != "python":
        return None
    env = dict(os.environ)
    if args.nerb_checkout is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(args.nerb_checkout / "src"), env.get("PYTHONPATH", "")])
    try:
        found = subprocess.run([args.python, "-c", "import os, nerb; print(os.path.dirname(os.path.abspath("
                                "nerb.__file__)))"], capture_output=True, timeout=60, env=env, check=False)
        if found.returncode != 0:
            return None
        where = found.stdout.decode("utf-8", "replace").strip()
        inside = subprocess.run(["git", "-C", where, "rev-parse", "--is-inside-work-tree"], capture_output=True,
                                timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return inside.returncode == 0 and inside.stdout.strip() == b"true"


def run_ours(bundle: Path) -> dict[str, Any]:
    """Our verifier on the same folder (codes only, never messages with values)."""
    sys.path.insert(0, str(REPO))
    from nerb_verify.verify import verify_bundle

    result = verify_bundle(bundle)
    codes = sorted({f.code for f in result.collector.findings if f.severity == "error"})
    return {"verdict": result.verdict, "exit": result.exit_code, "error_codes": codes}


def checkout_commit(checkout: Path) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, timeout=30,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    text = done.stdout.decode("ascii", "replace").strip()
    return text if done.returncode == 0 and len(text) == 40 else None


PROBE = Path(__file__).resolve().parent / "nerb_api_probe.py"
GIT_IDENTITY = ["-c", "user.name=nerb-verify-interop", "-c", "user.email=nerb-verify-interop",
                "-c", "commit.gpgsign=false"]


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *GIT_IDENTITY, *args], capture_output=True, timeout=120,
                          check=False)
    if done.returncode != 0:
        raise InteropError("git failed while building the scratch repository")
    return done.stdout.decode("ascii", "replace").strip()


def nerb_package_dir(python: str) -> Path:
    """The folder of the ``nerb`` package that ``python`` imports (raises when it has none)."""
    try:
        done = subprocess.run([python, "-c", "import nerb, os; print(os.path.dirname(nerb.__file__))"],
                              capture_output=True, timeout=120, check=False)
    except (OSError, subprocess.SubprocessError):
        raise InteropError("the --python interpreter cannot be run") from None
    if done.returncode != 0:
        raise InteropError("the --python interpreter cannot import nerb (pip install nerb==0.0.12 google-re2)")
    return Path(done.stdout.decode("utf-8", "replace").strip())


def scratch_repository(package: Path, bundle: Path, root: Path) -> tuple[Path, str]:
    """A git repository in NERB's layout: its package under ``src/nerb``, the bundle under ``evidence/enron``.

    NERB's capacity check finds the publisher's repository from its own package folder (``git -C <package dir>``,
    spec 30 A.7), so the package is imported from the scratch repository's ``src`` and both are committed there.
    Returns (repository, commit).
    """
    import shutil

    shutil.copytree(package, root / "src" / "nerb", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(bundle, root / "evidence" / "enron", symlinks=True)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "scratch: NERB package and the bundle under evidence/enron")
    return root, _git(root, "rev-parse", "HEAD")


def run_api(args: argparse.Namespace, bundle: Path) -> dict[str, Any]:
    """NERB's checks one by one (``tools/nerb_api_probe.py`` in ``--python``) on the bundle in a scratch repository."""
    import tempfile

    package = nerb_package_dir(args.python)
    with tempfile.TemporaryDirectory(prefix="nerb-interop-") as tmp:
        repo, commit = scratch_repository(package, bundle, Path(tmp))
        env = {**os.environ, "PYTHONPATH": str(repo / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
        try:
            done = subprocess.run([args.python, str(PROBE), str(repo / "evidence" / "enron")], capture_output=True,
                                  timeout=args.timeout, check=False, cwd=repo, env=env)
        except subprocess.TimeoutExpired:
            raise InteropError("NERB's checks timed out") from None
        lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
        try:
            probe = json.loads(lines[-1]) if done.returncode == 0 and lines else None
        except json.JSONDecodeError:
            probe = None
    if not isinstance(probe, dict):
        raise InteropError("NERB's checks could not run in the scratch repository")
    return {**probe, "scratch_commit": commit}


def main_api(args: argparse.Namespace) -> int:
    """The api runner: per bundle, NERB's checks beside our verdict; exit 0 when every NERB check other than the
    capacity decision (and the publication check that needs it) passed on every bundle, 1 otherwise."""
    results = []
    for bundle in args.bundles:
        bundle = bundle.resolve()
        results.append({"bundle": bundle.name, "nerb": run_api(args, bundle), "ours": run_ours(bundle)})
    report = {"runner": "api", "generated_file_comparison": "off", "results": results}
    text = json.dumps(report, indent=2, sort_keys=True) + "\n"
    sys.stdout.write(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    others = [c for r in results for c in r["nerb"]["checks"] if c["result"] == "failed"
              and not c["check"].startswith("capacity_decision")]
    return 0 if not others else 1


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) and 2
    if args.runner == "api":
        try:
            for bundle in args.bundles:
                if not bundle.is_dir():
                    raise InteropError("a BUNDLE argument is not a folder")
            return main_api(args)
        except InteropError as exc:
            sys.stderr.write(f"interop_nerb: {exc}\n")
            return 2
    try:
        check_runner(args)
        for bundle in args.bundles:
            if not bundle.is_dir():
                raise InteropError("a BUNDLE argument is not a folder")
        results = []
        for bundle in args.bundles:
            bundle = bundle.resolve()  # NERB runs in the checkout: a relative path would name another folder
            ours = run_ours(bundle)
            nerb = run_nerb(args, bundle)
            agree = None if nerb["verdict"] == "no_verdict" else nerb["accepted"] == (ours["verdict"] == "verified")
            results.append({"bundle": bundle.name, "nerb": nerb, "ours": ours, "agree": agree})
    except InteropError as exc:
        sys.stderr.write(f"interop_nerb: {exc}\n")
        return 2
    commit = checkout_commit(args.nerb_checkout) if args.nerb_checkout is not None else None
    report: dict[str, Any] = {"nerb_checkout_commit": commit, "results": results}
    if nerb_in_git_worktree(args) is False:
        report["notes"] = ["NERB was imported from outside a git checkout; it verifies a capacity decision only "
                           "from a full-history source checkout (spec 30 C.1), so every bundle that reaches that "
                           "check is rejected with 'Portable capacity decision verification failed.', whatever it "
                           "holds"]
    text = json.dumps(report, indent=2, sort_keys=True) + "\n"
    sys.stdout.write(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    silent = [r for r in results if r["agree"] is None]
    if silent:
        sys.stderr.write(f"interop_nerb: NERB gave no verdict on {len(silent)} bundle(s) (an exit code without an "
                         "accept line or an Error: message): it could not run, so nothing was compared\n")
        return 2
    return 0 if all(r["agree"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
