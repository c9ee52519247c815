"""Contract- or repository-profile scan of a parsed JSON value: every string value and every object key, every array
that spells text one element at a time (character codes, single characters), plus (in the contract profile) integers
of identifier length in free-form fields; then the joined views (``joined.py``) of every container, and of every
array of objects or arrays its records view (the elements' strings, element after element: :func:`records_views`).

Pointers are built by :func:`nerb_verify.pointers.for_path`: list indices, keys of our shipped schema vocabulary, and
``@key:<position>`` for every other key, so no input key is ever printed. A flagged key is always reported by
position. Promotion-gate targets (``/promotion/checks/<n>/target``) that are valid JSON pointers resolving into the
evidence skip the path rules, which is the one place evidence legitimately stores a slash-rooted string.
"""

from __future__ import annotations

from typing import Any

from nerb_verify import pointers
from nerb_verify.codes import register
from nerb_verify.findings import Collector
from nerb_verify.privacy import messages
from nerb_verify.privacy.engine import scan_string
from nerb_verify.privacy.joined import CHUNK, OVERLAP, joined_findings
from nerb_verify.privacy.lazy import LazyPattern
from nerb_verify.privacy.profiles import Profile

IDENTIFIER_NUMBER = register(
    "privacy.identifier_number", "A free-form JSON number has the length of a phone number or SSN.",
    "In the contract profile an integer of 9 to 15 digits is treated as a possible SSN or phone number stored as a "
    "number, unless its field is typed: a key from the schema vocabulary, or a name that states a unit or a count "
    "(..._ns, ..._bytes, ..._seconds, ..._records, ..._count and similar).")

_QUANTITY_KEY = LazyPattern(
    r"(?:^|_)(?:ns|us|ms|seconds|bytes|records|rows|count|counts|units|documents|patterns|entities|spans|aliases"
    r"|names|items|size|total|actual|threshold|numerator|denominator|index|offset|id)$")


def _free_form(path: tuple[tuple[str | int, int], ...]) -> bool:
    """A number is in a free-form field unless its nearest key is schema vocabulary or names a unit or count."""
    for item, _position in reversed(path):
        if isinstance(item, str):
            return item not in pointers.known_keys() and _QUANTITY_KEY.search(item) is None
    return True


def _is_gate_target(path: tuple[tuple[str | int, int], ...], value: str, pointer_root: Any) -> bool:
    if len(path) != 4 or pointer_root is None:
        return False
    (first, _), (second, _), (index, _), (last, _) = path
    if (first, second, last) != ("promotion", "checks", "target") or not isinstance(index, int):
        return False
    found, _target = pointers.resolve(pointer_root, value)
    if found and value.startswith("/"):
        return True
    # A target that does not resolve (say, into an emptied slice list) is still a pointer, not a path, when it is
    # built only from gate categories, schema words and indices; the gate family reports it as unresolved.
    return _schema_word_pointer(value)


_GATE_ROOTS = frozenset({"quality", "catalog_conformance", "performance", "privacy", "software", "splits", "bank",
                         "source", "preparation"})


def _schema_word_pointer(value: str) -> bool:
    parts = value.split("/")
    if len(parts) < 3 or parts[0] != "" or parts[1] not in _GATE_ROOTS:
        return False
    words = pointers.known_keys()
    return all(part in words or (part.isascii() and part.isdigit()) for part in parts[1:])


# An array can spell a string one element at a time: character codes ([106, 97, ...]) or one- or two-character
# strings (["j", "a", ...]). Such an array of 6 to 4,096 elements is also scanned as the text it spells.
_MIN_SPELLED = 6
_MAX_SPELLED = 4096


def spelled_text(items: list[Any]) -> str | None:
    """The text an array spells when every element is a character code (9 to 0xFFFF, not a surrogate) or every
    element is a string of at most two characters; None otherwise."""
    if not _MIN_SPELLED <= len(items) <= _MAX_SPELLED:
        return None
    if all(type(item) is int and 9 <= item <= 0xFFFF and not 0xD800 <= item <= 0xDFFF for item in items):
        return "".join(map(chr, items))
    if all(isinstance(item, str) and len(item) <= 2 for item in items):
        return "".join(items)
    return None


# Element types that make an array more than a list of numbers: it then takes the general path.
_TEXT_OR_CONTAINER = frozenset({str, dict, list})
_CONTAINER = frozenset({dict, list})

_SMALLEST = 10**8  # 9 digits
_LARGEST = 10**15  # 16 digits


def _identifier_length(value: int) -> bool:
    return _SMALLEST <= abs(value) < _LARGEST


