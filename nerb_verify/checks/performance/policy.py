"""Plan and policy checks, always run (spec 00 decision 3: NERB skips them for non-promoted evidence; we do not).

* the decision matrix: 19 decision cells, every lifecycle phase on the evaluated bank, one document and one
  whole-input headline on the same real input, exactly one within-tolerance same-path comparison with the required
  metric per decision cell (stability coverage);
* controlled sweeps: 1k/10k/25k/100k scale banks on one input shape and one generator family; density and size
  sweeps on a fixed bank; serial and concurrent cells on one bank and input;
* capacity: decision concurrency <= CPU count, every measured RSS <= machine memory;
* harness records: every decision-grade cell's harness command records success (exit 0, within its timeout);
* absolute practical bounds for decision direct scans (document p99 <= 50 ms; whole-input docs/s >= 100,
  MiB/s >= 1, p99 <= min(documents/100, MiB/1) s; peak RSS <= 8 GiB), compared exactly on recomputed values;
* the value-model promotion contract (roles, bound cells, finite or already-better result).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nerb_verify.canonical import python_canonical_sha256
from nerb_verify.checks.raw._access import dig
from nerb_verify.context import EVIDENCE, PERFORMANCE_REPORT
from nerb_verify.pointers import join
from nerb_verify.checks.performance import codes as C
from nerb_verify.checks.performance.same_path import required_metric
from nerb_verify.checks.performance.state import PerfState, label
from nerb_verify.checks.performance.statistics import MIB

LIFECYCLE_PHASES = ("source_profile", "source_build", "cold_compile", "helper_cache_miss", "helper_cache_hit",
                    "direct_bank_scan", "end_to_end")
DECISION_CELL_COUNT = 19
SCALE_PATTERNS = (1000, 10000, 25000, 100000)
DENSITIES = ("negative", "sparse", "normal", "dense")
SIZES = ("small", "medium", "large", "huge")
MAX_DOCUMENT_P99 = Fraction(1, 20)
MIN_DOCS_PER_SECOND = 100
MIN_MIB_PER_SECOND = 1
MAX_PEAK_RSS = 8 * 1024**3
COMPOSITION_TOLERANCE = Fraction(1, 10)
# The frozen value model (spec 20 section 9): what it is about and in which units.
# The unit range is part of the frozen plan too (the charter: "the minimum is one"; the value-plan hash commits the
# range): widening it can turn "no break-even within range" into a finite break-even.
VALUE_MODEL_FRAME = {"id": "compile_once_scan_many_breakeven", "parameter_name": "whole_input_scan_requests",
                     "parameter_unit": "request", "value_unit": "seconds", "minimum_units": 1,
                     "maximum_units": 1_000_000_000}
VALUE_MODEL_ROLES = {
    "baseline_fixed_build", "baseline_fixed_source_curation", "baseline_fixed_source_profiling",
    "baseline_per_request_uncached", "candidate_fixed_build", "candidate_fixed_cold_compile",
    "candidate_fixed_source_curation", "candidate_fixed_source_profiling", "candidate_per_request_direct_reuse",
}


def decision_cells(state: PerfState) -> list[tuple[int, dict[str, Any]]]:
    """(position, workload) of every decision-grade workload."""
    return [(i, w) for i, w in enumerate(state.items("workloads")) if w.get("decision_grade") is True]


def _bank(state: PerfState, workload: dict[str, Any]) -> dict[str, Any] | None:
    found = state.lookup("banks", workload.get("bank_id"))
    return found[1] if found else None


def _input(state: PerfState, workload: dict[str, Any]) -> dict[str, Any] | None:
    found = state.lookup("inputs", workload.get("input_id"))
    return found[1] if found else None


def _sample_shape(workload: dict[str, Any]) -> tuple[Any, ...]:
    samples = workload.get("samples_seconds")
    return (workload.get("harness_id"), workload.get("harness_sha256"), workload.get("sample_unit"),
            workload.get("work_per_sample"), workload.get("process_model"), workload.get("warmups"),
            len(samples) if isinstance(samples, list) else None)


def _input_shape(item: dict[str, Any]) -> str:
    keys = ("documents", "bytes", "records", "document_length_distribution", "hit_distribution")
    artifact = item.get("artifact") if isinstance(item.get("artifact"), dict) else {}
    ref = item.get("inventory_ref") if isinstance(item.get("inventory_ref"), dict) else {}
    shape = {k: item.get(k) for k in keys}
    shape.update(artifact_sha256=artifact.get("sha256"), artifact_bytes=artifact.get("bytes"),
                 inventory_sha256=ref.get("sha256"), inventory_bytes=ref.get("bytes"))
    try:
        return python_canonical_sha256(shape)
    except (TypeError, ValueError):
        return "invalid"


def _generator_family(generator: Any) -> tuple[Any, ...] | None:
    if not isinstance(generator, dict):
        return None
    return tuple(generator.get(k) for k in ("id", "version", "source_sha256", "spec_sha256"))


def check_matrix(state: PerfState) -> None:
    """Decision cell count, lifecycle phases, headlines and stability coverage."""
    cells = decision_cells(state)
    if len(cells) != DECISION_CELL_COUNT:
        state.failures.add("decision_cell_count")
        state.add(C.DECISION_MATRIX, ("workloads",), "{n} decision cells; the frozen matrix has 19.", n=len(cells))
    for phase in LIFECYCLE_PHASES:
        if not any(w.get("phase") == phase and w.get("baseline_id") is None and
                   (_bank(state, w) or {}).get("kind") == "evaluated_bank" for _i, w in cells):
            state.add(C.DECISION_MATRIX, ("workloads",), "No evaluated-bank decision cell for phase {phase}.",
                      phase=label(phase))
    headlines = {"document": [], "whole_input": []}  # type: dict[str, list[tuple[int, dict[str, Any]]]]
    for position, workload in enumerate(state.items("workloads")):
        if workload.get("promotion_gate") is True and workload.get("sample_unit") in headlines:
            headlines[workload["sample_unit"]].append((position, workload))
    inputs = set()
    for unit, found in headlines.items():
        if len(found) != 1:
            state.add(C.DECISION_MATRIX, ("workloads",), "Expected exactly one {unit} headline cell, found {n}.",
                      unit=label(unit), n=len(found))
            continue
        position, workload = found[0]
        item = _input(state, workload)
        samples = workload.get("samples_seconds")
        if (item is None or item.get("kind") != "real_input" or workload.get("decision_grade") is not True
                or not isinstance(samples, list) or len(samples) < 1000
                or state.peak_rss.get(position) is None):
            state.add(C.DECISION_MATRIX, ("workloads", position), "The {unit} headline is not a 1,000-sample "
                      "decision direct scan of a real input with RSS.", unit=label(unit))
        inputs.add(workload.get("input_id"))
    if len(inputs) > 1:
        state.add(C.DECISION_MATRIX, ("workloads",), "The two headlines measure different inputs.")
    _check_stability_coverage(state, cells)


def _check_stability_coverage(state: PerfState, cells: list[tuple[int, dict[str, Any]]]) -> None:
    comparisons = state.items("comparisons")
    for position, workload in cells:
        metric = required_metric(workload)
        matching = [(i, c) for i, c in enumerate(comparisons)
                    if c.get("comparison_kind") == "same_path_stability"
                    and c.get("candidate_workload_id") == workload.get("id")]
        if len(matching) != 1 or matching[0][1].get("metric") != metric:
            state.add(C.DECISION_MATRIX, ("workloads", position), "The decision cell needs exactly one same-path "
                      "comparison on {metric}.", metric=label(metric))
            continue
        index, _comparison = matching[0]
        if state.same_path_results.get(index) != "within_tolerance":
            state.add(C.DECISION_MATRIX, ("comparisons", index), "The decision cell's stability comparison was "
                      "not recomputed as within tolerance.")
    # The comparison-support proxy needs its own within-tolerance median control as well.
    for index, comparison in enumerate(comparisons):
        if comparison.get("comparison_kind") == "cross_path_value":
            found = state.lookup("workloads", comparison.get("candidate_workload_id"))
            if found and found[1].get("decision_grade") is not True:
                controls = [i for i, c in enumerate(comparisons) if c.get("comparison_kind") == "same_path_stability"
                            and c.get("candidate_workload_id") == found[1].get("id")]
                if len(controls) != 1 or state.same_path_results.get(controls[0]) != "within_tolerance":
                    state.add(C.DECISION_MATRIX, ("comparisons", index), "The cross-path proxy lacks a "
                              "within-tolerance same-path control.")


def _direct_decision(state: PerfState) -> list[tuple[int, dict[str, Any]]]:
    return [(i, w) for i, w in decision_cells(state) if w.get("phase") == "direct_bank_scan"
            and w.get("sample_unit") == "whole_input"]


def composition_shares(bank: dict[str, Any]) -> dict[str, Fraction] | None:
    """Exact composition proportions compared between scale banks and the evaluated bank: alias share of names,
    regex share of patterns, names per pattern, entities per pattern, and each class's share of patterns."""
    try:
        rows = bank["composition"]["taxonomy"]
        names, patterns = bank["active_names"], bank["active_patterns"]
        shares = {
            "alias_share": Fraction(bank["active_aliases"], names) if names else Fraction(0),
            "regex_share": Fraction(sum(r["regex_patterns"] for r in rows), patterns),
            "names_per_pattern": Fraction(names, patterns),
            "entities_per_pattern": Fraction(bank["active_entities"], patterns),
        }
        for row in rows:
            shares["class:" + str(row["entity_class"])] = Fraction(row["literal_patterns"] + row["regex_patterns"],
                                                                  patterns)
        return shares
    except (KeyError, TypeError, ZeroDivisionError):
        return None


