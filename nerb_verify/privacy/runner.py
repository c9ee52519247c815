"""Scan files and folders from disk: the engine behind ``nerb-verify scan`` and the pre-commit hook.

* Folders recurse without following symbolic links; version-control and cache folders (``.git``, ``.hg``, ``.svn``,
  ``__pycache__``, ``.pytest_cache``, ``.hypothesis``, ``.mypy_cache``, ``.ruff_cache``, ``.tox``, ``.nox``,
  ``.venv``, ``node_modules``, ``*.egg-info``) are not entered: they are not part of a repository's published files.
* A symbolic link is never followed, but its target *text* is scanned (git stores it as the link's content, so a
  link to a home directory would publish that path).
* Files are read with the strict loader's regular-file reader (no symlink). A file is text in UTF-8, or in UTF-16 or
  UTF-32 when its first 8 KiB say so (a byte order mark, or NUL bytes laid out as wide text: ``text_encoding.py``);
  any other file with a NUL byte in its first 8 KiB, or one that does not decode strictly, is binary: skipped and
  counted. UTF-8 with invalid sequences and no control bytes is read with replacement characters
  (``text_encoding.lenient_utf8``); a gzip, bzip2 or xz file is decompressed as it is read (``compressed.py``),
  and a zip or tar archive's members are read one by one (``archives.py``). The first 8 KiB are read and probed
  first: the rest of a file is read only when it is text.
* Files over ``NERB_SCAN_STREAM_BYTES`` (32 MiB) are streamed (:mod:`nerb_verify.privacy.stream`): read in windows,
  with the same rules and the same findings as in memory; so is a ``*.json`` file the strict loader refuses only for
  its size (bytes, values, members or string length): it is scanned as JSON by the incremental parser
  (:mod:`nerb_verify.privacy.json_stream`), not as text.
* ``jobs`` > 1 scans the files in worker processes (names and links in this one); the findings and their order do
  not depend on it.
* ``*.json`` files are parsed with the strict loader and scanned as JSON (pointers from key positions); one that does
  not parse is scanned as text instead (the contract profile also reports why it did not parse).
* Everything else is scanned as text, line by line; under the contract profile Markdown and SVG files (rendered
  text) get the rendered profile, as in ``verify`` (:func:`nerb_verify.privacy.profiles.for_text_file`).
* File and folder names are scanned too (git publishes them): a name that is itself personal data is reported
  and shown as ``@name:<position>`` (its position in the sorted folder listing, or its component index in an
  argument), never as itself.
* A path that does not exist or cannot be read is reported with ``privacy.not_scanned`` and makes the run "could
  not scan". A PATH argument that cannot be inspected at all is named by its position (``PATH argument 2``) and
  listed in ``ScanResult.unusable_targets``, so annotations can report it without a file.
"""

from __future__ import annotations

import itertools
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nerb_verify.codes import register
from nerb_verify.findings import Collector, Finding, Label
from nerb_verify.loader import (
    BUNDLE_LIMITS,
    COLLECTION_TOO_LARGE,
    INVALID_UTF8,
    STRING_TOO_LONG,
    TOO_DEEP,
    TOO_LARGE,
    TOO_MANY_NODES,
    UNREADABLE,
    LoadFailure,
    LoadProblem,
    invalid_utf8_problem,
    open_regular,
    parse_json_bytes,
    read_head,
    read_open_file,
)
from nerb_verify.privacy import messages
from nerb_verify.privacy.allowlist import Allowlist
from nerb_verify.privacy.archives import TAR_PROBE, Nest, is_tar, is_zip
from nerb_verify.privacy.compressed import (
    compression_of,
    decompressed,
    decompressed_bytes,
    inner_name,
    probe_first,
)
from nerb_verify.privacy.engine import scan_string
from nerb_verify.privacy.json_scan import scan_json
from nerb_verify.privacy.profiles import PROFILES, Profile, for_text_file
from nerb_verify.privacy.text_encoding import UTF8, lenient_utf8, text_encoding
from nerb_verify.privacy.text_scan import scan_text

NOT_SCANNED = register(
    "privacy.not_scanned", "A path could not be scanned (missing, unreadable or a special file).",
    "The scan fails closed: a path that was named (or found in a folder) but could not be read is reported and the "
    "run exits 2 unless there are privacy findings (exit 1). Size is no reason: files over 32 MiB are streamed in "
    "bounded memory.")

