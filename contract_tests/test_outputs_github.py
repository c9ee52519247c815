"""GitHub workflow-command annotations: one per finding, escaped per the workflow-command rules, no values."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from contract_tests.conftest import run_cli
from contract_tests.outputs_helpers import CANARY, REPO, broken_truncated_json
from nerb_verify import catalog
from nerb_verify.findings import Finding
from nerb_verify.outputs import github
from nerb_verify.outputs.locations import PathBase

COMMAND = re.compile(r"^::(error|warning|notice) ([^:]*)::(.*)$")


def _unescape(text: str) -> str:
    return (text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",")
            .replace("%25", "%"))


@given(st.text())
def test_property_escaping_round_trips_and_leaves_no_separator(text):
    escaped = github.escape_property(text)
    assert not set(escaped) & {":", ",", "\r", "\n"}
    assert _unescape(escaped) == text


@given(st.text())
def test_data_escaping_round_trips_and_leaves_no_line_break(text):
    escaped = github.escape_data(text)
    assert "\r" not in escaped and "\n" not in escaped
    assert _unescape(escaped) == text


def test_exact_escapes():
    assert github.escape_data("50% a\r\nb") == "50%25 a%0D%0Ab"
    assert github.escape_property("a:b,c%") == "a%3Ab%2Cc%25"


def _any_code(severity: str) -> str:
    return next(i.code for i in catalog.all_codes() if i.severity == severity)


def test_annotation_for_pointer_and_line_findings():
    base = PathBase.for_target("bundles/x", REPO)
    error = Finding(_any_code("error"), "a.json", "/quality/slices/0", "Something is off.")
    line = Finding(_any_code("error"), "summary.md", "", "Bad figure.", line=12, column=4)
    assert github.annotation(error, base) == (
        "::error file=bundles/x/a.json,line=1,title=" + github.escape_property(error.code)
        + "::Something is off. (JSON Pointer /quality/slices/0)")
    assert github.annotation(line, base) == (
        "::error file=bundles/x/summary.md,line=12,col=4,title=" + github.escape_property(line.code)
        + "::Bad figure.")


def test_warning_severity_is_a_warning_command():
    warning_codes = [i.code for i in catalog.all_codes() if i.severity == "warning"]
    if not warning_codes:  # pragma: no cover - the registry has warnings (bundle.file_mode)
        return
    finding = Finding(warning_codes[0], "a.json", "", "w")
    assert github.annotation(finding, PathBase.for_target(None, REPO)).startswith("::warning file=a.json,")


def test_hostile_file_name_cannot_forge_properties_or_commands():
    finding = Finding(_any_code("error"), "x,line=99::error title=forged\n::warning::y.json", "", "m")
    line = github.annotation(finding, PathBase.for_target(None, REPO))
    assert "\n" not in line
    match = COMMAND.match(line)
    assert match is not None
    props = dict(p.split("=", 1) for p in match.group(2).split(","))
    assert set(props) == {"file", "line", "title"} and props["line"] == "1"


def test_folder_level_finding_has_no_file():
    finding = Finding(_any_code("error"), ".", "", "Not a directory.")
    assert github.annotation(finding, PathBase.for_target("/no/such", REPO)).startswith("::error title=")


def test_cli_github_format_on_a_broken_bundle(tmp_path):
    bundle = broken_truncated_json(tmp_path / "b")
    result = run_cli("verify", str(bundle), "--format", "github")
    assert result.code == 1
    lines = result.stdout.splitlines()
    assert lines and all(COMMAND.match(line) for line in lines)
    assert any("file=bank-card.json" in line for line in lines)
    assert CANARY not in result.stdout and str(tmp_path) not in result.stdout


# --- issue 15 items 8 and 9: the target itself, and the closing notice ------------------------------------------------

def test_target_level_finding_has_no_file_also_when_the_target_is_under_the_source_root():
    finding = Finding(_any_code("error"), ".", "", "Not a directory.")
    for target in ("missing", "bundles/missing", "/no/such"):
        assert github.annotation(finding, PathBase.for_target(target, REPO)).startswith("::error title="), target
    inside = Finding(_any_code("error"), "a.json", "", "m")
    assert github.annotation(inside, PathBase.for_target("bundles/x", REPO)).startswith(
        "::error file=bundles/x/a.json,")


def test_cli_verify_missing_bundle_under_the_current_directory_has_no_file(tmp_path):
    result = run_cli("verify", "no-such-bundle", "--format", "github", cwd=tmp_path)
    assert result.code == 2
    lines = result.stdout.splitlines()
    assert all(COMMAND.match(line) for line in lines)
    errors = [line for line in lines if line.startswith("::error")]
    assert errors == ["::error title=usage.bundle_not_directory::The bundle path is not a readable directory."]


def test_cli_scan_missing_path_has_no_file_and_the_message_says_which_argument(tmp_path):
    (tmp_path / "present.md").write_text("fine\n", encoding="utf-8")
    result = run_cli("scan", "--format", "github", "--no-allowlist", "present.md", "missing", cwd=tmp_path)
    assert result.code == 2
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert errors == ["::error title=privacy.not_scanned::PATH argument 2 does not exist or cannot be inspected."]
    text = run_cli("scan", "--no-allowlist", "present.md", "missing", cwd=tmp_path)
    assert text.stdout.startswith("missing: error privacy.not_scanned: PATH argument 2 does not exist")


def _notices(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("::notice")]


def test_cli_github_format_says_what_was_done_on_success(real_bundle, tmp_path):
    verified = run_cli("verify", str(real_bundle), "--format", "github")
    assert verified.code == 0
    assert verified.stdout.splitlines() == [
        "::notice title=nerb-verify verify::nerb-verify verify fixtures/bundles/nerb-enron: verified (exit 0); "
        "0 error(s), 0 warning(s)."]
    (tmp_path / "notes.md").write_text("Nothing personal here.\n", encoding="utf-8")
    scanned = run_cli("scan", "--format", "github", "--no-allowlist", str(tmp_path))
    assert scanned.code == 0
    assert scanned.stdout.splitlines() == [
        "::notice title=nerb-verify scan::nerb-verify scan (repository profile): 0 finding(s) in 1 file(s) scanned; "
        "0 binary file(s) skipped; 0 path(s) not scanned; 0 finding(s) allowlisted."]
    assert str(tmp_path) not in scanned.stdout


def test_cli_github_notice_closes_a_run_with_findings_too(tmp_path):
    bundle = broken_truncated_json(tmp_path / "b")
    result = run_cli("verify", str(bundle), "--format", "github")
    lines = result.stdout.splitlines()
    assert result.code == 1 and lines[-1].startswith("::notice title=nerb-verify verify::nerb-verify verify: rejected")
    assert len(_notices(result.stdout)) == 1 and str(tmp_path) not in result.stdout
