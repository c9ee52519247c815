"""Text files in UTF-16 and UTF-32 (issue 17, "nor leave it unscanned"): a file written as wide text, with or without
a byte order mark, is decoded and scanned, and reports exactly what the same text reports as UTF-8 (lines, columns,
JSON pointers, joined views), in memory and streamed; binary files stay binary.

Must-reject values come from the corpus's ``BASE`` (assembled at run time).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract_tests.conftest import run_cli
from contract_tests.privacy_corpus import BASE
from nerb_verify.privacy import stream
from nerb_verify.privacy.profiles import CONTRACT, REPOSITORY
from nerb_verify.privacy.runner import scan_paths
from nerb_verify.privacy.text_encoding import reads_as_text, text_encoding

EMAIL, PHONE, HOME = BASE["email"][0], BASE["phone_e164"][0], BASE["home"][0]
LOCAL, _, DOMAIN = EMAIL.partition("@")
# (codec for str.encode, whether it writes a byte order mark, the encoding text_encoding should name)
CODECS = [("utf-16", True, "utf-16-le"), ("utf-16-le", False, "utf-16-le"), ("utf-16-be", False, "utf-16-be"),
          ("utf-32", True, "utf-32-le"), ("utf-32-le", False, "utf-32-le"), ("utf-32-be", False, "utf-32-be")]
MARKED = [("utf-16-be", "\ufeff"), ("utf-32-be", "\ufeff")]  # big-endian with an explicit mark

TEXT = ("name,contact,note\n"
        f"Jane,{EMAIL},first\n"
        "Ann,none,second\n"
        f"  call {PHONE} or look in {HOME}/x\n"
        f"split {LOCAL}\n"
        f"@{DOMAIN} here\n"
        "Zoë, naïve café, 東京, Москва\n")


def _found(result) -> list[tuple[str, str, int | None, int | None]]:
    return [(f.code, f.pointer, f.line, f.column) for f in result.findings]


def _scan(path: Path, profile=REPOSITORY):
    return scan_paths([str(path)], profile)


def _write(path: Path, text: str, codec: str, mark: str = "") -> Path:
    path.write_bytes((mark + text).encode(codec))
    return path


@pytest.mark.parametrize("profile", [REPOSITORY, CONTRACT], ids=["repository", "contract"])
@pytest.mark.parametrize(("codec", "mark"), [(codec, "") for codec, _bom, _name in CODECS] + MARKED)
def test_a_wide_text_file_reports_what_its_utf8_form_reports(tmp_path: Path, codec: str, mark: str,
                                                             profile) -> None:
    expected = _found(_scan(_write(tmp_path / "a.csv", TEXT, "utf-8"), profile))
    assert {code for code, *_rest in expected} >= {"privacy.email", "privacy.personal_path"}
    assert any(pointer == "" and column == 1 and line == 5 for _code, pointer, line, column in expected)  # joined
    wide = _scan(_write(tmp_path / "b.csv", TEXT, codec, mark), profile)
    assert _found(wide) == expected
    assert wide.summary.wide_text_files == 1 and wide.summary.binary_skipped == 0


@pytest.mark.parametrize(("codec", "mark"), [(codec, "") for codec, _bom, _name in CODECS] + MARKED)
def test_a_streamed_wide_text_file_reports_what_it_reports_in_memory(tmp_path: Path, codec: str, mark: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    text = TEXT * 40
    path = _write(tmp_path / "a.txt", text, codec, mark)
    expected = _found(_scan(path))
    assert expected
    monkeypatch.setenv("NERB_SCAN_STREAM_BYTES", "64")
    monkeypatch.setenv("NERB_SCAN_WINDOW_BYTES", "7")  # (windows that cut code units and surrogate pairs)
    streamed = _scan(path)
    assert streamed.summary.streamed == 1 and streamed.summary.wide_text_files == 1
    assert _found(streamed) == expected


@pytest.mark.parametrize("streamed", [False, True], ids=["memory", "streamed"])
@pytest.mark.parametrize(("codec", "mark"), [("utf-16", ""), ("utf-16-le", ""), ("utf-32-be", "\ufeff")])
def test_wide_json_is_scanned_as_json(tmp_path: Path, codec: str, mark: str, streamed: bool,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    document = json.dumps({"rows": [{"mail": EMAIL}, {"a": LOCAL, "b": "@" + DOMAIN}], "path": HOME + "/x",
                           "city": "東京"}, ensure_ascii=False)
    expected = _found(_scan(_write(tmp_path / "a.json", document, "utf-8"), CONTRACT))
    assert len(expected) >= 3
    path = _write(tmp_path / "b.json", document, codec, mark)
    if streamed:
        monkeypatch.setenv("NERB_SCAN_STREAM_BYTES", "64")
        monkeypatch.setenv("NERB_SCAN_WINDOW_BYTES", "11")
    result = _scan(path, CONTRACT)
    assert result.summary.json_files == 1 and result.summary.json_scanned_as_text == 0
    assert sorted(_found(result)) == sorted(expected + [("load.invalid_utf8", "", None, None)])  # (see below)


@pytest.mark.parametrize(("codec", "has_mark", "name"), CODECS)
def test_the_encoding_is_named_by_its_mark_or_its_nul_bytes(codec: str, has_mark: bool, name: str) -> None:
    for text in ("a", "plain ASCII text\r\n", "Zoë naïve", "mixed 東京 and ASCII", "emoji \U0001f600 too", "東京 ab"):
        data = text.encode(codec)
        assert text_encoding(data) == name, (codec, text)
        assert data.decode(name).removeprefix("\ufeff") == text


def test_utf8_and_wide_text_without_ascii() -> None:
    assert text_encoding(b"") == "utf-8"
    assert text_encoding("plain 東京".encode()) == "utf-8"
    assert text_encoding("\ufeffplain".encode()) == "utf-8"  # (the UTF-8 mark is removed by the caller)
    assert text_encoding("東京".encode("utf-16")) == "utf-16-le"  # a mark, no NUL byte at all
    assert text_encoding("東京".encode("utf-32-be")) is None  # no mark, not a single ASCII character
    assert text_encoding("東京大阪 a".encode("utf-16-le")) is None  # no mark, less than half ASCII


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(st.characters(blacklist_categories=("Cc", "Cs", "Cn", "Co")), min_size=1, max_size=200),
       codec=st.sampled_from(["utf-16", "utf-32", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]))
def test_any_text_in_a_wide_encoding_reads_back(text: str, codec: str) -> None:
    """Any text in a wide encoding with a mark is named so, and text at least half ASCII is named so without one too;
    the file decodes back to the text in the encoding named."""
    data = text.encode(codec)
    name = text_encoding(data[:8192])
    if codec in ("utf-16", "utf-32") or sum(map(str.isascii, text)) * 2 >= len(text):
        assert name is not None
    if name is not None and name != "utf-8":
        assert data.decode(name).removeprefix("\ufeff") == text


def test_binary_stays_binary(tmp_path: Path) -> None:
    rng = random.Random(20261203)
    samples = [rng.randbytes(rng.choice([4, 16, 100, 1000, 9000])) for _ in range(400)]
    samples += [b"\x00\x01\x02\x03", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + rng.randbytes(3000),
                b"".join(value.to_bytes(4, "little") for value in range(3000)),
                b"".join(value.to_bytes(2, "big") for value in range(3000)),
                b"\x7fELF\x02\x01\x01\x00" + bytes(56) + rng.randbytes(2000),
                _mark_then_junk(rng)]
    wrongly = [sample[:16].hex() for sample in samples
               if b"\x00" in sample[:8192] and text_encoding(sample[:8192]) not in (None, "utf-8")]
    assert wrongly == []
    for index, sample in enumerate(samples[-6:]):
        (tmp_path / f"b{index}.bin").write_bytes(sample)
    result = scan_paths([str(tmp_path)], REPOSITORY)
    assert result.summary.binary_skipped == 6 and result.summary.wide_text_files == 0


def _mark_then_junk(rng: random.Random) -> bytes:
    # A UTF-16 mark followed by random units: a lone surrogate or a control character within the probe.
    return b"\xff\xfe" + rng.randbytes(6000)


@pytest.mark.parametrize("streamed", [False, True], ids=["memory", "streamed"])
def test_wide_text_that_does_not_decode_to_the_end_is_binary(tmp_path: Path, streamed: bool,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    good = ("contact " + EMAIL + "\n") * 600
    odd = _write(tmp_path / "odd.txt", good, "utf-16")
    odd.write_bytes(odd.read_bytes() + b"\x41")  # half a code unit at the end
    lone = tmp_path / "lone.txt"
    lone.write_bytes(good.encode("utf-16") + "\ud800".encode("utf-16-le", "surrogatepass") + "x".encode("utf-16-le"))
    if streamed:
        monkeypatch.setenv("NERB_SCAN_STREAM_BYTES", "1024")
    result = scan_paths([str(odd), str(lone)], REPOSITORY)
    assert result.summary.binary_skipped == 2 and result.findings == []


def test_a_control_character_is_not_text() -> None:
    assert reads_as_text("tab\tand line\r\nfeed\fform\vvertical")
    assert not reads_as_text("bell\x07") and not reads_as_text("nul\x00") and not reads_as_text("del\x7f")
    assert not reads_as_text("private \ue000") and not reads_as_text("unassigned \U000e0fff")
    assert reads_as_text("no-break\u00a0space, em\u2003space, zero\u200bwidth")


def test_stream_decoder_names_the_wide_encoding_once() -> None:
    wide: list[str] = []
    data = ("\ufeff" + TEXT).encode("utf-16-be")
    text = "".join(stream.decoded(iter([data[:8192], data[8192:]]), wide))
    assert text == TEXT and wide == ["utf-16-be"]


def test_the_summary_line_counts_wide_files(tmp_path: Path) -> None:
    _write(tmp_path / "a.txt", TEXT, "utf-16")
    _write(tmp_path / "b.txt", "clean text\n", "utf-8")
    result = run_cli("scan", "--profile", "repository", str(tmp_path))
    assert result.code == 1
    assert "in 2 file(s) scanned (1 in UTF-16 or UTF-32); 0 binary file(s) skipped" in result.stdout
    assert EMAIL not in result.stdout and LOCAL not in result.stdout and DOMAIN not in result.stdout


# --- UTF-8 with stray bytes --------------------------------------------------------------------------------------

STRAYS = [b"\xff", b"caf\xe9", b"\x80\x81", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf"]


@pytest.mark.parametrize("stray", STRAYS, ids=[stray.hex() for stray in STRAYS])
@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_one_stray_byte_does_not_hide_a_file(tmp_path: Path, stray: bytes, where: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """UTF-8 text with an invalid sequence is scanned with a replacement character for it (it was skipped whole as
    binary), in memory and streamed alike, and reports what the text reports without it."""
    body = (TEXT * 3).encode()
    clean = _scan(_write(tmp_path / "clean.txt", TEXT * 3, "utf-8"))
    cut = {"start": 0, "middle": len(TEXT.encode()) + 3, "end": len(body)}[where]
    if where == "middle":
        cut = body.index(b"\n", cut) + 1  # (a line of its own, so no column moves)
        data = body[:cut] + stray + b"\n" + body[cut:]
    elif where == "start":
        data = stray + b"\n" + body
    else:
        data = body + stray
    path = tmp_path / "stray.txt"
    path.write_bytes(data)
    memory = _scan(path)
    assert memory.summary.not_utf8_files == 1 and memory.summary.binary_skipped == 0
    before = data[:data.index(stray)].count(b"\n") + 1  # (the stray's own line; the lines after it move down one)
    moved = 0 if where == "end" else 1
    expected = [(code, pointer, line + moved if line is not None and line >= before else line, column)
                for code, pointer, line, column in _found(clean)]
    assert sorted(_found(memory)) == sorted(expected)
    monkeypatch.setenv("NERB_SCAN_STREAM_BYTES", "64")
    monkeypatch.setenv("NERB_SCAN_WINDOW_BYTES", "5")
    streamed = _scan(path)
    assert streamed.summary.streamed == 1 and streamed.summary.not_utf8_files == 1
    assert _found(streamed) == _found(memory)


def test_not_utf8_with_a_control_byte_is_binary(tmp_path: Path) -> None:
    path = tmp_path / "data.txt"
    path.write_bytes(TEXT.encode() + b"\xff\x1b[0m")
    result = _scan(path)
    assert result.summary.binary_skipped == 1 and result.findings == []
    escaped = tmp_path / "log.txt"  # (valid UTF-8 with an escape sequence is text, as before)
    escaped.write_bytes(TEXT.encode() + b"\x1b[0m\n")
    assert _scan(escaped).summary.binary_skipped == 0 and _scan(escaped).findings


@pytest.mark.parametrize("streamed", [False, True], ids=["memory", "streamed"])
def test_json_that_is_not_utf8_is_scanned_as_text_with_the_loaders_problem(tmp_path: Path, streamed: bool,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(json.dumps({"note": "caf", "mail": EMAIL}).encode().replace(b"caf", b"caf\xe9"))
    if streamed:
        monkeypatch.setenv("NERB_SCAN_STREAM_BYTES", "16")
        monkeypatch.setenv("NERB_SCAN_WINDOW_BYTES", "3")
    result = _scan(path, CONTRACT)
    found = _found(result)
    offset = path.read_bytes().index(b"\xe9")
    assert ("load.invalid_utf8", "", None, None) in found
    assert any(f.code == "load.invalid_utf8" and f.message.endswith(f"at offset {offset}).") for f in result.findings)
    assert any(code == "privacy.email" and line == 1 for code, _pointer, line, _column in found)
    assert result.summary.json_scanned_as_text == 1 and result.summary.not_utf8_files == 1


@pytest.mark.parametrize("streamed", [False, True], ids=["memory", "streamed"])
def test_wide_json_in_the_contract_profile_says_it_is_not_utf8(tmp_path: Path, streamed: bool,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path / "a.json", json.dumps({"mail": EMAIL}), "utf-16")
    if streamed:
        monkeypatch.setenv("NERB_SCAN_STREAM_BYTES", "16")
    contract = _found(_scan(path, CONTRACT))
    assert ("load.invalid_utf8", "", None, None) in contract and ("privacy.email", "/@key:0", None, None) in contract
    assert [code for code, *_rest in _found(_scan(path, REPOSITORY))] == ["privacy.email"]


def test_the_summary_line_counts_files_that_are_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(TEXT.encode() + b"\xe9\n")
    _write(tmp_path / "b.txt", TEXT, "utf-32")
    result = run_cli("scan", "--profile", "repository", str(tmp_path))
    assert "in 2 file(s) scanned (1 in UTF-16 or UTF-32, 1 not valid UTF-8); 0 binary" in result.stdout
