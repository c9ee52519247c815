"""The preparation run: stream a source, validate, deduplicate, clean, and write the private prepared artifacts.

Private layout (``<private_root>/enron-preparation/<run>/``, directories 0700, files 0600):
``prepared.jsonl`` (one canonical record per line, sorted by ``document_id``), ``rejections.jsonl`` (digest, reason,
occurrence count), ``profile.json`` (aggregate counts only), ``manifest.json`` (pretty JSON; binds the above by file
hash) and ``COMMITTED``. The public projection (``source`` + ``preparation``) is built from ``manifest.json`` by
:mod:`nerb_verify.producers.public_sections`.

Memory stays bounded by the number of *distinct* records (an index of offsets and digests), never by text: records are
written unsorted to a spool file as they are cleaned and then copied in ``document_id`` order.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nerb_verify.canonical import nerb_pretty_bytes, python_canonical_sha256
from nerb_verify.producers import cleaning
from nerb_verify.producers.progress import Progress
from nerb_verify.producers.sources import SourceItem, SourceTally, canonical_text, iter_source

PREPARED_LINE_LIMIT = 64 * 1024 * 1024
COMMITTED_MARKER = b"nerb-verify.enron.private-run.v1\n"
BATCH = 2048


def cleaning_policy() -> dict[str, Any]:
    """The cleaning policy descriptor; its canonical hash is the public ``cleaning_policy_sha256``."""
    return {
        "policy_version": cleaning.POLICY_VERSION,
        "limits": {"body_chars": cleaning.BODY_CHAR_LIMIT, "body_bytes": cleaning.BODY_BYTE_LIMIT,
                   "subject_chars": cleaning.SUBJECT_CHAR_LIMIT, "subject_bytes": cleaning.SUBJECT_BYTE_LIMIT,
                   "recipients_per_field": cleaning.RECIPIENT_LIMIT, "mime_parts": cleaning.MIME_MAX_PARTS,
                   "mime_depth": cleaning.MIME_MAX_DEPTH, "mime_boundary_chars": cleaning.MIME_BOUNDARY_CHARS,
                   "mime_header_lines": cleaning.MIME_HEADER_LINES, "mime_header_chars": cleaning.MIME_HEADER_CHARS,
                   "html_tags": cleaning.HTML_MAX_TAGS, "html_depth": cleaning.HTML_MAX_DEPTH},
        "charsets": sorted(cleaning.ALLOWED_CHARSETS),
        "default_charset": "ascii, falling back to utf-8 then cp1252 for 8-bit bytes",
        "transfer_encodings": ["7bit", "8bit", "binary", "quoted-printable", "base64"],
        "unicode": {"normalization": "NFC", "version": unicodedata.unidata_version},
        "segmentation": ["original_message_marker", "forward_marker", "separator_then_header_block",
                         "bare_reply_header_block", "on_wrote_line", "quote_prefix"],
        "core": ["signature_dash_line_last_16", "mobile_footer_last_30", "confidentiality_notice_last_30"],
        "views": {name: cleaning.VIEW_REGIONS[name] for name in cleaning.TEXT_VIEWS},
        "primary_view": cleaning.PRIMARY_VIEW,
        "date_window_utc": ["1990-01-01T00:00:00Z", "2011-01-01T00:00:00Z"],
        "error_codes": list(cleaning.CLEANING_CODES),
    }


def grouping_policy() -> dict[str, Any]:
    """The grouping-feature descriptor; its canonical hash is the public ``grouping_policy_sha256``."""
    return {
        "policy_version": "nerb-verify.enron-grouping.v1",
        "grouping_text": ["remove_invisible", "controls_to_space", "NFKC", "casefold", "collapse_whitespace"],
        "exact_views": list(cleaning.TEXT_VIEWS),
        "message_id": ["NFC", "strip", "strip_angle_brackets", "casefold", "remove_whitespace"],
        "thread_subject": "grouping_text without repeated leading re/fw/fwd prefixes",
        "participants": "address:<casefolded address> or name:<grouping name>, over from/to/cc/bcc",
        "references": {"sources": ["mime_header_block", "full_visible_body_header_lines"],
                       "limit": cleaning.EMBEDDED_ID_LIMIT},
        "simhash": {"bits": 64, "tokens": "\\w+", "shingle": 3, "keep_smallest": cleaning.SIMHASH_KEEP,
                    "views": ["current_body_core (or current_body when empty)", "full_visible_body"]},
    }


@dataclass
class PrepareResult:
    """What a preparation run produced (paths are private; counts are public-safe)."""

    run_dir: Path
    input_records: int
    output_records: int
    rejected: dict[str, int]
    content_sha256: str
    manifest: dict[str, Any]
    profile: dict[str, Any]
    elapsed_seconds: float = 0.0
    peak_rss_bytes: int = 0


@dataclass
class _Spool:
    index: dict[str, tuple[int, int]] = field(default_factory=dict)  # document_id -> (offset, length)
    occurrences: Counter = field(default_factory=Counter)  # source digest -> identical occurrences
    failed: dict[str, str] = field(default_factory=dict)  # source digest -> cleaning code


def _private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)
    return path


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _clean_task(args: tuple[dict[str, Any], str, str, str, str]) -> tuple[str, bytes | None, str | None]:
    row, digest, dataset_id, revision, policy_sha = args
    try:
        record = cleaning.clean_row(row, dataset_id, revision, digest, 1, policy_sha)
    except cleaning.CleaningError as exc:
        return digest, None, exc.code
    except (RecursionError, MemoryError):
        return digest, None, "mime_structure_limit"
    except Exception:  # noqa: BLE001 - a parser bug on hostile input must become a counted rejection, not a crash
        return digest, None, "unexpected"  # counted as cleaning_unexpected: visible, never folded into a real code
    line = canonical_text(record).encode("utf-8") + b"\n"
    if len(line) > PREPARED_LINE_LIMIT:
        return digest, None, "output_byte_limit"
    return digest, line, None


def _batches(items: Iterable[SourceItem], size: int) -> Iterator[list[SourceItem]]:
    batch: list[SourceItem] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def peak_rss_bytes() -> int:
    """This process's peak RSS (Linux ``ru_maxrss`` is KiB, macOS bytes); 0 where unavailable."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return 0
    value = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return value if sys.platform == "darwin" else value * 1024


