"""The JSON report and the CLI contract: verdicts, exit codes, report schema and self digest, no tracebacks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from nerb_verify import schema_validation
from nerb_verify.canonical import jcs_sha256
from nerb_verify.report import build_report

from contract_tests.conftest import REPO, run_cli, verify_dir


def test_real_bundle_verifies_with_exit_0(real_result) -> None:
    assert real_result.verdict == "verified"
    assert real_result.exit_code == 0
    assert [f.code for f in real_result.collector.findings if f.severity == "error"] == []


def test_report_validates_and_carries_its_digest(real_result) -> None:
    report = build_report(real_result)
    assert schema_validation.validate("nerb_verify.report.v1.json", report) == []
    assert schema_validation.explain("nerb_verify.report.v1.json", report) == []
    body = {k: v for k, v in report.items() if k != "report_sha256"}
    assert report["report_sha256"] == jcs_sha256(body)
    assert {f["path"] for f in report["bundle"]["files"]} >= {"publication.json", "summary.md"}


def test_first_layer_bindings_are_recomputed_matches(real_result) -> None:
    by_figure: dict[str, list[str]] = {}
    for item in real_result.collector.recomputed:
        by_figure.setdefault(item.figure, []).append(item.status)
    assert by_figure["binding.manifest_sha256"] == ["match"]
    assert by_figure["file.sha256"] == ["match"] * 18
    assert by_figure["file.bytes"] == ["match"] * 18
    assert all(s == "match" for s in by_figure["binding.performance_manifest_sha256"])
    assert all(item.status != "mismatch" for item in real_result.collector.recomputed)


def test_every_family_ran_on_the_real_bundle(real_result) -> None:
    statuses = {k: v["status"] for k, v in real_result.collector.checks_run.items()}
    from nerb_verify.families import FAMILY_ORDER

    for family, _run in FAMILY_ORDER:
        assert statuses.get(family) == "ran", family


def test_cli_exit_codes(tmp_path: Path) -> None:
    ok = run_cli("verify", "fixtures/bundles/nerb-enron")
    assert ok.code == 0, ok.stderr
    assert ok.stdout.startswith("nerb-verify: VERIFIED")
    missing = run_cli("verify", str(tmp_path / "nope"))
    assert missing.code == 2
    assert "Traceback" not in missing.stdout + missing.stderr
    usage = run_cli("verify")
    assert usage.code == 2
    ineligible = run_cli("verify", "fixtures/bundles/nerb-enron", "--require-standalone-redaction-eligible")
    assert ineligible.code == 3, ineligible.stdout
    assert "decision.standalone_redaction_ineligible" in ineligible.stdout
    assert "open_world_recall" in ineligible.stdout
    broken = tmp_path / "b"
    shutil.copytree(REPO / "fixtures/bundles/nerb-enron", broken)
    (broken / ".DS_Store").write_text("x")
    rejected = run_cli("verify", str(broken), "--format", "json")
    assert rejected.code == 1
    report = json.loads(rejected.stdout)
    assert report["verdict"] == "rejected" and report["exit_code"] == 1
    assert [f["code"] for f in report["findings"]] == ["bundle.unexpected_file"]


def test_bundle_path_that_is_a_symlink_is_not_followed(tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(REPO / "fixtures/bundles/nerb-enron")
    result = verify_dir(link)
    assert result.exit_code == 2


def test_explain_and_list_codes() -> None:
    listed = run_cli("list-codes")
    assert listed.code == 0
    codes = [line.split("\t")[0] for line in listed.stdout.splitlines()]
    assert "load.duplicate_key" in codes and len(codes) == len(set(codes))
    explained = run_cli("explain", "load.duplicate_key")
    assert explained.code == 0 and "docs/findings/load.md" in explained.stdout
    assert run_cli("explain", "no.such_code").code == 2
    assert run_cli("--list-codes").code == 0


def test_explain_a_family_lists_its_codes_with_titles() -> None:
    """Issue 15 item 8: `explain schema` said "unknown code"; a family name lists the family's codes."""
    from nerb_verify import catalog, codes

    explained = run_cli("explain", "schema")
    assert explained.code == 0, explained.stderr
    lines = explained.stdout.splitlines()
    family = [info for info in catalog.all_codes() if info.family == "schema"]
    assert family and lines[0] == f"schema: {codes.FAMILIES['schema']}"
    for info in family:
        assert f"  {info.code} ({info.severity}): {info.title}" in lines
    assert lines[-1] == "Docs: docs/findings/schema.md (nerb-verify explain CODE for one code)"
    assert len([line for line in lines if line.startswith("  schema.")]) == len(family)
    unknown = run_cli("explain", "schemas")
    assert unknown.code == 2 and "unknown finding code or family" in unknown.stderr
    assert "schemas" not in unknown.stderr


def test_trusted_lineage_option(tmp_path: Path) -> None:
    empty = tmp_path / "prefix.json"
    empty.write_text("[]")
    assert run_cli("verify", "fixtures/bundles/nerb-enron", "--trusted-lineage", str(empty)).code == 0
    bad = tmp_path / "bad.json"
    bad.write_text('[{"a":1,"a":2}]')
    assert run_cli("verify", "fixtures/bundles/nerb-enron", "--trusted-lineage", str(bad)).code == 2


def test_personal_file_names_are_never_echoed(tmp_path: Path) -> None:
    """A stray file whose name is itself an e-mail address is reported by position, in text and JSON alike."""
    bundle = tmp_path / "b"
    shutil.copytree(REPO / "fixtures/bundles/nerb-enron", bundle)
    name = "jane.roe" + "@" + "corp-mail.co.uk.json"
    (bundle / name).write_text("{}")
    (bundle / "figures" / name).write_text("x")
    text = run_cli("verify", str(bundle))
    report = run_cli("verify", str(bundle), "--format", "json")
    assert text.code == 1 and report.code == 1
    for out in (text, report):
        assert "jane.roe" not in out.stdout + out.stderr
    artifacts = {f["artifact"] for f in json.loads(report.stdout)["findings"]}
    assert {"@name:0", "figures/@name:1"} <= artifacts
