"""Broken fixtures for the quality family: count rules, eligibility and exact-double rates (all hash-aware).

Most cases use the ``quality_set_counts`` transform: it sets some counts (and descriptor fields) of one slice and
then rewrites all 11 stored rates as the correctly rounded doubles of their exact fractions, so the only thing wrong
in the mutant is the rule the case is about (the rates agree with the broken counts; only the count rules catch it).
Slices 1 (contact) and 2 (person) are preferred: they are diagnostics, so no gate actual changes.

Codes that a schema-valid artifact cannot reach (non-integer, negative or absent counts, a non-numeric or absent
rate, a rate without counts, a malformed section) are exempt from fixtures and unit-tested on the family directly
(contract_tests/test_quality.py).
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from nerb_verify.canonical import nerb_pretty_bytes  # noqa: E402
from nerb_verify.checks.quality.quality_math import METRICS, exact_metric, is_open_world_eligible  # noqa: E402

EVIDENCE = "benchmark-evidence.json"
MANIFEST = "benchmark-manifest.json"


def recompute_metrics(item: dict[str, Any]) -> None:
    """Rewrite ``item["metrics"]`` as the correctly rounded doubles of the exact rates (None where not evaluated)."""
    eligible = is_open_world_eligible(item.get("label_strength"), item.get("annotation_completeness"))
    metrics = {}
    for metric in METRICS:
        exact = exact_metric(metric, item, eligible)
        metrics[metric.name] = None if exact is None else float(exact)
    item["metrics"] = metrics


def quality_set_counts(root: Path, slice: int, counts: dict[str, Any] | None = None,
                       fields: dict[str, Any] | None = None, keep_metrics: bool = False) -> None:
    """Set counts/fields of evidence slice ``slice``, then recompute its stored rates (unless ``keep_metrics``)."""
    path = root / EVIDENCE
    evidence = json.loads(path.read_text(encoding="utf-8"))
    item = evidence["quality"]["slices"][slice]
    item.update(counts or {})
    item.update(fields or {})
    if not keep_metrics:
        recompute_metrics(item)
    path.write_bytes(nerb_pretty_bytes(evidence))


def _gate_passes(value: Any, operator: str, threshold: Any) -> bool:
    """A gate's outcome as the verifier decides it: exact rationals, the threshold read as its shortest decimal."""
    if isinstance(value, Fraction):
        limit = Fraction(str(threshold))
    else:
        value, limit = Fraction(value), Fraction(threshold)
    return value >= limit if operator == "gte" else value <= limit if operator == "lte" else value == limit


def quality_forge_slice(root: Path, slice: int, counts: dict[str, int]) -> None:
    """A coherent forgery of one slice: set its counts, rewrite its 11 rates as the exact doubles of the new counts,
    and rewrite every promotion check on the slice (actual copied from the new value, passed decided exactly), the
    way a forger who knows every derived field would. Summary and figure text is edited by the case's own ops."""
    path = root / EVIDENCE
    evidence = json.loads(path.read_text(encoding="utf-8"))
    item = evidence["quality"]["slices"][slice]
    item.update(counts)
    recompute_metrics(item)
    eligible = is_open_world_eligible(item.get("label_strength"), item.get("annotation_completeness"))
    exact = {m.name: exact_metric(m, item, eligible) for m in METRICS}
    prefix = f"/quality/slices/{slice}/"
    for check in evidence["promotion"]["checks"]:
        target = check["target"]
        if not target.startswith(prefix):
            continue
        name = target[len(prefix):]
        if name.startswith("metrics/"):
            check["actual"] = item["metrics"][name[len("metrics/"):]]
            value = exact[name[len("metrics/"):]]
        else:
            check["actual"] = value = item[name]
        check["passed"] = value is not None and _gate_passes(value, check["operator"], check["threshold"])
    path.write_bytes(nerb_pretty_bytes(evidence))


TRANSFORMS = {"quality_set_counts": quality_set_counts, "quality_forge_slice": quality_forge_slice}


def _counts(slice_index: int, counts: dict[str, Any], fields: dict[str, Any] | None = None,
            keep_metrics: bool = False) -> dict[str, Any]:
    args: dict[str, Any] = {"slice": slice_index, "counts": counts}
    if fields:
        args["fields"] = fields
    if keep_metrics:
        args["keep_metrics"] = True
    return {"op": "json_edit", "transform": "quality_set_counts", "args": args}


