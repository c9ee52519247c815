"""Gather what the render shows from a verification result: only recomputed figures and the verifier's decisions."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, NamedTuple

from nerb_verify import context as C
from nerb_verify.frozen import Frozen
from nerb_verify.checks.raw._access import as_dict, as_int, as_list, dig, exact_fraction
from nerb_verify.context import VerifyContext

# Our own names for the entity classes NERB slices by (never the slice ids from the input).
CLASS_LABELS = {"person_contact": "All classes", "contact": "Contact", "person": "Person"}
GATE_LABELS = {
    "open_world_recall": "Open-world span recall",
    "catalog_coverage": "Share of labeled spans in the bank",
    "cataloged_recall": "Recall on spans the bank knows",
    "sensitive_character_recall": "Sensitive characters covered",
    "document_leak_rate": "Documents with a leaked span",
    "sensitive_character_leak_rate": "Sensitive characters leaked",
    "negative_document_false_alarm_rate": "False alarms on negative documents",
    "over_redaction_rate": "Over-redacted characters",
    "cataloged_false_negative": "Known spans missed",
    "cataloged_wrong_canonical": "Known spans mapped to the wrong entity",
    "documents_with_any_cataloged_miss": "Documents with a known-span miss",
}
SAFE_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._()+-]{0,63}")
HASH = re.compile(r"sha256:[0-9a-f]{64}")
COMMIT = re.compile(r"[0-9a-f]{40}")


class Ratio(Frozen):
    """A labelled count out of a total."""

    # An immutable slotted class (:class:`~nerb_verify.frozen.Frozen`), not a NamedTuple: a field named ``count``
    # would shadow ``tuple.count``.
    __slots__ = ("label", "count", "total")
    __match_args__ = ("label", "count", "total")

    label: str
    count: int
    total: int

    def __init__(self, label: str, count: int, total: int) -> None:
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "total", total)


class CoverageRow(NamedTuple):
    """One entity class split into exact matches, span misses, wrong mappings and spans outside the bank."""

    label: str
    gold: int
    exact: int
    span_miss: int
    wrong: int
    outside: int


class GateRow(NamedTuple):
    """One standalone-redaction gate, recomputed."""

    name: str
    label: str
    kind: str  # "metric" or "count"
    operator: str
    value: Fraction
    threshold: Fraction
    passed: bool


class ScaleRow(NamedTuple):
    """Direct-scan throughput at one bank size."""

    patterns: int
    docs_per_second: Fraction
    median_seconds: Fraction


class RenderModel:
    """Everything the summary and figures show."""

    def __init__(self, known_verdict: str = "NOT_EVALUATED", contract_rows: list[Ratio] | None = None,
                 wrong_mappings: int | None = None, natural_exact: Ratio | None = None,
                 coverage: list[CoverageRow] | None = None, eligible: bool | None = None,
                 gates: list[GateRow] | None = None, scale: list[ScaleRow] | None = None,
                 throughput: Fraction | None = None, throughput_median: Fraction | None = None,
                 throughput_documents: int | None = None, evaluated_patterns: int | None = None,
                 latency_median: Fraction | None = None, latency_p95: Fraction | None = None,
                 cold_compile: Fraction | None = None, performance_grade: str | None = None,
                 capacity_passed: bool | None = None, scope: list[Ratio] | None = None, bank_hash: str | None = None,
                 commit: str | None = None, machine: str | None = None) -> None:
        self.known_verdict: str = known_verdict
        self.contract_rows: list[Ratio] = [] if contract_rows is None else contract_rows
        self.wrong_mappings: int | None = wrong_mappings
        self.natural_exact: Ratio | None = natural_exact
        self.coverage: list[CoverageRow] = [] if coverage is None else coverage
        self.eligible: bool | None = eligible
        self.gates: list[GateRow] = [] if gates is None else gates
        self.scale: list[ScaleRow] = [] if scale is None else scale
        self.throughput: Fraction | None = throughput
        self.throughput_median: Fraction | None = throughput_median
        self.throughput_documents: int | None = throughput_documents
        self.evaluated_patterns: int | None = evaluated_patterns
        self.latency_median: Fraction | None = latency_median
        self.latency_p95: Fraction | None = latency_p95
        self.cold_compile: Fraction | None = cold_compile
        self.performance_grade: str | None = performance_grade
        self.capacity_passed: bool | None = capacity_passed
        self.scope: list[Ratio] = [] if scope is None else scope
        self.bank_hash: str | None = bank_hash
        self.commit: str | None = commit
        self.machine: str | None = machine


def _ratio(label: str, block: Any) -> Ratio | None:
    num, den = as_int(dig(block, "count")), as_int(dig(block, "of"))
    return Ratio(label, num, den) if num is not None and den is not None else None


def build_model(ctx: VerifyContext) -> RenderModel:
    """Collect the render model from a finished verification (figures, decisions, bound scope counts)."""
    model = RenderModel()
    decisions = ctx.collector.decisions
    known = as_dict(decisions.get("known_bank_contract")) or {}
    model.known_verdict = str(known.get("verdict") or "NOT_EVALUATED")
    for label, key in (("Active patterns with a positive case", "patterns_with_positive_cases"),
                       ("Approved cases found and mapped correctly", "approved_positives_mapped"),
                       ("Negative cases with no unexpected match", "negatives_without_unexpected_match")):
        row = _ratio(label, known.get(key))
        if row is not None:
            model.contract_rows.append(row)
    model.wrong_mappings = as_int(known.get("wrong_canonical_mappings"))
    standalone = as_dict(decisions.get("standalone_redaction")) or {}
    eligible = standalone.get("eligible")
    model.eligible = eligible if isinstance(eligible, bool) else None
    model.natural_exact = _ratio("Natural-text spans the bank knows, found exactly",
                                 dig(standalone, "headline", "cataloged_exact_recall"))
    for gate in as_list(standalone.get("gates")) or []:
        name = dig(gate, "gate")
        value, threshold = exact_fraction(dig(gate, "value")), exact_fraction(dig(gate, "threshold"))
        if name in GATE_LABELS and value is not None and threshold is not None and isinstance(gate.get("passed"), bool):
            kind = "count" if name in ("cataloged_false_negative", "cataloged_wrong_canonical",
                                       "documents_with_any_cataloged_miss") else "metric"
            model.gates.append(GateRow(name, GATE_LABELS[name], kind, str(gate.get("operator")), value, threshold,
                                       gate["passed"]))
    _coverage(ctx, model)
    _performance(ctx, model)
    capacity = dig(ctx.artifact(C.CAPACITY_DECISION), "report", "gates", "passed")
    model.capacity_passed = capacity if isinstance(capacity, bool) else None
    _scope_and_provenance(ctx, model)
    return model


def _coverage(ctx: VerifyContext, model: RenderModel) -> None:
    figures = ctx.figures
    for index, item in enumerate(as_list(dig(ctx.evidence, "quality", "slices")) or []):
        label = CLASS_LABELS.get(str(dig(item, "entity_class")), f"Slice {index + 1}")
        base = f"/quality/slices/{index}/"
        values = [figures.get(base + k) for k in ("gold_spans", "cataloged_true_positive", "cataloged_false_negative",
                                                   "cataloged_wrong_canonical", "cataloged_gold_spans")]
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            gold, exact, miss, wrong, cataloged = values
            model.coverage.append(CoverageRow(label, gold, exact, miss, wrong, gold - cataloged))


def _performance(ctx: VerifyContext, model: RenderModel) -> None:
    perf = as_dict(ctx.collector.decisions.get("performance")) or {}
    grade = perf.get("decision_grade")
    model.performance_grade = grade if grade in ("passed", "failed", "not_evaluated") else None
    for cell in as_list(perf.get("bank_sizes")) or []:
        patterns = as_int(dig(cell, "active_patterns"))
        rate, median = exact_fraction(dig(cell, "documents_per_second")), exact_fraction(dig(cell, "median_seconds"))
        if dig(cell, "bank_kind") == "synthetic_scale" and patterns is not None and rate is not None and median:
            model.scale.append(ScaleRow(patterns, rate, median))
    model.scale.sort(key=lambda row: row.patterns)
    headline = as_dict(perf.get("headline")) or {}
    throughput = as_dict(headline.get("whole_input_throughput")) or {}
    model.throughput = exact_fraction(throughput.get("documents_per_second"))
    model.throughput_median = exact_fraction(throughput.get("median_seconds"))
    model.evaluated_patterns = as_int(throughput.get("active_patterns"))
    latency = as_dict(headline.get("document_latency")) or {}
    model.latency_median = exact_fraction(latency.get("median_seconds"))
    model.latency_p95 = exact_fraction(latency.get("p95_seconds"))
    model.cold_compile = exact_fraction(headline.get("cold_compile_median_seconds"))
    pointer = throughput.get("pointer")
    evidence = ctx.evidence
    if isinstance(pointer, str) and pointer.rsplit("/", 1)[-1].isdigit():
        workload = dig(evidence, "performance", "workloads", int(pointer.rsplit("/", 1)[-1]))
        for item in as_list(dig(evidence, "performance", "inputs")) or []:
            if isinstance(item, dict) and item.get("id") == dig(workload, "input_id"):
                model.throughput_documents = as_int(item.get("documents"))


def _scope_and_provenance(ctx: VerifyContext, model: RenderModel) -> None:
    manifest, evidence = ctx.manifest, ctx.evidence
    pairs = [("Source rows read", dig(manifest, "source", "input_records")),
             ("Records after preparation", dig(manifest, "preparation", "output_records")),
             ("Sealed test frame (documents)", dig(manifest, "splits", "roles", "test", "records")),
             ("Candidates considered for the bank", dig(ctx.artifact(C.BANK_CARD), "candidate_funnel",
                                                         "total_candidates")),
             ("Active patterns in the bank", dig(evidence, "bank", "active_patterns"))]
    for label, value in pairs:
        if as_int(value) is not None:
            model.scope.append(Ratio(label, value, value))
    bank = dig(evidence, "bank", "canonical_hash")
    commit = dig(evidence, "software", "git_commit")
    model.bank_hash = bank if isinstance(bank, str) and HASH.fullmatch(bank) else None
    model.commit = commit if isinstance(commit, str) and COMMIT.fullmatch(commit) else None
    cpu, system = dig(evidence, "environment", "cpu_model"), dig(evidence, "environment", "os")
    if isinstance(cpu, str) and SAFE_TOKEN.fullmatch(cpu) and isinstance(system, str) and SAFE_TOKEN.fullmatch(system):
        model.machine = f"{cpu}, {'macOS' if system == 'Darwin' else system}"
