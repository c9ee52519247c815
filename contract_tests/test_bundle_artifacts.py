"""publication.json, bank-card.json and capacity-decision.json: the real bundle verifies, every recomputed field
matches, the schemas accept it, and targeted in-memory edits raise exactly the expected code.

Broken fixtures (tools/mutations/{publication,card,capacity}.py) cover each code end to end; these tests pin the
recomputations themselves against the published values of the real bundle (spec 30 A.5-A.7).
"""

from __future__ import annotations

import copy
import glob
import json
import subprocess
import time
from pathlib import Path

import pytest
from conftest import REAL_BUNDLE, REPO, open_real_bundle, verify_dir
from jsonschema import Draft202012Validator

from nerb_verify import context as C
from nerb_verify.canonical import self_hash
from nerb_verify.checks import capacity
from nerb_verify.checks.presentation import publication
from nerb_verify.checks.provenance import bank_card
from nerb_verify.context import VerifyContext, VerifyOptions
from nerb_verify.findings import Collector

MY_FAMILIES = ("publication", "card", "capacity")


@pytest.fixture(scope="module")
def opened() -> VerifyContext:
    return open_real_bundle()


def fresh(ctx: VerifyContext, **replace: object) -> VerifyContext:
    """A copy of the opened context with a new collector and some artifacts replaced (deep copies)."""
    artifacts = dict(ctx.artifacts)
    artifacts.update(replace)
    return VerifyContext(root=ctx.root, options=VerifyOptions(), collector=Collector(), files=ctx.files,
                         artifacts=artifacts, loaded=ctx.loaded, inventories=ctx.inventories, figures=dict(ctx.figures))


def codes_of(ctx: VerifyContext) -> list[str]:
    return sorted({f.code for f in ctx.collector.findings})


def run_mine(ctx: VerifyContext) -> VerifyContext:
    bank_card.run(ctx)
    capacity.run(ctx)
    publication.run(ctx)
    return ctx


# --- the real bundle -------------------------------------------------------------------------------------------

def test_real_bundle_has_no_findings_from_these_families(real_result):
    mine = [f for f in real_result.collector.findings if f.code.split(".")[0] in MY_FAMILIES]
    assert mine == []
    for family in MY_FAMILIES:
        assert real_result.collector.checks_run[family]["status"] == "ran"


def test_every_publication_field_is_a_recomputed_match(real_result):
    records = {r.figure: r for r in real_result.collector.recomputed if r.artifact == C.PUBLICATION}
    bindings = [k for k in records if k.startswith("bindings.")]
    assert len(bindings) == 12
    assert len([k for k in records if k.startswith("decision.")]) == 7
    assert len([k for k in records if k.startswith("scope.")]) == 7
    assert all(records[k].status == "match" for k in records), [k for k in records if records[k].status != "match"]
    assert records["bindings.capacity_decision_sha256"].exact == (
        "sha256:6f49646db68c767471ddc0d58bc429febba75085460c06c98f7c2a7626447919")
    assert records["publication_sha256"].exact == (
        "sha256:20c62969666c4c6c7345f58a98abbf44eadaa690fc360ec49553fdd21d5abcae")


def test_real_bundle_decision_values_match_spec(opened):
    ctx = run_mine(fresh(opened))
    expected = {"standalone_privacy_audit_status": "quality_gates_failed",
                "standalone_privacy_audit_outcome": "do_not_ship", "catalog_conformance_passed": "true",
                "capacity_gates_passed": "true", "performance_gates_passed": "true",
                "standalone_privacy_redaction_quality_passed": "false",
                "standalone_privacy_redaction_allowed": "false"}
    got = {r.figure.split(".", 1)[1]: r.exact for r in ctx.collector.recomputed if r.figure.startswith("decision.")}
    assert got == expected


def test_report_lists_every_file_with_its_raw_hash(real_result):
    from nerb_verify.report import build_report

    report = build_report(real_result)
    files = {f["path"]: f for f in report["bundle"]["files"]}
    pub = json.loads((REAL_BUNDLE / "publication.json").read_text(encoding="utf-8"))
    for item in pub["artifacts"]:
        assert files[item["path"]]["sha256"] == item["sha256"]
        assert files[item["path"]]["bytes"] == item["bytes"]
    assert "publication.json" in files and len(files) == 19


def test_my_families_are_fast(opened):
    ctx = fresh(opened)
    start = time.perf_counter()
    run_mine(ctx)
    assert time.perf_counter() - start < 0.3


