"""The engine's fast exact path for ASCII documents: literals found by their first word, in C string operations.

Most mail is pure ASCII. On ASCII text the declared literal semantics (spec 50 §4.3) reduce to byte equality:

* Unicode simple case folding restricted to ASCII text is ASCII lower-casing. An ASCII letter's RE2 fold orbit holds
  its two ASCII cases plus, for ``k`` and ``s`` only, U+212A KELVIN SIGN and U+017F LONG S, so a case-insensitive
  literal's key maps those two to ``k`` and ``s``; a literal with any other non-ASCII, non-whitespace character can
  never match ASCII text (``contract_tests/test_producers_ascii_index.py`` checks the orbits against RE2 itself);
* a normalized whitespace run (``White_Space+``, greedy) matches exactly one maximal run of ASCII White_Space
  (``\\t``-``\\r``, space), so text and keys both collapse each maximal run to one space (with a map back to bytes);
* the Unicode word predicate on an ASCII character is ``isalnum() or "_"``.

Every literal whose key can be built (case-insensitive or without letters, whitespace only where normalized and
not at an edge) is indexed. The document is folded with ``bytes.translate`` and padded with a space at each end,
the runs that could lie inside a key are collapsed (:func:`collapse`), and a Hyperscan literal database
(``hyperscan``, the ``producers`` extra; Intel's multi-literal matcher) over each key's distinguishing prefix (at
least :data:`PREFIX_BYTES` bytes, through its first separator) reports every occurrence of every prefix, overlaps
included; ``startswith`` confirms the whole key at each. So every (start, end) at which an indexed literal's body
matches is found; boundaries are then checked with one byte lookup a side. This is exact, not a heuristic: Hyperscan is
used only for what it reports exactly (every end offset of a fixed string), never for regex semantics. The other
literals stay with RE2 in the entity's *RE2 group*, as do regexes; the engine merges both under the leftmost-first
rule. Non-ASCII documents take the full RE2 path, and so does every document when ``hyperscan`` is not installed.
(Prefixes, not whole keys: Hyperscan confirms a literal from its last bytes, and thousands of addresses share
``@example.com``; distinguishing leading bytes are far more selective, measured in ``docs/producers.md``.)
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

try:  # optional (the producers extra): without it the engine runs every document on RE2
    import hyperscan as _hyperscan
except ImportError:  # pragma: no cover - a test forces HYPERSCAN = None instead
    _hyperscan = None

HYPERSCAN: Any = _hyperscan
PREFIX_BYTES = 8
_ALNUM = bytes(1 if chr(b).isascii() and chr(b).isalnum() else 0 for b in range(256))
COLLAPSE_IN_ONE_BUFFER = 1 << 16  # documents above this many bytes are collapsed into one buffer (peak memory)
ASCII_WHITE_SPACE = "\t\n\x0b\x0c\r "
KELVIN_SIGN = "\u212a"
LONG_S = "\u017f"
NEVER = "never"  # the literal cannot match any ASCII document
RE2_GROUP = "re2"  # the literal stays with RE2 on ASCII documents

# Document bytes -> key bytes: ASCII upper case to lower case, every ASCII White_Space byte to a space.
_FOLD_TABLE = bytes.maketrans(
    bytes(range(0x41, 0x5B)) + ASCII_WHITE_SPACE.encode("ascii"),
    bytes(range(0x61, 0x7B)) + b" " * len(ASCII_WHITE_SPACE))
_EVERY_RUN = re.compile(rb"  +")
_SCRATCH_LOCK = threading.Lock()
WORD_BYTE = bytes(1 if (chr(b).isalnum() or b == 0x5F) else 0 for b in range(128)) + bytes(128)


def ascii_key(detector: Any, white_space: frozenset[str]) -> str:
    """The index key of a literal on ASCII documents (folded, runs collapsed), or :data:`NEVER` / :data:`RE2_GROUP`.

    ``white_space`` is the engine's Unicode White_Space set (normalized runs may be written with any of them)."""
    if detector.kind != "literal":
        return RE2_GROUP
    ignore_case = detector.ignore_case
    out: list[str] = []
    in_ws = False
    for ch in detector.value:
        if ch in white_space:
            if not detector.normalize_whitespace:
                return RE2_GROUP
            if not in_ws:
                out.append(" ")
            in_ws = True
            continue
        in_ws = False
        if ch.isascii():
            if ignore_case:
                out.append(ch.lower())
            elif ch.isalpha():
                return RE2_GROUP  # case-sensitive letters: the folded text cannot tell cases apart
            else:
                out.append(ch)
        elif ignore_case and ch == KELVIN_SIGN:
            out.append("k")
        elif ignore_case and ch == LONG_S:
            out.append("s")
        else:
            return NEVER
    key = "".join(out)
    if not key or key[0] == " " or key[-1] == " ":
        return RE2_GROUP  # a run at an edge can start or end inside a text run: RE2 decides
    return key


