"""A command's recorded elapsed time bounds the timing samples of the workloads it ran (a warning).

``workload.harness_id`` names a harness, ``harness.command_id`` names an evidence ``commands[]`` entry (spec 20,
Harness). The samples of every workload run by one command were taken inside that command, one after another, so
their sum (recomputed integer nanoseconds, ``state.ns``, inline or referenced samples alike) cannot exceed the
command's ``elapsed_seconds``. ``0`` (the real bundle's value) means "not recorded" and is skipped. The comparison
is exact: one ``Fraction`` per command, never per sample.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nerb_verify.checks.performance import codes as C
from nerb_verify.checks.performance.state import PerfState
from nerb_verify.context import EVIDENCE
from nerb_verify.pointers import join

NS_PER_SECOND = 1_000_000_000


def sample_ns_by_command(state: PerfState) -> dict[str, int]:
    """Command id -> the sum of the recomputed samples (integer ns) of every workload whose harness names it."""
    command_of: dict[Any, Any] = {h.get("id"): h.get("command_id") for h in state.items("harnesses")
                                  if isinstance(h, dict)}
    totals: dict[str, int] = {}
    for position, workload in enumerate(state.items("workloads")):
        if not isinstance(workload, dict):
            continue
        command = command_of.get(workload.get("harness_id"))
        samples = state.ns.get(position)
        if isinstance(command, str) and samples:
            totals[command] = totals.get(command, 0) + sum(samples)
    return totals


def check_command_elapsed(state: PerfState) -> None:
    """Warn (``performance.command_elapsed_below_samples``) for every command with a non-zero elapsed time below
    the sum of the samples its workloads measured."""
    evidence = state.ctx.evidence if isinstance(state.ctx.evidence, dict) else {}
    commands = evidence.get("commands")
    if not isinstance(commands, list):
        return
    totals = sample_ns_by_command(state)
    for index, command in enumerate(commands):
        if not isinstance(command, dict):
            continue
        elapsed = command.get("elapsed_seconds")
        total = totals.get(command.get("id")) if isinstance(command.get("id"), str) else None
        if type(elapsed) not in (int, float) or not elapsed > 0 or total is None:
            continue
        if Fraction(elapsed) * NS_PER_SECOND < total:
            state.ctx.collector.add(C.COMMAND_ELAPSED_BELOW_SAMPLES, EVIDENCE,
                                    join(["commands", index, "elapsed_seconds"]),
                                    "The command records less elapsed time than the timing samples it measured.")
