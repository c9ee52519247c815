"""fastjsonschema (the fast path) and jsonschema (the explainer) agree on every artifact of every schema fixture
and of the real bundle: both accept, or both reject."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nerb_verify import schema_validation  # noqa: E402
from nerb_verify.checks.schema_check import ARTIFACT_SCHEMAS, INVENTORY_SCHEMA  # noqa: E402
from nerb_verify.loader import BUNDLE_LIMITS, LoadFailure, parse_json_bytes  # noqa: E402
from tools.fixturelib import INVALID, materialize  # noqa: E402

SCHEMA_CASES = sorted(p for p in INVALID.iterdir() if p.name.startswith("schema."))


def _documents(bundle: Path) -> list[tuple[str, str, object]]:
    docs = []
    for rel, (_version, schema) in ARTIFACT_SCHEMAS.items():
        path = bundle / rel
        if path.is_file():
            try:
                docs.append((rel, schema, parse_json_bytes(path.read_bytes(), BUNDLE_LIMITS)))
            except LoadFailure:
                pass
    for path in sorted((bundle / "inventories").glob("*.json")):
        docs.append((path.name, INVENTORY_SCHEMA, parse_json_bytes(path.read_bytes(), BUNDLE_LIMITS, root="array")))
    return docs


def _assert_parity(bundle: Path) -> None:
    for rel, schema, doc in _documents(bundle):
        fast = schema_validation.fast_is_valid(schema, doc)
        slow = schema_validation.explain(schema, doc) == []
        assert fast == slow, rel


def test_parity_on_the_real_bundle(real_bundle: Path) -> None:
    _assert_parity(real_bundle)


@pytest.mark.parametrize("case_dir", SCHEMA_CASES, ids=[p.name for p in SCHEMA_CASES])
def test_parity_on_fixtures(case_dir: Path, tmp_path: Path) -> None:
    case = json.loads((case_dir / "case.json").read_text())
    _assert_parity(materialize(case, tmp_path))
