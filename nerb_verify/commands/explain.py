"""``nerb-verify explain CODE|FAMILY``: what a finding code means, or which codes a family has, and the docs.

A code (``load.duplicate_key``) prints its severity, title, help text and documentation anchor. A family name
(``schema``, one of :data:`nerb_verify.codes.FAMILIES`) prints the family's description and every code it has with
its severity and title, then its documentation page. Anything else is a usage error (exit 2); the argument is never
echoed.
"""

from __future__ import annotations

import argparse
import sys

from nerb_verify import catalog, codes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("code", metavar="CODE",
                        help="a finding code, e.g. load.duplicate_key, or a family, e.g. schema")


def family_text(family: str) -> str:
    """The family's description, one line per code (code, severity, title), and its documentation page."""
    lines = [f"{family}: {codes.FAMILIES[family]}", ""]
    lines += [f"  {info.code} ({info.severity}): {info.title}" for info in catalog.all_codes() if info.family == family]
    lines += ["", f"Docs: {codes.DOCS_BASE}/{family}.md (nerb-verify explain CODE for one code)"]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    known = {info.code: info for info in catalog.all_codes()}
    info = known.get(args.code)
    if info is not None:
        sys.stdout.write(f"{info.code} ({info.severity}): {info.title}\n\n{info.help}\n\nDocs: {info.doc_anchor}\n")
        return 0
    if args.code in codes.FAMILIES:
        sys.stdout.write(family_text(args.code))
        return 0
    sys.stderr.write("nerb-verify: unknown finding code or family (see nerb-verify list-codes).\n")
    return 2
