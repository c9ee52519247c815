"""A summary table of per-class figures shows every class the evidence evaluates.

Spec 30 (publication steps, "stale renders", and section A.8) makes ``summary.md`` a rendering of the verified
aggregates: NERB regenerates it and requires the published file to be byte-identical, and its full template shows
the combined panel beside its contact and person diagnostics (the bank-coverage decomposition "for combined, contact
and person"). nerb-verify reads the published Markdown instead of comparing bytes, so every cell is traced to its
figure (``summary.cell_mismatch``), but a table can also lose a whole class: a coverage table without its person row
no longer shows that the bank knew 1.58% of the person spans, and every number left in it still traces.

This module reads every pipe table (:func:`nerb_verify.checks.presentation.summary_layout.tables`). A table whose row
labels name at least one entity class (``Combined``, ``Contact``, ``Person``, ...) must name every class that has a
quality slice in the evidence; so must a table whose column headers name a class. Tables without class labels are
not concerned, and neither is any prose. The finding gives the table's line and column, never its text.
"""

from __future__ import annotations

import re
from typing import Any

from nerb_verify.checks.presentation.summary_layout import tables
from nerb_verify.checks.presentation.summary_model import CLASS_WORDS, class_of
from nerb_verify.codes import register

CLASS_OMITTED = register(
    "summary.class_omitted",
    "A summary table of per-class figures leaves out a class the evidence evaluates.",
    "summary.md is the rendering of the verified aggregates (spec 30, stale renders and A.8): its per-class tables "
    "show the combined panel and each class diagnostic. A table whose rows (or columns) are entity classes must "
    "have one for every class with a quality slice in the evidence; a table that drops one (the person row of the "
    "coverage table, say) hides that class's figures while every remaining number still traces. Fix: render the "
    "summary again from the verified evidence.")

KNOWN_CLASSES = frozenset(CLASS_WORDS.values())
ALIGNMENT = re.compile(r"\|[\s:|-]*")


def evaluated_classes(evidence: Any) -> set[str]:
    """The entity classes (among those a summary label can name) that have a quality slice in ``evidence``."""
    quality = evidence.get("quality") if isinstance(evidence, dict) else None
    slices = quality.get("slices") if isinstance(quality, dict) else None
    if not isinstance(slices, list):
        return set()
    return {s["entity_class"] for s in slices
            if isinstance(s, dict) and isinstance(s.get("entity_class"), str) and s["entity_class"] in KNOWN_CLASSES}


def omitted_classes(text: str, classes: set[str]) -> list[tuple[int, int]]:
    """(line, column) of each table that labels its rows, or its columns, by class but lacks one of ``classes``:
    the first row's label for rows, the header line for columns (1-based)."""
    found: list[tuple[int, int]] = []
    lines = text.split("\n")
    for header, rows in tables(text):
        if not rows or not rows[0]:
            continue
        row_classes = {class_of(cells[0].text) for cells in rows if cells} - {None}
        if row_classes and not classes <= row_classes:
            found.append((rows[0][0].line, rows[0][0].column))
        column_classes = {class_of(cell) for cell in header[1:]} - {None}
        if column_classes and not classes <= column_classes:
            first = rows[0][0].line
            aligned = first >= 3 and ALIGNMENT.fullmatch(lines[first - 2]) is not None
            found.append((first - 2 if aligned else first - 1, 1))  # the header line
    return found
