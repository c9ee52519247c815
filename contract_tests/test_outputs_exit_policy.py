"""--exit-zero and --fail-on: stricter or report-only, but a run that could not complete never exits 0."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contract_tests.conftest import run_cli
from contract_tests.outputs_helpers import broken_truncated_json
from nerb_verify.outputs.exit_policy import apply_exit_policy, worst_exit_code

SEVERITIES = st.lists(st.sampled_from(["error", "warning", "note"]))


@given(st.integers(min_value=-5, max_value=200), SEVERITIES, st.sampled_from(["error", "warning"]), st.booleans())
def test_incomplete_runs_keep_their_code(code, severities, fail_on, exit_zero):
    result = apply_exit_policy(code, severities, fail_on=fail_on, exit_zero=exit_zero)
    if code not in (0, 1, 3):
        assert result == code
    elif exit_zero:
        assert result == 0


@pytest.mark.parametrize(("code", "severities", "fail_on", "exit_zero", "expected"), [
    (0, [], "error", False, 0),
    (0, ["warning"], "error", False, 0),
    (0, ["warning"], "warning", False, 1),
    (0, ["note"], "warning", False, 0),
    (1, ["error"], "error", False, 1),
    (1, ["error"], "error", True, 0),
    (3, [], "warning", False, 3),
    (3, [], "error", True, 0),
    (2, [], "error", True, 2),
    (2, ["warning"], "warning", True, 2),
])
def test_policy_table(code, severities, fail_on, exit_zero, expected):
    assert apply_exit_policy(code, severities, fail_on=fail_on, exit_zero=exit_zero) == expected


def test_worst_exit_code():
    assert worst_exit_code([]) == 2
    assert worst_exit_code([0, 0]) == 0
    assert worst_exit_code([0, 3]) == 3
    assert worst_exit_code([3, 1, 0]) == 1
    assert worst_exit_code([1, 2, 0]) == 2
    assert worst_exit_code([1, 130]) == 130


def test_cli_exit_zero_never_hides_an_incomplete_run():
    result = run_cli("verify", "no/such/bundle", "--exit-zero", "--format", "json")
    assert result.code == 2


def test_cli_exit_zero_on_a_rejected_bundle(tmp_path):
    bundle = broken_truncated_json(tmp_path / "b")
    assert run_cli("verify", str(bundle), "--format", "json").code == 1
    zero = run_cli("verify", str(bundle), "--format", "sarif", "--exit-zero")
    assert zero.code == 0 and '"exitCode": 1' in zero.stdout


def test_cli_rejects_an_unknown_fail_on_level():
    assert run_cli("verify", "x", "--fail-on", "note").code == 2
