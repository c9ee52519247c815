"""Per-workload checks: raw samples, the nine statistics, RSS, record denominators and the frozen phase rules.

Exact statistics go to ``ctx.figures["/performance/workloads/<i>/stats/<field>"]`` (Fraction seconds, exact rational
rates, int sample count, None for a null statistic) and ``ctx.figures["/performance/workloads/<i>/peak_rss_bytes"]``
(int). A workload whose samples cannot be read gets no figures at all, so later gates fail closed.
"""

from __future__ import annotations

import operator
from typing import Any

from nerb_verify.checks.performance import codes as C
from nerb_verify.checks.performance.floatpolicy import double_matches
from nerb_verify.checks.performance.state import PerfState, label
from nerb_verify.checks.performance.statistics import (
    SETUP_PHASES,
    STAT_FIELDS,
    Denominators,
    compute_stats,
    samples_to_ns,
)

PHASE_PROCESS_MODEL = {
    "source_profile": "fresh_process_per_sample", "source_build": "fresh_process_per_sample",
    "cold_compile": "fresh_process_per_sample", "helper_cache_miss": "fresh_process_per_sample",
    "end_to_end": "fresh_process_per_sample", "helper_cache_hit": "reused_process",
    "direct_bank_scan": "reused_process",
}
# The frozen matrix (spec 20 §3): every candidate cell's phase and sample unit, and whether it runs on the evaluated
# bank. Controls are ``control_<candidate>`` twins of the 20 candidates; the two ``explore_*`` cells have no twins.
_DIRECT, _WHOLE = "direct_bank_scan", "whole_input"
FROZEN_CELLS: dict[str, tuple[str, str, bool]] = {
    "real_source_profile": ("source_profile", "operation", True),
    "real_source_build": ("source_build", "operation", True),
    "real_cold_compile": ("cold_compile", "operation", True),
    "real_helper_cache_miss": ("helper_cache_miss", _WHOLE, True),
    "real_helper_cache_hit": ("helper_cache_hit", _WHOLE, True),
    "real_end_to_end": ("end_to_end", _WHOLE, True),
    "real_direct_latency": (_DIRECT, "document", True),
    "real_direct_throughput": (_DIRECT, _WHOLE, True),
    "real_direct_cache_value": (_DIRECT, _WHOLE, True),
    **{f"scale_{n}_direct": (_DIRECT, _WHOLE, False) for n in (1000, 10000, 25000, 100000)},
    **{f"density_{d}_direct": (_DIRECT, _WHOLE, False) for d in ("sparse", "normal", "dense")},
    **{f"size_{z}_direct": (_DIRECT, _WHOLE, False) for z in ("small", "large", "huge")},
    "scale_1000_concurrency_4": (_DIRECT, _WHOLE, False),
}
EXPLORATORY_CELLS: dict[str, tuple[str, str, bool]] = {
    "explore_generic_email_regex": (_DIRECT, _WHOLE, True),
    "explore_python_literal_scan": (_DIRECT, _WHOLE, True),
}
# Reused-process cells run exactly the frozen sample policy's warm-up count (both profiles); fresh processes none.
FROZEN_WARMUPS = 3


def frozen_cell(workload_id: Any) -> tuple[str, str, bool] | None:
    """(phase, sample unit, on the evaluated bank) of a frozen-matrix cell id, its control twin, or an exploratory
    cell; None for an id the matrix does not have."""
    if not isinstance(workload_id, str):
        return None
    if workload_id in EXPLORATORY_CELLS:
        return EXPLORATORY_CELLS[workload_id]
    return FROZEN_CELLS.get(workload_id.removeprefix("control_"))


def frozen_concurrency(workload_id: str) -> int:
    """The concurrency a frozen cell runs at: the number after ``_concurrency_`` in its id, else 1."""
    _, marker, count = workload_id.rpartition("_concurrency_")
    return int(count) if marker and count.isdigit() else 1


PHASE_UNITS = {
    "source_profile": ("operation",), "source_build": ("operation",), "cold_compile": ("operation",),
    "helper_cache_miss": ("whole_input",), "helper_cache_hit": ("whole_input",), "end_to_end": ("whole_input",),
    "direct_bank_scan": ("whole_input", "document"),
}
MIN_SAMPLES = 5


def _int(value: Any) -> bool:
    return type(value) is int


def _positive_ints(values: list[Any]) -> bool:
    """Every item an int (never a bool) above zero; True for an empty list. C-level passes over the list."""
    return not values or (set(map(type, values)) == {int} and min(values) > 0)


