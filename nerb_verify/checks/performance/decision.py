"""decisions.performance: decision grade, headline throughput and latency per bank size, and the text table."""

from __future__ import annotations

from decimal import ROUND_HALF_DOWN, ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from typing import Any

from nerb_verify.checks.performance.state import PerfState

ENVIRONMENT_FAILURES_FIRST = ()


def decimal_text(value: Fraction, places: int, higher_is_better: bool) -> str:
    """Fixed-point text of an exact value with thousands separators; ties never round the favourable way."""
    with localcontext() as context:
        context.prec = 60
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        rounding = ROUND_HALF_DOWN if higher_is_better else ROUND_HALF_UP
        quantum = Decimal(1).scaleb(-places)
        return f"{exact.quantize(quantum, rounding=rounding):,.{places}f}"


def _figure(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, Fraction):
        return None
    return {"exact": f"{value.numerator}/{value.denominator}", "value": float(value)}


def build_decision(state: PerfState, failures: list[str]) -> dict[str, Any]:
    """The JSON decision record and the bank-size table (pointers and pattern counts, never input ids)."""
    workloads = state.items("workloads")
    rows: list[dict[str, Any]] = []
    headline: dict[str, Any] = {}
    for position, workload in enumerate(workloads):
        if workload.get("decision_grade") is not True or workload.get("phase") != "direct_bank_scan":
            continue
        stats = state.stats.get(position)
        bank = state.lookup("banks", workload.get("bank_id"))
        item = state.lookup("inputs", workload.get("input_id"))
        if stats is None or bank is None:
            continue
        patterns = bank[1].get("active_patterns")
        exact = stats.exact
        if workload.get("sample_unit") == "document" and workload.get("promotion_gate") is True:
            headline["document_latency"] = {
                "pointer": state.pointer("workloads", position), "active_patterns": patterns,
                "median_seconds": _figure(exact["median_seconds"]), "p95_seconds": _figure(exact["p95_seconds"]),
                "p99_seconds": _figure(exact["p99_seconds"])}
            continue
        kind = bank[1].get("kind")
        controlled = item is not None and (
            (kind == "evaluated_bank" and item[1].get("kind") == "real_input") or
            (kind == "synthetic_scale" and item[1].get("hit_density") == "negative"
             and item[1].get("size_cohort") == "medium" and workload.get("concurrency") == 1))
        if workload.get("sample_unit") != "whole_input" or not controlled:
            continue
        row = {"pointer": state.pointer("workloads", position), "active_patterns": patterns,
               "bank_kind": kind, "documents_per_second": _figure(exact["documents_per_second"]),
               "median_seconds": _figure(exact["median_seconds"]), "p99_seconds": _figure(exact["p99_seconds"])}
        rows.append(row)
        if workload.get("promotion_gate") is True:
            headline["whole_input_throughput"] = row
    rows.sort(key=lambda r: r["active_patterns"] if isinstance(r["active_patterns"], int) else -1)
    for position, workload in enumerate(workloads):
        if workload.get("phase") == "cold_compile" and workload.get("decision_grade") is True and \
                position in state.stats:
            headline["cold_compile_median_seconds"] = _figure(state.stats[position].exact["median_seconds"])
    breakeven = next(iter(state.breakeven.values()), None)
    return {
        "decision_grade": "passed" if not failures else "failed",
        "failure_codes": failures,
        "bank_sizes": rows,
        "headline": headline,
        "max_same_path_gap": _figure(state.max_gap),
        "max_cross_path_noise_floor": _figure(max(state.noise_floors.values())) if state.noise_floors else None,
        "breakeven": None if breakeven is None else {"result": breakeven["result"], "units": breakeven["units"]},
        "float_policy": state.tracker.to_json(),
    }


def table_lines(state: PerfState, decision: dict[str, Any]) -> list[str]:
    """Bank size vs direct-scan documents/s (and median, p99) as readable lines."""
    lines = ["Performance: direct-scan throughput by bank size (whole input, median)",
             f"{'active patterns':>16}  {'bank':<10}  {'docs/s':>14}  {'median ms':>10}  {'p99 ms':>10}"]
    for row in decision["bank_sizes"]:
        docs = _exact(row["documents_per_second"])
        median = _exact(row["median_seconds"])
        p99 = _exact(row["p99_seconds"])
        patterns = row["active_patterns"]
        lines.append(
            f"{patterns:>16,}  {('evaluated' if row['bank_kind'] == 'evaluated_bank' else 'scale'):<10}  "
            f"{decimal_text(docs, 1, True) if docs is not None else 'n/a':>14}  "
            f"{decimal_text(median * 1000, 3, False) if median is not None else 'n/a':>10}  "
            f"{decimal_text(p99 * 1000, 3, False) if p99 is not None else 'n/a':>10}")
    lines.append(f"decision grade: {decision['decision_grade']}")
    return lines


def _exact(figure: dict[str, Any] | None) -> Fraction | None:
    if figure is None:
        return None
    return Fraction(figure["exact"])
