"""The exact figure a producer's promotion gate compares, re-derived from the evidence's raw counts and samples.

A gate's ``passed`` must be the value the verifier recomputes (``gate.result``), and the verifier compares its own exact
figure, never the stored double: a recall of exactly 19/20 is stored as the double 0.95, whose binary value lies
below 19/20, so comparing the double would fail a ``gte 0.95`` gate the exact rate meets. The producer therefore
derives the same exact figures with the verifier's own pure functions:

* a quality metric from the slice's integer counts (:func:`quality_math.exact_metric`, None when its denominator is
  empty or the open-world rate is not supported by the labels);
* the conformance recall from ``correctly_mapped / approved_positive_cases``;
* a performance statistic from the workload's raw samples in integer nanoseconds (:func:`statistics.compute_stats`);
* peak RSS as the largest RSS sample.

Any other target compares its stored scalar. A figure that cannot be derived is None: the gate then fails (the
verifier calls it not evaluated), never passes.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nerb_verify.checks.performance.statistics import Denominators, compute_stats, samples_to_ns
from nerb_verify.checks.quality.quality_math import METRICS_BY_NAME, exact_metric, is_open_world_eligible
from nerb_verify.checks.raw import gate_eval
from nerb_verify.pointers import resolve

_CONFORMANCE_RECALL = "/catalog_conformance/recall"


def _index(part: str) -> int | None:
    if not part.isascii() or not part.isdigit() or (len(part) > 1 and part[0] == "0"):
        return None
    return int(part)


def _entry(evidence: dict[str, Any], section: str, key: str, part: str) -> dict[str, Any] | None:
    container = evidence.get(section)
    items = container.get(key) if isinstance(container, dict) else None
    position = _index(part)
    if not isinstance(items, list) or position is None or position >= len(items):
        return None
    item = items[position]
    return item if isinstance(item, dict) else None


def _quality_metric(evidence: dict[str, Any], part: str, metric: str) -> Fraction | None:
    item = _entry(evidence, "quality", "slices", part)
    definition = METRICS_BY_NAME.get(metric)
    if item is None or definition is None:
        return None
    counts = {name: item.get(name) for name in definition.fields}
    if any(type(value) is not int or value < 0 for value in counts.values()):
        return None
    eligible = is_open_world_eligible(item.get("label_strength"), item.get("annotation_completeness"))
    return exact_metric(definition, counts, eligible)  # type: ignore[arg-type]


def _conformance_recall(evidence: dict[str, Any]) -> Fraction | None:
    section = evidence.get("catalog_conformance")
    if not isinstance(section, dict):
        return None
    mapped, approved = section.get("correctly_mapped"), section.get("approved_positive_cases")
    if type(mapped) is not int or type(approved) is not int or approved <= 0 or mapped < 0:
        return None
    return Fraction(mapped, approved)


def _denominators(evidence: dict[str, Any], workload: dict[str, Any]) -> Denominators | None:
    unit, work = workload.get("sample_unit"), workload.get("work_per_sample")
    if type(work) is not int or work < 1:
        return None
    if unit != "whole_input":
        return Denominators(str(unit), None, None, None, work)
    performance = evidence.get("performance")
    inputs = performance.get("inputs") if isinstance(performance, dict) else None
    item = next((i for i in inputs or [] if isinstance(i, dict) and i.get("id") == workload.get("input_id")), None)
    if item is None:
        return None
    documents, size, records = item.get("documents"), item.get("bytes"), item.get("records")
    if not all(type(v) is int for v in (documents, size, records)) or documents < 1:
        return None
    per_sample = workload.get("records_per_sample")
    if per_sample is None:
        per_sample = records * work
    if type(per_sample) is not int or per_sample < 0:
        return None
    return Denominators(unit, documents * work, size * work, per_sample, work)


def _performance(evidence: dict[str, Any], part: str, field: str | None) -> Any:
    workload = _entry(evidence, "performance", "workloads", part)
    if workload is None:
        return None
    if field is None:
        rss = workload.get("rss_samples_bytes")
        if not isinstance(rss, list) or not rss or not all(type(v) is int and v > 0 for v in rss):
            return None
        return max(rss)
    ns, _bad = samples_to_ns(workload.get("samples_seconds"))
    den = _denominators(evidence, workload)
    if ns is None or not ns or den is None:
        return None
    return compute_stats(ns, workload.get("phase"), den).exact.get(field)


def exact_figure(evidence: dict[str, Any], target: str) -> tuple[bool, Any, Any]:
    """(found, stored, value): whether ``target`` resolves, its stored scalar, and the value the gate compares.

    ``value`` is the exact re-derived figure for the targets the verifier recomputes (module docstring; None when it
    cannot be derived) and the stored scalar otherwise.
    """
    found, stored = resolve(evidence, target)
    if not found or not gate_eval.uses_figure(target):
        return found, stored, stored
    parts = target.split("/")
    if target == _CONFORMANCE_RECALL:
        return found, stored, _conformance_recall(evidence)
    if parts[1] == "quality":
        return found, stored, _quality_metric(evidence, parts[3], parts[5])
    field = None if parts[4] == "peak_rss_bytes" else parts[5]
    return found, stored, _performance(evidence, parts[3], field)
