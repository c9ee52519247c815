"""The privacy allowlist: a reviewable JSON file of location-keyed suppressions, each with a justification.

Format (``.nerb-privacy-allowlist.json`` by default; POSIX paths relative to the file's own folder; no timestamps,
no values, no hashes of values)::

    {
      "version": 1,
      "entries": [
        {"path": "data/sample.json", "pointer": "/rows/0/@key:2", "code": "privacy.phone",
         "justification": "Synthetic number from the fictional 555-01xx range, kept to test the detector."},
        {"path": "docs/guide.md", "anchor": "line:42", "code": "privacy.personal_path",
         "justification": "..."},
        {"path": "contract_tests/corpus.txt", "anchor": "file", "code": "privacy.email",
         "justification": "..."}
      ]
    }

An entry matches a finding with the same code at the same location: the same JSON pointer (as the scanner prints
it), the same line (``line:N``), or anywhere in the file (``file``). Anchors never depend on the line's content, so an
entry reveals nothing about the suppressed value. The hook only reads this file; ``nerb-verify allowlist add``
writes it (sorted, deterministic bytes) so reviews see one-line diffs.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import regex

from nerb_verify import codes
from nerb_verify.codes import register
from nerb_verify.findings import Collector, Finding
from nerb_verify.loader import LoadFailure, parse_json_bytes, read_regular_file

DEFAULT_NAME = ".nerb-privacy-allowlist.json"
VERSION = 1
MIN_JUSTIFICATION = 12
MAX_BYTES = 4 * 1024 * 1024

UNREADABLE = register(
    "allowlist.unreadable", "The allowlist file could not be read or is not valid JSON.",
    "The allowlist must be a regular UTF-8 JSON file (no symlink) holding an object with 'version' and 'entries'. "
    "Nothing in it was applied, so every finding is reported.")
INVALID_FILE = register(
    "allowlist.invalid_file", "The allowlist file does not have the expected structure.",
    "The top level must be exactly {\"version\": 1, \"entries\": [...]}. Nothing in it was applied.")
INVALID_ENTRY = register(
    "allowlist.invalid_entry", "An allowlist entry is malformed; it was ignored.",
    "Each entry is an object with 'path' (relative POSIX path inside the allowlist's folder, no '..'), exactly one "
    "of 'pointer' (a JSON pointer as the scanner prints it) or 'anchor' ('file' or 'line:<n>'), 'code' (a "
    "registered privacy code) and 'justification'. No other keys are allowed.")
MISSING_JUSTIFICATION = register(
    "allowlist.missing_justification", "An allowlist entry has no real justification; it was ignored.",
    "Every suppression needs a justification a reviewer can judge: at least 12 characters saying why the "
    "location is not personal data (synthetic test data, a must-reject corpus, and so on).")
DUPLICATE_ENTRY = register(
    "allowlist.duplicate_entry", "Two allowlist entries name the same location and code.",
    "Each (path, location, code) may appear once, so a review sees every suppression exactly once.",
    severity="warning")

_ANCHOR = regex.compile(r"file|line:[1-9][0-9]{0,8}")
_KEYS = {"path", "pointer", "anchor", "code", "justification"}


@dataclass(frozen=True)
class Entry:
    """One suppression: a file, a location (pointer, ``line:N`` or ``file``) and a code."""

    path: str
    location: str  # "pointer:<p>", "line:<n>" or "file"
    code: str
    justification: str

    def to_json(self) -> dict[str, str]:
        out = {"path": self.path, "code": self.code, "justification": self.justification}
        if self.location.startswith("pointer:"):
            out["pointer"] = self.location[len("pointer:"):]
        else:
            out["anchor"] = self.location
        return out


@dataclass
class Allowlist:
    """The entries of one allowlist file and the folder its paths are relative to."""

    base: Path
    entries: list[Entry]
    source: str

    def suppresses(self, finding: Finding, file_path: str) -> bool:
        """True when an entry names this finding's code and location. ``file_path`` is the scanned path."""
        relative = relative_to_base(file_path, self.base)
        if relative is None:
            return False
        for entry in self.entries:
            if entry.code != finding.code or entry.path != relative:
                continue
            if entry.location == "file":
                return True
            if finding.line is not None and entry.location == f"line:{finding.line}":
                return True
            if finding.line is None and entry.location == f"pointer:{finding.pointer}":
                return True
        return False


