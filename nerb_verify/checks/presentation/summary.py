"""summary.md and figures/*.svg: every printed number traced to a figure the verifier recomputed.

The publisher's summary and figures are prose for people, so we do not compare bytes with a re-render (our render
is our own design). Instead every number they print must be supported:

* **Numbers** are found in Markdown text and in the text content of SVG ``<title>``, ``<desc>`` and ``<text>``
  elements (not in attributes, styles or entities: geometry and colours are layout). A number glued to a letter
  (``M4``, ``p95``) is part of a name; a heading ordinal (``## 2.``) is structure. Each number is read with its unit
  (``%``, ``ms``, ``µs``, ``s``, ``documents/s``, ``docs/s``, ``documents per second``, or none) and its printed
  precision, then looked up among the verified figures of that kind (:func:`supported_figures`): it is traced if it
  is the correct rounding of one of them (an exact tie may round either way). Otherwise, if it is the rounding one
  step the wrong way of a figure, it is ``summary.favourable_rounding`` when that flatters the figure (up for a
  higher-is-better figure, down for a lower-is-better one) and ``summary.misrounded`` when it does not; else
  ``summary.number_not_traced``. A figure the verifier could not recompute is absent, so a number that needs it is
  not traced: never a pass.
* **Hashes** (``sha256:<64 hex>``, 40-hex commits) must be hashes the verified artifacts carry.
* **Provenance and verdicts**: CPU and OS names must match the evidence's environment; "Known-bank contract ...
  PASS/FAIL" must match the verifier's known-bank decision; "ELIGIBLE"/"NOT ELIGIBLE" its standalone-redaction
  decision; "capacity gates: passed" the capacity report; "performance decision-grade gates: passed" the performance
  decision; an SVG row "X of Y ...; minimum threshold T%; result pass|fail" must say pass exactly when X/Y >= T.

When summary.md is **our own render** (it opens with nerb-verify's title and names `nerb-verify render`), the
summary and the four figures are also re-rendered from the verified figures and must be byte-identical
(``summary.render_mismatch``): that catches what value tracing cannot, such as two verified numbers swapped between
rows. A publisher's own summary (NERB's) is not re-rendered, since its wording is not ours to reproduce; instead
every summary's structure is parsed and each table cell, SVG label, bar, threshold marker and decision sentence is
bound to the figure or decision it names (summary_layout.py, summary_prose.py, docs/findings/summary.md).

Every finding names the file and the 1-based line and column of the token.
"""

from __future__ import annotations

import bisect
import re
from fractions import Fraction
from typing import Any, NamedTuple

from nerb_verify import context as C
from nerb_verify.checks.presentation import summary_classes, summary_layout, summary_model, summary_prose
from nerb_verify.checks.quality.quality_math import METRICS
from nerb_verify.checks.raw._access import as_dict, as_int, as_list, dig, exact_fraction
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext
from nerb_verify.findings import Label

NOT_TRACED = register(
    "summary.number_not_traced", "A number in the summary or a figure is not supported by any verified figure.",
    "Every count, percentage, rate, throughput and latency printed in summary.md or an SVG must be the correct "
    "rounding, at the printed precision, of a figure the verifier recomputed from the bundle's raw data. This "
    "number matches none (it was edited, or the figure behind it could not be recomputed).")
MISROUNDED = register(
    "summary.misrounded", "A number is rounded the wrong way (unfavourably).",
    "The printed value is one step away from the correct rounding of a verified figure, in the direction that "
    "understates it. Print the correctly rounded value.")
FAVOURABLE = register(
    "summary.favourable_rounding", "A number is rounded the favourable way.",
    "The printed value is one step away from the correct rounding of a verified figure, in the direction that "
    "flatters it (a higher-is-better rate rounded up, a lower-is-better rate or latency rounded down). A claim may "
    "never round the favourable way.")
MISPLACED = register(
    "summary.number_misplaced", "A number traces only to another entity class than its table row or column.",
    "In a summary table, a row labelled Combined, Contact or Person (or a column with such a header) speaks for that "
    "class: its numbers must trace to that class's quality slices, or to a figure that belongs to no slice "
    "(thresholds, conformance, performance). A number that is verified only for another class was moved, for "
    "example two rows' counts swapped.")
RENDER_MISMATCH = register(
    "summary.render_mismatch", "Our own rendered summary or figure differs from a fresh render of the bundle.",
    "summary.md says nerb-verify rendered it, so the summary and the four figures are rendered again from the "
    "verified figures and must be byte-identical. A difference means the file was edited after rendering (for "
    "example two verified numbers swapped between rows), which value tracing alone cannot see. The line given is "
    "the first that differs.")
HASH_NOT_TRACED = register(
    "summary.hash_not_traced", "A hash or commit id in the summary is not one the verified artifacts carry.",
    "sha256 digests and 40-hex commit ids printed in the summary must be values recorded in the verified manifest, "
    "evidence, bank card, capacity decision or publication bindings.")
RATIO_NOT_TRACED = register(
    "summary.ratio_not_traced", "An 'X of Y' or 'X / Y' pair is not a ratio the verifier recomputed.",
    "Both counts may be verified on their own, but together they must form one of the verified ratios (a metric's "
    "numerator and denominator, a conformance ratio, documents without a miss). A pair that mixes counts from "
    "different ratios misstates the result.")
PAIR_PERCENT_MISMATCH = register(
    "summary.pair_percent_mismatch", "A percentage in brackets after an 'X of Y' pair is not X / Y.",
    "In a sentence such as 'found X of Y occurrences (P%)', the bracketed percentage states the pair's ratio: it "
    "must be X / Y correctly rounded at its printed precision. Each number may be a verified figure on its own, but "
    "a percentage copied from another ratio (or a pair edited without its percentage) misstates the result.")
STATISTIC_MISMATCH = register(
    "summary.statistic_mismatch", "A latency printed as a median, p95 or p99 is not that statistic of any workload.",
    "A latency written with its statistic ('9.021 µs median', '55.250 µs p95', 'a median 0.699 ms') must be the "
    "correct rounding of a verified latency of that statistic (the headline document latency, the whole-input "
    "throughput workload, the cold compile, the bank-size cells). A p95 that is really the median, or a cell's "
    "median printed as the headline's, is caught here even though the number is verified as some other figure.")