def _set(pointer: str, value: Any, file: str = EVIDENCE) -> dict[str, Any]:
    return {"op": "json_set", "file": file, "pointer": pointer, "value": value}


def _case(code: str, slug: str, ops: list[dict[str, Any]], description: str,
          codes: list[str] | None = None) -> dict[str, Any]:
    return {"code": code, "slug": slug, "base": "nerb-enron", "ops": ops, "reseal": True,
            "description": description,
            "expect": {"verdict": "rejected", "codes": codes if codes is not None else [code]}}


CASES = [
    _case("quality.metric_mismatch", "precision-nudged-1e-11",
          [_set("/quality/slices/0/metrics/precision", 0.9530201342381879)],
          "The combined precision 142/149 is stored 1e-11 too high: within NERB's tolerance, not the exact double."),
    _case("quality.metric_mismatch", "recall-one-ulp",
          [_set("/quality/slices/2/metrics/open_world_recall", 0.015785319652722972)],
          "The person span recall 20/1267 is stored one unit in the last place away from its correct double."),
    _case("quality.metric_unexpected_null", "precision-null",
          [_set("/quality/slices/0/metrics/precision", None)],
          "The combined precision (defined: 149 predictions) is published as null."),
    _case("quality.metric_should_be_null", "cataloged-rates-without-cataloged-gold",
          [_counts(2, {"cataloged_gold_spans": 0, "cataloged_true_positive": 0, "documents_with_cataloged_gold": 0}),
           _set("/quality/slices/2/metrics/cataloged_recall", 1.0),
           _set("/quality/slices/2/metrics/cataloged_document_leak_rate", 0.0)],
          "A person slice with no cataloged gold publishes cataloged recall 1.0 and leak rate 0.0 instead of null."),
    _case("quality.not_evaluated_has_slices", "evaluated-false",
          [_set("/quality/evaluated", False)],
          "Quality is marked not evaluated but its three slices are still published (the gates on them then "
          "cannot be evaluated).", codes=["gate.not_evaluated", "quality.not_evaluated_has_slices"]),
    _case("quality.count_identity", "predicted-characters-off-by-one",
          [_counts(2, {"predicted_characters": 264})],
          "Person predicted characters 264 != covered 263 + over-redacted 0."),
    _case("quality.count_bounds", "leaked-documents-exceed-gold-documents",
          [_counts(2, {"documents_with_any_leaked_character": 62})],
          "62 person documents with a leaked character, but only 61 documents have gold (and only 59 a miss).",
          codes=["quality.count_bounds", "quality.leaked_documents_without_miss"]),
    _case("quality.leaked_documents_without_miss", "person-leak-in-a-document-without-a-miss",
          [_counts(2, {"documents_with_any_leaked_character": 60})],
          "60 person documents with a leaked character, but only 59 with a missed span (a leaked character lies in "
          "a span that is not matched)."),
    _case("quality.cataloged_tp_partition", "wrong-canonical-beyond-tp",
          [_counts(1, {"cataloged_wrong_canonical": 1, "cataloged_false_negative": 3})],
          "Contact cataloged TP 122 + wrong canonical 1 exceeds TP 122 (identities kept)."),
    _case("quality.empty_prediction_characters", "no-predictions-but-characters",
          [_counts(2, {"true_positive": 0, "false_positive": 0, "predicted_spans": 0, "false_negative": 1267,
                       "cataloged_true_positive": 0, "cataloged_false_negative": 20,
                       "documents_with_any_miss": 61, "documents_with_any_cataloged_miss": 10})],
          "The person slice has no predicted spans but 263 predicted characters."),
    _case("quality.empty_sensitive_characters", "no-sensitive-characters-but-covered",
          [_counts(1, {"sensitive_gold_characters": 0})],
          "Contact sensitive characters 0 while 2,920 are covered (also breaks the identity, the bound and the "
          "combined = contact + person panel sum).",
          codes=["manifest.panel_support", "quality.count_bounds", "quality.count_identity", "quality.empty_sensitive_characters"]),
    _case("quality.exact_recall_characters", "no-misses-but-leaks",
          [_counts(1, {"true_positive": 126, "false_negative": 0, "predicted_spans": 132,
                       "cataloged_true_positive": 126, "cataloged_false_negative": 0,
                       "documents_with_any_miss": 0, "documents_with_any_cataloged_miss": 0,
                       "covered_sensitive_characters": 2919, "leaked_sensitive_characters": 1,
                       "predicted_characters": 3145, "documents_with_any_leaked_character": 1})],
          "Contact has no span misses but reports one leaked character in one document."),
    _case("quality.document_partition", "negatives-off-by-one",
          [_counts(2, {"negative_documents": 38})],
          "Person: 61 positive + 38 negative documents != 100 documents."),
    _case("quality.document_event_zero_together", "leaks-without-leaked-documents",
          [_counts(2, {"documents_with_any_leaked_character": 0})],
          "Person: 11,733 leaked characters but no document with a leaked character."),
    _case("quality.document_event_bounds", "negative-predictions-exceed-fp",
          [_counts(2, {"negative_documents_with_predictions": 2})],
          "Person: 2 negative documents with predictions but only 1 false positive."),
    _case("quality.character_universe", "universe-too-small",
          [_counts(2, {"over_redacted_characters": 100, "predicted_characters": 363, "evaluated_characters": 12050})],
          "Person: 11,996 sensitive + 100 over-redacted characters exceed 12,050 evaluated characters."),
    _case("quality.ineligible_open_world_counts", "partial-labels-keep-false-positives",
          [_counts(2, {}, fields={"annotation_completeness": "partial"}),
           _set("/labels/2/annotation_completeness", "partial", MANIFEST)],
          "The person labels become partial (manifest and slice agree) but the slice keeps FP, character and "
          "negative-document counts that only exhaustive labels support."),
    _case("quality.unsupported_strength", "synthetic-strength-slice",
          [_counts(2, {"false_positive": 0, "predicted_spans": 20, "sensitive_gold_characters": 0,
                       "covered_sensitive_characters": 0, "leaked_sensitive_characters": 0,
                       "predicted_characters": 0, "over_redacted_characters": 0, "evaluated_characters": 0,
                       "negative_documents": 0, "negative_documents_with_predictions": 0,
                       "documents_with_any_leaked_character": 0},
                   fields={"label_strength": "synthetic_conformance"})],
          "The person slice claims synthetic conformance labels, which cannot support natural-text quality (its "
          "open-world counts zeroed as an ineligible slice requires; the label binding and panel sums also break).",
          codes=["manifest.panel_support", "manifest.slice_label_binding", "quality.unsupported_strength"]),
    _case("quality.invalid_completeness", "completeness-not-applicable",
          [_counts(2, {}, fields={"annotation_completeness": "not_applicable"})],
          "A person slice with counts declares completeness not_applicable (which also unbinds it from its label "
          "and makes its open-world counts ineligible).",
          codes=["manifest.slice_label_binding", "quality.ineligible_open_world_counts",
                 "quality.invalid_completeness"]),
    _case("quality.annotation_scope_mismatch", "person-slice-scoped-to-contact",
          [_set("/quality/slices/2/annotation_scope/entity_classes", ["contact"])],
          "The person slice's annotation scope names the contact class (no longer its label's scope either).",
          codes=["manifest.slice_label_binding", "quality.annotation_scope_mismatch"]),
    _case("quality.invalid_gate", "gate-on-partial-labels",
          [_counts(0, {}, fields={"annotation_completeness": "partial"}, keep_metrics=True)],
          "The combined gate slice declares partial labels (not open-world eligible); the stored gate rates and "
          "counts it keeps are then unsupported, and the gates cannot be evaluated.",
          codes=["gate.not_evaluated", "manifest.invalid_gate_slice", "manifest.slice_label_binding",
                 "quality.ineligible_open_world_counts", "quality.invalid_gate", "quality.metric_should_be_null"]),
    _case("quality.small_slice", "four-documents",
          [_counts(1, {"documents": 4, "negative_documents": 0, "documents_with_sensitive_gold": 4,
                       "documents_with_any_miss": 3, "documents_with_cataloged_gold": 4,
                       "documents_with_any_cataloged_miss": 3})],
          "The contact slice covers 4 documents, below the 5-document privacy minimum (and below its plan).",
          codes=["manifest.panel_support", "manifest.slice_plan_binding", "manifest.slice_population_exactness",
                 "quality.small_slice"]),
    _case("quality.duplicate_slice_id", "person-reuses-contact-id",
          [_set("/quality/slices/2/id", "contact_all_test")],
          "The person slice reuses the contact slice's id (so the slices no longer follow the plan either).",
          codes=["manifest.slice_plan_binding", "manifest.slice_plan_order", "quality.duplicate_slice_id"]),
    _case("quality.slice_identity", "combined-hides-person-false-positive",
          [{"op": "json_edit", "transform": "quality_forge_slice",
            "args": {"slice": 0, "counts": {"false_positive": 6, "predicted_spans": 148}}},
           {"op": "replace_text", "file": "summary.md", "old": "| Precision | 95.30% |", "new": "| Precision | 95.95% |"},
           {"op": "replace_text", "file": "summary.md", "old": "| Predicted spans that were exact | 142 / 149 |",
            "new": "| Predicted spans that were exact | 142 / 148 |"},
           {"op": "replace_text", "file": "figures/standalone-redaction.svg", "old": "142 of 149 predicted spans",
            "new": "142 of 148 predicted spans"},
           {"op": "replace_text", "file": "figures/standalone-redaction.svg",
            "old": 'width="477" height="28" rx="5" fill="#65a9ff"/><rect class="value-bg" x="778" y="294" width="150" '
                   'height="28" rx="5"/><text class="value" x="921" y="314" text-anchor="end">95.30%',
            "new": 'width="480" height="28" rx="5" fill="#65a9ff"/><rect class="value-bg" x="778" y="294" width="150" '
                   'height="28" rx="5"/><text class="value" x="921" y="314" text-anchor="end">95.95%'}],
          "A coherent forgery of the combined panel: the person class's one false positive is dropped from the "
          "combined slice only (FP 7 -> 6, predicted spans 149 -> 148), every combined rate rewritten as its exact "
          "double, the summary's precision and predicted-span rows and the figure's label, bar and description "
          "rewritten, resealed. Every per-slice rule holds; only contact + person = combined sees it."),
    _case("quality.empty", "evaluated-without-slices",
          [_set("/quality/slices", [])],
          "Quality is evaluated but publishes no slices: the plan, the gate slice and the gate targets are gone.",
          codes=["gate.target", "manifest.missing_gate_slice", "manifest.slice_plan_order", "quality.empty"]),
]

