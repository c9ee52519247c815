"""One entry point for the machine outputs shared by ``verify`` and ``scan``: :func:`render_findings`.

A command keeps its own ``text`` and ``json`` renderers and hands ``sarif`` and ``github`` here, together with the
folder its finding paths are relative to, so both commands produce identical SARIF and annotations.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Collection, Sequence
from typing import Any

from nerb_verify.findings import Finding
from nerb_verify.outputs.exit_policy import FAIL_ON_LEVELS
from nerb_verify.outputs.locations import PathBase

# Formats rendered here; commands add their own "text" and "json".
FORMATS = ("sarif", "github")


def render_findings(findings: Sequence[Finding], fmt: str, *, command: str,
                    target: str | os.PathLike[str] | None = None,
                    source_root: str | os.PathLike[str] | None = None,
                    exit_code: int = 0, verdict: str | None = None, doc_base: str | None = None,
                    extra: dict[str, Any] | None = None, summary: str | None = None,
                    targets: Collection[str] = ()) -> str:
    """Render ``findings`` as ``sarif`` (a SARIF 2.1.0 log) or ``github`` (workflow commands).

    ``target`` is the folder the findings' artifact paths are relative to (the bundle, the scanned folder), or None
    when they are already relative to the source root. ``source_root`` defaults to the current directory.
    ``exit_code`` and ``verdict`` describe how the run ended (recorded in SARIF ``invocations``). For ``github``,
    ``summary`` is the closing notice's text (default: :func:`default_summary`) and ``targets`` the artifacts that
    name a command target which could not be inspected (annotated without ``file``).
    """
    # Imported here, not at module level: a text or JSON verification never renders SARIF or annotations, and the
    # SARIF module pulls in the catalog of every finding code.
    from nerb_verify.outputs import github, sarif

    base = PathBase.for_target(target, source_root)
    if fmt == "github":
        text = summary if summary is not None else default_summary(findings, command, base, exit_code, verdict)
        return github.render(findings, base, summary=(f"nerb-verify {command}", text), targets=targets)
    if fmt == "sarif":
        run = sarif.RunInfo(command=command, findings=findings, base=base, exit_code=exit_code, verdict=verdict,
                            extra=dict(extra or {}))
        return sarif.dumps(sarif.build_sarif([run], doc_base=doc_base, automation_id=f"nerb-verify/{command}/"))
    raise ValueError(f"unknown output format {fmt!r}")


def default_summary(findings: Sequence[Finding], command: str, base: PathBase, exit_code: int,
                    verdict: str | None) -> str:
    """``nerb-verify <command> [<target>]: <verdict> (exit N); E error(s), W warning(s).`` The target is shown only
    when it lies inside the source root (as a repository-relative path, the way ``file`` properties show it)."""
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = sum(1 for f in findings if f.severity == "warning")
    where = f" {base.prefix}" if base.prefix else ""
    outcome = (verdict or "done").replace("_", " ")
    return f"nerb-verify {command}{where}: {outcome} (exit {exit_code}); {errors} error(s), {warnings} warning(s)."


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """Options every gating command shares: exit policy, SARIF side output and path bases."""
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit 0 whatever was found (a run that could not complete still exits 2)")
    parser.add_argument("--fail-on", choices=FAIL_ON_LEVELS, default="error",
                        help="lowest finding severity that fails the run (default: error)")
    parser.add_argument("--sarif-output", metavar="FILE",
                        help="also write a SARIF 2.1.0 log to FILE, whatever --format prints")
    parser.add_argument("--report-output", metavar="FILE",
                        help="also write the JSON report to FILE, whatever --format prints")
    parser.add_argument("--source-root", metavar="DIR",
                        help="repository root that SARIF and annotation paths are relative to (default: current dir)")
    parser.add_argument("--doc-base", metavar="URL",
                        help="absolute base URL of this project's repository for SARIF helpUri links "
                             "(default: relative links into docs/)")
