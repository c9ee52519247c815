"""The loader's hook-free fast path (``loader._plain_parse``) accepts exactly what the hooked parse accepts, with the
same value; whatever it does not accept is parsed again with the hooks, so problems are reported as before.

Each input is parsed twice: normally, and with the fast path switched off (the hooked parse alone). The outcomes
(value, or problem code, pointer, line and column) must be identical.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nerb_verify import loader
from nerb_verify.loader import BUNDLE_LIMITS, Limits, LoadFailure, parse_json_bytes

SMALL = Limits(max_depth=4, max_nodes=40, max_collection=6, max_string=12, max_total_string=60)


def _outcome(raw: bytes, limits: Limits) -> object:
    try:
        value = parse_json_bytes(raw, limits, "any")
    except LoadFailure as failure:
        p = failure.problem
        return ("problem", p.code, p.pointer, p.line, p.column, p.message)
    return ("value", json.dumps(value, sort_keys=True, allow_nan=True), _types(value))


def _types(value: object) -> object:
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}, list(value)
    if isinstance(value, list):
        return [_types(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return type(value).__name__, value


def _both(raw: bytes, limits: Limits, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    fast = _outcome(raw, limits)
    with monkeypatch.context() as patch:
        patch.setattr(loader, "_plain_parse", lambda *args: loader._NOT_PLAIN)
        hooked = _outcome(raw, limits)
    return fast, hooked


CASES = [
    b'{"a": 1, "b": {"c": 2, "c": 3}}',
    b'{"a": 1, "a": 1}',
    b'[{"x": 1}, {"y": 2, "y": 2}]',
    b'{"k:": "v:", "m": ":"}',
    b'{"q\\"": "\\":", "r": 1}',
    b'{"a": NaN}',
    b'{"a": -Infinity}',
    b'{"a": 1e400}',
    b'{"a": 1e300, "b": 1.5, "c": 10}',
    b'{"a": [1, 2, 3, 4, 5, 6, 7]}',
    b'{"a": "0123456789abcdef"}',
    b'{"a": "\\ud800"}',
    b'{"a": [1, 2}',
    b'[[[[[1]]]]]',
    b'{"a": 1} x',
    b'{"a": ' + b"9" * 5000 + b"}",
    b'{"\xc3\xa9": "\xe2\x82\xac:{"}',
    # Escape-free texts, parsed before any preflight: colons in keys and strings, repeated keys with them, depth and
    # node bounds at the limit (SMALL: depth 4, 40 values).
    b'{"a:": 1, "a:": 2}',
    b'{"a:b": ":", "c": [":", "::"], "d": {"a:b": 1}}',
    b'{"x": ":", "x": ":"}',
    b'[{"k:": 1}, {"k:": 2, "k:": 3}]',
    b'{":": {":": ":"}}',
    b'[[[1]]]',
    b'[[[[1]]]]',
    b'[[[[[]]]]]',
    b'{"a": {"b": {"c": {"d": {}}}}}',
    b'[' + b",".join([b"1"] * 39) + b']',
    b'[' + b",".join([b"1"] * 40) + b']',
    b'[' + b",".join([b"[]"] * 20) + b']',
    b'{"a" : 1, "a": 2}',
    b'{"a": 1}\n',
]


@pytest.mark.parametrize("raw", CASES)
def test_fast_path_matches_hooked_parse(raw: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    for limits in (SMALL, BUNDLE_LIMITS):
        fast, hooked = _both(raw, limits, monkeypatch)
        assert fast == hooked


_keys = st.sampled_from(["a", "b", "a:", ":", "{", '"', "é", "b:c:"])
_scalars = st.one_of(st.integers(-10**20, 10**20), st.floats(allow_nan=False, allow_infinity=False),
                     st.text(max_size=14), st.booleans(), st.none())
_values = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=7),
                                                         st.lists(st.tuples(_keys, inner), max_size=5)),
                       max_leaves=25)


def _text(value: object, ascii_only: bool = True) -> str:
    """JSON text; a list of pairs becomes an object written pair by pair, so keys may repeat. With ``ascii_only``
    False, non-ASCII characters are written raw (the texts without a backslash take the loader's first path)."""
    if isinstance(value, list) and value and all(isinstance(v, tuple) for v in value):
        return "{" + ",".join(json.dumps(k, ensure_ascii=ascii_only) + ":" + _text(v, ascii_only)
                              for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_text(v, ascii_only) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


@settings(max_examples=300, deadline=None)
@given(_values)
def test_fast_path_matches_hooked_parse_on_generated_json(value: object) -> None:
    for ascii_only in (True, False):
        raw = _text(value, ascii_only).encode("utf-8")
        with pytest.MonkeyPatch.context() as monkeypatch:
            for limits in (SMALL, BUNDLE_LIMITS):
                fast, hooked = _both(raw, limits, monkeypatch)
                assert fast == hooked


_list_items = st.one_of(st.integers(-10**310, 10**310), st.floats(), st.sampled_from([1e300, -1e300, 1e301, 1e308,
                                                                                    -1e308, 10**300, 10**300 + 1]),
                        st.booleans(), st.none(), st.text(max_size=3))


@settings(max_examples=500, deadline=None)
@given(st.lists(_list_items, min_size=1, max_size=12), st.sampled_from([1e300, 10.0, 1e308]))
def test_number_list_pass_equals_the_per_item_number_rule(values: list[object], bound: float) -> None:
    """The walk's C-level pass over a list (``loader._numbers_within``) says yes only when every item is an int or
    float (not a bool) within the bound, the rule the walk applies one item at a time (NaN and infinities fail), and
    says no to such a list only when its float sum overflows (the walk then visits the items one by one)."""
    per_item = all(type(v) in (int, float) and -bound <= v <= bound for v in values)  # type: ignore[operator]
    fast = loader._numbers_within(values, bound)
    if fast:
        assert per_item
    elif per_item:
        try:
            assert not math.isfinite(sum(values, 0.0))  # type: ignore[arg-type]
        except OverflowError:
            pass


@pytest.mark.parametrize("raw", [b'{"a": [1, 1e300, 2]}', b'{"a": [1, 1e301]}', b'{"a": [1.0, NaN]}',
                                 b'{"a": [1e300, 1e300, 1e300]}', b'{"a": [1e308, 1e308]}', b'{"a": [true, 2]}',
                                 b'{"a": [2, ' + b"9" * 301 + b"]}", b'{"a": [[1, -1e301], 2]}',
                                 b'[1, 2, 1e-300, -0.0, 5]'])
def test_number_lists_give_the_outcome_of_the_per_item_walk(raw: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """Accepted or refused with the same problem and pointer as when the walk visits every item itself."""
    for limits in (SMALL, BUNDLE_LIMITS):
        with_pass = _outcome(raw, limits)
        with monkeypatch.context() as patch:
            patch.setattr(loader, "_numbers_within", lambda values, bound: False)
            per_item = _outcome(raw, limits)
        assert with_pass == per_item


def _per_value_within_limits(data: object, limits: Limits, check_surrogates: bool) -> tuple[bool, int]:
    """The limits pass one value at a time (the rule ``loader._within_limits`` applies to whole levels): (accepted,
    number of object pairs)."""
    total = nodes = pairs = 0
    stack = [data]
    while stack:
        value = stack.pop()
        nodes += 1
        if type(value) is dict:
            pairs += len(value)
            if len(value) > limits.max_collection:
                return False, pairs
            for key, child in value.items():
                total += len(key)
                if len(key) > limits.max_string or (check_surrogates and loader._SURROGATE_CHAR.search(key)):
                    return False, pairs
                stack.append(child)
        elif type(value) is list:
            if len(value) > limits.max_collection:
                return False, pairs
            stack.extend(value)
        elif type(value) is str:
            total += len(value)
            if len(value) > limits.max_string or (check_surrogates and loader._SURROGATE_CHAR.search(value)):
                return False, pairs
        elif type(value) in (int, float) and not -limits.max_abs_number <= value <= limits.max_abs_number:
            return False, pairs
    return total <= limits.max_total_string and nodes <= limits.max_nodes, pairs


_numbers = st.one_of(st.integers(-10**310, 10**310), st.floats(),
                     st.sampled_from([1e300, -1e300, 1e301, 1e308, -1e308, 10**300, 10**300 + 1]))
_walk_scalars = st.one_of(_numbers, st.text(max_size=14), st.sampled_from(["\ud800", "a\udfff"]), st.booleans(),
                          st.none())
_walk_values = st.recursive(_walk_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=8), st.dictionaries(st.text(max_size=14), inner, max_size=8)), max_leaves=40)


@settings(max_examples=600, deadline=None)
@given(_walk_values, st.booleans(), st.sampled_from([SMALL, BUNDLE_LIMITS, Limits(max_abs_number=1e308)]))
def test_level_pass_equals_the_per_value_limits_rule(value: object, check_surrogates: bool, limits: Limits) -> None:
    """``loader._within_limits`` (level by level, C-level group passes) accepts exactly what the per-value rule
    accepts, and counts the same object pairs when it does (the fast path compares them with the key colons); given
    the length of a JSON text of the value (the loader passes its own), it may skip counting characters only where
    that cannot change the answer."""
    expected, pairs = _per_value_within_limits(value, limits, check_surrogates)
    for text in (None, json.dumps(value), json.dumps(value, ensure_ascii=False, separators=(",", ":"))):
        state = loader._ParseState(limits)
        accepted = loader._within_limits(value, state, check_surrogates, None if text is None else len(text))
        assert accepted == expected
        if accepted:
            assert state.pairs == pairs


@pytest.mark.parametrize("raw", [b'{"ab": "cd", "e": ["fgh", {"ab": "i"}]}', rb'{"\u0061\u0062": "\ud83d\ude00"}',
                                 b'["0123456789", "0123456789", "0123456789", "0123456789", "0123456789", "x"]'])
def test_total_string_limit_at_the_boundary(raw: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """The character total is decided exactly as before whether or not the text is short enough to skip it: the
    limit set to the document's own character total accepts, one less refuses, with the same outcome both ways."""
    value = json.loads(raw)
    chars = _string_chars(value)
    for limit in (chars - 1, chars, len(raw) - 1, len(raw)):
        limits = Limits(max_total_string=limit)
        fast, hooked = _both(raw, limits, monkeypatch)
        assert fast == hooked
        assert (fast[0] == "value") == (chars <= limit)


def _string_chars(value: object) -> int:
    if isinstance(value, dict):
        return sum(len(k) + _string_chars(v) for k, v in value.items())
    if isinstance(value, list):
        return sum(_string_chars(v) for v in value)
    return len(value) if isinstance(value, str) else 0


def test_escape_free_bundle_files_skip_the_preflight(monkeypatch: pytest.MonkeyPatch) -> None:
    """The vendored bundle's JSON has no backslash: every file parses before any preflight, to the same value."""
    from pathlib import Path

    bundle = Path(__file__).resolve().parent.parent / "fixtures" / "bundles" / "nerb-enron"
    raws = [path.read_bytes() for path in sorted(bundle.rglob("*.json"))]
    expected = [_outcome(raw, BUNDLE_LIMITS) for raw in raws]

    def no_preflight(*args: object) -> str:
        raise AssertionError("preflight run")

    monkeypatch.setattr(loader, "_preflight", no_preflight)
    assert [_outcome(raw, BUNDLE_LIMITS) for raw in raws] == expected
    assert all(outcome[0] == "value" for outcome in expected)


@pytest.mark.parametrize("raw", [b'{"a:b": ":", "c": [":", "::"], "d": {"a:b": 1, "x": "y:z"}}', b'{":": {":": ":"}}',
                                 b'[{"k:": 1}, {"k:": 2}, "::"]', b'{"a": [[[]]]}'])
def test_escape_free_texts_with_colons_in_keys_and_strings_skip_the_preflight(
        raw: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """Colons inside keys (counted once per object holding the key) and strings are told apart from the key colons
    without a preflight, so such a text is still accepted by the first parse."""
    expected = json.loads(raw)

    def no_preflight(*args: object) -> str:
        raise AssertionError("preflight run")

    monkeypatch.setattr(loader, "_preflight", no_preflight)
    assert parse_json_bytes(raw, SMALL, "any") == expected
