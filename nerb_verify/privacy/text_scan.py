"""Scan of a text file, line by line, reporting line and column (1-based, in characters) of each finding.

Lines longer than 4,096 characters are scanned in 4,096-character chunks that overlap by 512, so minified files are
scanned in bounded pieces instead of failing. The column is found by searching for the shortest prefix of the
line that still raises the code, then the shortest suffix of that prefix, then back to the start of the word it
begins in (so an address is reported at its first character): bounded (binary searches, only on lines that raise
something) and never derived from the value's content beyond its position.
"""

from __future__ import annotations

import dataclasses
import functools

from nerb_verify.findings import Collector, Label
from nerb_verify.privacy import messages
from nerb_verify.privacy.engine import NOT_CONVERGED, TOO_LONG, scan_string, scan_uncached
from nerb_verify.privacy.profiles import Profile

CHUNK = 4096
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
    """0-based offset in ``text`` where the shortest span raising ``code`` starts (0 if it cannot be narrowed)."""
    if code in (NOT_CONVERGED, TOO_LONG):
        return 0
    low, high = 1, len(text)
    if code not in scan_uncached(text, profile):
        return 0
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
    while low > 0 and (text[low - 1].isalnum() or text[low - 1] in "._+%'-"):
        low -= 1  # back to the start of the word the shortest span begins in (an address's local part)
    return low


def scan_text(text: str, profile: Profile, collector: Collector, artifact: str,
              where: Label = messages.LINE, limit: int = messages.MAX_FINDINGS_PER_FILE) -> int:
    """Scan ``text`` line by line; one finding per (line, code) with its column. Returns the number added.

    Speed: each block of about 256 KiB of whole lines is first screened as one string with the same rules; only a
    block that raises something (or exceeds the screen's budget) is scanned line by line. Every rule is written so
    that a match inside one line is also a match inside the block (no line anchors), so screening never hides a
    finding; the per-line pass decides what is reported, so results do not depend on the block size.
    """
    added = 0
    lines = text.split("\n")
    screen = _screen_profile(profile)
    for first, last in _blocks(lines):
        if not scan_uncached("\n".join(lines[first:last]), screen):
            continue
        for number in range(first + 1, last + 1):
            result = _scan_line(lines[number - 1], number, profile, collector, artifact, where, limit - added)
            if result < 0:
                return added - result - 1
            added += result
    return added


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
