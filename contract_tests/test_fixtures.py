"""Every broken fixture raises exactly its expected error codes; the generator output is reproducible.

Fixtures are patches (fixtures/invalid/<CODE>-<slug>/case.json) materialized into a temporary copy of their base
bundle. The check is exact: the set of error-severity codes raised must equal expected.json's ``codes`` (so a
fixture proves both that its code fires and that nothing else does), and listed warnings must be present. A valid
control (verdict ``verified``, no codes) may pin the decisions it must report (``decisions``: name -> fields).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tools import gen_fixtures  # noqa: E402
from tools.fixturelib import INVALID, materialize  # noqa: E402

from contract_tests.conftest import verify_dir  # noqa: E402

CASE_DIRS = sorted(p for p in INVALID.iterdir() if p.is_dir()) if INVALID.is_dir() else []


def test_generator_is_reproducible(tmp_path: Path) -> None:
    """Re-running tools/gen_fixtures.py reproduces fixtures/invalid byte for byte."""
    out = tmp_path / "invalid"
    gen_fixtures.write_all(out)
    generated = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    committed = {p.relative_to(INVALID): p.read_bytes() for p in INVALID.rglob("*") if p.is_file()}
    assert generated.keys() == committed.keys()
    for name, data in generated.items():
        assert committed[name] == data, f"{name} differs: run python tools/gen_fixtures.py"


def test_fixture_names_carry_their_code() -> None:
    for case_dir in CASE_DIRS:
        case = json.loads((case_dir / "case.json").read_text())
        assert case_dir.name.startswith(case["code"] + "-")


@pytest.mark.parametrize("case_dir", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_fixture_raises_exactly_its_codes(case_dir: Path, tmp_path: Path) -> None:
    case = json.loads((case_dir / "case.json").read_text())
    expected = json.loads((case_dir / "expected.json").read_text())
    bundle = materialize(case, tmp_path)
    result = verify_dir(bundle)
    errors = sorted({f.code for f in result.collector.findings if f.severity == "error"})
    warnings = {f.code for f in result.collector.findings if f.severity == "warning"}
    assert errors == sorted(expected["codes"])
    assert result.verdict == expected["verdict"]
    for code in expected.get("warnings", []):
        assert code in warnings
    for pinned in expected.get("findings", []):
        assert any(f.code == pinned["code"] and f.pointer == pinned["pointer"] for f in result.collector.findings)
    for name, fields in expected.get("decisions", {}).items():  # a valid control pins the decision it reports
        record = result.collector.decisions.get(name) or {}
        assert {key: record.get(key) for key in fields} == fields, name
