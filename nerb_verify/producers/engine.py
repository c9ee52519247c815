"""The scan engine: compile a ``nerb.bank.v1`` bank once on RE2 (google-re2), then scan many documents.

Declared semantics (spec 50 §4.2-4.5, NERB's ``entity_independent`` mode), reproduced exactly:

* Only patterns active at every level compile. Within an entity, detectors are ordered by (priority, canonical name,
  surface name, regex source, flags) in code-point order; a repeated (canonical, surface) pair is a compile error.
* Within an entity, one leftmost-first cursor: from the cursor take the smallest start at which any detector
  matches; among the detectors matching there, the earliest in order wins; a regex's own preference decides its
  end; the cursor moves to that end, so matches never overlap within an entity.
* Across entities every match is kept, overlaps included. Records are sorted by (start, end, entity_id, name_id,
  pattern_id, string), so output is deterministic.
* Offsets are UTF-8 byte offsets by default, or Unicode scalar indices with ``offsets="char"``.
* Case folding is Unicode simple case folding (RE2's ``(?i)``; ``k`` ~ U+212A, ``s`` ~ U+017F, ``ß`` != ``SS``).
* Word boundaries and whitespace are Unicode (the Rust ``regex`` crate's): RE2's ``\\b`` and ``\\s`` are ASCII-only,
  so word boundaries are checked in Python against the Unicode word predicate (Alphabetic, M, Nd, Pc,
  Join_Control) and normalized whitespace is an explicit White_Space class.

Two paths, one result. An ASCII document (most mail) takes the ASCII path: the bank's literals are found by a
Hyperscan literal index (:mod:`nerb_verify.producers.ascii_index`, exact: keys, folding and boundaries are
explained there) and merged, leftmost-first, with the entity's *RE2 group* (regexes and the few literals the index
cannot express), which RE2 is asked about only where it could come first. Every other document, and every document
when ``hyperscan`` is not installed, takes the RE2 path below, whose shards are compiled on first use.

How the RE2 path runs. Each entity's detectors are split into shards (at most ``shard_size`` detectors). A shard has a
*finder*, one RE2 alternation of every detector's boundary-free body, sorted lexicographically (RE2 factors common
prefixes of adjacent alternatives, so this compiles 100k aliases in seconds), and an anchored ``RE2::Set`` over the
same bodies in detector order. The finder's leftmost start ``s`` is the smallest start at which any detector *could*
match (a boundary only removes matches). At ``s`` the Set reports every detector whose body matches there; in
detector order, each is confirmed with its own anchored verifier (compiled lazily, kept in a bounded LRU) and its
word boundaries; the first that holds wins. If none holds, the cursor advances one character. This is exact, not heuristic: the
finder never skips a start that could match, and the Set never omits a detector that matches at ``s``.

Regex detectors are accepted only in a form whose Unicode semantics RE2 can reproduce: optional leading inline
flags ``(?ims)``, an optional ``\\b`` at the very start and/or end, and a body without ``\\b \\B \\w \\W \\s \\S \\d
\\D`` whose first (left boundary) or last (right boundary) character is always a word character. The right ``\\b``
becomes a capture followed by a consumed ``(?:\\z|[^W])`` with ``W`` the explicit Unicode word class, so a boundary
can shorten a match exactly as a backtracking ``\\b`` would. Anything else is refused at compile time (fail closed),
as are the ASCII and VERBOSE flags on regexes and the ASCII flag on literals.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable

from nerb_verify.producers import INSTALL_PRODUCERS, ascii_index
from nerb_verify.producers.bank_format import Detector, active_detectors, canonical_hash

try:  # Python >= 3.11 moved the regex parser; the old names still work on 3.10
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

MAX_SCAN_BYTES = 10_485_760
DEFAULT_SHARD_SIZE = 50_000
DEFAULT_MAX_MEM = 1 << 31
VERIFIER_CACHE = 1024  # per entity: anchored per-detector programs kept (least recently used dropped first)
TEMPLATE_CACHE = 16_384  # per entity: record templates kept
ZERO_LENGTH_PROBES = ("", "a", " a ", "\nword\n")
# every record's keys in NERB's order (then ours); a detector's template is a copy with its own fields set
RECORD_BASE: dict[str, Any] = {"entity": "", "canonical_name": "", "surface_name": "", "string": "", "start": 0,
                               "end": 0, "offset_unit": "byte", "entity_id": "", "name_id": "", "pattern_id": "",
                               "pattern_kind": "", "captures": None}

# Unicode White_Space (the Rust regex crate's \s), spec 50 §4.3.
WHITE_SPACE = frozenset(
    [chr(c) for c in range(0x09, 0x0E)] + [" ", "\x85", "\xa0", "\u1680"]
    + [chr(c) for c in range(0x2000, 0x200B)] + ["\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
)
RE2_WHITE_SPACE_CLASS = (r"[\x{9}-\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}"
                         r"\x{205F}\x{3000}]")
UNSUPPORTED_ESCAPES = set("bBwWsSdD")


class EngineCompileError(ValueError):
    """The bank cannot be compiled with the declared semantics. The message holds only our own words and ids."""


class ScanInputError(ValueError):
    """The scan input is not valid UTF-8 or exceeds the 10 MiB limit (never decoded lossily)."""


_RE2_LOW_LEVEL: Any = None
RE2_MISSING = (f"the RE2 scan engine is missing (google-re2 is not installed): run {INSTALL_PRODUCERS} in a "
               "nerb-verify clone (or pip install google-re2)")
RE2_FOREIGN = ("the installed 're2' module is not google-re2 (no RE2::Set): pip uninstall pyre2, then "
               "pip install google-re2")


def _re2_module() -> Any:
    """Import google-re2's low-level binding once; a clear error if the ``producers`` extra is not installed."""
    global _RE2_LOW_LEVEL
    if _RE2_LOW_LEVEL is not None:
        return _RE2_LOW_LEVEL
    try:
        import re2  # noqa: F401
        from re2 import _re2
    except ImportError as exc:  # exercised by a subprocess that hides the module (test_producers_demo_prerequisites)
        raise EngineCompileError(RE2_MISSING) from exc
    if not hasattr(_re2, "Set"):
        raise EngineCompileError(RE2_FOREIGN)
    _RE2_LOW_LEVEL = _re2
    return _re2


def engine_problem() -> str | None:
    """Why the RE2 engine cannot run here (missing or foreign ``re2`` module), or None when it can.

    Producers that need the engine call this before they write anything, so a missing engine is reported up front
    with its install command instead of failing half-way through a run.
    """
    try:
        _re2_module()
    except EngineCompileError as exc:
        return str(exc)
    return None


