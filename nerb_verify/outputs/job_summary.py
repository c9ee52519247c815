"""The GitHub Action's job summary and step outputs, computed from ``nerb-verify verify --format json`` reports.

``python -m nerb_verify.outputs.job_summary [options] REPORT.json...`` reads one report per verified bundle (and,
optionally, the SARIF log of a scan), then

* appends a Markdown summary to ``$GITHUB_STEP_SUMMARY`` (or ``--summary FILE``): a table with one row per bundle
  (verdict, exit code, errors, warnings, recomputed figures matched/mismatched, check families run, standalone
  redaction decision, which reads "not established (bundle rejected)" for a rejected bundle), a row for the scan,
  and a table of headline quality figures recomputed by the verifier;
* appends ``verdict``, ``exit-code`` and ``sarif`` to ``$GITHUB_OUTPUT`` (or ``--output FILE``);
* exits 0 (it only reports); the action's last step exits with the combined code.

Everything is fail-closed: a report that is missing, empty or not a nerb-verify report counts as "could not verify"
(exit 2), and no runs at all is exit 2 as well. The exit policy (``--fail-on``, ``--exit-zero``) is the one the CLI
applies, recomputed from each report's verifier exit code and finding severities. Only our own strings reach the
summary: verdicts, counts, code names, figure names, pointers, recomputed numbers and the bundle path as given in the
workflow (escaped for Markdown). No published value and no finding message from the input is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nerb_verify.established import NOT_ESTABLISHED
from nerb_verify.outputs.exit_policy import FAIL_ON_LEVELS, apply_exit_policy, completed, worst_exit_code

REPORT_SCHEMA_VERSION = "nerb_verify.report.v1"
MAX_REPORT_BYTES = 256 * 1024 * 1024

# Headline figures: the quality metrics a reader looks at first, per slice, in this order.
HEADLINE_METRICS = ("precision", "open_world_recall", "sensitive_character_recall", "f1", "cataloged_recall",
                    "catalog_coverage", "document_leak_rate", "over_redaction_rate")
_HEADLINE = re.compile(r"^/quality/slices/(\d+)/metrics/([a-z0-9_]+)$")
MAX_FIGURE_ROWS = 40

VERDICT_LABELS = {
    "verified": "verified",
    "rejected": "rejected",
    "ineligible": "ineligible",
    "could_not_verify": "could not verify",
}


@dataclass
class BundleRow:
    """One verified bundle as the summary shows it."""

    label: str
    verdict: str
    exit_code: int
    errors: int = 0
    warnings: int = 0
    matched: int = 0
    mismatched: int = 0
    families_ran: int = 0
    families_total: int = 0
    standalone: str = "not evaluated"
    figures: list[tuple[str, str, str, str]] = field(default_factory=list)


def md_escape(text: str) -> str:
    """Text safe inside a Markdown table cell: no pipes, no HTML, no line breaks, no backticks."""
    text = text.replace("\r", " ").replace("\n", " ")
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("|", "\\|").replace("`", "'")


def _load_report(path: Path) -> dict[str, Any] | None:
    try:
        if path.stat().st_size > MAX_REPORT_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or data.get("schema_version") != REPORT_SCHEMA_VERSION:
        return None
    if not isinstance(data.get("exit_code"), int) or not isinstance(data.get("findings"), list):
        return None
    return data


def _format_value(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, int):
        return str(value)
    return "n/a"


def _headline_figures(report: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(slice pointer, metric, recomputed value, status) for the headline metrics, in a fixed order."""
    rows = []
    for item in report.get("recomputed") or []:
        if not isinstance(item, dict) or not isinstance(item.get("pointer"), str):
            continue
        match = _HEADLINE.match(item["pointer"])
        if not match or match.group(2) not in HEADLINE_METRICS:
            continue
        status = item.get("status") if item.get("status") in ("match", "mismatch", "not_evaluated") else "unknown"
        rows.append((int(match.group(1)), HEADLINE_METRICS.index(match.group(2)), match.group(2),
                     _format_value(item.get("value")), str(status)))
    rows.sort()
    return [(f"/quality/slices/{s}", name, value, status) for s, _i, name, value, status in rows]


