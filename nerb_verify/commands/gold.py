"""``nerb-verify gold cmu-report ARCHIVE [--expected-sha256 HEX]``: verify the CMU Enron Meetings pin, report the split.

Hashes the archive before opening it (a different hash is refused, exit 2, nothing read), reads every fragment, and
prints the counts-only report: the pin, the published split (train bunches 1-3, test bunch 4: documents, spans,
negative documents) and the annotation scope (person names only). No text, name or member name is printed.
``--expected-sha256`` is for archives built in the same layout (tests, a re-published copy); without it the charter's
pin applies, which also checks the published inventory.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="gold_command", metavar="ACTION")
    report = sub.add_parser("cmu-report", help="verify the pinned CMU Enron Meetings archive and report its split",
                            description="verify the pinned CMU Enron Meetings archive and report its split")
    report.add_argument("archive", type=Path, help="EnronMeetings-XML.zip")
    report.add_argument("--expected-sha256", help="the pin to check instead of the charter's (64 hex digits)")


def run(args: argparse.Namespace) -> int:
    from nerb_verify.producers import cmu_meetings

    if getattr(args, "gold_command", None) != "cmu-report":
        sys.stderr.write("nerb-verify gold: choose an action: cmu-report.\n")
        return 2
    try:
        corpus = cmu_meetings.load_cmu_meetings(args.archive, expected_sha256=args.expected_sha256
                                                or cmu_meetings.CMU_MEETINGS_SHA256)
    except cmu_meetings.CmuArchiveError as exc:
        sys.stderr.write(f"nerb-verify gold cmu-report: {exc}.\n")
        return 2
    sys.stdout.write(json.dumps(corpus.report(), indent=2, sort_keys=True) + "\n")
    return 0