BANK_SIZE_MISMATCH = register(
    "summary.bank_size_mismatch", "A throughput is printed next to a bank size it was not measured at.",
    "A sentence that names one bank size ('At 100,000 patterns, ...', 'the 13,201-pattern bank ...') and prints "
    "throughputs (documents/s) speaks about that size: each throughput must be the correct rounding of a verified "
    "throughput of a bank with that many active patterns (a bank-size cell, or the evaluated bank's headline).")
DOCUMENTS_NOT_TRACED = register(
    "summary.document_count_not_traced", "A number of documents is not a document count the bundle records.",
    "A count written as documents ('the 100-document throughput input', '51,704 documents') must be one of the "
    "bundle's verified document counts: the quality slices' documents (and documents without a miss), the "
    "manifest's document and record counts (panels, plans, splits, source) and the performance inputs' documents. "
    "A number verified as some other count (a bank size, a span count) does not say how many documents there were.")
PROVENANCE = register(
    "summary.provenance_mismatch", "The summary names a machine or operating system the evidence does not record.",
    "CPU and OS names printed in the summary or figures must match the evidence's recorded environment.")
VERDICT = register(
    "summary.verdict_mismatch", "A verdict word in the summary disagrees with the verifier's decision.",
    "PASS/FAIL, ELIGIBLE/NOT ELIGIBLE, passed/failed and per-row pass/fail must agree with the decisions the "
    "verifier computed (known-bank contract, standalone redaction, capacity gates, performance decision grade, and "
    "each row's count ratio against its printed threshold).")



def text_files(ctx: VerifyContext) -> list[str]:
    """summary.md and every figures/*.svg of the bundle, sorted."""
    return sorted(rel for rel in ctx.files
                  if rel == C.SUMMARY or (rel.startswith(C.FIGURES_DIR + "/") and rel.endswith(".svg")))


COUNT, PERCENT, SECONDS, RATE = "count", "percent", "seconds", "rate"
HIGHER, LOWER = "higher", "lower"

NUMBER = re.compile(r"(?<![\w.,#/])(\d{1,3}(?:,\d{3}){1,8}|\d{1,24})(?:\.(\d{1,24}))?(?![\w])")
LONG_DIGITS = re.compile(r"\d{25,}")  # longer digit runs are never read as numbers, and never traced
UNIT = re.compile(r"\s?(%|ms\b|µs\b|s\b|documents/s\b|docs/s\b|documents per second\b)")
HASH = re.compile(r"sha256:[0-9a-f]{64}|(?<![0-9A-Za-z])[0-9a-f]{40}(?![0-9A-Za-z])")
PAIR = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3}){0,8}) (?:of|/) (\d{1,3}(?:,\d{3}){0,8})(?![\w.,]?\d)")
HEADING_ORDINAL = re.compile(r"^#{1,6}\s+\d+\.")
SVG_TAG = re.compile(r"<(/?)(title|desc|text)\b[^>]{0,2000}>")
ENTITY = re.compile(r"&#?\w+;")
CPU_WORDS = re.compile(r"\b(Apple M\d+(?: (?:Pro|Max|Ultra))?|Intel|AMD|Ryzen|Xeon|EPYC|Graviton\d*|Ampere|Neoverse)\b")
OS_WORDS = {"macOS": "Darwin", "Darwin": "Darwin", "Linux": "Linux", "Windows": "Windows"}
OS_PATTERN = re.compile(r"\b(macOS|Darwin|Linux|Windows)\b")
ROW_TAIL = re.compile(r"; minimum threshold (\d+(?:\.\d+)?)%; result (pass|fail)")
ROW_COUNTS = re.compile(r"(\d{1,3}(?:,\d{3})*|\d+) of (\d{1,3}(?:,\d{3})*|\d+)")
MAX_FINDINGS_PER_FILE = 200
MAX_ROWS_PER_FILE = 500
MAX_NUMBERS_PER_FILE = 5000  # a summary for people prints a few hundred; more is not traced (fail closed)
UNIT_SCALE = {"%": (PERCENT, 100), "ms": (SECONDS, 1000), "µs": (SECONDS, 1_000_000), "s": (SECONDS, 1),
              "documents/s": (RATE, 1), "docs/s": (RATE, 1), "documents per second": (RATE, 1)}


class Figures:
    """Verified figures by kind: exact value -> 'higher' / 'lower' / None (which way is better)."""

    def __init__(self, counts: set[int] | None = None, values: dict[str, dict[Fraction, str | None]] | None = None,
                 hashes: set[str] | None = None,
                 _tables: dict[tuple[str, int, int], dict[int, str]] | None = None) -> None:
        self.counts: set[int] = set() if counts is None else counts
        self.values: dict[str, dict[Fraction, str | None]] = (
            {PERCENT: {}, SECONDS: {}, RATE: {}} if values is None else values)
        self.hashes: set[str] = set() if hashes is None else hashes
        self._tables: dict[tuple[str, int, int], dict[int, str]] = {} if _tables is None else _tables
        # (numerator, denominator) of every verified ratio, as counts: what an "X of Y" pair may print.
        self.pairs: set[tuple[int, int]] = set()

    def add_pair(self, numerator: int, denominator: int, better: str | None = HIGHER) -> None:
        """A verified ratio from its two counts (the caller checked both are counts and Y > 0): the pair, both
        counts and the percentage."""
        self.pairs.add((numerator, denominator))
        self.add(COUNT, numerator)
        self.add(COUNT, denominator)
        self.add(PERCENT, Fraction(numerator, denominator), better)

    def table(self, kind: str, scale: int, decimals: int) -> dict[int, str]:
        """Printed value (in units of the last printed digit) -> 'traced' / 'favourable' / 'misrounded'.

        Built once per (kind, unit, precision): the correct rounding of each figure is traced (both neighbours on an
        exact tie); the rounding one step the other way is favourable or misrounded by which way flatters.
        """
        key = (kind, scale, decimals)
        if key not in self._tables:
            traced: dict[int, str] = {}
            wrong: dict[int, str] = {}
            for exact, better in self.values.get(kind, {}).items():
                y = exact * scale * 10**decimals
                low = y.numerator // y.denominator
                if y.denominator == 1:
                    traced[low] = "traced"
                    continue
                half = y - low
                ups = "favourable" if better == HIGHER else "misrounded"
                downs = "favourable" if better == LOWER else "misrounded"
                if half == Fraction(1, 2):
                    traced[low] = traced[low + 1] = "traced"
                elif half < Fraction(1, 2):
                    traced[low] = "traced"
                    wrong.setdefault(low + 1, ups)
                else:
                    traced[low + 1] = "traced"
                    wrong.setdefault(low, downs)
            wrong.update(traced)
            self._tables[key] = wrong
        return self._tables[key]

    def add(self, kind: str, value: Any, better: str | None = None) -> None:
        if isinstance(value, bool) or value is None:
            return
        if kind == COUNT:
            if isinstance(value, int):
                self.counts.add(value)
            elif isinstance(value, Fraction) and value.denominator == 1:
                self.counts.add(value.numerator)
            return
        exact = value if isinstance(value, Fraction) else Fraction(value)
        self.values[kind].setdefault(exact, better)


