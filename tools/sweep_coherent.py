"""The coherent sweep: edit one primitive, re-derive everything downstream, reseal, verify (issue 16).

For every primitive leaf of a base bundle (a leaf that the derivation model, ``nerb_verify/data/derivation.json``,
classifies as primitive and that no family recorded), the sweep sets a new value on a copy of the base, runs the
model forward (:func:`tools.coherent.rederive`: every recomputed figure written back, every hash resealed, the
capacity chain included, the summary and figures rendered again or edited) and verifies. Each edit carries the
verdict its policy expects:

* ``free_by_design``: an *allowed* edit (another value of the same kind) must verify;
* ``frozen``: a *forbidden* edit (any other value) must be rejected; the allowed value is the current one, which the
  unedited control re-derives (a byte-identical no-op);
* ``enum``: *allowed*, another member seen under the same key in the bundle (when there is one), must verify; a
  *forbidden* value outside the set must be rejected;
* ``identity``: the leaf and its ``with`` leaf edited together are *allowed*; the leaf alone is *forbidden*;
* ``bound``: the sweep cannot construct a value beyond a bound it does not know, so such leaves are listed as
  skipped with that reason;
* ``unchecked``: a known gap (another engineer's rows): edited and reported, never counted as a miss.

An allowed edit is tried the ways a forger would make it verify: in place; for a name (a digest, an identifier:
eight or more characters without spaces) also renamed everywhere it occurs in the bundle's JSON and rendered files;
for a free integer also one step down instead of up (a sample at its phase's peak). A forbidden name is renamed
everywhere (the stronger forgery). The capacity decision's terminal attempt is edited with the chain's last receipt,
since the seal rewrites it as a copy of that receipt.

A *miss* is a forbidden edit that verifies; a *false rejection* an allowed edit that does not; an edit *undone by
the seal* (the edited leaf does not hold its new value after resealing) shows a leaf that is not a primitive. All
three are defects: a miss needs a rule, a false rejection a fix or a documented stricter policy
(:data:`PINNED_BY_NEIGHBOURS`, docs/derivation.md "Coherent sweep"), an undone edit a derived row.

    python tools/sweep_coherent.py [--base nerb-enron|synthetic-smoke] [--per-pattern 3] [--seed 16]
                                   [--jobs 2] [--json OUT.json] [--policy P] [--limit N]

Leaves are grouped by table pattern (``/report/phases/*/resource_samples/*/elapsed_ns`` is one pattern);
``--per-pattern N`` edits the first, the last and N-2 seeded random instances of each (0: every instance).
Exit status 1 when there is a miss, a false rejection or an undone edit.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from nerb_verify import derivation, pointers
from nerb_verify.canonical import nerb_pretty_bytes
from tools.coherent import path_of, rederive

BASES = ("nerb-enron", "synthetic-smoke")
FORBIDDEN_ENUM = "not_a_member"
# Outcomes by expectation and verdict.
CAUGHT, ALLOWED_OK, MISS, FALSE_REJECTION, GAP_OPEN, GAP_CAUGHT, UNDONE = (
    "caught", "allowed_verified", "miss", "false_rejection", "unchecked_verified", "unchecked_rejected",
    "undone_by_seal")
STRICTER = "pinned_by_neighbours"
_SIGNALS = "/report/phases/*/progress_signals/*/"
# Free leaves whose bounds, derived from their neighbours, can leave no room at some instances: a unit step either way
# is then rejected, by these codes only (docs/derivation.md, "Coherent sweep"). Retained progress signals are
# strictly increasing in sequence and within the signal count, each wall gap is the time since the signal before it
# when the two are consecutive, and no signal counts more records than the phase processed.
PINNED_BY_NEIGHBOURS: dict[tuple[str, str], tuple[str, ...]] = {
    ("capacity-decision.json", _SIGNALS + name): ("capacity.checkpoint_mismatch",)
    for name in ("sequence", "wall_elapsed_ns", "progress_wall_gap_ns", "completed_records")}


@dataclass
class Edit:
    """One coherent edit: a leaf of one artifact, its new value, and whether its policy allows it."""

    base: str
    artifact: str
    pattern: str
    pointer: str  # RFC 6901, real keys (escaped)
    policy: str
    expect: str  # "allowed", "forbidden" or "unchecked"
    value: Any
    also: list[tuple[str, str]] = field(default_factory=list)  # identity partner (artifact, pointer)
    fallback: Any = None  # a free number: the step down, tried when the step up leaves a derived bound


@dataclass
class Outcome:
    """What the verifier said about one edit after the forward re-derivation."""

    edit: Edit
    verdict: str
    codes: list[str]
    outcome: str


def base_root(base: str) -> Path:
    return REPO / "fixtures" / "bundles" / base


def _concrete(document: Any, families_pointer: str) -> str | None:
    """The RFC 6901 pointer with real keys for a pointer as the families write it (``@key:<n>`` by position)."""
    path = path_of(document, families_pointer)
    return None if path is None else pointers.join(path)


def primitive_leaves(base: str) -> list[tuple[str, str, str, derivation.Row, Any]]:
    """(artifact, table pattern, pointer, row, value) of every primitive JSON leaf of the base, in file order.

    A leaf is primitive when no family recorded it and the first matching table row is a primitive row (exactly
    how :func:`nerb_verify.derivation.classify` counts it)."""
    from nerb_verify.verify import verify_bundle

    root = base_root(base)
    ctx = verify_bundle(root).ctx
    table = derivation.index_rows(derivation.load_table())
    recorded = {(item.artifact, item.pointer) for item in ctx.collector.recomputed}
    found: list[tuple[str, str, str, derivation.Row, Any]] = []
    for rel in sorted(ctx.loaded):
        document = ctx.loaded[rel]
        name = derivation.artifact_pattern(rel)
        for families_pointer, pattern in derivation.json_leaves(document):
            if (rel, families_pointer) in recorded:
                continue
            row = derivation.match_row(table, name, pattern)
            if row is None or row.kind != "primitive":
                continue
            pointer = _concrete(document, families_pointer)
            if pointer is None:
                continue
            found.append((rel, row.pointer, pointer, row, _value(document, pointer)))
    return found


def _value(document: Any, pointer: str) -> Any:
    found, value = pointers.resolve(document, pointer)
    return value if found else None


def _hexdigit_changed(text: str) -> str:
    return text[:-1] + ("0" if text[-1] != "0" else "1")


def changed_value(value: Any, others: list[Any]) -> Any:
    """Another value of the same kind: a number one step up, a boolean flipped, a digest's last hex digit changed,
    another value the bundle uses under the same key, or the text with its last character changed."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.5 if value else 1.0
    if isinstance(value, str):
        if value and all(c in "0123456789abcdef" for c in value[-8:]) and len(value) >= 8:
            return _hexdigit_changed(value)
        if others:
            return others[0]
        return (value[:-1] + ("x" if not value.endswith("x") else "y")) if value else "x"
    if value == []:
        return None  # an empty list has no "other value of the same kind" without a model of its elements
    if value == {}:
        return None
    return None


