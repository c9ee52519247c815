"""Input descriptors against their inventories: raw-byte binding, content id, per-document sums and cohorts.

An inventory is the canonical compact JSON of one ``{"bytes", "records"}`` row per document. Totals, nearest-rank
distributions (p50/p95/p99 at index ceil(q*n) - 1 of separately sorted columns), means (true division), hit density
(negative / sparse < 0.1 records per document / normal <= 2 / dense) and size cohort (mean bytes < 1,024 small,
< 16,384 medium, < 262,144 large, else huge) are recomputed and must equal the descriptor exactly.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nerb_verify.canonical import python_canonical_bytes
from nerb_verify.checks.performance import codes as C
from nerb_verify.checks.performance.state import PerfState, label
from nerb_verify.checks.performance.statistics import nearest_rank_index
from nerb_verify.context import INVENTORIES_DIR

MAX_INT = 2**63 - 1


def _valid_rows(rows: Any) -> bool:
    if not isinstance(rows, list) or not rows:
        return False
    for row in rows:
        if not isinstance(row, dict) or set(row) != {"bytes", "records"}:
            return False
        for key in ("bytes", "records"):
            value = row[key]
            if type(value) is not int or not 0 <= value <= MAX_INT:
                return False
    return True


def hit_density(records: int, documents: int) -> str:
    """negative / sparse / normal / dense from exact records per document."""
    if records == 0:
        return "negative"
    if 10 * records < documents:
        return "sparse"
    if records <= 2 * documents:
        return "normal"
    return "dense"


def size_cohort(total_bytes: int, documents: int) -> str:
    """small / medium / large / huge from exact mean bytes per document."""
    for bound, name in ((1024, "small"), (16384, "medium"), (262144, "large")):
        if total_bytes < bound * documents:
            return name
    return "huge"


def summarize(rows: list[dict[str, int]]) -> dict[str, Any]:
    """The descriptor fields an inventory determines (exact integers; means as correctly rounded doubles)."""
    sizes = sorted(r["bytes"] for r in rows)
    hits = sorted(r["records"] for r in rows)
    n = len(rows)
    total_bytes = sum(sizes)
    total_records = sum(hits)

    def pick(values: list[int], percent: int) -> int:
        return values[nearest_rank_index(n, percent)]

    return {
        "documents": n, "bytes": total_bytes, "records": total_records,
        "document_length_distribution": {
            "minimum_bytes": sizes[0], "p50_bytes": pick(sizes, 50), "p95_bytes": pick(sizes, 95),
            "p99_bytes": pick(sizes, 99), "maximum_bytes": sizes[-1], "mean_bytes": float(Fraction(total_bytes, n))},
        "hit_distribution": {
            "negative_documents": sum(1 for h in hits if h == 0),
            "documents_with_records": sum(1 for h in hits if h > 0),
            "minimum_records": hits[0], "p50_records": pick(hits, 50), "p95_records": pick(hits, 95),
            "p99_records": pick(hits, 99), "maximum_records": hits[-1],
            "mean_records": float(Fraction(total_records, n))},
        "hit_density": hit_density(total_records, n),
        "size_cohort": size_cohort(total_bytes, n),
    }


def _same(published: Any, recomputed: Any) -> bool:
    if isinstance(published, bool) or isinstance(recomputed, bool):
        return published is recomputed
    if isinstance(recomputed, float):
        return isinstance(published, (int, float)) and published == recomputed
    return type(published) is type(recomputed) and published == recomputed


def check_inventories(state: PerfState) -> None:
    """Bind every input descriptor to its inventory file and compare every inventory-derived field."""
    for position, item in enumerate(state.items("inputs")):
        base = ("inputs", position)
        artifact = item.get("artifact")
        if not isinstance(artifact, dict) or artifact.get("bytes") != item.get("bytes"):
            state.add(C.INVENTORY_ARITHMETIC, (*base, "artifact", "bytes"), "artifact.bytes differs from bytes.")
        ref = item.get("inventory_ref")
        if not isinstance(ref, dict) or not isinstance(ref.get("id"), str):
            state.add(C.INVENTORY_MISSING, (*base, "inventory_ref"))
            continue
        rel = f"{INVENTORIES_DIR}/{ref['id']}.json"
        loaded = state.ctx.files.get(rel)
        rows = state.ctx.inventories.get(ref["id"])
        if loaded is None or rows is None or "/" in ref["id"] or ref["id"] in ("", ".", ".."):
            state.add(C.INVENTORY_MISSING, (*base, "inventory_ref", "id"))
            continue
        state.record((*base, "inventory_ref", "sha256"), "performance.input.inventory_sha256", ref.get("sha256"),
                     loaded.sha256, ref.get("sha256") == loaded.sha256)
        if ref.get("sha256") != loaded.sha256 or ref.get("bytes") != loaded.size:
            state.add(C.INVENTORY_HASH, (*base, "inventory_ref"), "The inventory file's raw bytes do not match "
                      "inventory_ref.")
        if not _valid_rows(rows):
            state.add(C.INVENTORY_SHAPE, (*base, "inventory_ref"))
            continue
        if python_canonical_bytes(rows) != loaded.raw:
            state.add(C.INVENTORY_HASH, (*base, "inventory_ref"), "The inventory file is not the canonical compact "
                      "JSON of its rows (content id differs).")
        summary = summarize(rows)
        for key in ("documents", "bytes", "records", "hit_density", "size_cohort"):
            published = item.get(key)
            ok = _same(published, summary[key])
            if key in ("documents", "bytes", "records"):
                state.record((*base, key), f"performance.input.{key}", published, summary[key], ok)
            if not ok:
                state.add(C.INVENTORY_ARITHMETIC, (*base, key), "{field} differs from the inventory.",
                          field=label(key))
        for group in ("document_length_distribution", "hit_distribution"):
            published_group = item.get(group)
            for key, value in summary[group].items():
                published = published_group.get(key) if isinstance(published_group, dict) else None
                if not _same(published, value):
                    state.add(C.INVENTORY_ARITHMETIC, (*base, group, key), "{field} differs from the inventory.",
                              field=label(key))
            if isinstance(published_group, dict) and set(published_group) != set(summary[group]):
                state.add(C.INVENTORY_ARITHMETIC, (*base, group), "Unexpected distribution fields.")
