"""Scan a JSON document streamed from disk, in bounded memory, with the rules of :func:`json_scan.scan_json`.

An incremental tokenizer (one regular expression per token over a window of decoded text) drives a stack of open
containers; nothing but the open containers' state is held: per container its path, its position, its keys (for the
duplicate test), the pieces of its joined views (an array's records view included, fed by its elements as they are
read; while they are few and short; past ``HELD_PIECES`` or ``HELD_CHARS`` the views are scanned as sliding windows
instead, :class:`joined.JoinedScan`, holding one window per view, with the same findings as in memory) and the first
4,097 elements of an array (for the text it may spell). Each
string is scanned when it is read, each container's joined views when it closes (screened in batches). A string
longer than ``HOLD_CHARS`` is not held: it is validated and measured piece by piece and raises what any string over
the normaliser's budget raises.

The JSON rules of the strict loader are kept: the grammar of ``json.loads``, NaN and Infinity refused, duplicate
keys, lone surrogate escapes, numbers out of range, a BOM, nesting deeper than 100 levels. The first such problem is
returned (as the loader's :class:`LoadProblem`: code, pointer, line and column) and the caller scans the file as text
instead, as it does for a small file that does not load. What is *not* enforced is the verifier's size limits
(bytes, 250,000 values, 10,000 members, 4,096 characters per string): those are why a file is streamed.

Differences from the in-memory scan, by design: a promotion-gate target is skipped by the path rules only when it
is built from schema words and indices (the document is not held, so a target cannot be resolved into it); and when
a file has more findings than the report limit, the ones kept are the first in document order.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterator
from json.decoder import scanstring
from typing import Any

from nerb_verify import pointers
from nerb_verify.findings import Collector
from nerb_verify.loader import (
    BOM,
    DUPLICATE_KEY,
    INVALID_JSON,
    LONE_SURROGATE,
    NON_FINITE,
    NUMBER_RANGE,
    TOO_DEEP,
    LoadProblem,
)
from nerb_verify.privacy import messages
from nerb_verify.privacy.engine import TOO_LONG, scan_string
from nerb_verify.privacy.joined import JOINED_BUDGET, JoinedScan, joined_findings
from nerb_verify.privacy.json_scan import (
    _MAX_SPELLED,
    _MIN_SPELLED,
    IDENTIFIER_NUMBER,
    RECORDS,
    RecordGroups,
    _free_form,
    _identifier_length,
    _schema_word_pointer,
)
from nerb_verify.privacy.profiles import Profile

MAX_DEPTH = 100
MAX_INT_DIGITS = 4300
MAX_ABS_NUMBER = 1e300
# Strings longer than this are measured, never held (any string over the normaliser's 16,384 characters raises only
# privacy.string_too_long; a container's joined views cannot window a string not held and fail closed).
HOLD_CHARS = 1 << 20
# A container's joined-view pieces are held (and screened in batches) up to this many pieces or characters; past
# it they are fed to a sliding-window join (:class:`joined.JoinedScan`) as they are read.
HELD_PIECES = 16384
HELD_CHARS = 262144
# Closed containers whose joined views wait to be screened together.
BATCH_CHARS = 1 << 18
BATCH_CONTAINERS = 4096

_TOKEN = re.compile(
    r'[ \t\n\r]*(?:("[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*")'
    r"|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)|([{}\[\]:,])|(true|false|null))")
_NUMBER_MORE = frozenset("0123456789.eE+-")
_WHITE = re.compile(r"[ \t\n\r]*")
_BODY = re.compile(r'[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*')
_SURROGATE = re.compile("[\ud800-\udfff]")
# A piece of a long string that ends in a high-surrogate escape keeps it for the next piece (a pair is never cut).
_HIGH_AT_END = re.compile(r"(?<!\\)(?:\\\\)*\\u[dD][89abAB][0-9a-fA-F]{2}$")


# The marker queued when an array closes: ``(_RECORDS_END, path, whether it has two rows or more)``.
_RECORDS_END = "records_end"


class _Fail(Exception):
    def __init__(self, problem: LoadProblem) -> None:
        super().__init__(problem.code)
        self.problem = problem


class _LongString:
    """A string too long to hold: its length and a digest (for the duplicate-key test)."""

    __slots__ = ("length", "digest")

    def __init__(self, length: int, digest: str) -> None:
        self.length = length
        self.digest = digest


class _Frame:
    """One open container."""

    __slots__ = ("is_object", "path", "count", "key", "state", "keys", "pieces", "piece_count", "piece_chars",
                 "values", "value_count", "value_chars", "spell", "spell_kind", "length", "parent", "fed",
                 "records", "record_elements")

    def __init__(self, is_object: bool, path: tuple[tuple[str | int, int], ...],
                 parent: _Frame | None = None) -> None:
        self.is_object = is_object
        self.path = path
        self.count = 0
        self.key: Any = None
        self.state = 0  # object: 0 key or '}', 1 ':', 2 value, 3 ',' or '}', 4 key; array: 0 value or ']', 2, 3
        self.keys: set[Any] = set()
        # Joined-view pieces, held while few and short; past that a sliding-window join (counts still kept).
        self.pieces: list[str] | JoinedScan = []
        self.piece_count = 0
        self.piece_chars = 0
        self.values: list[str] | JoinedScan = []
        self.value_count = 0
        self.value_chars = 0
        self.spell: list[Any] | None = []
        self.spell_kind = ""
        self.length = 0
        # An element of an array feeds its strings (an object's string values, an array's strings) to the array's
        # records view (``json_scan.records_views``) as they are read; ``fed``: whether it fed any.
        self.parent = parent
        self.fed = False
        self.records = RecordGroups()  # (an array's records view, cut into groups as it is fed)
        self.record_elements = 0  # elements that fed the records view


def _held(held: list[str] | JoinedScan, piece: str | _LongString, count: int, chars: int,
          profile: Profile) -> list[str] | JoinedScan:
    """Add ``piece`` to one view's pieces: held in a list while within ``HELD_PIECES`` and ``HELD_CHARS``, else in a
    sliding-window join (the held pieces first); a string not held (:class:`_LongString`) cannot be windowed."""
    if isinstance(held, list):
        if not isinstance(piece, _LongString) and count <= HELD_PIECES and chars <= HELD_CHARS:
            held.append(piece)
            return held
        window = JoinedScan(profile)
        for earlier in held:
            window.add(earlier)
        held = window
    if isinstance(piece, _LongString):
        held.add_unseen()
    else:
        held.add(piece)
    return held


def _add_piece(frame: _Frame, piece: str | _LongString, values: bool, scanner: _Scanner | None) -> None:
    """Count ``piece`` into the frame's joined views; hold or window it only when scanning (a parse-only run joins
    nothing)."""
    size = piece.length if isinstance(piece, _LongString) else len(piece)
    frame.piece_count += 1
    frame.piece_chars += size
    if scanner is not None:
        frame.pieces = _held(frame.pieces, piece, frame.piece_count, frame.piece_chars, scanner.profile)
    if values:
        frame.value_count += 1
        frame.value_chars += size
        if scanner is not None:
            frame.values = _held(frame.values, piece, frame.value_count, frame.value_chars, scanner.profile)


def _add_record(frame: _Frame, piece: str | _LongString, scanner: _Scanner | None) -> None:
    """Feed a string of an array's element (``frame``) to the array's records view; queue each group it closes. A
    string not held ends the group before it, and the view fails closed (it cannot be joined)."""
    parent = frame.parent
    if parent is None or scanner is None:
        return
    frame.fed = True
    if isinstance(piece, _LongString):
        group = parent.records.finish()
        if group is not None:
            scanner.queue((RECORDS, parent.path), group)
        scanner.queue((RECORDS, parent.path), {JOINED_BUDGET})
        return
    group = parent.records.add(piece)
    if group is not None:
        scanner.queue((RECORDS, parent.path), group)


class _Scanner:
    def __init__(self, profile: Profile, collector: Collector, artifact: str, limit: int) -> None:
        self.profile = profile
        self.collector = collector
        self.artifact = artifact
        self.limit = limit
        self.added = 0
        self.stopped = False
        self.vocabulary = pointers.known_keys()
        self.batch: list[tuple[Any, list[str] | set[str]]] = []  # (path or (RECORDS, path), pieces or codes)
        self.batch_chars = 0
        # The joined codes reported at elements of arrays, and the codes of an array's records groups, by the array's
        # path, until its records view is reported (only nonempty sets are kept: bounded by the findings reported and
        # by the open arrays).
        self.element_codes: dict[tuple[tuple[str | int, int], ...], set[str]] = {}
        self.records_found: dict[tuple[tuple[str | int, int], ...], set[str]] = {}

    def hit(self, code: str, pointer: str, where: messages.Label) -> None:
        if self.stopped:
            return
        if self.added >= self.limit:
            self.collector.add(messages.TRUNCATED, self.artifact, "")
            self.stopped = True
            return
        messages.add(self.collector, code, self.artifact, pointer, where, self.profile.name)
        self.added += 1

    def codes(self, value: str | _LongString, skip_paths: bool = False) -> frozenset[str]:
        if isinstance(value, _LongString):
            return frozenset({TOO_LONG})
        return scan_string(value, self.profile, skip_paths)

    def scalar(self, value: Any, path: tuple[tuple[str | int, int], ...], skip_paths: bool) -> None:
        if self.stopped:
            return
        if isinstance(value, (str, _LongString)):
            codes = self.codes(value, skip_paths)
            if codes:
                pointer = pointers.for_path(path)
                for code in sorted(codes):
                    self.hit(code, pointer, messages.VALUE)
        elif type(value) is int and _identifier_length(value) and _free_form(path):
            self.hit(IDENTIFIER_NUMBER, pointers.for_path(path), messages.NUMBER)

    def key(self, frame: _Frame, key: str | _LongString, position: int) -> None:
        if self.stopped:
            return
        codes = self.codes(key)
        if codes:
            base = pointers.for_path(frame.path)
            for code in sorted(codes):
                self.hit(code, f"{base}/@key:{position}", messages.KEY)

    def joined(self, frame: _Frame) -> None:
        """Queue the joined views of a closed container (pieces; sibling values too when unknown keys are
        pieces), as ``scan_json`` collects them: held pieces to be screened in a batch, a windowed view's codes as
        they are (a window holding a string too long to hold fails closed)."""
        views: list[list[str] | JoinedScan] = []
        if frame.piece_count >= 2:
            views.append(frame.pieces)
        if frame.is_object and frame.value_count != frame.piece_count and frame.value_count >= 2:
            views.append(frame.values)
        for pieces in views:
            self.queue(frame.path, pieces.codes() if isinstance(pieces, JoinedScan) else pieces)
        if not frame.is_object:
            # The records view's last group, then the marker that reports the view (after every element's own views,
            # which were queued as the elements closed): only with two elements or more, as ``scan_json`` does.
            last = frame.records.finish()
            rows = frame.record_elements >= 2
            if last is not None and rows:
                self.queue((RECORDS, frame.path), last)
            if frame.record_elements:
                self.queue((_RECORDS_END, frame.path, rows), set())

    def queue(self, key: Any, pieces: list[str] | set[str]) -> None:
        """Queue one view (held pieces, or the codes of a view already scanned) or a records marker."""
        self.batch.append((key, pieces))
        if isinstance(pieces, list):
            self.batch_chars += sum(len(piece) for piece in pieces)
        if self.batch_chars >= BATCH_CHARS or len(self.batch) >= BATCH_CONTAINERS:
            self.flush()

    def flush(self) -> None:
        """Report the queued containers' joined findings in the order they closed."""
        if self.batch and not self.stopped:
            held = [(index, pieces) for index, (_path, pieces) in enumerate(self.batch) if isinstance(pieces, list)]
            codes_at: dict[int, set[str]] = {index: codes for index, (_path, codes) in enumerate(self.batch)
                                             if isinstance(codes, set) and codes}
            for index, codes in joined_findings(held, self.profile):
                codes_at[index] = codes  # type: ignore[index]
            for index, (key, _pieces) in enumerate(self.batch):
                codes = codes_at.get(index)
                if key and key[0] == RECORDS:
                    if codes:
                        self.records_found.setdefault(key[1], set()).update(codes)
                    continue
                if key and key[0] == _RECORDS_END:
                    # The array closed after its elements, so their joined codes are known (``without_element_codes``).
                    found = self.records_found.pop(key[1], set()) - self.element_codes.pop(key[1], set())
                    if key[2] and found:
                        pointer = pointers.for_path(key[1])
                        for code in sorted(found):
                            self.hit(code, pointer, messages.JOINED)
                    continue
                if not codes:
                    continue
                if key and type(key[-1][0]) is int:
                    self.element_codes.setdefault(key[:-1], set()).update(codes)
                pointer = pointers.for_path(key)
                for code in sorted(codes):
                    self.hit(code, pointer, messages.JOINED)
        self.batch, self.batch_chars = [], 0

    def spelled(self, frame: _Frame) -> None:
        items = frame.spell
        if items is None or not _MIN_SPELLED <= frame.length <= _MAX_SPELLED or frame.spell_kind == "":
            return
        text = "".join(map(chr, items)) if frame.spell_kind == "int" else "".join(items)
        codes = scan_string(text, self.profile)
        if codes:
            pointer = pointers.for_path(frame.path)
            for code in sorted(codes):
                self.hit(code, pointer, messages.ARRAY)