def check_sweeps(state: PerfState) -> None:
    """Scale, density, size and concurrency sweeps are present and controlled."""
    direct = _direct_decision(state)
    scale_cells: dict[int, tuple[int, dict[str, Any]]] = {}
    for position, workload in direct:
        bank = _bank(state, workload)
        item = _input(state, workload)
        if bank is None or item is None or bank.get("kind") != "synthetic_scale":
            continue
        if item.get("kind") == "synthetic_input" and item.get("hit_density") == "negative" and \
                item.get("size_cohort") == "medium" and workload.get("concurrency") == 1:
            scale_cells.setdefault(bank.get("active_patterns"), (position, workload))  # type: ignore[arg-type]
    missing = [p for p in SCALE_PATTERNS if p not in scale_cells]
    for patterns in missing:
        state.add(C.SWEEP_UNCONTROLLED, ("workloads",), "No controlled scale cell at {n} active patterns.",
                  n=patterns)
    present = [scale_cells[p] for p in SCALE_PATTERNS if p in scale_cells]
    shapes = {_input_shape(_input(state, w) or {}) for _i, w in present}
    samples = {_sample_shape(w) for _i, w in present}
    families = {_generator_family((_bank(state, w) or {}).get("generator")) for _i, w in present}
    if len(shapes) > 1 or len(samples) > 1 or len(families) > 1 or None in families:
        state.add(C.SWEEP_UNCONTROLLED, ("workloads",), "The scale cells differ in input shape, sample shape or "
                  "generator family.")
    evaluated = [b for b in state.items("banks") if b.get("kind") == "evaluated_bank"]
    reference = composition_shares(evaluated[0]) if len(evaluated) == 1 else None
    for _position, workload in present:
        bank = _bank(state, workload) or {}
        shares = composition_shares(bank)
        if reference is None or shares is None or set(shares) != set(reference) or any(
                abs(shares[key] - reference[key]) > COMPOSITION_TOLERANCE for key in reference):
            position = state.items("banks").index(bank) if bank in state.items("banks") else 0
            state.add(C.SWEEP_UNCONTROLLED, ("banks", position, "composition"), "The scale bank's composition "
                      "does not track the evaluated bank within 0.10.")
    _check_cover(state, direct, "hit_density", DENSITIES,
                 ("bank_id", "size_cohort", "documents", "bytes", "document_length_distribution"))
    _check_cover(state, direct, "size_cohort", SIZES,
                 ("bank_id", "hit_density", "documents", "records", "hit_distribution"))
    serial = {(w.get("bank_id"), w.get("input_id"), _sample_shape(w)): w.get("concurrency") for _i, w in direct
              if w.get("concurrency") == 1}
    concurrent = [(w.get("bank_id"), w.get("input_id"), _sample_shape(w)) for _i, w in direct
                  if type(w.get("concurrency")) is int and w["concurrency"] > 1]
    if not any(key in serial for key in concurrent):
        state.add(C.SWEEP_UNCONTROLLED, ("workloads",), "No concurrent cell shares bank, input and sample shape "
                  "with a serial cell.")