class Token(NamedTuple):
    """One number found in a text file, with where it is and how it was printed."""

    file: str
    line: int
    column: int
    text: str
    printed: Fraction  # the number as printed, in its printed unit
    decimals: int
    kind: str
    scale: int  # printed unit per base unit (100 for %, 1000 for ms, 1 for a count)



def _better_by_metric(evidence: Any) -> dict[str, str]:
    better: dict[str, str] = {}
    for check in as_list(dig(evidence, "promotion", "checks")) or []:
        if isinstance(check, dict) and check.get("category") == "quality" and isinstance(check.get("id"), str):
            better[check["id"]] = {"gte": HIGHER, "lte": LOWER}.get(str(check.get("operator")), "")
    return better


def supported_figures(ctx: VerifyContext, entity_class: str | None = None) -> Figures:
    """The verified figures a summary may cite (see docs/findings/summary.md for the list and where each is from).

    With ``entity_class``, only the quality slices of that class contribute (every non-slice figure still does): the
    figures a number printed in that class's table row or column may trace to.
    """
    out = Figures()
    evidence = ctx.evidence
    slices = as_list(dig(evidence, "quality", "slices")) or []
    better = _better_by_metric(evidence)
    for index, item in enumerate(slices):
        if entity_class is None or dig(item, "entity_class") == entity_class:
            _slice_figures(ctx, out, index, better)
    _global_figures(ctx, out)
    return out


def _slice_figures(ctx: VerifyContext, out: Figures, index: int, better: dict[str, str]) -> None:
    """One quality slice's counts and rates, and the derived counts and ratios the summary tables use (outside-bank
    spans, documents without a miss)."""
    figures = ctx.figures
    base = f"/quality/slices/{index}/"
    for pointer, value in figures.items():
        if not pointer.startswith(base):
            continue
        parts = pointer.split("/")
        if len(parts) == 5 and isinstance(value, int):
            out.add(COUNT, value)
        elif len(parts) == 6 and parts[4] == "metrics":
            out.add(PERCENT, value, better.get(parts[5]) or HIGHER)
    counts = {field: figures.get(base + field) for metric in METRICS for field in metric.fields}
    for metric in METRICS:
        if all(type(counts[field]) is int for field in metric.fields):
            numerator, denominator = metric.numerator(counts), metric.denominator(counts)  # type: ignore[arg-type]
            if denominator > 0 and figures.get(base + "metrics/" + metric.name) is not None:
                out.pairs.add((numerator, denominator))
    gold, cataloged = figures.get(base + "gold_spans"), figures.get(base + "cataloged_gold_spans")
    if isinstance(gold, int) and isinstance(cataloged, int):
        out.add(COUNT, gold - cataloged)
        out.pairs.add((gold - cataloged, gold))
    sensitive, missed = figures.get(base + "documents_with_sensitive_gold"), figures.get(base + "documents_with_any_miss")
    if isinstance(sensitive, int) and isinstance(missed, int):
        out.add(COUNT, sensitive - missed)
        if sensitive > 0:
            out.add_pair(sensitive - missed, sensitive)


def _global_figures(ctx: VerifyContext, out: Figures) -> None:
    """Every verified figure that is not a quality slice's: conformance, frozen thresholds, scope counts,
    performance and hashes."""
    evidence, manifest = ctx.evidence, ctx.manifest
    figures = ctx.figures
    for pointer, value in figures.items():
        if pointer.startswith("/catalog_conformance/") and isinstance(value, int) and not isinstance(value, bool):
            out.add(COUNT, value)
    conformance = [(figures.get("/catalog_conformance/patterns_with_positive_cases"),
                    figures.get("/catalog_conformance/active_patterns")),
                   (figures.get("/catalog_conformance/correctly_mapped"),
                    figures.get("/catalog_conformance/approved_positive_cases"))]
    negatives = figures.get("/catalog_conformance/negative_cases")
    unexpected = figures.get("/catalog_conformance/unexpected_negative_matches")
    if isinstance(negatives, int) and isinstance(unexpected, int):
        out.add(COUNT, negatives - unexpected)
        conformance.append((negatives - unexpected, negatives))
    for num, den in conformance:
        if isinstance(num, int) and isinstance(den, int) and den > 0:
            out.add_pair(num, den)
    # Frozen thresholds: quality gates as written (decimal); conformance requires completeness (100%).
    for check in as_list(dig(evidence, "promotion", "checks")) or []:
        threshold = dig(check, "threshold")
        if dig(check, "category") == "quality" and isinstance(threshold, (int, float)) and not isinstance(threshold,
                                                                                                         bool):
            out.add(PERCENT, Fraction(repr(threshold)), None)
    if dig(evidence, "catalog_conformance", "evaluated") is True:
        out.add(PERCENT, Fraction(1), None)
    # Scope counts (bound to each other by the binding, card and publication families).
    for value in (dig(manifest, "source", "input_records"), dig(manifest, "preparation", "output_records"),
                  dig(manifest, "splits", "roles", "test", "records"), dig(evidence, "bank", "active_patterns"),
                  dig(ctx.artifact(C.BANK_CARD), "candidate_funnel", "total_candidates"),
                  _build_commitment(ctx, "candidate_count")):
        if as_int(value) is not None:
            out.add(COUNT, value)
    _performance_figures(ctx, out)
    _hashes(ctx, out)


# Table labels that name one entity class: a number in such a row, or under such a column header, must trace to a
# figure of that class's quality slices (or to a figure that belongs to no slice).
CLASS_LABELS = {"combined": "person_contact", "all classes": "person_contact", "all class": "person_contact",
                "contact": "contact", "person": "person", "people": "person"}


