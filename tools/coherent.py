"""Forward re-derivation of a bundle: what a coherent forger does after editing one primitive.

A coherent forger changes a primitive value and then rewrites *everything* that depends on it: every rate, gate
actual, claim and decision figure, every summary cell and SVG label, every hash (the capacity decision's internal
chain included). :func:`rederive` does exactly that to a bundle folder, using the verifier itself as the model run
forward:

1. seal (as ``nerb_verify.producers.assembly`` seals a bundle: every binding hash, the capacity chain, the
   performance plan and run hashes, bottom-up, as the producers seal a bundle);
2. verify in memory and write every recomputed figure that disagrees with its published leaf back into that leaf
   (exact value, as the published leaf's type: a double is the correctly rounded double of the exact figure, an
   integer the integer, a hash the hash), except the edited leaves themselves (``pinned``): those are the forgery;
3. repeat 1-2 until no figure moves (a rate feeds a gate actual, which feeds a claim: each round settles one level);
4. rewrite the rendered files: a bundle that our renderer wrote (its summary says so) is rendered again from the
   re-derived verification, as the producer renders it; NERB's rendering of the real bundle is edited in place,
   every printed occurrence of an edited string replaced by its new value (the forger's search and replace), and
   when its numbers no longer fit the figures (a ``summary.*`` finding) it is replaced by our renderer's output
   (which the verifier accepts for the real bundle as well);
5. seal once more and return the final in-memory verification.

Re-deriving an unedited bundle changes no byte (``contract_tests/test_coherent_sweep.py`` checks both bases).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from nerb_verify import context as C
from nerb_verify.canonical import nerb_pretty_bytes
from nerb_verify.pointers import unescape
from nerb_verify.verify import VerifyResult, verify_bundle

MAX_ROUNDS = 6
OUR_RENDERER = "written by `nerb-verify render`"
TEXT_FILES = (C.SUMMARY,)


@dataclass
class Rederived:
    """The outcome of one forward re-derivation: the final verification and how many leaves were rewritten."""

    result: VerifyResult
    rounds: int
    rewritten: int
    rendered: bool


def path_of(document: Any, pointer: str) -> tuple[str | int, ...] | None:
    """The concrete path (keys and indices) of a pointer as the families write it: ``@key:<n>`` is the n-th key of
    its object; other tokens are RFC 6901-unescaped. None when the pointer does not resolve to a leaf."""
    node = document
    out: list[str | int] = []
    for raw in pointer.split("/")[1:] if pointer else []:
        token = unescape(raw)
        if isinstance(node, dict):
            if token.startswith("@key:") and token not in node:
                try:
                    token = list(node)[int(token[5:])]
                except (ValueError, IndexError):
                    return None
            if token not in node:
                return None
            out.append(token)
            node = node[token]
        elif isinstance(node, list):
            if not token.isdigit() or int(token) >= len(node):
                return None
            out.append(int(token))
            node = node[int(token)]
        else:
            return None
    return tuple(out)


def _set(document: Any, path: tuple[str | int, ...], value: Any) -> None:
    node = document
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def _get(document: Any, path: tuple[str | int, ...]) -> Any:
    node = document
    for part in path:
        node = node[part]
    return node


def forward_value(published: Any, exact: str | None) -> tuple[bool, Any]:
    """(ok, value): the recomputed figure ``exact`` written in the published leaf's type, or (False, None) when the
    two types do not correspond (the leaf is not a copy of that figure, so the forger has nothing to write)."""
    if exact is None:
        return (published is not None), None
    if isinstance(published, bool):
        return exact in ("0", "1"), exact == "1"  # a flag recorded as 0 or 1
    if isinstance(published, str):
        return (exact.startswith("sha256:") or not _is_number(exact)), exact
    if not _is_number(exact):
        return False, None
    figure = Fraction(exact)
    if isinstance(published, int) or (published is None and figure.denominator == 1):
        return figure.denominator == 1, int(figure)
    if isinstance(published, float) or published is None:
        return True, float(figure)
    return False, None


def _is_number(text: str) -> bool:
    try:
        Fraction(text)
    except (ValueError, ZeroDivisionError):
        return False
    return True


def write_back(root: Path, result: VerifyResult, pinned: set[tuple[str, tuple[str | int, ...]]]) -> int:
    """Write every mismatching recomputed figure of ``result`` into its leaf under ``root`` (not the pinned ones);
    return how many leaves changed."""
    documents: dict[str, Any] = {}
    touched: set[str] = set()
    changed = 0
    for item in result.ctx.collector.recomputed:
        if item.status != "mismatch" or item.artifact not in result.ctx.loaded:
            continue
        if item.artifact not in documents:
            documents[item.artifact] = json.loads((root / item.artifact).read_text(encoding="utf-8"))
        document = documents[item.artifact]
        path = path_of(document, item.pointer)
        if not path or (item.artifact, path) in pinned:
            continue
        current = _get(document, path)
        if isinstance(current, (dict, list)):
            continue
        ok, value = forward_value(current, item.exact)
        if ok and (value != current or type(value) is not type(current)):
            _set(document, path, value)
            changed += 1
            touched.add(item.artifact)
    for rel in sorted(touched):
        (root / rel).write_bytes(nerb_pretty_bytes(documents[rel]))
    return changed


def _seal(root: Path) -> None:
    """Seal as the producers do (assembly's seal plus the performance plan hash rebuilt from the report)."""
    from nerb_verify.producers.assembly import _seal_with_plan
    from nerb_verify.seal import seal_bundle

    _seal_with_plan(root, seal_bundle)


def _ours(root: Path) -> bool:
    summary = root / C.SUMMARY
    return summary.is_file() and OUR_RENDERER in summary.read_text(encoding="utf-8")


def render_ours(root: Path, result: VerifyResult) -> None:
    """Write our renderer's summary and figures for ``result`` under the bundle's names, as the producer does."""
    from nerb_verify.producers.assembly import rendered_files
    from nerb_verify.render.output import render_files

    for rel, raw in rendered_files(render_files(result.ctx)).items():
        (root / rel).write_bytes(raw)


def substitute(root: Path, replaced: dict[str, str]) -> None:
    """Replace every printed occurrence of an edited string in the summary and the figures (search and replace)."""
    for path in [root / C.SUMMARY] + sorted((root / C.FIGURES_DIR).glob("*.svg")):
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        new = text
        for old, value in replaced.items():
            new = new.replace(old, value)
        if new != text:
            path.write_text(new, encoding="utf-8")


def _presentation_stale(result: VerifyResult) -> bool:
    return any(f.code.startswith("summary.") for f in result.ctx.collector.findings)


def rederive(root: Path, pinned: set[tuple[str, tuple[str | int, ...]]] | None = None,
             replaced: dict[str, str] | None = None) -> Rederived:
    """Run the model forward on the bundle at ``root`` in place (module docstring) and return the final verification.

    ``pinned`` are (artifact, path) leaves that were edited and must keep their value; ``replaced`` maps every edited
    string to its new value, for the rendered files that our renderer did not write.
    """
    pins = pinned or set()
    rewritten = 0
    rounds = 0
    _seal(root)
    result = verify_bundle(root)
    while rounds < MAX_ROUNDS:
        rounds += 1
        changed = write_back(root, result, pins)
        if not changed:
            break
        rewritten += changed
        _seal(root)
        result = verify_bundle(root)
    rendered = _ours(root)
    if not rendered and not replaced and not rewritten:
        return Rederived(result, rounds, rewritten, rendered)  # sealed and verified as it stands
    if rendered:
        render_ours(root, result)
    elif replaced:
        substitute(root, replaced)
    _seal(root)
    result = verify_bundle(root)
    if not rendered and _presentation_stale(result):
        render_ours(root, result)  # NERB's rendering no longer fits the figures: the forger renders anew
        rendered = True
        _seal(root)
        result = verify_bundle(root)
    return Rederived(result, rounds, rewritten, rendered)


def edit_count(evidence: dict[str, Any], index: int, name: str, delta: int) -> set[tuple[str | int, ...]]:
    """Edit a raw count of quality slice ``index`` by ``delta`` and every count that is its sum, forward.

    The quality family's identities (``gold_spans = true_positive + false_negative`` and the others in
    :data:`nerb_verify.checks.quality.IDENTITIES`) give each total from its parts, and the slice panel gives the
    combined ``person_contact`` slice's span outcomes as the class sums (:mod:`nerb_verify.checks.quality.quality_panel`),
    so an edit of a class's count moves the combined slice's count and totals by the same delta. Rates, gate
    actuals and everything after them follow from :func:`rederive`. Returns the paths of every count it changed
    (to pin them).
    """
    from nerb_verify.checks.quality import IDENTITIES
    from nerb_verify.checks.quality.quality_panel import (
        BINDING_KEYS,
        CLASSES,
        COMBINED,
        OPEN_WORLD_SPAN_SUMS,
        SPAN_SUMS,
    )

    slices = evidence["quality"]["slices"]
    changed: set[tuple[str | int, ...]] = set()

    def move(position: int, field: str) -> None:
        item = slices[position]
        item[field] += delta
        changed.add(("quality", "slices", position, field))
        for total, parts in IDENTITIES:
            if field in parts and isinstance(item.get(total), int):
                move(position, total)

    move(index, name)
    item = slices[index]
    if item.get("entity_class") in CLASSES and name in SPAN_SUMS + OPEN_WORLD_SPAN_SUMS:
        for position, other in enumerate(slices):
            if other.get("entity_class") == COMBINED and all(other.get(k) == item.get(k) for k in BINDING_KEYS):
                move(position, name)
    return changed
