"""``nerb-verify scan [--profile contract|repository] [--format text|json|sarif|github] PATHS...``: privacy-scan.

Exit codes: 0 clean, 1 privacy findings (or an invalid allowlist), 2 could not scan (a path missing or unreadable,
nothing else found). The output never contains a matched value, a raw key, or a hash of either: findings carry the
file, line and column (text) or a JSON pointer built from key positions (JSON), the code and the profile.

With ``--bundles`` the paths are files touched in evidence bundles: each touched bundle is verified in full (the
privacy family inside ``verify`` contract-scans every JSON artifact) and its findings are printed the same way; the
summary line counts the bundles by verdict and the findings by family (most are not privacy findings).

Hints follow the findings: the privacy hint only when there are privacy findings (the allowlist applies to ``scan``,
never to a bundle), and the families of the other findings with their documentation pages. ``--pre-commit`` (the
published hooks' entries) names commands that work in a pre-commit hook, where ``nerb-verify`` is not on the user's
PATH: the manual-stage hook ``nerb-privacy-allowlist`` checks a hand-added allowlist entry.

The output format is chosen in one place, :func:`render`, which takes the list of findings; a new format plugs in
there (and in ``FORMATS``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nerb_verify import codes
from nerb_verify.findings import Collector, Finding
from nerb_verify.outputs.exit_policy import apply_exit_policy, severities_of
from nerb_verify.outputs.render import add_output_arguments, render_findings
from nerb_verify.privacy import allowlist as allowlist_file
from nerb_verify.privacy.profiles import PROFILES
from nerb_verify.privacy.runner import NOT_SCANNED, ScanSummary, default_jobs, scan_paths

FORMATS = ("text", "json", "sarif", "github")
EXIT_COULD_NOT_SCAN = 2

ALLOWLIST_HOOK = "pre-commit run nerb-privacy-allowlist --hook-stage manual"
HINT_CLI = ("Values are never printed: open each location, remove or aggregate the data, or add a justified "
            "allowlist entry with 'nerb-verify allowlist add'.")
HINT_PRE_COMMIT = ("Values are never printed: open each location, remove or aggregate the data, or add a justified "
                   f"entry to {allowlist_file.DEFAULT_NAME} (format: docs/privacy-scanner.md of nerb-verify) and "
                   f"check it with '{ALLOWLIST_HOOK}'.")
HINT_BUNDLE = ("Values are never printed: open each location and remove or aggregate the data; published evidence "
               "has no allowlist.")


@dataclass
class Outcome:
    """What one run found: findings (after the allowlist), counts, exit code, PATH arguments that could not be
    inspected, and in ``--bundles`` mode the verdict of every touched bundle."""

    findings: list[Finding]
    summary: ScanSummary
    exit_code: int
    unusable_targets: list[str] = field(default_factory=list)
    bundle_verdicts: list[str] | None = None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to scan (folders recurse)")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="repository",
                        help="contract: the charter's strict rules for public evidence (Markdown and SVG files get "
                             "the rendered rules, as in verify); rendered: a bundle's summary.md and figures; "
                             "repository (default): source, docs and data in a repository")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    parser.add_argument("--allowlist", metavar="FILE",
                        help=f"allowlist file (default: {allowlist_file.DEFAULT_NAME} in the current folder, if any)")
    parser.add_argument("--no-allowlist", action="store_true", help="ignore any allowlist")
    parser.add_argument("--verbose", action="store_true", help="print the counts even when nothing was found")
    parser.add_argument("--bundles", action="store_true",
                        help="treat PATHS as files touched in evidence bundles: verify every bundle (the nearest "
                             "folder above a path that holds publication.json), which includes the contract-profile "
                             "scan of all its JSON; used by the nerb-verify-bundle pre-commit hook")
    parser.add_argument("--pre-commit", action="store_true",
                        help="word the hints for a pre-commit hook's user, who has no nerb-verify on PATH (the "
                             "published hooks pass this)")
    parser.add_argument("--jobs", type=_jobs, default=None, metavar="N",
                        help="processes that scan the files of folders (default: all cores; 1: one process); the "
                             "output is the same for any N")
    add_output_arguments(parser)  # --exit-zero, --fail-on, --sarif-output, --report-output, --source-root, --doc-base


def _jobs(value: str) -> int:
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        raise argparse.ArgumentTypeError("N must be a whole number of at least 1")
    return int(value)


def _is_privacy(finding: Finding) -> bool:
    """A finding about personal data (what the allowlist can suppress): any privacy code but ``not_scanned``."""
    return finding.code.startswith("privacy.") and finding.code != NOT_SCANNED


def summary_line(findings: Sequence[Finding], summary: ScanSummary, bundle_verdicts: list[str] | None) -> str:
    """The run's one-line summary. A privacy scan names its profile and counts; ``--bundles`` counts the bundles by
    verdict and the findings by family, since a bundle's findings come from every check family."""
    if bundle_verdicts is None:
        notes = ([f"{summary.wide_text_files} in UTF-16 or UTF-32"] if summary.wide_text_files else []) + (
            [f"{summary.not_utf8_files} not valid UTF-8"] if summary.not_utf8_files else []) + (
            [f"{summary.compressed_files} decompressed"] if summary.compressed_files else []) + (
            [f"{summary.archive_members} read from {summary.archives} archive(s)"] if summary.archives else [])
        wide = f" ({', '.join(notes)})" if notes else ""
        return (f"nerb-verify scan ({summary.profile} profile): {len(findings)} finding(s) in "
                f"{summary.files_scanned} file(s) scanned{wide}; {summary.binary_skipped} binary file(s) skipped; "
                f"{summary.not_scanned} path(s) not scanned; {summary.suppressed} finding(s) allowlisted.")
    verdicts = Counter(bundle_verdicts)
    by_verdict = ", ".join(f"{verdicts[v]} {v.replace('_', ' ')}" for v in sorted(verdicts)) or "none touched"
    families = Counter(codes.get(f.code).family for f in findings)
    by_family = ", ".join(f"{name} {families[name]}" for name in sorted(families))
    return (f"nerb-verify scan --bundles: {len(bundle_verdicts)} bundle(s) verified ({by_verdict}); "
            f"{len(findings)} finding(s){' (' + by_family + ')' if by_family else ''} in {summary.files_scanned} "
            f"file(s).")