def scan_json(document: Any, profile: Profile, collector: Collector, artifact: str,
              pointer_root: Any = None, limit: int = messages.MAX_FINDINGS_PER_FILE) -> int:
    """Scan every key and string of ``document`` (and identifier-length numbers in the contract profile); add one
    finding per (place, code) to ``collector``. ``pointer_root`` is the evidence document that gate targets must
    resolve into. Returns the number of findings added (at most ``limit``, then one truncation warning).

    Containers are walked with an explicit stack (no recursion); scalars inside a container are handled in place,
    so the real bundle's long arrays of integer samples cost one type test per element. An object whose keys are
    all schema vocabulary that raises no code (nearly every object of the real bundle) takes a loop that looks at its
    values only, and its numbers and floats cost one type test each (see ``plain`` below for why that is exact).
    """
    state = {"added": 0}
    hits: list[tuple[str, str, messages.Label]] = []
    flag_numbers = profile.flag_numbers
    gate_targets = profile.permit_gate_targets and pointer_root is not None
    # Per-scan memo of string results, one table with the path rules and one without (evidence repeats the same
    # keys and values many times; a dict lookup is cheaper than the engine's shared cache).
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

    containers: list[tuple[Any, list[str]]] = []
    # The string values of every object and the strings of every array that is an element of an array, by the
    # array's path (the records view, :func:`records_views`).
    elements: dict[_Path, list[tuple[int, list[str]]]] = {}

    def joined(pieces: list[str], path: tuple[tuple[str | int, int], ...]) -> None:
        if len(pieces) >= 2:
            containers.append((path, pieces))

    def element(strings: list[str], path: tuple[tuple[str | int, int], ...]) -> None:
        if path and type(path[-1][0]) is int and strings:
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
    # Keys seen in this scan that are schema vocabulary and raise no code. A dict whose every key is one of them
    # (nearly every dict of a real bundle) takes the fast loop below, which touches only its values: such a key
    # adds no key finding (no code), is no piece of the joined views (vocabulary), and no number under it is
    # flagged, because ``_free_form`` of a path that ends in a key decides on that key alone (its loop returns at
    # the first string it meets from the end, the key itself) and a vocabulary key is never free-form. The set is
    # a property of each key, not of a dict's shape or key order, so it is filled by the general loop as it goes.
    plain: set[str] = set()
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            # Only a value at /promotion/checks/<n>/target can be a gate target (``_is_gate_target``).
            gate_parent = (gate_targets and len(path) == 3 and path[0][0] == "promotion" and path[1][0] == "checks"
                           and type(path[2][0]) is int)
            if value.keys() <= plain:
                values: list[str] = []  # string values, in order: every piece of the joined view (no key is one)
                position = -1  # (a counter is cheaper than enumerate's tuples here)
                for key, child in value.items():
                    position += 1
                    kind = type(child)
                    if kind is int or kind is float:  # never flagged under a vocabulary key (see above)
                        continue
                    if isinstance(child, str):
                        if gate_parent and key == "target" and _is_gate_target(
                                path + ((key, position),), child, pointer_root):
                            codes = memo_skipping_paths.get(child)
                            if codes is None:
                                codes = codes_of(child, True)
                        else:
                            values.append(child)
                            codes = memo.get(child)
                            if codes is None:
                                codes = codes_of(child)
                        if codes:
                            pointer = pointers.for_path(path + ((key, position),))
                            hits.extend((code, pointer, messages.VALUE) for code in sorted(codes))
                    elif isinstance(child, (dict, list)):
                        stack.append((child, path + ((key, position),)))
                if len(values) >= 2:
                    containers.append((path, values))
                element(values, path)
            else:
                base: str | None = None
                pieces: list[str] = []  # unknown keys and string values, in order
                values = []  # string values only (sibling values)
                for position, (key, child) in enumerate(value.items()):
                    codes = memo.get(key)
                    if codes is None:
                        codes = codes_of(key)
                    if key not in vocabulary:
                        pieces.append(key)
                    elif not codes:
                        plain.add(key)
                    if codes:
                        base = pointers.for_path(path) if base is None else base
                        hits.extend((code, f"{base}/@key:{position}", messages.KEY) for code in sorted(codes))
                    if isinstance(child, str):
                        skip_paths = gate_parent and key == "target" and _is_gate_target(
                            path + ((key, position),), child, pointer_root)
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
                # Only numbers, booleans and nulls (the long sample arrays): no string, no child, nothing joined;
                # the numbers share the array's nearest key, so its field decides for all of them.
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
            if kinds <= _CONTAINER:
                # Only objects and arrays (the capacity samples): no scalar to visit, every element a child.
                stack.extend([(value[index], path + ((index, index),)) for index in range(len(value) - 1, -1, -1)])
            else:
                simple = [index for index, item in enumerate(value)
                          if isinstance(item, str) or (flag_numbers and type(item) is int and _identifier_length(item))]
                for index in simple:
                    scalar(value[index], path + ((index, index),))
                # every string element is in ``simple``, in order (cheaper than a pass over a long array of numbers)
                strings = [value[index] for index in simple if isinstance(value[index], str)]
                joined(strings, path)
                element(strings, path)
                for index in range(len(value) - 1, -1, -1):
                    if isinstance(value[index], (dict, list)):
                        stack.append((value[index], path + ((index, index),)))
        if hits and not flush():
            return state["added"]
    containers.extend(((RECORDS, path), pieces) for path, pieces in records_views(elements))
    for path, codes in without_element_codes(joined_findings(containers, profile)):
        hits.extend((code, pointers.for_path(path), messages.JOINED) for code in sorted(codes))
    flush()
    return state["added"]