def _baseline_equivalence(state: PerfState, workload: dict[str, Any]) -> str | None:
    found = state.lookup("baselines", workload.get("baseline_id"))
    return found[1].get("semantic_equivalence") if found else None


def _denominators(state: PerfState, position: int, workload: dict[str, Any]) -> Denominators | None:
    unit = workload.get("sample_unit")
    work = workload.get("work_per_sample")
    if not _int(work) or work < 1:
        return None
    if unit != "whole_input":
        return Denominators(str(unit), None, None, None, work)
    found = state.lookup("inputs", workload.get("input_id"))
    if found is None:
        return None
    item = found[1]
    documents, total_bytes, records = item.get("documents"), item.get("bytes"), item.get("records")
    if not (_int(documents) and _int(total_bytes) and _int(records)) or documents < 1:
        return None
    per_sample = workload.get("records_per_sample")
    equivalence = _baseline_equivalence(state, workload)
    expected_records = records * work
    if per_sample is None:
        state.add(C.RECORDS_PER_SAMPLE, ("workloads", position, "records_per_sample"),
                  "A whole-input workload needs records_per_sample.")
        return Denominators(unit, documents * work, total_bytes * work, expected_records, work)
    if not _int(per_sample) or per_sample < 0:
        state.add(C.RECORDS_PER_SAMPLE, ("workloads", position, "records_per_sample"))
        return None
    if equivalence != "not_equivalent" and per_sample != expected_records:
        state.add(C.RECORDS_PER_SAMPLE, ("workloads", position, "records_per_sample"),
                  "records_per_sample differs from input records x work.")
    return Denominators(unit, documents * work, total_bytes * work, per_sample, work)


def check_workload(state: PerfState, position: int, workload: dict[str, Any]) -> None:
    """Samples -> stats (recorded, figures), RSS, records and phase rules of one workload."""
    base = ("workloads", position)
    _check_phase_rules(state, position, workload)
    if workload.get("samples_ref") is not None:
        state.add(C.INVALID_SAMPLE, (*base, "samples_ref"), "Referenced sample files are not part of the public "
                  "bundle; samples must be inline.")
        return
    ns, bad = samples_to_ns(workload.get("samples_seconds"))
    if ns is None:
        parts = (*base, "samples_seconds") if bad is None or bad < 0 else (*base, "samples_seconds", bad)
        state.add(C.INVALID_SAMPLE, parts)
        return
    if len(ns) < MIN_SAMPLES:
        state.add(C.INVALID_SAMPLE, (*base, "samples_seconds"), "Only {n} samples; at least 5 are required.",
                  n=len(ns))
        return
    state.ns[position] = ns
    if workload.get("sample_unit") == "whole_input" or workload.get("sample_unit") == "document":
        den = _denominators(state, position, workload)
    else:
        den = _denominators(state, position, workload)
        if workload.get("records_per_sample") is not None:
            state.add(C.RECORDS_PER_SAMPLE, (*base, "records_per_sample"), "Only whole-input workloads carry "
                      "records_per_sample.")
    if den is None:
        state.add(C.SECTION_MALFORMED, base, "The workload's throughput denominators could not be determined.")
        return
    if workload.get("sample_unit") == "document" and workload.get("records_per_sample") is not None:
        state.add(C.RECORDS_PER_SAMPLE, (*base, "records_per_sample"), "Only whole-input workloads carry "
                  "records_per_sample.")
    stats = compute_stats(ns, workload.get("phase"), den)
    state.stats[position] = stats
    published_stats = workload.get("stats") if isinstance(workload.get("stats"), dict) else {}
    figures = state.ctx.figures
    for field in STAT_FIELDS:
        exact = stats.exact[field]
        published = published_stats.get(field)
        if field == "sample_count":
            ok = _int(published) and published == exact
        else:
            ok = double_matches(published, exact, stats.float_step[field], state.tracker)
        state.record((*base, "stats", field), f"performance.stats.{field}", published, exact, ok)
        figures[state.pointer(*base, "stats", field)] = exact
        if not ok:
            state.add(C.STATISTIC_MISMATCH, (*base, "stats", field),
                      "{field} is not the value the raw samples give.", field=label(field))
    _check_rss(state, position, workload, len(ns))