def bundle_row(path: Path, label: str | None, *, fail_on: str, exit_zero: bool) -> BundleRow:
    """Summarise one report file (fail-closed: an unreadable report is a "could not verify" row with exit 2)."""
    report = _load_report(path)
    if report is None:
        return BundleRow(label=label or "(unknown bundle)", verdict="could_not_verify", exit_code=2)
    bundle = report.get("bundle") if isinstance(report.get("bundle"), dict) else {}
    shown = label or (bundle.get("path") if isinstance(bundle.get("path"), str) else "(unknown bundle)")
    findings = [f for f in report["findings"] if isinstance(f, dict)]
    severities = [str(f.get("severity")) for f in findings]
    verifier_code = report["exit_code"]
    code = apply_exit_policy(verifier_code, severities, fail_on=fail_on, exit_zero=exit_zero)
    verdict = report.get("verdict") if report.get("verdict") in VERDICT_LABELS else "could_not_verify"
    recomputed = [r for r in report.get("recomputed") or [] if isinstance(r, dict)]
    checks = report.get("checks_run") if isinstance(report.get("checks_run"), dict) else {}
    decisions = report.get("decisions") if isinstance(report.get("decisions"), dict) else {}
    standalone = decisions.get("standalone_redaction")
    standalone_text = "not evaluated"
    if isinstance(standalone, dict) and standalone.get("established") is False:
        # A rejected bundle establishes no decision; the words are ours, keyed by the verdict, never the report's.
        standalone_text = NOT_ESTABLISHED.get(verdict, "not established")
    elif isinstance(standalone, dict):
        eligible = standalone.get("eligible")
        failed = standalone.get("failed_gates")
        if eligible is True:
            standalone_text = "eligible"
        elif eligible is False:
            count = len(failed) if isinstance(failed, list) else 0
            standalone_text = f"not eligible ({count} gate(s) failed)"
    return BundleRow(
        label=shown, verdict=verdict, exit_code=code,
        errors=severities.count("error"), warnings=severities.count("warning"),
        matched=sum(1 for r in recomputed if r.get("status") == "match"),
        mismatched=sum(1 for r in recomputed if r.get("status") == "mismatch"),
        families_ran=sum(1 for v in checks.values() if isinstance(v, dict) and v.get("status") == "ran"),
        families_total=len(checks), standalone=standalone_text, figures=_headline_figures(report))


@dataclass
class ScanRow:
    """The privacy scan as the summary shows it (counts read from its SARIF log, which this package writes)."""

    exit_code: int
    raw_exit_code: int
    errors: int | None = None
    warnings: int | None = None


def scan_row(exit_code: int, sarif_path: Path | None, *, fail_on: str, exit_zero: bool) -> ScanRow:
    """Summarise the scan: its exit code (after the same policy) and result counts from its SARIF log if readable."""
    errors = warnings = None
    if sarif_path is not None:
        try:
            log = json.loads(sarif_path.read_text(encoding="utf-8"))
            results = [r for run in log["runs"] for r in run.get("results", [])]
            errors = sum(1 for r in results if r.get("level", "warning") == "error")
            warnings = sum(1 for r in results if r.get("level", "warning") == "warning")
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            errors = warnings = None
    severities = ["error"] * (errors or 0) + ["warning"] * (warnings or 0)
    if completed(exit_code) and errors is None:
        # The scan said it completed but left no readable log: fail closed.
        return ScanRow(exit_code=2, raw_exit_code=2)
    return ScanRow(exit_code=apply_exit_policy(exit_code, severities, fail_on=fail_on, exit_zero=exit_zero),
                   raw_exit_code=exit_code, errors=errors, warnings=warnings)


def combined(rows: Sequence[BundleRow], scan: ScanRow | None) -> tuple[str, int]:
    """The action's verdict and exit code over every run (no run at all is "could not verify", exit 2).

    The exit code is the worst of the runs' codes after the exit policy. The verdict describes the evidence, not
    the gate: the worst bundle verdict (could not verify, rejected, ineligible, verified), with a scan that found
    problems counting as rejected, so ``--exit-zero`` changes the exit code but never the verdict.
    """
    codes = [r.exit_code for r in rows] + ([scan.exit_code] if scan is not None else [])
    code = worst_exit_code(codes)
    verdicts = [r.verdict for r in rows]
    if scan is not None:
        verdicts.append({0: "verified", 1: "rejected"}.get(scan.raw_exit_code, "could_not_verify"))
    for verdict in ("could_not_verify", "rejected", "ineligible", "verified"):
        if verdict in verdicts:
            return verdict, code
    return "could_not_verify", code