@lru_cache(maxsize=None)
def _word_regex() -> Any:
    import regex

    return regex.compile(r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]")


@lru_cache(maxsize=65536)
def is_word_char(ch: str) -> bool:
    """The Rust regex crate's Unicode word predicate: Alphabetic, M, Nd, Pc or Join_Control (frozen at the
    installed ``regex`` module's Unicode version). ``str.isalpha()`` is not enough (it misses e.g. circled letters).
    On ASCII the predicate is letters, digits and ``_`` (no ASCII mark or join control), answered without loading
    the ``regex`` module: compiling a bank whose regexes have ASCII edges (the e-mail fallback) never imports it."""
    if ch.isascii():
        return ch.isalnum() or ch == "_"
    return _word_regex().match(ch) is not None


@lru_cache(maxsize=1)
def re2_word_class() -> str:
    """The Unicode word class as an explicit RE2 character class of code-point ranges (surrogates excluded).

    Computed a plane-sized block at a time (64K code points), so the peak memory stays small."""
    import regex

    from array import array

    word = regex.compile(r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]+")
    codec = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
    ranges: list[list[int]] = []
    for base in range(0, 0x110000, 0x10000):
        points = array("I", (c for c in range(base, base + 0x10000) if not 0xD800 <= c < 0xE000))
        block = points.tobytes().decode(codec)
        for run in word.finditer(block):
            lo, hi = ord(block[run.start()]), ord(block[run.end() - 1])
            if ranges and ranges[-1][1] + 1 == lo:
                ranges[-1][1] = hi
            else:
                ranges.append([lo, hi])
    parts = [f"\\x{{{lo:X}}}" if lo == hi else f"\\x{{{lo:X}}}-\\x{{{hi:X}}}" for lo, hi in ranges]
    return "[" + "".join(parts) + "]"


def re2_escape_char(ch: str) -> str:
    """One character as RE2 syntax: ASCII letters and digits as is, everything else as ``\\x{HEX}``."""
    if ch.isascii() and ch.isalnum():
        return ch
    return f"\\x{{{ord(ch):X}}}"


_ASCII_ESCAPES = {cp: f"\\x{{{cp:X}}}" for cp in range(128) if not chr(cp).isalnum()}


def literal_body(detector: Detector) -> str:
    """The boundary-free RE2 body of a literal: escaped, whitespace runs as ``White_Space+`` when normalized,
    wrapped in ``(?i:...)`` when case-insensitive."""
    value = detector.value
    if value.isascii() and not (detector.normalize_whitespace and any(ch in WHITE_SPACE for ch in value)):
        body = value.translate(_ASCII_ESCAPES)
        return f"(?i:{body})" if detector.ignore_case else f"(?:{body})"
    parts: list[str] = []
    in_ws = False
    for ch in value:
        if detector.normalize_whitespace and ch in WHITE_SPACE:
            if not in_ws:
                parts.append(RE2_WHITE_SPACE_CLASS + "+")
            in_ws = True
            continue
        in_ws = False
        parts.append(re2_escape_char(ch))
    body = "".join(parts)
    return f"(?i:{body})" if detector.ignore_case else f"(?:{body})"


def _has_unsupported_escape(body: str) -> bool:
    i = 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            if body[i + 1] in UNSUPPORTED_ESCAPES:
                return True
            i += 2
            continue
        i += 1
    return False


def _edge_chars(items: list[Any], last: bool) -> tuple[set[str], bool]:
    """The set of characters that can start (or end, ``last=True``) a parsed sequence, and whether it can be empty.

    Raises :class:`EngineCompileError` on constructs whose edge set we do not compute (``.``, negated classes,
    categories, anchors, backreferences)."""
    chars: set[str] = set()
    seq = list(reversed(items)) if last else list(items)
    for op, arg in seq:
        item_chars, nullable = _edge_item(op, arg, last)
        chars |= item_chars
        if not nullable:
            return chars, False
    return chars, True


def _edge_item(op: Any, arg: Any, last: bool) -> tuple[set[str], bool]:
    if op is sre_constants.LITERAL:
        return {chr(arg)}, False
    if op is sre_constants.IN:
        chars: set[str] = set()
        for sub_op, sub_arg in arg:
            if sub_op is sre_constants.LITERAL:
                chars.add(chr(sub_arg))
            elif sub_op is sre_constants.RANGE:
                lo, hi = sub_arg
                if hi - lo > 0x3000:
                    raise EngineCompileError("regex edge class too wide to check")
                chars |= {chr(c) for c in range(lo, hi + 1)}
            else:
                raise EngineCompileError("regex edge uses an unsupported class construct")
        return chars, False
    if op is sre_constants.SUBPATTERN:
        return _edge_chars(list(arg[-1]), last)
    if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
        lo, _hi, sub = arg
        chars, nullable = _edge_chars(list(sub), last)
        return chars, nullable or lo == 0
    if op is sre_constants.BRANCH:
        chars = set()
        nullable = False
        for branch in arg[1]:
            c, n = _edge_chars(list(branch), last)
            chars |= c
            nullable = nullable or n
        return chars, nullable
    raise EngineCompileError("regex edge uses an unsupported construct")


@dataclass(frozen=True)
class RegexPlan:
    """A regex detector split into what RE2 runs and what Python checks."""

    inline_flags: str
    body: str
    left_word: bool
    right_word: bool


def plan_regex(detector: Detector) -> RegexPlan:
    """Split a regex detector into flags, edge ``\\b`` and body; refuse anything RE2 cannot run with Unicode meaning."""
    for flag in detector.flags:
        if flag in ("ASCII", "VERBOSE"):
            raise EngineCompileError(f"regex flag {flag} is not supported by the RE2 engine")
    value = detector.value
    inline = ""
    if value.startswith("(?"):
        close = value.find(")")
        letters = value[2:close] if close > 2 else ""
        if letters and set(letters) <= set("ims"):
            inline = letters
            value = value[close + 1:]
        elif letters and ":" not in letters:
            raise EngineCompileError("regex inline flags other than i, m, s are not supported")
    flag_letters = set(inline)
    flag_letters |= {"i"} if "IGNORECASE" in detector.flags else set()
    flag_letters |= {"m"} if "MULTILINE" in detector.flags else set()
    flag_letters |= {"s"} if "DOTALL" in detector.flags else set()
    left = value.startswith(r"\b")
    if left:
        value = value[2:]
    right = False
    if value.endswith(r"\b"):
        backslashes = len(value) - 1 - len(value[:-1].rstrip("\\"))
        if backslashes % 2 == 1:
            right = True
            value = value[:-2]
    if not value or _has_unsupported_escape(value):
        raise EngineCompileError("regex uses ASCII-only RE2 classes (\\b \\w \\s \\d) inside its body")
    if left or right:
        try:
            parsed = sre_parse.parse(value)
        except Exception as exc:  # noqa: BLE001 - any parse failure means we cannot prove the edge
            raise EngineCompileError("regex with word boundaries must have a body whose edges can be checked") from exc
        for side, wanted in (("first", left), ("last", right)):
            if not wanted:
                continue
            chars, nullable = _edge_chars(list(parsed), last=(side == "last"))
            if nullable or not chars or not all(is_word_char(c) for c in chars):
                raise EngineCompileError("regex boundary edge is not always a word character")
    return RegexPlan("".join(sorted(flag_letters)), value, left, right)


