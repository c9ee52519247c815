"""Issue 17 (a pre-commit hook must not leave a file unscanned), session 18: zip and tar archives are read member
by member.

A committed zip archive (or a document format built on one: ``.docx``, ``.xlsx``, ``.odt``, ``.epub``) was binary
to the scanner. Each member is now scanned as the file it holds, with the findings a file of the same name and
content on disk gets, named ``<archive>!/<member>``; a member name that is personal data is a name finding shown as
``@name:<index>``; what cannot be read (an encrypted member, corrupt data, a member past the archive's limits, a
file that only starts like an archive) is not scanned and says so (exit 2).

Must-reject values are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

import gzip
import io
import json
import random
import tarfile
import zipfile
from pathlib import Path

import pytest

from contract_tests.conftest import run_cli
from contract_tests.outputs_helpers import sarif_errors
from nerb_verify.privacy.profiles import CONTRACT, REPOSITORY
from nerb_verify.privacy.runner import scan_paths

AT = chr(64)
LOCAL, HOST = "jane." + "roe", "corp-" + "mail.org"
EMAIL = LOCAL + AT + HOST
PHONE = "(713) " + "555-" + "0123"

MEMBERS: dict[str, bytes] = {
    "docs/readme.txt": ("hello\n" * 3000 + "contact " + EMAIL + " today\n").encode(),
    "data/rows.json": json.dumps({"rows": [{"value": LOCAL}, {"value": AT + HOST}], "note": "ok"}).encode(),
    "notes.md": ("# Notes\n\nCall " + PHONE + ".\n").encode("utf-16"),
    "clean.py": b"def f(x):\n    return x + 1\n",
}


def _findings(paths: list[Path], profile=CONTRACT, **kwargs: object) -> list[tuple[str, str, str, int | None]]:
    result = scan_paths([str(path) for path in paths], profile, **kwargs)
    return [(f.code, f.artifact, f.pointer, f.line) for f in result.findings]


def _archive(tmp_path: Path, members: dict[str, bytes], name: str = "bundle.zip",
             method: int = zipfile.ZIP_DEFLATED) -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", method) as archive:
        for member, data in members.items():
            archive.writestr(member, data)
    return path


def _tar(tmp_path: Path, members: dict[str, bytes], name: str = "bundle.tar", mode: str = "w",
         links: dict[str, str] | None = None) -> Path:
    path = tmp_path / name
    with tarfile.open(path, mode) as archive:
        for member, data in members.items():
            info = tarfile.TarInfo(member)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for member, target in (links or {}).items():
            info = tarfile.TarInfo(member)
            info.type, info.linkname = tarfile.SYMTYPE, target
            archive.addfile(info)
    return path


# Every way an archive is written here: zip with each method Python writes, tar plain and compressed.
_WRITERS = [("zip-stored", lambda d, m: _archive(d, m, method=zipfile.ZIP_STORED)),
            ("zip-deflated", lambda d, m: _archive(d, m, method=zipfile.ZIP_DEFLATED)),
            ("zip-bzip2", lambda d, m: _archive(d, m, method=zipfile.ZIP_BZIP2)),
            ("zip-lzma", lambda d, m: _archive(d, m, method=zipfile.ZIP_LZMA)),
            ("tar", lambda d, m: _tar(d, m)),
            ("tar-gz", lambda d, m: _tar(d, m, "bundle.tar.gz", "w:gz")),
            ("tar-bz2", lambda d, m: _tar(d, m, "bundle.tar.bz2", "w:bz2")),
            ("tar-xz", lambda d, m: _tar(d, m, "bundle.tar.xz", "w:xz"))]


@pytest.mark.parametrize("writer", [writer for _name, writer in _WRITERS], ids=[name for name, _w in _WRITERS])
@pytest.mark.parametrize("profile", [CONTRACT, REPOSITORY])
def test_each_member_gets_the_findings_of_the_same_file_on_disk(tmp_path: Path, writer, profile) -> None:
    archive = writer(tmp_path, MEMBERS)
    on_disk = tmp_path / "unpacked"
    expected = []
    for member, data in MEMBERS.items():
        target = on_disk / member
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        prefix = str(on_disk) + "/"
        expected += [(code, str(archive) + "!/" + artifact[len(prefix):], pointer, line)
                     for code, artifact, pointer, line in _findings([target], profile)]
    found = _findings([archive], profile)
    assert sorted(found) == sorted(expected)
    assert {artifact.split("!/")[1] for _c, artifact, _p, _l in found} >= {"docs/readme.txt", "data/rows.json"}
    result = scan_paths([str(archive)], profile)
    assert result.summary.archives == 1 and result.summary.archive_members == 4 and result.exit_code == 1


def test_a_member_name_that_is_personal_data_is_reported_not_shown(tmp_path: Path) -> None:
    archive = _archive(tmp_path, {f"people/{EMAIL}/card.txt": b"nothing to see\n"})
    found = _findings([archive])
    assert found == [("privacy.email", str(archive) + "!/people/@name:1/card.txt", "", None)]


def test_compressed_members_are_decompressed_and_archives_inside_are_read(tmp_path: Path) -> None:
    inner = _archive(tmp_path, {"x.txt": EMAIL.encode()}, name="inner.zip").read_bytes()
    archive = _archive(tmp_path, {"log.txt.gz": gzip.compress(("call " + PHONE + "\n").encode()),
                                  "inner.zip": inner, "image.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"})
    result = scan_paths([str(archive)], CONTRACT)
    assert sorted((f.code, f.artifact, f.line) for f in result.findings) == [
        ("privacy.email", str(archive) + "!/inner.zip!/x.txt", 1), ("privacy.phone", str(archive) + "!/log.txt.gz", 1)]
    assert result.summary.binary_skipped == 1 and result.summary.compressed_files == 1
    assert result.summary.archives == 2  # (test_privacy_nested_archives.py reads archives inside archives)


def _flag_encrypted(raw: bytes) -> bytes:
    """The archive with the "encrypted" flag set on its (single) member, in both headers."""
    data = bytearray(raw)
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        data[at + offset] |= 0x01
    return bytes(data)


def test_what_cannot_be_read_is_not_scanned_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    encrypted = tmp_path / "secret.zip"
    encrypted.write_bytes(_flag_encrypted(_archive(tmp_path, {"a.txt": b"hello\n"}, name="plain.zip").read_bytes()))
    stored = _archive(tmp_path, {"a.txt": b"hello world, nothing here\n"}, name="corrupt.zip",
                      method=zipfile.ZIP_STORED)
    raw = bytearray(stored.read_bytes())
    raw[raw.find(b"hello world")] ^= 0x01  # (the CRC no longer matches)
    stored.write_bytes(bytes(raw))
    fake = tmp_path / "fake.zip"
    fake.write_bytes(b"PK\x03\x04" + b"not an archive at all\n" * 10)
    for path, artifact in ((encrypted, str(encrypted) + "!/a.txt"), (stored, str(stored) + "!/a.txt"),
                           (fake, str(fake))):
        result = scan_paths([str(path)], REPOSITORY)
        assert [(f.code, f.artifact) for f in result.findings] == [("privacy.not_scanned", artifact)], path
        assert result.exit_code == 2 and result.summary.not_scanned == 1
    bomb = _archive(tmp_path, {"big.txt": b"all clear\n" * 200_000, "small.txt": b"ok\n"}, name="bomb.zip")
    monkeypatch.setenv("NERB_SCAN_DECOMPRESSED_BYTES", "100000")
    result = scan_paths([str(bomb)], REPOSITORY)
    # big.txt passes the limit, and every member after it lies past it too (the budget is the archive's)
    assert [(f.code, f.artifact) for f in result.findings] == [("privacy.not_scanned", str(bomb) + "!/big.txt"),
                                                               ("privacy.not_scanned", str(bomb) + "!/small.txt")]
    assert result.exit_code == 2 and result.summary.archive_members == 0


def test_a_link_in_a_tar_archive_is_scanned_as_a_link(tmp_path: Path) -> None:
    home = "/ho" + "me/" + "jroe/notes"
    archive = _tar(tmp_path, {"a.txt": b"fine\n"}, links={"latest": home, "ok": "a.txt"})
    result = scan_paths([str(archive)], REPOSITORY)
    assert [(f.code, f.artifact) for f in result.findings] == [("privacy.personal_path", str(archive) + "!/latest")]
    assert "jroe" not in json.dumps([f.message for f in result.findings])


def test_a_truncated_tar_archive_is_not_scanned_past_where_it_breaks(tmp_path: Path) -> None:
    rows = "".join(f"row {index} {random.Random(index).randbytes(16).hex()}\n" for index in range(2000))
    archive = _tar(tmp_path, {"a.txt": ("mail " + EMAIL + "\n").encode(), "b.txt": rows.encode()}, "t.tar.gz",
                   "w:gz")
    raw = archive.read_bytes()
    assert len(raw) > 20_000
    archive.write_bytes(raw[:-2000])  # (cut inside b.txt)
    result = scan_paths([str(archive)], REPOSITORY)
    # what lies before the cut is scanned; b.txt, which does not decompress to its end, is not, and neither is
    # the rest of the archive (its next header cannot be read)
    assert sorted((f.code, f.artifact) for f in result.findings) == [
        ("privacy.email", str(archive) + "!/a.txt"), ("privacy.not_scanned", str(archive)),
        ("privacy.not_scanned", str(archive) + "!/b.txt")]
    assert result.exit_code == 1 and result.summary.not_scanned == 2  # (findings decide the exit code first)


def test_an_empty_archive_is_clean(tmp_path: Path) -> None:
    empty = _archive(tmp_path, {})
    result = scan_paths([str(empty)], CONTRACT)
    assert result.findings == [] and result.exit_code == 0 and result.summary.archives == 1


def test_the_cli_reads_archives_in_a_tree_with_jobs_and_in_sarif(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    for index in range(3):
        _archive(tree, MEMBERS, name=f"copy{index}.zip")
    one = run_cli("scan", "--profile", "contract", "--jobs", "1", str(tree))
    two = run_cli("scan", "--profile", "contract", "--jobs", "2", str(tree))
    assert one.code == two.code == 1 and one.stdout == two.stdout
    assert "read from 3 archive(s)" in one.stdout
    sarif = run_cli("scan", "--profile", "contract", "--format", "sarif", str(tree))
    log = json.loads(sarif.stdout)
    assert sarif_errors(log) == []
    for text in (one.stdout, sarif.stdout):
        for value in (LOCAL, HOST, "555-", "0123"):
            assert value not in text


def test_an_archive_has_one_member_limit_and_one_report_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nerb_verify.privacy import archives, messages

    members = {f"m{index}.txt": ("mail " + EMAIL + "\n").encode() for index in range(6)}
    archive = _archive(tmp_path, members)
    monkeypatch.setattr(archives, "MAX_MEMBERS", 4)
    result = scan_paths([str(archive)], REPOSITORY)
    # four members read, then one finding for the rest (not one per member)
    assert sorted((f.code, f.artifact.split("!/")[-1]) for f in result.findings) == [
        ("privacy.email", f"m{index}.txt") for index in range(4)] + [("privacy.not_scanned", str(archive))]
    monkeypatch.setattr(archives, "MAX_MEMBERS", 100)
    monkeypatch.setattr(messages, "MAX_FINDINGS_PER_FILE", 3)
    result = scan_paths([str(archive)], REPOSITORY)
    assert sorted((f.code, f.artifact == str(archive)) for f in result.findings) == [
        ("privacy.email", False)] * 3 + [("privacy.findings_truncated", True)]


def test_a_compressed_tar_archive_is_read_once_front_to_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each member is read once from the archive and replayed from a spool when it is read again (a JSON member that
    does not parse is read again as text, a text member that is not UTF-8 leniently): a gzip stream cannot seek back
    without decompressing from its start again, which made every member cost the archive so far."""
    import gzip

    rewinds = []
    original = gzip._GzipReader._rewind  # type: ignore[attr-defined]

    def counted(self):  # type: ignore[no-untyped-def]
        rewinds.append(1)
        return original(self)

    monkeypatch.setattr(gzip._GzipReader, "_rewind", counted)  # type: ignore[attr-defined]
    members = {f"part{index}/rows.txt": ("row " + str(index) + "\n").encode() * 500 for index in range(40)}
    members["broken.json"] = b'{"rows": [1, 2,'  # (read again, as text)
    members["latin.txt"] = ("caf\xe9 " + EMAIL + "\n").encode("latin-1")  # (read again, leniently)
    archive = _tar(tmp_path, members, "many.tar.gz", "w:gz")
    result = scan_paths([str(archive)], REPOSITORY)
    assert [(f.code, f.artifact.split("!/")[-1]) for f in result.findings] == [("privacy.email", "latin.txt")]
    assert result.summary.archive_members == 42 and result.summary.not_utf8_files == 1
    assert rewinds == []
