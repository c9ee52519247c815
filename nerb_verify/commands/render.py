"""Placeholder for `nerb-verify render`: not available yet (exits 2, could not run)."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rest", nargs="*")


def run(args: argparse.Namespace) -> int:
    sys.stderr.write("nerb-verify: 'render' is not available in this build.\n")
    return 2