def regex_body(plan: RegexPlan) -> str:
    """The boundary-free RE2 body, flags scoped to it."""
    return f"(?{plan.inline_flags}:{plan.body})" if plan.inline_flags else f"(?:{plan.body})"


def _utf8_len(lead: int) -> int:
    if lead < 0x80:
        return 1
    if lead < 0xE0:
        return 2
    if lead < 0xF0:
        return 3
    return 4


def _char_before(data: bytes, pos: int) -> str | None:
    if pos <= 0:
        return None
    start = pos - 1
    while start > 0 and 0x80 <= data[start] < 0xC0:
        start -= 1
    return data[start:pos].decode("utf-8")


def _char_at(data: bytes, pos: int) -> str | None:
    if pos >= len(data):
        return None
    return data[pos:pos + _utf8_len(data[pos])].decode("utf-8")


def _word_at(ch: str | None) -> bool:
    return ch is not None and is_word_char(ch)


_ASCII_WORD = tuple(chr(b).isascii() and (chr(b).isalnum() or chr(b) == "_") for b in range(128))
_ASCII_WORD_BYTES = ascii_index.WORD_BYTE  # the same predicate as bytes (1 for a word byte), ASCII documents only


def _word_before(data: bytes, pos: int) -> bool:
    """Whether the character ending at byte ``pos`` is a word character (False at the start)."""
    if pos <= 0:
        return False
    b = data[pos - 1]
    if b < 0x80:
        return _ASCII_WORD[b]
    return _word_at(_char_before(data, pos))


def _word_after(data: bytes, pos: int) -> bool:
    """Whether the character starting at byte ``pos`` is a word character (False at the end)."""
    if pos >= len(data):
        return False
    b = data[pos]
    if b < 0x80:
        return _ASCII_WORD[b]
    return _word_at(_char_at(data, pos))


@dataclass
class Shard:
    """A slice of one entity's detectors: a lexicographically sorted finder alternation and an anchored Set.

    ``unique_keys`` is set only for a shard whose detectors are all ASCII literals without whitespace whose case
    folds are *prefix-free* (no fold is a prefix of another, equality included). Then at most one body can match at
    any start, the finder's match is that body's match, and the case fold of the matched text names the detector:
    the Set call is skipped. (Soundness: an ASCII literal under RE2's simple folding matches only characters whose
    ``str.casefold`` is the literal's own folded character, e.g. U+212A -> ``k``, U+017F -> ``s``.)
    """

    detector_indices: list[int]
    finder: Any
    matcher_set: Any
    unique_keys: dict[str, int] | None = None


