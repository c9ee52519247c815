"""Performance harness (spec 50 section 8, spec 20): measure, then emit the evidence ``performance`` section.

Two profiles:

* ``smoke`` (minutes; CI and the demo): every lifecycle phase on the evaluated bank plus a 1k scale bank, 5 samples per
  cell, warmups 0 (fresh process) or 3 (reused), no twins, no comparisons, no break-even model. Every workload is
  ``decision_grade: false`` and ``promotion_gate: false``; the report says ``profile: smoke``. A smoke section is
  authentic evidence (every statistic is recomputable from its samples) but it is **not** decision grade, and the
  verifier's promotion-level policy checks say so.
* ``decision`` (hours): the same cells with 20 / 100 / 1,000 samples in ten paired blocks against exact same-path
  controls (``control_<id>``), hash-derived ABBA/BAAB order (:func:`block_schedule`, the verifier's own
  ``block_assignment``). The four exact-value paths (the ``real_direct_cache_value`` proxy, helper hit, helper miss,
  end to end) run together in Williams four-path blocks, and the section gains the 12 cross-path comparisons and the
  break-even model (:mod:`nerb_verify.producers.harness_value`); the same happens for any paired run
  (``paired_per_block``). See docs/producers.md for what the decision profile has still not done.

Timing is ``perf_counter_ns`` around the operation only; one RSS sample (``ru_maxrss``, Linux KiB x 1024) follows
every timing sample. Fresh-process cells run ``python -m nerb_verify.producers.sampling --worker REQUEST`` once per
sample (:mod:`nerb_verify.producers.sampling` takes the samples; this module plans and emits). Inventories are ``{"bytes","records"}`` rows (no text, no identifiers). Every hash and statistic is computed
with the verifier's own functions (``checks.performance.hashes`` / ``inventories.summarize``), so what we emit is
exactly what it checks.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from nerb_verify.canonical import python_canonical_bytes, python_canonical_sha256
from nerb_verify.checks.performance import hashes
from nerb_verify.checks.performance.blocks import abba_labels, block_assignment
from nerb_verify.checks.performance.inventories import summarize
from nerb_verify.checks.performance.statistics import Denominators, compute_stats
from nerb_verify.loader import sha256_prefixed
from nerb_verify.producers import harness_value, sampling
from nerb_verify.producers.sampling import BLOCKS, FRESH, WARMUPS

COMMAND_ID = "nerb_verify_performance_runner"
GENERATOR_SEED = "nerb-verify-performance"
PADDING = "nerb synthetic benchmark padding "
SMOKE_SAMPLES = 5
PHASE_HARNESS = {
    "source_profile": "source_profile_harness", "source_build": "source_build_harness",
    "cold_compile": "cold_compile_harness", "helper_cache_miss": "helper_cache_miss_harness",
    "helper_cache_hit": "helper_cache_hit_harness", "direct_bank_scan": "direct_bank_scan_harness",
    "end_to_end": "end_to_end_harness",
}
SAME_PATH_TOLERANCE = Fraction(1, 20)
NOISE_CEILING = Fraction(1, 4)  # the cross-path noise floor above which a run is not decision grade
SAME_PATH_SIGNIFICANCE = Fraction(1, 20)
SAME_PATH_BASELINE: dict[str, Any] = {
    "id": "nerb_verify_exact_same_path_control", "name": "nerb-verify exact same-path repeated control",
    "semantic_equivalence": "exact", "version": "1",
    "capabilities": {"aliases": True, "canonical_mapping": True, "literal_patterns": True, "regex_patterns": True,
                     "unicode": True},
    "source_sha256": None, "descriptor_sha256": None,
}
EXPLORATORY_BASELINES: dict[str, dict[str, Any]] = {
    "generic_regex_harness": {
        "id": "generic_email_format_regex", "name": "Generic email-format regex (Python re)",
        "semantic_equivalence": "not_equivalent", "version": "1",
        "capabilities": {"aliases": False, "canonical_mapping": False, "literal_patterns": False,
                         "regex_patterns": True, "unicode": False},
        "source_sha256": None, "descriptor_sha256": None},
    "python_literal_harness": {
        "id": "python_literal_catalog_scan", "name": "Python literal catalog scan (str.find per literal)",
        "semantic_equivalence": "not_equivalent", "version": "1",
        "capabilities": {"aliases": True, "canonical_mapping": True, "literal_patterns": True,
                         "regex_patterns": False, "unicode": True},
        "source_sha256": None, "descriptor_sha256": None},
}
EXPLORATORY_CELLS = (("explore_generic_email_regex", "generic_regex_harness"),
                     ("explore_python_literal_scan", "python_literal_harness"))
GENERIC_EMAIL = r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"
SETUP = {"source_profile", "source_build", "cold_compile"}


RUNNER_SOURCES = ("harness.py", "harness_value.py", "sampling.py")


def _source_sha256() -> str:
    """The runner's source identity: one hash over its three modules' bytes, in this fixed order."""
    here = Path(__file__).resolve().parent
    return sha256_prefixed(b"".join((here / name).read_bytes() for name in RUNNER_SOURCES))


SAME_PATH_BASELINE["source_sha256"] = _source_sha256()
for _baseline in EXPLORATORY_BASELINES.values():
    _baseline["source_sha256"] = _source_sha256()


def exploratory_operation(harness_id: str, bank: dict[str, Any], documents: list[bytes]
                          ) -> Callable[[], tuple[int, str]]:
    """The two non-equivalent baselines: a generic email regex, and a naive case-folded ``str.find`` per literal."""
    import re

    from nerb_verify.producers.bank_format import active_detectors

    texts = [d.decode("utf-8") for d in documents]
    if harness_id == "generic_regex_harness":
        pattern = re.compile(GENERIC_EMAIL)

        def generic() -> tuple[int, str]:
            found = [[m.span() for m in pattern.finditer(t)] for t in texts]
            return sum(len(f) for f in found), python_canonical_sha256(found)
        return generic
    literals = sorted({d.value.casefold() for d in active_detectors(bank) if d.kind == "literal"})

    def literal_scan() -> tuple[int, str]:
        found = []
        for text in texts:
            folded = text.casefold()
            hits = []
            for value in literals:
                start = folded.find(value)
                while start >= 0:
                    hits.append((start, start + len(value)))
                    start = folded.find(value, start + 1)
            found.append(sorted(hits))
        return sum(len(f) for f in found), python_canonical_sha256(found)
    return literal_scan


# ------------------------------------------------------------------------------------------ inputs and banks

@dataclass
class PreparedInput:
    """A measured input: private documents, public descriptor pieces and its inventory bytes."""

    id: str
    kind: str
    bank_id: str
    documents: list[bytes]
    path: Path
    inventory_id: str
    inventory: bytes = b""
    records: list[int] = field(default_factory=list)
    generator: dict[str, Any] | None = None


def scale_token(taxon: int, index: int) -> str:
    """The generated literal ``NERB<taxon><index:05d>`` (no real value)."""
    return f"NERB{taxon}{index:05d}"


def scale_bank(evaluated: dict[str, Any], patterns: int) -> dict[str, Any]:
    """A generated ``nerb.bank.v1`` bank with ``patterns`` active literals whose class shares track the evaluated bank.

    Tokens ``NERB<taxon><index:05d>`` (no real value), entities ``nerb_perf_t<t>_s0``, names ``nerb_perf_t<t>_c|a<i>``;
    largest-remainder split of ``patterns`` over the evaluated bank's per-class active pattern counts.
    """
    from nerb_verify.producers.bank_format import active_detectors

    per_class: dict[str, int] = {}
    for det in active_detectors(evaluated):
        per_class[det.entity_id] = per_class.get(det.entity_id, 0) + 1
    total = sum(per_class.values())
    classes = sorted(per_class)
    quotas = {c: Fraction(per_class[c] * patterns, total) for c in classes}
    alloc = {c: int(q) for c, q in quotas.items()}
    for c in sorted(classes, key=lambda k: (-(quotas[k] - alloc[k]), k))[: patterns - sum(alloc.values())]:
        alloc[c] += 1
    entities: dict[str, Any] = {}
    evaluated_entities: dict[str, set[str]] = {}
    for det in active_detectors(evaluated):
        evaluated_entities.setdefault(det.entity_id, set()).add(det.entity_id)
    for t, cls in enumerate(classes):
        # shards per class = min(patterns, max(ceil(patterns / 50,000), round(N x class entities / evaluated patterns)))
        class_entities = len(evaluated_entities.get(cls, {cls}))
        shards = min(alloc[cls], max(-(-alloc[cls] // 50_000), round(Fraction(patterns * class_entities, total))))
        shards = max(1, shards)
        for shard in range(shards):
            members = range(shard, alloc[cls], shards)
            names = {}
            for i in members:
                token = scale_token(t, i)
                names[f"nerb_perf_t{t}_{'a' if cls == 'person' else 'c'}{i}"] = {
                    "canonical": token, "description": "generated", "metadata": {}, "status": "active",
                    "patterns": {"p": {"kind": "literal", "value": token, "case_sensitive": False,
                                       "normalize_whitespace": False, "left_boundary": "word",
                                       "right_boundary": "word", "priority": i, "status": "active",
                                       "description": "generated", "metadata": {}}}}
            entities[f"nerb_perf_t{t}_s{shard}"] = {"description": f"generated {cls}", "status": "active",
                                                     "regex_flags": [], "metadata": {"entity_class": cls},
                                                     "names": names}
    return {"schema_version": "nerb.bank.v1", "id": f"scale_{patterns}", "name": "Generated scale bank",
            "description": "Generated performance bank.", "version": "1", "status": "active",
            "created_at": "1970-01-01T00:00:00Z", "updated_at": "1970-01-01T00:00:00Z",
            "unicode_normalization": "none", "default_regex_flags": [], "metadata": {"seed": GENERATOR_SEED},
            "entities": entities}


SIZES = {"small": 512, "medium": 10240, "large": 65536, "huge": 300000}
DENSITY_HITS = {"negative": 0, "sparse": 1, "normal": 1, "dense": 3}


def controlled_documents(count: int, size: int, tokens: list[str] | None = None, density: str = "negative"
                         ) -> list[bytes]:
    """Controlled documents of exactly ``size`` bytes (spec 50 section 8.4).

    Each document is its first ``k`` hit tokens, each followed by a space, then padding text cut to the exact size:
    ``negative`` k = 0; ``sparse`` one hit in document 0 only; ``normal`` 1 per document; ``dense`` 3 per document.
    Tokens are distinct bank literals (word-bounded), so each one is exactly one record.
    """
    hits = DENSITY_HITS[density]
    tokens = tokens or []
    out = []
    cursor = 0
    for index in range(count):
        k = hits if density != "sparse" else (1 if index == 0 else 0)
        if k > len(tokens):
            raise ValueError("not enough hit tokens for the requested density")
        head = "".join(tokens[(cursor + j) % len(tokens)] + " " for j in range(k)) if k else ""
        cursor += k
        body = head + (PADDING * (size // len(PADDING) + 2))
        out.append(body[:size].encode("ascii"))
    return out


def bank_descriptor(bank_id: str, kind: str, bank: dict[str, Any], raw: bytes, entity_class: dict[str, str],
                    generator: dict[str, Any] | None) -> dict[str, Any]:
    """Performance bank descriptor: totals equal the per-class taxonomy sums (what the verifier recomputes)."""
    from nerb_verify.producers.bank_format import (
        active_detectors,
        canonical_hash,
        canonical_json_bytes,
        native_source_bytes,
    )

    rows: dict[str, dict[str, int]] = {}
    entity_ids: dict[str, set[str]] = {}
    for det in active_detectors(bank):
        cls = entity_class.get(det.entity_id, det.entity_id)
        row = rows.setdefault(cls, {"aliases": 0, "canonical_names": 0, "entities": 0, "literal_patterns": 0,
                                    "regex_patterns": 0})
        entity_ids.setdefault(cls, set()).add(det.entity_id)
        row["literal_patterns" if det.kind == "literal" else "regex_patterns"] += 1
        row["aliases" if cls == "person" else "canonical_names"] += 1
    taxonomy = []
    for cls in sorted(rows):
        rows[cls]["entities"] = len(entity_ids[cls])
        taxonomy.append({"entity_class": cls, **rows[cls]})
    return {
        "id": bank_id, "kind": kind, "bank_hash": canonical_hash(bank),
        "artifact": {"id": f"{bank_id}_artifact", "sha256": sha256_prefixed(raw), "bytes": len(raw)},
        "active_entities": sum(r["entities"] for r in taxonomy), "active_aliases": sum(r["aliases"] for r in taxonomy),
        "active_names": sum(r["canonical_names"] + r["aliases"] for r in taxonomy),
        "active_patterns": sum(r["literal_patterns"] + r["regex_patterns"] for r in taxonomy),
        "canonical_json_bytes": canonical_json_bytes(bank), "native_source_bytes": native_source_bytes(bank),
        "composition": {"taxonomy": taxonomy}, "generator": generator, "descriptor_sha256": None,
    }


def input_descriptor(item: PreparedInput, bank_hash: str) -> dict[str, Any]:
    """Input descriptor from its inventory (the verifier's ``summarize``), bound to the inventory file bytes."""
    rows = [{"bytes": len(d), "records": r} for d, r in zip(item.documents, item.records)]
    item.inventory = python_canonical_bytes(rows)
    raw_docs = b"".join(item.documents)
    return {
        "id": item.id, "kind": item.kind, "bank_id": item.bank_id, "bank_hash": bank_hash,
        "artifact": {"id": f"{item.id}_documents", "sha256": sha256_prefixed(raw_docs), "bytes": len(raw_docs)},
        **summarize(rows), "generator": item.generator,
        "inventory_ref": {"id": item.inventory_id, "sha256": sha256_prefixed(item.inventory),
                          "bytes": len(item.inventory)},
        "descriptor_sha256": None,
    }


# ------------------------------------------------------------------------------------------------- workloads

def block_schedule(block_count: int, per_twin: int) -> list[list[str]]:
    """Observation order per block: ABBA for candidate-first blocks, BAAB otherwise (the verifier's own rule)."""
    return [abba_labels(first, per_twin) for first in block_assignment(block_count)]


def _float_stat(value: Any) -> Any:
    if isinstance(value, Fraction):
        return float(value)
    return value


def workload_entry(spec: dict[str, Any], ns: list[int], rss: list[int], item: dict[str, Any] | None,
                   records_per_sample: int | None, unit: str = "whole_input") -> dict[str, Any]:
    """A workload with samples (seconds = ns / 1e9), RSS, and statistics computed by the verifier's functions."""
    if unit == "document":
        den = Denominators("document", None, None, None, 1)
    elif item is not None:
        den = Denominators("whole_input", item["documents"], item["bytes"], records_per_sample, 1)
    else:
        den = Denominators("operation", None, None, None, 1)
    stats = compute_stats(ns, spec["phase"], den)
    return {**spec, "samples_seconds": [n / 1e9 for n in ns], "samples_ref": None,
            "rss_samples_bytes": rss, "peak_rss_bytes": max(rss), "records_per_sample": records_per_sample,
            "stats": {k: _float_stat(v) for k, v in stats.exact.items()}, "workload_sha256": None}


HEADLINE_CELLS = ("real_direct_latency", "real_direct_throughput")


def cell_spec(workload_id: str, phase: str, bank_id: str, input_id: str | None, concurrency: int, decision: bool,
              descriptors: dict[str, dict[str, Any]], bank_hash: dict[str, str]) -> dict[str, Any]:
    """The plan fields of a candidate cell (spec 20 section 3): process model, warmups and unit follow the phase.

    Setup phases measure one ``operation``; ``*_latency`` cells one ``document``; everything else the whole input.
    The cache-value proxy ``real_direct_cache_value`` is never decision grade. In a decision run the two headlines
    (``real_direct_latency``, ``real_direct_throughput``) are the promotion gates (spec 20 section 3).
    """
    harness_id = PHASE_HARNESS[phase]
    decision_cell = decision and workload_id != "real_direct_cache_value"
    return {"id": workload_id, "phase": phase, "promotion_gate": decision_cell and workload_id in HEADLINE_CELLS,
            "decision_grade": decision_cell,
            "harness_id": harness_id, "harness_sha256": descriptors[harness_id]["descriptor_sha256"],
            "bank_id": bank_id, "bank_hash": bank_hash[bank_id], "input_id": input_id,
            "input_sha256": descriptors[input_id]["descriptor_sha256"] if input_id else None,
            "baseline_id": None, "warmups": 0 if phase in FRESH else WARMUPS,
            "sample_unit": "operation" if phase in SETUP else (
                "document" if workload_id.endswith("_latency") else "whole_input"), "work_per_sample": 1,
            "concurrency": concurrency,
            "process_model": "fresh_process_per_sample" if phase in FRESH else "reused_process",
            "median_method": "standard_even_average", "percentile_method": "nearest_rank"}


def control_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The exact same-path twin ``control_<id>``: same plan, not decision grade, exact-control baseline."""
    return {**spec, "id": f"control_{spec['id']}", "decision_grade": False, "promotion_gate": False,
            "baseline_id": SAME_PATH_BASELINE["id"]}


def _cache_value_cells(performance: dict[str, Any], per_block: int, decision: bool, bank: dict[str, Any],
                       bank_raw: bytes, documents: list[bytes], request: dict[str, Any],
                       descriptors: dict[str, dict[str, Any]], bank_hash: dict[str, str]) -> None:
    """Run the Williams four-path blocks; append the 8 exact-value workloads and their 4 same-path comparisons.

    Every sample of the four paths (and of their controls) must give one record count (the input's) and one
    correctness hash, the same on all paths; otherwise the run stops.
    """
    runs = harness_value.measure_cache_value(per_block, bank, documents, bank_raw, request)
    item = next(i for i in performance["inputs"] if i["id"] == "real_validation_input")
    outcomes = {(records, digest) for twins in runs.values() for run in twins.values()
                for records, digest in zip(run[2], run[3])}
    if outcomes != {(item["records"], runs["real_direct_cache_value"]["candidate"][3][0])}:
        raise RuntimeError("cache-value paths disagree on records or correctness")
    for workload_id, phase in harness_value.CACHE_VALUE_PATHS:
        spec = cell_spec(workload_id, phase, "evaluated_bank", "real_validation_input", 1, decision, descriptors,
                         bank_hash)
        entries = {}
        for role, role_spec in (("candidate", spec), ("control", control_spec(spec))):
            ns, rss, records, _correctness = runs[workload_id][role]
            entries[role] = workload_entry(role_spec, ns, rss, item, records[0])
            performance["workloads"].append(entries[role])
        performance["comparisons"].append(same_path_comparison(entries["candidate"], entries["control"], per_block))


@dataclass
class HarnessInputs:
    """What the harness needs: the evaluated bank file, train bundle, train source file and validation documents."""

    bank_path: Path
    train_dir: Path
    train_source: Path
    train_artifact: dict[str, Any]
    validation_documents: list[bytes]
    work_dir: Path
    progress: Callable[[str], None] = lambda _message: None


def _decision_count(phase: str) -> int:
    """The frozen decision profile's pooled sample count of a cell of ``phase`` (20 setup, 1,000 direct, 100 else)."""
    return 20 if phase in SETUP else 1000 if phase == "direct_bank_scan" else 100


def run_profile(profile: str, inputs: HarnessInputs, *, paired_per_block: int | None = None,
                only: set[str] | None = None) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Measure a profile; returns the evidence ``performance`` section and the inventory files (id -> bytes).

    ``decision`` runs every cell with its ``control_<id>`` twin over the ten frozen blocks (2 / 10 / 100 samples per
    block and twin for setup / helper and end-to-end / direct cells); the four exact-value paths run in Williams
    blocks instead, and the cross-path comparisons and the break-even model follow when their cells were measured.
    ``paired_per_block`` (tests) runs the cells paired with at most that many samples (Williams rounds) per block
    and twin instead (a cell frozen at fewer, the setup cells' 2, keeps its frozen count); decision grade only when
    the profile is ``decision``. ``only`` limits the cells; naming any one of the
    four exact-value paths runs all four.
    """
    if profile not in ("smoke", "decision"):
        raise ValueError("profile must be smoke or decision")
    from nerb_verify.producers.bank_format import (
        active_detectors,
        bank_bytes,
        parse_bank_bytes,
    )
    from nerb_verify.producers.engine import compile_bank

    decision = profile == "decision"
    bank_raw = inputs.bank_path.read_bytes()
    bank = parse_bank_bytes(bank_raw)
    work = inputs.work_dir
    work.mkdir(parents=True, exist_ok=True, mode=0o700)
    generator = {"id": "nerb_verify_performance_generator", "seed": GENERATOR_SEED, "source_sha256": _source_sha256(),
                 "spec_sha256": python_canonical_sha256({"padding": PADDING, "sizes": SIZES, "hits": DENSITY_HITS,
                                                         "documents": 100}),
                 "version": "1.0.0"}
    full = decision or paired_per_block is not None  # the whole matrix: sweeps and the latency cell
    scale_sizes = (1000, 10000, 25000, 100000) if full else (1000,)
    if only is not None:
        scale_sizes = tuple(n for n in scale_sizes if n == 1000 or f"scale_{n}_direct" in only)
    bank_dicts: dict[str, dict[str, Any]] = {"evaluated_bank": bank}
    bank_raws: dict[str, bytes] = {"evaluated_bank": bank_raw}
    paths: dict[str, Path] = {"evaluated_bank": inputs.bank_path}
    for size in scale_sizes:
        bank_id = f"scale_{size}"
        bank_dicts[bank_id] = scale_bank(bank, size)
        bank_raws[bank_id] = bank_bytes(bank_dicts[bank_id])
        paths[bank_id] = work / f"{bank_id}.json"
        paths[bank_id].write_bytes(bank_raws[bank_id])
    scale = bank_dicts["scale_1000"]
    tokens = [d.value for d in sorted(active_detectors(scale), key=lambda d: (d.entity_id, d.name_id))]
    prepared = [PreparedInput("real_validation_input", "real_input", "evaluated_bank",
                              inputs.validation_documents[:100], work / "real.jsonl", "real_validation_inventory")]
    negative_medium = controlled_documents(100, SIZES["medium"])
    for size in scale_sizes:
        prepared.append(PreparedInput(f"scale_{size}_input", "synthetic_input", f"scale_{size}", negative_medium,
                                      work / f"scale_{size}.jsonl", "controlled_negative_medium_inventory",
                                      generator=generator))
    if full:
        for density in ("sparse", "normal", "dense"):
            prepared.append(PreparedInput(
                f"density_{density}_input", "synthetic_input", "scale_1000",
                controlled_documents(100, SIZES["medium"], tokens, density), work / f"density_{density}.jsonl",
                f"controlled_{density}_medium_inventory", generator=generator))
        for size_name in ("small", "large", "huge"):
            prepared.append(PreparedInput(
                f"size_{size_name}_input", "synthetic_input", "scale_1000",
                controlled_documents(100, SIZES[size_name]), work / f"size_{size_name}.jsonl",
                f"controlled_negative_{size_name}_inventory", generator=generator))
    compiled = {bank_id: compile_bank(b) for bank_id, b in bank_dicts.items()}
    for item in prepared:
        item.records = [len(compiled[item.bank_id].scan_bytes(d)) for d in item.documents]
        item.path.write_bytes(b"".join(json.dumps({"text": d.decode("utf-8")}).encode() + b"\n"
                                       for d in item.documents))
        paths[item.id] = item.path
    banks = [bank_descriptor("evaluated_bank", "evaluated_bank", bank, bank_raw, {}, None)]
    for size in scale_sizes:
        scale_dict = bank_dicts[f"scale_{size}"]
        entity_class = {eid: (e.get("metadata") or {}).get("entity_class", eid)
                        for eid, e in scale_dict["entities"].items()}
        banks.append(bank_descriptor(f"scale_{size}", "synthetic_scale", scale_dict, bank_raws[f"scale_{size}"],
                                     entity_class, {**generator, "id": "nerb_verify_performance_scale_bank"}))
    bank_hash = {b["id"]: b["bank_hash"] for b in banks}
    input_items = [input_descriptor(item, bank_hash[item.bank_id]) for item in prepared]
    harness_list = []
    harness_phases = dict(PHASE_HARNESS)
    if full:
        harness_phases.update({"explore_" + hid: hid for hid in EXPLORATORY_BASELINES})
    for key, harness_id in sorted(harness_phases.items(), key=lambda kv: kv[1]):
        phase = "direct_bank_scan" if key.startswith("explore_") else key
        entry = {"id": harness_id, "phase": phase, "command_id": COMMAND_ID, "source_sha256": _source_sha256(),
                 "source_artifact": inputs.train_artifact if phase in ("source_profile", "source_build") else None,
                 "descriptor_sha256": None}
        entry["operation_spec_sha256"] = hashes.operation_spec_sha256(entry)
        harness_list.append(entry)
    paired = decision or paired_per_block is not None
    performance: dict[str, Any] = {"evaluated": True, "banks": banks, "inputs": input_items,
                                   "harnesses": harness_list,
                                   "baselines": ([dict(SAME_PATH_BASELINE)] if paired else [])
                                   + ([dict(b) for b in EXPLORATORY_BASELINES.values()] if full else []),
                                   "workloads": [],
                                   "comparisons": [], "breakeven_models": []}
    hashes.reseal_performance_section(performance)
    descriptors = {d["id"]: d for name in ("banks", "inputs", "harnesses") for d in performance[name]}
    setup_n = 20 if decision else SMOKE_SAMPLES
    scan_n = 1000 if decision else SMOKE_SAMPLES
    mid_n = 100 if decision else SMOKE_SAMPLES
    cells = [
        ("real_source_profile", "source_profile", "evaluated_bank", None, setup_n, 1),
        ("real_source_build", "source_build", "evaluated_bank", None, setup_n, 1),
        ("real_cold_compile", "cold_compile", "evaluated_bank", None, setup_n, 1),
        ("real_helper_cache_miss", "helper_cache_miss", "evaluated_bank", "real_validation_input", mid_n, 1),
        ("real_helper_cache_hit", "helper_cache_hit", "evaluated_bank", "real_validation_input", mid_n, 1),
        ("real_direct_throughput", "direct_bank_scan", "evaluated_bank", "real_validation_input", scan_n, 1),
        ("real_end_to_end", "end_to_end", "evaluated_bank", "real_validation_input", mid_n, 1),
        ("scale_1000_direct", "direct_bank_scan", "scale_1000", "scale_1000_input", scan_n, 1),
        ("scale_1000_concurrency_4", "direct_bank_scan", "scale_1000", "scale_1000_input", scan_n, 4),
    ]
    if full:
        cells.append(("real_direct_latency", "direct_bank_scan", "evaluated_bank", "real_validation_input", scan_n,
                      1))
        cells += [(f"scale_{n}_direct", "direct_bank_scan", f"scale_{n}", f"scale_{n}_input", scan_n, 1)
                  for n in scale_sizes[1:]]
        cells += [(f"density_{d}_direct", "direct_bank_scan", "scale_1000", f"density_{d}_input", scan_n, 1)
                  for d in ("sparse", "normal", "dense")]
        cells += [(f"size_{z}_direct", "direct_bank_scan", "scale_1000", f"size_{z}_input", scan_n, 1)
                  for z in ("small", "large", "huge")]
    docs = {item.id: item.documents for item in prepared}
    for workload_id, phase, bank_id, input_id, count, concurrency in cells:
        if only is not None and workload_id not in only:
            continue
        if paired and workload_id in harness_value.WILLIAMS_IDS:
            continue  # measured together in the Williams cache-value blocks below
        inputs.progress(f"performance ({profile}): {workload_id} x {count}")
        spec = cell_spec(workload_id, phase, bank_id, input_id, concurrency, decision, descriptors, bank_hash)
        request = {"bank": str(paths[bank_id]), "input": str(paths.get(input_id, "")),
                   "source": str(inputs.train_source), "source_dir": str(inputs.train_dir)}
        item = next((i for i in input_items if i["id"] == input_id), None)
        if not paired:
            runs = {"candidate": _measure(phase, count, concurrency, compiled.get(bank_id),
                                          docs.get(input_id) if input_id else None, bank_raw, request)}
        else:
            # a reduced run caps each cell at K per block; a cell frozen below that (setup: 2) keeps its count
            per_block = (count // BLOCKS if paired_per_block is None
                         else min(paired_per_block, _decision_count(phase) // BLOCKS))
            if spec["sample_unit"] == "document":
                per_block = len(docs[input_id])  # one whole pass over the input per block
            runs = _measure_paired(phase, per_block, concurrency, bank_dicts[bank_id],
                                   docs.get(input_id) if input_id else None, bank_raws[bank_id], request,
                                   spec["sample_unit"])
        entries = {}
        for role, (ns, rss, records, correctness) in runs.items():
            if spec["sample_unit"] == "document":
                rows = next(p for p in prepared if p.id == input_id).records
                if [records[k] for k in range(len(records))] != [rows[k % len(rows)] for k in range(len(records))]:
                    raise RuntimeError(f"{workload_id}: per-document records differ from the inventory")
                entries[role] = workload_entry(dict(spec) if role == "candidate" else control_spec(spec),
                                               ns, rss, None, None, unit="document")
                performance["workloads"].append(entries[role])
                continue
            if len(set(correctness)) > 1:
                raise RuntimeError(f"{workload_id}: correctness differs between samples")
            per_sample = records[0] if phase not in SETUP else None
            if per_sample is not None and item is not None and per_sample != item["records"]:
                raise RuntimeError(f"{workload_id}: records differ from the inventory")
            role_spec = dict(spec) if role == "candidate" else control_spec(spec)
            entries[role] = workload_entry(role_spec, ns, rss, item, per_sample)
            performance["workloads"].append(entries[role])
        if paired:
            if runs["candidate"][3] != runs["control"][3]:
                raise RuntimeError(f"{workload_id}: candidate and control twins disagree on correctness")
            performance["comparisons"].append(same_path_comparison(entries["candidate"], entries["control"],
                                                                   len(runs["candidate"][0]) // BLOCKS))
    for workload_id, harness_id in EXPLORATORY_CELLS if full else ():
        if only is not None and workload_id not in only:
            continue
        inputs.progress(f"performance ({profile}): {workload_id} x {mid_n}")
        operation = exploratory_operation(harness_id, bank, docs["real_validation_input"])
        ns, rss, records, correctness = [], [], [], []
        for _ in range(WARMUPS):
            operation()
        for _ in range(mid_n if paired_per_block is None else min(mid_n, BLOCKS * paired_per_block)):
            start = time.perf_counter_ns()
            found, digest = operation()
            ns.append(max(1, time.perf_counter_ns() - start))
            rss.append(sampling.rss_bytes())
            records.append(found)
            correctness.append(digest)
        if len(set(correctness)) > 1:
            raise RuntimeError(f"{workload_id}: correctness differs between samples")
        spec = {"id": workload_id, "phase": "direct_bank_scan", "promotion_gate": False, "decision_grade": False,
                "harness_id": harness_id, "harness_sha256": None, "bank_id": "evaluated_bank",
                "bank_hash": bank_hash["evaluated_bank"], "input_id": "real_validation_input", "input_sha256": None,
                "baseline_id": EXPLORATORY_BASELINES[harness_id]["id"], "warmups": WARMUPS,
                "sample_unit": "whole_input", "work_per_sample": 1, "concurrency": 1,
                "process_model": "reused_process", "median_method": "standard_even_average",
                "percentile_method": "nearest_rank"}
        item = next(i for i in input_items if i["id"] == "real_validation_input")
        performance["workloads"].append(workload_entry(spec, ns, rss, item, records[0]))
    if paired and (only is None or only & harness_value.WILLIAMS_IDS):
        per_block = paired_per_block if paired_per_block is not None else mid_n // BLOCKS
        inputs.progress(f"performance ({profile}): cache-value Williams blocks x {8 * BLOCKS * per_block}")
        _cache_value_cells(performance, per_block, decision, bank, bank_raw, docs["real_validation_input"],
                           {"bank": str(paths["evaluated_bank"]), "input": str(paths["real_validation_input"])},
                           descriptors, bank_hash)
    if paired:
        performance["comparisons"].extend(harness_value.cross_path_comparisons(performance["workloads"],
                                                                               performance["inputs"]))
        model = harness_value.breakeven_model(performance["workloads"])
        if model is not None:
            performance["breakeven_models"].append(model)
    performance["workloads"].sort(key=lambda w: w["id"])
    performance["comparisons"].sort(key=lambda c: c["id"])
    performance["breakeven_models"].sort(key=lambda m: m["id"])
    hashes.reseal_performance_section(performance)
    inventories: dict[str, bytes] = {}
    for item in prepared:
        if inventories.setdefault(item.inventory_id, item.inventory) != item.inventory:
            raise RuntimeError("two inputs share an inventory id but not its rows")
    used = {i["inventory_ref"]["id"] for i in performance["inputs"]
            if any(w.get("input_id") == i["id"] for w in performance["workloads"])}
    performance["inputs"] = [i for i in performance["inputs"]
                             if any(w.get("input_id") == i["id"] for w in performance["workloads"])]
    performance["banks"] = [b for b in performance["banks"]
                            if any(w.get("bank_id") == b["id"] for w in performance["workloads"])]
    performance["harnesses"] = [h for h in performance["harnesses"] if h["id"] in PHASE_HARNESS.values()
                                or any(w.get("harness_id") == h["id"] for w in performance["workloads"])]
    performance["baselines"] = [b for b in performance["baselines"]
                                if any(w.get("baseline_id") == b["id"] for w in performance["workloads"])]
    for name in ("banks", "inputs", "harnesses", "baselines"):  # the contract lists every collection by id
        performance[name].sort(key=lambda d: d["id"])
    hashes.reseal_performance_section(performance)
    return performance, {k: v for k, v in inventories.items() if k in used}


def _measure_paired(phase: str, per_block: int, concurrency: int, bank: dict[str, Any],
                    documents: list[bytes] | None, bank_raw: bytes, request: dict[str, Any], unit: str = "whole_input"
                    ) -> dict[str, tuple[list[int], list[int], list[int], list[str]]]:
    """Candidate and control twin over the ten frozen blocks, in ABBA / BAAB order (fresh session per block)."""
    runs: dict[str, tuple[list[int], list[int], list[int], list[str]]] = {
        "candidate": ([], [], [], []), "control": ([], [], [], [])}
    for labels in block_schedule(BLOCKS, per_block):
        sessions: dict[str, sampling.Session] = {}
        if phase not in FRESH:
            assert documents is not None
            for role in ("candidate", "control"):
                sessions[role] = sampling.Session(phase, concurrency, bank, documents, bank_raw, unit)
                for _ in range(WARMUPS):
                    sessions[role].operation()
                sessions[role].reset()
        for role in labels:
            ns, rss, records, correctness = runs[role]
            if phase in FRESH:
                result = sampling.fresh_sample({**request, "phase": phase})
                ns.append(result["elapsed_ns"])
                rss.append(result["peak_rss_bytes"])
                records.append(result["record_count"])
                correctness.append(str(result["correctness_sha256"]))
                continue
            start = time.perf_counter_ns()
            found, digest = sessions[role].operation()
            ns.append(max(1, time.perf_counter_ns() - start))
            rss.append(sampling.rss_bytes())
            records.append(found)
            correctness.append(digest)
    return runs


def same_path_comparison(candidate: dict[str, Any], control: dict[str, Any], per_block: int) -> dict[str, Any]:
    """The same-path stability comparison of a twin pair, computed with the verifier's own exact functions.

    Metric: p99 for decision direct scans, median otherwise; gap = max/min - 1; within tolerance iff
    20 max <= 21 min; otherwise the exact 2**10 block-swap p-value decides unstable (<= 0.05) or inconclusive.
    """
    import math

    from nerb_verify.checks.performance.blocks import split_blocks
    from nerb_verify.checks.performance.permutation import permutation_count
    from nerb_verify.checks.performance.same_path import required_metric

    metric = required_metric(candidate)
    a_ns = [round(x * 1e9) for x in candidate["samples_seconds"]]
    b_ns = [round(x * 1e9) for x in control["samples_seconds"]]
    a = compute_stats(a_ns, candidate["phase"], Denominators("operation", None, None, None, 1)).exact[metric]
    b = compute_stats(b_ns, control["phase"], Denominators("operation", None, None, None, 1)).exact[metric]
    if not (isinstance(a, Fraction) and isinstance(b, Fraction)):
        raise TypeError("a same-path metric is undefined for this sample count")
    high, low = max(a, b), min(a, b)
    ratio = high / low
    hits, total = permutation_count(split_blocks(a_ns, BLOCKS) or [], split_blocks(b_ns, BLOCKS) or [], metric)
    p_value = Fraction(hits, total)
    within = high <= low * (1 + SAME_PATH_TOLERANCE)
    result = "within_tolerance" if within else ("unstable" if p_value <= SAME_PATH_SIGNIFICANCE else "inconclusive")
    return {
        "id": f"compare_{candidate['id']}_vs_{control['id']}_{metric}", "comparison_kind": "same_path_stability",
        "candidate_workload_id": candidate["id"], "baseline_workload_id": control["id"], "metric": metric,
        "direction": "symmetric", "noise_method": "exact_block_swap", "block_count": BLOCKS,
        "samples_per_block": per_block, "block_assignment": block_assignment(BLOCKS),
        "significance_level": float(SAME_PATH_SIGNIFICANCE), "stability_tolerance": float(SAME_PATH_TOLERANCE),
        "candidate_value": float(a), "baseline_value": float(b), "absolute_relative_gap": float(ratio - 1),
        "absolute_log_ratio": math.log(float(ratio)), "permutation_p_value": float(p_value), "result": result,
        "comparison_plan_sha256": None,
    }


def _measure(phase: str, count: int, concurrency: int, compiled: Any, documents: list[bytes] | None,
             bank_raw: bytes, request: dict[str, Any]) -> tuple[list[int], list[int], list[int], list[str]]:
    ns: list[int] = []
    rss: list[int] = []
    records: list[int] = []
    correctness: list[str] = []
    if phase in FRESH:
        for _ in range(count):
            result = sampling.fresh_sample({**request, "phase": phase})
            ns.append(result["elapsed_ns"])
            rss.append(result["peak_rss_bytes"])
            records.append(result["record_count"])
            correctness.append(str(result["correctness_sha256"]))
        return ns, rss, records, correctness
    assert documents is not None
    if phase == "helper_cache_hit":
        sampling.helper_compile(bank_raw)  # prime the cache

        def operation() -> tuple[int, str]:
            return sampling.scan_all(sampling.helper_compile(bank_raw), documents)
    elif concurrency > 1:
        pool = ThreadPoolExecutor(max_workers=concurrency)
        chunks = [documents[i::concurrency] for i in range(concurrency)]

        def operation() -> tuple[int, str]:
            results = list(pool.map(lambda chunk: sampling.scan_all(compiled, chunk), chunks))
            return sum(r[0] for r in results), python_canonical_sha256([r[1] for r in results])
    else:
        def operation() -> tuple[int, str]:
            return sampling.scan_all(compiled, documents)
    for _ in range(WARMUPS):
        operation()
    for _ in range(count):
        start = time.perf_counter_ns()
        found, digest = operation()
        ns.append(max(1, time.perf_counter_ns() - start))
        rss.append(sampling.rss_bytes())
        records.append(found)
        correctness.append(digest)
    return ns, rss, records, correctness


def report_failure_codes(performance: dict[str, Any], software: dict[str, Any], environment: dict[str, Any]
                         ) -> list[str]:
    """The report-level failure codes of a run, from our own measurements (spec 20 decision grade).

    ``decision_cell_count`` unless exactly 19 decision cells; ``dirty_git_worktree``; ``finite_breakeven`` unless
    exactly one value model with a finite or already-better result; ``execution_cpu_capacity`` /
    ``execution_memory_capacity``; per decision cell ``<id>:rss`` above 8 GiB and, for decision direct scans,
    ``<id>:latency`` / ``<id>:throughput`` against the frozen thresholds; ``comparison_regression_or_noise`` when a
    same-path comparison is not within tolerance or a cross-path one regressed or has a noise floor above 0.25. A
    smoke run always fails on the first one.
    """
    thresholds = hashes.DECISION_THRESHOLDS
    failures: set[str] = set()
    cells = [w for w in performance["workloads"] if w.get("decision_grade") is True]
    if len(cells) != 19:
        failures.add("decision_cell_count")
    if software.get("git_dirty") is not False:
        failures.add("dirty_git_worktree")
    for comparison in performance.get("comparisons") or []:
        # spec 20 §10.1, as the verifier recomputes it: a same-path cell not within tolerance, a cross-path
        # regression, or a cross-path noise floor above 0.25
        same_path_failed = comparison.get("comparison_kind") != "cross_path_value" \
            and comparison.get("result") != "within_tolerance"
        noisy = comparison.get("comparison_kind") == "cross_path_value" and (
            comparison.get("result") == "regressed" or Fraction(repr(comparison.get("noise_floor", 0.0)))
            > NOISE_CEILING)
        if same_path_failed or noisy:
            failures.add("comparison_regression_or_noise")
    models = performance.get("breakeven_models") or []
    if len(models) != 1 or models[0].get("result") not in ("candidate_already_better", "finite_breakeven"):
        failures.add("finite_breakeven")
    for workload in performance["workloads"]:
        if workload.get("decision_grade") is True and workload["concurrency"] > environment["cpu_count"]:
            failures.add("execution_cpu_capacity")
        if workload["peak_rss_bytes"] > environment["memory_bytes"]:
            failures.add("execution_memory_capacity")
    inputs = {i["id"]: i for i in performance["inputs"]}
    for workload in cells:
        wid = workload["id"]
        if workload["peak_rss_bytes"] > thresholds["max_peak_rss_bytes"]:
            failures.add(f"{wid}:rss")
        if workload["phase"] != "direct_bank_scan" or workload.get("baseline_id") is not None:
            continue
        ns = [round(s * 1e9) for s in workload["samples_seconds"]]
        item = inputs.get(workload["input_id"])
        den = Denominators(workload["sample_unit"], item["documents"] if item else None,
                           item["bytes"] if item else None, workload.get("records_per_sample"),
                           workload["work_per_sample"])
        exact = compute_stats(ns, workload["phase"], den).exact
        p99 = exact["p99_seconds"]
        if workload["sample_unit"] == "document":
            if not isinstance(p99, Fraction) or p99 > Fraction(str(thresholds["max_document_p99_seconds"])):
                failures.add(f"{wid}:latency")
            continue
        docs, mib = exact["documents_per_second"], exact["mib_per_second"]
        min_docs = Fraction(str(thresholds["min_documents_per_second"]))
        min_mib = Fraction(str(thresholds["min_mib_per_second"]))
        bound = min(Fraction(item["documents"]) / min_docs, Fraction(item["bytes"], 1024 * 1024) / min_mib) \
            if item else None
        if (not isinstance(docs, Fraction) or docs < min_docs or not isinstance(mib, Fraction) or mib < min_mib
                or bound is None or not isinstance(p99, Fraction) or p99 > bound):
            failures.add(f"{wid}:throughput")
    return sorted(failures)
