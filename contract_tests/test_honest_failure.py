"""Honest failure versus false statement (issue 16, docs/threat-model.md "Errors and outcomes").

A finding is an error only when something the bundle states is false. A gate panel that honestly misses a support
floor, and says so in its audit chain, is a decision outcome: verified, standalone redaction not eligible with its
reasons, exit 3 only under --require-standalone-redaction-eligible. The fixtures live in tools/mutations/support.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contract_tests.conftest import run_cli, verify_dir
from nerb_verify.checks.provenance import manifest_rules
from nerb_verify.checks.provenance.lineage import SUPPORT_FAILURE_ORDER
from nerb_verify.seal import seal_bundle
from tools.fixturelib import materialize
from tools.mutations.conformance import HONEST_UNTESTED_PATTERN
from tools.mutations.support import HONEST_INSUFFICIENT_SUPPORT


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return materialize(HONEST_INSUFFICIENT_SUPPORT, tmp_path_factory.mktemp("honest-support"))


def test_honest_insufficient_support_verifies_and_exits_3_only_under_the_standalone_flag(honest: Path) -> None:
    plain = run_cli("verify", "--format", "json", str(honest))
    assert plain.code == 0, plain.stdout
    report = json.loads(plain.stdout)
    assert report["verdict"] == "verified"
    standalone = report["decisions"]["standalone_redaction"]
    assert standalone["eligible"] is False
    assert standalone["support_failures"] == ["negative_documents_below_minimum"]
    assert "quality_support" in standalone["failed_gates"]
    required = run_cli("verify", "--require-standalone-redaction-eligible", str(honest))
    assert required.code == 3, required.stdout
    assert "decision.standalone_redaction_ineligible" in required.stdout and "quality_support" in required.stdout
    # The support outcome is not a decision-grade requirement: that flag alone does not fail on it.
    assert run_cli("verify", "--require-decision-grade", str(honest)).code == 0


def _slice(entity_class: str, gate: bool, **counts: int) -> dict[str, object]:
    base = {"documents": 100, "gold_spans": 1393, "negative_documents": 31, "sensitive_gold_characters": 14916}
    base.update(counts)
    return {"entity_class": entity_class, "promotion_gate": gate, "split_role": "test", "cohort": "all",
            "text_view": "primary", **base}


@pytest.mark.parametrize(("gate", "contact", "person", "expected"), [
    ({}, {}, {}, []),
    ({"documents": 99}, {}, {}, ["production_document_count_mismatch", "documents_below_minimum"]),
    ({"documents": 101}, {}, {}, ["production_document_count_mismatch"]),
    ({"gold_spans": 99, "negative_documents": 19, "sensitive_gold_characters": 499}, {}, {},
     ["gold_spans_below_minimum", "negative_documents_below_minimum", "sensitive_characters_below_minimum"]),
    ({}, {"gold_spans": 0}, {}, ["contact_gold_support_missing"]),
    ({}, {}, {"gold_spans": 0}, ["person_gold_support_missing"]),
])
def test_support_failures_are_recomputed_in_canonical_order(gate, contact, person, expected) -> None:
    gate_slice = _slice("person_contact", True, **gate)
    slices = [gate_slice, _slice("contact", False, **contact), _slice("person", False, **person)]
    assert [code for code, *_ in manifest_rules.support_failures(gate_slice, slices)] == expected
    codes = [code for code, *_ in manifest_rules.SUPPORT_FLOORS] + [c for _, c in manifest_rules.CLASS_SUPPORT]
    assert tuple(codes) == SUPPORT_FAILURE_ORDER  # the canonical order is the order the floors are checked in


def test_honest_untested_pattern_verifies_with_the_contract_reported_failed(tmp_path: Path) -> None:
    """One active pattern without a positive case, reported failed everywhere: the known-bank contract is FAIL (an
    outcome; no flag requires it), standalone redaction is not eligible (exit 3 only under its flag)."""
    bundle = materialize(HONEST_UNTESTED_PATTERN, tmp_path)
    plain = run_cli("verify", "--format", "json", str(bundle))
    assert plain.code == 0, plain.stdout
    decisions = json.loads(plain.stdout)["decisions"]
    assert decisions["known_bank_contract"]["verdict"] == "FAIL"
    assert "catalog_conformance" in decisions["standalone_redaction"]["failed_gates"]
    assert run_cli("verify", "--require-standalone-redaction-eligible", str(bundle)).code == 3
    # Claiming the gate passed over the same shortfall is false: the finding is back, with the flag mismatch.
    evidence = json.loads((bundle / "benchmark-evidence.json").read_text())
    evidence["catalog_conformance"]["passed"] = True
    (bundle / "benchmark-evidence.json").write_text(json.dumps(evidence))
    seal_bundle(bundle)
    codes = {f.code for f in verify_dir(bundle).collector.findings if f.severity == "error"}
    assert {"conformance.incomplete_pattern_support", "conformance.passed_mismatch"} <= codes
