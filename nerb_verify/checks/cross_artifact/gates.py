"""Gate family: every promotion check re-evaluated on exact rationals, the threshold set re-hashed, the policy enforced.

For each entry of ``promotion.checks`` (spec 10 sections 5.5, 7, 9.7, 9.9 and 11.2):

* ids and targets are unique; the target lies under its category's prefix; performance targets name a workload
  statistic or peak RSS exactly;
* the target resolves *strictly* to a scalar of the evidence (NERB's resolver also accepts ``-1``, ``+1`` and ``01`` as
  list indices through Python's ``int()``; nerb-verify does not, so such a target does not resolve);
* ``actual`` is a type-strict, bit-exact copy of the stored value (a boolean never copies an integer, an integer never
  copies a float, and a float one ulp away is a different value);
* the comparison uses the verifier's exact figure where it has one (quality metrics, conformance recall, performance
  statistics and RSS, see :mod:`nerb_verify.checks.raw.gate_eval`) and the threshold as the exact decimal it is written
  as; a figure that is missing (its family did not run) or not evaluated (empty denominator) is a finding, never a
  pass; ``passed`` must equal the recomputed result;
* ``thresholds_sha256`` is recomputed over the exact threshold set and compared with the evidence, the audit
  chain's score stage and the frozen target (the manifest's copy is the binding family's);
* the threshold policy is checked whether or not the bundle claims promotion (spec 00 decision 3): quality-metric
  thresholds are numeric and non-vacuous and never looser than the charter's floors and ceilings, performance
  thresholds are positive numbers, and the required gates of a gate slice exist with the required operator and value.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nerb_verify import context as C
from nerb_verify.canonical import python_canonical_sha256
from nerb_verify.checks.cross_artifact import performance_gate_policy
from nerb_verify.checks.raw import gate_eval
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext
from nerb_verify.findings import Label
from nerb_verify.pointers import join

EV = C.EVIDENCE
FAMILY = "gate"

MALFORMED = register(
    "gate.malformed", "A promotion check lacks a required field or has the wrong type there.",
    "Each promotion check is {id, category, target, operator, threshold, actual, passed} with a known category and "
    "operator (spec 10 section 5.5). A malformed check is not evaluated, which is never a pass.")
DUPLICATE_ID = register(
    "gate.duplicate_id", "Two promotion checks share one id.",
    "Check ids (compared as strings) identify gates in the threshold hash and in claims; a duplicate makes the "
    "threshold set ambiguous.")
DUPLICATE_TARGET = register(
    "gate.duplicate_target", "Two promotion checks gate the same target.",
    "One target, one gate: a second gate on the same pointer could shadow a failing one.")
CATEGORY_TARGET = register(
    "gate.category_target", "A gate target lies outside the prefix its category allows.",
    "quality gates target /quality/, catalog_conformance /catalog_conformance/, performance /performance/, privacy "
    "/privacy/, provenance /software/, /splits/, /bank/, /source/ or /preparation/. The gate is not evaluated further.")
TARGET = register(
    "gate.target", "A gate target does not resolve to a scalar of the evidence.",
    "The target must be an RFC 6901 pointer that resolves strictly (canonical decimal list indices: no -1, +1, 01) to "
    "a null, boolean, number or string. Performance targets must be /performance/workloads/<i>/peak_rss_bytes or "
    "/performance/workloads/<i>/stats/<statistic>.")
ACTUAL = register(
    "gate.actual", "A gate's `actual` is not an exact copy of the stored value at its target.",
    "`actual` must copy the target value exactly: same JSON type (a boolean is not a number, an integer is not a "
    "float) and, for floats, the same double bit for bit. A value nudged by one ulp is a different value.")
NOT_EVALUATED = register(
    "gate.not_evaluated", "A gate cannot be evaluated: its exact figure is missing or not evaluated.",
    "Quality metrics, conformance recall and performance statistics are compared using the verifier's own exact "
    "figures. If that figure is missing (its family could not run) or not evaluated (an empty denominator), the gate "
    "cannot pass. Fix the evidence that the figure is computed from.")
COMPARISON = register(
    "gate.comparison", "A gate compares values that cannot be compared.",
    "A numeric target needs a numeric (non-boolean) threshold; a boolean, string or null target allows only `eq` "
    "against a threshold of the same JSON type.")
RESULT = register(
    "gate.result", "A gate's `passed` differs from the recomputed result.",
    "`passed` must equal the exact comparison of the recomputed value with the threshold read as a decimal "
    "(0.95 is 19/20). A stored double that happens to round onto the threshold does not pass a gate its exact "
    "fraction fails.")
THRESHOLDS_HASH = register(
    "gate.thresholds_hash", "thresholds_sha256 does not match the promotion checks.",
    "thresholds_sha256 is the canonical hash of all promotion checks reduced to {id, category, target, operator, "
    "threshold} and sorted by id. A threshold changed after it was frozen breaks it.")
THRESHOLDS_COPY = register(
    "gate.thresholds_copy", "A copy of thresholds_sha256 differs from the recomputed threshold hash.",
    "The audit chain's score stage and the frozen target repeat the threshold hash; each copy must equal the hash "
    "recomputed from the promotion checks (the manifest's copy is compared by binding.thresholds_sha256).")
VACUOUS_THRESHOLD = register(
    "gate.vacuous_threshold", "A gate threshold cannot fail or is not a number.",
    "Quality-metric thresholds must be numbers with 0 < t <= 1 for gte and 0 <= t < 1 for lte (a gte 0 or lte 1 gate "
    "always passes); performance thresholds must be positive numbers.")
THRESHOLD_POLICY = register(
    "gate.threshold_policy", "A quality threshold is looser than the charter's policy.",
    "Thresholds may only tighten the policy: open_world_recall >= 0.95, catalog_coverage >= 0.80, cataloged_recall "
    ">= 1.0, sensitive_character_recall >= 0.98, document_leak_rate <= 0.05, sensitive_character_leak_rate <= 0.02, "
    "negative_document_false_alarm_rate <= 0.50, over_redaction_rate <= 0.05, and the gate must point the policy's "
    "way. Checked whether or not the bundle claims promotion.")
MISSING_REQUIRED = register(
    "gate.missing_required", "A required gate is missing.",
    "Every bundle gates /catalog_conformance/passed, /privacy/status and /software/git_dirty, and for each quality "
    "gate slice the three cataloged-miss counts and the eight policy metrics.")
REQUIRED_SEMANTICS = register(
    "gate.required_semantics", "A required gate has the wrong operator or threshold.",
    "Required gates are fixed: catalog_conformance passed eq true, privacy status eq \"passed\", git_dirty eq false, "
    "cataloged-miss counts eq 0, recall-like metrics gte and leak-like metrics lte.")

# The charter's policy (spec 10 section 9.9): direction and bound per gated quality metric.
POLICY: dict[str, tuple[str, Fraction]] = {
    "open_world_recall": ("gte", Fraction("0.95")),
    "catalog_coverage": ("gte", Fraction("0.80")),
    "cataloged_recall": ("gte", Fraction("1.0")),
    "sensitive_character_recall": ("gte", Fraction("0.98")),
    "document_leak_rate": ("lte", Fraction("0.05")),
    "sensitive_character_leak_rate": ("lte", Fraction("0.02")),
    "negative_document_false_alarm_rate": ("lte", Fraction("0.50")),
    "over_redaction_rate": ("lte", Fraction("0.05")),
}
QUALITY_METRICS = ("precision", "open_world_recall", "f1", "catalog_coverage", "cataloged_recall",
                   "document_leak_rate", "cataloged_document_leak_rate", "sensitive_character_recall",
                   "sensitive_character_leak_rate", "negative_document_false_alarm_rate", "over_redaction_rate")
CATALOGED_MISS_COUNTS = ("cataloged_false_negative", "cataloged_wrong_canonical", "documents_with_any_cataloged_miss")
# Fixed required gates: target -> (operator, threshold); thresholds compared type-strictly for bool and str.
FIXED_REQUIRED: dict[str, tuple[str, object]] = {
    "/catalog_conformance/passed": ("eq", True),
    "/privacy/status": ("eq", "passed"),
    "/software/git_dirty": ("eq", False),
}
CHECK_FIELDS = ("id", "category", "target", "operator", "threshold")


def thresholds_sha256(checks: list[Any]) -> str | None:
    """The canonical hash of the threshold set, or None when a check lacks a field or cannot be hashed."""
    reduced = []
    for check in checks:
        if not isinstance(check, dict) or any(field not in check for field in CHECK_FIELDS):
            return None
        reduced.append({field: check[field] for field in CHECK_FIELDS})
    try:
        return python_canonical_sha256(sorted(reduced, key=lambda c: str(c["id"])))
    except (TypeError, ValueError):
        return None


def _same_scalar(a: object, b: object) -> bool:
    """Equality of JSON scalars where booleans and strings compare only with their own type, numbers exactly."""
    if gate_eval.is_number(a) and gate_eval.is_number(b):
        return gate_eval.decimal_value(a) == gate_eval.decimal_value(b)
    return type(a) is type(b) and a == b


def gate_slices(evidence: dict[str, Any]) -> list[int]:
    """Indices of the quality slices that are promotion gates."""
    slices = evidence.get("quality", {}).get("slices") if isinstance(evidence.get("quality"), dict) else None
    if not isinstance(slices, list):
        return []
    return [i for i, s in enumerate(slices) if isinstance(s, dict) and s.get("promotion_gate") is True]


def required_gates(evidence: dict[str, Any]) -> dict[str, tuple[str, object]]:
    """Required target -> (operator, threshold or None when only the operator is fixed), in our own vocabulary."""
    required: dict[str, tuple[str, object]] = dict(FIXED_REQUIRED)
    for i in gate_slices(evidence):
        for count in CATALOGED_MISS_COUNTS:
            required[join(["quality", "slices", i, count])] = ("eq", 0)
        for metric, (operator, _bound) in POLICY.items():
            required[join(["quality", "slices", i, "metrics", metric])] = (operator, None)
    return required


FROZEN_QUALITY_TARGETS = frozenset(
    [join(["quality", "slices", 0, count]) for count in CATALOGED_MISS_COUNTS]
    + [join(["quality", "slices", 0, "metrics", metric]) for metric in POLICY])


def insufficient_support_gate(evidence: dict[str, Any], check: dict[str, Any]) -> bool:
    """Whether ``check`` is a frozen quality gate of an insufficient-support terminal (its target cannot resolve).

    Allowed only when the chain stopped for insufficient support, quality is not evaluated with no slices, nothing is
    promoted, verified or claimed, and the gate is failed with a null actual.
    """
    chain = evidence.get("audit_chain")
    quality = evidence.get("quality")
    promotion = evidence.get("promotion")
    verifier = evidence.get("verifier")
    if not (isinstance(chain, dict) and isinstance(quality, dict) and isinstance(promotion, dict)):
        return False
    score, audit = chain.get("score"), chain.get("prediction_audit")
    return (isinstance(score, dict) and score.get("status") == "insufficient_support"
            and isinstance(audit, dict) and audit.get("status") == "not_run_insufficient_support"
            and quality.get("evaluated") is False and quality.get("slices") == []
            and promotion.get("passed") is False and promotion.get("claims") == []
            and isinstance(verifier, dict) and verifier.get("passed") is False
            and check.get("category") == "quality" and check.get("target") in FROZEN_QUALITY_TARGETS
            and "actual" in check and check["actual"] is None and check.get("passed") is False)


class _Gates:
    def __init__(self, ctx: VerifyContext, evidence: dict[str, Any], checks: list[Any]) -> None:
        self.ctx = ctx
        self.ev = evidence
        self.checks = checks
        self.add = ctx.collector.add
        self.counts = {"checks": len(checks), "evaluated": 0, "not_evaluated": 0}

    def uniqueness(self) -> None:
        ids: set[str] = set()
        targets: set[str] = set()
        for i, check in enumerate(self.checks):
            if not isinstance(check, dict):
                continue
            key = str(check.get("id"))
            if key in ids:
                self.add(DUPLICATE_ID, EV, join(["promotion", "checks", i, "id"]))
            ids.add(key)
            target = check.get("target")
            if isinstance(target, str):
                if target in targets:
                    self.add(DUPLICATE_TARGET, EV, join(["promotion", "checks", i, "target"]))
                targets.add(target)

    def threshold_hash(self) -> None:
        recomputed = thresholds_sha256(self.checks)
        stored = self.ev.get("thresholds_sha256")
        self.ctx.collector.record(EV, "/thresholds_sha256", "gate.thresholds_sha256", stored, recomputed,
                                  stored == recomputed, evaluated=recomputed is not None)
        if recomputed is None:
            self.add(THRESHOLDS_HASH, EV, "/thresholds_sha256", "The threshold hash cannot be recomputed: a check lacks "
                     "one of id, category, target, operator, threshold.")
            return
        if stored != recomputed:
            self.add(THRESHOLDS_HASH, EV, "/thresholds_sha256")
        # The manifest's copy is compared with the evidence's by the binding family (binding.thresholds_sha256).
        copies: list[tuple[str, str, object]] = []
        score = self.ev.get("audit_chain", {}).get("score") if isinstance(self.ev.get("audit_chain"), dict) else None
        if isinstance(score, dict):
            copies.append((EV, "/audit_chain/score/thresholds_sha256", score.get("thresholds_sha256")))
        test_access = self.ev.get("test_access")
        frozen = test_access.get("frozen_target") if isinstance(test_access, dict) else None
        if isinstance(frozen, dict):
            copies.append((EV, "/test_access/frozen_target/thresholds_sha256", frozen.get("thresholds_sha256")))
        for artifact, pointer, value in copies:
            if value != recomputed:
                self.add(THRESHOLDS_COPY, artifact, pointer)

    def evaluate_all(self) -> None:
        for i, check in enumerate(self.checks):
            self.evaluate(i, check)

    def evaluate(self, i: int, check: object) -> None:
        base: list[str | int] = ["promotion", "checks", i]
        outcome = gate_eval.evaluate(check, self.ev, self.ctx.figures)
        if outcome.status == "malformed":
            self.add(MALFORMED, EV, join(base + ([outcome.reason] if outcome.reason != "check" else [])),
                     "Check field {field} is missing or invalid.", field=Label(outcome.reason))
            self.counts["not_evaluated"] += 1
            return
        assert isinstance(check, dict)
        passed = check.get("passed")
        if not isinstance(passed, bool):
            self.add(MALFORMED, EV, join(base + ["passed"]), "Check field {field} is missing or invalid.",
                     field=Label("passed"))
        if outcome.status == "category_target":
            self.add(CATEGORY_TARGET, EV, join(base + ["target"]), "A {category} gate must target {prefixes}.",
                     category=Label(check["category"]),
                     prefixes=Label(" or ".join(gate_eval.CATEGORY_PREFIXES[check["category"]])))
            self.counts["not_evaluated"] += 1
            return
        if outcome.status == "target" and insufficient_support_gate(self.ev, check):
            # Spec 10 section 9.7: an audit stopped for insufficient support keeps its frozen quality gates, failed,
            # with null actuals; the target cannot exist because no slice was scored.
            self.counts["insufficient_support"] = self.counts.get("insufficient_support", 0) + 1
            self.ctx.collector.record(EV, join(base + ["passed"]), "gate.passed", passed, "false", passed is False)
            return
        if outcome.status == "target":
            message = {"performance_shape": "A performance gate must target a workload statistic or peak RSS.",
                       "unresolved": "The target does not resolve in the evidence (strict RFC 6901).",
                       "not_scalar": "The target resolves to an object or array, not a scalar."}[outcome.reason]
            self.add(TARGET, EV, join(base + ["target"]), message)
            self.counts["not_evaluated"] += 1
            return
        if "actual" not in check or not gate_eval.exact_copy(check.get("actual"), outcome.stored):
            self.add(ACTUAL, EV, join(base + ["actual"]))
        if outcome.status == "not_evaluated":
            message = ("The verifier's exact figure for this target is not available (its family did not produce it)."
                       if outcome.reason == "figure_missing"
                       else "The exact figure for this target is not evaluated (empty denominator or ineligible).")
            self.add(NOT_EVALUATED, EV, join(base + ["target"]), message)
            self.counts["not_evaluated"] += 1
            self.ctx.collector.record(EV, join(base + ["passed"]), "gate.passed", passed, None, False,
                                      evaluated=False)
            return
        if outcome.status == "comparison":
            self.add(COMPARISON, EV, join(base + ["threshold"]))
            self.counts["not_evaluated"] += 1
            self.ctx.collector.record(EV, join(base + ["passed"]), "gate.passed", passed, None, False,
                                      evaluated=False)
            return
        self.counts["evaluated"] += 1
        result = bool(outcome.result)
        if isinstance(outcome.value, Fraction):
            actual = check.get("actual")
            published = actual if gate_eval.is_number(actual) else None
            self.ctx.collector.record(EV, join(base + ["actual"]), "gate.comparison_value", published,
                                      outcome.value, gate_eval.exact_copy(actual, outcome.stored))
        self.ctx.collector.record(EV, join(base + ["passed"]), "gate.passed", passed if isinstance(passed, bool)
                                  else None, "true" if result else "false", passed is result)
        if isinstance(passed, bool) and passed is not result:
            self.add(RESULT, EV, join(base + ["passed"]), "The recomputed result is {result}.", result=result)

    def policy(self) -> None:
        """Threshold policy and required gates, always (spec 00 decision 3)."""
        by_target: dict[str, tuple[int, dict[str, Any]]] = {}
        gate_slice_set = set(gate_slices(self.ev))
        for i, check in enumerate(self.checks):
            if not isinstance(check, dict) or not isinstance(check.get("target"), str):
                continue
            target = check["target"]
            by_target.setdefault(target, (i, check))
            self.threshold_bounds(i, check, target, gate_slice_set)
        for target, (operator, threshold) in required_gates(self.ev).items():
            found = by_target.get(target)
            if found is None:
                # The target is built from our own constants and slice indices, never from input text.
                self.add(MISSING_REQUIRED, EV, "/promotion/checks", "No gate targets {target}.", target=Label(target))
                continue
            i, check = found
            if check.get("operator") != operator:
                self.add(REQUIRED_SEMANTICS, EV, join(["promotion", "checks", i, "operator"]),
                         "This required gate must use operator {operator}.", operator=Label(operator))
            elif threshold is not None and not _same_scalar(check.get("threshold"), threshold):
                self.add(REQUIRED_SEMANTICS, EV, join(["promotion", "checks", i, "threshold"]),
                         "This required gate has the wrong threshold.")

    def threshold_bounds(self, i: int, check: dict[str, Any], target: str, gate_slice_set: set[int]) -> None:
        pointer = join(["promotion", "checks", i, "threshold"])
        operator = check.get("operator")
        threshold = check.get("threshold")
        match = gate_eval.QUALITY_METRIC_TARGET.fullmatch(target)
        if check.get("category") == "performance":
            value = gate_eval.decimal_value(threshold)
            if value is None or value <= 0:
                self.add(VACUOUS_THRESHOLD, EV, pointer, "A performance threshold must be a positive number.")
            return
        if match is None or match["metric"] not in QUALITY_METRICS or operator not in ("gte", "lte"):
            return
        value = gate_eval.decimal_value(threshold)
        if value is None:
            self.add(VACUOUS_THRESHOLD, EV, pointer, "A quality-metric threshold must be a number.")
            return
        if (operator == "gte" and not 0 < value <= 1) or (operator == "lte" and not 0 <= value < 1):
            self.add(VACUOUS_THRESHOLD, EV, pointer, "This {operator} threshold cannot fail.", operator=Label(operator))
            return
        policy = POLICY.get(match["metric"])
        if policy is None:
            return
        direction, bound = policy
        if operator != direction:
            if int(match["slice"]) not in gate_slice_set:  # on a gate slice the required-gate check reports it
                self.add(THRESHOLD_POLICY, EV, join(["promotion", "checks", i, "operator"]),
                         "A gate on {metric} must use {direction}.", metric=Label(match["metric"]),
                         direction=Label(direction))
            return
        if (direction == "gte" and value < bound) or (direction == "lte" and value > bound):
            self.add(THRESHOLD_POLICY, EV, pointer, "The {metric} threshold is looser than the policy's {bound}.",
                     metric=Label(match["metric"]), bound=bound)


def run(ctx: VerifyContext) -> None:
    """Evaluate every promotion check exactly, re-hash the thresholds and check the policy (see module docstring)."""
    evidence = ctx.evidence
    if not isinstance(evidence, dict):
        ctx.collector.ran(FAMILY, "not_evaluated", reason=Label("evidence missing or invalid"))
        return
    promotion = evidence.get("promotion")
    checks = promotion.get("checks") if isinstance(promotion, dict) else None
    if not isinstance(checks, list) or not checks:
        ctx.collector.add(MALFORMED, EV, "/promotion/checks", "The promotion checks are missing or empty.")
        ctx.collector.ran(FAMILY, "not_evaluated", reason=Label("promotion.checks missing"))
        return
    family = _Gates(ctx, evidence, checks)
    family.uniqueness()
    family.threshold_hash()
    family.evaluate_all()
    family.policy()
    performance_gate_policy.check(ctx, evidence, checks)
    ctx.collector.ran(FAMILY, **family.counts)
