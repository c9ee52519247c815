"""Preparation producer: streaming sources, counted rejections, cleaning views, public source/preparation sections.

Corpora come from tools/make_corpus.py (deterministic, with an answer key) and are kept small (a few hundred
messages) so the whole file runs in seconds.
"""

from __future__ import annotations

import json
import random
import sys
import sysconfig
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))

import make_corpus
from conftest import run_cli

from nerb_verify.producers import cleaning, public_sections
from nerb_verify.producers.cleaning import feature_hash
from nerb_verify.producers.preparation import prepare
from nerb_verify.producers.sources import iter_message_files

REVISION = "ab" * 20
JSONL_BROKEN_REASONS = {
    "truncated_mime": "cleaning_mime_structure",
    "bad_charset": "cleaning_mime_charset_unsupported",
    "binary_junk": "invalid_utf8",
    "duplicate_key": "duplicate_json_key",
    "nan": "nonfinite_json_number",
    "nonobject": "nonobject_json",
    "blank": "blank_line",
    "unknown_field": "unknown_source_fields",
    "bad_type": "invalid_body_type",
}


def _records(run_dir: Path) -> list[dict]:
    with open(run_dir / "prepared.jsonl", "rb") as handle:
        return [json.loads(line) for line in handle]


def _key(corpus: Path) -> list[dict]:
    return [json.loads(line) for line in (corpus / "answer-key.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def jsonl_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("prep-jsonl")
    make_corpus.write_corpus(root / "corpus", 300, 11, "jsonl", broken=True)
    result = prepare(root / "corpus" / "corpus.jsonl", root / ".nerb", dataset_id="gen", revision=REVISION)
    return root, result


@pytest.fixture(scope="module")
def maildir_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("prep-maildir")
    make_corpus.write_corpus(root / "corpus", 250, 5, "maildir", broken=True)
    result = prepare(root / "corpus" / "maildir", root / ".nerb", dataset_id="gen", revision=REVISION)
    return root, result


def test_broken_jsonl_corpus_counts_every_unit(jsonl_run):
    root, result = jsonl_run
    lines = (root / "corpus" / "corpus.jsonl").read_bytes().count(b"\n")
    assert result.input_records == lines
    profile = result.profile
    assert profile["accepted_occurrences"] + profile["rejected_total"] == result.input_records
    assert result.output_records + profile["identical_duplicates_collapsed"] == profile["accepted_occurrences"]
    expected = {}
    for reason in JSONL_BROKEN_REASONS.values():
        expected[reason] = expected.get(reason, 0) + 1
    assert result.rejected == expected
    # the 10 MB body is kept, truncated before cleaning, and flagged (it would block a production split)
    assert profile["flags"]["body_truncated"] == 1
    ledger = [json.loads(line) for line in (result.run_dir / "rejections.jsonl").read_text().splitlines()]
    assert sum(row["occurrence_count"] for row in ledger) == profile["rejected_total"]


def test_broken_maildir_corpus_counts_every_message(maildir_run):
    root, result = maildir_run
    files = [p for p in (root / "corpus" / "maildir").rglob("*") if p.is_file()]
    assert result.input_records == len(files)
    assert result.rejected == {"binary_message_content": 1, "cleaning_mime_charset_unsupported": 1,
                               "cleaning_mime_structure": 1, "oversized_message": 1}
    profile = result.profile
    assert profile["accepted_occurrences"] + profile["rejected_total"] == result.input_records


@pytest.mark.parametrize("run_name", ["jsonl_run", "maildir_run"])
def test_current_bodies_match_the_answer_key(run_name, request):
    root, result = request.getfixturevalue(run_name)
    prefix = "maildir/" if run_name == "maildir_run" else ""
    key = {("sha256:" + feature_hash("source-locator", row["file_name"][len(prefix):])): row
           for row in _key(root / "corpus") if "file_name" in row}
    records = _records(result.run_dir)
    matched = 0
    for record in records:
        truth = key.get(record["source"]["source_locator_sha256"])
        if truth is None:
            continue
        matched += 1
        assert record["views"]["current_body"] == unicodedata.normalize("NFC", truth["current_body"])
        assert record["views"]["current_body_core"] == unicodedata.normalize("NFC", truth["current_body_core"])
    assert matched == len(key)


@pytest.mark.parametrize("run_name", ["jsonl_run", "maildir_run"])
def test_primary_view_never_carries_a_header_address(run_name, request):
    _, result = request.getfixturevalue(run_name)
    records = _records(result.run_dir)
    assert records
    for record in records:
        primary = record["views"][cleaning.PRIMARY_VIEW]
        assert cleaning.primary_view_is_answer_free(record)
        for address in cleaning.header_addresses(record):
            assert address not in primary.casefold()
        # the quoted parts of this corpus carry addresses; the primary view of the generated mail never does
        assert "@" not in primary
    assert "primary_view_mentions_own_header_address" not in result.profile["flags"]


def test_prepared_records_are_sorted_and_identity_is_stable(jsonl_run):
    _, result = jsonl_run
    ids = [record["document_id"] for record in _records(result.run_dir)]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all(doc.startswith("doc_") and len(doc) == 68 for doc in ids)


def test_shuffled_rows_give_the_same_commitment_and_artifacts(jsonl_run, tmp_path):
    root, result = jsonl_run
    # every unit except the 10 MB one (slow, and covered by the count test): broken units stay in
    lines = [line + b"\n" for line in (root / "corpus" / "corpus.jsonl").read_bytes().split(b"\n")[:-1]
             if len(line) < 1_000_000]
    ordered = tmp_path / "ordered.jsonl"
    ordered.write_bytes(b"".join(lines))
    result = prepare(ordered, tmp_path / ".nerb0", dataset_id="gen", revision=REVISION)
    random.Random(3).shuffle(lines)
    shuffled = tmp_path / "shuffled.jsonl"
    shuffled.write_bytes(b"".join(lines))
    again = prepare(shuffled, tmp_path / ".nerb", dataset_id="gen", revision=REVISION)
    assert again.content_sha256 == result.content_sha256
    assert again.manifest["prepared_artifact"] == result.manifest["prepared_artifact"]
    assert again.manifest["text_views"] == result.manifest["text_views"]
    # dropping one row changes the commitment
    dropped = tmp_path / "dropped.jsonl"
    dropped.write_bytes(b"".join(lines[1:]))
    third = prepare(dropped, tmp_path / ".nerb3", dataset_id="gen", revision=REVISION)
    assert third.content_sha256 != result.content_sha256


def test_parallel_cleaning_matches_serial(jsonl_run, tmp_path):
    root, _ = jsonl_run
    lines = [line + b"\n" for line in (root / "corpus" / "corpus.jsonl").read_bytes().split(b"\n")[:-1]
             if len(line) < 1_000_000]
    source = tmp_path / "source.jsonl"
    source.write_bytes(b"".join(lines))
    result = prepare(source, tmp_path / ".nerb1", dataset_id="gen", revision=REVISION)
    parallel = prepare(source, tmp_path / ".nerb", dataset_id="gen", revision=REVISION, workers=2)
    assert parallel.rejected == result.rejected
    assert parallel.manifest["prepared_artifact"] == result.manifest["prepared_artifact"]


def test_public_sections_are_schema_valid_and_private(jsonl_run):
    _, result = jsonl_run
    sections = {"source": public_sections.source_section(result.manifest, source_id="generated-corpus",
                                                         revision=REVISION, owner="nerb-verify-tests",
                                                         access="synthetic"),
                "preparation": public_sections.preparation_section(result.manifest)}
    assert public_sections.structure_problems(sections) == []
    schema = public_sections.schema_problems(sections)
    if schema is None:
        pytest.skip("schemas/nerb.enron_manifest.v2.json not present")
    assert schema == []
    assert public_sections.rule_problems(sections) == []
    assert public_sections.privacy_problems(sections) == []
    views = sections["preparation"]["text_views"]
    assert [v["id"] for v in views if v["primary_for_quality"]] == ["subject_current_body"]
    assert next(v for v in views if v["primary_for_quality"])["document_regions"] == ["subject", "current_body"]
    assert all(v["answer_bearing_fields_included"] is False for v in views)


def test_public_section_checks_catch_broken_sections(jsonl_run):
    _, result = jsonl_run
    good = {"source": public_sections.source_section(result.manifest, source_id="generated-corpus",
                                                     revision=REVISION, owner="tests", access="synthetic"),
            "preparation": public_sections.preparation_section(result.manifest)}
    bounds = json.loads(json.dumps(good))
    bounds["preparation"]["output_records"] = bounds["source"]["input_records"] + 1
    assert ("contract.preparation_record_bounds", "/preparation/output_records") in \
        public_sections.rule_problems(bounds)
    two_primary = json.loads(json.dumps(good))
    two_primary["preparation"]["text_views"][0]["primary_for_quality"] = True
    assert ("contract.primary_quality_view", "/preparation/text_views") in public_sections.rule_problems(two_primary)
    leaky = json.loads(json.dumps(good))
    leaky["source"]["owner"] = "someone" + "@" + "example.invalid"
    assert any(code == "privacy.at_sign" for code, _ in public_sections.privacy_problems(leaky))
    mutable = json.loads(json.dumps(good))
    mutable["source"]["revision"] = "main"
    assert ("source.revision_not_immutable", "/source/revision") in public_sections.structure_problems(mutable)
    floaty = json.loads(json.dumps(good))
    floaty["preparation"]["output_records"] = 5.0
    assert public_sections.structure_problems(floaty)


def test_cli_prepare_on_broken_corpus_exits_zero_without_echoing_input(tmp_path):
    make_corpus.write_corpus(tmp_path / "corpus", 120, 2, "jsonl", broken=True)
    result = run_cli("prepare", str(tmp_path / "corpus" / "corpus.jsonl"), "--private-root", str(tmp_path / ".nerb"),
                     "--public-out", str(tmp_path / "public" / "sections.json"), "--no-progress")
    assert result.code == 0, result.stderr
    assert "input = prepared + rejected" in result.stdout and "MISMATCH" not in result.stdout
    assert "@" not in result.stdout + result.stderr
    sections = json.loads((tmp_path / "public" / "sections.json").read_text())
    assert set(sections) == {"source", "preparation"}
    assert public_sections.all_problems(sections) == []
    assert (tmp_path / ".nerb" / "enron-preparation" / "run" / "COMMITTED").is_file()
    assert (tmp_path / ".nerb" / "enron-preparation" / "run").stat().st_mode & 0o077 == 0


def test_cli_prepare_missing_input_is_exit_2(tmp_path):
    assert run_cli("prepare", str(tmp_path / "absent.jsonl"), "--private-root", str(tmp_path / ".nerb")).code == 2


# ---------------------------------------------------------------- cleaning properties

_WORDS = st.sampled_from(make_corpus.WORDS)
_SENTENCE = st.lists(_WORDS, min_size=3, max_size=12).map(lambda ws: " ".join(ws).capitalize() + ".")
_ADDRESS = st.from_regex(r"[a-z]{1,8}\.[a-z]{1,8}@(enron|example)\.com", fullmatch=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(current=st.lists(_SENTENCE, min_size=1, max_size=4).map(" ".join), style=st.integers(0, 3),
       sender=_ADDRESS, recipient=_ADDRESS, old=st.lists(_SENTENCE, min_size=1, max_size=3).map(" ".join))
def test_quoted_header_addresses_never_reach_the_primary_view(current, style, sender, recipient, old):
    person = make_corpus.Person("Pat Example", sender, "pat")
    other = make_corpus.Person("Lee Example", recipient, "lee")
    parent = make_corpus.Msg("x/y/1.", "<1@x>", person, [other], [], "Deal", None, old, old)
    body = current + "\n\n" + make_corpus._quote_block(random.Random(0), parent, style)
    row = {"message_id": "<2@x>", "from": recipient, "to": [sender], "cc": None, "bcc": None, "subject": "RE: Deal",
           "date": None, "body": body, "file_name": "lee/sent/1."}
    record = cleaning.clean_row(row, "gen", REVISION, "0" * 64)
    primary = record["views"][cleaning.PRIMARY_VIEW]
    assert sender not in primary and recipient not in primary and "@" not in primary
    assert record["views"]["current_body"] == current


@settings(max_examples=80, deadline=None)
@given(body=st.text(max_size=400), subject=st.text(max_size=80))
def test_cleaning_never_crashes_on_arbitrary_text(body, subject):
    row = {"message_id": None, "from": None, "to": None, "cc": None, "bcc": None, "subject": subject,
           "date": None, "body": body, "file_name": None}
    try:
        record = cleaning.clean_row(row, "gen", REVISION, "0" * 64)
    except cleaning.CleaningError as exc:
        assert exc.code in cleaning.CLEANING_CODES
        return
    assert record["views"]["subject_current_body"].startswith(record["headers"]["subject"])


def test_mime_and_html_decoding():
    counts: dict[str, int] = {}
    body = ("Content-Type: multipart/alternative; boundary=\"b\"\nMIME-Version: 1.0\n\n--b\n"
            "Content-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\n"
            "Caf=E9 au lait\n--b\nContent-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
            "PHA+Q2Fmw6kgYXUgbGFpdDwvcD48c2NyaXB0PnNlY3JldCgpPC9zY3JpcHQ+\n--b--\n")
    text, _ = cleaning.decode_body(body, counts)
    assert cleaning.normalize_text(text) == "Café au lait"
    assert "secret" not in text
    with pytest.raises(cleaning.CleaningError) as exc:
        cleaning.decode_body("Content-Type: text/plain; charset=x-unknown\n\nhi", {})
    assert exc.value.code == "mime_charset_unsupported"
    with pytest.raises(cleaning.CleaningError) as exc:
        cleaning.decode_body("Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n@@@", {})
    assert exc.value.code == "mime_transfer_invalid"
    assert cleaning.normalize_text("a\u200bb\u202e c\r\nd\u2028e") == "ab c\nd\ne"


def test_dates_statuses():
    assert cleaning.parse_date("Mon, 14 May 2001 16:39:00 -0700 (PDT)")["utc"] == "2001-05-14T23:39:00Z"
    assert cleaning.parse_date("2001-05-14T23:39:00")["status"] == "ambiguous_timezone"
    assert cleaning.parse_date("1979-01-01T00:00:00Z")["status"] == "out_of_range"
    assert cleaning.parse_date("next week")["status"] == "invalid"
    assert cleaning.parse_date(None)["status"] == "missing"


def _cpython_email_data() -> Path | None:
    candidates = [Path(sysconfig.get_paths()["stdlib"]) / "test" / "test_email" / "data"]
    candidates += sorted(Path(sysconfig.get_paths()["stdlib"]).parent.parent.parent.glob(
        "*/lib/python3*/test/test_email/data"))
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return None


def test_cpython_email_test_messages_are_prepared_or_counted(tmp_path):
    data = _cpython_email_data()
    if data is None:
        pytest.skip("CPython's test/test_email/data is not installed")
    messages = tmp_path / "cpython"
    messages.mkdir()
    for path in sorted(data.glob("msg_*.txt")):
        (messages / "mail" / "inbox").mkdir(parents=True, exist_ok=True)
        (messages / "mail" / "inbox" / path.name).write_bytes(path.read_bytes())
    units = list(iter_message_files(messages))
    assert len(units) >= 30
    result = prepare(messages, tmp_path / ".nerb", dataset_id="cpython-test-email", revision=REVISION)
    assert result.input_records == len(units)
    assert result.profile["accepted_occurrences"] + result.profile["rejected_total"] == result.input_records
    assert result.output_records >= len(units) // 2
    for reason in result.rejected:
        assert reason.startswith("cleaning_") or reason in ("malformed_message_headers", "binary_message_content")


def test_mbox_and_single_eml_inputs(tmp_path):
    make_corpus.write_corpus(tmp_path / "corpus", 30, 4, "maildir")
    files = sorted(p for p in (tmp_path / "corpus" / "maildir").rglob("*") if p.is_file())
    mbox = tmp_path / "all.mbox"
    with open(mbox, "wb") as handle:
        for path in files:
            data = path.read_bytes()
            handle.write(b"From sender Tue May  1 10:00:00 2001\n")
            handle.write(b"\n".join(b">" + line if line.startswith(b"From ") else line
                                    for line in data.split(b"\n")) + b"\n\n")
    units = list(iter_message_files(mbox))
    assert len(units) == len(files) and all(unit.row is not None for unit in units)
    from_maildir = prepare(tmp_path / "corpus" / "maildir", tmp_path / ".a", dataset_id="gen", revision=REVISION)
    from_mbox = prepare(mbox, tmp_path / ".b", dataset_id="gen", revision=REVISION)
    assert from_mbox.output_records == from_maildir.output_records
    # same messages, same cleaned text: only the locators (mailbox paths) differ
    def bodies(result):
        with open(result.run_dir / "prepared.jsonl", "rb") as handle:
            return sorted(json.loads(line)["views"]["subject_current_body"] for line in handle)
    assert bodies(from_mbox) == bodies(from_maildir)
    eml = tmp_path / "one.eml"
    eml.write_bytes(files[0].read_bytes())
    single = prepare(eml, tmp_path / ".c", dataset_id="gen", revision=REVISION)
    assert single.input_records == 1


def test_progress_reports_rate_without_text():
    import io

    from nerb_verify.producers.progress import Progress

    stream = io.StringIO()
    meter = Progress("prepare", total=10, stream=stream, interval=0.0)
    for _ in range(10):
        meter.update()
    meter.finish()
    output = stream.getvalue()
    assert "records/s" in output and "10/10 records" in output


@settings(max_examples=150, deadline=None)
@given(raw=st.binary(max_size=300))
def test_hostile_lines_and_messages_are_items_never_exceptions(raw):
    from nerb_verify.producers.sources import message_to_row, parse_jsonl_line

    for item in (parse_jsonl_line(raw), message_to_row(raw, "owner/inbox/1.")):
        assert (item.row is None) != (item.reason is None)
        assert len(item.digest) == 64
        if item.row is not None:
            try:
                cleaning.clean_row(item.row, "gen", REVISION, item.digest)
            except cleaning.CleaningError as exc:
                assert exc.code in cleaning.CLEANING_CODES