def class_of_label(text: str) -> str | None:
    """The entity class a table label names: emphasis and punctuation dropped, case and a plural -s ignored, and the
    label's first word counts when the label is short ("Contacts", "**Person**", "Combined panel")."""
    words = re.sub(r"[^a-z ]+", " ", text.lower()).split()
    words = [w[:-1] if w.endswith("s") and w[:-1] in ("contact", "person", "class") else w for w in words]
    if not words:
        return None
    joined = " ".join(words)
    if joined in CLASS_LABELS:
        return CLASS_LABELS[joined]
    if len(words) <= 3 and words[0] in CLASS_LABELS:
        return CLASS_LABELS[words[0]]
    return None


def table_classes(text: str) -> dict[int, list[tuple[int, str | None]]]:
    """For each Markdown table row (1-based line): the start column (1-based) of each cell and the entity class the
    cell speaks for, from the row's first cell or else the column's header cell."""
    out: dict[int, list[tuple[int, str | None]]] = {}
    header: list[str] = []
    in_table = False
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.startswith("|"):
            in_table = False
            continue
        cells = line.split("|")[1:-1] if line.rstrip().endswith("|") else line.split("|")[1:]
        if not in_table:
            header, in_table = cells, True
            continue
        label = class_of_label(cells[0]) if cells else None
        starts: list[tuple[int, str | None]] = []
        column = 2  # after the opening pipe
        for index, cell in enumerate(cells):
            heading = header[index] if index < len(header) else ""
            starts.append((column, label or class_of_label(heading)))
            column += len(cell) + 1
        out[number] = starts
    return out


def cell_class(rows: dict[int, list[tuple[int, str | None]]], line: int, column: int) -> str | None:
    """The entity class of the table cell at (line, column), or None outside a class row or column."""
    found: str | None = None
    for start, entity_class in rows.get(line, []):
        if start > column:
            break
        found = entity_class
    return found


def _build_commitment(ctx: VerifyContext, key: str) -> Any:
    """A build-phase commitment of the capacity report (sealed by the capacity decision's own hashes)."""
    for phase in as_list(dig(ctx.artifact(C.CAPACITY_DECISION), "report", "phases")) or []:
        if isinstance(phase, dict) and phase.get("phase") == "build":
            return dig(phase, "commitments", key)
    return None


def _performance_figures(ctx: VerifyContext, out: Figures) -> None:
    perf = as_dict(ctx.collector.decisions.get("performance")) or {}
    rates: list[Fraction] = []
    for cell in as_list(perf.get("bank_sizes")) or []:
        out.add(COUNT, as_int(dig(cell, "active_patterns")))
        rate = exact_fraction(dig(cell, "documents_per_second"))
        if rate is not None:
            out.add(RATE, rate, HIGHER)
            rates.append(rate)
            out.add(SECONDS, exact_fraction(dig(cell, "median_seconds")), LOWER)
    if rates and max(rates) > 0:
        top = max(rates)
        for rate in rates:
            out.add(PERCENT, rate / top, HIGHER)
    headline = as_dict(perf.get("headline")) or {}
    throughput = as_dict(headline.get("whole_input_throughput")) or {}
    out.add(RATE, exact_fraction(throughput.get("documents_per_second")), HIGHER)
    out.add(SECONDS, exact_fraction(throughput.get("median_seconds")), LOWER)
    latency = as_dict(headline.get("document_latency")) or {}
    for key in ("median_seconds", "p95_seconds", "p99_seconds"):
        out.add(SECONDS, exact_fraction(latency.get(key)), LOWER)
    out.add(SECONDS, exact_fraction(headline.get("cold_compile_median_seconds")), LOWER)
    # The throughput input's document count (the workload behind the headline figure).
    evidence = ctx.evidence
    pointer = throughput.get("pointer")
    if isinstance(pointer, str) and pointer.startswith("/performance/workloads/"):
        workload = dig(evidence, "performance", "workloads", int(pointer.rsplit("/", 1)[-1]))
        for item in as_list(dig(evidence, "performance", "inputs")) or []:
            if isinstance(item, dict) and item.get("id") == dig(workload, "input_id"):
                out.add(COUNT, as_int(item.get("documents")))


