"""The strings and string containers of the vendored bundles' JSON files, for the privacy fast-path tests.

Several differential tests run a fast path and the full path over every string a real bundle holds (keys and
values) and over the strings of every container (an object's keys and string values in order, an array's string
items), the pieces the joined views are built from. One walk, shared, so every test sees the same texts."""

from __future__ import annotations

import functools
import json
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@functools.lru_cache(maxsize=1)
def _walked() -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    strings: set[str] = set()
    containers: set[tuple[str, ...]] = set()

    def walk(value: object) -> None:
        if isinstance(value, dict):
            strings.update(value)
            containers.add(tuple(piece for key, child in value.items()
                                 for piece in (key, child) if isinstance(piece, str)))
            for child in value.values():
                walk(child)
        elif isinstance(value, list):
            containers.add(tuple(item for item in value if isinstance(item, str)))
            for child in value:
                walk(child)
        elif isinstance(value, str):
            strings.add(value)

    for path in sorted((REPO / "fixtures" / "bundles").rglob("*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    return tuple(sorted(strings)), tuple(sorted(containers))


def bundle_strings() -> list[str]:
    """Every distinct key and string value of the vendored bundles' JSON files, sorted."""
    return list(_walked()[0])


def bundle_containers(min_pieces: int = 2) -> list[tuple[str, ...]]:
    """Every distinct container's strings (at least ``min_pieces`` of them), sorted."""
    return [container for container in _walked()[1] if len(container) >= min_pieces]
