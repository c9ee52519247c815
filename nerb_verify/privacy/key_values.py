"""Key-value files (YAML, TOML, INI, ``.properties``, ``.env``, ``.cfg``/``.conf``) read as a reader reads a mapping.

A JSON object's keys and string values are joined (``joined.py``): ``{"local": "jane.roe@", "domain": "corp..."}``
is read as one address. The same mapping written as YAML or INI is two lines, ``local: jane.roe@`` and
``domain: corp...``, and no line break lies between the two values, so neither the line-joined block nor the glued
line breaks read them together. This module turns the lines of such a file into the same *containers* a JSON object
gives: one per run of entries at one indentation (a mapping, or a list of ``- item`` lines), holding each entry's
key and its value, in order; :func:`joined.joined_findings` then reads them exactly as it reads JSON containers.

What is an entry, line by line (the file is not parsed: a reader's reading, bounded and forgiving):

* blank lines and comment lines (``#``, ``;``) are skipped and end nothing;
* a section header (``[name]``, ``[[name]]``) or a document marker (``---``, ``...``) ends every open run;
* ``key: value``, ``key = value`` or ``key=value`` (the key holds no ``:`` or ``=``), or ``- item``, at some
  indentation, is an entry of the run at that indentation; it ends the runs of deeper indentation. ``- key: value``
  starts a new mapping, one item of a list, at the key's column (its next entries stand there). Any other line (a
  continued value, a block scalar's text) ends the runs at its indentation and deeper.
* A key that is a plain name (a letter, then letters, digits, ``_`` and ``-``: ``sha256``, ``recorded_at``) is the
  name of a field, not text, and is left out, as the JSON scanner leaves out its schema vocabulary; any other key
  (one holding a dot, an at-sign, a slash, a space, or starting with a digit) is a piece.
* The value loses a trailing `` #`` comment and one pair of enclosing quotes. An empty value (a nested mapping
  follows) adds only the key; a value that is a bare number, a boolean or null adds nothing: a JSON object's numbers
  are not joined either (``port: 5432`` after ``timeout: 30`` is no telephone number).

Bounded: a run is handed over once its lines hold ``MAX_RUN_CHARS`` characters (the next run starts with its last
entry, so the two entries at the cut are still read together) or ``MAX_RUN_LINES`` lines, and every open run is cut so
once the open runs (one per indentation) hold ``MAX_OPEN_CHARS`` in all; a line longer than ``MAX_RUN_CHARS`` is no
entry (it ends the runs at its indentation and deeper; it is scanned as a line, as every line is).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nerb_verify.frozen import Frozen

KEY_VALUE_SUFFIXES = (".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".properties", ".env")
MAX_RUN_CHARS = 65536
MAX_RUN_LINES = 4096
MAX_OPEN_CHARS = 4 * MAX_RUN_CHARS

_ENTRY = re.compile(r"(?P<key>[^\s:=#;\[\]{}-][^:=]*?|\"[^\"]*\"|'[^']*')[ \t]*(?::(?=[ \t]|$)|=)[ \t]*(?P<value>.*)")
_ITEM = re.compile(r"-(?:[ \t]+(?P<value>.*)|$)")
_COMMENT = re.compile(r"[ \t]+[#;].*$")
_PLAIN_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_SCALAR = re.compile(r"[-+]?(?:\d[\d_]*(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+|0[xX][0-9a-fA-F]+|\.inf|\.nan)"
                     r"|true|false|yes|no|on|off|null|none|~", re.IGNORECASE)


def is_key_value_file(name: str) -> bool:
    """Whether a file named ``name`` (a path) is read as a key-value file: by its suffix, or ``.env`` files by
    name (``.env``, ``.env.local``, ...)."""
    lower = name.lower()
    base = lower.replace("\\", "/").rsplit("/", 1)[-1]
    return lower.endswith(KEY_VALUE_SUFFIXES) or base == ".env" or base.startswith(".env.")


def _value(raw: str) -> str | None:
    """The text a value adds to its run, or None (empty, or a typed scalar)."""
    value = _COMMENT.sub("", raw).strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    elif _SCALAR.fullmatch(value):
        return None
    return value or None


def _unquoted(key: str) -> str:
    return key[1:-1] if len(key) >= 2 and key[0] == key[-1] and key[0] in "\"'" else key


class Run(Frozen):
    """One container: the 0-based index of its first line, its pieces (keys and values, in order), its values
    alone (sibling values, as a JSON object's are also joined without its keys) and its lines (to tell what a line
    raises on its own)."""

    __slots__ = ("first", "pieces", "values", "lines")

    first: int
    pieces: tuple[str, ...]
    values: tuple[str, ...]
    lines: tuple[str, ...]

    def __init__(self, first: int, pieces: tuple[str, ...], values: tuple[str, ...], lines: tuple[str, ...]) -> None:
        object.__setattr__(self, "first", first)
        object.__setattr__(self, "pieces", pieces)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "lines", lines)


class _Open:
    __slots__ = ("first", "last", "pieces", "values", "lines", "chars")

    def __init__(self, first: int) -> None:
        self.first = first
        self.last = first  # the index of the last line fed
        self.pieces: list[str] = []
        self.values: list[str] = []
        self.lines: list[str] = []
        self.chars = 0


class KeyValueReader:
    """Reads lines one at a time (:meth:`feed`) and collects the finished runs of two pieces or more in ``runs``
    (the caller takes them and empties the list whenever it likes; :meth:`finish` ends the open ones)."""

    def __init__(self) -> None:
        self.open: dict[int, _Open] = {}
        self.open_chars = 0  # characters of the lines held in ``open``
        self.runs: list[Run] = []
        self.chars = 0  # characters held in ``runs``

    def feed(self, index: int, line: str) -> None:
        """Line ``index`` (0-based, without its line feed; a trailing carriage return is ignored)."""
        line = line.removesuffix("\r")
        body = line.lstrip(" \t")
        if not body or body[0] in "#;":
            return
        indent = len(line) - len(body)
        if body[0] == "[" or body.startswith(("---", "...")):
            self._close_from(0)
            return
        if len(line) > MAX_RUN_CHARS:
            self._close_from(indent)
            return
        item = _ITEM.match(body)
        key: str | None = None
        if item is not None:
            text = item.group("value") or ""
            entry = _ENTRY.fullmatch(text)
            if entry is not None:
                # "- key: value": the first entry of a new mapping, an item of the list; the mapping's entries stand at
                # the key's column (where the next lines of the item continue it).
                indent += len(body) - len(text)
                self._close_from(indent)
                key = _unquoted(entry.group("key").strip())
                value = _value(entry.group("value"))
            else:
                value = _value(text)
        else:
            entry = _ENTRY.fullmatch(body)
            if entry is None:
                self._close_from(indent)
                return
            key = _unquoted(entry.group("key").strip())
            value = _value(entry.group("value"))
        self._close_from(indent + 1)
        if self.open_chars + len(line) > MAX_OPEN_CHARS:
            for level in list(self.open):
                self._cut(level)
        current = self.open.get(indent)
        if current is None:
            current = self.open[indent] = _Open(index)
        elif current.chars + len(line) > MAX_RUN_CHARS or len(current.lines) >= MAX_RUN_LINES:
            current = self._cut(indent)
        if key is not None and not _PLAIN_KEY.fullmatch(key):
            current.pieces.append(key)
        if value is not None:
            current.pieces.append(value)
            current.values.append(value)
        current.lines.append(line)
        current.chars += len(line)
        self.open_chars += len(line)
        current.last = index

    def finish(self) -> None:
        """End every open run."""
        self._close_from(0)

    def _cut(self, indent: int) -> _Open:
        """Hand over the open run at ``indent`` and open the next one with its last entry (its last line, key and
        value), so the two entries at the cut are read together."""
        run = self.open.pop(indent)
        self._hand_over(run)
        carried = _Open(run.last)
        carried.lines.append(run.lines[-1])
        carried.chars = len(run.lines[-1])
        self.open_chars += carried.chars
        carried.pieces.extend(run.pieces[-2:])  # (the last entry's key and value; one piece more is harmless)
        carried.values.extend(run.values[-1:])
        self.open[indent] = carried
        return carried

    def _close_from(self, indent: int) -> None:
        for level in [level for level in self.open if level >= indent]:
            self._hand_over(self.open.pop(level))

    def _hand_over(self, run: _Open) -> None:
        self.open_chars -= run.chars
        if len(run.pieces) >= 2:
            self.runs.append(Run(run.first, tuple(run.pieces), tuple(run.values), tuple(run.lines)))
            self.chars += run.chars


def runs_of(lines: Sequence[str]) -> list[Run]:
    """Every run of ``lines`` (the lines of one file), for tests and tools."""
    reader = KeyValueReader()
    for index, line in enumerate(lines):
        reader.feed(index, line)
    reader.finish()
    return reader.runs
