"""Which verified figure a summary row, column or figure element shows: the shared presentation model.

A label printed in summary.md or an SVG (a table row's first cell, a column header, an SVG row's label text, the
"Label:" that opens a sentence of a figure's description) names a *measure*: a count of one entity class, a quality
metric, a frozen threshold, a conformance ratio or a bank-size cell. :func:`row_figures` turns a row label (and, for
a table, a column header) into the verified values that may be printed there, from the verifier's own figures and
decisions only. The vocabulary below is the wording of NERB's published summary and of our own renderer (labels
are compared lower-case with punctuation dropped); a label outside it names nothing and its numbers stay traced by
value only.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from nerb_verify.checks.raw._access import as_dict, as_int, as_list, dig, exact_fraction
from nerb_verify.context import VerifyContext
from nerb_verify.render.model import GATE_LABELS

# Slice counts a class row or column may show (name -> how to compute it from the slice's verified counts).
COUNT_MEASURES = ("gold", "cataloged", "exact", "miss", "wrong", "outside", "docs_any_cataloged_miss")
# Quality metrics (and one derived rate) and the counts they are a ratio of.
RATIOS: dict[str, tuple[str, str]] = {
    "open_world_recall": ("true_positive", "gold_spans"),
    "catalog_coverage": ("cataloged_gold_spans", "gold_spans"),
    "cataloged_recall": ("cataloged_true_positive", "cataloged_gold_spans"),
    "sensitive_character_recall": ("covered_sensitive_characters", "sensitive_gold_characters"),
    "sensitive_character_leak_rate": ("leaked_sensitive_characters", "sensitive_gold_characters"),
    "document_leak_rate": ("documents_with_any_miss", "documents_with_sensitive_gold"),
    "precision": ("true_positive", "predicted_spans"),
    "over_redaction_rate": ("over_redacted_characters", "evaluated_characters"),
    "negative_document_false_alarm_rate": ("negative_documents_with_predictions", "negative_documents"),
}
METRICS = tuple(RATIOS) + ("docs_without_miss",)
CONFORMANCE = ("conf_patterns", "conf_approved", "conf_negatives", "conf_wrong")
THRESHOLD, NUM, DEN, VALUE, RATE, SECONDS = "threshold", "num", "den", "value", "rate", "seconds"

_LABELS: dict[str, str] = {
    # counts of one class (column headers of the coverage tables, nouns after a count in a figure)
    "all gold": "gold", "gold spans": "gold", "gold": "gold", "labeled spans": "gold", "spans": "gold",
    "catalog qualified": "cataloged", "cataloged": "cataloged",
    "correct exact mapping": "exact", "found exactly": "exact", "exact": "exact",
    "cataloged exact and correctly mapped": "exact",
    "exact span miss": "miss", "exact span misses": "miss", "span miss": "miss", "known but missed": "miss",
    "cataloged exact span misses": "miss",
    "wrong mapping": "wrong", "wrong mappings": "wrong", "wrong entity": "wrong", "cataloged wrong mappings": "wrong",
    "mapped to the wrong entity": "wrong",
    "outside bank": "outside", "outside": "outside", "outside the bank": "outside", "not in the bank": "outside",
    # quality metrics
    "open world recall": "open_world_recall", "open world exact span recall": "open_world_recall",
    "labeled spans detected exactly": "open_world_recall",
    "catalog coverage": "catalog_coverage",
    "cataloged exact span recall": "cataloged_recall", "natural exact matches": "cataloged_recall",
    "natural text spans the bank knows found exactly": "cataloged_recall",
    "sensitive character recall": "sensitive_character_recall", "sensitive character coverage":
        "sensitive_character_recall", "sensitive characters covered": "sensitive_character_recall",
    "document leakage": "document_leak_rate", "sensitive character leakage": "sensitive_character_leak_rate",
    "precision": "precision", "precision diagnostic": "precision", "predicted spans that were exact": "precision",
    "over redaction": "over_redaction_rate",
    "documents without an exact span miss": "docs_without_miss", "docs without exact span miss":
        "docs_without_miss",
    # conformance
    "active patterns exercised": "conf_patterns", "active patterns with a positive case": "conf_patterns",
    "approved positives detected and mapped": "conf_approved", "approved cases mapped": "conf_approved",
    "approved cases found and mapped correctly": "conf_approved",
    "required negative adversarial cases without unexpected matches": "conf_negatives",
    "negative cases clean": "conf_negatives", "negative cases with no unexpected match": "conf_negatives",
    "wrong canonical mappings": "conf_wrong",
    # column roles
    "frozen requirement": THRESHOLD, "requirement": THRESHOLD, "found": NUM, "out of": DEN, "share": VALUE,
    "recomputed": VALUE, "direct scan throughput": RATE, "throughput": RATE, "median per input": SECONDS,
}
for _gate, _label in GATE_LABELS.items():  # our own renderer's gate labels
    _LABELS.setdefault(re.sub(r"[^a-z0-9]+", " ", _label.lower()).strip(),
                       {"cataloged_false_negative": "miss", "cataloged_wrong_canonical": "wrong",
                        "documents_with_any_cataloged_miss": "docs_any_cataloged_miss"}.get(_gate, _gate))
CLASS_WORDS = {"combined": "person_contact", "all classes": "person_contact", "contact": "contact",
               "contacts": "contact", "person": "person", "persons": "person", "people": "person"}
SCALE_LABEL = re.compile(r"(\d{1,3}(?:,\d{3})*|\d{1,9})(?: patterns)?")
SCALE_HEADERS = {"bank size", "patterns in the bank"}


def normalise(label: str) -> str:
    """A label lower-cased, emphasis, punctuation and symbols dropped, spaces collapsed ("**Exact-span miss**" ->
    "exact span miss")."""
    return re.sub(r"[^a-z0-9,]+", " ", label.lower()).replace(" , ", " ").strip(" ,")


def measure_of(label: str) -> str | None:
    """The measure (or column role) a label names, or None."""
    return _LABELS.get(normalise(label).replace(",", ""))


def class_of(label: str) -> str | None:
    """The entity class a row label or column header names (exactly: "Combined", "Contact", "Person", ...)."""
    return CLASS_WORDS.get(normalise(label).replace(",", ""))


def scale_of(label: str, header: str = "") -> int | None:
    """The bank size (active patterns) a row label names: "1,000 patterns", or "1,000" under a bank-size header."""
    text = normalise(label)
    match = SCALE_LABEL.fullmatch(text)
    if match is None or (not text.endswith("patterns") and normalise(header) not in SCALE_HEADERS):
        return None
    return int(match.group(1).replace(",", ""))


class RowFigure:
    """The verified values one row (or one cell) may print: any of them may be absent."""

    def __init__(self, value: Fraction | None = None, num: int | None = None, den: int | None = None,
                 thresholds: set[Fraction] | None = None, rate: Fraction | None = None,
                 seconds: Fraction | None = None, share: Fraction | None = None, counts: dict[str, int] | None = None,
                 segments: list[int] | None = None, total: int | None = None) -> None:
        self.value: Fraction | None = value  # the row's rate (printed as a percent)
        self.num: int | None = num
        self.den: int | None = den
        self.thresholds: set[Fraction] = set() if thresholds is None else thresholds
        self.rate: Fraction | None = rate  # documents per second
        self.seconds: Fraction | None = seconds
        self.share: Fraction | None = share  # share of the fastest bank size
        self.counts: dict[str, int] = {} if counts is None else counts  # noun measure -> count ("*" = a bare count)
        self.segments: list[int] | None = segments  # coverage decomposition: exact, miss, wrong, outside
        self.total: int | None = total


class Model:
    """The verified figures of one verification, looked up by measure, class and bank size."""

    def __init__(self, ctx: VerifyContext) -> None:
        self.figures = ctx.figures
        self.slices: list[tuple[int, Any]] = list(enumerate(as_list(dig(ctx.evidence, "quality", "slices")) or []))
        standalone = as_dict(ctx.collector.decisions.get("standalone_redaction")) or {}
        gate_slices = [s for s in as_list(standalone.get("gate_slices")) or [] if isinstance(s, int)]
        self.gate_slices = gate_slices or [i for i, item in self.slices if dig(item, "promotion_gate") is True]
        self.thresholds: dict[tuple[int, str], Fraction] = {}
        for gate in as_list(standalone.get("gates")) or []:
            value = exact_fraction(dig(gate, "threshold"))
            if isinstance(dig(gate, "slice"), int) and isinstance(dig(gate, "gate"), str) and value is not None:
                self.thresholds[(gate["slice"], gate["gate"])] = value
        self.known = as_dict(ctx.collector.decisions.get("known_bank_contract")) or {}
        perf = as_dict(ctx.collector.decisions.get("performance")) or {}
        self.scale: dict[int, list[dict[str, Any]]] = {}
        for cell in as_list(perf.get("bank_sizes")) or []:
            patterns = as_int(dig(cell, "active_patterns"))
            if patterns is not None and isinstance(cell, dict):
                self.scale.setdefault(patterns, []).append(cell)
        rates = [r for cells in self.scale.values() for c in cells
                 if (r := exact_fraction(dig(c, "documents_per_second"))) is not None]
        self.fastest = max(rates) if rates else None

    def slices_of(self, entity_class: str | None) -> list[int]:
        """Slices a row speaks for: those of the named class, else the promotion-gate slices."""
        if entity_class is None:
            return list(self.gate_slices)
        return [i for i, item in self.slices if dig(item, "entity_class") == entity_class]

    def _count(self, index: int, name: str) -> int | None:
        value = self.figures.get(f"/quality/slices/{index}/{name}")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def slice_count(self, index: int, measure: str) -> int | None:
        """One of COUNT_MEASURES for one slice, from the quality family's verified counts."""
        names = {"gold": "gold_spans", "cataloged": "cataloged_gold_spans", "exact": "cataloged_true_positive",
                 "miss": "cataloged_false_negative", "wrong": "cataloged_wrong_canonical",
                 "docs_any_cataloged_miss": "documents_with_any_cataloged_miss"}
        if measure == "outside":
            gold, cataloged = self._count(index, "gold_spans"), self._count(index, "cataloged_gold_spans")
            return gold - cataloged if gold is not None and cataloged is not None else None
        return self._count(index, names[measure]) if measure in names else None

    def metric(self, index: int, measure: str) -> RowFigure | None:
        """A quality metric (or documents without a miss) of one slice: exact rate, its counts, its threshold."""
        row = RowFigure()
        if measure == "docs_without_miss":
            sensitive, missed = (self._count(index, "documents_with_sensitive_gold"),
                                 self._count(index, "documents_with_any_miss"))
            if sensitive is None or missed is None or sensitive == 0:
                return None
            row.num, row.den, row.value = sensitive - missed, sensitive, Fraction(sensitive - missed, sensitive)
            leak = self.thresholds.get((index, "document_leak_rate"))
            if leak is not None:
                row.thresholds.add(1 - leak)
            return row
        value = self.figures.get(f"/quality/slices/{index}/metrics/{measure}")
        if not isinstance(value, Fraction):
            return None
        row.value = value
        num, den = RATIOS[measure]
        row.num, row.den = self._count(index, num), self._count(index, den)
        if row.num is None or row.den is None or row.den == 0 or Fraction(row.num, row.den) != value:
            row.num = row.den = None
        threshold = self.thresholds.get((index, measure))
        if threshold is not None:
            row.thresholds.add(threshold)
        return row

    def conformance(self, measure: str) -> RowFigure | None:
        """A known-bank contract row from the verifier's known-bank decision (threshold: all of them)."""
        if measure == "conf_wrong":
            wrong = as_int(self.known.get("wrong_canonical_mappings"))
            return RowFigure(counts={"*": wrong}) if wrong is not None else None
        key = {"conf_patterns": "patterns_with_positive_cases", "conf_approved": "approved_positives_mapped",
               "conf_negatives": "negatives_without_unexpected_match"}[measure]
        num, den = as_int(dig(self.known, key, "count")), as_int(dig(self.known, key, "of"))
        if num is None or den is None or den == 0:
            return None
        return RowFigure(value=Fraction(num, den), num=num, den=den, thresholds={Fraction(1)})

    def scale_cells(self, patterns: int) -> list[RowFigure]:
        """The bank-size cells with this many active patterns: throughput, median, share of the fastest."""
        out: list[RowFigure] = []
        for cell in self.scale.get(patterns, []):
            rate = exact_fraction(dig(cell, "documents_per_second"))
            share = rate / self.fastest if rate is not None and self.fastest else None
            out.append(RowFigure(rate=rate, seconds=exact_fraction(dig(cell, "median_seconds")), share=share,
                                 counts={"*": patterns}))
        return out

    def coverage(self, index: int) -> RowFigure | None:
        """One slice's coverage decomposition (exact, miss, wrong, outside of gold) and its counts by noun."""
        counts = {m: self.slice_count(index, m) for m in COUNT_MEASURES}
        if any(counts[m] is None for m in ("gold", "exact", "miss", "wrong", "outside")):
            return None
        known = {k: v for k, v in counts.items() if v is not None}
        return RowFigure(counts=known, segments=[known["exact"], known["miss"], known["wrong"], known["outside"]],
                         total=known["gold"])

    def row(self, label: str, header: str = "", column: str = "") -> list[RowFigure]:
        """Candidates for what a row (label), or one cell of it (under ``column``), shows; [] when unknown.

        ``header`` is the table's first header cell (it may name a class, or say the rows are bank sizes).
        """
        patterns = scale_of(label, header)
        if patterns is not None:
            cells = self.scale_cells(patterns)
            role = measure_of(column) if column else None
            if role == RATE:
                return [RowFigure(rate=c.rate) for c in cells]
            if role == SECONDS:
                return [RowFigure(seconds=c.seconds) for c in cells]
            return cells if not column else []
        row_class, row_measure = class_of(label), measure_of(label)
        col_class = class_of(column) if column else None
        col_measure = measure_of(column) if column else None
        table_class = class_of(header.split()[0]) if header.split() else None
        if row_measure in CONFORMANCE:
            rows = [r for r in [self.conformance(row_measure)] if r is not None]
            return [_restrict(r, col_measure) for r in rows]
        entity_class = row_class or col_class or table_class
        measure = row_measure if row_measure not in (None, THRESHOLD, NUM, DEN, VALUE) else col_measure
        out: list[RowFigure] = []
        for index in self.slices_of(entity_class):
            if measure in METRICS:
                row = self.metric(index, measure)
                if row is not None:
                    role = col_measure if measure == row_measure else None
                    out.append(_restrict(row, role))
            elif measure in COUNT_MEASURES:
                if measure == row_measure and col_measure in (THRESHOLD, NUM, DEN):
                    continue  # a count gate's requirement is a frozen number, not the class's count
                value = self.slice_count(index, measure)
                if value is not None:
                    out.append(RowFigure(counts={"*": value}))
            elif measure is None and row_class is not None and not column:
                row = self.coverage(index)
                if row is not None:
                    out.append(row)
        return out


def _restrict(row: RowFigure, role: str | None) -> RowFigure:
    """Only the part of a row a column names (Found, Out of, Share, Requirement)."""
    if role == THRESHOLD:
        return RowFigure(thresholds=set(row.thresholds))
    if role == NUM:
        return RowFigure(counts={"*": row.num} if row.num is not None else {})
    if role == DEN:
        return RowFigure(counts={"*": row.den} if row.den is not None else {})
    if role == VALUE:
        return RowFigure(value=row.value)
    return row

