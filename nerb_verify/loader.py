"""Strict, bounded reading and parsing of JSON artifacts.

Hostile files must produce a finding, never a traceback, and never make the verifier allocate without bound. So:

1. :func:`read_regular_file` opens only regular files, never through a symlink (``lstat`` first, ``O_NOFOLLOW`` open,
   device and inode compared), and reads at most ``max_bytes + 1`` bytes.
2. :func:`parse_json_bytes` rejects a BOM and invalid UTF-8, then runs a preflight over the text *before* any Python
   object is built: strings are blanked out with one regular-expression pass, and the nesting depth and the exact node
   count are computed from the remaining structural characters. Only then is ``json.loads`` run, with hooks that
   reject NaN/Infinity, note duplicate keys and out-of-range numbers, and keep ints and floats apart. (The common
   case skips the preflight and the hooks: a text without a backslash whose commas and opening brackets bound its
   values within the node limit is parsed first, plainly, and accepted only when the walk finds the preflight's
   rules kept and no key repeated; anything else, accepted or not, goes the way just described, so every problem is
   reported as before. See :func:`_plain_parse`.)
3. A post-parse walk enforces per-collection, per-string and total-string limits, finds lone surrogates and turns
   every breach into a code with a JSON Pointer (keys printed only when they are schema vocabulary). A duplicate key
   also gets the line and column of the repeated key, found by a token pass over the text (only when there is one).

A syntax error carries json's line and column in the problem's ``line`` and ``column``; the message does not repeat
them (every output prints the position once, from those fields).
"""

from __future__ import annotations

import errno
import hashlib
import json
import math
import os
import re
import stat
from itertools import accumulate
from pathlib import Path
from typing import Any, Literal, NamedTuple

from nerb_verify import pointers
from nerb_verify.codes import register

NOT_REGULAR = register(
    "load.not_regular_file", "Path is not a regular file.",
    "Artifacts must be regular files. Directories, devices, sockets and FIFOs are refused without being opened.")
SYMLINK = register(
    "load.symlink", "Path is a symbolic link; it was not followed.",
    "The verifier never follows symbolic links inside a bundle: a link can point outside the bundle or change "
    "between check and use. Replace the link by the file itself.")
UNREADABLE = register(
    "load.unreadable", "File could not be read.",
    "The operating system refused to open or read the file (permissions, I/O error), or it changed while read.")
TOO_LARGE = register(
    "load.too_large", "File exceeds the size limit for its kind.",
    "Each artifact kind has a byte cap (16 MiB for manifest and evidence, 32 MiB for other JSON artifacts). "
    "Larger files are refused before they are read in full.")
EMPTY = register(
    "load.empty", "File is empty.",
    "An empty file is missing evidence, never a pass. Publish the artifact or remove its declaration.")
BOM = register(
    "load.bom", "File starts with a UTF-8 byte order mark.",
    "JSON text exchanged between systems must not start with a BOM (RFC 8259 section 8.1); NERB writes none.")
INVALID_UTF8 = register(
    "load.invalid_utf8", "File is not valid UTF-8.",
    "Artifacts must be strict UTF-8 (no invalid sequences, no encoded surrogates, no overlong forms).")
INVALID_JSON = register(
    "load.invalid_json", "File is not valid JSON.",
    "The text does not follow the JSON grammar: a syntax error, a raw control character in a string, or text after "
    "the top-level value. The line and column of the first error are given.")
TOO_DEEP = register(
    "load.too_deep", "JSON nesting is deeper than the limit.",
    "Nesting deeper than 100 levels is refused before parsing, so deeply nested input cannot exhaust the stack.")
TOO_MANY_NODES = register(
    "load.too_many_nodes", "JSON document has more values than the limit.",
    "At most 250,000 values per artifact; counted before parsing so huge arrays are refused without being built.")
COLLECTION_TOO_LARGE = register(
    "load.collection_too_large", "A JSON array or object has more members than the limit.",
    "Each array or object may hold at most 10,000 members.")
STRING_TOO_LONG = register(
    "load.string_too_long", "A JSON string or key is longer than the limit.",
    "Each string value and object key may hold at most 4,096 characters, and all strings together at most 16 MiB.")
