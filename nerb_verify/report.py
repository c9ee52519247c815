"""Render a verification result: the JSON report (schema ``nerb_verify.report.v1``) and the text output.

The JSON report carries the verdict, exit code, the bundle's file list with raw-byte hashes, every finding, every
recomputed figure, the verifier's own decisions, which check families ran, and ``report_sha256``: the RFC 8785
digest of the report without that field, so a consumer can detect an edited report.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nerb_verify import __version__, decision_scope, established
from nerb_verify.canonical import jcs_sha256
from nerb_verify.display import safe_relpath
from nerb_verify.findings import Recomputed
from nerb_verify.verify import VerifyResult

if TYPE_CHECKING:
    from nerb_verify.derivation import Coverage

REPORT_SCHEMA_VERSION = "nerb_verify.report.v1"


def build_report(result: VerifyResult, coverage: Coverage | None = None) -> dict[str, Any]:
    """The JSON report as a Python object (validates against ``schemas/nerb_verify.report.v1.json``).

    ``coverage`` (``verify --coverage`` only) adds the derivation counts under ``derivation``."""
    ctx = result.ctx
    files = []
    for rel in sorted(ctx.files):
        loaded = ctx.files[rel]
        files.append({"path": safe_relpath(rel), "sha256": loaded.sha256 or None, "bytes": loaded.size})
    collector = result.collector
    report: dict[str, Any] = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "tool": {"name": "nerb-verify", "version": __version__},
        "verdict": result.verdict,
        "exit_code": result.exit_code,
        "bundle": {"path": result.display_root, "files": files},
        "findings": [f.to_json() for f in collector.sorted_findings()],
        "recomputed": [r.to_json() for r in collector.recomputed],
        "decisions": established.shown_decisions(collector.decisions, result.verdict),
        "checks_run": {k: collector.checks_run[k] for k in sorted(collector.checks_run)},
    }
    if coverage is not None:
        report["derivation"] = coverage.to_json()
    report["report_sha256"] = jcs_sha256(report)
    return report


# Recomputed text that --figures prints: hashes (raw-byte, canonical, git object ids) and the booleans our families
# write as "true"/"false". Any other recomputed text (an identifier copied from the input) is shown as "(text)".
_PRINTABLE_TEXT = re.compile(r"sha256:[0-9a-f]{64}|[0-9a-f]{40}|[0-9a-f]{64}|true|false")
STATUS_WORDS = {"match": "match", "mismatch": "mismatch", "not_evaluated": "not evaluated"}


def _exact_cells(item: Recomputed) -> tuple[str, str]:
    """(exact, decimal) of one recomputed figure: the exact fraction or integer and its correctly rounded double, or
    a recomputed hash; ``-`` when not evaluated."""
    if item.exact is None:
        return "-", "-"
    if isinstance(item.value, str):
        return (item.exact if _PRINTABLE_TEXT.fullmatch(item.exact) else "(text)"), "-"
    if isinstance(item.value, float):
        return item.exact, repr(item.value)
    return item.exact, "-" if item.value is None else str(item.value)


def _published_cell(value: Any) -> str:
    """A published value as --figures prints it: numbers only; any other kind is named, never shown."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "(boolean)"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return "(text)"
    return "(object)" if isinstance(value, dict) else "(array)" if isinstance(value, list) else "(other)"


def figure_lines(recomputed: Sequence[Recomputed]) -> list[str]:
    """The ``--figures`` table: every recomputed figure as ``artifact#pointer``, exact value, decimal, published
    number and status, aligned in columns.

    Pointers are the safe pointers the families recorded (schema keys and indices; arbitrary input keys are already
    ``@key:<position>``). Values are what the verifier recomputed (numbers, hashes) and the published numbers; text
    copied from the input is never printed, on either side.
    """
    rows = [(f"{safe_relpath(item.artifact)}#{item.pointer}", *_exact_cells(item), _published_cell(item.published),
             STATUS_WORDS.get(item.status, item.status)) for item in recomputed]
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(4)]
    lines = [f"Recomputed figures ({len(rows)}): pointer, exact, decimal, published, status"]
    for row in rows:
        cells = [cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)]
        lines.append("  " + "  ".join(cells))
    return lines


def render_text(result: VerifyResult, figures: bool = False) -> str:
    """Human-readable output: one verdict line, findings grouped by artifact, then headline tables and counts.

    A bundle that is not verified (rejected, could not verify) establishes no decision: instead of the headline
    tables each decision reads ``not established (...)`` (:mod:`nerb_verify.established`). With ``figures`` every
    recomputed figure is listed (:func:`figure_lines`). The last line counts the figures that match, mismatch and
    could not be evaluated.
    """
    collector = result.collector
    findings = collector.sorted_findings()
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = sum(1 for f in findings if f.severity == "warning")
    matched = sum(1 for r in collector.recomputed if r.status == "match")
    mismatched = sum(1 for r in collector.recomputed if r.status == "mismatch")
    unevaluated = sum(1 for r in collector.recomputed if r.status == "not_evaluated")
    lines = [
        f"nerb-verify: {result.verdict.upper().replace('_', ' ')} {result.display_root} "
        f"(exit {result.exit_code}; {errors} error(s), {warnings} warning(s))"
    ]
    grouped: dict[str, list[Any]] = defaultdict(list)
    for finding in findings:
        grouped[finding.artifact].append(finding)
    for artifact in sorted(grouped):
        lines.append("")
        lines.append(f"{artifact}:")
        for finding in grouped[artifact]:
            where = finding.pointer or ("(the folder)" if finding.artifact == "." else "(whole file)")
            if finding.line is not None:
                position = f"line {finding.line}, column {finding.column or 1}"
                where = f"{finding.pointer} ({position})" if finding.pointer else position
            lines.append(f"  {finding.severity:<7} {finding.code}  {where}  {finding.message}")
    withheld = established.text_lines(collector.decisions, result.verdict)
    if withheld:
        # A rejected bundle establishes no decision: the headline tables (verdict words, gate pass/fail) are not
        # printed; the recomputed numbers stay available with --figures and in the JSON report.
        lines.append("")
        lines.extend(withheld)
    elif established.not_established(result.verdict) is None:
        tables = result.ctx.shared.get("text.tables")
        if isinstance(tables, list):
            for table in tables:
                lines.append("")
                lines.extend(str(line) for line in table)
        grade = decision_scope.text_line(result.ctx)
        if grade is not None:
            lines.append("")
            lines.append(grade)
    if figures and collector.recomputed:
        lines.append("")
        lines.extend(figure_lines(collector.recomputed))
    if not collector.checks_run and not collector.recomputed:
        # Nothing was checked (not a directory, not a bundle, an older layout): the findings are the whole story.
        return "\n".join(lines) + "\n"
    lines.append("")
    statuses = {k: v.get("status") for k, v in collector.checks_run.items()}
    optional = sorted(k for k, status in statuses.items() if status == "not_run")
    not_evaluated = sorted(k for k, status in statuses.items() if status not in ("ran", "not_run"))
    ran = sum(1 for status in statuses.values() if status == "ran")
    coverage = f"{ran}/{len(statuses)} check families ran"
    if not_evaluated:
        coverage += " (not evaluated: " + ", ".join(not_evaluated) + ")"
    if optional:
        coverage += "; optional, not requested: " + ", ".join(optional)
    lines.append(f"Recomputed {len(collector.recomputed)} figure(s): {matched} match, {mismatched} mismatch, "
                 f"{unevaluated} not evaluated. {coverage}.")
    return "\n".join(lines) + "\n"
