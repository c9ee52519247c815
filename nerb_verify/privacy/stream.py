"""Large files, read in bounded memory: a file is read in windows of ``read_size`` bytes, decoded strictly and
incrementally (UTF-8, UTF-16 or UTF-32), and fed to the same drivers as the in-memory path.

* Text: :func:`text_lines` cuts the decoded windows into lines for :class:`nerb_verify.privacy.text_scan.TextDriver`
  (the driver behind ``scan_text``), which holds one block of about 256 KiB of whole lines, the seam with the
  previous block and the contexts of a glued line break. A line longer than ``LONG_LINE_CHARS`` is never held: it is
  passed on as its overlapping 4,096-character chunks (as the in-memory path scans it) plus its first and last
  16,384 characters.
* JSON: :mod:`nerb_verify.privacy.json_stream` tokenizes the same windows.

A file is decoded in the encoding its first 8 KiB name (UTF-8, or UTF-16 or UTF-32: ``text_encoding.py``), as in
the in-memory path; it is binary when they name none or any byte sequence does not decode;
the bytes are then not scanned and nothing found so far is kept (the caller scans into a scratch collector and keeps
it only when the whole file decoded).
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterator

from nerb_verify.findings import Collector, Label
from nerb_verify.loader import TOO_LARGE, UNREADABLE, LoadFailure, LoadProblem
from nerb_verify.privacy import messages
from nerb_verify.privacy.joined import JOINED_BUDGET, SVG, JoinedScan, Markup, element_pieces, joined_codes, markup_of
from nerb_verify.privacy.profiles import Profile
from nerb_verify.privacy.text_encoding import CONTROL, UTF8, text_encoding
from nerb_verify.privacy.text_scan import (
    CHUNK,
    JUNCTION_CONTEXT,
    LONG_LINE_CHARS,
    OVERLAP,
    SCREEN_BYTES,
    LongLine,
    TextDriver,
)

READ_SIZE = 1 << 20
BINARY_PROBE = 8192


class Binary(Exception):
    """The file is binary (its first 8 KiB are neither UTF-8 nor wide text, or it does not decode): skipped, as the
    in-memory path does."""


def byte_windows(fd: int, read_size: int = READ_SIZE, expected: int | None = None) -> Iterator[bytes]:
    """The file's bytes, ``read_size`` at a time (the first window at least ``BINARY_PROBE`` bytes, so the binary
    probe sees them together). Raises :class:`LoadFailure` when reading fails or the file grows past
    ``expected`` bytes while read (it changed under us)."""
    total = 0
    first = True
    while True:
        want = max(read_size, BINARY_PROBE) if first else read_size
        try:
            data = os.read(fd, want)
            while first and data and len(data) < BINARY_PROBE:
                more = os.read(fd, BINARY_PROBE - len(data))
                if not more:
                    break
                data += more
        except OSError:
            raise LoadFailure(LoadProblem(UNREADABLE)) from None
        first = False
        if not data:
            return
        total += len(data)
        if expected is not None and total > expected:
            raise LoadFailure(LoadProblem(TOO_LARGE, message="File grew while it was read."))
        yield data


class NotUtf8(Binary):
    """The probe named UTF-8 but a byte sequence at ``offset`` is not UTF-8: the caller reads the file again with
    :func:`decoded`'s ``lenient`` decoding (as the in-memory path decodes it with ``text_encoding.lenient_utf8``)."""

    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


def decoded(windows: Iterator[bytes], wide: list[str] | None = None, lenient: bool = False) -> Iterator[str]:
    """Incremental decoding of ``windows`` in the encoding the first ``BINARY_PROBE`` bytes name
    (``text_encoding.text_encoding``: UTF-8, or UTF-16 or UTF-32 by a byte order mark or the layout of NUL bytes).
    Raises :class:`Binary` when they name none or a wide sequence does not decode, and :class:`NotUtf8` for the first
    UTF-8 sequence that does not (anywhere, also at the very end). With ``lenient``, UTF-8 is decoded with a
    replacement character for each invalid sequence, and any control character other than white space raises
    :class:`Binary` (``text_encoding.lenient_utf8``). A wide encoding found is appended to ``wide``, when given, and
    its byte order mark is not passed on (the in-memory path parses such a JSON file without it)."""
    decoder = None
    strip_mark = replacing = False
    consumed = 0
    for window in windows:
        if decoder is None:
            encoding = text_encoding(window[:BINARY_PROBE])
            if encoding is None:
                raise Binary
            if encoding != UTF8:
                strip_mark = True
                if wide is not None:
                    wide.append(encoding)
            replacing = lenient and encoding == UTF8
            decoder = codecs.getincrementaldecoder(encoding)("replace" if replacing else "strict")
        held = len(decoder.getstate()[0])
        try:
            text = decoder.decode(window)
        except UnicodeDecodeError as error:
            raise (NotUtf8(consumed - held + error.start) if encoding == UTF8 else Binary()) from None
        consumed += len(window)
        if strip_mark and text:
            text, strip_mark = text.removeprefix("\ufeff"), False
        if replacing and CONTROL.search(text):
            raise Binary
        if text:
            yield text
    if decoder is None:
        return
    held = len(decoder.getstate()[0])
    try:
        tail = decoder.decode(b"", final=True)
    except UnicodeDecodeError as error:
        raise (NotUtf8(consumed - held + error.start) if encoding == UTF8 else Binary()) from None
    if tail:
        yield tail