def render_markdown(rows: Sequence[BundleRow], scan: ScanRow | None, verdict: str, exit_code: int) -> str:
    """The job summary in GitHub-flavoured Markdown."""
    out = [f"## nerb-verify: {VERDICT_LABELS.get(verdict, verdict)} (exit {exit_code})", ""]
    if rows:
        out += ["| Bundle | Verdict | Exit | Errors | Warnings | Figures matched | Figures mismatched | "
                "Check families run | Standalone redaction |",
                "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        for r in rows:
            ran = f"{r.families_ran}/{r.families_total}"
            out.append(f"| {md_escape(r.label)} | {VERDICT_LABELS[r.verdict]} | {r.exit_code} | {r.errors} | "
                       f"{r.warnings} | {r.matched} | {r.mismatched} | {ran} | {r.standalone} |")
        out.append("")
    if scan is not None:
        found = "n/a" if scan.errors is None else f"{scan.errors} error(s), {scan.warnings} warning(s)"
        out += ["| Privacy scan | Exit | Findings |", "| --- | ---: | --- |",
                f"| repository | {scan.exit_code} | {found} |", ""]
    figure_rows = [(r.label, f) for r in rows for f in r.figures][:MAX_FIGURE_ROWS]
    if figure_rows:
        out += ["### Headline figures (recomputed by the verifier)", "",
                "| Bundle | Slice | Metric | Recomputed | Status |", "| --- | --- | --- | ---: | --- |"]
        for label, (slice_ptr, name, value, status) in figure_rows:
            out.append(f"| {md_escape(label)} | {slice_ptr} | {name} | {value} | {status} |")
        out.append("")
    if not rows and scan is None:
        out += ["Nothing was checked: no bundle report and no scan.", ""]
    return "\n".join(out) + "\n"


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry: write the summary and outputs; print the combined exit code on stdout; exit 0 unless misused."""
    parser = argparse.ArgumentParser(prog="python -m nerb_verify.outputs.job_summary", description=__doc__)
    parser.add_argument("reports", nargs="*", metavar="REPORT.json", help="verify --format json reports")
    parser.add_argument("--label", action="append", default=[],
                        help="display name for each report, in order (default: the bundle path in the report)")
    parser.add_argument("--fail-on", choices=FAIL_ON_LEVELS, default="error")
    parser.add_argument("--exit-zero", action="store_true")
    parser.add_argument("--scan-exit-code", type=int, help="exit code of nerb-verify scan, if it ran")
    parser.add_argument("--scan-sarif", help="SARIF log written by the scan")
    parser.add_argument("--sarif", default="", help="path of the SARIF log the action produced (for outputs)")
    parser.add_argument("--summary", default=os.environ.get("GITHUB_STEP_SUMMARY"),
                        help="Markdown file to append to (default: $GITHUB_STEP_SUMMARY)")
    parser.add_argument("--output", default=os.environ.get("GITHUB_OUTPUT"),
                        help="step output file to append to (default: $GITHUB_OUTPUT)")
    args = parser.parse_args(argv)
    rows = []
    for i, name in enumerate(args.reports):
        label = args.label[i] if i < len(args.label) else None
        rows.append(bundle_row(Path(name), label, fail_on=args.fail_on, exit_zero=args.exit_zero))
    scan = None
    if args.scan_exit_code is not None:
        scan = scan_row(args.scan_exit_code, Path(args.scan_sarif) if args.scan_sarif else None,
                        fail_on=args.fail_on, exit_zero=args.exit_zero)
    verdict, code = combined(rows, scan)
    _append(args.summary, render_markdown(rows, scan, verdict, code))
    sarif_value = args.sarif.replace("\n", " ").replace("\r", " ")
    _append(args.output, f"verdict={verdict}\nexit-code={code}\nsarif={sarif_value}\n")
    sys.stdout.write(f"{code}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
