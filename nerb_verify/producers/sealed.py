"""The sealed test bundle and its one-shot access, recorded in an append-only, hash-chained lineage file.

Access is a state machine ``sealed_unbound -> evidence_bound -> claimed -> completed | failed | aborted``, kept in
marker files created with ``O_EXCL`` (``EVIDENCE_BOUND.json``, ``ACCESS_CLAIMED.json``, ``ACCESS_OUTCOME.json``).
The claim is written and fsynced, and its lineage entry appended, *before* the first test byte is read. There is no
retry: a second claim fails, and an aborted or failed access still counts as the one access.

Development readers (:func:`read_development_role`) refuse the test role outright.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from nerb_verify.canonical import nerb_pretty_bytes, python_canonical_sha256

LINEAGE_SCHEMA = "nerb_verify.enron_test_lineage_entry.v1"
STATES = ("sealed_unbound", "evidence_bound", "claimed", "completed", "failed", "aborted")
FROZEN_TARGET_FIELDS = ("frozen_at", "audit_plan_sha256", "bank_hash", "evaluator_source_sha256",
                        "split_manifest_sha256", "test_artifact_sha256", "thresholds_sha256",
                        "performance_manifest_sha256", "git_commit")


class SealedAccessError(Exception):
    """Refused access to sealed test content; ``code`` is a stable reason."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _create_exclusive(path: Path, data: bytes) -> None:
    """Create ``path`` only if absent, write, fsync file and directory (the durable, unrepeatable step)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise SealedAccessError("already_" + path.stem.lower()) from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def file_ref(path: Path, artifact_id: str) -> dict[str, Any]:
    """``{id, sha256, bytes}`` of a file, hashed in chunks."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return {"id": artifact_id, "sha256": "sha256:" + digest.hexdigest(), "bytes": size}


