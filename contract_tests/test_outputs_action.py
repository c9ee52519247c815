"""action.yml and the CI workflow: valid against SchemaStore's schemas, safe, and working when run locally."""

from __future__ import annotations

import json
import re
from pathlib import Path

import check_jsonschema
import jsonschema
import pytest
from ruamel.yaml import YAML

from contract_tests.action_runner import REPO, evaluate, load_yaml, local_install, run_action
from contract_tests.outputs_helpers import CANARY, broken_truncated_json, sarif_errors

VENDOR = Path(check_jsonschema.__file__).parent / "builtin_schemas" / "vendor"
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.y*ml"))
PINNED = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$")


def _validate(document, schema_name: str) -> list[str]:
    schema = json.loads((VENDOR / f"{schema_name}.json").read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator = validator_class(schema)
    return sorted("/" + "/".join(str(p) for p in e.absolute_path) + " " + str(e.validator)
                  for e in validator.iter_errors(document))


def test_action_validates_against_schemastore_github_actions():
    assert not _validate(load_yaml(REPO / "action.yml"), "github-actions")


def test_schema_check_bites():
    action = load_yaml(REPO / "action.yml")
    del action["runs"]["steps"][0]["shell"]
    action["runs"]["using"] = "composite-ish"
    assert _validate(action, "github-actions")


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_validate_against_schemastore_github_workflows(path):
    assert not _validate(load_yaml(path), "github-workflows")


def test_ci_workflow_exists_and_runs_on_push_and_pull_request():
    ci = load_yaml(REPO / ".github" / "workflows" / "ci.yml")
    assert set(ci["on"]) == {"push", "pull_request"}
    commands = [s.get("run", "") for job in ci["jobs"].values() for s in job["steps"]]
    assert "python -m pip install '.[test]' && python -m pytest" in commands
    local = [s for job in ci["jobs"].values() for s in job["steps"] if s.get("uses") == "./"]
    assert any("fixtures/bundles/nerb-enron" in s["with"].get("bundles", "") for s in local)
    assert any(s["with"].get("profile") == "repository" and s["with"].get("scan-paths") for s in local)


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_permissions_are_least_privilege_and_actions_pinned(path):
    workflow = load_yaml(path)
    assert workflow["permissions"] == {"contents": "read"}
    for name, job in workflow["jobs"].items():
        permissions = job.get("permissions", workflow["permissions"])
        uploads = any(str(s.get("uses", "")).startswith("github/codeql-action/upload-sarif") for s in job["steps"])
        expected = {"contents": "read", "security-events": "write"} if uploads else {"contents": "read"}
        assert permissions == expected, name
        for step in job["steps"]:
            uses = step.get("uses")
            if uses and uses != "./":
                assert PINNED.match(uses), f"{uses} is pinned by full commit SHA"
            if uses and uses.startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False


def test_action_scripts_take_inputs_only_through_env():
    # ${{ }} inside run: would splice input text into the script (script injection); env: passes it as data.
    action = load_yaml(REPO / "action.yml")
    for step in action["runs"]["steps"]:
        assert "${{" not in step["run"]
        assert step["shell"] == "bash"
    ids = {s.get("id") for s in action["runs"]["steps"]}
    for spec in action["outputs"].values():
        assert re.fullmatch(r"\$\{\{ steps\.([a-z-]+)\.outputs\.[a-z-]+ \}\}", spec["value"])
        assert spec["value"].split(".")[1] in ids
    required = {"bundles", "scan-paths", "profile", "fail-on", "sarif", "require-standalone-redaction-eligible",
                "require-decision-grade"}
    assert required <= set(action["inputs"])


def test_tool_steps_run_the_installed_package():
    for step in load_yaml(REPO / "action.yml")["runs"]["steps"]:
        if "NERB_PY" in step.get("env", {}):
            assert step["env"]["PYTHONSAFEPATH"] == "1"


def test_install_step_installs_the_action_itself():
    install = load_yaml(REPO / "action.yml")["runs"]["steps"][0]
    assert install["id"] == "install"
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert 'tar -C "$ACTION_PATH"' in install["run"]
    assert 'pip install --disable-pip-version-check --quiet "$NERB_SRC"' in install["run"]


def test_expression_evaluator():
    ctx = {"github": {"a": "", "b": "x"}, "inputs": {"fail-on": "error"}}
    assert evaluate("${{ github.a || github.b }}/${{ inputs.fail-on }}", ctx) == "x/error"
    with pytest.raises(ValueError):
        evaluate("${{ format('{0}', github.b) }}", ctx)


def _run(tmp_path: Path, **inputs: str):
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    return run_action(inputs, REPO, temp, skip=local_install())


def test_local_run_clean_bundle(tmp_path):
    sarif_path = tmp_path / "out.sarif"
    run = _run(tmp_path, bundles="fixtures/bundles/nerb-enron", sarif=str(sarif_path))
    assert run.exit_code == 0, run.summary
    assert run.outputs == {"verdict": "verified", "exit-code": "0", "sarif": str(sarif_path)}
    assert "## nerb-verify: verified (exit 0)" in run.summary
    assert re.search(r"^\| fixtures/bundles/nerb-enron \| verified \| 0 \| 0 \|", run.summary, re.MULTILINE)
    assert "| fixtures/bundles/nerb-enron | /quality/slices/0 | precision | 0.95302 | match |" in run.summary
    assert not sarif_errors(json.loads(sarif_path.read_text(encoding="utf-8")))


def _documented_evidence_inputs() -> dict[str, str]:
    """The ``with:`` inputs of the "Published evidence" snippet in docs/github-action.md, with its example folder
    replaced by the vendored real bundle."""
    text = (REPO / "docs" / "github-action.md").read_text(encoding="utf-8")
    section = text.split("### Published evidence", 1)[1]
    snippet = section.split("```yaml", 1)[1].split("```", 1)[0]
    steps = YAML(typ="safe", pure=True).load(snippet)
    inputs = {name: str(value) for name, value in steps[0]["with"].items()}
    return {name: value.replace("published/nerb-enron", "fixtures/bundles/nerb-enron") for name, value in inputs.items()}


def test_local_run_documented_evidence_configuration_passes_the_real_bundle(tmp_path):
    """Issue 15 item 13: the configuration the docs recommend for published evidence (profile: contract) must pass
    NERB's own bundle, whose summary.md quotes a reproduce command with a generic output folder."""
    inputs = _documented_evidence_inputs()
    assert inputs == {"bundles": "fixtures/bundles/nerb-enron", "scan-paths": "fixtures/bundles/nerb-enron",
                      "profile": "contract"}
    sarif_path = tmp_path / "out.sarif"
    run = _run(tmp_path, sarif=str(sarif_path), **inputs)
    assert run.exit_code == 0, run.stdout + run.summary
    assert run.outputs["verdict"] == "verified" and run.step_outputs["scan"]["exit-code"] == "0"
    assert "::error" not in run.stdout
    assert not sarif_errors(json.loads(sarif_path.read_text(encoding="utf-8")))


def test_local_run_broken_bundle(tmp_path):
    bundle = broken_truncated_json(tmp_path / "bundle")
    sarif_path = tmp_path / "out.sarif"
    run = _run(tmp_path, bundles=f"\n  {bundle}  \n\n", sarif=str(sarif_path))
    assert run.exit_code == 1
    assert run.outputs["verdict"] == "rejected" and run.outputs["exit-code"] == "1"
    assert "## nerb-verify: rejected (exit 1)" in run.summary
    # The bundle lies outside the working directory, so every output masks its path (docs/outputs.md).
    assert re.search(r"^\| &lt;bundle&gt; \| rejected \| 1 \| [1-9]", run.summary, re.MULTILINE)
    assert str(tmp_path) not in run.summary
    log = json.loads(sarif_path.read_text(encoding="utf-8"))
    assert not sarif_errors(log)
    assert any(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bank-card.json"
               for r in log["runs"][0]["results"])
    rule = log["runs"][0]["tool"]["driver"]["rules"][0]
    assert rule["helpUri"].startswith("https://github.com/example/nerb-verify/blob/" + "0" * 40 + "/docs/")
    assert re.search(r"^::error file=bank-card\.json,line=\d+", run.stdout, re.MULTILINE), "annotations are printed"
    assert CANARY not in run.summary + run.stdout + sarif_path.read_text(encoding="utf-8")


def test_local_run_report_only_still_reports_the_verdict(tmp_path):
    bundle = broken_truncated_json(tmp_path / "bundle")
    run = _run(tmp_path, bundles=str(bundle), sarif=str(tmp_path / "o.sarif"), **{"fail-on": "never"},
               annotations="false")
    assert run.exit_code == 0
    assert run.outputs["verdict"] == "rejected" and run.outputs["exit-code"] == "0"
    assert "::error" not in run.stdout


def test_local_run_missing_bundle_never_passes(tmp_path):
    run = _run(tmp_path, bundles="no/such/bundle", sarif=str(tmp_path / "o.sarif"), **{"fail-on": "never"})
    assert run.exit_code == 2
    assert run.outputs["verdict"] == "could_not_verify"
    assert "| no/such/bundle | could not verify | 2 |" in run.summary


def test_local_run_with_nothing_to_check_fails(tmp_path):
    run = _run(tmp_path, sarif=str(tmp_path / "o.sarif"))
    assert run.exit_code == 2
    assert "Nothing was checked" in run.summary
    assert not sarif_errors(json.loads((tmp_path / "o.sarif").read_text(encoding="utf-8")))


def test_local_run_rejects_an_unknown_fail_on(tmp_path):
    run = _run(tmp_path, bundles="fixtures/bundles/nerb-enron", **{"fail-on": "sometimes"})
    assert run.exit_code == 2


# That the installed distribution ships every subpackage and the JSON Schemas (which the action relies on, since it
# runs the installed package) is tested on a real built wheel in contract_tests/test_install.py.


def test_local_run_eligibility_requirement(tmp_path):
    # NERB's own verifier finds the real bank not eligible for standalone redaction; so does ours (exit 3).
    run = _run(tmp_path, bundles="fixtures/bundles/nerb-enron", sarif=str(tmp_path / "o.sarif"),
               **{"require-standalone-redaction-eligible": "true", "annotations": "false"})
    assert run.exit_code == 3
    assert run.outputs["verdict"] == "ineligible" and run.outputs["exit-code"] == "3"
    assert "| fixtures/bundles/nerb-enron | ineligible | 3 |" in run.summary


def test_local_run_decision_grade_requirement(tmp_path):
    # The synthetic smoke bundle verifies, but it is not decision grade: with the requirement it exits 3; the real
    # (decision-profile) bundle passes the same requirement.
    for name in ("smoke", "plain", "real"):
        (tmp_path / name).mkdir()
    smoke = _run(tmp_path / "smoke", bundles="fixtures/bundles/synthetic-smoke", sarif=str(tmp_path / "s.sarif"),
                 **{"require-decision-grade": "true", "annotations": "false"})
    assert smoke.exit_code == 3 and smoke.outputs["verdict"] == "ineligible"
    plain = _run(tmp_path / "plain", bundles="fixtures/bundles/synthetic-smoke", sarif=str(tmp_path / "p.sarif"),
                 annotations="false")
    assert plain.exit_code == 0 and plain.outputs["verdict"] == "verified"
    real = _run(tmp_path / "real", bundles="fixtures/bundles/nerb-enron", sarif=str(tmp_path / "r.sarif"),
                **{"require-decision-grade": "true", "annotations": "false"})
    assert real.exit_code == 0, real.summary
