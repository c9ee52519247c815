"""Independent gold, imported: annotation passes from the tools annotators use, their agreement and adjudication.

Charter "Labels": ``independent`` labels need a producer, a *distinct* reviewer, a review status and content-addressed
adjudication evidence, and disagreement between annotators is evidence to report, not noise to hide. This module
turns annotator exports into one model and back into the manifest's label artifact:

* :class:`AnnotationPass`: one annotator's spans (document id, entity class, half-open Unicode-scalar offsets into the
  document text the annotator saw) plus every unit the import skipped, counted by reason (never dropped silently).
* :func:`import_label_studio`: a Label Studio JSON export (a list of tasks with ``data`` and ``annotations``), one pass
  per annotator. Label Studio has stored text offsets both as code points and (older front ends, text with
  characters outside the BMP) as UTF-16 code units; each span is read in the unit under which ``value.text``
  equals the document text, and refused when neither does (or when the two units differ and no ``value.text`` says
  which).
* :func:`import_brat`: brat standoff, ``.ann`` + ``.txt`` pairs (text-bound ``T`` lines; discontinuous spans, relation,
  event, attribute and note lines are counted as skipped). brat offsets are code points of the ``.txt``; the
  annotation's text column must equal them.
* :func:`compare_passes`: inter-annotator agreement on exact (document, class, start, end): matched spans, spans only
  one side has, and *conflicts* (overlapping spans that differ in boundaries or class), per class and overall, with
  the exact pairwise agreement 2|A∩B| / (|A|+|B|).
* :func:`adjudicate`: agreed spans are accepted as they are; every disagreement is put to a reviewer function, whose
  decision (``accept_first``, ``accept_second``, ``accept_both``, ``reject_both``, or an explicit replacement span) is
  recorded. The adjudication record is canonical JSON, so its SHA-256 is the label artifact's
  ``adjudication_artifact``.
* :func:`label_artifact`: the manifest ``labels[]`` entry for the adjudicated gold.

Annotator ids from an export (Label Studio user ids or e-mail addresses) never leave this module: every annotator
is given a pseudonym (``<format>_annotator_<n>``, in order of first appearance) unless the caller maps it to an id of
its own. Error texts name only our own fields and positions, never an input value.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from nerb_verify.canonical import python_canonical_sha256

LABEL_STUDIO = "label_studio_json"
BRAT = "brat_standoff"
DECISIONS = ("accept_first", "accept_second", "accept_both", "reject_both", "replace")
REVIEW_STATUSES = ("unreviewed", "adjudicated")
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
MAX_EXPORT_BYTES = 256 * 1024 * 1024


class AnnotationImportError(ValueError):
    """An export that cannot be imported faithfully; the text names our field and position, never a value."""


@dataclass(frozen=True, order=True)
class Span:
    """One labeled span: half-open Unicode-scalar offsets into the document text."""

    document_id: str
    entity_class: str
    start: int
    end: int


@dataclass
class AnnotationPass:
    """One annotator's labels over a set of documents."""

    annotator_id: str
    source_format: str
    texts: dict[str, str] = field(default_factory=dict)
    spans: list[Span] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    offset_units: Counter[str] = field(default_factory=Counter)
    review_status: str = "unreviewed"

    def add_document(self, document_id: str, text: str) -> None:
        if not isinstance(document_id, str) or not ID_PATTERN.match(document_id):
            raise AnnotationImportError("a document id is not 1-128 letters, digits, '_', '.' or '-'")
        known = self.texts.get(document_id)
        if known is not None and known != text:
            raise AnnotationImportError("one document id names two different texts in one pass")
        self.texts[document_id] = text

    def add_span(self, span: Span) -> None:
        text = self.texts.get(span.document_id)
        if text is None or not 0 <= span.start < span.end <= len(text):
            raise AnnotationImportError("a span lies outside its document")
        if span in self.spans:
            self.skipped["duplicate_span"] += 1
            return
        self.spans.append(span)