class EntityMatcher:
    """One entity's ordered detectors, their shards and a bounded cache of per-detector verifiers.

    ``shards`` (every detector, the full RE2 path: non-ASCII documents) may be passed as None and is then built on
    first use, so a bank whose documents are all ASCII never pays for it. ``ascii_group`` are RE2 shards over the
    detectors the ASCII path leaves to RE2 (regexes and a few literals, see :mod:`ascii_index`); ``ascii_path``
    says that the bank's :class:`ascii_index.AsciiIndex` holds this entity's other literals. A matcher built
    without them (the defaults) runs every document on the full RE2 path."""

    def __init__(self, entity_id: str, detectors: list[Detector], bodies: list[str], plans: list[RegexPlan | None],
                 shards: list[Shard] | None, options: Any, shard_size: int = DEFAULT_SHARD_SIZE,
                 ascii_group: list[Shard] | None = None, ascii_path: bool = False) -> None:
        self.entity_id = entity_id
        self.detectors = detectors
        self.bodies = bodies
        self.plans = plans
        self._shards = shards
        self.options = options
        self.shard_size = shard_size
        self.ascii_group = ascii_group or []
        self.ascii_path = ascii_path
        self.group_gap: bytes | None = None  # see _group_gap and set_group_gap
        self.group_starts: bytes | None = None  # translate table: 1 for a byte outside the gap, else 0
        self.group_lead: tuple[bytes, int] | None = None  # see _group_lead
        self.group_first = ascii_group[0].detector_indices[0] if ascii_group else len(detectors)
        # a one-shard group's finder, called from the ASCII merge loop directly (no method call per search)
        self.group_find = self.ascii_group[0].finder.Match if len(self.ascii_group) == 1 else None
        # a group of one regex: (detector index, left \b, right \b), so the loop can accept the finder's own
        # match at a bound without a call (see _group_at)
        self.group_single: tuple[int, bool, bool] | None = None
        if self.group_find is not None and len(self.ascii_group[0].detector_indices) == 1:
            single = self.ascii_group[0].detector_indices[0]
            plan = plans[single]
            if plan is not None:
                self.group_single = (single, plan.left_word, plan.right_word)
        # see _group_at_keys: per detector index, the end of the group regex's match at an occurrence of that
        # detector's key (relative to its start; -1: no match there; -2: not known), and the inert bytes
        self.group_at_key: list[int] | None = None
        self.group_inert: bytes | None = None
        self.verifiers: OrderedDict[int, Any] = OrderedDict()
        self.templates: list[dict[str, Any] | None] = [None] * len(detectors)  # by detector index
        self.template_count = 0
        self._lock = threading.Lock()  # the lazy shards and the verifier cache are shared by scanning threads

    def set_group_gap(self, gap: bytes | None) -> None:
        """Record the RE2 group's gap bytes (:func:`_group_gap`) and the translate table the merge loop uses."""
        self.group_gap = gap
        self.group_starts = None if gap is None else bytes(0 if b in gap else 1 for b in range(256))

    @property
    def shards(self) -> list[Shard]:
        """The full RE2 path's shards (every detector), compiled on first use."""
        if self._shards is None:
            with self._lock:
                if self._shards is None:
                    self._shards = _build_shards(list(range(len(self.detectors))), self.bodies, self.detectors,
                                                 self.options, self.shard_size)
        return self._shards

    def count_templates(self, made: int) -> None:
        """Count the ``made`` record templates a scan stored in :attr:`templates` (a list by detector index, one
        lookup per record; each template a copy of :data:`RECORD_BASE` with the detector's seven fields set, made
        on the detector's first record by :meth:`CompiledBank.scan_bytes`, never changed once stored). When the
        entity holds :data:`TEMPLATE_CACHE` or more, the list starts again empty: checked after each document, so
        at most :data:`TEMPLATE_CACHE` templates are kept between documents (plus one document's, while it is
        scanned). Storing a template needs no lock; only starting the list again does."""
        self.template_count += made
        if self.template_count >= TEMPLATE_CACHE:
            with self._lock:
                if self.template_count >= TEMPLATE_CACHE:
                    self.templates = [None] * len(self.detectors)
                    self.template_count = 0

    def verifier(self, index: int) -> Any:
        """The anchored RE2 program for one detector: its body, plus the right-boundary capture for a regex.

        At most :data:`VERIFIER_CACHE` programs are kept per entity (an address list touching 25,000 detectors
        must not keep 25,000 programs): the least recently used one is dropped and recompiled if needed again."""
        cache = self.verifiers
        with self._lock:
            compiled = cache.get(index)
            if compiled is not None:
                cache.move_to_end(index)
                return compiled
        plan = self.plans[index]
        if plan is not None and plan.right_word:
            source = f"({self.bodies[index]})(?-i:\\z|[^{re2_word_class()[1:-1]}])"
        else:
            source = f"({self.bodies[index]})"
        compiled = _re2_module().RE2(source.encode("utf-8"), self.options)
        if not compiled.ok():
            raise EngineCompileError(f"entity {self.entity_id}: a detector does not compile in RE2")
        with self._lock:
            cache[index] = compiled
            if len(cache) > VERIFIER_CACHE:
                cache.popitem(last=False)
        return compiled

    def end_if_matches(self, index: int, data: bytes, start: int, known_end: int | None = None) -> int | None:
        """The end of detector ``index`` anchored at ``start`` with its Unicode word boundaries, or None.

        ``known_end`` is the body's end when the caller already knows it (a literal that is the only detector
        whose body matches at ``start``: the finder's match is then that body's match); otherwise the detector's
        own anchored program decides."""
        detector = self.detectors[index]
        plan = self.plans[index]
        if known_end is not None and plan is None:
            end = known_end
        else:
            anchor = _re2_module().RE2.Anchor.ANCHOR_START
            spans = self.verifier(index).Match(anchor, data, start, len(data))
            if spans[0][0] < 0:
                return None
            end = spans[1][1]
        if end <= start:
            return None
        if plan is not None:
            if plan.left_word and _word_before(data, start):
                return None
            return end
        if detector.left_boundary == "word" and _word_before(data, start) == _word_after(data, start):
            return None
        if detector.right_boundary == "word" and _word_before(data, end) == _word_after(data, end):
            return None
        return end

    def scan(self, data: bytes) -> list[tuple[int, int, int]]:
        """Leftmost-first, non-overlapping (start, end, detector index) matches of this entity over ``data``."""
        if len(self.shards) == 1:
            return self._scan_single_shard(data)
        _re2 = _re2_module()
        unanchored = _re2.RE2.Anchor.UNANCHORED
        length = len(data)
        next_start = [-1] * len(self.shards)  # -1: stale; length + 1: exhausted
        next_end = [0] * len(self.shards)
        out: list[tuple[int, int, int]] = []
        cursor = 0
        while cursor < length:
            best = length + 1
            for k, shard in enumerate(self.shards):
                s = next_start[k]
                if s != length + 1 and s < cursor:
                    spans = shard.finder.Match(unanchored, data, cursor, length)
                    s = spans[0][0] if spans[0][0] >= 0 else length + 1
                    next_start[k] = s
                    next_end[k] = spans[0][1]
                if s < best:
                    best = s
            if best > length:
                break
            view = memoryview(data)[best:]
            candidates: list[int] = []
            finder_end = None
            for k, shard in enumerate(self.shards):
                if next_start[k] == best:
                    hits = shard.matcher_set.Match(view)
                    if hits:
                        candidates.extend(shard.detector_indices[h] for h in hits)
                        finder_end = next_end[k]
            known_end = finder_end if len(candidates) == 1 else None
            winner_end = None
            winner = -1
            for index in sorted(candidates):
                end = self.end_if_matches(index, data, best, known_end)
                if end is not None:
                    winner, winner_end = index, end
                    break
            if winner_end is None:
                cursor = best + _utf8_len(data[best])
                continue
            out.append((best, winner_end, winner))
            cursor = winner_end
        return out

    def _scan_single_shard(self, data: bytes) -> list[tuple[int, int, int]]:
        """:meth:`scan` for an entity with one shard (the usual case): the same rule with less bookkeeping."""
        unanchored = _re2_module().RE2.Anchor.UNANCHORED
        shard = self.shards[0]
        find = shard.finder.Match
        at_start = shard.matcher_set.Match
        indices = shard.detector_indices
        unique = shard.unique_keys
        end_if = self.end_if_matches
        view = memoryview(data)
        length = len(data)
        out: list[tuple[int, int, int]] = []
        cursor = 0
        while cursor < length:
            start, finder_end = find(unanchored, data, cursor, length)[0]
            if start < 0:
                break
            if unique is not None:
                index = unique.get(data[start:finder_end].decode("utf-8").casefold(), -1)
                if index >= 0:
                    winner_end = end_if(index, data, start, finder_end)
                    if winner_end is None:
                        cursor = start + _utf8_len(data[start])
                    else:
                        out.append((start, winner_end, index))
                        cursor = winner_end
                    continue
            hits = at_start(view[start:])
            winner_end = None
            if hits and len(hits) == 1:
                index = indices[hits[0]]
                winner_end = end_if(index, data, start, finder_end)
            elif hits:
                for index in sorted(indices[h] for h in hits):
                    winner_end = end_if(index, data, start, None)
                    if winner_end is not None:
                        break
            if winner_end is None:
                cursor = start + _utf8_len(data[start])
                continue
            out.append((start, winner_end, index))
            cursor = winner_end
        return out


    def ascii_rows(self, data: bytes, literals: list[tuple[int, int, int]], position: int,
                   rows: list[tuple[int, int, int, int]]) -> None:
        """:meth:`scan` on an ASCII document, given every (start, detector index, end) at which one of this entity's
        indexed literals matches with its boundaries (the earliest such literal per key and start, from the bank's
        :class:`ascii_index.AsciiIndex`); appends each match to ``rows`` as (start, end, ``position``, detector
        index), the record order. The RE2 group is asked for its next match only when it could come first.

        Leftmost-first: at the cursor the smallest start at which any detector matches wins, the earliest detector
        in order among those matching there; the cursor moves to the winner's end. One pass over the literals
        sorted by (start, detector index): for each literal not overlapped by an earlier match, the group's matches
        that come before it are emitted first, then the literal unless the group's match at its start wins; then
        the group's matches after the last literal. An entity without an RE2 group needs nothing else."""
        literals.sort()
        append = rows.append
        cursor = 0
        if not self.ascii_group:
            for start, index, end in literals:
                if start >= cursor:
                    append((start, end, position, index))
                    cursor = end
            return
        length = len(data)
        infinity = length + 1
        starts = self.group_starts
        can_start: bytes | None = None  # 1 where a group regex can start, else 0 (made when first needed)
        group_first = self.group_first
        find = self.group_find
        lead_table, lead = self.group_lead if self.group_lead is not None else (None, -1)
        find_byte = data.find
        single, single_left, single_right = self.group_single if self.group_single is not None else (-1, False, False)
        word = _ASCII_WORD_BYTES
        at_key, inert = self.group_at_key, self.group_inert
        unanchored = _re2_module().RE2.Anchor.UNANCHORED
        bound = -1  # no group match starts in [cursor of the last search, bound); stale when below the cursor
        bound_end = -1  # the end of the body's match at ``bound`` when the group has one shard, else -1
        verified: tuple[int, int] | None = None  # (end, detector index) of the group's match at ``bound``
        for start, index, end in literals:
            if start < cursor:
                continue  # overlapped by an earlier match of this entity
            while True:  # the group's matches before this literal; then what wins at its start
                if bound < cursor:
                    # the group can only come first if it can start before the literal (or at it, earlier in
                    # order): not if its lead byte is absent and the byte just before ``stop`` cannot be part of a
                    # match's first run (see _group_lead), nor if no byte there can start it (the gap)
                    stop = start + (group_first < index)
                    lead_at = find_byte(lead, cursor, stop) if lead_table is not None else -1
                    if lead_table is not None:
                        if lead_at < 0 and (stop == cursor or not lead_table[data[stop - 1]]):
                            break
                        # the group is earlier in order and cannot start before ``start``: its match at ``start``
                        # is known from the key when the byte after the occurrence is inert (see _group_at_keys)
                        if (at_key is not None and stop > start and end < length and inert[data[end]]  # type: ignore[index]
                                and at_key[index] >= -1 and (lead_at < 0 or lead_at == start)
                                and (start == cursor or not lead_table[data[start - 1]])):
                            group_end = at_key[index]
                            if group_end > 0 and not (single_left and start and word[data[start - 1]]):
                                end, index = start + group_end, single
                            break
                    # the gap (a lead byte in it almost always starts a match: RE2 is asked without the copy)
                    if starts is not None and lead_at < 0:
                        if can_start is None:
                            can_start = data.translate(starts)
                        if can_start.find(1, cursor, stop) < 0:  # "no group start in [cursor, stop)": one memchr
                            break
                    if find is not None:
                        bound, bound_end = find(unanchored, data, cursor, length)[0]
                        if bound < 0:
                            bound = infinity
                    else:
                        bound, bound_end = self._group_bound(data, cursor)
                    verified = None
                if bound > start or (bound == start and group_first > index):
                    break  # the literal wins at its start
                if verified is None:
                    verified = self._verified_at_bound(data, bound, bound_end, single, single_left, single_right)
                    if verified is None:  # nothing holds at the bound: search on from the next character
                        bound, bound_end = self._group_bound(data, bound + _utf8_len(data[bound]))
                        continue
                group_end, group_index = verified
                if bound == start:
                    if group_index < index:
                        end, index = group_end, group_index
                    break
                append((bound, group_end, position, group_index))  # the group's match comes first
                cursor = group_end
                if start < cursor:
                    break  # and overlaps the literal
            if start >= cursor:
                append((start, end, position, index))
                cursor = end
        while cursor < length:  # the group's matches after the last literal
            if bound < cursor:
                if lead_table is not None and find_byte(lead, cursor) < 0:
                    break  # no lead byte left: the group cannot match again
                if find is not None:
                    bound, bound_end = find(unanchored, data, cursor, length)[0]
                    if bound < 0:
                        bound = infinity
                else:
                    bound, bound_end = self._group_bound(data, cursor)
                verified = None
            if bound >= length:
                break
            if verified is None:
                verified = self._verified_at_bound(data, bound, bound_end, single, single_left, single_right)
                if verified is None:
                    bound, bound_end = self._group_bound(data, bound + _utf8_len(data[bound]))
                    continue
            group_end, group_index = verified
            append((bound, group_end, position, group_index))
            cursor = group_end

    def _verified_at_bound(self, data: bytes, bound: int, bound_end: int, single: int, single_left: bool,
                           single_right: bool) -> tuple[int, int] | None:
        """The group's match at ``bound`` (see :meth:`_group_at`): a one-regex group's finder match is taken
        directly when its boundaries hold on ASCII bytes (a byte-table lookup a side)."""
        word = _ASCII_WORD_BYTES
        if (single >= 0 and bound_end > bound and not (single_left and bound and word[data[bound - 1]])
                and not (single_right and bound_end < len(data) and word[data[bound_end]])):
            return (bound_end, single)
        return self._group_at(data, bound, bound_end)

    def _group_bound(self, data: bytes, cursor: int) -> tuple[int, int]:
        """The smallest start at or after ``cursor`` where a body of the RE2 group matches (a lower bound for the
        group's next match: boundaries only remove matches), or ``len(data) + 1``; and, when the group has one
        shard, the end of the finder's match there (else -1). Finders only: no captures, so RE2 runs its DFA."""
        length = len(data)
        if cursor >= length:
            return length + 1, -1
        unanchored = _re2_module().RE2.Anchor.UNANCHORED
        shards = self.ascii_group
        if len(shards) == 1:
            start, end = shards[0].finder.Match(unanchored, data, cursor, length)[0]
            return (start, end) if start >= 0 else (length + 1, -1)
        best = length + 1
        for shard in shards:
            found = shard.finder.Match(unanchored, data, cursor, length)[0][0]
            if 0 <= found < best:
                best = found
        return best, -1

    def _group_at(self, data: bytes, start: int, finder_end: int) -> tuple[int, int] | None:
        """The RE2 group's match at exactly ``start``: (end, detector index) of the first detector in order whose
        body matches there with its boundaries, or None.

        A group of one regex whose finder matched up to ``finder_end`` (>= 0): that is the regex's own preferred
        match at ``start`` (leftmost-first), so when its right boundary holds there it is the match, and only
        otherwise does the detector's anchored program (which lets the boundary shorten the match) run."""
        shards = self.ascii_group
        if finder_end >= 0 and len(shards[0].detector_indices) == 1:
            index = shards[0].detector_indices[0]
            plan = self.plans[index]
            if (plan is not None and finder_end > start and not (plan.left_word and _word_before(data, start))
                    and not (plan.right_word and _word_after(data, finder_end))):
                return (finder_end, index)
        view = memoryview(data)[start:]
        candidates: list[int] = []
        for shard in shards:
            if len(shard.detector_indices) == 1:
                candidates.append(shard.detector_indices[0])  # its own anchored program decides below
            else:
                candidates.extend(shard.detector_indices[h] for h in shard.matcher_set.Match(view))
        for index in sorted(candidates):
            end = self.end_if_matches(index, data, start, None)
            if end is not None:
                return (end, index)
        return None

