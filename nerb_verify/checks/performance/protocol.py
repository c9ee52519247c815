"""Exact protocol counts of a decision-profile run (spec 20 sections 1.3 and 3; charter "Performance And Scale").

The frozen decision sample policy fixes every count, so a minimum is not enough: a cell with more samples than the
protocol ran, or a whole-input request that is not one scan of the frozen input, is a different protocol wearing
the frozen one's name.

* every workload of the frozen matrix has **exactly** its frozen pooled sample count: 20 for the setup cells, 100
  for the four exact-value paths (direct cache-value proxy, helper hit, helper miss, end to end) and their controls
  and for the two exploratory cells, 1,000 otherwise; a stability comparison then splits them into exactly ten
  blocks of the frozen size (2, 10 or 100: ``performance.comparison_invalid`` checks count = 10 x block size);
* a sample is one work unit (``work_per_sample`` exactly 1), so one whole-input request is one scan of its input;
* the frozen request of the value model (its ``workload_seconds_per_request`` components) and the document-latency
  population are the frozen input: exactly 100 documents.

A decision cell with fewer samples than its phase needs is ``performance.sample_support`` (reported there, not
twice). A smoke report has its own exact counts (``performance.smoke_profile_shape``).
"""

from __future__ import annotations

from typing import Any

from nerb_verify.checks.performance import codes as C
from nerb_verify.checks.performance.state import PerfState
from nerb_verify.checks.performance.statistics import SETUP_PHASES
from nerb_verify.checks.performance.workloads import EXPLORATORY_CELLS, frozen_cell, required_samples

SMOKE = "smoke"
SETUP_SAMPLES = 20
EXACT_VALUE_SAMPLES = 100
DEFAULT_SAMPLES = 1000
# The four paths of the Williams cache-value blocks (spec 20 section 4.3); their controls share the count.
EXACT_VALUE_CELLS = frozenset({"real_direct_cache_value", "real_helper_cache_hit", "real_helper_cache_miss",
                               "real_end_to_end"})
FROZEN_INPUT_DOCUMENTS = 100
WORK_PER_SAMPLE = 1


def frozen_sample_count(workload: dict[str, Any]) -> int | None:
    """The decision profile's sample count for a frozen-matrix workload (None for a workload outside the matrix)."""
    workload_id = workload.get("id")
    if frozen_cell(workload_id) is None:
        return None
    assert isinstance(workload_id, str)
    if workload.get("phase") in SETUP_PHASES:
        return SETUP_SAMPLES
    if workload_id in EXPLORATORY_CELLS or workload_id.removeprefix("control_") in EXACT_VALUE_CELLS:
        return EXACT_VALUE_SAMPLES
    return DEFAULT_SAMPLES


def check_protocol_counts(state: PerfState, profile: Any) -> None:
    """Exact sample counts, one work unit per sample and the frozen input's documents (see module docstring)."""
    if profile == SMOKE:
        return
    for position, workload in enumerate(state.items("workloads")):
        expected = frozen_sample_count(workload)
        samples = workload.get("samples_seconds")
        if expected is not None and isinstance(samples, list) and len(samples) != expected:
            short = workload.get("decision_grade") is True and len(samples) < required_samples(workload)
            if not short:  # a decision cell below its minimum is performance.sample_support
                state.add(C.PROTOCOL_COUNT, ("workloads", position, "samples_seconds"), "{n} samples; the frozen "
                          "protocol runs exactly {m} for this cell.", n=len(samples), m=expected)
        if expected is not None and workload.get("work_per_sample") != WORK_PER_SAMPLE and \
                workload.get("decision_grade") is not True:  # decision cells: performance.sample_support
            state.add(C.PROTOCOL_COUNT, ("workloads", position, "work_per_sample"), "A sample of the frozen "
                      "protocol is one work unit.")
        if workload.get("sample_unit") == "document" and workload.get("decision_grade") is True:
            _frozen_input(state, workload, ("workloads", position, "input_id"))
    for model_pos, model in enumerate(state.items("breakeven_models")):
        components = model.get("components")
        for index, component in enumerate(components if isinstance(components, list) else []):
            if not isinstance(component, dict) or component.get("source") != "workload_seconds_per_request":
                continue
            found = state.lookup("workloads", component.get("workload_id"))
            if found is not None:
                _frozen_input(state, found[1], ("breakeven_models", model_pos, "components", index, "workload_id"))


def _frozen_input(state: PerfState, workload: dict[str, Any], parts: tuple[str | int, ...]) -> None:
    found = state.lookup("inputs", workload.get("input_id"))
    if found is None:
        return  # performance.unknown_reference
    if found[1].get("documents") != FROZEN_INPUT_DOCUMENTS:
        state.add(C.PROTOCOL_COUNT, parts, "The frozen input is {n} documents; this request or document population "
                  "is not it.", n=FROZEN_INPUT_DOCUMENTS)