STREAM_BYTES = 32 * 1024 * 1024
BINARY_PROBE = 8192
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache",
                       ".ruff_cache", ".tox", ".nox", ".venv", "node_modules"})


@dataclass
class ScanSummary:
    """Counts of what a run did, for the text summary and the JSON output."""

    profile: str
    files_scanned: int = 0
    json_files: int = 0
    text_files: int = 0
    json_scanned_as_text: int = 0
    binary_skipped: int = 0
    symlinks_scanned: int = 0
    not_scanned: int = 0
    bytes_scanned: int = 0
    suppressed: int = 0
    streamed: int = 0
    allowlist_problems: int = 0
    wide_text_files: int = 0  # UTF-16 or UTF-32 text, decoded and scanned (``text_encoding.py``)
    not_utf8_files: int = 0  # UTF-8 with invalid sequences, decoded with replacement characters and scanned
    compressed_files: int = 0  # gzip, bzip2 or xz, decompressed as read and scanned (``compressed.py``)
    archives: int = 0  # zip and tar archives whose members were read (``archives.py``)
    archive_members: int = 0  # their members scanned (text or JSON)

    def to_json(self) -> dict[str, int | str]:
        return dict(self.__dict__)


@dataclass
class ScanResult:
    """Findings after the allowlist, the counts, and the exit code (0 clean, 1 findings, 2 could not scan)."""

    findings: list[Finding]
    summary: ScanSummary
    exit_code: int = 0
    # The shown form of every PATH argument that does not exist or is not a file, folder or link.
    unusable_targets: list[str] = field(default_factory=list)
    _paths: dict[int, str] = field(default_factory=dict, repr=False)


def _skip_dir(name: str) -> bool:
    return name in SKIP_DIRS or name.endswith(".egg-info")


def _display(path: str) -> str:
    return Path(path).as_posix()


def _name_codes(name: str, profile: Profile) -> frozenset[str]:
    if name in ("", ".", "..", "/"):
        return frozenset()
    return scan_string(name, profile)


def _report_name(codes: frozenset[str], shown: str, profile: Profile, collector: Collector) -> None:
    for code in sorted(codes):
        messages.add(collector, code, shown, "", messages.NAME, profile.name)


def _argument_display(path: str, profile: Profile, collector: Collector) -> str:
    """The path as given, with every component that is itself personal data replaced by ``@name:<index>``."""
    parts = list(Path(path).parts)
    flagged: list[tuple[int, frozenset[str]]] = []
    for index, part in enumerate(parts):
        codes = _name_codes(part, profile)
        if codes:
            parts[index] = f"@name:{index}"
            flagged.append((index, codes))
    shown = Path(*parts).as_posix() if parts else path
    for _index, codes in flagged:
        _report_name(codes, shown, profile, collector)
    return shown


def stream_threshold() -> int:
    """Files larger than this many bytes are streamed (``NERB_SCAN_STREAM_BYTES``, default 32 MiB)."""
    return _env_bytes("NERB_SCAN_STREAM_BYTES", STREAM_BYTES)


def window_bytes() -> int:
    """How many bytes a streamed file is read at a time (``NERB_SCAN_WINDOW_BYTES``, default 1 MiB)."""
    from nerb_verify.privacy import stream  # the streaming readers are imported only where a file is streamed

    return _env_bytes("NERB_SCAN_WINDOW_BYTES", stream.READ_SIZE)


