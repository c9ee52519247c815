"""Decision family: the two verdicts a reader of a NERB bundle wants, computed by the verifier itself.

* ``decisions.known_bank_contract``: PASS / FAIL / NOT_EVALUATED from the recomputed catalog-conformance gate (the
  conformance family's exact recall and recomputed pass flag), with the counts behind it.
* ``decisions.standalone_redaction``: ``eligible`` True / False / None from the gate slice's exact fractions compared
  with the frozen thresholds of ``promotion.checks`` (each read as the exact decimal it is written as), never looser
  than the charter's policy floors and ceilings, plus the exact-zero cataloged-miss gates, the known-bank contract,
  the privacy status, a clean git tree, the performance decision and, when the gate panel misses a support floor,
  ``quality_support`` (with ``support_failures``, NERB's codes). ``failed_gates`` lists gate names from this
  module's fixed vocabulary (never strings from the input).

Eligibility is False as soon as one gate fails; None when no gate fails but at least one cannot be evaluated (a
missing input is never a pass); True only when every gate passes.

The bundle's own statements (``promotion.passed``, the audit chain's quality decision and release, and
``publication.json``'s decision block) are compared with these verdicts: a bundle that states more than the verifier
can establish gets a finding. A text table of the recomputed headline figures goes to ``ctx.shared["text.tables"]``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple

from nerb_verify.checks.provenance.manifest_rules import SHARED_SUPPORT
from nerb_verify.checks.quality.quality_math import is_stored_number
from nerb_verify.codes import register
from nerb_verify.context import EVIDENCE, PUBLICATION, VerifyContext
from nerb_verify.findings import Label, exact_string
from nerb_verify.pointers import join

FAMILY = "decision"

OVERSTATES_ELIGIBILITY = register(
    "decision.bundle_overstates_eligibility",
    "The bundle states standalone-redaction eligibility (or passed quality gates) the verifier does not establish.",
    "The verifier recomputes the standalone-redaction decision from the gate slice's exact fractions and the frozen "
    "thresholds. A bundle statement (promotion passed, audit-chain quality decision or release, publication "
    "decision) that says eligible or passed while the recomputation says not eligible or cannot evaluate it "
    "overstates the evidence. Fix: publish the recomputed decision; a failed gate is evidence, not permission.")
OVERSTATES_CONTRACT = register(
    "decision.bundle_overstates_known_bank_contract",
    "The publication states the known-bank contract passed but the recomputed conformance gate does not pass.",
    "publication.json's `decision.catalog_conformance_passed` must agree with the conformance gate recomputed from "
    "the conformance counts. Fix: publish the recomputed verdict.")


class Gate(NamedTuple):
    """One standalone-redaction gate: name (our vocabulary), what it compares, the operator and the policy bound."""

    name: str
    kind: str  # "metric" | "count"
    operator: str  # "gte" | "lte" | "eq"
    policy: Fraction


# The charter's frozen policy: validation may tighten these, never weaken them.
QUALITY_GATES: tuple[Gate, ...] = (
    Gate("open_world_recall", "metric", "gte", Fraction("0.95")),
    Gate("catalog_coverage", "metric", "gte", Fraction("0.80")),
    Gate("cataloged_recall", "metric", "gte", Fraction(1)),
    Gate("sensitive_character_recall", "metric", "gte", Fraction("0.98")),
    Gate("document_leak_rate", "metric", "lte", Fraction("0.05")),
    Gate("sensitive_character_leak_rate", "metric", "lte", Fraction("0.02")),
    Gate("negative_document_false_alarm_rate", "metric", "lte", Fraction("0.50")),
    Gate("over_redaction_rate", "metric", "lte", Fraction("0.05")),
    Gate("cataloged_false_negative", "count", "eq", Fraction(0)),
    Gate("cataloged_wrong_canonical", "count", "eq", Fraction(0)),
    Gate("documents_with_any_cataloged_miss", "count", "eq", Fraction(0)),
)
COUNT_GATES = frozenset(g.name for g in QUALITY_GATES if g.kind == "count")
OTHER_GATES = ("catalog_conformance", "privacy_scan", "clean_git", "performance")


def run(ctx: VerifyContext) -> None:
    """Compute both decisions, compare them with the bundle's statements and add the headline text table."""
    known = known_bank_contract(ctx)
    ctx.collector.decisions["known_bank_contract"] = known
    standalone = standalone_redaction(ctx, known)
    ctx.collector.decisions["standalone_redaction"] = standalone
    _compare_statements(ctx, known, standalone)
    ctx.shared.setdefault("text.tables", []).append(headline_table(known, standalone))
    if not isinstance(ctx.evidence, dict):
        # Both decisions are recorded as not evaluated (eligible None), never as a pass.
        ctx.collector.ran(FAMILY, "not_evaluated", reason=Label("evidence missing or invalid"))
    else:
        ctx.collector.ran(FAMILY, decisions=2)


