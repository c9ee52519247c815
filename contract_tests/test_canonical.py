"""Canonical hashing: NERB's Python-style canonical JSON reproduces the published hashes; RFC 8785 does not; both
are invariant to key order and whitespace."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from nerb_verify.canonical import (
    canonical_equal,
    jcs_sha256,
    nerb_pretty_bytes,
    python_canonical_bytes,
    python_canonical_sha256,
)
from nerb_verify.loader import parse_json_bytes


def load(bundle: Path, name: str) -> dict:
    return parse_json_bytes((bundle / name).read_bytes(), root="any")


def test_published_manifest_hash_is_python_canonical(real_bundle: Path) -> None:
    manifest = load(real_bundle, "benchmark-manifest.json")
    evidence = load(real_bundle, "benchmark-evidence.json")
    assert python_canonical_sha256(manifest) == evidence["manifest_sha256"]
    assert jcs_sha256(manifest) != evidence["manifest_sha256"]  # RFC 8785 writes 7200.0 as 7200


def test_integral_floats_keep_their_point() -> None:
    assert python_canonical_bytes({"b": 7200.0, "a": 1e-05, "c": 1e16, "d": 0.0}) == (
        b'{"a":1e-05,"b":7200.0,"c":1e+16,"d":0.0}'
    )
    assert python_canonical_bytes({"k": "\u00e9/\n"}) == '{"k":"\u00e9/\\n"}'.encode()


def test_files_are_nerb_pretty_form(real_bundle: Path) -> None:
    for name in ("benchmark-manifest.json", "benchmark-evidence.json", "publication.json", "bank-card.json"):
        raw = (real_bundle / name).read_bytes()
        assert nerb_pretty_bytes(json.loads(raw)) == raw


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=25,
)


def _shuffled(value: object, seed: int) -> object:
    if isinstance(value, dict):
        items = list(value.items())
        items = items[seed % (len(items) or 1):] + items[: seed % (len(items) or 1)]
        items.reverse()
        return {k: _shuffled(v, seed + 1) for k, v in items}
    if isinstance(value, list):
        return [_shuffled(v, seed + 1) for v in value]
    return value


@settings(max_examples=200, deadline=None)
@given(json_values, st.integers(0, 50), st.sampled_from([None, 1, 2, "\t"]))
def test_hash_invariant_to_key_order_and_whitespace(value: object, seed: int, indent: object) -> None:
    reordered = _shuffled(value, seed)
    reparsed = parse_json_bytes(json.dumps({"v": reordered}, indent=indent).encode(), root="any")["v"]
    assert python_canonical_sha256(reparsed) == python_canonical_sha256(value)
    assert jcs_sha256(reparsed) == jcs_sha256(value)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_pretty_form_is_the_standard_librarys_indented_form(value: object) -> None:
    """The fast writer is byte-identical to json.dumps(indent=2, sort_keys=True, ensure_ascii=False) plus a newline."""
    expected = (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n").encode()
    assert nerb_pretty_bytes(value) == expected


def test_pretty_form_matches_every_committed_json_file() -> None:
    """Every JSON file of the fixtures and the cases, re-serialised, equals the standard library's indented form."""
    repo = Path(__file__).resolve().parent.parent
    checked = 0
    for path in sorted([*(repo / "fixtures").rglob("*.json"), *(repo / "contract_tests").rglob("*.json")]):
        try:
            value = json.loads(path.read_bytes())
        except ValueError:
            continue
        assert nerb_pretty_bytes(value) == (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
                                            + "\n").encode(), path
        checked += 1
    assert checked > 1000


def test_pretty_form_refuses_what_json_refuses() -> None:
    for bad, error in ((float("nan"), ValueError), ({"a": [1, {"b": float("inf")}]}, ValueError),
                       ({"a": {1, 2}}, TypeError), ([object()], TypeError)):
        try:
            nerb_pretty_bytes(bad)
        except error:
            continue
        raise AssertionError(f"{bad!r} was written")


_json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.sampled_from([0, 1, 0.0, -0.0, 1.0,
                                                                                               True, False, 2**31]),
                          st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["", "a", "é", "1"]))
_json_values = st.recursive(_json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["a", "b", "1", "é"]), inner, max_size=4)),
    max_leaves=12)


def _reordered(value: object) -> object:
    """The same JSON value with every object's keys in reverse insertion order (same canonical bytes)."""
    if isinstance(value, dict):
        return {key: _reordered(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(item) for item in value]
    return value


@settings(max_examples=400, deadline=None)
@given(_json_values, _json_values)
def test_canonical_equal_is_equality_of_canonical_bytes(a: object, b: object) -> None:
    """The marshal fast path never says equal where the canonical bytes differ (1 / 1.0 / true, 0.0 / -0.0), and a
    copy, a reparse or a key reordering of a value is equal to it."""
    assert canonical_equal(a, b) == (python_canonical_bytes(a) == python_canonical_bytes(b))
    assert canonical_equal(a, json.loads(json.dumps(a)))
    assert canonical_equal(a, _reordered(a))


def test_canonical_equal_on_the_real_bundle_performance_sections(real_bundle: Path) -> None:
    evidence, report = load(real_bundle, "benchmark-evidence.json"), load(real_bundle, "performance-report.json")
    assert canonical_equal(evidence["performance"], report["performance"])
    edited = json.loads(json.dumps(report["performance"]))
    edited["workloads"][0]["samples_seconds"][0] = -0.0
    assert not canonical_equal(evidence["performance"], edited)
    assert not canonical_equal(1, 1.0) and not canonical_equal(True, 1) and not canonical_equal(0.0, -0.0)
    assert not canonical_equal({"a": 1}, {"a": 1, "b": None}) and not canonical_equal([1, 2], [2, 1])