def test_source_repo_checks_are_not_run_without_the_option(opened):
    ctx = run_mine(fresh(opened))
    assert ctx.collector.checks_run["capacity.source_repo"]["status"] == "not_run"


def test_source_repo_that_is_not_a_repository_is_unusable(opened, tmp_path):
    ctx = fresh(opened)
    ctx.options.source_repo = tmp_path
    capacity.run(ctx)
    assert codes_of(ctx) == ["capacity.source_repo_unusable"]


def test_source_repo_without_the_commit_is_unusable(opened, tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    ctx = fresh(opened)
    ctx.options.source_repo = tmp_path
    capacity.run(ctx)
    assert codes_of(ctx) == ["capacity.source_repo_unusable"]


# --- schemas ---------------------------------------------------------------------------------------------------

SCHEMA_FILES = {
    "nerb.enron_publication.json": ["publication.json"],
    "nerb.enron_public_bank_card.json": ["bank-card.json"],
    "nerb.enron_capacity_portable_decision.json": ["capacity-decision.json"],
    "nerb.enron_inventory.json": sorted(str(Path(p).relative_to(REAL_BUNDLE))
                                        for p in glob.glob(str(REAL_BUNDLE / "inventories" / "*.json"))),
}


@pytest.mark.parametrize("schema_name", sorted(SCHEMA_FILES))
def test_real_bundle_validates_against_our_schemas(schema_name):
    schema = json.loads((REPO / "schemas" / schema_name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "https://schemas.nerb-verify.invalid/" + schema_name
    validator = Draft202012Validator(schema)
    assert SCHEMA_FILES[schema_name]
    for rel in SCHEMA_FILES[schema_name]:
        document = json.loads((REAL_BUNDLE / rel).read_text(encoding="utf-8"))
        assert list(validator.iter_errors(document)) == []


@pytest.mark.parametrize(("schema_name", "rel", "pointer", "value"), [
    ("nerb.enron_publication.json", "publication.json", ["extra"], 1),
    ("nerb.enron_publication.json", "publication.json", ["privacy", "violation_count"], 1),
    ("nerb.enron_public_bank_card.json", "bank-card.json", ["bank", "extra"], 1),
    ("nerb.enron_public_bank_card.json", "bank-card.json", ["bank", "version"], "x\u0007"),
    ("nerb.enron_public_bank_card.json", "bank-card.json", ["catalog_conformance", "recall"], 1.5),
    ("nerb.enron_capacity_portable_decision.json", "capacity-decision.json", ["report", "totals", "extra"], 1),
    ("nerb.enron_capacity_portable_decision.json", "capacity-decision.json", ["verification_scope", "prerequisite"],
     "anything"),
])
def test_schemas_are_closed_and_strict(schema_name, rel, pointer, value):
    schema = json.loads((REPO / "schemas" / schema_name).read_text(encoding="utf-8"))
    document = json.loads((REAL_BUNDLE / rel).read_text(encoding="utf-8"))
    node = document
    for key in pointer[:-1]:
        node = node[key]
    node[pointer[-1]] = value
    assert list(Draft202012Validator(schema).iter_errors(document))


def test_schema_generator_is_deterministic(tmp_path):
    before = {p.name: p.read_bytes() for p in (REPO / "schemas").glob("*.json")}
    subprocess.run(["python3", str(REPO / "tools" / "gen_bundle_schemas.py")], check=True)
    after = {p.name: p.read_bytes() for p in (REPO / "schemas").glob("*.json")}
    assert before == after


# --- in-memory edits ----------------------------------------------------------------------------------------------

def _edited(ctx: VerifyContext, rel: str, path: list, value: object, reseal: str | None = None) -> VerifyContext:
    document = copy.deepcopy(ctx.artifacts[rel])
    node = document
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    if reseal:
        document[reseal] = self_hash(document, reseal)
    return fresh(ctx, **{rel: document})


@pytest.mark.parametrize(("rel", "path", "value", "reseal", "code"), [
    (C.BANK_CARD, ["bank", "id"], "another_bank", "card_sha256", "card.bank_mismatch"),
    (C.BANK_CARD, ["bank", "version"], "alice example", "card_sha256", "card.bank_version_format"),
    (C.BANK_CARD, ["source", "dataset_split"], "test", "card_sha256", "card.source_mismatch"),
    (C.BANK_CARD, ["candidate_funnel", "by_decision", "rejected"], 64058, "card_sha256", "card.funnel_not_conserved"),
    (C.BANK_CARD, ["card_sha256"], "sha256:" + "0" * 64, None, "card.hash_mismatch"),
    (C.PUBLICATION, ["scope", "gold_spans"], 1392, "publication_sha256", "publication.scope_mismatch"),
    (C.PUBLICATION, ["bindings", "measurement_git_commit"], "0" * 40, "publication_sha256",
     "publication.binding_mismatch"),
    (C.PUBLICATION, ["decision", "catalog_conformance_passed"], False, "publication_sha256",
     "publication.decision_mismatch"),
])
def test_one_edit_one_code(opened, rel, path, value, reseal, code):
    ctx = run_mine(_edited(opened, rel, path, value, reseal))
    assert codes_of(ctx) == [code]


def test_decision_hash_edit_also_breaks_the_publication_binding(opened):
    ctx = run_mine(_edited(opened, C.CAPACITY_DECISION, ["decision_sha256"], "sha256:" + "0" * 64))
    assert codes_of(ctx) == ["capacity.decision_hash_mismatch", "publication.binding_mismatch"]


def test_edited_attempt_is_caught(opened):
    decision = copy.deepcopy(opened.artifacts[C.CAPACITY_DECISION])
    decision["attempt_chain"][3]["elapsed_ns"] += 1
    decision["decision_sha256"] = self_hash(decision, "decision_sha256")
    ctx = fresh(opened, **{C.CAPACITY_DECISION: decision})
    capacity.run(ctx)
    # The receipt no longer matches its own hash, and the attestation's chain hash no longer matches the chain.
    assert codes_of(ctx) == ["capacity.attempt_hash_mismatch", "capacity.attestation_mismatch"]


def test_missing_artifacts_are_not_evaluated_never_passed(opened):
    ctx = fresh(opened, **{C.PUBLICATION: None, C.BANK_CARD: None, C.CAPACITY_DECISION: None})
    run_mine(ctx)
    assert codes_of(ctx) == []
    for family in MY_FAMILIES:
        assert ctx.collector.checks_run[family]["status"] == "not_evaluated"


@pytest.mark.parametrize("rel", [C.PUBLICATION, C.BANK_CARD, C.CAPACITY_DECISION])
@pytest.mark.parametrize("junk", [{}, {"report": 1, "attempt_chain": "x"}, {"bank": [], "decision": 3, "artifacts": 5}])
def test_wrong_shapes_never_raise(opened, rel, junk):
    ctx = fresh(opened, **{rel: junk})
    run_mine(ctx)  # findings or not_evaluated, never an exception


# --- capacity internals ---------------------------------------------------------------------------------------------

from hypothesis import given, settings
from hypothesis import strategies as st

_json = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-10**12, max_value=10**12)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=30)


@settings(max_examples=200)
@given(st.dictionaries(st.text(max_size=6), _json, max_size=5))
def test_pretty_size_from_canonical_size(value):
    from nerb_verify.canonical import python_canonical_bytes

    pretty = (json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    assert len(python_canonical_bytes(value)) + capacity._pretty_extra(value, 0) + 1 == len(pretty)
    members = capacity._member_bytes(value)
    assert capacity._object_bytes(members) == python_canonical_bytes(value)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def test_source_repo_mode_recomputes_the_attestation(opened, tmp_path):
    import hashlib

    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "module.py").write_text("x = 1\n", encoding="utf-8")
    _git(repo, "add", "module.py")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-qm", "m")
    commit = _git(repo, "rev-parse", "HEAD").strip()
    raw = subprocess.run(["git", "-C", str(repo), "cat-file", "commit", commit], check=True,
                         capture_output=True).stdout
    listing = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "-z", "--full-tree", commit], check=True,
                             capture_output=True).stdout
    decision = copy.deepcopy(opened.artifacts[C.CAPACITY_DECISION])
    attestation = decision["attestation"]
    attestation["executable_git_commit"] = commit
    attestation["commit_object_sha256"] = "sha256:" + hashlib.sha256(raw).hexdigest()
    attestation["root_tree_object_id"] = raw.split(b"\n", 1)[0][5:].decode()
    attestation["repository_tree_sha256"] = "sha256:" + hashlib.sha256(listing).hexdigest()
    from nerb_verify.checks.capacity import capacity_source

    ctx = fresh(opened)
    ctx.options.source_repo = repo
    capacity_source.run(ctx, decision)
    assert codes_of(ctx) == []
    attestation["root_tree_object_id"] = "0" * 40
    ctx = fresh(opened)
    ctx.options.source_repo = repo
    capacity_source.run(ctx, decision)
    assert codes_of(ctx) == ["capacity.source_repo_mismatch"]


