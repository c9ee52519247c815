"""Decision-grade scope: which bundles must meet the promotion-level requirements, and what a smoke bundle reports.

NERB's own verifier skips its promotion-level checks (decision matrix, sweeps, value model, gate slice, capacity) for
any bundle that is not promoted. nerb-verify runs every one of them on every bundle (spec 00 decision 3). What the
result *means* depends on what the bundle declares about itself:

* **decision scope** (the default, and the fail-closed answer whenever anything is missing or malformed): the bundle
  presents decision-grade evidence, so an unmet requirement is an error finding and the bundle is rejected. A bundle
  is in decision scope unless every condition of the smoke scope below holds.
* **smoke scope**: the performance report's ``profile`` is exactly ``"smoke"``, its ``decision_grade.passed`` is not
  true, the evidence is neither promoted nor verifier-passed, and it makes no claim. Such a bundle says plainly that
  it is not decision grade, so an unmet requirement is not tampering: it is reported under
  ``decisions.decision_grade.unmet`` (code, artifact, pointer) and in the text output, and the verdict can still be
  ``verified``. ``--require-decision-grade`` turns it into exit 3.
* **not-claimed scope**: the same, for a ``"decision"``-profile run whose report honestly says its decision grade
  did not pass (``decision_grade.passed`` false, with the recomputed failure codes), not promoted, not
  verifier-passed, no claim. The charter calls such cells *nonpromotable*, not invalid: an unstable or inconclusive
  stability cell, a regressed or noisy cross-path comparison, an absolute bound or CPU capacity the measurement
  honestly misses, a failed decision-grade command, a missing decision cell. None of them is false in a bundle that
  does not claim decision grade, so they are decision outcomes (verified, not eligible, exit 3 under
  ``--require-decision-grade``), exactly as in smoke scope. The report's grade itself is bound to the recomputed one
  (``performance.decision_grade_mismatch``), so "not passed" cannot be said of a run that passed, nor the reverse.

Everything else (hashes, recomputed figures, bindings, lineage, privacy, the strict shape of a smoke report) rejects
in both scopes. A report cannot simply relabel decision cells as smoke: ``performance.smoke_profile_shape`` rejects a
smoke report that carries decision cells, promotion gates, comparisons or value models.
"""

from __future__ import annotations

from typing import Any

from nerb_verify.codes import register
from nerb_verify.context import EVIDENCE, PERFORMANCE_REPORT, VerifyContext
from nerb_verify.findings import Finding

NOT_DECISION_PROFILE = register(
    "performance.not_decision_profile", "The performance report is not a decision-profile run.",
    "A decision-grade bundle needs performance-report.json with profile 'decision' (the full protocol: 19 decision "
    "cells, ten paired blocks, sweeps, break-even model). A 'smoke' run is quick and honest but not decision grade. "
    "Decision-grade requirement: an error for a bundle that presents itself as decision grade, an unmet requirement "
    "for a declared smoke bundle (docs/decision-grade.md).")
CAPACITY_NOT_EVALUATED = register(
    "capacity.not_evaluated", "The bundle has no capacity decision (capacity-decision.json is absent).",
    "A decision-grade bundle ships the portable capacity decision of its full-scale pipeline run, bound by "
    "publication.bindings.capacity_decision_sha256. A declared smoke bundle may omit it (binding null, "
    "capacity_gates_passed false). Decision-grade requirement (docs/decision-grade.md).")

# The promotion-level requirements that say "this is not (yet) decision-grade evidence" rather than "this evidence
# is false". Each is an ordinary error finding in decision scope.
REQUIREMENT_CODES = frozenset({
    NOT_DECISION_PROFILE,
    CAPACITY_NOT_EVALUATED,
    "performance.decision_matrix",
    "performance.sweep_uncontrolled",
    "performance.value_model_policy",
    "manifest.missing_gate_slice",
    # Measured outcomes the frozen protocol calls nonpromotable (charter "Performance And Scale Protocol"): false
    # only in a bundle that claims decision grade.
    "performance.comparison_failed",
    "performance.absolute_policy",
    "performance.cpu_capacity",
    "performance.harness_command_failed",
})

# The check families that evaluate the requirements; each must have run for a bundle to be eligible.
REQUIREMENT_FAMILIES = ("performance", "capacity", "manifest")

