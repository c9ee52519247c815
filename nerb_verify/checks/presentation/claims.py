"""Claim family: no structured claim says more than its evidence, and promotion has its prerequisites.

Each entry of ``promotion.claims`` (spec 10 sections 5.5, 9.8, 9.9 and 11.3) must

* repeat the evidence's provenance (benchmark version, source revision, evaluator source, environment hash);
* match the slice, workload or conformance result it is about: kind, metric, scope, label strength and completeness,
  bank hash (a claim's scope or label strength may never exceed its evidence);
* copy the stored value exactly, and never round the favourable way: read as the decimal it is written as, a
  higher-is-better value must be <= the verifier's exact figure and a lower-is-better value >= it. The exact figures
  are the quality family's fractions, the conformance recall and the performance family's statistics
  (``ctx.figures``); a claim whose figure is missing is not supported.

Claims need a passing verifier; promotion needs claims covering every gate-slice metric, the conformance recall and
the two headline performance workloads. The decision-grade prerequisites are evaluated for every bundle: they are
findings when the bundle claims promotion or a passing verifier, and an informational list in
``decisions["claims"]`` otherwise, together with every stored figure that could never be claimed because its stored
double lies on the favourable side of the exact fraction.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nerb_verify import context as C
from nerb_verify.canonical import python_canonical_sha256
from nerb_verify.checks.raw import gate_eval
from nerb_verify.checks.provenance.lineage import is_promoted, is_verifier_passed
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext
from nerb_verify.findings import Label
from nerb_verify.pointers import join

EV = C.EVIDENCE
FAMILY = "claim"

MALFORMED = register(
    "claim.malformed", "A claim, or the claims list, lacks a required field or has the wrong type there.",
    "promotion.claims is an array of claim objects (spec 10 section 5.5). A malformed claim is not supported.")
PROVENANCE = register(
    "claim.provenance", "A claim's provenance differs from the evidence.",
    "Every claim repeats the benchmark version (test_access), the source revision, the evaluator source hash and the "
    "canonical hash of the evidence's environment object exactly.")
UNSUPPORTED = register(
    "claim.unsupported", "A claim's kind, metric, scope, label strength or subject does not match its evidence.",
    "A claim may not say more than its evidence: it names an existing slice or workload (or the conformance result), "
    "repeats its scope, label strength, annotation completeness and bank exactly, uses a metric of its kind and, for a "
    "decision-grade bundle, is about a promotion-gate subject.")
VALUE_MISMATCH = register(
    "claim.value_mismatch", "A claimed value is not the stored value it claims.",
    "The claimed number must equal the stored figure of its slice, workload or conformance result exactly, and that "
    "figure must not be null.")
FAVOURABLE_ROUNDING = register(
    "claim.favourable_rounding", "A claimed value rounds in the favourable direction.",
    "Read as the decimal it is written as, a higher-is-better claim must not exceed the exact fraction and a "
    "lower-is-better claim must not fall below it. A stored double that lies on the favourable side of the exact "
    "fraction can therefore never be claimed: publish a conservatively rounded value instead.")
NOT_EVALUATED = register(
    "claim.not_evaluated", "A claim's exact figure is not available, so the claim is not supported.",
    "The verifier supports a claim only against its own exact figure (quality fraction, conformance recall or "
    "recomputed performance statistic). If that figure is missing or not evaluated, the claim cannot be supported.")
UNVERIFIED = register(
    "claim.unverified", "Claims are published while the contract verifier did not pass.",
    "Structured claims need verifier.passed true; with a failed verifier, claims must be empty.")
SYNTHETIC = register(
    "claim.synthetic_fixture", "A synthetic fixture claims promotion, verification or results.",
    "artifact_kind synthetic_fixture is test data: it may not set promotion.passed or verifier.passed or carry claims.")
PROMOTION_PREREQUISITE = register(
    "claim.promotion_prerequisite", "Promotion is claimed without a passing verifier or without claims.",
    "promotion.passed needs verifier.passed true and a non-empty claims list.")
MISSING_REQUIRED = register(
    "claim.missing_required", "A promoted bundle lacks a required claim.",
    "Promotion requires claims for all eleven quality metrics of every gate slice, the catalog-conformance recall, a "
    "direct-scan p99 latency on a document workload and a direct-scan MiB/s on a whole-input workload.")
DECISION_GRADE = register(
    "claim.decision_grade_prerequisite", "A promoted or verified bundle does not meet a decision-grade prerequisite.",
    "A bundle that claims promotion or a passing verifier must have: quality, conformance and performance evaluated, "
    "conformance passed, privacy passed, every gate passed, a clean git tree, one test access whose lineage entry "
    "is the passed head, an accepted audit chain, artifact_kind real_benchmark and a manifest whose canonical hash "
    "is manifest_sha256. The message names the prerequisite.")

QUALITY_METRICS = ("precision", "open_world_recall", "f1", "catalog_coverage", "cataloged_recall",
                   "document_leak_rate", "cataloged_document_leak_rate", "sensitive_character_recall",
                   "sensitive_character_leak_rate", "negative_document_false_alarm_rate", "over_redaction_rate")
HIGHER_IS_BETTER = {"precision", "open_world_recall", "f1", "catalog_coverage", "cataloged_recall",
                    "sensitive_character_recall", "catalog_conformance_recall",
                    "direct_bank_scan_mib_per_second", "direct_bank_scan_records_per_second"}
PERFORMANCE_METRICS: dict[str, str] = {
    "direct_bank_scan_median_seconds": "median_seconds",
    "direct_bank_scan_p95_seconds": "p95_seconds",
    "direct_bank_scan_p99_seconds": "p99_seconds",
    "direct_bank_scan_mib_per_second": "mib_per_second",
    "direct_bank_scan_records_per_second": "records_per_second",
    "direct_bank_scan_seconds_per_document": "seconds_per_document",
}
DOCUMENT_ONLY = {"direct_bank_scan_seconds_per_document"}
WHOLE_INPUT_ONLY = {"direct_bank_scan_mib_per_second", "direct_bank_scan_records_per_second"}
SCOPE_FIELDS = ("entity_class", "cohort", "split_role", "text_view")


def _dig(obj: Any, *path: str | int) -> Any:
    for key in path:
        if isinstance(obj, dict) and isinstance(key, str):
            obj = obj.get(key)
        elif isinstance(obj, list) and isinstance(key, int) and 0 <= key < len(obj):
            obj = obj[key]
        else:
            return None
    return obj


def _exact_of(value: object) -> Fraction | None:
    if isinstance(value, Fraction):
        return value
    return gate_eval.binary_value(value)


def favourable(stored: object, exact: Fraction, higher_is_better: bool) -> bool:
    """Whether ``stored``, read as its shortest decimal, lies on the favourable side of ``exact``."""
    decimal = gate_eval.decimal_value(stored)
    if decimal is None:
        return False
    return decimal > exact if higher_is_better else decimal < exact


class _Claims:
    def __init__(self, ctx: VerifyContext, evidence: dict[str, Any]) -> None:
        self.ctx = ctx
        self.ev = evidence
        self.add = ctx.collector.add
        self.promoted = is_promoted(evidence)
        self.verified = is_verifier_passed(evidence)
        self.decision_grade = self.promoted or self.verified
        self.supported = 0

    # -- one claim ---------------------------------------------------------------------------------------------------
    def unsupported(self, base: list[str | int], field: str, why: str) -> None:
        self.add(UNSUPPORTED, EV, join(base + [field]), "Claim field {field} is unsupported: {why}.",
                 field=Label(field), why=Label(why))

    def check(self, i: int, claim: object) -> None:
        base: list[str | int] = ["promotion", "claims", i]
        if not isinstance(claim, dict):
            self.add(MALFORMED, EV, join(base))
            return
        before = len(self.ctx.collector.findings)
        self.provenance(base, claim)
        kind = claim.get("kind")
        if kind == "catalog_conformance":
            self.conformance(base, claim)
        elif kind == "open_world_quality":
            self.quality(base, claim)
        elif kind == "performance":
            self.performance(base, claim)
        else:
            self.add(MALFORMED, EV, join(base + ["kind"]))
        if len(self.ctx.collector.findings) == before:
            self.supported += 1

    def provenance(self, base: list[str | int], claim: dict[str, Any]) -> None:
        try:
            environment = python_canonical_sha256(self.ev.get("environment"))
        except (TypeError, ValueError):
            environment = None
        expected = {
            "benchmark_version": _dig(self.ev, "test_access", "benchmark_version"),
            "source_revision": _dig(self.ev, "source", "revision"),
            "evaluator_source_sha256": _dig(self.ev, "evaluator", "source_sha256"),
            "environment_sha256": environment,
        }
        for field, value in expected.items():
            if not isinstance(value, str) or claim.get(field) != value:
                self.add(PROVENANCE, EV, join(base + [field]), "Claim field {field} does not match the evidence.",
                         field=Label(field))

    def labels(self, base: list[str | int], claim: dict[str, Any], strength: str, completeness: str) -> None:
        if claim.get("label_strength") != strength:
            self.unsupported(base, "label_strength", "the evidence supports " + strength)
        if claim.get("annotation_completeness") != completeness:
            self.unsupported(base, "annotation_completeness", "the evidence supports " + completeness)

    def null_fields(self, base: list[str | int], claim: dict[str, Any], fields: tuple[str, ...]) -> None:
        for field in fields:
            if claim.get(field) is not None:
                self.unsupported(base, field, "this kind of claim has no " + field)
        scope = claim.get("scope")
        if not isinstance(scope, dict) or any(scope.get(f) is not None for f in SCOPE_FIELDS):
            self.unsupported(base, "scope", "this kind of claim has an all-null scope")

    def value(self, base: list[str | int], claim: dict[str, Any], stored: object, pointer: str,
              higher_is_better: bool) -> None:
        """Exact copy of the stored figure, and conservative against the verifier's exact figure."""
        value = claim.get("value")
        if not gate_eval.is_number(value) or value < 0:
            self.add(MALFORMED, EV, join(base + ["value"]))
            return
        if stored is None or not gate_eval.is_number(stored) or _exact_of(value) != _exact_of(stored):
            self.add(VALUE_MISMATCH, EV, join(base + ["value"]))
        exact = _exact_of(self.ctx.figures.get(pointer)) if self.ctx.figures.get(pointer) is not None else None
        if exact is None:
            self.add(NOT_EVALUATED, EV, join(base + ["value"]))
            self.ctx.collector.record(EV, join(base + ["value"]), "claim.value", value, None, False,
                                      evaluated=False)
            return
        bad = favourable(value, exact, higher_is_better)
        self.ctx.collector.record(EV, join(base + ["value"]), "claim.value", value, exact, not bad)
        if bad:
            self.add(FAVOURABLE_ROUNDING, EV, join(base + ["value"]),
                     "The claimed decimal is {side} the exact figure {exact}.",
                     side=Label("above" if higher_is_better else "below"), exact=exact)

    def conformance(self, base: list[str | int], claim: dict[str, Any]) -> None:
        if claim.get("metric") != "catalog_conformance_recall":
            self.unsupported(base, "metric", "a conformance claim is about catalog_conformance_recall")
        self.null_fields(base, claim, ("quality_slice_id", "performance_workload_id"))
        self.labels(base, claim, "synthetic_conformance", "exhaustive_within_scope")
        if claim.get("bank_hash") != _dig(self.ev, "bank", "canonical_hash"):
            self.unsupported(base, "bank_hash", "the claim names another bank")
        if self.decision_grade and self.ctx.figures.get("/catalog_conformance/passed") is not True:
            self.unsupported(base, "kind", "conformance did not pass")
        self.value(base, claim, _dig(self.ev, "catalog_conformance", "recall"), "/catalog_conformance/recall", True)

    def quality(self, base: list[str | int], claim: dict[str, Any]) -> None:
        slices = _dig(self.ev, "quality", "slices")
        slice_id = claim.get("quality_slice_id")
        index = next((k for k, s in enumerate(slices) if isinstance(s, dict) and isinstance(slice_id, str)
                      and s.get("id") == slice_id), None) if isinstance(slices, list) else None
        metric = claim.get("metric")
        if index is None:
            self.unsupported(base, "quality_slice_id", "no quality slice has this id")
            return
        item = slices[index]
        if metric not in QUALITY_METRICS:
            self.unsupported(base, "metric", "an open-world quality claim names one of the eleven quality metrics")
            return
        if claim.get("performance_workload_id") is not None:
            self.unsupported(base, "performance_workload_id", "a quality claim names no workload")
        scope = claim.get("scope")
        for field in SCOPE_FIELDS:
            if not isinstance(scope, dict) or scope.get(field) != item.get(field):
                self.unsupported(base, "scope", "the scope must repeat the slice's " + field)
                break
        self.labels(base, claim, "independent", "exhaustive_within_scope")
        if item.get("label_strength") != "independent" or item.get("annotation_completeness") != \
                "exhaustive_within_scope":
            self.unsupported(base, "quality_slice_id", "the slice is not independent and exhaustive")
        if claim.get("bank_hash") != _dig(self.ev, "bank", "canonical_hash"):
            self.unsupported(base, "bank_hash", "the claim names another bank")
        if self.decision_grade and item.get("promotion_gate") is not True:
            self.unsupported(base, "quality_slice_id", "a decision-grade claim is about a gate slice")
        pointer = join(["quality", "slices", index, "metrics", metric])
        self.value(base, claim, _dig(item, "metrics", metric), pointer, metric in HIGHER_IS_BETTER)

    def performance(self, base: list[str | int], claim: dict[str, Any]) -> None:
        workloads = _dig(self.ev, "performance", "workloads")
        workload_id = claim.get("performance_workload_id")
        index = next((k for k, w in enumerate(workloads) if isinstance(w, dict) and isinstance(workload_id, str)
                      and w.get("id") == workload_id), None) if isinstance(workloads, list) else None
        metric = claim.get("metric")
        if index is None:
            self.unsupported(base, "performance_workload_id", "no workload has this id")
            return
        workload = workloads[index]
        if metric not in PERFORMANCE_METRICS:
            self.unsupported(base, "metric", "a performance claim names a direct-scan statistic")
            return
        if workload.get("phase") != "direct_bank_scan":
            self.unsupported(base, "performance_workload_id", "performance claims are about direct bank scans")
        self.null_fields(base, claim, ("quality_slice_id",))
        self.labels(base, claim, "unlabeled", "not_applicable")
        if claim.get("bank_hash") != workload.get("bank_hash"):
            self.unsupported(base, "bank_hash", "the claim names another bank than its workload")
        unit = workload.get("sample_unit")
        if metric in DOCUMENT_ONLY and unit != "document":
            self.unsupported(base, "metric", "per-document figures need a document workload")
        if metric in WHOLE_INPUT_ONLY and unit != "whole_input":
            self.unsupported(base, "metric", "throughput figures need a whole-input workload")
        if self.decision_grade and not (workload.get("promotion_gate") is True and workload.get("decision_grade")
                                        is True and workload.get("bank_hash") == _dig(self.ev, "bank",
                                                                                      "canonical_hash")):
            self.unsupported(base, "performance_workload_id", "a decision-grade claim is about a promotion-gate "
                             "decision-grade workload on the evaluated bank")
        field = PERFORMANCE_METRICS[metric]
        pointer = join(["performance", "workloads", index, "stats", field])
        self.value(base, claim, _dig(workload, "stats", field), pointer, metric in HIGHER_IS_BETTER)

    # -- the claims list and promotion -------------------------------------------------------------------------------
    def list_rules(self, claims: list[Any]) -> None:
        if claims and not self.verified:
            self.add(UNVERIFIED, EV, "/promotion/claims")
        if self.ev.get("artifact_kind") == "synthetic_fixture":
            for pointer, flag in (("/promotion/passed", self.promoted), ("/verifier/passed", self.verified),
                                  ("/promotion/claims", bool(claims))):
                if flag:
                    self.add(SYNTHETIC, EV, pointer)
        if not self.promoted:
            return
        if not self.verified:
            self.add(PROMOTION_PREREQUISITE, EV, "/promotion/passed", "Promotion needs verifier.passed true.")
        if not claims:
            self.add(PROMOTION_PREREQUISITE, EV, "/promotion/claims", "Promotion needs claims.")
        for missing in self.missing_required(claims):
            self.add(MISSING_REQUIRED, EV, "/promotion/claims", "No claim for {what}.", what=Label(missing))

    def missing_required(self, claims: list[Any]) -> list[str]:
        """Required claims (our own vocabulary) that no claim provides."""
        have: set[tuple[object, object, object]] = set()
        for claim in claims:
            if isinstance(claim, dict):
                have.add((claim.get("kind"), claim.get("metric"),
                          claim.get("quality_slice_id") if claim.get("kind") == "open_world_quality"
                          else claim.get("performance_workload_id")))
        missing: list[str] = []
        slices = _dig(self.ev, "quality", "slices") or []
        for i, item in enumerate(slices):
            if isinstance(item, dict) and item.get("promotion_gate") is True:
                for metric in QUALITY_METRICS:
                    if ("open_world_quality", metric, item.get("id")) not in have:
                        missing.append(f"{metric} of gate slice {i}")
        if not any(k == "catalog_conformance" and m == "catalog_conformance_recall" for k, m, _ in have):
            missing.append("catalog_conformance_recall")
        workloads = _dig(self.ev, "performance", "workloads") or []
        units = {w.get("id"): w.get("sample_unit") for w in workloads if isinstance(w, dict)
                 and isinstance(w.get("id"), str)}
        for metric, unit in (("direct_bank_scan_p99_seconds", "document"),
                             ("direct_bank_scan_mib_per_second", "whole_input")):
            if not any(k == "performance" and m == metric and isinstance(w, str) and units.get(w) == unit
                       for k, m, w in have):
                missing.append(f"{metric} on a {unit} workload")
        return missing

    def decision_grade_unmet(self) -> list[str]:
        """The decision-grade prerequisites of spec 10 section 9.9 that do not hold (our own labels)."""
        ev, figures = self.ev, self.ctx.figures
        unmet: list[str] = []
        if _dig(ev, "quality", "evaluated") is not True:
            unmet.append("quality_evaluated")
        if _dig(ev, "catalog_conformance", "evaluated") is not True:
            unmet.append("conformance_evaluated")
        if figures.get("/catalog_conformance/passed") is not True:
            unmet.append("conformance_passed")
        if _dig(ev, "performance", "evaluated") is not True:
            unmet.append("performance_evaluated")
        if _dig(ev, "privacy", "status") != "passed":
            unmet.append("privacy_passed")
        checks = _dig(ev, "promotion", "checks")
        if not isinstance(checks, list) or not checks or not all(
                gate_eval.evaluate(c, ev, figures).result is True for c in checks):
            unmet.append("every_gate_passed")
        if _dig(ev, "software", "git_dirty") is not False:
            unmet.append("clean_git")
        if _dig(ev, "test_access", "current_version_access_count") != 1:
            unmet.append("one_test_access")
        lineage = _dig(ev, "test_access", "lineage")
        last = lineage[-1] if isinstance(lineage, list) and lineage else None
        if not isinstance(last, dict) or last.get("benchmark_version") != _dig(ev, "test_access", "benchmark_version") \
                or last.get("outcome") != "passed":
            unmet.append("current_lineage_head_passed")
        chain = ev.get("audit_chain")
        accepted = (
            _dig(chain, "gold", "status") == "completed" and _dig(chain, "catalog", "status") == "completed"
            and _dig(chain, "score", "status") == "scored_pending_prediction_audit"
            and _dig(chain, "score", "quality_decision_passed") is True
            and _dig(chain, "prediction_audit", "status") == "accepted"
            and _dig(chain, "gold", "unresolved") == 0 and _dig(chain, "catalog", "unresolved") == 0
            and _dig(chain, "prediction_audit", "unresolved_cases") == 0
            and _dig(chain, "prediction_audit", "gold_defects") == 0
            and _dig(chain, "prediction_audit", "decision_eligible") is True
            and _dig(chain, "prediction_audit", "release") == "quality_eligible")
        if not accepted:
            unmet.append("audit_chain_accepted")
        if ev.get("artifact_kind") != "real_benchmark":
            unmet.append("real_benchmark")
        manifest = self.ctx.manifest
        try:
            manifest_ok = isinstance(manifest, dict) and python_canonical_sha256(manifest) == ev.get("manifest_sha256")
        except (TypeError, ValueError):
            manifest_ok = False
        if not manifest_ok:
            unmet.append("valid_bound_manifest")
        return unmet

    def unclaimable(self) -> list[dict[str, Any]]:
        """Stored figures whose double lies on the favourable side of the exact fraction: never claimable as stored."""
        out: list[dict[str, Any]] = []
        figures = self.ctx.figures

        def consider(pointer: str, metric: str, stored: object, higher: bool, slice_index: int | None = None,
                     workload_index: int | None = None) -> None:
            exact = figures.get(pointer)
            exact = _exact_of(exact) if exact is not None else None
            if exact is None or not gate_eval.is_number(stored) or not favourable(stored, exact, higher):
                return
            item: dict[str, Any] = {"pointer": pointer, "metric": metric,
                                    "direction": "above" if higher else "below",
                                    "better": "higher" if higher else "lower",
                                    "exact": f"{exact.numerator}/{exact.denominator}"}
            out.append(item)

        slices = _dig(self.ev, "quality", "slices")
        for i, item in enumerate(slices if isinstance(slices, list) else []):
            metrics = _dig(item, "metrics")
            for metric in QUALITY_METRICS:
                consider(join(["quality", "slices", i, "metrics", metric]), metric, _dig(metrics, metric),
                         metric in HIGHER_IS_BETTER)
        consider("/catalog_conformance/recall", "catalog_conformance_recall",
                 _dig(self.ev, "catalog_conformance", "recall"), True)
        workloads = _dig(self.ev, "performance", "workloads")
        for w, workload in enumerate(workloads if isinstance(workloads, list) else []):
            if not isinstance(workload, dict) or workload.get("phase") != "direct_bank_scan":
                continue
            for metric, field in PERFORMANCE_METRICS.items():
                consider(join(["performance", "workloads", w, "stats", field]), metric,
                         _dig(workload, "stats", field), metric in HIGHER_IS_BETTER)
        return out


