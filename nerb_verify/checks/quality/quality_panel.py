"""Slice identities: a combined ``person_contact`` slice against its ``contact`` and ``person`` slices.

Exact-span matching is one-to-one and its match key includes the entity class (spec 10 section 10), so scoring the
combined slice is scoring each class and putting the outcomes together. Neither class can be hidden in the combined
total:

* span outcomes are per-class **sums**: true positives, false negatives and the four cataloged outcomes always; false
  positives and predicted spans when all three slices are open-world eligible (an ineligible slice keeps hits and
  misses only);
* document counts are **unions** of the classes' documents, so they lie between the larger class value and the
  class sum: documents with gold, with a miss, with cataloged gold and with a cataloged miss;
* character counts are per-document interval unions across both classes (eligible slices only): covered sensitive
  characters are at least each class's (a class's covered characters stay covered in the union), leaked characters
  at most the two together (a leaked character is leaked in its own class), and likewise documents with a leaked
  character and negative documents with a prediction (a document negative for both classes is negative for each).

The identities the manifest family already binds for the gate panel (documents, gold spans, sensitive, predicted,
over-redacted and evaluated characters, negative documents; ``manifest.panel_support``) are not repeated here.
Counts are read from ``ctx.figures`` (the quality family's strict reading); an unreadable count is skipped, because
it has its own finding.
"""

from __future__ import annotations

from typing import Any

from nerb_verify.checks.quality.quality_math import is_open_world_eligible
from nerb_verify.codes import register
from nerb_verify.context import EVIDENCE, VerifyContext
from nerb_verify.findings import Label
from nerb_verify.pointers import join

SLICE_IDENTITY = register(
    "quality.slice_identity", "A combined slice's counts are not what its contact and person slices add up to.",
    "Exact-span matching is one-to-one and includes the class, so the combined person_contact slice's true "
    "positives, false negatives and cataloged outcomes (and, on open-world eligible slices, false positives and "
    "predicted spans) are the contact + person sums; documents with gold, with a miss, with cataloged gold and with "
    "a cataloged miss are unions, between the larger class value and the class sum; covered characters are at least "
    "each class's, leaked characters, documents with a leaked character and negative documents with a prediction at "
    "most the classes' together. A combined count outside these bounds hides (or invents) a class's outcome. Fix: "
    "score the combined and the per-class slices from one matching of the same spans.")

COMBINED = "person_contact"
CLASSES = ("contact", "person")
BINDING_KEYS = ("split_role", "cohort", "text_view")
SPAN_SUMS = ("true_positive", "false_negative", "cataloged_gold_spans", "cataloged_true_positive",
             "cataloged_false_negative", "cataloged_wrong_canonical")
OPEN_WORLD_SPAN_SUMS = ("false_positive", "predicted_spans")
DOCUMENT_UNIONS = ("documents_with_sensitive_gold", "documents_with_any_miss", "documents_with_cataloged_gold",
                   "documents_with_any_cataloged_miss")
OPEN_WORLD_AT_LEAST_EACH = ("covered_sensitive_characters",)
OPEN_WORLD_AT_MOST_SUM = ("leaked_sensitive_characters", "documents_with_any_leaked_character",
                          "negative_documents_with_predictions")


def _count(ctx: VerifyContext, index: int, name: str) -> int | None:
    value = ctx.figures.get(join(["quality", "slices", index, name]))
    return value if type(value) is int else None


def _eligible(item: dict[str, Any]) -> bool:
    return is_open_world_eligible(item.get("label_strength"), item.get("annotation_completeness"))


def _peers(slices: list[Any], combined: dict[str, Any]) -> dict[str, int] | None:
    """Index of the single contact and the single person slice on the combined slice's split, cohort and view."""
    found: dict[str, int] = {}
    for entity_class in CLASSES:
        matches = [i for i, s in enumerate(slices) if isinstance(s, dict) and s.get("entity_class") == entity_class
                   and all(s.get(k) == combined.get(k) for k in BINDING_KEYS)]
        if len(matches) != 1:
            return None  # no unambiguous panel: the manifest family reports a gate panel without its diagnostics
        found[entity_class] = matches[0]
    return found


def check_slice_identities(ctx: VerifyContext, slices: list[Any]) -> int:
    """Check every combined slice that has exactly one contact and one person slice beside it; return how many."""
    checked = 0
    for index, item in enumerate(slices):
        if not isinstance(item, dict) or item.get("entity_class") != COMBINED:
            continue
        peers = _peers(slices, item)
        if peers is None:
            continue
        eligible = _eligible(item) and all(_eligible(slices[i]) for i in peers.values())
        _check_panel(ctx, index, peers["contact"], peers["person"], eligible)
        checked += 1
    return checked


def _check_panel(ctx: VerifyContext, combined: int, contact: int, person: int, eligible: bool) -> None:
    def values(name: str) -> tuple[int, int, int] | None:
        found = (_count(ctx, combined, name), _count(ctx, contact, name), _count(ctx, person, name))
        if found[0] is None or found[1] is None or found[2] is None:
            return None
        return found  # type: ignore[return-value]

    def report(name: str, message: str) -> None:
        ctx.collector.add(SLICE_IDENTITY, EVIDENCE, join(["quality", "slices", combined, name]), message,
                          field=Label(name))

    for name in SPAN_SUMS + (OPEN_WORLD_SPAN_SUMS if eligible else ()):
        found = values(name)
        if found and found[0] != found[1] + found[2]:
            report(name, "Combined {field} is not contact + person.")
    for name in DOCUMENT_UNIONS:
        found = values(name)
        if found and not max(found[1], found[2]) <= found[0] <= found[1] + found[2]:
            report(name, "Combined {field} is not between the larger class value and the class sum.")
    if not eligible:
        return
    for name in OPEN_WORLD_AT_LEAST_EACH:
        found = values(name)
        if found and found[0] < max(found[1], found[2]):
            report(name, "Combined {field} is below a class's.")
    for name in OPEN_WORLD_AT_MOST_SUM:
        found = values(name)
        if found and found[0] > found[1] + found[2]:
            report(name, "Combined {field} exceeds the classes' together.")
