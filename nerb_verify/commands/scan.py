"""Placeholder for `nerb-verify scan`: not available yet (exits 2, could not run)."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rest", nargs="*")


def run(args: argparse.Namespace) -> int:
    sys.stderr.write("nerb-verify: 'scan' is not available in this build.\n")
    return 2
