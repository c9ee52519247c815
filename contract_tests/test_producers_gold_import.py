"""Independent gold, imported (issue 19 item 4): the CMU Enron Meetings loader, Label Studio and brat importers,
inter-annotator agreement and adjudication onto the label artifact.

The CMU archive cannot be downloaded here, so the tests build small archives in its layout and pass their pin
explicitly; the real pin is only checked to refuse them.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from fractions import Fraction
from pathlib import Path

import pytest

from contract_tests.conftest import run_cli
from nerb_verify.producers import annotations as ann
from nerb_verify.producers import cmu_meetings as cmu
from nerb_verify.producers.annotations import AnnotationImportError, Decision, Span

# ------------------------------------------------------------------------------------------------ CMU archive

FRAGMENTS = {
    "train/bunch1/lee-a__calendar__1.txt": "Meeting with <true_name>Ann Lee</true_name> at 3 <room 5>.\n",
    "train/bunch2/lee-a__calendar__2.txt": "No names here, just <b>markup-like</b> text.\n",
    "train/bunch3/ray-b__calendar__7.txt": "<true_name> Bo Ray </true_name> and <true_name>Cy</true_name> agree.",
    "test/bunch4/ray-b__calendar__9.txt": "Call <true_name>Dee Fox</true_name> about the\u00e9 plan.",
    "test/bunch4/ray-b__calendar__10.txt": "Agenda only.",
}


def build_archive(path: Path, fragments: dict[str, str] = FRAGMENTS, *, extra: dict[str, bytes] | None = None) -> str:
    """A ZIP in the published layout; returns its SHA-256 (the pin the test passes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{cmu.ROOT}/", b"")
        for name, text in fragments.items():
            archive.writestr(f"{cmu.ROOT}/{name}", text.encode("utf-8"))
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    path.write_bytes(buffer.getvalue())
    return hashlib.sha256(buffer.getvalue()).hexdigest()


def test_a_mismatched_pin_is_a_clear_refusal(tmp_path: Path) -> None:
    archive = tmp_path / "EnronMeetings-XML.zip"
    build_archive(archive)
    with pytest.raises(cmu.CmuPinError, match="does not match the pinned SHA-256"):
        cmu.load_cmu_meetings(archive)  # the real pin
    with pytest.raises(cmu.CmuPinError):
        cmu.load_cmu_meetings(archive, expected_sha256="0" * 64)


def test_cli_reports_counts_only_and_refuses_a_wrong_pin(tmp_path: Path) -> None:
    archive = tmp_path / "EnronMeetings-XML.zip"
    pin = build_archive(archive)
    refused = run_cli("gold", "cmu-report", str(archive))
    assert refused.code == 2 and "does not match the pinned SHA-256" in refused.stderr and refused.stdout == ""
    ok = run_cli("gold", "cmu-report", str(archive), "--expected-sha256", pin)
    assert ok.code == 0
    report = json.loads(ok.stdout)
    assert report["published_split"]["test"]["documents"] == 2
    assert "Ann" not in ok.stdout and "lee-a" not in ok.stdout  # no name, no member name


def test_loader_preserves_and_reports_the_published_split_and_scope(tmp_path: Path) -> None:
    archive = tmp_path / "EnronMeetings-XML.zip"
    pin = build_archive(archive)
    corpus = cmu.load_cmu_meetings(archive, expected_sha256=pin)
    report = corpus.report()
    assert report["archive_sha256"] == "sha256:" + pin and report["pinned_archive"] is False
    assert report["published_split"] == {
        "train": {"bunches": ["bunch1", "bunch2", "bunch3"], "documents": 3, "spans": 3, "negative_documents": 1,
                  "documents_by_bunch": {"bunch1": 1, "bunch2": 1, "bunch3": 1}},
        "test": {"bunches": ["bunch4"], "documents": 2, "spans": 1, "negative_documents": 1,
                 "documents_by_bunch": {"bunch4": 2}}}
    assert report["annotation_scope"]["entity_classes"] == ["person"]
    assert "contact" in report["not_evidence_for"]
    texts = {d.text: d for d in corpus.documents}
    first = texts["Meeting with Ann Lee at 3 <room 5>.\n"]  # other angle text stays verbatim
    assert [first.text[s:e] for s, e in first.spans] == ["Ann Lee"]
    trimmed = texts[" Bo Ray  and Cy agree."]
    assert [trimmed.text[s:e] for s, e in trimmed.spans] == ["Bo Ray", "Cy"]
    accented = texts["Call Dee Fox about the\u00e9 plan."]
    assert accented.role == "test" and accented.bunch == "bunch4"
    assert all(d.document_id.startswith("cmu_") and "lee" not in d.document_id for d in corpus.documents)
    test_pass = cmu.annotation_pass(corpus, "test")
    assert len(test_pass.texts) == 2 and [s.entity_class for s in test_pass.spans] == ["person"]


@pytest.mark.parametrize(("fragment", "reason"), [
    ("a <true_name>b", "never closes"),
    ("a </true_name> b", "never opened"),
    ("<true_name>a <true_name>b</true_name></true_name>", "nests"),
    ("<true_name>  </true_name>", "empty"),
    ("<TRUE_NAME>a</TRUE_NAME>", "spelling"),
    ("<true_name id=1>a</true_name>", "spelling"),
])
def test_malformed_markers_are_refused(tmp_path: Path, fragment: str, reason: str) -> None:
    archive = tmp_path / "a.zip"
    pin = build_archive(archive, {"train/bunch1/x__calendar__1.txt": fragment})
    with pytest.raises(cmu.CmuArchiveError, match=reason):
        cmu.load_cmu_meetings(archive, expected_sha256=pin)


@pytest.mark.parametrize("member", [
    "EnronMeetings-XML/test/bunch1/x__calendar__1.txt",  # a train bunch in the test role
    "EnronMeetings-XML/validation/bunch1/x__calendar__1.txt",
    "EnronMeetings-XML/train/bunch1/../x__calendar__1.txt",
    "/etc/x__calendar__1.txt",
    "EnronMeetings-XML/train/bunch1/notes.txt",
])
def test_members_outside_the_published_layout_are_refused(tmp_path: Path, member: str) -> None:
    archive = tmp_path / "a.zip"
    pin = build_archive(archive, {}, extra={member: b"text"})
    with pytest.raises(cmu.CmuArchiveError, match="outside the published layout"):
        cmu.load_cmu_meetings(archive, expected_sha256=pin)


def test_the_real_pin_also_demands_the_published_inventory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "a.zip"
    pin = build_archive(archive)
    monkeypatch.setattr(cmu, "CMU_MEETINGS_SHA256", pin)  # pretend this small archive were the pinned one
    monkeypatch.setattr(cmu, "CMU_MEETINGS_BYTES", archive.stat().st_size)
    with pytest.raises(cmu.CmuArchiveError, match="published populations"):
        cmu.load_cmu_meetings(archive, expected_sha256=pin)


# ------------------------------------------------------------------------------------------------ Label Studio

TEXT = "Ann Lee met Bo Ray."
ASTRAL = "\U0001F600 Ann Lee met Bo Ray."  # one character outside the BMP first: two UTF-16 units


def _task(task_id: int, text: str, annotations: list[dict], doc_id: str | None = None) -> dict:
    data = {"text": text, **({"document_id": doc_id} if doc_id else {})}
    return {"id": task_id, "data": data, "annotations": annotations,
            "predictions": [{"result": [], "model_version": "m"}]}


def _result(start: int, end: int, label: str, text: str | None) -> dict:
    value = {"start": start, "end": end, "labels": [label], **({"text": text} if text is not None else {})}
    return {"id": "r", "type": "labels", "from_name": "label", "to_name": "text", "value": value}


def test_label_studio_export_one_pass_per_annotator_pseudonymous_and_counted() -> None:
    hidden = "someone" + "@" + "example.invalid"
    export = [
        _task(1, TEXT, [
            {"completed_by": 7, "result": [_result(0, 7, "PER", "Ann Lee"), _result(12, 18, "PER", "Bo Ray"),
                                           _result(0, 3, "ORG", "Ann"),
                                           {"type": "choices", "value": {"choices": ["x"]}}]},
            {"completed_by": {"id": 9, "email": hidden}, "result": [_result(0, 7, "PER", "Ann Lee")]},
        ], doc_id="doc_1"),
        _task(2, "No names.", [{"completed_by": 7, "result": []},
                               {"completed_by": {"id": 9, "email": hidden}, "was_cancelled": True, "result": []}]),
    ]
    first, second = ann.import_label_studio(export, label_map={"PER": "person"})
    assert (first.annotator_id, second.annotator_id) == ("label_studio_annotator_1", "label_studio_annotator_2")
    assert first.spans == [Span("doc_1", "person", 0, 7), Span("doc_1", "person", 12, 18)]
    assert first.skipped == {"unmapped_label": 1, "non_span_result": 1, "prediction_not_imported": 2}
    assert sorted(first.texts) == ["doc_1", "label_studio_task_2"]
    # a cancelled task is not a document without names: it stays out of that annotator's documents
    assert sorted(second.texts) == ["doc_1"] and second.skipped["cancelled_annotation"] == 1
    assert hidden not in json.dumps([first.__dict__, second.__dict__], default=str)
    mapped = ann.import_label_studio(export, label_map={"PER": "person"}, annotator_ids={7: "ann_one"})
    assert mapped[0].annotator_id == "ann_one"


def test_label_studio_offsets_in_code_points_or_utf16_units_are_resolved_by_the_text() -> None:
    # Ann Lee is at scalars 2..9 but UTF-16 units 3..10 after the emoji
    export = [_task(1, ASTRAL, [{"completed_by": 1, "result": [_result(3, 10, "PER", "Ann Lee"),
                                                                _result(15, 21, "PER", "Bo Ray")]}])]
    (only,) = ann.import_label_studio(export, label_map={"PER": "person"})
    assert [ASTRAL[s.start:s.end] for s in only.spans] == ["Ann Lee", "Bo Ray"]
    assert only.offset_units == {"utf16_code_unit": 2}
    code_points = [_task(1, ASTRAL, [{"completed_by": 1, "result": [_result(2, 9, "PER", "Ann Lee")]}])]
    assert ann.import_label_studio(code_points, label_map={"PER": "person"})[0].offset_units == {"code_point": 1}
    for bad in (_result(3, 10, "PER", None), _result(0, 4, "PER", "Ann Lee")):
        with pytest.raises(AnnotationImportError):
            ann.import_label_studio([_task(1, ASTRAL, [{"completed_by": 1, "result": [bad]}])],
                                    label_map={"PER": "person"})


def test_label_studio_refuses_what_it_cannot_import_faithfully() -> None:
    with pytest.raises(AnnotationImportError, match="list of tasks"):
        ann.import_label_studio({"tasks": []}, label_map={})
    with pytest.raises(AnnotationImportError, match="do not select"):
        ann.import_label_studio([_task(1, TEXT, [{"completed_by": 1, "result": [_result(0, 99, "PER", None)]}])],
                                label_map={"PER": "person"})
    with pytest.raises(AnnotationImportError, match="exactly one label"):
        bad = _result(0, 3, "PER", "Ann")
        bad["value"]["labels"] = ["PER", "ORG"]
        ann.import_label_studio([_task(1, TEXT, [{"completed_by": 1, "result": [bad]}])],
                                label_map={"PER": "person"})


# ------------------------------------------------------------------------------------------------ brat

def _brat(tmp_path: Path, text: str, lines: list[str], name: str = "d1") -> tuple[str, Path, Path]:
    txt, annotation = tmp_path / f"{name}.txt", tmp_path / f"{name}.ann"
    txt.write_text(text, encoding="utf-8")
    annotation.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return name, txt, annotation


def test_brat_text_bound_spans_and_everything_else_counted(tmp_path: Path) -> None:
    pair = _brat(tmp_path, TEXT, ["T1\tPerson 0 7\tAnn Lee", "T2\tPerson 12 18\tBo Ray",
                                  "T3\tLocation 0 3\tAnn", "T4\tPerson 0 3;4 7\tAnn Lee",
                                  "R1\tKnows Arg1:T1 Arg2:T2", "#1\tAnnotatorNotes T1\tnote", "A1\tNegated T1"])
    result = ann.import_brat([pair], label_map={"Person": "person"}, annotator_id="brat_one")
    assert result.spans == [Span("d1", "person", 0, 7), Span("d1", "person", 12, 18)]
    assert result.skipped == {"unmapped_label": 1, "discontinuous_span": 1, "relation_line": 1, "note_line": 1,
                              "attribute_line": 1}
    with pytest.raises(AnnotationImportError, match="do not select"):
        ann.import_brat([_brat(tmp_path, TEXT, ["T1\tPerson 0 6\tAnn Lee"], "d2")],
                        label_map={"Person": "person"}, annotator_id="brat_one")
    with pytest.raises(AnnotationImportError, match="two non-negative integers"):
        ann.import_brat([_brat(tmp_path, TEXT, ["T1\tPerson a 6\tAnn Lee"], "d3")],
                        label_map={"Person": "person"}, annotator_id="brat_one")


# ------------------------------------------------------------------------------------------------ agreement

def _pass(annotator: str, spans: list[tuple[str, int, int]], texts: dict[str, str] | None = None
          ) -> ann.AnnotationPass:
    result = ann.AnnotationPass(annotator, "test")
    for doc_id, text in (texts or {"d1": TEXT, "d2": "Cy Day and Ed Orr."}).items():
        result.add_document(doc_id, text)
    for doc_id, start, end in spans:
        result.add_span(Span(doc_id, "person", start, end))
    return result


def test_agreement_counts_matches_one_sided_spans_and_conflicts() -> None:
    first = _pass("a1", [("d1", 0, 7), ("d1", 12, 18), ("d2", 0, 6)])
    second = _pass("a2", [("d1", 0, 7), ("d1", 12, 19), ("d2", 11, 17)])  # boundary conflict; disjoint spans
    agreement = ann.compare_passes(first, second)
    assert (agreement.matched, agreement.first_only, agreement.second_only) == (1, 2, 2)
    assert [(c.document_id, len(c.first), len(c.second)) for c in agreement.conflicts] == [("d1", 1, 1)]
    assert agreement.pairwise_agreement == Fraction(2, 6)
    assert agreement.to_json()["pairwise_agreement"] == {"numerator": 1, "denominator": 3}
    assert agreement.by_class == {"person": {"matched": 1, "first_only": 2, "second_only": 2}}
    with pytest.raises(AnnotationImportError, match="different texts"):
        ann.compare_passes(first, _pass("a3", [], {"d1": TEXT, "d2": "other"}))


def test_adjudication_rules_on_every_disagreement_and_is_content_addressed() -> None:
    first = _pass("a1", [("d1", 0, 7), ("d1", 12, 18), ("d2", 0, 6)])
    second = _pass("a2", [("d1", 0, 7), ("d1", 12, 19), ("d2", 11, 17)])
    seen = []

    def reviewer(unit):  # type: ignore[no-untyped-def]
        seen.append(unit)
        _doc_id, left, right = unit
        if left and right:
            return Decision("accept_first")
        return Decision("accept_both") if left else Decision("reject_both")

    with pytest.raises(AnnotationImportError, match="distinct"):
        ann.adjudicate(first, second, reviewer_id="a1", decide=reviewer, protocol_sha256="sha256:" + "1" * 64)
    result = ann.adjudicate(first, second, reviewer_id="rev", decide=reviewer, protocol_sha256="sha256:" + "1" * 64)
    assert len(seen) == 3  # the conflict, first's lone span, second's lone span
    assert result.gold == [Span("d1", "person", 0, 7), Span("d1", "person", 12, 18), Span("d2", "person", 0, 6)]
    assert result.record["decision_counts"] == {"accept_both": 1, "accept_first": 1, "reject_both": 1}
    assert result.record["agreement"]["conflicts"] == 1
    assert result.sha256 == "sha256:" + hashlib.sha256(result.record_bytes).hexdigest()
    again = ann.adjudicate(first, second, reviewer_id="rev", decide=reviewer, protocol_sha256="sha256:" + "1" * 64)
    assert again.sha256 == result.sha256  # deterministic
    label = ann.label_artifact(
        label_id="gold_person", entity_classes=["person"], document_regions=["subject", "current_body"],
        span_policy_sha256="sha256:" + "2" * 64, gold=result.gold, documents_by_role={"test": 2},
        artifact={"id": "gold_person_spans", "sha256": "sha256:" + "3" * 64, "bytes": 10}, producer_id="a1",
        adjudication=result, adjudication_id="gold_person_adjudication", protocol_sha256="sha256:" + "1" * 64)
    provenance = label["annotation_provenance"]
    assert label["label_strength"] == "independent" and label["annotation_completeness"] == "exhaustive_within_scope"
    assert provenance["reviewer_id"] == "rev" != provenance["producer_id"]
    assert provenance["independently_reviewed"] is True
    assert provenance["adjudication_artifact"] == {"id": "gold_person_adjudication", "sha256": result.sha256,
                                                   "bytes": len(result.record_bytes)}
    assert label["role_populations"] == [{"role": "test", "documents": 2, "spans": 3}]


def test_cmu_pass_and_a_brat_pass_compare_on_the_same_documents(tmp_path: Path) -> None:
    archive = tmp_path / "a.zip"
    pin = build_archive(archive)
    corpus = cmu.load_cmu_meetings(archive, expected_sha256=pin)
    published = cmu.annotation_pass(corpus, "test")
    pairs = []
    for index, document in enumerate(d for d in corpus.documents if d.role == "test"):
        lines = [f"T{i + 1}\tPerson {s} {e}\t{document.text[s:e]}" for i, (s, e) in enumerate(document.spans)]
        txt, annotation = tmp_path / f"{index}.txt", tmp_path / f"{index}.ann"
        txt.write_text(document.text, encoding="utf-8")
        annotation.write_text("\n".join(lines) + "\n", encoding="utf-8")
        pairs.append((document.document_id, txt, annotation))
    second = ann.import_brat(pairs, label_map={"Person": "person"}, annotator_id="our_second_pass")
    agreement = ann.compare_passes(published, second)
    assert agreement.matched == 1 and agreement.conflicts == []


# ------------------------------------------------------------------------------------------------ the demo's path

def test_demo_annotators_err_independently_and_adjudication_keeps_only_truth(tmp_path: Path) -> None:
    from nerb_verify.producers import demo_annotation, demo_corpus
    from nerb_verify.producers.evaluation import locate_mentions

    rows, key = demo_corpus.generate(120, seed=3)
    texts = {f"doc_{i}": row["subject"] + "\n\n" + row["body"] for i, row in enumerate(rows)}
    mentions = {f"doc_{i}": [(m["entity_class"], m["surface"]) for m in k["mentions"]] for i, k in enumerate(key)}
    result = demo_annotation.annotate_sample(texts, mentions, tmp_path / "annotation")
    truth = {Span(d, c, s, e) for d, t in texts.items() for c, s, e in locate_mentions(t, mentions[d])}
    first, second = set(result.first.spans), set(result.second.spans)
    assert first - truth and truth - first, "the first annotator makes mistakes of its own"
    assert second - truth and truth - second, "the second annotator makes mistakes of its own"
    assert (first - truth) != (second - truth)
    both_missed = {t for t in truth if not any(s.document_id == t.document_id and s.start < t.end
                                               and t.start < s.end for s in first | second)}
    assert set(result.gold) == truth - both_missed  # the reviewer never sees what both missed
    assert result.agreement.conflicts and result.agreement.first_only and result.agreement.second_only
    record = (tmp_path / "annotation" / "adjudication.json").read_bytes()
    assert result.adjudication.sha256 == "sha256:" + hashlib.sha256(record).hexdigest()
    assert (tmp_path / "annotation" / "first-pass-label-studio.json").is_file()
    assert len(list((tmp_path / "annotation" / "second-pass-brat").glob("*.ann"))) == len(texts)


@pytest.mark.xdist_group("demo")
def test_the_demo_gold_is_independent_adjudicated_and_open_world_scored(demo) -> None:  # type: ignore[no-untyped-def]
    manifest = json.loads((demo.bundle / "benchmark-manifest.json").read_text())
    evidence = json.loads((demo.bundle / "benchmark-evidence.json").read_text())
    record = (demo.private / "annotation" / "adjudication.json").read_bytes()
    natural = [label for label in manifest["labels"] if label["label_strength"] != "synthetic_conformance"]
    assert len(natural) == 3
    for label in natural:
        provenance = label["annotation_provenance"]
        assert label["label_strength"] == "independent"
        assert provenance["reviewer_id"] != provenance["producer_id"] and provenance["independently_reviewed"]
        assert provenance["adjudication_artifact"]["sha256"] == "sha256:" + hashlib.sha256(record).hexdigest()
    for item in evidence["quality"]["slices"]:
        assert item["label_strength"] == "independent"
        assert item["metrics"]["open_world_recall"] is not None and item["metrics"]["precision"] is not None
    agreement = json.loads(record)["agreement"]
    assert agreement["conflicts"] + agreement["first_only_spans"] + agreement["second_only_spans"] > 0
    assert demo.verdict == "verified" and demo.error_codes == []
