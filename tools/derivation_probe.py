"""Draft evidence for rows of nerb_verify/data/derivation.json: which error codes an edit of each leaf kind raises.

For the first leaf of every pointer pattern of a base bundle, change it (number + 1, boolean flipped, the last hex
digit of a hash changed, other text extended, null to 0), run the semantic check families in memory (plus the schema
family with ``--schema``), and print the pattern with the error codes raised. Raw bytes are not re-read, so raw-byte
hashes still match; canonical-object hash codes do fire, and a resealing forger would silence them: read only the
other codes as "a check binds this leaf" (docs/derivation.md lists the hash codes). Slow (one run per pattern):

    python tools/derivation_probe.py [--base nerb-enron|synthetic-smoke] [--schema] [--match PREFIX] > probe.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def nudged(value: Any) -> Any:
    """One small edit of a scalar leaf that keeps its JSON type where possible."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.5 + 1.0
    if isinstance(value, str):
        if value and value[-1] in "0123456789abcdef":
            return value[:-1] + ("1" if value[-1] != "1" else "2")
        return value + "x"
    return 0 if value is None else value


def main() -> int:
    from nerb_verify import decision_scope, derivation, families
    from nerb_verify.findings import Collector
    from nerb_verify.verify import verify_bundle

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="nerb-enron")
    parser.add_argument("--schema", action="store_true", help="run only the schema family (const/enum/bounds)")
    parser.add_argument("--match", default="", help="only patterns starting with this 'artifact#pointer' prefix")
    args = parser.parse_args()
    ctx = verify_bundle(REPO / "fixtures" / "bundles" / args.base).ctx
    chosen = [(name, run) for name, run in families.FAMILY_ORDER
              if (name == "schema") == args.schema and name not in ("bundle", "privacy")]
    results: dict[str, list[str]] = {}
    for rel, document in ctx.loaded.items():
        seen: set[str] = set()
        for concrete, pattern in derivation.json_leaves(document):
            key = derivation.artifact_pattern(rel) + "#" + "/".join(("",) + pattern if pattern else ())
            if key in seen or not key.startswith(args.match) or not concrete:
                continue
            seen.add(key)
            parts = [int(p) if isinstance(node_p, list) else p for p, node_p in _walk(document, concrete)]
            parent = document
            for part in parts[:-1]:
                parent = parent[part]
            if isinstance(parent[parts[-1]], (dict, list)):
                continue  # an empty container: not edited
            old = parent[parts[-1]]
            parent[parts[-1]] = nudged(old)
            ctx.collector, ctx.figures, ctx.shared = Collector(), {}, {}
            codes: set[str] = set()
            for name, run in chosen:
                try:
                    run(ctx)
                except Exception:  # noqa: BLE001 - a probe records a crash as a code
                    codes.add("internal:" + name)
            if not args.schema:
                decision_scope.apply(ctx)  # a declared smoke bundle's scope, as verify_bundle applies it
            codes |= {f.code for f in ctx.collector.findings if f.severity == "error"}
            parent[parts[-1]] = old
            results[key] = sorted(codes)
    json.dump(results, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


def _walk(document: Any, concrete: str) -> list[tuple[str, Any]]:
    """(key or index text, parent node) along a concrete pointer, with ``@key:<n>`` turned back into the key."""
    from nerb_verify import pointers

    out: list[tuple[str, Any]] = []
    node = document
    for raw in concrete.split("/")[1:]:
        token = pointers.unescape(raw)
        if isinstance(node, dict) and token.startswith("@key:") and token not in node:
            token = list(node)[int(token[5:])]
        out.append((token, node))
        node = node[int(token)] if isinstance(node, list) else node[token]
    return out


if __name__ == "__main__":
    raise SystemExit(main())