def relative_to_base(file_path: str, base: Path) -> str | None:
    """``file_path`` as a POSIX path relative to ``base``, or None when it lies outside it."""
    relative = os.path.relpath(os.path.abspath(file_path), os.path.abspath(base))
    posix = PurePosixPath(*Path(relative).parts).as_posix()
    if posix == ".." or posix.startswith("../"):
        return None
    return posix


def _safe_relative(path: str) -> bool:
    if not path or path.startswith("/") or "\\" in path or not path.isprintable():
        return False
    parts = PurePosixPath(path).parts
    return all(part not in ("", ".", "..") for part in parts) and PurePosixPath(path).as_posix() == path


def _content_codes() -> frozenset[str]:
    from nerb_verify.privacy.registry import content_codes  # imports the scanner: only where entries are read

    return content_codes()


def parse_entries(data: Any, collector: Collector, source: str) -> list[Entry] | None:
    """Validate the parsed allowlist; report problems into ``collector``. None when the file as a whole is invalid."""
    if not isinstance(data, dict) or set(data) != {"version", "entries"} or data.get("version") != VERSION \
            or not isinstance(data.get("entries"), list):
        collector.add(INVALID_FILE, source, "")
        return None
    entries: list[Entry] = []
    seen: set[tuple[str, str, str]] = set()
    for index, raw in enumerate(data["entries"]):
        pointer = f"/entries/{index}"
        if not isinstance(raw, dict) or not set(raw) <= _KEYS or not {"path", "code"} <= set(raw) \
                or ("pointer" in raw) == ("anchor" in raw) or not all(isinstance(v, str) for v in raw.values()):
            collector.add(INVALID_ENTRY, source, pointer)
            continue
        justification = raw.get("justification", "")
        if len(justification.strip()) < MIN_JUSTIFICATION:
            collector.add(MISSING_JUSTIFICATION, source, pointer)
            continue
        code = raw["code"]
        if code not in _content_codes():
            collector.add(INVALID_ENTRY, source, pointer)
            continue
        if not _safe_relative(raw["path"]):
            collector.add(INVALID_ENTRY, source, pointer)
            continue
        if "pointer" in raw:
            if raw["pointer"] != "" and not raw["pointer"].startswith("/"):
                collector.add(INVALID_ENTRY, source, pointer)
                continue
            location = "pointer:" + raw["pointer"]
        else:
            if not _ANCHOR.fullmatch(raw["anchor"]):
                collector.add(INVALID_ENTRY, source, pointer)
                continue
            location = raw["anchor"]
        identity = (raw["path"], location, code)
        if identity in seen:
            collector.add(DUPLICATE_ENTRY, source, pointer)
            continue
        seen.add(identity)
        entries.append(Entry(raw["path"], location, code, justification))
    return entries


def load(path: Path, collector: Collector) -> Allowlist | None:
    """Read and validate an allowlist file; problems become findings in ``collector`` (never an exception)."""
    source = str(path)
    try:
        raw = read_regular_file(path, MAX_BYTES)
        data = parse_json_bytes(raw, root="any")
    except LoadFailure:
        collector.add(UNREADABLE, source, "")
        return None
    entries = parse_entries(data, collector, source)
    if entries is None:
        return None
    return Allowlist(base=path.parent, entries=entries, source=source)


def dump(entries: list[Entry]) -> bytes:
    """Deterministic bytes of an allowlist: entries sorted by path, location and code; two-space indent."""
    ordered = sorted(entries, key=lambda e: (e.path, e.location, e.code))
    document = {"version": VERSION, "entries": [entry.to_json() for entry in ordered]}
    return (json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
