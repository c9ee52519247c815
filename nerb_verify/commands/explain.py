"""``nerb-verify explain CODE``: what a finding code means and where it is documented."""

from __future__ import annotations

import argparse
import sys

from nerb_verify import codes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("code", metavar="CODE", help="a finding code, e.g. load.duplicate_key")


def run(args: argparse.Namespace) -> int:
    known = {info.code: info for info in codes.all_codes()}
    info = known.get(args.code)
    if info is None:
        sys.stderr.write("nerb-verify: unknown finding code (see nerb-verify list-codes).\n")
        return 2
    sys.stdout.write(f"{info.code} ({info.severity}): {info.title}\n\n{info.help}\n\nDocs: {info.doc_anchor}\n")
    return 0
