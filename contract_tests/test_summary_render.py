"""summary.md and the SVGs: every printed number traced; edits found on their line; our own render deterministic,
snapshot-stable, fully traced by the same checker and clean under the privacy scanner."""

from __future__ import annotations

import copy
from fractions import Fraction
from types import SimpleNamespace

import pytest
from conftest import REAL_BUNDLE, run_cli
from hypothesis import given
from hypothesis import strategies as st

from nerb_verify.checks.presentation import summary
from nerb_verify.findings import Collector
from nerb_verify.render.numbers import fixed, percent
from nerb_verify.render.output import render_files

SUMMARY = "summary.md"


def _with(ctx, **changes):
    """A shallow copy of ``ctx`` with the named attributes replaced (the other dicts are shared, as before)."""
    fresh = copy.copy(ctx)
    for name, value in changes.items():
        setattr(fresh, name, value)
    return fresh


def rerun(real_result, rel: str, text: str):
    """Run the summary family again on the real bundle's verified context with one text file replaced."""
    ctx = real_result.ctx
    files = dict(ctx.files)
    files[rel] = SimpleNamespace(text=text)
    collector = Collector(decisions=ctx.collector.decisions)
    fresh = _with(ctx, files=files, collector=collector)
    summary.run(fresh)
    return fresh


def summary_findings(ctx):
    return sorted((f.code, f.artifact, f.line, f.column) for f in ctx.collector.findings)


# --- the real summary and figures --------------------------------------------------------------------------------

def test_every_number_of_the_real_summary_and_figures_is_traced(real_result):
    assert real_result.ctx.shared["summary.untraced"] == []
    info = real_result.collector.checks_run["summary"]
    assert info["status"] == "ran" and info["files"] == 5
    assert info["traced"] > 150  # a test that finds nothing to trace cannot pass


def test_known_numbers_are_found_with_units(real_result):
    text = real_result.ctx.files[SUMMARY].text
    found, hashes = summary.tokens(SUMMARY, text)
    by_text = {(t.text, t.kind) for t in found}
    assert ("143,057.2", summary.RATE) in by_text
    assert ("0.699", summary.SECONDS) in by_text
    assert ("9.021", summary.SECONDS) in by_text
    assert ("97.26", summary.PERCENT) in by_text
    assert ("39,604", summary.COUNT) in by_text
    assert not any(t.text == "4" and t.kind == summary.COUNT and "M4" in text.split("\n")[t.line - 1]
                   [t.column - 2:t.column + 1] for t in found)
    assert len(hashes) == 2


@pytest.mark.parametrize(("rel", "old", "new", "code"), [
    (SUMMARY, "NERB detected and correctly mapped 39,604 of", "NERB detected and correctly mapped 39,605 of",
     "summary.number_not_traced"),
    (SUMMARY, "| Sensitive-character recall | 21.34% |", "| Sensitive-character recall | 21.33% |",
     "summary.misrounded"),
    (SUMMARY, "| Over-redaction | 0.04% |", "| Over-redaction | 0.03% |", "summary.favourable_rounding"),
    (SUMMARY, "(143,057.2 documents/s)", "(143,057.3 documents/s)", "summary.favourable_rounding"),
    (SUMMARY, "median 0.699 ms", "median 0.700 ms", "summary.misrounded"),
    (SUMMARY, "median 0.699 ms", "median 0.689 ms", "summary.number_not_traced"),
    (SUMMARY, "| Open-world recall | 10.19% | 96.83% |", "| Open-world recall | 10.19% | 96.82% |",
     "summary.misrounded"),
    (SUMMARY, "| Documents without an exact-span miss | 7 / 69 |",
     "| Documents without an exact-span miss | 7 / 62 |", "summary.ratio_not_traced"),
    ("figures/known-bank-contract.svg", "142 / 146</text>", "146 / 142</text>", "summary.ratio_not_traced"),
    (SUMMARY, "Cold compilation took 7.792 s", "Cold compilation took 6.792 s", "summary.number_not_traced"),
    (SUMMARY, "`f574b79caaf194f17ba8b8113939bd22c9380bc3`", "`f574b79caaf194f17ba8b8113939bd22c9380bc4`",
     "summary.hash_not_traced"),
    (SUMMARY, "**Known-bank contract evidence: PASS.**", "**Known-bank contract evidence: FAIL.**",
     "summary.verdict_mismatch"),
    (SUMMARY, "capacity gates: passed", "capacity gates: failed", "summary.verdict_mismatch"),
    (SUMMARY, "Apple M4", "Intel", "summary.provenance_mismatch"),
    ("figures/standalone-redaction.svg", ">10.19%<", ">10.20%<", "summary.favourable_rounding"),
    ("figures/bank-coverage.svg", "1,247 outside</text>", "1,274 outside</text>", "summary.number_not_traced"),
    ("figures/standalone-redaction.svg", "98.00%; result fail", "98.00%; result pass", "summary.verdict_mismatch"),
])
def test_an_edit_is_a_finding_on_its_line(real_result, rel, old, new, code):
    original = real_result.ctx.files[rel].text
    assert original.count(old) >= 1
    edited = original.replace(old, new, 1)
    line = original[: original.index(old)].count("\n") + 1
    ctx = rerun(real_result, rel, edited)
    found = summary_findings(ctx)
    assert [f[0] for f in found] == [code]
    assert found[0][1] == rel and found[0][2] == line


