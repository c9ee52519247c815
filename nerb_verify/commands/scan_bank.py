"""``nerb-verify scan-bank BANK INPUT``: compile a bank once and scan many documents with the RE2 engine.

INPUT is JSONL (one ``{"document_id": ..., "text": ...}`` object a line) or, with ``--text``, one UTF-8 file
scanned as a single document. Output: one JSON record a line (``document_id`` first, then NERB's record fields),
sorted per document as the engine sorts. Records contain matched text: this is a private-side tool, so write them
to a private place. Exit codes: 0 scanned; 2 could not scan (bank invalid or not compilable, input unreadable,
invalid UTF-8 or a document over 10 MiB). ``--cluster ADDR|local:N`` scans a JSONL corpus on Dask
(:mod:`nerb_verify.producers.cluster_scan`): the same output bytes, and nothing written when a document is refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bank", metavar="BANK", help="nerb.bank.v1 JSON file")
    parser.add_argument("input", metavar="INPUT", help="JSONL of {document_id, text}, or a text file with --text")
    parser.add_argument("--text", action="store_true", help="scan INPUT as one plain UTF-8 document")
    parser.add_argument("--offsets", choices=("byte", "char"), default="byte", help="offset unit (default: byte)")
    parser.add_argument("--out", metavar="FILE", help="write records here (default: standard output)")
    parser.add_argument("--shard-size", type=int, default=50_000)
    from nerb_verify.producers.cluster import add_cluster_arguments

    add_cluster_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from nerb_verify.producers.bank_format import BankFormatError, load_bank
    from nerb_verify.producers.engine import EngineCompileError, ScanInputError, compile_bank
    from nerb_verify.producers.sources import parse_scan_line

    from nerb_verify.producers.cluster import cluster_argument_problem

    problem = cluster_argument_problem(args)
    if problem or (args.cluster and args.text):
        sys.stderr.write(f"nerb-verify scan-bank: {problem or '--cluster scans a JSONL corpus, not --text'}\n")
        return 2
    try:
        compiled = compile_bank(load_bank(Path(args.bank)), shard_size=args.shard_size)
    except (BankFormatError, EngineCompileError) as exc:
        sys.stderr.write(f"nerb-verify scan-bank: bank not usable ({exc})\n")
        return 2
    except OSError:
        sys.stderr.write("nerb-verify scan-bank: bank file unreadable\n")
        return 2
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    if args.cluster:
        return _run_on_cluster(args, out)
    documents = records = 0
    try:
        path = Path(args.input)
        if args.text:
            items = [("document", path.read_bytes())]
        else:
            items = (parse_scan_line(n, line) for n, line in enumerate(path.open("rb"), 1) if line.strip())
        for document_id, data in items:
            documents += 1
            for record in compiled.scan_bytes(data, args.offsets):
                records += 1
                out.write(json.dumps({"document_id": document_id, **record}, ensure_ascii=False,
                                     sort_keys=False) + "\n")
    except ScanInputError as exc:
        sys.stderr.write(f"nerb-verify scan-bank: document {documents} refused ({exc})\n")
        return 2
    except (OSError, ValueError):
        sys.stderr.write(f"nerb-verify scan-bank: input unreadable or malformed at document {documents + 1}\n")
        return 2
    finally:
        if args.out:
            out.close()
    sys.stderr.write(f"scanned {documents} document(s), {records} record(s)\n")
    return 0


def _run_on_cluster(args: argparse.Namespace, out: Any) -> int:
    """The scan of a JSONL corpus on ``--cluster`` (same output bytes; nothing written when a document is refused)."""
    from nerb_verify.producers.cluster import ClusterError
    from nerb_verify.producers.cluster_scan import scan_on_cluster

    try:
        result = scan_on_cluster(args.cluster, Path(args.bank), Path(args.input), offsets=args.offsets,
                                 shard_size=args.shard_size, out=out, parts=args.partitions,
                                 work_parent=Path(args.out).resolve().parent if args.out else None)
    except ClusterError as exc:
        sys.stderr.write(f"nerb-verify scan-bank: cluster run refused ({exc.code}); nothing was written\n")
        return 2
    except OSError:
        sys.stderr.write("nerb-verify scan-bank: input unreadable\n")
        return 2
    finally:
        if args.out:
            out.close()
    if result["error"] == "refused":
        sys.stderr.write(f"nerb-verify scan-bank: document {result['documents']} refused ({result['message']})\n")
        return 2
    if result["error"]:
        sys.stderr.write(f"nerb-verify scan-bank: input unreadable or malformed at document {result['documents']}\n")
        return 2
    sys.stderr.write(f"scanned {result['documents']} document(s), {result['records']} record(s)\n")
    return 0
