"""``nerb-verify conformance BANK --private-dir DIR``: prove a bank against synthetic cases for every active pattern.

Generates positive (casing, context, whitespace, boundary, overlap) and negative (word boundary, malformed) cases,
scans each once with the compiled bank, and prints the public ``catalog_conformance`` section (JSON) on standard
output. The cases themselves hold bank values and go only under ``--private-dir`` (0700). Exit codes: 0 passed,
1 failed (some miss, wrong canonical, unexpected negative match or unsupported pattern), 2 could not run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bank", metavar="BANK", help="nerb.bank.v1 JSON file")
    parser.add_argument("--private-dir", required=True, help="where the positive/negative case files go (0700)")
    parser.add_argument("--shard-size", type=int, default=50_000)


def run(args: argparse.Namespace) -> int:
    from nerb_verify.producers.bank_format import BankFormatError, load_bank
    from nerb_verify.producers.conformance_cases import conformance_plan, run_conformance
    from nerb_verify.producers.engine import EngineCompileError, compile_bank

    try:
        bank = load_bank(Path(args.bank))
        compiled = compile_bank(bank, shard_size=args.shard_size)
    except (BankFormatError, EngineCompileError) as exc:
        sys.stderr.write(f"nerb-verify conformance: bank not usable ({exc})\n")
        return 2
    except OSError:
        sys.stderr.write("nerb-verify conformance: bank file unreadable\n")
        return 2
    section, cases = run_conformance(bank, compiled)
    private = Path(args.private_dir)
    private.mkdir(parents=True, exist_ok=True)
    os.chmod(private, 0o700)
    for name, data in (("positive.jsonl", cases.positive_bytes()), ("negative.jsonl", cases.negative_bytes())):
        fd = os.open(private / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    sys.stdout.write(json.dumps({"catalog_conformance": section, "conformance_plan": conformance_plan(section)},
                                indent=2, sort_keys=True) + "\n")
    return 0 if section["passed"] else 1
