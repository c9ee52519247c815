"""The bounded fixed-point normaliser every privacy rule runs behind.

An identifier can be hidden behind many reversible encodings: compatibility forms (fullwidth ``＠``), zero-width
characters, HTML entities, percent escapes (``%40``, ``%u0040``), quoted-printable (``=40``), JSON/Python escapes in
text (``\\u0040``, ``\\x40``, ``\\N{COMMERCIAL AT}``, ``\\/``), look-alike punctuation (division slash, hyphen bullet,
middle dot, no-break spaces) and the decimal digits of other scripts. One *round* undoes one layer of each:

1. numerals and enclosed letters to the digit or letter they stand for (circled, parenthesised, full-stop and dingbat
   digits, Roman and CJK numerals with a value of 0-9, parenthesised, negative circled and squared letters), from
   Python's ``unicodedata``; then Unicode NFKC (mathematical alphanumerics, circled letters, fullwidth forms);
2. tag characters (U+E0020-E007E) to their ASCII twins, then removal of default-ignorable code points and combining
   marks, between NFKC's decomposition and its composition (so a mark between two digits does not hide a number,
   and a mark after a letter does not turn it into another letter: ``o`` plus U+0301 reads as ``o``, and so does
   the precomposed accented letter); C0/C1 control characters other than tab and newline become a space;
3. look-alike mapping: the UTS #39 confusables that look like one ASCII character (``confusables_data.py``, generated
   by ``tools/gen_confusables.py``; also applied before NFKC, which turns some confusables into other letters) and
   hand-kept slash, backslash, hyphen, dot, colon, tilde and space look-alikes; any-script decimal digits to ASCII;
4. HTML character references;
5. percent escapes (UTF-8 byte runs and ``%uXXXX``);
6. quoted-printable escapes (``=`` plus two upper-case hex digits, UTF-8 byte runs of two or more, or one escape
   between two letters); the engine peels these one layer per view instead (see :func:`normalise`);
7. backslash escapes (``\\uXXXX`` with surrogate pairs, ``\\u{X..}``, ``\\UXXXXXXXX``, ``\\xXX``, three-digit octal
   ``\\ooo``, ``\\N{NAME}``,
   ``\\/`` and ``\\@``).

Rounds repeat until a round changes nothing (a fixed point, so the result is idempotent by construction). The
budget is ``max_rounds`` changing rounds plus one confirming round, and every intermediate result must stay within
``max_chars``; a string that does not settle in budget is *not converged* and the caller fails closed. The result
is only ever used for matching: it is never printed.
"""

from __future__ import annotations

import functools
import html
import unicodedata
from typing import Literal, NamedTuple

import regex

from nerb_verify.privacy.confusables_data import SOURCES as CONFUSABLE_SOURCES
from nerb_verify.privacy.confusables_data import TARGETS as CONFUSABLE_TARGETS
from nerb_verify.privacy.lazy import LazyPattern

MAX_ROUNDS = 8
MAX_CHARS = 16384

Status = Literal["ok", "not_converged", "too_long", "expanded"]


class Normalised(NamedTuple):
    """The normalised text and whether it reached a fixed point within budget (``status == "ok"``)."""

    text: str
    status: Status
    rounds: int

    @property
    def ok(self) -> bool:
        return self.status == "ok"


# Default-ignorable code points (Unicode DerivedCoreProperties, the ranges that matter for hiding text) and every
# combining mark (general categories Mn and Me).
_IGNORABLE = regex.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
    r"|\p{Mn}|\p{Me}"
)
# Tag characters U+E0020-E007E are invisible twins of ASCII space..tilde: an identifier written in tags would vanish
# if they were deleted as default-ignorable, so they become their ASCII twins first (U+E0001 and U+E007F, the
# language tag and cancel tag, stay ignorable).
_TAGS: dict[int, int] = {code: code - 0xE0000 for code in range(0xE0020, 0xE007F)}
# The joined-view screen separates views with U+2603 SNOWMAN: ASCII text plus that character is already a fixed point
# of NFKC, tag, ignorable, look-alike and digit mapping (it has no decomposition and is none of those), so that step
# is skipped for such text (the screen is then as fast as ASCII text).
INERT_SEPARATOR = "\u2603"
_TAG_CHAR = regex.compile("[\U000e0020-\U000e007e]")
_CONTROL = regex.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_NON_ASCII_DIGIT = regex.compile(r"(?![0-9])\p{Nd}")

