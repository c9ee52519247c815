"""Issue 17 (a pre-commit hook must not leave a file unscanned), session 20: an archive inside an archive is read.

A zip of documents (``.docx`` files are zip archives), a wheel or jar vendored inside a zip, a ``.tar.gz`` of
release tarballs: the inner archive was counted as binary, so whatever it held passed the hook. Each inner archive
is now read as the outer one is, its members named ``outer.zip!/inner.zip!/member`` and given the findings the same
file on disk gets. Limits are those of the file on disk, shared by every archive inside it: the decompressed-byte
budget (an inner archive's bytes count once as the outer member and again as its own members are read), the member
limit and the report limit; an archive nested deeper than ``archives.MAX_DEPTH`` is not scanned and says so, so a
self-containing zip quine ends. A zip archive compressed as a whole (``x.zip.gz``) is read as a zip too.

Must-reject values are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import tarfile
import zipfile
from pathlib import Path

import pytest

from contract_tests.conftest import run_cli
from nerb_verify.privacy.profiles import CONTRACT, REPOSITORY
from nerb_verify.privacy.runner import scan_paths

AT = chr(64)
LOCAL, HOST = "jane." + "roe", "corp-" + "mail.org"
EMAIL = LOCAL + AT + HOST
PHONE = "(713) " + "555-" + "0123"
HOME = "/ho" + "me/" + "jroe/notes"

MEMBERS: dict[str, bytes] = {
    "docs/readme.txt": ("hello\n" * 300 + "contact " + EMAIL + " today\n").encode(),
    "data/rows.json": json.dumps({"rows": [{"value": LOCAL}, {"value": AT + HOST}], "note": "ok"}).encode(),
    "notes.md": ("# Notes\n\nCall " + PHONE + ".\n").encode("utf-16"),
    "log.txt.gz": gzip.compress(("saved to " + HOME + "\n").encode()),
    "clean.py": b"def f(x):\n    return x + 1\n",
}


def _zip_bytes(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _tar_bytes(members: dict[str, bytes], mode: str = "w") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _findings(path: Path, profile=CONTRACT) -> list[tuple[str, str, str, int | None]]:
    return sorted((f.code, f.artifact, f.pointer, f.line) for f in scan_paths([str(path)], profile).findings)


# Inner archive formats (name, bytes) and outer ones (name, writer).
_INNER = [("inner.zip", lambda m: _zip_bytes(m)), ("inner.jar", lambda m: _zip_bytes(m, zipfile.ZIP_STORED)),
          ("inner.tar", lambda m: _tar_bytes(m)), ("inner.tar.gz", lambda m: _tar_bytes(m, "w:gz")),
          ("inner.tar.xz", lambda m: _tar_bytes(m, "w:xz")),
          # a zip compressed as a whole (session 21): decompressed into a spool, then read as a zip
          ("inner.zip.gz", lambda m: gzip.compress(_zip_bytes(m))),
          ("inner.zip.xz", lambda m: lzma.compress(_zip_bytes(m))),
          ("inner.jar.bz2", lambda m: bz2.compress(_zip_bytes(m, zipfile.ZIP_STORED)))]
_OUTER = [("outer.zip", lambda m: _zip_bytes(m)), ("outer.tar.gz", lambda m: _tar_bytes(m, "w:gz"))]


@pytest.mark.parametrize("inner_name, inner", _INNER, ids=[name for name, _w in _INNER])
@pytest.mark.parametrize("outer_name, outer", _OUTER, ids=[name for name, _w in _OUTER])
@pytest.mark.parametrize("profile", [CONTRACT, REPOSITORY], ids=["contract", "repository"])
def test_an_inner_archive_gets_the_findings_of_the_same_archive_on_disk(tmp_path: Path, inner_name, inner,
                                                                         outer_name, outer, profile) -> None:
    inner_bytes = inner(MEMBERS)
    alone = tmp_path / inner_name
    alone.write_bytes(inner_bytes)
    expected = [(code, "OUTER!/" + artifact[len(str(tmp_path)) + 1:], pointer, line)
                for code, artifact, pointer, line in _findings(alone, profile)]
    assert {artifact.split("!/")[-1] for _c, artifact, _p, _l in expected} >= {
        "docs/readme.txt", "data/rows.json", "log.txt.gz"}
    path = tmp_path / outer_name
    path.write_bytes(outer({"top.txt": b"nothing here\n", "sub/" + inner_name: inner_bytes}))
    found = [(code, artifact.replace(str(path), "OUTER"), pointer, line)
             for code, artifact, pointer, line in _findings(path, profile)]
    assert found == sorted((code, artifact.replace("OUTER!/", "OUTER!/sub/"), pointer, line)
                           for code, artifact, pointer, line in expected)
    result = scan_paths([str(path)], profile)
    assert result.summary.archives == 2 and result.summary.files_scanned == 1 and result.exit_code == 1


def test_three_levels_deep_and_a_document_inside(tmp_path: Path) -> None:
    document = _zip_bytes({"word/document.xml": ('<w:document><w:body><w:p><w:r><w:t>' + LOCAL + '</w:t></w:r>'
                                                 '<w:r><w:t>' + AT + HOST + '</w:t></w:r></w:p></w:body>'
                                                 '</w:document>').encode()})
    middle = _tar_bytes({"report.docx": document, "ok.txt": b"fine\n"}, "w:bz2")
    path = tmp_path / "release.zip"
    path.write_bytes(_zip_bytes({"dist/middle.tar.bz2": middle}))
    found = _findings(path, REPOSITORY)
    assert [(code, artifact) for code, artifact, _p, _l in found] == [
        ("privacy.email", str(path) + "!/dist/middle.tar.bz2!/report.docx!/word/document.xml")]


def test_a_member_name_inside_an_inner_archive_is_reported_not_shown(tmp_path: Path) -> None:
    path = tmp_path / "outer.zip"
    path.write_bytes(_zip_bytes({"in.zip": _zip_bytes({"people/" + EMAIL + "/card.txt": b"nothing\n"})}))
    assert _findings(path) == [("privacy.email", str(path) + "!/in.zip!/people/@name:1/card.txt", "", None)]


def test_nesting_past_the_depth_limit_is_not_scanned_and_a_quine_ends(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from nerb_verify.privacy import archives

    data = _zip_bytes({"a.txt": ("mail " + EMAIL + "\n").encode()})
    for _level in range(archives.MAX_DEPTH):
        data = _zip_bytes({"n.zip": data})
    path = tmp_path / "deep.zip"
    path.write_bytes(data)  # MAX_DEPTH + 1 archives: the innermost is one too deep
    result = scan_paths([str(path)], REPOSITORY)
    assert [(f.code, f.artifact) for f in result.findings] == [
        ("privacy.not_scanned", str(path) + "!/n.zip" * archives.MAX_DEPTH)]
    assert result.exit_code == 2 and result.summary.archives == archives.MAX_DEPTH
    assert "load.too_deep" in result.findings[0].message
    monkeypatch.setattr(archives, "MAX_DEPTH", archives.MAX_DEPTH + 1)
    assert [f.code for f in scan_paths([str(path)], REPOSITORY).findings] == ["privacy.email"]
    # An archive that holds itself (the same bytes at every level) ends at the limit too.
    quine = tmp_path / "self.zip"
    monkeypatch.setattr(archives, "MAX_DEPTH", 3)
    real_members = archives.members

    def self_holding(handle, kind, read_size, budget):  # every archive read holds one member: its own bytes
        raw = quine.read_bytes()
        yield archives.Member("self.zip", archives.MemberBytes(lambda: io.BytesIO(raw), read_size, budget), None)

    quine.write_bytes(_zip_bytes({"x.txt": b"x\n"}))
    monkeypatch.setattr(archives, "members", self_holding)
    result = scan_paths([str(quine)], REPOSITORY)
    monkeypatch.setattr(archives, "members", real_members)
    assert [(f.code, f.artifact.count("!/")) for f in result.findings] == [("privacy.not_scanned", 3)]


def test_the_limits_are_the_outer_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nerb_verify.privacy import archives, messages

    inner = _zip_bytes({f"m{index}.txt": ("mail " + EMAIL + "\n").encode() for index in range(4)})
    path = tmp_path / "outer.zip"
    path.write_bytes(_zip_bytes({"a.zip": inner, "b.zip": inner}))
    # members: a.zip, its four, b.zip: the sixth is past a limit of 5; one finding for it, at the outer file
    monkeypatch.setattr(archives, "MAX_MEMBERS", 5)
    result = scan_paths([str(path)], REPOSITORY)
    assert sorted((f.code, f.artifact.removeprefix(str(path))) for f in result.findings) == [
        ("privacy.email", f"!/a.zip!/m{index}.txt") for index in range(4)] + [("privacy.not_scanned", "")]
    monkeypatch.setattr(archives, "MAX_MEMBERS", 100)
    monkeypatch.setattr(messages, "MAX_FINDINGS_PER_FILE", 3)
    result = scan_paths([str(path)], REPOSITORY)
    assert sorted((f.code, f.artifact == str(path)) for f in result.findings) == [
        ("privacy.email", False)] * 3 + [("privacy.findings_truncated", True)]
    monkeypatch.setattr(messages, "MAX_FINDINGS_PER_FILE", 1000)
    # the decompressed budget is shared: the inner archive's bytes count as the outer member, then its members again
    big = _zip_bytes({"big.txt": b"all clear\n" * 20_000})  # 200,000 bytes inside, about 1 KB compressed
    path.write_bytes(_zip_bytes({"big.zip": big, "after.txt": b"ok\n"}))
    monkeypatch.setenv("NERB_SCAN_DECOMPRESSED_BYTES", "100000")
    result = scan_paths([str(path)], REPOSITORY)
    assert sorted((f.code, f.artifact.removeprefix(str(path))) for f in result.findings) == [
        ("privacy.not_scanned", "!/after.txt"), ("privacy.not_scanned", "!/big.zip!/big.txt")]


def test_a_broken_inner_archive_is_not_scanned_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "outer.zip"
    path.write_bytes(_zip_bytes({"fake.zip": b"PK\x03\x04" + b"not an archive\n" * 20, "ok.txt": b"fine\n",
                                 "mail.txt": ("mail " + EMAIL + "\n").encode()}))
    result = scan_paths([str(path)], REPOSITORY)
    assert sorted((f.code, f.artifact.removeprefix(str(path))) for f in result.findings) == [
        ("privacy.email", "!/mail.txt"), ("privacy.not_scanned", "!/fake.zip")]


def test_the_cli_names_the_inner_member_and_never_the_value(tmp_path: Path) -> None:
    path = tmp_path / "outer.zip"
    path.write_bytes(_zip_bytes({"in.tar.gz": _tar_bytes(MEMBERS, "w:gz")}))
    for output in ("text", "json", "sarif", "github"):
        result = run_cli("scan", "--profile", "contract", "--format", output, "outer.zip", cwd=tmp_path)
        assert result.code == 1
        assert "in.tar.gz!/docs/readme.txt" in result.stdout
        for value in (LOCAL, HOST, "555-", "0123", "jroe"):
            assert value not in result.stdout


def test_a_zip_compressed_as_a_whole_is_read_and_fails_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Session 21: a zip's directory is at its end, so a gzip, bzip2 or xz of a zip was read as its decompressed
    # bytes, which are binary: everything in it passed. Now it is decompressed into a spool and read as a zip.
    inner = _zip_bytes({"mail.txt": ("mail " + EMAIL + "\n").encode(), "ok.txt": b"fine\n"})
    path = tmp_path / "export.zip.gz"
    path.write_bytes(gzip.compress(inner))
    result = scan_paths([str(path)], REPOSITORY)
    assert [(f.code, f.artifact) for f in result.findings] == [("privacy.email", str(path) + "!/mail.txt")]
    assert result.summary.archives == 1 and result.summary.archive_members == 2 and result.exit_code == 1
    # truncated: not scanned, at the file
    path.write_bytes(gzip.compress(inner)[:-40])
    result = scan_paths([str(path)], REPOSITORY)
    assert [(f.code, f.artifact) for f in result.findings] == [("privacy.not_scanned", str(path))]
    assert "load.unreadable" in result.findings[0].message and result.exit_code == 2
    # past the decompressed budget while it is spooled: not scanned, too large
    path.write_bytes(gzip.compress(_zip_bytes({"big.txt": b"all clear\n" * 20_000}, zipfile.ZIP_STORED)))
    monkeypatch.setenv("NERB_SCAN_DECOMPRESSED_BYTES", "100000")
    result = scan_paths([str(path)], REPOSITORY)
    assert [(f.code, f.artifact) for f in result.findings] == [("privacy.not_scanned", str(path))]
    assert "load.too_large" in result.findings[0].message
    # the spooled bytes are charged, and the members' bytes again: the budget covers both
    monkeypatch.setenv("NERB_SCAN_DECOMPRESSED_BYTES", str(len(inner) + 5))
    small = tmp_path / "small.zip.xz"
    small.write_bytes(lzma.compress(inner))
    result = scan_paths([str(small)], REPOSITORY)
    assert [f.code for f in result.findings] == ["privacy.not_scanned"] * 2  # both members, past the budget
    monkeypatch.setenv("NERB_SCAN_DECOMPRESSED_BYTES", str(2 * len(inner)))
    assert [f.code for f in scan_paths([str(small)], REPOSITORY).findings] == ["privacy.email"]