def _check_order(entity_id: str, detectors: list[Detector]) -> None:
    seen: set[tuple[str, str]] = set()
    for det in detectors:
        key = (det.canonical_name, det.surface_name)
        if key in seen:
            raise EngineCompileError(f"entity {entity_id}: two detectors share a canonical and surface name")
        seen.add(key)


@dataclass
class CompiledBank:
    """A bank compiled once; :meth:`scan_bytes` / :meth:`scan_text` run it over any number of documents."""

    bank_id: str
    bank: dict[str, Any] = field(repr=False)
    entities: list[EntityMatcher]
    active_patterns: int
    ascii_literals: ascii_index.AsciiIndex | None = None

    @property
    def bank_hash(self) -> str:
        """The canonical hash of the compiled bank (computed on demand: compile stays compile)."""
        return canonical_hash(self.bank)

    def scan_bytes(self, data: bytes, offsets: str = "byte") -> list[dict[str, Any]]:
        """Scan UTF-8 bytes (<= 10 MiB, strictly valid) and return the sorted records (spec 50 §4.4).

        An ASCII document takes the ASCII path (:mod:`ascii_index`) where the bank has one, any other document
        the full RE2 path; both give the same records."""
        if len(data) > MAX_SCAN_BYTES:
            raise ScanInputError("scan input exceeds 10,485,760 bytes")
        is_ascii = data.isascii()
        if not is_ascii:
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ScanInputError("scan input is not valid UTF-8") from exc
        if offsets not in ("byte", "char"):
            raise ValueError("offsets must be 'byte' or 'char'")
        # Rows (start, end, entity position, detector index): (start, end, entity position) is unique (matches never
        # overlap within an entity) and entity positions follow entity_id order, so sorting the rows is the record
        # order (start, end, entity_id, ...). Each entity appends its own rows in order already.
        entities = self.entities
        index = self.ascii_literals if is_ascii else None
        literals = index.candidates(data, len(entities)) if index is not None else None
        rows: list[tuple[int, int, int, int]] = []
        contributing = 0
        for k, matcher in enumerate(entities):
            before = len(rows)
            if literals is not None and matcher.ascii_path:
                matcher.ascii_rows(data, literals[k], k, rows)
            else:
                rows.extend([(s, e, k, i) for s, e, i in matcher.scan(data)])
            if len(rows) > before:
                contributing += 1
        if contributing > 1:
            rows.sort()  # one sorted run per entity: a merge
        records: list[dict[str, Any]] = []
        append = records.append
        templates = [matcher.templates for matcher in entities]
        made: list[int] | None = None  # templates made in this scan, per entity position
        base = RECORD_BASE
        # an ASCII document up to 64 KB is decoded once and each record's string sliced from it (one object, not
        # two: 2-3% on hit-dense mail); a longer one is not copied whole (a 2 MB thread's peak memory)
        decoded = is_ascii and len(data) <= ascii_index.COLLAPSE_IN_ONE_BUFFER
        text = data.decode("ascii") if decoded else data
        for s, e, k, i in rows:
            template = templates[k][i]
            if template is None:  # the detector's first record: its template (see EntityMatcher.count_templates),
                # made here rather than by a method call (a first pass over an address list makes thousands)
                entity_id, name_id, pattern_id, kind, canonical, surface = entities[k].detectors[i][:6]
                template = base.copy()
                template["entity"] = template["entity_id"] = entity_id
                template["canonical_name"] = canonical
                template["surface_name"] = surface
                template["name_id"] = name_id
                template["pattern_id"] = pattern_id
                template["pattern_kind"] = kind
                templates[k][i] = template
                if made is None:
                    made = [0] * len(entities)
                made[k] += 1
            record = template.copy()
            record["string"] = text[s:e]
            record["start"] = s
            record["end"] = e
            record["captures"] = {}
            append(record)
        if made is not None:
            for k, count in enumerate(made):
                if count:
                    entities[k].count_templates(count)
        if not decoded:
            for record in records:
                record["string"] = record["string"].decode("utf-8")
        if offsets == "char":
            _to_char_offsets(data, records)
        return records

    def scan_text(self, text: str, offsets: str = "byte") -> list[dict[str, Any]]:
        """Scan a ``str`` (encoded as UTF-8; lone surrogates are an input error)."""
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ScanInputError("scan input is not valid Unicode text") from exc
        return self.scan_bytes(data, offsets)


