"""The two object-hashing schemes, named for what they are.

* :func:`python_canonical_sha256`: the scheme NERB's v2 artifacts use for every object hash. Python
  ``json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)`` encoded as UTF-8:
  keys sorted by code point, compact separators, non-ASCII raw, ints as digits and floats as Python's shortest
  ``repr`` (``7200.0``, ``1e-05``). It is *not* RFC 8785, which writes ``7200.0`` as ``7200``.
* :func:`jcs_sha256`: RFC 8785 (JSON Canonicalization Scheme), used only for hashes nerb-verify defines itself, such as
  the digest of its own JSON report.

File references hash raw bytes instead (:func:`nerb_verify.loader.sha256_prefixed`).
"""

from __future__ import annotations

import hashlib
import json
import marshal
from typing import Any


def python_canonical_bytes(value: Any) -> bytes:
    """The canonical UTF-8 bytes NERB hashes (see module docstring). Raises ValueError on NaN/Infinity."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False).encode(
        "utf-8"
    )


def canonical_equal(a: Any, b: Any) -> bool:
    """Whether two parsed JSON values have the same :func:`python_canonical_bytes` (type-strict: ``1``, ``1.0`` and
    ``true`` differ, and so do ``0.0`` and ``-0.0``); False when either cannot be canonicalised.

    Fast path: equal ``marshal`` version-2 bytes. That format is a faithful serialisation (a type tag per value,
    floats as their exact 8 bytes, every key and item in order, no back-references), so equal bytes mean the two
    values are the same typed tree, whose canonical bytes are then equal. Unequal bytes (keys in another order, an
    interned key string) prove nothing, and the canonical bytes decide. Values from :mod:`nerb_verify.loader` never
    hold NaN or infinity, which the canonical form refuses.
    """
    try:
        if marshal.dumps(a, 2) == marshal.dumps(b, 2):
            return True
    except ValueError:  # not a JSON value
        pass
    try:
        return python_canonical_bytes(a) == python_canonical_bytes(b)
    except (TypeError, ValueError):
        return False


def python_canonical_sha256(value: Any) -> str:
    """``sha256:`` + hex digest of :func:`python_canonical_bytes` (NERB's object hash)."""
    return "sha256:" + hashlib.sha256(python_canonical_bytes(value)).hexdigest()


def without_key(obj: dict[str, Any], key: str) -> dict[str, Any]:
    """A shallow copy of ``obj`` without ``key``: the form a self-hash (``*_sha256`` over the rest) is taken over."""
    return {k: v for k, v in obj.items() if k != key}


def self_hash(obj: dict[str, Any], key: str) -> str:
    """NERB self-hash: the canonical hash of the object minus its own hash field ``key``."""
    return python_canonical_sha256(without_key(obj, key))


def jcs_sha256(value: Any) -> str:
    """``sha256:`` + hex digest of the RFC 8785 canonical form; for hashes nerb-verify defines itself."""
    import rfc8785  # only the JSON report's own digest needs it, not a text verification

    return "sha256:" + hashlib.sha256(rfc8785.dumps(value)).hexdigest()


def nerb_pretty_bytes(value: Any) -> bytes:
    """The pretty form NERB writes its JSON artifacts in (indent 2, sorted keys, raw UTF-8, trailing newline).

    Byte for byte ``json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\\n"``, but
    written by :func:`_pretty` (the standard library falls back to its pure-Python encoder whenever ``indent`` is set,
    which made re-serialising a 4 MB evidence file cost ~90 ms). Used by the producers and the fixture tools to write
    an artifact exactly as the publisher would have. Raises ValueError on NaN/Infinity, TypeError on a non-JSON value.
    """
    parts: list[str] = []
    _pretty(value, "\n", parts)
    parts.append("\n")
    return "".join(parts).encode("utf-8")


_INDENT = "  "
_SCALAR_TYPES = frozenset((str, int, float, bool, type(None)))
# The C encoder, one level deep: it writes a container of scalars with any item separator, which is all one level of
# indented output needs. One encoder per indentation level, built once.
_ONE_LEVEL: dict[str, Any] = {}
_make_encoder = getattr(json.encoder, "c_make_encoder", None)


def _no_default(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _one_level(newline: str) -> Any:
    """A function from a scalar or a container of scalars to its JSON text, items separated by ``,`` + ``newline``."""
    encode = _ONE_LEVEL.get(newline)
    if encode is None:
        if _make_encoder is not None:
            c_encoder = _make_encoder(None, _no_default, json.encoder.encode_basestring,  # type: ignore[attr-defined]
                                      None, ": ", "," + newline, True, False, False)

            def encode(value: Any, _c: Any = c_encoder) -> str:
                return "".join(_c(value, 0))
        else:  # an interpreter without the C accelerator: same text, slower
            encode = json.JSONEncoder(ensure_ascii=False, sort_keys=True, allow_nan=False,
                                      separators=("," + newline, ": ")).encode
        _ONE_LEVEL[newline] = encode
    return encode


def _pretty(value: Any, newline: str, parts: list[str]) -> None:
    """Append the indented form of ``value``; ``newline`` is a line break plus the indentation of its own level."""
    if isinstance(value, dict):
        if not value:
            parts.append("{}")
            return
        inner = newline + _INDENT
        if _SCALAR_TYPES.issuperset(map(type, value.values())):
            parts.append("{" + inner + _one_level(inner)(value)[1:-1] + newline + "}")
            return
        parts.append("{")
        separator = inner
        for key in sorted(value):
            if not isinstance(key, str):
                raise TypeError("JSON object keys must be strings here")
            parts.append(separator + json.encoder.encode_basestring(key) + ": ")  # type: ignore[attr-defined]
            _pretty(value[key], inner, parts)
            separator = "," + inner
        parts.append(newline + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            parts.append("[]")
            return
        inner = newline + _INDENT
        if _SCALAR_TYPES.issuperset(map(type, value)):
            parts.append("[" + inner + _one_level(inner)(list(value))[1:-1] + newline + "]")
            return
        parts.append("[")
        separator = inner
        for item in value:
            parts.append(separator)
            _pretty(item, inner, parts)
            separator = "," + inner
        parts.append(newline + "]")
    else:
        parts.append(_one_level(newline)(value))