_LETTER_LOOKALIKES: tuple[tuple[str, str], ...] = tuple(
    (chars, latin) for latin, chars in (
        ("a", "\u0430\u03b1\u0251"), ("c", "\u0441\u03f2\u217d"), ("d", "\u0501\u217e"), ("e", "\u0435\u0451"),
        ("g", "\u0261"), ("h", "\u04bb"), ("i", "\u0456\u03b9\u0131\u2170"), ("j", "\u0458\u03f3\u0237"),
        ("k", "\u03ba"), ("l", "\u04cf\u217c"), ("n", "\u0578"), ("o", "\u043e\u03bf\u0585\u03c3"),
        ("p", "\u0440\u03c1"), ("q", "\u051b"), ("s", "\u0455"), ("u", "\u057d\u03c5"), ("v", "\u03bd\u2174"),
        ("w", "\u051d"), ("x", "\u0445\u03c7\u2179"), ("y", "\u0443"),
        ("A", "\u0410\u0391"), ("B", "\u0412\u0392"), ("C", "\u0421\u03f9"), ("E", "\u0415\u0395"),
        ("H", "\u041d\u0397"), ("I", "\u0406\u0399"), ("J", "\u0408"), ("K", "\u041a\u039a"),
        ("M", "\u041c\u039c"), ("N", "\u039d"), ("O", "\u041e\u039f"), ("P", "\u0420\u03a1"), ("S", "\u0405"),
        ("T", "\u0422\u03a4"), ("X", "\u0425\u03a7"), ("Y", "\u04ae\u03a5"), ("Z", "\u0396"),
    )
)

# Unicode confusables (UTS #39, generated from the data confusable-homoglyphs ships, see tools/gen_confusables.py):
# a character that looks like one ASCII character reads as that character. The hand-kept entries below come after
# and win where both name one (the skeleton maps Cyrillic capital I to a small L; we keep the capital I).
_LOOKALIKES: dict[int, str] = {ord(source): target for source, target in zip(CONFUSABLE_SOURCES, CONFUSABLE_TARGETS)}
for _chars, _target in (
    ("\u2215\u2044\u29f8\u2571\u27cb\u2cc6\u3033\u1735", "/"),
    ("\u2216\u29f5\u29f9\u2572\u27cd", "\\"),
    ("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043\u02d7\u058a\u05be\u1400\u1806\u2e3a\u2e3b\ufe58\ufe63\u2796"
     "\u30fc\u2e17\u2e1a\u301c", "-"),
    ("\u00b7\u2022\u2024\u2027\u2219\u22c5\u30fb\u3002\uff61\u0701\u0702\u2e33\u2981\u16eb\u1427\u00b8", "."),
    ("\u2236\ua789\u0589\u02d0\u02f8\u05c3\u16ec\ufe30", ":"),
    ("\u02dc\u223c\u301c\u2053", "~"),
    ("\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000\u2028"
     "\u2029\u0085", " "),
    ("\ufe6b\uff20", "@"),
    # Latin look-alike letters from Cyrillic, Greek and IPA (Unicode confusables), so "/h\u043eme/<name>" with a
    # Cyrillic o is still a home folder and a domain spelled in Greek capitals still reads as one.
    *_LETTER_LOOKALIKES,
):
    for _char in _chars:
        _LOOKALIKES[ord(_char)] = _target

