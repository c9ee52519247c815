"""What a privacy rule is: a name, the finding code it raises, a ``regex`` pattern, an optional validator, and the
part of a string it applies to."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

import re

import regex

# Where a rule looks:
#   "full"      the whole normalised string, URLs included (identifiers hide in URLs too);
#   "remainder" the normalised string with every http(s) URL blanked out (remote hosts and paths are permitted);
#   "url_path"  the path of an http(s) URL (only rules that a remote path must still not carry, e.g. file URIs);
#   "url_payload" an http(s) URL's path and each of its query keys, values and fragment, normalised (identifier shapes
#               that count only there, e.g. compact phone numbers in the repository profile);
#   "escaped"   the string as given with its plain ".." path segments masked, then normalised (a traversal that only
#               an escape or a look-alike spells, e.g. ".." and an escaped slash; the engine builds it only when a
#               view holds "..").
Scope = Literal["full", "remainder", "url_path", "url_payload", "escaped"]


@dataclass(frozen=True)
class Rule:
    """One detection rule. ``validate`` (if given) must accept a match for the rule to fire."""

    name: str
    code: str
    pattern: LazyPattern | FastPattern
    scopes: tuple[Scope, ...]
    validate: Callable[[regex.Match[str]], bool] | None = None
    # A cheap substring test: the rule cannot match text that contains none of these characters.
    trigger: str | None = None
    # A cheap pattern that must match before the rule is tried (e.g. "at least eight digits close together").
    gate: regex.Pattern[str] | re.Pattern[str] | None = None
    # A cheap test function that must accept the text before the rule is tried (for gates a pattern cannot make
    # cheap, such as a case-insensitive list of words: the function lower-cases once and runs a plain pattern).
    prefilter: Callable[[str], bool] | None = None

    def hits(self, text: str, gates: dict[int, bool] | None = None) -> bool:
        """True when the pattern matches somewhere in ``text`` and the validator (if any) accepts that match.
        ``gates`` caches gate results for one text across rules (several rules share a gate)."""
        if self.trigger is not None and not any(char in text for char in self.trigger):
            return False
        if self.prefilter is not None and not self.prefilter(text):
            return False
        if self.gate is not None:
            key = id(self.gate)
            passed = gates.get(key) if gates is not None else None
            if passed is None:
                passed = self.gate.search(text) is not None
                if gates is not None:
                    gates[key] = passed
            if not passed:
                return False
        first = self.pattern.search(text)
        if first is None:
            return False
        if self.validate is None or self.validate(first):
            return True
        return any(self.validate(match) for match in self.pattern.finditer(text, overlapped=True))


def compile_rule(pattern: str) -> LazyPattern:
    """A rule pattern with the flags every rule uses (``regex`` version-0 semantics, Unicode), compiled on first use
    (:class:`LazyPattern`)."""
    return LazyPattern(pattern)


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

    def search(self, text: str) -> regex.Match[str] | None:
        return self._get().search(text)

    def finditer(self, text: str, overlapped: bool = False) -> Iterator[regex.Match[str]]:
        return self._get().finditer(text, overlapped=overlapped)

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):  # copy, pickle and the like see the wrapper, not the compiled pattern
            raise AttributeError(name)
        return getattr(self._get(), name)


class FastPattern:
    """A rule pattern compiled with the standard library's ``re`` (for patterns made only of constructs where ``re``
    and ``regex`` agree: ASCII-or-Unicode classes on normalised text, fixed-width lookarounds, named groups without
    duplicates, back-references), which searches several times faster. ``finditer(overlapped=True)`` restarts one
    character after each match's start, as ``regex`` does."""

    def __init__(self, pattern: str) -> None:
        self._compiled = re.compile(pattern)

    def search(self, text: str) -> re.Match[str] | None:
        return self._compiled.search(text)

    def finditer(self, text: str, overlapped: bool = False) -> Iterator[re.Match[str]]:
        if not overlapped:
            yield from self._compiled.finditer(text)
            return
        position = 0
        while (match := self._compiled.search(text, position)) is not None:
            yield match
            position = match.start() + 1


def digit_count(text: str) -> int:
    """Number of ASCII digits in ``text`` (the normaliser already mapped every other script's digits)."""
    return sum(1 for char in text if "0" <= char <= "9")


# At least eight digits with at most 17 other characters between neighbours: every SSN and phone shape has this.
EIGHT_DIGITS = regex.compile(r"\d(?:\D{0,17}\d){7}")