class _Pseudonyms:
    """Annotator pseudonyms in order of first appearance, or the caller's own ids."""

    def __init__(self, prefix: str, mapping: Mapping[Any, str] | None) -> None:
        self.prefix = prefix
        self.mapping = dict(mapping or {})
        self.assigned: dict[str, str] = {}

    def __call__(self, raw: Any) -> str:
        key = json.dumps(raw, sort_keys=True, default=str)
        if isinstance(raw, (str, int)) and raw in self.mapping:
            chosen = self.mapping[raw]
            if not ID_PATTERN.match(chosen):
                raise AnnotationImportError("a mapped annotator id is not 1-128 letters, digits, '_', '.' or '-'")
            return chosen
        if key not in self.assigned:
            self.assigned[key] = f"{self.prefix}_annotator_{len(self.assigned) + 1}"
        return self.assigned[key]


def _utf16_to_scalar(text: str) -> list[int] | None:
    """Index i (UTF-16 code units) -> scalar index, or None when the text has no character outside the BMP."""
    if all(ord(ch) < 0x10000 for ch in text):
        return None
    table: list[int] = []
    for index, ch in enumerate(text):
        table.append(index)
        if ord(ch) >= 0x10000:
            table.append(-1)  # the low surrogate: not a character boundary
    table.append(len(text))
    return table


def _label_studio_span(text: str, value: Mapping[str, Any], where: str) -> tuple[int, int, str]:
    """(start, end, unit) in Unicode scalars for a Label Studio ``value`` (code points, else UTF-16 code units)."""
    start, end = value.get("start"), value.get("end")
    if type(start) is not int or type(end) is not int:
        raise AnnotationImportError(f"{where}: value.start/value.end are not integers")
    surface = value.get("text")
    candidates: dict[tuple[int, int], str] = {}
    if 0 <= start < end <= len(text):
        candidates[(start, end)] = "code_point"
    table = _utf16_to_scalar(text)
    if table is not None and 0 <= start < end < len(table) and table[start] >= 0 and table[end] >= 0:
        candidates.setdefault((table[start], table[end]), "utf16_code_unit")
    if isinstance(surface, str):
        chosen = [(s, e, unit) for (s, e), unit in candidates.items() if text[s:e] == surface]
    elif surface is None:
        chosen = [(s, e, unit) for (s, e), unit in candidates.items()]
        if len(chosen) > 1:
            raise AnnotationImportError(f"{where}: offsets are ambiguous (text outside the BMP, no value.text)")
    else:
        raise AnnotationImportError(f"{where}: value.text is not a string")
    if not chosen:
        raise AnnotationImportError(f"{where}: the offsets do not select value.text in either offset unit")
    return chosen[0]


