"""Position, geometry and prose rules of the summary family (issue 16, class 8): parsers and rules, table-driven,
plus hypothesis properties that hostile Markdown and SVG never raise. The coherent forgeries themselves are broken
fixtures (fixtures/invalid/summary.{cell_mismatch,label_mismatch,bar_geometry,threshold_marker,...}-*)."""

from __future__ import annotations

import time
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nerb_verify.checks.presentation import summary_layout as L
from nerb_verify.checks.presentation import summary_prose as P
from nerb_verify.checks.presentation.summary_model import RowFigure, class_of, measure_of, scale_of


@pytest.mark.parametrize("label,measure", [
    ("Exact-span miss", "miss"), ("**Wrong mapping**", "wrong"), ("Correct exact + mapping", "exact"),
    ("Open-world exact-span recall", "open_world_recall"), ("Precision (diagnostic)", "precision"),
    ("Frozen requirement", "threshold"), ("Docs without exact-span miss", "docs_without_miss"),
    ("Negative cases clean", "conf_negatives"), ("Kontakt", None), ("", None),
])
def test_measure_vocabulary(label, measure):
    assert measure_of(label) == measure


def test_class_and_scale_labels():
    assert class_of("Combined") == "person_contact" and class_of("All classes") == "person_contact"
    assert class_of("Combined application count") is None  # only whole labels name a class row
    assert scale_of("1,000 patterns") == 1000 and scale_of("1,000", "Bank size") == 1000
    assert scale_of("1,000") is None  # a bare number names a bank size only under a bank-size header


@pytest.mark.parametrize("text,row,bad", [
    ("142 / 1,393", RowFigure(num=142, den=1393), []),
    ("142 / 1,392", RowFigure(num=142, den=1393), [0]),
    ("10.19%", RowFigure(value=Fraction(142, 1393)), []),
    ("10.48%", RowFigure(value=Fraction(142, 1393)), [0]),
    ("≥95%", RowFigure(thresholds={Fraction(19, 20)}), []),
    ("10.19% (at least 80.00%)", RowFigure(value=Fraction(142, 1393), thresholds={Fraction(19, 20)}), [17]),
    ("142 exact · 0 span miss", RowFigure(counts={"exact": 142, "miss": 4}), [12]),
    ("932,401 docs/s", RowFigure(rate=Fraction(400000000, 429)), []),
    ("6,811 docs/s", RowFigure(rate=Fraction(400000000, 429)), [0]),
    ("diagnostic", RowFigure(value=Fraction(1, 2)), []),
])
def test_numbers_bound_to_their_row(text, row, bad):
    assert L.unsupported_numbers([row], text) == bad


def test_tables_parse_cells_with_columns():
    text = "| Class | Gold |\n|---|---:|\n| Contact | 126 |\n\nprose\n| A |\n"
    parsed = L.tables(text)
    assert parsed[0][0] == [" Class ", " Gold "]
    cells = parsed[0][1][0]
    assert (cells[1].line, cells[1].column, cells[1].text) == (3, 12, " 126 ")
    assert parsed[1][1] == []


def test_svg_parser_reads_elements_and_refuses_declarations():
    svg = '<svg><!-- c --><text x="1">Precision</text><rect x="2" width="3.5"/></svg>'
    elements = L.parse_svg(svg)
    assert elements is not None
    assert [e.name for e in elements] == ["svg", "text", "rect"]
    assert elements[1].text == "Precision" and elements[2].number("width") == Fraction(7, 2)
    for hostile in ('<!DOCTYPE svg [<!ENTITY a "b">]><svg/>', "<svg><![CDATA[x]]></svg>", "<svg><rect x=1/>",
                    "<svg><text>open", "<svg><!-- never closed"):
        assert L.parse_svg(hostile) is None or all(e.name != "rect" for e in L.parse_svg(hostile) or [])
    assert L.parse_svg('<!DOCTYPE svg><svg/>') is None


@pytest.mark.parametrize("sentence,stated", [
    ("This bank qualifies as a standalone privacy redactor.", False),
    ("This bank does not qualify as a standalone redactor.", True),
    ("This bundle was promoted.", False),
    ("This bundle was not promoted.", True),
    ("The known-bank contract holds.", True),
    ("The known-bank contract failed here.", False),
    ("Could this bank, by itself, redact everything as a standalone redactor?", None),
    ("Use the flag only when a bank must qualify as a standalone redactor.", None),
    ("Separate application result: NOT ELIGIBLE for standalone PII redaction.", None),
])
def test_decision_sentences(sentence, stated):
    decisions = {"standalone_redaction": {"eligible": False}, "known_bank_contract": {"passed": True}}
    assert P.decision_holds(sentence, decisions, {"promotion": {"passed": False}}) is stated


