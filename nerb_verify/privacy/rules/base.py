"""What a privacy rule is: a name, the finding code it raises, a ``regex`` pattern, an optional validator, and the
part of a string it applies to."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Literal

import re

import regex

from nerb_verify.frozen import Frozen
from nerb_verify.privacy.lazy import LazyPattern

if TYPE_CHECKING:
    from nerb_verify.privacy.rules.anchored import AnchoredPattern, WordWindowPattern

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


class Rule(Frozen):
    """One detection rule. ``validate`` (if given) must accept a match for the rule to fire. An immutable value
    (:class:`~nerb_verify.frozen.Frozen`; ``rule._replace(window=None)`` is a changed copy)."""

    __slots__ = ("name", "code", "pattern", "scopes", "validate", "trigger", "gate", "prefilter", "window",
                 "window_lead")

    name: str
    code: str
    pattern: LazyPattern | FastPattern | AnchoredPattern | WordWindowPattern
    scopes: tuple[Scope, ...]
    validate: Callable[[regex.Match[str]], bool] | None
    # A cheap substring test: the rule cannot match text that contains none of these characters.
    trigger: str | None
    # A cheap pattern that must match before the rule is tried (e.g. "at least eight digits close together").
    gate: regex.Pattern[str] | re.Pattern[str] | None
    # A cheap test function that must accept the text before the rule is tried (for gates a pattern cannot make
    # cheap, such as a case-insensitive list of words: the function lower-cases once and runs a plain pattern).
    prefilter: Callable[[str], bool] | None
    # A number rule whose every match that can count holds at least this many digits inside one digit-and-separator
    # run (see :func:`number_spans`): the pattern is searched only in the spans around such runs, never elsewhere.
    # Set only with a proof, in a comment at the rule, that the rule meets the conditions of ``number_spans``.
    window: int | None
    # How many characters a match of a windowed rule may consume before its first digit (condition (b); ``_LEAD``).
    # None: unbounded (condition (b) does not hold): the runs are only a necessary condition (no run with ``window``
    # digits, no match), and the whole text is searched otherwise.
    window_lead: int | None

    def __init__(self, name: str, code: str, pattern: LazyPattern | FastPattern | AnchoredPattern | WordWindowPattern,
                 scopes: tuple[Scope, ...],
                 validate: Callable[[regex.Match[str]], bool] | None = None, trigger: str | None = None,
                 gate: regex.Pattern[str] | re.Pattern[str] | None = None,
                 prefilter: Callable[[str], bool] | None = None, window: int | None = None,
                 window_lead: int | None = 3) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "pattern", pattern)
        object.__setattr__(self, "scopes", scopes)
        object.__setattr__(self, "validate", validate)
        object.__setattr__(self, "trigger", trigger)
        object.__setattr__(self, "gate", gate)
        object.__setattr__(self, "prefilter", prefilter)
        object.__setattr__(self, "window", window)
        object.__setattr__(self, "window_lead", window_lead)

    def hits(self, text: str, gates: dict[Any, Any] | None = None) -> bool:
        """True when the pattern matches somewhere in ``text`` and the validator (if any) accepts that match.
        ``gates`` caches gate results (and the number runs) for one text across rules (several rules share a
        gate). A rule with a ``window`` is searched only in :func:`number_spans` of the text, which provably
        finds every match the whole-text search finds that can count, and only true matches of the whole text."""
        if self.trigger is not None and not any(char in text for char in self.trigger):
            return False
        if self.prefilter is not None and not self.prefilter(text):
            return False
        spans: list[tuple[int, int]] | None = None
        if self.window is not None:
            runs = gates.get(_RUNS_KEY) if gates is not None else None
            if runs is None:
                runs = number_runs(text)
                if gates is not None:
                    gates[_RUNS_KEY] = runs
            if self.window_lead is None:
                if not any(digits >= self.window for _first, _last, digits in runs):
                    return False  # no run holds enough digits: no match can count (whatever the gate says)
            else:
                spans = number_spans(text, runs, self.window, self.window_lead)
                if spans == []:
                    return False  # as above
        if self.gate is not None:
            key = id(self.gate)
            passed = gates.get(key) if gates is not None else None
            if passed is None:
                passed = self.gate.search(text) is not None
                if gates is not None:
                    gates[key] = passed
            if not passed:
                return False
        if spans is not None:
            return any(self._hits_in(text, start, end) for start, end in spans)
        return self._hits_in(text, 0, len(text))

    def _hits_in(self, text: str, pos: int, endpos: int) -> bool:
        """The pattern searched from ``pos`` to ``endpos`` (lookbehinds see the text before ``pos``; every match
        is a match object over the whole ``text``, so validators read the same context)."""
        first = self.pattern.search(text, pos, endpos)
        if first is None:
            return False
        if self.validate is None or self.validate(first):
            return True
        return any(self.validate(match) for match in self.pattern.finditer(text, pos, endpos, overlapped=True))


def compile_rule(pattern: str) -> LazyPattern:
    """A rule pattern with the flags every rule uses (``regex`` version-0 semantics, Unicode), compiled on first use
    (:class:`LazyPattern`)."""
    return LazyPattern(pattern)


class FastPattern:
    """A rule pattern compiled with the standard library's ``re`` (for patterns made only of constructs where ``re``
    and ``regex`` agree: ASCII-or-Unicode classes on normalised text, fixed-width lookarounds, named groups without
    duplicates, back-references), which searches several times faster; compiled on first use. ``finditer(overlapped=True)`` restarts one
    character after each match's start, as ``regex`` does."""

    def __init__(self, pattern: str) -> None:
        self._source = pattern
        self._pattern: re.Pattern[str] | None = None  # compiled on first use: most texts never reach most rules

    @property
    def _compiled(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = re.compile(self._source)
        return self._pattern

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        return self._compiled.search(text, pos, len(text) if endpos is None else endpos)

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None,
                 overlapped: bool = False) -> Iterator[re.Match[str]]:
        end = len(text) if endpos is None else endpos
        if not overlapped:
            yield from self._compiled.finditer(text, pos, end)
            return
        position = pos
        while (match := self._compiled.search(text, position, end)) is not None:
            yield match
            position = match.start() + 1