def _check_rss(state: PerfState, position: int, workload: dict[str, Any], count: int) -> None:
    base = ("workloads", position)
    samples = workload.get("rss_samples_bytes")
    peak = workload.get("peak_rss_bytes")
    if not isinstance(samples, list) or not _positive_ints(samples):
        state.add(C.RSS_SAMPLES, (*base, "rss_samples_bytes"))
        return
    if not samples:
        state.peak_rss[position] = None
        state.ctx.figures[state.pointer(*base, "peak_rss_bytes")] = None
        if peak is not None:
            state.add(C.RSS_SAMPLES, (*base, "peak_rss_bytes"), "A peak RSS without RSS samples.")
        return
    recomputed = max(samples)
    state.peak_rss[position] = recomputed
    state.ctx.figures[state.pointer(*base, "peak_rss_bytes")] = recomputed
    state.record((*base, "peak_rss_bytes"), "performance.peak_rss_bytes", peak, recomputed,
                 _int(peak) and peak == recomputed)
    if len(samples) != count:
        state.add(C.RSS_SAMPLES, (*base, "rss_samples_bytes"), "{n} RSS samples for {m} timing samples.",
                  n=len(samples), m=count)
    if not _int(peak) or peak != recomputed:
        state.add(C.RSS_SAMPLES, (*base, "peak_rss_bytes"), "peak_rss_bytes is not the maximum RSS sample.")
    if workload.get("process_model") == "reused_process" and len(samples) == count:
        for start, end in _process_spans(state, workload.get("id"), count):
            if any(map(operator.gt, samples[start:end - 1], samples[start + 1:end])):
                state.add(C.RSS_DECREASING, (*base, "rss_samples_bytes"),
                          "RSS falls within samples {start} to {end}, which one worker process took.",
                          start=start, end=end - 1)
                break


def _process_spans(state: PerfState, workload_id: Any, count: int) -> list[tuple[int, int]]:
    """The [start, end) sample ranges of a reused-process workload that one worker process took, where the bundle
    states them: each block of a workload compared in blocks (a brand-new worker session per block, block b the
    contiguous samples [b*k, (b+1)*k) for k = count / block_count, 20-performance.md 4.2). None for a workload in
    no comparison (its process layout is the profile's sample policy, which the bundle does not pin down) or whose
    count does not split into the comparison's blocks (the comparison checks report that)."""
    blocks = 0
    for comparison in state.items("comparisons"):
        if isinstance(comparison, dict) and workload_id in (comparison.get("candidate_workload_id"),
                                                            comparison.get("baseline_workload_id")):
            value = comparison.get("block_count")
            blocks = value if type(value) is int and value > 0 else 0
            break
    if blocks == 0 or count % blocks:
        return []
    size = count // blocks
    return [(index * size, (index + 1) * size) for index in range(blocks)]


def _check_phase_rules(state: PerfState, position: int, workload: dict[str, Any]) -> None:
    base = ("workloads", position)
    phase = workload.get("phase")
    unit = workload.get("sample_unit")
    model = PHASE_PROCESS_MODEL.get(phase)  # type: ignore[arg-type]
    if model is None:
        state.add(C.PHASE_CONTRACT, (*base, "phase"), "Unknown phase.")
        return
    if workload.get("process_model") != model:
        state.add(C.PHASE_CONTRACT, (*base, "process_model"), "Phase {phase} requires {model}.",
                  phase=label(phase), model=label(model))
    if unit not in PHASE_UNITS[phase]:
        state.add(C.PHASE_CONTRACT, (*base, "sample_unit"), "Sample unit not allowed for phase {phase}.",
                  phase=label(phase))
    if phase in SETUP_PHASES and (workload.get("input_id") is not None or workload.get("input_sha256") is not None):
        state.add(C.PHASE_CONTRACT, (*base, "input_id"), "Setup phases cannot borrow an input denominator.")
    if phase not in SETUP_PHASES and workload.get("input_id") is None:
        state.add(C.PHASE_CONTRACT, (*base, "input_id"), "Scan-bearing phases must bind an input.")
    warmups = workload.get("warmups")
    if not _int(warmups) or (model == "fresh_process_per_sample" and warmups != 0) or (
            model == "reused_process" and warmups != FROZEN_WARMUPS):
        state.add(C.PHASE_CONTRACT, (*base, "warmups"), "Warmups do not fit the process model (0 for a fresh "
                  "process, {n} for a reused one).", n=FROZEN_WARMUPS)
    _check_frozen_cell(state, position, workload)
    concurrency = workload.get("concurrency")
    if not _int(concurrency) or not 1 <= concurrency <= 1024:
        state.add(C.PHASE_CONTRACT, (*base, "concurrency"))
    if workload.get("median_method") != "standard_even_average":
        state.add(C.PHASE_CONTRACT, (*base, "median_method"))
    if workload.get("percentile_method") != "nearest_rank":
        state.add(C.PHASE_CONTRACT, (*base, "percentile_method"))
    samples = workload.get("samples_seconds")
    work = workload.get("work_per_sample")
    if unit == "document" and isinstance(samples, list) and _int(work) and work >= 1:
        found = state.lookup("inputs", workload.get("input_id"))
        documents = found[1].get("documents") if found else None
        covered = len(samples) * work
        if not _int(documents) or documents < 1 or covered < documents or covered % documents:
            state.add(C.PHASE_CONTRACT, (*base, "samples_seconds"), "Document samples do not cover whole passes "
                      "over the input.")


