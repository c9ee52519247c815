"""Shared state of one performance-family run: the section, indexes, recomputed samples and statistics."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from nerb_verify import pointers
from nerb_verify.checks.performance.floatpolicy import DeviationTracker
from nerb_verify.checks.performance.statistics import WorkloadStats
from nerb_verify.context import EVIDENCE, VerifyContext
from nerb_verify.findings import Label, Param

COLLECTIONS = ("banks", "inputs", "harnesses", "workloads", "baselines", "comparisons", "breakeven_models")


@dataclass
class PerfState:
    """Everything the performance modules share; built once from the evidence's performance section."""

    ctx: VerifyContext
    performance: dict[str, Any]
    artifact: str = EVIDENCE
    base: tuple[str | int, ...] = ("performance",)
    index: dict[str, dict[str, int]] = field(default_factory=dict)  # collection -> id -> position
    ns: dict[int, list[int]] = field(default_factory=dict)  # workload position -> chronological integer ns
    stats: dict[int, WorkloadStats] = field(default_factory=dict)  # workload position -> recomputed stats
    peak_rss: dict[int, int | None] = field(default_factory=dict)
    same_path_results: dict[int, str] = field(default_factory=dict)  # comparison position -> recomputed result
    cross_path_results: dict[int, str] = field(default_factory=dict)
    noise_floors: dict[int, Fraction] = field(default_factory=dict)
    noise_cache: dict[Any, tuple[Fraction, float]] = field(default_factory=dict)  # per workload pair
    max_gap: Fraction | None = None
    breakeven: dict[int, dict[str, Any]] = field(default_factory=dict)
    tracker: DeviationTracker = field(default_factory=DeviationTracker)
    failures: set[str] = field(default_factory=set)  # recomputed report-level failure codes (NERB's vocabulary)
    blockers: set[str] = field(default_factory=set)  # our own fail-closed reasons (not part of the report's grade)

    def items(self, name: str) -> list[Any]:
        value = self.performance.get(name)
        return value if isinstance(value, list) else []

    def pointer(self, *parts: str | int) -> str:
        return pointers.join([*self.base, *parts])

    def add(self, code: str, parts: tuple[str | int, ...], message: str | None = None, **params: Param) -> None:
        self.ctx.collector.add(code, self.artifact, self.pointer(*parts), message, **params)

    def record(self, parts: tuple[str | int, ...], figure: str, published: Any, recomputed: Any,
               matches: bool) -> None:
        self.ctx.collector.record(self.artifact, self.pointer(*parts), figure, published, recomputed, matches)

    def lookup(self, name: str, ident: Any) -> tuple[int, dict[str, Any]] | None:
        """Position and object of the item ``ident`` in collection ``name`` (None when unknown)."""
        if not isinstance(ident, str):
            return None
        position = self.index.get(name, {}).get(ident)
        if position is None:
            return None
        return position, self.items(name)[position]


def label(text: str) -> Label:
    """A field or metric name our own code chose, safe to print."""
    return Label(text)
