"""Scan of a text file, line by line, reporting line and column (1-based, in characters) of each finding.

Lines longer than 4,096 characters are scanned in 4,096-character chunks that overlap by 512, so minified files are
scanned in bounded pieces instead of failing. The column is found by searching for the shortest prefix of the
line that still raises the code, then the shortest suffix of that prefix, then back to the start of the token it
begins in (so an address or a path is reported at its first character): bounded (binary searches, only on lines that
raise something) and never derived from the value's content beyond its position.

The walk back matters for paths: the shortest span that raises a path code can begin *inside* the path, because a
path rule also matches a tail of a longer path (the contract and rendered profiles' relative ``home/<name>`` rule
matches the tail of ``/home/<name>``; ``Users\\<name>`` is the tail of ``C:\\Users\\<name>`` in every profile). So
for path codes the start walks back over the path's own characters (name characters, slashes, backslashes, ``~``,
``$``) and a leading drive letter; for other codes over the characters of a word or an address's local part.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence

from nerb_verify.findings import Collector, Label
from nerb_verify.privacy import messages
from nerb_verify.privacy.engine import FAIL_CLOSED, TOO_LONG, scan_string, scan_uncached
from nerb_verify.privacy.joined import (
    SCREEN_SEPARATOR,
    Markup,
    glued_pair,
    joined_chunks,
    joined_codes,
    joined_findings,
    markup_of,
    text_elements,
    view_codes,
    views,
)
from nerb_verify.privacy.key_values import KeyValueReader, Run, is_key_value_file
from nerb_verify.privacy.normalise import EXPANSION_RATIO, may_expand_past
from nerb_verify.privacy.profiles import Profile
from nerb_verify.privacy.rules.email import EMAIL, has_common_tld_address, has_real_tld_address
from nerb_verify.privacy.rules.paths import FILE_URI, LOCAL_PATH, NETWORK_SHARE, PERSONAL_PATH

# Codes whose span is a path: the column walks back to the start of the path (see the module docstring).
PATH_CODES = frozenset({PERSONAL_PATH, LOCAL_PATH, NETWORK_SHARE, FILE_URI})
_WORD_CHARS = "._+%'-"
_PATH_CHARS = _WORD_CHARS + "/\\~$"

CHUNK = 4096
MAX_RETRIES = 8
OVERLAP = 512
SCREEN_BYTES = 256 * 1024


@functools.lru_cache(maxsize=8)
def _screen_profile(profile: Profile) -> Profile:
    # Same rules, budgets sized for a block of many lines: a block that would exceed them is simply scanned line by
    # line, so the screen can only send more text to the authoritative per-line pass, never less.
    return profile._replace(max_chars=SCREEN_BYTES * 20, max_url_payloads=1_000_000,
                            max_url_depth=profile.max_url_depth)


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """Split line indices into blocks of about SCREEN_BYTES characters (whole lines)."""
    blocks: list[tuple[int, int]] = []
    start = 0
    size = 0
    for index, line in enumerate(lines):
        size += len(line) + 1
        if size >= SCREEN_BYTES:
            blocks.append((start, index + 1))
            start, size = index + 1, 0
    if start < len(lines):
        blocks.append((start, len(lines)))
    return blocks


def _chunks(line: str) -> list[tuple[int, str]]:
    if len(line) <= CHUNK:
        return [(0, line)]
    step = CHUNK - OVERLAP
    return [(start, line[start:start + CHUNK]) for start in range(0, max(len(line) - OVERLAP, 1), step)]


def locate(text: str, code: str, profile: Profile) -> int:
    """0-based offset in ``text`` of the first character of the token (word, address, path) in which the shortest
    span raising ``code`` starts (0 if it cannot be narrowed).

    The prefix search assumes that a prefix which raises the code keeps raising it when it grows. A cut can break
    that: an SSH clone URL cut after ``.co`` of ``.com`` is an address, the whole URL is not (the repository
    profile's exception). So each span found is confirmed with the rest of its token (up to the next white space); a span
    that does not hold up is skipped and the search goes on after that token, at most ``MAX_RETRIES`` times.
    """
    if code in FAIL_CLOSED:
        return 0
    first: int | None = None
    offset = 0
    for _attempt in range(MAX_RETRIES):
        span = _shortest_span(text[offset:], code, profile)
        if span is None:
            break
        start, end = offset + span[0], offset + span[1]
        first = start if first is None else first
        token_end = end
        while token_end < len(text) and not text[token_end].isspace():
            token_end += 1
        if code in scan_uncached(text[start:token_end], profile):
            return _token_start(text, start, code)
        offset = token_end
    return _token_start(text, first, code) if first is not None else 0


def _shortest_span(text: str, code: str, profile: Profile) -> tuple[int, int] | None:
    """``(start, end)`` of the shortest span raising ``code``: the shortest prefix that raises it, then the shortest
    suffix of that prefix (binary searches); None when ``text`` does not raise ``code`` at all."""
    if code not in scan_uncached(text, profile):
        return None
    low, high = 1, len(text)
    while low < high:  # smallest end such that text[:end] raises code
        middle = (low + high) // 2
        if code in scan_uncached(text[:middle], profile):
            high = middle
        else:
            low = middle + 1
    end = high
    low, high = 0, end - 1
    while low < high:  # largest start such that text[start:end] still raises code
        middle = (low + high + 1) // 2
        if code in scan_uncached(text[middle:end], profile):
            low = middle
        else:
            high = middle - 1
    return low, end


def _token_start(text: str, low: int, code: str) -> int:
    """Walk back from ``low`` to the start of the word, address or path (for path codes) it lies in."""
    joiners = _PATH_CHARS if code in PATH_CODES else _WORD_CHARS
    while low > 0 and (text[low - 1].isalnum() or text[low - 1] in joiners):
        low -= 1
    if (code in PATH_CODES and low >= 2 and text[low - 1] == ":" and text[low - 2].isascii()
            and text[low - 2].isalpha() and (low == 2 or not text[low - 3].isalnum())):
        low -= 2  # a drive letter in front of the path (C:\...)
    return low


def scan_text(text: str, profile: Profile, collector: Collector, artifact: str,
              where: Label = messages.LINE, limit: int = messages.MAX_FINDINGS_PER_FILE,
              block_chars: int = SCREEN_BYTES, long_chars: int | None = None) -> int:
    """Scan ``text`` line by line; one finding per (line, code) with its column. Returns the number added.

    Speed: each block of about 256 KiB of whole lines is first screened as one string with the same rules; only a
    block that raises something (or exceeds the screen's budget) is scanned line by line. Every rule is written so
    that a match inside one line is also a match inside the block (no line anchors), so screening never hides a
    finding; the per-line pass decides what is reported, so results do not depend on the block size.

    Joined views (``joined.py``): what the block raises that none of its lines raises was split across lines (a
    line break as separator) and is reported, column 1, at the first line of the shortest run of lines that raises
    it; the seam between two blocks (up to ``SEAM_CHARS`` of whole lines on each side) is scanned the same way, so
    a split is not lost at a block boundary; two lines glued without a separator are scanned where both sides of
    the line break are non-blank (see :class:`_Junctions`); an SVG file's (``artifact`` ends in ``.svg``)
    ``<text>`` elements are joined per element and per figure, and an XML file's office paragraphs (``.docx``,
    ``.pptx``, ``.xlsx`` and ``.odt`` members) per paragraph and per document (``joined.markup_of``).

    The same driver (:class:`TextDriver`) scans a file streamed from disk (:mod:`nerb_verify.privacy.stream`), so a
    file too large to hold is scanned with exactly these rules and reports exactly these findings.
    """
    driver = TextDriver(profile, collector, artifact, where, limit, block_chars, long_chars)
    driver.feed_lines(text.split("\n"))
    driver.finish()
    if not driver.stopped:
        markup = markup_of(artifact)
        for offset, pieces in (_element_groups(text, markup) if markup is not None else ()):
            for code in sorted(joined_codes(pieces, profile)):
                if not driver.report(code, text.count("\n", 0, offset) + 1, 1, messages.JOINED):
                    return driver.added
    return driver.added


# A line longer than the screen's budget is never held whole by the streaming reader: its block cannot be screened
# (the screen would fail as too long), so it is scanned chunk by chunk, as the in-memory path does.
LONG_LINE_CHARS = SCREEN_BYTES * 20
# Line-joined views near a block boundary and glued line breaks read at most this many characters on each side: the
# longest string the engine judges as one (``Profile.max_chars``), so anything a rule can match in one string fits.
SEAM_CHARS = 16384
JUNCTION_CONTEXT = 16384


class LongLine:
    """A line longer than ``LONG_LINE_CHARS``: its ``(start, chunk)`` pieces (those :func:`_chunks` gives for the
    line without its trailing carriage return), its first ``JUNCTION_CONTEXT`` characters and, once the chunks are
    consumed, its last ``JUNCTION_CONTEXT`` characters (``tail``, set by the producer)."""

    def __init__(self, chunks: Iterator[tuple[int, str]], head: str, tail: str = "") -> None:
        self.chunks: Iterator[tuple[int, str]] = chunks
        self.head: str = head
        self.tail: str = tail


def _long_from_str(line: str) -> LongLine:
    stripped = line.removesuffix("\r")
    return LongLine(iter(_chunks(stripped)), stripped[:JUNCTION_CONTEXT], stripped[-JUNCTION_CONTEXT:])


def _seam_side(lines: Sequence[str], from_end: bool) -> list[str]:
    """Whole lines from one end of a block, as many as fit in ``SEAM_CHARS`` characters."""
    taken: list[str] = []
    size = 0
    for line in (reversed(lines) if from_end else lines):
        size += len(line) + 1
        if size > SEAM_CHARS:
            break
        taken.append(line)
    return taken[::-1] if from_end else taken


class _ReadPairs:
    """Pairs of lines a reader reads as one (subclasses say which pairs, and how they are read), batched: each pair's
    *snippet* (at most ``GLUE_CONTEXT`` characters of each side, extended to whole tokens) is screened together with
    the others of its batch, and only the pairs of a batch whose screen raises something are scanned exactly
    (:meth:`_pair_codes`). The screen only decides which pairs are scanned exactly, so the result does not depend on
    how the pairs are batched. ``found`` gets ``(index, codes)`` for each pair that raises codes neither line raises
    alone."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.screen = _screen_profile(profile)
        self.batch: list[tuple[int, str, str, str]] = []
        self.size = 0
        self.held = 0
        self.found: list[tuple[int, set[str]]] = []
        self.codes = 0

    def add(self, index: int, left: str, right: str) -> None:
        """Line ``index`` (its context ``left``) read into the next line's context ``right``, unless
        :meth:`_snippet` says the pair cannot raise anything."""
        snippet = self._snippet(left, right)
        if snippet is None:
            return
        self.batch.append((index, left, right, snippet))
        self.size += len(snippet) + 3
        self.held += len(left) + len(right)
        if self.size >= SCREEN_BYTES // 4 or self.held >= SCREEN_BYTES * 4:
            self.flush()

    def flush(self) -> None:
        """Screen the held batch; scan its pairs exactly if the screen raises something."""
        if not self.batch:
            return
        if scan_uncached(SCREEN_SEPARATOR.join(item[3] for item in self.batch), self.screen):
            for index, left, right, _snippet in self.batch:
                codes = self._pair_codes(left, right)
                if codes:
                    self.found.append((index, codes))
                    self.codes += len(codes)
        self.batch, self.size, self.held = [], 0, 0

    def _snippet(self, left: str, right: str) -> str | None:
        """What the screen reads of the pair (every code the pair can raise is raised by it), or None."""
        raise NotImplementedError

    def _pair_codes(self, left: str, right: str) -> set[str]:
        """The codes the pair raises that neither line raises alone."""
        raise NotImplementedError


class _Junctions(_ReadPairs):
    """Line breaks whose two lines, glued without a separator, raise codes neither line raises alone.

    Only a line break with a non-blank character on both sides can glue two tokens into one, so only those are
    looked at (the caller's test), with at most ``JUNCTION_CONTEXT`` characters of each line; the snippet is the
    last ``GLUE_CONTEXT`` characters of the line, extended back to the start of its last token, glued to the first
    ``GLUE_CONTEXT`` characters of the next, extended to the end of its first token. Where the second line starts
    with ``@`` (a Python decorator), a glued address counts only with a country-code or common generic last label
    (``has_common_tld_address``): ``# ... accuracy`` glued to ``@pytest.mark.xfail`` is not one. A line starting with
    an http(s) URL is not glued (``_URL_START``).
    """

    def _snippet(self, left: str, right: str) -> str | None:
        return glued_pair(_tail(left), _head(right))

    def _pair_codes(self, left: str, right: str) -> set[str]:
        text = glued_pair(left, right)
        codes = view_codes(text, self.profile) - _line_codes(left, self.profile) - _line_codes(right, self.profile)
        if EMAIL in codes and right.startswith("@") and not has_common_tld_address(text):
            codes.discard(EMAIL)  # a comment's last word glued to a decorator (``@pytest.mark.xfail``)
        return codes


# A comment marker at a line's start (``#``, ``//``, ``--``, ``;``, ``*``, ``>``, with white space around it): what
# follows it is what a reader reads, as in the lines around it.
_COMMENT_LEAD = re.compile(r"[ \t]*(?:#+|/{2,}|--|;+|\*+|>+)[ \t]?")


_MARKER_STARTS = frozenset("#/-;*>")


def comment_body(line: str) -> tuple[str, bool]:
    """``line`` without a leading comment marker, and whether it had one."""
    if line.lstrip(" \t")[:1] not in _MARKER_STARTS:  # (the common case, without the pattern)
        return line, False
    lead = _COMMENT_LEAD.match(line)
    return (line[lead.end():], True) if lead is not None else (line, False)


# A pair read across a gap can raise what neither line raises only through a number, an address or a path split at
# the gap: the two sides' context must hold a digit, an at-sign, a slash or a backslash (prose comments do not).
_GAP_WORTHY = re.compile(r"[0-9@/\\]")


class _Gaps(_ReadPairs):
    """Line breaks a reader reads across: the last non-blank line and the next non-blank one, when blank lines lie
    between them or either starts with a comment marker (issue 17 class 1, a split with a blank or a comment line in
    it). Each pair is read as the two lines without their comment markers, joined with one line break, and glued as
    :class:`_Junctions` glue unless the second starts with ``@`` (in source code a line after blank lines that starts
    with ``@`` is a decorator); it counts when it raises codes neither line raises alone. A pair whose last and first
    ``GLUE_CONTEXT`` characters hold no digit, at-sign, slash or backslash is not read (``_GAP_WORTHY``: prose
    comments)."""

    def _snippet(self, left: str, right: str) -> str | None:
        if _GAP_WORTHY.search(left, max(0, len(left) - GLUE_CONTEXT)) is None \
                and _GAP_WORTHY.search(right, 0, GLUE_CONTEXT) is None:
            return None
        tail, head = _tail(left), _head(right)
        snippet = tail + "\n" + head
        if not right.startswith("@"):
            snippet += SCREEN_SEPARATOR + glued_pair(tail, head)
        return snippet

    def _pair_codes(self, left: str, right: str) -> set[str]:
        codes = view_codes(left + "\n" + right, self.profile)
        if not right.startswith("@"):  # (a decorator after blank lines: never glued)
            codes |= view_codes(glued_pair(left, right), self.profile)
        return codes - (_line_codes(left, self.profile) | _line_codes(right, self.profile))


def _real_address_in(run: Run) -> bool:
    """Whether a joined view of the run holds an address whose last label is a common generic TLD or a country's code
    (``has_real_tld_address``), read in the chunks the joined scan reads (so a long run is never cleared for being
    too long to normalise). An address glued from a key-value run counts only then: ``jane.roe@`` +
    ``corp-mail.org`` is one, a version tag glued to the next entry (``uses: owner/action@v7``, then
    ``if: env.rc == 0``) is not."""
    return any(has_real_tld_address(chunk) for pieces in (run.pieces, run.values) for view in views(pieces)
               for chunk in joined_chunks(view))


class TextDriver:
    """Scans a text one line at a time (:meth:`feed_lines`), holding one block of about ``block_chars`` characters
    of whole lines: the in-memory :func:`scan_text` and the streaming reader both use it, so they report the same
    findings. Lines are given without their line feed (a trailing carriage return is kept, as ``str.split`` leaves
    it); a line longer than ``long_chars`` (default ``LONG_LINE_CHARS``, never more) is scanned as a
    :class:`LongLine`, whole or streamed. ``name`` (default ``artifact``) is the name that says what kind of file
    the text is (a key-value file): a compressed file's name without its suffix, an archive member's own name."""

    def __init__(self, profile: Profile, collector: Collector, artifact: str, where: Label, limit: int,
                 block_chars: int = SCREEN_BYTES, long_chars: int | None = None, name: str | None = None) -> None:
        self.profile = profile
        self.screen = _screen_profile(profile)
        self.collector = collector
        self.artifact = artifact
        self.where = where
        self.limit = limit
        self.block_chars = block_chars
        self.long_chars = min(long_chars or LONG_LINE_CHARS, LONG_LINE_CHARS)
        self.added = 0
        self.stopped = False
        self.index = 0  # 0-based index of the next line
        self.block: list[str] = []
        self.block_first = 0
        self.size = 0
        self.seam_tail: list[str] = []
        self.seam_first = 0
        self.seam_reported: set[tuple[int, str]] = set()
        self.junctions = _Junctions(profile)
        self.previous: str | None = None  # the previous line's last JUNCTION_CONTEXT characters, "\r" removed
        self.gaps = _Gaps(profile)
        # The last non-blank line's index and body (comment marker removed, last JUNCTION_CONTEXT characters), whether
        # it had a marker, and whether blank lines followed it.
        self.gap_left: tuple[int, str, bool] | None = None
        self.gap_blank = False
        # A key-value file's mappings and lists, read as JSON objects and arrays are (``key_values.py``).
        self.key_values = KeyValueReader() if is_key_value_file(artifact if name is None else name) else None
        self.key_value_found: list[tuple[int, set[str]]] = []

    def report(self, code: str, number: int, column: int, label: Label) -> bool:
        """Add one finding; False (and one truncation warning) once ``limit`` findings were added."""
        if self.added >= self.limit:
            if not self.stopped:
                self.collector.add(messages.TRUNCATED, self.artifact, "")
            self.stopped = True
            return False
        messages.add(self.collector, code, self.artifact, "", label, self.profile.name, line=number, column=column)
        self.added += 1
        return True

    def feed_lines(self, lines: Iterable[str | LongLine]) -> None:
        """Scan the next lines (stops scanning, but still consumes long lines, once the limit is reached).

        The per-line work is written out here rather than in calls (a source tree has a line every 40 characters or
        so): the junction test is :meth:`_junction`'s, in the same order, and the line's context is sliced only for a
        junction that is noted."""
        long_chars, block_chars, limit, junctions = self.long_chars, self.block_chars, self.limit, self.junctions
        url_start = _URL_START.match
        for line in lines:
            if isinstance(line, str):
                if len(line) > long_chars:
                    line = _long_from_str(line)
            if isinstance(line, LongLine):
                self._long(line)
                continue
            stripped = line.removesuffix("\r")
            left = self.previous
            if left and line and not left[-1].isspace() and not line[0].isspace() and not url_start(line) \
                    and junctions.codes <= limit and not self.stopped:
                junctions.add(self.index - 1, left, stripped[:JUNCTION_CONTEXT])
            self.previous = stripped[-JUNCTION_CONTEXT:]
            body, marked = comment_body(stripped) if stripped and not stripped.isspace() else ("", False)
            if not body or body.isspace():  # a blank line, or a comment marker alone
                self.gap_blank = self.gap_left is not None
            else:
                gap_left = self.gap_left
                if gap_left is not None and (self.gap_blank or marked or gap_left[2]) \
                        and self.gaps.codes <= limit and not self.stopped:
                    self.gaps.add(gap_left[0], gap_left[1], body[:JUNCTION_CONTEXT])
                self.gap_left, self.gap_blank = (self.index, body[-JUNCTION_CONTEXT:], marked), False
            if self.stopped:
                continue
            if self.key_values is not None:
                self._key_value_line(stripped)
            self.block.append(line)
            self.size += len(line) + 1
            self.index += 1
            if self.size >= block_chars:
                self._held_block()

    def finish(self) -> None:
        """Scan the last block, then report the glued line breaks (after every block, as found)."""
        if self.block and not self.stopped:
            self._held_block()
        self.junctions.flush()
        self.gaps.flush()
        if self.key_values is not None and not self.stopped:
            self.key_values.finish()
            self._key_value_runs()
        reported: set[tuple[int, str]] = set()
        for index, codes in self.junctions.found + self.gaps.found + self.key_value_found:
            for code in sorted(codes):
                if (index, code) in reported:
                    continue
                reported.add((index, code))
                if not self.report(code, index + 1, 1, messages.JOINED):
                    return

    def _key_value_line(self, line: str) -> None:
        """Feed one line to the key-value reader; read its finished runs once they hold ``SCREEN_BYTES`` characters."""
        reader = self.key_values
        assert reader is not None
        reader.feed(self.index, line)
        if reader.chars >= SCREEN_BYTES:
            self._key_value_runs()

    def _key_value_runs(self) -> None:
        """Read the finished key-value runs joined, as JSON containers (:func:`joined.joined_findings`); a run's
        codes that none of its lines raises alone are kept for :meth:`finish`, at the run's first line."""
        reader = self.key_values
        assert reader is not None
        runs, reader.runs, reader.chars = reader.runs, [], 0
        containers = [(position, run.pieces) for position, run in enumerate(runs)]
        containers += [(position, run.values) for position, run in enumerate(runs) if run.values != run.pieces]
        found: dict[int, set[str]] = {}
        for position, codes in joined_findings(containers, self.profile):
            found.setdefault(position, set()).update(codes)  # (a copy: the joined results are remembered)
        for position in sorted(found):
            run = runs[position]
            remaining = found[position]
            for line in run.lines:
                remaining -= _line_codes(line, self.profile)
            if EMAIL in remaining and not _real_address_in(run):
                remaining.discard(EMAIL)  # ``uses: owner/action@v7`` glued to ``if: env.rc == 0``
            if remaining:
                self.key_value_found.append((run.first, remaining))

    def _junction(self, right_raw: str, right_context: str) -> None:
        """Note the line break before the line now arriving: ``right_raw`` starts as the line does, ``right_context``
        is its first ``JUNCTION_CONTEXT`` characters without a trailing carriage return."""
        left = self.previous
        if left and right_raw and not left[-1].isspace() and not right_raw[0].isspace() \
                and not _URL_START.match(right_raw) and self.junctions.codes <= self.limit and not self.stopped:
            self.junctions.add(self.index - 1, left, right_context)

    def _scan_lines(self, lines: Sequence[str], first: int, codes: set[str] | None = None) -> bool:
        """Scan ``lines`` (the first is line ``first + 1``) one by one; ``codes``, when given, gets every code they
        raise (what :func:`_line_codes` gives for each). False once the limit is reached."""
        for offset, line in enumerate(lines):
            result = _scan_line(line, first + offset + 1, self.profile, self.collector, self.artifact, self.where,
                                self.limit - self.added, codes)
            if result < 0:
                self.added += -result - 1
                self.stopped = True
                return False
            self.added += result
        return True

    def _held_block(self) -> None:
        lines, first = self.block, self.block_first
        text = "\n".join(lines)
        block_codes = frozenset({TOO_LONG}) if len(text) > self.screen.max_chars else scan_uncached(text, self.screen)
        reported: set[tuple[int, str]] = set()
        if block_codes or _may_expand(lines, 0, len(lines), self.profile):
            line_codes: set[str] = set()
            if not self._scan_lines(lines, first, line_codes):
                return
            for code in sorted(block_codes - line_codes - FAIL_CLOSED):
                start = _first_line_of_split(lines, 0, len(lines), code, self.screen)
                if start is not None:
                    if not self.report(code, first + start + 1, 1, messages.JOINED):
                        return
                    reported.add((first + start + 1, code))
        self._end_block(lines, first, reported, lines)

    def _end_block(self, head_side: Sequence[str], first: int, reported: set[tuple[int, str]],
                   tail_side: Sequence[str]) -> None:
        """Scan the seam between the previous block and this one, then start a new block after ``tail_side``."""
        head = _seam_side(head_side, from_end=False)
        if self.seam_tail and head and not self.stopped:
            seam = self.seam_tail + head
            codes = scan_uncached("\n".join(seam), self.screen) - FAIL_CLOSED
            if codes:
                for line in seam:
                    codes -= _line_codes(line, self.profile)
            for code in sorted(codes):
                start = _first_line_of_split(seam, 0, len(seam), code, self.screen)
                if start is None:
                    continue
                number = self.seam_first + start + 1
                if (number, code) in reported or (number, code) in self.seam_reported:
                    continue
                if not self.report(code, number, 1, messages.JOINED):
                    return
                reported.add((number, code))
        self.seam_tail = _seam_side(tail_side, from_end=True)
        self.seam_first = self.index - len(self.seam_tail)
        self.seam_reported = reported
        self.block, self.block_first, self.size = [], self.index, 0

    def _long(self, line: LongLine) -> None:
        """A long line ends its block, which cannot be screened (too long): every line of it is scanned alone."""
        self._junction(line.head, line.head)
        self.previous = None
        self.gap_left, self.gap_blank = None, False
        if self.key_values is not None:
            self.key_values.finish()  # (a line too long to hold ends every run)
        held, first = self.block, self.block_first
        if not self.stopped and self._scan_lines(held, first):
            number = self.index + 1
            seen: set[str] = set()
            for start, chunk in line.chunks:
                if self.stopped:
                    continue
                for code in sorted(scan_string(chunk, self.profile) - seen):
                    seen.add(code)
                    column = start + locate(chunk, code, self.profile) + 1
                    if not self.report(code, number, column, self.where):
                        break
        for _rest in line.chunks:  # drain, so a streamed line is read to its end
            pass
        self.index += 1
        self._end_block(held, first, set(), [])
        self.previous = line.tail[-JUNCTION_CONTEXT:]


def _may_expand(lines: list[str], first: int, last: int, profile: Profile) -> bool:
    """True when a line chunk of ``lines[first:last]`` might decode past the per-string budget: the screen's budget
    is sized for the whole block, so it would not fail closed on it, and the per-line pass must
    (``privacy.expansion_exceeds_budget``). ASCII lines are cleared by a length bound (a chunk is 4,096 characters)."""
    return any(any(may_expand_past(chunk, profile.max_chars) for _start, chunk in _chunks(line))
               for line in lines[first:last]
               if not line.isascii() or len(line) * EXPANSION_RATIO > profile.max_chars)


def _line_codes(line: str, profile: Profile) -> frozenset[str]:
    line = line[:-1] if line.endswith("\r") else line
    found: set[str] = set()
    for _start, chunk in _chunks(line):
        found |= scan_string(chunk, profile)
    return frozenset(found)


def _first_line_of_split(lines: list[str], first: int, last: int, code: str, screen: Profile) -> int | None:
    """Index of the first line of the shortest run of lines in ``[first, last)`` whose line-joined text raises
    ``code`` (binary searches over line counts, as :func:`_shortest_span` does over characters)."""
    def raises(start: int, end: int) -> bool:
        return code in scan_uncached("\n".join(lines[start:end]), screen)

    if not raises(first, last):
        return None
    low, high = first + 1, last
    while low < high:
        middle = (low + high) // 2
        if raises(first, middle):
            high = middle
        else:
            low = middle + 1
    end = high
    low, high = first, end - 1
    while low < high:
        middle = (low + high + 1) // 2
        if raises(middle, end):
            low = middle
        else:
            high = middle - 1
    return low


GLUE_CONTEXT = 24
# A line that starts with a web URL is not the rest of the previous line's last word: glued to it, the URL would
# lose its scheme (``...Name`` + ``http://host/~name/x.pdf``) and its path would read as a local one.
_URL_START = re.compile(r"(?i)https?://")


def _tail(line: str) -> str:
    start = max(len(line) - GLUE_CONTEXT, 0)
    while start > 0 and not line[start - 1].isspace():
        start -= 1
    return line[start:]


def _head(line: str) -> str:
    end = min(GLUE_CONTEXT, len(line))
    while end < len(line) and not line[end].isspace():
        end += 1
    return line[:end]


def _element_groups(text: str, markup: Markup) -> list[tuple[int, list[str]]]:
    """The pieces of every text element (an SVG ``<text>`` element, an office paragraph), then the text of all of
    them (the figure, the document), each with the offset of its first element."""
    elements = text_elements(text, markup)
    groups = [(offset, pieces) for offset, pieces in elements if len(pieces) > 1]
    if len(elements) > 1:
        groups.append((elements[0][0], ["".join(pieces) for _offset, pieces in elements]))
    return groups


def _scan_line(line: str, number: int, profile: Profile, collector: Collector, artifact: str, where: Label,
               remaining: int, codes: set[str] | None = None) -> int:
    """Findings of one line; returns how many were added, or -(added + 1) once the limit was reached. ``codes``, when
    given, gets the codes the line raises (its chunks' codes: what :func:`_line_codes` gives, found by the same
    scans; complete unless the limit was reached)."""
    added = 0
    if line.endswith("\r"):
        line = line[:-1]
    if line:
        seen: set[str] = set()
        for start, chunk in _chunks(line):
            found = scan_string(chunk, profile)
            if codes is not None:
                codes |= found
            for code in sorted(found - seen):
                seen.add(code)
                if added >= remaining:
                    collector.add(messages.TRUNCATED, artifact, "")
                    return -(added + 1)
                column = start + locate(chunk, code, profile) + 1
                messages.add(collector, code, artifact, "", where, profile.name, line=number, column=column)
                added += 1
    return added