# Characters that stand for a digit or a Latin letter without being one: numerals with a numeric value (circled,
# parenthesised, full-stop and comma digits, dingbat digits, Roman numerals, CJK and other ideographic numerals) and
# the enclosed letters of the Enclosed Alphanumerics blocks (parenthesised, circled, negative circled and squared
# letters, regional indicators). NFKC alone would turn a parenthesised digit into "(7)", a full-stop digit into "7."
# and leave a dingbat digit or a negative circled letter unchanged, so these are mapped first (the cheap character
# class below is the prefilter; what a character means comes from Python's unicodedata).
_NUMERAL_OR_ENCLOSED = regex.compile(
    r"(?![0-9])(?:\p{Numeric_Type=Digit}|\p{Numeric_Type=Numeric}"
    r"|[\u2460-\u24ff\u2776-\u2793\u3200-\u32ff\U0001f100-\U0001f1ff])")
_ENCLOSED_LETTER = LazyPattern(r"(?:[A-Z]+ )*?(?:LATIN (CAPITAL|SMALL) LETTER|REGIONAL INDICATOR SYMBOL LETTER) ([A-Z])")

_HEX2 = "[0-9A-Fa-f]{2}"
_PERCENT_RUN = regex.compile(rf"(?:%{_HEX2})+")
_PERCENT_U = regex.compile(r"%[uU]([0-9A-Fa-f]{4})")
# A quoted-printable run is decoded only when it has two or more escapes, or is one escape between two letters that
# does not start a hex token with digits (``jane=40corp``), so ``n=40 documents``, ``next=219`` in a URL query or
# ``id=40a0...`` (a digest) keep their meaning; or is an escaped at-sign (``=40``) between a letter or digit and a
# domain that starts with a digit (a local part, ``=40``, then ``163.com`` or ``126.com``, large mail providers),
# that is digits, then word characters or hyphens, a dot and a label of two letters or more.
_QP_RUN = regex.compile(
    r"(?:=[0-9A-F]{2}){2,}|(?<=[^\W\d_])=[0-9A-F]{2}(?=[^\W\d_])(?![0-9a-fA-F]*[0-9][0-9a-fA-F]*(?![\w]))"
    r"|(?<=[^\W_])=40(?=\d[\w-]*\.[^\W\d_]{2,})")
_BACKSLASH = LazyPattern(
    r"\\u\{([0-9A-Fa-f]{1,6})\}"
    r"|\\u([dD][89abAB][0-9A-Fa-f]{2})\\u([dD][c-fC-F][0-9A-Fa-f]{2})"
    r"|\\u([0-9A-Fa-f]{4})"
    r"|\\U([0-9A-Fa-f]{8})"
    r"|\\x([0-9A-Fa-f]{2})"
    r"|\\N\{([A-Za-z0-9 \-]{1,80})\}"
    r"|\\([/@])"
    r"|\\([0-3][0-7]{2})"
)
_ESCAPE_HINT = regex.compile(r"[%&=\\]")


def _chr(code: int) -> str:
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return chr(code)


# Overlong UTF-8 forms of an ASCII character (two bytes C0/C1 xx, three bytes E0 80-81 xx, four bytes F0 80 80-81 xx):
# invalid UTF-8 that lenient decoders (old web servers, some path filters) still read as the ASCII character, the classic
# way to write a traversal (two ``%c0%ae`` dots and a ``%c0%af`` slash) past a filter that looks for ``../``. A strict decoder would make
# each byte a replacement character and hide what such a decoder reads, so they become that ASCII character first.
_OVERLONG_ASCII = LazyPattern(
    rb"[\xc0\xc1][\x80-\xbf]|\xe0[\x80\x81][\x80-\xbf]|\xf0\x80[\x80\x81][\x80-\xbf]")


def _overlong(match: regex.Match[bytes]) -> bytes:
    code = 0
    for byte in match.group(0):
        code = (code << 6) | (byte & 0x3F)
    return bytes([code & 0x7F])


