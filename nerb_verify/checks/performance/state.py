"""Shared state of one performance-family run: the section, indexes, recomputed samples and statistics."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nerb_verify import pointers
from nerb_verify.checks.performance.floatpolicy import DeviationTracker
from nerb_verify.checks.performance.statistics import WorkloadStats
from nerb_verify.context import EVIDENCE, VerifyContext
from nerb_verify.findings import Label, Param

COLLECTIONS = ("banks", "inputs", "harnesses", "workloads", "baselines", "comparisons", "breakeven_models")


class PerfState:
    """Everything the performance modules share; built once from the evidence's performance section."""

    def __init__(self, ctx: VerifyContext, performance: dict[str, Any], artifact: str = EVIDENCE,
                 base: tuple[str | int, ...] = ("performance",), index: dict[str, dict[str, int]] | None = None,
                 ns: dict[int, list[int]] | None = None, stats: dict[int, WorkloadStats] | None = None,
                 peak_rss: dict[int, int | None] | None = None, same_path_results: dict[int, str] | None = None,
                 cross_path_results: dict[int, str] | None = None, noise_floors: dict[int, Fraction] | None = None,
                 noise_cache: dict[Any, tuple[Fraction, float]] | None = None, max_gap: Fraction | None = None,
                 breakeven: dict[int, dict[str, Any]] | None = None, tracker: DeviationTracker | None = None,
                 failures: set[str] | None = None, blockers: set[str] | None = None) -> None:
        self.ctx: VerifyContext = ctx
        self.performance: dict[str, Any] = performance
        self.artifact: str = artifact
        self.base: tuple[str | int, ...] = base
        self.index: dict[str, dict[str, int]] = {} if index is None else index  # collection -> id -> position
        self.ns: dict[int, list[int]] = {} if ns is None else ns  # workload position -> chronological integer ns
        self.stats: dict[int, WorkloadStats] = {} if stats is None else stats  # workload position -> recomputed stats
        self.peak_rss: dict[int, int | None] = {} if peak_rss is None else peak_rss
        # comparison position -> recomputed result
        self.same_path_results: dict[int, str] = {} if same_path_results is None else same_path_results
        self.cross_path_results: dict[int, str] = {} if cross_path_results is None else cross_path_results
        self.noise_floors: dict[int, Fraction] = {} if noise_floors is None else noise_floors
        # per workload pair
        self.noise_cache: dict[Any, tuple[Fraction, float]] = {} if noise_cache is None else noise_cache
        self.max_gap: Fraction | None = max_gap
        self.breakeven: dict[int, dict[str, Any]] = {} if breakeven is None else breakeven
        self.tracker: DeviationTracker = DeviationTracker() if tracker is None else tracker
        # recomputed report-level failure codes (NERB's vocabulary)
        self.failures: set[str] = set() if failures is None else failures
        # our own fail-closed reasons (not part of the report's grade)
        self.blockers: set[str] = set() if blockers is None else blockers

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