Detectors = tuple[tuple[int, int, int], ...]
# (key or None, pattern length, key length, first entity, its first detector, left edge, right edge, more)
Entry = tuple[bytes | None, int, int, int, int, int, int, list[tuple[int, Detectors]] | None]
NO_BOUNDARY = 2  # an edge value no word-map byte (0 or 1) equals: the side has no word boundary to check


def _collect(pattern_id: int, _from: int, to: int, _flags: int, hits: list[tuple[int, int]]) -> None:
    hits.append((to, pattern_id))


def edge_values(key: bytes, left: bool, right: bool) -> tuple[int, int]:
    """What the word map must *not* hold just outside a key occurrence for its word boundaries to hold.

    A word boundary holds where the characters on its two sides differ in being word characters. Inside the
    occurrence, the side's character is the key's own first (last) byte up to case and whitespace, which do not
    change wordness; so the boundary holds iff the byte just outside differs in wordness from the key's edge byte.
    A side without a boundary gets :data:`NO_BOUNDARY`, which every byte of the word map differs from."""
    return (WORD_BYTE[key[0]] if left else NO_BOUNDARY, WORD_BYTE[key[-1]] if right else NO_BOUNDARY)


@dataclass
class Patterns:
    """One Hyperscan literal database. ``prefixes[id]`` describes pattern ``id``: the key (None when the pattern
    is the whole key), the pattern's and the key's length, the first entity having the key with its first detector
    in order and that detector's edge values (:func:`edge_values`), and ``more``: None when that is the key's only
    detector, else every ``(entity position, ((detector index, left edge, right edge), ...))`` having the key,
    detectors in order. Hyperscan needs one scratch per concurrent scan: each thread gets its own, cloned on first
    use."""

    database: Any
    scratch: Any
    prefixes: list[Entry]
    local: threading.local = field(default_factory=threading.local, repr=False)

    def thread_scratch(self) -> Any:
        """This thread's scratch (the one made at compile time for the first thread that asks, clones after)."""
        scratch = getattr(self.local, "scratch", None)
        if scratch is None:
            with _SCRATCH_LOCK:
                scratch, self.scratch = (self.scratch, None) if self.scratch is not None else (None, None)
            if scratch is None:
                scratch = HYPERSCAN.Scratch(self.database)
            self.local.scratch = scratch
        return scratch

    def resolve(self, text: bytes | bytearray, folded: bytes, out: list[list[tuple[int, int, int]]],
                runs: list[int] | None = None, removed: list[int] | None = None) -> None:
        """Scan ``text`` (the padded folded document, or its :func:`collapse` with that collapse's ``runs`` and
        ``removed``) and append every confirmed key occurrence that holds its boundaries to ``out[entity]`` as
        (start, detector index, end) in document offsets. ``folded`` is the padded folded document
        (:meth:`AsciiIndex.candidates`), whose bytes have the wordness of the document's.

        One pass over Hyperscan's reports, in the order it gives them (by end); the per-entity order is made by the
        caller's sort. Per report: one tuple unpack, a ``startswith`` when the pattern is a proper prefix, and two
        byte lookups for the boundaries; collapsed offsets are mapped back by bisection in ``runs``."""
        hits: list[tuple[int, int]] = []
        self.database.scan(text, match_event_handler=_collect, context=hits, scratch=self.thread_scratch())
        if not hits:
            return
        starts_with = text.startswith
        prefixes = self.prefixes
        word = WORD_BYTE
        for to, pattern_id in hits:
            key, size, key_size, entity, index, left, right, more = prefixes[pattern_id]
            start = to - size
            if key is not None and not starts_with(key, start):
                continue
            end = start + key_size
            if runs:
                start += removed[bisect_left(runs, start)]  # type: ignore[index]
                end += removed[bisect_left(runs, end)]  # type: ignore[index]
            if more is None:  # one detector has this key (the usual case)
                if word[folded[start - 1]] != left and word[folded[end]] != right:
                    out[entity].append((start - 1, index, end - 1))
                continue
            before, after = word[folded[start - 1]], word[folded[end]]
            for other_entity, detectors in more:
                for other, left, right in detectors:
                    if before != left and after != right:
                        out[other_entity].append((start - 1, other, end - 1))
                        break