# ---------------------------------------------------------------------------------------------------------- known bank

def _int_figure(ctx: VerifyContext, pointer: str) -> int | None:
    value = ctx.figures.get(pointer)
    return value if type(value) is int else None


def known_bank_contract(ctx: VerifyContext) -> dict[str, Any]:
    """PASS/FAIL/NOT_EVALUATED from the conformance family's recomputed gate, with the counts behind it."""
    def count(name: str) -> int | None:
        return _int_figure(ctx, "/catalog_conformance/" + name)

    passed = ctx.figures.get("/catalog_conformance/passed")
    evidence = ctx.evidence
    section = evidence.get("catalog_conformance") if isinstance(evidence, dict) else None
    evaluated = isinstance(section, dict) and section.get("evaluated") is True
    if not evaluated or passed is None:
        verdict = "NOT_EVALUATED"
    else:
        verdict = "PASS" if passed is True else "FAIL"
    negatives = count("negative_cases")
    unexpected = count("unexpected_negative_matches")
    clean = negatives - unexpected if negatives is not None and unexpected is not None else None
    recall = ctx.figures.get("/catalog_conformance/recall")
    return {
        "verdict": verdict,
        "passed": True if verdict == "PASS" else (False if verdict == "FAIL" else None),
        "approved_positives_mapped": {"count": count("correctly_mapped"), "of": count("approved_positive_cases")},
        "patterns_with_positive_cases": {"count": count("patterns_with_positive_cases"),
                                         "of": count("active_patterns")},
        "negatives_without_unexpected_match": {"count": clean, "of": negatives},
        "wrong_canonical_mappings": count("wrong_canonical"),
        "missed": count("missed"),
        "recall": exact_string(recall) if isinstance(recall, Fraction) else None,
    }


# ---------------------------------------------------------------------------------------------------------- standalone

def gate_slices(ctx: VerifyContext) -> list[int]:
    """Indices of the slices that gate promotion (``promotion_gate`` true), in slice order."""
    evidence = ctx.evidence
    quality = evidence.get("quality") if isinstance(evidence, dict) else None
    slices = quality.get("slices") if isinstance(quality, dict) else None
    if not isinstance(slices, list):
        return []
    return [i for i, s in enumerate(slices) if isinstance(s, dict) and s.get("promotion_gate") is True]


def frozen_threshold(ctx: VerifyContext, target: str, operator: str) -> Fraction | None:
    """The exact decimal threshold of the promotion check on ``target`` with ``operator``, or None if there is none.

    ``Fraction(str(x))`` reads the decimal as written (0.95 is 19/20, not the nearest double).
    """
    evidence = ctx.evidence
    promotion = evidence.get("promotion") if isinstance(evidence, dict) else None
    checks = promotion.get("checks") if isinstance(promotion, dict) else None
    if not isinstance(checks, list):
        return None
    for check in checks:
        if isinstance(check, dict) and check.get("target") == target and check.get("operator") == operator:
            threshold = check.get("threshold")
            if is_stored_number(threshold):
                try:
                    return Fraction(str(threshold))
                except (ValueError, OverflowError):
                    return None
    return None


