#!/usr/bin/env python3
"""Run NERB's own bundle verifier on bundles we produced, and compare with ``nerb-verify verify``.

NERB's verifier is ``nerb verify-enron-evidence --bundle DIR`` (spec 30 part A): exit 0 with one JSON line on
stdout when it accepts, exit 1 with ``Error: <fixed message>`` on stderr when it rejects, exit 2 on a usage error.
This tool runs it from a NERB source checkout the user points to (NERB is not vendored here and cannot be fetched by
this tool), runs our verifier on the same folder, and prints one JSON report:

    {"nerb_checkout_commit": ..., "results": [{"bundle", "nerb": {"accepted", "exit", "message"},
                                               "ours": {"verdict", "exit", "error_codes"}}]}

Usage::

    python tools/interop_nerb.py --nerb-checkout ~/src/nerb BUNDLE [BUNDLE ...]
        [--runner uv|python] [--command "TEMPLATE with {bundle}"] [--timeout 600] [--out report.json]

``--runner uv`` (default) runs ``uv run --project CHECKOUT nerb verify-enron-evidence --bundle B``; ``--runner
python`` runs ``python -m nerb.cli verify-enron-evidence --bundle B`` with ``CHECKOUT/src`` on ``PYTHONPATH``;
``--command`` replaces both with an explicit argv template (split on spaces, ``{bundle}`` and ``{checkout}``
substituted). Exit codes: 0 every bundle got the same accept/reject answer from both verifiers, 1 they disagreed on
at least one bundle, 2 the tool could not run (bad arguments, no checkout, NERB's command missing or timed out).

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
    parser.add_argument("--nerb-checkout", required=True, type=Path, help="a NERB source checkout (has src/nerb)")
    parser.add_argument("bundles", nargs="+", type=Path, metavar="BUNDLE", help="bundle folders to verify")
    parser.add_argument("--runner", choices=("uv", "python"), default="uv")
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
    return [sys.executable, "-m", "nerb.cli", "verify-enron-evidence", "--bundle", str(bundle), *extra]


def run_nerb(args: argparse.Namespace, bundle: Path) -> dict[str, Any]:
    """Run NERB once; ``accepted`` is True on exit 0 with a JSON line whose ``valid`` is true."""
    env = dict(os.environ)
    if args.runner == "python" and not args.command:
        env["PYTHONPATH"] = os.pathsep.join([str(args.nerb_checkout / "src"), env.get("PYTHONPATH", "")])
    try:
        done = subprocess.run(nerb_argv(args, bundle), capture_output=True, timeout=args.timeout, env=env,
                              cwd=str(args.nerb_checkout), check=False)
    except FileNotFoundError:
        raise InteropError("NERB's command was not found (install uv, or use --runner python / --command)") from None
    except subprocess.TimeoutExpired:
        raise InteropError("NERB's verifier timed out") from None
    stdout = done.stdout.decode("utf-8", "replace").strip()
    stderr = done.stderr.decode("utf-8", "replace").strip()
    accepted = False
    if done.returncode == 0 and stdout:
        try:
            accepted = json.loads(stdout.splitlines()[-1]).get("valid") is True
        except (ValueError, AttributeError):
            accepted = False
    message = next((line[len("Error: "):] for line in stderr.splitlines() if line.startswith("Error: ")), None)
    if done.returncode == 2 and message is None:
        message = "usage error"
    return {"accepted": accepted, "exit": done.returncode, "message": message}


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


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) and 2
    try:
        check_checkout(args.nerb_checkout)
        for bundle in args.bundles:
            if not bundle.is_dir():
                raise InteropError("a BUNDLE argument is not a folder")
        results = []
        for bundle in args.bundles:
            ours = run_ours(bundle)
            nerb = run_nerb(args, bundle)
            results.append({"bundle": bundle.name, "nerb": nerb, "ours": ours,
                            "agree": nerb["accepted"] == (ours["verdict"] == "verified")})
    except InteropError as exc:
        sys.stderr.write(f"interop_nerb: {exc}\n")
        return 2
    report = {"nerb_checkout_commit": checkout_commit(args.nerb_checkout), "results": results}
    text = json.dumps(report, indent=2, sort_keys=True) + "\n"
    sys.stdout.write(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0 if all(r["agree"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