def hints(findings: Sequence[Finding], bundles: bool, pre_commit: bool) -> list[str]:
    """What to do next: the privacy hint only for privacy findings (worded for where the user is), and the
    documentation pages of the other families."""
    lines: list[str] = []
    if any(_is_privacy(f) for f in findings):
        lines.append(HINT_BUNDLE if bundles else (HINT_PRE_COMMIT if pre_commit else HINT_CLI))
    others = sorted({codes.get(f.code).family for f in findings if not _is_privacy(f) and f.code != NOT_SCANNED})
    if others:
        pages = ", ".join(f"docs/findings/{family}.md" for family in others)
        lines.append(f"Other findings ({', '.join(others)}): each code is explained in nerb-verify's {pages}.")
    return lines


def _text(findings: Sequence[Finding], summary: ScanSummary, verbose: bool, bundle_verdicts: list[str] | None,
          pre_commit: bool) -> str:
    lines: list[str] = []
    for finding in findings:
        if finding.line is not None:
            where = f"{finding.artifact}:{finding.line}:{finding.column or 1}"
        else:
            where = f"{finding.artifact}#{finding.pointer}" if finding.pointer else finding.artifact
        lines.append(f"{where}: {finding.severity} {finding.code}: {finding.message}")
    if findings or verbose:
        lines.append(summary_line(findings, summary, bundle_verdicts))
    lines.extend(hints(findings, bundle_verdicts is not None, pre_commit))
    return "".join(line + "\n" for line in lines)


def render(findings: Sequence[Finding], fmt: str, *, summary: ScanSummary, exit_code: int,
           verbose: bool = False, source_root: str | None = None, doc_base: str | None = None,
           unusable_targets: Sequence[str] = (), bundle_verdicts: list[str] | None = None,
           pre_commit: bool = False) -> str:
    """The one place the output format is chosen: render ``findings`` (already allowlist-filtered) as ``fmt``."""
    if fmt in ("sarif", "github"):
        # Finding paths are as given on the command line, i.e. relative to the current directory (".").
        return render_findings(findings, fmt, command="scan", target=".", source_root=source_root,
                               exit_code=exit_code, doc_base=doc_base, extra={"profile": summary.profile},
                               summary=summary_line(findings, summary, bundle_verdicts),
                               targets=frozenset(unusable_targets))
    if fmt == "json":
        document = {"profile": summary.profile, "exit_code": exit_code, "summary": summary.to_json(),
                    "findings": [finding.to_json() for finding in findings]}
        return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return _text(findings, summary, verbose, bundle_verdicts, pre_commit)