def without_bom(pieces: Iterator[str]) -> Iterator[str]:
    """``pieces`` with one leading U+FEFF removed (the in-memory text scan removes it too)."""
    first = True
    for piece in pieces:
        if first:
            piece = piece.removeprefix("\ufeff")
            first = False
        if piece:
            yield piece


class _Reader:
    """Pieces of text cut into lines; a line longer than ``long_chars`` becomes a :class:`LongLine` whose chunks are
    read from the same pieces while the driver consumes them."""

    def __init__(self, pieces: Iterator[str], long_chars: int) -> None:
        self.pieces = pieces
        self.long_chars = long_chars
        self.rest = ""  # text read but not yet cut into lines
        self.exhausted = False  # a long line ran to the end of the text

    def lines(self) -> Iterator[str | LongLine]:
        parts: list[str] = []  # the current line so far
        length = 0
        while True:
            if not self.rest:
                piece = next(self.pieces, None)
                if piece is None:
                    yield "".join(parts)
                    return
                self.rest = piece
            cut = self.rest.find("\n")
            if cut >= 0:
                parts.append(self.rest[:cut])
                self.rest = self.rest[cut + 1:]
                yield "".join(parts)
                parts, length = [], 0
                continue
            parts.append(self.rest)
            length += len(self.rest)
            self.rest = ""
            if length > self.long_chars:
                line = LongLine(iter(()), "")
                line.chunks = self._long(line, "".join(parts))
                line.head = "".join(parts)[:JUNCTION_CONTEXT]
                parts, length = [], 0
                yield line
                if self.exhausted:
                    return

    def _long(self, line: LongLine, start_text: str) -> Iterator[tuple[int, str]]:
        """The chunks of a long line (starts 0, 3584, ...: ``CHUNK`` characters overlapping by ``OVERLAP``), read
        up to its line feed; sets ``line.tail``. A chunk is given out only once a character after it is known, so a
        trailing carriage return (dropped from the line) never ends up in one."""
        step = CHUNK - OVERLAP
        buffer = start_text  # the line from offset ``base``
        base = 0
        next_start = 0
        ended = False
        while True:
            known = base + len(buffer)
            while next_start + CHUNK < known:
                offset = next_start - base
                yield next_start, buffer[offset:offset + CHUNK]
                next_start += step
            keep_from = min(next_start, known - JUNCTION_CONTEXT - 2)
            if keep_from > base:
                buffer = buffer[keep_from - base:]
                base = keep_from
            if ended:
                break
            piece = self.rest or next(self.pieces, None)
            self.rest = ""
            if piece is None:
                self.exhausted = ended = True
                continue
            cut = piece.find("\n")
            if cut >= 0:
                buffer += piece[:cut]
                self.rest = piece[cut + 1:]
                ended = True
            else:
                buffer += piece
        if buffer.endswith("\r"):
            buffer = buffer[:-1]
        length = base + len(buffer)
        for start in range(next_start, max(length - OVERLAP, 1), step):
            yield start, buffer[start - base:start - base + CHUNK]
        line.tail = buffer[-JUNCTION_CONTEXT:]


def text_lines(pieces: Iterator[str], long_chars: int = LONG_LINE_CHARS) -> Iterator[str | LongLine]:
    """The lines of the text ``pieces`` spell (split at line feeds, as ``str.split("\\n")`` does), with long lines
    as :class:`LongLine` (see :class:`_Reader`)."""
    return _Reader(pieces, long_chars).lines()


