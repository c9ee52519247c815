"""Numbers bound to their position: Markdown table cells, SVG row labels, bar lengths and threshold markers.

Value tracing (summary.py) accepts a number if *some* verified figure of its kind supports it, so a coherent
forger can move numbers between rows, reverse bank-size labels, widen a bar or move a threshold line. This module
parses the published structure (Markdown table rows and cells; SVG elements and their attributes, never a byte
diff against a re-render) and asks :class:`~nerb_verify.checks.presentation.summary_model.Model` which verified figure belongs
at each place:

* a table cell must show the figure its row label and column header name (``summary.cell_mismatch``);
* an SVG row's value text, and a "Label: ..." sentence of a figure's description, must show the figure of the row
  its label names (``summary.label_mismatch``);
* an SVG row's bar (or stacked segments) must be value x track width long, within one pixel per segment
  (``summary.bar_geometry``), and a vertical threshold line in the row must sit at threshold x track width
  (``summary.threshold_marker``);
* an SVG with a DOCTYPE, entity declaration, processing of unknown markup or an unterminated tag cannot be parsed
  into elements and is ``summary.figure_unreadable`` (fail closed: its geometry is not evaluated).

Findings give the file and the 1-based line and column of the number or element, never its text.
"""

from __future__ import annotations

import bisect
import html
import re
from fractions import Fraction

from nerb_verify.checks.presentation.summary_model import (
    METRICS,
    Model,
    RowFigure,
    class_of,
    measure_of,
    normalise,
    scale_of,
)
from nerb_verify.codes import register

CELL = register(
    "summary.cell_mismatch", "A table cell does not show the figure its row and column name.",
    "In a summary.md table whose row label and column header name a verified figure (a class and a count or "
    "metric, a metric and a class or its frozen requirement, a conformance check, a bank size and its throughput), "
    "the cell must print that figure, correctly rounded. A number that is verified elsewhere but not for this row "
    "and column was moved between rows or columns.")
LABEL = register(
    "summary.label_mismatch", "An SVG value label or description sentence does not show the figure of its row.",
    "In a figure, the value text of a row and every 'Label: ...' sentence of the description must print the "
    "verified figure of the row its label names (a conformance ratio, a gate metric and its threshold, a class's "
    "decomposition counts, a bank size's throughput). A verified number under another row's label, or bank-size "
    "labels put in another order, is caught here.")
BAR = register(
    "summary.bar_geometry", "A bar's length is not its row's value times the track width.",
    "Each bar in a figure row is drawn on a track (the widest rectangle of the row); its length must be the row's "
    "verified share (rate, conformance ratio, share of the fastest bank size, or each stacked coverage segment) "
    "times the track width, within one pixel. A widened or shortened bar misstates the figure even when its label "
    "is right.")
MARKER = register(
    "summary.threshold_marker", "A threshold line is not at the row's frozen threshold.",
    "A vertical line drawn in a figure row marks its threshold: it must sit at track x + threshold x track width "
    "(within one pixel) for a frozen threshold of that row's gate (100% for the known-bank contract rows). A moved "
    "line, or a line on a row without a threshold, misstates the requirement.")
COLOUR = register(
    "summary.bar_colour_mismatch", "A figure draws passing and failing rows' bars in the same colour.",
    "Across the bundle's figures, a row that passes and a row that fails (by the counts and minimum threshold its "
    "description states) must not have bars of the same fill colour: the colour is how a reader tells them apart. "
    "A failing bar recoloured in the passing rows' colour (or the reverse) presents a failed gate as passed. Both "
    "kinds of bar are reported.")
UNREADABLE = register(
    "summary.figure_unreadable", "An SVG figure cannot be parsed into plain elements.",
    "Figures must be plain SVG markup: elements with quoted attributes, text and comments. A DOCTYPE, entity "
    "declaration, CDATA section or unterminated tag is refused, so the figure's geometry is not evaluated and the "
    "figure is not accepted.")

