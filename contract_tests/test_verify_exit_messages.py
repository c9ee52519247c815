"""Issue 15, "Exit codes and messages" for ``verify``: what a newcomer sees when the input is not what we expect.

* a folder that is not a bundle: exit 2, one finding, nothing else, in every format;
* an older (pre-v2) NERB publication layout: one ``publication.unsupported_layout`` finding naming field names only;
* ``--source-repo`` that is missing or not git: a usage error (exit 2, one stderr line), nothing blamed on the bundle;
* a rejected bundle establishes no decision: "not established (bundle rejected)" in every format;
* the figure count line says match, mismatch and not evaluated; ``--figures`` lists every recomputed figure;
* the bundle path is shown relative to the working directory, or ``<bundle>``: never absolute.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
from pathlib import Path

from contract_tests.conftest import REAL_BUNDLE, REPO, run_cli, verify_dir
from contract_tests.outputs_helpers import CANARY, broken_truncated_json
from nerb_verify import layout, schema_validation
from nerb_verify.display import display_bundle_path
from nerb_verify.outputs import job_summary
from nerb_verify.report import build_report, render_text
from tools.fixturelib import materialize

NOT_A_BUNDLE_MESSAGE = "Not a publication bundle: no publication.json."


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


# ------------------------------------------------------------------------------------- 1. a folder that is not a bundle

def test_empty_folder_is_not_a_bundle_exit_2_one_finding_in_every_format(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    out = _all_formats(folder, tmp_path)
    text, github = out["text"], out["github"]
    assert text.code == 2 and github.code == 2
    lines = [line for line in text.stdout.splitlines() if line.strip()]
    assert len(lines) == 3, text.stdout  # verdict line, the folder, the one finding: no tables, no counts
    assert lines[0].startswith("nerb-verify: COULD NOT VERIFY")
    assert lines[1:] == [".:", f"  error   usage.not_a_bundle  (the folder)  {NOT_A_BUNDLE_MESSAGE}"]
    assert "?" not in text.stdout and "Known-bank" not in text.stdout and "Recomputed" not in text.stdout
    report = json.loads(out["json"])
    assert report["verdict"] == "could_not_verify" and report["exit_code"] == 2
    assert [(f["code"], f["message"]) for f in report["findings"]] == [("usage.not_a_bundle", NOT_A_BUNDLE_MESSAGE)]
    assert report["recomputed"] == [] and report["checks_run"] == {} and report["bundle"]["files"] == []
    assert schema_validation.validate("nerb_verify.report.v1.json", report) == []
    results = json.loads(out["sarif"])["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["usage.not_a_bundle"]
    # One annotation for the one finding, then the run's closing notice (issue 15 item 9: say what was done).
    assert [line for line in github.stdout.splitlines()] == [
        "::error title=usage.not_a_bundle::" + NOT_A_BUNDLE_MESSAGE,
        "::notice title=nerb-verify verify::nerb-verify verify: could not verify (exit 2); 1 error(s), 0 warning(s)."]


def test_folder_with_other_files_but_no_publication_json_is_not_a_bundle(tmp_path: Path) -> None:
    """A folder holding a bundle one level down, or a bundle whose publication.json is gone, is not a bundle."""
    outer = tmp_path / "outer"
    shutil.copytree(REAL_BUNDLE, outer / "bundle")
    (outer / "notes.txt").write_text("x", encoding="utf-8")
    for folder in (outer, outer / "bundle"):
        if folder.name == "bundle":
            (folder / "publication.json").unlink()
        result = verify_dir(folder)
        assert result.verdict == "could_not_verify" and result.exit_code == 2
        assert [f.code for f in result.collector.findings] == ["usage.not_a_bundle"]
        assert result.ctx.files == {} and result.collector.checks_run == {}


def test_publication_json_that_is_not_a_regular_file_is_still_verified(tmp_path: Path) -> None:
    """Only a missing publication.json makes a folder "not a bundle"; one that is there but unusable is a finding
    about the bundle (it was published wrong), so the verdict stays rejected."""
    bundle = tmp_path / "b"
    shutil.copytree(REAL_BUNDLE, bundle)
    (bundle / "publication.json").unlink()
    (bundle / "publication.json").mkdir()
    result = verify_dir(bundle)
    assert result.verdict == "rejected"
    assert "usage.not_a_bundle" not in {f.code for f in result.collector.findings}


# ---------------------------------------------------------------------------------- 2. an older NERB publication layout

def _fixture_case(name: str) -> dict:
    return json.loads((REPO / "fixtures" / "invalid" / name / "case.json").read_text(encoding="utf-8"))


def _set_decision(bundle: Path, decision: dict) -> None:
    path = bundle / "publication.json"
    publication = json.loads(path.read_text(encoding="utf-8"))
    publication["decision"] = decision
    path.write_text(json.dumps(publication, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def test_pre_v2_decision_block_is_one_unsupported_layout_finding_naming_fields(tmp_path: Path) -> None:
    bundle = materialize(_fixture_case("publication.unsupported_layout-pre-v2-decision-keys"), tmp_path)
    result = verify_dir(bundle)
    assert result.verdict == "could_not_verify" and result.exit_code == 2
    [finding] = result.collector.findings
    assert (finding.code, finding.artifact, finding.pointer) == (
        "publication.unsupported_layout", "publication.json", "")
    for name in ("missing catalog_conformance_passed", "standalone_privacy_redaction_allowed",
                 "unknown audit_status", "package_release_allowed", "release"):
        assert name in finding.message
    # Values of the input (the enum texts of the old block) are never printed.
    for value in ("quality_gates_failed", "do_not_ship"):
        assert value not in finding.message
    text = render_text(result)
    assert "Known-bank" not in text and "Recomputed" not in text and "schema." not in text


def test_pre_v2_figure_set_is_an_unsupported_layout(tmp_path: Path) -> None:
    bundle = materialize(_fixture_case("publication.unsupported_layout-pre-v2-figures"), tmp_path)
    result = verify_dir(bundle)
    assert [f.code for f in result.collector.findings] == ["publication.unsupported_layout"]
    message = result.collector.findings[0].message
    assert "figures: missing figures/bank-coverage.svg" in message and "figures/leakage.svg" in message
    assert result.exit_code == 2


def test_unknown_keys_outside_our_vocabulary_are_counted_never_printed(tmp_path: Path) -> None:
    bundle = tmp_path / "b"
    shutil.copytree(REAL_BUNDLE, bundle)
    _set_decision(bundle, {"release": "do_not_ship", CANARY: True, "x" + CANARY: 1})
    result = verify_dir(bundle)
    [finding] = result.collector.findings
    assert finding.code == "publication.unsupported_layout"
    assert "unknown release and 2 other key(s)" in finding.message
    assert CANARY not in render_text(result) + json.dumps(build_report(result))


def test_a_v2_block_with_one_key_renamed_is_verified_not_called_old(tmp_path: Path) -> None:
    """Conservative detection: one v2 key present is enough to verify the bundle as v2 (and reject it)."""
    publication = json.loads((REAL_BUNDLE / "publication.json").read_text(encoding="utf-8"))
    decision = dict(publication["decision"])
    decision.pop("standalone_privacy_redaction_allowed")
    decision["package_release_allowed"] = False
    bundle = tmp_path / "b"
    shutil.copytree(REAL_BUNDLE, bundle)
    _set_decision(bundle, decision)
    result = verify_dir(bundle)
    codes = {f.code for f in result.collector.findings}
    assert result.verdict == "rejected" and "publication.unsupported_layout" not in codes
    assert {"schema.required", "schema.additional_properties"} <= codes


def test_layout_vocabulary_matches_the_v2_schema() -> None:
    schema = json.loads((REPO / "schemas" / "nerb.enron_publication.json").read_text(encoding="utf-8"))
    assert sorted(layout.V2_DECISION_KEYS) == sorted(schema["properties"]["decision"]["required"])
    assert set(layout.V2_FIGURES) == {p.relative_to(REAL_BUNDLE).as_posix()
                                      for p in (REAL_BUNDLE / "figures").iterdir()}


# ---------------------------------------------------------------------------- 3. --source-repo that is not a repository

def _one_usage_line(result) -> str:
    assert result.code == 2, result.stdout
    assert result.stdout == "", "a usage error prints no report and blames nothing on the bundle"
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("nerb-verify: --source-repo "), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def test_source_repo_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    line = _one_usage_line(run_cli("verify", "fixtures/bundles/nerb-enron", "--source-repo", str(tmp_path / "nope")))
    assert str(tmp_path) not in line


def test_source_repo_that_is_not_git_is_a_usage_error_in_every_format(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    afile = tmp_path / "file.txt"
    afile.write_text("x", encoding="utf-8")
    for target, fmt in ((plain, "text"), (plain, "json"), (afile, "sarif")):
        line = _one_usage_line(run_cli("verify", "fixtures/bundles/nerb-enron", "--format", fmt,
                                       "--source-repo", str(target)))
        assert "capacity." not in line and str(tmp_path) not in line


def test_source_repo_that_is_a_git_repository_still_runs_the_mode(tmp_path: Path) -> None:
    """A real repository is accepted; that it lacks the measured commit is then the mode's own finding."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    result = run_cli("verify", "fixtures/bundles/nerb-enron", "--format", "json", "--source-repo", str(tmp_path))
    assert result.code == 1, result.stderr
    report = json.loads(result.stdout)
    assert [f["code"] for f in report["findings"]] == ["capacity.source_repo_unusable"]
    assert report["checks_run"]["capacity.source_repo"]["status"] == "ran"


