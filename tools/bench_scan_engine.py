#!/usr/bin/env python3
"""Benchmark the RE2 scan engine beside NERB's own engine on the same controlled banks and inputs.

Not a test: a measurement whose numbers go into docs/performance.md ("Scan engine"). Usage:

    python tools/bench_scan_engine.py --sizes 1000,10000 --python /tmp/venv-gre2/bin/python --out results.json

``--python`` is an interpreter that has google-re2 (and, for the comparison, ``nerb``, which is never a dependency
of this project: install it in a throwaway venv). Each (engine, bank) pair runs in a fresh worker process, so compile
time and peak RSS (``VmHWM`` of that process: interpreter, bank load + compile + all scans) are per engine and bank.

Controlled banks (after spec 50 §8.4): N active literal patterns (plus round(N/13,201) regex rows) spread over
entities, contacts and aliases in the evaluated bank's composition (12,001 : 1,200), at most 50,000 per entity;
2 / 2 / 4 / 16 entities for 1k / 10k / 25k / 100k. Controlled inputs: 100 documents each, sizes small/medium/large/huge
= 512 / 10,240 / 65,536 / 300,000 bytes, densities negative (0), sparse (1 record in doc 0), normal (1 per doc),
dense (3 per doc): the hit tokens first, then ``nerb synthetic benchmark padding `` to the exact size.

Cells: every bank on negative-medium and normal-medium; the 1k bank on all 16 density x size inputs. Per cell: one
unrecorded warm-up pass, then ``--passes`` timed passes; every document timed alone with ``perf_counter_ns``.
docs/s and MiB/s come from the median pass total; document p99 is nearest-rank over all per-document samples.
Records must be identical across engines: each cell's records (entity, canonical, surface, string, start, end) are
digested per document and compared.

``--primitive`` runs the pyre2-vs-google-re2 comparison of the RE2 primitive both bindings share (a lexicographically
sorted alternation per entity, compile + unanchored search over the same documents) with the interpreter given.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SIZES = {"small": 512, "medium": 10_240, "large": 65_536, "huge": 300_000}
DENSITIES = {"negative": 0, "sparse": None, "normal": 1, "dense": 3}
ENTITIES = {1_000: 2, 10_000: 2, 25_000: 4, 100_000: 16}
PADDING = "nerb synthetic benchmark padding "
DOCS = 100


# --- generation --------------------------------------------------------------------------------------------------

def make_bank(n: int) -> tuple[dict[str, Any], list[str]]:
    """A controlled ``nerb.bank.v1`` bank with ``n`` active patterns, and its literal hit tokens in a spread order."""
    entity_count = ENTITIES.get(n, max(2, 2 * math.ceil(n / 50_000)))
    per_class = entity_count // 2
    regex_rows = round(n / 13_201)
    contacts = round(n * 12_001 / 13_201)
    aliases = n - contacts
    entities: dict[str, Any] = {}
    tokens: list[list[str]] = []
    for taxon, total, letter in ((0, contacts, "C"), (1, aliases, "A")):
        for shard in range(per_class):
            count = total // per_class + (1 if shard < total % per_class else 0)
            names: dict[str, Any] = {}
            entity_tokens: list[str] = []
            for i in range(count):
                index = shard * 100_000 + i
                token = f"NERB{letter}{index:06d}"
                is_regex = taxon == 0 and shard == 0 and i < regex_rows
                if is_regex:
                    pattern = {"kind": "regex", "value": "\\b" + token[:-1] + f"[{token[-1]}X]\\b",
                               "description": "", "status": "active", "priority": i, "regex_flags": ["IGNORECASE"],
                               "metadata": {}}
                else:
                    pattern = {"kind": "literal", "value": token, "description": "", "status": "active",
                               "priority": i, "case_sensitive": False, "normalize_whitespace": False,
                               "left_boundary": "word", "right_boundary": "word", "metadata": {}}
                    entity_tokens.append(token)
                names[f"n{index}"] = {"canonical": f"NERB_PERF_T{taxon}_{letter}{index}", "description": "",
                                      "status": "active", "patterns": {"p": pattern}, "metadata": {}}
            entities[f"nerb_perf_t{taxon}_s{shard}"] = {"description": "", "status": "active", "regex_flags": [],
                                                        "names": names, "metadata": {}}
            tokens.append(entity_tokens)
    spread: list[str] = []
    longest = max(len(t) for t in tokens)
    for i in range(longest):  # round-robin over entities, then a stride inside each
        for entity_tokens in tokens:
            if i < len(entity_tokens):
                spread.append(entity_tokens[(i * 7919) % len(entity_tokens)])
    bank = {"schema_version": "nerb.bank.v1", "id": f"perf_{n}", "name": "perf", "description": "",
            "version": "1", "status": "active", "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z", "unicode_normalization": "none", "default_regex_flags": [],
            "entities": entities, "metadata": {}}
    return bank, spread


def make_input(tokens: list[str], density: str, size: str) -> list[str]:
    """100 documents of exactly ``SIZES[size]`` bytes with the density's hit tokens first."""
    docs = []
    cursor = 0
    for d in range(DOCS):
        k = DENSITIES[density]
        if k is None:
            k = 1 if d == 0 else 0
        hits = []
        for _ in range(k):
            hits.append(tokens[cursor % len(tokens)])
            cursor += 1
        head = "".join(h + " " for h in hits)
        pad = (PADDING * (SIZES[size] // len(PADDING) + 2))
        docs.append((head + pad)[:SIZES[size]])
    return docs


# --- worker ------------------------------------------------------------------------------------------------------

def peak_rss_bytes() -> int:
    """This process's own peak RSS: Linux ``VmHWM`` (per address space, so it does not inherit the launcher's
    high-water mark the way ``ru_maxrss`` does across fork/exec); ``ru_maxrss`` elsewhere."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def _records_digest(records: list[dict[str, Any]]) -> str:
    rows = sorted((r["entity"], r["canonical_name"], r["surface_name"], r["string"], r["start"], r["end"])
                  for r in records)
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()


def worker(engine: str, bank_path: Path, cells: list[dict[str, Any]], passes: int) -> dict[str, Any]:
    """Compile once, then scan every cell's documents; returns raw per-document nanoseconds and digests."""
    raw = bank_path.read_bytes()
    t0 = time.perf_counter_ns()
    if engine == "ours":
        sys.path.insert(0, str(REPO))
        from nerb_verify.producers.bank_format import parse_bank_bytes
        from nerb_verify.producers.engine import compile_bank

        compiled = compile_bank(parse_bank_bytes(raw))
        scan = compiled.scan_bytes
    else:
        from nerb.engine import Bank

        nerb_bank = Bank.from_source_bytes(raw, use_cache=False)
        scan = nerb_bank.scan_bytes
    compile_ns = time.perf_counter_ns() - t0
    results = []
    for cell in cells:
        docs = [d.encode("utf-8") for d in json.loads(Path(cell["input"]).read_text())]
        digests = []
        records = 0
        for data in docs:  # warm-up pass, also the correctness pass
            recs = scan(data)
            records += len(recs)
            digests.append(_records_digest(recs))
        samples: list[int] = []
        cpu_samples: list[int] = []
        pass_totals: list[int] = []
        cpu_totals: list[int] = []
        for _ in range(passes):
            gc.collect()
            total = cpu_total = 0
            for data in docs:
                c = time.process_time_ns()
                t = time.perf_counter_ns()
                scan(data)
                dt = time.perf_counter_ns() - t
                dc = time.process_time_ns() - c
                samples.append(dt)
                cpu_samples.append(dc)
                total += dt
                cpu_total += dc
            pass_totals.append(total)
            cpu_totals.append(cpu_total)
        results.append({"cell": cell["name"], "bytes": sum(len(d) for d in docs), "records": records,
                        "digest": hashlib.sha256("".join(digests).encode()).hexdigest(),
                        "samples_ns": samples, "pass_totals_ns": pass_totals,
                        "cpu_samples_ns": cpu_samples, "cpu_pass_totals_ns": cpu_totals})
    peak = peak_rss_bytes()
    return {"engine": engine, "compile_ns": compile_ns, "peak_rss_bytes": peak, "cells": results}


def primitive(bank_path: Path, inputs: list[Path]) -> dict[str, Any]:
    """pyre2 or google-re2 (whichever ``re2`` is importable): compile one sorted alternation per entity, search."""
    import re2

    flavour = "google-re2" if hasattr(re2, "Options") else "pyre2"
    bank = json.loads(bank_path.read_text())
    alternations = []
    for entity in bank["entities"].values():
        values = sorted(p["value"] for n in entity["names"].values() for p in n["patterns"].values()
                        if p["kind"] == "literal")
        alternations.append("(?i)(?:" + "|".join(values) + ")")
    t0 = time.perf_counter_ns()
    compiled = []
    for alt in alternations:
        if flavour == "google-re2":
            options = re2.Options()
            options.max_mem = 1 << 31
            compiled.append(re2.compile(alt.encode(), options))
        else:
            try:
                compiled.append(re2.compile(alt.encode(), max_mem=(1 << 31) - 1))
            except TypeError:
                compiled.append(re2.compile(alt.encode()))
    compile_ns = time.perf_counter_ns() - t0
    out = {"flavour": flavour, "compile_ns": compile_ns, "inputs": []}
    for path in inputs:
        docs = [d.encode() for d in json.loads(path.read_text())]
        hits = sum(1 for d in docs for c in compiled for _ in c.finditer(d))  # warm-up + count
        best = None
        for _ in range(3):
            t = time.perf_counter_ns()
            for d in docs:
                for c in compiled:
                    for _ in c.finditer(d):
                        pass
            dt = time.perf_counter_ns() - t
            best = dt if best is None or dt < best else best
        out["inputs"].append({"input": path.name, "bytes": sum(len(d) for d in docs), "hits": hits,
                              "best_pass_ns": best})
    out["peak_rss_bytes"] = peak_rss_bytes()
    return out


# --- orchestration -----------------------------------------------------------------------------------------------

def _median(values: list[int]) -> float:
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _p99(values: list[int]) -> int:
    s = sorted(values)
    return s[max(0, math.ceil(0.99 * len(s)) - 1)]


def summarize(result: dict[str, Any]) -> dict[str, Any]:
    cells = {}
    for cell in result["cells"]:
        median_ns = _median(cell["pass_totals_ns"])
        cpu_ns = _median(cell["cpu_pass_totals_ns"])
        cells[cell["cell"]] = {
            "docs_per_s": DOCS / (median_ns / 1e9), "mib_per_s": cell["bytes"] / 1_048_576 / (median_ns / 1e9),
            "p99_ms": _p99(cell["samples_ns"]) / 1e6, "median_doc_ms": _median(cell["samples_ns"]) / 1e6,
            "cpu_docs_per_s": DOCS / (max(cpu_ns, 1) / 1e9), "cpu_p99_ms": _p99(cell["cpu_samples_ns"]) / 1e6,
            "records": cell["records"], "digest": cell["digest"]}
    return {"compile_s": result["compile_ns"] / 1e9, "peak_rss_mib": result["peak_rss_bytes"] / 1_048_576,
            "cells": cells}


def run_worker_process(python: str, args: list[str]) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([python, str(Path(__file__).resolve()), *args], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"}
    return json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="bank sizes (active patterns), comma-separated")
    parser.add_argument("--python", default=sys.executable, help="interpreter with google-re2 (and nerb)")
    parser.add_argument("--engines", default="ours,nerb")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--out", help="write the full JSON result here")
    parser.add_argument("--workdir", help="keep generated banks and inputs here")
    parser.add_argument("--primitive", action="store_true", help="run only the RE2 primitive with --python")
    parser.add_argument("--markdown", metavar="RESULT", help="print the docs tables of a saved result and exit")
    parser.add_argument("--chart", metavar="SVG", help="with --markdown: also write the SVG chart here")
    parser.add_argument("--worker", nargs=3, metavar=("ENGINE", "BANK", "CELLS"), help=argparse.SUPPRESS)
    parser.add_argument("--primitive-worker", nargs=2, metavar=("BANK", "INPUTS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.markdown:
        report = json.loads(Path(args.markdown).read_text())
        print(markdown(report))
        if args.chart:
            Path(args.chart).write_text(svg_chart(report))
        return 0
    if args.worker:
        engine, bank, cells = args.worker
        print(json.dumps(worker(engine, Path(bank), json.loads(Path(cells).read_text()), args.passes)))
        return 0
    if args.primitive_worker:
        bank, inputs = args.primitive_worker
        print(json.dumps(primitive(Path(bank), [Path(p) for p in inputs.split(",")])))
        return 0

    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-scan-"))
    work.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    report: dict[str, Any] = {"passes": args.passes, "python": args.python, "banks": {}}
    for n in sizes:
        bank, tokens = make_bank(n)
        bank_path = work / f"bank_{n}.json"
        bank_path.write_text(json.dumps(bank))
        cells = []
        wanted = [("negative", "medium"), ("normal", "medium")]
        if n == min(sizes):
            wanted = [(d, s) for s in SIZES for d in DENSITIES]
        for density, size in wanted:
            path = work / f"input_{n}_{density}_{size}.json"
            path.write_text(json.dumps(make_input(tokens, density, size)))
            cells.append({"name": f"{density}-{size}", "input": str(path)})
        cells_path = work / f"cells_{n}.json"
        cells_path.write_text(json.dumps(cells))
        entry: dict[str, Any] = {"entities": len(bank["entities"])}
        if args.primitive:
            inputs = ",".join(c["input"] for c in cells if c["name"] in ("negative-medium", "normal-medium"))
            entry["primitive"] = run_worker_process(args.python, ["--primitive-worker", str(bank_path), inputs])
            print(json.dumps({"bank": n, **entry}), flush=True)
            report["banks"][n] = entry
            continue
        for engine in args.engines.split(","):
            raw = run_worker_process(args.python, ["--passes", str(args.passes), "--worker", engine,
                                                   str(bank_path), str(cells_path)])
            entry[engine] = raw if "error" in raw else summarize(raw)
            print(json.dumps({"bank": n, "engine": engine,
                              **({"error": raw["error"]} if "error" in raw else {
                                  "compile_s": entry[engine]["compile_s"],
                                  "peak_rss_mib": entry[engine]["peak_rss_mib"]})}), flush=True)
        if "ours" in entry and "nerb" in entry and "cells" in entry["ours"] and "cells" in entry["nerb"]:
            entry["identical_records"] = {c: entry["ours"]["cells"][c]["digest"] == entry["nerb"]["cells"][c]["digest"]
                                          for c in entry["ours"]["cells"]}
        report["banks"][n] = entry
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    print_table(report)
    return 0


def markdown(report: dict[str, Any]) -> str:
    """The docs/performance.md tables for a result file (``--markdown RESULT.json``)."""
    lines = ["| bank | entities | engine | compile s | peak RSS MiB |", "|---:|---:|---|---:|---:|"]
    for n, entry in report["banks"].items():
        for e in ("ours", "nerb"):
            if e in entry and "compile_s" in entry[e]:
                lines.append(f"| {int(n):,} | {entry['entities']} | {e} | {entry[e]['compile_s']:.2f} | "
                             f"{entry[e]['peak_rss_mib']:.0f} |")
    lines += ["", "| bank | cell | ours docs/s (wall) | NERB docs/s (wall) | ours docs/s (CPU) | NERB docs/s (CPU) | "
              "ours MiB/s | NERB MiB/s | ours p99 ms | NERB p99 ms | ours median ms | NERB median ms | same records |",
              "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for n, entry in report["banks"].items():
        if "ours" not in entry or "nerb" not in entry or "cells" not in entry["ours"]:
            continue
        order = [f"{d}-{z}" for z in SIZES for d in DENSITIES]
        for cell in sorted(entry["ours"]["cells"], key=lambda c: order.index(c) if c in order else len(order)):
            o, r = entry["ours"]["cells"][cell], entry["nerb"]["cells"][cell]
            lines.append(f"| {int(n):,} | {cell} | {o['docs_per_s']:,.0f} | {r['docs_per_s']:,.0f} | "
                         f"{o['cpu_docs_per_s']:,.0f} | {r['cpu_docs_per_s']:,.0f} | {o['mib_per_s']:,.1f} | "
                         f"{r['mib_per_s']:,.1f} | {o['p99_ms']:.3f} | {r['p99_ms']:.3f} | {o['median_doc_ms']:.3f} | "
                         f"{r['median_doc_ms']:.3f} | {entry['identical_records'][cell]} |")
    return "\n".join(lines)


def svg_chart(report: dict[str, Any]) -> str:
    """A dependency-free SVG bar chart: documents/s (CPU time) per cell, ours beside NERB's, log scale."""
    rows = []
    order = [f"{d}-{z}" for z in SIZES for d in DENSITIES]
    for n, entry in report["banks"].items():
        if "ours" not in entry or "nerb" not in entry or "cells" not in entry["ours"]:
            continue
        for cell in sorted(entry["ours"]["cells"], key=lambda c: order.index(c) if c in order else len(order)):
            rows.append((f"{int(n) // 1000}k {cell}", entry["ours"]["cells"][cell]["cpu_docs_per_s"],
                         entry["nerb"]["cells"][cell]["cpu_docs_per_s"]))
    bar, gap, left, width = 9, 8, 150, 520
    height = len(rows) * (2 * bar + gap) + 60
    top = max(max(o, r) for _, o, r in rows)
    decades = math.ceil(math.log10(top))

    def x(v: float) -> float:
        return left + width * max(0.0, math.log10(max(v, 1))) / decades

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 20}" height="{height}" '
           'font-family="sans-serif" font-size="10">',
           f'<text x="{left}" y="14" font-size="12">Documents/s (CPU time, log scale): '
           'ours (blue) vs NERB engine (orange)</text>']
    for d in range(decades + 1):
        gx = left + width * d / decades
        out.append(f'<line x1="{gx:.1f}" y1="22" x2="{gx:.1f}" y2="{height - 20}" stroke="#ddd"/>')
        out.append(f'<text x="{gx:.1f}" y="{height - 6}" text-anchor="middle">1e{d}</text>')
    y = 28
    for label, ours, nerb in rows:
        out.append(f'<text x="{left - 6}" y="{y + bar + 3}" text-anchor="end">{label}</text>')
        out.append(f'<rect x="{left}" y="{y}" width="{x(ours) - left:.1f}" height="{bar}" fill="#1f77b4"/>')
        out.append(f'<rect x="{left}" y="{y + bar}" width="{x(nerb) - left:.1f}" height="{bar}" fill="#ff7f0e"/>')
        y += 2 * bar + gap
    out.append("</svg>")
    return "\n".join(out) + "\n"


def print_table(report: dict[str, Any]) -> None:
    for n, entry in report["banks"].items():
        if "primitive" in entry:
            continue
        print(f"\n== bank {n} active patterns, {entry['entities']} entities ==")
        engines = [e for e in ("ours", "nerb") if e in entry and "cells" in entry[e]]
        for e in engines:
            print(f"  {e}: compile {entry[e]['compile_s']:.3f} s, peak RSS {entry[e]['peak_rss_mib']:.0f} MiB")
        print(f"  {'cell':16} " + " ".join(f"{e + ' docs/s':>12} {e + ' MiB/s':>10} {e + ' p99':>9} {e + ' med':>9}"
                                           f" {e + ' cpu d/s':>13}" for e in engines) + "  same")
        for cell in entry[engines[0]]["cells"] if engines else []:
            row = " ".join(f"{entry[e]['cells'][cell]['docs_per_s']:12.0f} {entry[e]['cells'][cell]['mib_per_s']:10.1f}"
                           f" {entry[e]['cells'][cell]['p99_ms']:9.3f} {entry[e]['cells'][cell]['median_doc_ms']:9.3f}"
                           f" {entry[e]['cells'][cell]['cpu_docs_per_s']:13.0f}" for e in engines)
            same = entry.get("identical_records", {}).get(cell, "n/a")
            print(f"  {cell:16} {row}  {same}")


if __name__ == "__main__":
    sys.exit(main())