def digit_count(text: str) -> int:
    """Number of ASCII digits in ``text`` (the normaliser already mapped every other script's digits)."""
    return sum(1 for char in text if "0" <= char <= "9")


# At least eight digits with at most 17 other characters between neighbours: every SSN and phone shape has this.
EIGHT_DIGITS = regex.compile(r"\d(?:\D{0,17}\d){7}")


# --- Number windows ------------------------------------------------------------------------------------------------
#
# A *run* is a maximal stretch of the text without a *breaker*: an ASCII character that is neither a digit nor one of
# the separators below, or U+2603. A *digit* here is an ASCII digit or any other non-ASCII character (a superset of
# what ``\d`` matches in either engine, whatever its Unicode tables). A rule may set ``Rule.window = k`` only when:
#
#   (a) every character its pattern consumes from the match's first digit on, and every character a lookahead
#       reads past its first one, is a digit or one of ``_RUN_SEPARATORS`` (so the digits of a match, and the reads
#       that decide it, never cross a breaker);
#   (b) its pattern consumes at most ``_LEAD`` characters (or the rule's ``window_lead``, if larger) before the
#       match's first digit, and those may be anything (they may lie outside the run);
#   (c) every match ends with a digit, and every lookahead alternative that reads more than one character needs a
#       digit after separators only (``[.]\d``, ``{sep}\d``): past a run's last digit it fails, in the whole text as
#       in a text cut one character after that digit;
#   (d) every match that can make ``hits`` true holds at least ``k`` digits: the pattern's own minimum (a rule with
#       no validator) or the validator's (which counts ASCII digits, a subset of the digits here).
#
# Then such a match lies inside one run with at least k digits, from at most _LEAD characters before the run's
# first digit to its last digit, and :func:`number_spans` covers that (a search starting at ``pos`` reads the text
# before it in lookbehinds, as the whole-text search does, and ``endpos`` one character after the last digit shows
# every character a match or a lookahead there reads). Conversely, everything a search in a span finds is a match of
# the whole text: spans only narrow where the search starts and stops.
_RUN_SEPARATORS = "-./_~:+()[]<>{} \t\r\n"
# (The joined-view separator U+2603, a symbol no rule consumes and that ``\d``/``\w`` never match, is a breaker too,
# so the chunks of a joined view are separate runs.)
# Written as the complement of the ASCII non-digits and U+2603 (the same set as ``0-9`` and every other
# non-ASCII character; compiles in under a millisecond, where the positive ranges take five).
_DIGIT_CLASS = "^\x00-/:-\x7f\u2603"
_LEAD = 3
# A run's first digit, then at least seven more, separators between them (one match per run with eight digits or
# more: from the run's first digit to its last, as separators and digits never overlap the match is unambiguous).
_NUMBER_RUN = re.compile(rf"[{_DIGIT_CLASS}](?:[-./_~:+()\[\]<>{{}} \t\r\n]*[{_DIGIT_CLASS}]){{7,}}")
_NOT_DIGIT = str.maketrans("", "", _RUN_SEPARATORS)
_RUNS_KEY = "number_runs"
# Spans closer than this are searched as one (fewer calls; a search over the gap finds only true matches).
_MERGE_GAP = 64
# When the spans cover more than this share of the text, the whole text is searched (the same result, fewer calls).
_MAX_SHARE = 0.5


def number_runs(text: str) -> list[tuple[int, int, int]]:
    """Every run of ``text`` with at least eight digits: (its first digit, one past its last digit, its digits)."""
    return [(match.start(), match.end(), len(match.group(0).translate(_NOT_DIGIT)))
            for match in _NUMBER_RUN.finditer(text)]


def number_spans(text: str, runs: list[tuple[int, int, int]], min_digits: int,
                 lead: int = _LEAD) -> list[tuple[int, int]] | None:
    """The (pos, endpos) spans in which a rule with ``window = min_digits`` is searched: each run with at least
    ``min_digits`` digits, from ``lead`` characters (the rule's ``window_lead``) before its first digit to one
    character after its last, close ones merged; None when they would cover most of the text (search it whole)."""
    spans: list[list[int]] = []
    for first, last, digits in runs:
        if digits < min_digits:
            continue
        start, end = max(0, first - lead), min(len(text), last + 1)
        if spans and start <= spans[-1][1] + _MERGE_GAP:
            spans[-1][1] = end
        else:
            spans.append([start, end])
    if sum(end - start for start, end in spans) > _MAX_SHARE * len(text):
        return None
    return [(start, end) for start, end in spans]