def _percent_bytes(match: regex.Match[str]) -> str:
    raw = bytes.fromhex(match.group(0).replace("%", ""))
    if b"\xc0" in raw or b"\xc1" in raw or b"\xe0\x80" in raw or b"\xe0\x81" in raw or b"\xf0\x80" in raw:
        raw = _OVERLONG_ASCII.sub(_overlong, raw)
    return raw.decode("utf-8", errors="replace")


def _qp_bytes(match: regex.Match[str]) -> str:
    return bytes.fromhex(match.group(0).replace("=", "")).decode("utf-8", errors="replace")


def _backslash(match: regex.Match[str]) -> str:
    braced, high, low, four, eight, two, name, literal, octal = match.groups()
    if octal is not None:
        return chr(int(octal, 8))
    if braced is not None:
        return _chr(int(braced, 16))
    if high is not None:
        return _chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + (int(low, 16) - 0xDC00))
    if four is not None:
        return _chr(int(four, 16))
    if eight is not None:
        return _chr(int(eight, 16))
    if two is not None:
        return chr(int(two, 16))
    if name is not None:
        try:
            return unicodedata.lookup(name)
        except KeyError:
            return match.group(0)
    return literal


@functools.lru_cache(maxsize=4096)
def _numeral_or_letter(char: str) -> str:
    """The digit (numeric value 0-9) or Latin letter ``char`` stands for; ``char`` itself otherwise (NFKC then
    handles multi-digit numerals such as a circled ten)."""
    value = unicodedata.numeric(char, None)
    if value is not None:
        return str(int(value)) if value == int(value) and 0 <= value <= 9 else char
    named = _ENCLOSED_LETTER.fullmatch(unicodedata.name(char, ""))
    if named is None:
        return char
    return named.group(2) if named.group(1) != "SMALL" else named.group(2).lower()


# A circled letter a (U+24D0, U+24B6) looks like an at-sign; it reads as the letter it encloses inside a word written
# in enclosed letters, and as a bracketed letter a, "(a)", anywhere else (``jroe\u24d0corp-mail.org``; the e-mail
# rules read a bracketed letter a between a name and a host as the at-sign).
_CIRCLED_A = frozenset("\u24d0\u24b6")
_ENCLOSED_BLOCKS = ((0x2460, 0x24FF), (0x1F100, 0x1F1FF))


def _numeral(match: regex.Match[str]) -> str:
    char = match.group(0)
    if char in _CIRCLED_A:
        before = ord(match.string[match.start() - 1]) if match.start() else 0
        if not any(low <= before <= high for low, high in _ENCLOSED_BLOCKS):
            return "(" + _numeral_or_letter(char) + ")"
    return _numeral_or_letter(char)


def _digit(match: regex.Match[str]) -> str:
    return str(unicodedata.decimal(match.group(0), 0))


def _unicode_steps(text: str) -> str:
    """Step 1 to 3 of a round (numerals and enclosed letters, NFKC, tags, ignorables and marks, look-alikes,
    other scripts' digits) on ``text``."""
    text = _NUMERAL_OR_ENCLOSED.sub(_numeral, text)
    text = text.translate(_LOOKALIKES)  # before NFKC too: NFKC turns some confusables into other letters
    # NFKC, with the combining marks taken out between its two halves (compatibility decomposition, then canonical
    # composition): a mark after a letter is then removed like any other, instead of composing with it (``o`` plus
    # U+0301 would become one accented letter and ``/ho\u0301me/`` no home folder).
    text = unicodedata.normalize("NFKD", text)
    if _TAG_CHAR.search(text):  # translate() is costly on long text; most text holds no tag character
        text = text.translate(_TAGS)
    text = _IGNORABLE.sub("", text)
    text = unicodedata.normalize("NFC", text)
    text = text.translate(_LOOKALIKES)
    return _NON_ASCII_DIGIT.sub(_digit, text)