ROW_LABEL = register(
    "summary.row_label_unknown", "A table row prints numbers under a label that names no verified figure.",
    "In a summary.md table whose other rows name verified figures (a metric, a class, a bank size, a conformance "
    "check), every row that prints a number must too: the label says what the number is. A row relabelled to "
    "something the evidence does not measure ('Document leakage' -> 'Documents fully redacted') misstates it.")
OMITTED = register(
    "summary.failed_gate_omitted", "A table of metrics and their requirements leaves out a gate that failed.",
    "A summary.md table that lists quality metrics with their frozen requirements must list every metric gate the "
    "verifier found failed. Leaving the failing rows out presents a failed result as a clean one.")

MAX_ELEMENTS = 20_000
MAX_TEXT = 20_000
TOLERANCE_PX = Fraction(1)
NUMBER = re.compile(r"(?<![\w.,#/])(\d{1,3}(?:,\d{3}){1,8}|\d{1,12})(?:\.(\d{1,12}))?(?![\w])")
UNIT = re.compile(r"\s?(%|ms\b|µs\b|s\b|documents/s\b|docs/s\b|documents per second\b)")
PAIR = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3}){0,8}|\d{1,12}) (?:of|/) (\d{1,3}(?:,\d{3}){0,8}|\d{1,12})(?![\w.,]?\d)")
THRESHOLD_WORDS = ("threshold", "at least", "at most", "exactly", "≥", "≤", "requirement", ">=", "<=")
SCALES = {"%": ("value", 100), "ms": ("seconds", 1000), "µs": ("seconds", 1_000_000), "s": ("seconds", 1),
          "documents/s": ("rate", 1), "docs/s": ("rate", 1), "documents per second": ("rate", 1)}
NOUN_END = re.compile(r"[,;·.()\d]|$")
ENTITY = re.compile(r"&#?\w{1,10};")


def blank_entities(text: str) -> str:
    """Character entities replaced by spaces of the same length (offsets stay those of the file)."""
    return ENTITY.sub(lambda m: " " * len(m.group(0)), text)


def _rounds_to(printed: Fraction, decimals: int, exact: Fraction) -> bool:
    """True when ``printed`` (with ``decimals`` places) is a correct rounding of ``exact`` (a tie either way)."""
    step = Fraction(1, 10**decimals)
    return abs(printed - exact) <= step / 2


def _supported(printed: Fraction, decimals: int, scale: int, values: list[Fraction]) -> bool:
    """Whether ``printed`` is a correct rounding of ``v * scale`` for some ``v`` (:func:`_rounds_to`), in integers:
    ``|p - v*s| <= 1 / (2 * 10**d)`` is ``2 * 10**d * |pn*vd - vn*s*pd| <= pd*vd`` for positive denominators, without
    building (and reducing) a Fraction per comparison. Ints and Fractions only; anything else takes the Fraction
    test."""
    pn, pd = printed.numerator, printed.denominator
    bound = 2 * 10**decimals
    for value in values:
        if type(value) is Fraction or type(value) is int:
            vn, vd = value.numerator, value.denominator
            if bound * abs(pn * vd - vn * scale * pd) <= pd * vd:
                return True
        elif _rounds_to(printed, decimals, value * scale):
            return True
    return False


