"""The Markdown summary: verdicts first, then the tables behind them, in nerb-verify's own words."""

from __future__ import annotations

from fractions import Fraction

from nerb_verify.render.model import RenderModel
from nerb_verify.render.numbers import count, fixed, percent

FIGURES = {
    "contract": "figures/known-bank-contract.svg",
    "coverage": "figures/coverage-decomposition.svg",
    "gates": "figures/standalone-redaction-gates.svg",
    "scale": "figures/throughput-by-bank-size.svg",
}


def _yes_no(value: bool | None, yes: str, no: str) -> str:
    return "not evaluated" if value is None else (yes if value else no)


def _requirement(operator: str, threshold: Fraction, kind: str) -> str:
    shown = count(int(threshold)) if kind == "count" and threshold.denominator == 1 else percent(threshold)
    return {"gte": "at least ", "lte": "at most ", "eq": "exactly "}.get(operator, "") + shown


def render_markdown(model: RenderModel) -> str:
    """The summary as text (ends with exactly one newline)."""
    out: list[str] = ["# Verified benchmark summary", ""]
    out += [
        ("This page was written by `nerb-verify render` after the bundle passed verification. Every number on it is "
        "the correctly rounded value of a figure nerb-verify recomputed itself, from integer counts and raw timing "
        "samples; nothing is copied from the publisher's own summary."),
        "",
        "## Verdicts",
        "",
        f"- Known-bank contract: **{model.known_verdict}**",
        f"- Standalone privacy redaction: **{_yes_no(model.eligible, 'ELIGIBLE', 'NOT ELIGIBLE')}**",
        f"- Full-source capacity gates: {_yes_no(model.capacity_passed, 'passed', 'failed')}",
        f"- Performance decision-grade gates: {(model.performance_grade or 'not evaluated').replace('_', ' ')}",
        "",
        ("The known-bank contract is what the matcher promises: every pattern in the bank is found and mapped to its "
        "entity. Standalone redaction asks more: whether this particular bank, on its own, would catch the personal "
        "data in unseen mail. A bank can keep the first promise and still fail the second."),
        "",
    ]
    out += ["## Known-bank contract", "", "| Check | Found | Out of | Share |", "|---|---:|---:|---:|"]
    rows = list(model.contract_rows) + ([model.natural_exact] if model.natural_exact else [])
    for row in rows:
        share = percent(Fraction(row.count, row.total)) if row.total else "n/a"
        out.append(f"| {row.label} | {count(row.count)} | {count(row.total)} | {share} |")
    if model.wrong_mappings is not None:
        out += ["", f"Approved cases mapped to the wrong entity: {count(model.wrong_mappings)}."]
    out += ["", f"![Known-bank contract]({FIGURES['contract']})", ""]
    out += ["## Where the labeled spans went", "",
            "| Class | Labeled spans | Found exactly | Known but missed | Wrong entity | Not in the bank |",
            "|---|---:|---:|---:|---:|---:|"]
    for row in model.coverage:
        out.append(f"| {row.label} | {count(row.gold)} | {count(row.exact)} | {count(row.span_miss)} | "
                   f"{count(row.wrong)} | {count(row.outside)} |")
    out += ["", "Spans not in the bank measure how complete the bank is, not how well the matcher works.", "",
            f"![Coverage decomposition]({FIGURES['coverage']})", ""]
    out += ["## Standalone-redaction gates", "", "| Gate | Recomputed | Requirement | Result |", "|---|---:|---:|---|"]
    for gate in model.gates:
        value = count(int(gate.value)) if gate.kind == "count" and gate.value.denominator == 1 else percent(gate.value)
        result = "meets" if gate.passed else "misses"
        out.append(f"| {gate.label} | {value} | {_requirement(gate.operator, gate.threshold, gate.kind)} | {result} |")
    out += ["", f"![Standalone-redaction gates]({FIGURES['gates']})", ""]
    out += ["## Throughput and bank size", ""]
    if model.throughput is not None and model.throughput_median is not None:
        size = f" ({count(model.evaluated_patterns)} patterns)" if model.evaluated_patterns is not None else ""
        docs = f" {count(model.throughput_documents)}-document" if model.throughput_documents is not None else ""
        out.append(f"The evaluated bank{size} scanned the{docs} throughput input in a median of "
                   f"{fixed(model.throughput_median * 1000, 3)} ms, {fixed(model.throughput, 1)} documents/s.")
    if model.latency_median is not None and model.latency_p95 is not None:
        out.append(f"Per-document latency: median {fixed(model.latency_median * 1_000_000, 3)} µs, "
                   f"95th percentile {fixed(model.latency_p95 * 1_000_000, 3)} µs.")
    if model.cold_compile is not None:
        out.append(f"Compiling the bank from cold took a median of {fixed(model.cold_compile, 3)} s.")
    out += ["", "| Patterns in the bank | Median per input | Throughput |", "|---:|---:|---:|"]
    for row in model.scale:
        out.append(f"| {count(row.patterns)} | {fixed(row.median_seconds * 1000, 3)} ms | "
                   f"{fixed(row.docs_per_second, 1)} documents/s |")
    out += ["", f"![Throughput by bank size]({FIGURES['scale']})", ""]
    out += ["## Scope and provenance", ""]
    for row in model.scope:
        out.append(f"- {row.label}: {count(row.count)}")
    if model.bank_hash:
        out.append(f"- Bank: `{model.bank_hash}`")
    if model.commit:
        out.append(f"- Measured at commit `{model.commit}`")
    if model.machine:
        out.append(f"- Measured on: {model.machine}")
    out.append("")
    return "\n".join(out)
