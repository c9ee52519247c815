"""Open a bundle directory once: list it without following links, read and parse every file exactly once.

The walk uses ``os.scandir`` with ``follow_symlinks=False``; symlinks (to files or directories) are reported and never
followed. Every regular file is read with the bounded reader; JSON artifacts are parsed with the strict loader, text
files (Markdown, SVG) are decoded as strict UTF-8. Files over the size cap are refused without being read, and the
bundle as a whole is capped (file count and total bytes) so a hostile directory cannot exhaust memory.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from nerb_verify import context as C
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext
from nerb_verify.display import safe_relpath
from nerb_verify.loader import (
    BUNDLE_LIMITS,
    CONTRACT_LIMITS,
    LoadedFile,
    LoadFailure,
    LoadProblem,
    load_json_file,
    read_regular_file,
    sha256_prefixed,
)

BUNDLE_SYMLINK = register(
    "bundle.symlink", "Bundle entry is a symbolic link; it was not followed.",
    "A bundle is a closed set of regular files. Links (to files or directories, inside or outside the bundle) are "
    "never followed, so a link cannot smuggle content in or point the verifier elsewhere.")
BUNDLE_SPECIAL = register(
    "bundle.special_file", "Bundle entry is neither a regular file nor a directory.",
    "Devices, sockets and FIFOs have no place in a published bundle and are not opened.")
BUNDLE_TOO_LARGE = register(
    "bundle.too_large", "Bundle exceeds the size or file-count limit.",
    "A bundle may hold at most 1,000 entries and 64 MiB of files in all; the rest is not read.")
BUNDLE_UNSAFE_NAME = register(
    "bundle.unsafe_name", "Bundle entry has a name that is not a safe relative path.",
    "Entry names must be printable, relative, without backslashes or control characters.")
FILE_MODE = register(
    "bundle.file_mode", "File is writable by group or others.",
    "Group- or world-writable files can be changed by other users after publication. This is a hygiene warning, "
    "not evidence of tampering: hashes still decide authenticity.", severity="warning")
HARD_LINK = register(
    "bundle.hard_link", "File has more than one hard link.",
    "A hard-linked file can be changed through its other name. This is a hygiene warning, not tampering.",
    severity="warning")

MAX_ENTRIES = 1000
MAX_TOTAL_BYTES = 64 * 1024 * 1024
MAX_TEXT_BYTES = 4 * 1024 * 1024
MAX_WALK_DEPTH = 8


class TextFile:
    """A non-JSON file of the bundle: raw bytes, hash and, when it is strict UTF-8, its text."""

    def __init__(self, path: Path, raw: bytes, sha256: str, size: int, text: str | None,
                 problems: list[LoadProblem]) -> None:
        """Hold what was read; ``text`` is None when the bytes are not strict UTF-8."""
        self.path: Path = path
        self.raw: bytes = raw
        self.sha256: str = sha256
        self.size: int = size
        self.text: str | None = text
        self.problems: list[LoadProblem] = problems


def _json_kind(rel: str) -> tuple[bool, object, str]:
    """Whether ``rel`` is parsed as JSON, with which limits and which root type."""
    if rel in (C.MANIFEST, C.EVIDENCE):
        return True, CONTRACT_LIMITS, "object"
    if rel.startswith(C.INVENTORIES_DIR + "/") and rel.endswith(".json"):
        return True, BUNDLE_LIMITS, "array"
    if rel.endswith(".json"):
        return True, BUNDLE_LIMITS, "object"
    return False, BUNDLE_LIMITS, "any"


def _safe_name(name: str) -> bool:
    return bool(name) and name not in (".", "..") and name.isprintable() and "\\" not in name and "/" not in name


def open_bundle(ctx: VerifyContext) -> None:
    """Walk ``ctx.root`` and fill ``ctx.files`` and ``ctx.loaded``; every problem becomes a finding."""
    collector = ctx.collector
    entries = 0
    total = 0
    stack: list[tuple[Path, str, int]] = [(ctx.root, "", 0)]
    regular: list[tuple[str, Path, os.stat_result]] = []
    # Entries that exist but are not usable regular files (already reported): later families must not call them
    # "missing" as well, so each problem raises one code.
    unusable: set[str] = ctx.shared.setdefault("bundle.unusable", set())
    while stack:
        directory, prefix, depth = stack.pop()
        try:
            with os.scandir(directory) as iterator:
                children = sorted(iterator, key=lambda e: e.name)
        except OSError:
            collector.add("load.unreadable", safe_relpath(prefix.rstrip("/")) or ".", "")
            continue
        for entry in children:
            entries += 1
            if entries > MAX_ENTRIES:
                collector.add(BUNDLE_TOO_LARGE, ".", "")
                stack.clear()
                break
            if not _safe_name(entry.name):
                collector.add(BUNDLE_UNSAFE_NAME, safe_relpath(prefix.rstrip("/")) or ".", "",
                              "Entry number {n} in this folder has an unsafe name.", n=children.index(entry))
                continue
            rel = prefix + entry.name
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                collector.add("load.unreadable", safe_relpath(rel), "")
                continue
            if stat.S_ISLNK(info.st_mode):
                collector.add(BUNDLE_SYMLINK, safe_relpath(rel), "")
                unusable.add(rel)
            elif stat.S_ISDIR(info.st_mode):
                if depth + 1 >= MAX_WALK_DEPTH:
                    collector.add(BUNDLE_TOO_LARGE, safe_relpath(rel), "")
                else:
                    stack.append((Path(entry.path), rel + "/", depth + 1))
            elif stat.S_ISREG(info.st_mode):
                regular.append((rel, Path(entry.path), info))
            else:
                collector.add(BUNDLE_SPECIAL, safe_relpath(rel), "")
                unusable.add(rel)
    for rel, path, info in sorted(regular):
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            collector.add(FILE_MODE, safe_relpath(rel), "")
        if info.st_nlink > 1:
            collector.add(HARD_LINK, safe_relpath(rel), "")
        is_json, limits, root = _json_kind(rel)
        cap = limits.max_bytes if is_json else MAX_TEXT_BYTES  # type: ignore[attr-defined]
        if info.st_size <= cap:
            total += info.st_size
        if total > MAX_TOTAL_BYTES:
            collector.add(BUNDLE_TOO_LARGE, safe_relpath(rel), "")
            ctx.files[rel] = LoadedFile(path=path, raw=b"", sha256="", size=info.st_size,
                                        problems=[LoadProblem(BUNDLE_TOO_LARGE)])
            continue
        if is_json:
            loaded = load_json_file(path, limits, root)  # type: ignore[arg-type]
            ctx.files[rel] = loaded
            for problem in loaded.problems:
                _report_problem(ctx, rel, problem)
            if loaded.ok:
                ctx.loaded[rel] = loaded.data
                if rel.startswith(C.INVENTORIES_DIR + "/"):
                    ctx.inventories[rel[len(C.INVENTORIES_DIR) + 1:-len(".json")]] = loaded.data
        else:
            ctx.files[rel] = _read_text(path, cap)
            for problem in ctx.files[rel].problems:
                _report_problem(ctx, rel, problem)


def _read_text(path: Path, cap: int) -> TextFile:
    try:
        raw = read_regular_file(path, cap)
    except LoadFailure as failure:
        return TextFile(path, b"", "", 0, None, [failure.problem])
    try:
        text: str | None = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        text = None
    problems = [] if text is not None or path.suffix not in (".md", ".svg") else [LoadProblem("load.invalid_utf8")]
    return TextFile(path, raw, sha256_prefixed(raw), len(raw), text, problems)


def _report_problem(ctx: VerifyContext, rel: str, problem: LoadProblem) -> None:
    ctx.collector.add(problem.code, safe_relpath(rel), problem.pointer, problem.message, line=problem.line,
                      column=problem.column)
