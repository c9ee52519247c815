"""Performance gates: the required gate set per decision cell and the frozen budgets thresholds may not loosen.

Spec 20 section 10.2 (NERB's published run) fixes, for every decision-grade workload ("decision cell"):

* required gates: ``median_seconds``, ``p95_seconds`` and ``peak_rss_bytes`` (lte); ``mad_seconds`` (lte) for setup
  phases (whose p99 is null) and ``p99_seconds`` (lte) for the others; ``seconds_per_document`` (lte) for
  document-unit cells; ``documents_per_second`` and ``mib_per_second`` (gte) for whole-input cells;
* budgets a threshold may tighten but never loosen: peak RSS <= 8 GiB; latencies <= 120 s (900 s for the source
  build); direct scans: document p99 <= 0.05 s, whole-input p99 <= min(documents / 100, MiB / 1) s, >= 100
  documents/s and >= 1 MiB/s; other whole-input cells (helper cache, end to end): >= 100/120 documents/s and
  >= (input MiB)/120 MiB/s.

NERB enforces the practical bounds only on promoted direct scans; nerb-verify applies every budget to every gate on
every workload (decision cell or not, promoted or not, decision or smoke profile), because a loosened threshold
resealed into every hash is otherwise invisible. The required gate set applies to decision cells. Bounds are exact
fractions; thresholds are read as the decimal they are written as.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nerb_verify.checks.raw import gate_eval
from nerb_verify.codes import register
from nerb_verify.findings import Label
from nerb_verify.pointers import join

EV = "benchmark-evidence.json"
MIB = 2**20

PERF_MISSING = register(
    "gate.performance_required_missing", "A decision cell lacks one of its required performance gates.",
    "Every decision-grade workload must gate median and p95 latency and peak RSS, p99 (or MAD for setup phases), "
    "seconds per document for document cells and documents/s and MiB/s for whole-input cells (spec 20, 10.2).")
PERF_SEMANTICS = register(
    "gate.performance_required_semantics", "A required performance gate points the wrong way.",
    "Latency and memory gates use lte; throughput gates use gte.")
PERF_POLICY = register(
    "gate.performance_threshold_policy", "A performance threshold is looser than its frozen budget.",
    "Thresholds may tighten the budgets but never loosen them: peak RSS <= 8 GiB, latencies <= 120 s (900 s for the "
    "source build), direct scans document p99 <= 50 ms, whole-input p99 <= min(documents/100, MiB) s, >= 100 "
    "documents/s and >= 1 MiB/s, other whole-input cells >= 100/120 documents/s and >= MiB/120 MiB/s. Checked on "
    "every gate of every workload, promoted or not, decision or smoke profile.")

LATENCY_FIELDS = ("median_seconds", "p95_seconds", "p99_seconds", "mad_seconds", "seconds_per_document")
THROUGHPUT_FIELDS = ("documents_per_second", "mib_per_second")
MAX_RSS = Fraction(8 * 1024**3)
LATENCY_BUDGET = Fraction(120)
SOURCE_BUILD_BUDGET = Fraction(900)


def required_fields(workload: dict[str, Any]) -> dict[str, str]:
    """Field (``peak_rss_bytes`` or a stats field) -> operator, for one decision cell."""
    required = {"median_seconds": "lte", "p95_seconds": "lte", "peak_rss_bytes": "lte"}
    stats = workload.get("stats") if isinstance(workload.get("stats"), dict) else {}
    if stats.get("p99_seconds") is None:
        required["mad_seconds"] = "lte"
    else:
        required["p99_seconds"] = "lte"
    if workload.get("sample_unit") == "document":
        required["seconds_per_document"] = "lte"
    if workload.get("sample_unit") == "whole_input":
        required["documents_per_second"] = "gte"
        required["mib_per_second"] = "gte"
    return required


def budget(workload: dict[str, Any], field: str, item: dict[str, Any] | None) -> tuple[str, Fraction] | None:
    """(operator, bound) for a gated field of a decision cell, or None when no budget applies."""
    phase = workload.get("phase")
    direct = phase == "direct_bank_scan"
    unit = workload.get("sample_unit")
    documents = item.get("documents") if isinstance(item, dict) else None
    size = item.get("bytes") if isinstance(item, dict) else None
    sized = type(documents) is int and type(size) is int and documents > 0 and size > 0
    if field == "peak_rss_bytes":
        return ("lte", MAX_RSS)
    if field in LATENCY_FIELDS:
        bound = SOURCE_BUILD_BUDGET if phase == "source_build" else LATENCY_BUDGET
        if field == "p99_seconds" and direct and unit == "document":
            bound = Fraction(1, 20)
        elif field == "p99_seconds" and direct and unit == "whole_input" and sized:
            bound = min(Fraction(documents, 100), Fraction(size, MIB))
        return ("lte", bound)
    if field in THROUGHPUT_FIELDS and unit == "whole_input":
        if field == "documents_per_second":
            return ("gte", Fraction(100) if direct else Fraction(100, 120))
        if direct:
            return ("gte", Fraction(1))
        return ("gte", Fraction(size, MIB * 120)) if sized else None
    return None


def _target_field(target: str) -> tuple[int, str] | None:
    parts = target.split("/")
    if len(parts) == 5 and parts[1:3] == ["performance", "workloads"] and parts[4] == "peak_rss_bytes":
        index, field = parts[3], "peak_rss_bytes"
    elif len(parts) == 6 and parts[1:3] == ["performance", "workloads"] and parts[4] == "stats":
        index, field = parts[3], parts[5]
    else:
        return None
    if not index.isascii() or not index.isdigit() or (len(index) > 1 and index[0] == "0"):
        return None
    return int(index), field


def check(ctx: Any, evidence: dict[str, Any], checks: list[Any]) -> None:
    """Report missing gates of decision cells, and mis-directed or loosened gates of any workload (module docstring)."""
    performance = evidence.get("performance")
    workloads = performance.get("workloads") if isinstance(performance, dict) else None
    inputs = performance.get("inputs") if isinstance(performance, dict) else None
    if not isinstance(workloads, list):
        return
    by_id = {i.get("id"): i for i in inputs if isinstance(i, dict)} if isinstance(inputs, list) else {}
    gated: dict[tuple[int, str], tuple[int, dict[str, Any]]] = {}
    for position, item in enumerate(checks):
        if isinstance(item, dict) and item.get("category") == "performance" and isinstance(item.get("target"), str):
            found = _target_field(item["target"])
            if found is not None:
                gated.setdefault(found, (position, item))
    add = ctx.collector.add
    for index, workload in enumerate(workloads):
        if not isinstance(workload, dict):
            continue
        item = by_id.get(workload.get("input_id"))
        # The required gate set is per decision cell; the budgets bind every gate that exists, on any cell, so a
        # smoke bundle's gates cannot be loosened either (docs/decision-grade.md).
        required = required_fields(workload) if workload.get("decision_grade") is True else {}
        for field, operator in required.items():
            if (index, field) not in gated:
                add(PERF_MISSING, EV, "/promotion/checks", "Decision cell {cell} has no {operator} gate on {field}.",
                    cell=index, operator=Label(operator), field=Label(field))
        for (cell, field), (position, gate) in gated.items():
            if cell != index:
                continue
            rule = budget(workload, field, item)
            if rule is None:
                continue
            operator, bound = rule
            if gate.get("operator") != operator:
                add(PERF_SEMANTICS, EV, join(["promotion", "checks", position, "operator"]),
                    "A gate on {field} must use {operator}.", field=Label(field), operator=Label(operator))
                continue
            threshold = gate_eval.decimal_value(gate.get("threshold"))
            if threshold is None:
                continue  # reported as gate.vacuous_threshold
            if (operator == "lte" and threshold > bound) or (operator == "gte" and threshold < bound):
                add(PERF_POLICY, EV, join(["promotion", "checks", position, "threshold"]),
                    "The {field} threshold is looser than its budget {bound}.", field=Label(field), bound=bound)
