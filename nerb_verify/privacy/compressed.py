"""Compressed files (gzip, bzip2, xz): read through their decompressor, in bounded memory, and scanned like the text
or JSON they hold.

A committed ``contacts.csv.gz`` was binary to the scanner (its bytes are compressed), so the hook passed an address
list that any reader opens with one command. The compressed formats a reader opens without asking (one stream of
data, named by its first bytes) are decompressed as they are read, ``read_size`` bytes of output at a time, and the
decompressed bytes go to the same streaming readers as a large file (:mod:`nerb_verify.privacy.stream`): text is
scanned line by line, JSON (``*.json.gz`` and so on) as JSON, binary content (a tar archive, an image) is skipped as
binary. Concatenated streams (``cat a.gz b.gz``) are read one after the other, as ``gzip -d`` reads them.

Fail closed: data that does not decompress (truncated or corrupt) is not scanned and says so (exit 2), and so is a
file whose decompressed size passes ``NERB_SCAN_DECOMPRESSED_BYTES`` (default 1 GiB; a decompression bomb expands a
kilobyte into gigabytes), since what lies beyond was not read.
"""

from __future__ import annotations

import bz2
import lzma
import os
import zlib
from collections.abc import Iterator
from typing import Any

from nerb_verify.loader import TOO_LARGE, UNREADABLE, LoadFailure, LoadProblem

GZIP, BZIP2, XZ = "gzip", "bzip2", "xz"
# Magic numbers (RFC 1952; the bzip2 and xz file formats).
_MAGIC = ((b"\x1f\x8b", GZIP), (b"BZh", BZIP2), (b"\xfd7zXZ\x00", XZ))
# The name a compressed file's content would have: ``data.json.gz`` holds ``data.json``.
SUFFIXES = {GZIP: (".gz", ".gzip"), BZIP2: (".bz2",), XZ: (".xz",)}
DECOMPRESSED_BYTES = 1 << 30


def compression_of(head: bytes) -> str | None:
    """The compressed format whose magic number ``head`` (a file's first bytes) starts with, or None."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


def inner_name(name: str, compression: str) -> str:
    """``name`` without its compression suffix (``a.json.gz`` -> ``a.json``; a name without one is kept)."""
    lowered = name.lower()
    for suffix in SUFFIXES[compression]:
        if lowered.endswith(suffix):
            return name[: -len(suffix)]
    return name


def decompressed_bytes() -> int:
    """The decompressed size past which a file is not scanned (``NERB_SCAN_DECOMPRESSED_BYTES``, default 1 GiB)."""
    value = os.environ.get("NERB_SCAN_DECOMPRESSED_BYTES", "")
    return int(value) if value.isdigit() and int(value) > 0 else DECOMPRESSED_BYTES


Decompressor = Any  # (zlib's decompress object, bz2.BZ2Decompressor or lzma.LZMADecompressor)


def _decompressor(compression: str) -> Decompressor:
    if compression == GZIP:
        return zlib.decompressobj(wbits=31)
    if compression == BZIP2:
        return bz2.BZ2Decompressor()
    return lzma.LZMADecompressor(format=lzma.FORMAT_XZ)


def _outputs(decompressor: Decompressor, data: bytes, read_size: int) -> Iterator[bytes]:
    """What ``decompressor`` gives for ``data``, at most ``read_size`` bytes at a time, until it needs more input
    or its stream ends. zlib hands back the input it did not use (``unconsumed_tail``); bzip2 and xz keep it and say
    whether they need more (``needs_input``)."""
    gzip = hasattr(decompressor, "unconsumed_tail")
    while True:
        out = decompressor.decompress(data, read_size)
        data = decompressor.unconsumed_tail if gzip else b""
        if out:
            yield out
        if decompressor.eof:
            return
        if gzip and not data and not out:
            return
        if not gzip and decompressor.needs_input:
            return


def decompressed(windows: Iterator[bytes], compression: str, read_size: int, limit: int) -> Iterator[bytes]:
    """The decompressed bytes of ``windows`` (a compressed file read in windows), at most ``read_size`` bytes at a
    time, so memory stays bounded whatever the ratio. Raises :class:`LoadFailure` when the data does not decompress
    (also when it ends inside a stream) or when more than ``limit`` bytes come out."""
    decompressor = _decompressor(compression)
    inside = False  # a stream was begun and has not ended
    produced = 0
    try:
        for window in windows:
            data = window
            while data:
                inside = True
                for out in _outputs(decompressor, data, read_size):
                    produced += len(out)
                    if produced > limit:
                        raise LoadFailure(LoadProblem(TOO_LARGE, message="The decompressed data is larger than the "
                                                                         "limit."))
                    yield out
                if not decompressor.eof:
                    break
                data, inside = decompressor.unused_data, False  # another stream may follow
                if compression == GZIP and not data.strip(b"\x00"):
                    data = b""  # (zero padding after the last member, which gzip -d accepts)
                decompressor = _decompressor(compression)
    except (zlib.error, OSError, EOFError, lzma.LZMAError):
        raise _unreadable(compression) from None
    if inside:
        raise _unreadable(compression)  # (the data ends inside a stream: truncated)


def _unreadable(compression: str) -> LoadFailure:
    return LoadFailure(LoadProblem(UNREADABLE, message=f"The {compression} data does not decompress."))


def probe_first(windows: Iterator[bytes], probe: int) -> Iterator[bytes]:
    """``windows`` with the first one at least ``probe`` bytes long (unless the data is shorter), as a file's first
    window is: the encoding and binary test reads the first ``probe`` bytes of the first window."""
    head = b""
    for window in windows:
        if len(head) < probe:
            head += window
            if len(head) < probe:
                continue
            window, head = head, b"\x00" * probe  # (head is only a length from here on)
        yield window
    if len(head) < probe and head:
        yield head
