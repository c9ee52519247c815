"""Source readers: JSONL rows in the corbt/enron-emails shape and raw RFC 5322 messages (maildir, mbox, .eml).

Every input unit (a JSONL line, a message file, an mbox message) yields exactly one :class:`SourceItem`: either a
validated nine-field row or a rejection with a closed, non-echoing reason code. Nothing is dropped silently, so
``input_records == accepted + rejected`` holds by construction. Every item carries a digest that feeds the
order-independent multiset commitment (:class:`MultisetCommitment`, spec 50 §1.2).

Readers stream: one line or one message is held at a time, each bounded by a byte limit; an oversized unit is
consumed in chunks (to hash it) and rejected.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.header import Header
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import getaddresses
from pathlib import Path
from typing import Any

FIELDS: tuple[str, ...] = ("message_id", "from", "to", "cc", "bcc", "subject", "date", "body", "file_name")
SCALAR_FIELDS = ("message_id", "from", "file_name", "subject", "body")
LIST_FIELDS = ("to", "cc", "bcc")
HEADER_SCALAR_LIMIT = 16_384
MAX_LINE_BYTES = 64 * 1024 * 1024
MAX_MESSAGE_BYTES = 8 * 1024 * 1024
CHUNK = 1 << 20

ROW_DOMAIN = "nerb/enron/source-record/v2"
INVALID_MAPPING_DOMAIN = "nerb/enron/invalid-source-mapping/v2"
INVALID_LINE_DOMAIN = "nerb/enron/invalid-source-line/v2"
INVALID_MESSAGE_DOMAIN = "nerb/enron/invalid-source-message/v2"
BLANK_LINE_DOMAIN = "nerb/enron/blank-line/v2"
NONOBJECT_MARKER = "nerb/enron/non-object-row/v2"


def domain_hash(domain: str, value: str | bytes) -> str:
    """D(d, v) = sha256(ASCII(d) + 0x00 + UTF-8(v)) as 64 lowercase hex (spec 50 §0)."""
    payload = value if isinstance(value, bytes) else value.encode("utf-8")
    return hashlib.sha256(domain.encode("ascii") + b"\x00" + payload).hexdigest()


def canonical_ascii(value: Any) -> str:
    """Canonical JSON with ``ensure_ascii=True`` (the source-row byte form)."""
    return json.dumps(value, ensure_ascii=True, sort_keys=True, separators=(",", ":"), allow_nan=False)


def canonical_text(value: Any) -> str:
    """Canonical JSON with raw UTF-8 (the object-hash form)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)


@dataclass
class SourceItem:
    """One input unit: a valid row (``row``) or a rejection (``reason``), with its multiset digest (64 hex)."""

    digest: str
    row: dict[str, Any] | None = None
    reason: str | None = None
    truncated_before_rejection: bool = False


@dataclass
class MultisetCommitment:
    """``sha256_sha512_additive_multiset_v1``: an order-independent commitment to the multiset of row digests."""

    count: int = 0
    acc: int = 0

    def add(self, digest_hex: str, count: int = 1) -> None:
        """Add one digest (64 hex, no prefix) ``count`` times."""
        leaf = hashlib.sha512(b"nerb/enron/source-row-multiset-leaf/v2\x00" + ("sha256:" + digest_hex).encode()).digest()
        self.acc = (self.acc + int.from_bytes(leaf, "big") * count) % (1 << 512)
        self.count += count

    def result(self) -> str:
        """The public ``content_sha256``."""
        payload = (self.count.to_bytes(16, "big") + self.acc.to_bytes(64, "big")).hex()
        return "sha256:" + domain_hash("nerb/enron/source-row-multiset/v2", payload)


# ---------------------------------------------------------------- row validation


def validate_row(obj: Any) -> SourceItem:
    """Validate one decoded row against the closed nine-field shape; missing fields count as null."""
    if not isinstance(obj, dict):
        return SourceItem(digest=domain_hash(NONOBJECT_MARKER, ""), reason="nonobject_row")
    reason = _row_problem(obj)
    if reason is not None:
        try:
            digest = domain_hash(INVALID_MAPPING_DOMAIN, canonical_ascii(obj))
        except (TypeError, ValueError):
            digest = domain_hash(INVALID_MAPPING_DOMAIN, repr(sorted(map(str, obj))))
        return SourceItem(digest=digest, reason=reason)
    row = {name: obj.get(name) for name in FIELDS}
    return SourceItem(digest=domain_hash(ROW_DOMAIN, canonical_ascii(row)), row=row)


