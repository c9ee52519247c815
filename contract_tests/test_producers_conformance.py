"""Conformance cases (spec 50 §6): generation, scoring, the catalog_conformance section, and the verifier's
conformance family accepting it -- and rejecting it when the engine silently drops its last shard."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

re2 = pytest.importorskip("re2", reason="the RE2 engine needs google-re2 (the 'producers' or 'test' extra)")
if not hasattr(getattr(re2, "_re2", None), "Set"):
    pytest.skip("the installed 're2' module is not google-re2 (no RE2::Set)", allow_module_level=True)

from nerb_verify.context import EVIDENCE, MANIFEST, VerifyContext, VerifyOptions  # noqa: E402
from nerb_verify.findings import Collector  # noqa: E402
from nerb_verify.producers.bank_format import load_bank  # noqa: E402
from nerb_verify.producers.conformance_cases import (  # noqa: E402
    REQUIRED_TAGS,
    conformance_plan,
    generate_cases,
    run_conformance,
    score_cases,
    simple_swapcase,
)
from nerb_verify.producers.engine import CompiledBank, EntityMatcher, compile_bank  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "nerb-fixtures"  # vendored, Apache-2.0


@pytest.fixture(scope="module")
def fake_bank():
    return load_bank(FIXTURES / "enron_bank_fake.json")


def drop_last_shard(compiled: CompiledBank) -> CompiledBank:
    """A deliberately broken engine: the entity with the most shards silently loses its last one."""
    broken = copy.copy(compiled)
    broken.entities = list(compiled.entities)
    k = max(range(len(broken.entities)), key=lambda i: len(broken.entities[i].shards))
    entity = broken.entities[k]
    broken.entities[k] = EntityMatcher(entity.entity_id, entity.detectors, entity.bodies, entity.plans,
                                       entity.shards[:-1], entity.options)
    return broken


def verifier_codes(section: dict, bank_active_patterns: int) -> tuple[list[str], object]:
    """Run the verifier's conformance family on a minimal evidence + manifest built around ``section``."""
    from nerb_verify.checks.quality import conformance

    label = {"id": section["label_artifact_id"], "label_strength": "synthetic_conformance",
             "annotation_completeness": "exhaustive_within_scope", "artifact": section["positive_cases_artifact"],
             "span_count": section["approved_positive_cases"]}
    ctx = VerifyContext(root=Path("."), options=VerifyOptions(), collector=Collector())
    ctx.artifacts[EVIDENCE] = {"catalog_conformance": section, "bank": {"active_patterns": bank_active_patterns}}
    ctx.artifacts[MANIFEST] = {"labels": [label], "conformance_plan": conformance_plan(section)}
    conformance.run(ctx)
    return sorted({f.code for f in ctx.collector.findings}), ctx.figures.get("/catalog_conformance/passed")


def test_cases_cover_every_pattern_and_every_tag(fake_bank):
    cases = generate_cases(fake_bank)
    assert set(REQUIRED_TAGS) <= cases.tags()
    expected_ids = {(e["entity_id"], e["name_id"], e["pattern_id"]) for c in cases.positive for e in c["expected"]}
    assert expected_ids == {("contact", "fixture_contact", "exact_email"),
                            ("contact", "unknown_email_contact", "structured_email"),
                            ("person", "fixture_person", "full_name")}
    for case in cases.positive:
        data = case["text"].encode()
        for exp in case["expected"]:  # the string is the byte slice, offsets are half-open UTF-8 bytes
            assert data[exp["start"]:exp["end"]].decode() == exp["string"]
    context = [c for c in cases.positive if "html" in c["tags"]]
    assert context and all(c["expected"][0]["start"] == 15 for c in context)
    # contact boundary case goes to the fallback; the person boundary case is a negative
    boundary_pos = [c for c in cases.positive if c["tags"] == ["boundary"]]
    assert boundary_pos[0]["expected"][0]["pattern_id"] == "structured_email"
    assert any(c["reason_code"] == "literal_word_boundary" for c in cases.negative)
    assert [c["case_id"] for c in cases.positive] == [f"pattern_{i:08d}" for i in range(len(cases.positive))]
    assert cases.positive_bytes().endswith(b"\n") and cases.positive_bytes().count(b"\n") == len(cases.positive)


def test_case_files_are_byte_identical_to_nerbs_published_example(fake_bank):
    """NERB's example card (enron_bank_card_fake.json) publishes the case artifacts for this very bank."""
    import json

    card = json.loads((FIXTURES / "enron_bank_card_fake.json").read_text())["catalog_conformance"]
    section, _ = run_conformance(fake_bank, compile_bank(fake_bank))
    for key in ("positive_cases_artifact", "negative_cases_artifact", "approved_positive_cases", "negative_cases",
                "correctly_mapped", "patterns_with_positive_cases", "active_patterns", "recall", "passed"):
        assert section[key] == card[key], key