def _to_char_offsets(data: bytes, records: list[dict[str, Any]]) -> None:
    """Rewrite byte offsets as Unicode scalar indices in one pass over the sorted distinct offsets."""
    positions = sorted({r["start"] for r in records} | {r["end"] for r in records})
    mapping: dict[int, int] = {}
    last_byte = 0
    last_char = 0
    for pos in positions:
        chunk = data[last_byte:pos]
        last_char += sum(1 for b in chunk if not 0x80 <= b < 0xC0)
        last_byte = pos
        mapping[pos] = last_char
    for r in records:
        r["start"] = mapping[r["start"]]
        r["end"] = mapping[r["end"]]
        r["offset_unit"] = "char"


def compile_bank(bank: dict[str, Any], shard_size: int = DEFAULT_SHARD_SIZE,
                 max_mem: int = DEFAULT_MAX_MEM, ascii_path: bool = True,
                 eager_full_path: bool = False) -> CompiledBank:
    """Compile the active part of a validated bank (spec 50 §4.2): order detectors, build the ASCII literal index
    and the RE2 shards, probe for empty matches. Raises :class:`EngineCompileError` when the declared semantics
    cannot be reproduced.

    ``ascii_path=False`` runs every document on RE2 alone (the reference the ASCII path is tested against). With the
    ASCII path the full RE2 shards (needed only by non-ASCII documents) are compiled on first use unless
    ``eager_full_path``."""
    _re2_module()
    import re2

    options = re2.Options()
    options.max_mem = max_mem
    options.log_errors = False
    if shard_size < 1:
        raise EngineCompileError("shard size must be at least 1")
    by_entity: dict[str, list[Detector]] = {}
    for det in active_detectors(bank):
        if det.kind == "literal" and "ASCII" in det.flags:
            raise EngineCompileError("the ASCII flag on literals is not supported by the RE2 engine")
        by_entity.setdefault(det.entity_id, []).append(det)
    use_ascii_index = ascii_path
    entities: list[EntityMatcher] = []
    entity_keys: list[list[tuple[int, str, bool, bool]]] = []
    total = 0
    for entity_id in sorted(by_entity):
        detectors = sorted(by_entity[entity_id], key=lambda d: d.order_key)
        _check_order(entity_id, detectors)
        plans: list[RegexPlan | None] = []
        bodies: list[str] = []
        for det in detectors:
            if det.kind == "regex":
                plan = plan_regex(det)
                plans.append(plan)
                bodies.append(regex_body(plan))
            else:
                plans.append(None)
                bodies.append(literal_body(det))
        keys: list[tuple[int, str, bool, bool]] = []
        group: list[int] = []
        if use_ascii_index:
            for index, det in enumerate(detectors):
                key = ascii_index.ascii_key(det, WHITE_SPACE)
                if key == ascii_index.RE2_GROUP:
                    group.append(index)
                elif key != ascii_index.NEVER:
                    keys.append((index, key, det.left_boundary == "word", det.right_boundary == "word"))
        matcher = EntityMatcher(entity_id, detectors, bodies, plans, None, options, shard_size,
                                _build_shards(group, bodies, detectors, options, shard_size), use_ascii_index)
        matcher.set_group_gap(_group_gap(group, plans) if group else None)
        matcher.group_lead = _group_lead(group, plans) if group else None
        matcher.group_first = group[0] if group else len(detectors)
        if keys and matcher.group_single is not None and matcher.group_lead is not None:
            _group_at_keys(matcher, keys)
        if eager_full_path:
            matcher.shards  # noqa: B018 - compile the full RE2 path now
        _probe_empty(matcher)
        entities.append(matcher)
        entity_keys.append(keys)
        total += len(detectors)
    index_ = ascii_index.build_index(entity_keys) if use_ascii_index else None
    if index_ is None:  # no ASCII path (switched off, or no literal qualified): RE2 alone, compiled now
        for matcher in entities:
            matcher.ascii_path = False
            matcher.shards  # noqa: B018 - compile the full RE2 path now (fail closed at compile time)
    return CompiledBank(bank["id"], bank, entities, total, index_)


