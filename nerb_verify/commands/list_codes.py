"""``nerb-verify list-codes``: every registered finding code, one per line, or as JSON."""

from __future__ import annotations

import argparse
import json
import sys

from nerb_verify import catalog


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    infos = catalog.all_codes()
    if args.format == "json":
        payload = [{"code": i.code, "family": i.family, "severity": i.severity, "title": i.title, "help": i.help,
                    "doc": i.doc_anchor} for i in infos]
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
    else:
        for info in infos:
            sys.stdout.write(f"{info.code}\t{info.severity}\t{info.title}\n")
    return 0
