"""``nerb-verify render BUNDLE_DIR --output-dir DIR``: our own summary and figures for a bundle that verifies.

The bundle is verified first (the same core as ``verify``); a bundle that does not verify is refused (exit 1, nothing
written). The rendered text is privacy-scanned (rendered profile) before anything is written. The output folder
must not exist (its parent must) or must be empty. Exit codes: 0 rendered, 1 refused, 2 could not run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nerb_verify.findings import Collector
from nerb_verify.verify import EXIT_COULD_NOT_VERIFY, EXIT_REJECTED, verify_bundle


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE_DIR", help="folder holding publication.json and the artifacts")
    parser.add_argument("--output-dir", required=True, metavar="DIR",
                        help="new (or empty) folder to write summary.md and figures/ into")


def privacy_problems(files: dict[str, bytes]) -> int:
    """Number of repository-profile privacy findings in the rendered files (0 means clean)."""
    from nerb_verify.privacy.profiles import PROFILES
    from nerb_verify.privacy.text_scan import scan_text

    collector = Collector()
    for rel, data in files.items():
        scan_text(data.decode("utf-8"), PROFILES["rendered"], collector, rel)
    return len(collector.findings)


def run(args: argparse.Namespace) -> int:
    from nerb_verify.render.output import OutputError, render_files, write_files

    result = verify_bundle(Path(args.bundle), display_root=args.bundle)
    if result.verdict == "could_not_verify":
        sys.stderr.write("nerb-verify: render: the bundle could not be verified (not a readable bundle folder, or an "
                         "unsupported layout); nothing rendered. Run 'nerb-verify verify' for details.\n")
        return EXIT_COULD_NOT_VERIFY
    if result.verdict != "verified":
        errors = sum(1 for f in result.collector.findings if f.severity == "error")
        sys.stderr.write(f"nerb-verify: render: the bundle does not verify ({errors} error finding(s)); "
                         "nothing rendered. Run 'nerb-verify verify' for details.\n")
        return EXIT_REJECTED
    files = render_files(result.ctx)
    if privacy_problems(files):
        sys.stderr.write("nerb-verify: render: the rendered text failed the privacy scan; nothing written.\n")
        return EXIT_REJECTED
    try:
        write_files(Path(args.output_dir), files)
    except OutputError as exc:
        sys.stderr.write(f"nerb-verify: render: {exc}; nothing written.\n")
        return EXIT_COULD_NOT_VERIFY
    for rel in files:
        sys.stdout.write(f"wrote {rel}\n")
    return 0
