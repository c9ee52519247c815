"""Harness commands and the report's profile (session 12): the recorded command line's --profile option."""

from __future__ import annotations

import pytest

from nerb_verify.checks.performance.policy import command_profile


@pytest.mark.parametrize("argv,profile", [
    (["nerb", "run-enron-performance", "--profile", "decision", "--require-decision-grade"], "decision"),
    (["nerb", "run", "--profile=smoke"], "smoke"),
    (["nerb", "run"], None),
    (["nerb", "--profile"], None),
    ("nerb --profile smoke", None),
    ([1, 2], None),
])
def test_command_profile_reads_the_profile_option(argv: object, profile: str | None) -> None:
    assert command_profile(argv) == profile
