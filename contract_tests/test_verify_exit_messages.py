"""Issue 15, "Exit codes and messages" for ``verify``: what a newcomer sees when the input is not what we expect.

* a folder that is not a bundle: exit 2, one finding, nothing else, in every format;
* an older (pre-v2) NERB publication layout: one ``publication.unsupported_layout`` finding naming field names only;
* ``--source-repo`` that is missing or not git: a usage error (exit 2, one stderr line), nothing blamed on the bundle;
* a rejected bundle establishes no decision: "not established (bundle rejected)" in every format;
* the figure count line says match, mismatch and not evaluated; ``--figures`` lists every recomputed figure;
* the bundle path is shown relative to the working directory, or ``<bundle>``: never absolute.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from contract_tests.conftest import run_cli, verify_dir
from contract_tests.outputs_helpers import CANARY, broken_truncated_json
from nerb_verify.display import display_bundle_path
from nerb_verify.outputs import job_summary
from nerb_verify.report import build_report, render_text

def _all_formats(bundle: Path | str, tmp_path: Path, *extra: str, cwd: Path | None = None) -> dict[str, object]:
    """Run verify once per printed format (text also writing the SARIF log and the JSON report) and return the
    outputs plus the job summary built from the report."""
    sarif_file, report_file = tmp_path / "out.sarif", tmp_path / "report.json"
    text = run_cli("verify", str(bundle), *extra, "--sarif-output", str(sarif_file), "--report-output",
                   str(report_file), cwd=cwd)
    github = run_cli("verify", str(bundle), "--format", "github", *extra, cwd=cwd)
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    assert job_summary.main([str(report_file), "--summary", str(summary), "--output", str(outputs)]) == 0
    return {"text": text, "github": github, "sarif": sarif_file.read_text(encoding="utf-8"),
            "json": report_file.read_text(encoding="utf-8"), "summary": summary.read_text(encoding="utf-8")}


# --------------------------------------------------------------------------------------------- 6. the bundle path

def _assert_no_absolute_path(out: dict[str, object], *paths: Path) -> None:
    for name, value in out.items():
        text = value.stdout + value.stderr if hasattr(value, "stdout") else str(value)  # type: ignore[attr-defined]
        for path in paths:
            assert str(path) not in text, f"an absolute path leaked into the {name} output"


def test_absolute_bundle_path_under_the_working_directory_is_shown_relative(tmp_path: Path) -> None:
    work = tmp_path / "work"
    bundle = broken_truncated_json(work / "pub" / "b")
    out = _all_formats(bundle.resolve(), tmp_path, cwd=work)
    assert out["text"].code == 1  # type: ignore[attr-defined]
    assert out["text"].stdout.splitlines()[0].startswith("nerb-verify: REJECTED pub/b (exit 1;")  # type: ignore
    assert json.loads(out["json"])["bundle"]["path"] == "pub/b"  # type: ignore[arg-type]
    assert "| pub/b | rejected |" in out["summary"]  # type: ignore[operator]
    assert "file=pub/b/bank-card.json" in out["github"].stdout  # type: ignore[attr-defined]
    _assert_no_absolute_path(out, tmp_path, work)
    assert CANARY not in json.dumps({k: str(v) for k, v in out.items()})


def test_absolute_bundle_path_outside_the_working_directory_is_masked(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    bundle = broken_truncated_json(tmp_path / "elsewhere" / "b")
    out = _all_formats(bundle.resolve(), tmp_path, cwd=work)
    assert out["text"].code == 1  # type: ignore[attr-defined]
    assert out["text"].stdout.splitlines()[0].startswith("nerb-verify: REJECTED <bundle> (exit 1;")  # type: ignore
    assert json.loads(out["json"])["bundle"]["path"] == "<bundle>"  # type: ignore[arg-type]
    assert "| &lt;bundle&gt; | rejected |" in out["summary"]  # type: ignore[operator]
    _assert_no_absolute_path(out, tmp_path, bundle.parent)
    assert "elsewhere" not in out["text"].stdout + out["json"]  # type: ignore


def test_display_bundle_path_rules(tmp_path: Path) -> None:
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    assert display_bundle_path(inner, cwd=tmp_path) == "a/b"
    assert display_bundle_path(tmp_path, cwd=tmp_path) == "."
    assert display_bundle_path(tmp_path / "a" / ".." / "a", cwd=tmp_path) == "a"
    assert display_bundle_path(tmp_path.parent, cwd=tmp_path) == "<bundle>"
    assert display_bundle_path("/", cwd=tmp_path) == "<bundle>"
    personal = tmp_path / ("jane.roe" + "@" + "corp-mail.co.uk")
    personal.mkdir()
    assert display_bundle_path(personal, cwd=tmp_path) == "@name:0"


def test_core_result_never_keeps_an_absolute_display_root(tmp_path: Path) -> None:
    result = verify_dir(tmp_path)  # the helper passes the absolute path as the display root
    assert result.display_root == "<bundle>"
    assert str(tmp_path) not in render_text(result) + json.dumps(build_report(result))
