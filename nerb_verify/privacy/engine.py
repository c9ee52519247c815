"""The scan engine: one string in, the set of finding codes it raises out (never positions, never values).

For each string:

1. normalise to a bounded fixed point (``normalise.py``); when the result holds quoted-printable escapes, peel one
   layer and normalise again, up to 3 layers, scanning every such *view* (``=XX`` also occurs in ordinary
   ``key=value`` text, so the undecoded view is always scanned too); if normalisation fails the string raises only
   the fail-closed code (we cannot know what it says, so no other verdict is meaningful);
2. run the profile's identifier rules (scope ``full``) on the whole normalised text, URLs included, and, around a
   hint only, on a letters-for-digits view (O for zero, I or l for one; SSN and phone rules), an odd-separator view
   (the strict SSN and phone rules: ``713;555;0123``, ``separator_view.py``) and a ROT13 view (e-mail rules);
3. blank every http(s) URL and run the path rules (scope ``remainder``) on what is left;
4. partition every URL into authority, path, query and fragment: a drive-letter or malformed authority is checked as
   a local path, the path gets the ``url_path`` rules (file URIs, shares, drive paths hidden in a remote path), and
   every query key and value and the fragment are scanned again as strings of their own (decoded with their own
   budget), recursively, at most ``max_url_depth`` URLs deep and ``max_url_payloads`` payloads in all; more fails
   closed;
5. decode every base64 / base64url token (12 characters or more, also when MIME-wrapped over several lines, also
   read backwards), every base32 token (16 characters or more), every hex run (6 bytes or more) of the view, and
   the ascii85, base85 and uuencoded runs of the view and of the text as given (``payloads.py``); bytes that are a
   gzip or zlib stream are inflated (bounded); a token whose bytes are printable UTF-8, UTF-16 or UTF-32 text is
   scanned again as a string of its own, recursively, under the same depth and payload budget
   (``privacy.encoded_payload_budget`` when exceeded). Random bytes (hashes, digests, ids) are practically never
   printable text, so only real encoded text is rescanned;
6. profiles with ``escaped`` rules (repository: escaped traversal) run them on the text normalised once more after
   its plain ``..`` segments were masked, only when a view holds a ``..`` segment at all.

A string that cannot be normalised within budget raises only its fail-closed code (``FAIL_CLOSED``): too long as
given, expanded past the budget by decoding, or not converged.

Results are cached per (profile, string, path rules on/off): evidence repeats the same keys and values many times.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
import sys

import regex

from nerb_verify.codes import register
from nerb_verify.privacy import separator_view
from nerb_verify.privacy.char_codes import HINTS as CHAR_CODES_HINTS
from nerb_verify.privacy.char_codes import MIN_CODES, char_code_texts, has_char_codes
from nerb_verify.privacy.lazy import LazyPattern
from nerb_verify.privacy.normalise import (
    decode_css_escapes,
    decode_quoted_printable,
    decode_utf7,
    has_css_escape,
    has_quoted_printable,
    has_utf7,
    normalise,
)
from nerb_verify.privacy.payloads import (
    MIN_WORD_TOKEN,
    as_text,
    block_has_raw_payload,
    raw_payloads,
    word_has_raw_payload,
)
from nerb_verify.privacy.prefilter import Hint, needs_full_scan
from nerb_verify.privacy.profiles import PROFILES, STRICT_NUMBER_RULES, Profile
from nerb_verify.privacy.rules import ALL_RULES
from nerb_verify.privacy.rules.email import AT_SIGN, EMAIL
from nerb_verify.privacy.rules.paths import LOCAL_PATH, PERSONAL_PATH, PLAIN_TRAVERSAL
from nerb_verify.privacy.rules.phone import PHONE
from nerb_verify.privacy.rules.ssn import SSN

NOT_CONVERGED = register(
    "privacy.encoding_not_converged", "Text did not decode to a fixed point within the normalisation budget.",
    "Every string is decoded (NFKC, zero-width removal, HTML entities, percent, quoted-printable and backslash "
    "escapes, look-alike punctuation) until nothing changes, at most 8 decoding rounds. A string still changing "
    "after that is ambiguous: the scan cannot know what it says, so it fails closed. Remove the nested encoding.")
TOO_LONG = register(
    "privacy.string_too_long", "Text is longer than the normalisation budget.",
    "A string longer than 16,384 characters before any decoding is not scanned and fails closed (one that decoding "
    "expands past the budget is privacy.expansion_exceeds_budget). Text files are scanned in overlapping chunks, "
    "so this concerns JSON strings and keys, and decoded payloads (a compressed stream inflates to up to 64 KiB).")
EXPANDED = register(
    "privacy.expansion_exceeds_budget", "Decoding expands the text past the normalisation budget.",
    "A string within the 16,384-character budget whose decoding (NFKC expands one character up to 18-fold, so a few "
    "hundred ligatures or squared words decode to thousands of characters) grows past it in some round. What it "
    "decodes to was not scanned, so it fails closed, in JSON strings, keys and text files alike. Write the text "
    "without compatibility characters.")
URL_BUDGET = register(
    "privacy.url_budget_exceeded", "URLs are nested deeper, or carry more payloads, than the scan budget.",
    "Query and fragment payloads of http(s) URLs are decoded and scanned recursively, at most 4 URLs deep and 256 "
    "payloads per string. Text that goes beyond that fails closed, because what is hidden deeper was not scanned.")

# Quoted-printable layers peeled into extra views (each view is the fixed point of the other encodings).
MAX_QP_LAYERS = 3

# An http(s) URL in normalised text: authority up to the first slash, question mark or hash (backslashes and colons
# kept, so C:\... authorities are seen), then RFC 3986 path/query/fragment characters plus backslash.
_URL = regex.compile(r"(?i)(?<![\w+.-])https?://[^\s\"'<>/?#]*(?:[/?#][\w\-.~:/?#\[\]@!$&'()*+,;=%\\]*)?")
_VALID_AUTHORITY = regex.compile(r"(?:[^@\s]*@)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~-]+)(?::[0-9]*)?")
_DRIVE_AUTHORITY = regex.compile(r"(?:[^@\s]*@)?[A-Za-z]:.*", regex.S)
_PAYLOAD_SPLIT = regex.compile(r"[&;]")
# Binary-to-text encodings whose payload is rescanned: base64 (standard or URL-safe alphabet, padding optional) and
# hex. Hex runs are also base64 tokens; both decodings are tried.
# These four token patterns use only ASCII classes, fixed-width lookarounds and plain quantifiers, where the standard
# library's ``re`` finds exactly the same matches as ``regex``, several times faster (``test_privacy_joined.py``
# checks the two agree).
_BASE64_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{12,}={0,2}(?![A-Za-z0-9+/_=-])")
# (The two hex patterns test "no hex digit before" just after their first character rather than before it: the same
# matches, found about three times faster, since the engine then scans ahead for a hex digit.)
# A plain run of 12 hex digits or more, of either parity (a digit glued to either end of the bytes, "...6f72672",
# does not hide them: an odd run is decoded without its last digit, then without its first).
_HEX_TOKEN = re.compile(r"[0-9A-Fa-f](?<![0-9A-Fa-f][0-9A-Fa-f])[0-9A-Fa-f]{11,}(?![0-9A-Fa-f])")
# Hex bytes written with a separator ("6a 61 6e", "6a:61:6e", "6a-61-6e").
_SEPARATED_HEX = re.compile(
    r"[0-9A-Fa-f](?<![0-9A-Fa-f][0-9A-Fa-f])[0-9A-Fa-f](?:[ :-][0-9A-Fa-f]{2}){5,}(?![0-9A-Fa-f])")
# Base32 (RFC 4648, either case, padding optional): 16 characters carry 10 bytes.
_BASE32_TOKEN = re.compile(r"(?<![A-Za-z0-9=])(?:[A-Z2-7]{16,}|[a-z2-7]{16,})=*(?![A-Za-z0-9=])")
# MIME-style wrapping: base64 lines of 16+ characters joined by line breaks (each line alone may be too short to
# decode at the right alignment, or split the hidden text between two tokens).
# Each line is matched from the start of its run and possessively, so a long run costs linear time.
_WRAPPED_BASE64 = LazyPattern(
    r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}+(?:[ \t]*+\r?\n[ \t]*+[A-Za-z0-9+/_-]{4,}+)++={0,2}")
# Where a wrapped run can start (the *wrap condition* at q): a maximal run of 16 or more base64 characters starts at q
# (nothing of the alphabet before it) and ends a line: blanks, an optional CR, a line break, then the next line starts
# with blanks and 4 base64 characters. Every _WRAPPED_BASE64 match starts where it holds: a match at q has no base64
# character before q, then 16 or more of them, then its first (mandatory) wrapped line: blanks, an optional CR, a line
# break, blanks and 4 or more base64 characters (the run ends where a blank or line break follows, neither of which is
# a base64 character, so the possessive run is the maximal one). :func:`_wrap_starts` finds every such q from the
# line breaks, in the text read backwards: the end of the condition, reversed, starts with a line break, which the
# standard library's ``re`` skips ahead to in C, where a forward search would try a start at every word of source.
_WRAP_END_REVERSED = re.compile(r"\n\r?[ \t]*[A-Za-z0-9+/_-]{16}")
_WRAP_NEXT_LINE = re.compile(r"[ \t]*[A-Za-z0-9+/_-]{4}")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]*")
# The base64 token search that starts where no base64 character precedes, written with that character consumed
# instead of tested by a lookbehind: the engine then skips ahead to the next character outside the alphabet in C and
# tries one start per run of the alphabet, instead of trying (and refusing by the lookbehind) every character of every
# run, about 1.7x faster on source. It misses only a token at the text's very beginning, which the caller tries apart
# with the original pattern (see :func:`_base64_tokens`).
_BASE64_AFTER = re.compile(r"[^A-Za-z0-9+/_-]([A-Za-z0-9+/_-]{12,}={0,2})(?![A-Za-z0-9+/_=-])")


def _base64_tokens(clean: str) -> list[str]:
    """The matches of ``_BASE64_TOKEN`` in ``clean``, as ``finditer`` finds them.

    Why the same: a match at 0 is the one ``match`` finds. Any later match starts at some ``q`` with a character
    outside the alphabet at ``q - 1``; ``_BASE64_AFTER`` matches at ``q - 1`` with the same token (the same greedy
    run, padding and lookahead). ``q - 1`` is never inside the previous match: that match ends with a character of the
    alphabet or "=", and its lookahead refuses a character of the alphabet right after it, so the next token starts
    at least one character later. A match of ``_BASE64_AFTER`` at ``r`` is a token at ``r + 1`` whose lookbehind
    holds, so it finds no token the pattern does not."""
    first = _BASE64_TOKEN.match(clean)
    tokens = [first.group(0)] if first is not None else []
    tokens += _BASE64_AFTER.findall(clean, first.end() if first is not None else 0)
    return tokens


# Texts at least this long have their base64 tokens found on byte marks (:func:`_marked_base64_tokens`); shorter ones
# (strings, words) with the pattern, cheaper there than translating them.
MARKED_TOKENS_MIN = 512
# A maximal run of 12 or more base64 marks and the "=" marks after it, on the marks of ``_PADDING_MARKS`` (twelve
# literal marks first: the standard library's engine then skips ahead to them in C).
_MARKED_RUN = re.compile(rb"bbbbbbbbbbbbb*(=*)")


def _marked_base64_tokens(raw: bytes) -> list[str]:
    """The matches of ``_BASE64_TOKEN`` in the text whose UTF-8 (``surrogatepass``) is ``raw``, as ``finditer``
    finds them, read on its marks (``_PADDING_MARKS``: a base64 character "b", "=" itself, every other byte, those
    of non-ASCII characters included, a dot). Why the same: a match's body is a maximal run of base64 characters
    (the lookbehind refuses one before it; the greedy run stops only at a character outside the alphabet), 12 or
    more, and the run's leftmost 12 marks are where the search finds it; then ``={0,2}`` and a lookahead that
    refuses a base64 character or "=": after a run followed by ``k`` "=" and then something else, the pattern
    matches exactly when ``k`` is at most 2 and that something is not a base64 character (with ``k = 0`` it is not,
    the run being maximal), and backtracking into the run never helps (the character after a shortened run is a
    base64 character). Every character of a token is ASCII, one byte, so the token is its bytes decoded."""
    marks = raw.translate(_PADDING_MARKS)
    tokens: list[str] = []
    size = len(marks)
    for match in _MARKED_RUN.finditer(marks):
        end = match.end()
        equals = end - match.start(1)
        if equals > 2 or (equals and end < size and marks[end] == _BASE64_MARK):
            continue
        tokens.append(raw[match.start():end].decode("ascii"))
    return tokens


def _marks(characters: dict[str, bytes]) -> bytes:
    """A ``bytes.translate`` table: each byte of a character of a key becomes that key's mark, every other byte a
    dot."""
    table = bytearray(b"." * 256)
    for chars, mark in characters.items():
        for char in chars:
            table[ord(char)] = mark[0]
    return bytes(table)


def _character_marks(clean: str, raw: bytes, table: bytes, needle: bytes) -> tuple[bytes, int]:
    """The marks of ``clean`` under ``table`` (a :func:`_marks` table), one per character, and where ``needle``
    first occurs in them (-1: nowhere). Screened on ``raw`` (``clean`` as UTF-8) first: every byte of a non-ASCII
    character is a dot there, as the character (encoded as "?") is in the marks made one per character."""
    marks = raw.translate(table)
    at = marks.find(needle)
    if at != -1 and len(raw) != len(clean):
        marks = clean.encode("ascii", "replace").translate(table)
        at = marks.find(needle)
    return marks, at


_BASE64_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


# Base64 written in groups of four characters with a space or a hyphen between them ("amFu ZUBj b3Jw ..."), four
# groups at least: the groups joined are decoded as one token. Searched only where the byte marks (a base64 character
# "b", a space or hyphen "s") hold three groups in a row, each followed by a separator.
_GROUPED_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=])(?:[A-Za-z0-9+/]{4}[ -]){3,}[A-Za-z0-9+/]{2,4}={0,2}(?![A-Za-z0-9+/=])")
_GROUP_MARKS = _marks({_BASE64_CHARS: b"b", " -": b"s"})
_THREE_GROUPS = b"bbbbsbbbbsbbbbs"
_BASE64_MARK = ord("b")
_GROUP_SEPARATORS = str.maketrans("", "", " -")


def _grouped_base64_runs(clean: str, raw: bytes) -> list[str]:
    """The runs of ``_GROUPED_BASE64`` in ``clean``, separators removed; searched only where ``_THREE_GROUPS`` occurs
    in the marks of ``raw`` (the text's UTF-8): every run holds three whole groups, each followed by a separator.

    The pattern is tried only where a run can start: at a ``_THREE_GROUPS`` of the marks (taken one per character for
    this, a non-ASCII character being a dot, as each of its UTF-8 bytes is) not right after a base64 character's mark
    (the pattern's lookbehind). Every match ``finditer`` finds starts at such a place, so trying them in order, from
    the end of the previous match on, finds the same matches. (English prose often holds three four-letter words in
    a row: a search from each would try every position after it.)"""
    if len(clean) < 17:
        return []
    marks, at = _character_marks(clean, raw, _GROUP_MARKS, _THREE_GROUPS)
    runs: list[str] = []
    position = 0
    while at != -1:
        if at >= position and (at == 0 or marks[at - 1] != _BASE64_MARK):
            match = _GROUPED_BASE64.match(clean, at)
            if match is not None:
                runs.append(match.group(0).translate(_GROUP_SEPARATORS))
                position = match.end()
        at = marks.find(_THREE_GROUPS, max(at + 1, position))
    return runs


# A token with more text glued after its padding ("...Zw==x", "...Zw==_v2", "...Zw===="): the token pattern refuses it
# (its lookahead sees a base64 character or "=" after the padding), so the body and its padding are also taken as a
# token where that follows them. Searched only at the ends of the runs of base64 characters that a "=" follows (the
# marks "b=", one mark per character), from the run's start.
_GLUED_PADDING = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{12,}={1,2}(?=[A-Za-z0-9+/_=-])")
_PADDING_MARKS = _marks({_BASE64_CHARS + "_-": b"b", "=": b"="})
_MIN_BASE64_BODY = 12


def _glued_padding_tokens(clean: str, raw: bytes) -> list[str]:
    """The matches of ``_GLUED_PADDING`` in ``clean``, as ``finditer`` finds them. ``raw`` is ``clean`` as UTF-8.

    Why the same: a match's body is a maximal run of base64 characters (the lookbehind, and the greedy run stops only
    at a character outside the alphabet, which must be its first "="), so each match starts at the start of the run
    that ends at a "b=" of the marks, and the runs of distinct matches are distinct; the pattern is tried once at each
    such run's start (when it holds 12 characters or more), in order. Matches never overlap a later run's start (a run
    starts after a "=" or another character outside the alphabet)."""
    if "=" not in clean or len(clean) < _MIN_BASE64_BODY + 2:
        return []
    marks, at = _character_marks(clean, raw, _PADDING_MARKS, b"b=")
    tokens: list[str] = []
    while at != -1:
        start = max(marks.rfind(b".", 0, at), marks.rfind(b"=", 0, at)) + 1
        if at + 1 - start >= _MIN_BASE64_BODY:
            match = _GLUED_PADDING.match(clean, start)
            if match is not None:
                tokens.append(match.group(0))
        at = marks.find(b"b=", at + 2)
    return tokens


def _wrapped_base64_runs(clean: str) -> list[str]:
    """The matches of ``_WRAPPED_BASE64`` in ``clean``, as ``finditer`` finds them, white space removed. The costly
    search runs only from the places where the wrap condition holds (:func:`_wrap_starts`, a necessary condition at
    every match start), the first of them at or after the end of the previous match: no match starts before it, so
    searching from there finds the same leftmost match."""
    runs: list[str] = []
    position = 0
    for hint in _wrap_starts(clean):
        if hint < position:
            continue
        match = _WRAPPED_BASE64.search(clean, hint)
        if match is None:
            break
        runs.append(_WHITE_SPACE.sub("", match.group(0)))
        position = match.end()
    return runs


def _wrap_starts(clean: str) -> list[int]:
    """Every place where the wrap condition holds in ``clean`` (see ``_WRAP_END_REVERSED``), in increasing order.

    Why every one, and only those: where it holds at q, the run from q ends at some e, followed by blanks, an optional
    CR and a line break at some l, then blanks and 4 base64 characters. Read backwards, the text has at l's mirror
    position a line break, the optional CR, the blanks and then the run, reversed: ``_WRAP_END_REVERSED`` matches
    there, and ``_WRAP_NEXT_LINE`` after l. The backward search meets that line break: each match holds one line break,
    its first character, so no line break is skipped inside an earlier match. Conversely, a backward match at a line
    break l, with ``_WRAP_NEXT_LINE`` after l, has 16 base64 characters before the blanks and CR before l; the maximal
    run holding them (extended backwards by ``_BASE64_RUN``) starts at a q where the condition holds. Distinct line
    breaks give distinct runs (a run is followed by one line end), found in decreasing order."""
    backwards = clean[::-1]
    size = len(clean)
    starts: list[int] = []
    for match in _WRAP_END_REVERSED.finditer(backwards):
        line_break = size - 1 - match.start()
        if _WRAP_NEXT_LINE.match(clean, line_break + 1) is None:
            continue
        run = _BASE64_RUN.match(backwards, match.end())
        starts.append(size - (run.end() if run is not None else match.end()))
    starts.reverse()
    return starts


_WHITE_SPACE = regex.compile(r"\s+")
ENCODED_BUDGET = register(
    "privacy.encoded_payload_budget", "Base64 or hex payloads are nested deeper, or are more numerous, than the budget.",
    "Base64 (standard and URL-safe, also reversed), base32, hex, ascii85, base85 and uuencoded tokens that decode to "
    "printable text are scanned again as strings of "
    "their own, recursively, at most 4 layers deep and 256 payloads per string (shared with URL payloads). Text "
    "that goes beyond that fails closed, because what is hidden deeper was not scanned.")


class _Budget:
    def __init__(self, payloads: int = 0, exceeded: bool = False) -> None:
        self.payloads: int = payloads
        self.exceeded: bool = exceeded


def _partition(url: str) -> tuple[str, str, str, str]:
    """Split a URL (scheme included) into authority, path, query and fragment, without any decoding."""
    rest = url.split("://", 1)[1]
    cut = len(rest)
    for mark in "/?#":
        where = rest.find(mark)
        if where != -1:
            cut = min(cut, where)
    authority, rest = rest[:cut], rest[cut:]
    rest, _, fragment = rest.partition("#")
    path, _, query = rest.partition("?")
    return authority, path, query, fragment


def _payloads(query: str, fragment: str) -> list[str]:
    pieces: list[str] = []
    for part in _PAYLOAD_SPLIT.split(query):
        key, _, value = part.replace("+", " ").partition("=")
        pieces.extend(piece for piece in (key, value) if piece.strip())
    if fragment.strip():
        pieces.append(fragment)
    return pieces


# A plain ".." segment is masked with two inert characters (no decoding step changes them, no rule matches them) before
# the escaped-traversal view is normalised.
_MASK = "\u2603\u2603"


def _run(rules: tuple, scope: str, text: str, found: set[str]) -> None:
    gates: dict[object, object] = {}
    for rule in rules:
        if scope in rule.scopes and rule.code not in found and rule.hits(text, gates):
            found.add(rule.code)


# The letter O written for a zero, or a capital I or a small l for a one, inside a run of digits ("555-O123",
# "555-l234"): a cheap necessary condition, then the run's letters become digits in a view that only the SSN and
# phone rules see. (Each pattern starts with a literal letter class, which ``re`` scans for fast; the context comes
# after.)
_LETTER_DIGIT_HINT = re.compile(r"[OoIl](?:(?<=\d[OoIl])(?![A-Za-z])|(?<![A-Za-z][OoIl])[OoIl]*\d)")
_DIGIT_RUN_WITH_LETTERS = re.compile(r"[0-9OoIl]*[0-9][0-9OoIl]*")
_LETTERS_AS_DIGITS = str.maketrans("OoIl", "0011")
# ROT13 of a spelled-out address keeps its shape but turns "at" into "ng" and "dot" into "qbg"; text holding a
# ROT13 "at" word gets a ROT13 view that only the e-mail rules see.
_ROT13_AT_HINT = re.compile(r"[Nn][Gg](?<![A-Za-z][Nn][Gg])(?![A-Za-z])")
_ROT13 = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                       "NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm")


# How far around a hint a rewritten view reaches (a whole formatted phone number or a spelled-out address), extended to
# the nearest white space so no digit run or word is cut in two (at most _MAX_EXTEND characters further).
_REACH = 64
_MAX_EXTEND = 256


def _windows(text: str, hints: list[re.Match[str]]) -> list[str]:
    """The parts of ``text`` within ``_REACH`` characters of a hint, widened to white space, overlapping ones merged."""
    spans: list[list[int]] = []
    for hint in hints:
        low, high = max(0, hint.start() - _REACH), min(len(text), hint.end() + _REACH)
        floor, ceiling = max(0, low - _MAX_EXTEND), min(len(text), high + _MAX_EXTEND)
        while low > floor and not text[low - 1].isspace():
            low -= 1
        while high < ceiling and not text[high].isspace():
            high += 1
        if spans and low <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], high)
        else:
            spans.append([low, high])
    return [text[low:high] for low, high in spans]


# Whole-text necessary conditions for the two rewritten views' hints, tested in C on the text as UTF-8 bytes
# (``surrogatepass``), each byte replaced by its class mark. ASCII letters and digits are one byte each; every byte of
# a non-ASCII character (a lone surrogate included) is 0x80 or more.
# * _LETTER_DIGIT_HINT matches at an "O", "o", "I" or "l" that has a digit (``\d``: any Unicode decimal digit) right
#   before it, or that ends a run of them with a digit right after it. So the marks hold "do" or "od" (each of the four
#   letters marked "o"), where "d" marks an ASCII
#   digit *and* every byte of 0x80 or more (a non-ASCII digit's last byte stands right before the "O", its first byte
#   right after the run): a text without either cannot match.
# * _ROT13_AT_HINT matches "ng" (either case) with no ASCII letter right before or after it. In the second marks
#   (n and g, "a" for every other ASCII letter, a dot for everything else) that is ".ng." inside the text, or "ng" at
#   its start or end (taken as possible there, whatever follows or precedes).
_DIGIT_LETTER_MARKS = _marks({"0123456789" + "".join(map(chr, range(0x80, 0x100))): b"d", "OoIl": b"o"})
_NG_MARKS = _marks({"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz": b"a", "Nn": b"n", "Gg": b"g"})


def _may_have_letter_digit(raw: bytes) -> bool:
    """False only when ``_LETTER_DIGIT_HINT`` cannot match the text ``raw`` encodes (see ``_DIGIT_LETTER_MARKS``)."""
    marks = raw.translate(_DIGIT_LETTER_MARKS)
    return b"do" in marks or b"od" in marks


def _may_have_rot13_at(raw: bytes) -> bool:
    """False only when ``_ROT13_AT_HINT`` cannot match the text ``raw`` encodes (see ``_NG_MARKS``)."""
    marks = raw.translate(_NG_MARKS)
    return b".ng." in marks or marks.startswith(b"ng") or marks.endswith(b"ng")


# A profile's rule tuple (one object per profile) -> (that tuple, its strict number rules). Keyed by identity: hashing
# a tuple of some forty rules for every string would cost more than the view.
_STRICT_BY_RULES: dict[int, tuple[tuple, tuple]] = {}


def _strict_number_rules(rules: tuple) -> tuple:
    """The SSN and phone rules of ``rules`` that are the strict profiles' forms (``STRICT_NUMBER_RULES``)."""
    entry = _STRICT_BY_RULES.get(id(rules))
    if entry is None or entry[0] is not rules:
        entry = (rules, tuple(rule for rule in rules if rule.name in STRICT_NUMBER_RULES))
        _STRICT_BY_RULES[id(rules)] = entry
    return entry[1]


def _scan_rewritten(clean: str, raw: bytes, rules: tuple, found: set[str]) -> None:
    """Run the number rules on the letters-for-digits view, the strict number rules on the odd-separator view
    (``separator_view.py``) and the e-mail rules on the ROT13 view of the text around their hints (only where a hint
    matches; the letters-for-digits and ROT13 hint searches run only where their necessary condition on the bytes
    ``raw``, the UTF-8 of ``clean`` with ``surrogatepass``, holds, so ordinary text pays two translations and a few
    substring tests)."""
    if (SSN not in found or PHONE not in found) and _may_have_letter_digit(raw):
        hints = list(_LETTER_DIGIT_HINT.finditer(clean))
        if hints:
            number_rules = tuple(rule for rule in rules if rule.code in (SSN, PHONE))
            for window in _windows(clean, hints):
                view = _DIGIT_RUN_WITH_LETTERS.sub(lambda run: run.group(0).translate(_LETTERS_AS_DIGITS), window)
                _run(number_rules, "full", view, found)
    strict = _strict_number_rules(rules)
    if strict and (SSN not in found or PHONE not in found) and separator_view.may_hold(raw):
        for window in _windows(clean, list(separator_view.HINT.finditer(clean))):
            view = separator_view.rewrite(window)
            if view != window:
                _run(strict, "full", view, found)
    if EMAIL not in found and _may_have_rot13_at(raw):
        hints = list(_ROT13_AT_HINT.finditer(clean))
        if hints:
            email_rules = tuple(rule for rule in rules if rule.code == EMAIL)
            for window in _windows(clean, hints):
                _run(email_rules, "full", window.translate(_ROT13), found)


# A right-to-left override (U+202E) makes the characters after it display in reverse order, up to a pop directional
# formatting (U+202C), a left-to-right override (U+202D), a line break or the end: "\u202e9177-283-514\u202c" is
# stored backwards and read as a phone number. The normaliser deletes the controls (they are default-ignorable), which
# leaves the stored order; the text is also scanned in the order a reader sees (each overridden run reversed).
_OVERRIDDEN_RUN = re.compile("\u202e([^\u202c\u202d\n]*)")


def visual_order(text: str) -> str:
    """``text`` with every right-to-left overridden run reversed (see ``_OVERRIDDEN_RUN``), as it is displayed."""
    return _OVERRIDDEN_RUN.sub(lambda match: match.group(1)[::-1], text)


def _scan(text: str, profile: Profile, depth: int, budget: _Budget, skip_paths: bool, found: set[str]) -> None:
    if "\u202e" in text:
        _scan(visual_order(text), profile, depth, budget, skip_paths, found)
    views: list[str] = []
    current = text
    for _layer in range(MAX_QP_LAYERS + 1):
        normalised = normalise(current, profile.max_rounds, profile.max_chars, quoted_printable=False)
        if not normalised.ok:
            found.add(_FAIL_CLOSED_CODE[normalised.status])
            return
        if views and normalised.text == views[-1]:
            break
        views.append(normalised.text)
        if not has_quoted_printable(normalised.text):
            break
        current = decode_quoted_printable(normalised.text)
    # Views of their own: UTF-7 shift sequences (of each view) and CSS escapes (of the text as given).
    own = [decode_utf7(view) for view in views if has_utf7(view)]
    if has_css_escape(text):
        own.append(decode_css_escapes(text))
    for undone in own:
        decoded = normalise(undone, profile.max_rounds, profile.max_chars, quoted_printable=False)
        if not decoded.ok:
            found.add(_FAIL_CLOSED_CODE[decoded.status])
            return
        if decoded.text not in views:
            views.append(decoded.text)
    seen: set[str] = set()
    for view in views:
        _scan_view(view, profile, depth, budget, skip_paths, found, seen)
    # (both alternatives of the traversal pattern consume "..", see ``paths._has_dot_dot``: a test in C first)
    if not skip_paths and _has_escaped_rules(profile.rules) and any(
            ".." in view and PLAIN_TRAVERSAL.search(view) for view in views):
        _scan_escaped(text, profile, found)
    if text != views[0]:
        # Base85, ascii85 and uuencoded text hold %, &, = and backslashes, which the normaliser would read as escapes:
        # their tokens are also looked for in the text as given.
        _scan_payloads(raw_payloads(text), profile, depth, budget, skip_paths, found, seen)


def _has_escaped_rules(rules: tuple) -> bool:
    return any("escaped" in rule.scopes for rule in rules)


def _scan_escaped(text: str, profile: Profile, found: set[str]) -> None:
    """Run the ``escaped`` rules on ``text`` normalised after its plain ``..`` segments were masked: what they match
    there was written with an escape or a look-alike (an escaped slash ``%2F`` after ``..``, dots written ``%2E``,
    double-encoded ``%252F``, overlong UTF-8, fullwidth dots), never as a plain relative link."""
    masked = normalise(PLAIN_TRAVERSAL.sub(_MASK, text), profile.max_rounds, profile.max_chars)
    if masked.ok:
        _run(profile.rules, "escaped", masked.text, found)


# A query value or a fragment that is a path on the same site (``?next=/runs/42``, ``#/dashboard``, a single-page
# application's route): a URL path, not a local file's. It is scanned as any payload, except that the generic
# absolute-path rule (``path.posix_absolute``, "any absolute local path") does not apply to it; every rule that reads a
# person, a share, a file URI, a drive or a traversal in it still does (``?f=/home/<name>/x`` is still a home folder).
_SITE_PATH = re.compile(r"/(?![/\\])\S*")
_GENERIC_ABSOLUTE = "path.posix_absolute"
_SITE_PATH_PROFILES: dict[int, tuple[Profile, Profile]] = {}


def _site_path_profile(profile: Profile) -> Profile:
    """``profile`` without the generic absolute-path rule (the profile itself when it has none), one per profile."""
    if _GENERIC_ABSOLUTE not in profile.rule_names:
        return profile
    entry = _SITE_PATH_PROFILES.get(id(profile))
    if entry is None or entry[0] is not profile:
        names = tuple(name for name in profile.rule_names if name != _GENERIC_ABSOLUTE)
        entry = (profile, profile._replace(rule_names=names))
        _SITE_PATH_PROFILES[id(profile)] = entry
    return entry[1]


def _scan_view(clean: str, profile: Profile, depth: int, budget: _Budget, skip_paths: bool, found: set[str],
               seen: set[str]) -> None:
    rules = profile.rules
    _run(rules, "full", clean, found)
    raw = clean.encode("utf-8", "surrogatepass")  # (read by the rewritten views' screens and the payload pass)
    _scan_rewritten(clean, raw, rules, found)
    urls = list(_URL.finditer(clean)) if "://" in clean else []
    if not skip_paths:
        remainder = _URL.sub(" ", clean) if urls else clean
        _run(rules, "remainder", remainder, found)
    for match in urls:
        authority, path, query, fragment = _partition(match.group(0))
        if not skip_paths:
            if _DRIVE_AUTHORITY.fullmatch(authority):
                _run(rules, "remainder", authority.rpartition("@")[2] + path, found)
            elif not _VALID_AUTHORITY.fullmatch(authority):
                _run(rules, "remainder", authority, found)
        path_rules = _url_part_needs_scan(path, profile)  # (a path no rule can match: "/docs/x.md" in some profiles)
        if not skip_paths and path_rules:
            _run(rules, "url_path", path, found)
        if path_rules:
            _run(rules, "url_payload", path, found)
        nested = [inner.group(0) for inner in _URL.finditer(path)] if "://" in path else []
        for payload in nested + _payloads(query, fragment):
            budget.payloads += 1
            if budget.payloads > profile.max_url_payloads or (depth >= profile.max_url_depth and "://" in payload):
                found.add(URL_BUDGET)
                return
            if not _url_part_needs_scan(payload, profile):
                continue
            decoded = normalise(payload, profile.max_rounds, profile.max_chars)
            if decoded.ok:
                _run(rules, "url_payload", decoded.text, found)
            site = decoded.ok and _SITE_PATH.fullmatch(decoded.text) is not None
            _scan(payload, _site_path_profile(profile) if site else profile, depth + 1, budget, skip_paths, found)
    _scan_payloads(encoded_payloads(clean, raw), profile, depth, budget, skip_paths, found, seen)
    if has_char_codes(clean):  # (a list of numbers that spells text: ``char_codes.py``)
        _scan_payloads(char_code_texts(clean), profile, depth, budget, skip_paths, found, seen)


def _url_part_needs_scan(part: str, profile: Profile) -> bool:
    """Whether a URL's path (for the path and payload rules) or a query value, fragment or nested URL (for its own
    scan) must be read: False only when the prefilter proves the part clean, and then reading it raises nothing and
    changes nothing: it is ASCII with no escape (so it is its own decoding, the quoted-printable one included),
    holds no URL and no token that decodes (so a nested scan would count no payload against the budget), and no
    rule of the profile can match it in any scope (the hints are necessary conditions of each rule, whatever the
    scope; the site-path profile has fewer rules). A query value ``q=123`` or a word no longer costs a nested scan
    of its own."""
    return needs_full_scan(part, profile.rule_names, profile.max_chars, PREFILTER_HINTS, has_encoded_payload)


def _decode_base32(token: str) -> bytes | None:
    body = token.rstrip("=").upper()
    if len(body) % 8 in (1, 3, 6):
        return None
    try:
        return base64.b32decode(body + "=" * (-len(body) % 8))
    except (ValueError, binascii.Error):
        return None


_URLSAFE_TO_STANDARD = bytes.maketrans(b"-_", b"+/")

if sys.version_info >= (3, 11):
    def _a2b_base64(data: bytes, strict: bool) -> bytes:
        """What ``base64.b64decode(data, validate=strict)`` does on Python 3.11+, without its wrapper (the decoder
        runs tens of thousands of times per scan)."""
        return binascii.a2b_base64(data, strict_mode=strict)
else:  # pragma: no cover - Python 3.10 has no strict mode in binascii
    def _a2b_base64(data: bytes, strict: bool) -> bytes:
        return base64.b64decode(data, validate=strict)


def _decode_base64(token: str) -> bytes | None:
    """The bytes of a standard (validated) or URL-safe base64 token, padding optional; None when it is not one.
    The same as ``base64.b64decode(padded, validate=True)`` and ``base64.urlsafe_b64decode(padded)``."""
    body = token.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        data = padded.encode("ascii")
        if "-" in body or "_" in body:
            return _a2b_base64(data.translate(_URLSAFE_TO_STANDARD), False)
        return _a2b_base64(data, True)
    except (ValueError, binascii.Error):
        return None


# The padding a base64 body of ``n`` characters needs, by ``-n % 4`` (a body with ``n % 4 == 1`` is never decoded).
_PADDING = (b"", b"=", b"==", b"===")


def _aligned_text(data: bytes, size: int, offsets: range) -> str | None:
    """The printable text of the first alignment in ``offsets`` at which ``data`` (``size`` base64 characters of
    the standard alphabet, nothing else) decodes to text; None when none does.

    The same as ``as_text(_decode_base64(body[offset:]))`` for each offset, where ``data`` is ``body`` encoded and
    translated to the standard alphabet: a body of ``size - offset`` characters with ``size - offset`` of 1 modulo 4
    (or none at all) decodes to nothing; otherwise padding it and decoding without strict mode gives the bytes
    :func:`_decode_base64` gives (strict mode refuses only what cannot occur here: a character outside the standard
    alphabet, missing or misplaced padding), and URL-safe characters were already translated, as it does. One
    encoding and translation per token instead of one per alignment (this runs for every token of every scan)."""
    for offset in offsets:
        rest = size - offset
        if rest <= 0 or rest % 4 == 1:
            continue
        try:
            raw = _a2b_base64(data[offset:] + _PADDING[-rest % 4], False)
        except (ValueError, binascii.Error):
            continue
        text = as_text(raw)
        if text is not None:
            return text
    return None


def _standard_data(body: str) -> bytes | None:
    """``body`` as bytes of the standard base64 alphabet (URL-safe characters translated), or None when it holds
    anything but base64 characters (the callers then take the general path, :func:`_decode_base64`)."""
    if _BASE64_BODY.fullmatch(body) is None:
        return None
    return body.encode("ascii").translate(_URLSAFE_TO_STANDARD)


_BASE64_BODY = re.compile(r"[A-Za-z0-9+/_-]*")


@functools.lru_cache(maxsize=65536)
def _base64_text(token: str) -> str | None:
    """The printable text a base64 / base64url token carries at the first of its four alignments that decodes to
    text; None when none does. Cached per token: the pieces of a joined view and the view hold the same tokens."""
    if token.isdigit():
        return None
    offsets = range(max(0, min(4, len(token) - 11)))  # an alignment leaves at least 12 characters of the token
    body = token.rstrip("=")
    data = _standard_data(body)
    if data is not None:
        return _aligned_text(data, len(body), offsets)
    for offset in offsets:
        text = as_text(_decode_base64(token[offset:]))
        if text is not None:
            return text
    return None


@functools.lru_cache(maxsize=65536)
def _base32_text(token: str) -> str | None:
    """The printable text a base32 token carries, or None (cached per token)."""
    return as_text(_decode_base32(token))


_HEX_SEPARATORS = str.maketrans("", "", " :-")  # deletes what _SEPARATED_HEX allows between bytes


@functools.lru_cache(maxsize=65536)
def _hex_text(match: str) -> str | None:
    """The printable text a hex run (plain or byte-separated) carries, or None; an odd run is read without its last
    digit, then without its first (cached per run)."""
    digits = match.translate(_HEX_SEPARATORS)
    if len(digits) % 2:
        text = _hex_pairs_text(digits[:-1])
        return text if text is not None else _hex_pairs_text(digits[1:])
    return _hex_pairs_text(digits)


# What the hex of a number looks like: bytes 0x30-0x39 and a few separators, all written with decimal digits only.
_NUMBER_TEXT = re.compile(r"[0-9 ()+./-]+")


def _hex_pairs_text(digits: str) -> str | None:
    """The printable text an even run of hex digits carries, or None. A run of decimal digits only is mostly a number
    (an id, a timestamp): it counts only when its text is a number written out (digits and separators, such as the
    hex of an SSN or a phone number)."""
    text = as_text(bytes.fromhex(digits))
    if text is not None and digits.isdigit() and _NUMBER_TEXT.fullmatch(text) is None:
        return None
    return text


# Base64 of printable ASCII: the first character of every 4-character group carries the top six bits of a byte from
# 0x20 to 0x7E, so it lies between "I" and "f" in the base64 alphabet. A reversed token is decoded only where most
# group leaders of some alignment lie there (a cheap screen: most tokens are identifiers or digests, not reversed text).
_B64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_TEXT_LEADERS = str.maketrans("", "", _B64_ALPHABET[8:32])
_MIN_LEADER_SHARE = 0.6


def _leader_marks() -> bytes:
    """A ``bytes.translate`` table: 1 for a byte of the standard base64 alphabet that can lead a group of printable
    ASCII (``_B64_ALPHABET[8:32]``, "I" to "f"), 0 for every other byte."""
    table = bytearray(256)
    for char in _B64_ALPHABET[8:32]:
        table[ord(char)] = 1
    return bytes(table)


_LEADER_MARKS = _leader_marks()


@functools.lru_cache(maxsize=65536)
def _reversed_base64_text(token: str) -> str | None:
    """The printable text a base64 token carries when read backwards (the encoded string reversed), or None.

    An alignment is decoded only where at least ``_MIN_LEADER_SHARE`` of its group leaders can lead text (see
    ``_B64_TEXT_LEADERS``), counted on the body as bytes (``_LEADER_MARKS``; the URL-safe characters, translated
    to "+" and "/", lead no text either way) when it is made of base64 characters only, else on the string."""
    body = token.rstrip("=")[::-1].lstrip("=")
    data = _standard_data(body)
    marks = data.translate(_LEADER_MARKS) if data is not None else None
    size = len(body)
    for offset in range(4):
        if size - offset < 12:
            break
        if marks is not None:
            leaders = marks[offset::4]  # (never empty: at least 12 characters from ``offset`` on)
            mostly = leaders.count(1) >= _MIN_LEADER_SHARE * len(leaders)
        else:
            chars = body[offset::4]
            mostly = len(chars) - len(chars.translate(_B64_TEXT_LEADERS)) >= _MIN_LEADER_SHARE * len(chars)
        if mostly:
            text = (as_text(_decode_base64(body[offset:])) if data is None
                    else _aligned_text(data, size, range(offset, offset + 1)))
            if text is not None:
                return text
    return None


# Whole-text necessary conditions for the base32 and hex searches, tested in C: the text as UTF-8 bytes, each byte
# replaced by the mark of its class (``bytes.translate``), then a literal searched with ``in``. Every character the
# token patterns match is ASCII, so one byte in UTF-8 (``surrogatepass``: a lone surrogate is three bytes of 0x80 or
# more, like every other non-ASCII character, and none of them is in a class); a run of class characters in the
# text is the same run of marks in the bytes.
# * _BASE32_TOKEN matches 16 or more of [A-Z2-7], or 16 or more of [a-z2-7]: 16 "x" in one of the two translations;
# * _HEX_TOKEN matches 2 + 2 * 5 = 12 or more hex digits in a row: 12 "x" in the hex translation;
# * _SEPARATED_HEX matches a separator and two hex digits five times in a row:
#   "sxx" five times in the hex translation.
_BASE32_UPPER_MARKS = _marks({"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567": b"x"})
_BASE32_LOWER_MARKS = _marks({"abcdefghijklmnopqrstuvwxyz234567": b"x"})
_HEX_MARKS = _marks({"0123456789abcdefABCDEF": b"x", " :-": b"s"})
_BASE32_RUN = b"x" * 16
_HEX_RUN = b"x" * 12
_SEPARATED_HEX_RUN = b"sxx" * 5


def _base32_tokens(clean: str, raw: bytes) -> list[str]:
    """The matches of ``_BASE32_TOKEN`` in ``clean`` (``raw``: its UTF-8, ``surrogatepass``), as ``finditer`` finds
    them; none without 16 base32 characters of one case in a row (see the proof above).

    In ASCII text (byte offsets are character offsets) the pattern is tried only at the start of each run of 16 or
    more marks in either translation, with ``match`` (its lookbehind still reads the character before). Why the
    same: a match at q has no letter, digit or "=" before q, then 16 or more characters of one of the two classes, so
    a run of marks starts at q in that class's translation; and a match at such a start at or after the previous
    match's end is the one ``finditer`` finds next, since no match starts anywhere else. Other text is searched
    whole."""
    upper = raw.translate(_BASE32_UPPER_MARKS)
    lower = raw.translate(_BASE32_LOWER_MARKS)
    if _BASE32_RUN not in upper and _BASE32_RUN not in lower:
        return []
    if not clean.isascii():
        return [match.group(0) for match in _BASE32_TOKEN.finditer(clean)]
    tokens: list[str] = []
    end = 0
    for start in sorted(set(_run_starts(upper) + _run_starts(lower))):
        if start < end:
            continue
        match = _BASE32_TOKEN.match(clean, start)
        if match is not None:
            tokens.append(match.group(0))
            end = match.end()
    return tokens


def _run_starts(marks: bytes) -> list[int]:
    """Where each run of ``_BASE32_RUN`` or more marks ("x") begins in ``marks`` (every other byte is a dot): the
    first 16 marks in a row found at or after a dot (or the start) begin a run there."""
    starts: list[int] = []
    at = marks.find(_BASE32_RUN)
    while at != -1:
        starts.append(at)
        stop = marks.find(b".", at + len(_BASE32_RUN))
        if stop == -1:
            break
        at = marks.find(_BASE32_RUN, stop)
    return starts


def encoded_payloads(clean: str, raw: bytes | None = None) -> list[str]:
    """Printable texts hidden in ``clean`` as base64 / base64url tokens (at any of the four alignments, so a prefix
    glued to the token does not hide it; also read backwards), base32 tokens, hex runs (plain or byte-separated;
    all-decimal runs are numbers, not hex), base85 / ascii85 runs and uuencoded lines (:func:`raw_payloads`).
    ``raw``, when the caller has it, is ``clean`` as UTF-8 with ``surrogatepass``."""
    found: list[str] = []
    if len(clean) < 12:
        return found
    if raw is None:
        raw = clean.encode("utf-8", "surrogatepass")
    tokens = _base64_tokens(clean) if len(clean) < MARKED_TOKENS_MIN else _marked_base64_tokens(raw)
    if "\n" in clean:
        tokens += _wrapped_base64_runs(clean)
    tokens += _grouped_base64_runs(clean, raw)
    tokens += _glued_padding_tokens(clean, raw)
    for token in tokens:
        text = _token_text(token)
        if text is not None:
            found.append(text)
    for token in _base32_tokens(clean, raw):
        text = _base32_text(token)
        if text is not None:
            found.append(text)
    hex_marks = raw.translate(_HEX_MARKS)
    for pattern, run in ((_HEX_TOKEN, _HEX_RUN), (_SEPARATED_HEX, _SEPARATED_HEX_RUN)):
        if run not in hex_marks:
            continue  # no such run (see _HEX_MARKS)
        for match in pattern.finditer(clean):
            text = _hex_text(match.group(0))
            if text is not None:
                found.append(text)
    found.extend(raw_payloads(clean))
    return found


@functools.lru_cache(maxsize=65536)
def _token_text(token: str) -> str | None:
    """What :func:`encoded_payloads` finds in one base64 token: its text forwards, else backwards, else the text of
    the token without a short suffix glued on after an underscore or a hyphen (cached per token: a source block holds
    each identifier many times, and one lookup per token is cheaper than two)."""
    text = _base64_text(token)
    if text is None:
        text = _reversed_base64_text(token)
    if text is None:
        body = _without_glued_suffix(token)
        if body is not None:
            text = _base64_text(body)
    return text


# A suffix glued to a base64 token ("..._v2", "...-final"): at most this many characters after the last underscore
# or hyphen, which must be the only one (a snake_case or kebab-case identifier has several), after 12 characters.
_MAX_GLUED_SUFFIX = 8
_MIN_GLUED_BODY = 12


def _without_glued_suffix(token: str) -> str | None:
    """``token`` without the suffix glued after its only underscore or hyphen, or None when it has no such suffix."""
    cut = max(token.rfind("_"), token.rfind("-"))
    if cut < _MIN_GLUED_BODY or len(token) - cut - 1 > _MAX_GLUED_SUFFIX:
        return None
    body = token[:cut]
    if "_" in body or "-" in body:
        return None
    return body


@functools.lru_cache(maxsize=65536)
def _word_has_payload(word: str) -> bool:
    """Whether a base64, base32, plain hex, bare base85/ascii85 or uuencoded token of ``word`` (a string without
    white space) decodes to text (cached per word)."""
    if len(word) < MIN_WORD_TOKEN:
        return False
    if len(word) >= 12:
        for token in _base64_tokens(word):
            if _token_text(token) is not None:
                return True
        if "=" in word:
            for token in _glued_padding_tokens(word, word.encode("utf-8", "surrogatepass")):
                if _token_text(token) is not None:
                    return True
        for match in _HEX_TOKEN.finditer(word):
            if _hex_text(match.group(0)) is not None:
                return True
        if len(word) >= 16:
            for match in _BASE32_TOKEN.finditer(word):
                if _base32_text(match.group(0)) is not None:
                    return True
    return word_has_raw_payload(word)


def has_encoded_payload(clean: str) -> bool:
    """``bool(encoded_payloads(clean))``, found word by word: the prefilter's question (does any token decode to
    text?), asked of every string and of every joined view, whose words are mostly its pieces' words.

    Why it is the same: split ``clean`` at white space (``str.split()``, the characters ``str.isspace`` names).

    * base64, base32 and plain hex tokens: their patterns consume no white space, and their lookarounds test for a
      character of their own alphabets (or ``=``), none of which is white space; so at a word's ends they see what
      they see at the text's ends, and the tokens of the text are the tokens of its words, in order;
    * bare base85/ascii85 runs and uuencoded tokens: see :func:`payloads.word_has_raw_payload`;
    * the searches that may cross white space are run on the whole text: MIME-wrapped base64 (line breaks and
      blanks inside), base64 in groups of four, byte-separated hex (a space may separate bytes), Adobe ascii85
      blocks and uuencoded lines
      (:func:`payloads.block_has_raw_payload`);
    * the length cut of :func:`encoded_payloads` (nothing in a text under 12 characters) is applied to the text,
      and each per-word search keeps its pattern's own minimum length.

    ``contract_tests/test_privacy_payload_words.py`` checks it against ``encoded_payloads`` differentially."""
    if len(clean) < 12:
        return False
    if "\n" in clean:
        for run in _wrapped_base64_runs(clean):
            if _token_text(run) is not None:
                return True
    raw = clean.encode("utf-8", "surrogatepass")
    if _SEPARATED_HEX_RUN in raw.translate(_HEX_MARKS):
        for match in _SEPARATED_HEX.finditer(clean):
            if _hex_text(match.group(0)) is not None:
                return True
    for run in _grouped_base64_runs(clean, raw):
        if _token_text(run) is not None:
            return True
    if block_has_raw_payload(clean):
        return True
    for word in clean.split():
        if _word_has_payload(word):
            return True
    return False


# Codes a decoded payload does not raise on its own: a lone at-sign or a generic absolute path also turn up in the
# rare random token that happens to decode to printable text; the shaped identifiers (addresses, phones, SSNs,
# personal paths, shares, file URIs) do not.
_WEAK_IN_PAYLOADS = frozenset({AT_SIGN, LOCAL_PATH})
# ... unless the whole payload is one ``name@host`` token (a bare address without a dotted domain): random bytes that
# decode to printable text are practically never exactly that.
# (lower case, as addresses are written; a mixed-case random decode of 9+ bytes is then vanishingly unlikely).
_BARE_ADDRESS = LazyPattern(r"\s*[a-z][a-z0-9._+-]*[a-z0-9]@[a-z][a-z0-9.-]+[a-z0-9]\s*")


# ... and a home folder written as a shorthand (``~/``, ``$HOME``, ``%USERPROFILE%``) counts when the profile reads
# it: two or more particular characters in a row, which random bytes decoded to printable text practically never hold.
_HOME_SHORTHAND = "path.home_shorthand"


def _home_shorthand(profile: Profile, text: str) -> bool:
    """Whether ``profile`` has the home-shorthand rule and it matches ``text``."""
    if _HOME_SHORTHAND not in profile.rule_names:
        return False
    return ALL_RULES[_HOME_SHORTHAND].hits(text, {})


def _scan_payloads(payloads: list[str], profile: Profile, depth: int, budget: _Budget, skip_paths: bool,
                   found: set[str], seen: set[str]) -> None:
    """Scan every decoded payload not yet scanned for this string (``seen``) as a string of its own, one layer
    deeper, under the shared budget; a lone at-sign or a generic path found only inside one is dropped (see
    ``_WEAK_IN_PAYLOADS``)."""
    for payload in payloads:
        if payload in seen:
            continue
        seen.add(payload)
        budget.payloads += 1
        if budget.payloads > profile.max_url_payloads or depth >= profile.max_url_depth:
            found.add(ENCODED_BUDGET)
            return
        inner: set[str] = set()
        _scan(payload, profile, depth + 1, budget, skip_paths, inner)
        weak = _WEAK_IN_PAYLOADS
        if AT_SIGN in inner or LOCAL_PATH in inner:
            decoded = normalise(payload, profile.max_rounds, profile.max_chars)
            if AT_SIGN in inner and decoded.ok and _BARE_ADDRESS.fullmatch(decoded.text):
                weak = weak - {AT_SIGN}
            if LOCAL_PATH in inner and decoded.ok and _home_shorthand(profile, decoded.text):
                weak = weak - {LOCAL_PATH}
        found.update(inner - weak)


# The codes that mean "this text could not be decoded within budget": reported alone, since nothing else is known.
FAIL_CLOSED = frozenset({NOT_CONVERGED, TOO_LONG, EXPANDED})
_FAIL_CLOSED_CODE = {"too_long": TOO_LONG, "expanded": EXPANDED, "not_converged": NOT_CONVERGED}


def _finish(found: set[str]) -> frozenset[str]:
    if found & FAIL_CLOSED:
        return frozenset(found & FAIL_CLOSED)
    if EMAIL in found:
        found.discard(AT_SIGN)
    if PERSONAL_PATH in found:
        found.discard(LOCAL_PATH)
    return frozenset(found)


# The hints of the engine's own rewritten views and of wrapped base64, for the prefilter (``prefilter.py``).
# The letters-for-digits view needs a digit and an O, I or l; the ROT13 view an "ng"; wrapped base64 a line break (the
# prefilter uses a cheaper necessary form of the wrap hint: its part from the line break on).
# (The letters-for-digits hint's marks: a digit right before its letter and no letter after, or its letters, no
# letter before them, right before a digit.)
PREFILTER_HINTS = (Hint(min_digits=1, lower=("o", "i", "l"), pattern=_LETTER_DIGIT_HINT.pattern,
                        marks=r"do(?![ao])|o(?<![ao]o)o*d"),
                   Hint(lower=("ng",), pattern=_ROT13_AT_HINT.pattern),
                   Hint(literal="\n", pattern=r"\n[ \t]*[A-Za-z0-9+/_-]"),
                   Hint(min_digits=9, pattern=separator_view.PREFILTER_PATTERN, gate=separator_view.PREFILTER_GATE),
                   # a list of character codes (``char_codes.py``), one hint per kind of separator
                   Hint(min_digits=MIN_CODES, literal=",", pattern=CHAR_CODES_HINTS[0]),
                   Hint(min_digits=MIN_CODES, literal=";", pattern=CHAR_CODES_HINTS[1]),
                   Hint(min_digits=MIN_CODES, literal=" ", pattern=CHAR_CODES_HINTS[2]),
                   Hint(min_digits=MIN_CODES, literal="\t", pattern=CHAR_CODES_HINTS[3]))


def scan_full(text: str, profile: Profile, skip_paths: bool = False) -> frozenset[str]:
    """The finding codes ``text`` raises under ``profile`` on the full path (see module docstring), without the
    prefilter. ``skip_paths`` turns off the path rules (used for promotion-gate targets that resolve into the
    evidence); identifier rules always run."""
    found: set[str] = set()
    _scan(text, profile, 0, _Budget(), skip_paths, found)
    return _finish(found)


# The longest text, as given and decoded, that no rule of a registered profile can raise a code on: the repository
# profile's shortest finding is three characters (a tilde folder: tilde, letter, slash), the others flag a lone at-sign. A text of
# that length decodes to nothing longer but through NFKC (bounded by the decoded length read here), base85's ``z``
# and ``y`` (zero bytes and spaces) and no other step, so a short text with a short decoding raises nothing: a JSON
# table of one-character strings beyond ASCII (look-alikes, emoji, a script's letters) no longer takes the full path
# string by string. ``contract_tests/test_privacy_short_texts.py`` checks it on every assigned code point alone and on
# pairs; a rule that flags two characters fails it.
SHORT_CLEAN_CHARS = {"repository": 2}


def _short_and_clean(text: str, profile: Profile) -> bool:
    """Whether ``text`` is a short non-ASCII text of a registered profile that raises nothing (see
    ``SHORT_CLEAN_CHARS``)."""
    bound = SHORT_CLEAN_CHARS.get(profile.name, 0)
    if len(text) > bound or text.isascii() or PROFILES.get(profile.name) is not profile:
        return False
    clean = normalise(text, profile.max_rounds, profile.max_chars)
    return clean.ok and len(clean.text) <= bound


def scan_uncached(text: str, profile: Profile, skip_paths: bool = False) -> frozenset[str]:
    """:func:`scan_full`, behind the prefilter: a text the prefilter proves clean (``prefilter.needs_full_scan``)
    raises nothing without running the normaliser and the rules, and neither does a short one whose decoding is
    short (``SHORT_CLEAN_CHARS``); every other text takes the full path."""
    if not needs_full_scan(text, profile.rule_names, profile.max_chars, PREFILTER_HINTS, has_encoded_payload):
        return _NOTHING
    if _short_and_clean(text, profile):
        return _NOTHING
    return scan_full(text, profile, skip_paths)


_NOTHING: frozenset[str] = frozenset()


def prefilter_skips(text: str, profile: Profile) -> bool:
    """True when the prefilter proves that ``text`` raises nothing under ``profile`` (see ``prefilter.py``)."""
    return not needs_full_scan(text, profile.rule_names, profile.max_chars, PREFILTER_HINTS, has_encoded_payload)


@functools.lru_cache(maxsize=65536)
def _cached(text: str, profile_name: str, skip_paths: bool) -> frozenset[str]:
    return scan_uncached(text, PROFILES[profile_name], skip_paths)


def scan_string(text: str, profile: Profile, skip_paths: bool = False) -> frozenset[str]:
    """Cached :func:`scan_uncached` for the registered profiles (custom profiles are scanned uncached)."""
    if PROFILES.get(profile.name) is profile:
        return _cached(text, profile.name, skip_paths)
    return scan_uncached(text, profile, skip_paths)