def _check_frozen_cell(state: PerfState, position: int, workload: dict[str, Any]) -> None:
    """The workload is a cell of the frozen matrix (by id) with that cell's phase, unit and kind of bank."""
    base = ("workloads", position)
    cell = frozen_cell(workload.get("id"))
    if cell is None:
        state.add(C.PHASE_CONTRACT, (*base, "id"), "Not a cell of the frozen performance matrix.")
        return
    phase, unit, evaluated = cell
    if workload.get("phase") != phase or workload.get("sample_unit") != unit:
        state.add(C.PHASE_CONTRACT, (*base, "phase"), "The cell's phase or sample unit is not the frozen matrix's.")
    if workload.get("concurrency") != frozen_concurrency(workload["id"]):
        state.add(C.PHASE_CONTRACT, (*base, "concurrency"), "The cell's concurrency is not the frozen matrix's.")
    found = state.lookup("banks", workload.get("bank_id"))
    kind = found[1].get("kind") if found else None
    if kind is not None and (kind == "evaluated_bank") is not evaluated:
        state.add(C.PHASE_CONTRACT, (*base, "bank_id"), "The cell runs on the wrong kind of bank.")
    harness = state.lookup("harnesses", workload.get("harness_id"))
    if harness is not None and harness[1].get("phase") != workload.get("phase"):
        state.add(C.PHASE_CONTRACT, (*base, "harness_id"), "The cell's harness measures another phase.")


def required_samples(workload: dict[str, Any]) -> int:
    """Samples a decision cell needs: 20 setup, 1,000 direct scans, 100 otherwise."""
    phase = workload.get("phase")
    if phase in SETUP_PHASES:
        return 20
    if phase == "direct_bank_scan":
        return 1000
    return 100


def check_decision_support(state: PerfState, position: int, workload: dict[str, Any]) -> None:
    """Decision cells: no baseline, required sample count, work 1, >= 3 warmups when reused, full RSS; gates only
    on evaluated-bank decision direct scans of one work unit."""
    base = ("workloads", position)
    decision = workload.get("decision_grade") is True
    if workload.get("promotion_gate") is True:
        bank = state.lookup("banks", workload.get("bank_id"))
        evaluated = bank is not None and bank[1].get("kind") == "evaluated_bank"
        if not decision or not evaluated or workload.get("phase") != "direct_bank_scan" or \
                workload.get("work_per_sample") != 1:
            state.add(C.SAMPLE_SUPPORT, (*base, "promotion_gate"), "A promotion gate on a cell that cannot carry "
                      "one.")
    if not decision:
        return
    samples = workload.get("samples_seconds")
    count = len(samples) if isinstance(samples, list) else 0
    needed = required_samples(workload)
    if workload.get("baseline_id") is not None:
        state.add(C.SAMPLE_SUPPORT, (*base, "baseline_id"), "A decision cell cannot be a baseline measurement.")
    if count < needed:
        state.add(C.SAMPLE_SUPPORT, (*base, "samples_seconds"), "{n} samples; a decision cell of this phase needs "
                  "{m}.", n=count, m=needed)
    if workload.get("work_per_sample") != 1:
        state.add(C.SAMPLE_SUPPORT, (*base, "work_per_sample"))
    if workload.get("process_model") == "reused_process" and not (
            _int(workload.get("warmups")) and workload["warmups"] >= 3):
        state.add(C.SAMPLE_SUPPORT, (*base, "warmups"), "A reused-process decision cell needs at least 3 warmups.")
    if state.peak_rss.get(position) is None:
        state.add(C.SAMPLE_SUPPORT, (*base, "peak_rss_bytes"), "A decision cell needs RSS samples.")
        state.failures.add("rss_support")
