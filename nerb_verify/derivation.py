"""The derivation model of a bundle: every leaf is derived (recomputed and compared) or a primitive with a policy.

A forger edits coherently: a primitive and everything derived from it, then reseals every hash. So the question
for each JSON leaf of each artifact (and each number and hash printed in ``summary.md`` and ``figures/*.svg``) is
what bounds it:

* **derived**: a check family recomputed it from other leaves and compared it. Either the family recorded it
  (``ctx.collector.record``: its exact pointer is in ``collector.recomputed``), or the table below declares the
  binding with the finding code that fires when it disagrees and the function that checks it (hash bindings and
  cross-artifact identities that are checked without recording a figure; every number and hash in the rendered
  text, which ``summary`` traces token by token).
* **primitive**: a row of the table (``nerb_verify/data/derivation.json``) names the policy that bounds it, from a
  closed vocabulary (:data:`POLICIES`), and a reason a reviewer can check.
* **unclassified**: neither. ``contract_tests/test_derivation.py`` requires none on the real and synthetic bundles.

Table pointers are patterns: an array index is ``*``, a key of a keyed map (a key that is not schema vocabulary,
printed as ``@key:<n>`` in findings) is a named wildcard ``{name}`` that matches any key. A text file's numbers are
``/numbers/*`` and its hashes ``/hashes/*``.

This module is pure and runs only when asked (``nerb-verify verify --coverage``): a normal verification never walks
the leaves.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from nerb_verify import context as C
from nerb_verify import pointers, resources

TABLE_SCHEMA_VERSION = "nerb_verify.derivation.v1"
TABLE_FILE = "derivation.json"

# The closed vocabulary of policies that bound a primitive leaf.
POLICIES: dict[str, str] = {
    "frozen": "a constant fixed by the spec or the charter (a schema const, a schema version, a frozen value)",
    "enum": "one value of a closed set (a schema enum or a spec vocabulary)",
    "bound": "a floor and/or ceiling that the named check enforces",
    "identity": "must equal the leaf named in 'with' (in another artifact or another place); the named check "
                "compares them",
    "free_by_design": "not constrained by anything in the bundle, by design (docs/threat-model.md); the reason says "
                      "why",
    "unchecked": "should be bound or derived, but no check does yet: a known gap, listed so that it is visible",
}

Kind = Literal["derived", "primitive"]
WILDCARD_INDEX = "*"
KEY_SEGMENT = "@key"
TEXT_SUFFIXES = (".md", ".svg")


@dataclass(frozen=True)
class Row:
    """One table row: a pointer pattern of one artifact pattern with how it is bound."""

    artifact: str
    pointer: str
    kind: Kind
    policy: str | None = None
    reason: str | None = None
    check: str | None = None
    function: str | None = None
    with_: str | None = None


@dataclass
class Counts:
    """Leaf counts of one artifact."""

    derived: int = 0
    primitive: int = 0
    unclassified: int = 0
    by_policy: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.derived + self.primitive + self.unclassified

    def to_json(self) -> dict[str, Any]:
        return {"derived": self.derived, "primitive": self.primitive, "unclassified": self.unclassified,
                "total": self.total, "by_policy": dict(sorted(self.by_policy.items()))}


@dataclass
class Coverage:
    """The result of classifying every leaf of one bundle."""

    artifacts: dict[str, Counts] = field(default_factory=dict)
    # (artifact, pointer pattern) of every unclassified leaf kind, sorted: safe to print (vocabulary keys only).
    unclassified: list[tuple[str, str]] = field(default_factory=list)
    # Table rows (artifact, pointer) that matched at least one leaf.
    used_rows: set[tuple[str, str]] = field(default_factory=set)

    def totals(self) -> Counts:
        out = Counts()
        for counts in self.artifacts.values():
            out.derived += counts.derived
            out.primitive += counts.primitive
            out.unclassified += counts.unclassified
            for policy, n in counts.by_policy.items():
                out.by_policy[policy] = out.by_policy.get(policy, 0) + n
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "table": TABLE_SCHEMA_VERSION,
            "artifacts": {name: self.artifacts[name].to_json() for name in sorted(self.artifacts)},
            "totals": self.totals().to_json(),
            "unclassified": [f"{artifact}#{pointer}" for artifact, pointer in self.unclassified],
        }


class TableError(ValueError):
    """The shipped table is malformed (a defect in nerb-verify, caught by the tests)."""


def parse_table(document: Any) -> list[Row]:
    """Rows of a derivation table document, checked for shape: every primitive row names a policy of the closed
    vocabulary and a non-empty reason (an identity also names the leaf it equals); every derived row names a check
    code and a function. Raises :class:`TableError` otherwise."""
    if not isinstance(document, dict) or document.get("schema_version") != TABLE_SCHEMA_VERSION:
        raise TableError("not a derivation table")
    rows: list[Row] = []
    for group in document.get("rows") or []:
        if not isinstance(group, dict):
            raise TableError("a row is not an object")
        kind = group.get("class")
        artifact, patterns = group.get("artifact"), group.get("pointers")
        if not isinstance(artifact, str) or not isinstance(patterns, list) or not patterns:
            raise TableError("a row needs an artifact and a non-empty list of pointers")
        reason = group.get("reason")
        if kind == "primitive":
            policy = group.get("policy")
            if policy not in POLICIES:
                raise TableError("a primitive row names a policy outside the vocabulary")
            if not isinstance(reason, str) or not reason.strip():
                raise TableError("a primitive row needs a reason")
            if policy == "identity" and not isinstance(group.get("with"), str):
                raise TableError("an identity row must name the leaf it equals")
        elif kind == "derived":
            policy = None
            if not isinstance(group.get("check"), str) or not isinstance(group.get("function"), str):
                raise TableError("a derived row needs a check code and a function")
        else:
            raise TableError("a row's class is neither derived nor primitive")
        for pattern in patterns:
            if not isinstance(pattern, str) or (pattern and not pattern.startswith("/")):
                raise TableError("a pointer pattern must be a JSON Pointer")
            rows.append(Row(artifact, pattern, kind, policy, reason if isinstance(reason, str) else None,
                            group.get("check"), group.get("function"), group.get("with")))
    return rows


def load_table() -> list[Row]:
    """The shipped table (``nerb_verify/data/derivation.json``)."""
    with open(resources.data_dir() / TABLE_FILE, encoding="utf-8") as handle:
        return parse_table(json.load(handle))


def artifact_pattern(rel: str) -> str:
    """The table's name for a bundle file: inventories and figures are one pattern each."""
    if rel.startswith(C.INVENTORIES_DIR + "/") and rel.endswith(".json"):
        return C.INVENTORIES_DIR + "/{id}.json"
    if rel.startswith(C.FIGURES_DIR + "/") and rel.endswith(".svg"):
        return C.FIGURES_DIR + "/{name}.svg"
    return rel


