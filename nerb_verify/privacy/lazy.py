"""A ``regex`` pattern compiled on first use (a leaf module: the rules and the normaliser both use it).

Compiling with ``regex`` costs about 0.1-1 ms a pattern, in Python. A process that verifies one bundle compiles only
the patterns its texts reach: with ``verify --jobs 2`` the forked child pays for every pattern the privacy scans
use, and about a third of the module-level ones are never used on a clean bundle (issue 16, speed).
"""

from __future__ import annotations

from collections.abc import Iterator

import regex


class LazyPattern:
    """A rule pattern compiled on first use: most rules sit behind a trigger, a gate or the prefilter that most
    texts never pass, so a process (a verification, a pre-commit hook on a few files) does not pay at import for
    compiling patterns it never runs (about 30 ms for all of them with ``regex``). Any other attribute is the
    compiled pattern's."""

    def __init__(self, pattern: str) -> None:
        self._source = pattern
        self._compiled: regex.Pattern[str] | None = None

    def _get(self) -> regex.Pattern[str]:
        if self._compiled is None:
            self._compiled = regex.compile(self._source, regex.VERSION0)
        return self._compiled

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> regex.Match[str] | None:
        return self._get().search(text, pos, len(text) if endpos is None else endpos)

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None,
                 overlapped: bool = False) -> Iterator[regex.Match[str]]:
        return self._get().finditer(text, pos, len(text) if endpos is None else endpos, overlapped=overlapped)

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):  # copy, pickle and the like see the wrapper, not the compiled pattern
            raise AttributeError(name)
        return getattr(self._get(), name)