def _parsed_group_body(plan: RegexPlan | None) -> list[Any] | None:
    """A group regex's body as Python's regex parser reads it, or None where that reading may differ from RE2's
    (a literal, scoped flags, POSIX classes, or anything the parser refuses: RE2-only escapes such as ``\\x{..}``)."""
    import re

    if plan is None:
        return None  # literals in the group are rare and unusual: no prefilter
    if "(?" in plan.body.replace("(?:", "") or "[:" in plan.body:
        return None  # scoped flags or POSIX classes: Python's parser would read them differently
    try:
        return list(sre_parse.parse(plan.body))
    except (re.error, ValueError, TypeError, OverflowError, RecursionError):
        return None


def _ascii_orbit(chars: set[str], flags: str) -> set[str]:
    """The ASCII characters a set of pattern characters matches under the plan's flags: with ``i``, both ASCII
    cases, and ``k``/``s`` for U+212A/U+017F (RE2's simple folding, as the ASCII index assumes)."""
    if "i" in flags:
        chars = chars | {c.lower() for c in chars} | {c.upper() for c in chars}
        if "\u212a" in chars:
            chars |= {"k", "K"}
        if "\u017f" in chars:
            chars |= {"s", "S"}
    return {c for c in chars if c.isascii()}


def _group_gap(indices: list[int], plans: list[RegexPlan | None]) -> bytes | None:
    """The ASCII bytes at which no regex of the RE2 group can start (the complement of their possible first
    bytes), or None when that cannot be worked out. On an ASCII document a gap made only of such bytes holds no
    group match, so the engine need not ask RE2 (a distribution list: ", " between addresses)."""
    first: set[str] = set()
    for index in indices:
        parsed = _parsed_group_body(plans[index])
        if parsed is None:
            return None
        try:
            chars, nullable = _edge_chars(parsed, last=False)
        except EngineCompileError:
            return None
        if nullable or not chars:
            return None
        first |= _ascii_orbit(chars, plans[index].inline_flags)  # type: ignore[union-attr]
    return bytes(b for b in range(128) if chr(b) not in first)


def _group_lead(indices: list[int], plans: list[RegexPlan | None]) -> tuple[bytes, int] | None:
    """For a group of one regex whose body begins ``X B* c`` (one character of class X, any run of class B, then
    the literal ASCII byte ``c``, which B cannot match): ``(table, c)``, with ``table`` 1 for the ASCII bytes in
    X or B. Else None. The e-mail fallback has this shape (``c`` is the at sign).

    Why it is exact: a match starting at ``p`` has ``c`` at the first byte after ``p`` that B does not match, with
    every byte between in B. So if no match may start in ``[cursor, stop)``, either ``c`` occurs in
    ``[cursor, stop)`` or the byte at ``stop - 1`` is in X or B. On an ASCII document the engine skips RE2 when
    neither holds (ordinary mail between two banked addresses)."""
    if len(indices) != 1:
        return None
    plan = plans[indices[0]]
    parsed = _parsed_group_body(plan)
    if plan is None or parsed is None or len(parsed) < 3:
        return None
    (first_op, first_arg), (repeat_op, repeat_arg), (lead_op, lead_arg) = parsed[:3]
    if repeat_op not in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) or lead_op is not sre_constants.LITERAL:
        return None
    low, high, run = repeat_arg
    if low != 0 or high != sre_constants.MAXREPEAT or len(run) != 1:
        return None
    run_op, run_arg = run[0]
    try:
        if first_op not in (sre_constants.LITERAL, sre_constants.IN) or run_op not in (sre_constants.LITERAL,
                                                                                        sre_constants.IN):
            return None
        first, _ = _edge_item(first_op, first_arg, False)
        middle, _ = _edge_item(run_op, run_arg, False)
    except EngineCompileError:
        return None
    lead = chr(lead_arg)
    lead_orbit = _ascii_orbit({lead}, plan.inline_flags)
    middle = _ascii_orbit(middle, plan.inline_flags) | {c for c in middle if not c.isascii()}
    if not lead.isascii() or lead_orbit != {lead} or lead in middle:
        return None
    allowed = _ascii_orbit(first, plan.inline_flags) | {c for c in middle if c.isascii()}
    return bytes(1 if chr(b) in allowed else 0 for b in range(256)), lead_arg