# The key of an array's records view among the joined containers: ``(RECORDS, path)`` (a path's first item is a
# tuple, never this string).
RECORDS = "records"
_Path = tuple[tuple[str | int, int], ...]


def records_views(elements: dict[_Path, list[tuple[int, list[str]]]]) -> list[tuple[_Path, list[str]]]:
    """The records view of every array with two or more object or array elements that hold strings, in groups
    (:class:`RecordGroups`): each such element's string values (an object's, gate targets left out, as in its own
    sibling-values view) or strings (an array's), element after element. ``[{"user": "jane.roe"}, {"user":
    "@host.org"}]`` is read as one text, as a reader reads the rows of a table; keys are left out (a table shows
    them once, as its header), and a key glued to its own value is the element's own view. ``elements``: each
    array's elements, ``(index, strings)``."""
    views: list[tuple[_Path, list[str]]] = []
    for path, rows in elements.items():
        if len(rows) >= 2:
            pieces = [piece for _index, strings in sorted(rows, key=_first) for piece in strings]
            views.extend((path, group) for group in record_groups(pieces))
    return views


def record_groups(pieces: list[str]) -> list[list[str]]:
    """A records view's pieces in overlapping groups (:class:`RecordGroups`)."""
    grouper = RecordGroups()
    groups = [group for group in map(grouper.add, pieces) if group is not None]
    last = grouper.finish()
    return groups + [last] if last is not None else groups


class RecordGroups:
    """Cuts a records view, fed piece by piece, into overlapping groups of about ``joined.CHUNK`` characters: a
    group is closed before a piece that would take its joined length (each piece and one separator) past ``CHUNK``,
    and the next group begins with the last pieces of it that make up at least ``joined.OVERLAP`` characters (a
    group whose pieces make up less than that is not closed: it grows on, past ``CHUNK``, and the joined scan
    windows it). Every run of adjacent pieces whose joined text is at most ``OVERLAP`` characters long lies whole in
    one group (what the sliding window over one long view guarantees too), and a group of at most ``CHUNK``
    characters is proved clean by the prefilter, screened and remembered across files as any small container is
    (``joined.joined_findings``); one long view would be scanned whole each time. The streamed reader feeds the
    same groups as it reads (at most one group held per open array).

    Why a run fits: say a group ends inside the run. The run's part in that group is a suffix of the group no longer
    than ``OVERLAP`` characters with separators (the run holds one more piece and one more separator), and the next
    group begins with the shortest suffix of the group that makes ``OVERLAP`` or more (or the whole group), so it
    holds that part, and the run starts inside it; the argument repeats until a group holds the run to its end."""

    __slots__ = ("group", "size", "fresh")

    def __init__(self) -> None:
        self.group: list[str] = []
        self.size = 0
        self.fresh = False  # the group holds a piece the previous group does not

    def add(self, piece: str) -> list[str] | None:
        """Add the next piece; the group it closed, if any."""
        closed = None
        if self.fresh and self.size + len(piece) + 1 > CHUNK:
            tail, size = _overlap(self.group)
            if len(tail) < len(self.group):  # (else the group would open the next one whole: it just grows)
                closed = self.group
                self.group, self.size = tail, size
        self.group.append(piece)
        self.size += len(piece) + 1
        self.fresh = True
        return closed

    def finish(self) -> list[str] | None:
        """The last group, if it holds a new piece and two pieces or more."""
        group = self.group if self.fresh and len(self.group) >= 2 else None
        self.group, self.size, self.fresh = [], 0, False
        return group


def _overlap(group: list[str]) -> tuple[list[str], int]:
    """The last pieces of ``group`` that make up at least ``OVERLAP`` characters (each with its separator), or all
    of them, and their joined length."""
    tail: list[str] = []
    size = 0
    for piece in reversed(group):
        tail.append(piece)
        size += len(piece) + 1
        if size >= OVERLAP:
            break
    tail.reverse()
    return tail, size


def _first(row: tuple[int, list[str]]) -> int:
    return row[0]


def without_element_codes(found: list[tuple[Any, set[str]]]) -> list[tuple[_Path, set[str]]]:
    """The joined findings keyed by path, each records view's codes reduced to those that no joined view of one of
    its elements raises (those are reported at the element); in the order found, records views after the rest."""
    by_parent: dict[_Path, set[str]] = {}
    plain: list[tuple[_Path, set[str]]] = []
    records: dict[_Path, set[str]] = {}  # (the codes of all groups of one view, merged)
    for key, codes in found:
        if type(key) is tuple and len(key) == 2 and key[0] == RECORDS:
            records.setdefault(key[1], set()).update(codes)
            continue
        plain.append((key, codes))
        if key and type(key[-1][0]) is int:
            by_parent.setdefault(key[:-1], set()).update(codes)
    for path, codes in records.items():
        remaining = codes - by_parent.get(path, set())
        if remaining:
            plain.append((path, remaining))
    return plain
