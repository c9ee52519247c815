"""`nerb-verify split`: freeze leakage-safe train / validation / sealed-test roles from a committed preparation.

Writes the sealed and development bundles under ``<private-root>/enron-split/<run>/`` and merges the public
``splits`` section into ``--public-out``. ``--mode production`` (the default) refuses a split that misses the
production floors; ``--mode fixture`` relaxes them and marks the split non-promotable.

``--open-test`` is the one-shot access to the sealed test role: it needs ``--frozen-target`` (the frozen release
hashes), ``--confirm-one-shot`` and ``--into`` (a private file that receives the test lines). The claim is made
durable and appended to the lineage before the first test byte is read; it can never be repeated.
``--public-out`` must be the sections file ``prepare`` wrote for this preparation (the splits section is checked
against its source and preparation sections); that is checked before anything is written. A refused split (leakage,
floors, unpublishable sections) removes every folder it created. ``--cluster ADDR|local:N`` groups on Dask with
byte-identical artifacts; a cluster run that cannot complete is exit 2 and removes its folders. Exit 0 done; 1 refused (leakage, floors,
sealed-access rule); 2 could not run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from nerb_verify.commands.prepare import DEFAULT_PUBLIC


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--private-root", type=Path, default=Path(".nerb"))
    parser.add_argument("--prep-run", default="run", help="the committed preparation run to split")
    parser.add_argument("--run", default="run", help="name of the split run")
    parser.add_argument("--seed", default="nerb-verify-split", help="split seed (only its commitment is public)")
    parser.add_argument("--mode", choices=["production", "fixture"], default="production")
    parser.add_argument("--public-out", type=Path, default=Path(DEFAULT_PUBLIC))
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    parser.add_argument("--format", choices=["text", "json"], default="text")
    from nerb_verify.producers.cluster import add_cluster_arguments

    add_cluster_arguments(parser)
    parser.add_argument("--open-test", action="store_true", help="the one-shot sealed test access")
    parser.add_argument("--frozen-target", type=Path, help="JSON with the frozen release hashes")
    parser.add_argument("--confirm-one-shot", action="store_true")
    parser.add_argument("--into", type=Path, help="private file that receives the test lines")


def _open_test(args: argparse.Namespace) -> int:
    from nerb_verify.producers.sealed import SealedAccessError, SealedTest

    if not (args.frozen_target and args.confirm_one_shot and args.into):
        sys.stderr.write("nerb-verify split --open-test needs --frozen-target, --confirm-one-shot and --into.\n")
        return 2
    split_root = args.private_root / "enron-split"
    sealed = SealedTest(split_root / args.run / "sealed", split_root / "lineage.jsonl")
    try:
        target = json.loads(args.frozen_target.read_text(encoding="utf-8"))
        sealed.bind_evidence(target)
        fd = os.open(args.into, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out, sealed.open_once() as lines:
            count = 0
            for line in lines:
                out.write(line)
                count += 1
    except SealedAccessError as exc:
        sys.stderr.write(f"nerb-verify split: sealed test access refused ({exc.code}).\n")
        return 1
    except (OSError, ValueError):
        sys.stderr.write("nerb-verify split: could not open the sealed test (unreadable target or output).\n")
        return 2
    from nerb_verify.producers.retention import record_after_run

    note = record_after_run(args.private_root)  # the access receipts, the lineage and the --into file if inside
    if note:
        sys.stderr.write(f"nerb-verify split: {note}\n")
    sys.stdout.write(f"sealed test opened once: {count} records written; state {sealed.state()}.\n")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.open_test:
        return _open_test(args)
    from nerb_verify.producers import public_sections
    from nerb_verify.producers.sealed import file_ref
    from nerb_verify.producers.splitting import SplitError
    from nerb_verify.producers.preparation import load_committed_manifest
    from nerb_verify.producers.splitting_run import discard, run_split

    from nerb_verify.producers.cluster import ClusterError, cluster_argument_problem

    cluster_problem = cluster_argument_problem(args)
    if cluster_problem:
        sys.stderr.write(f"nerb-verify split: {cluster_problem}; could not run.\n")
        return 2
    prep_dir = args.private_root / "enron-preparation" / args.prep_run
    if not (prep_dir / "COMMITTED").is_file():
        sys.stderr.write("nerb-verify split: no committed preparation run found; run `nerb-verify prepare` first.\n")
        return 2
    try:
        problem = public_sections.split_target_problem(args.public_out, load_committed_manifest(prep_dir))
    except (OSError, ValueError, KeyError, TypeError):
        problem = "the committed preparation manifest is unreadable"
    if problem:  # checked before anything is written: a split whose sections cannot be published is not frozen
        sys.stderr.write(f"nerb-verify split: {problem}.\n")
        return 2
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    try:
        result = run_split(prep_dir, args.private_root, run=args.run, seed=args.seed, mode=args.mode,
                           progress=progress, cluster=args.cluster, partitions=args.partitions)
    except SplitError as exc:
        sys.stderr.write(f"nerb-verify split: refused ({exc.code}).\n")
        return 1
    except ClusterError as exc:
        sys.stderr.write(f"nerb-verify split: cluster run refused ({exc.code}); the split was removed.\n")
        return 2
    sealed_dir = result.split_dir / "sealed"
    manifest_sha = file_ref(sealed_dir / "manifest.json", "x")["sha256"]
    test_sealed = (sealed_dir / "PAIR_COMMITTED.json").is_file() and not (
        result.split_dir / "development" / "test.jsonl").exists()
    sections = {"splits": public_sections.splits_section(result.manifest, manifest_sha, result.audit, test_sealed)}
    try:
        public_sections.merge_and_write(args.public_out, sections)
    except ValueError as exc:
        discard(result.created)  # withdrawn before anything was published or the test opened
        sys.stderr.write(f"nerb-verify split: public sections not publishable: {exc}; the split was removed.\n")
        return 1
    from nerb_verify.producers.retention import record_after_run

    note = record_after_run(args.private_root)
    if note:
        sys.stderr.write(f"nerb-verify split: {note}\n")
    roles = result.manifest["roles"]
    if args.format == "json":
        sys.stdout.write(json.dumps({"roles": {r: {"records": roles[r]["records"], "groups": roles[r]["groups"]}
                                               for r in roles}, "audit": result.audit,
                                     "floor_failures": result.floor_failures, "mode": args.mode},
                                    sort_keys=True) + "\n")
        return 0
    lines = ["", "Split summary", "-" * 56, f"{'role':<12}{'records':>12}{'groups':>12}{'novel ids':>10}{'future':>10}"]
    for role in ("train", "validation", "test"):
        cohorts = result.cohorts[role]
        lines.append(f"{role:<12}{roles[role]['records']:>12,}{roles[role]['groups']:>12,}"
                     f"{cohorts.get('identity:all_novel', 0):>10,}{cohorts.get('challenge:temporal_future', 0):>10,}")
    audit = result.audit
    lines.append(f"{'groups crossing roles':<34}{audit['crossing_groups']:>12}")
    for family, count in audit["edge_counts"].items():
        lines.append(f"{'unions: ' + family:<34}{count:>12,}")
    lines.append(f"{'largest group (records)':<34}{audit['largest_group_records']:>12,}")
    lines.append(f"{'mode':<34}{args.mode:>12}")
    if result.floor_failures:
        lines.append(f"production floors missed: {len(result.floor_failures)} (non-promotable fixture split)")
    lines.append(f"split run: {result.split_dir}")
    lines.append(f"public sections: {args.public_out}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
