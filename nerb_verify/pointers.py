"""RFC 6901 JSON Pointers that never leak an input key.

Pointers into parsed artifacts are built from the path of keys and indices. An object key is written as itself only
when it belongs to the vocabulary of property names declared by our shipped JSON Schemas (so ``/quality/slices/0``
reads naturally); any other key is written by position, ``@key:<n>`` where ``n`` is the key's 0-based position in its
object. That keeps a hostile or personal key (an e-mail address used as a key, say) out of every output.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence

from nerb_verify import resources


def escape(segment: str) -> str:
    """Escape one reference token as RFC 6901 requires (``~`` to ``~0``, ``/`` to ``~1``)."""
    return segment.replace("~", "~0").replace("/", "~1")


def unescape(segment: str) -> str:
    """Undo :func:`escape` for one reference token."""
    return segment.replace("~1", "/").replace("~0", "~")


def join(parts: Iterable[str | int]) -> str:
    """Join already-safe path parts into a pointer string ("" is the whole document)."""
    return "".join("/" + escape(str(p)) for p in parts)


@functools.lru_cache(maxsize=1)
def known_keys() -> frozenset[str]:
    """Every property name declared in the shipped schemas: keys that may be printed in a pointer."""
    names: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                names.update(k for k in props if isinstance(k, str))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for path in resources.schema_files():
        with open(path, encoding="utf-8") as handle:
            walk(json.load(handle))
    return frozenset(names)


def key_segment(key: str, position: int) -> str:
    """The pointer segment for an object key: the key itself if it is schema vocabulary, else its position."""
    if key in known_keys():
        return key
    return f"@key:{position}"


def for_path(path: Sequence[tuple[str | int, int]]) -> str:
    """Pointer for a path given as (key or index, position) pairs, using :func:`key_segment` for keys."""
    parts: list[str] = []
    for item, position in path:
        if isinstance(item, int):
            parts.append(str(item))
        else:
            parts.append(key_segment(item, position))
    return join(parts)


def safe_pointer(document: object, pointer_parts: Sequence[str | int]) -> str:
    """Build a pointer from a list of keys/indices into ``document``, hiding keys outside the vocabulary."""
    parts: list[str] = []
    node = document
    for item in pointer_parts:
        if isinstance(item, int) or not isinstance(node, dict):
            parts.append(str(item))
            node = node[item] if isinstance(node, list) and isinstance(item, int) and 0 <= item < len(node) else None
            continue
        if item in known_keys():
            parts.append(item)
        else:
            position = list(node).index(item) if item in node else -1
            parts.append(f"@key:{position}")
        node = node.get(item)
    return join(parts)


def resolve(document: object, pointer: str) -> tuple[bool, object]:
    """Resolve a pointer strictly (list indices are canonical non-negative decimal integers).

    Returns (found, value). Unlike NERB's resolver, ``-1``, ``+1``, `` 1``, ``01`` and ``1_0`` are not indices.
    """
    if pointer == "":
        return True, document
    if not pointer.startswith("/"):
        return False, None
    node = document
    for raw in pointer[1:].split("/"):
        token = unescape(raw)
        if isinstance(node, dict):
            if token not in node:
                return False, None
            node = node[token]
        elif isinstance(node, list):
            if not token.isascii() or not token.isdigit() or (len(token) > 1 and token[0] == "0"):
                return False, None
            index = int(token)
            if index >= len(node):
                return False, None
            node = node[index]
        else:
            return False, None
    return True, node
