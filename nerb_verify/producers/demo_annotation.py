"""The demo's independent gold: two synthetic annotation passes through the real import path, then adjudication.

The demo's answer key knows every (class, surface) the generator planted, but gold read straight from it is
``structured_weak``: nobody annotated or reviewed anything. This module makes the demo exercise the path real gold
takes (:mod:`nerb_verify.producers.annotations`), with annotators that make mistakes of their own:

1. **First pass, exported as Label Studio JSON** (:func:`key_pass_export`): spans from the answer key, located in the
   prepared primary view, with its own deterministic errors: about one planted mention in nine is missed and about
   one person name in seven is cut to the first name (a boundary error).
2. **Second pass, a different generator, written as brat standoff** (:func:`rule_pass_files`): it never reads the
   answer key; it tags addresses with a pattern and person names with a lexicon of first and last names, and errs
   its own way: a signature name after ``Thanks,`` is missed in about one document in four, and about one address
   in six is tagged without its domain.
3. **Import** both files with the real importers (offsets, texts and label names checked), **compare** them
   (agreement counts and conflicts are reported, not hidden), and **adjudicate**: the reviewer (a third identity)
   rules on every disagreement by checking the candidate spans against the planted truth (keep what is true,
   replace a wrong boundary by the true span, reject the rest). Spans both annotators missed are never put to the
   reviewer, so they stay missed, as they would in a real two-pass protocol.

The result is gold whose label artifact may honestly say ``independent``: two producers, a distinct reviewer, and a
content-addressed adjudication record (its SHA-256 is the label's ``adjudication_artifact``). Every function is small
and takes plain inputs so another demo (the decision profile) can call it on its own sample.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nerb_verify.producers import annotations as ann
from nerb_verify.producers import demo_corpus
from nerb_verify.producers.annotations import Decision, Disagreement, Span

KEY_ANNOTATOR = "demo_annotator_key_pass"
RULE_ANNOTATOR = "demo_annotator_rule_pass"
REVIEWER = "demo_adjudicator"
LS_LABELS = {"PERSON": "person", "CONTACT": "contact"}
BRAT_LABELS = {"Person": "person", "Contact": "contact"}
PROTOCOL = {"protocol": "nerb_verify.demo_two_pass_adjudicated.v1", "classes": ["contact", "person"],
            "view": "subject_current_body", "first_pass": "answer-key annotator (Label Studio export)",
            "second_pass": "rule annotator (brat standoff), never reads the answer key",
            "adjudication": "reviewer rules on every disagreement against the planted truth"}
ADDRESS = re.compile(r"[a-z0-9]+(?:\.[a-z0-9]+)*@example\.com")


def _draw(*parts: str) -> int:
    """A deterministic number in [0, 2**32) from the parts (the annotators' 'mistakes' are reproducible)."""
    return int.from_bytes(hashlib.sha256("\0".join(parts).encode("utf-8")).digest()[:4], "big")


def planted_truth(texts: Mapping[str, str], mentions: Mapping[str, list[tuple[str, str]]]) -> set[Span]:
    """The generator's planted mentions located in each document (what the reviewer checks against)."""
    from nerb_verify.producers.evaluation import locate_mentions

    return {Span(doc_id, cls, start, end) for doc_id, text in texts.items()
            for cls, start, end in locate_mentions(text, mentions.get(doc_id, []))}


def key_pass_export(texts: Mapping[str, str], truth: set[Span]) -> list[dict[str, Any]]:
    """The first annotator's work as a Label Studio JSON export (one task per document, one annotation each)."""
    tasks = []
    for number, (doc_id, text) in enumerate(sorted(texts.items()), start=1):
        results = []
        for span in sorted(s for s in truth if s.document_id == doc_id):
            surface = text[span.start:span.end]
            draw = _draw("key", doc_id, str(span.start))
            if draw % 9 == 0:
                continue  # missed
            end = span.end
            if span.entity_class == "person" and draw % 7 == 1 and " " in surface:
                end = span.start + surface.index(" ")  # first name only
            label = "PERSON" if span.entity_class == "person" else "CONTACT"
            results.append({"id": f"r{len(results) + 1}", "type": "labels", "from_name": "label", "to_name": "text",
                            "value": {"start": span.start, "end": end, "text": text[span.start:end],
                                      "labels": [label]}})
        tasks.append({"id": number, "data": {"text": text, "document_id": doc_id},
                      "annotations": [{"id": number, "completed_by": 1, "was_cancelled": False,
                                       "result": results}]})
    return tasks


def _lexicon_names(text: str) -> list[tuple[int, int]]:
    first, last = set(demo_corpus.FIRST), set(demo_corpus.LAST)
    return [(m.start(), m.end()) for m in re.finditer(r"\b([A-Z][a-z]+) ([A-Z][a-z]+)\b", text)
            if m.group(1) in first and m.group(2) in last]


def rule_annotations(doc_id: str, text: str) -> list[tuple[str, int, int]]:
    """The second annotator's spans for one document: (brat type, start, end), with its own errors."""
    spans: list[tuple[str, int, int]] = []
    skip_signature = _draw("rule-signature", doc_id) % 4 == 0
    signature_at = text.rfind("Thanks,\n")
    for start, end in _lexicon_names(text):
        if skip_signature and signature_at >= 0 and start > signature_at:
            continue
        spans.append(("Person", start, end))
    for match in ADDRESS.finditer(text):
        end = match.end()
        if _draw("rule-address", doc_id, str(match.start())) % 6 == 0:
            end = match.start() + match.group().index("@")  # the local part only
        spans.append(("Contact", match.start(), end))
    return sorted(spans, key=lambda s: (s[1], s[2], s[0]))


def _private_write(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def rule_pass_files(texts: Mapping[str, str], folder: Path) -> list[tuple[str, Path, Path]]:
    """Write the second pass as brat standoff (``<n>.txt`` + ``<n>.ann``) under ``folder``; returns the pairs."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    pairs = []
    for number, (doc_id, text) in enumerate(sorted(texts.items()), start=1):
        lines = [f"T{i}\t{kind} {start} {end}\t{text[start:end]}"
                 for i, (kind, start, end) in enumerate(rule_annotations(doc_id, text), start=1)]
        txt, annotation = folder / f"{number}.txt", folder / f"{number}.ann"
        _private_write(txt, text.encode("utf-8"))
        _private_write(annotation, ("\n".join(lines) + "\n").encode("utf-8") if lines else b"")
        pairs.append((doc_id, txt, annotation))
    return pairs


def truth_reviewer(truth: set[Span]):  # type: ignore[no-untyped-def]
    """The reviewer: keep the true spans among a disagreement's candidates, replace wrong boundaries by the truth."""
    def decide(unit: Disagreement) -> Decision:
        doc_id, left, right = unit
        candidates = (*left, *right)
        true_left = [s for s in left if s in truth]
        true_right = [s for s in right if s in truth]
        if true_left and true_right:
            return Decision("accept_both")
        if true_left and len(true_left) == len(left) and not right:
            return Decision("accept_first")
        if true_right and len(true_right) == len(right) and not left:
            return Decision("accept_second")
        overlapping = tuple(sorted(s for s in truth if s.document_id == doc_id
                                   and any(s.start < c.end and c.start < s.end for c in candidates)))
        if overlapping:
            return Decision("replace", overlapping)
        return Decision("reject_both")
    return decide


@dataclass
class DemoGold:
    """The adjudicated gold with its passes, agreement and adjudication (records under the private folder)."""

    gold: list[Span]
    agreement: ann.Agreement
    adjudication: ann.Adjudication
    first: ann.AnnotationPass
    second: ann.AnnotationPass
    protocol_sha256: str


def annotate_sample(texts: Mapping[str, str], mentions: Mapping[str, list[tuple[str, str]]],
                    folder: Path) -> DemoGold:
    """Two passes (Label Studio file, brat files) imported, compared and adjudicated; files kept under ``folder``."""
    from nerb_verify.canonical import python_canonical_sha256

    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    truth = planted_truth(texts, mentions)
    export = folder / "first-pass-label-studio.json"
    _private_write(export, json.dumps(key_pass_export(texts, truth), ensure_ascii=False, indent=1).encode("utf-8"))
    (first,) = ann.import_label_studio(export, label_map=LS_LABELS, annotator_ids={1: KEY_ANNOTATOR})
    for doc_id, text in texts.items():  # a document the first annotator found nothing in is still annotated
        first.add_document(doc_id, text)
    second = ann.import_brat(rule_pass_files(texts, folder / "second-pass-brat"), label_map=BRAT_LABELS,
                             annotator_id=RULE_ANNOTATOR)
    protocol_sha256 = python_canonical_sha256(PROTOCOL)
    agreement = ann.compare_passes(first, second)
    adjudication = ann.adjudicate(first, second, reviewer_id=REVIEWER, decide=truth_reviewer(truth),
                                  protocol_sha256=protocol_sha256)
    _private_write(folder / "adjudication.json", adjudication.record_bytes)
    return DemoGold(adjudication.gold, agreement, adjudication, first, second, protocol_sha256)
