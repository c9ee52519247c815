"""The cheap prefilter in front of the scan engine: which strings need the full normaliser and rules at all.

Most text holds nothing any rule or decoding step could act on: no at-sign, no run of digits, no path punctuation
the profile cares about, no escape, no URL, no binary-to-text token that decodes to text. :func:`needs_full_scan`
decides that with the profile's *hints* (substring tests, most of them, and a few standard-library patterns that
start with a literal character, compiled once per rule set) plus, only when the text has base64/base32/hex-shaped
tokens, the engine's own cached token decoders. When it returns False the
full path provably finds nothing, so the engine returns no codes without running it; when it returns True the full
path runs unchanged, so the scan stays exactly as strict.

Why "provably": the hints are necessary conditions, read off the engine and the rules.

* The text is ASCII (plus the joined-view screen separator, which no step changes) without control characters
  other than tab and newline, and holds none of the escape hints (``&`` before ``#`` or a letter, ``%`` before two
  hex digits or ``u``, a backslash before ``u U x N / @`` or an octal digit, ``=`` before two upper-case hex
  digits): then one normalisation round changes nothing, the fixed point is the text itself and there is no
  quoted-printable view. Any other character or escape sends the text to the full path; so does a UTF-7 shift
  sequence that decodes to ASCII or fullwidth characters (``normalise.UTF7_HINT``: a view of its own), and so does
  a CSS escape of a character that carries an identifier's shape (``normalise.CSS_HINT``: a view of its own).
* No ``://``: no URL, so the remainder is the text itself and no URL part or payload is scanned.
* No letters-for-digits hint (O for zero, I or l for one) and no ROT13 ``ng`` hint (the engine's own patterns,
  passed in by the engine): no rewritten view.
* No line break between base64 characters (the engine's wrap hint) and no base64, base32 or hex token that the
  engine's cached decoders turn into text: no decoded payload is scanned.
* Every rule of the profile has a hint that any text it matches also matches (:data:`RULE_HINTS`): ``@`` for the
  address rules; for every SSN and phone rule, five digits with at most 17 other characters between neighbours
  (each is gated on eight such digits, five digits one at a time, or eleven in a row) *and* the start of its shape
  (a three-digit group after no letter and before a separator, an SSN's first two groups, a ``+``, a ``00``, ...:
  a hex digest's digits, glued to letters, have neither); the rule's own gate, trigger or first characters
  otherwise. A rule the table does not know makes every text go to the full path (fail safe), so a new rule cannot
  be skipped by accident.

Extending: a new decoding step adds a :class:`Hint` to :data:`ENGINE_HINTS` (one that every text the step would
change or decode matches); a new rule adds its entry to :data:`RULE_HINTS`. A hint whose pattern is costly on common
text may carry weaker forms tested first in C (``Hint.marks`` over the text's number marks, ``Hint.gate``): each
must match wherever the pattern does (``test_every_text_a_hint_pattern_matches_matches_its_weaker_forms``).
``contract_tests/test_privacy_prefilter.py`` checks, over every corpus row and seeded random strings, that a text
the prefilter skips raises nothing on the full path.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

from nerb_verify.frozen import Frozen
from nerb_verify.privacy.normalise import CSS_HINT, INERT_SEPARATOR, UTF7_HINT


class Hint(Frozen):
    """A necessary condition: the text holds at least ``min_digits`` ASCII digits, and ``literal`` (if set), and
    one of ``lower`` (if set) in the lower-cased text, and a match of ``marks`` (if set, a pattern over the text's
    number marks, :func:`number_marks`), and a match of ``pattern`` (if set; on the lower-cased text when
    ``on_lower``). Each part that is set must hold. Cheap parts are tested first; a pattern starts with a literal
    character where it can (the standard library's engine then skips ahead fast). ``gate`` (if set) is a pattern the
    text must match too, a cheap weaker form of ``pattern`` (a class of characters one of which it needs);
    ``marks`` is another, read over one byte per character of five kinds and starting with a literal. Every text
    the pattern matches matches both, so they only spare the pattern search on text that cannot match it
    (digit-heavy text whose digits are not grouped, such as a digest with ``sha256:`` before it).

    Not a tuple (:class:`~nerb_verify.frozen.Frozen`): :func:`_hints` tells a table's tuple of hints from a
    function returning them with ``isinstance(..., tuple)``, which must never take one hint for a tuple of them."""

    __slots__ = ("literal", "lower", "pattern", "min_digits", "on_lower", "marks", "gate")

    literal: str | None
    lower: tuple[str, ...]
    pattern: str | None
    min_digits: int
    on_lower: bool
    marks: str | None
    gate: str | None

    def __init__(self, literal: str | None = None, lower: tuple[str, ...] = (), pattern: str | None = None,
                 min_digits: int = 0, on_lower: bool = False, marks: str | None = None,
                 gate: str | None = None) -> None:
        object.__setattr__(self, "literal", literal)
        object.__setattr__(self, "lower", lower)
        object.__setattr__(self, "pattern", pattern)
        object.__setattr__(self, "min_digits", min_digits)
        object.__setattr__(self, "on_lower", on_lower)
        object.__setattr__(self, "marks", marks)
        object.__setattr__(self, "gate", gate)


# Triggers of the engine's own steps (normalisation, quoted-printable views, URLs); the engine adds the hints of its
# rewritten views and of wrapped base64 (``engine.PREFILTER_HINTS``, from its own patterns).
ENGINE_HINTS: tuple[Hint, ...] = (
    # Non-ASCII (NFKC, look-alikes, digits of other scripts) or a control character other than tab and newline.
    Hint(pattern=rf"[^\t\n\x20-\x7e{INERT_SEPARATOR}]"),
    Hint(literal="&", pattern=r"&[#A-Za-z]"),  # an HTML character reference
    Hint(literal="%", pattern=r"%[0-9A-Fa-f]{2}|%[uU]"),  # a percent escape
    Hint(literal="\\", pattern=r"\\[uUxN/@0-3]"),  # a backslash escape
    Hint(literal="=", pattern=r"=[0-9A-F]{2}"),  # a quoted-printable escape (a view of its own)
    Hint(literal="+", pattern=UTF7_HINT),  # a UTF-7 shift sequence of ASCII or fullwidth characters (a view of its own)
    Hint(literal="\\", pattern=CSS_HINT),  # a CSS escape of an at-sign, dot, slash, digit, ... (a view of its own)
    Hint(literal="://"),  # a URL: its parts and payloads are scanned on their own
)

# Every character a digit-group separator of the SSN and phone rules is made of (brackets, spaces, line breaks too;
# angle and curly brackets around a North American area code).
_SEP = r"[-./_~:+()\[\]<>{} \t\r\n]"
_SEP_CHARS = "-./_~:+()[]<>{} \t\r\n"
# The number marks of a text (``Hint.marks``, :func:`number_marks`): a dot, then its UTF-8 bytes with every ASCII
# digit a "d", every character of ``_SEP`` an "s" (the underscore too, a word character), the letters O, o, I and l
# (read as digits by the engine's letters-for-digits view) an "o", every other ASCII letter an "a", and every other
# byte a dot. An ASCII character is one byte, so the marks of a run of characters are a run of marks; a non-ASCII
# character is all dots, as it is none of these. The leading dot stands for the start of the text (no letter before
# it). (The prefilter reads marks only of text it could not yet send to the full path: ASCII text, or text holding
# the joined-view screen separator.)
def _number_mark(code: int) -> int:
    char = chr(code)
    if char in "0123456789":
        return ord("d")
    if char in _SEP_CHARS:
        return ord("s")
    if char in "OoIl":
        return ord("o")
    return ord("a") if char.isascii() and char.isalpha() else ord(".")


NUMBER_MARKS = bytes(_number_mark(code) if code < 128 else ord(".") for code in range(256))


def number_marks(text: str) -> bytes:
    """The number marks of ``text`` (see ``NUMBER_MARKS``), the leading dot included."""
    return b"." + text.encode("utf-8", "surrogatepass").translate(NUMBER_MARKS)
# Every SSN and phone rule is gated on eight digits close together, five digits one at a time, or eleven in a row,
# so each needs five digits; and each needs the start of its shape, written literal- or digit-first:
_NUMBER = 5
# ... a three-digit group not glued to a letter or an underscore (the rules start after a non-word character, a
# leading 1, a separator or a bracket), then separators or a closing bracket, then the next group's first digit:
# North American (the area code, then a closing bracket and spaces or a separator, then the exchange), trunk (the
# last three digits of the middle group, a separator, the last group) and grouped numbers (the leading three, a
# closing bracket and spaces or a separator, the next group);
_GROUP_START = Hint(min_digits=_NUMBER, pattern=rf"\d\d\d(?<![A-Za-z_]\d\d\d){_SEP}+\d",
                    marks=r"ddd(?<![ao]ddd)s+d")
# ... an SSN's first two groups (a letter may stand before them);
_SSN_GROUPS = Hint(min_digits=_NUMBER, pattern=rf"\d\d\d{_SEP}+\d\d{_SEP}", marks=r"ddds+dds")
# ... five digits one at a time with one separator (the spaced-digit rules' own gate; each separator is one of
# ``_SEP``).
_SPACED = Hint(min_digits=_NUMBER, pattern=r"\d([ \t.\-_/~:])\d\1\d\1\d\1\d", marks=r"dsdsdsdsd")


def _phone_context() -> tuple[Hint, ...]:
    """The context rules' hint: one of their words, up to three characters, then the number's first digit (the
    rules' match without the lookbehind, cut after that digit; on the lower-cased text, as they ignore case)."""
    from nerb_verify.privacy.rules.phone import CONTEXT_WORDS

    words = "|".join(CONTEXT_WORDS)
    return (Hint(min_digits=_NUMBER, lower=CONTEXT_WORDS, on_lower=True, pattern=rf"(?:{words})[^\w\n]{{0,3}}\+?\d"),)



def _at_words() -> tuple[str, ...]:
    from nerb_verify.privacy.rules.email import _AT_WORDS  # the words the spelled-out rules know for the at-sign

    return tuple(sorted({word.lower() for word in _AT_WORDS if word.isascii()}))


def _spelled_plain() -> tuple[Hint, ...]:
    from nerb_verify.privacy.rules.email import _AT_GATE  # the spelled-out rule's own prefilter (lower-cased text)

    return (Hint(lower=_at_words(), pattern=_AT_GATE.pattern, on_lower=True),)


def _spelled_bracketed() -> tuple[Hint, ...]:
    # The bracketed rule's own gate (an opening bracket, one of the at-words, a closing bracket; the rule's
    # ``prefilter`` searches it), run with the standard library's engine on the text as given (ASCII here: the same
    # matches).
    from nerb_verify.privacy.rules.email import _BRACKETED_AT_GATE

    return tuple(Hint(literal=bracket, lower=_at_words(), pattern=_BRACKETED_AT_GATE.pattern) for bracket in "([{<")


def _bracketed_letter_a() -> tuple[Hint, ...]:
    # The letter-a rule's own gate (a bracket, the letter a, a bracket), read from the rule module.
    from nerb_verify.privacy.rules.email import _BRACKETED_LETTER_A

    return (Hint(pattern=_BRACKETED_LETTER_A.pattern),)


HintSet = tuple[Hint, ...] | Callable[[], tuple[Hint, ...]]

# Rule name -> hints, one of which matches every ASCII text the rule can match (or a function returning them, for
# hints read from the rule module itself).
RULE_HINTS: dict[str, HintSet] = {
    "email.address": (Hint(literal="@"),), "email.address_public": (Hint(literal="@"),),
    "email.at_sign": (Hint(literal="@"),),
    "email.spelled": _spelled_bracketed, "email.spelled_plain": _spelled_plain,
    "email.spelled_letter_a": _bracketed_letter_a,
    "email.document_id": (Hint(lower=("doc_",)),),
    "ssn.shape": (_SSN_GROUPS,), "ssn.issuable_shape": (_SSN_GROUPS,),
    "ssn.spaced_digits": (_SPACED,), "ssn.spaced_digits_issuable": (_SPACED,),
    "ssn.context": (Hint(min_digits=_NUMBER, lower=("ssn", "ss#", "social")),),
    **dict.fromkeys(("phone.international", "phone.international_public"),
                    (Hint(min_digits=_NUMBER, literal="+", pattern=r"\+(?<![\w+]\+)[(\[]?[ \t]?[1-9]"),)),
    **dict.fromkeys(("phone.double_zero", "phone.double_zero_public"),
                    (Hint(min_digits=_NUMBER, pattern=r"0(?<![\w.+]0)(?:0|11)", marks=r"dd(?<![aod]dd)"),)),
    **dict.fromkeys(("phone.north_american", "phone.north_american_plausible", "phone.trunk", "phone.trunk_public",
                     "phone.grouped", "phone.grouped_public"), (_GROUP_START,)),
    **dict.fromkeys(("phone.pairs", "phone.pairs_public"),
                    (Hint(min_digits=_NUMBER, pattern=rf"0(?<![\w.+]0)[1-9]{_SEP}", marks=r"dds(?<![aod]dds)"),)),
    "phone.spaced_digits": (_SPACED,), "phone.spaced_digits_public": (_SPACED,),
    **dict.fromkeys(("phone.context", "phone.context_public"), _phone_context),
    # A compact number is a whole run of 10 or 11 digits (nothing of [\w.+] before it, no word character after
    # it); a bare E.164 number one of 11 to 13. (Marks: the run, no letter or digit before or after it; a "." or "+"
    # is a separator mark, so those are not told apart.)
    **dict.fromkeys(("phone.compact", "phone.compact_in_url"),
                    (Hint(min_digits=10, pattern=r"\d(?<![\w.+]\d)\d{9}\d?(?!\w)",
                          marks=r"d{10}(?<![aod]d{10})d?(?![aod])"),)),
    "phone.e164_bare": (Hint(min_digits=11, pattern=r"\d(?<![\w.+]\d)\d{10}\d{0,2}(?!\w)",
                             marks=r"d{11}(?<![aod]d{11})d{0,2}(?![aod])"),),
    # A national number starts with its trunk 0, an area code and a separator, or with a bracketed area code; a
    # compact one is a 0 and nine digits or more after no word character, "." or "+" (the rules' lookbehind).
    # (Marks: a digit, one to five more and separators, then a digit; or a bracket, one to five digits and a bracket.)
    "phone.national": (Hint(min_digits=10,
                            pattern=rf"0(?<![\w.+]0)[1-9]\d{{0,4}}{_SEP}+\d|[(\[]0?[1-9]\d{{0,3}}[)\]]",
                            marks=r"dd{1,5}s+d|sd{1,5}s"),),
    "phone.national_compact": (Hint(min_digits=10, pattern=r"0(?<![\w.+]0)[1-9]\d{8}",
                                    marks=r"d{10}(?<![aod]d{10})"),),
    "path.home": (Hint(lower=("users", "home", "documents and settings")),),
    "path.relative_home": (Hint(literal="home"), Hint(literal="users")),
    "path.root_home": (Hint(literal="/r" + "oot"),),  # (split so this file passes its own scan)
    "path.tilde_user": (Hint(literal="~"),), "path.tilde_user_in_url": (Hint(literal="~"),),
    "path.unc": (Hint(literal="\\"),), "path.unc_public": (Hint(literal="\\"),),
    "path.rooted_backslash": (Hint(literal="\\"),),
    "path.unc_slash": (Hint(literal="//"),),
    # Plain traversal needs its ".." segment; the escaped form is found only on a view the escape hints already send
    # to the full path (a percent, an HTML reference, a backslash escape or non-ASCII dots).
    "path.traversal": (Hint(literal=".."),), "path.traversal_escaped": (),
    "path.traversal_evasion": (Hint(literal=".."),),
    "path.share_uri": (Hint(literal="://"),),
    "path.file_uri": (Hint(lower=("file:",)),), "path.file_uri_any": (Hint(lower=("file:",)),),
    "path.posix_absolute": (Hint(literal="/", pattern=r"/(?<![\w.~%+\-/\\<]/)[\w.~$-]"),),
    "path.drive": (Hint(literal=":", pattern=r":(?<=[A-Za-z]:)[\\/]"),),
    "path.home_shorthand": (Hint(literal="~"), Hint(literal="$"),
                            Hint(lower=("%userprofile%", "%homepath%", "%homedrive%", "%appdata%",
                                        "%localappdata%"))),
    # An option ("-x" or "--name") glued to a slash, "~/", a drive or a share: the rule's match without its
    # lookbehind (which only narrows it).
    "path.option_attached": (Hint(literal="-", pattern=r"-[A-Za-z][\w-]*?(?:/|~[\\/]|[A-Za-z]:[\\/]|\\\\)"),),
}


class _Compiled(Frozen):
    __slots__ = ("literal", "lower", "pattern", "min_digits", "on_lower", "marks", "gate")

    literal: str | None
    lower: tuple[str, ...]
    pattern: re.Pattern[str] | None
    min_digits: int
    on_lower: bool
    marks: re.Pattern[bytes] | None
    gate: re.Pattern[str] | None

    def __init__(self, literal: str | None, lower: tuple[str, ...], pattern: re.Pattern[str] | None,
                 min_digits: int, on_lower: bool, marks: re.Pattern[bytes] | None = None,
                 gate: re.Pattern[str] | None = None) -> None:
        object.__setattr__(self, "literal", literal)
        object.__setattr__(self, "lower", lower)
        object.__setattr__(self, "pattern", pattern)
        object.__setattr__(self, "min_digits", min_digits)
        object.__setattr__(self, "on_lower", on_lower)
        object.__setattr__(self, "marks", marks)
        object.__setattr__(self, "gate", gate)


# The hints run only where they can decide (the full path takes every text with a character outside printable ASCII,
# see ENGINE_HINTS), so their patterns are compiled with ASCII classes: ``\d`` as ``0-9`` and ``\w`` as
# ``A-Za-z0-9_``, the same on ASCII text and two to three times faster with the standard library's engine than
# the Unicode categories.
_ASCII_CLASSES = {"d": ("[0-9]", "0-9"), "w": ("[A-Za-z0-9_]", "A-Za-z0-9_")}


def _ascii_classes(pattern: str) -> str:
    """``pattern`` with ``\\d`` and ``\\w`` written as ASCII classes, inside and outside character sets."""
    out: list[str] = []
    in_set = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            escaped = pattern[index + 1]
            forms = _ASCII_CLASSES.get(escaped)
            out.append(forms[1 if in_set else 0] if forms else pattern[index:index + 2])
            index += 2
            continue
        if char == "[" and not in_set:
            in_set = True
            out.append(char)
            index += 1
            if pattern[index:index + 1] == "^":
                out.append("^")
                index += 1
            if pattern[index:index + 1] == "]":  # a literal ] first in a set
                out.append("]")
                index += 1
            continue
        if char == "]" and in_set:
            in_set = False
        out.append(char)
        index += 1
    return "".join(out)


class _Plan(Frozen):
    """The compiled hints in four groups, tested in this order by :func:`needs_full_scan`: ``literals``, those of
    the hints that are a literal only; ``words``, those of the hints that are lower-case words only (see
    :func:`_fewest_words`); ``rest``, the other hints that count no digits, cheapest first; ``counting``, the hints
    that count digits, smallest count first, tested up to the first that counts more digits than the text holds.
    The text needs the full path when *any* hint holds, so the order the hints are tested in changes nothing but
    the time; a literal-only hint holds exactly when its literal is in the text, a words-only hint exactly when one
    of its words is in the lower-cased text, and no digit-counting hint holds on a text with fewer digits than it
    counts."""

    __slots__ = ("literals", "words", "rest", "counting")

    literals: tuple[str, ...]
    words: tuple[str, ...]
    rest: tuple[_Compiled, ...]
    counting: tuple[_Compiled, ...]

    def __init__(self, literals: tuple[str, ...], words: tuple[str, ...], rest: tuple[_Compiled, ...],
                 counting: tuple[_Compiled, ...]) -> None:
        object.__setattr__(self, "literals", literals)
        object.__setattr__(self, "words", words)
        object.__setattr__(self, "rest", rest)
        object.__setattr__(self, "counting", counting)


@functools.lru_cache(maxsize=32)
def _hints(rule_names: tuple[str, ...], engine_hints: tuple[Hint, ...]) -> _Plan | None:
    """The engine's hints and those of ``rule_names``, deduplicated, compiled and grouped (:class:`_Plan`); None
    when a rule has no known hint."""
    hints: list[Hint] = list(ENGINE_HINTS + engine_hints)
    for name in rule_names:
        known = RULE_HINTS.get(name)
        if known is None:
            return None
        hints.extend(known if isinstance(known, tuple) else known())
    unique = list(dict.fromkeys(hints))
    unique.sort(key=lambda hint: (hint.pattern is not None, hint.min_digits > 0, bool(hint.lower)))
    literals: list[str] = []
    words: list[str] = []
    rest: list[_Compiled] = []
    for hint in unique:
        plain = hint.pattern is None and not hint.min_digits and not hint.marks and not hint.gate
        if plain and hint.literal is not None and not hint.lower:
            literals.append(hint.literal)
        elif plain and hint.literal is None and hint.lower:
            words.extend(hint.lower)
        else:
            rest.append(_Compiled(hint.literal, _fewest_words(hint.lower),
                                  re.compile(_ascii_classes(hint.pattern)) if hint.pattern else None,
                                  hint.min_digits, hint.on_lower,
                                  re.compile(hint.marks.encode("ascii")) if hint.marks else None,
                                  re.compile(hint.gate) if hint.gate else None))
    counting = tuple(sorted((hint for hint in rest if hint.min_digits), key=lambda hint: hint.min_digits))
    return _Plan(tuple(dict.fromkeys(literals)), _fewest_words(words),
                 tuple(hint for hint in rest if not hint.min_digits), counting)


def _fewest_words(words: Sequence[str]) -> tuple[str, ...]:
    """``words`` without those that hold another of them (a text holding ``at sign`` holds ``at``: one of the words
    is in a text exactly when one of the remaining ones is), shortest first (most likely found first)."""
    unique = sorted(set(words), key=lambda word: (len(word), word))
    kept: list[str] = []
    for word in unique:
        if not any(shorter in word for shorter in kept):
            kept.append(word)
    return tuple(kept)


# The last (rule names, engine hints, plan) looked up: the engine passes the same two tuples for every string of a
# profile, and an identity test is cheaper than hashing the hints for the lru_cache key each time.
_last_plan: tuple[tuple[str, ...], tuple[Hint, ...], _Plan | None] | None = None


def _plan(rule_names: tuple[str, ...], engine_hints: tuple[Hint, ...]) -> _Plan | None:
    """:func:`_hints`, with the last lookup remembered by identity."""
    global _last_plan
    last = _last_plan
    if last is not None and last[0] is rule_names and last[1] is engine_hints:
        return last[2]
    plan = _hints(rule_names, engine_hints)
    _last_plan = (rule_names, engine_hints, plan)
    return plan


def needs_full_scan(text: str, rule_names: tuple[str, ...], max_chars: int, engine_hints: tuple[Hint, ...],
                    payloads: Callable[[str], object]) -> bool:
    """False only when the full scan of ``text`` with these rules provably raises nothing (see the module
    docstring). ``engine_hints`` are the engine's own view triggers and ``payloads`` its cached token decoder, true
    when some token decodes to text (:func:`nerb_verify.privacy.engine.has_encoded_payload`, the truth value of
    ``engine.encoded_payloads``): the engine passes both, so they cannot drift apart."""
    if len(text) > max_chars:
        return True  # the full path fails closed on it
    plan = _plan(rule_names, engine_hints)
    if plan is None:
        return True
    for literal in plan.literals:
        if literal in text:
            return True
    low: str | None = None
    if plan.words:
        low = text.lower()
        for word in plan.words:
            if word in low:
                return True
    # (The marks, made once, also count the ASCII digits: one "d" each.)
    marks: bytes | None = number_marks(text) if plan.counting else None
    digits = marks.count(b"d") if marks is not None else 0
    for group in (plan.rest, plan.counting):
        for hint in group:
            if hint.min_digits > digits:
                break  # (``rest`` counts no digits; ``counting`` is sorted by the count, smallest first)
            if hint.literal is not None and hint.literal not in text:
                continue
            if hint.gate is not None and hint.gate.search(text) is None:
                continue
            if hint.marks is not None:
                if marks is None:
                    marks = number_marks(text)
                if hint.marks.search(marks) is None:
                    continue
            if hint.lower:
                low = text.lower() if low is None else low
                for word in hint.lower:
                    if word in low:
                        break
                else:
                    continue
            if hint.pattern is not None:
                if hint.on_lower:
                    low = text.lower() if low is None else low
                if hint.pattern.search(low if hint.on_lower else text) is None:  # type: ignore[arg-type]
                    continue
            return True
    return bool(payloads(text))
