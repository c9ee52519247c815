"""Retention records for everything under a private root (charter "Artifact Retention And Ethics").

The charter asks that raw text, cleaned records, annotations, splits, banks, match records and audit material stay
under the private root (``.nerb/`` by default) with an owner, a purpose, a creation time, a retention deadline and a
deletion outcome recorded for each, and that benchmark copies never inherit indefinite retention. This module keeps
that record:

* :class:`RetentionPolicy` (owner, purpose, two retention periods, the at-rest encryption declared) is written once,
  by the first producer that runs on a root (``prepare`` or the demo); its canonical hash is the policy's identity
  (the public side carries only that hash, never a private path).
* ``RETENTION.json`` at the root holds the policy and one entry per artifact (bundle-relative path under the root,
  owner, purpose, area, class, created_at, retain_until, size and sha256 when registered, encrypted flag, deletion
  outcome). :func:`register_tree` adds every regular file under the root that has no live entry yet, so nothing a
  producer writes escapes the record; the producers call it when they finish.
* :func:`status` compares the record with the tree (``retained``, ``due``, ``deleted``, ``missing`` for a recorded
  file gone without a deletion outcome, ``unrecorded`` for a file the record does not know); :func:`purge` deletes
  every artifact whose deadline has passed and records the outcome (``deleted``, ``already_absent`` or ``failed`` with
  the OS error's name), then removes the folders it emptied. The record itself is never purged: it is the proof.

Audit-class artifacts (the sealed-test lineage and access receipts, the audit stage files) get the policy's longer
``audit_retention_days``: deleting them early would forget that the one sealed access happened. Optional encryption
at rest is in :mod:`nerb_verify.producers.retention_crypto`. Nothing here prints file contents; errors name our own
fields only.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from nerb_verify.canonical import python_canonical_sha256

RECORD_NAME = "RETENTION.json"
POLICY_SCHEMA = "nerb_verify.retention_policy.v1"
RECORD_SCHEMA = "nerb_verify.retention_record.v1"
DEFAULT_PURPOSE = "nerb_benchmark_evaluation"
DEFAULT_RETENTION_DAYS = 180
DEFAULT_AUDIT_RETENTION_DAYS = 730
MAX_RETENTION_DAYS = 3650
ENCRYPTION_MODES = ("none", "aes_256_gcm_stream_v1")
AUDIT_FILE_NAMES = frozenset({"lineage.jsonl", "ACCESS_CLAIMED.json", "ACCESS_OUTCOME.json"})
AUDIT_AREAS = frozenset({"audit"})
TEMPORARY_SUFFIXES = (".tmp", ".partial")
# Appended to by the sealed-test guard, so never encrypted at rest (hashes and times only, no text).
PLAINTEXT_ONLY = frozenset({"lineage.jsonl"})


class RetentionError(Exception):
    """A retention record could not be read, written or applied; the text is our own sentence, never a value."""


@dataclass(frozen=True)
class RetentionPolicy:
    """Who keeps the private artifacts, why, for how long, and whether they are encrypted at rest."""

    owner: str
    purpose: str = DEFAULT_PURPOSE
    retention_days: int = DEFAULT_RETENTION_DAYS
    audit_retention_days: int = DEFAULT_AUDIT_RETENTION_DAYS
    encryption_at_rest: str = "none"

    def problems(self) -> list[str]:
        """Our own sentences for every field out of bounds (empty when the policy is usable)."""
        out = []
        for name in ("owner", "purpose"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip() or len(value) > 200:
                out.append(f"retention {name} must be a non-empty string of at most 200 characters")
        for name in ("retention_days", "audit_retention_days"):
            value = getattr(self, name)
            if type(value) is not int or not 1 <= value <= MAX_RETENTION_DAYS:
                out.append(f"{name} must be a whole number of days between 1 and {MAX_RETENTION_DAYS}")
        if self.encryption_at_rest not in ENCRYPTION_MODES:
            out.append("encryption_at_rest must be none or aes_256_gcm_stream_v1")
        return out

    def to_json(self) -> dict[str, Any]:
        return {"schema_version": POLICY_SCHEMA, **asdict(self)}

    @property
    def sha256(self) -> str:
        """The policy's identity: the canonical hash of :meth:`to_json` (what the public side may carry)."""
        return python_canonical_sha256(self.to_json())

    @classmethod
    def from_json(cls, data: Any) -> RetentionPolicy:
        fields = ("owner", "purpose", "retention_days", "audit_retention_days", "encryption_at_rest")
        if not isinstance(data, dict) or data.get("schema_version") != POLICY_SCHEMA \
                or set(data) != {"schema_version", *fields}:
            raise RetentionError("the retention policy is not a nerb_verify.retention_policy.v1 object")
        policy = cls(**{name: data[name] for name in fields})
        if policy.problems():
            raise RetentionError("the retention policy is out of bounds: " + "; ".join(policy.problems()))
        return policy


