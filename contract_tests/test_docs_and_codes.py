"""Every finding code is documented on its family page, and has a broken fixture or a written exemption."""

from __future__ import annotations

import json
from pathlib import Path

from nerb_verify import codes

REPO = Path(__file__).resolve().parent.parent
EXEMPTIONS = json.loads((REPO / "contract_tests" / "fixture_exemptions.json").read_text())


def test_every_code_is_documented_on_its_family_page() -> None:
    missing = []
    for info in codes.all_codes():
        page = REPO / "docs" / "findings" / f"{info.family}.md"
        if not page.is_file() or info.code not in page.read_text(encoding="utf-8"):
            missing.append(info.code)
    assert missing == []


def test_every_code_has_a_fixture_or_an_exemption() -> None:
    fixtures = {json.loads((p / "case.json").read_text())["code"] for p in (REPO / "fixtures" / "invalid").iterdir()}
    uncovered = [i.code for i in codes.all_codes() if i.code not in fixtures and i.code not in EXEMPTIONS]
    assert uncovered == []


def test_exemptions_name_real_codes_with_reasons() -> None:
    known = {i.code for i in codes.all_codes()}
    for code, reason in EXEMPTIONS.items():
        assert code in known, code
        assert len(reason) > 20


def test_codes_are_well_formed() -> None:
    for info in codes.all_codes():
        family, _, name = info.code.partition(".")
        assert family in codes.FAMILIES and name and name == name.lower(), info.code
        assert info.title.endswith(".") and len(info.help) > 20, info.code
