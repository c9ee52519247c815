"""Small, type-defensive readers for parsed artifacts (used by the publication, card, capacity and summary families).

Until schema validation has run, artifacts may have any shape; these helpers return ``None`` (or a default) instead of
raising when a key is missing or a value has the wrong type, so a check can turn "not there" into a finding.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

_MISSING = object()


def dig(obj: Any, *path: str | int) -> Any:
    """The value at ``path`` inside ``obj`` (dict keys / list indices), or None when any step is missing."""
    node = obj
    for step in path:
        if isinstance(step, int) and isinstance(node, list):
            if 0 <= step < len(node):
                node = node[step]
                continue
            return None
        if isinstance(step, str) and isinstance(node, dict):
            node = node.get(step, _MISSING)
            if node is _MISSING:
                return None
            continue
        return None
    return node


def as_int(value: Any) -> int | None:
    """``value`` if it is a JSON integer (not a bool), else None."""
    if type(value) is int:  # the parsed-JSON case, one test (this runs for every number of the capacity samples)
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def as_dict(value: Any) -> dict[str, Any] | None:
    """``value`` if it is a JSON object, else None."""
    return value if isinstance(value, dict) else None


def as_list(value: Any) -> list[Any] | None:
    """``value`` if it is a JSON array, else None."""
    return value if isinstance(value, list) else None


def same(a: Any, b: Any) -> bool:
    """JSON equality that keeps bool, int and float apart (``True != 1``, ``1 != 1.0``), as canonical hashing does."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def check_self_hash(ctx: Any, artifact: str, doc: dict[str, Any], field: str, code: str) -> bool:
    """Recompute ``doc[field]`` as the canonical hash of ``doc`` without that field; record it; flag a mismatch.

    The self-hash every NERB artifact carries (``publication_sha256``, ``card_sha256``, ...). Returns whether it held.
    """
    from nerb_verify.canonical import self_hash

    recomputed = self_hash(doc, field)
    ok = doc.get(field) == recomputed
    ctx.collector.record(artifact, "/" + field, field, doc.get(field), recomputed, ok)
    if not ok:
        ctx.collector.add(code, artifact, "/" + field)
    return ok


def exact_fraction(value: Any) -> Fraction | None:
    """The exact value of a recomputed figure: a Fraction, its ``{"exact": "p/q"}`` record, or its ``"p/q"`` text.

    Anything else (a float, a missing value, text that is not a fraction) is None: the caller treats it as not
    evaluated, never as zero.
    """
    if isinstance(value, dict):
        value = value.get("exact")
    if isinstance(value, str):
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError):
            return None
    return value if isinstance(value, Fraction) else None