def json_leaves(document: Any) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(concrete pointer, pattern segments) of every leaf: scalars, empty objects and empty arrays.

    The concrete pointer is written as the families write theirs (:func:`pointers.key_segment`), so it can be
    compared with recorded pointers; in the pattern an index is ``*`` and a non-vocabulary key ``@key``.
    """
    stack: list[tuple[Any, tuple[str, ...], tuple[str, ...]]] = [(document, (), ())]
    while stack:
        node, concrete, pattern = stack.pop()
        if isinstance(node, dict) and node:
            for position, (key, value) in enumerate(node.items()):
                segment = pointers.key_segment(key, position)
                shown = KEY_SEGMENT if segment.startswith("@key:") else segment
                stack.append((value, concrete + (segment,), pattern + (shown,)))
        elif isinstance(node, list) and node:
            for index, value in enumerate(node):
                stack.append((value, concrete + (str(index),), pattern + (WILDCARD_INDEX,)))
        else:
            yield pointers.join(concrete), pattern


def _segments(pattern: str) -> tuple[str, ...]:
    return tuple(pointers.unescape(part) for part in pattern.split("/")[1:]) if pattern else ()


def _segment_matches(table_segment: str, leaf_segment: str) -> bool:
    if table_segment == WILDCARD_INDEX:
        return leaf_segment == WILDCARD_INDEX
    if table_segment.startswith("{") and table_segment.endswith("}"):
        return leaf_segment != WILDCARD_INDEX
    return table_segment == leaf_segment


RowIndex = dict[tuple[str, int], list[tuple[tuple[str, ...], Row]]]


def index_rows(rows: list[Row]) -> RowIndex:
    """Rows grouped by (artifact, pattern length), in table order, with their segments split once."""
    index: RowIndex = {}
    for row in rows:
        segments = _segments(row.pointer)
        index.setdefault((row.artifact, len(segments)), []).append((segments, row))
    return index


def match_row(index: RowIndex, artifact: str, pattern: tuple[str, ...]) -> Row | None:
    """The first row of ``artifact`` whose pointer pattern matches the leaf pattern, or None."""
    for segments, row in index.get((artifact, len(pattern)), ()):
        if all(_segment_matches(t, s) for t, s in zip(segments, pattern)):
            return row
    return None


def text_leaves(rel: str, text: str) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Every number and hash that the summary family reads in one rendered file (its own tokenizer)."""
    from nerb_verify.checks.presentation import summary  # only under --coverage

    numbers, hashes = summary.tokens(rel, text)
    for index in range(len(numbers)):
        yield f"/numbers/{index}", ("numbers", WILDCARD_INDEX)
    for index in range(len(hashes)):
        yield f"/hashes/{index}", ("hashes", WILDCARD_INDEX)