# Codes other families must raise for the same edits: summary.md prints figures that the edited counts no longer
# support (its numbers and its verdict are traced to the recomputed figures), and a class slice edited alone no
# longer fits the combined panel (one character universe, predictions a union; span outcomes the class sums,
# document counts unions: quality.slice_identity).
ALSO = {
    "wrong-canonical-beyond-tp": ["quality.slice_identity"],
    "leaks-without-leaked-documents": ["quality.slice_identity"],
    "cataloged-rates-without-cataloged-gold": ["quality.slice_identity"],
    "universe-too-small": ["manifest.panel_support"],
    "evaluated-false": ["summary.number_not_traced", "summary.verdict_mismatch"],
    "no-predictions-but-characters": ["quality.slice_identity", "summary.number_not_traced"],
    "no-misses-but-leaks": ["manifest.panel_support", "quality.slice_identity", "summary.favourable_rounding", "summary.number_misplaced",
                            "summary.number_not_traced"],
    "partial-labels-keep-false-positives": ["summary.number_not_traced"],
    "synthetic-strength-slice": ["summary.number_not_traced"],
    "completeness-not-applicable": ["summary.number_not_traced"],
    "gate-on-partial-labels": ["summary.number_misplaced", "summary.number_not_traced", "summary.ratio_not_traced"],
    "four-documents": ["quality.slice_identity", "summary.number_not_traced"],
    "evaluated-without-slices": ["summary.number_not_traced", "summary.verdict_mismatch"],
}
for _case_item in CASES:
    _case_item["expect"]["codes"] = sorted(set(_case_item["expect"]["codes"]) | set(ALSO.get(_case_item["slug"], [])))
