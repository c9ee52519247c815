"""Issues 16/17, differential: the JSON walk of :func:`json_scan.scan_json` (its fast loop over dicts whose keys are
all schema vocabulary that raises no code, the gate-target and array shortcuts) reports exactly what the walk it
replaced reports: the same findings (code, artifact, pointer, message), in the same order, the same count and the
same truncation, in every profile, with and without a pointer root.

The replaced walk is kept below, verbatim but for its name, as the reference (:func:`_reference_scan_json`). The
generated documents are built to hit what the fast loop caches or skips: many dicts of a few repeated key sets, one
dict where a key differs, keys outside the vocabulary (free-form and quantity-named), keys that raise a code,
identifier-length numbers under free-form, quantity and vocabulary keys, floats, booleans and nulls, nested
containers, promotion-gate targets (resolving, schema-word and path-like) and truncation at small limits. A second
property widens the vocabulary with a key that raises a code and a free-form-looking key, which no shipped schema
word does (``test_no_shipped_vocabulary_key_raises_a_code`` says so), so that case of the fast loop's key set is
exercised too.

Must-reject values are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nerb_verify import pointers
from nerb_verify.findings import Collector, Finding
from nerb_verify.privacy import json_scan, messages
from nerb_verify.privacy.engine import scan_string
from nerb_verify.privacy.joined import joined_findings
from nerb_verify.privacy.json_scan import (
    _LARGEST,
    _MAX_SPELLED,
    _SMALLEST,
    _TEXT_OR_CONTAINER,
    IDENTIFIER_NUMBER,
    _free_form,
    _identifier_length,
    _is_gate_target,
    spelled_text,
)
from nerb_verify.privacy.profiles import CONTRACT, PROFILES, Profile

_AT = chr(64)
_ADDRESS = "jane.roe" + _AT + "corp-mail" + ".org"
_HOME = "/ho" + "me/" + "jroe/notes"
_PHONE_NUMBER = int("713" + "555" + "0123")


def _reference_scan_json(document: Any, profile: Profile, collector: Collector, artifact: str,
                         pointer_root: Any = None, limit: int = messages.MAX_FINDINGS_PER_FILE) -> int:
    """``scan_json`` as it was before the fast loop (commit 074fb13), the reference of the differential tests, with
    the records view of arrays of objects and arrays (session 18) added the plain way: every element's strings are
    collected where the element is visited, and the views are joined after the walk."""
    state = {"added": 0}
    hits: list[tuple[str, str, messages.Label]] = []
    flag_numbers = profile.flag_numbers
    gate_targets = profile.permit_gate_targets and pointer_root is not None
    memo: dict[str, frozenset[str]] = {}
    memo_skipping_paths: dict[str, frozenset[str]] = {}

    def codes_of(text: str, skip_paths: bool = False) -> frozenset[str]:
        table = memo_skipping_paths if skip_paths else memo
        codes = table.get(text)
        if codes is None:
            codes = table[text] = scan_string(text, profile, skip_paths)
        return codes

    def scalar(value: Any, path: tuple[tuple[str | int, int], ...]) -> None:
        if isinstance(value, str):
            skip_paths = gate_targets and _is_gate_target(path, value, pointer_root)
            codes = codes_of(value, skip_paths)
            if codes:
                pointer = pointers.for_path(path)
                hits.extend((code, pointer, messages.VALUE) for code in sorted(codes))
        elif (flag_numbers and type(value) is int and _identifier_length(value) and _free_form(path)):
            hits.append((IDENTIFIER_NUMBER, pointers.for_path(path), messages.NUMBER))

    containers: list[tuple[tuple[tuple[str | int, int], ...], list[str]]] = []

    def joined(pieces: list[str], path: tuple[tuple[str | int, int], ...]) -> None:
        if len(pieces) >= 2:
            containers.append((path, pieces))

    elements: dict[tuple[tuple[str | int, int], ...], list[tuple[int, list[str]]]] = {}

    def element(strings: list[str], path: tuple[tuple[str | int, int], ...]) -> None:
        if path and isinstance(path[-1][0], int) and strings:
            elements.setdefault(path[:-1], []).append((path[-1][0], strings))

    def flush() -> bool:
        for code, pointer, where in hits:
            if state["added"] >= limit:
                collector.add(messages.TRUNCATED, artifact, "")
                return False
            messages.add(collector, code, artifact, pointer, where, profile.name)
            state["added"] += 1
        hits.clear()
        return True

    stack: list[tuple[Any, tuple[tuple[str | int, int], ...]]] = [(document, ())]
    if not isinstance(document, (dict, list)):
        scalar(document, ())
        flush()
        return state["added"]
    vocabulary = pointers.known_keys()
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            base: str | None = None
            pieces: list[str] = []
            values: list[str] = []
            gate_parent = gate_targets and len(path) == 3
            for position, (key, child) in enumerate(value.items()):
                if key not in vocabulary:
                    pieces.append(key)
                codes = memo.get(key)
                if codes is None:
                    codes = codes_of(key)
                if codes:
                    base = pointers.for_path(path) if base is None else base
                    hits.extend((code, f"{base}/@key:{position}", messages.KEY) for code in sorted(codes))
                if isinstance(child, str):
                    skip_paths = gate_parent and _is_gate_target(path + ((key, position),), child, pointer_root)
                    if not skip_paths:
                        pieces.append(child)
                        values.append(child)
                    codes = (memo_skipping_paths if skip_paths else memo).get(child)
                    if codes is None:
                        codes = codes_of(child, skip_paths)
                    if codes:
                        pointer = pointers.for_path(path + ((key, position),))
                        hits.extend((code, pointer, messages.VALUE) for code in sorted(codes))
                elif isinstance(child, (dict, list)):
                    stack.append((child, path + ((key, position),)))
                elif (flag_numbers and type(child) is int and _SMALLEST <= abs(child) < _LARGEST
                      and _free_form(path + ((key, position),))):
                    hits.append((IDENTIFIER_NUMBER, pointers.for_path(path + ((key, position),)), messages.NUMBER))
            joined(pieces, path)
            if len(values) != len(pieces):
                joined(values, path)
            element(values, path)
        else:
            kinds = set(map(type, value))
            if not kinds & _TEXT_OR_CONTAINER:
                spelled = spelled_text(value) if int in kinds and len(value) <= _MAX_SPELLED else None
                if spelled is not None:
                    codes = codes_of(spelled)
                    if codes:
                        hits.extend((code, pointers.for_path(path), messages.ARRAY) for code in sorted(codes))
                if flag_numbers and int in kinds and _free_form(path):
                    for index, item in enumerate(value):
                        if type(item) is int and _SMALLEST <= abs(item) < _LARGEST:
                            hits.append((IDENTIFIER_NUMBER, pointers.for_path(path + ((index, index),)),
                                         messages.NUMBER))
                if hits and not flush():
                    return state["added"]
                continue
            spelled = spelled_text(value)
            if spelled is not None:
                codes = codes_of(spelled)
                if codes:
                    pointer = pointers.for_path(path)
                    hits.extend((code, pointer, messages.ARRAY) for code in sorted(codes))
            simple = [index for index, item in enumerate(value)
                      if isinstance(item, str) or (flag_numbers and type(item) is int and _identifier_length(item))]
            for index in simple:
                scalar(value[index], path + ((index, index),))
            strings = [value[index] for index in simple if isinstance(value[index], str)]
            joined(strings, path)
            element(strings, path)
            for index in range(len(value) - 1, -1, -1):
                if isinstance(value[index], (dict, list)):
                    stack.append((value[index], path + ((index, index),)))
        if hits and not flush():
            return state["added"]
    containers.extend(((json_scan.RECORDS, path), pieces) for path, pieces in json_scan.records_views(elements))
    for path, codes in json_scan.without_element_codes(joined_findings(containers, profile)):
        hits.extend((code, pointers.for_path(path), messages.JOINED) for code in sorted(codes))
    flush()
    return state["added"]


def _both(document: Any, profile: Profile, pointer_root: Any, limit: int) -> tuple[tuple[int, list[Finding]], ...]:
    """(count, findings in order) of the walk under test and of the reference, on the same input."""
    results = []
    for scan in (json_scan.scan_json, _reference_scan_json):
        collector = Collector()
        count = scan(document, profile, collector, "x.json", pointer_root=pointer_root, limit=limit)
        results.append((count, list(collector.findings)))
    return tuple(results)


# Keys: schema vocabulary (gate parts among them), quantity-named keys outside it (numbers there are typed),
# free-form keys outside it (identifier-length numbers there are flagged), keys that raise a code.
_VOCABULARY_KEYS = ["id", "category", "operator", "actual", "threshold", "passed", "target", "kind", "sequence",
                    "completed_records", "wall_elapsed_ns", "sample_kind", "promotion", "checks", "quality",
                    "description", "name", "value"]
_QUANTITY_KEYS = ["widget_ns", "row_count", "part_bytes"]
_FREE_KEYS = ["note", "free_text", "comment"]
_FLAGGED_KEYS = [_ADDRESS, _HOME]
_KEYS = _VOCABULARY_KEYS + _QUANTITY_KEYS + _FREE_KEYS + _FLAGGED_KEYS

_STRINGS = ["ok", "gate", "direct_bank_scan_harness", "sha256:" + "ab12" * 8, "2026-07-15T09:26:30Z", "jane.roe",
            _AT + "corp-mail.org", _ADDRESS, _HOME, "713", "555-0123", "219-09-", "9999", "-I/usr/include",
            "/promotion/checks/0/id", "/quality/slices/0/metrics/precision", "/promotion/checks/9/target",
            "/quality/" + "ho" + "me", "/privacy/0", "j", "a"]
_NUMBERS = st.one_of(st.integers(min_value=-5, max_value=10**5),
                     st.integers(min_value=_SMALLEST - 2, max_value=_SMALLEST + 2),
                     st.integers(min_value=_LARGEST - 2, max_value=_LARGEST + 2),
                     st.sampled_from([_PHONE_NUMBER, -_PHONE_NUMBER, 106, 97, 110, 101, 64]))
_SCALARS = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False, width=32),
                     _NUMBERS, st.sampled_from(_STRINGS))
_NESTED = st.recursive(_SCALARS, lambda children: st.one_of(
    st.lists(children, max_size=8), st.dictionaries(st.sampled_from(_KEYS), children, max_size=4)), max_leaves=12)


@st.composite
def _repeated_shapes(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Dicts of a few key lists, each repeated, with fresh values per dict; now and then one dict with one key
    swapped for another (the same length, a different key set)."""
    shapes = draw(st.lists(st.lists(st.sampled_from(_KEYS), min_size=1, max_size=6, unique=True), min_size=1,
                           max_size=3))
    dicts = []
    for _ in range(draw(st.integers(min_value=1, max_value=8))):
        keys = list(draw(st.sampled_from(shapes)))
        if draw(st.integers(min_value=0, max_value=4)) == 0:
            swapped = draw(st.sampled_from(_KEYS))
            if swapped not in keys:
                keys[draw(st.integers(min_value=0, max_value=len(keys) - 1))] = swapped
        dicts.append({key: draw(st.one_of(_SCALARS, _NESTED) if draw(st.booleans()) else _SCALARS)
                      for key in keys})
    return dicts