def _env_bytes(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.isascii() and value.isdigit() and int(value) > 0 else default


def _scan_file(path: str, shown: str, profile: Profile, collector: Collector, summary: ScanSummary) -> None:
    try:
        size = os.lstat(path).st_size
    except OSError:
        size = 0
    if size > stream_threshold():
        _stream_file(path, shown, profile, collector, summary)
        return
    try:
        kind, raw, encoding = _read_probed(path)
    except LoadFailure as failure:
        if failure.problem.code == TOO_LARGE:  # it grew since the size was looked at
            _stream_file(path, shown, profile, collector, summary)
            return
        _not_scanned(collector, summary, shown, failure.problem.code)
        return
    if kind == "compressed":
        _stream_file(path, shown, profile, collector, summary)  # (decompressed as it is read, in bounded memory)
        return
    if kind in ("zip", "tar"):
        _scan_archive(path, shown, profile, collector, summary, kind)
        return
    if encoding is None:
        summary.binary_skipped += 1
        return
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError:
        lenient = lenient_utf8(raw) if encoding == UTF8 else None
        if lenient is None:
            summary.binary_skipped += 1
            return
        text = lenient
        summary.not_utf8_files += 1
    summary.files_scanned += 1
    summary.bytes_scanned += len(raw)
    if encoding != UTF8:
        summary.wide_text_files += 1
        if shown.endswith(".json") and profile.name == "contract":
            collector.add(WIDE_JSON.code, shown, "", WIDE_JSON.message)
        raw = text.removeprefix("\ufeff").encode("utf-8")  # (JSON is parsed from UTF-8)
    if shown.endswith(".json"):
        try:
            data = parse_json_bytes(raw, BUNDLE_LIMITS, root="any")
        except LoadFailure as failure:
            problem = failure.problem
            if profile.name == "contract":
                collector.add(problem.code, shown, problem.pointer, problem.message, line=problem.line,
                              column=problem.column)
            if problem.code in SIZE_LIMITS:
                # Too big for the verifier's limits, not malformed: scanned as JSON by the streaming parser.
                del raw, text
                _stream_file(path, shown, profile, collector, summary, counted=True)
                return
            summary.json_scanned_as_text += 1
        else:
            summary.json_files += 1
            scan_json(data, profile, collector, shown, pointer_root=data)
            return
    summary.text_files += 1
    scan_text(text.removeprefix("\ufeff"), for_text_file(profile, shown), collector, shown)


def _read_probed(path: str) -> tuple[str, bytes, str | None]:
    """Open the file (the checks of :func:`loader.open_regular`, at most ``stream_threshold()`` bytes) and read its
    first ``BINARY_PROBE`` bytes; read the rest only when they are text: ``("text", raw, encoding)`` with the whole
    file, ``("compressed", b"", None)`` for gzip, bzip2 or xz (streamed, so read once, decompressed as read),
    ``("zip", b"", None)`` or ``("tar", b"", None)`` for an archive (read member by member), or
    ``("binary", b"", None)``. A binary file costs 8 KiB of reading, whatever its size (a pre-commit hook sees
    images, archives and wheels on every commit that touches them). Raises :class:`LoadFailure`."""
    fd, _size = open_regular(Path(path), stream_threshold())
    try:
        head = read_head(fd, BINARY_PROBE)
        if compression_of(head[:8]) is not None:
            return "compressed", b"", None
        if is_zip(head):
            return "zip", b"", None
        if is_tar(head):
            return "tar", b"", None
        encoding = text_encoding(head)
        if encoding is None:
            return "binary", b"", None
        return "text", read_open_file(fd, stream_threshold(), head), encoding
    finally:
        os.close(fd)


# Load problems that say a JSON file is larger than the verifier accepts, not that it is malformed.
SIZE_LIMITS = frozenset({TOO_LARGE, TOO_MANY_NODES, COLLECTION_TOO_LARGE, STRING_TOO_LONG})
# A JSON file in UTF-16 or UTF-32 is scanned as JSON; the contract profile (public evidence, which the loader reads
# only as UTF-8) also says that it is not UTF-8.
WIDE_JSON = LoadProblem(INVALID_UTF8, message="File is UTF-16 or UTF-32 text, not UTF-8.")


def _stream_file(path: str, shown: str, profile: Profile, collector: Collector, summary: ScanSummary,
                 counted: bool = False) -> None:
    """Scan a file streamed from disk in bounded memory: JSON (``*.json``) with the incremental parser, falling
    back to text when it does not parse (the contract profile reports why, as for a small file); text with the
    same driver as ``scan_text``. Findings go to a scratch collector first and are kept only when the whole file
    decoded (UTF-8, UTF-16 or UTF-32, as in memory; a binary file is skipped). A zip or tar archive (a compressed
    tar too) is read member by member (:func:`_scan_archive`)."""
    from nerb_verify.privacy import stream  # (imported here: most runs stream no file)

    try:
        fd, size = open_regular(Path(path))
    except LoadFailure as failure:
        _not_scanned(collector, summary, shown, failure.problem.code)
        return
    try:
        try:
            head = os.pread(fd, 8, 0)
        except OSError:
            head = b""
        compression = compression_of(head)
        archive = "zip" if is_zip(head) else _archive_inside(fd, size, compression)
        if archive is not None:
            os.close(fd)
            fd = -1
            _scan_archive(path, shown, profile, collector, summary, archive, compression)
            return
        name = shown if compression is None else inner_name(shown, compression)

        def windows() -> Iterator[bytes]:
            os.lseek(fd, 0, os.SEEK_SET)
            raw = stream.byte_windows(fd, window_bytes(), size)
            if compression is None:
                return raw
            return probe_first(decompressed(raw, compression, window_bytes(), decompressed_bytes()), BINARY_PROBE)

        outcome = _stream_source(windows, shown, name, profile, counted, collector, summary)
    finally:
        if fd >= 0:
            os.close(fd)
    if outcome is None:
        return
    kind, wide, not_utf8 = outcome
    summary.streamed += 1
    if not counted:
        summary.files_scanned += 1
        summary.bytes_scanned += size
        summary.wide_text_files += 1 if wide else 0
        summary.not_utf8_files += 1 if not_utf8 else 0
        summary.compressed_files += 0 if compression is None else 1
    _count_kind(kind, name, summary)


def _archive_inside(fd: int, size: int, compression: str | None) -> str | None:
    """``"tar"`` when the file (decompressed, when ``compression`` names its format) starts with a tar header;
    ``"zip"`` when it is compressed and its decompressed bytes start as a zip archive's; else None."""
    from nerb_verify.privacy import stream

    try:
        if compression is None:
            head = os.pread(fd, TAR_PROBE, 0)
        else:
            os.lseek(fd, 0, os.SEEK_SET)
            raw = stream.byte_windows(fd, BINARY_PROBE, size)  # (8 KiB at a time: a header needs far less)
            head = _decompressed_head(raw, compression)
    except (OSError, LoadFailure):
        return None  # (the streamed read reports it)
    if compression is not None and is_zip(head):
        return "zip"
    return "tar" if is_tar(head) else None


def _decompressed_head(raw: Iterator[bytes], compression: str) -> bytes:
    """The first ``TAR_PROBE`` bytes (fewer if there are none) of ``raw`` decompressed (``compression``): enough to
    tell a compressed tar archive. Raises :class:`LoadFailure` as decompressing does."""
    return next(iter(probe_first(decompressed(raw, compression, TAR_PROBE, decompressed_bytes()), TAR_PROBE)), b"")


def _not_scanned(collector: Collector, summary: ScanSummary, shown: str, reason: str) -> None:
    """Count ``shown`` as not scanned and say why (``reason``: a load problem code; never the file's content)."""
    summary.not_scanned += 1
    collector.add(NOT_SCANNED, shown, "", "The file could not be read ({reason}).", reason=Label(reason))


def _count_kind(kind: str, name: str, summary: ScanSummary) -> None:
    if kind == "json":
        summary.json_files += 1
    else:
        summary.text_files += 1
        if name.endswith(".json"):
            summary.json_scanned_as_text += 1


def _stream_source(windows: Callable[[], Iterator[bytes]], shown: str, name: str, profile: Profile, counted: bool,
                   collector: Collector, summary: ScanSummary) -> tuple[str, bool, bool] | None:
    """Scan what ``windows`` gives (each call reads it from its start) as :func:`_stream_once` does, once more
    leniently when it is not UTF-8. Returns ``(kind, wide, not_utf8)`` and adds the findings; or None after
    counting a binary source (``binary_skipped``) or one that could not be read (``privacy.not_scanned``)."""
    from nerb_verify.privacy import stream

    wide: list[str] = []
    not_utf8_at: int | None = None
    try:
        try:
            kind, scratch = _stream_once(windows, shown, name, profile, counted, wide, None)
        except stream.NotUtf8 as bad:  # read again leniently, as the in-memory path decodes it
            not_utf8_at = bad.offset
            wide.clear()
            kind, scratch = _stream_once(windows, shown, name, profile, counted, wide, not_utf8_at)
    except OSError:
        _not_scanned(collector, summary, shown, UNREADABLE)
        return None
    except stream.Binary:
        summary.binary_skipped += 1
        return None
    except LoadFailure as failure:
        _not_scanned(collector, summary, shown, failure.problem.code)
        return None
    collector.findings.extend(scratch.findings)
    return kind, bool(wide), not_utf8_at is not None


def _scan_archive(path: str, shown: str, profile: Profile, collector: Collector, summary: ScanSummary,
                  kind: str, compression: str | None = None) -> None:
    """Scan every member of a zip or tar archive (``kind``) as the file it holds (``archives.py``): its name's
    components as names, its bytes streamed (decompressed as read, a gzip, bzip2 or xz member decompressed again)
    with the readers of :func:`_stream_source`, a link member's target as a link's, an archive member read as an
    archive; findings named ``<archive>!/<member>``. An archive that does not open or cannot be read on, and every
    member that cannot be read or lies past the file's limits (shared by the archives inside it,
    :class:`archives.Nest`), is not scanned and says so. ``compression``: the file's own compression (a compressed
    zip archive is decompressed first, :func:`_read_archive_in`)."""
    from nerb_verify.privacy import archives

    try:
        fd, size = open_regular(Path(path))
    except LoadFailure as failure:
        _not_scanned(collector, summary, shown, failure.problem.code)
        return
    nest = archives.Nest(shown, archives.Budget(decompressed_bytes()), len(collector.findings))
    with os.fdopen(fd, "rb") as handle:
        if _read_archive_in(handle, kind, compression, shown, profile, collector, summary, nest, 1):
            summary.files_scanned += 1
            summary.bytes_scanned += size


def _read_archive_in(handle: Any, kind: str, compression: str | None, shown: str, profile: Profile,
                     collector: Collector, summary: ScanSummary, nest: Nest, depth: int) -> bool:
    """:func:`_read_archive` on ``handle``; a zip archive compressed as a whole (``compression`` not None) is
    decompressed into a spool under the file's budget first and read from there (``archives.decompressed_whole``).
    False, after saying so, when it does not decompress or its directory cannot be read."""
    from nerb_verify.privacy import archives

    if kind != "zip" or compression is None:
        return _read_archive(handle, kind, shown, profile, collector, summary, nest, depth)
    whole = archives.decompressed_whole(handle, compression, window_bytes(), nest.budget)
    try:
        try:
            inner = whole.seekable()
        except LoadFailure as failure:
            _not_scanned(collector, summary, shown, failure.problem.code)
            return False
        return _read_archive(inner, kind, shown, profile, collector, summary, nest, depth)
    finally:
        whole.close()


def _read_archive(handle: Any, kind: str, shown: str, profile: Profile, collector: Collector, summary: ScanSummary,
                  nest: Nest, depth: int) -> bool:
    """Scan the members of the archive open in ``handle`` (seekable; ``depth`` archives deep, the file on disk is
    1) under the file's limits (``nest``). False, after saying so, when its directory cannot be read at all."""
    from nerb_verify.privacy import archives

    items = archives.members(handle, kind, window_bytes(), nest.budget)
    try:
        first = next(items, None)  # (an archive whose directory does not read is not scanned at all)
    except LoadFailure as failure:
        _not_scanned(collector, summary, shown, failure.problem.code)
        return False
    summary.archives += 1
    if first is None:
        return True
    try:
        for item in itertools.chain([first], items):
            if nest.stopped:
                return True
            if nest.members >= archives.MAX_MEMBERS:  # (one finding for the rest, at the file, not one per member)
                nest.stopped = True
                _not_scanned(collector, summary, nest.top, TOO_LARGE)
                return True
            if len(collector.findings) - nest.first_finding >= messages.MAX_FINDINGS_PER_FILE:
                nest.stopped = True
                collector.add(messages.TRUNCATED, nest.top, "")  # (the file is one file: one report limit)
                return True
            nest.members += 1
            _scan_member(item, shown, profile, collector, summary, nest, depth)
    except LoadFailure as failure:
        _not_scanned(collector, summary, shown, failure.problem.code)
    return True


def _scan_member(item: Any, archive_shown: str, profile: Profile, collector: Collector, summary: ScanSummary,
                 nest: Nest, depth: int) -> None:
    """One archive member (see :func:`_scan_archive`); its real name decides its kind and never shows (a component
    that is personal data is a name finding, shown as ``@name:<index>``)."""
    from nerb_verify.privacy import archives

    parts = archives.member_parts(item.name)
    flagged = {position: codes for position, part in enumerate(parts) if (codes := _name_codes(part, profile))}
    shown = archives.shown_member(archive_shown, parts, set(flagged))
    for codes in flagged.values():
        _report_name(codes, shown, profile, collector)
    if item.read is None:
        summary.archive_members += 1
        scan_text(item.link or "", profile, collector, shown, where=messages.LINK)
        return
    try:
        _scan_member_bytes(item.read, shown, "/".join(parts), profile, collector, summary, nest, depth)
    finally:
        item.read.close()


def _scan_member_bytes(member: Any, shown: str, name: str, profile: Profile, collector: Collector,
                       summary: ScanSummary, nest: Nest, depth: int) -> None:
    """A member's bytes (``archives.MemberBytes``: read once from the archive, replayed for every further read),
    probed and streamed as a file's are, or read as an archive (:func:`_scan_nested`); ``name``: its real name."""
    from nerb_verify.privacy import archives

    try:
        head = next(iter(probe_first(member.windows(), archives.TAR_PROBE)), b"")
        compression = compression_of(head)
        nested = _nested_kind(member, head, compression)
    except LoadFailure as failure:
        _not_scanned(collector, summary, shown, failure.problem.code)
        return
    if nested is not None:
        _scan_nested(member, nested, compression, shown, profile, collector, summary, nest, depth)
        return
    if compression is not None:
        name = inner_name(name, compression)

    def windows() -> Iterator[bytes]:
        raw = probe_first(member.windows(), BINARY_PROBE)
        if compression is None:
            return raw
        return probe_first(decompressed(raw, compression, window_bytes(), decompressed_bytes()), BINARY_PROBE)

    outcome = _stream_source(windows, shown, name, profile, False, collector, summary)
    if outcome is None:
        return
    kind, wide, not_utf8 = outcome
    summary.archive_members += 1
    summary.wide_text_files += 1 if wide else 0
    summary.not_utf8_files += 1 if not_utf8 else 0
    summary.compressed_files += 0 if compression is None else 1
    _count_kind(kind, name, summary)


def _nested_kind(member: Any, head: bytes, compression: str | None) -> str | None:
    """``"zip"`` or ``"tar"`` when a member's bytes (``head``: its first bytes) are an archive, one compressed with
    gzip, bzip2 or xz included (its first decompressed bytes are a tar header or a zip's); else None."""
    from nerb_verify.privacy import archives

    if archives.is_zip(head):
        return "zip"
    if archives.is_tar(head):
        return "tar"
    if compression is None:
        return None
    try:
        inner = _decompressed_head(member.windows(), compression)
    except LoadFailure:
        return None  # (its streamed read reports it)
    if archives.is_zip(inner):
        return "zip"
    return "tar" if archives.is_tar(inner) else None


def _scan_nested(member: Any, kind: str, compression: str | None, shown: str, profile: Profile,
                 collector: Collector, summary: ScanSummary, nest: Nest, depth: int) -> None:
    """An archive member that is itself an archive (``kind``), read as an archive one level deeper under the same
    limits (a compressed zip decompressed first: ``compression``); past ``archives.MAX_DEPTH`` archives deep it is
    not scanned (``load.too_deep``)."""
    from nerb_verify.privacy import archives

    if depth + 1 > archives.MAX_DEPTH:
        _not_scanned(collector, summary, shown, TOO_DEEP)
        return
    try:
        handle = member.seekable()
    except LoadFailure as failure:
        _not_scanned(collector, summary, shown, failure.problem.code)
        return
    _read_archive_in(handle, kind, compression, shown, profile, collector, summary, nest, depth + 1)


def _stream_once(windows: Callable[[], Iterator[bytes]], shown: str, name: str, profile: Profile, counted: bool,
                 wide: list[str], not_utf8_at: int | None) -> tuple[str, Collector]:
    """One streamed read of the file (see :func:`_stream_file`): its kind (``"json"`` or ``"text"``) and findings.
    ``windows`` gives the bytes to read, from the start at each call (decompressed where the file is compressed).
    Findings name the file ``shown``; ``name`` (``shown`` without its compression suffix when it is decompressed,
    ``compressed.py``, or a zip member's real name) decides whether it is JSON and which profile its text
    gets. ``not_utf8_at`` is the offset of the first byte sequence that is not UTF-8, once a strict read found one:
    the file is then decoded leniently and scanned as text, as in memory (the contract profile reports the loader's
    problem for a JSON file, as the loader reports it for a small one)."""
    from nerb_verify.privacy import json_stream, stream

    scratch = Collector()
    kind = "text"
    report = name.endswith(".json") and profile.name == "contract" and not counted
    if name.endswith(".json") and not_utf8_at is None:
        problem = json_stream.scan_json_stream(stream.decoded(windows(), wide), profile, scratch, shown)
        if problem is None:
            kind = "json"
            if wide and report:
                scratch.add(WIDE_JSON.code, shown, "", WIDE_JSON.message)
        else:
            scratch = Collector()
            if report:
                if wide:
                    scratch.add(WIDE_JSON.code, shown, "", WIDE_JSON.message)
                scratch.add(problem.code, shown, problem.pointer, problem.message, line=problem.line,
                            column=problem.column)
    elif report and not_utf8_at is not None:
        problem = invalid_utf8_problem(not_utf8_at)
        scratch.add(problem.code, shown, problem.pointer, problem.message)
    if kind == "text":
        wide.clear()
        pieces = stream.without_bom(stream.decoded(windows(), wide, lenient=not_utf8_at is not None))
        stream.scan_text_stream(pieces, for_text_file(profile, name), scratch, shown, name=name)
    return kind, scratch


def _scan_link(path: str, shown: str, profile: Profile, collector: Collector, summary: ScanSummary) -> None:
    try:
        target = os.readlink(path)
    except OSError:
        summary.not_scanned += 1
        collector.add(NOT_SCANNED, shown, "", "The symbolic link could not be read.")
        return
    summary.symlinks_scanned += 1
    scan_text(target, profile, collector, shown, where=messages.LINK)


def _walk(root: str, root_shown: str, profile: Profile, collector: Collector, summary: ScanSummary,
          tasks: list[tuple[str, str, int]] | None = None) -> None:
    """Recurse into ``root``: names and links are scanned here; regular files are scanned at once, or, when
    ``tasks`` is given, appended to it as ``(path, shown, size)`` in the order ``--jobs 1`` scans them."""
    stack = [(root, root_shown)]
    while stack:
        directory, directory_shown = stack.pop()
        try:
            with os.scandir(directory) as iterator:
                entries = sorted(iterator, key=lambda entry: entry.name)
        except OSError:
            summary.not_scanned += 1
            collector.add(NOT_SCANNED, directory_shown, "", "The folder could not be listed.")
            continue
        folders: list[tuple[str, str]] = []
        for position, entry in enumerate(entries):
            path = os.path.join(directory, entry.name)
            codes = _name_codes(entry.name, profile)
            name = f"@name:{position}" if codes else entry.name
            shown = name if directory_shown in ("", ".") else f"{directory_shown}/{name}"
            _report_name(codes, shown, profile, collector)
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                summary.not_scanned += 1
                collector.add(NOT_SCANNED, shown, "", "The entry could not be inspected.")
                continue
            if stat.S_ISLNK(info.st_mode):
                _scan_link(path, shown, profile, collector, summary)
            elif stat.S_ISDIR(info.st_mode):
                if not _skip_dir(entry.name):
                    folders.append((path, shown))
            elif stat.S_ISREG(info.st_mode):
                if tasks is None:
                    _scan_file(path, shown, profile, collector, summary)
                else:
                    tasks.append((path, shown, info.st_size))
        stack.extend(reversed(folders))
            # Sockets, FIFOs and devices inside a folder are not content; they are ignored.


def default_jobs() -> int:
    """All the cores this process may run on."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):
        return max(os.cpu_count() or 1, 1)


# Below this many bytes of files in all, a tree is scanned in this process: starting workers costs more.
PARALLEL_MIN_BYTES = 4 * 1024 * 1024


def _scan_task(task: tuple[str, str, str]) -> tuple[list[Finding], dict[str, int]]:
    """Worker: scan one file into a fresh collector; return its findings and the counts it added."""
    path, shown, profile_name = task
    collector = Collector()
    summary = ScanSummary(profile=profile_name)
    _scan_file(path, shown, PROFILES[profile_name], collector, summary)
    counts = {name: value for name, value in summary.to_json().items() if isinstance(value, int)}
    return collector.findings, counts


def _scan_chunk(chunk: list[tuple[str, str, str]]) -> list[tuple[list[Finding], dict[str, int]]]:
    """Worker: :func:`_scan_task` for each task of ``chunk``, in order."""
    return [_scan_task(task) for task in chunk]


def largest_first_chunks(sizes: list[int], workers: int) -> list[list[int]]:
    """Task indices in chunks for ``workers`` processes, largest files first (longest-processing-time-first: a large
    file found last in the walk would otherwise keep one worker busy after the others are done); consecutive files
    of that order share a chunk up to 64 files or about 1/(8 * workers) of the bytes, so small files cost one
    round trip per chunk, not per file. Every index appears once."""
    order = sorted(range(len(sizes)), key=lambda index: (-sizes[index], index))
    budget = max(1, sum(sizes) // (8 * max(1, workers)))
    chunks: list[list[int]] = []
    current: list[int] = []
    held = 0
    for index in order:
        current.append(index)
        held += sizes[index]
        if held >= budget or len(current) >= 64:
            chunks.append(current)
            current, held = [], 0
    if current:
        chunks.append(current)
    return chunks


def _scan_tasks(tasks: list[tuple[str, str, int]], profile: Profile, collector: Collector, summary: ScanSummary,
                jobs: int, parallel_min_bytes: int) -> None:
    """Scan the files of ``tasks``: in this process (one job, a custom profile, or too little to share), or in
    ``jobs`` worker processes, largest files first (:func:`largest_first_chunks`); findings are added in task
    order either way, so the output does not depend on ``jobs``."""
    total = sum(size for _path, _shown, size in tasks)
    if jobs <= 1 or len(tasks) < 2 or total < parallel_min_bytes or PROFILES.get(profile.name) is not profile:
        for path, shown, _size in tasks:
            _scan_file(path, shown, profile, collector, summary)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    work = [(path, shown, profile.name) for path, shown, _size in tasks]
    workers = min(jobs, len(tasks))
    chunks = largest_first_chunks([size for _path, _shown, size in tasks], workers)
    results: list[tuple[list[Finding], dict[str, int]] | None] = [None] * len(work)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        for chunk, chunk_results in zip(chunks, pool.map(_scan_chunk, [[work[index] for index in chunk]
                                                                        for chunk in chunks])):
            for index, result in zip(chunk, chunk_results):
                results[index] = result
    for result in results:
        assert result is not None  # (every task is in exactly one chunk)
        findings, counts = result
        collector.findings.extend(findings)
        for name, value in counts.items():
            setattr(summary, name, getattr(summary, name) + value)


def scan_paths(paths: list[str], profile: Profile, allowlist: Allowlist | None = None,
               collector: Collector | None = None, jobs: int = 1,
               parallel_min_bytes: int = PARALLEL_MIN_BYTES) -> ScanResult:
    """Scan every path (file, folder or link) with ``profile``; apply the allowlist; decide the exit code.

    ``jobs``: how many processes scan the files of folders (1: all in this process). Names, links and the files
    named as arguments are scanned here; the findings are the same, in the same order, for any ``jobs``."""
    collector = collector if collector is not None else Collector()
    summary = ScanSummary(profile=profile.name)
    problems_before = len(collector.findings)
    summary.allowlist_problems = problems_before
    unusable: list[str] = []
    tasks: list[tuple[str, str, int]] | None = [] if jobs > 1 else None
    for index, path in enumerate(paths, start=1):
        shown = _argument_display(path, profile, collector)
        try:
            info = os.lstat(path)
        except OSError:
            summary.not_scanned += 1
            collector.add(NOT_SCANNED, shown, "", "PATH argument {index} does not exist or cannot be inspected.",
                          index=index)
            unusable.append(shown)
            continue
        if stat.S_ISLNK(info.st_mode):
            _scan_link(path, shown, profile, collector, summary)
        elif stat.S_ISDIR(info.st_mode):
            _walk(path, shown, profile, collector, summary, tasks)
        elif stat.S_ISREG(info.st_mode):
            if tasks is None:
                _scan_file(path, shown, profile, collector, summary)
            else:
                tasks.append((path, shown, info.st_size))
        else:
            summary.not_scanned += 1
            collector.add(NOT_SCANNED, shown, "", "PATH argument {index} is not a regular file or folder.",
                          index=index)
            unusable.append(shown)
    if tasks:
        _scan_tasks(tasks, profile, collector, summary, jobs, parallel_min_bytes)
    kept: list[Finding] = []
    for finding in collector.sorted_findings():
        if allowlist is not None and finding.code.startswith("privacy.") and finding.code != NOT_SCANNED \
                and allowlist.suppresses(finding, finding.artifact):
            summary.suppressed += 1
            continue
        kept.append(finding)
    errors = [f for f in kept if f.severity == "error"]
    could_not = any(f.code == NOT_SCANNED for f in kept)
    real = [f for f in errors if f.code != NOT_SCANNED]
    exit_code = 1 if real else (2 if could_not else 0)
    return ScanResult(findings=kept, summary=summary, exit_code=exit_code, unusable_targets=unusable)
