"""Bank format (spec 50 §4.1) and train-only bank building, card and manifest bank section (§5, spec 30 §A.6)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from nerb_verify.producers.bank_builder import (
    TrainBundle,
    TrainOnlyError,
    build_bank,
    normalize_address,
    open_train_bundle,
    person_identity,
)
from nerb_verify.producers.bank_format import (
    BankFormatError,
    active_detectors,
    bank_bytes,
    bank_stats,
    canonical_hash,
    load_bank,
    parse_bank_bytes,
)

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "nerb-fixtures"  # vendored, Apache-2.0


# --- format ---------------------------------------------------------------------------------------------------------

def test_nerb_example_banks_load_and_hash_like_nerb():
    # Hashes observed with NERB 0.0.12's hash_bank on the same files.
    assert canonical_hash(load_bank(FIXTURES / "minimal_bank.json")) == \
        "sha256:52d346df4adac9de31e6579698ef7eb799ac2ec8258150709bbe0f8c79fef4f3"
    fake = load_bank(FIXTURES / "enron_bank_fake.json")
    assert canonical_hash(fake) == "sha256:ff76b0e272a14a54b96a433587fbc4dc98342c0bd6c9e3a8ed4b39b451c80fb2"
    stats = bank_stats(fake)
    assert stats["active_totals"] == {"entities": 2, "names": 3, "patterns": 3}
    assert stats["totals"] == {"entities": 4, "names": 5, "patterns": 5}
    assert stats["by_kind"] == {"literal": 3, "regex": 2}
    assert [(d.entity_id, d.pattern_id) for d in active_detectors(fake)] == [
        ("contact", "exact_email"), ("contact", "structured_email"), ("person", "full_name")]


def test_write_read_round_trip_keeps_hash():
    fake = load_bank(FIXTURES / "enron_bank_fake.json")
    again = parse_bank_bytes(bank_bytes(fake))
    assert again == fake and canonical_hash(again) == canonical_hash(fake)


def test_flag_order_and_dedup_do_not_change_hash():
    bank = load_bank(FIXTURES / "minimal_bank.json")
    other = copy.deepcopy(bank)
    other["default_regex_flags"] = ["IGNORECASE", "IGNORECASE"]
    assert canonical_hash(other) == canonical_hash(bank)


@pytest.mark.parametrize("mutate", [
    lambda b: b.update(extra=1),
    lambda b: b["entities"]["customer"]["names"]["acme_corp"]["patterns"]["primary"].update(regex_flags=[]),
    lambda b: b["entities"]["customer"]["names"]["acme_corp"]["patterns"]["primary"].update(priority=True),
    lambda b: b["entities"]["customer"]["names"]["acme_corp"]["patterns"]["primary"].update(priority=-1),
    lambda b: b["entities"]["customer"]["names"]["acme_corp"]["patterns"]["primary"].update(value=""),
    lambda b: b["entities"]["customer"]["names"]["acme_corp"]["patterns"]["primary"].update(left_boundary="x"),
    lambda b: b.update(unicode_normalization="NFC"),
    lambda b: b["entities"].update({"Bad-Id": b["entities"]["customer"]}),
    lambda b: b.update(default_regex_flags=["UNICODE"]),
])
def test_closed_shape_is_enforced(mutate):
    bank = load_bank(FIXTURES / "minimal_bank.json")
    mutate(bank)
    with pytest.raises(BankFormatError) as info:
        parse_bank_bytes(json.dumps(bank).encode())
    assert "Acme" not in str(info.value)  # our words, never input values


def test_strict_parse_refuses_duplicates_and_invalid_utf8():
    with pytest.raises(BankFormatError):
        parse_bank_bytes(b'{"id": 1, "id": 2}')
    with pytest.raises(BankFormatError):
        parse_bank_bytes(b'\xff{}')


# --- building from train --------------------------------------------------------------------------------------------

def _record(doc: str, sender: tuple[str, str], to: list[tuple[str, str]], date: str | None, body: str = "") -> dict:
    return {"document_id": doc, "date": {"status": "valid" if date else "missing", "utc": date},
            "headers": {"from": [{"name": sender[0], "address": sender[1]}],
                        "to": [{"name": n, "address": a} for n, a in to], "cc": [], "bcc": []},
            "views": {"current_body": body}}


def make_train_bundle(root: Path) -> Path:
    """A tiny development bundle with a known answer: see the expectations in the tests below."""
    recs = [
        # Ann Lee <ann.lee@example.org> in two groups -> active contact and active person alias
        ("doc_01", "g1", _record("doc_01", ("Ann Lee", "Ann.Lee@Example.org"), [("", "bob@example.org")],
                                 "2001-01-01T00:00:00Z")),
        ("doc_02", "g2", _record("doc_02", ("Lee, Ann", "ann.lee@example.org"), [("", "bob@example.org")],
                                 "2001-01-03T00:00:00Z")),
        ("doc_03", "g2", _record("doc_03", ("Ann Lee", "ann.lee@example.org"), [], None)),
        # carol: one group only -> draft (insufficient support)
        ("doc_04", "g3", _record("doc_04", ("", "carol@example.org"), [("Bo Chen", "bo@example.net")],
                                 "2001-02-01T00:00:00Z")),
        # Bo Chen claimed by two addresses -> ambiguous, never active
        ("doc_05", "g4", _record("doc_05", ("Bo Chen", "bchen@example.com"), [("Bo Chen", "bo@example.net")],
                                 "2001-02-02T00:00:00Z")),
        # sender-body link: dan.ruiz@example.org with empty name, signature "Dan Ruiz" in two groups
        ("doc_06", "g5", _record("doc_06", ("", "dan.ruiz@example.org"), [("", "bob@example.org")],
                                 "2001-03-01T00:00:00Z", "Hi\n\nThanks,\nDan Ruiz")),
        ("doc_07", "g6", _record("doc_07", ("", "dan.ruiz@example.org"), [("", "bchen@example.com")],
                                 "2001-03-02T00:00:00Z", "ok\n-- \nDan  Ruiz\n")),
        ("doc_08", "g6", _record("doc_08", ("Support Team", "support@example.org"), [("", "not an address")],
                                 "2001-03-03T00:00:00Z")),
    ]
    root.mkdir(parents=True, exist_ok=True)
    with (root / "train.jsonl").open("w") as fh:
        for _, _, rec in recs:
            fh.write(json.dumps(rec, sort_keys=True) + "\n")
    with (root / "memberships.jsonl").open("w") as fh:
        for doc, group, _ in recs:
            fh.write(json.dumps({"document_id": doc, "group_id": group, "role": "train"}) + "\n")
    val = [_record("doc_v1", ("Ann Lee", "ann.lee@example.org"), [("", "new.person@example.org")], None),
           _record("doc_v2", ("", "bob@example.org"), [("Dan Ruiz", "dan.ruiz@example.org")], None)]
    with (root / "validation.jsonl").open("w") as fh:
        for rec in val:
            fh.write(json.dumps(rec, sort_keys=True) + "\n")
    manifest = {"source_card": {
        "dataset_id": "synthetic/demo", "dataset_revision": "0" * 39 + "1", "dataset_split": "train",
        "development_manifest_sha256": "sha256:" + "1" * 64, "full_split_manifest_sha256": "sha256:" + "2" * 64,
        "preparation_manifest_sha256": "sha256:" + "3" * 64, "split_policy_sha256": "sha256:" + "4" * 64,
        "validation_artifact_sha256": "sha256:" + "5" * 64, "validation_groups": 2, "validation_records": 2}}
    (root / "manifest.json").write_text(json.dumps(manifest))
    return root


@pytest.fixture()
def train_dir(tmp_path):
    return make_train_bundle(tmp_path / "dev")


def _decisions(result):
    return {(d.candidate_type, d.candidate.value if d.candidate else None): (d.decision, d.reason)
            for d in result.decisions}


def test_normalizers():
    assert normalize_address(" Ann.Lee@Example.ORG ") == "ann.lee@example.org"
    assert normalize_address("-x@example.org") is None and normalize_address("a@b") is None
    assert person_identity("Lee, Ann") == ("ann lee", ["ann", "lee"])
    assert person_identity("Support Team") is None and person_identity("A B") is None


def test_build_promotes_only_with_two_train_groups(train_dir):
    result = build_bank(open_train_bundle(train_dir))
    d = _decisions(result)
    assert d[("contact", "ann.lee@example.org")] == ("active", "recurring_valid_contact")
    assert d[("contact", "bob@example.org")] == ("active", "recurring_valid_contact")
    assert d[("contact", "carol@example.org")] == ("draft", "insufficient_distinct_group_support")
    assert d[("person_alias", "ann lee")] == ("active", "recurring_unique_full_name_alias")
    assert d[("person_alias", "lee, ann")][0] != "active"  # 'Last, First' is its own key; one group only
    assert d[("person_alias", "bo chen")] == ("draft", "ambiguous_address_ownership")
    assert d[("person_alias", "dan ruiz")] == ("active", "recurring_unique_full_name_alias")
    assert d[("contact_fallback", None)] == ("active", "bounded_structured_email_fallback")
    assert d[("phone_fallback", None)] == ("draft", "iteration_deferred")
    funnel = result.funnel
    assert sum(funnel["by_decision"].values()) == funnel["total_candidates"] == len(result.decisions)
    assert funnel["by_decision"]["active"] == bank_stats(result.bank)["active_totals"]["patterns"]
    # provenance metadata on every promoted pattern
    person = next(iter(n for n in result.bank["entities"]["person"]["names"].values() if n["status"] == "active"))
    meta = next(iter(person["patterns"].values()))["metadata"]
    for key in ("privacy_class", "provenance_sha256", "builder_policy_sha256", "observation_count", "first_seen",
                "last_seen", "confidence", "label_strength", "ambiguity", "curation_reason_code",
                "distinct_leakage_group_count", "identity_ref", "contact_ref"):
        assert key in meta
    assert meta["split"] == "train" and meta["distinct_leakage_group_count"] >= 2


def test_builder_refuses_anything_but_a_train_bundle(train_dir, tmp_path):
    with pytest.raises(TrainOnlyError):
        build_bank(TrainBundle([], {}, "sha256:" + "0" * 64, None))  # not opened by open_train_bundle
    with pytest.raises(TrainOnlyError):
        build_bank({"records": []})  # type: ignore[arg-type]
    members = (train_dir / "memberships.jsonl").read_text().replace('"role": "train"}', '"role": "validation"}', 1)
    (train_dir / "memberships.jsonl").write_text(members)
    with pytest.raises(TrainOnlyError):
        open_train_bundle(train_dir)


def test_validation_text_never_changes_the_bank(train_dir):
    first = build_bank(open_train_bundle(train_dir))
    (train_dir / "validation.jsonl").write_text(json.dumps(_record("doc_v9", ("Zed Zorro", "zz@example.org"), [],
                                                                   None)) + "\n")
    assert canonical_hash(build_bank(open_train_bundle(train_dir)).bank) == canonical_hash(first.bank)


# --- card and manifest section --------------------------------------------------------------------------------------

def _need_google_re2() -> None:
    """Skip (with the reason) when the RE2 engine's binding is not installed; format and builder tests still run."""
    re2 = pytest.importorskip("re2", reason="the RE2 engine needs google-re2 (the 'producers' or 'test' extra)")
    if not hasattr(getattr(re2, "_re2", None), "Set"):
        pytest.skip("the installed 're2' module is not google-re2 (no RE2::Set)")


