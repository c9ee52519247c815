"""publication.json (``nerb.enron_publication``): every field recomputed from the other artifacts and compared.

The publication is a seal over the bundle. Its raw-byte artifact hashes and the closed set of files on disk are the
``binding`` family's first layer; here we check what the publication *says*:

* the ``decision`` block (7 booleans/enums) recomputed from the audit chain, the evidence's own quality gate
  checks (exact rationals, decimal thresholds), catalog conformance, the capacity gates and the performance
  report's decision grade;
* the ``scope`` counts from the manifest, evidence and bank card (the gold counts' headline slice must exist and
  be the combined test panel: :mod:`nerb_verify.checks.presentation.gold_slice`);
* the 12 ``bindings`` recomputed (the manifest and performance-report hashes are recomputed from the objects,
  not copied from a field), each recorded as a recomputed figure;
* (the ``privacy`` block is a constant of the schema, reported as ``schema.const``);
* the artifact list is in ascending path order (its raw-byte hashes, sizes, duplicates and the closed file set are
  the ``binding`` and ``bundle`` families' codes, so each problem raises one code);
* ``publication_sha256`` is the canonical hash of the publication without it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nerb_verify import context as C
from nerb_verify.canonical import python_canonical_sha256, self_hash
from nerb_verify.checks.capacity import capacity_absent
from nerb_verify.checks.presentation import gold_slice
from nerb_verify.checks.raw import gate_eval
from nerb_verify.checks.raw._access import as_dict, as_int, as_list, check_self_hash, dig, same
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext
from nerb_verify.findings import Label
from nerb_verify.pointers import join, resolve

A = C.PUBLICATION

MALFORMED = register(
    "publication.malformed", "publication.json lacks a required part or has the wrong type there.",
    "The publication checks need decision, scope, bindings, artifacts and privacy objects; the schema family "
    "reports the detail.")
HASH = register(
    "publication.hash_mismatch", "publication_sha256 is not the canonical hash of the publication.",
    "publication_sha256 must be the canonical (Python-style) SHA-256 of publication.json without that key.")
DECISION = register(
    "publication.decision_mismatch", "A publication decision field differs from the verifier's recomputation.",
    "Each of the seven decision fields is recomputed from the evidence's audit chain and gate checks, the "
    "conformance result, the capacity gates and the performance decision grade; the published value differs.")
SCOPE = register(
    "publication.scope_mismatch", "A publication scope count differs from the artifacts it summarises.",
    "Source rows, prepared records, sealed test frame, gold documents and spans, active patterns and candidate "
    "count are read from the manifest, evidence and bank card; the published count differs.")
BINDING = register(
    "publication.binding_mismatch", "A publication binding hash differs from the recomputed one.",
    "The twelve bindings (manifest, evidence, bank, performance, capacity, audit chain, gold, catalog, score, "
    "prediction audit and measurement commit) are recomputed from the artifacts; the published value differs.")
UNSORTED = register(
    "publication.artifacts_unsorted", "The artifact list is not sorted by path.",
    "Artifacts are listed in ascending path order, one entry per path.")
# Published True where the recomputation says False: reported by the decision family (decision.bundle_overstates_*).
OVERSTATEMENT_FIELDS = frozenset({"standalone_privacy_redaction_allowed", "standalone_privacy_redaction_quality_passed",
                                  "catalog_conformance_passed"})
HEADLINE_SLICE = gold_slice.HEADLINE_SLICE


# Exact readings of JSON numbers are shared with the gate family: a stored double at its binary value, a threshold
# at the decimal it is written as.
_exact = gate_eval.binary_value
_decimal = gate_eval.decimal_value


def quality_gates_pass(ctx: VerifyContext, evidence: dict[str, Any]) -> bool | None:
    """True when every quality gate check holds (exact rationals); False if none exist or one fails.

    The actual value is the verifier's recomputed figure for the target (``ctx.figures``) when available, else the
    exact binary value stored at the target; thresholds are read as the decimals they are written as.
    """
    if dig(evidence, "audit_chain", "score", "status") == "insufficient_support":
        return False
    checks = [c for c in as_list(dig(evidence, "promotion", "checks")) or []
              if isinstance(c, dict) and c.get("category") == "quality"]
    if not checks:
        return False
    for check in checks:
        target, operator = check.get("target"), check.get("operator")
        if not isinstance(target, str):
            return False
        if target in ctx.figures:
            actual = ctx.figures[target]
            if actual is not None and not isinstance(actual, Fraction):
                actual = _exact(actual)
        else:
            found, value = resolve(evidence, target)
            actual = _exact(value) if found else None
        threshold = _decimal(check.get("threshold"))
        if actual is None or threshold is None:
            return False
        holds = {"eq": actual == threshold, "gte": actual >= threshold, "lte": actual <= threshold,
                 "gt": actual > threshold, "lt": actual < threshold}.get(str(operator))
        if holds is not True:
            return False
    return True


def run(ctx: VerifyContext) -> None:
    """Check publication.json (see module docstring)."""
    col = ctx.collector
    pub = ctx.artifact(A)
    if not isinstance(pub, dict):
        col.ran("publication", "not_evaluated", reason=Label("publication.json missing or invalid"))
        return
    check_self_hash(ctx, A, pub, "publication_sha256", HASH)
    _artifacts(ctx, pub)
    gold_slice.run(ctx)
    parts = {
        "decision": _expected_decision(ctx),
        "scope": _expected_scope(ctx),
        "bindings": _expected_bindings(ctx),
    }
    codes = {"decision": DECISION, "scope": SCOPE, "bindings": BINDING}
    evaluated = 0
    for part, expected in parts.items():
        published = as_dict(pub.get(part))
        if published is None:
            col.add(MALFORMED, A, join([part]))
            continue
        for key, value in expected.items():
            pointer = join([part, key])
            if value is _UNKNOWN:
                col.record(A, pointer, f"{part}.{key}", published.get(key), None, False, evaluated=False)
                continue
            evaluated += 1
            match = key in published and same(published.get(key), value)
            shown = value if isinstance(value, (str, int)) and not isinstance(value, bool) else (
                None if value is None else str(value).lower())
            col.record(A, pointer, f"{part}.{key}", published.get(key), shown, match)
            if not match and part == "decision" and key in OVERSTATEMENT_FIELDS and published.get(key) is True:
                continue  # an overstated verdict is the decision family's code (one problem, one code)
            if not match:
                col.add(codes[part], A, pointer, "{field} differs from the recomputed value.",
                        field=Label(f"{part}.{key}"))
        extra = [k for k in published if k not in expected]
        if extra:
            col.add(MALFORMED, A, join([part]), "{part} holds {n} unexpected key(s).", part=Label(part), n=len(extra))
    table = ["Publication (publication.json), recomputed from the other artifacts:"]
    for part in ("decision", "scope", "bindings"):
        rows = [r for r in col.recomputed if r.artifact == A and r.figure.startswith(part + ".")]
        matched = sum(1 for r in rows if r.status == "match")
        table.append(f"  {part:<9} {matched}/{len(rows)} fields match")
    ctx.shared.setdefault("text.tables", []).append(table)
    col.ran("publication", fields=evaluated)


class _Unknown:
    def __repr__(self) -> str:
        return "<not evaluated>"


_UNKNOWN: Any = _Unknown()


def _or_unknown(value: Any) -> Any:
    return _UNKNOWN if value is None else value


def _expected_decision(ctx: VerifyContext) -> dict[str, Any]:
    evidence, report = ctx.evidence, ctx.artifact(C.PERFORMANCE_REPORT)
    capacity = ctx.artifact(C.CAPACITY_DECISION)
    keys = ("standalone_privacy_audit_status", "standalone_privacy_audit_outcome", "catalog_conformance_passed",
            "capacity_gates_passed", "performance_gates_passed", "standalone_privacy_redaction_quality_passed",
            "standalone_privacy_redaction_allowed")
    if not isinstance(evidence, dict):
        return {k: _UNKNOWN for k in keys}
    status = dig(evidence, "audit_chain", "prediction_audit", "status")
    release = dig(evidence, "audit_chain", "prediction_audit", "release")
    conformance = dig(evidence, "catalog_conformance", "passed")
    # Without a capacity decision the capacity gates did not pass (not evaluated is never a pass).
    capacity_passed = False if capacity_absent(ctx) else dig(capacity, "report", "gates", "passed")
    performance_passed = dig(report, "decision_grade", "passed")
    quality = quality_gates_pass(ctx, evidence)
    flags = [conformance, capacity_passed, performance_passed, quality]
    if any(not isinstance(f, bool) for f in flags) or not isinstance(status, str) or not isinstance(release, str):
        allowed: Any = _UNKNOWN
    else:
        allowed = (status == "accepted" and release == "quality_eligible"
                   and dig(evidence, "audit_chain", "prediction_audit", "decision_eligible") is True
                   and all(flags))
    return {
        "standalone_privacy_audit_status": _or_unknown(status if isinstance(status, str) else None),
        "standalone_privacy_audit_outcome": _or_unknown(release if isinstance(release, str) else None),
        "catalog_conformance_passed": _or_unknown(conformance if isinstance(conformance, bool) else None),
        "capacity_gates_passed": _or_unknown(capacity_passed if isinstance(capacity_passed, bool) else None),
        "performance_gates_passed": _or_unknown(performance_passed if isinstance(performance_passed, bool) else None),
        "standalone_privacy_redaction_quality_passed": _or_unknown(quality),
        "standalone_privacy_redaction_allowed": allowed,
    }


def _expected_scope(ctx: VerifyContext) -> dict[str, Any]:
    manifest, evidence, card = ctx.manifest, ctx.evidence, ctx.artifact(C.BANK_CARD)
    gold_docs: Any = _UNKNOWN
    gold_spans: Any = _UNKNOWN
    if isinstance(evidence, dict):
        slices = as_list(dig(evidence, "quality", "slices"))
        headline = next((s for s in slices or [] if isinstance(s, dict) and s.get("id") == HEADLINE_SLICE), None)
        if headline is not None:
            gold_docs = _or_unknown(as_int(headline.get("documents")))
            gold_spans = _or_unknown(as_int(headline.get("gold_spans")))
        elif dig(evidence, "quality", "evaluated") is False and slices == []:
            gold_docs = gold_spans = None
    return {
        "source_input_rows": _or_unknown(as_int(dig(manifest, "source", "input_records"))),
        "prepared_records": _or_unknown(as_int(dig(manifest, "preparation", "output_records"))),
        "sealed_test_frame_documents": _or_unknown(as_int(dig(manifest, "splits", "roles", "test", "records"))),
        "gold_sample_documents": gold_docs,
        "gold_spans": gold_spans,
        "active_patterns": _or_unknown(as_int(dig(evidence, "bank", "active_patterns"))),
        "candidate_count": _or_unknown(as_int(dig(card, "candidate_funnel", "total_candidates"))),
    }


def _hash_or_unknown(value: Any) -> Any:
    if value is None:
        return _UNKNOWN
    try:
        return python_canonical_sha256(value)
    except (TypeError, ValueError):
        return _UNKNOWN


def _expected_bindings(ctx: VerifyContext) -> dict[str, Any]:
    manifest, evidence = ctx.manifest, ctx.evidence
    report, capacity = ctx.artifact(C.PERFORMANCE_REPORT), ctx.artifact(C.CAPACITY_DECISION)
    run_hash: Any = _UNKNOWN
    # The performance family already recomputed the report's run hash; reuse it rather than serialise 1.3 MB again.
    earlier = [r.exact for r in ctx.collector.recomputed
               if r.artifact == C.PERFORMANCE_REPORT and r.figure == "performance.run_sha256"]
    if earlier and isinstance(earlier[-1], str):
        run_hash = earlier[-1]
    elif isinstance(report, dict):
        try:
            run_hash = self_hash(report, "run_sha256")
        except (TypeError, ValueError):
            run_hash = _UNKNOWN

    def field(*path: str | int) -> Any:
        value = dig(evidence, *path)
        return value if isinstance(value, str) else _UNKNOWN

    capacity_hash = dig(capacity, "decision_sha256")
    return {
        "benchmark_manifest_sha256": _hash_or_unknown(manifest),
        "evidence_manifest_sha256": field("manifest_sha256"),
        "bank_sha256": field("bank", "canonical_hash"),
        "performance_manifest_sha256": field("performance_manifest_sha256"),
        "performance_run_sha256": run_hash,
        "capacity_decision_sha256": (None if capacity_absent(ctx) else
                                     capacity_hash if isinstance(capacity_hash, str) else _UNKNOWN),
        "audit_chain_sha256": field("audit_chain", "chain_sha256"),
        "gold_sha256": field("audit_chain", "gold", "gold_sha256"),
        "catalog_binding_sha256": field("audit_chain", "catalog", "catalog_binding_sha256"),
        "score_manifest_sha256": field("audit_chain", "score", "manifest_sha256"),
        "prediction_audit_manifest_sha256": field("audit_chain", "prediction_audit", "manifest_sha256"),
        "measurement_git_commit": field("software", "git_commit"),
    }


def _artifacts(ctx: VerifyContext, pub: dict[str, Any]) -> None:
    """The artifact list is in ascending path order (presence, hashes and the closed set are binding/bundle's)."""
    col = ctx.collector
    artifacts = as_list(pub.get("artifacts"))
    if artifacts is None:
        col.add(MALFORMED, A, "/artifacts")
        return
    paths = [dig(a, "path") for a in artifacts]
    if any(not isinstance(p, str) for p in paths):
        col.add(MALFORMED, A, "/artifacts", "Every artifact entry needs a path.")
        return
    if any(paths[i] > paths[i + 1] for i in range(len(paths) - 1)):
        col.add(UNSORTED, A, "/artifacts")