@st.composite
def _documents(draw: st.DrawFn) -> Any:
    """A document around repeated-shape dicts: a bare list of them, a promotion block whose checks they are (so
    their ``target`` values are gate targets), or an object holding them next to other values."""
    dicts = draw(_repeated_shapes())
    layout = draw(st.sampled_from(["list", "promotion", "object", "nested"]))
    if layout == "list":
        return dicts
    if layout == "promotion":
        return {"promotion": {"checks": dicts}, "quality": draw(_NESTED)}
    if layout == "object":
        return {draw(st.sampled_from(_KEYS)): dicts, "note": draw(_SCALARS), "comment": draw(_NESTED)}
    return [draw(_NESTED), {"free_text": dicts}, dicts]


SETTINGS = settings(max_examples=250, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
_LIMITS = st.sampled_from([0, 1, 2, 3, 5, messages.MAX_FINDINGS_PER_FILE])


@SETTINGS
@given(_documents(), st.sampled_from(sorted(PROFILES)), st.booleans(), _LIMITS)
def test_walk_equals_the_replaced_walk(document: Any, profile_name: str, rooted: bool, limit: int) -> None:
    profile = PROFILES[profile_name]
    for each in (limit, messages.MAX_FINDINGS_PER_FILE):  # a small limit truncates, the default shows everything
        ours, reference = _both(document, profile, document if rooted else None, each)
        assert ours == reference


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_documents(), st.booleans(), _LIMITS)
def test_walk_equals_the_replaced_walk_with_flagged_vocabulary(document: Any, rooted: bool, limit: int) -> None:
    # A vocabulary that holds a key raising a code and a free-form-looking key: the first must never take the fast
    # loop (its key finding), the second may (a vocabulary key is never free-form, so no number under it is flagged).
    vocabulary = pointers.known_keys() | {_ADDRESS, "note"}
    with mock.patch.object(pointers, "known_keys", lambda: vocabulary):
        for each in (limit, messages.MAX_FINDINGS_PER_FILE):
            ours, reference = _both(document, CONTRACT, document if rooted else None, each)
            assert ours == reference