def test_card_and_bank_section_are_schema_valid_and_private(train_dir):
    _need_google_re2()
    import jsonschema

    from nerb_verify.producers.bank_card import (
        build_card,
        card_arithmetic_problems,
        card_source_from_manifest,
        evaluate_validation,
        manifest_bank_section,
    )
    from nerb_verify.producers.conformance_cases import run_conformance
    from nerb_verify.producers.engine import compile_bank

    train = open_train_bundle(train_dir)
    result = build_bank(train)
    artifact = bank_bytes(result.bank)
    compiled = compile_bank(result.bank)
    conformance, _ = run_conformance(result.bank, compiled)
    assert conformance["passed"] is True
    validation_records = [json.loads(x) for x in (train_dir / "validation.jsonl").read_text().splitlines()]
    validation = evaluate_validation(compiled, result.bank, validation_records)
    assert validation["contact"]["gold_spans"] == 4 and validation["contact"]["true_positive"] == 4
    assert validation["contact"]["cataloged_gold_spans"] == 3  # new.person@ is not in the bank: fallback only
    source = card_source_from_manifest(train.manifest, result, len(set(train.groups.values())), train)
    card = build_card(result, artifact, conformance, validation, source, benchmark_version="demo")
    schema = json.loads((REPO / "schemas" / "nerb.enron_public_bank_card.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(card)
    assert card_arithmetic_problems(card) == []
    from nerb_verify.checks.provenance import bank_card as card_family
    from nerb_verify.context import BANK_CARD, VerifyContext, VerifyOptions
    from nerb_verify.findings import Collector

    ctx = VerifyContext(root=Path("."), options=VerifyOptions(), collector=Collector())
    ctx.artifacts[BANK_CARD] = card
    card_family.run(ctx)
    assert [f.code for f in ctx.collector.findings] == []
    text = json.dumps(card, ensure_ascii=False)
    assert "@" not in text and "Ann" not in text and "ruiz" not in text.lower()
    section = manifest_bank_section(result.bank, artifact)
    assert section["active_patterns"] == conformance["active_patterns"] == card["bank"]["stats"]["active_totals"][
        "patterns"]
    assert section["active_aliases"] <= section["active_names"]
    assert "@" not in json.dumps(section)
    from referencing import Registry, Resource

    common = json.loads((REPO / "schemas" / "nerb.enron_common.v2.json").read_text())
    registry = Registry().with_resource(common["$id"], Resource.from_contents(common))
    bank_def = {"$schema": "https://json-schema.org/draft/2020-12/schema",
                "$ref": common["$id"] + "#/$defs/bank"}
    jsonschema.Draft202012Validator(bank_def, registry=registry).validate(section)


def test_cli_bank_build_scan_bank_and_conformance(tmp_path):
    _need_google_re2()
    from conftest import run_cli

    dev = make_train_bundle(tmp_path / "dev")
    built = run_cli("bank", "build", str(dev), "--private-dir", str(tmp_path / "priv"), "--public-dir",
                    str(tmp_path / "pub"))
    assert built.code == 0, built.stderr
    assert "@" not in built.stdout
    card = json.loads((tmp_path / "pub" / "bank-card.json").read_text())
    assert card["catalog_conformance"]["passed"] is True
    assert (tmp_path / "priv" / "bank.json").stat().st_mode & 0o077 == 0
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"document_id": "d1", "text": "Dan Ruiz <dan.ruiz@example.org>"}) + "\n")
    scanned = run_cli("scan-bank", str(tmp_path / "priv" / "bank.json"), str(docs), "--offsets", "char")
    assert scanned.code == 0, scanned.stderr
    rows = [json.loads(x) for x in scanned.stdout.splitlines()]
    assert [(r["entity_id"], r["start"], r["end"]) for r in rows] == [("person", 0, 8), ("contact", 10, 30)]
    conf = run_cli("conformance", str(tmp_path / "priv" / "bank.json"), "--private-dir", str(tmp_path / "c"))
    assert conf.code == 0 and json.loads(conf.stdout)["catalog_conformance"]["recall"] == 1.0
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"document_id": "x", "text": "ok"}\n\xff\n')
    assert run_cli("scan-bank", str(tmp_path / "priv" / "bank.json"), str(bad)).code == 2
    refused = run_cli("bank", "build", str(tmp_path / "nowhere"), "--private-dir", str(tmp_path / "p2"),
                      "--public-dir", str(tmp_path / "q2"))
    assert refused.code == 2 and "Traceback" not in refused.stderr