def _spell(frame: _Frame, value: Any) -> None:
    """Track whether an array spells text: every element a character code, or every one a 1-2 character string."""
    if frame.spell is None:
        return
    if frame.length > _MAX_SPELLED:
        frame.spell = None
        return
    if type(value) is int and 9 <= value <= 0xFFFF and not 0xD800 <= value <= 0xDFFF:
        kind = "int"
    elif isinstance(value, str) and len(value) <= 2:
        kind = "str"
    else:
        frame.spell = None
        return
    if frame.spell_kind and frame.spell_kind != kind:
        frame.spell = None
        return
    frame.spell_kind = kind
    frame.spell.append(value)


def _is_gate_target(path: tuple[tuple[str | int, int], ...], value: Any) -> bool:
    if len(path) != 4 or not isinstance(value, str):
        return False
    (first, _), (second, _), (index, _), (last, _) = path
    return (first, second, last) == ("promotion", "checks", "target") and isinstance(index, int) \
        and _schema_word_pointer(value)


def _number(token: str) -> Any:
    if "." in token or "e" in token or "E" in token:
        value = float(token)
        if not math.isfinite(value) or abs(value) > MAX_ABS_NUMBER:
            return None
        return value
    digits = len(token) - (token[0] == "-")
    if digits > MAX_INT_DIGITS:
        return None
    number = int(token)
    if digits >= 300 and abs(number) > MAX_ABS_NUMBER:
        return None
    return number


