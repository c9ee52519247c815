"""In-memory helpers for the lineage, gate and claim tests: load the real evidence once, mutate copies, run families.

The real bundle's manifest and evidence are parsed once per session; each test deep-copies them, edits the copy,
optionally re-seals the hashes a producer would recompute (lineage entries and head, chain hash, thresholds hash and
its copies), and runs one or more check families on a fresh VerifyContext. Exact figures that the quality,
conformance and performance families would provide are computed here independently from the evidence's own counts.
"""

from __future__ import annotations

import copy
import functools
import json
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

from nerb_verify import context as C
from nerb_verify.canonical import python_canonical_sha256, self_hash
from nerb_verify.context import VerifyContext, VerifyOptions
from nerb_verify.findings import Collector

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "bundles" / "nerb-enron"

# Numerator and denominator fields of the quality metrics (spec 10 section 10), written out independently here.
METRIC_FRACTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "precision": (("true_positive",), ("true_positive", "false_positive")),
    "open_world_recall": (("true_positive",), ("gold_spans",)),
    "catalog_coverage": (("cataloged_gold_spans",), ("gold_spans",)),
    "cataloged_recall": (("cataloged_true_positive",), ("cataloged_gold_spans",)),
    "document_leak_rate": (("documents_with_any_miss",), ("documents_with_sensitive_gold",)),
    "cataloged_document_leak_rate": (("documents_with_any_cataloged_miss",), ("documents_with_cataloged_gold",)),
    "sensitive_character_recall": (("covered_sensitive_characters",), ("sensitive_gold_characters",)),
    "sensitive_character_leak_rate": (("leaked_sensitive_characters",), ("sensitive_gold_characters",)),
    "negative_document_false_alarm_rate": (("negative_documents_with_predictions",), ("negative_documents",)),
    "over_redaction_rate": (("over_redacted_characters",), ("evaluated_characters",)),
}


@functools.lru_cache(maxsize=1)
def _real_json() -> tuple[str, str]:
    return ((REAL / C.MANIFEST).read_text(encoding="utf-8"), (REAL / C.EVIDENCE).read_text(encoding="utf-8"))


def real_manifest() -> dict[str, Any]:
    """A fresh deep copy of the real manifest."""
    return json.loads(_real_json()[0])


@functools.lru_cache(maxsize=1)
def _evidence_cached() -> dict[str, Any]:
    return json.loads(_real_json()[1])


def real_evidence() -> dict[str, Any]:
    """A fresh deep copy of the real evidence."""
    return copy.deepcopy(_evidence_cached())


def quality_figures(evidence: dict[str, Any]) -> dict[str, Any]:
    """Exact quality and conformance figures from the evidence's counts (None for an empty denominator)."""
    figures: dict[str, Any] = {}
    for i, s in enumerate(evidence["quality"]["slices"]):
        for metric, (num, den) in METRIC_FRACTIONS.items():
            n = sum(s[f] for f in num)
            d = sum(s[f] for f in den)
            figures[f"/quality/slices/{i}/metrics/{metric}"] = Fraction(n, d) if d else None
        d = 2 * s["true_positive"] + s["false_positive"] + s["false_negative"]
        figures[f"/quality/slices/{i}/metrics/f1"] = Fraction(2 * s["true_positive"], d) if d else None
    cc = evidence["catalog_conformance"]
    figures["/catalog_conformance/recall"] = (Fraction(cc["correctly_mapped"], cc["approved_positive_cases"])
                                              if cc["approved_positive_cases"] else None)
    figures["/catalog_conformance/passed"] = (cc["approved_positive_cases"] > 0
                                              and cc["correctly_mapped"] == cc["approved_positive_cases"]
                                              and cc["wrong_canonical"] == 0 and cc["unexpected_negative_matches"] == 0)
    return figures


def performance_figures(evidence: dict[str, Any]) -> dict[str, Any]:
    """Stand-in performance figures for gate tests: the stored doubles at their exact binary value.

    The performance family recomputes these from raw samples; the gate tests only need values that agree with the
    stored statistics, so the stored values are used as they are.
    """
    figures: dict[str, Any] = {}
    for i, w in enumerate(evidence["performance"]["workloads"]):
        for key, value in (w.get("stats") or {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                figures[f"/performance/workloads/{i}/stats/{key}"] = Fraction(value)
        if w.get("peak_rss_bytes") is not None:
            figures[f"/performance/workloads/{i}/peak_rss_bytes"] = w["peak_rss_bytes"]
    return figures


def all_figures(evidence: dict[str, Any]) -> dict[str, Any]:
    figures = quality_figures(evidence)
    figures.update(performance_figures(evidence))
    return figures


def thresholds_hash(evidence: dict[str, Any]) -> str:
    checks = evidence["promotion"]["checks"]
    reduced = [{k: c[k] for k in ("id", "category", "target", "operator", "threshold")} for c in checks]
    return python_canonical_sha256(sorted(reduced, key=lambda c: str(c["id"])))


def reseal(evidence: dict[str, Any], manifest: dict[str, Any] | None = None) -> None:
    """Recompute, in place, the hashes a producer would: thresholds (and copies), lineage entries, head, chain."""
    th = thresholds_hash(evidence)
    evidence["thresholds_sha256"] = th
    evidence["audit_chain"]["score"]["thresholds_sha256"] = th
    evidence["test_access"]["frozen_target"]["thresholds_sha256"] = th
    if manifest is not None:
        manifest["thresholds_sha256"] = th
    previous = None
    for entry in evidence["test_access"]["lineage"]:
        if entry.get("frozen_target", {}).get("thresholds_sha256") is not None and \
                entry["benchmark_version"] == evidence["test_access"]["benchmark_version"]:
            entry["frozen_target"]["thresholds_sha256"] = th
        if previous is not None:
            entry["previous_entry_sha256"] = previous
        entry["entry_sha256"] = self_hash(entry, "entry_sha256")
        previous = entry["entry_sha256"]
    evidence["test_access"]["lineage_head_sha256"] = previous
    evidence["audit_chain"]["chain_sha256"] = self_hash(evidence["audit_chain"], "chain_sha256")


def make_ctx(evidence: dict[str, Any] | None, manifest: dict[str, Any] | None = None,
             figures: dict[str, Any] | None = None, **options: Any) -> VerifyContext:
    ctx = VerifyContext(root=REAL, options=VerifyOptions(**options), collector=Collector())
    if evidence is not None:
        ctx.artifacts[C.EVIDENCE] = evidence
        ctx.loaded[C.EVIDENCE] = evidence
    if manifest is not None:
        ctx.artifacts[C.MANIFEST] = manifest
        ctx.loaded[C.MANIFEST] = manifest
    if figures is not None:
        ctx.figures.update(figures)
    return ctx


def run_families(ctx: VerifyContext, *runs: Callable[[VerifyContext], None]) -> VerifyContext:
    for run in runs:
        run(ctx)
    return ctx


def codes(ctx: VerifyContext, family: str | None = None) -> set[str]:
    """The set of error codes found (optionally only one family's)."""
    return {f.code for f in ctx.collector.findings
            if f.severity == "error" and (family is None or f.code.startswith(family + "."))}