def _check_cover(state: PerfState, direct: list[tuple[int, dict[str, Any]]], axis: str, values: tuple[str, ...],
                 fixed: tuple[str, ...]) -> None:
    groups: dict[tuple[Any, ...], set[Any]] = {}
    for _position, workload in direct:
        item = _input(state, workload)
        if item is None or workload.get("concurrency") != 1:
            continue
        if item.get("kind") != "synthetic_input":
            continue
        key_parts: list[Any] = [workload.get("bank_id"), _sample_shape(workload),
                                _generator_family(item.get("generator"))]
        for name in fixed[1:]:
            key_parts.append(repr(item.get(name)))
        groups.setdefault(tuple(key_parts), set()).add(item.get(axis))
    if not any(set(values) <= covered for covered in groups.values()):
        state.add(C.SWEEP_UNCONTROLLED, ("workloads",), "No controlled {axis} sweep covers all of its values.",
                  axis=label(axis))


def _number(value: Any) -> bool:
    return type(value) in (int, float)


def check_harness_commands(state: PerfState) -> None:
    """Every harness measuring a decision-grade cell names a command that records success: exit status 0 and, with
    a timeout, an elapsed time within it (an unknown command id is performance.unknown_reference); and a command
    that names its profile (``--profile X``) ran the profile the performance report states."""
    evidence = state.ctx.evidence if isinstance(state.ctx.evidence, dict) else {}
    commands = evidence.get("commands")
    by_id = {c.get("id"): (i, c) for i, c in enumerate(commands) if isinstance(c, dict)} \
        if isinstance(commands, list) else {}
    decision_harnesses = {w.get("harness_id") for _i, w in decision_cells(state)}
    reported: set[int] = set()
    profiled: set[int] = set()
    stated = dig(state.ctx.artifact(PERFORMANCE_REPORT), "profile")
    for position, harness in enumerate(state.items("harnesses")):
        if harness.get("id") not in decision_harnesses or harness.get("command_id") not in by_id:
            continue
        index, command = by_id[harness["command_id"]]
        elapsed, timeout = command.get("elapsed_seconds"), command.get("timeout_seconds")
        timed_out = _number(elapsed) and _number(timeout) and elapsed > timeout
        if (command.get("exit_status") != 0 or timed_out) and index not in reported:
            reported.add(index)
            state.ctx.collector.add(C.HARNESS_COMMAND_FAILED, EVIDENCE, join(["commands", index]),
                                    "The command of a decision-grade harness records {what}.",
                                    what=label("a timeout" if timed_out else "a non-zero exit status"))
        profile = command_profile(command.get("argv"))
        if profile is not None and isinstance(stated, str) and profile != stated and index not in profiled:
            profiled.add(index)
            state.ctx.collector.add(C.COMMAND_PROFILE, EVIDENCE, join(["commands", index, "argv"]),
                                    "The command of a decision-grade harness ran another profile than the "
                                    "performance report states.")