class _Parser:
    """The tokenizer and the container stack; see the module docstring."""

    def __init__(self, scanner: _Scanner | None) -> None:
        self.scanner = scanner
        self.stack: list[_Frame] = []
        self.done = False  # the root value is complete
        self.buffer = ""
        self.lines_before = 0  # line feeds before ``buffer``
        self.column_base = 0  # characters after the last line feed before ``buffer``

    # --- positions --------------------------------------------------------------------------------------------
    def _drop(self, upto: int) -> None:
        dropped = self.buffer[:upto]
        newlines = dropped.count("\n")
        if newlines:
            self.lines_before += newlines
            self.column_base = len(dropped) - dropped.rfind("\n") - 1
        else:
            self.column_base += len(dropped)
        self.buffer = self.buffer[upto:]

    def fail(self, code: str, at: int, pointer: str = "", positioned: bool = True, message: str | None = None):
        line = column = None
        if positioned:
            before = self.buffer[:at]
            newlines = before.count("\n")
            line = self.lines_before + newlines + 1
            column = (at - before.rfind("\n")) if newlines else self.column_base + at + 1
        raise _Fail(LoadProblem(code, pointer, line=line, column=column, message=message))

    # --- values -----------------------------------------------------------------------------------------------
    def value(self, value: Any, at: int) -> None:
        """A scalar value (``at``: its position in the buffer, for errors)."""
        stack = self.stack
        if not stack:
            if self.done:
                self.fail(INVALID_JSON, at)
            self.done = True
            if self.scanner is not None:
                self.scanner.scalar(value, (), False)
            return
        frame = stack[-1]
        if frame.state != 2 and not (frame.state == 0 and not frame.is_object):
            self.fail(INVALID_JSON, at)
        scanner = self.scanner
        if frame.is_object:
            path = frame.path + ((frame.key, frame.count),)
            gate = False
            if isinstance(value, (str, _LongString)):
                gate = scanner is not None and scanner.profile.permit_gate_targets and _is_gate_target(path, value)
                if not gate:
                    _add_piece(frame, value, values=True, scanner=scanner)
                    _add_record(frame, value, scanner)
            if scanner is not None and (isinstance(value, (str, _LongString))
                                        or (scanner.profile.flag_numbers and type(value) is int)):
                scanner.scalar(value, path, gate)
            frame.count += 1
        else:
            index = frame.count
            _spell(frame, value)
            frame.length += 1
            if isinstance(value, (str, _LongString)):
                _add_piece(frame, value, values=False, scanner=scanner)
                _add_record(frame, value, scanner)
            if scanner is not None and (isinstance(value, (str, _LongString))
                                        or (scanner.profile.flag_numbers and type(value) is int)):
                scanner.scalar(value, frame.path + ((index, index),), False)
            frame.count += 1
        frame.state = 3

    def key(self, key: Any, at: int) -> None:
        frame = self.stack[-1]
        identity = ("long", key.digest) if isinstance(key, _LongString) else key
        if identity in frame.keys:
            self.fail(DUPLICATE_KEY, at, pointers.for_path(frame.path))
        frame.keys.add(identity)
        frame.key = key if isinstance(key, str) else ""
        if not (isinstance(key, str) and key in (self.scanner.vocabulary if self.scanner else ())):
            _add_piece(frame, key, values=False, scanner=self.scanner)
        if self.scanner is not None:
            self.scanner.key(frame, key, frame.count)
        frame.state = 1

    def open(self, is_object: bool, at: int) -> None:
        stack = self.stack
        if not stack:
            if self.done:
                self.fail(INVALID_JSON, at)
            path: tuple[tuple[str | int, int], ...] = ()
        else:
            frame = stack[-1]
            if frame.state != 2 and not (frame.state == 0 and not frame.is_object):
                self.fail(INVALID_JSON, at)
            if frame.is_object:
                path = frame.path + ((frame.key, frame.count),)
            else:
                path = frame.path + ((frame.count, frame.count),)
                frame.spell = None
                frame.length += 1
            frame.count += 1
            frame.state = 3
        if len(stack) >= MAX_DEPTH:
            self.fail(TOO_DEEP, at, positioned=False,
                      message=f"JSON nesting is deeper than {MAX_DEPTH} levels.")
        parent = stack[-1] if stack and not stack[-1].is_object else None
        stack.append(_Frame(is_object, path, parent))

    def close(self, is_object: bool, at: int) -> None:
        stack = self.stack
        if not stack:
            self.fail(INVALID_JSON, at)
        frame = stack[-1]
        if frame.is_object != is_object or frame.state not in (0, 3):
            self.fail(INVALID_JSON, at)
        stack.pop()
        if frame.fed and frame.parent is not None:
            frame.parent.record_elements += 1
        if self.scanner is not None:
            if not is_object:
                self.scanner.spelled(frame)
            self.scanner.joined(frame)
        if not stack:
            self.done = True

    def punct(self, mark: str, at: int) -> None:
        if mark == "{" or mark == "[":
            self.open(mark == "{", at)
        elif mark == "}" or mark == "]":
            self.close(mark == "}", at)
        else:
            frame = self.stack[-1] if self.stack else None
            if frame is None:
                self.fail(INVALID_JSON, at)
            elif mark == ":" and frame.is_object and frame.state == 1:
                frame.state = 2
            elif mark == "," and frame.state == 3:
                frame.state = 4 if frame.is_object else 2
            else:
                self.fail(INVALID_JSON, at)

    def string(self, raw: str, at: int) -> None:
        value = raw[1:-1] if "\\" not in raw else scanstring(raw, 1)[0]
        if "\\u" in raw and _SURROGATE.search(value):
            frame = self.stack[-1] if self.stack else None
            if frame is not None and frame.is_object and frame.state in (0, 4):
                pointer = pointers.for_path(frame.path + ((value, frame.count),))
            else:
                pointer = self._pointer_here()
            self.fail(LONE_SURROGATE, at, pointer, positioned=False)
        self._string_value(value, at)

    def _string_value(self, value: Any, at: int) -> None:
        frame = self.stack[-1] if self.stack else None
        if frame is not None and frame.is_object and frame.state in (0, 4):
            self.key(value, at)
        else:
            self.value(value, at)

    def _pointer_here(self) -> str:
        frame = self.stack[-1] if self.stack else None
        if frame is None:
            return ""
        if frame.is_object and frame.state in (0, 4):
            return pointers.for_path(frame.path)
        child = (frame.key, frame.count) if frame.is_object else (frame.count, frame.count)
        return pointers.for_path(frame.path + (child,))

    # --- the loop ---------------------------------------------------------------------------------------------
    def run(self, pieces: Iterator[str]) -> None:
        match = _TOKEN.match
        eof = False
        first = True
        while True:
            if not eof:
                piece = next(pieces, None)
                if piece is None:
                    eof = True
                else:
                    if first and piece.startswith("\ufeff"):
                        raise _Fail(LoadProblem(BOM))
                    first = False
                    self.buffer += piece
            buffer = self.buffer
            end = len(buffer)
            pos = 0
            while True:
                found = match(buffer, pos)
                if found is None:
                    break
                kind = found.lastindex
                if kind == 2 and not eof and (found.end() == end or buffer[found.end()] in _NUMBER_MORE):
                    break  # the number may go on in the next piece (or is followed by what makes it invalid)
                start = found.start(kind)
                if kind == 1:
                    self.string(found.group(1), start)
                elif kind == 3:
                    self.punct(found.group(3), start)
                elif kind == 2:
                    number = _number(found.group(2))
                    if number is None:
                        self.fail(NUMBER_RANGE, start, self._pointer_here(), positioned=False)
                    self.value(number, start)
                else:
                    word = found.group(4)
                    self.value(True if word == "true" else False if word == "false" else None, start)
                pos = found.end()
            pos = _WHITE.match(buffer, pos).end()
            if pos == end:
                if eof:
                    break
                self._drop(pos)
                continue
            # No complete token at ``pos``: more text is needed, a long string begins, or the text is not JSON.
            head = buffer[pos:pos + 9]
            if head.startswith(("NaN", "Infinity", "-Infinity")):
                self.fail(NON_FINITE, pos, positioned=False)
            if buffer[pos] == '"':
                body = _BODY.match(buffer, pos + 1).end()
                if body == end or (buffer[body] == "\\" and end - body < 6 and not eof):
                    if eof:
                        self.fail(INVALID_JSON, pos)
                    if end - pos > HOLD_CHARS:
                        self._drop(pos)
                        self._long_string(pieces)
                        continue
                    self._drop(pos)
                    continue
                self.fail(INVALID_JSON, body if buffer[body] != '"' else pos)
            if eof or end - pos > 65536:
                self.fail(INVALID_JSON, pos)
            self._drop(pos)
        if not self.done or self.stack:
            self.fail(INVALID_JSON, len(self.buffer))
        if self.scanner is not None:
            self.scanner.flush()

    def _long_string(self, pieces: Iterator[str]) -> None:
        """The buffer starts with a string token too long to hold: validate, decode and measure it piece by piece,
        then go on after its closing quote with a :class:`_LongString` as the value or key."""
        at_line, at_column = self.lines_before, self.column_base
        digest = hashlib.sha256()
        length = 0
        position = 1
        while True:
            buffer = self.buffer
            body = _BODY.match(buffer, position).end()
            closed = body < len(buffer) and buffer[body] == '"'
            if body < len(buffer) and not closed and not (buffer[body] == "\\" and len(buffer) - body < 6):
                self.fail(INVALID_JSON, body)
            part = buffer[position:body]
            if not closed:
                tail = _HIGH_AT_END.search(part)
                if tail:
                    body -= 6
                    part = part[:-6]
            decoded = scanstring('"' + part + '"', 1)[0]
            if "\\u" in part and _SURROGATE.search(decoded):
                self.fail(LONE_SURROGATE, 0, self._pointer_here(), positioned=False)
            digest.update(decoded.encode("utf-8", "surrogatepass"))
            length += len(decoded)
            if closed:
                self._drop(body + 1)
                break
            self._drop(body)
            position = 0
            piece = next(pieces, None)
            if piece is None:
                self.lines_before, self.column_base = at_line, at_column
                raise _Fail(LoadProblem(INVALID_JSON, line=at_line + 1, column=at_column + 1))
            self.buffer += piece
        self._string_value(_LongString(length, digest.hexdigest()), 0)


def scan_json_stream(pieces: Iterator[str], profile: Profile, collector: Collector, artifact: str,
                     limit: int = messages.MAX_FINDINGS_PER_FILE) -> LoadProblem | None:
    """Scan the JSON document that the decoded ``pieces`` spell into ``collector`` (see the module docstring).

    Returns None when the document is JSON, else the first problem that makes it not JSON (the findings added so
    far are then meaningless: the caller scans into a scratch collector and discards it)."""
    parser = _Parser(_Scanner(profile, collector, artifact, limit))
    try:
        parser.run(pieces)
    except _Fail as failure:
        return failure.problem
    except RecursionError:  # pragma: no cover - the stack is explicit
        return LoadProblem(TOO_DEEP)
    return None