def _artifact_references(base: str) -> dict[str, list[tuple[str, str, dict[str, Any]]]]:
    """Every reference to an artifact in the base's JSON files (an object with a string ``id`` and an int ``bytes``),
    by artifact id: ``(file, pointer of the object, the object)``."""
    found: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    root = base_root(base)
    for path in sorted(root.rglob("*.json")):
        rel = path.relative_to(root).as_posix()
        stack: list[tuple[str, Any]] = [("", json.loads(path.read_text(encoding="utf-8")))]
        while stack:
            where, node = stack.pop()
            if isinstance(node, dict):
                if isinstance(node.get("id"), str) and type(node.get("bytes")) is int:
                    found.setdefault(node["id"], []).append((rel, where, node))
                stack.extend((f"{where}/{pointers.escape(key)}", child) for key, child in node.items())
            elif isinstance(node, list):
                stack.extend((f"{where}/{index}", child) for index, child in enumerate(node))
    return found


def _same_artifact_fields(references: dict[str, list[tuple[str, str, dict[str, Any]]]], rel: str, pointer: str,
                          value: Any) -> list[tuple[str, str]]:
    """The same field, holding the same value, of every other reference to the artifact whose reference holds the
    leaf ``pointer`` of ``rel`` (a label's artifact; the conformance plan's, the evidence's and the bank card's
    references to the same cases artifact): the verifier binds them to each other, so a coherent edit of one edits
    them all."""
    parent, _, name = pointer.rpartition("/")
    for refs in references.values():
        if any(ref_rel == rel and where == parent for ref_rel, where, _ in refs):
            return [(ref_rel, f"{where}/{name}") for ref_rel, where, node in refs
                    if (ref_rel, where) != (rel, parent) and node.get(pointers.unescape(name)) == value]
    return []


