"""Quality evaluator (spec 50 section 7): sample, gold, catalog qualification, one-to-one exact matching, slices.

Pipeline, in the order a producer runs it (the sealed test is read once, by the caller, through
:class:`nerb_verify.producers.sealed.SealedTest`):

1. :func:`select_sample` picks a deterministic stratified sample of sealed-test documents (one minimum-rank document
   per leakage group, strata = size band x risk, ``min(2, population)`` per stratum then Hamilton over the residual;
   rank = sha256 of a domain-separated string, spec 50 section 7.4).
2. Gold spans come from the caller (for the demo corpus: the generator's answer key, located in the prepared
   ``subject_current_body`` view; strength ``structured_weak`` because no human annotated or reviewed them).
3. :func:`qualify_catalog` decides the catalog identity of every gold span from the bank alone (never from scan
   output): literal comparison under the pattern's flags, or the regex matching exactly ``[start, end)``.
4. :func:`score_slice` matches predictions one-to-one on (document, class, start, end), checks canonical identity
   separately, and counts characters over per-document interval unions of Unicode scalar indices; every rate is the
   correctly rounded double of an exact ``Fraction`` of the published counts, so the verifier recomputes each one.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from nerb_verify.checks.quality.quality_math import (
    METRICS,
    exact_metric,
    is_open_world_eligible,
)
from nerb_verify.producers.bank_format import Detector, active_detectors

SAMPLE_RANK_DOMAIN = "nerb/enron/sealed-audit-rank/v1"
SIZE_BANDS = ((1023, "short"), (16383, "medium"))
MATCHING = "one_to_one_exact_span_and_class"
POSITIONS = "document_id_unicode_scalar_index"
# Evaluator limits (spec 50 section 7.3): beyond them the run is refused, never truncated.
MAX_DOCUMENT_SCALARS = 10 * 1024 * 1024
MAX_PREDICTIONS_PER_DOCUMENT = 100_000
MAX_PREDICTIONS_PER_RUN = 5_000_000
MAX_GOLD_SPANS = 2_000_000
CLASS_SCOPES = {"person_contact": ("contact", "person"), "contact": ("contact",), "person": ("person",)}


class EvaluationError(ValueError):
    """The evaluator refused its input; the message names only our own fields."""


# ---------------------------------------------------------------------------------------------------------- sample

@dataclass(frozen=True)
class SampleCandidate:
    """One sealed-test document as the sampler sees it: no text, only what the strata need."""

    document_id: str
    group_id: str
    utf8_bytes: int
    risk: bool
    recurrence: str = "none"


def size_band(utf8_bytes: int) -> str:
    """short <= 1,023 bytes, medium <= 16,383, long above (spec 50 section 7.4)."""
    for limit, name in SIZE_BANDS:
        if utf8_bytes <= limit:
            return name
    return "long"


def sample_rank(salt: Sequence[str], document_id: str) -> int:
    """The sample rank: sha256 of the rank domain, the salt parts and the document id, NUL separated."""
    text = "\0".join([SAMPLE_RANK_DOMAIN, *salt, document_id])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest(), "big")


def _hamilton(residual: dict[tuple[str, ...], int], seats: int) -> dict[tuple[str, ...], int]:
    """Largest-remainder allocation of ``seats`` proportional to ``residual`` (ties by stratum key)."""
    total = sum(residual.values())
    if seats <= 0 or total == 0:
        return {key: 0 for key in residual}
    quotas = {key: Fraction(value * seats, total) for key, value in residual.items()}
    alloc = {key: int(q) for key, q in quotas.items()}
    left = seats - sum(alloc.values())
    for key in sorted(quotas, key=lambda k: (-(quotas[k] - alloc[k]), k))[:left]:
        alloc[key] += 1
    return alloc


def select_sample(candidates: Iterable[SampleCandidate], size: int, salt: Sequence[str]) -> list[str]:
    """Deterministic stratified sample without replacement; returns document ids in id order.

    One representative per leakage group (minimum rank) so two sampled documents never share a group; strata are
    (recurrence, size band, risk); each stratum gets ``min(2, population)`` then Hamilton over the residual
    populations; inside a stratum the lowest ranks win. Input order does not matter.
    """
    best: dict[str, tuple[int, SampleCandidate]] = {}
    for item in candidates:
        rank = sample_rank(salt, item.document_id)
        current = best.get(item.group_id)
        if current is None or (rank, item.document_id) < (current[0], current[1].document_id):
            best[item.group_id] = (rank, item)
    strata: dict[tuple[str, ...], list[tuple[int, str]]] = defaultdict(list)
    for rank, item in best.values():
        strata[(item.recurrence, size_band(item.utf8_bytes), "risk" if item.risk else "plain")].append(
            (rank, item.document_id))
    for members in strata.values():
        members.sort()
    population = sum(len(m) for m in strata.values())
    size = min(size, population)
    base = {key: min(2, len(m)) for key, m in strata.items()}
    if sum(base.values()) > size:  # more strata than seats: the lowest-ranked strata heads win
        heads = sorted((m[0][0], key) for key, m in strata.items())[:size]
        return sorted(strata[key][0][1] for _, key in heads)
    extra = _hamilton({key: len(m) - base[key] for key, m in strata.items()}, size - sum(base.values()))
    chosen = [doc for key, m in strata.items() for _, doc in m[: base[key] + extra[key]]]
    return sorted(chosen)


# ------------------------------------------------------------------------------------------ catalog qualification

def _rust_ws(ch: str) -> bool:
    from nerb_verify.producers.engine import WHITE_SPACE
    return ch in WHITE_SPACE


def _collapse_ws(text: str) -> str:
    out: list[str] = []
    previous = False
    for ch in text:
        if _rust_ws(ch):
            if not previous:
                out.append(" ")
            previous = True
        else:
            out.append(ch)
            previous = False
    return "".join(out)


def _ascii_fold(text: str) -> str | None:
    """A-Z lowercasing plus long s and Kelvin; None when another non-ASCII character is present."""
    out = []
    for ch in text:
        if ch == "\u017f":
            out.append("s")
        elif ch == "\u212a":
            out.append("k")
        elif ch.isascii():
            out.append(ch.lower())
        else:
            return None
    return "".join(out)


def _word(ch: str | None) -> bool:
    from nerb_verify.producers.engine import is_word_char
    return ch is not None and is_word_char(ch)


def _boundary_ok(kind: str, before: str | None, first: str, last: str, after: str | None, left: bool) -> bool:
    if kind == "none":
        return True
    if left:
        return _word(before) != _word(first)
    return _word(last) != _word(after)


def literal_qualifies(det: Detector, text: str, start: int, end: int) -> bool:
    """Does the literal ``det`` describe exactly ``text[start:end]`` (flags, whitespace, word boundaries)?"""
    span = text[start:end]
    value = det.value
    if det.normalize_whitespace:
        span, value = _collapse_ws(span), _collapse_ws(value)
    if span != value:
        if det.case_sensitive or not value.isascii():
            return False
        folded = _ascii_fold(span)
        if folded is None or folded != value.lower():
            return False
    before = text[start - 1] if start > 0 else None
    after = text[end] if end < len(text) else None
    if not span:
        return False
    return (_boundary_ok(det.left_boundary, before, span[0], span[-1], after, True)
            and _boundary_ok(det.right_boundary, before, span[0], span[-1], after, False))


def regex_qualifies(det: Detector, text: str, start: int, end: int) -> bool:
    """A regex qualifies when the span and one character of context on each side are ASCII and it matches exactly."""
    import regex

    window = text[max(0, start - 1): end + 1]
    if not window.isascii():
        return False
    flags = regex.IGNORECASE if "IGNORECASE" in det.flags else 0
    try:
        compiled = regex.compile(det.value, flags | regex.VERSION0)
    except regex.error:
        return False
    found = compiled.match(text, start)
    return found is not None and found.end() == end


def qualify_catalog(detectors: Sequence[Detector], text: str, entity_class: str, start: int, end: int
                    ) -> dict[str, str] | None:
    """The catalog identity of one gold span, from the bank alone: the winning active pattern of its class.

    Winner: lowest priority, then name id, then pattern id. None when no active pattern of the class describes the
    span exactly.
    """
    winners = [det for det in detectors if det.entity_id == entity_class and (
        literal_qualifies(det, text, start, end) if det.kind == "literal" else regex_qualifies(det, text, start, end))]
    if not winners:
        return None
    det = min(winners, key=lambda d: (d.priority, d.name_id, d.pattern_id))
    return {"entity_id": det.entity_id, "name_id": det.name_id, "pattern_id": det.pattern_id}


def catalog_index(bank: dict[str, Any]) -> list[Detector]:
    """The active detectors of a bank (the only input catalog qualification reads)."""
    return active_detectors(bank)


# ------------------------------------------------------------------------------------------------------ matching

@dataclass
class GoldSpan:
    """One gold span: (document, class, start, end) in Unicode scalar indices, with its catalog identity or None."""

    document_id: str
    entity_class: str
    start: int
    end: int
    catalog_identity: dict[str, str] | None = None


@dataclass
class Prediction:
    """One scan record converted to scalar indices: its class (entity id) and identity."""

    document_id: str
    entity_class: str
    start: int
    end: int
    name_id: str
    pattern_id: str


@dataclass
class SliceSpec:
    """A quality slice to score (its plan entry, the label's strength and scope)."""

    id: str
    entity_class: str
    label_artifact_id: str
    label_strength: str
    annotation_completeness: str
    annotation_scope: dict[str, Any]
    split_role: str = "test"
    cohort: str = "all"
    text_view: str = "subject_current_body"
    promotion_gate: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _union_length(intervals: list[tuple[int, int]]) -> int:
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def _intersection_length(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    """|union(a) ∩ union(b)| = |A| + |B| - |A ∪ B|."""
    return _union_length(a) + _union_length(b) - _union_length(a + b)


def score_slice(spec: SliceSpec, documents: dict[str, int], gold: Sequence[GoldSpan],
                predictions: Sequence[Prediction]) -> dict[str, Any]:
    """Score one slice: the 23 counts and 11 rates of evidence ``quality.slices[]`` (spec 50 section 7.3).

    ``documents`` maps every sampled document id to its Unicode scalar count. Gold keys must be unique; a gold or
    prediction outside its document's range is refused.
    """
    classes = CLASS_SCOPES[spec.entity_class]
    check_limits(documents, gold, predictions)
    eligible = is_open_world_eligible(spec.label_strength, spec.annotation_completeness)
    gold_in = [g for g in gold if g.entity_class in classes]
    preds_in = [p for p in predictions if p.entity_class in classes and p.document_id in documents]
    keys: set[tuple[str, str, int, int]] = set()
    for g in gold_in:
        key = (g.document_id, g.entity_class, g.start, g.end)
        if key in keys:
            raise EvaluationError("duplicate gold key")
        if g.document_id not in documents or not 0 <= g.start < g.end <= documents[g.document_id]:
            raise EvaluationError("gold span outside its document")
        keys.add(key)
    for p in preds_in:
        if not 0 <= p.start <= p.end <= documents[p.document_id]:
            raise EvaluationError("prediction outside its document")
    by_key: dict[tuple[str, str, int, int], list[Prediction]] = defaultdict(list)
    for p in preds_in:
        by_key[(p.document_id, p.entity_class, p.start, p.end)].append(p)
    c = dict.fromkeys(("true_positive", "cataloged_gold_spans", "cataloged_true_positive", "cataloged_false_negative",
                       "cataloged_wrong_canonical"), 0)
    doc_miss: set[str] = set()
    doc_cat_gold: set[str] = set()
    doc_cat_miss: set[str] = set()
    for g in gold_in:
        same = by_key.get((g.document_id, g.entity_class, g.start, g.end), [])
        identity = g.catalog_identity
        pick = None
        if identity is not None:
            pick = next((p for p in same if p.name_id == identity["name_id"]), None)
        if pick is None and same:
            pick = same[0]
        if pick is not None:
            c["true_positive"] += 1
        else:
            doc_miss.add(g.document_id)
        if identity is not None:
            c["cataloged_gold_spans"] += 1
            doc_cat_gold.add(g.document_id)
            if pick is None:
                c["cataloged_false_negative"] += 1
                doc_cat_miss.add(g.document_id)
            elif pick.name_id == identity["name_id"]:
                c["cataloged_true_positive"] += 1
            else:
                c["cataloged_wrong_canonical"] += 1
                doc_cat_miss.add(g.document_id)
    gold_docs = {g.document_id for g in gold_in}
    counts: dict[str, int] = {
        "documents": len(documents),
        "documents_with_sensitive_gold": len(gold_docs),
        "documents_with_any_miss": len(doc_miss),
        "documents_with_cataloged_gold": len(doc_cat_gold),
        "documents_with_any_cataloged_miss": len(doc_cat_miss),
        "gold_spans": len(gold_in),
        "true_positive": c["true_positive"],
        "false_negative": len(gold_in) - c["true_positive"],
        "cataloged_gold_spans": c["cataloged_gold_spans"],
        "cataloged_true_positive": c["cataloged_true_positive"],
        "cataloged_false_negative": c["cataloged_false_negative"],
        "cataloged_wrong_canonical": c["cataloged_wrong_canonical"],
    }
    if eligible:
        g_iv: dict[str, list[tuple[int, int]]] = defaultdict(list)
        p_iv: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for g in gold_in:
            g_iv[g.document_id].append((g.start, g.end))
        for p in preds_in:
            if p.end > p.start:
                p_iv[p.document_id].append((p.start, p.end))
        sensitive = sum(_union_length(v) for v in g_iv.values())
        covered = sum(_intersection_length(g_iv[d], p_iv.get(d, [])) for d in g_iv)
        predicted_chars = sum(_union_length(v) for v in p_iv.values())
        leaked_docs = sum(1 for d in g_iv if _union_length(g_iv[d]) > _intersection_length(g_iv[d], p_iv.get(d, [])))
        negatives = [d for d in documents if d not in gold_docs]
        pred_docs = {p.document_id for p in preds_in}
        counts.update({
            "predicted_spans": len(preds_in),
            "false_positive": len(preds_in) - c["true_positive"],
            "sensitive_gold_characters": sensitive,
            "covered_sensitive_characters": covered,
            "leaked_sensitive_characters": sensitive - covered,
            "predicted_characters": predicted_chars,
            "over_redacted_characters": predicted_chars - covered,
            "evaluated_characters": sum(documents.values()),
            "negative_documents": len(negatives),
            "negative_documents_with_predictions": sum(1 for d in negatives if d in pred_docs),
            "documents_with_any_leaked_character": leaked_docs,
        })
    else:
        counts.update(dict.fromkeys((
            "false_positive", "sensitive_gold_characters", "covered_sensitive_characters",
            "leaked_sensitive_characters", "predicted_characters", "over_redacted_characters",
            "evaluated_characters", "negative_documents", "negative_documents_with_predictions",
            "documents_with_any_leaked_character"), 0))
        counts["predicted_spans"] = c["true_positive"]
    metrics: dict[str, float | None] = {}
    for metric in METRICS:
        exact = exact_metric(metric, counts, eligible)
        metrics[metric.name] = None if exact is None else float(exact)
    return {
        "id": spec.id, "entity_class": spec.entity_class, "label_artifact_id": spec.label_artifact_id,
        "label_strength": spec.label_strength, "annotation_completeness": spec.annotation_completeness,
        "annotation_scope": spec.annotation_scope, "split_role": spec.split_role, "cohort": spec.cohort,
        "text_view": spec.text_view, "promotion_gate": spec.promotion_gate, **counts, "metrics": metrics,
        **spec.extra,
    }


def check_limits(documents: dict[str, int], gold: Sequence[GoldSpan], predictions: Sequence[Prediction]) -> None:
    """Refuse inputs beyond the evaluator's limits (document size, predictions per document and per run, gold)."""
    if len(gold) > MAX_GOLD_SPANS or len(predictions) > MAX_PREDICTIONS_PER_RUN:
        raise EvaluationError("evaluator limit exceeded: gold spans or predictions per run")
    if any(size > MAX_DOCUMENT_SCALARS for size in documents.values()):
        raise EvaluationError("evaluator limit exceeded: document size")
    per_document: dict[str, int] = defaultdict(int)
    for p in predictions:
        per_document[p.document_id] += 1
    if any(count > MAX_PREDICTIONS_PER_DOCUMENT for count in per_document.values()):
        raise EvaluationError("evaluator limit exceeded: predictions per document")


def predictions_from_records(records: Iterable[dict[str, Any]]) -> list[Prediction]:
    """Scan records (``offsets="char"``, with ``document_id``) as predictions; class = entity id."""
    out = []
    for r in records:
        if r.get("offset_unit") != "char":
            raise EvaluationError("predictions must use Unicode scalar offsets")
        out.append(Prediction(r["document_id"], r["entity_id"], r["start"], r["end"], r["name_id"], r["pattern_id"]))
    return out


def locate_mentions(text: str, mentions: Iterable[tuple[str, str]]) -> list[tuple[str, int, int]]:
    """Every non-overlapping occurrence (scalar offsets) of each (class, surface) mention in ``text``, de-duplicated.

    Used to turn a generator's answer key (which knows which names and addresses it planted) into gold spans in the
    prepared view's coordinates.
    """
    found: set[tuple[str, int, int]] = set()
    for entity_class, surface in mentions:
        if not surface:
            continue
        position = text.find(surface)
        while position >= 0:
            found.add((entity_class, position, position + len(surface)))
            position = text.find(surface, position + len(surface))
    return sorted(found, key=lambda t: (t[1], t[2], t[0]))


def exact_rate(numerator: int, denominator: int) -> Fraction | None:
    """A helper for reports: the exact rate or None on an empty denominator."""
    return None if denominator == 0 else Fraction(numerator, denominator)
