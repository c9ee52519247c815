"""Issue 17 (any file size), session 18: a file is probed before it is read. The scanner reads a file's first 8 KiB,
decides from them whether it is text, binary or compressed, and reads the rest only for text: a large binary file
(an image, a wheel, a model) costs 8 KiB of reading, and a compressed file is read once, decompressed as it is read.
Text is still read whole, the probe's bytes included, so nothing at the 8 KiB boundary or past it is lost.

Must-reject values are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

import gzip
import os
import random
from pathlib import Path

import pytest

from nerb_verify.privacy.profiles import REPOSITORY
from nerb_verify.privacy.runner import BINARY_PROBE, scan_paths

EMAIL = "jane.roe" + chr(64) + "corp-mail" + ".org"


class _ReadCounter:
    """Counts the bytes ``os.read`` and ``os.pread`` return while installed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.total = 0
        read, pread = os.read, os.pread

        def counted_read(fd: int, size: int) -> bytes:
            data = read(fd, size)
            self.total += len(data)
            return data

        def counted_pread(fd: int, size: int, offset: int) -> bytes:
            data = pread(fd, size, offset)
            self.total += len(data)
            return data

        monkeypatch.setattr(os, "read", counted_read)
        monkeypatch.setattr(os, "pread", counted_pread)


def test_a_large_binary_file_is_probed_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blob = tmp_path / "model.bin"
    with blob.open("wb") as handle:
        handle.write(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
        handle.truncate(24 << 20)  # 24 MiB, under the 32 MiB stream threshold (it was read whole)
    counter = _ReadCounter(monkeypatch)
    result = scan_paths([str(blob)], REPOSITORY)
    assert result.summary.binary_skipped == 1 and result.findings == [] and result.exit_code == 0
    assert counter.total <= 2 * BINARY_PROBE


def test_a_compressed_file_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(20261203)
    lines = [f"row {index} {rng.randbytes(12).hex()}" for index in range(60_000)] + ["contact " + EMAIL]
    packed = tmp_path / "log.txt.gz"
    packed.write_bytes(gzip.compress("\n".join(lines).encode(), compresslevel=1))
    size = packed.stat().st_size
    assert size > 1 << 20
    counter = _ReadCounter(monkeypatch)
    result = scan_paths([str(packed)], REPOSITORY)
    assert [f.code for f in result.findings] == ["privacy.email"] and result.summary.compressed_files == 1
    # read once, plus the probes of its first bytes (is it text, is it a tar archive): it was read twice, whole
    # and then streamed
    assert counter.total <= size + 3 * BINARY_PROBE


@pytest.mark.parametrize("at", [0, BINARY_PROBE - 30, BINARY_PROBE - 5, BINARY_PROBE, 100_000])
def test_text_is_read_whole_with_its_probe(tmp_path: Path, at: int) -> None:
    # An address anywhere, across the probe's end too, is found at its line and column.
    filler = "".join(f"{'x' * 59}\n" for _ in range(at // 60)) + " " * (at % 60)
    text = tmp_path / "notes.txt"
    text.write_text(filler + EMAIL + " end\n" + "z" * 20_000 + "\n", "utf-8")
    result = scan_paths([str(text)], REPOSITORY)
    assert [(f.code, f.line, f.column) for f in result.findings] == [
        ("privacy.email", at // 60 + 1, at % 60 + 1)]
    assert result.summary.bytes_scanned == text.stat().st_size


def test_a_short_file_and_an_empty_file_are_read(tmp_path: Path) -> None:
    short = tmp_path / "short.txt"
    short.write_text(EMAIL, "utf-8")
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    result = scan_paths([str(short), str(empty)], REPOSITORY)
    assert [f.artifact for f in result.findings] == [str(short)]
    assert result.summary.files_scanned == 2
