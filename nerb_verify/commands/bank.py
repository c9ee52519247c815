"""``nerb-verify bank build DEV_BUNDLE --private-dir DIR --public-dir DIR``: build a known-entity bank from train.

Reads only ``train.jsonl`` + ``memberships.jsonl`` (+ ``manifest.json``) of a development bundle for mining; the
bundle's ``validation.jsonl`` is read afterwards for the structured-weak development validation only. Writes the
private bank, candidate ledger, funnel and conformance cases under ``--private-dir`` (mode 0700), and the public
``bank-card.json`` and ``manifest-bank.json`` (manifest ``bank`` and ``conformance_plan`` sections) under
``--public-dir``, after a contract-profile privacy scan of those public files (a finding removes them and exits 1).

Exit codes: 0 built, conformance passed and public files clean; 1 conformance failed or a public file was not clean;
2 could not build (missing input, not a train bundle, bank or card could not be assembled).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from nerb_verify.producers import INSTALL_PRODUCERS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="bank_command", metavar="ACTION")
    build = sub.add_parser("build", help="build a bank from the train role of a development bundle",
                           epilog="Needs the RE2 scan engine (google-re2), the producers extra: run "
                                  f"{INSTALL_PRODUCERS} in a nerb-verify clone.")
    build.add_argument("bundle", metavar="DEV_BUNDLE", help="development bundle folder (train.jsonl, memberships.jsonl)")
    build.add_argument("--private-dir", required=True, help="private output folder (created 0700)")
    build.add_argument("--public-dir", required=True, help="public output folder (bank card, manifest sections)")
    build.add_argument("--bank-id", default="enron_intelligence")
    build.add_argument("--version", default="1")
    build.add_argument("--created-at", default="1970-01-01T00:00:00Z")
    build.add_argument("--benchmark-version", default="enron")
    build.add_argument("--dataset-id", help="source dataset id for the card (default: the source identity the split "
                                            "manifest carries from prepare, i.e. its --source-id)")
    build.add_argument("--dataset-revision", help="source dataset revision (default: from the split manifest, i.e. "
                                                  "the public source.revision prepare published)")
    build.add_argument("--dataset-split", help="source dataset split, e.g. train (default: from the split manifest, "
                                               "i.e. prepare's --source-split)")
    build.add_argument("--shard-size", type=int, default=50_000, help="detectors per RE2 shard (default 50,000)")


def _private(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    return path


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "bank_command", None) != "build":
        sys.stderr.write("nerb-verify bank: choose an action (build)\n")
        return 2
    from nerb_verify.canonical import python_canonical_bytes
    from nerb_verify.producers.bank_builder import TrainOnlyError, build_bank, iter_candidate_rows, open_train_bundle
    from nerb_verify.producers.bank_card import (
        CardError,
        build_card,
        card_arithmetic_problems,
        card_source_from_manifest,
        dumps_public,
        evaluate_validation,
        manifest_bank_section,
    )
    from nerb_verify.producers.bank_format import BankFormatError, bank_bytes
    from nerb_verify.producers.conformance_cases import conformance_plan, run_conformance
    from nerb_verify.producers.engine import EngineCompileError, compile_bank

    bundle = Path(args.bundle)
    try:
        train = open_train_bundle(bundle)
        result = build_bank(train, bank_id=args.bank_id, version=args.version, created_at=args.created_at)
        artifact = bank_bytes(result.bank)
        compiled = compile_bank(result.bank, shard_size=args.shard_size)
        # the card's source block is settled before anything is written: a missing field writes nothing
        overrides = {"dataset_id": args.dataset_id, "dataset_revision": args.dataset_revision,
                     "dataset_split": args.dataset_split}
        source = card_source_from_manifest(train.manifest, result, len(set(train.groups.values())), train,
                                           overrides)
    except CardError as exc:
        sys.stderr.write(f"nerb-verify bank build: card not built, nothing written ({_safe(exc)})\n")
        return 2
    except (TrainOnlyError, BankFormatError, EngineCompileError, OSError, ValueError, KeyError) as exc:
        sys.stderr.write(f"nerb-verify bank build: could not build ({type(exc).__name__}: {_safe(exc)})\n")
        return 2
    private = _private(Path(args.private_dir))
    _write_private(private / "bank.json", artifact)
    _write_private(private / "candidates.jsonl",
                   b"".join(python_canonical_bytes(r) + b"\n" for r in iter_candidate_rows(result)))
    _write_private(private / "candidate-funnel.json", dumps_public(result.funnel))
    section, cases = run_conformance(result.bank, compiled)
    _private(private / "conformance")
    _write_private(private / "conformance" / "positive.jsonl", cases.positive_bytes())
    _write_private(private / "conformance" / "negative.jsonl", cases.negative_bytes())
    _write_private(private / "conformance" / "result.json", dumps_public(section))
    from nerb_verify.producers.retention import record_after_run

    note = record_after_run(private)
    if note:
        sys.stderr.write(f"nerb-verify bank build: {note}\n")
    validation_path = bundle / "validation.jsonl"
    try:
        records = [json.loads(line) for line in validation_path.read_bytes().splitlines() if line.strip()]
        validation = evaluate_validation(compiled, result.bank, records)
        card = build_card(result, artifact, section, validation, source, benchmark_version=args.benchmark_version)
    except (CardError, OSError, ValueError) as exc:
        sys.stderr.write(f"nerb-verify bank build: bank written, card not built ({_safe(exc)})\n")
        return 2
    problems = card_arithmetic_problems(card)
    if problems:
        sys.stderr.write("nerb-verify bank build: card invariants failed: " + ", ".join(problems) + "\n")
        return 1
    public = Path(args.public_dir)
    public.mkdir(parents=True, exist_ok=True)
    card_path = public / "bank-card.json"
    sections_path = public / "manifest-bank.json"
    card_path.write_bytes(dumps_public(card))
    sections_path.write_bytes(dumps_public({"bank": manifest_bank_section(result.bank, artifact),
                                            "conformance_plan": conformance_plan(section)}))
    from nerb_verify.privacy.profiles import PROFILES
    from nerb_verify.privacy.runner import scan_paths

    scanned = scan_paths([str(card_path), str(sections_path)], PROFILES["contract"])
    if scanned.findings:
        card_path.unlink()
        sections_path.unlink()
        sys.stderr.write(f"nerb-verify bank build: {len(scanned.findings)} privacy finding(s) in the public "
                         "outputs; they were removed\n")
        return 1
    funnel = result.funnel["by_decision"]
    sys.stdout.write(f"bank {result.bank['id']}: {section['active_patterns']} active patterns "
                     f"(funnel active {funnel['active']}, draft {funnel['draft']}, rejected {funnel['rejected']}); "
                     f"conformance {'passed' if section['passed'] else 'FAILED'} "
                     f"({section['correctly_mapped']}/{section['approved_positive_cases']} positives, "
                     f"{section['unexpected_negative_matches']}/{section['negative_cases']} negatives matched)\n")
    return 0 if section["passed"] else 1


def _safe(exc: Exception) -> str:
    """Our own exception messages carry only field names; anything else is reduced to its type."""
    from nerb_verify.producers.bank_builder import TrainOnlyError
    from nerb_verify.producers.bank_card import CardError
    from nerb_verify.producers.bank_format import BankFormatError
    from nerb_verify.producers.engine import EngineCompileError

    if isinstance(exc, (TrainOnlyError, CardError, BankFormatError, EngineCompileError)):
        return str(exc)
    return "see the input files"