# Runs of non-ASCII characters; each is taken with the ASCII character before it (the starter a combining mark after
# it composes with under NFKC). (Searched without that character: with an optional ASCII character in front, the
# engine tried the pattern at every position, about 15 MB/s over source text; the bare run is found at about 1 GB/s.)
_NON_ASCII_RUN = regex.compile(r"[^\x00-\x7f]+")
_NON_ASCII_SPLIT = regex.compile(r"([^\x00-\x7f]+)")  # (the same runs, kept by ``split`` between the ASCII pieces)
# Text at most this long gets the Unicode steps whole; longer text only on its non-ASCII runs, all runs in one call
# (:func:`_unicode_steps_by_runs`), unless the runs cover more than ``_WHOLE_SHARE`` of it (text mostly in another
# script: the steps on the whole text then cost less than cutting it).
_WHOLE_TEXT_STEPS = 256
_WHOLE_SHARE = 0.5
# What the runs are joined with for one call of the steps: a character every step leaves alone and that composes
# with nothing, so no step carries anything across it: ``INERT_SEPARATOR`` (see above), or, in text that holds it
# (the joined-view screens separate their views with it), the first private-use character U+E000.
_RUN_SEPARATORS = (INERT_SEPARATOR, "\ue000")


def _unicode_steps_by_runs(text: str, whole_share: float = _WHOLE_SHARE) -> str:
    """:func:`_unicode_steps` of ``text``, applied only to its non-ASCII runs (each with the ASCII character before
    it): the same result, since every step leaves ASCII alone (no look-alike, numeral, tag, ignorable or mark is
    ASCII; NFKC maps ASCII to itself) and acts on single characters, except NFKC, which composes a starter with the
    combining marks after it and reorders the marks between two starters. An ASCII character is a starter that
    never composes with the character before it (no canonical pair has an ASCII second character), so cutting the
    text just before one changes no composition and no order; the cuts are made before the ASCII character that
    precedes each run. Long mostly-ASCII text (a source file's block with one accented name) then pays for its few
    non-ASCII characters only.

    The runs are joined with one of ``_RUN_SEPARATORS`` the text does not hold and given to the steps in one call,
    then cut apart again: the separator is a starter that composes with nothing, that no step changes, removes or
    produces (a test checks each table), so the steps act on each run as on the run alone. A text that holds every
    separator, or whose
    steps do not give back one piece per run, has each run stepped alone. A text whose runs (with the characters
    before them) are more than ``whole_share`` of it gets the steps whole; ``whole_share=2`` always cuts (the tests
    compare both ways with the whole-text steps). One call instead of one per run: a JSON table of look-alike
    characters, a run every few characters, cost seven pattern and table calls per run."""
    pieces = _NON_ASCII_SPLIT.split(text)  # ASCII, run, ASCII, run, ..., ASCII (each ASCII piece may be empty)
    if len(pieces) == 1:
        return text
    plain = pieces[0::2]
    # Each run with the character before it (the last of the ASCII piece before it: a maximal run follows an ASCII
    # character unless it starts the text, where that piece is empty).
    runs = [before[-1:] + run for before, run in zip(plain, pieces[1::2])]
    if sum(map(len, runs)) > whole_share * len(text):
        return _unicode_steps(text)  # mostly non-ASCII: the steps on the whole text cost less than cutting it
    # Each distinct run is stepped once, and once per process while the memo holds it (a run's steps depend on the
    # run alone, see above): the views of a table of look-alikes repeat the same runs many times.
    known = _RUN_STEPS.entries
    stepped_of: dict[str, str] = {}
    missing: list[str] = []
    for run in dict.fromkeys(runs):
        value = known.get(run)
        if value is None:
            missing.append(run)
        else:
            stepped_of[run] = value
    if missing:
        stepped: list[str] | None = None
        separator = next((candidate for candidate in _RUN_SEPARATORS if candidate not in text), None)
        if separator is not None:
            stepped = _unicode_steps(separator.join(missing)).split(separator)
        if stepped is None or len(stepped) != len(missing):
            stepped = [_unicode_steps(run) for run in missing]
        stepped_of.update(zip(missing, stepped))
        _RUN_STEPS.add(missing, stepped)
    return "".join([before[:-1] + stepped_of[run] for before, run in zip(plain, runs)]) + plain[-1]