def _others_by_key(base: str) -> dict[str, list[Any]]:
    seen: dict[str, set[Any]] = {}
    root = base_root(base)
    for path in sorted(root.rglob("*.json")):
        stack: list[tuple[str, Any]] = [("", json.loads(path.read_text(encoding="utf-8")))]
        while stack:
            key, node = stack.pop()
            if isinstance(node, dict):
                stack.extend(node.items())
            elif isinstance(node, list):
                stack.extend((key, child) for child in node)
            elif isinstance(node, str):
                seen.setdefault(key, set()).add(node)
    return {key: sorted(values) for key, values in seen.items()}


def plan_edits(base: str, per_pattern: int = 3, seed: int = 16, policies: tuple[str, ...] | None = None
               ) -> tuple[list[Edit], list[dict[str, Any]]]:
    """The edits of one base (module docstring) and the leaves skipped with the reason."""
    rng = random.Random(f"{seed}:{base}")
    others = _others_by_key(base)
    references = _artifact_references(base)
    groups: dict[tuple[str, str], list[tuple[str, derivation.Row, Any]]] = {}
    for rel, pattern, pointer, row, value in primitive_leaves(base):
        groups.setdefault((rel, pattern), []).append((pointer, row, value))
    edits: list[Edit] = []
    skipped: list[dict[str, Any]] = []
    for (rel, pattern), leaves in sorted(groups.items()):
        policy = leaves[0][1].policy or ""
        if policies and policy not in policies:
            continue
        chosen = leaves if per_pattern <= 0 or len(leaves) <= per_pattern else (
            [leaves[0], leaves[-1]] + rng.sample(leaves[1:-1], max(0, per_pattern - 2)))
        for pointer, row, value in chosen:
            key = pointers.unescape(pointer.rsplit("/", 1)[-1])
            alternatives = [v for v in others.get(key, []) if v != value]
            new = changed_value(value, alternatives if isinstance(value, str) and len(alternatives) < 64 else [])
            if policy == "bound" or new is None:
                skipped.append({"base": base, "artifact": rel, "pattern": pattern, "pointer": pointer,
                                "policy": policy, "reason": "no value beyond the bound can be constructed"
                                if policy == "bound" else "an empty container has no other value of its kind"})
                continue
            also = sealed_copies(rel, pointer)
            if policy == "free_by_design":
                down = value - 1 if type(value) is int else None
                edits.append(Edit(base, rel, pattern, pointer, policy, "allowed", new, also, down))
            elif policy == "frozen":
                edits.append(Edit(base, rel, pattern, pointer, policy, "forbidden", new, also))
            elif policy == "enum":
                members = [v for v in alternatives if isinstance(value, str)]
                if members:
                    edits.append(Edit(base, rel, pattern, pointer, policy, "allowed", members[0], also))
                edits.append(Edit(base, rel, pattern, pointer, policy, "forbidden",
                                  FORBIDDEN_ENUM if isinstance(value, str) else new, also))
            elif policy == "identity" and row.with_ and row.with_.startswith("/"):
                edits.append(Edit(base, rel, pattern, pointer, policy, "allowed", new, also + [(rel, row.with_)]))
                edits.append(Edit(base, rel, pattern, pointer, policy, "forbidden", new, also))
            elif policy == "identity" and row.with_:
                # An identity stated in words ("the same field of every other reference to the same artifact"):
                # its partners are the pattern's other instances holding the same value. Edited with them, the
                # value is allowed; alone, forbidden only where a partner exists to disagree with it.
                partners = [(rel, other) for other, _row, other_value in leaves
                            if other != pointer and other_value == value]
                partners += [ref for ref in _same_artifact_fields(references, rel, pointer, value)
                             if ref not in partners]
                edits.append(Edit(base, rel, pattern, pointer, policy, "allowed", new, also + partners))
                if partners:
                    edits.append(Edit(base, rel, pattern, pointer, policy, "forbidden", new, also))
            else:
                edits.append(Edit(base, rel, pattern, pointer, policy, "unchecked", new, also))
    return edits, skipped