def import_label_studio(export: Any, *, label_map: Mapping[str, str], text_key: str = "text",
                        id_key: str = "document_id", annotator_ids: Mapping[Any, str] | None = None,
                        ) -> list[AnnotationPass]:
    """One :class:`AnnotationPass` per annotator of a Label Studio JSON export (see module docstring).

    ``label_map`` maps Label Studio label names to our entity classes (``{"PERSON": "person"}``); a label outside it is
    counted as ``unmapped_label``. Cancelled annotations, non-``labels`` results and predictions are counted, never
    imported. The document id is ``data[id_key]`` when present, else ``label_studio_task_<task id>``.
    """
    if isinstance(export, (str, Path)):
        raw = Path(export).read_bytes()
        if len(raw) > MAX_EXPORT_BYTES:
            raise AnnotationImportError("the export is larger than 256 MiB")
        try:
            export = json.loads(raw)
        except ValueError:
            raise AnnotationImportError("the export is not JSON") from None
    if not isinstance(export, list):
        raise AnnotationImportError("a Label Studio export is a JSON list of tasks")
    names = _Pseudonyms("label_studio", annotator_ids)
    passes: dict[str, AnnotationPass] = {}
    for t_index, task in enumerate(export):
        where = f"task {t_index}"
        data = task.get("data") if isinstance(task, dict) else None
        text = data.get(text_key) if isinstance(data, dict) else None
        if not isinstance(text, str):
            raise AnnotationImportError(f"{where}: data has no text string under the configured key")
        doc_id = data.get(id_key)
        if not isinstance(doc_id, str):
            if type(task.get("id")) is not int:
                raise AnnotationImportError(f"{where}: no document id and no integer task id")
            doc_id = f"label_studio_task_{task['id']}"
        annotations = task.get("annotations", [])
        if not isinstance(annotations, list):
            raise AnnotationImportError(f"{where}: annotations is not a list")
        for a_index, annotation in enumerate(annotations):
            a_where = f"{where} annotation {a_index}"
            if not isinstance(annotation, dict):
                raise AnnotationImportError(f"{a_where}: not an object")
            completed = annotation.get("completed_by")
            raw_id = completed.get("id", completed.get("email")) if isinstance(completed, dict) else completed
            if raw_id is None:
                raise AnnotationImportError(f"{a_where}: no completed_by annotator")
            annotator = names(raw_id)
            current = passes.setdefault(annotator, AnnotationPass(annotator, LABEL_STUDIO))
            if annotation.get("was_cancelled") is True:
                # a skipped task is not a document without names: it stays out of this annotator's documents
                current.skipped["cancelled_annotation"] += 1
                continue
            current.add_document(doc_id, text)
            current.skipped["prediction_not_imported"] += len(task.get("predictions") or [])
            for r_index, result in enumerate(annotation.get("result") or []):
                r_where = f"{a_where} result {r_index}"
                if not isinstance(result, dict) or result.get("type") != "labels":
                    current.skipped["non_span_result"] += 1
                    continue
                value = result.get("value")
                labels = value.get("labels") if isinstance(value, dict) else None
                if not isinstance(labels, list) or len(labels) != 1 or not isinstance(labels[0], str):
                    raise AnnotationImportError(f"{r_where}: value.labels is not exactly one label")
                entity_class = label_map.get(labels[0])
                if entity_class is None:
                    current.skipped["unmapped_label"] += 1
                    continue
                start, end, unit = _label_studio_span(text, value, r_where)
                current.offset_units[unit] += 1
                current.add_span(Span(doc_id, entity_class, start, end))
    for current in passes.values():
        if current.skipped["prediction_not_imported"] == 0:
            del current.skipped["prediction_not_imported"]
    return [passes[name] for name in sorted(passes)]


BRAT_TEXT_BOUND = re.compile(r"^T[0-9]+$")