def unsupported_numbers(candidates: list[RowFigure], text: str) -> list[int]:
    """0-based offsets of numbers in ``text`` that none of the candidate rows supports.

    Only numbers of a quantity the candidates define are judged: a pair against (count, of); a percent against the
    row's rate, or its thresholds after a threshold word, or its share of the fastest cell before "of the fastest";
    a rate or latency against the row's; a bare count against the count its following noun names (or the row's
    only count). Anything else is left to value tracing.
    """
    if not candidates:
        return []
    bad: list[int] = []
    consumed: list[tuple[int, int]] = []
    has_pair = any(c.num is not None and c.den is not None for c in candidates)
    for match in PAIR.finditer(text):
        x, y = int(match.group(1).replace(",", "")), int(match.group(2).replace(",", ""))
        if has_pair:
            consumed.append(match.span())
            if not any(c.num == x and c.den == y for c in candidates):
                bad.append(match.start())
    for match in NUMBER.finditer(text):
        if any(a <= match.start() < b for a, b in consumed):
            continue
        whole, decimals = match.group(1), match.group(2) or ""
        printed = Fraction(whole.replace(",", "") + ("." + decimals if decimals else ""))
        unit = UNIT.match(text, match.end())
        if unit is not None:
            role, scale = SCALES[unit.group(1)]
            before = text[max(0, match.start() - 25):match.start()].lower()
            after = text[unit.end():unit.end() + 20].lower()
            values: list[Fraction]
            if role == "value" and after.startswith(" of the fastest"):
                values = [c.share for c in candidates if c.share is not None]
            elif role == "value" and (any(w in before for w in THRESHOLD_WORDS)
                                      or all(c.value is None for c in candidates)):
                values = [t for c in candidates for t in c.thresholds]
            else:
                values = [v for c in candidates if (v := getattr(c, role)) is not None]
            if values and not _supported(printed, len(decimals), scale, values):
                bad.append(match.start())
            continue
        if decimals:
            continue
        noun_text = text[match.end():match.end() + 60]
        noun = normalise(noun_text[:NOUN_END.search(noun_text).start()])
        measure = measure_of(noun) if noun else None
        key = measure if measure is not None and any(measure in c.counts for c in candidates) else "*"
        counts = [c.counts[key] for c in candidates if key in c.counts]
        if counts and printed not in counts:
            bad.append(match.start())
    return sorted(set(bad))


# -- Markdown tables ---------------------------------------------------------------------------------------------

class Cell:
    def __init__(self, line: int, column: int, text: str) -> None:
        self.line: int = line
        self.column: int = column  # 1-based column of the cell's first character
        self.text: str = text