TERMINAL = "/terminal_attempt/"
LAST_RECEIPT = "/attempt_chain/-1/"


def sealed_copies(rel: str, pointer: str) -> list[tuple[str, str]]:
    """Leaves that the seal rewrites from the edited one, which a forger must therefore edit with it: the capacity
    decision's terminal attempt is resealed as a copy of the chain's last receipt."""
    if rel != "capacity-decision.json" or not pointer.startswith(TERMINAL):
        return []
    return [(rel, LAST_RECEIPT + pointer[len(TERMINAL):])]


def _last_index(document: Any, pointer: str) -> str:
    """Resolve the ``/attempt_chain/-1/`` prefix (the last receipt) against ``document``."""
    if pointer.startswith(LAST_RECEIPT):
        chain = document.get("attempt_chain") if isinstance(document, dict) else None
        last = len(chain) - 1 if isinstance(chain, list) else 0
        return f"/attempt_chain/{last}/" + pointer[len(LAST_RECEIPT):]
    return pointer


def _renames(value: Any) -> bool:
    return isinstance(value, str) and len(value) >= 8 and " " not in value


def apply_edit(root: Path, edit: Edit, value: Any, rename: bool = False
               ) -> tuple[set[tuple[str, tuple[str | int, ...]]], dict[str, str], tuple[str, tuple[str | int, ...]]]:
    """Set the edit's leaf (and its partners) to ``value`` in the bundle copy at ``root``, or with ``rename`` every
    leaf and printed occurrence of the old string; return the pinned leaves, the text replacements and the edited
    leaf's own (artifact, path)."""
    document = json.loads((root / edit.artifact).read_text(encoding="utf-8"))
    old = _value(document, edit.pointer)
    own = (edit.artifact, path_of(document, edit.pointer) or ())
    pinned: set[tuple[str, tuple[str | int, ...]]] = set()
    replaced: dict[str, str] = {}
    targets = [(edit.artifact, edit.pointer)] + list(edit.also)
    if rename and _renames(old) and isinstance(value, str):
        replaced[old] = value
        for path in sorted(root.rglob("*.json")):
            rel = path.relative_to(root).as_posix()
            data = json.loads(path.read_text(encoding="utf-8"))
            hits = _replace_string(data, old, value, ())
            if hits:
                path.write_bytes(nerb_pretty_bytes(data))
                pinned.update((rel, hit) for hit in hits)
        return pinned, replaced, own
    for rel, pointer in targets:
        data = document if rel == edit.artifact else json.loads((root / rel).read_text(encoding="utf-8"))
        path_parts = path_of(data, _last_index(data, pointer))
        if path_parts is None:
            continue
        node = data
        for part in path_parts[:-1]:
            node = node[part]
        node[path_parts[-1]] = value
        pinned.add((rel, path_parts))
        (root / rel).write_bytes(nerb_pretty_bytes(data))
    return pinned, replaced, own