def effective_threshold(gate: Gate, frozen: Fraction | None) -> tuple[Fraction, str]:
    """The threshold actually applied: the frozen one if it is at least as strict as the policy, else the policy."""
    if frozen is None:
        return gate.policy, "policy"
    if gate.operator == "gte" and frozen >= gate.policy:
        return frozen, "frozen"
    if gate.operator == "lte" and frozen <= gate.policy:
        return frozen, "frozen"
    if gate.operator == "eq" and frozen == gate.policy:
        return frozen, "frozen"
    return gate.policy, "policy"


def compare(value: Fraction, operator: str, threshold: Fraction) -> bool:
    """Exact rational comparison."""
    if operator == "gte":
        return value >= threshold
    if operator == "lte":
        return value <= threshold
    return value == threshold


def _quality_gates(ctx: VerifyContext, slices: list[int]) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    for index in slices:
        for gate in QUALITY_GATES:
            if gate.kind == "metric":
                target = join(["quality", "slices", index, "metrics", gate.name])
                raw = ctx.figures.get(target)
                value: Fraction | None = raw if isinstance(raw, Fraction) else None
            else:
                target = join(["quality", "slices", index, gate.name])
                raw = ctx.figures.get(target)
                value = Fraction(raw) if type(raw) is int else None
            threshold, source = effective_threshold(gate, frozen_threshold(ctx, target, gate.operator))
            passed = compare(value, gate.operator, threshold) if value is not None else None
            results.append({
                "gate": gate.name, "slice": index, "operator": gate.operator,
                "threshold": exact_string(threshold), "threshold_source": source,
                "value": exact_string(value), "passed": passed,
            })
    return results


def _other_gates(ctx: VerifyContext, known: dict[str, Any]) -> list[dict[str, Any]]:
    evidence = ctx.evidence if isinstance(ctx.evidence, dict) else {}
    privacy = evidence.get("privacy")
    status = privacy.get("status") if isinstance(privacy, dict) else None
    software = evidence.get("software")
    dirty = software.get("git_dirty") if isinstance(software, dict) else None
    performance = ctx.collector.decisions.get("performance")
    perf_passed: bool | None = None
    if isinstance(performance, dict):
        grade = performance.get("decision_grade")
        if grade in ("passed", "failed"):
            perf_passed = grade == "passed"
        for key in ("passed", "eligible", "gates_passed"):
            if isinstance(performance.get(key), bool):
                perf_passed = performance[key]
                break
    support = ctx.shared.get(SHARED_SUPPORT) or {}
    # The gate panel's support floors (manifest family): present only when the panel misses one, which is an honest
    # outcome when the audit chain declares it and an error finding otherwise; either way not eligible.
    supported = [{"gate": "quality_support", "passed": False}] if support.get("failures") else []
    return supported + [
        {"gate": "catalog_conformance", "passed": known["passed"]},
        {"gate": "privacy_scan", "passed": None if not isinstance(status, str) else status == "passed"},
        {"gate": "clean_git", "passed": None if not isinstance(dirty, bool) else dirty is False},
        {"gate": "performance", "passed": perf_passed},
    ]


def _outcome(gates: list[dict[str, Any]]) -> tuple[bool | None, list[str], list[str]]:
    failed: list[str] = []
    unknown: list[str] = []
    for gate in gates:
        name = gate["gate"]
        if gate["passed"] is False and name not in failed:
            failed.append(name)
        elif gate["passed"] is None and name not in unknown:
            unknown.append(name)
    eligible: bool | None = False if failed else (None if unknown else True)
    return eligible, failed, unknown