def tables(text: str) -> list[tuple[list[str], list[list[Cell]]]]:
    """(header cells, body rows) of every pipe table; the alignment row is dropped. Linear in the text."""
    out: list[tuple[list[str], list[list[Cell]]]] = []
    header: list[str] | None = None
    rows: list[list[Cell]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.startswith("|"):
            if header is not None:
                out.append((header, rows))
            header, rows = None, []
            continue
        body = line[1:-1] if line.rstrip().endswith("|") and len(line.rstrip()) > 1 else line[1:]
        cells: list[Cell] = []
        column = 2
        for part in body.split("|"):
            cells.append(Cell(number, column, part))
            column += len(part) + 1
        if header is None:
            header = [c.text for c in cells]
        elif re.fullmatch(r"[\s:|-]*", line) and not rows:
            continue  # the alignment row
        else:
            rows.append(cells)
    if header is not None:
        out.append((header, rows))
    return out


def check_tables(model: Model, text: str, skip: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """(line, column) of each table number that is not the figure its row and column name."""
    bad: list[tuple[int, int]] = []
    for header, rows in tables(text):
        first = header[0] if header else ""
        for cells in rows:
            if not cells:
                continue
            label = cells[0].text
            for index, cell in enumerate(cells[1:], start=1):
                column = header[index] if index < len(header) else ""
                candidates = model.row(label, first, column)
                for offset in unsupported_numbers(candidates, cell.text):
                    position = (cell.line, cell.column + offset)
                    if not any(line == cell.line and cell.column <= col < cell.column + len(cell.text) + 1
                               for line, col in skip):
                        bad.append(position)
    return bad


def _known_label(label: str, first_header: str) -> bool:
    return (measure_of(label) is not None or class_of(label) is not None
            or scale_of(label, first_header) is not None)


def check_table_rows(text: str, failed_metric_gates: set[str]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(rows with an unknown label, tables that omit a failed gate) as (line, column).

    * In a table with at least one row whose label names a verified figure (a measure, a class or a bank size), a
      row that prints a number under a label that names none says something the verifier cannot bind: a relabelled
      row ("Document leakage" -> "Documents fully redacted") would otherwise be read as a success.
    * A table of metrics with a requirement column (its rows name quality metrics, a column is the frozen
      requirement) must have a row for every metric gate that failed: dropping the failing rows hides the result.
      Reported at the table's first row."""
    unknown: list[tuple[int, int]] = []
    omitted: list[tuple[int, int]] = []
    for header, rows in tables(text):
        first = header[0] if header else ""
        known = [cells for cells in rows if cells and _known_label(cells[0].text, first)]
        if not known:
            continue
        for cells in rows:
            if cells and not _known_label(cells[0].text, first) and cells[0].text.strip() \
                    and any(NUMBER.search(cell.text) for cell in cells[1:]):
                unknown.append((cells[0].line, cells[0].column))
        requirement = any(measure_of(cell) == "threshold" for cell in header[1:])
        measures = {measure_of(cells[0].text) for cells in known}
        if requirement and measures & set(METRICS) and not failed_metric_gates <= measures:
            omitted.append((rows[0][0].line, rows[0][0].column))
    return unknown, omitted


# -- SVG ---------------------------------------------------------------------------------------------------------

TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:_.-]{0,40})((?:\s+[A-Za-z_:][A-Za-z0-9:_.-]{0,40}\s*=\s*"
                 r"(?:\"[^\"<]{0,4000}\"|'[^'<]{0,4000}'))*)\s*(/?)>")
ATTR = re.compile(r"([A-Za-z_:][A-Za-z0-9:_.-]{0,40})\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
NUM_ATTR = re.compile(r"-?\d{1,9}(?:\.\d{1,9})?")


class Element:
    def __init__(self, name: str, attrs: dict[str, str], offset: int, text: str = "", text_offset: int = 0,
                 children_text: list[str] | None = None) -> None:
        self.name: str = name
        self.attrs: dict[str, str] = attrs
        self.offset: int = offset
        self.text: str = text
        self.text_offset: int = text_offset
        self.children_text: list[str] = [] if children_text is None else children_text

    def number(self, key: str) -> Fraction | None:
        """A numeric attribute (plain decimal, optional px), or None."""
        value = self.attrs.get(key, "").strip().removesuffix("px")
        return Fraction(value) if NUM_ATTR.fullmatch(value) else None


def parse_svg(text: str) -> list[Element] | None:
    """The elements of an SVG in document order (text content collected for title/desc/text), or None when the
    markup is not plain elements, text and comments. One linear pass; at most MAX_ELEMENTS elements."""
    elements: list[Element] = []
    open_text: Element | None = None
    pos = 0
    while True:
        start = text.find("<", pos)
        chunk = text[pos:] if start < 0 else text[pos:start]
        if open_text is not None and len(open_text.text) < MAX_TEXT:
            open_text.text += chunk
        if start < 0:
            return elements
        if text.startswith("<!--", start):
            end = text.find("-->", start + 4)
            if end < 0:
                return None
            pos = end + 3
            continue
        if text.startswith("<?xml", start) and start == 0:
            end = text.find("?>", start)
            if end < 0:
                return None
            pos = end + 2
            continue
        match = TAG.match(text, start)
        if match is None:
            return None
        closing, name, attrs, empty = match.group(1) == "/", match.group(2), match.group(3), match.group(4) == "/"
        pos = match.end()
        if closing:
            if open_text is not None and name == open_text.name:
                open_text = None
            continue
        if len(elements) >= MAX_ELEMENTS:
            return None
        element = Element(name, {m.group(1): html.unescape(m.group(2) if m.group(2) is not None else m.group(3))
                                 for m in ATTR.finditer(attrs)}, start, text_offset=match.end())
        elements.append(element)
        if name in ("title", "desc", "text") and not empty and open_text is None:
            open_text = element


class Row:
    def __init__(self, label: Element, candidates: list[RowFigure], members: list[Element] | None = None) -> None:
        self.label: Element = label
        self.candidates: list[RowFigure] = candidates
        self.members: list[Element] = [] if members is None else members


def _is_label(element: Element) -> bool:
    text = element.text.strip()
    return bool(text) and len(text) <= 80 and (measure_of(text) is not None or class_of(text) is not None
                                                or scale_of(text) is not None)


def svg_rows(model: Model | None, elements: list[Element]) -> list[Row]:
    """Group the elements after each row-label text (up to the next one) into that row; with ``model``, each row's
    candidate figures too (without, an empty list: the grouping alone)."""
    rows: list[Row] = []
    for element in elements:
        if element.name == "text" and _is_label(element):
            rows.append(Row(element, model.row(html.unescape(element.text.strip())) if model is not None else []))
        elif rows:
            rows[-1].members.append(element)
    return rows


def _track_and_bars(row: Row) -> tuple[Element, list[Element]] | None:
    """A row's track (its widest readable rectangle) and its bar rectangles (after the track, on the same ``y``,
    inside it, of positive width); None when the row has no readable rectangle or the track has no width."""
    rects = [e for e in row.members if e.name == "rect" and e.attrs.get("class") != "value-bg"]
    readable = [r for r in rects if r.number("x") is not None and r.number("width") is not None]
    if not readable:
        return None
    track = max(readable, key=lambda r: r.number("width") or 0)
    tx, tw, ty = track.number("x") or Fraction(0), track.number("width") or Fraction(0), track.attrs.get("y")
    if tw <= 0:
        return None
    bars = [r for r in readable[readable.index(track) + 1:]
            if r.attrs.get("y") == ty and tx <= (r.number("x") or 0) <= tx + tw and (r.number("width") or 0) > 0]
    return track, bars


def _geometry(row: Row) -> tuple[list[int], list[int]]:
    """(offsets of elements with a wrong bar, offsets of misplaced threshold lines) for one row."""
    bad_bars: list[int] = []
    bad_lines: list[int] = []
    found = _track_and_bars(row)
    if found is None:
        return bad_bars, bad_lines
    track, bars = found
    tx, tw = track.number("x") or Fraction(0), track.number("width") or Fraction(0)
    shares = {c.value if c.value is not None else c.share for c in row.candidates
              if (c.value if c.value is not None else c.share) is not None}
    segments = [c for c in row.candidates if c.segments is not None and c.total]
    if segments:
        if not any(_segments_match(bars, tx, tw, c) for c in segments):
            bad_bars.append((bars[0] if bars else track).offset)
    elif shares:
        total = sum((b.number("width") or Fraction(0)) for b in bars)
        starts_ok = all(abs((b.number("x") or Fraction(0)) - tx) <= TOLERANCE_PX for b in bars[:1])
        if not starts_ok or not any(abs(total - min(max(s, Fraction(0)), Fraction(1)) * tw) <= TOLERANCE_PX
                                    for s in shares):
            bad_bars.append((bars[0] if bars else track).offset)
    thresholds = {t for c in row.candidates for t in c.thresholds}
    for line in row.members:
        if line.name != "line":
            continue
        x1, x2 = line.number("x1"), line.number("x2")
        if x1 is None or x2 is None or x1 != x2:
            continue  # not a vertical marker
        if not any(abs(x1 - (tx + t * tw)) <= TOLERANCE_PX for t in thresholds):
            bad_lines.append(line.offset)
    return bad_bars, bad_lines


def _segments_match(bars: list[Element], tx: Fraction, tw: Fraction, row: RowFigure) -> bool:
    """Stacked bars match the row's nonzero segments in order (a segment under one pixel may be absent)."""
    assert row.segments is not None and row.total
    index = 0
    done = 0
    for value in row.segments:
        if value == 0:
            continue
        start, length = tx + Fraction(done, row.total) * tw, Fraction(value, row.total) * tw
        done += value
        bar = bars[index] if index < len(bars) else None
        if bar is not None and abs((bar.number("x") or 0) - start) <= 2 * TOLERANCE_PX \
                and abs((bar.number("width") or 0) - length) <= TOLERANCE_PX:
            index += 1
        elif length >= 1:
            return False
    return index == len(bars)


DESC_SENTENCE = re.compile(r"(?:^|(?<=[.;]) )([A-Z0-9][^:.;]{0,79}): ([^:]*?)(?=\. [A-Z0-9]|\.$|$)")


def check_svg(model: Model, text: str) -> dict[str, list[int]] | None:
    """Offsets of findings in one SVG by code (label, bar, marker), or None when it cannot be parsed."""
    elements = parse_svg(text)
    if elements is None:
        return None
    found: dict[str, list[int]] = {LABEL: [], BAR: [], MARKER: []}
    for row in svg_rows(model, elements):
        for member in row.members:
            if member.name == "text" and member.text:
                found[LABEL].extend(member.text_offset + o
                                    for o in unsupported_numbers(row.candidates, blank_entities(member.text)))
        bars, lines = _geometry(row)
        found[BAR].extend(bars)
        found[MARKER].extend(lines)
    for element in elements:
        if element.name != "desc":
            continue
        for sentence in DESC_SENTENCE.finditer(blank_entities(element.text)):
            label = sentence.group(1)
            if not (measure_of(label) or class_of(label) or scale_of(label)):
                continue
            candidates = model.row(label)
            found[LABEL].extend(element.text_offset + sentence.start(2) + o
                                for o in unsupported_numbers(candidates, sentence.group(2)))
    return found


_MINIMUM = re.compile(r"\bminimum threshold (\d+(?:\.\d+)?)%")


def row_passes(body: str) -> bool | None:
    """Whether a figure row's description ("142 of 146 ...; minimum threshold 100.00%; ...") passes, recomputed
    from its own counts and threshold (X / Y >= T); None without exactly one pair and one minimum threshold. (The
    result word the sentence states is summary.verdict_mismatch's.)"""
    counts = PAIR.findall(body)
    minimum = _MINIMUM.findall(body)
    if len(counts) != 1 or len(minimum) != 1:
        return None
    num, den = (int(part.replace(",", "")) for part in counts[0])
    return den > 0 and Fraction(num, den) >= Fraction(minimum[0]) / 100


def bar_colours(text: str) -> list[tuple[int, str, str]]:
    """(offset, fill, "pass" or "fail") of the bar of every figure row whose description sentence gives its counts
    and minimum threshold, the status recomputed from them (:func:`row_passes`)."""
    elements = parse_svg(text)
    if elements is None:
        return []
    results: dict[str, str] = {}
    for element in elements:
        if element.name == "desc":
            for sentence in DESC_SENTENCE.finditer(blank_entities(element.text)):
                passes = row_passes(sentence.group(2))
                if passes is not None:
                    results[normalise(sentence.group(1))] = "pass" if passes else "fail"
    out: list[tuple[int, str, str]] = []
    for row in svg_rows(None, elements):
        status = results.get(normalise(html.unescape(row.label.text.strip())))
        found = _track_and_bars(row) if status is not None else None
        if found is None:
            continue
        for bar in found[1]:
            fill = bar.attrs.get("fill")
            if fill:
                out.append((bar.offset, fill.strip().lower(), status))
    return out


def line_col(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based (line, column) of ``offset`` given the line start offsets."""
    index = bisect.bisect_right(starts, offset) - 1
    return index + 1, offset - starts[index] + 1


def line_starts(text: str) -> list[int]:
    starts = [0]
    for match in re.finditer("\n", text):
        starts.append(match.end())
    return starts