SMOKE = "smoke"
DECISION = "decision"
NOT_CLAIMED = "not_claimed"
# Scopes in which the bundle itself says it is not decision grade: unmet requirements are outcomes, not findings.
NON_CLAIMING = (SMOKE, NOT_CLAIMED)
PROFILE_NOT_SMOKE = "performance report profile is not smoke"


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def declared_scope(ctx: VerifyContext) -> tuple[str, list[str]]:
    """The bundle's scope and, for decision scope, the (fixed-vocabulary) reasons it is in decision scope.

    Reads the loaded artifacts (schema-valid or not) so a malformed report cannot talk its way out: every condition
    must positively hold for smoke scope.
    """
    report = ctx.loaded.get(PERFORMANCE_REPORT)
    evidence = ctx.loaded.get(EVIDENCE)
    reasons: list[str] = []
    if _dig(report, "profile") != SMOKE:
        reasons.append(PROFILE_NOT_SMOKE)
    if _dig(report, "decision_grade", "passed") is not False:
        reasons.append("performance report decision_grade.passed is not false")
    if _dig(evidence, "promotion", "passed") is not False:
        reasons.append("evidence promotion.passed is not false")
    if _dig(evidence, "verifier", "passed") is not False:
        reasons.append("evidence verifier.passed is not false")
    if _dig(evidence, "promotion", "claims") != []:
        reasons.append("evidence makes claims")
    if not reasons:
        return SMOKE, []
    if reasons == [PROFILE_NOT_SMOKE] and _dig(report, "profile") == DECISION:
        return NOT_CLAIMED, []  # a decision run that honestly reports it did not pass, and claims nothing
    return DECISION, reasons


def apply(ctx: VerifyContext) -> None:
    """Decide the scope, record ``decisions.decision_grade`` and, in a non-claiming scope (smoke or not claimed),
    move requirement findings out of the findings list into that record (they stay visible; they no longer
    reject)."""
    collector = ctx.collector
    scope, reasons = declared_scope(ctx)
    requirement = [f for f in collector.findings if f.code in REQUIREMENT_CODES]
    if scope in NON_CLAIMING:
        collector.findings = [f for f in collector.findings if f.code not in REQUIREMENT_CODES]
    unmet = _unique(requirement)
    # Eligible only when the requirements were really evaluated: no error anywhere (a rejected bundle is eligible for
    # nothing) and the families that hold them ran.
    evaluated = all(collector.checks_run.get(family, {}).get("status") == "ran"
                    for family in REQUIREMENT_FAMILIES)
    errors = any(f.severity == "error" for f in collector.findings)
    # The performance decision grade recomputed from the raw data (not the report's own claim) must have passed:
    # some failure codes (a dirty worktree) are a graded outcome, not an error finding.
    graded = (collector.decisions.get("performance") or {}).get("decision_grade") == "passed"
    blocked_by = [reason for reason, holds in (("smoke_scope", scope == SMOKE),
                                               ("decision_grade_not_claimed", scope == NOT_CLAIMED),
                                               ("unmet_requirements", bool(unmet)),
                                               ("error_findings", errors), ("families_not_run", not evaluated),
                                               ("performance_grade_not_passed", not graded)) if holds]
    collector.decisions["decision_grade"] = {
        "scope": scope,
        "scope_reasons": reasons,
        "eligible": not blocked_by,
        "blocked_by": blocked_by,
        "unmet": [{"code": f.code, "artifact": f.artifact, "pointer": f.pointer} for f in unmet],
    }


def _unique(findings: list[Finding]) -> list[Finding]:
    seen: dict[tuple[str, str, str], Finding] = {}
    for finding in findings:
        seen.setdefault((finding.code, finding.artifact, finding.pointer), finding)
    return sorted(seen.values(), key=lambda f: (f.code, f.artifact, f.pointer))


def text_line(ctx: VerifyContext) -> str | None:
    """One line for the text output: the decision-grade status and, in smoke scope, the unmet requirement codes."""
    record = ctx.collector.decisions.get("decision_grade")
    if not isinstance(record, dict):
        return None
    if record.get("eligible") is True:
        return "Decision grade: eligible (every decision-grade requirement holds)."
    codes = sorted({str(item["code"]) for item in record.get("unmet", [])})
    if record.get("scope") == SMOKE:
        return ("Decision grade: NOT ELIGIBLE (declared smoke bundle; unmet requirements: "
                + (", ".join(codes) or "none") + ").")
    if record.get("scope") == NOT_CLAIMED:
        return ("Decision grade: NOT ELIGIBLE (the bundle reports its decision grade as not passed; unmet "
                "requirements: " + (", ".join(codes) or "none") + ").")
    parts = []
    for reason in record.get("blocked_by", []):
        text = str(reason).replace("_", " ")
        parts.append(text + ": " + ", ".join(codes) if reason == "unmet_requirements" else text)
    return "Decision grade: NOT ELIGIBLE (" + "; ".join(parts) + ")."
