"""`nerb-verify prepare`: stream an authorized email corpus into cleaned, identified, grouped private records.

Writes the private run under ``<private-root>/enron-preparation/<run>/`` and the public ``source`` and
``preparation`` manifest sections to ``--public-out``. Malformed rows and messages are counted by reason, never
fatal (exit 0); exit 1 when the public sections fail their own checks; exit 2 when the input cannot be read.
Output holds counts and codes only, never input text. ``--cluster ADDR|local:N`` runs the per-record stages on Dask
with byte-identical artifacts (docs/producers.md "On a Dask cluster"); a cluster run that cannot complete is exit 2
with nothing committed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

DEFAULT_PUBLIC = "nerb-public/manifest-sections.json"
SPLIT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", type=Path, help="a JSONL file (corbt/enron-emails rows), a maildir tree, an mbox "
                                                 "file or one .eml file")
    parser.add_argument("--input-kind", choices=["auto", "jsonl", "messages"], default="auto")
    parser.add_argument("--private-root", type=Path, default=Path(".nerb"), help="private root (git-ignored)")
    parser.add_argument("--run", default="run", help="name of the preparation run under the private root")
    parser.add_argument("--source-id", default="local-corpus", help="public source id (no at-sign, no paths)")
    parser.add_argument("--revision", default=None,
                        help="immutable 40/64-hex source revision; default: the content commitment")
    parser.add_argument("--source-split", default="train",
                        help="the source dataset's split this corpus is (default train: a corpus read whole, like "
                             "corbt/enron-emails' only split); recorded for the bank card")
    parser.add_argument("--owner", default="authorized-owner")
    parser.add_argument("--access", default="private_authorized")
    parser.add_argument("--public-out", type=Path, default=Path(DEFAULT_PUBLIC))
    parser.add_argument("--workers", type=int, default=1, help="cleaning processes (default 1)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress on stderr (default: when stderr is a terminal)")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    from nerb_verify.producers.cluster import add_cluster_arguments

    add_cluster_arguments(parser)
    parser.add_argument("--retention-purpose", default="nerb_benchmark_evaluation",
                        help="purpose recorded for every private artifact (retention record, docs/producers.md)")
    parser.add_argument("--retention-days", type=int, default=180,
                        help="days private artifacts are kept before `nerb-verify retention purge` deletes them")
    parser.add_argument("--audit-retention-days", type=int, default=730,
                        help="days the sealed-access lineage, access receipts and audit files are kept")
    parser.add_argument("--retention-encryption", choices=["none", "aes_256_gcm_stream_v1"], default="none",
                        help="declare encryption at rest (`nerb-verify retention encrypt` applies it; status reports "
                             "plaintext artifacts against it)")


def summary_lines(result, sections) -> list[str]:  # type: ignore[no-untyped-def]
    """The end-of-run table: counts only."""
    accepted = result.profile["accepted_occurrences"]
    lines = ["", "Preparation summary", "-" * 52,
             f"{'input records':<40}{result.input_records:>12,}",
             f"{'prepared occurrences':<40}{accepted:>12,}",
             f"{'  distinct prepared records':<40}{result.output_records:>12,}",
             f"{'  identical duplicates collapsed':<40}{result.profile['identical_duplicates_collapsed']:>12,}",
             f"{'rejected':<40}{result.profile['rejected_total']:>12,}"]
    for reason, count in result.rejected.items():
        lines.append(f"{'  ' + reason:<40}{count:>12,}")
    balance = "ok" if accepted + result.profile["rejected_total"] == result.input_records else "MISMATCH"
    lines.append(f"{'input = prepared + rejected':<40}{balance:>12}")
    for name, count in result.profile["date_status"].items():
        lines.append(f"{'date ' + name:<40}{count:>12,}")
    for name, count in result.profile["flags"].items():
        lines.append(f"{name:<40}{count:>12,}")
    if result.elapsed_seconds:
        lines.append(f"{'records/s (streaming + cleaning)':<40}{result.input_records / result.elapsed_seconds:>12,.0f}")
    lines.append(f"{'content commitment':<40}{sections['source']['content_sha256'][:19]}...")
    return lines


def run(args: argparse.Namespace) -> int:
    from nerb_verify.producers import public_sections
    from nerb_verify.producers.cluster_prepare import prepare  # the single-process path unless --cluster

    if not args.input.exists():
        sys.stderr.write("nerb-verify prepare: input not found; could not run.\n")
        return 2
    if args.revision is not None and not public_sections.REVISION.match(args.revision):
        sys.stderr.write("nerb-verify prepare: --revision must be 40 or 64 lowercase hex digits.\n")
        return 2
    if not SPLIT_NAME.match(args.source_split):
        sys.stderr.write("nerb-verify prepare: --source-split must be 1-64 letters, digits, '_', '.' or '-'.\n")
        return 2
    from nerb_verify.producers.cluster import ClusterError, cluster_argument_problem

    problem = cluster_argument_problem(args)
    if problem:
        sys.stderr.write(f"nerb-verify prepare: {problem}; could not run.\n")
        return 2
    from nerb_verify.producers import retention

    policy = retention.RetentionPolicy(owner=args.owner, purpose=args.retention_purpose,
                                       retention_days=args.retention_days,
                                       audit_retention_days=args.audit_retention_days,
                                       encryption_at_rest=args.retention_encryption)
    problem = "; ".join(policy.problems()) or retention.policy_conflict(args.private_root, policy)
    if problem:  # checked before anything is written
        sys.stderr.write(f"nerb-verify prepare: {problem}; could not run.\n")
        return 2
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    try:
        result = prepare(args.input, args.private_root, run=args.run, input_kind=args.input_kind,
                         dataset_id=args.source_id, revision=args.revision or "", workers=max(1, args.workers),
                         progress=progress, dataset_split=args.source_split, cluster=args.cluster,
                         partitions=args.partitions)
    except ClusterError as exc:
        sys.stderr.write(f"nerb-verify prepare: cluster run refused ({exc.code}); nothing was committed.\n")
        return 2
    revision = public_sections.public_revision(result.manifest)
    sections = {
        "source": public_sections.source_section(result.manifest, source_id=args.source_id, revision=revision,
                                                 owner=args.owner, access=args.access),
        "preparation": public_sections.preparation_section(result.manifest),
    }
    try:
        public_sections.merge_and_write(args.public_out, sections, drop=("splits",))
    except ValueError as exc:
        sys.stderr.write(f"nerb-verify prepare: public sections not publishable: {exc}\n")
        return 1
    note = retention.record_after_run(args.private_root, policy)
    if note:
        sys.stderr.write(f"nerb-verify prepare: {note}\n")
        return 1
    if args.format == "json":
        sys.stdout.write(json.dumps({"input_records": result.input_records, "output_records": result.output_records,
                                     "accepted_occurrences": result.profile["accepted_occurrences"],
                                     "rejected": result.rejected, "public_out": str(args.public_out)},
                                    sort_keys=True) + "\n")
    else:
        sys.stdout.write("\n".join(summary_lines(result, sections)) + "\n")
        sys.stdout.write(f"private run: {result.run_dir}\npublic sections: {args.public_out}\n")
    return 0