def _codes(document: Any, pointer_root: Any = None, limit: int = messages.MAX_FINDINGS_PER_FILE) -> list[tuple]:
    ours, reference = _both(document, CONTRACT, pointer_root, limit)
    assert ours == reference
    return [(finding.code, finding.pointer) for finding in ours[1]]


def test_a_key_that_differs_in_one_dict_of_a_repeated_shape_is_scanned() -> None:
    # Nine dicts of one key set take the fast loop; the tenth has the same length but a free-form key in the
    # middle: its identifier-length number and its key's place in the joined view must still be found.
    rows: list[dict[str, Any]] = [{"kind": "a", "sequence": n, "wall_elapsed_ns": _PHONE_NUMBER} for n in range(9)]
    rows.append({"kind": "a", "note": _PHONE_NUMBER, "wall_elapsed_ns": _PHONE_NUMBER})
    assert _codes(rows) == [(IDENTIFIER_NUMBER, "/9/@key:1")]


def test_a_flagged_key_after_plain_dicts_is_reported_by_position() -> None:
    rows: list[dict[str, Any]] = [{"id": "a", "kind": "b"}, {"id": "c", "kind": "d"}, {"id": "e", _ADDRESS: "f"}]
    assert ("privacy.email", "/2/@key:1") in _codes(rows)