DUPLICATE_KEY = register(
    "load.duplicate_key", "A JSON object repeats a key.",
    "Duplicate keys are ambiguous: parsers disagree about which value wins, so a reviewer and a verifier could read "
    "different documents. The pointer names the object, the line and column point at the repeated key; the key "
    "itself is not printed.")
NON_FINITE = register(
    "load.non_finite_number", "A JSON number is NaN or Infinity.",
    "NaN, Infinity and -Infinity are not JSON. They are refused wherever they appear.")
NUMBER_RANGE = register(
    "load.number_out_of_range", "A JSON number is outside the accepted range.",
    "Numbers must have magnitude at most 1e300 (so 1e999, which overflows a double, is refused) and integers at most "
    "4,300 digits.")
LONE_SURROGATE = register(
    "load.lone_surrogate", "A JSON string contains an unpaired surrogate escape.",
    "A \\uD800-\\uDFFF escape that is not part of a surrogate pair is not a Unicode scalar value and cannot be "
    "encoded as UTF-8.")
WRONG_ROOT = register(
    "load.wrong_root_type", "The JSON root has the wrong type for this artifact.",
    "Manifest, evidence and the other documents must be JSON objects; inventories must be arrays.")


class Limits(NamedTuple):
    """Resource limits for one artifact kind (defaults are NERB's contract limits)."""

    max_bytes: int = 16 * 1024 * 1024
    max_depth: int = 100
    max_nodes: int = 250_000
    max_collection: int = 10_000
    max_string: int = 4096
    max_total_string: int = 16 * 1024 * 1024
    max_abs_number: float = 1e300


CONTRACT_LIMITS = Limits()
BUNDLE_LIMITS = Limits(max_bytes=32 * 1024 * 1024)


class LoadProblem(NamedTuple):
    """One reason a file could not be loaded: a code, a pointer into the document, an optional text position."""

    code: str
    pointer: str = ""
    line: int | None = None
    column: int | None = None
    message: str | None = None


class LoadFailure(Exception):
    """Raised inside the loader for the first fatal problem; callers get it back as a :class:`LoadProblem`."""

    def __init__(self, problem: LoadProblem) -> None:
        super().__init__(problem.code)
        self.problem = problem


class LoadedFile:
    """A file read from disk: its bytes, raw-byte hash and size, and the parsed JSON value (or the problems)."""

    def __init__(self, path: Path, raw: bytes, sha256: str, size: int, data: Any = None,
                 problems: list[LoadProblem] | None = None) -> None:
        """Hold what was read; ``problems`` defaults to a new empty list (the file loaded)."""
        self.path: Path = path
        self.raw: bytes = raw
        self.sha256: str = sha256
        self.size: int = size
        self.data: Any = data
        self.problems: list[LoadProblem] = [] if problems is None else problems

    @property
    def ok(self) -> bool:
        return not self.problems


def sha256_prefixed(raw: bytes) -> str:
    """``sha256:`` + lowercase hex SHA-256 of the raw bytes (the form NERB uses for file references)."""
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def open_regular(path: Path, max_bytes: int | None = None) -> tuple[int, int]:
    """Open a regular file for reading without following a symbolic link; returns ``(fd, size)``.

    The file is opened with ``O_NOFOLLOW`` and its device/inode compared with the ``lstat`` result, so a swap
    between check and open is caught (``load.unreadable``); a symbolic link is ``load.symlink``. With ``max_bytes``
    a non-regular file (``load.not_regular_file``) and a file over the cap (``load.too_large``) are refused before
    opening; without it (the streaming scanner reads any size) a non-regular file fails the post-open check.
    Raises :class:`LoadFailure`; the caller closes the descriptor.
    """
    try:
        before = os.lstat(path)
    except OSError:
        raise LoadFailure(LoadProblem(UNREADABLE)) from None
    if stat.S_ISLNK(before.st_mode):
        raise LoadFailure(LoadProblem(SYMLINK))
    if max_bytes is not None:
        if not stat.S_ISREG(before.st_mode):
            raise LoadFailure(LoadProblem(NOT_REGULAR))
        if before.st_size > max_bytes:
            raise LoadFailure(LoadProblem(TOO_LARGE))
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LoadFailure(LoadProblem(SYMLINK)) from None
        raise LoadFailure(LoadProblem(UNREADABLE)) from None
    try:
        opened = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise LoadFailure(LoadProblem(UNREADABLE)) from None
    if (opened.st_dev, opened.st_ino) != (before.st_dev, before.st_ino) or not stat.S_ISREG(opened.st_mode):
        os.close(fd)
        raise LoadFailure(LoadProblem(UNREADABLE, message="File changed between inspection and opening."))
    return fd, opened.st_size