# --- card pattern counts against the funnel and the evaluated bank (issue 16) -----------------------------------

def _card_edit(opened, edits: dict[tuple[str, ...], int]) -> list[tuple[str, str]]:
    card = copy.deepcopy(opened.artifacts[C.BANK_CARD])
    for path, value in edits.items():
        node = card
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    card["card_sha256"] = self_hash(card, "card_sha256")
    ctx = run_mine(fresh(opened, **{C.BANK_CARD: card}))
    return sorted((f.code, f.pointer) for f in ctx.collector.findings)


F = ("candidate_funnel", "by_type")


@pytest.mark.parametrize(("edits", "pointers"), [
    # one contact moved from active to draft inside its type: the type still conserves, the decisions do not
    ({(*F, "contact", "active"): 11999, (*F, "contact", "draft"): 2001},
     ["/bank/stats/by_status/draft/patterns", "/candidate_funnel/by_decision/active",
      "/candidate_funnel/by_decision/draft", "/candidate_funnel/by_type/contact/active"]),
    # a draft pattern recounted as inactive (status totals still add up)
    ({("bank", "stats", "by_status", "draft", "patterns"): 4912,
      ("bank", "stats", "by_status", "inactive", "patterns"): 1},
     ["/bank/stats/by_status/draft/patterns"]),
    # one literal recounted as a regex (literal + regex still the total)
    ({("bank", "stats", "by_kind", "literal"): 18111, ("bank", "stats", "by_kind", "regex"): 3},
     ["/bank/stats/by_kind/literal", "/bank/stats/by_kind/regex"]),
    # an active person alias claimed as an active domain literal (both literal: only the class differs)
    ({(*F, "person_alias", "active"): 1199, (*F, "person_alias", "draft"): 913,
      (*F, "organization_domain", "active"): 1, (*F, "organization_domain", "draft"): 1999},
     ["/candidate_funnel/by_type/organization_domain/active", "/candidate_funnel/by_type/person_alias/active"]),
])
def test_card_pattern_counts_follow_the_funnel_and_the_evaluated_bank(opened, edits, pointers):
    found = _card_edit(opened, edits)
    assert sorted(p for code, p in found if code == "card.pattern_counts") == pointers
    assert {code for code, _ in found} == {"card.pattern_counts"}