# An SVG <text> element (an office paragraph) still open after this many characters is not waited for: the figure
# (document) fails closed.
SVG_ELEMENT_CHARS = 4 * 1024 * 1024
# What is kept of the text read when no element is open: enough for the start of a start tag cut off at its end.
_OPENER_CHARS = 8


class _SvgElements:
    """The text elements of a markup document (``markup``: SVG ``<text>`` elements, office paragraphs) fed piece by
    piece, as :func:`joined.text_elements` finds them in the whole text: each element's pieces are joined at once,
    the figure's texts are fed to a sliding-window join (:class:`joined.JoinedScan`) as each element closes, so a
    figure of any size is joined in bounded memory."""

    def __init__(self, profile: Profile, markup: Markup = SVG) -> None:
        self.profile = profile
        self.markup = markup
        self.buffer = ""
        self.base = 0  # offset of ``buffer`` in the whole text
        self.newlines = 0  # line feeds before ``base``
        self.found: list[tuple[int, set[str]]] = []  # (line, codes), in the order of the in-memory path
        self.figure = JoinedScan(profile)
        self.elements = 0
        self.first_line = 0

    def feed(self, piece: str) -> None:
        self.buffer += piece
        open_at = self.markup.opener.search(self.buffer)
        if open_at is None:
            self._drop(max(len(self.buffer) - _OPENER_CHARS, 0))
            return
        end = 0
        for match in self.markup.element.finditer(self.buffer, open_at.start()):
            self._element(self.base + match.start(), self.buffer.count("\n", 0, match.start()) + self.newlines + 1,
                          element_pieces(match.group("body")))
            end = match.end()
        open_at = self.markup.opener.search(self.buffer, end)
        keep = open_at.start() if open_at else max(len(self.buffer) - _OPENER_CHARS, end)
        if open_at and len(self.buffer) - keep > SVG_ELEMENT_CHARS:
            line = self.buffer.count("\n", 0, keep) + self.newlines + 1
            self.found.append((line, {JOINED_BUDGET}))
            keep = len(self.buffer) - _OPENER_CHARS
        self._drop(keep)

    def _drop(self, keep: int) -> None:
        self.newlines += self.buffer.count("\n", 0, keep)
        self.base += keep
        self.buffer = self.buffer[keep:]

    def _element(self, offset: int, line: int, pieces: list[str]) -> None:
        if not pieces:
            return
        if len(pieces) > 1:
            codes = joined_codes(pieces, self.profile)
            if codes:
                self.found.append((line, codes))
        self.elements += 1
        if self.elements == 1:
            self.first_line = line
        self.figure.add("".join(pieces))

    def finish(self) -> list[tuple[int, set[str]]]:
        """``(line, codes)`` of every element, then of the figure."""
        if self.elements > 1:
            codes = self.figure.codes()
            if codes:
                self.found.append((self.first_line, codes))
        return self.found


def scan_text_stream(pieces: Iterator[str], profile: Profile, collector: Collector, artifact: str,
                     where: Label = messages.LINE, limit: int = messages.MAX_FINDINGS_PER_FILE,
                     block_chars: int = SCREEN_BYTES, long_chars: int = LONG_LINE_CHARS,
                     name: str | None = None) -> int:
    """:func:`nerb_verify.privacy.text_scan.scan_text` of the text that ``pieces`` spell, holding a bounded part of
    it (one block, the seam and junction contexts, an open SVG text element). Returns the number of findings.
    ``name`` (default ``artifact``) says what kind of file the text is (SVG, office XML, a key-value file): a
    compressed file's name without its suffix (``config.yaml.gz`` holds ``config.yaml``), an archive member's own
    name (a component reported as personal data is shown as ``@name:<index>`` in ``artifact``)."""
    markup = markup_of(artifact if name is None else name)
    svg = _SvgElements(profile, markup) if markup is not None else None

    def tapped() -> Iterator[str]:
        for piece in pieces:
            if svg is not None:
                svg.feed(piece)
            yield piece

    driver = TextDriver(profile, collector, artifact, where, limit, block_chars, long_chars, name)
    driver.feed_lines(text_lines(tapped(), min(long_chars, LONG_LINE_CHARS)))
    driver.finish()
    if svg is not None and not driver.stopped:
        for line, codes in svg.finish():
            for code in sorted(codes):
                if not driver.report(code, line, 1, messages.JOINED):
                    return driver.added
    return driver.added