def test_a_split_address_across_values_of_plain_dicts_is_found_joined() -> None:
    # The fast loop's dicts still feed the joined views: their string values, in order (no key is a piece).
    rows: list[dict[str, Any]] = [{"id": "x", "kind": 3, "name": "y"} for _ in range(3)]
    rows.append({"id": "jane.roe", "kind": 3, "name": _AT + "corp-mail.org"})
    assert _codes(rows) == [("privacy.at_sign", "/3/name"), ("privacy.email", "/3")]


def test_numbers_under_quantity_and_vocabulary_keys_are_typed_and_under_free_form_keys_flagged() -> None:
    row = {"sequence": _PHONE_NUMBER, "row_count": _PHONE_NUMBER, "free_text": _PHONE_NUMBER,
           "comment": [_PHONE_NUMBER, 3], "wall_elapsed_ns": [_PHONE_NUMBER]}
    assert sorted(_codes([row, dict(row)])) == [(IDENTIFIER_NUMBER, f"/{n}/{where}") for n in (0, 1)
                                                 for where in ("@key:2", "@key:3/0")]


def test_gate_targets_skip_the_path_rules_in_the_fast_loop_only_where_they_resolve_or_are_schema_words() -> None:
    checks = [{"id": "a", "target": "/promotion/checks/0/id"},  # resolves
              {"id": "b", "target": "/quality/slices/9/metrics"},  # schema words and an index: a pointer
              {"id": "c", "target": "/quality/" + "ho" + "me"},  # neither: a path
              {"id": "d", "target": _HOME}]
    document = {"promotion": {"checks": checks}}
    found = _codes(document, pointer_root=document)
    assert found == [("privacy.local_path", "/promotion/checks/2/target"),
                     ("privacy.personal_path", "/promotion/checks/3/target")]
    # without a pointer root (or one level deeper) a target is an ordinary string
    assert ("privacy.local_path", "/promotion/checks/1/target") in _codes(document)
    deeper = {"promotion": {"checks": [{"x": checks}]}}
    assert ("privacy.local_path", "/promotion/checks/0/@key:0/1/target") in _codes(deeper, pointer_root=deeper)


def test_truncation_at_the_limit_is_the_same() -> None:
    rows = [{"note": _PHONE_NUMBER, "id": _ADDRESS} for _ in range(6)]
    for limit in (0, 1, 4, 11, 12, 13):
        found = _codes(rows, limit=limit)
        assert len(found) == min(limit, 12) + (limit < 12)
        assert (found[-1][0] == messages.TRUNCATED) == (limit < 12)


def test_walk_equals_the_replaced_walk_on_every_json_file_of_the_repository() -> None:
    # The real bundles, the broken fixtures' cases and the attack simulator's cases (about 1,200 documents, some
    # 2,000 findings), in every profile, with the document as its own pointer root and without one.
    root = Path(__file__).resolve().parent.parent
    documents = 0
    findings = 0
    for path in sorted(p for folder in ("fixtures", "contract_tests") for p in (root / folder).rglob("*.json")):
        try:
            document = json.loads(path.read_bytes())
        except ValueError:
            continue
        documents += 1
        for profile in PROFILES.values():
            for pointer_root in (None, document):
                ours, reference = _both(document, profile, pointer_root, messages.MAX_FINDINGS_PER_FILE)
                assert ours == reference, (path.relative_to(root).as_posix(), profile.name)
                findings += reference[0]
    assert documents > 100 and findings > 100  # the comparison saw real documents and real findings


def test_no_shipped_vocabulary_key_raises_a_code() -> None:
    # Why the widened-vocabulary property above exists: with the shipped schemas the fast loop's key set could not
    # meet a vocabulary key that raises a code.
    for profile in PROFILES.values():
        assert not [key for key in pointers.known_keys() if scan_string(key, profile)], profile.name