# ------------------------------------------------------------------------- 4. a rejected bundle establishes no decision

REJECTED_WORDS = "not established (bundle rejected)"


def _rejected_bundle(tmp_path: Path) -> Path:
    """The real bundle plus a stray file: every recomputation still passes, but the bundle is rejected."""
    bundle = tmp_path / "b"
    shutil.copytree(REAL_BUNDLE, bundle)
    (bundle / ".DS_Store").write_text("x", encoding="utf-8")
    return bundle


def test_rejected_bundle_decisions_read_not_established_in_every_format(tmp_path: Path) -> None:
    out = _all_formats(_rejected_bundle(tmp_path), tmp_path)
    text = out["text"].stdout  # type: ignore[attr-defined]
    assert out["text"].code == 1  # type: ignore[attr-defined]
    for label in ("Known-bank contract", "Standalone redaction", "Performance decision", "Decision grade"):
        assert f"{label}: {REJECTED_WORDS}" in text
    for word in ("PASS", "ELIGIBLE", "decision grade: passed", "(recomputed)", " pass\n", "FAIL"):
        assert word not in text, word
    report = json.loads(out["json"])  # type: ignore[arg-type]
    assert report["verdict"] == "rejected"
    assert set(report["decisions"]) >= {"known_bank_contract", "standalone_redaction", "performance",
                                        "decision_grade"}
    for name, decision in report["decisions"].items():
        assert decision == {"established": False, "status": REJECTED_WORDS}, name
    assert schema_validation.validate("nerb_verify.report.v1.json", report) == []
    assert f"| {REJECTED_WORDS} |" in out["summary"]  # type: ignore[operator]
    # SARIF and the annotations carry findings only (rule help texts aside): no decision to withhold there.
    results = json.loads(out["sarif"])["runs"][0]["results"]  # type: ignore[arg-type]
    assert "PASS" not in out["github"].stdout + json.dumps(results)  # type: ignore[attr-defined]


