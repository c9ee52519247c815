"""tools/bench_scan_engine.py plumbing: the generator's shape and the ABBA order. No timings, no subprocesses."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nerb_verify.producers.bank_format import active_detectors, validate_bank  # noqa: E402
from tools.bench_scan_corpus import UNKNOWN_DOMAINS, make_bank, make_workload  # noqa: E402
from tools.bench_scan_engine import SMOKE_COUNTS, abba_schedule, summarize_cell  # noqa: E402

RESERVED = ("example.com", "example.org", "example.net", ".example", ".test")


def test_abba_order() -> None:
    assert abba_schedule(1) == ["ours", "nerb", "nerb", "ours"]
    assert abba_schedule(2) == ["ours", "nerb", "nerb", "ours"] * 2
    assert abba_schedule(1, ("ours",)) == ["ours", "ours"]


def test_bank_has_the_builder_shape() -> None:
    bank, people = make_bank(200, seed=3)
    validate_bank(bank)
    detectors = active_detectors(bank)
    assert len(detectors) == 200
    names = [d for d in detectors if d.entity_id == "person"]
    contacts = [d for d in detectors if d.entity_id == "contact" and d.kind == "literal"]
    regexes = [d for d in detectors if d.kind == "regex"]
    assert len(names) == 100 and len(contacts) == 99 and len(regexes) == 1
    assert all(d.normalize_whitespace for d in names) and not any(d.normalize_whitespace for d in contacts)
    assert len({d.value.casefold() for d in names}) == 100  # distinct people
    assert all(d.value.endswith(RESERVED) for d in contacts)
    assert make_bank(200, seed=3) == (bank, people)  # seeded
    assert all(d.value.isascii() for d in names)  # ASCII names unless asked (Enron headers)
    accented, _ = make_bank(200, seed=3, non_ascii_names=0.5)
    assert any(not d.value.isascii() for d in active_detectors(accented) if d.entity_id == "person")


def test_workloads_are_varied_mail_with_the_stated_hit_rates() -> None:
    _, people = make_bank(200, seed=3)
    for kind, lo, hi in (("normal", 3, 4), ("dense", 30, 32), ("addrlist", 50, 50)):
        docs, planted = make_workload(kind, people, 200, seed=3, count=SMOKE_COUNTS[kind])
        assert len(docs) == SMOKE_COUNTS[kind] and len(set(docs)) == len(docs)  # no two documents alike
        assert lo <= planted / len(docs) <= hi
        if kind != "addrlist":  # a 99-address bank repeats addresses across 250 list entries, by design
            lines = [line for d in docs for line in d.splitlines() if len(line) > 40]
            assert len(set(lines)) > 0.95 * len(lines)  # no shared padding
    docs, _ = make_workload("normal", people, 200, seed=3, count=20)
    assert 1_500 <= sum(len(d) for d in docs) / len(docs) <= 3_000
    docs, _ = make_workload("long", people, 200, seed=3, count=1)
    assert len(docs[0].encode()) >= 20_000
    assert all(d in RESERVED + tuple(UNKNOWN_DOMAINS) or d.endswith(RESERVED) for d in UNKNOWN_DOMAINS)


def test_summary_flags_a_record_difference() -> None:
    def run(engine: str, digests: list[str], warm: int) -> dict[str, object]:
        return {"engine": engine, "docs": 2, "bytes": 10, "records": 2, "digests": digests, "warm_pass_ns": [warm],
                "cold_ns": warm, "compile_ns": 1, "import_ns": 1, "peak_rss_bytes": 1 << 20,
                "load_before": 1.0, "load_after": 1.0}

    same = summarize_cell([run("ours", ["a", "b"], 10), run("nerb", ["a", "b"], 20)])
    assert same["records_equal"] and same["ratio"]["warm"] == 2.0 and same["ratio"]["cold"] == 2.0
    differ = summarize_cell([run("ours", ["a", "b"], 10), run("nerb", ["a", "c"], 20)])
    assert not differ["records_equal"] and differ["differing_documents"] == [1]


def test_nearest_rank_p99() -> None:
    from tools.bench_scan_engine import nearest_rank

    values = list(range(1, 101))
    assert nearest_rank(values, 0.99) == 99 and nearest_rank(values, 1.0) == 100
    assert nearest_rank([5.0], 0.99) == 5.0
    assert nearest_rank(list(range(1, 201)), 0.99) == 198


def _cell(bank: int, workload: str, ours_ns: int, nerb_ns: int, doc_ms: float) -> dict[str, object]:
    def run(engine: str, ns: int) -> dict[str, object]:
        return {"engine": engine, "docs": 100, "bytes": 1 << 20, "records": 100, "digests": ["a"],
                "warm_pass_ns": [ns], "warm_pass_cpu_ns": [ns], "cold_ns": ns, "cold_cpu_ns": ns,
                "cold_doc_ns": [int(doc_ms * 1e6)] * 100, "warm_doc_ns": [int(doc_ms * 1e6)] * 100,
                "warm_doc_cpu_ns": [int(doc_ms * 1e6)] * 100, "compile_ns": 1, "import_ns": 1,
                "peak_rss_bytes": 1 << 20, "load_before": 1.0, "load_after": 1.0}

    runs = [run("ours", ours_ns), run("nerb", nerb_ns)]
    return {"bank": bank, "workload": workload, "docs": 100, "mean_bytes": 10_000.0, "bank_bytes": 1,
            "summary": summarize_cell(runs), "runs": runs}


def test_charter_table_and_plot_come_from_the_report() -> None:
    import xml.dom.minidom

    from tools.bench_scan_engine import charter_table, markdown, svg_plot

    report = {"seed": 18, "cells": [_cell(1000, "normal", 10**8, 2 * 10**8, 1.0),
                                    _cell(1000, "long", 4 * 10**8, 10**8, 80.0)]}
    table = charter_table(report)
    assert "| 1,000 | normal | 1.00 |" in table and table.count("NOT held") == 1  # 80 ms > 50 ms
    assert "2.00x" in markdown(report) and "0.25x" in markdown(report)
    svg = svg_plot(report)
    xml.dom.minidom.parseString(svg)  # well-formed
    assert "1,000 normal warm_cpu: 2.00x" in svg and "1,000 long warm_cpu: 0.25x" in svg


def test_merged_reports_pool_the_runs_of_each_cell() -> None:
    """A cell run again (more rounds) is summarized over the runs of both reports; other cells keep their own;
    reports of another seed (other inputs) are refused."""
    import pytest

    from tools.bench_scan_engine import merge_reports

    first = {"seed": 18, "cells": [_cell(1000, "normal", 10**8, 2 * 10**8, 1.0),
                                   _cell(1000, "dense", 10**8, 10**8, 1.0)]}
    again = {"seed": 18, "cells": [_cell(1000, "dense", 10**8, 4 * 10**8, 1.0), _cell(10000, "dense", 1, 1, 1.0)]}
    merged = merge_reports([first, again])
    assert [(c["bank"], c["workload"]) for c in merged["cells"]] == [(1000, "normal"), (1000, "dense"),
                                                                     (10000, "dense")]
    dense = merged["cells"][1]
    assert len(dense["runs"]) == 4 and dense["summary"]["nerb"]["runs"] == 2
    assert dense["summary"]["ratio"]["warm_cpu"] == 1.6  # ours 1,000 docs/s, NERB the median of 1,000 and 250
    assert merged["cells"][0]["summary"]["ratio"]["warm_cpu"] == 2.0 and len(first["cells"][1]["runs"]) == 2
    with pytest.raises(ValueError):
        merge_reports([first, {"seed": 19, "cells": []}])
