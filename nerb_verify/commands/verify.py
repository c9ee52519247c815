"""``nerb-verify verify BUNDLE_DIR``: verify one bundle and print text, JSON, SARIF or GitHub annotations."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from nerb_verify.context import VerifyOptions
from nerb_verify.loader import LoadFailure, parse_json_bytes, read_regular_file
from nerb_verify.report import build_report, render_text
from nerb_verify.verify import EXIT_COULD_NOT_VERIFY, verify_bundle

FORMATS = ("text", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE_DIR", help="folder holding publication.json and the artifacts")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    parser.add_argument("--require-standalone-redaction-eligible", action="store_true",
                        help="exit 3 unless the bank qualifies as a standalone privacy redactor")
    parser.add_argument("--trusted-lineage", metavar="FILE",
                        help="a previously published test-access lineage (JSON array) that must be a prefix")
    parser.add_argument("--source-repo", metavar="PATH",
                        help="the publisher's git checkout, for checks that need its history (optional)")


def run(args: argparse.Namespace) -> int:
    options = VerifyOptions(require_standalone_redaction_eligible=args.require_standalone_redaction_eligible,
                            source_repo=Path(args.source_repo) if args.source_repo else None)
    if args.trusted_lineage:
        try:
            raw = read_regular_file(Path(args.trusted_lineage), 16 * 1024 * 1024)
            options.trusted_lineage = parse_json_bytes(raw, root="array")
            options.trusted_lineage_path = args.trusted_lineage
        except LoadFailure as failure:
            sys.stderr.write(f"nerb-verify: --trusted-lineage file could not be loaded ({failure.problem.code}).\n")
            return EXIT_COULD_NOT_VERIFY
    result = verify_bundle(Path(args.bundle), options, display_root=args.bundle)
    if args.format == "json":
        sys.stdout.write(json.dumps(build_report(result), indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_text(result))
    return result.exit_code
