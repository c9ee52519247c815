"""Issue 17, class 1 (split structures), session 18: the records view of a JSON array of objects or arrays.

A reader reads the rows of a table one after another: ``[{"user": "jane.roe"}, {"user": "@host.org"}]`` shows the
address. Each object or array element of an array contributes its strings (an object's string values, an array's
strings) to the array's *records view*, element after element; what that view raises that no string and no
element's own joined view raises is reported once, at the array's pointer. The streamed reader (files over 32 MiB)
feeds the same view as it reads, held or windowed, and reports the same findings.

Must-reject values are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nerb_verify import pointers
from nerb_verify.findings import Collector
from nerb_verify.privacy import json_scan, json_stream
from nerb_verify.privacy.json_scan import record_groups, records_views, scan_json, without_element_codes
from nerb_verify.privacy.profiles import CONTRACT, REPOSITORY, Profile

AT = chr(64)
LOCAL, HOST = "jane." + "roe", "corp-" + "mail.org"
_B64 = base64.b64encode((LOCAL + AT + HOST).encode()).decode()
ROWS = pointers.for_path((("rows", 0),))


def _memory(document: object, profile: Profile = REPOSITORY) -> list[tuple[str, str, str]]:
    collector = Collector()
    scan_json(document, profile, collector, "x.json", pointer_root=document)
    return [(f.code, f.pointer, f.message) for f in collector.sorted_findings()]


def _pieces(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start:start + size]


def _streamed(document: object, profile: Profile = REPOSITORY, window: int = 7) -> list[tuple[str, str, str]]:
    collector = Collector()
    problem = json_stream.scan_json_stream(_pieces(json.dumps(document), window), profile, collector, "x.json")
    assert problem is None
    return [(f.code, f.pointer, f.message) for f in collector.sorted_findings()]


SPLIT = [
    ("address-over-two-objects", {"rows": [{"value": LOCAL}, {"value": AT + HOST}]}, "privacy.email", REPOSITORY),
    ("address-over-objects-with-numbers", {"rows": [{"id": 1, "value": LOCAL}, {"id": 2, "value": AT + HOST}]},
     "privacy.email", REPOSITORY),
    ("address-over-arrays", {"rows": [["a", LOCAL], [AT + HOST, "b"]]}, "privacy.email", REPOSITORY),
    ("address-over-an-array-and-an-object", {"rows": [[LOCAL], {"value": AT + HOST}]}, "privacy.email", REPOSITORY),
    ("address-over-three-rows", {"rows": [{"value": "jane"}, {"value": ".roe" + AT}, {"value": HOST}]},
     "privacy.email", REPOSITORY),
    ("phone-over-two-objects", {"rows": [{"note": "(713) 555"}, {"note": "-2368"}]}, "privacy.phone", CONTRACT),
    ("phone-over-three-objects", {"rows": [{"v": "+44"}, {"v": "7911"}, {"v": "123456"}]}, "privacy.phone",
     CONTRACT),
    ("ssn-over-objects", {"rows": [{"v": "219"}, {"v": "09"}, {"v": "9999"}]}, "privacy.ssn", CONTRACT),
    ("home-over-objects", {"rows": [{"p": "/ho"}, {"p": "me/"}, {"p": "jroe"}]}, "privacy.personal_path",
     REPOSITORY),
    ("base64-halves-over-objects", {"rows": [{"blob": _B64[:20]}, {"blob": _B64[20:]}]}, "privacy.email",
     REPOSITORY),
]


@pytest.mark.parametrize("name,document,code,profile", SPLIT, ids=[row[0] for row in SPLIT])
def test_a_split_over_the_elements_of_an_array_is_found_at_the_array(name: str, document: dict, code: str,
                                                                      profile: Profile) -> None:
    found = _memory(document, profile)
    joined = [(c, p) for c, p, message in found if "Adjacent strings" in message]
    assert joined == [(code, ROWS)], found
    dumped = json.dumps(found)
    for value in (LOCAL, HOST, "7911", "2368", "jroe", "9999", _B64[:20]):
        assert value not in dumped
    assert _streamed(document, profile) == found


ACCEPT = [
    {"rows": [{"name": "alpha", "version": "1.2.3"}, {"name": "beta", "version": "2.0.0"}]},
    {"rows": [{"date": "2026-03-14", "time": "10:15"}, {"date": "2026-03-15", "time": "11:20"}]},
    {"rows": [{"port": "8080"}, {"port": "8443"}, {"port": "9090"}]},
    {"rows": [{"id": "case-001", "label": "ORG"}, {"id": "case-002", "label": "PERSON"}]},
    {"rows": [{"value": "fixture" + AT + "example.invalid"}, {"value": "Draft contact."}]},
    {"rows": [{"path": "src/app.py"}, {"path": "docs/index.md"}, {"path": "tests/test_app.py"}]},
    {"rows": [{"sha": "0123456789abcdef" * 4}, {"sha": "fedcba9876543210" * 4}]},
    {"rows": [["alpha", "beta"], ["gamma", "delta"]], "kind": "literal"},
    {"rows": [{"ratio": "142"}, {"ratio": "1,393"}, {"ratio": "0.953"}]},
]


@pytest.mark.parametrize("document", ACCEPT)
def test_ordinary_tables_are_not_joined_into_findings(document: dict) -> None:
    assert _memory(document, REPOSITORY) == []
    assert _streamed(document, REPOSITORY) == []


def test_a_split_inside_one_element_is_reported_at_the_element_only() -> None:
    # The element's own sibling-values view raises the address: the records view of the array does not repeat it.
    document = {"rows": [{"a": LOCAL, "b": AT + HOST}, {"a": "x", "b": "y"}]}
    found = _memory(document)
    assert {(c, p) for c, p, _m in found} == {("privacy.email", pointers.for_path((("rows", 0), (0, 0))))}
    assert _streamed(document) == found


def test_only_direct_elements_are_rows() -> None:
    # An object nested inside an element is a child of that element, not a row of the outer array: the split is the
    # element's records view (the inner array), reported there.
    document = {"rows": [{"inner": [{"value": LOCAL}, {"value": AT + HOST}]}, {"value": "x"}]}
    inner = pointers.for_path((("rows", 0), (0, 0), ("inner", 0)))
    assert [(c, p) for c, p, _m in _memory(document)] == [("privacy.email", inner)]
    assert _streamed(document) == _memory(document)


@pytest.mark.parametrize("at", [0, 150, 399, 700, 1198])
def test_a_long_table_is_read_in_groups_and_streamed_alike(at: int) -> None:
    # 1,200 rows, about 60 KB of records view: cut into groups of about 8 KiB; a split anywhere is found, in memory
    # and streamed (the streamed reader cuts the same groups as it reads).
    rows = [{"value": f"word{index}", "id": f"case-{index:04d}"} for index in range(1200)]
    rows[at] = {"value": LOCAL}
    rows[at + 1] = {"value": AT + HOST}
    document = {"rows": rows}
    found = _memory(document)
    assert [(c, p) for c, p, _m in found] == [("privacy.email", ROWS)]
    assert _streamed(document, window=4099) == found
    assert _memory({"rows": rows[:at] + rows[at + 2:]}) == []


def test_a_split_across_a_group_cut_is_found() -> None:
    # Rows sized so that the address's two halves fall on both sides of every possible group cut nearby.
    for width in range(20, 60, 7):
        rows = [{"value": "w" * width} for _ in range(400)]
        for at in range(100, 400, 37):
            table = list(rows)
            table[at], table[at + 1] = {"value": LOCAL}, {"value": AT + HOST}
            found = _memory({"rows": table})
            assert [(c, p) for c, p, _m in found] == [("privacy.email", ROWS)], (width, at)


_piece_lists = st.lists(st.text(alphabet="ab", min_size=0, max_size=40), min_size=0, max_size=80)


@settings(max_examples=300, deadline=None)
@given(pieces=_piece_lists, chunk=st.integers(8, 120), overlap=st.integers(1, 40))
def test_every_short_run_of_pieces_lies_whole_in_one_group(pieces: list[str], chunk: int, overlap: int) -> None:
    """The guarantee of :class:`RecordGroups`, at small sizes: every run of adjacent pieces whose joined text is at
    most OVERLAP characters lies whole in one group; groups hold two pieces or more, keep the pieces' order, and
    each overlaps the one before without repeating it."""
    overlap = min(overlap, chunk // 2)
    with mock.patch.object(json_scan, "CHUNK", chunk), mock.patch.object(json_scan, "OVERLAP", overlap):
        groups = record_groups(pieces)
    spans: list[tuple[int, int]] = []
    position = 0
    for group in groups:
        # each group is a run of the input, found at or after the previous group's start, and ends further on
        start = next(i for i in range(position, len(pieces)) if pieces[i:i + len(group)] == group)
        end = start + len(group)
        assert not spans or (spans[-1][0] < start < spans[-1][1] < end)  # overlapping, never a repeat
        assert len(group) >= 2
        spans.append((start, end))
        position = start + 1
    if len(pieces) >= 2:
        assert groups, pieces
        assert spans[0][0] == 0 and spans[-1][1] == len(pieces)
    for first in range(len(pieces)):
        for last in range(first + 2, len(pieces) + 1):
            if len(" ".join(pieces[first:last])) > overlap:
                break
            assert any(start <= first and last <= end for start, end in spans), (first, last, spans)


def test_records_views_join_elements_in_index_order_and_need_two_rows() -> None:
    path = (("rows", 0),)
    elements = {path: [(1, ["b", "c"]), (0, ["a"])], (("one", 0),): [(0, ["x", "y"])]}
    assert records_views(elements) == [(path, ["a", "b", "c"])]


def test_records_codes_leave_out_what_an_element_reports() -> None:
    rows = (("rows", 0),)
    element = rows + ((0, 0),)
    found = [(element, {"privacy.email"}), (("records", rows), {"privacy.email", "privacy.phone"})]
    assert without_element_codes(found) == [(element, {"privacy.email"}), (rows, {"privacy.phone"})]
    assert without_element_codes([(("records", rows), {"privacy.email"}), (element, {"privacy.email"})]) == [
        (element, {"privacy.email"})]
