"""Compressed files (gzip, bzip2, xz): decompressed as they are read and scanned like the text or JSON they hold,
with the findings of the uncompressed file; truncated data and decompression past the limit fail closed (exit 2).

Must-reject values come from the corpus's ``BASE`` (assembled at run time).
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import random
import tarfile
from pathlib import Path

import pytest

from contract_tests.conftest import run_cli
from contract_tests.privacy_corpus import BASE
from nerb_verify.loader import LoadFailure
from nerb_verify.privacy.compressed import compression_of, decompressed, inner_name, probe_first
from nerb_verify.privacy.profiles import CONTRACT, REPOSITORY
from nerb_verify.privacy.runner import scan_paths

EMAIL, PHONE, HOME = BASE["email"][0], BASE["phone_e164"][0], BASE["home"][0]
LOCAL, _, DOMAIN = EMAIL.partition("@")
COMPRESSORS = {"gzip": (gzip.compress, ".gz"), "bzip2": (bz2.compress, ".bz2"), "xz": (lzma.compress, ".xz")}


def _text(rng: random.Random, lines: int = 3000) -> str:
    rows = [f"{index},user_{rng.randrange(10**6)},{rng.random():.6f}" for index in range(lines)]
    rows[lines // 2] += f",{EMAIL}"
    rows[lines // 3] += f",call {PHONE}"
    rows[-2] += f",{LOCAL}"
    rows[-1] = f"@{DOMAIN}," + rows[-1]
    return "id,name,value\n" + "\n".join(rows) + f"\nsee {HOME}/notes\n"


def _found(result) -> list[tuple[str, str, int | None, int | None]]:
    return sorted((f.code, f.pointer, f.line, f.column) for f in result.findings)


@pytest.mark.parametrize("compression", sorted(COMPRESSORS))
@pytest.mark.parametrize("window", ["7", "4096", ""], ids=["tiny", "small", "default"])
def test_a_compressed_file_reports_what_it_holds(tmp_path: Path, compression: str, window: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    compress, suffix = COMPRESSORS[compression]
    text = _text(random.Random(5))
    plain = tmp_path / "rows.csv"
    plain.write_text(text, "utf-8")
    expected = _found(scan_paths([str(plain)], REPOSITORY))
    assert {code for code, *_rest in expected} >= {"privacy.email", "privacy.personal_path", "privacy.phone"}
    packed = tmp_path / ("rows.csv" + suffix)
    packed.write_bytes(compress(text.encode()))
    if window:
        monkeypatch.setenv("NERB_SCAN_WINDOW_BYTES", window)
    result = scan_paths([str(packed)], REPOSITORY)
    assert _found(result) == expected
    assert {f.artifact for f in result.findings} == {str(packed)}
    assert result.summary.compressed_files == 1 and result.summary.files_scanned == 1


@pytest.mark.parametrize("compression", sorted(COMPRESSORS))
def test_compressed_json_is_scanned_as_json(tmp_path: Path, compression: str) -> None:
    compress, suffix = COMPRESSORS[compression]
    document = json.dumps({"rows": [{"mail": EMAIL}, {"a": LOCAL, "b": "@" + DOMAIN}], "path": HOME + "/x"})
    plain = tmp_path / "a.json"
    plain.write_text(document, "utf-8")
    packed = tmp_path / ("a.json" + suffix)
    packed.write_bytes(compress(document.encode()))
    for profile in (CONTRACT, REPOSITORY):
        result = scan_paths([str(packed)], profile)
        assert result.summary.json_files == 1
        assert _found(result) == _found(scan_paths([str(plain)], profile))


def test_concatenated_streams_and_padding_are_read_like_gzip_does(tmp_path: Path) -> None:
    first, second = "clean line\n" * 100, f"then {EMAIL}\n"
    packed = tmp_path / "log.gz"
    members = gzip.compress(first.encode()) + gzip.compress(second.encode())
    assert gzip.decompress(members).decode() == first + second
    packed.write_bytes(members + b"\x00" * 16)
    result = scan_paths([str(packed)], REPOSITORY)
    assert [(f.code, f.line) for f in result.findings] == [("privacy.email", 101)]


@pytest.mark.parametrize("compression", sorted(COMPRESSORS))
def test_truncated_or_corrupt_data_is_not_scanned_and_says_so(tmp_path: Path, compression: str) -> None:
    compress, suffix = COMPRESSORS[compression]
    data = compress(_text(random.Random(9)).encode())
    truncated = tmp_path / ("cut" + suffix)
    truncated.write_bytes(data[: len(data) // 2])
    corrupt = tmp_path / ("bad" + suffix)
    corrupt.write_bytes(data[:20] + bytes(byte ^ 0x5A for byte in data[20:60]) + data[60:])
    for path in (truncated, corrupt):
        result = scan_paths([str(path)], REPOSITORY)
        assert [f.code for f in result.findings] == ["privacy.not_scanned"], path
        assert result.exit_code == 2 and result.summary.not_scanned == 1


def test_a_decompression_bomb_stops_at_the_limit_in_bounded_memory(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    bomb = tmp_path / "bomb.gz"
    bomb.write_bytes(gzip.compress(b"aaaa aaaa\n" * (4 << 20)))  # 40 MiB from about 40 KiB
    monkeypatch.setenv("NERB_SCAN_DECOMPRESSED_BYTES", str(8 << 20))
    result = scan_paths([str(bomb)], REPOSITORY)
    assert [f.code for f in result.findings] == ["privacy.not_scanned"] and result.exit_code == 2
    chunks = decompressed(iter([bomb.read_bytes()]), "gzip", 4096, 1 << 40)
    assert max(len(chunk) for chunk in chunks) <= 4096  # (output never held whole)


def test_binary_content_stays_binary_and_a_tar_inside_is_read(tmp_path: Path) -> None:
    # (Session 18: a compressed tar archive is read member by member, ``archives.py``; it was binary content.)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        payload = f"mail {EMAIL}\n".encode()
        info = tarfile.TarInfo("inside.txt")
        info.size = len(payload)
        archive.addfile(info, io.BytesIO(payload))
    (tmp_path / "bundle.tar.gz").write_bytes(buffer.getvalue())
    (tmp_path / "blob.gz").write_bytes(gzip.compress(random.Random(3).randbytes(50_000)))
    result = scan_paths([str(tmp_path)], REPOSITORY)
    assert result.summary.binary_skipped == 1 and result.summary.archives == 1
    assert [(f.code, f.artifact) for f in result.findings] == [
        ("privacy.email", str(tmp_path / "bundle.tar.gz") + "!/inside.txt")]


def test_the_helpers() -> None:
    assert compression_of(gzip.compress(b"x")) == "gzip" and compression_of(bz2.compress(b"x")) == "bzip2"
    assert compression_of(lzma.compress(b"x")) == "xz" and compression_of(b"PK\x03\x04") is None
    assert inner_name("a.JSON.GZ", "gzip") == "a.JSON" and inner_name("a.json", "gzip") == "a.json"
    assert inner_name("x.tar.xz", "xz") == "x.tar" and inner_name("r.csv.bz2", "bzip2") == "r.csv"
    windows = list(probe_first(iter([b"ab", b"cd", b"e" * 10, b"f"]), 5))
    assert windows[0] == b"abcd" + b"e" * 10 and b"".join(windows) == b"abcd" + b"e" * 10 + b"f"
    assert list(probe_first(iter([b"ab"]), 5)) == [b"ab"]
    data = b"line\n" * 10_000
    for compression, (compress, _suffix) in COMPRESSORS.items():
        packed = compress(data)
        pieces = [packed[start:start + 3] for start in range(0, len(packed), 3)]
        assert b"".join(decompressed(iter(pieces), compression, 100, 1 << 30)) == data
        with pytest.raises(LoadFailure):
            b"".join(decompressed(iter([packed]), compression, 100, 1000))


def test_the_summary_line_counts_decompressed_files(tmp_path: Path) -> None:
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(f"mail {EMAIL}\n".encode()))
    result = run_cli("scan", "--profile", "repository", str(tmp_path))
    assert result.code == 1 and "in 1 file(s) scanned (1 decompressed);" in result.stdout
    assert EMAIL not in result.stdout and LOCAL not in result.stdout


def test_the_name_inside_decides_the_kind_of_a_compressed_file(tmp_path: Path) -> None:
    # A compressed key-value file, SVG figure or office XML part is read as that kind of file (its joined views),
    # not as plain lines: ``config.yaml.gz`` holds ``config.yaml`` (session 18).
    at = chr(64)
    files = {"config.yaml": "contact:\n  user: jane.roe\n  domain: " + at + "corp-mail.org\n",
             "figure.svg": '<svg>\n<text x="1">+44 7911</text>\n<text x="2">123456</text>\n</svg>\n',
             "document.xml": "<w:body><w:p><w:r><w:t>jane.roe" + at + "</w:t></w:r><w:r><w:t>corp-mail.org"
                             "</w:t></w:r></w:p></w:body>\n"}
    for name, text in files.items():
        plain = tmp_path / name
        plain.write_text(text, "utf-8")
        packed = tmp_path / (name + ".gz")
        packed.write_bytes(gzip.compress(text.encode()))
        expected = [(f.code, f.line, f.column, f.message) for f in scan_paths([str(plain)], CONTRACT).findings]
        assert any("Adjacent strings" in message for *_rest, message in expected), (name, expected)
        found = [(f.code, f.line, f.column, f.message) for f in scan_paths([str(packed)], CONTRACT).findings]
        assert found == expected, name


def test_an_archive_member_named_as_personal_data_keeps_its_kind(tmp_path: Path) -> None:
    import zipfile

    at = chr(64)
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("jane.roe" + at + "corp-mail.org.yaml", "user: jane.roe\ndomain: " + at + "corp-mail.org\n")
    found = [(f.code, f.artifact.split("!/")[-1], f.message) for f in scan_paths([str(archive)], REPOSITORY).findings]
    assert ("privacy.email", "@name:0", found[0][2]) in found  # (the name itself)
    assert any(code == "privacy.email" and "Adjacent strings" in message for code, _a, message in found), found