@dataclass
class AsciiIndex:
    """Every indexed literal of a bank: keys without a space in ``plain`` (scanned on the folded document, so no
    offset map), keys with a normalized run in ``spaced`` (scanned on the folded and collapsed document)."""

    plain: Patterns | None
    spaced: Patterns | None
    keys: int
    # 1 for a byte that precedes (follows) a space in some spaced key, else 0 (see collapse: only runs between
    # two such bytes matter)
    run_before: bytes | None = None
    run_after: bytes | None = None
    matter: re.Pattern[bytes] | None = None  # runs_that_matter(run_before, run_after), see collapse

    def candidates(self, data: bytes, entities: int) -> list[list[tuple[int, int, int]]]:
        """Per entity, every (start, detector index, end) whose literal matches at ``start`` with its boundaries
        (the earliest such detector of each key only: a later one sharing the key can never win that start).

        ``data`` must be ASCII. It is folded with one space added at each end: no key starts or ends with a space,
        so the occurrences are the same (one byte later), and "is the character before the start / at the end a
        word character" is one lookup of the padded text's byte, the document's edges included (the pad is not a
        word character; folding keeps every byte's wordness)."""
        folded = b" " + data.translate(_FOLD_TABLE) + b" "
        out: list[list[tuple[int, int, int]]] = [[] for _ in range(entities)]
        if self.plain is not None:
            self.plain.resolve(folded, folded, out)
        if self.spaced is not None:
            text, runs, removed = collapse(folded, self.matter)
            self.spaced.resolve(text, folded, out, runs, removed)
        return out


def collapse(folded: bytes, matter: re.Pattern[bytes] | None = None) -> tuple[bytes | bytearray, list[int], list[int]]:
    """``folded`` with every run of two or more spaces as one space; the collapsed offset of each run; and
    ``removed``, where ``removed[j + 1]`` is how many bytes are gone up to and including run ``j`` (so a collapsed
    offset ``k`` is ``k + removed[bisect_left(runs, k)]`` in ``folded``). ``folded`` itself when it has no run.

    With ``matter`` (:func:`runs_that_matter` of :class:`AsciiIndex`'s tables) only the runs that could lie inside
    a key occurrence are collapsed: a key's space has a key byte on each side, so a run matters only between a
    byte that precedes a space in some key and one that follows a space in some key. Every other run (``,`` then
    a line break and indentation in an address list) is left as it is; a key cannot match across it either way,
    and keys never hold two spaces, so the occurrences are the same.

    The runs are found by one regex search in C (``finditer``), which looks at a run's neighbours itself, so a run
    left alone costs no Python step (an address list's fifty runs after commas cost about 4 µs of search, not 11
    µs of a ``find`` and two table lookups each). Above :data:`COLLAPSE_IN_ONE_BUFFER` bytes the collapse is built
    in one buffer from views of ``folded`` (no list of pieces as large as the document: a 2 MB thread's peak
    memory); below, joining pieces is faster."""
    runs: list[int] = []
    removed = [0]
    big = len(folded) > COLLAPSE_IN_ONE_BUFFER
    view = memoryview(folded) if big else None
    text = bytearray()
    pieces: list[bytes] = []
    last = 0
    total = 0
    for run in (matter or _EVERY_RUN).finditer(folded):
        pos, end = run.span()
        if view is not None:
            text += view[last:pos + 1]
        else:
            pieces.append(folded[last:pos + 1])
        runs.append(pos - total)
        total += end - pos - 1
        removed.append(total)
        last = end
    if not runs:
        if view is not None:
            view.release()
        return folded, runs, removed
    if view is None:
        pieces.append(folded[last:])
        return b"".join(pieces), runs, removed
    text += view[last:]
    view.release()
    return text, runs, removed