def run(ctx: VerifyContext) -> None:
    """Check every claim against its evidence and the promotion prerequisites (see module docstring)."""
    evidence = ctx.evidence
    if not isinstance(evidence, dict):
        ctx.collector.ran(FAMILY, "not_evaluated", reason=Label("evidence missing or invalid"))
        return
    claims = _dig(evidence, "promotion", "claims")
    family = _Claims(ctx, evidence)
    if not isinstance(claims, list):
        ctx.collector.add(MALFORMED, EV, "/promotion/claims")
        claims = []
    for i, claim in enumerate(claims):
        family.check(i, claim)
    family.list_rules(claims)
    unmet = family.decision_grade_unmet()
    if family.decision_grade:
        pointer = "/verifier/passed" if family.verified else "/promotion/passed"
        for name in unmet:
            ctx.collector.add(DECISION_GRADE, EV, pointer, "Decision-grade prerequisite not met: {name}.",
                              name=Label(name))
    ctx.collector.decisions["claims"] = {
        "made": len(claims),
        "supported": family.supported,
        "decision_grade_claimed": family.decision_grade,
        "decision_grade_unmet": unmet,
        "unclaimable": family.unclaimable(),
    }
    ctx.collector.ran(FAMILY, claims=len(claims), supported=family.supported)