def _utc(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> datetime:
    """A timezone-aware ISO 8601 time (``Z`` accepted); a naive or unparseable time is refused."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError):
        raise RetentionError("a time must be ISO 8601 with a timezone, e.g. 2026-01-31T00:00:00Z") from None
    if moment.tzinfo is None:
        raise RetentionError("a time must carry a timezone")
    return moment


def record_path(root: Path) -> Path:
    return root / RECORD_NAME


def load_record(root: Path) -> dict[str, Any] | None:
    """The retention record of ``root`` (None when there is none yet); a malformed record is refused, not repaired."""
    path = record_path(root)
    if path.is_symlink():
        raise RetentionError("the retention record is a symbolic link")
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        raise RetentionError("the retention record cannot be read as JSON") from None
    if not isinstance(data, dict) or data.get("schema_version") != RECORD_SCHEMA \
            or not isinstance(data.get("artifacts"), list):
        raise RetentionError("the retention record is not a nerb_verify.retention_record.v1 object")
    policy = RetentionPolicy.from_json(data.get("policy"))
    if data.get("policy_sha256") != policy.sha256:
        raise RetentionError("the retention record's policy hash does not match its policy")
    return data


def _write_record(root: Path, record: dict[str, Any]) -> None:
    """Atomic replace (write a 0600 temporary, fsync, rename) so a crash leaves the old or the new record."""
    path = record_path(root)
    temporary = root / (RECORD_NAME + ".tmp")
    raw = (json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(raw)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def artifact_class(relative: str) -> str:
    """``audit`` for the sealed-access lineage, access receipts and audit stage files; ``data`` for the rest."""
    parts = relative.split("/")
    if parts[-1] in AUDIT_FILE_NAMES or parts[0] in AUDIT_AREAS:
        return "audit"
    return "data"


def _tree_files(root: Path) -> dict[str, os.stat_result]:
    """Every regular file under ``root`` (relative POSIX path -> lstat), symlinks not followed, the record excluded."""
    found: dict[str, os.stat_result] = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if relative in (RECORD_NAME, RECORD_NAME + ".tmp") or name.endswith(TEMPORARY_SUFFIXES):
                continue
            info = path.lstat()
            if stat.S_ISREG(info.st_mode):
                found[relative] = info
    return found


def _sha256_file(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def _live(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Entries without a deletion outcome, by path (the last one wins; a path is re-registered after a deletion)."""
    return {e["path"]: e for e in record["artifacts"] if isinstance(e, dict) and e.get("deletion") is None}


def register_tree(root: Path, policy: RetentionPolicy | None = None, *, now: datetime | None = None) -> dict[str, Any]:
    """Record every regular file under ``root`` that has no live entry; create the record with ``policy`` if new.

    A root without a record needs a policy (fail closed: nothing is kept without an owner and a deadline). A root
    whose record holds a *different* policy is refused: a later producer cannot silently change who owns the data or
    extend its deadline. ``created_at`` is the file's modification time at registration (the closest to its creation
    a portable file system keeps), and the deadline counts from it. Returns the record.
    """
    if not root.is_dir():
        raise RetentionError("the private root is not a folder")
    record = load_record(root)
    if record is None:
        if policy is None:
            raise RetentionError("the private root has no retention record and no retention policy was given")
        if policy.problems():
            raise RetentionError("; ".join(policy.problems()))
        record = {"schema_version": RECORD_SCHEMA, "policy": policy.to_json(), "policy_sha256": policy.sha256,
                  "artifacts": []}
    elif policy is not None and policy.sha256 != record["policy_sha256"]:
        raise RetentionError("the private root already records a different retention policy")
    active = RetentionPolicy.from_json(record["policy"])
    live = _live(record)
    registered_at = now or datetime.now(timezone.utc)
    for relative, info in _tree_files(root).items():
        if relative in live:
            continue
        created = min(datetime.fromtimestamp(int(info.st_mtime), timezone.utc), registered_at)
        klass = artifact_class(relative)
        days = active.audit_retention_days if klass == "audit" else active.retention_days
        record["artifacts"].append({
            "path": relative, "owner": active.owner, "purpose": active.purpose, "area": relative.split("/")[0],
            "class": klass, "created_at": _utc(created), "registered_at": _utc(registered_at),
            "retain_until": _utc(created + timedelta(days=days)), "bytes": info.st_size,
            "sha256_at_registration": _sha256_file(root / relative), "encrypted": False, "deletion": None})
    _write_record(root, record)
    return record


@dataclass
class ArtifactState:
    """One line of a status report: a recorded artifact's state, or a file the record does not know."""

    path: str
    state: str  # retained | due | deleted | missing | unrecorded | unencrypted
    retain_until: str | None
    klass: str | None


@dataclass
class StatusReport:
    policy_sha256: str
    owner: str
    purpose: str
    states: list[ArtifactState]

    def counts(self) -> dict[str, int]:
        out = {name: 0 for name in ("retained", "due", "deleted", "missing", "unrecorded", "unencrypted")}
        for item in self.states:
            out[item.state] += 1
        return out

    @property
    def in_order(self) -> bool:
        """Nothing due, missing, unrecorded or left unencrypted against the policy: record, tree and deadlines agree."""
        counts = self.counts()
        return counts["due"] == counts["missing"] == counts["unrecorded"] == counts["unencrypted"] == 0


def status(root: Path, *, now: datetime | None = None) -> StatusReport:
    """Compare the record of ``root`` with its tree at ``now`` (see module docstring for the states)."""
    record = load_record(root)
    if record is None:
        raise RetentionError("the private root has no retention record")
    moment = now or datetime.now(timezone.utc)
    present = _tree_files(root)
    encrypt = record["policy"]["encryption_at_rest"] != "none"
    states: list[ArtifactState] = []
    live = _live(record)
    for entry in record["artifacts"]:
        if entry.get("deletion") is not None:
            states.append(ArtifactState(entry["path"], "deleted", entry["retain_until"], entry.get("class")))
            continue
        if live.get(entry["path"]) is not entry:
            continue
        if entry["path"] not in present:
            state = "missing"
        elif parse_time(entry["retain_until"]) <= moment:
            state = "due"
        elif encrypt and not entry.get("encrypted") and entry["path"].split("/")[-1] not in PLAINTEXT_ONLY:
            state = "unencrypted"  # the policy declares encryption at rest and this artifact is still plaintext
        else:
            state = "retained"
        states.append(ArtifactState(entry["path"], state, entry["retain_until"], entry.get("class")))
    for relative in sorted(set(present) - set(live)):
        states.append(ArtifactState(relative, "unrecorded", None, None))
    policy = record["policy"]
    return StatusReport(record["policy_sha256"], policy["owner"], policy["purpose"], states)


@dataclass
class PurgeReport:
    outcomes: dict[str, str]  # path -> deleted | already_absent | failed:<errno name>

    @property
    def failed(self) -> list[str]:
        return sorted(path for path, outcome in self.outcomes.items() if outcome.startswith("failed"))


def purge(root: Path, *, now: datetime | None = None, dry_run: bool = False) -> PurgeReport:
    """Delete every live artifact whose ``retain_until`` is at or before ``now``; record each outcome.

    A failed deletion is recorded as ``failed:<errno name>`` and the entry stays live (so the next purge tries again
    and ``status`` keeps reporting it due). Folders left empty are removed (never the root). ``dry_run`` reports what
    would be deleted and changes nothing.
    """
    import errno

    record = load_record(root)
    if record is None:
        raise RetentionError("the private root has no retention record")
    moment = now or datetime.now(timezone.utc)
    outcomes: dict[str, str] = {}
    emptied: set[Path] = set()
    for entry in _live(record).values():
        if parse_time(entry["retain_until"]) > moment:
            continue
        path = root / entry["path"]
        if dry_run:
            outcomes[entry["path"]] = "would_delete" if path.exists() else "already_absent"
            continue
        try:
            if not path.is_symlink() and not path.exists():
                outcome = "already_absent"
            else:
                path.unlink()
                outcome = "deleted"
            emptied.add(path.parent)
        except OSError as exc:
            outcome = "failed:" + errno.errorcode.get(exc.errno or 0, "unknown")
        outcomes[entry["path"]] = outcome
        if not outcome.startswith("failed"):
            entry["deletion"] = {"at": _utc(moment), "outcome": outcome}
        else:
            entry["last_deletion_attempt"] = {"at": _utc(moment), "outcome": outcome}
    if not dry_run:
        for folder in sorted(emptied, key=lambda p: len(p.parts), reverse=True):
            while folder != root and root in folder.parents:
                try:
                    folder.rmdir()
                except OSError:
                    break
                folder = folder.parent
        _write_record(root, record)
    return PurgeReport(outcomes)


def find_record_root(path: Path) -> Path | None:
    """The nearest folder at or above ``path`` that holds a retention record (a bank dir inside ``.nerb``)."""
    for candidate in [path, *path.parents]:
        if record_path(candidate).is_file():
            return candidate
    return None


def policy_conflict(root: Path, policy: RetentionPolicy) -> str | None:
    """Our sentence when ``root`` already records another policy (checked before a producer writes), else None."""
    try:
        record = load_record(root) if root.is_dir() else None
    except RetentionError as exc:
        return str(exc)
    if record is not None and record["policy_sha256"] != policy.sha256:
        return "the private root already records a different retention policy (owner, purpose or deadlines)"
    return None


def record_after_run(path: Path, policy: RetentionPolicy | None = None) -> str | None:
    """Register what a producer wrote under ``path``; returns a note for stderr when nothing could be recorded.

    With a policy (``prepare``) the record lives at ``path`` (the private root). Without one (``split``, ``bank
    build``), the nearest record at or above ``path`` is used; a producer writing outside any recorded root gets the
    note, and its files stay unrecorded (``retention status`` on the root that holds them reports them).
    """
    root = path if policy is not None else find_record_root(path)
    if root is None:
        return "no retention record at or above the private folder: its files are not recorded (run `prepare` " \
               "first, or place the folder under its private root)"
    try:
        register_tree(root, policy)
    except (RetentionError, OSError) as exc:
        return f"retention record not updated: {exc if isinstance(exc, RetentionError) else type(exc).__name__}"
    return None