class Lineage:
    """An append-only JSONL file; each entry binds the previous entry's hash, so edits and deletions show."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def entries(self) -> list[dict[str, Any]]:
        """All entries, after checking the chain (raises :class:`SealedAccessError` on any break)."""
        if not self.path.exists():
            return []
        entries = []
        previous = None
        for number, line in enumerate(self.path.read_bytes().splitlines()):
            entry = json.loads(line)
            body = {k: v for k, v in entry.items() if k != "entry_sha256"}
            if entry.get("sequence") != number or entry.get("previous_entry_sha256") != previous \
                    or python_canonical_sha256(body) != entry.get("entry_sha256"):
                raise SealedAccessError("lineage_chain_broken")
            previous = entry["entry_sha256"]
            entries.append(entry)
        return entries

    def append(self, event: str, details: dict[str, Any]) -> dict[str, Any]:
        """Append one entry (O_APPEND + fsync) and return it."""
        existing = self.entries()
        body = {"schema_version": LINEAGE_SCHEMA, "sequence": len(existing), "event": event, "at": _now(),
                "previous_entry_sha256": existing[-1]["entry_sha256"] if existing else None, **details}
        entry = {**body, "entry_sha256": python_canonical_sha256(body)}
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "ab") as handle:
            handle.write(json.dumps(entry, sort_keys=True, ensure_ascii=False).encode("utf-8") + b"\n")
            handle.flush()
            os.fsync(handle.fileno())
        return entry


class SealedTest:
    """One sealed test bundle (``sealed_dir``) and the lineage file its accesses are recorded in."""

    def __init__(self, sealed_dir: Path, lineage_path: Path) -> None:
        self.dir = sealed_dir
        self.lineage = Lineage(lineage_path)

    def _manifest(self) -> dict[str, Any]:
        return json.loads((self.dir / "manifest.json").read_bytes())

    def state(self) -> str:
        """The current access state, read from the marker files."""
        if (self.dir / "ACCESS_OUTCOME.json").exists():
            return json.loads((self.dir / "ACCESS_OUTCOME.json").read_bytes())["status"]
        if (self.dir / "ACCESS_CLAIMED.json").exists():
            return "claimed"
        if (self.dir / "EVIDENCE_BOUND.json").exists():
            return "evidence_bound"
        return "sealed_unbound"

    def _check_sealed(self) -> dict[str, Any]:
        if not (self.dir / "PAIR_COMMITTED.json").exists():
            raise SealedAccessError("bundle_not_committed")
        manifest = self._manifest()
        test_ref = file_ref(self.dir / "test.jsonl", "test")
        if test_ref != manifest["roles"]["test"]["artifact"]:
            raise SealedAccessError("test_artifact_changed")
        return manifest

    def bind_evidence(self, frozen_target: dict[str, Any]) -> dict[str, Any]:
        """Bind the frozen release target (bank, evaluator, thresholds, ... hashes) before any access."""
        manifest = self._check_sealed()
        missing = [name for name in FROZEN_TARGET_FIELDS if not frozen_target.get(name)]
        if missing:
            raise SealedAccessError("frozen_target_incomplete")
        split_manifest_sha = file_ref(self.dir / "manifest.json", "split_manifest")["sha256"]
        if frozen_target["test_artifact_sha256"] != manifest["roles"]["test"]["artifact"]["sha256"] or \
                frozen_target["split_manifest_sha256"] != split_manifest_sha:
            raise SealedAccessError("frozen_target_mismatch")
        if self.state() != "sealed_unbound":
            raise SealedAccessError("already_bound")
        for entry in self.lineage.entries():
            if entry.get("test_artifact_sha256") == frozen_target["test_artifact_sha256"] and \
                    entry.get("event") == "evidence_bound":
                raise SealedAccessError("test_artifact_reused")
        record = {"frozen_target": {name: frozen_target[name] for name in FROZEN_TARGET_FIELDS},
                  "frozen_target_sha256": python_canonical_sha256(
                      {name: frozen_target[name] for name in FROZEN_TARGET_FIELDS})}
        _create_exclusive(self.dir / "EVIDENCE_BOUND.json", nerb_pretty_bytes(record))
        return self.lineage.append("evidence_bound", {"test_artifact_sha256": frozen_target["test_artifact_sha256"],
                                                      "frozen_target_sha256": record["frozen_target_sha256"]})

    def claim(self) -> dict[str, Any]:
        """The one-shot act: durable claim + lineage entry, before any test byte is read."""
        manifest = self._check_sealed()
        if self.state() != "evidence_bound":
            raise SealedAccessError("not_evidence_bound" if self.state() == "sealed_unbound" else "already_claimed")
        bound = json.loads((self.dir / "EVIDENCE_BOUND.json").read_bytes())
        details = {"test_artifact_sha256": manifest["roles"]["test"]["artifact"]["sha256"],
                   "frozen_target_sha256": bound["frozen_target_sha256"]}
        _create_exclusive(self.dir / "ACCESS_CLAIMED.json", nerb_pretty_bytes({**details, "claimed_at": _now()}))
        return self.lineage.append("claimed", details)

    def record_outcome(self, status: str, aggregate: dict[str, Any] | None = None) -> dict[str, Any]:
        """Record ``completed``, ``failed`` or ``aborted`` with a privacy-safe aggregate; only once."""
        if status not in ("completed", "failed", "aborted"):
            raise SealedAccessError("invalid_outcome")
        if self.state() != "claimed":
            raise SealedAccessError("not_claimed")
        details = {"status": status, "aggregate": aggregate or {}}
        _create_exclusive(self.dir / "ACCESS_OUTCOME.json", nerb_pretty_bytes({**details, "recorded_at": _now()}))
        return self.lineage.append(status, details)

    @contextmanager
    def open_once(self) -> Iterator[Iterator[bytes]]:
        """Claim, then yield the test lines; the outcome is ``completed`` on normal exit, ``aborted`` otherwise."""
        self.claim()
        handle = open(self.dir / "test.jsonl", "rb")
        lines = 0

        def reader() -> Iterator[bytes]:
            nonlocal lines
            for line in handle:
                lines += 1
                yield line

        try:
            yield reader()
        except BaseException:
            handle.close()
            self.record_outcome("aborted", {"lines_read": lines})
            raise
        handle.close()
        self.record_outcome("completed", {"lines_read": lines})


def read_development_role(development_dir: Path, role: str) -> Iterator[bytes]:
    """Stream a development role file; the test role is never readable from here."""
    if role not in ("train", "validation"):
        raise SealedAccessError("role_not_in_development_bundle")
    with open(development_dir / f"{role}.jsonl", "rb") as handle:
        yield from handle
