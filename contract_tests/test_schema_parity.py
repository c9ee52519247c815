"""fastjsonschema (the fast path) and jsonschema (the explainer) agree on every artifact of every schema fixture
and of the real bundle: both accept, or both reject."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nerb_verify import schema_validation  # noqa: E402
from nerb_verify.checks.raw.schema_check import ARTIFACT_SCHEMAS, INVENTORY_SCHEMA  # noqa: E402
from nerb_verify.loader import BUNDLE_LIMITS, LoadFailure, parse_json_bytes  # noqa: E402
from tools.fixturelib import INVALID, materialize  # noqa: E402

SCHEMA_CASES = sorted(p for p in INVALID.iterdir() if p.name.startswith("schema."))


def _documents(bundle: Path) -> list[tuple[str, str, bytes, str]]:
    """(file, schema, raw bytes, JSON root) of every schema-checked artifact in ``bundle``."""
    docs = []
    for rel, (_version, schema) in ARTIFACT_SCHEMAS.items():
        path = bundle / rel
        if path.is_file():
            docs.append((rel, schema, path.read_bytes(), "object"))
    for path in sorted((bundle / "inventories").glob("*.json")):
        docs.append((path.name, INVENTORY_SCHEMA, path.read_bytes(), "array"))
    return docs


# Both validators are pure functions of (schema, document): a document whose exact bytes were already compared under
# the same schema (most files of a schema fixture are the real bundle's, unchanged) need not be compared again.
_COMPARED: dict[tuple[str, str], tuple[bool, bool]] = {}


def _verdicts(schema: str, raw: bytes, root: str) -> tuple[bool, bool] | None:
    """(fast path valid, explainer valid) for one document, or None when it does not parse."""
    key = (schema, hashlib.sha256(raw).hexdigest())
    if key not in _COMPARED:
        try:
            doc = parse_json_bytes(raw, BUNDLE_LIMITS, root=root)
        except LoadFailure:
            return None
        _COMPARED[key] = (schema_validation.fast_is_valid(schema, doc), schema_validation.explain(schema, doc) == [])
    return _COMPARED[key]


def _assert_parity(bundle: Path) -> None:
    for rel, schema, raw, root in _documents(bundle):
        verdicts = _verdicts(schema, raw, root)
        if verdicts is not None:
            fast, slow = verdicts
            assert fast == slow, rel


def test_parity_on_the_real_bundle(real_bundle: Path) -> None:
    _assert_parity(real_bundle)


@pytest.mark.parametrize("case_dir", SCHEMA_CASES, ids=[p.name for p in SCHEMA_CASES])
def test_parity_on_fixtures(case_dir: Path, tmp_path: Path) -> None:
    case = json.loads((case_dir / "case.json").read_text())
    _assert_parity(materialize(case, tmp_path))
