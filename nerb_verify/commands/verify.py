"""``nerb-verify verify BUNDLE_DIR``: verify one bundle and print text, JSON, SARIF or GitHub annotations."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from nerb_verify.context import VerifyOptions
from nerb_verify.loader import LoadFailure, parse_json_bytes, read_regular_file
from nerb_verify.outputs.exit_policy import apply_exit_policy, severities_of
from nerb_verify.outputs.render import add_output_arguments, render_findings
from nerb_verify.report import build_report, render_text
from nerb_verify.verify import EXIT_COULD_NOT_VERIFY, verify_bundle

FORMATS = ("text", "json", "sarif", "github")


# The console script ends right after this command (nerb_verify.cli.end_process): every file it writes is written and
# closed before it returns, and it registers no exit handler.
ENDS_WITHOUT_TEARDOWN = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE_DIR", help="folder holding publication.json and the artifacts")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    parser.add_argument("--require-standalone-redaction-eligible", action="store_true",
                        help="exit 3 unless the bank qualifies as a standalone privacy redactor (failed quality "
                             "gates or an honestly insufficient gate panel otherwise verify as 'not eligible')")
    parser.add_argument("--require-decision-grade", action="store_true",
                        help="exit 3 unless every decision-grade requirement holds (a bundle that does not claim "
                             "decision grade, a smoke run or a decision run reporting its grade as not passed, "
                             "otherwise verifies with the unmet requirements listed; see docs/decision-grade.md)")
    parser.add_argument("--trusted-lineage", metavar="FILE",
                        help="a previously published test-access lineage (JSON array) that must be a prefix")
    parser.add_argument("--source-repo", metavar="PATH",
                        help="the publisher's git checkout, for checks that need its history (optional)")
    parser.add_argument("--figures", action="store_true",
                        help="text format: also list every recomputed figure (pointer, exact value, decimal, "
                             "published number, status)")
    parser.add_argument("--coverage", action="store_true",
                        help="also classify every leaf of the bundle as derived, primitive or unclassified "
                             "(docs/derivation.md) and print the counts; the JSON report then carries them under "
                             "'derivation'")
    parser.add_argument("--jobs", choices=("auto", "1", "2"), default="auto",
                        help="processes for one verification: 2 scans the bundle's files for privacy in a forked "
                             "child while the other checks run, 1 runs everything in one process; the findings are "
                             "the same either way (default auto: 2 when nerb-verify is the process itself, on "
                             "Linux with more than one CPU; 1 when called from Python)")
    add_output_arguments(parser)


def jobs_of(args: argparse.Namespace) -> int:
    """The number of processes ``--jobs`` asks for; ``auto`` means 2 only for the console script itself (cli.main
    marks that with ``_entry_point``) on Linux with more than one CPU, so a test or a program calling us in-process
    is never forked, nor a process on a platform where fork without exec is discouraged (macOS)."""
    if args.jobs != "auto":
        return int(args.jobs)
    if not (getattr(args, "_entry_point", False) and sys.platform.startswith("linux")):
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return 2 if cpus > 1 else 1


def source_repo_problem(path: Path) -> str | None:
    """Why ``--source-repo PATH`` cannot be used, as the end of a one-line usage message, or None when it can.

    A missing path, a file or a folder git does not recognise is the caller's mistake, not the bundle's: it must not
    become a finding that rejects the bundle. The path itself is never printed (it may name a home folder).
    """
    if not path.is_dir():
        return "does not exist or is not a directory"
    from nerb_verify.checks.capacity import capacity_source  # only with --source-repo

    if not capacity_source.is_git_repository(str(path)):
        return "is not a git repository (or git could not be run)"
    return None


def run(args: argparse.Namespace) -> int:
    if args.figures and args.format != "text":
        sys.stderr.write("nerb-verify: --figures works with --format text only (the JSON report lists every figure "
                         "in recomputed[]).\n")
        return EXIT_COULD_NOT_VERIFY
    if args.source_repo:
        problem = source_repo_problem(Path(args.source_repo))
        if problem is not None:
            sys.stderr.write(f"nerb-verify: --source-repo {problem}; nothing was verified.\n")
            return EXIT_COULD_NOT_VERIFY
    options = VerifyOptions(require_standalone_redaction_eligible=args.require_standalone_redaction_eligible,
                            require_decision_grade=args.require_decision_grade,
                            source_repo=Path(args.source_repo) if args.source_repo else None,
                            jobs=jobs_of(args), single_run=bool(getattr(args, "_entry_point", False)))
    if args.trusted_lineage:
        try:
            raw = read_regular_file(Path(args.trusted_lineage), 16 * 1024 * 1024)
            options.trusted_lineage = parse_json_bytes(raw, root="array")
            options.trusted_lineage_path = args.trusted_lineage
        except LoadFailure as failure:
            sys.stderr.write(f"nerb-verify: --trusted-lineage file could not be loaded ({failure.problem.code}).\n")
            return EXIT_COULD_NOT_VERIFY
    result = verify_bundle(Path(args.bundle), options, display_root=args.bundle)
    findings = result.collector.sorted_findings()
    coverage = None
    if args.coverage:
        # Imported and walked only when asked: a normal verify never pays for it.
        from nerb_verify import derivation

        coverage = derivation.classify(result.ctx)
    exit_code = apply_exit_policy(result.exit_code, severities_of(findings), fail_on=args.fail_on,
                                  exit_zero=args.exit_zero)

    def machine(fmt: str) -> str:
        return render_findings(findings, fmt, command="verify", target=args.bundle, source_root=args.source_root,
                               exit_code=result.exit_code, verdict=result.verdict, doc_base=args.doc_base)

    def report_json() -> str:
        return json.dumps(build_report(result, coverage), indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    side_outputs = [("--sarif-output", args.sarif_output, lambda: machine("sarif")),
                    ("--report-output", args.report_output, report_json)]
    for option, name, produce in side_outputs:
        if not name:
            continue
        try:
            Path(name).write_text(produce(), encoding="utf-8")
        except OSError:
            sys.stderr.write(f"nerb-verify: the {option} file could not be written.\n")
            return EXIT_COULD_NOT_VERIFY
    if args.format == "json":
        sys.stdout.write(report_json())
    elif args.format in ("sarif", "github"):
        sys.stdout.write(machine(args.format))
    else:
        text = render_text(result, figures=args.figures)
        if coverage is not None:
            from nerb_verify.derivation import text_lines

            text += "\n" + "\n".join(text_lines(coverage)) + "\n"
        sys.stdout.write(text)
    if exit_code != result.exit_code:
        sys.stderr.write(f"nerb-verify: exit {exit_code} (verifier exit {result.exit_code}; "
                         f"--fail-on {args.fail_on}{', --exit-zero' if args.exit_zero else ''}).\n")
    return exit_code
