"""Every finding code is documented on its family page, and has a broken fixture or a written exemption."""

from __future__ import annotations

import json
from pathlib import Path

from nerb_verify import catalog, codes

REPO = Path(__file__).resolve().parent.parent
EXEMPTIONS = json.loads((REPO / "contract_tests" / "fixture_exemptions.json").read_text())


def test_every_code_is_documented_on_its_family_page() -> None:
    missing = []
    for info in catalog.all_codes():
        page = REPO / "docs" / "findings" / f"{info.family}.md"
        if not page.is_file() or info.code not in page.read_text(encoding="utf-8"):
            missing.append(info.code)
    assert missing == []


def test_every_code_has_a_fixture_or_an_exemption() -> None:
    fixtures = {json.loads((p / "case.json").read_text())["code"] for p in (REPO / "fixtures" / "invalid").iterdir()}
    uncovered = [i.code for i in catalog.all_codes() if i.code not in fixtures and i.code not in EXEMPTIONS]
    assert uncovered == []


def test_exemptions_name_real_codes_with_reasons() -> None:
    known = {i.code for i in catalog.all_codes()}
    for code, reason in EXEMPTIONS.items():
        assert code in known, code
        assert len(reason) > 20


def test_codes_are_well_formed() -> None:
    for info in catalog.all_codes():
        family, _, name = info.code.partition(".")
        assert family in codes.FAMILIES and name and name == name.lower(), info.code
        assert info.title.endswith(".") and len(info.help) > 20, info.code


def test_the_catalog_reaches_every_module_that_registers_codes() -> None:
    """A module calling ``register(...)`` that the catalog does not import would leave its codes out of list-codes,
    explain, the SARIF rules and these docs tests. Checked in a fresh interpreter (this one has imported more)."""
    import re
    import subprocess
    import sys

    registering = sorted(
        ".".join(path.relative_to(REPO).with_suffix("").parts)
        for path in (REPO / "nerb_verify").rglob("*.py")
        if path.name != "codes.py" and re.search(r"^\s*[A-Z_][A-Z0-9_]*\s*=\s*register\(|^\s*register\(",
                                                  path.read_text(encoding="utf-8"), re.MULTILINE))
    assert len(registering) > 20
    probe = "import sys, nerb_verify.catalog; print('\\n'.join(sorted(sys.modules)))"
    loaded = set(subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True,
                                check=True).stdout.split())
    assert [m.removesuffix(".__init__") for m in registering if m.removesuffix(".__init__") not in loaded] == []


def test_the_code_registry_imports_nothing_of_the_package() -> None:
    """``codes`` is the leaf every check module imports: it must not import the CLI or the families (an import
    circle used to run through ``codes.all_codes``)."""
    import ast

    tree = ast.parse((REPO / "nerb_verify" / "codes.py").read_text(encoding="utf-8"))
    imported = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    assert [name for name in imported if name.startswith("nerb_verify")] == []