def _hashes(ctx: VerifyContext, out: Figures) -> None:
    evidence = ctx.evidence
    candidates = [dig(evidence, "bank", "canonical_hash"), dig(evidence, "bank", "artifact_sha256"),
                  dig(evidence, "software", "git_commit"), dig(evidence, "manifest_sha256"),
                  dig(ctx.artifact(C.BANK_CARD), "card_sha256"),
                  dig(ctx.artifact(C.CAPACITY_DECISION), "decision_sha256")]
    bindings = as_dict(dig(ctx.artifact(C.PUBLICATION), "bindings")) or {}
    candidates.extend(bindings.values())
    out.hashes.update(h for h in candidates if isinstance(h, str))


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def _svg_text_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of the text inside each title/desc/text element, in one linear pass over the tags."""
    spans: list[tuple[int, int]] = []
    open_name: str | None = None
    open_end = 0
    for match in SVG_TAG.finditer(text):
        closing, name = match.group(1) == "/", match.group(2)
        if not closing and open_name is None and not match.group(0).endswith("/>"):
            open_name, open_end = name, match.end()
        elif closing and name == open_name:
            spans.append((open_end, match.start()))
            open_name = None
    return spans


def _segments(rel: str, text: str) -> list[tuple[int, int, str]]:
    """(line, column offset, text) pieces of ``text`` whose numbers count (SVG: element text only)."""
    pieces: list[tuple[int, int, str]] = []
    lines = text.split("\n")
    if rel.endswith(".svg"):
        starts = [0]
        for line in lines[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        for start, end in _svg_text_spans(text):
            line_index = bisect.bisect_right(starts, start) - 1
            inner = ENTITY.sub(_blank, text[start:end])
            # Multi-line inner text keeps its own line numbering.
            for k, part in enumerate(inner.split("\n")):
                column = start - starts[line_index] if k == 0 else 0
                pieces.append((line_index + 1 + k, column, part))
        return pieces
    for index, line in enumerate(lines):
        if HEADING_ORDINAL.match(line):
            line = HEADING_ORDINAL.sub(lambda m: " " * len(m.group(0)), line)
        if re.fullmatch(r"\|?(\s*:?-+:?\s*\|)+\s*:?-*:?\s*\|?", line.strip()):
            continue  # table alignment row
        pieces.append((index + 1, 0, line))
    return pieces


def tokens(rel: str, text: str) -> tuple[list[Token], list[tuple[int, int, str]]]:
    """Numbers (with unit and precision) and hashes in one file; hashes are blanked before numbers are read."""
    found: list[Token] = []
    hashes: list[tuple[int, int, str]] = []
    for line, offset, piece in _segments(rel, text):
        for match in HASH.finditer(piece):
            hashes.append((line, offset + match.start() + 1, match.group(0)))
        clean = HASH.sub(_blank, piece)
        for match in LONG_DIGITS.finditer(clean):
            found.append(Token(rel, line, offset + match.start() + 1, "", Fraction(-1), 0, "long_digits", 1))
        clean = LONG_DIGITS.sub(_blank, clean)
        for match in NUMBER.finditer(clean):
            if len(found) >= MAX_NUMBERS_PER_FILE:
                found.append(Token(rel, line, offset + match.start() + 1, "", Fraction(-1), 0, "overflow", 1))
                return found, hashes
            whole, decimals = match.group(1), match.group(2) or ""
            unit_match = UNIT.match(clean, match.end())
            kind, scale = (COUNT, 1)
            if unit_match:
                kind, scale = UNIT_SCALE[unit_match.group(1)]
            elif decimals:
                kind = "plain_decimal"
            printed = Fraction(whole.replace(",", "") + ("." + decimals if decimals else ""))
            found.append(Token(rel, line, offset + match.start() + 1, match.group(0), printed, len(decimals), kind,
                               scale))
    return found, hashes


def pairs(rel: str, text: str) -> list[tuple[int, int, int, int]]:
    """(line, column, X, Y) for every "X of Y" / "X / Y" pair of plain counts in one file."""
    found: list[tuple[int, int, int, int]] = []
    for line, offset, piece in _segments(rel, text):
        clean = HASH.sub(_blank, piece)
        for match in PAIR.finditer(clean):
            if len(found) >= MAX_NUMBERS_PER_FILE:
                return found
            found.append((line, offset + match.start() + 1, int(match.group(1).replace(",", "")),
                          int(match.group(2).replace(",", ""))))
    return found


def pair_traced(numerator: int, denominator: int, figures: Figures, strict: bool = True) -> bool:
    """True when X/Y is a verified ratio (or either count is untraced, which is already its own finding). ``strict``
    (prose): X and Y must be the two counts of one verified ratio, not only have its quotient: "146 of 146" is 100%,
    like many verified ratios, but no verified ratio has those two counts when the panel found 142 of them. Table
    cells and figures are bound to their own row's counts by the layout checks (summary_layout.py), so there the
    quotient is enough."""
    if numerator not in figures.counts or denominator not in figures.counts:
        return True
    if strict:
        return (numerator, denominator) in figures.pairs
    return denominator != 0 and Fraction(numerator, denominator) in figures.values[PERCENT]


# "X of Y ... (P%)": a percentage in brackets after a pair, in the same sentence, states X / Y.
PAIR_PERCENT = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3}){0,8}) (?:of|/) (\d{1,3}(?:,\d{3}){0,8})(?![\w.,]?\d)"
                          r"[^.;:()\n]{0,160}?\(\s*(\d{1,3}(?:\.\d{1,12})?)\s?%\s*\)")


def pair_percents(rel: str, text: str) -> list[tuple[int, int, int, int, Fraction, int]]:
    """(line, column of the percentage, X, Y, printed percentage, its decimals) for every "X of Y ... (P%)"."""
    found: list[tuple[int, int, int, int, Fraction, int]] = []
    for line, offset, piece in _segments(rel, text):
        clean = HASH.sub(_blank, piece)
        for match in PAIR_PERCENT.finditer(clean):
            if len(found) >= MAX_NUMBERS_PER_FILE:
                return found
            printed = match.group(3)
            decimals = len(printed.partition(".")[2])
            found.append((line, offset + match.start(3) + 1, int(match.group(1).replace(",", "")),
                          int(match.group(2).replace(",", "")), Fraction(printed), decimals))
    return found


def percent_states_pair(numerator: int, denominator: int, printed: Fraction, decimals: int) -> bool:
    """True when ``printed`` percent (``decimals`` places) is a correct rounding of X / Y (an exact tie either way)."""
    if denominator <= 0:
        return False
    exact = Fraction(100 * numerator, denominator)
    return abs(printed - exact) * 2 * 10**decimals <= 1


# A latency printed with the statistic it is ("9.021 µs median", "55.250 µs p95", "a median 0.699 ms"), and the bank
# sizes a sentence names ("At 100,000 patterns, ...", "the 13,201-pattern bank").
_AMOUNT = r"(\d{1,3}(?:,\d{3}){1,8}|\d{1,24})(?:\.(\d{1,24}))?"
STATISTIC_AFTER = re.compile(rf"(?<![\w.,#/]){_AMOUNT}\s?(ms|µs|s)\s+(median|p50|p95|p99)\b")
STATISTIC_BEFORE = re.compile(rf"\b(median|p50|p95|p99)\s+{_AMOUNT}\s?(ms|µs|s)\b")
BANK_SIZE = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3}){0,8}|\d{1,9})[- ]patterns?\b")
RATE_AMOUNT = re.compile(rf"(?<![\w.,#/]){_AMOUNT}\s?(?:documents/s|docs/s|documents per second)\b")
_STATISTIC_KEYS = {"median": "median_seconds", "p50": "median_seconds", "p95": "p95_seconds", "p99": "p99_seconds"}


def bound_figures(ctx: VerifyContext) -> tuple[dict[str, Figures], dict[int, Figures]]:
    """(statistic -> the verified latencies of that statistic, bank size -> the verified throughputs of banks of that
    size): what a latency printed with its statistic, or a throughput in a sentence that names one bank size, may
    trace to. Medians: the headline latency, the whole-input throughput workload and each bank-size cell; p95: the
    headline latency; p99: the headline latency and each cell. Sizes: each cell's active patterns, and the evaluated
    bank's for the headline throughput."""
    perf = as_dict(ctx.collector.decisions.get("performance")) or {}
    by_statistic = {name: Figures() for name in ("median_seconds", "p95_seconds", "p99_seconds")}
    by_size: dict[int, Figures] = {}
    headline = as_dict(perf.get("headline")) or {}
    latency = as_dict(headline.get("document_latency")) or {}
    throughput = as_dict(headline.get("whole_input_throughput")) or {}
    for key, figures in by_statistic.items():
        figures.add(SECONDS, exact_fraction(latency.get(key)), LOWER)
    by_statistic["median_seconds"].add(SECONDS, exact_fraction(throughput.get("median_seconds")), LOWER)
    by_statistic["median_seconds"].add(SECONDS, exact_fraction(headline.get("cold_compile_median_seconds")), LOWER)
    for cell in as_list(perf.get("bank_sizes")) or []:
        size = as_int(dig(cell, "active_patterns"))
        for key in ("median_seconds", "p99_seconds"):
            by_statistic[key].add(SECONDS, exact_fraction(dig(cell, key)), LOWER)
        if size is not None:
            by_size.setdefault(size, Figures()).add(RATE, exact_fraction(dig(cell, "documents_per_second")), HIGHER)
    bank_size = as_int(dig(ctx.evidence, "bank", "active_patterns"))
    if bank_size is not None:
        by_size.setdefault(bank_size, Figures()).add(RATE, exact_fraction(throughput.get("documents_per_second")),
                                                     HIGHER)
    return by_statistic, by_size


