"""Conformance family: the catalog-conformance section recomputed (spec 10 sections 5.2 and 9.4).

Catalog conformance is NERB's known-bank contract: on exhaustive synthetic cases every approved positive must be
detected and mapped to the right canonical entity, no required negative may match, and every active pattern must have
positive support. This family

* reads the eight counts strictly (exact JSON integers >= 0);
* for an unevaluated section requires every count 0, every reference null and ``passed`` false;
* for an evaluated one checks label/plan binding against the manifest, bank binding, pattern support, arithmetic,
  negative bounds, recomputes ``recall = correctly_mapped / approved_positive_cases`` as an exact fraction (the stored
  recall must be exactly its correctly rounded double) and recomputes ``passed`` from the counts.

The exact recall goes to ``ctx.figures["/catalog_conformance/recall"]`` and the recomputed pass/fail to
``ctx.figures["/catalog_conformance/passed"]``; the decision family turns them into the known-bank contract verdict.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nerb_verify.checks.quality.quality_math import is_stored_number, stored_rate_matches
from nerb_verify.codes import register
from nerb_verify.context import EVIDENCE, VerifyContext
from nerb_verify.findings import Label
from nerb_verify.pointers import join

FAMILY = "conformance"
SECTION = "catalog_conformance"
COUNTS = (
    "active_patterns",
    "patterns_with_positive_cases",
    "approved_positive_cases",
    "correctly_mapped",
    "missed",
    "wrong_canonical",
    "negative_cases",
    "unexpected_negative_matches",
)
REFERENCES = ("label_artifact_id", "positive_cases_artifact", "negative_cases_artifact", "policy_sha256")

MALFORMED = register(
    "conformance.malformed_section", "The catalog-conformance section does not have the required shape.",
    "`catalog_conformance` must be an object with a boolean `evaluated` and `passed`. Without them nothing can be "
    "recomputed, and the known-bank contract is not evaluated. Fix: emit the section as the evidence v2 schema says.")
COUNT_INVALID = register(
    "conformance.count_invalid", "A conformance count is absent, not a JSON integer, or negative.",
    "The eight conformance counts must be exact non-negative JSON integers (`5.0`, `true`, `\"5\"` are refused, "
    "never coerced). Checks that need the count are not evaluated. Fix: write every count as an integer.")
INVALID_UNEVALUATED = register(
    "conformance.invalid_unevaluated", "Conformance is not evaluated but carries counts, references or a pass.",
    "An unevaluated section must have every count 0, label id, artifacts, policy and recall null, and `passed` false "
    "(nothing may be zero-filled into success or left behind from a run). Fix: clear the section or evaluate it.")
MISSING_LABEL = register(
    "conformance.missing_label", "Evaluated conformance names no label artifact.",
    "The synthetic conformance labels are what the cases are scored against; without them the result is unbound. "
    "Fix: set `label_artifact_id` to the manifest's synthetic_conformance label.")
LABEL_BINDING = register(
    "conformance.label_binding", "Conformance does not match its manifest label artifact.",
    "The label must exist in the manifest, be synthetic_conformance and exhaustive_within_scope, its artifact must "
    "equal `positive_cases_artifact`, and its span count, and its conformance population's documents and spans, "
    "must equal `approved_positive_cases` (one planted span per synthetic case). Fix: bind the evaluated cases to "
    "the declared label artifact.")
PLAN_BINDING = register(
    "conformance.plan_binding", "Conformance does not match the manifest's conformance plan.",
    "Label id, positive and negative case artifacts, case counts and policy hash must equal the frozen conformance "
    "plan, so the cases evaluated are the cases that were preregistered. Fix: evaluate exactly the planned cases.")
BANK_MISMATCH = register(
    "conformance.bank_mismatch", "Conformance active patterns differ from the bank's active patterns.",
    "The cases must exercise the evaluated bank: `active_patterns` must equal `bank.active_patterns`. Fix: evaluate "
    "conformance on the bank the evidence describes.")
INCOMPLETE_PATTERN_SUPPORT = register(
    "conformance.incomplete_pattern_support", "Conformance is marked passed although not every active pattern has "
    "a positive case.",
    "The charter requires positive support for every active pattern (`patterns_with_positive_cases == "
    "active_patterns`) for the known-bank contract to pass; an untested pattern is outside the evidence. A section "
    "that honestly reports the shortfall with `passed` false is a decision outcome (known-bank contract FAIL, "
    "standalone redaction not eligible), not a finding; claiming `passed` with the shortfall is false. Fix: "
    "generate cases for every pattern, or report the gate as failed.")
PATTERN_CASE_SUPPORT = register(
    "conformance.pattern_case_support", "Fewer approved positive cases than supported patterns.",
    "Each supported pattern needs at least one approved positive case, so approved >= supported patterns. Fix: "
    "recount the cases.")
EMPTY = register(
    "conformance.empty", "Evaluated conformance has no patterns, positives or negatives.",
    "Active patterns, approved positive cases and negative cases must all be non-zero; empty conformance cases "
    "cannot silently become success. Fix: evaluate real cases.")
MISSING_ARTIFACT = register(
    "conformance.missing_artifact", "Evaluated conformance lacks a case artifact or its policy hash.",
    "Positive and negative case artifacts and the policy hash bind what was evaluated; all three are required. "
    "Fix: publish the references.")
ARITHMETIC = register(
    "conformance.arithmetic", "Approved positives are not correctly mapped + missed + wrong canonical.",
    "Every approved positive identity ends in exactly one of the three outcomes. Fix: recount the outcomes.")
NEGATIVE_BOUNDS = register(
    "conformance.negative_bounds", "More negative cases matched than there are negative cases.",
    "`unexpected_negative_matches` counts negative cases with a match, so it cannot exceed `negative_cases`.")
RECALL_NOT_NUMBER = register(
    "conformance.recall_not_number", "The stored conformance recall is neither a number nor null.",
    "Recall is a JSON number or null. Fix: store correctly_mapped / approved_positive_cases as a double.")
RECALL_MISMATCH = register(
    "conformance.recall_mismatch", "Stored recall is not the correctly rounded double of its exact fraction.",
    "recall = correctly_mapped / approved_positive_cases, compared exactly (no tolerance: 0.9999999999 is not 1.0). "
    "Fix: store the double of the exact fraction.")
RECALL_SHOULD_BE_NULL = register(
    "conformance.recall_should_be_null", "Recall is published although there are no approved positive cases.",
    "With zero approved positives recall is not evaluated and must be null, never 0 or 1. Fix: publish null.")
RECALL_UNEXPECTED_NULL = register(
    "conformance.recall_unexpected_null", "Recall is null although approved positive cases exist.",
    "With approved positives the recall is defined; a null hides it. Fix: store the exact double.")
PASSED_MISMATCH = register(
    "conformance.passed_mismatch", "The stored `passed` flag differs from the recomputed conformance gate.",
    "passed must be true exactly when: approved > 0, negatives > 0, active patterns equal the bank's, every pattern "
    "supported, approved >= supported, artifacts and policy present, 0 missed, 0 wrong canonical, 0 unexpected "
    "negative matches and the exact recall is 1. Fix: publish the recomputed result.")


def run(ctx: VerifyContext) -> None:
    """Check the catalog-conformance section and recompute recall and the pass flag (see module docstring)."""
    evidence = ctx.evidence
    if not isinstance(evidence, dict):
        ctx.collector.ran(FAMILY, "not_evaluated", reason=Label("evidence missing or invalid"))
        return
    section = evidence.get(SECTION)
    if not isinstance(section, dict) or type(section.get("evaluated")) is not bool \
            or type(section.get("passed")) is not bool:
        ctx.collector.add(MALFORMED, EVIDENCE, join([SECTION]))
        ctx.figures["/catalog_conformance/passed"] = None
        ctx.collector.ran(FAMILY, "not_evaluated", reason=Label("catalog_conformance malformed"))
        return
    counts = _read_counts(ctx, section)
    for name, value in counts.items():
        ctx.figures[join([SECTION, name])] = value
    if not section["evaluated"]:
        _check_unevaluated(ctx, section, counts)
        ctx.figures["/catalog_conformance/recall"] = None
        ctx.figures["/catalog_conformance/passed"] = False
        ctx.collector.ran(FAMILY, figures=0, evaluated=False)
        return
    recomputed_pass = _check_evaluated(ctx, evidence, section, counts)
    ctx.figures["/catalog_conformance/passed"] = recomputed_pass
    ctx.collector.ran(FAMILY, figures=2, evaluated=True)


def _read_counts(ctx: VerifyContext, section: dict[str, Any]) -> dict[str, int | None]:
    counts: dict[str, int | None] = {}
    for name in COUNTS:
        value = section.get(name)
        if type(value) is int and value >= 0:
            counts[name] = value
        else:
            counts[name] = None
            ctx.collector.add(COUNT_INVALID, EVIDENCE, join([SECTION, name]),
                              "Count {field} is absent, not a JSON integer, or negative.", field=Label(name))
    return counts


def _check_unevaluated(ctx: VerifyContext, section: dict[str, Any], counts: dict[str, int | None]) -> None:
    offending = [name for name, value in counts.items() if value not in (0, None)]
    offending += [name for name in (*REFERENCES, "recall") if section.get(name) is not None]
    if section.get("passed") is not False:
        offending.append("passed")
    if offending:
        ctx.collector.add(INVALID_UNEVALUATED, EVIDENCE, join([SECTION, offending[0]]),
                          "Unevaluated conformance must be empty; first offending field: {field}.",
                          field=Label(offending[0]))


def _known(counts: dict[str, int | None], *names: str) -> bool:
    return all(counts.get(n) is not None for n in names)


def _check_evaluated(ctx: VerifyContext, evidence: dict[str, Any], section: dict[str, Any],
                     c: dict[str, int | None]) -> bool | None:
    """Rules for an evaluated section; returns the recomputed pass flag (None if a count cannot be read)."""
    add = ctx.collector.add
    if section.get("label_artifact_id") is None:
        add(MISSING_LABEL, EVIDENCE, join([SECTION, "label_artifact_id"]))
    _check_manifest_binding(ctx, section, c)
    bank = evidence.get("bank")
    bank_patterns = bank.get("active_patterns") if isinstance(bank, dict) else None
    bank_ok: bool | None = None
    if type(bank_patterns) is int and c["active_patterns"] is not None:
        bank_ok = c["active_patterns"] == bank_patterns
        if not bank_ok:
            add(BANK_MISMATCH, EVIDENCE, join([SECTION, "active_patterns"]))
    if _known(c, "patterns_with_positive_cases", "active_patterns") \
            and c["patterns_with_positive_cases"] != c["active_patterns"] and section.get("passed") is not False:
        add(INCOMPLETE_PATTERN_SUPPORT, EVIDENCE, join([SECTION, "patterns_with_positive_cases"]))
    if _known(c, "approved_positive_cases", "patterns_with_positive_cases") \
            and c["approved_positive_cases"] < c["patterns_with_positive_cases"]:
        add(PATTERN_CASE_SUPPORT, EVIDENCE, join([SECTION, "approved_positive_cases"]))
    for name in ("active_patterns", "approved_positive_cases", "negative_cases"):
        if c[name] == 0:
            add(EMPTY, EVIDENCE, join([SECTION, name]), "{field} is 0 in evaluated conformance.", field=Label(name))
    artifacts_present = all(section.get(n) is not None
                            for n in ("positive_cases_artifact", "negative_cases_artifact", "policy_sha256"))
    if not artifacts_present:
        missing = next(n for n in ("positive_cases_artifact", "negative_cases_artifact", "policy_sha256")
                       if section.get(n) is None)
        add(MISSING_ARTIFACT, EVIDENCE, join([SECTION, missing]))
    if _known(c, "approved_positive_cases", "correctly_mapped", "missed", "wrong_canonical") \
            and c["approved_positive_cases"] != c["correctly_mapped"] + c["missed"] + c["wrong_canonical"]:
        add(ARITHMETIC, EVIDENCE, join([SECTION, "approved_positive_cases"]))
    if _known(c, "unexpected_negative_matches", "negative_cases") \
            and c["unexpected_negative_matches"] > c["negative_cases"]:
        add(NEGATIVE_BOUNDS, EVIDENCE, join([SECTION, "unexpected_negative_matches"]))

    exact = _check_recall(ctx, section, c)
    if not _known(c, *COUNTS) or bank_ok is None:
        recomputed: bool | None = None
    else:
        recomputed = bool(
            c["approved_positive_cases"] > 0 and c["negative_cases"] > 0 and bank_ok
            and c["patterns_with_positive_cases"] == c["active_patterns"]
            and c["approved_positive_cases"] >= c["patterns_with_positive_cases"]
            and artifacts_present and c["missed"] == 0 and c["wrong_canonical"] == 0
            and c["unexpected_negative_matches"] == 0 and exact == 1)
    stored = section["passed"]
    if recomputed is None:
        if stored is True:
            add(PASSED_MISMATCH, EVIDENCE, join([SECTION, "passed"]),
                "Conformance is marked passed but the gate cannot be recomputed from valid counts.")
        ctx.collector.record(EVIDENCE, join([SECTION, "passed"]), "catalog_conformance.passed", stored, None, False,
                             evaluated=False)
    else:
        if stored != recomputed:
            add(PASSED_MISMATCH, EVIDENCE, join([SECTION, "passed"]),
                "Stored passed is {stored}; recomputed from the counts it is {recomputed}.", stored=stored,
                recomputed=recomputed)
        ctx.collector.record(EVIDENCE, join([SECTION, "passed"]), "catalog_conformance.passed", stored,
                             int(recomputed), stored == recomputed)
    return recomputed


def _check_recall(ctx: VerifyContext, section: dict[str, Any], c: dict[str, int | None]) -> Fraction | None:
    """Recall recomputed exactly; the stored value must be its correctly rounded double (null iff undefined)."""
    add = ctx.collector.add
    pointer = join([SECTION, "recall"])
    stored = section.get("recall")
    published = stored if stored is None or is_stored_number(stored) else None
    if stored is not None and not is_stored_number(stored):
        add(RECALL_NOT_NUMBER, EVIDENCE, pointer)
    if not _known(c, "correctly_mapped", "approved_positive_cases"):
        ctx.figures[pointer] = None
        ctx.collector.record(EVIDENCE, pointer, "catalog_conformance.recall", published, None, False,
                             evaluated=False)
        return None
    approved = c["approved_positive_cases"]
    exact = Fraction(c["correctly_mapped"], approved) if approved else None
    ctx.figures[pointer] = exact
    matches = stored_rate_matches(stored, exact)
    if exact is None:
        if stored is not None and is_stored_number(stored):
            add(RECALL_SHOULD_BE_NULL, EVIDENCE, pointer)
        ctx.collector.record(EVIDENCE, pointer, "catalog_conformance.recall", published, None, matches,
                             evaluated=False)
        return None
    if stored is None:
        add(RECALL_UNEXPECTED_NULL, EVIDENCE, pointer, "Recall is null but equals {exact}.", exact=exact)
    elif is_stored_number(stored) and not matches:
        add(RECALL_MISMATCH, EVIDENCE, pointer, "Recall is not the correctly rounded double of {exact}.",
            exact=exact)
    ctx.collector.record(EVIDENCE, pointer, "catalog_conformance.recall", published, exact, matches)
    return exact


def _one_case_per_document(label: dict[str, Any], approved: int) -> bool:
    """The label's conformance population has one span per document, as many as the approved positive cases (each
    synthetic positive case is a document with exactly one planted span)."""
    populations = label.get("role_populations") if isinstance(label.get("role_populations"), list) else []
    for population in populations:
        if isinstance(population, dict) and population.get("role") == "conformance":
            return population.get("documents") == approved and population.get("spans") == approved
    return True  # a label without a conformance population is reported by the manifest rules


def _check_manifest_binding(ctx: VerifyContext, section: dict[str, Any], c: dict[str, int | None]) -> None:
    """Label and plan binding against the schema-valid manifest (skipped only when there is no valid manifest)."""
    manifest = ctx.manifest
    if not isinstance(manifest, dict):
        return
    add = ctx.collector.add
    label_id = section.get("label_artifact_id")
    labels = manifest.get("labels") if isinstance(manifest.get("labels"), list) else []
    label = next((lab for lab in labels if isinstance(lab, dict) and lab.get("id") == label_id), None)
    if label_id is not None:
        problem = None
        if label is None:
            problem = "label_artifact_id"
        elif label.get("label_strength") != "synthetic_conformance" \
                or label.get("annotation_completeness") != "exhaustive_within_scope":
            problem = "label_artifact_id"
        elif label.get("artifact") != section.get("positive_cases_artifact"):
            problem = "positive_cases_artifact"
        elif type(label.get("span_count")) is int and c["approved_positive_cases"] is not None \
                and label["span_count"] != c["approved_positive_cases"]:
            problem = "approved_positive_cases"
        elif c["approved_positive_cases"] is not None and not _one_case_per_document(label,
                                                                                    c["approved_positive_cases"]):
            problem = "approved_positive_cases"
        if problem:
            add(LABEL_BINDING, EVIDENCE, join([SECTION, problem]),
                "Conformance field {field} does not match the manifest label artifact.", field=Label(problem))
    plan = manifest.get("conformance_plan")
    if not isinstance(plan, dict):
        return
    pairs = (
        ("label_artifact_id", "label_artifact_id"),
        ("positive_cases_artifact", "positive_cases_artifact"),
        ("approved_positive_cases", "positive_cases"),
        ("negative_cases_artifact", "negative_cases_artifact"),
        ("negative_cases", "negative_cases"),
        ("policy_sha256", "policy_sha256"),
    )
    for field, plan_field in pairs:
        value = c[field] if field in c else section.get(field)
        if field in c and value is None:
            continue
        if value != plan.get(plan_field) or type(value) is not type(plan.get(plan_field)):
            add(PLAN_BINDING, EVIDENCE, join([SECTION, field]),
                "Conformance field {field} does not equal the conformance plan's {plan_field}.", field=Label(field),
                plan_field=Label(plan_field))