def _unicode_ok(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _row_problem(obj: dict[Any, Any]) -> str | None:
    for key in obj:
        if not isinstance(key, str):
            return "nonstring_field_name"
    if any(key not in FIELDS for key in obj):
        return "unknown_source_fields"
    for name in SCALAR_FIELDS:
        value = obj.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            return f"invalid_{name}_type"
        if not _unicode_ok(value):
            return f"invalid_{name}_unicode"
        if name in ("message_id", "from", "file_name") and len(value) > HEADER_SCALAR_LIMIT:
            return f"oversized_{name}"
    for name in LIST_FIELDS:
        value = obj.get(name)
        if value is None:
            continue
        if not isinstance(value, list):
            return f"invalid_{name}_type"
        for item in value:
            if not isinstance(item, str):
                return f"invalid_{name}_item_type"
            if not _unicode_ok(item):
                return f"invalid_{name}_unicode"
            if len(item) > HEADER_SCALAR_LIMIT:
                return f"oversized_{name}_item"
    date = obj.get("date")
    if date is not None:
        if not isinstance(date, str):
            return "invalid_date_type"
        if not _unicode_ok(date):
            return "invalid_date_unicode"
        if len(date) > HEADER_SCALAR_LIMIT:
            return "oversized_date"
    return None


# ---------------------------------------------------------------- JSONL


class _DuplicateKey(ValueError):
    pass


class _NonFinite(ValueError):
    pass


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey
        result[key] = value
    return result


def _reject_constant(_: str) -> Any:
    raise _NonFinite


def parse_jsonl_line(raw: bytes) -> SourceItem:
    """Strictly parse one JSONL line (without its newline) into a :class:`SourceItem`."""
    if not raw.strip():
        return SourceItem(digest=domain_hash(BLANK_LINE_DOMAIN, ""), reason="blank_line")
    line_digest = domain_hash(INVALID_LINE_DOMAIN, raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return SourceItem(digest=line_digest, reason="invalid_utf8")
    try:
        obj = json.loads(text, object_pairs_hook=_pairs_hook, parse_constant=_reject_constant)
    except _DuplicateKey:
        return SourceItem(digest=line_digest, reason="duplicate_json_key")
    except _NonFinite:
        return SourceItem(digest=line_digest, reason="nonfinite_json_number")
    except (ValueError, RecursionError):
        return SourceItem(digest=line_digest, reason="malformed_json")
    if not isinstance(obj, dict):
        return SourceItem(digest=line_digest, reason="nonobject_json")
    return validate_row(obj)


def iter_jsonl(path: Path, max_line_bytes: int = MAX_LINE_BYTES, start: int = 0,
               end: int | None = None) -> Iterator[SourceItem]:
    """Stream a JSONL file: one item per line; an over-long line is hashed in chunks and rejected.

    ``start``/``end`` restrict the stream to the lines that *start* in ``[start, end)`` (``start`` must be a line
    start, see :func:`jsonl_line_starts`): a file cut at line starts streams, part by part, exactly its lines.
    """
    with open(path, "rb") as handle:
        handle.seek(start)
        while True:
            if end is not None and handle.tell() >= end:
                return
            line = handle.readline(max_line_bytes + 1)
            if not line:
                return
            if len(line) > max_line_bytes and not line.endswith(b"\n"):
                hasher = hashlib.sha256(INVALID_LINE_DOMAIN.encode("ascii") + b"\x00" + line)
                while True:
                    chunk = handle.readline(CHUNK)
                    if not chunk:
                        break
                    hasher.update(chunk.rstrip(b"\n") if chunk.endswith(b"\n") else chunk)
                    if chunk.endswith(b"\n"):
                        break
                yield SourceItem(digest=hasher.hexdigest(), reason="oversized_line", truncated_before_rejection=True)
                continue
            if line.endswith(b"\n"):
                line = line[:-1]
            if line.endswith(b"\r"):
                line = line[:-1]
            yield parse_jsonl_line(line)


# ---------------------------------------------------------------- RFC 5322 messages

_HEADER_BREAK = re.compile(rb"\r?\n\r?\n")
_MIME_HEADERS = ("Content-Type", "Content-Transfer-Encoding", "MIME-Version")
_KNOWN_HEADERS = ("from", "to", "date", "subject", "message-id", "cc", "content-type", "mime-version", "received")


def _header_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, Header):
        value = str(value)
    text = str(value)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogateescape")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
    return text.strip()


def message_to_row(data: bytes, file_name: str) -> SourceItem:
    """Convert one raw RFC 5322 message into a nine-field row (or a rejection).

    MIME messages keep their MIME headers in front of the body so the cleaning step performs the MIME walk on
    exactly the bytes that were sent; undecodable 8-bit bodies are carried as Latin-1 code points (a lossless
    byte-to-character map) and re-decoded by the declared charset during cleaning.
    """
    raw_digest = domain_hash(INVALID_MESSAGE_DOMAIN, data)
    if b"\x00" in data:
        return SourceItem(digest=raw_digest, reason="binary_message_content")
    match = _HEADER_BREAK.search(data)
    head, body = (data[: match.start()], data[match.end():]) if match else (data, b"")
    msg = BytesHeaderParser(policy=compat32).parsebytes(head + b"\n\n")
    names = {name.lower() for name in msg.keys()}
    if not names.intersection(_KNOWN_HEADERS):
        return SourceItem(digest=raw_digest, reason="malformed_message_headers")
    try:
        body_text = body.decode("utf-8")
    except UnicodeDecodeError:
        body_text = body.decode("latin-1")
    mime_lines = []
    for name in _MIME_HEADERS:
        value = msg.get(name)
        if value is not None:
            text = _header_text(value) or ""
            mime_lines.append(f"{name}: {' '.join(text.split())}")
    if mime_lines:
        if not any(line.startswith("Content-Type:") for line in mime_lines):
            mime_lines.insert(0, "Content-Type: text/plain")
        body_text = "\n".join(mime_lines) + "\n\n" + body_text

    def recipients(name: str) -> list[str] | None:
        values = msg.get_all(name)
        if not values:
            return None
        items = []
        for display, address in getaddresses([_header_text(v) or "" for v in values]):
            items.append(f"{display} <{address}>" if display else address)
        return items

    obj = {
        "message_id": _header_text(msg.get("Message-ID")),
        "from": _header_text(msg.get("From")),
        "to": recipients("To"),
        "cc": recipients("Cc"),
        "bcc": recipients("Bcc"),
        "subject": _header_text(msg.get("Subject")),
        "date": _header_text(msg.get("Date")),
        "body": body_text,
        "file_name": file_name,
    }
    return validate_row(obj)


def _read_bounded(path: Path, limit: int) -> tuple[bytes | None, str]:
    """Read a file up to ``limit`` bytes; on overflow return (None, streamed hex digest of the whole file)."""
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
        if len(data) <= limit:
            return data, ""
        hasher = hashlib.sha256(INVALID_MESSAGE_DOMAIN.encode("ascii") + b"\x00" + data)
        while chunk := handle.read(CHUNK):
            hasher.update(chunk)
        return None, hasher.hexdigest()


def _is_mbox(path: Path) -> bool:
    if path.suffix.lower() == ".mbox":
        return True
    with open(path, "rb") as handle:
        return handle.read(5) == b"From "


def iter_mbox(path: Path, label: str, limit: int = MAX_MESSAGE_BYTES) -> Iterator[SourceItem]:
    """Stream an mbox file (``From `` separated, ``>From`` unescaped); each message bounded by ``limit`` bytes."""
    index = 0
    buffer: list[bytes] = []
    size = 0
    overflow: hashlib._Hash | None = None  # type: ignore[name-defined]
    previous_blank = True

    def emit() -> SourceItem:
        name = f"{label}/{index:08d}"
        if overflow is not None:
            return SourceItem(digest=overflow.hexdigest(), reason="oversized_message", truncated_before_rejection=True)
        return message_to_row(b"".join(buffer), name)

    with open(path, "rb") as handle:
        started = False
        for line in handle:
            if line.startswith(b"From ") and previous_blank:
                if started:
                    yield emit()
                    index += 1
                started, buffer, size, overflow = True, [], 0, None
                previous_blank = False
                continue
            previous_blank = line.strip() == b""
            if not started:
                continue
            if line.startswith(b">From "):
                line = line[1:]
            if overflow is not None:
                overflow.update(line)
                continue
            size += len(line)
            if size > limit:
                overflow = hashlib.sha256(INVALID_MESSAGE_DOMAIN.encode("ascii") + b"\x00" + b"".join(buffer) + line)
                buffer = []
                continue
            buffer.append(line)
        if started:
            yield emit()


def jsonl_line_starts(path: Path, parts: int) -> list[int]:
    """Cut a JSONL file into at most ``parts`` byte ranges at line starts; returns the sorted cut offsets.

    The result starts with 0 and ends with the file size; ``[cuts[k], cuts[k+1])`` is part ``k``. A cut is the first
    line start at or after ``k * size / parts`` (a byte after a newline), so no line is split or repeated.
    """
    size = path.stat().st_size
    cuts = [0]
    with open(path, "rb") as handle:
        for k in range(1, max(1, parts)):
            target = max(cuts[-1], size * k // parts)
            if target == 0:
                continue
            handle.seek(target - 1)
            position = target - 1
            while True:
                chunk = handle.read(CHUNK)
                if not chunk:
                    position = size
                    break
                found = chunk.find(b"\n")
                if found >= 0:
                    position += found + 1
                    break
                position += len(chunk)
            if cuts[-1] < position < size:
                cuts.append(position)
    cuts.append(size)
    return cuts


def message_files(root: Path) -> Iterator[tuple[Path, str]]:
    """The message files under a maildir/mbox tree as ``(path, relative name)``, in the sorted order streamed.

    Hidden entries, symlinks and non-files are skipped; ``root`` itself when it is a file (an mbox or one .eml).
    """
    if root.is_file():
        yield root, root.name
        return
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            yield path, path.relative_to(root).as_posix()


def iter_message_files(root: Path, limit: int = MAX_MESSAGE_BYTES) -> Iterator[SourceItem]:
    """Stream every message under ``root`` (a maildir tree, an mbox file or one .eml file), in sorted path order."""
    for path, rel in message_files(root):
        yield from iter_one_file(path, rel, limit)


def iter_one_file(path: Path, rel: str, limit: int = MAX_MESSAGE_BYTES) -> Iterator[SourceItem]:
    """Stream the messages of one file (an mbox: each message; otherwise the file as one message), named ``rel``."""
    if _is_mbox(path):
        yield from iter_mbox(path, rel[:-5] if rel.lower().endswith(".mbox") else rel, limit)
        return
    data, digest = _read_bounded(path, limit)
    if data is None:
        yield SourceItem(digest=digest, reason="oversized_message", truncated_before_rejection=True)
        return
    yield message_to_row(data, rel)


def resolve_kind(path: Path, kind: str) -> str:
    """The input kind: ``jsonl`` or ``messages``; ``auto`` picks ``jsonl`` for a .jsonl/.ndjson file."""
    if kind == "auto":
        return "jsonl" if path.is_file() and path.suffix.lower() in (".jsonl", ".ndjson") else "messages"
    return kind


def iter_source(path: Path, kind: str) -> Iterator[SourceItem]:
    """Dispatch on the input kind: ``jsonl`` or ``messages`` (maildir/mbox/.eml); ``auto`` picks by suffix."""
    if resolve_kind(path, kind) == "jsonl":
        return iter_jsonl(path)
    return iter_message_files(path)


@dataclass
class SourceTally:
    """Counts kept while streaming: every unit is either accepted or rejected by one reason."""

    input_records: int = 0
    accepted: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    commitment: MultisetCommitment = field(default_factory=MultisetCommitment)

    def add(self, item: SourceItem) -> None:
        """Count one item and fold its digest into the commitment."""
        self.input_records += 1
        self.commitment.add(item.digest)
        if item.reason is None:
            self.accepted += 1
        else:
            self.rejected[item.reason] = self.rejected.get(item.reason, 0) + 1

    def reject_after_validation(self, reason: str) -> None:
        """Move one already-accepted row to the rejected side (a cleaning failure)."""
        self.accepted -= 1
        self.rejected[reason] = self.rejected.get(reason, 0) + 1


def parse_scan_line(number: int, line: bytes) -> tuple[str, bytes]:
    """One line of a scan-bank JSONL corpus: ``(document_id, text as UTF-8)``; the id defaults to the line number.
    A line that is not a ``{document_id, text}`` object raises ValueError (the caller refuses the document)."""
    obj = json.loads(line)
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
        raise ValueError("line is not a {document_id, text} object")
    return str(obj.get("document_id", number)), obj["text"].encode("utf-8")