def import_brat(pairs: Iterable[tuple[str, Path, Path]], *, label_map: Mapping[str, str],
                annotator_id: str) -> AnnotationPass:
    """One pass from brat standoff files: ``pairs`` = (document id, ``.txt`` path, ``.ann`` path).

    Text-bound lines ``T<n>\\t<Type> <start> <end>\\t<text>`` become spans when ``Type`` is in ``label_map`` (else
    ``unmapped_label``); discontinuous fragments (``;``) are counted as ``discontinuous_span`` (our span model is
    contiguous and a silent merge would invent characters); relations, events, attributes, normalizations and notes
    are counted by kind. The ``.txt`` must be UTF-8; brat's offsets are its code points; the text column must equal
    the selected characters (newlines inside a span are written as spaces by brat, so they compare as spaces).
    """
    if not ID_PATTERN.match(annotator_id):
        raise AnnotationImportError("the annotator id is not 1-128 letters, digits, '_', '.' or '-'")
    result = AnnotationPass(annotator_id, BRAT)
    for doc_id, txt_path, ann_path in pairs:
        try:
            text = txt_path.read_bytes().decode("utf-8")
            lines = ann_path.read_bytes().decode("utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            raise AnnotationImportError("a brat .txt or .ann file is unreadable or not UTF-8") from None
        result.add_document(doc_id, text)
        for number, line in enumerate(lines, start=1):
            where = f"an .ann line {number}"
            if not line.strip():
                continue
            parts = line.split("\t")
            ident = parts[0]
            if not BRAT_TEXT_BOUND.match(ident):
                result.skipped[{"R": "relation_line", "E": "event_line", "A": "attribute_line",
                                "M": "attribute_line", "N": "normalization_line", "#": "note_line",
                                "*": "equivalence_line"}.get(ident[:1], "unknown_line")] += 1
                continue
            if len(parts) != 3:
                raise AnnotationImportError(f"{where}: a text-bound line needs id, type and offsets, and text")
            head = parts[1].split(" ", 1)
            if len(head) != 2:
                raise AnnotationImportError(f"{where}: no offsets after the type")
            kind, offsets = head
            if ";" in offsets:
                result.skipped["discontinuous_span"] += 1
                continue
            bounds = offsets.split(" ")
            if len(bounds) != 2 or not all(b.isdigit() for b in bounds):
                raise AnnotationImportError(f"{where}: offsets are not two non-negative integers")
            start, end = int(bounds[0]), int(bounds[1])
            entity_class = label_map.get(kind)
            if entity_class is None:
                result.skipped["unmapped_label"] += 1
                continue
            if not 0 <= start < end <= len(text) or \
                    text[start:end].replace("\n", " ").replace("\r", " ") != parts[2].replace("\n", " "):
                raise AnnotationImportError(f"{where}: the offsets do not select the line's text")
            result.offset_units["code_point"] += 1
            result.add_span(Span(doc_id, entity_class, start, end))
    return result


# ------------------------------------------------------------------------------------------------ agreement

@dataclass
class Conflict:
    """Spans of two passes that overlap in one document without being identical (boundaries or class)."""

    document_id: str
    first: tuple[Span, ...]
    second: tuple[Span, ...]

    def to_json(self) -> dict[str, Any]:
        return {"document_id": self.document_id, "first": [_span_json(s) for s in self.first],
                "second": [_span_json(s) for s in self.second]}


@dataclass
class Agreement:
    """Inter-annotator agreement of two passes (counts; nothing hidden, nothing averaged away)."""

    first_annotator: str
    second_annotator: str
    documents: int
    matched: int
    first_only: int
    second_only: int
    conflicts: list[Conflict]
    by_class: dict[str, dict[str, int]]
    first_spans: int
    second_spans: int

    @property
    def pairwise_agreement(self) -> Fraction | None:
        """2|A∩B| / (|A|+|B|) on exact spans (None for two empty passes)."""
        total = self.first_spans + self.second_spans
        return Fraction(2 * self.matched, total) if total else None

    def to_json(self) -> dict[str, Any]:
        agreement = self.pairwise_agreement
        return {"first_annotator": self.first_annotator, "second_annotator": self.second_annotator,
                "documents": self.documents, "first_spans": self.first_spans, "second_spans": self.second_spans,
                "matched_spans": self.matched, "first_only_spans": self.first_only,
                "second_only_spans": self.second_only, "conflicts": len(self.conflicts),
                "pairwise_agreement": None if agreement is None else
                {"numerator": agreement.numerator, "denominator": agreement.denominator},
                "by_class": self.by_class}


def _span_json(span: Span) -> dict[str, Any]:
    return {"entity_class": span.entity_class, "start": span.start, "end": span.end}


def _overlap(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


def compare_passes(first: AnnotationPass, second: AnnotationPass) -> Agreement:
    """Agreement of two passes over the same documents (refused when they saw different texts)."""
    if first.texts.keys() != second.texts.keys():
        raise AnnotationImportError("the two passes cover different documents")
    if any(first.texts[d] != second.texts[d] for d in first.texts):
        raise AnnotationImportError("the two passes saw different texts for one document")
    a, b = set(first.spans), set(second.spans)
    matched = a & b
    only_a, only_b = sorted(a - b), sorted(b - a)
    conflicts: list[Conflict] = []
    for doc_id in sorted(first.texts):
        left = [s for s in only_a if s.document_id == doc_id]
        right = [s for s in only_b if s.document_id == doc_id]
        # connected components of the overlap graph between the two sides' unmatched spans
        pending_left = list(left)
        while pending_left:
            group_left = [pending_left.pop(0)]
            group_right: list[Span] = []
            grew = True
            while grew:
                grew = False
                for span in list(right):
                    if span not in group_right and any(_overlap(span, g) for g in group_left):
                        group_right.append(span)
                        grew = True
                for span in list(pending_left):
                    if any(_overlap(span, g) for g in group_right):
                        group_left.append(span)
                        pending_left.remove(span)
                        grew = True
            if group_right:
                conflicts.append(Conflict(doc_id, tuple(sorted(group_left)), tuple(sorted(group_right))))
    classes = sorted({s.entity_class for s in a | b})
    by_class = {cls: {"matched": sum(s.entity_class == cls for s in matched),
                      "first_only": sum(s.entity_class == cls for s in only_a),
                      "second_only": sum(s.entity_class == cls for s in only_b)} for cls in classes}
    return Agreement(first.annotator_id, second.annotator_id, len(first.texts), len(matched), len(only_a),
                     len(only_b), conflicts, by_class, len(a), len(b))


# ------------------------------------------------------------------------------------------------ adjudication

@dataclass(frozen=True)
class Decision:
    """A reviewer's ruling on one disagreement: a named choice, or ``replace`` with the spans that stand."""

    choice: str
    spans: tuple[Span, ...] = ()


Disagreement = tuple[str, tuple[Span, ...], tuple[Span, ...]]  # (document id, first's spans, second's spans)


@dataclass
class Adjudication:
    """The adjudicated gold and the record of how it was reached (canonical, content-addressed)."""

    gold: list[Span]
    record: dict[str, Any]

    @property
    def record_bytes(self) -> bytes:
        return (json.dumps(self.record, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode()

    @property
    def sha256(self) -> str:
        return "sha256:" + hashlib.sha256(self.record_bytes).hexdigest()

    def artifact_ref(self, artifact_id: str) -> dict[str, Any]:
        return {"id": artifact_id, "sha256": self.sha256, "bytes": len(self.record_bytes)}


def disagreements(first: AnnotationPass, second: AnnotationPass) -> list[Disagreement]:
    """Every unit a reviewer must rule on: each conflict, and each span only one side has with no overlap."""
    agreement = compare_passes(first, second)
    in_conflict = {s for c in agreement.conflicts for s in (*c.first, *c.second)}
    units: list[Disagreement] = [(c.document_id, c.first, c.second) for c in agreement.conflicts]
    for span in sorted(set(first.spans) - set(second.spans) - in_conflict):
        units.append((span.document_id, (span,), ()))
    for span in sorted(set(second.spans) - set(first.spans) - in_conflict):
        units.append((span.document_id, (), (span,)))
    return sorted(units, key=lambda u: (u[0], min(s.start for s in (*u[1], *u[2]))))


def adjudicate(first: AnnotationPass, second: AnnotationPass, *, reviewer_id: str,
               decide: Callable[[Disagreement], Decision], protocol_sha256: str) -> Adjudication:
    """Accept the agreed spans, rule on every disagreement with ``decide`` (the reviewer), record everything.

    The reviewer must be distinct from both annotators (charter: a distinct reviewer). A ``replace`` decision may only
    name spans inside the disagreement's document. The record holds the annotators, the reviewer, the agreement
    counts, and per disagreement the spans of each side and the ruling; its hash is the adjudication artifact.
    """
    if reviewer_id in (first.annotator_id, second.annotator_id) or not ID_PATTERN.match(reviewer_id):
        raise AnnotationImportError("the reviewer must be a valid id distinct from both annotators")
    agreement = compare_passes(first, second)
    gold = set(first.spans) & set(second.spans)
    rulings = []
    for unit in disagreements(first, second):
        doc_id, left, right = unit
        decision = decide(unit)
        if decision.choice not in DECISIONS:
            raise AnnotationImportError("a ruling is not one of the adjudication decisions")
        if decision.choice == "accept_first":
            kept: tuple[Span, ...] = left
        elif decision.choice == "accept_second":
            kept = right
        elif decision.choice == "accept_both":
            kept = left + right
        elif decision.choice == "reject_both":
            kept = ()
        else:
            text = first.texts[doc_id]
            if any(s.document_id != doc_id or not 0 <= s.start < s.end <= len(text) for s in decision.spans):
                raise AnnotationImportError("a replacement span lies outside its disagreement's document")
            kept = decision.spans
        gold.update(kept)
        rulings.append({"document_id": doc_id, "first": [_span_json(s) for s in left],
                        "second": [_span_json(s) for s in right], "decision": decision.choice,
                        "kept": [_span_json(s) for s in kept]})
    record = {"schema_version": "nerb_verify.adjudication.v1", "protocol_sha256": protocol_sha256,
              "annotators": [first.annotator_id, second.annotator_id], "reviewer": reviewer_id,
              "source_formats": [first.source_format, second.source_format],
              "agreement": agreement.to_json(),
              "skipped": {first.annotator_id: dict(sorted(first.skipped.items())),
                          second.annotator_id: dict(sorted(second.skipped.items()))},
              "rulings": rulings,
              "decision_counts": dict(sorted(Counter(r["decision"] for r in rulings).items())),
              "gold_sha256": python_canonical_sha256(sorted([s.document_id, s.entity_class, s.start, s.end]
                                                            for s in gold)),
              "review_status": "adjudicated"}
    return Adjudication(sorted(gold), record)


def label_artifact(*, label_id: str, entity_classes: list[str], document_regions: list[str],
                   span_policy_sha256: str, gold: list[Span], documents_by_role: Mapping[str, int],
                   artifact: Mapping[str, Any], producer_id: str, adjudication: Adjudication,
                   adjudication_id: str, protocol_sha256: str) -> dict[str, Any]:
    """The manifest ``labels[]`` entry for adjudicated gold: ``independent``, exhaustive within its scope.

    ``documents_by_role`` counts every annotated document per split role (negative documents included);
    ``gold`` must be restricted to ``entity_classes`` by the caller (checked). The provenance names the producer
    (the first annotator), the distinct reviewer, ``independently_reviewed: true`` and the adjudication artifact.
    """
    if any(s.entity_class not in entity_classes for s in gold):
        raise AnnotationImportError("a gold span is outside the label's entity classes")
    reviewer = adjudication.record["reviewer"]
    if reviewer == producer_id:
        raise AnnotationImportError("the reviewer must differ from the producer")
    spans_by_role = dict.fromkeys(documents_by_role, 0)
    if len(documents_by_role) != 1:
        raise AnnotationImportError("one label artifact per split role (the caller splits by role)")
    (role,) = documents_by_role
    spans_by_role[role] = len(gold)
    return {
        "id": label_id, "label_strength": "independent",
        "annotation_scope": {"entity_classes": list(entity_classes), "document_regions": list(document_regions),
                             "span_policy_sha256": span_policy_sha256, "exclusions": []},
        "annotation_completeness": "exhaustive_within_scope", "roles": [role],
        "role_populations": [{"role": role, "documents": documents_by_role[role], "spans": len(gold)}],
        "annotation_provenance": {"protocol_sha256": protocol_sha256, "producer_id": producer_id,
                                  "reviewer_id": reviewer, "independently_reviewed": True,
                                  "adjudication_artifact": adjudication.artifact_ref(adjudication_id)},
        "artifact": dict(artifact), "span_count": len(gold)}
