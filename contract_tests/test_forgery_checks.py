"""Coherent forgeries that only a re-derived relationship catches.

Each test edits a primitive of a valid bundle (the real one or the synthetic smoke bundle), rewrites everything that
depends on it with ``tools/coherent.py``'s forward re-derivation (every figure, rendering and hash resealed), and
asserts that the *only* error left is the new check's code: without that check the forgery verifies. The unedited
bases raise none of these codes.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nerb_verify.canonical import nerb_pretty_bytes  # noqa: E402
from nerb_verify.verify import VerifyResult  # noqa: E402
from tools.coherent import rederive  # noqa: E402

BUNDLES = REPO / "fixtures" / "bundles"
EVIDENCE = "benchmark-evidence.json"
MANIFEST = "benchmark-manifest.json"
SCANNER = "manifest.scanner_source_mismatch"
ADJUDICATION = "manifest.adjudication_is_label_artifact"
ELAPSED = "performance.command_elapsed_below_samples"
SOURCE_PIN = "manifest.source_pin_split"
GOLD_SLICE = "publication.gold_slice_unsupported"
ALIASES = "card.alias_count_mismatch"
RSS_PLATFORM = "performance.rss_unsupported_platform"
LEAK_DOCUMENTS = "quality.leaked_documents_without_miss"
VIEW_SHARED = "manifest.text_view_artifact_shared"
CLASS_OMITTED = "summary.class_omitted"
NEW_CODES = (SCANNER, ADJUDICATION, ELAPSED, SOURCE_PIN, GOLD_SLICE, ALIASES, RSS_PLATFORM, LEAK_DOCUMENTS, VIEW_SHARED,
             CLASS_OMITTED)
OTHER_HASH = "sha256:" + "ab" * 32

Edit = tuple[str, tuple[str | int, ...], Any]


def forge(base: str, tmp_path: Path, edits: list[Edit]) -> VerifyResult:
    """Copy ``base``, set each (artifact, path, value), re-derive everything else and return the verification."""
    root = tmp_path / "bundle"
    shutil.copytree(BUNDLES / base, root)
    for artifact, path, value in edits:
        document = json.loads((root / artifact).read_text(encoding="utf-8"))
        node = document
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        (root / artifact).write_bytes(nerb_pretty_bytes(document))
    return rederive(root, {(artifact, path) for artifact, path, _ in edits}).result


def errors(result: VerifyResult) -> set[str]:
    """The error codes of a verification."""
    return {f.code for f in result.collector.findings if f.severity == "error"}


@pytest.mark.parametrize("base", ["nerb-enron", "synthetic-smoke"])
def test_the_bases_raise_none_of_the_new_codes(base: str, tmp_path: Path) -> None:
    result = forge(base, tmp_path, [])
    assert result.verdict == "verified"
    assert not {f.code for f in result.collector.findings} & set(NEW_CODES)


def test_a_scanner_source_hash_other_than_the_verifiers_is_rejected(tmp_path: Path) -> None:
    """Both copies (manifest and evidence) name another scanner source; the binding between them still holds."""
    pointer = ("privacy", "scanner_source_sha256")
    result = forge("nerb-enron", tmp_path, [(MANIFEST, pointer, OTHER_HASH), (EVIDENCE, pointer, OTHER_HASH)])
    assert errors(result) == {SCANNER}
    assert {(f.artifact, f.pointer) for f in result.collector.findings if f.code == SCANNER} == {
        (MANIFEST, "/privacy/scanner_source_sha256"), (EVIDENCE, "/privacy/scanner_source_sha256")}
    assert all("ab" * 8 not in (f.message or "") for f in result.collector.findings)


def _gold_annotations(base: str) -> dict[str, Any]:
    manifest = json.loads((BUNDLES / base / MANIFEST).read_text(encoding="utf-8"))
    return dict(manifest["labels"][0]["artifact"])


def test_gold_adjudicated_by_its_own_annotations_is_rejected(tmp_path: Path) -> None:
    """Every gold label names the sealed annotations as their adjudication (same id, hash and size): the labels still
    agree about the file, the review flag and the strength still read "independent", only the identity is false."""
    annotations = _gold_annotations("nerb-enron")
    edits: list[Edit] = [(MANIFEST, ("labels", i, "annotation_provenance", "adjudication_artifact"), annotations)
                         for i in range(3)]
    result = forge("nerb-enron", tmp_path, edits)
    assert errors(result) == {ADJUDICATION}
    pointers = {f.pointer for f in result.collector.findings if f.code == ADJUDICATION}
    assert pointers == {f"/labels/{i}/annotation_provenance/adjudication_artifact/{field}"
                        for i in range(3) for field in ("id", "sha256")}


def test_an_adjudication_renamed_but_with_the_annotations_hash_is_rejected(tmp_path: Path) -> None:
    """The same bytes under a fresh id (so no other label describes that id differently)."""
    annotations = dict(_gold_annotations("nerb-enron"), id="sealed_gold_review_record")
    edits: list[Edit] = [(MANIFEST, ("labels", i, "annotation_provenance", "adjudication_artifact"), annotations)
                         for i in range(3)]
    result = forge("nerb-enron", tmp_path, edits)
    assert errors(result) == {ADJUDICATION}
    assert {f.pointer.rsplit("/", 1)[1] for f in result.collector.findings if f.code == ADJUDICATION} == {"sha256"}


def test_conformance_labels_adjudicated_by_the_gold_annotations_are_rejected(tmp_path: Path) -> None:
    """Across labels: the conformance label's adjudication is another label's annotation artifact."""
    edits: list[Edit] = [(MANIFEST, ("labels", 3, "annotation_provenance", "adjudication_artifact"),
                          _gold_annotations("nerb-enron"))]
    result = forge("nerb-enron", tmp_path, edits)
    assert errors(result) == {ADJUDICATION}


def warnings(result: VerifyResult) -> set[str]:
    """The warning codes of a verification."""
    return {f.code for f in result.collector.findings if f.severity == "warning"}


def test_a_command_shorter_than_its_samples_warns(tmp_path: Path) -> None:
    """The smoke bundle's runner records 3.744 s for about 1.07 s of samples; a forger who shortens it to 1 s (in
    manifest and evidence alike, within the timeout) gets a warning, and the bundle still verifies."""
    pointer = ("commands", 0, "elapsed_seconds")
    result = forge("synthetic-smoke", tmp_path, [(MANIFEST, pointer, 1.0), (EVIDENCE, pointer, 1.0)])
    assert errors(result) == set()
    assert result.verdict == "verified"
    assert ELAPSED in warnings(result)
    assert {(f.artifact, f.pointer) for f in result.collector.findings if f.code == ELAPSED} == {
        (EVIDENCE, "/commands/0/elapsed_seconds")}


def test_an_elapsed_time_of_zero_is_not_recorded_and_does_not_warn(tmp_path: Path) -> None:
    """0.0 (the real bundle's value) means the command's time was not measured."""
    pointer = ("commands", 0, "elapsed_seconds")
    result = forge("synthetic-smoke", tmp_path, [(MANIFEST, pointer, 0.0), (EVIDENCE, pointer, 0.0)])
    assert result.verdict == "verified"
    assert ELAPSED not in warnings(result)


PINNED_ID = "corbt/enron-emails"


def forge_renamed(base: str, tmp_path: Path, new_id: str) -> VerifyResult:
    """Copy ``base``, rename the pinned dataset id in every JSON artifact (the forger's search and replace over every
    copy: manifest, evidence, bank card, capacity policy and phases), re-derive and return the verification."""
    root = tmp_path / "bundle"
    shutil.copytree(BUNDLES / base, root)
    renamed = 0
    for path in sorted(root.rglob("*.json")):
        text = path.read_text(encoding="utf-8")
        if PINNED_ID in text:
            path.write_text(text.replace(PINNED_ID, new_id), encoding="utf-8")
            renamed += 1
    assert renamed >= 4
    return rederive(root, set()).result


def test_a_renamed_dataset_with_the_pinned_revision_is_rejected(tmp_path: Path) -> None:
    """Every copy of the dataset id renamed (so no charter pin applies), revision and row commitment kept."""
    result = forge_renamed("nerb-enron", tmp_path, "corbt/enron-emails-mirror")
    assert errors(result) == {SOURCE_PIN}
    assert {(f.artifact, f.pointer) for f in result.collector.findings if f.code == SOURCE_PIN} == {
        (MANIFEST, "/source/id"), (EVIDENCE, "/source/id")}
    assert all("mirror" not in (f.message or "") for f in result.collector.findings)


def test_the_rename_verifies_with_the_source_pin_check_switched_off(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the rule the renamed bundle is verified: the check is what catches it."""
    from nerb_verify.checks.provenance import source_pin

    monkeypatch.setattr(source_pin, "run", lambda ctx: None)
    result = forge_renamed("nerb-enron", tmp_path, "corbt/enron-emails-mirror")
    assert result.verdict == "verified"
    assert not errors(result)


def test_the_source_pin_rule_catches_only_a_rename() -> None:
    """The pin, a wholly other corpus, the pinned id at another revision (not this rule's) and renames."""
    from nerb_verify.checks.capacity.capacity_policy import PUBLISHED
    from nerb_verify.checks.provenance.source_pin import (PINNED_CONTENT_SHA256, PINNED_ID as PIN_ID,
                                                          PINNED_REVISION, renamed)

    assert (PIN_ID, PINNED_REVISION) == (PUBLISHED["dataset_id"], PUBLISHED["dataset_revision"])
    real = json.loads((BUNDLES / "nerb-enron" / MANIFEST).read_text(encoding="utf-8"))["source"]
    assert real["content_sha256"] == PINNED_CONTENT_SHA256
    pin = {"id": PIN_ID, "revision": PINNED_REVISION, "content_sha256": PINNED_CONTENT_SHA256}
    assert not renamed(pin)
    assert not renamed({"id": "own", "revision": "r", "content_sha256": OTHER_HASH})
    assert not renamed({**pin, "revision": "0" * 40, "content_sha256": OTHER_HASH})
    assert renamed({**pin, "id": "own"})
    assert renamed({**pin, "id": "own", "content_sha256": OTHER_HASH})
    assert renamed({**pin, "id": "own", "revision": "0" * 40})


HEADLINE = "person_contact_all_test"
GOLD_POINTERS = {("publication.json", "/scope/gold_sample_documents"), ("publication.json", "/scope/gold_spans")}


def forge_slice_ids(base: str, tmp_path: Path, renames: dict[str, str]) -> VerifyResult:
    """Copy ``base``, rename quality slice ids (``renames``: old -> new, applied at once, so ids can swap) in the
    manifest's quality plan and the evidence's slices, re-derive (the publication's gold counts follow whatever slice
    now carries the headline id) and return the verification."""
    root = tmp_path / "bundle"
    shutil.copytree(BUNDLES / base, root)
    for name, path in ((MANIFEST, ("quality_plan",)), (EVIDENCE, ("quality", "slices"))):
        document = json.loads((root / name).read_text(encoding="utf-8"))
        items = document
        for key in path:
            items = items[key]
        for item in items:
            item["id"] = renames.get(item["id"], item["id"])
        (root / name).write_bytes(nerb_pretty_bytes(document))
    return rederive(root, set()).result


def test_a_renamed_headline_slice_is_rejected(tmp_path: Path) -> None:
    """The headline slice renamed in plan and evidence alike: the published gold counts have no slice behind them."""
    result = forge_slice_ids("nerb-enron", tmp_path, {HEADLINE: "person_contact_panel_test"})
    assert errors(result) == {GOLD_SLICE}
    assert {(f.artifact, f.pointer) for f in result.collector.findings if f.code == GOLD_SLICE} == GOLD_POINTERS
    assert all("panel_test" not in (f.message or "") for f in result.collector.findings)


def test_the_headline_id_on_the_contact_slice_is_rejected(tmp_path: Path) -> None:
    """The headline id swapped with the contact slice's: the forward re-derivation restates the gold spans from the
    contact slice (126), which the publication comparison alone accepts."""
    result = forge_slice_ids("nerb-enron", tmp_path, {HEADLINE: "contact_all_test", "contact_all_test": HEADLINE})
    assert errors(result) == {GOLD_SLICE}
    published = json.loads((tmp_path / "bundle" / "publication.json").read_text(encoding="utf-8"))
    assert published["scope"]["gold_spans"] == 126
    assert {(f.artifact, f.pointer) for f in result.collector.findings if f.code == GOLD_SLICE} == GOLD_POINTERS


@pytest.mark.parametrize("renames", [{HEADLINE: "person_contact_panel_test"},
                                     {HEADLINE: "contact_all_test", "contact_all_test": HEADLINE}])
def test_the_slice_forgeries_verify_with_the_gold_slice_check_switched_off(
        renames: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the rule both forgeries are verified: the check is what catches them."""
    from nerb_verify.checks.presentation import gold_slice

    monkeypatch.setattr(gold_slice, "run", lambda ctx: None)
    result = forge_slice_ids("nerb-enron", tmp_path, renames)
    assert result.verdict == "verified"
    assert not errors(result)


def test_the_gold_slice_rule_reads_only_the_headline_slice() -> None:
    """No slices (insufficient support) is not this rule's; the headline id must name the combined test panel."""
    from nerb_verify.checks.presentation.gold_slice import headline_problem

    panel = {"id": HEADLINE, "entity_class": "person_contact", "split_role": "test", "cohort": "all"}
    assert headline_problem([]) is None
    assert headline_problem([panel, dict(panel, id="contact_all_test", entity_class="contact")]) is None
    assert headline_problem([dict(panel, id="other")]) is not None
    for key, value in (("entity_class", "contact"), ("split_role", "validation"), ("cohort", "tail")):
        assert headline_problem([dict(panel, **{key: value})]) is not None
    gate = dict(panel, promotion_gate=True)
    assert headline_problem([dict(gate, entity_class="contact")]) is not None
    assert headline_problem([dict(gate, cohort="head")]) is None  # the gate rules' finding (invalid_gate_slice)


REPORT = "performance-report.json"
CARD_ALIASES = ("bank-card.json", "/candidate_funnel/by_type/person_alias/active")


def alias_edits(stated: int, contact_aliases: int = 0, person_aliases: int | None = None) -> list[Edit]:
    """Restate the bank's active aliases in every copy (manifest, evidence bank, evaluated performance bank in the
    evidence and the report) and its taxonomy rows (contact row 0, person row 1), keeping each row's names (so the
    name and pattern totals hold): aliases moved between aliases and canonical names."""
    person = stated - contact_aliases if person_aliases is None else person_aliases
    edits: list[Edit] = [(MANIFEST, ("bank", "active_aliases"), stated), (EVIDENCE, ("bank", "active_aliases"), stated)]
    for artifact in (EVIDENCE, REPORT):
        bank: tuple[str | int, ...] = ("performance", "banks", 0)
        rows = (*bank, "composition", "taxonomy")
        edits += [(artifact, (*bank, "active_aliases"), stated),
                  (artifact, (*rows, 0, "aliases"), contact_aliases),
                  (artifact, (*rows, 0, "canonical_names"), 12001 - contact_aliases),
                  (artifact, (*rows, 1, "aliases"), person), (artifact, (*rows, 1, "canonical_names"), 1200 - person)]
    return edits


def test_bank_aliases_restated_as_canonical_names_are_rejected(tmp_path: Path) -> None:
    """Ten of the 1,200 active person aliases restated as canonical names in every copy of the bank (names and
    patterns unchanged): the card still has 1,200 active person-alias candidates."""
    result = forge("nerb-enron", tmp_path, alias_edits(1190))
    assert errors(result) == {ALIASES}
    assert {(f.artifact, f.pointer) for f in result.collector.findings if f.code == ALIASES} == {CARD_ALIASES}
    assert all("1190" not in (f.message or "") and "1,190" not in (f.message or "")
               for f in result.collector.findings)


def test_aliases_moved_to_the_contact_row_are_rejected(tmp_path: Path) -> None:
    """The alias total kept at 1,200 but ten of them booked on the contact row: only the person row disagrees."""
    result = forge("nerb-enron", tmp_path, alias_edits(1200, contact_aliases=10))
    assert errors(result) == {ALIASES}
    assert [f.message for f in result.collector.findings if f.code == ALIASES] == [
        "The active person-alias candidates differ from the evaluated bank's person aliases."]


def test_extra_contact_aliases_are_rejected(tmp_path: Path) -> None:
    """Ten contact names restated as aliases (the person row kept): only the bank's alias total disagrees."""
    result = forge("nerb-enron", tmp_path, alias_edits(1210, contact_aliases=10, person_aliases=1200))
    assert errors(result) == {ALIASES}
    assert [f.message for f in result.collector.findings if f.code == ALIASES] == [
        "The active person-alias candidates differ from the evaluated bank's active aliases."]


@pytest.mark.parametrize("edits", [alias_edits(1190), alias_edits(1200, contact_aliases=10),
                                   alias_edits(1210, contact_aliases=10, person_aliases=1200)])
def test_the_alias_forgeries_verify_with_the_alias_check_switched_off(
        edits: list[Edit], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the rule each alias forgery is verified: the check is what catches it."""
    from nerb_verify.checks.provenance import alias_count

    monkeypatch.setattr(alias_count, "run", lambda ctx: None)
    result = forge("nerb-enron", tmp_path, edits)
    assert result.verdict == "verified"
    assert not errors(result)


def platform_edits(os_name: str) -> list[Edit]:
    """The run's platform restated in every copy of the environment (manifest, evidence, performance report)."""
    return [(artifact, ("environment", "os"), os_name) for artifact in (MANIFEST, EVIDENCE, REPORT)]


@pytest.mark.parametrize(("base", "os_name"), [("nerb-enron", "Windows"), ("synthetic-smoke", "FreeBSD")])
def test_rss_samples_on_a_platform_without_rss_are_rejected(base: str, os_name: str, tmp_path: Path) -> None:
    """The run moved to another platform in every copy, its RSS samples kept (resealed): the worker reports no RSS
    there."""
    result = forge(base, tmp_path, platform_edits(os_name))
    assert errors(result) == {RSS_PLATFORM}
    assert {(f.artifact, f.pointer) for f in result.collector.findings if f.code == RSS_PLATFORM} == {
        (REPORT, "/environment/os")}
    assert all(os_name not in (f.message or "") for f in result.collector.findings)


def test_the_platform_forgery_verifies_with_the_rss_platform_check_switched_off(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the rule the moved run is verified: the check is what catches it."""
    from nerb_verify.checks.performance import rss_platform

    monkeypatch.setattr(rss_platform, "check_rss_platform", lambda state: None)
    result = forge("nerb-enron", tmp_path, platform_edits("Windows"))
    assert result.verdict == "verified"
    assert not errors(result)


def test_a_run_on_another_platform_without_rss_is_not_this_rule(tmp_path: Path) -> None:
    """A run there without RSS (empty samples, null peaks): whatever its cells then lack is another rule's."""
    report = json.loads((BUNDLES / "synthetic-smoke" / REPORT).read_text(encoding="utf-8"))
    workloads = report["performance"]["workloads"]
    edits = platform_edits("Windows")
    for artifact in (EVIDENCE, REPORT):
        for index in range(len(workloads)):
            base: tuple[str | int, ...] = ("performance", "workloads", index)
            edits += [(artifact, (*base, "rss_samples_bytes"), []), (artifact, (*base, "peak_rss_bytes"), None)]
    result = forge("synthetic-smoke", tmp_path, edits)
    assert RSS_PLATFORM not in errors(result)


def test_the_rss_platforms_are_linux_and_macos() -> None:
    from nerb_verify.checks.performance.rss_platform import has_rss, measures_rss

    assert [measures_rss(name) for name in ("Linux", "Darwin", "macOS", "linux")] == [True] * 4
    assert [measures_rss(name) for name in ("Windows", "FreeBSD", "Java", "")] == [False] * 4
    assert measures_rss(None) is None
    assert has_rss({"rss_samples_bytes": [1], "peak_rss_bytes": 1})
    assert has_rss({"rss_samples_bytes": [], "peak_rss_bytes": 1})
    assert not has_rss({"rss_samples_bytes": [], "peak_rss_bytes": None})


def _slice_index(base: str, entity_class: str) -> int:
    evidence = json.loads((BUNDLES / base / EVIDENCE).read_text(encoding="utf-8"))
    return next(i for i, s in enumerate(evidence["quality"]["slices"]) if s["entity_class"] == entity_class)


def _fewer_missed_documents() -> list[Edit]:
    """Nine person documents with a miss (and the combined panel's alike) restated as fully detected, the leaked
    characters and their documents kept: document leakage falls from 96.72% to 81.97% for person."""
    person, combined = _slice_index("nerb-enron", "person"), _slice_index("nerb-enron", "person_contact")
    return [(EVIDENCE, ("quality", "slices", person, "documents_with_any_miss"), 50),
            (EVIDENCE, ("quality", "slices", combined, "documents_with_any_miss"), 53)]


def test_fewer_documents_with_a_miss_than_with_a_leak_is_rejected(tmp_path: Path) -> None:
    """Every rate, gate actual, summary cell and hash re-derived; only the leaked-documents bound still disagrees."""
    result = forge("nerb-enron", tmp_path, _fewer_missed_documents())
    assert errors(result) == {LEAK_DOCUMENTS}
    pointers = {(f.artifact, f.pointer) for f in result.collector.findings if f.code == LEAK_DOCUMENTS}
    assert pointers == {(EVIDENCE, f"/quality/slices/{i}/documents_with_any_miss")
                        for i in (_slice_index("nerb-enron", "person"), _slice_index("nerb-enron", "person_contact"))}
    assert all("50" not in (f.message or "") and "53" not in (f.message or "") for f in result.collector.findings)


def test_fewer_missed_documents_verify_without_the_leak_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the rule switched off the same forgery is verified: the check is what catches it."""
    from nerb_verify.checks import quality

    monkeypatch.setattr(quality, "check_leaked_documents", lambda *args: None)
    result = forge("nerb-enron", tmp_path, _fewer_missed_documents())
    assert result.verdict == "verified"
    assert not errors(result)


def test_the_leak_bound_reads_eligible_slices_only() -> None:
    """Equal counts pass, one more leaked document fails, and an ineligible slice is left to its own rule."""
    from nerb_verify.checks.quality.leak_documents import check_leaked_documents
    from nerb_verify.context import VerifyContext, VerifyOptions
    from nerb_verify.findings import Collector

    def codes(counts: dict[str, int], eligible: bool) -> list[str]:
        ctx = VerifyContext(root=Path("."), options=VerifyOptions(), collector=Collector())
        check_leaked_documents(ctx, ["quality", "slices", 0], counts, eligible)
        return [f.code for f in ctx.collector.findings]

    assert codes({"documents_with_any_leaked_character": 3, "documents_with_any_miss": 3}, True) == []
    assert codes({"documents_with_any_leaked_character": 4, "documents_with_any_miss": 3}, True) == [LEAK_DOCUMENTS]
    assert codes({"documents_with_any_leaked_character": 4, "documents_with_any_miss": 3}, False) == []
    assert codes({"documents_with_any_leaked_character": 4}, True) == []
    no_misses = {"documents_with_any_leaked_character": 1, "documents_with_any_miss": 0, "false_negative": 0}
    assert codes(no_misses, True) == []  # quality.exact_recall_characters reports it


def _primary_view_on_other_bytes(base: str) -> list[Edit]:
    """The primary quality view states another view's digest (manifest and evidence alike); its id, regions,
    content policy and every other field are kept."""
    views = json.loads((BUNDLES / base / MANIFEST).read_text(encoding="utf-8"))["preparation"]["text_views"]
    primary = next(i for i, v in enumerate(views) if v["primary_for_quality"])
    other = next(v for v in views if not v["primary_for_quality"])["artifact_sha256"]
    pointer = ("preparation", "text_views", primary, "artifact_sha256")
    return [(MANIFEST, pointer, other), (EVIDENCE, pointer, other)]


@pytest.mark.parametrize("base", ["nerb-enron", "synthetic-smoke"])
def test_a_primary_view_stating_another_views_digest_is_rejected(base: str, tmp_path: Path) -> None:
    """Both copies agree and everything is resealed; only the seeded-digest identity is false."""
    edits = _primary_view_on_other_bytes(base)
    result = forge(base, tmp_path, edits)
    assert errors(result) == {VIEW_SHARED}
    primary = edits[0][1][2]
    assert {(f.artifact, f.pointer) for f in result.collector.findings if f.code == VIEW_SHARED} == {
        (MANIFEST, f"/preparation/text_views/{primary}/artifact_sha256"),
        (EVIDENCE, f"/preparation/text_views/{primary}/artifact_sha256")}
    digest = str(edits[0][2])
    assert all(digest[7:23] not in (f.message or "") for f in result.collector.findings)


def test_the_shared_view_digest_verifies_with_the_rule_switched_off(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the rule the forgery is verified: the check is what catches it."""
    from nerb_verify.checks.provenance import view_identity

    monkeypatch.setattr(view_identity, "run", lambda ctx: None)
    result = forge("nerb-enron", tmp_path, _primary_view_on_other_bytes("nerb-enron"))
    assert result.verdict == "verified"
    assert not errors(result)


def test_shared_views_compares_distinct_ids_only() -> None:
    """A later view repeating an earlier digest is reported; a repeated id (manifest.duplicate_id's) and malformed
    entries are not."""
    from nerb_verify.checks.provenance.view_identity import shared_views

    a, b = "sha256:" + "1" * 64, "sha256:" + "2" * 64
    assert shared_views([{"id": "x", "artifact_sha256": a}, {"id": "y", "artifact_sha256": b}]) == []
    assert shared_views([{"id": "x", "artifact_sha256": a}, {"id": "y", "artifact_sha256": a},
                         {"id": "z", "artifact_sha256": a}]) == [1, 2]
    assert shared_views([{"id": "x", "artifact_sha256": a}, {"id": "x", "artifact_sha256": a}]) == []
    assert shared_views([None, {"id": 3, "artifact_sha256": a}, {"id": "y"}]) == []


PERSON_COVERAGE_ROW = "| Person | 1,267 | 20 | 1,247 | 1.58% |\n"


def forge_summary(tmp_path: Path, old: str, new: str) -> VerifyResult:
    """Copy the real bundle, replace ``old`` by ``new`` once in summary.md, reseal (publication list) and verify."""
    root = tmp_path / "bundle"
    shutil.copytree(BUNDLES / "nerb-enron", root)
    summary = root / "summary.md"
    text = summary.read_text(encoding="utf-8")
    assert text.count(old) == 1
    summary.write_text(text.replace(old, new), encoding="utf-8")
    return rederive(root, set()).result


def test_a_coverage_table_without_its_person_row_is_rejected(tmp_path: Path) -> None:
    """The person row (1.58% catalog coverage) deleted; every number left in the table still traces."""
    result = forge_summary(tmp_path, PERSON_COVERAGE_ROW, "")
    assert errors(result) == {CLASS_OMITTED}
    found = [f for f in result.collector.findings if f.code == CLASS_OMITTED]
    assert [(f.artifact, f.line) for f in found] == [("summary.md", 36)]
    assert all("Person" not in (f.message or "") for f in found)


def test_the_dropped_row_verifies_without_the_class_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the rule the edited summary is verified: the check is what catches it."""
    from nerb_verify.checks.presentation import summary_classes

    monkeypatch.setattr(summary_classes, "omitted_classes", lambda text, classes: [])
    result = forge_summary(tmp_path, PERSON_COVERAGE_ROW, "")
    assert result.verdict == "verified"
    assert not errors(result)


def test_class_tables_need_every_evaluated_class() -> None:
    """Rows and columns both; tables without class labels and classes the evidence lacks are not concerned."""
    from nerb_verify.checks.presentation.summary_classes import evaluated_classes, omitted_classes

    rows = "| Class | Count |\n|---|---:|\n| Combined | 3 |\n| Contact | 1 |\n| Person | 2 |\n"
    columns = "| Metric | Combined | Contact | Person |\n|---|---:|---:|---:|\n| Precision | 1% | 2% | 3% |\n"
    every = {"person_contact", "contact", "person"}
    assert omitted_classes(rows + "\n" + columns, every) == []
    assert omitted_classes(rows.replace("| Person | 2 |\n", ""), every) == [(3, 2)]
    assert omitted_classes(columns.replace(" Person |", "").replace(" 3% |", ""), every) == [(1, 1)]
    assert omitted_classes(rows.replace("| Person | 2 |\n", ""), {"person_contact", "contact"}) == []
    assert omitted_classes("| Check | Found |\n|---|---:|\n| Patterns | 5 |\n", every) == []
    evidence = json.loads((BUNDLES / "nerb-enron" / EVIDENCE).read_text(encoding="utf-8"))
    assert evaluated_classes(evidence) == every
    assert evaluated_classes({"quality": {"slices": []}}) == set()