@pytest.mark.parametrize("sentence,bad", [
    ("NERB catches all PII.", True), ("It detects every piece of personal data.", True),
    ("The scanner redacts 100% of PII in mail.", True), ("NERB guarantees 100% recall.", True),
    ("Complete recall is guaranteed.", True), ("It never misses any personal data.", True),
    ("No PII is ever missed.", True), ("Open-world recall is the matcher recall.", True),
    ("NERB does not catch all PII.", False), ("It is not a guarantee to discover entities absent from the bank.", False),
    ("NERB finds every cataloged PII occurrence in the bank.", False), ("Neither is matcher recall.", False),
    ("Could this bank redact all in-scope PII?", False),
    ("No known cataloged miss in this frozen evaluation.", False),
])
def test_unsupportable_claims(sentence, bad):
    assert P.unsupportable(sentence) is bad


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='<>/="\' !-[]?abcdefrtxyw0123456789.&;#', max_size=400))
def test_svg_parser_never_raises(text):
    elements = L.parse_svg(text)
    assert elements is None or isinstance(elements, list)
    list(P.sentences("figures/x.svg", text))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="|-: `*abcCombinedPersonContact?.;\n0123456789%/,≥", max_size=400))
def test_markdown_rules_never_raise(text):
    L.tables(text)
    for _line, _column, sentence in P.sentences("summary.md", text):
        P.unsupportable(sentence)
        P.decision_holds(sentence, {}, None)


def test_parsers_are_linear():
    """A hostile 2 MB figure and summary are parsed in bounded CPU time (no backtracking blow-up)."""
    svg = "<svg>" + '<rect x="1" width="2"/>' * 19_000 + "<text>" + "9 of " * 50_000 + "</text></svg>"
    markdown = ("| " + "1 | " * 200 + "\n") * 500 + "catch all " * 20_000
    start = time.process_time()
    L.parse_svg(svg)
    L.tables(markdown)
    for _line, _column, sentence in P.sentences("summary.md", markdown):
        P.unsupportable(sentence)
    assert time.process_time() - start < 10


_exact = st.one_of(st.fractions(max_denominator=10**12), st.integers(-10**6, 10**6),
                   st.floats(min_value=-1e6, max_value=1e6).map(Fraction))


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 6), st.integers(-10**9, 10**9), st.sampled_from([1, 100, 1000]),
       st.lists(_exact, max_size=4), st.data())
def test_supported_in_integers_equals_the_fraction_rounding_rule(decimals: int, digits: int, scale: int,
                                                                 values: list[Fraction], data: st.DataObject) -> None:
    """``_supported`` (cross-multiplied integers) says yes exactly when some value times the scale rounds to the
    printed number by the Fraction rule; printed numbers drawn near a value's rounding, ties included."""
    if values and data.draw(st.booleans()):
        target = Fraction(values[0]) * scale * 10**decimals
        digits = data.draw(st.sampled_from([int(target), int(target) + 1, int(target) - 1]))
        if data.draw(st.booleans()) and target.denominator <= 2:
            values = [Fraction(digits * 2 + 1, 2 * 10**decimals * scale)]  # an exact tie
    printed = Fraction(digits, 10**decimals)
    expected = any(L._rounds_to(printed, decimals, Fraction(v) * scale) for v in values)
    assert L._supported(printed, decimals, scale, values) == expected


_FAILED_QUALITY = {"standalone_redaction": {"eligible": False, "quality_gates_passed": False},
                   "known_bank_contract": {"passed": True}, "performance": {"decision_grade": "passed"}}


@pytest.mark.parametrize("sentence,holds", [
    ("The same bank met every preregistered application gate.", False),
    ("All preregistered application gates were met.", False),
    ("Not every application gate was met.", True),
    ("All performance gates passed.", True),
    ("Each performance threshold was not met.", False),
    # statements of the rule, not of this bundle's result
    ("Every gate passes when its exact fraction meets the threshold.", None),
    ("Every gate must pass.", None),
    ("A bank is eligible once all gates are met.", None),
])
def test_gate_family_claims_agree_with_the_decisions(sentence: str, holds: bool | None) -> None:
    assert P.decision_holds(sentence, _FAILED_QUALITY, {}) is holds


@pytest.mark.parametrize("question,answer,holds", [
    ("Could this bank, by itself, redact all in-scope person and contact PII?", "It could not.", True),
    ("Could this bank, by itself, redact all in-scope person and contact PII?", "It could.", False),
    ("Can the bank redact PII on its own?", "Yes.", False),
    ("Was the bundle promoted?", "No.", True),
    ("Does the known-bank contract hold?", "It does.", True),
    # not an answer, or not a decision question
    ("Could this bank, by itself, redact all in-scope person and contact PII?", "These frozen results remain.", None),
    ("Which slice is larger?", "It is.", None),
    ("The bank cannot redact on its own.", "It could.", None),
])
def test_short_answers_to_decision_questions_agree_with_the_decisions(question: str, answer: str,
                                                                       holds: bool | None) -> None:
    assert P.answer_holds(question, answer, _FAILED_QUALITY, {"promotion": {"passed": False}}) is holds