def prepare(input_path: Path, private_root: Path, *, run: str = "run", input_kind: str = "auto",
            dataset_id: str = "local", revision: str = "", workers: int = 1, progress: bool = False,
            limit: int | None = None, dataset_split: str = "train") -> PrepareResult:
    """Run preparation end to end and commit the private run directory; returns counts and the manifest.

    ``dataset_id``, ``revision`` and ``dataset_split`` are the declared source identity; the manifest records them so
    that later steps (split, bank card) carry the same identity without asking for it again. The same run on a Dask
    cluster is :func:`nerb_verify.producers.cluster_prepare.prepare` (byte-identical artifacts).
    """
    run_dir = _private_dir(private_root / "enron-preparation" / run)
    for name in ("COMMITTED",):
        if (run_dir / name).exists():
            (run_dir / name).unlink()
    policy_sha = python_canonical_sha256(cleaning_policy())
    grouping_sha = python_canonical_sha256(grouping_policy())
    tally = SourceTally()
    spool = _Spool()
    rejections: Counter = Counter()  # (digest, reason, truncated) -> count
    meter = Progress("prepare", enabled=progress)
    spool_path = run_dir / "prepared.unsorted.tmp"
    pool = None
    if workers > 1:
        import multiprocessing

        pool = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn").Pool(workers)
    source: Iterable[SourceItem] = iter_source(input_path, input_kind)
    if limit is not None:
        source = (item for index, item in zip(range(limit), source))
    try:
        fd = os.open(spool_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as spool_file:
            offset = 0
            for batch in _batches(source, BATCH):
                tasks = []
                for item in batch:
                    tally.add(item)
                    if item.reason is not None:
                        rejections[(item.digest, item.reason, item.truncated_before_rejection)] += 1
                        continue
                    spool.occurrences[item.digest] += 1
                    if spool.occurrences[item.digest] == 1:
                        tasks.append((item.row, item.digest, dataset_id, revision, policy_sha))
                if pool is not None and len(tasks) > 64:
                    results = pool.map(_clean_task, tasks, chunksize=max(16, len(tasks) // (4 * workers)))
                else:
                    results = [_clean_task(task) for task in tasks]
                for digest, line, code in results:
                    if line is None:
                        spool.failed[digest] = code or "mime_structure"
                        continue
                    doc_id = _doc_id_of(line)
                    spool.index[doc_id] = (offset, len(line))
                    spool_file.write(line)
                    offset += len(line)
                meter.update(len(batch))
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    elapsed_clean = meter.finish()
    # cleaning failures: every occurrence of a failed row moves from accepted to rejected
    for digest, code in spool.failed.items():
        count = spool.occurrences.pop(digest)
        for _ in range(count):
            tally.reject_after_validation("cleaning_" + code)
        rejections[(digest, "cleaning_" + code, False)] += count
    result = _commit(run_dir, spool_path, spool, tally, rejections, dataset_id, revision, policy_sha, grouping_sha,
                     progress, dataset_split)
    result.elapsed_seconds = elapsed_clean
    return result


def _doc_id_of(line: bytes) -> str:
    start = line.index(b'"document_id":"') + len(b'"document_id":"')
    return line[start: line.index(b'"', start)].decode("ascii")


def _commit(run_dir: Path, spool_path: Path, spool: _Spool, tally: SourceTally, rejections: Counter, dataset_id: str,
            revision: str, policy_sha: str, grouping_sha: str, progress: bool,
            dataset_split: str = "train") -> PrepareResult:
    prepared_path = run_dir / "prepared.jsonl"
    file_hash = hashlib.sha256()
    view_hashes = {name: hashlib.sha256(f"nerb/enron/view/{name}/v2\x00".encode("ascii"))
                   for name in cleaning.TEXT_VIEWS}
    profile_counts: dict[str, Counter] = {"date_status": Counter(), "folder_role": Counter(),
                                          "transform_counts": Counter(), "flags": Counter()}
    total_bytes = 0
    meter = Progress("prepare: sort and hash", total=len(spool.index), enabled=progress)
    fd = os.open(prepared_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(spool_path, "rb") as spool_file, os.fdopen(fd, "wb") as out:
        for doc_id in sorted(spool.index):
            offset, length = spool.index[doc_id]
            spool_file.seek(offset)
            line = spool_file.read(length)
            record = json.loads(line)
            digest = record["source"]["source_record_sha256"][len("sha256:"):]
            occurrences = spool.occurrences.get(digest, 1)
            if occurrences != 1:
                record["source"]["identical_occurrence_count"] = occurrences
                line = canonical_text(record).encode("utf-8") + b"\n"
            out.write(line)
            file_hash.update(line)
            total_bytes += len(line)
            for name in cleaning.TEXT_VIEWS:
                view_hashes[name].update(canonical_text({"document_id": doc_id, "text": record["views"][name]})
                                         .encode("utf-8") + b"\n")
            _profile_record(record, profile_counts)
            meter.update()
    meter.finish()
    spool_path.unlink()
    rejection_lines = b"".join(
        canonical_text({"source_digest_sha256": "sha256:" + digest, "reason": reason, "occurrence_count": count,
                        "truncated_before_rejection": truncated}).encode("utf-8") + b"\n"
        for (digest, reason, truncated), count in sorted(rejections.items()))
    _write_private(run_dir / "rejections.jsonl", rejection_lines)
    output_records = len(spool.index)
    profile = {
        "schema_version": "nerb_verify.enron_preparation_profile.v1",
        "input_records": tally.input_records,
        "accepted_occurrences": tally.accepted,
        "output_records": output_records,
        "rejected": dict(sorted(tally.rejected.items())),
        "rejected_total": sum(tally.rejected.values()),
        "identical_duplicates_collapsed": tally.accepted - output_records,
        "date_status": dict(sorted(profile_counts["date_status"].items())),
        "folder_role": dict(sorted(profile_counts["folder_role"].items())),
        "transform_counts": dict(sorted(profile_counts["transform_counts"].items())),
        "flags": dict(sorted(profile_counts["flags"].items())),
        "runtime": {"python": platform.python_version(), "unicode": unicodedata.unidata_version},
    }
    profile_bytes = nerb_pretty_bytes(profile)
    _write_private(run_dir / "profile.json", profile_bytes)
    manifest = {
        "schema_version": "nerb_verify.enron_preparation_manifest.v1",
        "dataset_id": dataset_id,
        "revision": revision,
        "dataset_split": dataset_split,
        "source": {"input_records": tally.input_records, "content_sha256": tally.commitment.result(),
                   "rejected": dict(sorted(tally.rejected.items()))},
        "cleaning_policy_sha256": policy_sha,
        "grouping_policy_sha256": grouping_sha,
        "output_records": output_records,
        "prepared_artifact": {"id": "prepared_records", "sha256": "sha256:" + file_hash.hexdigest(),
                              "bytes": total_bytes},
        "rejections_sha256": "sha256:" + hashlib.sha256(rejection_lines).hexdigest(),
        "profile_sha256": "sha256:" + hashlib.sha256(profile_bytes).hexdigest(),
        "text_views": [{"id": name, "artifact_sha256": "sha256:" + view_hashes[name].hexdigest(),
                        "content_policy_sha256": policy_sha, "document_regions": cleaning.VIEW_REGIONS[name],
                        "primary_for_quality": name == cleaning.PRIMARY_VIEW,
                        "answer_bearing_fields_included": False} for name in cleaning.TEXT_VIEWS],
    }
    _write_private(run_dir / "manifest.json", nerb_pretty_bytes(manifest))
    _write_private(run_dir / "COMMITTED", COMMITTED_MARKER)
    return PrepareResult(run_dir=run_dir, input_records=tally.input_records, output_records=output_records,
                         rejected=dict(sorted(tally.rejected.items())), content_sha256=tally.commitment.result(),
                         manifest=manifest, profile=profile, peak_rss_bytes=peak_rss_bytes())


def _profile_record(record: dict[str, Any], counts: dict[str, Counter]) -> None:
    counts["date_status"][record["date"]["status"]] += 1
    counts["folder_role"][record["source"]["mailbox_folder_role"]] += 1
    for key, value in record["cleaning"]["transform_counts"].items():
        counts["transform_counts"][key] += value
    for flag in ("body_truncated", "subject_truncated"):
        if record["cleaning"][flag]:
            counts["flags"][flag] += 1
    if not cleaning.primary_view_is_answer_free(record):
        counts["flags"]["primary_view_not_answer_free"] += 1
    primary = record["views"][cleaning.PRIMARY_VIEW].casefold()
    if any(address in primary for address in cleaning.header_addresses(record)):
        counts["flags"]["primary_view_mentions_own_header_address"] += 1
    if not record["views"][cleaning.PRIMARY_VIEW]:
        counts["flags"]["primary_view_empty"] += 1


def load_committed_manifest(run_dir: Path) -> dict[str, Any]:
    """The preparation manifest of a committed run (raises ValueError if the run is not committed)."""
    if (run_dir / "COMMITTED").read_bytes() != COMMITTED_MARKER:
        raise ValueError("preparation run is not committed")
    return json.loads((run_dir / "manifest.json").read_bytes())