def standalone_redaction(ctx: VerifyContext, known: dict[str, Any]) -> dict[str, Any]:
    """Eligibility for standalone privacy redaction, recomputed from exact figures (see module docstring)."""
    slices = gate_slices(ctx)
    quality_gates = _quality_gates(ctx, slices)
    if not slices:
        quality_gates = [{"gate": g.name, "slice": None, "operator": g.operator, "threshold": exact_string(g.policy),
                          "threshold_source": "policy", "value": None, "passed": None} for g in QUALITY_GATES]
    quality_eligible, quality_failed, quality_unknown = _outcome(quality_gates)
    gates = quality_gates + _other_gates(ctx, known)
    eligible, failed, unknown = _outcome(gates)
    return {
        "eligible": eligible,
        "failed_gates": failed,
        "not_evaluated_gates": unknown,
        "quality_gates_passed": quality_eligible,
        "support_failures": list((ctx.shared.get(SHARED_SUPPORT) or {}).get("failures") or []),
        "gate_slices": slices,
        "gates": gates,
        "headline": _headline(ctx, slices[0] if slices else None),
    }


def _headline(ctx: VerifyContext, index: int | None) -> dict[str, Any]:
    """The summary's headline application counts for the gate slice, as count / denominator."""
    def c(name: str) -> int | None:
        return None if index is None else _int_figure(ctx, join(["quality", "slices", index, name]))

    with_gold, with_miss = c("documents_with_sensitive_gold"), c("documents_with_any_miss")
    without_miss = with_gold - with_miss if with_gold is not None and with_miss is not None else None
    return {
        "spans_detected_exactly": {"count": c("true_positive"), "of": c("gold_spans")},
        "catalog_coverage": {"count": c("cataloged_gold_spans"), "of": c("gold_spans")},
        "cataloged_exact_recall": {"count": c("cataloged_true_positive"), "of": c("cataloged_gold_spans")},
        "sensitive_characters_covered": {"count": c("covered_sensitive_characters"),
                                         "of": c("sensitive_gold_characters")},
        "documents_without_miss": {"count": without_miss, "of": with_gold},
        "predictions_exact": {"count": c("true_positive"), "of": c("predicted_spans")},
    }


# ----------------------------------------------------------------------------------------------------- bundle claims

def _compare_statements(ctx: VerifyContext, known: dict[str, Any], standalone: dict[str, Any]) -> None:
    """A bundle statement of eligibility or passing that the recomputation does not support is a finding."""
    add = ctx.collector.add
    eligible = standalone["eligible"]
    quality_ok = standalone["quality_gates_passed"]
    evidence = ctx.evidence if isinstance(ctx.evidence, dict) else {}

    inputs_available = isinstance(ctx.evidence, dict)

    def says_more(statement: Any, recomputed: bool | None) -> bool:
        # When the evidence itself is unavailable the decision is not evaluated and the cause already has its own
        # finding; comparing against "unknown" would only repeat it.
        if recomputed is None and not inputs_available:
            return False
        return statement is True and recomputed is not True

    promotion = evidence.get("promotion")
    if isinstance(promotion, dict) and says_more(promotion.get("passed"), eligible):
        add(OVERSTATES_ELIGIBILITY, EVIDENCE, join(["promotion", "passed"]),
            "The evidence says promotion passed; the verifier computes eligible = {eligible}.", eligible=eligible)
    chain = evidence.get("audit_chain")
    if isinstance(chain, dict):
        score = chain.get("score")
        if isinstance(score, dict) and says_more(score.get("quality_decision_passed"), quality_ok):
            add(OVERSTATES_ELIGIBILITY, EVIDENCE, join(["audit_chain", "score", "quality_decision_passed"]),
                "The audit chain says the quality decision passed; the verifier computes {value}.", value=quality_ok)
        audit = chain.get("prediction_audit")
        if isinstance(audit, dict):
            if says_more(audit.get("decision_eligible"), quality_ok):
                add(OVERSTATES_ELIGIBILITY, EVIDENCE, join(["audit_chain", "prediction_audit", "decision_eligible"]),
                    "The audit chain says the decision is eligible; the verifier's quality gates give {value}.",
                    value=quality_ok)
            if says_more(audit.get("release") == "quality_eligible", quality_ok):
                add(OVERSTATES_ELIGIBILITY, EVIDENCE, join(["audit_chain", "prediction_audit", "release"]),
                    "The audit chain releases as quality eligible; the verifier's quality gates give {value}.",
                    value=quality_ok)
    publication = ctx.artifact(PUBLICATION)
    decision = publication.get("decision") if isinstance(publication, dict) else None
    if isinstance(decision, dict):
        if says_more(decision.get("standalone_privacy_redaction_allowed"), eligible):
            add(OVERSTATES_ELIGIBILITY, PUBLICATION, join(["decision", "standalone_privacy_redaction_allowed"]),
                "The publication allows standalone redaction; the verifier computes eligible = {eligible}.",
                eligible=eligible)
        if says_more(decision.get("standalone_privacy_redaction_quality_passed"), quality_ok):
            add(OVERSTATES_ELIGIBILITY, PUBLICATION,
                join(["decision", "standalone_privacy_redaction_quality_passed"]),
                "The publication says the redaction quality gates passed; the verifier computes {value}.",
                value=quality_ok)
        if says_more(decision.get("catalog_conformance_passed"), known["passed"]):
            add(OVERSTATES_CONTRACT, PUBLICATION, join(["decision", "catalog_conformance_passed"]))


