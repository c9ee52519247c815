"""Quality family: every quality slice's counts, identities and bounds, and every rate recomputed exactly.

Layer 1 of the derivation graph (``nerb_verify.checks``): the evidence's quality and conformance sections.

For each slice of ``benchmark-evidence.json`` ``/quality/slices`` this family

* reads the 23 counts strictly (exact JSON integers >= 0; ``5.0``, ``true`` and ``"5"`` are findings, never coerced);
* checks the descriptor rules (label strength, completeness, gate eligibility, small-slice privacy rule);
* checks every count identity, bound, zero-together pair, documents-vs-events rule, the positive/negative document
  partition and the character universe (spec 10 section 9.3), and that no more documents leak a character than
  have a miss (:mod:`nerb_verify.checks.quality.leak_documents`);
* enforces open-world eligibility: only ``independent`` + ``exhaustive_within_scope`` slices may carry false
  positives, character counts and negative documents; other slices keep hits and misses only;
* binds every combined ``person_contact`` slice to its ``contact`` and ``person`` slices (span sums, document and
  character unions: :mod:`nerb_verify.checks.quality.quality_panel`);
* recomputes the 11 rates as exact ``Fraction`` values (None when the denominator is zero or the rate is open-world on
  an ineligible slice) and requires each stored rate to be exactly the correctly rounded double of that fraction.

Exact values go to ``ctx.figures`` under the evidence pointer of the stored field, for the gate and decision families.
Binding of slices to the manifest's quality plan and labels is the manifest family's job.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nerb_verify.codes import register
from nerb_verify.context import EVIDENCE, VerifyContext
from nerb_verify.findings import Label
from nerb_verify.pointers import join

from nerb_verify.checks.quality.leak_documents import check_leaked_documents
from nerb_verify.checks.quality.quality_panel import check_slice_identities
from nerb_verify.checks.quality.quality_math import (
    COUNT_FIELDS,
    METRIC_NAMES,
    METRICS,
    OPEN_WORLD_ONLY_COUNTS,
    exact_metric,
    is_open_world_eligible,
    is_stored_number,
    stored_rate_matches,
)

FAMILY = "quality"
MIN_PUBLIC_SLICE_DOCUMENTS = 5

MALFORMED = register(
    "quality.malformed_section", "The quality section or a slice does not have the shape the contract requires.",
    "`quality` must be an object with a boolean `evaluated` and a `slices` list of objects, each with a `metrics` "
    "object. The affected part cannot be recomputed, so it is reported instead of being skipped. Fix: emit the "
    "section exactly as the evidence v2 schema declares it.")
NOT_EVALUATED_HAS_SLICES = register(
    "quality.not_evaluated_has_slices", "Quality is marked not evaluated but slices are present.",
    "`quality.evaluated` false means there is no quality evidence; slices beside it are contradictory (a "
    "not-evaluated run must not carry numbers). Fix: set `evaluated` to true or remove the slices.")
EMPTY_QUALITY = register(
    "quality.empty", "Quality is marked evaluated but there are no slices.",
    "An evaluated quality section with no slices would let an empty result pass as success (the charter forbids "
    "zero-filled success). Fix: publish the evaluated slices or mark quality as not evaluated.")
DUPLICATE_SLICE = register(
    "quality.duplicate_slice_id", "Two quality slices share one id.",
    "Slice ids identify slices for gates and claims; a duplicate makes a reference ambiguous. Fix: give every "
    "slice a unique id (the quality plan's id).")
COUNT_MISSING = register(
    "quality.count_missing", "A quality count is absent.",
    "Every slice must publish all 23 integer counts; a missing count is never read as zero. Fix: publish the count.")
COUNT_NOT_INTEGER = register(
    "quality.count_not_integer", "A quality count is not a JSON integer.",
    "Counts must be exact JSON integers: `5.0`, `true` and `\"5\"` are not counts and are never coerced (a float "
    "count could hide a fractional or rounded value). Fix: write the count as an integer literal.")
COUNT_NEGATIVE = register(
    "quality.count_negative", "A quality count is negative.",
    "Counts are sizes of sets and cannot be negative. Fix: recompute the count from the span sets.")
METRIC_ABSENT = register(
    "quality.metric_absent", "A quality rate is absent from the slice's metrics.",
    "All 11 rates must be present (null when not evaluated); an absent key is not the same as a declared null. "
    "Fix: publish every rate, null where the denominator is zero or the slice is not open-world eligible.")
METRIC_NOT_NUMBER = register(
    "quality.metric_not_number", "A stored quality rate is neither a number nor null.",
    "Rates are JSON numbers or null; a string or boolean cannot be compared with the exact fraction. Fix: store "
    "the correctly rounded double of numerator/denominator.")
RATE_WITHOUT_COUNTS = register(
    "quality.rate_without_counts", "A rate is published but the counts it is derived from are missing or invalid.",
    "Every rate must follow from integer counts published beside it; a rate whose numerator or denominator count "
    "cannot be read is unsupported. Fix: publish valid integer counts for the rate's numerator and denominator.")
METRIC_MISMATCH = register(
    "quality.metric_mismatch", "A stored rate is not the correctly rounded double of its exact fraction.",
    "The verifier recomputes each rate as an exact fraction of integer counts; the stored value must equal "
    "float(Fraction(numerator, denominator)) exactly. No tolerance is applied, so a value nudged by one unit in the "
    "last place is reported. Fix: store numerator / denominator computed in double precision from the counts.")
METRIC_SHOULD_BE_NULL = register(
    "quality.metric_should_be_null", "A rate is published where it is not evaluated.",
    "The rate's denominator is zero, or it is an open-world rate on a slice that is not independent + "
    "exhaustive_within_scope; it must be null (not evaluated), never 0, 1 or another number. Fix: publish null.")
METRIC_UNEXPECTED_NULL = register(
    "quality.metric_unexpected_null", "A rate is null although its counts define it.",
    "The denominator is non-zero and the slice is eligible for this rate, so the rate is evaluated; a null hides "
    "the result. Fix: store the correctly rounded double of numerator / denominator.")
UNSUPPORTED_STRENGTH = register(
    "quality.unsupported_strength", "A quality slice uses a label strength that cannot support quality rates.",
    "`unlabeled` and `synthetic_conformance` labels are not natural-text gold; quality slices need independent or "
    "structured-weak labels. Fix: evaluate quality against independent labels, or drop the slice.")
INVALID_COMPLETENESS = register(
    "quality.invalid_completeness", "A quality slice has annotation completeness `not_applicable`.",
    "A slice with counts must declare whether its annotation is exhaustive within scope or partial. Fix: declare "
    "the completeness of the label artifact the slice was scored against.")
ANNOTATION_SCOPE = register(
    "quality.annotation_scope_mismatch", "A slice's entity class does not match its annotation scope.",
    "`person_contact` requires annotation classes exactly [contact, person]; any other class requires exactly that "
    "one class. Otherwise the counts cover a different population than the slice name says. Fix: align the scope.")
INVALID_GATE = register(
    "quality.invalid_gate", "A promotion-gate slice is not open-world eligible or not on the test split.",
    "Only independent, exhaustive_within_scope slices on the sealed test split can gate promotion. Fix: mark the "
    "slice as diagnostic (`promotion_gate` false) or score it on eligible test labels.")
SMALL_SLICE = register(
    "quality.small_slice", "A quality slice covers fewer than 5 documents.",
    "The charter forbids publishing small slices that could enable reconstruction of individual documents "
    "(minimum 5 documents). Fix: merge the slice into a larger one or do not publish it.")
INELIGIBLE_COUNTS = register(
    "quality.ineligible_open_world_counts", "A slice that is not open-world eligible carries open-world counts.",
    "Partial or structured-weak labels support hits and misses only: false positives, the six character counts, "
    "negative documents and leaked-character documents must be 0 there, because an unlabeled span may be real PII. "
    "Fix: zero those counts (and null the open-world rates), or use independent exhaustive labels.")
COUNT_IDENTITY = register(
    "quality.count_identity", "A count identity does not hold.",
    "gold = TP + FN; predicted spans = TP + FP; cataloged gold = cataloged TP + cataloged FN + cataloged wrong "
    "canonical; sensitive characters = covered + leaked; predicted characters = covered + over-redacted. Fix: "
    "recompute the counts from one matching of the same span sets.")
COUNT_BOUNDS = register(
    "quality.count_bounds", "A count exceeds the count that bounds it.",
    "Subsets cannot be larger than their sets (e.g. documents with a miss <= documents with gold, cataloged gold "
    "<= gold, covered characters <= sensitive characters <= evaluated characters). Fix: recompute the counts.")
CATALOGED_TP_PARTITION = register(
    "quality.cataloged_tp_partition", "Cataloged true positives plus wrong canonicals exceed true positives.",
    "Both are matched gold spans, so together they cannot exceed TP. Fix: recompute the cataloged outcomes.")
EMPTY_PREDICTION_CHARACTERS = register(
    "quality.empty_prediction_characters", "No predicted spans, but predicted characters are non-zero.",
    "With zero predicted spans the predicted, covered and over-redacted character counts must all be 0. Fix: "
    "recompute the character unions from the predictions.")
EMPTY_SENSITIVE_CHARACTERS = register(
    "quality.empty_sensitive_characters", "No sensitive characters, but covered or leaked characters are non-zero.",
    "Covered and leaked characters are subsets of the sensitive-gold character union. Fix: recompute the unions.")
EXACT_RECALL_CHARACTERS = register(
    "quality.exact_recall_characters", "No span misses, but characters or documents are reported leaked.",
    "With FN = 0 every gold span is matched exactly, so no sensitive character can leak and no document can have a "
    "leaked character. Fix: recompute the character counts.")
DOCUMENT_PARTITION = register(
    "quality.document_partition", "Positive plus negative documents do not equal the slice's documents.",
    "On an open-world eligible slice every document either has in-scope gold or is a negative document. Fix: "
    "recompute the document counts over the full sample.")
DOCUMENT_EVENT_ZERO = register(
    "quality.document_event_zero_together", "A document count and its event count are not zero together.",
    "Documents with a miss exist exactly when there are misses (and likewise gold, cataloged gold, cataloged "
    "misses, leaked characters). Fix: recompute the document counts from the same events.")
DOCUMENT_EVENT_BOUNDS = register(
    "quality.document_event_bounds", "More documents have an event than there are events.",
    "Each document counted must hold at least one event: documents with a miss <= FN, with a cataloged miss <= "
    "cataloged FN + wrong canonical, with a leaked character <= leaked characters, negative documents with "
    "predictions <= FP. Fix: recompute.")
CHARACTER_UNIVERSE = register(
    "quality.character_universe", "Sensitive plus over-redacted characters exceed the evaluated characters.",
    "Sensitive-gold and over-redacted characters are disjoint subsets of the evaluated character positions. Fix: "
    "recompute the unions over the evaluated universe.")

IDENTITIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("gold_spans", ("true_positive", "false_negative")),
    ("predicted_spans", ("true_positive", "false_positive")),
    ("cataloged_gold_spans", ("cataloged_true_positive", "cataloged_false_negative", "cataloged_wrong_canonical")),
    ("sensitive_gold_characters", ("covered_sensitive_characters", "leaked_sensitive_characters")),
    ("predicted_characters", ("covered_sensitive_characters", "over_redacted_characters")),
)
BOUNDS: tuple[tuple[str, str], ...] = (
    ("documents_with_sensitive_gold", "documents"),
    ("documents_with_sensitive_gold", "gold_spans"),
    ("documents_with_any_miss", "documents_with_sensitive_gold"),
    ("documents_with_cataloged_gold", "documents_with_sensitive_gold"),
    ("documents_with_cataloged_gold", "cataloged_gold_spans"),
    ("documents_with_any_cataloged_miss", "documents_with_cataloged_gold"),
    ("documents_with_any_leaked_character", "documents_with_sensitive_gold"),
    ("cataloged_gold_spans", "gold_spans"),
    ("cataloged_true_positive", "true_positive"),
    ("cataloged_false_negative", "false_negative"),
    ("cataloged_wrong_canonical", "true_positive"),
    ("covered_sensitive_characters", "sensitive_gold_characters"),
    ("sensitive_gold_characters", "evaluated_characters"),
    ("predicted_characters", "evaluated_characters"),
    ("negative_documents_with_predictions", "negative_documents"),
    ("negative_documents", "documents"),
)
# (document field, event fields summed): the document count is zero exactly when the event sum is zero, and never
# exceeds it (the last four pairs); the gold pair is bounded by COUNT_BOUNDS instead.
ZERO_TOGETHER: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("documents_with_any_miss", ("false_negative",)),
    ("documents_with_sensitive_gold", ("gold_spans",)),
    ("documents_with_cataloged_gold", ("cataloged_gold_spans",)),
    ("documents_with_any_cataloged_miss", ("cataloged_false_negative", "cataloged_wrong_canonical")),
    ("documents_with_any_leaked_character", ("leaked_sensitive_characters",)),
)
DOCUMENT_LE_EVENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("documents_with_any_miss", ("false_negative",)),
    ("documents_with_any_cataloged_miss", ("cataloged_false_negative", "cataloged_wrong_canonical")),
    ("documents_with_any_leaked_character", ("leaked_sensitive_characters",)),
    ("negative_documents_with_predictions", ("false_positive",)),
)


def run(ctx: VerifyContext) -> None:
    """Check every quality slice of the evidence and recompute its rates (see module docstring)."""
    evidence = ctx.evidence
    if not isinstance(evidence, dict):
        ctx.collector.ran(FAMILY, "not_evaluated", reason=Label("evidence missing or invalid"))
        return
    quality = evidence.get("quality")
    if not isinstance(quality, dict):
        ctx.collector.add(MALFORMED, EVIDENCE, join(["quality"]))
        ctx.collector.ran(FAMILY, "not_evaluated", reason=Label("quality section malformed"))
        return
    evaluated = quality.get("evaluated")
    slices = quality.get("slices")
    if type(evaluated) is not bool or not isinstance(slices, list):
        where = "evaluated" if type(evaluated) is not bool else "slices"
        ctx.collector.add(MALFORMED, EVIDENCE, join(["quality", where]))
        ctx.collector.ran(FAMILY, "not_evaluated", reason=Label("quality section malformed"))
        return
    ctx.figures["/quality/evaluated"] = evaluated
    if not evaluated:
        if slices:
            ctx.collector.add(NOT_EVALUATED_HAS_SLICES, EVIDENCE, join(["quality", "slices"]))
        ctx.collector.ran(FAMILY, figures=0, slices=0, quality_evaluated=False)
        return
    if not slices:
        ctx.collector.add(EMPTY_QUALITY, EVIDENCE, join(["quality", "slices"]))
        ctx.collector.ran(FAMILY, figures=0, slices=0)
        return
    seen_ids: set[str] = set()
    figures = 0
    for index, item in enumerate(slices):
        if not isinstance(item, dict):
            ctx.collector.add(MALFORMED, EVIDENCE, join(["quality", "slices", index]))
            continue
        slice_id = item.get("id")
        if isinstance(slice_id, str):
            if slice_id in seen_ids:
                ctx.collector.add(DUPLICATE_SLICE, EVIDENCE, join(["quality", "slices", index, "id"]))
            seen_ids.add(slice_id)
        figures += check_slice(ctx, index, item)
    check_slice_identities(ctx, slices)
    ctx.collector.ran(FAMILY, figures=figures, slices=len(slices))


def read_counts(ctx: VerifyContext, index: int, item: dict[str, Any]) -> dict[str, int]:
    """Read the 23 counts strictly; report absent, non-integer and negative counts; return only the valid ones.

    Every count is also published in ``ctx.figures`` (the int, or None when it cannot be read).
    """
    counts: dict[str, int] = {}
    for name in COUNT_FIELDS:
        pointer = join(["quality", "slices", index, name])
        if name not in item:
            ctx.collector.add(COUNT_MISSING, EVIDENCE, pointer, "Count {field} is absent.", field=Label(name))
            ctx.figures[pointer] = None
            continue
        value = item[name]
        if type(value) is not int:
            ctx.collector.add(COUNT_NOT_INTEGER, EVIDENCE, pointer, "Count {field} is not a JSON integer.",
                              field=Label(name))
            ctx.figures[pointer] = None
        elif value < 0:
            ctx.collector.add(COUNT_NEGATIVE, EVIDENCE, pointer, "Count {field} is negative.", field=Label(name))
            ctx.figures[pointer] = None
        else:
            counts[name] = value
            ctx.figures[pointer] = value
    return counts


def check_slice(ctx: VerifyContext, index: int, item: dict[str, Any]) -> int:
    """All rules for one slice; returns how many rates were recorded."""
    base = ["quality", "slices", index]
    strength = item.get("label_strength")
    completeness = item.get("annotation_completeness")
    eligible = is_open_world_eligible(strength, completeness)
    counts = read_counts(ctx, index, item)
    _check_descriptor(ctx, base, item, strength, completeness, eligible, counts)
    _check_counts(ctx, base, counts, eligible)
    check_leaked_documents(ctx, base, counts, eligible)
    return _check_metrics(ctx, index, item, counts, eligible)


def _check_descriptor(ctx: VerifyContext, base: list[Any], item: dict[str, Any], strength: Any, completeness: Any,
                      eligible: bool, counts: dict[str, int]) -> None:
    add = ctx.collector.add
    if strength in ("unlabeled", "synthetic_conformance"):
        add(UNSUPPORTED_STRENGTH, EVIDENCE, join([*base, "label_strength"]))
    if completeness == "not_applicable":
        add(INVALID_COMPLETENESS, EVIDENCE, join([*base, "annotation_completeness"]))
    entity_class = item.get("entity_class")
    scope = item.get("annotation_scope")
    classes = scope.get("entity_classes") if isinstance(scope, dict) else None
    if isinstance(entity_class, str) and isinstance(classes, list):
        expected = ["contact", "person"] if entity_class == "person_contact" else [entity_class]
        if classes != expected:
            add(ANNOTATION_SCOPE, EVIDENCE, join([*base, "annotation_scope", "entity_classes"]))
    if item.get("promotion_gate") is True and (not eligible or item.get("split_role") != "test"):
        add(INVALID_GATE, EVIDENCE, join([*base, "promotion_gate"]))
    documents = counts.get("documents")
    if documents is not None and documents < MIN_PUBLIC_SLICE_DOCUMENTS:
        add(SMALL_SLICE, EVIDENCE, join([*base, "documents"]),
            "The slice covers {n} document(s); at least {minimum} are required.", n=documents,
            minimum=MIN_PUBLIC_SLICE_DOCUMENTS)


def _all(counts: dict[str, int], names: tuple[str, ...] | list[str]) -> bool:
    return all(n in counts for n in names)


def _check_counts(ctx: VerifyContext, base: list[Any], c: dict[str, int], eligible: bool) -> None:
    """Identities, bounds, zero-together pairs, document/event rules, partition and character universe."""
    add = ctx.collector.add
    if not eligible:
        for name in OPEN_WORLD_ONLY_COUNTS:
            if c.get(name, 0) != 0:
                add(INELIGIBLE_COUNTS, EVIDENCE, join([*base, name]),
                    "Count {field} must be 0 on a slice that is not open-world eligible.", field=Label(name))
    for total, parts in IDENTITIES:
        if _all(c, (total, *parts)) and c[total] != sum(c[p] for p in parts):
            add(COUNT_IDENTITY, EVIDENCE, join([*base, total]), "{total} is not the sum of {parts}.",
                total=Label(total), parts=Label(" + ".join(parts)))
    for small, large in BOUNDS:
        if _all(c, (small, large)) and c[small] > c[large]:
            add(COUNT_BOUNDS, EVIDENCE, join([*base, small]), "{small} exceeds {large}.",
                small=Label(small), large=Label(large))
    if _all(c, ("cataloged_true_positive", "cataloged_wrong_canonical", "true_positive")):
        if c["cataloged_true_positive"] + c["cataloged_wrong_canonical"] > c["true_positive"]:
            add(CATALOGED_TP_PARTITION, EVIDENCE, join([*base, "cataloged_true_positive"]))
    if c.get("predicted_spans") == 0:
        for name in ("predicted_characters", "covered_sensitive_characters", "over_redacted_characters"):
            if c.get(name, 0) != 0:
                add(EMPTY_PREDICTION_CHARACTERS, EVIDENCE, join([*base, name]),
                    "{field} must be 0 when there are no predicted spans.", field=Label(name))
    if c.get("sensitive_gold_characters") == 0:
        for name in ("covered_sensitive_characters", "leaked_sensitive_characters"):
            if c.get(name, 0) != 0:
                add(EMPTY_SENSITIVE_CHARACTERS, EVIDENCE, join([*base, name]),
                    "{field} must be 0 when there are no sensitive characters.", field=Label(name))
    if c.get("false_negative") == 0:
        for name in ("leaked_sensitive_characters", "documents_with_any_leaked_character"):
            if c.get(name, 0) != 0:
                add(EXACT_RECALL_CHARACTERS, EVIDENCE, join([*base, name]),
                    "{field} must be 0 when there are no span misses.", field=Label(name))
    if eligible and _all(c, ("documents_with_sensitive_gold", "negative_documents", "documents")):
        if c["documents_with_sensitive_gold"] + c["negative_documents"] != c["documents"]:
            add(DOCUMENT_PARTITION, EVIDENCE, join([*base, "negative_documents"]))
    for doc_field, events in ZERO_TOGETHER:
        if _all(c, (doc_field, *events)) and (c[doc_field] == 0) != (sum(c[e] for e in events) == 0):
            add(DOCUMENT_EVENT_ZERO, EVIDENCE, join([*base, doc_field]),
                "{field} and {events} must be zero together.", field=Label(doc_field),
                events=Label(" + ".join(events)))
    for doc_field, events in DOCUMENT_LE_EVENTS:
        if _all(c, (doc_field, *events)) and c[doc_field] > sum(c[e] for e in events):
            add(DOCUMENT_EVENT_BOUNDS, EVIDENCE, join([*base, doc_field]), "{field} exceeds {events}.",
                field=Label(doc_field), events=Label(" + ".join(events)))
    if _all(c, ("sensitive_gold_characters", "over_redacted_characters", "evaluated_characters")):
        if c["sensitive_gold_characters"] + c["over_redacted_characters"] > c["evaluated_characters"]:
            add(CHARACTER_UNIVERSE, EVIDENCE, join([*base, "over_redacted_characters"]))


def _check_metrics(ctx: VerifyContext, index: int, item: dict[str, Any], counts: dict[str, int],
                   eligible: bool) -> int:
    """Recompute the 11 rates exactly and compare each stored rate with the correctly rounded double."""
    add = ctx.collector.add
    metrics = item.get("metrics")
    metrics_pointer = join(["quality", "slices", index, "metrics"])
    if not isinstance(metrics, dict):
        add(MALFORMED, EVIDENCE, metrics_pointer)
        metrics = {}
    recorded = 0
    for metric in METRICS:
        pointer = join(["quality", "slices", index, "metrics", metric.name])
        figure = f"quality.slices[{index}].{metric.name}"
        present = metric.name in metrics
        stored = metrics.get(metric.name)
        published = stored if (stored is None or is_stored_number(stored)) else None
        if present and stored is not None and not is_stored_number(stored):
            add(METRIC_NOT_NUMBER, EVIDENCE, pointer)
        if not _all(counts, metric.fields):
            # The rate cannot be recomputed: never evaluated, and a published number beside it is unsupported.
            ctx.figures[pointer] = None
            if present and stored is not None:
                add(RATE_WITHOUT_COUNTS, EVIDENCE, pointer, "Rate {metric} has no valid counts to derive it from.",
                    metric=Label(metric.name))
            if not present:
                add(METRIC_ABSENT, EVIDENCE, pointer)
            ctx.collector.record(EVIDENCE, pointer, figure, published, None, False, evaluated=False)
            recorded += 1
            continue
        exact = exact_metric(metric, counts, eligible)
        ctx.figures[pointer] = exact
        if not present:
            add(METRIC_ABSENT, EVIDENCE, pointer)
            ctx.collector.record(EVIDENCE, pointer, figure, None, exact, False, evaluated=exact is not None)
            recorded += 1
            continue
        matches = stored_rate_matches(stored, exact)
        if exact is None:
            if stored is not None and is_stored_number(stored):
                reason = ("open-world rate on a slice that is not open-world eligible"
                          if metric.open_world and not eligible else "denominator is zero")
                add(METRIC_SHOULD_BE_NULL, EVIDENCE, pointer, "Rate {metric} must be null: {reason}.",
                    metric=Label(metric.name), reason=Label(reason))
            ctx.collector.record(EVIDENCE, pointer, figure, published, None, matches, evaluated=False)
        else:
            if stored is None:
                add(METRIC_UNEXPECTED_NULL, EVIDENCE, pointer, "Rate {metric} is null but equals {exact}.",
                    metric=Label(metric.name), exact=exact)
            elif is_stored_number(stored) and not matches:
                add(METRIC_MISMATCH, EVIDENCE, pointer,
                    "Rate {metric} is not the correctly rounded double of {exact}.", metric=Label(metric.name),
                    exact=exact)
            ctx.collector.record(EVIDENCE, pointer, figure, published, exact, matches)
        recorded += 1
    return recorded


def slice_fraction(ctx: VerifyContext, index: int, name: str) -> Fraction | None:
    """The exact rate ``name`` of slice ``index`` as recomputed by this family (None if not evaluated)."""
    value = ctx.figures.get(join(["quality", "slices", index, "metrics", name]))
    return value if isinstance(value, Fraction) else None


__all__ = ["run", "check_slice", "read_counts", "slice_fraction", "METRIC_NAMES"]