def test_swapcase_keeps_scalar_count():
    assert simple_swapcase("Stra\u00dfe") == "sTRA\u00dfE"
    assert simple_swapcase("k\u212a") == "Kk"


def test_section_passes_and_verifier_accepts_it(fake_bank):
    compiled = compile_bank(fake_bank)
    section, cases = run_conformance(fake_bank, compiled)
    assert section["passed"] is True and section["recall"] == 1.0 and section["evaluated"] is True
    assert section["approved_positive_cases"] == section["correctly_mapped"] == 10
    assert section["active_patterns"] == section["patterns_with_positive_cases"] == 3
    assert section["negative_cases"] == len(cases.negative) and section["unexpected_negative_matches"] == 0
    assert len(section) == 15
    codes, passed = verifier_codes(section, 3)
    assert codes == [] and passed is True


def test_engine_that_drops_last_shard_fails_conformance(fake_bank):
    broken = drop_last_shard(compile_bank(fake_bank, shard_size=1))
    cases = generate_cases(fake_bank)
    counts = score_cases(broken, cases)
    assert counts.missed > 0
    section, _ = run_conformance(fake_bank, broken)
    assert section["passed"] is False and section["recall"] < 1.0
    assert section["approved_positive_cases"] == section["correctly_mapped"] + section["missed"] \
        + section["wrong_canonical"]
    codes, passed = verifier_codes(section, 3)
    assert passed is False and codes == []  # an honest failing section: consistent, but not passed
    # and a producer that lies about it is caught
    lied = dict(section, passed=True)
    codes, _ = verifier_codes(lied, 3)
    assert "conformance.passed_mismatch" in codes


def test_wrong_canonical_is_counted(fake_bank):
    compiled = compile_bank(fake_bank)
    section, cases = run_conformance(fake_bank, compiled)
    swapped = copy.deepcopy(fake_bank)
    person = swapped["entities"]["person"]["names"]["fixture_person"]
    person["canonical"] = "Someone Else"
    counts = score_cases(compile_bank(swapped), cases)
    assert counts.wrong_canonical == 3 and counts.missed == 0  # casing, context and whitespace cases


def test_demo_corpus_end_to_end(tmp_path):
    """Generated corpus -> prepare -> split -> bank build: card and bank section schema-valid and privacy-clean, the
    conformance section accepted by the verifier, and the same section from a shard-dropping engine rejected."""
    import json
    import subprocess
    import sys

    import jsonschema
    from conftest import REPO, run_cli

    subprocess.run([sys.executable, str(REPO / "tools" / "make_corpus.py"), "--messages", "400",
                    str(tmp_path / "corpus")], check=True, capture_output=True)
    root = tmp_path / ".nerb"
    public_out = ["--public-out", str(tmp_path / "nerb-public" / "manifest-sections.json")]  # never the checkout's
    prep = run_cli("prepare", "--private-root", str(root), "--no-progress", "--workers", "1", *public_out,
                   str(tmp_path / "corpus" / "corpus.jsonl"))
    assert prep.code == 0, prep.stderr
    split = run_cli("split", "--private-root", str(root), "--mode", "fixture", "--no-progress", *public_out)
    assert split.code == 0, split.stderr
    dev = root / "enron-split" / "run" / "development"
    built = run_cli("bank", "build", str(dev), "--private-dir", str(root / "bank"), "--public-dir",
                    str(tmp_path / "pub"), "--dataset-revision", "0123456789abcdef0123456789abcdef01234567",
                    "--dataset-split", "train", "--benchmark-version", "demo")
    assert built.code == 0, built.stderr
    card = json.loads((tmp_path / "pub" / "bank-card.json").read_text())
    schema = json.loads((REPO / "schemas" / "nerb.enron_public_bank_card.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(card)
    scan = run_cli("scan", "--profile", "contract", str(tmp_path / "pub"))
    assert scan.code == 0, scan.stdout
    section = card["catalog_conformance"]
    codes, passed = verifier_codes(section, card["bank"]["stats"]["active_totals"]["patterns"])
    assert codes == [] and passed is True and section["active_patterns"] > 10

    bank = load_bank(root / "bank" / "bank.json")
    broken = drop_last_shard(compile_bank(bank, shard_size=8))
    bad_section, _ = run_conformance(bank, broken)
    codes, passed = verifier_codes(bad_section, section["active_patterns"])
    assert passed is False and bad_section["missed"] > 0
    lied = dict(bad_section, passed=True, recall=1.0)
    codes, _ = verifier_codes(lied, section["active_patterns"])
    assert "conformance.passed_mismatch" in codes and "conformance.recall_mismatch" in codes
