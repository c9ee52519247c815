"""Schema validation details and core fail-closed behaviour that fixtures cannot reach."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from nerb_verify import families, schema_validation
from nerb_verify.checks.raw import schema_check
from nerb_verify.context import VerifyContext, VerifyOptions
from nerb_verify.findings import Collector

from contract_tests.conftest import REAL_BUNDLE, verify_dir

MANIFEST = json.loads((REAL_BUNDLE / "benchmark-manifest.json").read_text())
EVIDENCE = json.loads((REAL_BUNDLE / "benchmark-evidence.json").read_text())


def test_real_artifacts_validate_with_both_validators() -> None:
    for name, doc in (("nerb.enron_manifest.v2.json", MANIFEST), ("nerb.enron_evidence.v2.json", EVIDENCE)):
        assert schema_validation.fast_is_valid(name, doc)
        assert schema_validation.explain(name, doc) == []


def test_integers_are_exact_in_both_validators() -> None:
    doc = copy.deepcopy(MANIFEST)
    doc["source"]["input_records"] = 517401.0
    assert not schema_validation.fast_is_valid("nerb.enron_manifest.v2.json", doc)
    assert [e.keyword for e in schema_validation.explain("nerb.enron_manifest.v2.json", doc)] == ["type"]
    doc["source"]["input_records"] = True
    assert not schema_validation.fast_is_valid("nerb.enron_manifest.v2.json", doc)


def test_max_items_is_its_own_code() -> None:
    doc = copy.deepcopy(MANIFEST)
    doc["commands"] = [copy.deepcopy(doc["commands"][0]) for _ in range(10_001)]
    errors = schema_validation.validate("nerb.enron_manifest.v2.json", doc)
    assert [(e.path, e.keyword) for e in errors] == [(("commands",), "maxItems")]
    assert schema_check.KEYWORD_CODES["maxItems"] == "schema.max_items"


def _ctx() -> VerifyContext:
    ctx = VerifyContext(root=REAL_BUNDLE, options=VerifyOptions(), collector=Collector())
    ctx.loaded["benchmark-manifest.json"] = copy.deepcopy(MANIFEST)
    return ctx


def test_parity_disagreement_fails_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schema_validation, "fast_is_valid", lambda name, doc, opaque=(): False)
    ctx = _ctx()
    schema_check.run(ctx)
    manifest_codes = [f.code for f in ctx.collector.findings if f.artifact == "benchmark-manifest.json"]
    assert manifest_codes == ["schema.parity"]
    assert "benchmark-manifest.json" not in ctx.artifacts


def test_missing_schema_file_fails_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    store = dict(schema_validation.schema_store())
    del store[schema_validation.BASE_URI + "nerb.enron_manifest.v2.json"]
    monkeypatch.setattr(schema_validation, "schema_store", lambda: store)
    ctx = _ctx()
    schema_check.run(ctx)
    assert "schema.unavailable" in [f.code for f in ctx.collector.findings if f.artifact == "benchmark-manifest.json"]
    assert "benchmark-manifest.json" not in ctx.artifacts


def test_internal_error_in_a_family_is_could_not_verify(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(ctx: VerifyContext) -> None:
        raise KeyError("secret-value-never-printed")

    order = [(name, broken if name == "quality" else run) for name, run in families.FAMILY_ORDER]
    monkeypatch.setattr(families, "FAMILY_ORDER", order)
    result = verify_dir(REAL_BUNDLE)
    assert result.exit_code == 2 and result.verdict == "could_not_verify"
    internal = [f for f in result.collector.findings if f.code == "usage.internal_error"]
    assert len(internal) == 1 and "quality" in internal[0].message
    assert "secret" not in internal[0].message


def test_schema_findings_never_print_unknown_keys(tmp_path: Path) -> None:
    doc = copy.deepcopy(MANIFEST)
    doc["source"]["someone-private"] = 1
    errors = schema_validation.validate("nerb.enron_manifest.v2.json", doc)
    assert [(e.path, e.keyword) for e in errors] == [(("source",), "additionalProperties")]
