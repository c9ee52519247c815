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

import dataclasses
import functools

from nerb_verify.findings import Collector, Label
from nerb_verify.privacy import messages
from nerb_verify.privacy.engine import FAIL_CLOSED, scan_string, scan_uncached
from nerb_verify.privacy.joined import SCREEN_SEPARATOR, glued, joined_codes, svg_text_elements, view_codes
from nerb_verify.privacy.normalise import EXPANSION_RATIO, may_expand_past
from nerb_verify.privacy.profiles import Profile
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
    return dataclasses.replace(profile, max_chars=SCREEN_BYTES * 20, max_url_payloads=1_000_000,
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
              where: Label = messages.LINE, limit: int = messages.MAX_FINDINGS_PER_FILE) -> int:
    """Scan ``text`` line by line; one finding per (line, code) with its column. Returns the number added.

    Speed: each block of about 256 KiB of whole lines is first screened as one string with the same rules; only a
    block that raises something (or exceeds the screen's budget) is scanned line by line. Every rule is written so
    that a match inside one line is also a match inside the block (no line anchors), so screening never hides a
    finding; the per-line pass decides what is reported, so results do not depend on the block size.

    Joined views (``joined.py``): what the block raises that none of its lines raises was split across lines (a
    line break as separator) and is reported, column 1, at the first line of the shortest run of lines that raises
    it; two lines glued without a separator are scanned where both sides of the line break are non-blank (see
    :func:`_glued_junctions`); an SVG file's (``artifact`` ends in ``.svg``) ``<text>`` elements are joined per element and per figure.
    """
    state = {"added": 0, "stop": False}
    lines = text.split("\n")
    screen = _screen_profile(profile)

    def report(code: str, number: int, column: int, label: Label) -> bool:
        if state["added"] >= limit:
            collector.add(messages.TRUNCATED, artifact, "")
            state["stop"] = True
            return False
        messages.add(collector, code, artifact, "", label, profile.name, line=number, column=column)
        state["added"] += 1
        return True

    for first, last in _blocks(lines):
        block_codes = scan_uncached("\n".join(lines[first:last]), screen)
        if not block_codes and not _may_expand(lines, first, last, profile):
            continue
        line_codes: set[str] = set()
        for number in range(first + 1, last + 1):
            result = _scan_line(lines[number - 1], number, profile, collector, artifact, where, limit - state["added"])
            if result < 0:
                return state["added"] - result - 1
            state["added"] += result
            line_codes |= _line_codes(lines[number - 1], profile)
        for code in sorted(block_codes - line_codes - FAIL_CLOSED):
            start = _first_line_of_split(lines, first, last, code, screen)
            if start is not None and not report(code, start + 1, 1, messages.JOINED):
                return state["added"]
    for index, codes in _glued_junctions(lines, profile):
        for code in sorted(codes):
            if not report(code, index + 1, 1, messages.JOINED):
                return state["added"]
    for offset, pieces in (_svg_groups(text) if artifact.lower().endswith(".svg") else ()):
        for code in sorted(joined_codes(pieces, profile)):
            if not report(code, text.count("\n", 0, offset) + 1, 1, messages.JOINED):
                return state["added"]
    return state["added"]


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


def _glued_junctions(lines: list[str], profile: Profile) -> list[tuple[int, set[str]]]:
    """``(index, codes)`` for every line break whose two lines, glued without a separator, raise codes neither line
    raises alone.

    Only a line break with a non-blank character on both sides can glue two tokens into one, so only those are
    looked at: first screened together (the last ``GLUE_CONTEXT`` characters of the line, extended back to the start
    of its last token, glued to the first ``GLUE_CONTEXT`` characters of the next, extended to the end of its first
    token), then, for a screen that raises something, each such pair of whole lines is scanned glued.
    """
    junctions: list[int] = []
    snippets: list[str] = []
    for index in range(len(lines) - 1):
        left, right = lines[index].removesuffix("\r"), lines[index + 1]
        if not left or not right or left[-1].isspace() or right[0].isspace():
            continue
        junctions.append(index)
        snippets.append(glued([_tail(left), _head(right)]))
    if not junctions:
        return []
    screen = _screen_profile(profile)
    flagged: list[int] = []
    batch: list[int] = []
    size = 0
    for position, index in enumerate(junctions):
        batch.append(position)
        size += len(snippets[position]) + 3
        if size >= SCREEN_BYTES // 4 or position == len(junctions) - 1:
            if scan_uncached(SCREEN_SEPARATOR.join(snippets[item] for item in batch), screen):
                flagged.extend(batch)
            batch, size = [], 0
    found: list[tuple[int, set[str]]] = []
    for position in flagged:
        index = junctions[position]
        left, right = lines[index].removesuffix("\r"), lines[index + 1].removesuffix("\r")
        codes = view_codes(glued([left, right]), profile) - _line_codes(left, profile) - _line_codes(right, profile)
        if codes:
            found.append((index, codes))
    return found


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


def _svg_groups(text: str) -> list[tuple[int, list[str]]]:
    """The pieces of every SVG ``<text>`` element, then the text of all of them (the figure), each with the offset
    of its first element."""
    elements = svg_text_elements(text)
    groups = [(offset, pieces) for offset, pieces in elements if len(pieces) > 1]
    if len(elements) > 1:
        groups.append((elements[0][0], ["".join(pieces) for _offset, pieces in elements]))
    return groups


def _scan_line(line: str, number: int, profile: Profile, collector: Collector, artifact: str, where: Label,
               remaining: int) -> int:
    """Findings of one line; returns how many were added, or -(added + 1) once the limit was reached."""
    added = 0
    if line.endswith("\r"):
        line = line[:-1]
    if line:
        seen: set[str] = set()
        for start, chunk in _chunks(line):
            for code in sorted(scan_string(chunk, profile) - seen):
                seen.add(code)
                if added >= remaining:
                    collector.add(messages.TRUNCATED, artifact, "")
                    return -(added + 1)
                column = start + locate(chunk, code, profile) + 1
                messages.add(collector, code, artifact, "", where, profile.name, line=number, column=column)
                added += 1
    return added