class _RunMemo:
    """The Unicode steps of short runs already stepped in this process (run -> stepped run), at most ``maxsize``
    runs of at most ``max_run_chars`` characters (emptied whole when full: bounded, and simple). It has the
    ``cache_clear`` and ``cache_info`` of a ``functools.lru_cache``, so the benchmark tools, which empty every
    cache of the privacy modules by those names, empty this one too."""

    def __init__(self, maxsize: int, max_run_chars: int) -> None:
        self.maxsize = maxsize
        self.max_run_chars = max_run_chars
        self.entries: dict[str, str] = {}
        # (On the instance, not the class, as ``joined._ContainerMemo`` does: the tools look for these names on every
        # value of the module, the class included.)
        self.__name__ = "_RUN_STEPS"
        self.cache_clear = self._clear
        self.cache_info = self._info

    def add(self, runs: list[str], stepped: list[str]) -> None:
        """Remember the short ones of ``runs`` with their stepped forms."""
        if len(self.entries) + len(runs) > self.maxsize:
            self.entries.clear()
        for run, value in zip(runs, stepped):
            if len(run) <= self.max_run_chars:
                self.entries[run] = value

    def _clear(self) -> None:
        self.entries.clear()

    def _info(self) -> tuple[int, int]:
        return len(self.entries), self.maxsize


_RUN_STEPS = _RunMemo(maxsize=65536, max_run_chars=64)


def one_round(text: str, quoted_printable: bool = True) -> str:
    """Undo one layer of every supported encoding (see the module docstring for the order); quoted-printable only
    when ``quoted_printable`` is true."""
    if not text.isascii() and not text.replace(INERT_SEPARATOR, "").isascii():
        text = _unicode_steps(text) if len(text) <= _WHOLE_TEXT_STEPS else _unicode_steps_by_runs(text)
    if _CONTROL.search(text):
        text = _CONTROL.sub(" ", text)
    if not _ESCAPE_HINT.search(text):
        return text
    if "&" in text:
        text = html.unescape(text)
    if "%" in text:
        text = _PERCENT_U.sub(lambda m: _chr(int(m.group(1), 16)), text)
        text = _PERCENT_RUN.sub(_percent_bytes, text)
    if quoted_printable and "=" in text:
        text = _QP_RUN.sub(_qp_bytes, text)
    if "\\" in text:
        text = _BACKSLASH.sub(_backslash, text)
    return text


def has_quoted_printable(text: str) -> bool:
    """True when ``text`` holds something the quoted-printable step would decode."""
    return "=" in text and _QP_RUN.search(text) is not None


def decode_quoted_printable(text: str) -> str:
    """Peel exactly one quoted-printable layer (the engine's per-view step, see ``engine.py``)."""
    return _QP_RUN.sub(_qp_bytes, text)


