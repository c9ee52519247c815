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

How it runs. Each entity's detectors are split into shards (at most ``shard_size`` detectors). A shard has a
*finder*, one RE2 alternation of every detector's boundary-free body, sorted lexicographically (RE2 factors common
prefixes of adjacent alternatives, so this compiles 100k aliases in seconds), and an anchored ``RE2::Set`` over the
same bodies in detector order. The finder's leftmost start ``s`` is the smallest start at which any detector *could*
match (a boundary only removes matches). At ``s`` the Set reports every detector whose body matches there; in
detector order, each is confirmed with its own anchored verifier (compiled lazily, cached) and its word boundaries;
the first that holds wins. If none holds, the cursor advances one character. This is exact, not heuristic: the
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
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable

from nerb_verify.producers import INSTALL_PRODUCERS
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
ZERO_LENGTH_PROBES = ("", "a", " a ", "\nword\n")

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
    installed ``regex`` module's Unicode version). ``str.isalpha()`` is not enough (it misses e.g. circled letters)."""
    return _word_regex().match(ch) is not None


@lru_cache(maxsize=1)
def re2_word_class() -> str:
    """The Unicode word class as an explicit RE2 character class of code-point ranges (surrogates excluded)."""
    import regex

    from array import array

    points = array("I", range(0xD800))
    points.extend(range(0xE000, 0x110000))
    every = points.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")
    runs = regex.finditer(r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]+", every)
    parts = []
    for run in runs:
        lo, hi = ord(every[run.start()]), ord(every[run.end() - 1])
        parts.append(f"\\x{{{lo:X}}}" if lo == hi else f"\\x{{{lo:X}}}-\\x{{{hi:X}}}")
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


@dataclass
class EntityMatcher:
    """One entity's ordered detectors, their shards and lazily compiled per-detector verifiers."""

    entity_id: str
    detectors: list[Detector]
    bodies: list[str]
    plans: list[RegexPlan | None]
    shards: list[Shard]
    options: Any
    verifiers: dict[int, Any] = field(default_factory=dict)

    def verifier(self, index: int) -> Any:
        """The anchored RE2 program for one detector: its body, plus the right-boundary capture for a regex."""
        compiled = self.verifiers.get(index)
        if compiled is None:
            plan = self.plans[index]
            if plan is not None and plan.right_word:
                source = f"({self.bodies[index]})(?-i:\\z|[^{re2_word_class()[1:-1]}])"
            else:
                source = f"({self.bodies[index]})"
            compiled = _re2_module().RE2(source.encode("utf-8"), self.options)
            if not compiled.ok():
                raise EngineCompileError(f"entity {self.entity_id}: a detector does not compile in RE2")
            self.verifiers[index] = compiled
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

    @property
    def bank_hash(self) -> str:
        """The canonical hash of the compiled bank (computed on demand: compile stays compile)."""
        return canonical_hash(self.bank)

    def scan_bytes(self, data: bytes, offsets: str = "byte") -> list[dict[str, Any]]:
        """Scan UTF-8 bytes (<= 10 MiB, strictly valid) and return the sorted records (spec 50 §4.4)."""
        if len(data) > MAX_SCAN_BYTES:
            raise ScanInputError("scan input exceeds 10,485,760 bytes")
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ScanInputError("scan input is not valid UTF-8") from exc
        if offsets not in ("byte", "char"):
            raise ValueError("offsets must be 'byte' or 'char'")
        # (start, end, entity_id, name_id, pattern_id) is unique (matches never overlap within an entity), so
        # sorting these tuples is the record order (start, end, entity_id, name_id, pattern_id, string).
        raw: list[tuple[int, int, str, str, str, Detector]] = []
        for matcher in self.entities:
            dets = matcher.detectors
            for s, e, i in matcher.scan(data):
                d = dets[i]
                raw.append((s, e, d.entity_id, d.name_id, d.pattern_id, d))
        raw.sort()
        records = []
        for s, e, _, _, _, det in raw:
            record = _record_template(det).copy()
            record["string"] = data[s:e].decode("utf-8")
            record["start"] = s
            record["end"] = e
            record["captures"] = {}
            records.append(record)
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


@lru_cache(maxsize=262_144)
def _record_template(det: Detector) -> dict[str, Any]:
    """A detector's record fields in NERB's key order; each record is a copy with its own span, string, captures."""
    return {"entity": det.entity_id, "canonical_name": det.canonical_name, "surface_name": det.surface_name,
            "string": "", "start": 0, "end": 0, "offset_unit": "byte", "entity_id": det.entity_id,
            "name_id": det.name_id, "pattern_id": det.pattern_id, "pattern_kind": det.kind, "captures": None}


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
                 max_mem: int = DEFAULT_MAX_MEM) -> CompiledBank:
    """Compile the active part of a validated bank (spec 50 §4.2): order detectors, build shards, probe for empty
    matches. Raises :class:`EngineCompileError` when the declared semantics cannot be reproduced."""
    _re2 = _re2_module()
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
    entities: list[EntityMatcher] = []
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
        shards = [_build_shard(list(range(lo, min(lo + shard_size, len(detectors)))), bodies, detectors, options,
                               _re2)
                  for lo in range(0, len(detectors), shard_size)]
        matcher = EntityMatcher(entity_id, detectors, bodies, plans, shards, options)
        _probe_empty(matcher)
        entities.append(matcher)
        total += len(detectors)
    return CompiledBank(bank["id"], bank, entities, total)


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
