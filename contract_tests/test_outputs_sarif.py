"""SARIF 2.1.0 output: every log we emit validates against the official schema and carries no value or path."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contract_tests.conftest import run_cli
from contract_tests.outputs_helpers import BROKEN, CANARY, REPO, masked, sarif_errors
from nerb_verify import catalog, codes
from nerb_verify.findings import Finding
from nerb_verify.outputs import sarif
from nerb_verify.outputs.locations import PathBase
from nerb_verify.outputs.render import render_findings

REAL_ARG = "fixtures/bundles/nerb-enron"


def _sarif_of(bundle: str | Path, *extra: str) -> tuple[int, dict]:
    result = run_cli("verify", str(bundle), "--format", "sarif", *extra)
    assert result.code in (0, 1, 2, 3), result.stderr
    return result.code, json.loads(result.stdout)


def _sarif_and_report(bundle: str | Path, report: Path) -> tuple[int, dict, dict]:
    """One verification run printing SARIF and writing the JSON report beside it."""
    code, log = _sarif_of(bundle, "--report-output", str(report))
    return code, log, json.loads(report.read_text(encoding="utf-8"))


def _no_private_text(text: str, *paths: Path) -> None:
    for path in (REPO, Path.home(), *paths):
        assert str(path) not in text, "an absolute path leaked into the output"
    assert CANARY not in text, "an input value leaked into the output"


def _check_shape(log: dict, findings: int | None = None) -> None:
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    for result in run["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        uri = location["artifactLocation"]["uri"]
        assert not uri.startswith("/") and ":" not in uri.split("/")[0], "artifact URIs are relative"
        assert location["artifactLocation"]["uriBaseId"] in run["originalUriBaseIds"]
        assert location["region"]["startLine"] >= 1
        assert "snippet" not in location["region"]
        assert len(result["partialFingerprints"][sarif.FINGERPRINT_KEY]) == 64
    if findings is not None:
        assert len(run["results"]) == findings


def test_schema_itself_is_the_official_draft4_schema():
    schema = json.loads((REPO / "contract_tests/data/sarif/sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["$schema"] == "http://json-schema.org/draft-04/schema#"
    assert schema["id"] == sarif.SARIF_SCHEMA
    assert (REPO / "contract_tests/data/sarif/LICENSE.md").is_file()


def test_validator_rejects_a_broken_log():
    # Guards the guard: a log without "version" and with a bad level must not validate.
    bad = {"runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "level": "fatal"}]}]}
    assert sarif_errors(bad)


def test_rules_cover_every_registered_code_with_help_and_doc_link():
    log = json.loads(render_findings([], "sarif", command="verify"))
    assert not sarif_errors(log)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    registered = catalog.all_codes()
    assert [r["id"] for r in rules] == [i.code for i in registered]
    for rule, info in zip(rules, registered):
        assert rule["helpUri"] == info.doc_anchor and rule["helpUri"].startswith("docs/findings/")
        assert rule["fullDescription"]["text"] == info.help
        assert rule["defaultConfiguration"]["level"] == info.severity


def test_doc_base_makes_help_uris_absolute():
    log = json.loads(render_findings([], "sarif", command="verify", doc_base="https://example.org/r/blob/v1/"))
    assert not sarif_errors(log)
    rule = log["runs"][0]["tool"]["driver"]["rules"][0]
    assert rule["helpUri"].startswith("https://example.org/r/blob/v1/docs/findings/")


def test_real_bundle_sarif_validates_and_matches_the_report(snapshot, tmp_path):
    code, log, report = _sarif_and_report(REAL_ARG, tmp_path / "report.json")
    assert not sarif_errors(log)
    _check_shape(log, findings=len(report["findings"]))
    assert log["runs"][0]["invocations"][0]["exitCode"] == report["exit_code"] == code
    for result in log["runs"][0]["results"]:
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith(REAL_ARG + "/")
    _no_private_text(json.dumps(log))
    assert masked(log) == snapshot


# Where each broken bundle's rejection must show up: an error result on one of these bundle files.
BROKEN_WHERE = {"extra-file": {"notes.txt"}, "truncated-json": {"bank-card.json"},
                "edited-count": {"benchmark-evidence.json", "publication.json"}}


def test_real_bundle_is_clean_in_sarif():
    code, log = _sarif_of(REAL_ARG)
    assert code == 0, "the published bundle verifies"
    assert [r["ruleId"] for r in log["runs"][0]["results"] if r["level"] == "error"] == []
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is True


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_bundle_sarif_validates(name, tmp_path, snapshot):
    bundle = BROKEN[name](tmp_path / "bundle")
    code, log, report = _sarif_and_report(bundle, tmp_path / "report.json")
    assert code == 1, "a broken bundle is rejected"
    assert not sarif_errors(log)
    _check_shape(log, findings=len(report["findings"]))
    errors = [r for r in log["runs"][0]["results"] if r["level"] == "error"]
    where = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in errors}
    assert where & BROKEN_WHERE[name], "the rejection is an error result on the file that was broken"
    for result in log["runs"][0]["results"]:
        # The temp bundle is outside the repository: paths are bundle-relative under TARGETROOT, never absolute.
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "TARGETROOT"
    _no_private_text(json.dumps(log), tmp_path)
    assert masked(log) == snapshot


def test_bundle_inside_the_source_root_gets_repository_relative_uris(tmp_path):
    bundle = BROKEN["truncated-json"](tmp_path / "repo" / "published" / "bundle")
    result = run_cli("verify", str(bundle), "--format", "sarif", "--source-root", str(tmp_path / "repo"))
    log = json.loads(result.stdout)
    assert not sarif_errors(log)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert "published/bundle/bank-card.json" in uris
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
               for r in log["runs"][0]["results"])


def test_missing_bundle_is_an_incomplete_invocation():
    code, log = _sarif_of("no/such/bundle")
    assert code == 2
    assert not sarif_errors(log)
    invocation = log["runs"][0]["invocations"][0]
    assert invocation == {"executionSuccessful": False, "exitCode": 2,
                          "properties": {"command": "verify", "verdict": "could_not_verify"}}


def test_sarif_output_file_is_written_beside_another_format(tmp_path):
    out = tmp_path / "out.sarif"
    result = run_cli("verify", "no/such/bundle", "--format", "json", "--sarif-output", str(out))
    assert result.code == 2
    assert json.loads(result.stdout)["verdict"] == "could_not_verify"
    assert not sarif_errors(json.loads(out.read_text(encoding="utf-8")))


def _finding(code: str, artifact: str, pointer: str = "", line: int | None = None) -> Finding:
    return Finding(code=code, artifact=artifact, pointer=pointer, message=codes.get(code).title, line=line,
                   column=3 if line else None)


def test_regions_pointers_and_fingerprints():
    code = catalog.all_codes()[0].code
    base = PathBase.for_target("bundles/b", REPO)
    findings = [_finding(code, "a.json", "/x/0"), _finding(code, "summary.md", line=7),
                _finding(code, "a.json", "")]
    log = sarif.build_sarif([sarif.RunInfo("verify", findings, base, 1)])
    assert not sarif_errors(log)
    results = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["properties"].get("pointer"),
                r["locations"][0]["physicalLocation"]["region"].get("startColumn")): r
               for r in log["runs"][0]["results"]}
    pointer_result = results[("bundles/b/a.json", "/x/0", None)]
    assert pointer_result["locations"][0]["physicalLocation"]["region"] == {"startLine": 1}
    assert pointer_result["locations"][0]["logicalLocations"] == [{"fullyQualifiedName": "/x/0", "kind": "value"}]
    line_result = results[("bundles/b/summary.md", None, 3)]
    assert line_result["locations"][0]["physicalLocation"]["region"] == {"startLine": 7, "startColumn": 3}
    prints = [r["partialFingerprints"][sarif.FINGERPRINT_KEY] for r in log["runs"][0]["results"]]
    assert len(set(prints)) == 3, "different places give different fingerprints"
    again = sarif.build_sarif([sarif.RunInfo("verify", [_finding(code, "a.json", "/x/0")], base, 1)])
    assert again["runs"][0]["results"][0]["partialFingerprints"] == pointer_result["partialFingerprints"]


def test_fingerprint_ignores_the_message():
    code = catalog.all_codes()[0].code
    base = PathBase.for_target(None, REPO)
    one = Finding(code, "a.json", "/p", "first wording")
    two = Finding(code, "a.json", "/p", "second wording")
    logs = [sarif.build_sarif([sarif.RunInfo("verify", [f], base, 1)]) for f in (one, two)]
    assert (logs[0]["runs"][0]["results"][0]["partialFingerprints"]
            == logs[1]["runs"][0]["results"][0]["partialFingerprints"])


def test_hostile_artifact_paths_never_become_absolute_or_climb():
    code = catalog.all_codes()[0].code
    base = PathBase.for_target("bundle", REPO)
    findings = [_finding(code, os.path.join(os.sep, "etc", "x.json")), _finding(code, "../../outside.json"),
                _finding(code, "dir/with space/é.json")]
    log = sarif.build_sarif([sarif.RunInfo("scan", findings, base, 1)])
    assert not sarif_errors(log)
    uris = sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"])
    assert uris == ["bundle/dir/with%20space/%C3%A9.json", "outside.json", "x.json"]


def test_merge_keeps_one_run_with_every_result_and_invocation(tmp_path):
    code = catalog.all_codes()[0].code
    base = PathBase.for_target("b", REPO)
    first = sarif.build_sarif([sarif.RunInfo("verify", [_finding(code, "a.json", "/a")], base, 1, "rejected")])
    second = sarif.build_sarif([sarif.RunInfo("scan", [_finding(code, "c.md", line=2)], base, 0)])
    for i, log in enumerate((first, second)):
        (tmp_path / f"{i}.sarif").write_text(sarif.dumps(log), encoding="utf-8")
    assert sarif._main(["merge", "--output", str(tmp_path / "m.sarif"),
                        str(tmp_path / "0.sarif"), str(tmp_path / "1.sarif")]) == 0
    merged = json.loads((tmp_path / "m.sarif").read_text(encoding="utf-8"))
    assert not sarif_errors(merged)
    assert len(merged["runs"]) == 1
    assert len(merged["runs"][0]["results"]) == 2
    assert [i["properties"]["command"] for i in merged["runs"][0]["invocations"]] == ["verify", "scan"]


def _github_slug(heading: str) -> str:
    # GitHub's heading anchors: lower case, drop everything but letters, digits, spaces, hyphens and underscores,
    # spaces become hyphens.
    kept = "".join(ch for ch in heading.strip().lower() if ch.isalnum() or ch in " -_")
    return kept.replace(" ", "-")


def test_help_uri_anchors_match_the_docs_headings():
    checked = 0
    for info in catalog.all_codes():
        page = REPO / "docs" / "findings" / f"{info.family}.md"
        if not page.is_file():
            continue
        headings = [line[3:] for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("## ")]
        for heading in headings:
            if heading.strip().strip("`") == info.code:
                assert info.doc_anchor.split("#", 1)[1] == _github_slug(heading), info.code
                checked += 1
    assert checked > 0, "at least one family page documents its codes with one heading per code"


_CODES = [i.code for i in catalog.all_codes()]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_CODES), st.text(min_size=0, max_size=30),
                          st.lists(st.text(alphabet="abc_01~/", max_size=5), max_size=3),
                          st.none() | st.integers(min_value=0, max_value=10**6)), max_size=6),
       st.sampled_from([None, "bundle", "/outside/abs", "../up"]))
def test_any_findings_give_a_valid_log_with_relative_uris(items, target):
    from nerb_verify.pointers import join

    findings = [Finding(code, artifact, join(parts), "m", line=line, column=None) for code, artifact, parts, line
                in items]
    log = sarif.build_sarif([sarif.RunInfo("scan", findings, PathBase.for_target(target, REPO), 1)])
    assert not sarif_errors(masked(log))  # rules[] itself is validated in full by the tests above
    for result in log["runs"][0]["results"]:
        location = result["locations"][0]["physicalLocation"]
        uri = location["artifactLocation"]["uri"]
        assert not uri.startswith("/") and not uri.startswith("..") and "/../" not in f"/{uri}/"
        assert location["region"]["startLine"] >= 1