# -------------------------------------------------------------------------------------------------------- text table

def percent(count: int | None, of: int | None) -> str:
    """count/of as a percentage with two decimals, rounded half-to-even from the exact fraction ("n/a" if empty)."""
    if count is None or not of:
        return "n/a"
    hundredths = round(Fraction(count * 10000, of))
    return f"{hundredths // 100}.{hundredths % 100:02d}%"


def _num(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def _row(label: str, pair: dict[str, Any]) -> str:
    count, of = pair.get("count"), pair.get("of")
    return f"  {label:<52} {_num(count):>8} / {_num(of):<8} {percent(count, of):>8}"


def _fraction_percent(text: str | None) -> str:
    if text is None:
        return "n/a"
    value = Fraction(text)
    return percent(value.numerator, value.denominator)


def headline_table(known: dict[str, Any], standalone: dict[str, Any]) -> list[str]:
    """Readable lines: the known-bank contract counts, the standalone application counts and every gate."""
    eligible = standalone["eligible"]
    verdict = {True: "ELIGIBLE", False: "NOT ELIGIBLE", None: "NOT EVALUATED"}[eligible]
    lines = [f"Known-bank contract (recomputed): {known['verdict'].replace('_', ' ')}",
             _row("Approved positives detected and mapped", known["approved_positives_mapped"]),
             _row("Active patterns exercised", known["patterns_with_positive_cases"]),
             _row("Required negatives without unexpected matches", known["negatives_without_unexpected_match"]),
             f"  {'Wrong canonical mappings':<52} {_num(known['wrong_canonical_mappings']):>8}",
             "",
             f"Standalone redaction (recomputed): {verdict}"]
    if standalone["failed_gates"]:
        lines[-1] += " - failed gates: " + ", ".join(standalone["failed_gates"])
    head = standalone["headline"]
    lines += [
        _row("Labeled spans detected exactly", head["spans_detected_exactly"]),
        _row("Catalog coverage (cataloged of all gold spans)", head["catalog_coverage"]),
        _row("Cataloged spans found exactly and mapped", head["cataloged_exact_recall"]),
        _row("Sensitive characters covered", head["sensitive_characters_covered"]),
        _row("Documents without an exact-span miss", head["documents_without_miss"]),
        _row("Predicted spans that were exact", head["predictions_exact"]),
        "",
        "  Gate                                    op    threshold      value    result",
    ]
    ops = {"gte": ">=", "lte": "<=", "eq": "=="}
    for gate in standalone["gates"]:
        result = {True: "pass", False: "FAIL", None: "not evaluated"}[gate["passed"]]
        if "operator" in gate:
            is_count = gate["gate"] in COUNT_GATES
            threshold = gate["threshold"] if is_count else _fraction_percent(gate["threshold"])
            value = (gate["value"] or "n/a") if is_count else _fraction_percent(gate["value"])
            lines.append(f"  {gate['gate']:<38} {ops[gate['operator']]:<4} {threshold:>10} {value:>10}    {result}")
        else:
            lines.append(f"  {gate['gate']:<38} {'':<4} {'':>10} {'':>10}    {result}")
    return lines