# A count of documents ("the 100-document throughput input", "51,704 documents"), not a rate (documents/s).
DOCUMENT_COUNT = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3}){0,8}|\d{1,12})[- ]documents?\b(?!/s| per second)")


def document_counts(ctx: VerifyContext) -> set[int]:
    """Every count of documents the bundle's verified artifacts record: the quality slices' document counts (and the
    documents without a miss), the manifest's document and record counts (labels, plans, splits, source,
    preparation) and the performance inputs' documents."""
    counts: set[int] = set()
    for pointer, value in ctx.figures.items():
        if type(value) is int and "document" in pointer.rsplit("/", 1)[-1]:
            counts.add(value)
    for item in as_list(dig(ctx.evidence, "quality", "slices")) or []:
        sensitive = as_int(dig(item, "documents_with_sensitive_gold"))
        missed = as_int(dig(item, "documents_with_any_miss"))
        if sensitive is not None and missed is not None:
            counts.add(sensitive - missed)
    stack: list[Any] = [ctx.manifest]
    while stack:  # the manifest is small (a few hundred values)
        value = stack.pop()
        if isinstance(value, dict):
            for key, child in value.items():
                if type(child) is int and ("document" in key or key == "records" or key.endswith("_records")):
                    counts.add(child)
                elif isinstance(child, (dict, list)):
                    stack.append(child)
        elif isinstance(value, list):
            stack.extend(child for child in value if isinstance(child, (dict, list)))
    for item in as_list(dig(ctx.evidence, "performance", "inputs")) or []:
        documents = as_int(dig(item, "documents"))
        if documents is not None:
            counts.add(documents)
    return counts


def document_mismatches(prose: list[tuple[int, int, str]], counts: set[int]) -> list[tuple[int, int]]:
    """(line, column) of every count of documents printed in the sentences ``prose`` that is no document count of the
    bundle (see :func:`document_counts`)."""
    wrong: list[tuple[int, int]] = []
    for line, column, sentence in prose:
        for match in DOCUMENT_COUNT.finditer(sentence):
            if int(match.group(1).replace(",", "")) not in counts:
                wrong.append((line, column + match.start()))
    return wrong


def _amount_token(line: int, column: int, whole: str, decimals: str | None, unit: str) -> Token:
    """A number with its unit, to classify (the caller reports it, with the file)."""
    kind, scale = UNIT_SCALE[unit]
    printed = Fraction(whole.replace(",", "") + ("." + decimals if decimals else ""))
    return Token("", line, column, whole, printed, len(decimals or ""), kind, scale)


