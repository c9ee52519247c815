"""Contract- or repository-profile scan of a parsed JSON value: every string value and every object key, every array
that spells text one element at a time (character codes, single characters), plus (in the contract profile) integers
of identifier length in free-form fields.

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
from nerb_verify.privacy.joined import joined_findings
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

    containers: list[tuple[tuple[tuple[str | int, int], ...], list[str]]] = []

    def joined(pieces: list[str], path: tuple[tuple[str | int, int], ...]) -> None:
        if len(pieces) >= 2:
            containers.append((path, pieces))

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
                joined([value[index] for index in simple if isinstance(value[index], str)], path)
                for index in range(len(value) - 1, -1, -1):
                    if isinstance(value[index], (dict, list)):
                        stack.append((value[index], path + ((index, index),)))
        if hits and not flush():
            return state["added"]
    for path, codes in joined_findings(containers, profile):
        hits.extend((code, pointers.for_path(path), messages.JOINED) for code in sorted(codes))
    flush()
    return state["added"]