def survived(root: Path, pinned: set[tuple[str, tuple[str | int, ...]]], value: Any) -> bool:
    """Every pinned leaf still holds the edited value after the re-derivation (a seal did not undo the edit)."""
    documents: dict[str, Any] = {}
    for rel, path in pinned:
        if rel not in documents:
            documents[rel] = json.loads((root / rel).read_text(encoding="utf-8"))
        node = documents[rel]
        try:
            for part in path:
                node = node[part]
        except (KeyError, IndexError, TypeError):
            return False
        if node != value or type(node) is not type(value):
            return False
    return True


def _replace_string(node: Any, old: str, new: str, path: tuple[str | int, ...]) -> list[tuple[str | int, ...]]:
    hits: list[tuple[str | int, ...]] = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in list(items):
        if child == old and isinstance(child, str):
            node[key] = new
            hits.append(path + (key,))
        elif isinstance(child, (dict, list)):
            hits.extend(_replace_string(child, old, new, path + (key,)))
    return hits


def _attempt(edit: Edit, value: Any, rename: bool = False) -> tuple[str, list[str], bool]:
    with tempfile.TemporaryDirectory(prefix="nerb-coherent-") as folder:
        root = Path(folder) / "bundle"
        shutil.copytree(base_root(edit.base), root)
        pinned, replaced, own = apply_edit(root, edit, value, rename)
        result = rederive(root, pinned, replaced).result
        kept = survived(root, {own}, value)
    codes = sorted({f.code for f in result.ctx.collector.findings if f.severity == "error"})
    return result.verdict, codes, kept


def run_edit(edit: Edit) -> Outcome:
    """Copy the base, apply the edit, re-derive forward, verify; classify the outcome.

    An allowed edit is tried the ways a forger would make it verify: in place; then, for a name (a digest or an
    identifier), renamed everywhere it occurs; then, for a free number, one step down instead of up (a sample at
    its phase's peak). A forbidden edit is tried renamed everywhere when it is a name (the stronger forgery), else in
    place. An edit that the seal undoes (the leaf is resealed from another) is reported as such."""
    names = _renames(_value(json.loads((base_root(edit.base) / edit.artifact).read_text(encoding="utf-8")),
                            edit.pointer)) and isinstance(edit.value, str)
    if edit.expect == "allowed":
        tries = [(edit.value, False)] + ([(edit.value, True)] if names else []) + (
            [(edit.fallback, False)] if edit.fallback is not None else [])
    else:
        tries = [(edit.value, names)]
    for value, rename in tries:
        verdict, codes, kept = _attempt(edit, value, rename)
        if verdict == "verified" and kept:
            break
    if not kept:
        return Outcome(edit, verdict, codes, UNDONE)
    verified = verdict == "verified"
    if edit.expect == "allowed":
        outcome = ALLOWED_OK if verified else FALSE_REJECTION
        if not verified and set(codes) <= set(PINNED_BY_NEIGHBOURS.get((edit.artifact, edit.pattern), ())):
            outcome = STRICTER
    elif edit.expect == "forbidden":
        outcome = MISS if verified else CAUGHT
    else:
        outcome = GAP_OPEN if verified else GAP_CAUGHT
    return Outcome(edit, verdict, codes, outcome)