def bound_mismatches(prose: list[tuple[int, int, str]], by_statistic: dict[str, Figures],
                     by_size: dict[int, Figures]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(statistic mismatches, bank-size mismatches) as (line, column): a latency printed with its statistic that is
    no verified latency of that statistic; a throughput in a sentence naming exactly one bank size (a size the
    verifier measured) that is no verified throughput of a bank of that size. ``prose``: the file's sentences
    (:func:`summary_prose.sentences`)."""
    statistic_wrong: list[tuple[int, int]] = []
    size_wrong: list[tuple[int, int]] = []
    for line, column, sentence in prose:
        for pattern in (STATISTIC_AFTER, STATISTIC_BEFORE):
            for match in pattern.finditer(sentence):
                if pattern is STATISTIC_AFTER:
                    whole, decimals, unit, statistic = match.group(1), match.group(2), match.group(3), match.group(4)
                else:
                    statistic, whole, decimals, unit = match.group(1), match.group(2), match.group(3), match.group(4)
                start = match.start(1) if pattern is STATISTIC_AFTER else match.start(2)
                token = _amount_token(line, column + start, whole, decimals, unit)
                if classify(token, by_statistic[_STATISTIC_KEYS[statistic]]) != "traced":
                    statistic_wrong.append((line, column + start))
        sizes = {int(match.group(1).replace(",", "")) for match in BANK_SIZE.finditer(sentence)}
        if len(sizes) != 1 or next(iter(sizes)) not in by_size:
            continue
        figures = by_size[next(iter(sizes))]
        for match in RATE_AMOUNT.finditer(sentence):
            token = _amount_token(line, column + match.start(), match.group(1), match.group(2), "documents/s")
            if classify(token, figures) != "traced":
                size_wrong.append((line, column + match.start()))
    return statistic_wrong, size_wrong


def classify(token: Token, figures: Figures) -> str:
    """'traced', 'favourable', 'misrounded' or 'untraced' for one number (see module docstring)."""
    if token.kind == COUNT:
        traced = token.decimals == 0 and token.printed.denominator == 1 and token.printed.numerator in figures.counts
        return "traced" if traced else "untraced"
    if token.kind not in figures.values:
        return "untraced"
    digits = token.printed * 10**token.decimals
    if digits.denominator != 1:
        return "untraced"
    return figures.table(token.kind, token.scale, token.decimals).get(digits.numerator, "untraced")


OWN_TITLE = "# Verified benchmark summary\n"
OWN_MARKER = "`nerb-verify render`"


def is_own_render(summary: str) -> bool:
    """True when summary.md says it was written by our renderer (title line and the renderer's name up front)."""
    return summary.startswith(OWN_TITLE) and OWN_MARKER in summary[:600]


def check_own_render(ctx: VerifyContext, available: dict[str, str]) -> None:
    """Re-render our own summary and figures from the verified figures; every file must be byte-identical to one of
    the two sanctioned wordings (after verification, or at assembly time)."""
    from nerb_verify.render.output import bundle_files, render_files

    rendered = render_files(ctx)
    variants = [bundle_files(rendered, assembly=False), bundle_files(rendered, assembly=True)]
    for rel in sorted(variants[0]):
        text = available.get(rel)
        if text is None:
            continue  # a missing figure is reported by the bundle and binding families
        if any(text.encode("utf-8") == variant[rel] for variant in variants):
            continue
        expected = variants[1][rel].decode("utf-8").splitlines()
        line = next((i + 1 for i, (a, b) in enumerate(zip(text.splitlines(), expected)) if a != b),
                    min(len(expected), len(text.splitlines())) + 1)
        ctx.collector.add(RENDER_MISMATCH, rel, "", line=line, column=1)


def run(ctx: VerifyContext) -> None:
    """Trace every number, hash, provenance name and verdict word in summary.md and the figures."""
    col = ctx.collector
    available = {rel: ctx.files[rel].text for rel in text_files(ctx)
                 if isinstance(getattr(ctx.files[rel], "text", None), str)}
    if not available:
        col.ran("summary", "not_evaluated", reason=Label("summary.md and figures missing or unreadable"))
        return
    if not isinstance(ctx.evidence, dict) or not isinstance(ctx.manifest, dict):
        # The verified figures come from the evidence and manifest; their own errors already reject the bundle.
        col.ran("summary", "not_evaluated", reason=Label("manifest or evidence missing or schema-invalid"))
        return
    if is_own_render(available.get(C.SUMMARY, "")):
        check_own_render(ctx, available)
    figures = supported_figures(ctx)
    by_statistic, by_size = bound_figures(ctx)
    documents = document_counts(ctx)
    by_class: dict[str, Figures] = {}
    layout_model = summary_model.Model(ctx)
    traced = 0
    untraced: list[tuple[str, int, int]] = []
    for rel, text in available.items():
        first = len(col.findings)
        found, hashes = tokens(rel, text)
        rows = table_classes(text) if rel == C.SUMMARY else {}
        for token in found:
            status = classify(token, figures)
            if status == "traced":
                entity_class = cell_class(rows, token.line, token.column)
                if entity_class is not None:
                    if entity_class not in by_class:
                        by_class[entity_class] = supported_figures(ctx, entity_class)
                    if classify(token, by_class[entity_class]) != "traced":
                        untraced.append((rel, token.line, token.column))
                        col.add(MISPLACED, rel, "", line=token.line, column=token.column)
                        continue
                traced += 1
                continue
            if token.kind == "overflow":
                col.add(NOT_TRACED, rel, "", "This file prints more than {n} numbers; from here on none is traced.",
                        line=token.line, column=token.column, n=MAX_NUMBERS_PER_FILE)
                untraced.append((rel, token.line, token.column))
                continue
            untraced.append((rel, token.line, token.column))
            code = {"favourable": FAVOURABLE, "misrounded": MISROUNDED}.get(status, NOT_TRACED)
            col.add(code, rel, "", line=token.line, column=token.column)
        table_lines = {number for number, line in enumerate(text.split("\n"), start=1) if line.startswith("|")}
        for line, column, numerator, denominator in pairs(rel, text):
            prose = rel == C.SUMMARY and line not in table_lines
            if not pair_traced(numerator, denominator, figures, strict=prose):
                untraced.append((rel, line, column))
                col.add(RATIO_NOT_TRACED, rel, "", line=line, column=column)
        for line, column, numerator, denominator, printed, decimals in pair_percents(rel, text):
            if not percent_states_pair(numerator, denominator, printed, decimals):
                untraced.append((rel, line, column))
                col.add(PAIR_PERCENT_MISMATCH, rel, "", line=line, column=column)
        for line, column, value in hashes:
            if value in figures.hashes or value.removeprefix("sha256:") in figures.hashes:
                traced += 1
            else:
                untraced.append((rel, line, column))
                col.add(HASH_NOT_TRACED, rel, "", line=line, column=column)
        # Bindings of a number to what its sentence names; a number with a value finding is not reported again.
        reported = {(line, column) for file, line, column in untraced if file == rel}
        prose = list(summary_prose.sentences(rel, text))
        statistic_wrong, size_wrong = bound_mismatches(prose, by_statistic, by_size)
        for code, positions in ((STATISTIC_MISMATCH, statistic_wrong), (BANK_SIZE_MISMATCH, size_wrong),
                                (DOCUMENTS_NOT_TRACED, document_mismatches(prose, documents))):
            for line, column in positions:
                if (line, column) not in reported:
                    reported.add((line, column))
                    untraced.append((rel, line, column))
                    col.add(code, rel, "", line=line, column=column)
        _layout(ctx, layout_model, rel, text, untraced)
        wrong, claims = summary_prose.check(rel, text, col.decisions, ctx.evidence, prose)
        for line, column in wrong:
            col.add(summary_prose.DECISION, rel, "", line=line, column=column)
        for line, column in claims:
            col.add(summary_prose.UNSUPPORTABLE, rel, "", line=line, column=column)
        _provenance(ctx, rel, text)
        _verdicts(ctx, rel, text)
        if len(col.findings) - first > MAX_FINDINGS_PER_FILE:
            dropped = len(col.findings) - first - MAX_FINDINGS_PER_FILE
            del col.findings[first + MAX_FINDINGS_PER_FILE:]
            col.add(NOT_TRACED, rel, "", "{n} further findings in this file are not listed.", n=dropped)
    _bar_colours(ctx, available)
    ctx.shared["summary.untraced"] = untraced
    col.ran("summary", traced=traced, untraced=len(untraced), files=len(available))


def _bar_colours(ctx: VerifyContext, available: dict[str, str]) -> None:
    """``summary.bar_colour_mismatch`` at every bar whose fill colour the bundle's figures use both for a row that
    passes and for a row that fails (see ``summary_layout.bar_colours``)."""
    bars = [(rel, offset, fill, status) for rel, text in available.items() if rel.endswith(".svg")
            for offset, fill, status in summary_layout.bar_colours(text)]
    passing = {fill for _rel, _offset, fill, status in bars if status == "pass"}
    failing = {fill for _rel, _offset, fill, status in bars if status == "fail"}
    shared = passing & failing
    for rel, offset, fill, _status in bars:
        if fill in shared:
            line, column = summary_layout.line_col(summary_layout.line_starts(available[rel]), offset)
            ctx.collector.add(summary_layout.COLOUR, rel, "", line=line, column=column)


def _layout(ctx: VerifyContext, model: summary_model.Model, rel: str, text: str,
            untraced: list[tuple[str, int, int]]) -> None:
    """Position checks (summary_layout): table cells of summary.md, SVG labels, bars and threshold markers.

    A number that already has a value finding is not reported again for its position."""
    col = ctx.collector
    if rel == C.SUMMARY:
        skip = {(line, column) for file, line, column in untraced if file == rel}
        for line, column in summary_layout.check_tables(model, text, skip):
            untraced.append((rel, line, column))
            col.add(summary_layout.CELL, rel, "", line=line, column=column)
        standalone = as_dict(col.decisions.get("standalone_redaction")) or {}
        failed = {name for name in as_list(standalone.get("failed_gates")) or []
                  if isinstance(name, str) and name in summary_model.METRICS}
        unknown, omitted = summary_layout.check_table_rows(text, failed)
        for line, column in unknown:
            untraced.append((rel, line, column))
            col.add(summary_layout.ROW_LABEL, rel, "", line=line, column=column)
        for line, column in omitted:
            col.add(summary_layout.OMITTED, rel, "", line=line, column=column)
        classes = summary_classes.evaluated_classes(ctx.evidence)
        for line, column in summary_classes.omitted_classes(text, classes):
            col.add(summary_classes.CLASS_OMITTED, rel, "", line=line, column=column)
        return
    found = summary_layout.check_svg(model, text)
    starts = summary_layout.line_starts(text)
    if found is None:
        col.add(summary_layout.UNREADABLE, rel, "", line=1, column=1)
        return
    skip = {(line, column) for file, line, column in untraced if file == rel}
    for code in (summary_layout.LABEL, summary_layout.BAR, summary_layout.MARKER):
        for offset in sorted(set(found[code])):
            line, column = summary_layout.line_col(starts, offset)
            if code == summary_layout.LABEL and (line, column) in skip:
                continue
            untraced.append((rel, line, column))
            col.add(code, rel, "", line=line, column=column)


def _line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


def _names_cpu(name: str, cpu: str) -> bool:
    """True when ``cpu`` names exactly this chip: as a whole word, and not a larger variant ("Apple M4" does not
    name an "Apple M4 Max")."""
    pattern = r"(?<!\w)" + re.escape(name) + r"(?!\w| (?:Pro|Max|Ultra)\b)"
    return re.search(pattern, cpu) is not None


def _provenance(ctx: VerifyContext, rel: str, text: str) -> None:
    environment = as_dict(dig(ctx.evidence, "environment")) or {}
    cpu = environment.get("cpu_model") if isinstance(environment.get("cpu_model"), str) else ""
    system = environment.get("os") if isinstance(environment.get("os"), str) else ""
    for match in CPU_WORDS.finditer(text):
        if not _names_cpu(match.group(1), cpu):
            line, column = _line_col(text, match.start())
            ctx.collector.add(PROVENANCE, rel, "", "The CPU named here is not the evidence's recorded CPU.",
                              line=line, column=column)
    for match in OS_PATTERN.finditer(text):
        if OS_WORDS[match.group(1)] != system:
            line, column = _line_col(text, match.start())
            ctx.collector.add(PROVENANCE, rel, "", "The OS named here is not the evidence's recorded OS.",
                              line=line, column=column)


def _verdicts(ctx: VerifyContext, rel: str, text: str) -> None:
    decisions = ctx.collector.decisions
    checks: list[tuple[re.Pattern[str], Any]] = [
        (re.compile(r"Known-bank contract[^.\n]{0,200}?:\s*\**\s*(PASS|FAIL)\b"),
         lambda word: dig(decisions.get("known_bank_contract"), "verdict") == word),
        (re.compile(r"\b(NOT ELIGIBLE|ELIGIBLE)\b"),
         lambda word: dig(decisions.get("standalone_redaction"), "eligible") is (word == "ELIGIBLE")),
        (re.compile(r"capacity gates:\s*(passed|failed)\b"),
         lambda word: dig(ctx.artifact(C.CAPACITY_DECISION), "report", "gates", "passed") is (word == "passed")),
        (re.compile(r"performance decision-grade gates:\s*(passed|failed)\b"),
         lambda word: dig(decisions.get("performance"), "decision_grade") == word),
    ]
    for pattern, holds in checks:
        for match in pattern.finditer(text):
            if not holds(match.group(1)):
                line, column = _line_col(text, match.start(1))
                ctx.collector.add(VERDICT, rel, "", line=line, column=column)
    for index, tail in enumerate(ROW_TAIL.finditer(text)):
        if index >= MAX_ROWS_PER_FILE:
            line, column = _line_col(text, tail.start(2))
            ctx.collector.add(VERDICT, rel, "", "More than {n} threshold rows; the rest are not checked.",
                              line=line, column=column, n=MAX_ROWS_PER_FILE)
            break
        # Anchor on the threshold clause, then read the "X of Y" in the 300 characters before it (linear time).
        window = text[max(0, tail.start() - 300):tail.start()]
        counts = None
        for counts in ROW_COUNTS.finditer(window):
            pass
        if counts is None or ";" in window[counts.end():] or "<" in window[counts.end():]:
            continue
        num, den = int(counts.group(1).replace(",", "")), int(counts.group(2).replace(",", ""))
        threshold = Fraction(tail.group(1)) / 100
        passes = den > 0 and Fraction(num, den) >= threshold
        if passes is not (tail.group(2) == "pass"):
            line, column = _line_col(text, tail.start(2))
            ctx.collector.add(VERDICT, rel, "", line=line, column=column)