def test_verified_and_ineligible_bundles_keep_their_decisions(real_result) -> None:
    report = build_report(real_result)
    assert report["decisions"]["known_bank_contract"]["verdict"] == "PASS"
    assert "established" not in report["decisions"]["standalone_redaction"]
    assert "Known-bank contract (recomputed): PASS" in render_text(real_result)


def test_report_schema_refuses_a_half_withheld_decision(real_result) -> None:
    report = copy.deepcopy(build_report(real_result))  # the report shares the session result's decisions
    report["decisions"]["known_bank_contract"] = {"established": False, "status": REJECTED_WORDS, "verdict": "PASS"}
    assert schema_validation.validate("nerb_verify.report.v1.json", report) != []
    report["decisions"]["known_bank_contract"] = {"established": False, "status": "PASS"}
    assert schema_validation.validate("nerb_verify.report.v1.json", report) != []


# ------------------------------------------------------------------ 5. the figure counts, and verify --figures

def _real_counts(real_result) -> tuple[int, int]:
    """(figures recomputed, figures matching) on the real bundle; its 6 not-evaluated figures (the person class's
    three null metrics on the card and their copies in the selected iteration) and 0 mismatches are
    pinned by the tests below (the total grows as checks are added: at least the 1,202 of the first release)."""
    figures = real_result.collector.recomputed
    assert len(figures) >= 1202
    assert sum(1 for f in figures if f.status == "not_evaluated") == 6
    return len(figures), sum(1 for f in figures if f.status == "match")


def test_figure_count_line_says_match_mismatch_and_not_evaluated(real_result) -> None:
    total, matched = _real_counts(real_result)
    last = render_text(real_result).splitlines()[-1]
    assert last.startswith(f"Recomputed {total} figure(s): {matched} match, 0 mismatch, 6 not evaluated. "), last


def _figure_rows(stdout: str) -> dict[str, list[str]]:
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Recomputed figures ("))
    rows: dict[str, list[str]] = {}
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        where, *cells = re.split(r" {2,}", line.strip())
        rows.setdefault(where, cells)
    return rows


def test_figures_option_lists_every_recomputed_figure(real_result) -> None:
    result = run_cli("verify", "fixtures/bundles/nerb-enron", "--figures")
    assert result.code == 0, result.stderr
    total, matched = _real_counts(real_result)
    assert f"Recomputed figures ({total}): pointer, exact, decimal, published, status" in result.stdout
    rows = _figure_rows(result.stdout)
    listed = sum(1 for line in result.stdout.splitlines() if line.startswith("  ") and "#/" in line)
    assert listed == total
    assert rows["benchmark-evidence.json#/quality/slices/0/metrics/precision"] == [
        "142/149", "0.9530201342281879", "0.9530201342281879", "match"]
    assert rows["bank-card.json#/development_validation/person/cataloged_recall"] == ["-", "-", "-", "not evaluated"]
    # A recomputed hash is printed; the published value is a string, so it is not.
    manifest = rows["benchmark-evidence.json#/manifest_sha256"]
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", manifest[0]) and manifest[2:] == ["(text)", "match"]
    # Text copied from the input (an identifier, a dataset name) is never printed, recomputed or published.
    assert rows["bank-card.json#/bank/id"] == ["(text)", "-", "(text)", "match"]
    for value in ("enron_intelligence", "corbt"):
        assert value not in result.stdout
    assert f"{matched} match, 0 mismatch, 6 not evaluated" in result.stdout.splitlines()[-1]


def test_figures_option_is_for_the_text_format_only() -> None:
    result = run_cli("verify", "fixtures/bundles/nerb-enron", "--figures", "--format", "json")
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == ["nerb-verify: --figures works with --format text only (the JSON report "
                                          "lists every figure in recomputed[])."]


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
