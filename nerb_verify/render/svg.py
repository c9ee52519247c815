"""The four SVG figures, in nerb-verify's own light design: one labelled horizontal bar per row.

Widths are exact fractions of the track rounded half-even to whole pixels; every printed number is the correctly
rounded value of a recomputed figure. Text is escaped; nothing from the input is printed except verified numbers.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from fractions import Fraction

from nerb_verify.render.model import RenderModel
from nerb_verify.render.numbers import count, fixed, percent

WIDTH = 800
LEFT = 24
TRACK_X = 300
TRACK_W = 280
ROW_H = 44
TOP = 78
INK, MUTED, TRACK = "#1f2933", "#52606d", "#e4e7eb"
GOOD, BAD, NEUTRAL, MARK = "#2f855a", "#c05621", "#3e4c59", "#d69e2e"
SEGMENTS = (("found exactly", "#2f855a"), ("known but missed", "#d69e2e"), ("wrong entity", "#c53030"),
            ("not in the bank", "#9aa5b1"))


@dataclass(frozen=True)
class Bar:
    """One row: label, filled share of the track, value text, colour, optional threshold marker."""

    label: str
    share: Fraction
    value: str
    colour: str
    marker: Fraction | None = None


def _px(share: Fraction) -> int:
    return round(min(max(share, Fraction(0)), Fraction(1)) * TRACK_W)


def _frame(title: str, desc: str, rows: int, body: list[str], legend: list[str] | None = None) -> str:
    height = TOP + rows * ROW_H + (40 if legend else 16)
    e = html.escape
    head = [
        (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-labelledby="t d">'),
        f'<title id="t">{e(title)}</title>',
        f'<desc id="d">{e(desc)}</desc>',
        f'<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        f'<g font-family="Helvetica, Arial, sans-serif" fill="{INK}">',
        f'<text x="{LEFT}" y="34" font-size="18" font-weight="600">{e(title)}</text>',
    ]
    tail = (legend or []) + ["</g>", "</svg>", ""]
    return "\n".join(head + body + tail)


def _bars(rows: list[Bar]) -> list[str]:
    e = html.escape
    body: list[str] = []
    for index, row in enumerate(rows):
        y = TOP + index * ROW_H
        body.append(f'<text x="{LEFT}" y="{y + 15}" font-size="13">{e(row.label)}</text>')
        body.append(f'<rect x="{TRACK_X}" y="{y}" width="{TRACK_W}" height="20" fill="{TRACK}"/>')
        body.append(f'<rect x="{TRACK_X}" y="{y}" width="{_px(row.share)}" height="20" fill="{row.colour}"/>')
        if row.marker is not None:
            x = TRACK_X + _px(row.marker)
            body.append(f'<line x1="{x}" y1="{y - 4}" x2="{x}" y2="{y + 24}" stroke="{MARK}" stroke-width="2" '
                        f'stroke-dasharray="3 2"/>')
        body.append(f'<text x="{TRACK_X + TRACK_W + 12}" y="{y + 15}" font-size="13" fill="{MUTED}">'
                    f'{e(row.value)}</text>')
    return body


def contract_figure(model: RenderModel) -> str:
    """Known-bank contract: share of each conformance check met, plus the natural-text diagnostic."""
    rows = list(model.contract_rows) + ([model.natural_exact] if model.natural_exact else [])
    bars = [Bar(r.label, Fraction(r.count, r.total) if r.total else Fraction(0),
                f"{count(r.count)} of {count(r.total)}",
                GOOD if r.count == r.total else BAD) for r in rows]
    desc = "Known-bank contract verdict " + model.known_verdict.replace("_", " ").lower() + ". " + " ".join(
        f"{r.label}: {count(r.count)} of {count(r.total)}." for r in rows)
    return _frame("Known-bank contract", desc, len(bars), _bars(bars))


def coverage_figure(model: RenderModel) -> str:
    """Coverage decomposition: each class's labeled spans split into four stacked segments."""
    e = html.escape
    body: list[str] = []
    sentences = []
    for index, row in enumerate(model.coverage):
        y = TOP + index * ROW_H
        body.append(f'<text x="{LEFT}" y="{y + 15}" font-size="13">{e(row.label)}</text>')
        body.append(f'<rect x="{TRACK_X}" y="{y}" width="{TRACK_W}" height="20" fill="{TRACK}"/>')
        x = TRACK_X
        parts = (row.exact, row.span_miss, row.wrong, row.outside)
        done = 0
        for value, (_name, colour) in zip(parts, SEGMENTS):
            if row.gold <= 0:
                break
            end = TRACK_X + _px(Fraction(done + value, row.gold))
            if end > x:
                body.append(f'<rect x="{x}" y="{y}" width="{end - x}" height="20" fill="{colour}"/>')
            x, done = end, done + value
        body.append(f'<text x="{TRACK_X + TRACK_W + 12}" y="{y + 15}" font-size="13" fill="{MUTED}">'
                    f'{count(row.gold)} spans</text>')
        sentences.append(f"{row.label}: {count(row.gold)} labeled spans, {count(row.exact)} found exactly, "
                         f"{count(row.span_miss)} known but missed, {count(row.wrong)} mapped to the wrong entity, "
                         f"{count(row.outside)} not in the bank.")
    legend_y = TOP + len(model.coverage) * ROW_H + 10
    legend: list[str] = []
    for index, (name, colour) in enumerate(SEGMENTS):
        x = LEFT + index * 170
        legend.append(f'<rect x="{x}" y="{legend_y}" width="12" height="12" fill="{colour}"/>')
        legend.append(f'<text x="{x + 18}" y="{legend_y + 11}" font-size="12" fill="{MUTED}">{name}</text>')
    desc = "Where the labeled spans went. " + " ".join(sentences)
    return _frame("Coverage decomposition", desc, len(model.coverage), body, legend)


def gates_figure(model: RenderModel) -> str:
    """Standalone-redaction rate gates: recomputed value against its requirement (dashed marker)."""
    bars = []
    sentences = []
    for gate in model.gates:
        if gate.kind != "metric":
            continue
        word = {"gte": "at least", "lte": "at most"}.get(gate.operator, "exactly")
        bars.append(Bar(gate.label, gate.value, f"{percent(gate.value)} ({word} {percent(gate.threshold)})",
                        GOOD if gate.passed else BAD, gate.threshold))
        sentences.append(f"{gate.label}: {percent(gate.value)}, requirement {word} {percent(gate.threshold)}, "
                         f"{'meets' if gate.passed else 'misses'} it.")
    desc = "Standalone-redaction rate gates, recomputed. " + " ".join(sentences)
    return _frame("Standalone-redaction gates", desc, len(bars), _bars(bars))


def scale_figure(model: RenderModel) -> str:
    """Direct-scan throughput by bank size, as a share of the fastest bank size."""
    top = max((row.docs_per_second for row in model.scale), default=Fraction(0))
    bars = [Bar(f"{count(row.patterns)} patterns", row.docs_per_second / top if top else Fraction(0),
                f"{fixed(row.docs_per_second, 1)} docs/s", NEUTRAL) for row in model.scale]
    desc = "Direct-scan throughput by bank size; bars are scaled to the fastest size. " + " ".join(
        f"{count(row.patterns)} patterns: {fixed(row.docs_per_second, 1)} docs/s." for row in model.scale)
    return _frame("Throughput by bank size", desc, len(bars), _bars(bars))