def read_regular_file(path: Path, max_bytes: int) -> bytes:
    """Read a regular file without following symlinks, refusing anything over ``max_bytes``.

    Raises :class:`LoadFailure` with ``load.symlink``, ``load.not_regular_file``, ``load.too_large`` or
    ``load.unreadable`` (the checks of :func:`open_regular`); a file that grows past the cap while read is
    ``load.too_large`` too.
    """
    fd, _size = open_regular(path, max_bytes)
    try:
        return read_open_file(fd, max_bytes)
    finally:
        os.close(fd)


def read_head(fd: int, count: int) -> bytes:
    """The first ``count`` bytes of a file opened by :func:`open_regular` and not read yet (fewer at its end), so
    a caller can look at a file's start before deciding to read it whole. Raises ``load.unreadable``."""
    chunks: list[bytes] = []
    total = 0
    try:
        while total < count:
            chunk = os.read(fd, count - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError:
        raise LoadFailure(LoadProblem(UNREADABLE)) from None
    return b"".join(chunks)


def read_open_file(fd: int, max_bytes: int, head: bytes = b"") -> bytes:
    """``head`` (what :func:`read_head` read of the file) and the rest of the file, read to its end; a file over
    ``max_bytes`` in all is ``load.too_large`` (it grew since it was opened), a read error ``load.unreadable``."""
    chunks: list[bytes] = [head]
    total = len(head)
    if total > max_bytes:
        raise LoadFailure(LoadProblem(TOO_LARGE))
    try:
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise LoadFailure(LoadProblem(TOO_LARGE))
    except OSError:
        raise LoadFailure(LoadProblem(UNREADABLE)) from None
    return b"".join(chunks)


# A JSON string token: quote, then any run of non-quote non-backslash non-control characters or escapes, then quote.
_STRING_TOKEN = re.compile(r'"(?:[^"\\\x00-\x1f]+|\\.)*"', re.S)
# Every byte but the four brackets, deleted by bytes.translate (a C table pass, faster than a regex substitution).
_NOT_BRACKET_BYTES = bytes(b for b in range(256) if b not in b"[]{}")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_SURROGATE_CHAR = re.compile("[\ud800-\udfff]")
_BRACKET_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def _preflight(text: str, limits: Limits) -> str:
    """Bound depth and node count from the raw text before any object is built (see module docstring); returns the
    text with every string token blanked to ``0``.

    The text decoded as strict UTF-8, so it encodes back; characters outside ASCII are never brackets and are
    deleted with the rest.
    """
    blanked = _STRING_TOKEN.sub("0", text)
    brackets = blanked.encode("utf-8").translate(None, _NOT_BRACKET_BYTES)
    if brackets:
        depth = max(accumulate(map(_BRACKET_STEP.__getitem__, brackets)))
        if depth > limits.max_depth:
            raise LoadFailure(LoadProblem(TOO_DEEP, message="JSON nesting is deeper than {limit} levels.".format(
                limit=limits.max_depth)))
    # Every comma separates two values, so commas + 1 never exceeds the number of values: refusing here is never
    # a false positive, and it bounds what json.loads may build (the exact count is taken after parsing).
    if blanked.count(",") + 1 > limits.max_nodes:
        raise LoadFailure(LoadProblem(TOO_MANY_NODES, message="JSON document has more than {limit} values.".format(
            limit=limits.max_nodes)))
    return blanked


class _ParseState:
    """Mutable notes made by the json hooks while parsing (objects with duplicate keys, bad numbers)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.duplicate_objects: list[dict[str, Any]] = []
        self.bad_floats: list[float] = []
        self.pairs = 0  # key/value pairs in all objects, counted by _within_limits when it accepts
        self.depth = 0  # nesting depth of objects and arrays (0 for a scalar root), set by _within_limits
        self.string_colons = 0  # colons inside keys and strings, counted by _within_limits when asked

    def object_pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            self.duplicate_objects.append(result)
        return result

    def parse_float(self, token: str) -> float:
        value = float(token)
        if not math.isfinite(value) or abs(value) > self.limits.max_abs_number:
            # Keep a unique marker object so the walk can locate it by identity.
            marker = float(value)
            self.bad_floats.append(marker)
            return marker
        return value

    @staticmethod
    def parse_constant(token: str) -> float:
        raise LoadFailure(LoadProblem(NON_FINITE))


def invalid_utf8_problem(offset: int) -> LoadProblem:
    """The problem of a file whose first byte sequence that is not UTF-8 starts at byte ``offset``."""
    return LoadProblem(INVALID_UTF8, message=f"File is not valid UTF-8 (first bad byte at offset {offset}).")


def parse_json_bytes(raw: bytes, limits: Limits = CONTRACT_LIMITS,
                     root: Literal["object", "array", "any"] = "object") -> Any:
    """Parse JSON bytes under ``limits`` or raise :class:`LoadFailure` with the first problem found.

    Checks, in order: empty, BOM, strict UTF-8, preflight depth and node count, grammar, NaN/Infinity, then the
    post-parse walk (duplicates, number range, collection and string limits, lone surrogates), then the root type.
    """
    if not raw:
        raise LoadFailure(LoadProblem(EMPTY))
    if raw.startswith(b"\xef\xbb\xbf"):
        raise LoadFailure(LoadProblem(BOM))
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise LoadFailure(invalid_utf8_problem(exc.start)) from None
    if _escape_free_and_small(text, limits):
        data = _plain_parse(text, None, limits, False)
        if data is not _NOT_PLAIN:
            return _checked_root(data, root)
    blanked = _preflight(text, limits)
    check_surrogates = bool(_SURROGATE_ESCAPE.search(text))
    data = _plain_parse(text, blanked, limits, check_surrogates)
    if data is not _NOT_PLAIN:
        return _checked_root(data, root)
    state = _ParseState(limits)
    try:
        data = json.loads(
            text,
            object_pairs_hook=state.object_pairs,
            parse_float=state.parse_float,
            parse_constant=state.parse_constant,
        )
    except LoadFailure:
        raise
    except json.JSONDecodeError as exc:
        raise LoadFailure(LoadProblem(INVALID_JSON, line=exc.lineno, column=exc.colno)) from None
    except ValueError:
        # int() refusing more than sys.get_int_max_str_digits() digits.
        raise LoadFailure(LoadProblem(NUMBER_RANGE)) from None
    except RecursionError:  # pragma: no cover - preflight bounds depth first
        raise LoadFailure(LoadProblem(TOO_DEEP)) from None
    if not _within_limits(data, state, check_surrogates, len(text)):
        _walk(data, state, check_surrogates, text)  # slow path: finds the first breach and raises with its pointer
    return _checked_root(data, root)


_NOT_PLAIN = object()


def _plain_parse(text: str, blanked: str | None, limits: Limits, check_surrogates: bool) -> Any:
    """The common case without per-value hooks: ``json.loads`` in C, accepted only if the fast walk finds every limit
    kept and the objects hold as many pairs as the text has key colons (so no key was repeated). Otherwise
    ``_NOT_PLAIN``, and the caller parses again with the hooks, which find and report the problem exactly as before.

    Equivalent to the hooked parse whenever it accepts: the hooks return ``dict(pairs)`` and ``float(token)``, what
    the C parser builds itself; NaN and Infinity parse here to non-finite floats, which the walk's range test
    refuses; a repeated key makes an object hold fewer pairs than the text has colons outside strings.

    ``blanked`` is the preflight's text (strings blanked), or None for a text without a backslash that
    :func:`_escape_free_and_small` let through before any preflight: there every string token is its decoded value
    between quotes, so the colons outside strings are the text's colons less those in the parsed keys and strings,
    and the preflight's depth rule is checked on the parsed value (its node rule follows from the walk's node count:
    a comma separates two values, so commas + 1 never exceed the values).
    """
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return _NOT_PLAIN
    state = _ParseState(limits)
    if not _within_limits(data, state, check_surrogates, len(text), count_colons=blanked is None):
        return _NOT_PLAIN
    if blanked is None:
        key_colons = text.count(":") - state.string_colons
        if state.depth > limits.max_depth:
            return _NOT_PLAIN
    else:
        key_colons = blanked.count(":")
    return data if state.pairs == key_colons else _NOT_PLAIN


def _escape_free_and_small(text: str, limits: Limits) -> bool:
    """Whether ``text`` may be parsed before the preflight: it has no backslash (so no escape: a string token is its
    value), and its commas and opening brackets, strings included, bound the values ``json.loads`` can build within
    ``max_nodes`` (every value but the root follows a comma or opens its container's contents), so parsing first
    allocates no more than the preflight would have allowed. Anything else takes the preflight first, as before."""
    return "\\" not in text and text.count(",") + text.count("[") + text.count("{") < limits.max_nodes


def _checked_root(data: Any, root: Literal["object", "array", "any"]) -> Any:
    if root == "object" and not isinstance(data, dict):
        raise LoadFailure(LoadProblem(WRONG_ROOT, message="The JSON root must be an object."))
    if root == "array" and not isinstance(data, list):
        raise LoadFailure(LoadProblem(WRONG_ROOT, message="The JSON root must be an array."))
    return data


def _within_limits(data: Any, state: _ParseState, check_surrogates: bool, text_chars: int | None = None,
                   count_colons: bool = False) -> bool:
    """Fast pass over the parsed value: True when no post-parse limit is breached (no pointers are built here).

    Most documents are fine, so this pass only asks yes/no; :func:`_walk` re-walks with pointers on failure. It goes
    level by level: every value of one depth is in one list, sorted out by type in C-level passes (``map``,
    comprehensions, ``min``/``max``/``sum``), and the children of its objects and arrays make the next level. The
    rules are the per-value ones of :func:`_walk`, applied to whole groups at once: an object or array holds at most
    ``max_collection`` members, a key or string at most ``max_string`` characters (and no lone surrogate when the text
    has a surrogate escape), an int or float lies within ``max_abs_number`` (NaN and infinities do not), and the
    document holds at most ``max_nodes`` values and ``max_total_string`` characters of keys and strings.

    ``text_chars`` is the length of the JSON text the value was parsed from, when known. A decoded key or string is
    never longer than its token in the text (an escape only shrinks), so a text of at most ``max_total_string``
    characters cannot breach that limit, and the characters are then not counted. Keys repeat from object to object,
    so their length and surrogate tests run on the set of distinct keys of a level.

    When it accepts it also leaves in ``state`` the object pairs, the nesting depth and, with ``count_colons``, the
    colons inside keys (each occurrence) and strings.
    """
    limits = state.limits
    if state.duplicate_objects or state.bad_floats:
        return False
    max_collection, max_string, bound = limits.max_collection, limits.max_string, limits.max_abs_number
    count_chars = text_chars is None or text_chars > limits.max_total_string
    search = _SURROGATE_CHAR.search
    total = 0
    nodes = 0
    pairs = 0
    depth = 0
    colons = 0
    level: list[Any] = [data]
    while level:
        nodes += len(level)
        kinds = set(map(type, level))
        children: list[Any] = []
        if dict in kinds or list in kinds:
            depth += 1
        if dict in kinds:
            objects = [value for value in level if type(value) is dict] if len(kinds) > 1 else level
            sizes = list(map(len, objects))
            if max(sizes) > max_collection:
                return False
            pairs += sum(sizes)
            keys = set().union(*objects)
            if keys:
                if max(map(len, keys)) > max_string or (check_surrogates and any(map(search, keys))):
                    return False
                if count_chars:
                    total += sum([len(key) for value in objects for key in value])
                if count_colons:
                    for key in [key for key in keys if ":" in key]:
                        colons += key.count(":") * sum([key in value for value in objects])
            children = [child for value in objects for child in value.values()]
        if list in kinds:
            arrays = [value for value in level if type(value) is list] if len(kinds) > 1 else level
            if max(map(len, arrays)) > max_collection:
                return False
            for array in arrays:
                if array and _numbers_within(array, bound):
                    nodes += len(array)  # a list of numbers in range: every item checked in C, none left to visit
                else:
                    children += array
        if str in kinds:
            strings = [value for value in level if type(value) is str] if len(kinds) > 1 else level
            lengths = list(map(len, strings))
            if max(lengths) > max_string or (check_surrogates and any(map(search, strings))):
                return False
            if count_chars:
                total += sum(lengths)
            if count_colons:
                colons += "".join(strings).count(":")
        if int in kinds or float in kinds:
            numbers = level if kinds <= _NUMBER_TYPES else [value for value in level if type(value) in _NUMBER_TYPES]
            if not _numbers_within(numbers, bound) and not all(-bound <= value <= bound for value in numbers):
                return False
        level = children
    state.pairs, state.depth, state.string_colons = pairs, depth, colons
    return total <= limits.max_total_string and nodes <= limits.max_nodes


_NUMBER_TYPES = frozenset((int, float))
_INT_ONLY = frozenset((int,))


def _numbers_within(values: list[Any], bound: float) -> bool:
    """True when every item is an int or float (never a bool) with ``-bound <= item <= bound``, by C-level passes.

    The walk's number test for a whole list at once (the sample arrays hold most of a bundle's values). Ints compare
    exactly with the bound, so a list of ints needs only ``min``/``max``; with floats, a finite sum first rules out NaN
    and infinity, after which ``min``/``max`` are exact. Any doubt (a sum that overflows, an int too large for a
    float, any other item type) returns False and the caller tests the items one by one.
    """
    kinds = set(map(type, values))
    if kinds == _INT_ONLY:
        return -bound <= min(values) and max(values) <= bound
    if not kinds <= _NUMBER_TYPES:
        return False
    try:
        total = sum(values, 0.0)
    except OverflowError:
        return False
    return -math.inf < total < math.inf and -bound <= min(values) and max(values) <= bound


# Tokens that give a valid JSON text its structure: strings, brackets, colons and commas (numbers and literals are
# skipped; the text has already parsed, so every string token is well formed).
_STRUCTURE_TOKEN = re.compile(r'"(?:[^"\\]+|\\.)*"|[{}\[\]:,]', re.S)
WalkPath = tuple[tuple[str | int, int], ...]


class _Frame:
    """An open object or array during the token pass: its walk path, the keys seen so far (objects) and the child
    being read (``(key, position)`` for an object, the index for an array)."""

    def __init__(self, path: WalkPath, keys: dict[str, int] | None, child: tuple[str, int] | int = 0,
                 expect_key: bool = False) -> None:
        self.path: WalkPath = path
        self.keys: dict[str, int] | None = keys
        self.child: tuple[str, int] | int = child
        self.expect_key: bool = expect_key


def _child_path(frame: _Frame | None) -> WalkPath:
    if frame is None:
        return ()
    if isinstance(frame.child, int):
        return frame.path + ((frame.child, frame.child),)
    return frame.path + (frame.child,)


def _duplicate_position(text: str, target: WalkPath) -> tuple[int | None, int | None]:
    """Line and column (1-based, in characters) of the first repeated key of the object at ``target`` (a walk path of
    ``(key, position)`` pairs, positions as in the parsed dict); ``(None, None)`` if it cannot be found.

    One pass over the structural tokens with a stack of open containers, each knowing its own path. Keys are compared
    after JSON decoding (``"\\u0061"`` repeats ``"a"``) and positions count first occurrences, as the parsed dict
    does. Runs only for a document that has a duplicate key.
    """
    stack: list[_Frame] = []
    for match in _STRUCTURE_TOKEN.finditer(text):
        token = match.group(0)
        top = stack[-1] if stack else None
        if token in ("{", "["):
            stack.append(_Frame(_child_path(top), {} if token == "{" else None, expect_key=token == "{"))
        elif token in ("}", "]"):
            stack.pop()
        elif token == "," and top is not None:
            if top.keys is not None:
                top.expect_key = True
            elif isinstance(top.child, int):
                top.child += 1
        elif token.startswith('"') and top is not None and top.keys is not None and top.expect_key:
            key = json.loads(token)
            if key in top.keys and top.path == target:
                start = match.start()
                return text.count("\n", 0, start) + 1, start - text.rfind("\n", 0, start)
            top.keys.setdefault(key, len(top.keys))
            top.child = (key, top.keys[key])
            top.expect_key = False
    return None, None


def _walk(data: Any, state: _ParseState, check_surrogates: bool, text: str = "") -> None:
    """Enforce the post-parse limits with an explicit stack; the first breach raises with its pointer."""
    limits = state.limits
    duplicates = {id(obj) for obj in state.duplicate_objects}
    bad_floats = {id(value) for value in state.bad_floats}
    total_chars = 0
    nodes = 0
    # Stack items: (value, path) where path is a tuple of (key-or-index, position) pairs.
    stack: list[tuple[Any, tuple[tuple[str | int, int], ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        nodes += 1
        if nodes > limits.max_nodes:
            raise LoadFailure(LoadProblem(TOO_MANY_NODES, ""))
        if isinstance(value, dict):
            if id(value) in duplicates:
                line, column = _duplicate_position(text, path) if text else (None, None)
                raise LoadFailure(LoadProblem(DUPLICATE_KEY, pointers.for_path(path), line=line, column=column))
            if len(value) > limits.max_collection:
                raise LoadFailure(LoadProblem(COLLECTION_TOO_LARGE, pointers.for_path(path)))
            for position, (key, child) in enumerate(value.items()):
                total_chars += len(key)
                if len(key) > limits.max_string or (check_surrogates and _SURROGATE_CHAR.search(key)):
                    code = STRING_TOO_LONG if len(key) > limits.max_string else LONE_SURROGATE
                    raise LoadFailure(LoadProblem(code, pointers.for_path(path + ((key, position),))))
                stack.append((child, path + ((key, position),)))
        elif isinstance(value, list):
            if len(value) > limits.max_collection:
                raise LoadFailure(LoadProblem(COLLECTION_TOO_LARGE, pointers.for_path(path)))
            for index in range(len(value) - 1, -1, -1):
                stack.append((value[index], path + ((index, index),)))
        elif isinstance(value, str):
            total_chars += len(value)
            if len(value) > limits.max_string:
                raise LoadFailure(LoadProblem(STRING_TOO_LONG, pointers.for_path(path)))
            if check_surrogates and _SURROGATE_CHAR.search(value):
                raise LoadFailure(LoadProblem(LONE_SURROGATE, pointers.for_path(path)))
        elif isinstance(value, float):
            if id(value) in bad_floats:
                code = NUMBER_RANGE
                raise LoadFailure(LoadProblem(code, pointers.for_path(path)))
        elif isinstance(value, int) and not isinstance(value, bool):
            if abs(value) > limits.max_abs_number:
                raise LoadFailure(LoadProblem(NUMBER_RANGE, pointers.for_path(path)))
        if total_chars > limits.max_total_string:
            raise LoadFailure(LoadProblem(STRING_TOO_LONG, ""))


def load_json_file(path: Path, limits: Limits = BUNDLE_LIMITS,
                   root: Literal["object", "array", "any"] = "object") -> LoadedFile:
    """Read and parse one JSON file; problems are returned in ``LoadedFile.problems``, never raised.

    When the file cannot even be read, ``raw`` is empty and ``sha256`` is the empty string.
    """
    try:
        raw = read_regular_file(path, limits.max_bytes)
    except LoadFailure as failure:
        return LoadedFile(path=path, raw=b"", sha256="", size=0, problems=[failure.problem])
    loaded = LoadedFile(path=path, raw=raw, sha256=sha256_prefixed(raw), size=len(raw))
    try:
        loaded.data = parse_json_bytes(raw, limits, root)
    except LoadFailure as failure:
        loaded.problems.append(failure.problem)
    return loaded