def _inert_bytes(plan: RegexPlan) -> bytes | None:
    """1 for the ASCII bytes that are not word characters and that no part of the regex's body can match (its
    literals and classes, both cases under ``i``), else 0; None when the body has another construct (``.``, a
    negated class, a category, an anchor...) whose characters are not listed."""
    parsed = _parsed_group_body(plan)
    if parsed is None:
        return None
    chars: set[str] = set()

    def walk(items: list[Any]) -> bool:
        for op, arg in items:
            if op is sre_constants.LITERAL:
                chars.add(chr(arg))
            elif op is sre_constants.IN:
                for sub_op, sub_arg in arg:
                    if sub_op is sre_constants.LITERAL:
                        chars.add(chr(sub_arg))
                    elif sub_op is sre_constants.RANGE:  # ASCII members, and the two that fold to ASCII
                        low, high = sub_arg
                        chars.update(chr(c) for c in range(low, min(high, 0x7F) + 1))
                        chars.update(chr(c) for c in (0x17F, 0x212A) if low <= c <= high)
                    else:
                        return False
            elif op is sre_constants.SUBPATTERN:
                if not walk(list(arg[-1])):
                    return False
            elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
                if not walk(list(arg[2])):
                    return False
            elif op is sre_constants.BRANCH:
                if not all(walk(list(branch)) for branch in arg[1]):
                    return False
            else:
                return False
        return True

    if not walk(parsed):
        return None
    matched = _ascii_orbit(chars, plan.inline_flags)
    return bytes(1 if b < 0x80 and chr(b) not in matched and not _ASCII_WORD[b] else 0 for b in range(256))


def _group_at_keys(matcher: EntityMatcher, keys: list[tuple[int, str, bool, bool]]) -> None:
    """For a group of one case-insensitive regex with a lead byte (:func:`_group_lead`; the e-mail fallback):
    where the regex is earlier in order than an indexed literal, the regex's match at an occurrence of the
    literal's key, worked out once at compile time (the regex's own anchored program on the key followed by an
    inert byte).

    Why it is exact: on an ASCII document the occurrence's bytes are the key's up to ASCII case, which a
    case-insensitive regex does not see; when the byte after the occurrence is *inert* (not a word character and
    matched by no literal or class of the body, :func:`_inert_bytes`), the regex cannot consume it or anything
    after it, and its boundary reads it as a non-word byte, as it reads the inert byte the key was tried with. So
    the program's answer on the key is its answer at the occurrence (the left boundary is checked at run time).
    A bank whose builder ranks contacts after the fallback (25k patterns and more) otherwise asks RE2 once per
    such address in a document."""
    single, _left, _right = matcher.group_single  # type: ignore[misc]
    plan = matcher.plans[single]
    if plan is None or "i" not in plan.inline_flags:
        return
    inert = _inert_bytes(plan)
    if inert is None or not any(inert):
        return
    sentinel = b"," if inert[0x2C] else bytes([inert.index(1)])
    program = matcher.verifier(single)
    anchor = _re2_module().RE2.Anchor.ANCHOR_START
    table = [-2] * len(matcher.detectors)
    for index, key, _lw, _rw in keys:
        if index < single or " " in key:
            continue
        probe = key.encode("ascii") + sentinel
        spans = program.Match(anchor, probe, 0, len(probe))
        table[index] = spans[1][1] if spans[0][0] >= 0 and spans[1][1] > 0 else -1
    matcher.group_at_key = table
    matcher.group_inert = inert


def _build_shards(indices: list[int], bodies: list[str], detectors: list[Detector], options: Any,
                  shard_size: int) -> list[Shard]:
    """RE2 shards of at most ``shard_size`` of the given detectors (indices ascending, so in detector order)."""
    _re2 = _re2_module()
    return [_build_shard(indices[lo:lo + shard_size], bodies, detectors, options, _re2)
            for lo in range(0, len(indices), shard_size)]


def _build_shard(indices: list[int], bodies: list[str], detectors: list[Detector], options: Any,
                 _re2: Any) -> Shard:
    alternation = "|".join(sorted({bodies[i] for i in indices}))
    finder = _re2.RE2(alternation.encode("utf-8"), options)
    if not finder.ok():
        raise EngineCompileError("a shard does not compile in RE2 (raise max_mem or lower the shard size)")
    matcher_set = _re2.Set(_re2.RE2.Anchor.ANCHOR_START, options)
    for i in indices:
        if matcher_set.Add(bodies[i].encode("utf-8")) < 0:
            raise EngineCompileError("a detector does not compile in RE2")
    if not matcher_set.Compile():
        raise EngineCompileError("a shard's RE2::Set does not compile (raise max_mem or lower the shard size)")
    return Shard(indices, finder, matcher_set, _unique_keys(indices, detectors))


def _unique_keys(indices: list[int], detectors: list[Detector]) -> dict[str, int] | None:
    """Fold -> detector index when the shard qualifies for the Set-free path (see :class:`Shard`), else None."""
    keys: dict[str, int] = {}
    for i in indices:
        det = detectors[i]
        value = det.value
        if det.kind != "literal" or not value.isascii() or any(ch in WHITE_SPACE for ch in value):
            return None
        keys[value.casefold()] = i
    if len(keys) != len(indices):
        return None
    ordered = sorted(keys)
    if any(b.startswith(a) for a, b in zip(ordered, ordered[1:])):
        return None
    return keys


def _probe_empty(matcher: EntityMatcher) -> None:
    """Reject a bank if any regex detector can match the empty string on NERB's probes (spec 50 §4.2 step 6)."""
    for index, plan in enumerate(matcher.plans):
        if plan is None:
            continue
        for probe in ZERO_LENGTH_PROBES:
            data = probe.encode("utf-8")
            anchor = _re2_module().RE2.Anchor.ANCHOR_START
            for pos in range(len(data) + 1):
                spans = matcher.verifier(index).Match(anchor, data, pos, len(data))
                if spans[0][0] >= 0 and spans[1][1] == spans[1][0]:
                    raise EngineCompileError(f"entity {matcher.entity_id}: a detector matches the empty string")


def iter_scan(compiled: CompiledBank, documents: Iterable[tuple[str, bytes]],
              offsets: str = "byte") -> Iterable[dict[str, Any]]:
    """Batch scan: records of each (document_id, bytes) pair in input order, each prefixed with ``document_id``."""
    for document_id, data in documents:
        for record in compiled.scan_bytes(data, offsets):
            yield {"document_id": document_id, **record}