def runs_that_matter(before: bytes, after: bytes) -> re.Pattern[bytes]:
    """The regex :func:`collapse` finds the runs that matter with: two spaces (a literal prefix, so the search
    skips to each run in C), preceded by a byte of ``before`` (1 in that table), the rest of the run, then a byte
    of ``after``. Neither table holds a space (a key never holds two spaces), so a match is one whole run."""
    def byte_class(table: bytes) -> bytes:  # an empty table: a class no byte is in
        members = b"".join(re.escape(bytes([b])) for b in range(256) if table[b])
        return b"[" + members + b"]" if members else b"[^\\x00-\\xff]"

    return re.compile(b"  (?<=" + byte_class(before) + b"  ) *(?=" + byte_class(after) + b")")


def build_index(entity_keys: list[list[tuple[int, str, bool, bool]]]) -> AsciiIndex | None:
    """The index over ``entity_keys[entity] = [(detector index, key, left word, right word), ...]`` (detector
    indices ascending), or None when there is no key or ``hyperscan`` is not installed."""
    if HYPERSCAN is None or not any(entity_keys):
        return None
    values: dict[bytes, list[tuple[int, tuple[tuple[int, bool, bool], ...]]]] = {}
    for entity, rows in enumerate(entity_keys):
        grouped: dict[str, list[tuple[int, bool, bool]]] = {}
        for index, key, left, right in rows:
            grouped.setdefault(key, []).append((index, left, right))
        for key, detectors in grouped.items():
            values.setdefault(key.encode("ascii"), []).append((entity, tuple(detectors)))
    plain = {k: v for k, v in values.items() if b" " not in k}
    spaced = {k: v for k, v in values.items() if b" " in k}
    before = {key[i - 1] for key in spaced for i, byte in enumerate(key) if byte == 0x20}
    after = {key[i + 1] for key in spaced for i, byte in enumerate(key) if byte == 0x20}
    run_before = bytes(1 if b in before else 0 for b in range(256))
    run_after = bytes(1 if b in after else 0 for b in range(256))
    return AsciiIndex(_patterns(plain), _patterns(spaced), len(values), run_before, run_after,
                      runs_that_matter(run_before, run_after) if spaced else None)


def _patterns(values: dict[bytes, list[tuple[int, tuple[tuple[int, bool, bool], ...]]]]) -> Patterns | None:
    """The Hyperscan database over ``values`` (key -> entities and detectors), or None when there is no key.

    Each key's pattern is its shortest prefix of at least PREFIX_BYTES that no other key shares and that reaches
    the key's first byte other than a letter or digit (the whole key when shorter): patterns are distinct, each
    names one key, and a pattern that is the whole key needs no confirmation. (Through the first separator: a
    person's name key ``first last`` and their address ``first.last@...`` share their first word, and an 8-byte
    prefix of either found the other in every signature and address list, each a failed confirmation.)"""
    if not values:
        return None
    ordered = sorted(values)
    patterns: list[bytes] = []
    prefixes: list[Entry] = []
    for i, key in enumerate(ordered):
        shared = max(_common_prefix(key, ordered[i - 1]) if i else 0,
                     _common_prefix(key, ordered[i + 1]) if i + 1 < len(ordered) else 0)
        separator = next((j for j, byte in enumerate(key) if not _ALNUM[byte]), len(key))
        size = min(len(key), max(PREFIX_BYTES, shared + 1, separator + 1))
        patterns.append(key[:size])
        entries = values[key]
        edged = [(entity, tuple((index, *edge_values(key, left, right)) for index, left, right in detectors))
                 for entity, detectors in entries]
        entity, detectors_ = edged[0]
        index, left_edge, right_edge = detectors_[0]
        more = edged if len(edged) > 1 or len(detectors_) > 1 else None
        prefixes.append((None if size == len(key) else key, size, len(key), entity, index, left_edge, right_edge,
                         more))
    database = HYPERSCAN.Database(mode=HYPERSCAN.HS_MODE_BLOCK)
    database.compile(expressions=patterns, ids=list(range(len(patterns))), elements=len(patterns),
                     flags=[0] * len(patterns), literal=True)
    return Patterns(database, HYPERSCAN.Scratch(database), prefixes)


def _common_prefix(a: bytes, b: bytes) -> int:
    """The length of the longest common prefix of two byte strings."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i
