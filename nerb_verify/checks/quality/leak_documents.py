"""A document with a leaked character is a document with a miss.

Spec 10 section 10 ("How the counts are produced") defines both document counts of an open-world eligible slice:
``documents_with_any_leaked_character`` counts documents whose merged gold intervals keep a character outside the
merged prediction intervals, and ``documents_with_any_miss`` counts documents with at least one gold span that no
prediction matches exactly (same document, class, start and end). A gold span matched exactly has a prediction over
every one of its characters, so a leaked character lies in a gold span that is not matched: every document with a
leaked character also has a miss, and ``documents_with_any_leaked_character <= documents_with_any_miss``.

A coherent forger who lowers the documents with a miss (the document leakage rate, a gate) while leaving the leaked
character counts alone rewrites every rate, gate and rendering consistently; this bound is what the two counts still
contradict. Ineligible slices carry no leaked documents at all (``quality.ineligible_open_world_counts``), so the rule
is read on eligible slices only; a slice with no false negatives at all is ``quality.exact_recall_characters``'s
(no leaked document is possible there), so it is not reported twice.
"""

from __future__ import annotations

from typing import Any

from nerb_verify.codes import register
from nerb_verify.context import EVIDENCE, VerifyContext
from nerb_verify.pointers import join

LEAKED = "documents_with_any_leaked_character"
MISSED = "documents_with_any_miss"

LEAKED_DOCUMENTS_WITHOUT_MISS = register(
    "quality.leaked_documents_without_miss",
    "More documents have a leaked character than have a missed span.",
    "A leaked character is a gold character that no prediction covers, so the gold span holding it has no exact "
    "match: each document with a leaked character is also a document with a miss (spec 10 section 10, how the "
    "counts are produced). documents_with_any_leaked_character above documents_with_any_miss means one of the two "
    "is false; lowering the documents with a miss lowers the document leakage rate. Fix: count both from the same "
    "per-document matching and character intervals.")


def check_leaked_documents(ctx: VerifyContext, base: list[Any], counts: dict[str, int], eligible: bool) -> None:
    """Report ``quality.leaked_documents_without_miss`` at the slice's documents-with-a-miss count when an eligible
    slice has more documents with a leaked character than documents with a miss (see module docstring); counts that
    could not be read, and slices without false negatives, are left to their own rules."""
    if not eligible or LEAKED not in counts or MISSED not in counts or counts.get("false_negative") == 0:
        return
    if counts[LEAKED] > counts[MISSED]:
        ctx.collector.add(LEAKED_DOCUMENTS_WITHOUT_MISS, EVIDENCE, join([*base, MISSED]),
                          "Fewer documents with a miss than documents with a leaked character.")