def test_card_pattern_counts_hold_on_the_real_and_the_smoke_card(opened, real_result):
    assert not [f for f in real_result.collector.findings if f.code == "card.pattern_counts"]
    smoke = verify_dir(REPO / "fixtures" / "bundles" / "synthetic-smoke")
    assert not [f for f in smoke.collector.findings if f.code == "card.pattern_counts"]


# --- card reason codes state what the development validation's figures show (issue 16) --------------------------

DV = ("development_validation",)


@pytest.mark.parametrize(("edits", "pointers"), [
    # person has no gold spans, so its reason can only be that there are none
    ({(*DV, "person", "reason_code"): "structured_weak_person_spans"},
     ["/development_validation/person/reason_code"]),
    # the labels are structured_weak: open-world metrics are unsupported for want of independent labels
    ({(*DV, "unsupported_reason_code"): "not_requested"}, ["/development_validation/unsupported_reason_code"]),
    # documents with gold: bounded by documents and gold spans, free within those bounds
    ({(*DV, "contact", "documents_with_sensitive_gold"): 51681}, []),
    ({(*DV, "contact", "documents_with_sensitive_gold"): 51724},
     ["/development_validation/contact/documents_with_sensitive_gold"]),
])
def test_card_reason_codes_follow_the_figures(opened, edits, pointers):
    found = _card_edit(opened, edits)
    assert sorted(p for code, p in found if code == "card.validation_inconsistent") == pointers
    assert {code for code, _ in found} <= {"card.validation_inconsistent"}


def test_person_reason_code_when_person_is_evaluated(opened):
    """With person gold spans, 'zero labeled person spans' would be false; any other reason code is not judged."""
    card = copy.deepcopy(opened.artifacts[C.BANK_CARD])
    validation = card["development_validation"]
    ctx = fresh(opened)
    validation["person"].update(gold_spans=3, reason_code="zero_labeled_person_spans")
    bank_card._reason_codes(ctx, validation, "structured_weak", False)
    assert codes_of(ctx) == ["card.validation_inconsistent"]
    ctx = fresh(opened)
    validation["person"]["reason_code"] = "structured_weak_person_spans"
    validation["unsupported_reason_code"] = "independent_exhaustive_validation_labels_unavailable"
    bank_card._reason_codes(ctx, validation, "independent", True)
    assert codes_of(ctx) == ["card.validation_inconsistent"]