def sweep(base: str, per_pattern: int = 3, seed: int = 16, jobs: int = 1, policies: tuple[str, ...] | None = None,
          limit: int | None = None) -> dict[str, Any]:
    """Run the sweep on one base; the JSON summary (counts, misses, false rejections, skipped leaves)."""
    edits, skipped = plan_edits(base, per_pattern, seed, policies)
    if limit is not None:
        edits = edits[:limit]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as executor:
            outcomes = list(executor.map(run_edit, edits, chunksize=4))
    else:
        outcomes = [run_edit(edit) for edit in edits]
    counts = {name: 0 for name in (CAUGHT, ALLOWED_OK, MISS, FALSE_REJECTION, GAP_OPEN, GAP_CAUGHT, UNDONE,
                                   STRICTER)}
    for outcome in outcomes:
        counts[outcome.outcome] += 1

    def shown(outcome: Outcome) -> dict[str, Any]:
        item = asdict(outcome.edit)
        for key in ("value", "fallback", "also"):
            item.pop(key)  # never echo a value: the pointer and the policy say what was edited
        return {**item, "verdict": outcome.verdict, "codes": outcome.codes}

    return {"base": base, "edits_tried": len(outcomes), "patterns": len({(e.artifact, e.pattern) for e in edits}),
            "counts": counts,
            "misses": [shown(o) for o in outcomes if o.outcome == MISS],
            "false_rejections": [shown(o) for o in outcomes if o.outcome == FALSE_REJECTION],
            "undone_by_seal": [shown(o) for o in outcomes if o.outcome == UNDONE],
            "pinned_by_neighbours": [shown(o) for o in outcomes if o.outcome == STRICTER],
            "unchecked_verified": sorted({f"{o.edit.artifact}#{o.edit.pattern}" for o in outcomes
                                          if o.outcome == GAP_OPEN}),
            "caught_by": _caught_by(outcomes),
            "skipped": skipped}


def _caught_by(outcomes: list[Outcome]) -> dict[str, int]:
    tally: dict[str, int] = {}
    for outcome in outcomes:
        if outcome.outcome in (CAUGHT, GAP_CAUGHT):
            for code in outcome.codes:
                tally[code] = tally.get(code, 0) + 1
    return dict(sorted(tally.items()))


def text_lines(report: dict[str, Any]) -> list[str]:
    """A short text form of one base's sweep."""
    c = report["counts"]
    head = (f"{report['base']}: {report['edits_tried']} edits over {report['patterns']} patterns: "
            f"{c[CAUGHT]} forbidden caught, {c[ALLOWED_OK]} allowed verified, {c[MISS]} misses, "
            f"{c[FALSE_REJECTION]} false rejections; unchecked rows {c[GAP_OPEN]} verified, {c[GAP_CAUGHT]} "
            f"rejected; {c[UNDONE]} undone by the seal; {c[STRICTER]} free leaves pinned by their neighbours; "
            f"{len(report['skipped'])} leaves skipped")
    lines = [head]
    for label, key in (("miss", "misses"), ("false rejection", "false_rejections"), ("undone", "undone_by_seal")):
        for item in report[key]:
            lines.append(f"  {label}: {item['artifact']}#{item['pointer']} ({item['policy']}, {item['expect']}) "
                         f"-> {item['verdict']} {' '.join(item['codes'])}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", choices=BASES, action="append")
    parser.add_argument("--per-pattern", type=int, default=3)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--policy", action="append", help="only rows of this policy (repeatable)")
    parser.add_argument("--limit", type=int, help="at most this many edits per base (debugging)")
    parser.add_argument("--json", type=Path, help="write the JSON report here")
    args = parser.parse_args(argv)
    reports = [sweep(base, args.per_pattern, args.seed, args.jobs, tuple(args.policy) if args.policy else None,
                     args.limit) for base in args.base or BASES]
    for report in reports:
        print("\n".join(text_lines(report)), flush=True)
    if args.json:
        args.json.write_text(json.dumps({"bases": reports}, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    bad = sum(r["counts"][MISS] + r["counts"][FALSE_REJECTION] + r["counts"][UNDONE] for r in reports)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
