"""The additive compile-once/scan-many break-even model, recomputed exactly.

Component values come from recomputed workload medians (``workload_median_seconds``) or median / work per request
(``workload_seconds_per_request``), or a declared assumption carrying the hash of its scenario. Totals are sums per
(side, application). Result: if cf + min*cu <= bf + min*bu the candidate is already better at the minimum; else if
bu <= cu there is no break-even; else n = max(min, ceil((cf - bf) / (bu - cu))), finite iff n <= max. With shared
fixed costs K on both sides, cf - bf = C exactly, so the smallest n with C + nD <= nM is found without float drift.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nerb_verify.checks.performance import codes as C
from nerb_verify.checks.performance.floatpolicy import double_matches, is_number
from nerb_verify.checks.performance.hashes import declared_assumption_sha256
from nerb_verify.checks.performance.state import PerfState, label

MEDIAN_CATEGORIES = {"source_profiling": "source_profile", "bank_build": "source_build", "cold_compile": "cold_compile"}
PER_UNIT_SOURCES = {"workload_seconds_per_request": "request", "workload_seconds_per_scan": "scan",
                    "workload_seconds_per_document": "document", "workload_seconds_per_mib": "mib",
                    "workload_seconds_per_record": "record"}
TOTALS = (("candidate", "fixed", "candidate_fixed_value"), ("baseline", "fixed", "baseline_fixed_value"),
          ("candidate", "per_unit", "candidate_value_per_unit"), ("baseline", "per_unit", "baseline_value_per_unit"))


def breakeven_result(cf: Fraction, bf: Fraction, cu: Fraction, bu: Fraction, minimum: int,
                     maximum: int) -> tuple[str, int | None]:
    """(result, units) for exact totals; the rule from the module docstring."""
    if cf + minimum * cu <= bf + minimum * bu:
        return "candidate_already_better", minimum
    if bu - cu <= 0:
        return "no_breakeven_within_range", None
    quotient = (cf - bf) / (bu - cu)
    units = max(minimum, -((-quotient.numerator) // quotient.denominator))
    if units <= maximum:
        return "finite_breakeven", units
    return "no_breakeven_within_range", None


def _component_value(state: PerfState, model_pos: int, index: int,
                     component: dict[str, Any]) -> tuple[Fraction | None, float | None]:
    base = ("breakeven_models", model_pos, "components", index)
    source = component.get("source")
    category = component.get("category")
    if source == "declared_assumption":
        value = component.get("value")
        if component.get("workload_id") is not None or not is_number(value) or value <= 0 or \
                category in ("source_profiling", "bank_build", "cold_compile", "scan"):
            state.add(C.BREAKEVEN_COMPONENT, base, "A declared assumption is malformed or replaces a measured role.")
            return None, None
        if component.get("assumption_sha256") != declared_assumption_sha256(value):
            state.add(C.BREAKEVEN_COMPONENT, (*base, "assumption_sha256"))
        return Fraction(value), float(value)
    found = state.lookup("workloads", component.get("workload_id"))
    if found is None or component.get("assumption_sha256") is not None:
        state.add(C.BREAKEVEN_COMPONENT, (*base, "workload_id"))
        return None, None
    position, workload = found
    stats = state.stats.get(position)
    if stats is None:
        state.add(C.BREAKEVEN_COMPONENT, (*base, "workload_id"), "The component's workload has no usable samples.")
        return None, None
    median, f_median = stats.exact["median_seconds"], stats.float_step["median_seconds"]
    assert isinstance(median, Fraction)
    work = workload.get("work_per_sample")
    if source == "workload_median_seconds":
        if component.get("application") != "fixed" or MEDIAN_CATEGORIES.get(category) != workload.get("phase"):
            state.add(C.BREAKEVEN_COMPONENT, (*base, "source"), "A median component must be a fixed setup cost of "
                      "the matching phase.")
        return median, f_median  # type: ignore[return-value]
    if source in PER_UNIT_SOURCES:
        side = component.get("side")
        phase_ok = (workload.get("phase") == "direct_bank_scan") if side == "candidate" else (
            workload.get("phase") in ("helper_cache_miss", "end_to_end"))
        if component.get("application") != "per_unit" or category != "scan" or not phase_ok:
            state.add(C.BREAKEVEN_COMPONENT, (*base, "source"), "A per-unit component must be a scan cost on an "
                      "allowed phase.")
        if side == "candidate" and workload.get("baseline_id") is not None:
            state.add(C.BREAKEVEN_COMPONENT, (*base, "workload_id"), "Candidate components use baseline-free cells.")
        if source == "workload_seconds_per_request":
            if workload.get("sample_unit") != "whole_input" or type(work) is not int or work < 1:
                state.add(C.BREAKEVEN_COMPONENT, (*base, "source"), "Per-request costs need a whole-input cell.")
                return None, None
            return median / work, (f_median / work if isinstance(f_median, float) else None)
        if source == "workload_seconds_per_scan" and type(work) is int and work >= 1:
            return median / work, (f_median / work if isinstance(f_median, float) else None)
        if source == "workload_seconds_per_document":
            value = stats.exact.get("seconds_per_document")
            f_value = stats.float_step.get("seconds_per_document")
            if isinstance(value, Fraction):
                return value, f_value  # type: ignore[return-value]
        for rate_source, rate in (("workload_seconds_per_mib", "mib_per_second"),
                                  ("workload_seconds_per_record", "records_per_second")):
            value = stats.exact.get(rate)
            f_value = stats.float_step.get(rate)
            if source == rate_source and isinstance(value, Fraction) and value > 0:
                return 1 / value, (1 / f_value if isinstance(f_value, float) and f_value else None)
    state.add(C.BREAKEVEN_COMPONENT, (*base, "source"), "Unknown or unusable component source.")
    return None, None


def check_model(state: PerfState, position: int, model: dict[str, Any]) -> None:
    """Recompute component values, the four totals, the result and the break-even units of one model."""
    base = ("breakeven_models", position)
    components = model.get("components")
    if not isinstance(components, list) or not all(isinstance(c, dict) for c in components):
        state.add(C.SECTION_MALFORMED, (*base, "components"))
        return
    ids = [c.get("id") for c in components]
    if not all(isinstance(i, str) for i in ids) or len(set(ids)) != len(ids) or ids != sorted(ids):
        state.add(C.BREAKEVEN_COMPONENT, (*base, "components"), "Component ids are not unique and sorted.")
    sums: dict[tuple[Any, Any], Fraction] = {}
    f_sums: dict[tuple[Any, Any], float | None] = {}
    complete = True
    for index, component in enumerate(components):
        value, f_value = _component_value(state, position, index, component)
        if value is None:
            complete = False
            continue
        published = component.get("value")
        ok = double_matches(published, value, f_value, state.tracker)
        state.record((*base, "components", index, "value"), "performance.breakeven.component_value", published,
                     value, ok)
        if not ok:
            state.add(C.BREAKEVEN_COMPONENT, (*base, "components", index, "value"), "The component value is not its "
                      "source statistic.")
        key = (component.get("side"), component.get("application"))
        if key not in {(s, a) for s, a, _n in TOTALS}:
            state.add(C.BREAKEVEN_COMPONENT, (*base, "components", index), "Unknown side or application.")
            complete = False
            continue
        sums[key] = sums.get(key, Fraction(0)) + value
        previous = f_sums.get(key, 0.0)
        f_sums[key] = previous + f_value if previous is not None and f_value is not None else None
    if not complete:
        return
    totals: dict[str, Fraction] = {}
    for side, application, name in TOTALS:
        exact = sums.get((side, application), Fraction(0))
        totals[name] = exact
        published = model.get(name)
        ok = double_matches(published, exact, f_sums.get((side, application), 0.0), state.tracker)
        state.record((*base, name), f"performance.breakeven.{name}", published, exact, ok)
        if not ok:
            state.add(C.BREAKEVEN_MISMATCH, (*base, name), "{field} is not the sum of its components.",
                      field=label(name))
    minimum, maximum = model.get("minimum_units"), model.get("maximum_units")
    if type(minimum) is not int or type(maximum) is not int or not 1 <= minimum <= maximum:
        state.add(C.BREAKEVEN_MISMATCH, (*base, "minimum_units"), "The unit range is invalid.")
        return
    result, units = breakeven_result(totals["candidate_fixed_value"], totals["baseline_fixed_value"],
                                     totals["candidate_value_per_unit"], totals["baseline_value_per_unit"],
                                     minimum, maximum)
    state.breakeven[position] = {"result": result, "units": units, **totals}
    for key, value in (("result", result), ("breakeven_units", units)):
        published = model.get(key)
        ok = published == value and type(published) is type(value)
        state.record((*base, key), f"performance.breakeven.{key}", published, value, ok)
        if not ok:
            state.add(C.BREAKEVEN_MISMATCH, (*base, key), "{field} is not what the recomputed totals give.",
                      field=label(key))