def command_profile(argv: Any) -> str | None:
    """The value of a ``--profile`` option in a recorded command line (``--profile X`` or ``--profile=X``), or
    None when it has none (or the argv is not a list of strings)."""
    if not isinstance(argv, list) or not all(isinstance(part, str) for part in argv):
        return None
    for index, part in enumerate(argv):
        if part == "--profile" and index + 1 < len(argv):
            return argv[index + 1]
        if part.startswith("--profile="):
            return part.partition("=")[2]
    return None


def check_capacity(state: PerfState, environment: Any) -> None:
    """Concurrency <= cpu_count for decision cells; every peak RSS <= memory_bytes (fails closed without them)."""
    env = environment if isinstance(environment, dict) else {}
    cpus, memory = env.get("cpu_count"), env.get("memory_bytes")
    if type(cpus) is not int or type(memory) is not int or cpus < 1 or memory < 1:
        state.add(C.CPU_CAPACITY, ("workloads",), "The environment's CPU count or memory is missing.")
        state.failures.update({"execution_cpu_capacity", "execution_memory_capacity"})
        return
    for position, workload in enumerate(state.items("workloads")):
        concurrency = workload.get("concurrency")
        if workload.get("decision_grade") is True and type(concurrency) is int and concurrency > cpus:
            state.failures.add("execution_cpu_capacity")
            state.add(C.CPU_CAPACITY, ("workloads", position, "concurrency"), "Concurrency {n} exceeds {m} CPUs.",
                      n=concurrency, m=cpus)
        peak = state.peak_rss.get(position)
        if peak is not None and peak > memory:
            state.failures.add("execution_memory_capacity")
            state.add(C.MEMORY_CAPACITY, ("workloads", position, "peak_rss_bytes"), "Peak RSS exceeds the recorded "
                      "machine memory by {n} bytes.", n=peak - memory)