# UTF-7 (RFC 2152) writes characters as "+", modified base64 of their UTF-16 code units, and an optional "-":
# "+AEA-" is an at-sign, "+/yA-" a fullwidth one, so "<name>+AEA-<host>" is read as an address by a UTF-7 reader (a
# mail client, an old browser). Like quoted-printable, it is peeled into an extra view of its own (``engine.py``):
# "+" and base64 letters also occur in base64 tokens and in ordinary text, which a decoding step inside the fixed point
# would destroy. Only a shift sequence whose every code unit is printable ASCII or a fullwidth form (U+FF01-U+FF5E,
# which the normaliser folds to ASCII) is decoded: what hides an identifier is an at-sign, a digit or a slash, and text
# that merely looks like a shift sequence ("+self") decodes to other scripts and is left alone. So a sequence that
# changes starts with "+A" and a second character C-H (the first unit is 0x0020-0x007E) or "+/" and w-z, 0 or 1 (the
# first unit is 0xFF01-0xFF5E): ``UTF7_HINT``, a necessary condition the prefilter uses too.
UTF7_HINT = r"\+(?:A[C-H]|/[w-z01])"
_UTF7_HINT = LazyPattern(UTF7_HINT)
_UTF7_SHIFT = LazyPattern(r"\+(?:([A-Za-z0-9+/]{3,})-?|-)")  # a shift sequence, or "+-" (a plus sign)
_BASE64_VALUE = {char: value for value, char in
                 enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


# CSS escapes (CSS Syntax Level 3, section 4.3.7): a backslash, one to six hex digits, then one optional white space
# (CRLF counts as one) that ends the escape: ``\40 `` and ``\000040`` are an at-sign in a style sheet, an SVG
# ``<style>`` or an HTML ``content:`` value, and ``\40mail`` is one too (``m`` is no hex digit). They are not decoded
# inside the fixed point: ``\d``, ``\b`` and ``\be`` in regular expressions, LaTeX and Windows paths read as
# CSS escapes of other characters. The engine reads them in a view of their own, from the text as given (the fixed
# point's octal step would take ``\000040`` apart), and only when some escape stands for a character that carries
# an identifier's shape (``CSS_HINT``: an at-sign, a dot, a slash, a backslash, a digit, a colon or a tilde, written
# with leading zeros or not, ended by its sixth digit or by anything but a further hex digit); every escape is decoded
# in that view.
_CSS_SHAPE = r"(?:40|2[EeFf]|3[0-9Aa]|5[Cc]|7[Ee])"
# A zero and two octal digits with no hex digit after them (``\040``) is C's and Python's octal escape (a space),
# which the fixed point reads: the view leaves it alone, so text written in octal escapes gains no at-sign.
_OCTAL_LOOKING = r"(?!0[0-7]{2}(?![0-9A-Fa-f]))"
CSS_HINT = rf"\\{_OCTAL_LOOKING}(?:0000{_CSS_SHAPE}|0{{0,3}}{_CSS_SHAPE}(?![0-9A-Fa-f]))"
_CSS_HINT = LazyPattern(CSS_HINT)
_CSS_ESCAPE = LazyPattern(rf"\\{_OCTAL_LOOKING}([0-9A-Fa-f]{{1,6}})(?:\r\n|[ \t\n\r\f])?")


def has_css_escape(text: str) -> bool:
    """True when ``text`` holds a CSS escape of a character that carries an identifier's shape (``CSS_HINT``)."""
    return "\\" in text and _CSS_HINT.search(text) is not None


def decode_css_escapes(text: str) -> str:
    """``text`` with every CSS escape (a backslash, one to six hex digits and one optional white space) decoded, but
    an octal-looking one (``_OCTAL_LOOKING``); a code point that is no character (a surrogate, past U+10FFFF) reads
    as U+FFFD, as CSS reads it."""
    return _CSS_ESCAPE.sub(lambda match: _chr(int(match.group(1), 16)), text)


def has_utf7(text: str) -> bool:
    """True when ``text`` holds a UTF-7 shift sequence :func:`decode_utf7` may decode (``UTF7_HINT``)."""
    return "+" in text and _UTF7_HINT.search(text) is not None


def decode_utf7(text: str) -> str:
    """``text`` with every UTF-7 shift sequence of printable ASCII or fullwidth code units decoded (see
    ``UTF7_HINT``) and every ``+-`` read as a plus sign; every other sequence, and everything else, unchanged. Bits
    left over after the last whole code unit are ignored (an encoder pads them with zeros)."""
    return _UTF7_SHIFT.sub(_utf7_shift, text)


def _utf7_shift(match: regex.Match[str]) -> str:
    if match.group(1) is None:
        return "+"
    bits = 0
    count = 0
    units: list[str] = []
    for char in match.group(1):
        bits = (bits << 6) | _BASE64_VALUE[char]
        count += 6
        if count >= 16:
            count -= 16
            unit = bits >> count
            bits &= (1 << count) - 1
            if not (0x20 <= unit <= 0x7E or 0xFF01 <= unit <= 0xFF5E):
                return match.group(0)
            units.append(chr(unit))
    return "".join(units)


# Short strings are normalised once per process: the engine, the joined views (each piece is glued, tested for an
# open address and for a leading at-sign) and the JSON walker ask for the same short strings many times.
_CACHED_CHARS = 256


def normalise(text: str, max_rounds: int = MAX_ROUNDS, max_chars: int = MAX_CHARS,
              quoted_printable: bool = True) -> Normalised:
    """:func:`normalise_uncached`, remembered for strings of at most ``_CACHED_CHARS`` characters (the result is a
    function of the arguments only, and immutable)."""
    if len(text) <= _CACHED_CHARS:
        return _normalise_short(text, max_rounds, max_chars, quoted_printable)
    return normalise_uncached(text, max_rounds, max_chars, quoted_printable)


@functools.lru_cache(maxsize=65536)
def _normalise_short(text: str, max_rounds: int, max_chars: int, quoted_printable: bool) -> Normalised:
    return normalise_uncached(text, max_rounds, max_chars, quoted_printable)


def normalise_uncached(text: str, max_rounds: int = MAX_ROUNDS, max_chars: int = MAX_CHARS,
                       quoted_printable: bool = True) -> Normalised:
    """Apply :func:`one_round` until nothing changes, within ``max_rounds`` changing rounds and ``max_chars``.

    The engine normalises with ``quoted_printable=False`` and peels quoted-printable layers one at a time into extra
    *views* (``=XX`` also occurs in ordinary ``key=value`` text, so decoding it to a fixed point could destroy what
    an earlier layer revealed); every view is scanned, so decoding can only add findings, never hide one.

    Returns the fixed point with status ``ok``; ``too_long`` when the input exceeds ``max_chars``; ``expanded`` when
    the input is within ``max_chars`` but a round's output is not (NFKC can expand a character up to 18-fold, so a
    short string can decode to more text than the budget); ``not_converged`` when ``max_rounds`` changing rounds
    still left something to decode. Every failure means the caller cannot know what the text says and must fail
    closed.
    """
    if len(text) > max_chars:
        return Normalised(text, "too_long", 0)
    current = text
    for rounds in range(max_rounds + 1):
        following = one_round(current, quoted_printable)
        if len(following) > max_chars:
            return Normalised(current, "expanded", rounds)
        if following == current:
            return Normalised(current, "ok", rounds)
        current = following
    return Normalised(current, "not_converged", max_rounds + 1)


# Of all the decodings a round applies, only NFKC makes text more than 3 times longer: an HTML reference, a percent
# run or a backslash escape is at least a third as long as what it decodes to once NFKC has expanded it (a six-character
# backslash escape of U+FDFA becomes 18 characters). So a text whose NFKC form is at most a third of the budget cannot
# exceed the budget in any round, and NFKC itself expands a character at most 18-fold.
EXPANSION_RATIO = 3
MAX_NFKC_EXPANSION = 18


def may_expand_past(text: str, max_chars: int = MAX_CHARS) -> bool:
    """True when normalising ``text`` exceeds ``max_chars`` in some round although ``text`` itself does not (status
    ``expanded``). Cheap bounds first (short text, ASCII text, the NFKC length), the normaliser itself only for text
    those bounds cannot clear. A screen that scans many strings as one, under a budget sized for the whole, uses this
    to send a string that expands past the per-string budget to the per-string scan, which fails closed on it."""
    if len(text) > max_chars or len(text) * MAX_NFKC_EXPANSION * EXPANSION_RATIO <= max_chars:
        return False
    nfkc_length = len(text) if text.isascii() else len(unicodedata.normalize("NFKC", text))
    if nfkc_length * EXPANSION_RATIO <= max_chars:
        return False
    return normalise(text, max_chars=max_chars).status == "expanded"