def classify(ctx: Any, rows: list[Row] | None = None) -> Coverage:
    """Classify every leaf of the verified bundle in ``ctx`` (after :func:`nerb_verify.verify.verify_bundle`).

    A JSON leaf is derived when a family recorded its exact pointer, or when a derived table row matches it; else
    primitive when a primitive row matches it; else unclassified. A rendered file's numbers and hashes are derived
    by a derived row only when the summary family ran (a family that did not run bounds nothing).
    """
    table = index_rows(load_table() if rows is None else rows)
    recorded = {(item.artifact, item.pointer) for item in ctx.collector.recomputed}
    summary_ran = (ctx.collector.checks_run.get("summary") or {}).get("status") == "ran"
    coverage = Coverage()
    cache: dict[tuple[str, tuple[str, ...]], Row | None] = {}

    def leaves_of(rel: str) -> Iterator[tuple[str, tuple[str, ...]]]:
        if rel in ctx.loaded:
            return json_leaves(ctx.loaded[rel])
        loaded = ctx.files.get(rel)
        text = getattr(loaded, "text", None)
        return text_leaves(rel, text) if isinstance(text, str) else iter(())

    for rel in sorted(set(ctx.loaded) | {r for r in ctx.files if r.endswith(TEXT_SUFFIXES)}):
        name = artifact_pattern(rel)
        counts = coverage.artifacts.setdefault(name, Counts())
        is_text = rel not in ctx.loaded
        for concrete, pattern in leaves_of(rel):
            if (rel, concrete) in recorded:
                counts.derived += 1
                continue
            key = (name, pattern)
            if key not in cache:
                cache[key] = match_row(table, name, pattern)
            row = cache[key]
            if row is not None and (row.kind == "primitive" or not is_text or summary_ran):
                coverage.used_rows.add((row.artifact, row.pointer))
                if row.kind == "derived":
                    counts.derived += 1
                else:
                    counts.primitive += 1
                    policy = row.policy or ""
                    counts.by_policy[policy] = counts.by_policy.get(policy, 0) + 1
                continue
            counts.unclassified += 1
            shown = (name, pointers.join(pattern))
            if shown not in coverage.unclassified:
                coverage.unclassified.append(shown)
    coverage.unclassified.sort()
    return coverage


def text_lines(coverage: Coverage) -> list[str]:
    """The ``--coverage`` table: per artifact, derived / primitive / unclassified / total leaves."""
    names = sorted(coverage.artifacts)
    width = max([len(n) for n in names] + [len("total")])
    lines = ["Derivation coverage (leaves): derived, primitive, unclassified, total"]
    for name in names + ["total"]:
        counts = coverage.totals() if name == "total" else coverage.artifacts[name]
        lines.append(f"  {name.ljust(width)}  {counts.derived:>7}  {counts.primitive:>7}  {counts.unclassified:>5}"
                     f"  {counts.total:>7}")
    totals = coverage.totals()
    if totals.by_policy:
        lines.append("  primitive by policy: " + ", ".join(f"{k} {v}" for k, v in sorted(totals.by_policy.items())))
    for artifact, pointer in coverage.unclassified[:50]:
        lines.append(f"  unclassified: {artifact}#{pointer}")
    return lines