def check_absolute(state: PerfState) -> None:
    """Absolute practical bounds on decision direct scans without baseline (exact comparisons)."""
    for position, workload in decision_cells(state):
        wid = str(workload.get("id"))
        peak = state.peak_rss.get(position)
        if peak is not None and peak > MAX_PEAK_RSS:
            state.failures.add(f"{wid}:rss")
            state.add(C.ABSOLUTE_POLICY, ("workloads", position, "peak_rss_bytes"), "Peak RSS above 8 GiB.")
        if workload.get("phase") != "direct_bank_scan" or workload.get("baseline_id") is not None:
            continue
        stats = state.stats.get(position)
        if stats is None:
            state.failures.add(f"{wid}:latency")
            continue
        exact = stats.exact
        p99 = exact.get("p99_seconds")
        if workload.get("sample_unit") == "document":
            if not isinstance(p99, Fraction) or p99 > MAX_DOCUMENT_P99:
                state.failures.add(f"{wid}:latency")
                state.add(C.ABSOLUTE_POLICY, ("workloads", position, "stats", "p99_seconds"),
                          "Document p99 is not within 50 ms.")
            continue
        item = _input(state, workload)
        docs, mib = exact.get("documents_per_second"), exact.get("mib_per_second")
        bound = None
        if item is not None and type(item.get("documents")) is int and type(item.get("bytes")) is int:
            bound = min(Fraction(item["documents"], MIN_DOCS_PER_SECOND),
                        Fraction(item["bytes"], MIB) / MIN_MIB_PER_SECOND)
        failed = (not isinstance(docs, Fraction) or docs < MIN_DOCS_PER_SECOND or not isinstance(mib, Fraction)
                  or mib < MIN_MIB_PER_SECOND or bound is None or not isinstance(p99, Fraction) or p99 > bound)
        if failed:
            state.failures.add(f"{wid}:throughput")
            state.add(C.ABSOLUTE_POLICY, ("workloads", position, "stats"), "Whole-input throughput is below "
                      "100 documents/s or 1 MiB/s, or p99 exceeds the per-input floor.")


def check_value_model(state: PerfState) -> None:
    """Promotion contract of the break-even model (roles, bindings, acceptable result)."""
    models = state.items("breakeven_models")
    accepted = [i for i, m in enumerate(models) if state.breakeven.get(i, {}).get("result") in
                ("candidate_already_better", "finite_breakeven")]
    if len(models) != 1 or len(accepted) != 1:
        state.failures.add("finite_breakeven")
        state.add(C.VALUE_MODEL_POLICY, ("breakeven_models",), "Exactly one value model with a finite or "
                  "already-better result is required.")
        return
    model = models[0]
    for key, value in VALUE_MODEL_FRAME.items():
        if model.get(key) != value:
            state.add(C.VALUE_MODEL_POLICY, ("breakeven_models", 0, key), "The model's {field} is not the frozen "
                      "compile-once/scan-many model's.", field=label(key))
    components = {c.get("id"): c for c in model.get("components") or [] if isinstance(c, dict)}
    if set(components) != VALUE_MODEL_ROLES:
        state.add(C.VALUE_MODEL_POLICY, ("breakeven_models", 0, "components"), "The model does not have exactly "
                  "the nine frozen roles.")
        return
    for role in ("fixed_build", "fixed_source_curation", "fixed_source_profiling"):
        a, b = components[f"candidate_{role}"], components[f"baseline_{role}"]
        if any(a.get(k) != b.get(k) for k in ("category", "source", "workload_id", "assumption_sha256", "value")):
            state.add(C.VALUE_MODEL_POLICY, ("breakeven_models", 0, "components"), "Shared costs differ between "
                      "the two sides.")
    expected = {"candidate_fixed_source_profiling": "source_profile", "candidate_fixed_build": "source_build",
                "candidate_fixed_cold_compile": "cold_compile", "candidate_per_request_direct_reuse":
                "direct_bank_scan", "baseline_per_request_uncached": "helper_cache_miss"}
    for role, phase in expected.items():
        found = state.lookup("workloads", components[role].get("workload_id"))
        workload = found[1] if found else {}
        bank = _bank(state, workload) or {}
        if workload.get("phase") != phase or workload.get("decision_grade") is not True or \
                bank.get("kind") != "evaluated_bank":
            state.add(C.VALUE_MODEL_POLICY, ("breakeven_models", 0, "components"), "Role {role} is not bound to an "
                      "evaluated-bank decision cell of its phase.", role=label(role))
    direct = state.lookup("workloads", components["candidate_per_request_direct_reuse"].get("workload_id"))
    if direct is None or direct[1].get("promotion_gate") is not True or direct[1].get("sample_unit") != "whole_input":
        state.add(C.VALUE_MODEL_POLICY, ("breakeven_models", 0, "components"), "D is not the throughput headline.")