def test_missing_figures_make_numbers_untraced_never_passed(real_result):
    ctx = real_result.ctx
    files = dict(ctx.files)
    fresh = _with(ctx, files=files, figures={}, collector=Collector(decisions={}))
    summary.run(fresh)
    assert len(fresh.shared["summary.untraced"]) > 100
    assert {f.code for f in fresh.collector.findings} >= {"summary.number_not_traced", "summary.verdict_mismatch"}


@given(st.fractions(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=4))
def test_correct_rounding_is_always_traced(value, decimals):
    text = fixed(value, decimals) + " documents/s"
    figures = summary.Figures()
    figures.add(summary.RATE, value, summary.HIGHER)
    [token], _ = summary.tokens(SUMMARY, text)
    assert summary.classify(token, figures) == "traced"


@given(st.floats(min_value=0, max_value=1e9, allow_nan=False), st.integers(min_value=0, max_value=3))
def test_exact_formatting_agrees_with_python_on_doubles(value, decimals):
    assert fixed(Fraction(value), decimals) == f"{value:,.{decimals}f}"


def test_percent_formatting():
    assert percent(Fraction(142, 1393)) == "10.19%"
    assert percent(Fraction(1)) == "100.00%"
    assert fixed(Fraction(18041, 2000000000) * 1_000_000, 3) == "9.020"  # exact tie, half-even


# --- our render -----------------------------------------------------------------------------------------------------

def test_render_is_deterministic(real_result):
    first = render_files(real_result.ctx)
    second = render_files(real_result.ctx)
    assert first == second
    assert sorted(first) == ["figures/coverage-decomposition.svg", "figures/known-bank-contract.svg",
                             "figures/standalone-redaction-gates.svg", "figures/throughput-by-bank-size.svg",
                             "summary.md"]


def test_rendered_summary_snapshot(real_result, snapshot):
    assert render_files(real_result.ctx)["summary.md"].decode("utf-8") == snapshot


def test_rendered_output_is_fully_traced_by_our_own_checker(real_result):
    figures = summary.supported_figures(real_result.ctx)
    for rel, data in render_files(real_result.ctx).items():
        found, hashes = summary.tokens(rel, data.decode("utf-8"))
        assert found
        assert [t for t in found if summary.classify(t, figures) != "traced"] == [], rel
        assert all(h in figures.hashes for _, _, h in hashes)
        assert all(summary.pair_traced(x, y, figures) for _, _, x, y in summary.pairs(rel, data.decode("utf-8")))


def test_rendered_output_is_clean_under_the_privacy_scanner(real_result):
    from nerb_verify.commands.render import privacy_problems

    assert privacy_problems(render_files(real_result.ctx)) == 0


def test_render_cli_writes_identical_bytes_twice(tmp_path):
    for name in ("a", "b"):
        result = run_cli("render", str(REAL_BUNDLE), "--output-dir", str(tmp_path / name))
        assert result.code == 0, result.stderr
    for path in sorted((tmp_path / "a").rglob("*")):
        if path.is_file():
            assert path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes()


def test_render_refuses_a_bundle_that_does_not_verify(tmp_path):
    import shutil

    bundle = tmp_path / "bundle"
    shutil.copytree(REAL_BUNDLE, bundle)
    (bundle / ".DS_Store").write_bytes(b"\0")
    result = run_cli("render", str(bundle), "--output-dir", str(tmp_path / "out"))
    assert result.code == 1
    assert "does not verify" in result.stderr
    assert not (tmp_path / "out").exists()


def test_render_refuses_a_non_empty_output_folder(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("x", encoding="utf-8")
    result = run_cli("render", str(REAL_BUNDLE), "--output-dir", str(tmp_path / "out"))
    assert result.code == 2
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["keep.txt"]


@pytest.mark.parametrize("hostile", [
    "1 of 1; minimum threshold 5%; result pass " * 20000,
    "<text>" * 100000,
    "7 " * 200000,
    "12.345% " * 100000,
    "<desc>" + "9" * 100000 + "</desc>",
    "1" + ",000" * 5000,
], ids=["rows", "open-tags", "counts", "percents", "long-digits", "long-grouping"])
def test_hostile_text_is_bounded_and_fails_closed(real_result, hostile):
    import time

    start = time.perf_counter()
    ctx = rerun(real_result, SUMMARY, hostile)
    assert time.perf_counter() - start < 5
    assert len(ctx.collector.findings) <= summary.MAX_FINDINGS_PER_FILE + 2
    if any(ch.isdigit() for ch in hostile[:20]) or "9999" in hostile:
        assert ctx.collector.findings  # numbers nobody can trace are findings, never a silent pass
