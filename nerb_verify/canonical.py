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
from typing import Any

import rfc8785


def python_canonical_bytes(value: Any) -> bytes:
    """The canonical UTF-8 bytes NERB hashes (see module docstring). Raises ValueError on NaN/Infinity."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False).encode(
        "utf-8"
    )


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
    return "sha256:" + hashlib.sha256(rfc8785.dumps(value)).hexdigest()


def nerb_pretty_bytes(value: Any) -> bytes:
    """The pretty form NERB writes its JSON artifacts in (indent 2, sorted keys, raw UTF-8, trailing newline).

    Used by the fixture tools to re-serialise an edited artifact exactly as the publisher would have.
    """
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
