"""A small bounded, content-addressed memo for per-file stages that are pure functions of the file's raw bytes.

A long-lived process (the test suite verifying ~400 broken copies of one bundle, ``scan --bundles``, the Action
verifying several bundles) sees the same file bytes again and again. A stage whose result depends only on (raw
bytes, stage parameters, code version) can be computed once: the schema error list of a file against one schema
variant, or the privacy findings of one file under one profile.

Rules that keep this safe:

* The key is the SHA-256 of the file's raw bytes (``LoadedFile.sha256``, computed once when the file was read) plus
  every parameter the stage reads (schema file name and opaque sections; profile, artifact name and, where the
  stage reads it, the evidence's hash). A stage over names rather than bytes (the privacy scan of the bundle's
  entry names, the decision on which path components are personal data) is keyed by the names themselves. The code
  version is fixed within a process, and the memo lives only in memory, so no entry outlives the code that
  computed it.
* Values are immutable (tuples of immutable records: :class:`~nerb_verify.schema_validation.SchemaError`,
  :class:`~nerb_verify.findings.Finding`). A parsed document is never stored: every verification parses its own
  copy, so no run can see another run's mutations.
* Bounded LRU (:data:`MAX_ENTRIES` entries); ``NERB_VERIFY_MEMO=off`` disables it, :func:`clear` empties it.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")

MAX_ENTRIES = 64

_entries: OrderedDict[Hashable, object] = OrderedDict()
_stats = {"hits": 0, "misses": 0}


def enabled() -> bool:
    """Whether memoisation is on (it is unless ``NERB_VERIFY_MEMO=off``)."""
    return os.environ.get("NERB_VERIFY_MEMO") != "off"


def cached(key: tuple[Hashable, ...], compute: Callable[[], T]) -> T:
    """Return the value memoised under ``key``, or ``compute()`` it, remember it (evicting the least recently used
    entry beyond :data:`MAX_ENTRIES`) and return it. ``compute`` must return an immutable value that is a pure
    function of ``key``; a key must not contain an empty hash (a file that could not be read)."""
    if not enabled():
        return compute()
    if key in _entries:
        _entries.move_to_end(key)
        _stats["hits"] += 1
        return _entries[key]  # type: ignore[return-value]
    _stats["misses"] += 1
    value = compute()
    _entries[key] = value
    while len(_entries) > MAX_ENTRIES:
        _entries.popitem(last=False)
    return value


def contains(key: tuple[Hashable, ...]) -> bool:
    """Whether a value is memoised under ``key`` (without counting a hit or refreshing its place)."""
    return enabled() and key in _entries


def store(key: tuple[Hashable, ...], value: object) -> None:
    """Remember ``value`` under ``key``, as :func:`cached` would after computing it: for a value computed elsewhere
    from the same pure function (:mod:`nerb_verify.prefork`'s child process). Same bound, same eviction."""
    if not enabled():
        return
    _entries[key] = value
    _entries.move_to_end(key)
    while len(_entries) > MAX_ENTRIES:
        _entries.popitem(last=False)


def clear() -> None:
    """Forget every memoised value (and reset the hit and miss counts)."""
    _entries.clear()
    _stats["hits"] = 0
    _stats["misses"] = 0


def stats() -> dict[str, int]:
    """Hits, misses and current size, for tests and benchmarks."""
    return {"hits": _stats["hits"], "misses": _stats["misses"], "entries": len(_entries)}
