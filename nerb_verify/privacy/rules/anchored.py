"""A rule pattern searched only where its matches can start: just before a required character.

The e-mail address pattern begins with a lookbehind and a repeated class (``(?<![\\w.+%'-])[\\w.+%'-]*\\w@...``), so
an ordinary search tries the pattern at every position of the text and reads each word of it again and again: over
source text it ran at about 6 MB/s and was the repository profile's costliest rule (issue 17, speed). Every match of
such a pattern starts at one place a plain character search finds: the first character of the run of local-part
characters that ends just before an at-sign. :class:`AnchoredPattern` finds the at-signs with ``str.find`` (C
speed), reads each run's start with one backwards match, and runs the pattern anchored there.

Why it is exact. Say the pattern, compiled with the same flags:

(a) consumes, from a match's first character on, only characters of ``run_class`` and then ``literal``, which is not
    one of them (the local part, then the at-sign);
(b) has a lookbehind at its start that refuses a ``run_class`` character before the match;
(c) consumes at least one ``run_class`` character before ``literal``.

Then a match that starts at ``s`` holds the ``literal`` at some ``p > s`` with every character from ``s`` to
``p - 1`` in ``run_class`` (a) and the character before ``s`` outside it (b): ``s`` is the first character of the
maximal run that ends at ``p - 1``, a run that is not empty (c). Those are the only starts tried, each with
``match`` (anchored; the lookbehind still reads the text before it, as in a search from ``pos``), so the starts where
a match exists are exactly those of the plain search, and the match found at each start is the one the plain search
finds there (the engine's search tries positions left to right and runs the same anchored matcher at each). A start
is tried once per at-sign, and the at-signs are found in order, so ``search`` returns the leftmost match and
``finditer`` yields the plain finditer's matches (with ``overlapped``: one per start; without: the next start at or
after the previous match's end). ``contract_tests/test_privacy_anchored.py`` compares both with the plain pattern.
"""

from __future__ import annotations

from collections.abc import Iterator

import regex

from nerb_verify.privacy.lazy import LazyPattern
from nerb_verify.privacy.lowercase import lowered


class _StartsPattern:
    """A rule pattern searched only at the places its subclass names (:meth:`_starts`, increasing, each once): the
    ``search`` and ``finditer`` of ``regex.Pattern``, by ``match`` at each place. Compiled on first use; any other
    attribute is the compiled pattern's."""

    def __init__(self, pattern: str) -> None:
        self._pattern = LazyPattern(pattern)

    def _starts(self, text: str, pos: int, endpos: int) -> Iterator[int]:
        raise NotImplementedError

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> regex.Match[str] | None:
        """The leftmost match of the pattern in ``text[pos:endpos]`` (as ``regex.Pattern.search``)."""
        end = len(text) if endpos is None else endpos
        for start in self._starts(text, pos, end):
            found = self._pattern.match(text, start, end)
            if found is not None:
                return found
        return None

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None,
                 overlapped: bool = False) -> Iterator[regex.Match[str]]:
        """The matches of ``regex.Pattern.finditer`` over ``text[pos:endpos]``, in order."""
        end = len(text) if endpos is None else endpos
        resume = pos
        for start in self._starts(text, pos, end):
            if start < resume:
                continue
            found = self._pattern.match(text, start, end)
            if found is not None:
                yield found
                if not overlapped:
                    resume = found.end()

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):  # copy, pickle and the like see the wrapper, not the compiled pattern
            raise AttributeError(name)
        return getattr(self._pattern, name)


class AnchoredPattern(_StartsPattern):
    """``pattern`` (a rule pattern that meets conditions (a)-(c) of the module docstring for ``literal`` and
    ``run_class``), searched only at the starts of the ``run_class`` runs that end just before a ``literal``."""

    def __init__(self, pattern: str, literal: str, run_class: str) -> None:
        if len(literal) != 1:
            raise ValueError("the anchor is one character")
        super().__init__(pattern)
        self._literal = literal
        # The run read backwards from just before the literal: its start is the match's start.
        self._run_backwards = LazyPattern(f"(?r){run_class}*")

    def _starts(self, text: str, pos: int, endpos: int) -> Iterator[int]:
        """Every place in ``[pos, endpos)`` a match can start, in increasing order (see the module docstring)."""
        find = text.find
        backwards = self._run_backwards
        at = find(self._literal, pos, endpos)
        while at != -1:
            run = backwards.match(text, pos, at)
            start = run.start() if run is not None else at
            if start < at:
                yield start
            at = find(self._literal, at + 1, endpos)