def bundle_roots(paths: Sequence[str], max_levels: int = 8) -> list[Path]:
    """The evidence bundles touched by ``paths``: for each, the nearest folder at or above it (at most
    ``max_levels`` up) that holds a ``publication.json``. Sorted, without duplicates."""
    roots: set[Path] = set()
    for raw in paths:
        folder = Path(raw)
        if not folder.is_dir() or folder.is_symlink():
            folder = folder.parent
        for _level in range(max_levels):
            if (folder / "publication.json").is_file():
                roots.add(folder)
                break
            if folder.parent == folder or str(folder) in ("", "."):
                break
            folder = folder.parent
    return sorted(roots)


def _run_bundles(paths: Sequence[str]) -> Outcome:
    """Verify every bundle touched by ``paths``; findings carry the bundle folder in their path."""
    from nerb_verify.verify import verify_bundle

    findings: list[Finding] = []
    exit_code = 0
    summary = ScanSummary(profile="contract")
    verdicts: list[str] = []
    for root in bundle_roots(paths):
        result = verify_bundle(root, display_root=root.as_posix())
        summary.files_scanned += len(result.ctx.files)
        verdicts.append(result.verdict)
        for finding in result.collector.sorted_findings():
            findings.append(finding._replace(artifact=f"{root.as_posix()}/{finding.artifact}"))
        exit_code = max(exit_code, result.exit_code if result.exit_code in (0, 1, 2) else 1)
    return Outcome(findings, summary, exit_code, bundle_verdicts=verdicts)


def _scan(args: argparse.Namespace) -> Outcome:
    collector = Collector()
    allowlist = None
    if not args.no_allowlist:
        path = Path(args.allowlist) if args.allowlist else Path(allowlist_file.DEFAULT_NAME)
        if args.allowlist or path.exists() or path.is_symlink():
            allowlist = allowlist_file.load(path, collector)
    jobs = args.jobs if args.jobs is not None else default_jobs()
    result = scan_paths(list(args.paths), PROFILES[args.profile], allowlist, collector, jobs=jobs)
    exit_code = result.exit_code
    if exit_code == 0 and any(f.code.startswith("allowlist.") and f.severity == "error" for f in result.findings):
        exit_code = 1
    return Outcome(result.findings, result.summary, exit_code, unusable_targets=result.unusable_targets)


def run(args: argparse.Namespace) -> int:
    outcome = _run_bundles(args.paths) if args.bundles else _scan(args)
    findings, exit_code = outcome.findings, outcome.exit_code

    def output(fmt: str) -> str:
        return render(findings, fmt, summary=outcome.summary, exit_code=exit_code, verbose=args.verbose,
                      source_root=args.source_root, doc_base=args.doc_base,
                      unusable_targets=outcome.unusable_targets, bundle_verdicts=outcome.bundle_verdicts,
                      pre_commit=args.pre_commit)

    for option, name, fmt in (("--sarif-output", args.sarif_output, "sarif"),
                              ("--report-output", args.report_output, "json")):
        if name:
            try:
                Path(name).write_text(output(fmt), encoding="utf-8")
            except OSError:
                sys.stderr.write(f"nerb-verify: the {option} file could not be written.\n")
                return EXIT_COULD_NOT_SCAN
    sys.stdout.write(output(args.format))
    final = apply_exit_policy(exit_code, severities_of(findings), fail_on=args.fail_on,
                              exit_zero=args.exit_zero)
    if final != exit_code:
        sys.stderr.write(f"nerb-verify: exit {final} (scan exit {exit_code}; --fail-on {args.fail_on}"
                         f"{', --exit-zero' if args.exit_zero else ''}).\n")
    return final
