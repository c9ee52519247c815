"""The package's import graph has no circle, and ``nerb_verify/checks`` keeps the layers of the derivation graph.

Every module can be read after the modules it imports. Inside ``checks``, a subpackage imports only from itself or a
lower layer (raw, then the artifacts' own re-derivations, then the cross-artifact bindings and decisions, then
presentation; docs/derivation.md has the table), and the artifact subpackages never import one another.

Edges are taken from every ``import`` statement of every module (function-level ones included: a lazy import is still
a dependency). ``from package import name`` counts as a dependency on the submodule ``package.name`` when that is a
module, and on the package otherwise.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports."""
    paths = sorted((REPO / "nerb_verify").rglob("*.py"))
    modules = {_module_name(path) for path in paths}
    graph: dict[str, set[str]] = {}
    for path in paths:
        name = _module_name(path)
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges.update(alias.name for alias in node.names if alias.name in modules)
            elif isinstance(node, ast.ImportFrom) and node.module in modules:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    edges.add(sub if sub in modules else node.module)
        edges.discard(name)
        graph[name] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_circle_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_package_has_no_import_circle() -> None:
    assert circles(import_graph()) == []


# nerb_verify.checks subpackage -> its layer of the derivation graph (docs/derivation.md, "Where the checks live").
CHECK_LAYERS: dict[str, int] = {
    "raw": 0,
    "quality": 1,
    "performance": 1,
    "capacity": 1,
    "provenance": 1,
    "cross_artifact": 2,
    "presentation": 3,
}
CHECKS = "nerb_verify.checks"


def check_subpackage(module: str) -> str | None:
    """The ``checks`` subpackage a module belongs to, or None outside ``checks`` (and for ``checks`` itself)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and module.startswith(CHECKS + ".") else None


def layer_violations(graph: dict[str, set[str]], layers: dict[str, int]) -> list[str]:
    """Every import inside ``checks`` that goes to a higher layer, or sideways to another subpackage of its layer,
    and every ``checks`` module that sits in no known subpackage."""
    found: list[str] = []
    for module in sorted(graph):
        here = check_subpackage(module)
        if module == CHECKS:
            found.extend(f"{module} -> {target}" for target in sorted(graph[module]) if check_subpackage(target))
            continue
        if here is None and not module.startswith(CHECKS + "."):
            continue
        if here not in layers:
            found.append(f"{module}: not in a layered subpackage")
            continue
        for target in sorted(graph[module]):
            there = check_subpackage(target)
            if target == CHECKS or (there is not None and there != here and (
                    there not in layers or layers[there] >= layers[here])):
                found.append(f"{module} -> {target}")
    return found


def test_the_layer_rule_finds_upward_sideways_and_unplaced_imports() -> None:
    layers = {"raw": 0, "quality": 1, "capacity": 1, "presentation": 3}
    graph = {
        "nerb_verify.checks.raw.files": {"nerb_verify.checks.quality.quality_math"},
        "nerb_verify.checks.quality": {"nerb_verify.checks.raw.files", "nerb_verify.checks.quality.quality_math"},
        "nerb_verify.checks.quality.quality_math": {"nerb_verify.checks.capacity"},
        "nerb_verify.checks.capacity": set(),
        "nerb_verify.checks.presentation.summary": {"nerb_verify.checks.quality", "nerb_verify.context"},
        "nerb_verify.checks.loose": set(),
        "nerb_verify.seal": {"nerb_verify.checks.presentation.summary"},
    }
    assert layer_violations(graph, layers) == [
        "nerb_verify.checks.loose: not in a layered subpackage",
        "nerb_verify.checks.quality.quality_math -> nerb_verify.checks.capacity",
        "nerb_verify.checks.raw.files -> nerb_verify.checks.quality.quality_math",
    ]


def test_checks_subpackages_are_exactly_the_layered_ones() -> None:
    on_disk = {path.parent.name for path in (REPO / "nerb_verify" / "checks").glob("*/__init__.py")}
    loose = sorted(path.name for path in (REPO / "nerb_verify" / "checks").glob("*.py") if path.name != "__init__.py")
    assert on_disk == set(CHECK_LAYERS)
    assert loose == []


def test_checks_never_import_a_higher_layer_or_a_sibling_artifact() -> None:
    assert layer_violations(import_graph(), CHECK_LAYERS) == []