# The characters outside ASCII that ``regex`` matches case-insensitively to an ASCII letter (dotted capital I,
# long s, Kelvin sign; ``contract_tests/test_privacy_anchored.py`` checks every code point). A text without them
# matches the words, case-insensitively, exactly where its ASCII letters do.
_ASCII_FOLDS = "\u0130\u017f\u212a"


def _occurrences(low: str | bytes, needles: tuple[str, ...] | tuple[bytes, ...], pos: int, endpos: int) -> list[int]:
    """The starts of every occurrence of ``needles`` (which cannot overlap one another) inside ``low[pos:endpos]``,
    in increasing order."""
    starts: list[int] = []
    for needle in needles:
        at = low.find(needle, pos, endpos)
        while at != -1:
            starts.append(at)
            at = low.find(needle, at + len(needle), endpos)
    starts.sort()
    return starts


class WordWindowPattern(_StartsPattern):
    """``pattern`` searched only near the words every match holds: a rule pattern that meets, for ``words`` (lower-case
    literal words, matched case-insensitively), ``lead`` and ``run_class``, the condition

    (w) every match holds an occurrence of ``words`` that begins at most ``max(lead, 2 + r)`` characters after the
        match's start, where ``r`` is the length of the maximal run of ``run_class`` characters that ends just
        before that occurrence (a path's slashes before ``Users``, and a drive before them);

    and whose words cannot overlap one another (so a search for them finds every occurrence). With ``follow`` (the
    characters, written out), an occurrence counts only when one of them comes right after the word, and (w) must hold
    of those occurrences (the home-path rule: every match writes its word before a slash or backslash; in source,
    most occurrences of "users" and "home" are not). Then every match starts
    in one of the windows ``[q - max(lead, 2 + r), q]`` around the occurrences ``q``, and only the starts of those
    windows are tried, in increasing order, each with ``match`` (anchored; lookbehinds still read the text before
    it). As for :class:`AnchoredPattern`, the starts where a match exists and the match found at each are those of
    the plain search, so ``search`` and ``finditer`` give what the plain pattern gives
    (``contract_tests/test_privacy_anchored.py``).

    The words are found case-insensitively with ``regex`` in text that holds one of ``_ASCII_FOLDS``. In other text,
    as literals (each word, with each character of ``follow`` after it) found by ``find`` in the lower-cased text:
    ASCII text as it is, other text encoded one byte per character with "?" for each non-ASCII one, which is no
    letter, slash or backslash. These are the same places: without ``_ASCII_FOLDS`` only ASCII letters match the
    words' letters case-insensitively, and lowering ASCII keeps every position; the literals cannot overlap one
    another, as the words cannot and ``follow`` holds no letter, so every occurrence is found. (The home-path rule on
    6.4 MB of installed source: 43 ms with one case-insensitive search for the alternation, 21 ms so.)"""

    def __init__(self, pattern: str, words: tuple[str, ...], lead: int, run_class: str, follow: str = "") -> None:
        if any(word != word.lower() or not word.isascii() for word in words):
            raise ValueError("the words are lower-case ASCII literals")
        if any(char.isalnum() or not char.isascii() for char in follow):
            raise ValueError("follow holds ASCII characters that are not letters or digits")
        super().__init__(pattern)
        alternation = "|".join(regex.escape(word) for word in words)
        if follow:
            alternation = f"(?:{alternation})[{''.join(regex.escape(char) for char in follow)}]"
        self._words = LazyPattern(f"(?i){alternation}")
        # In lower-cased ASCII text: every word, with each character of ``follow`` after it, as a literal.
        self._needles = tuple(word + char for word in words for char in follow) if follow else words
        self._byte_needles = tuple(needle.encode("ascii") for needle in self._needles)
        self._lead = lead
        self._run_backwards = LazyPattern(f"(?r){run_class}*")

    def _starts(self, text: str, pos: int, endpos: int) -> Iterator[int]:
        """Every place in ``[pos, endpos)`` a match can start, in increasing order, each once."""
        backwards = self._run_backwards
        tried = pos  # the first start not yet given
        found: list[int]
        if text.isascii():
            found = _occurrences(lowered(text), self._needles, pos, endpos)
        elif not any(char in text for char in _ASCII_FOLDS):
            # One byte per character, "?" for each non-ASCII one (no letter, slash or backslash), lower-cased.
            found = _occurrences(text.encode("ascii", "replace").lower(), self._byte_needles, pos, endpos)
        else:
            found = [word.start() for word in self._words.finditer(text, pos, endpos)]
        for at in found:
            run = backwards.match(text, pos, at)
            length = at - run.start() if run is not None else 0
            first = max(tried, at - max(self._lead, 2 + length))
            for start in range(first, at + 1):
                yield start
            tried = max(tried, at + 1)
