"""GitHub workflow-command annotations: one per finding, escaped per the workflow-command rules, no values."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from contract_tests.conftest import run_cli
from contract_tests.outputs_helpers import CANARY, REPO, broken_truncated_json
from nerb_verify import codes
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
    return next(i.code for i in codes.all_codes() if i.severity == severity)


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
    warning_codes = [i.code for i in codes.all_codes() if i.severity == "warning"]
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
