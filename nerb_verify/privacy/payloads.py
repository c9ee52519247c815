"""Binary-to-text payloads beyond base64, base32 and hex, and the test every decoded payload must pass to be text.

:func:`as_text` decides whether decoded bytes are text (UTF-8, UTF-16 or UTF-32 in either byte order, with or without a
byte order mark, gzip or zlib streams inflated first); random bytes (digests, ids) practically never pass, so only
real encoded text is rescanned.

:func:`raw_payloads` finds, in linear time, the printable texts hidden in a string as

* ascii85 (Adobe ``<~...~>`` blocks, whitespace inside allowed, and bare runs of 14 or more characters of its
  alphabet ``!``..``u``) and base85 (RFC 1924 / Git / Python's ``b85encode`` alphabet, bare runs of 14 or more).
  A bare run is decoded only where one search finds three group leaders of text five apart (the first character of
  a group carries the group's first byte: for a byte up to 0x7E it is one of the first 41 of the 85 characters),
  only when every group at some alignment leads that way, and it counts only when it decodes to plain ASCII text,
  which screens out ordinary words, URLs and code;
* uuencoded lines: ``begin <mode> <name>`` blocks (every line up to ``end`` or the first line that is not uuencoded,
  decoded and joined), runs of full 45-byte lines ended by a shorter one, each uuencoded on its own (a length
  character, then exactly the characters that length needs, all from space to backtick), and such a line as one
  white-space-free token.

Each candidate is decoded at most five times (alignments) and each decoding is cached per token, so the cost is
linear in the string; strings are at most 16,384 characters (the normaliser's budget) except in screens, whose
runs are the same runs.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
import struct
import unicodedata
import zlib
from collections.abc import Callable

# A compressed payload is inflated to at most this many bytes (a decompression bomb stops there and is not text).
MAX_INFLATED_BYTES = 65536
MIN_DECODED_CHARS = 6
# Control and format characters a payload may carry (a trailing CRLF, a NUL, a BOM, a zero-width space) before it
# stops looking like text.
MAX_STRIPPED_CHARS = 2


# Byte order marks, longest first (the UTF-32LE mark begins with the UTF-16LE one).
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xef\xbb\xbf", "utf-8"),
         (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


_BOM_LEADS = frozenset(mark[0] for mark, _encoding in _BOMS) | {0}


def _text_encoding(raw: bytes) -> tuple[str, int]:
    """The encoding ``raw`` is most likely text in, and how many bytes of byte order mark to skip: the mark if there
    is one; else UTF-32 when three of every four bytes are zero, UTF-16 when every other byte is (little- or
    big-endian by which ones), else UTF-8."""
    for mark, encoding in _BOMS:
        if raw.startswith(mark) and len(raw) > len(mark):
            return encoding, len(mark)
    if len(raw) >= 8 and len(raw) % 4 == 0:
        if not any(raw[1::4]) and not any(raw[2::4]) and not any(raw[3::4]):
            return "utf-32-le", 0
        if not any(raw[0::4]) and not any(raw[1::4]) and not any(raw[2::4]):
            return "utf-32-be", 0
    if len(raw) >= 4 and len(raw) % 2 == 0:
        if not any(raw[1::2]):
            return "utf-16-le", 0
        if not any(raw[0::2]):
            return "utf-16-be", 0
    return "utf-8", 0


def _printable_text(raw: bytes) -> str | None:
    """``raw`` as text when it is UTF-8, UTF-16 or UTF-32 (either byte order, with or without a byte order mark, see
    :func:`_text_encoding`) made of printable characters, once at most two control or format characters are
    dropped; else None (random bytes almost never pass)."""
    # Without a zero byte and a first byte that can begin a byte order mark, :func:`_text_encoding` says UTF-8 with
    # nothing to skip (every mark begins with 0xFF, 0xFE, 0xEF or 0x00; the UTF-16/32 tests need zero bytes): the
    # common case of random bytes, decided without the slower tests.
    if raw[0] not in _BOM_LEADS and b"\x00" not in raw:
        encoding, skip = "utf-8", 0
    else:
        encoding, skip = _text_encoding(raw)
    try:
        text = raw[skip:].decode(encoding)
    except UnicodeDecodeError:
        return None
    return _printable(text)


def _printable(text: str) -> str | None:
    """``text`` when it is made of printable characters once at most two control or format characters are dropped
    (those dropped), written as text is (:func:`written_as_text`), and long enough to be a payload; else None."""
    if text.isprintable():
        # No control, format or separator character (but the space): nothing is dropped and every test below holds
        # but the length and the script test.
        return text if len(text) >= MIN_DECODED_CHARS and written_as_text(text) else None
    kept = "".join(ch for ch in text if ch in "\t\n\r " or unicodedata.category(ch) not in ("Cc", "Cf"))
    if len(text) - len(kept) > MAX_STRIPPED_CHARS or len(kept) < MIN_DECODED_CHARS:
        return None
    if not kept.replace("\n", " ").replace("\t", " ").replace("\r", " ").isprintable():
        return None
    return kept if written_as_text(kept) else None


# Scripts written together in one text (UTS #39's "highly restrictive" sets: Han with Hiragana and Katakana, Han with
# Hangul, Han with Bopomofo), taken as one; their characters' names begin with these words.
_CJK_WORDS = frozenset({"CJK", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO", "IDEOGRAPHIC"})
# Marks that go with any script (combining diacritics, variation selectors), by the first word of their names.
_ANY_SCRIPT_MARKS = frozenset({"COMBINING", "VARIATION"})


def _script_word(char: str) -> str:
    """The script of ``char``, read off its Unicode name: the first word (``CYRILLIC SMALL LETTER A``), the second
    for a fullwidth or halfwidth form, one word for the East Asian scripts written together (``_CJK_WORDS``)."""
    words = unicodedata.name(char, "").split()
    if words[:1] in (["FULLWIDTH"], ["HALFWIDTH"]):
        words = words[1:]
    word = words[0] if words else ""
    return "CJK" if word in _CJK_WORDS else word


def written_as_text(text: str) -> bool:
    """Whether the non-ASCII characters of ``text`` are written the way text is: every script-specific combining
    mark follows a letter of its own script (a Hebrew point after a Hebrew letter, not after a Latin ``z``), and
    the letters beyond ASCII belong to Latin and at most one other script (the East Asian ones written together
    count as one). Random bytes that happen to be UTF-8 (a digest or glued words decoded at some alignment) mix
    ASCII with marks and letters of unrelated scripts (a tilde, a letter, a slash, two letters, then a Thaana mark,
    a bracket and a Syriac mark); text hidden in a payload, a name in any script next to an address included, does
    not. ASCII text always is."""
    if text.isascii():
        return True
    scripts: set[str] = set()
    base = "LATIN"  # the script of the last letter (ASCII letters are Latin)
    for char in text:
        if char.isascii():
            if char.isalpha():
                base = "LATIN"
            continue
        category = unicodedata.category(char)
        if category[0] == "M":
            word = _script_word(char)
            if word not in _ANY_SCRIPT_MARKS and word != base:
                return False
        elif category[0] == "L":
            base = _script_word(char)
            if base != "LATIN":
                scripts.add(base)
                if len(scripts) > 1:
                    return False
    return True


def _inflate(raw: bytes) -> bytes | None:
    """The bytes of a gzip or zlib stream, inflated to at most MAX_INFLATED_BYTES; None when ``raw`` is not one."""
    if raw[:2] == b"\x1f\x8b":
        wbits = 16 + zlib.MAX_WBITS
    elif len(raw) >= 2 and raw[0] & 0x0F == 8 and (raw[0] << 8 | raw[1]) % 31 == 0:
        wbits = zlib.MAX_WBITS
    else:
        return None
    try:
        inflater = zlib.decompressobj(wbits)
        return inflater.decompress(raw, MAX_INFLATED_BYTES)
    except zlib.error:
        return None


# First bytes after which :func:`as_text` needs its general path: a byte that can begin a byte order mark (see
# :func:`_printable_text`), the first byte of a gzip stream (0x1F) and every first byte of a zlib stream (its low
# four bits are 8, see :func:`_inflate`).
_GENERAL_LEADS = _BOM_LEADS | {0x1F} | {lead for lead in range(256) if lead & 0x0F == 8}


# A byte that is not UTF-8, as ``surrogateescape`` decodes it.
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


def as_text(raw: bytes | None) -> str | None:
    """Printable text carried by ``raw`` directly, or by ``raw`` inflated when it is a compressed stream."""
    if not raw:
        return None
    if raw[0] not in _GENERAL_LEADS and b"\x00" not in raw:
        # The common case (random bytes from a digest or an id decoded at some alignment), in one call: what
        # :func:`_printable_text` does for such bytes (UTF-8, nothing to skip), and no :func:`_inflate`, which
        # returns None for every first byte outside ``_GENERAL_LEADS``.
        # (Decoded with ``surrogateescape``, which never raises: bytes that are not UTF-8 become lone surrogates
        # U+DC80-U+DCFF, which strict decoding never yields, so their presence is exactly its failure. Raising and
        # catching the error cost more than this test for the many random tokens that are not text; ``_printable``
        # would refuse such text too, a lone surrogate being neither printable nor dropped, but only after a loop
        # over its characters.)
        text = raw.decode("utf-8", "surrogateescape")
        if text.isprintable():
            return text if len(text) >= MIN_DECODED_CHARS and written_as_text(text) else None
        if _ESCAPED_BYTE.search(text) is not None:
            return None
        return _printable(text)
    text = _printable_text(raw)
    if text is None:
        inflated = _inflate(raw)
        text = _printable_text(inflated) if inflated else None
    return text


# Base85 and ascii85 runs: 14 characters carry 11 bytes (an SSN with its separators).
MIN_BASE85_RUN = 14
# A run may begin with a key or a URL glued to the payload ("d=...", "key:..."): decoding is also tried after each of
# the first few such separators (and at five alignments from each start).
_GLUE = re.compile("[=:?&/\"'(<\\[,;]")
MAX_GLUED_STARTS = 8
_ASCII85_ADOBE = re.compile(r"<~([!-uz\s]+)~>")
_ASCII85_CHARS = "".join(chr(code) for code in range(ord("!"), ord("u") + 1))
_ASCII85_REST = re.compile(r"[!-u]*")
# The first MIN_BASE85_RUN characters of a bare ascii85 payload of plain text, at its alignment: three group
# leaders (see _ASCII85_LEADER_CHARS) four characters apart. One search over the text finds every place a payload
# can start; only the runs around those places are tried.
# (Written out, not as a repeated group: the standard library's ``re`` then scans three times faster.)
_ASCII85_WINDOW = re.compile(r"[!-I][!-u]{4}[!-I][!-u]{4}[!-I][!-u]{3}")
_BASE85_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"
_BASE85_CLASS = r"[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]"
_BASE85_REST = re.compile(_BASE85_CLASS + "*")
_BASE85_WINDOW = re.compile(("[0-9A-Za-e]" + _BASE85_CLASS + "{4}") * 2 + "[0-9A-Za-e]" + _BASE85_CLASS + "{3}")
# The first character of a 5-character group when the group's first byte is at most 0x7E (text, or a zero byte of
# UTF-16/32): digit values 0 to 40 of the 85.
_ASCII85_LEADER_CHARS = "".join(chr(33 + value) for value in range(41))
_ASCII85_TEXT_LEADERS = str.maketrans("", "", _ASCII85_LEADER_CHARS + "z")
_BASE85_TEXT_LEADERS = str.maketrans("", "", _BASE85_ALPHABET[:41])
# Five characters in a row none of which can lead a group of text: every alignment misses there. Every payload start
# leaves at least the run's last MIN_BASE85_RUN characters to decode, so a run with such five among them is not
# decoded at all; most code and prose runs (lower-case words) fail here, at the cost of one search.
_ASCII85_NO_LEADER = re.compile(r"[J-u]{5}")
_BASE85_NO_LEADER = re.compile(r"[f-z!#$%&()*+\-;<=>?@^_`{|}~]{5}")
# What a bare base85/ascii85 run must decode to: ASCII letters, digits, white space and the punctuation of
# addresses, numbers and paths (no tilde, brackets, quotes or other symbols, which random decodes are full of).
_PLAIN_TEXT = re.compile(r"[A-Za-z0-9_ \t\r\n@.+/\\:(),-]+")


def _all_lead_text(leaders: str, allowed: dict[int, None]) -> bool:
    """True when every one of ``leaders`` is in ``allowed`` (a deletion table): every group starts with a byte of
    plain ASCII text."""
    return bool(leaders) and not leaders.translate(allowed)


def _decode_ascii85(body: str) -> bytes | None:
    try:
        return base64.a85decode(body.encode("ascii"), ignorechars=b" \t\r\n\x0b\x0c")
    except ValueError:
        return None


def _decode_base85(body: str) -> bytes | None:
    try:
        return base64.b85decode(body.encode("ascii"))
    except ValueError:
        return None


# Digit values of the two alphabets as a ``bytes.translate`` table (a byte outside the alphabet is never looked up:
# the callers pass runs of the alphabet only).
_ASCII85_VALUES = bytes.maketrans(_ASCII85_CHARS.encode("ascii"), bytes(range(85)))
_BASE85_VALUES = bytes.maketrans(_BASE85_ALPHABET.encode("ascii"), bytes(range(85)))


def _decode_85_groups(body: str, values: bytes) -> bytes | None:
    """The bytes of ``body``, a run of the characters of one base-85 alphabet (``values``: their digit values), read
    as 5-character groups, each a big-endian 32-bit number; None when a group overflows. Exactly what
    ``base64.a85decode`` (for a run of ``!``..``u`` without ``z``: no white space, no ``y``, no ``<~``) and
    ``base64.b85decode`` (for a run of its alphabet) return: both pad the last group with the highest digit (``u``
    or ``~``, 84), decode every group, raise ``ValueError`` on a group above 2**32 - 1 and drop as many bytes at the
    end as digits were padded. Here the groups are computed in one comprehension over five strided slices and packed
    in one call, instead of a Python loop over characters (``contract_tests/test_privacy_payload_pass.py`` compares
    the two on random runs of every length)."""
    digits = body.encode("ascii").translate(values)
    padding = -len(digits) % 5
    digits += b"\x54" * padding
    groups = [(((first * 85 + second) * 85 + third) * 85 + fourth) * 85 + fifth
              for first, second, third, fourth, fifth
              in zip(digits[0::5], digits[1::5], digits[2::5], digits[3::5], digits[4::5])]
    try:
        raw = struct.pack(f">{len(groups)}I", *groups)
    except struct.error:
        return None
    return raw[:len(raw) - padding]


def _decode_bare_ascii85(body: str) -> bytes | None:
    """:func:`_decode_ascii85` of a bare run (characters ``!``..``u`` only, no ``z``), see :func:`_decode_85_groups`."""
    return _decode_85_groups(body, _ASCII85_VALUES)


def _decode_bare_base85(body: str) -> bytes | None:
    """:func:`_decode_base85` of a run of its alphabet, see :func:`_decode_85_groups`."""
    return _decode_85_groups(body, _BASE85_VALUES)


def _starts(run: str) -> list[int]:
    """Where a payload may begin in ``run``: its start and after each of its first ``MAX_GLUED_STARTS`` glue
    characters."""
    starts = [0]
    for match in _GLUE.finditer(run, 0, len(run) - MIN_BASE85_RUN):
        starts.append(match.end())
        if len(starts) > MAX_GLUED_STARTS:
            break
    return starts


def _run_text(run: str, leaders: dict[int, None], no_leader: re.Pattern[str],
              decode: Callable[[str], bytes | None]) -> str | None:
    """The plain text ``run`` carries from the first start and alignment (see :func:`_starts`) whose 5-character
    group leaders look like text, or None. A bare run is weaker evidence than a delimited block: code and prose are
    full of short runs of this alphabet (``len(status)``), and some decode to printable junk by chance, which the
    short path shapes then read as a path (a tilde, a letter and a backslash). So only plain ASCII text counts here (see ``_PLAIN_TEXT``)."""
    if no_leader.search(run, len(run) - MIN_BASE85_RUN):
        return None
    for start in _starts(run):
        if no_leader.search(run, start):
            continue
        for offset in range(start, start + 5):
            if len(run) - offset < MIN_BASE85_RUN:
                break
            if _all_lead_text(run[offset::5], leaders):
                text = as_text(decode(run[offset:]))
                if text is not None and _PLAIN_TEXT.fullmatch(text):
                    return text
    return None


@functools.lru_cache(maxsize=65536)
def _ascii85_text(run: str) -> str | None:
    """The printable text a bare ascii85 run carries (see :func:`_run_text`), or None. A run holding ``z`` (four zero
    bytes in one character, so groups are not every five characters) is decoded whole."""
    if "z" in run:
        return as_text(_decode_ascii85(run))
    return _run_text(run, _ASCII85_TEXT_LEADERS, _ASCII85_NO_LEADER, _decode_bare_ascii85)


@functools.lru_cache(maxsize=65536)
def _base85_text(run: str) -> str | None:
    """The printable text a bare base85 (RFC 1924 alphabet) run carries, as :func:`_ascii85_text`."""
    return _run_text(run, _BASE85_TEXT_LEADERS, _BASE85_NO_LEADER, _decode_bare_base85)


# uuencode: a line is a length character (space + 1..45 bytes, "!".."M") and 4 characters per 3 bytes, every
# character from space to backtick.
_UU_LINE = re.compile(r"[!-M][ -`]+")
# A white-space-free token of uuencode characters (its boundaries are checked in code: no lookarounds keeps the
# search fast).
_UU_TOKEN = re.compile(r"[!-M][!-`]{7,}")
_UU_BEGIN = re.compile(r"[ \t]*begin [0-7]{3,4} \S")
_UU_END = re.compile(r"[ \t]*(?:end|`)[ \t]*")
MAX_UU_LINES = 512


def _uu_line(line: str, exact: bool) -> bytes | None:
    """The bytes of one uuencoded line, or None when it is not one. ``exact``: the characters after the length
    character must be exactly as many as the length needs (a token inside other text); else one or two fewer are
    accepted too (an editor may strip trailing spaces, which encode zero bits)."""
    if not _UU_LINE.fullmatch(line):
        return None
    size = ord(line[0]) - 32
    needed = 4 * ((size + 2) // 3)
    body = len(line) - 1
    if body != needed and (exact or not needed - 2 <= body <= needed + 1):
        return None
    try:
        return binascii.a2b_uu(line)
    except binascii.Error:
        return None


@functools.lru_cache(maxsize=65536)
def _uu_token_text(token: str) -> str | None:
    return as_text(_uu_line(token, exact=True))


# The lines _uu_texts looks at: a begin line, an end line, or a line made only of uuencode characters (one search
# over the whole text; ordinary lines, with their lower-case letters, never match).
# (Searched in the text with a line break added at both ends: a pattern that starts with a literal is faster.)
_UU_CANDIDATE_LINE = re.compile(r"\n(?:[ \t]*begin [0-7]{3,4} \S[^\n]*|[ \t]*end[ \t]*|[!-`][ -`]*)\r?(?=\n)")


def _uu_line_texts(text: str) -> list[str]:
    """Texts of uuencoded lines, each group joined: a ``begin`` block's lines (trailing spaces may be stripped), or
    outside one a run of full 45-byte lines ("M") ended by a shorter one, every line exactly as long as its length
    character says."""
    found: list[str] = []
    run: list[bytes] = []

    def flush() -> None:
        if run:
            decoded = as_text(b"".join(run))
            if decoded is not None:
                found.append(decoded)
            run.clear()

    in_block = False
    previous_end = -1
    for match in _UU_CANDIDATE_LINE.finditer("\n" + text + "\n"):
        if match.start() != previous_end:  # a line in between that is not uuencoded ends a group
            flush()
            in_block = False
        previous_end = match.end()
        line = match.group(0)[1:].rstrip("\r")
        if _UU_BEGIN.match(line):
            flush()
            in_block = True
            continue
        if in_block and _UU_END.fullmatch(line):
            flush()
            in_block = False
            continue
        decoded = _uu_line(line, exact=not in_block) if len(run) < MAX_UU_LINES else None
        if decoded is None:
            flush()
            in_block = False
            continue
        run.append(decoded)
        if not in_block and line[0] != "M":
            flush()
    flush()
    return found


def _uu_token_texts(text: str, starts: bytes | None = None) -> list[str]:
    """Texts of single uuencoded lines written as one white-space-free token inside other text (white space or the
    text's ends on both sides). ``starts`` (from :func:`_class_hits`), when given, has 1 where such a token can
    start: a length character after white space (or at the start) with 7 uuencode characters after it. A token of
    ``_UU_TOKEN.finditer`` that is kept starts at such a place, and each such place starts a match of it (its greedy
    run, the maximal run of uuencode characters there) that no earlier match overlaps (no match holds white
    space), so the tokens kept are the same."""
    found: list[str] = []
    if starts is None:
        tokens: list[tuple[int, int]] = [match.span() for match in _UU_TOKEN.finditer(text)]
    else:
        tokens = []
        start = starts.find(1)
        while start != -1:
            tokens.append((start, _UU_REST.match(text, start + 1).end()))  # type: ignore[union-attr]
            start = starts.find(1, start + 1)
    for start, end in tokens:
        if (start and not text[start - 1].isspace()) or (end < len(text) and not text[end].isspace()):
            continue
        token = text[start:end]
        if len(token) - 1 != 4 * ((ord(token[0]) - 30) // 3):  # the length its first character announces
            continue
        decoded = _uu_token_text(token)
        if decoded is not None:
            found.append(decoded)
    return found


_UU_REST = re.compile(r"[!-`]*")


def _uu_texts(text: str, starts: bytes | None = None) -> list[str]:
    """Texts of uuencoded lines (:func:`_uu_line_texts`), then of uuencoded tokens (:func:`_uu_token_texts`)."""
    return _uu_line_texts(text) + _uu_token_texts(text, starts)


_HEX_RUN = re.compile(r"[0-9A-Fa-f]+")


def _bit_table(classes: dict[int, str]) -> bytes:
    """A ``bytes.translate`` table: each byte gets the bits of every class (bit -> characters) it belongs to."""
    table = bytearray(256)
    for bit, chars in classes.items():
        for char in chars:
            table[ord(char)] |= bit
    return bytes(table)


def _bit_reader(bit: int) -> bytes:
    """A ``bytes.translate`` table: 1 for a byte with ``bit`` set, 0 for every other byte."""
    return bytes(1 if value & bit else 0 for value in range(256))


# The window and uuencoded-token searches on a long ASCII text, bit-parallel (``_class_hits``): each character
# becomes one byte of class bits, the text one integer (byte i at bits 8i to 8i + 7), and a window is a few shifts
# and ANDs of it. White space is what ``str.isspace`` says of ASCII characters.
_ASCII_WHITE_SPACE = "".join(chr(code) for code in range(128) if chr(code).isspace())
_WINDOW_BITS = _bit_table({1: _ASCII85_LEADER_CHARS, 2: _ASCII85_CHARS, 4: _BASE85_ALPHABET[:41], 8: _BASE85_ALPHABET,
                           16: "".join(map(chr, range(ord("!"), ord("M") + 1))),
                           32: "".join(map(chr, range(ord("!"), ord("`") + 1))), 64: _ASCII_WHITE_SPACE})
_ASCII85_HITS = _bit_reader(1)
_BASE85_HITS = _bit_reader(4)
_UU_STARTS = _bit_reader(16)
# Shorter texts (JSON strings, words, lines) keep the pattern searches, cheaper there than building the integer.
BIT_PARALLEL_MIN = 512


def _class_hits(text: str) -> tuple[bytes, bytes, bytes] | None:
    """For an ASCII ``text`` of at least ``BIT_PARALLEL_MIN`` characters: three byte strings as long as ``text``, with 1
    where ``_ASCII85_WINDOW`` and ``_BASE85_WINDOW`` match (at that start) and where a uuencoded token can start (see
    :func:`_uu_token_texts`), and 0 elsewhere; else None.

    A window is 14 characters of the alphabet whose characters 0, 5 and 10 are group leaders of text (the first 41
    characters of the alphabet; ``_ASCII85_LEADER_CHARS`` is ``!``..``I``, every one of them in the alphabet, and so
    for base85). With ``x`` the text's class bits (bit 1: an ascii85 leader, 2: an ascii85 character, 4 and 8 the
    same for base85, 16: a uuencode length character, 32: a uuencode character, 64: white space),
    ``x & x >> 40 & x >> 80`` has a leader bit set at i when the characters i, i + 5 and i + 10 are leaders;
    ``inside``, the AND of ``x`` shifted by 0 to 13 characters (by doubling: 2, 4, 8, then 8 + 4 + 2), has an alphabet
    bit set at i when the characters i to i + 13 all belong (a shift brings zeros in past the text's end, so no window
    runs past it). Shifting ``inside`` down one bit puts each alphabet bit on its leader bit, so bits 1 and 4 of their
    AND are the two windows. A token start is bit 16 of ``x``, white space before it (``x`` shifted up one
    character, with white space put before the first, down 2 bits) and 7 uuencode characters after it (bit 32 of the
    AND over 7 characters, from i + 1: down 9 bits). Each table reads its own bit only. Every character is ASCII, one
    byte: byte offsets are character offsets."""
    if len(text) < BIT_PARALLEL_MIN or not text.isascii():
        return None
    size = len(text)
    bits = int.from_bytes(text.encode("ascii").translate(_WINDOW_BITS), "little")
    leaders = bits & (bits >> 40) & (bits >> 80)
    two = bits & (bits >> 8)
    four = two & (two >> 16)
    eight = four & (four >> 32)
    inside = eight & (four >> 64) & (two >> 96)
    hits = (leaders & (inside >> 1)).to_bytes(size, "little")
    before = (bits << 8) | 64
    seven = four & (two >> 32) & (bits >> 48)
    starts = (bits & (before >> 2) & (seven >> 9)).to_bytes(size, "little")
    return hits.translate(_ASCII85_HITS), hits.translate(_BASE85_HITS), starts.translate(_UU_STARTS)


def _bare_run_texts(text: str, window: re.Pattern[str], rest: re.Pattern[str],
                    decode: Callable[[str], str | None], hits: bytes | None = None) -> list[str]:
    """Texts of the bare runs (maximal runs of the characters of ``rest``, a repeated class) that hold a ``window``
    match, each run decoded once by ``decode`` (a run of base64 characters too: the ascii85 of digits is often made
    of letters and digits only). ``hits`` (from :func:`_class_hits`), when given, says where ``window`` matches:
    the first 1 at or after a position is where ``window.search`` from there matches (a window is 14 characters,
    with no lookaround), so the runs are the same."""
    found: list[str] = []
    backwards: str | None = None  # the text reversed, made once when a window matches: ``rest`` then finds the
    # run's start in C (its class reads the same either way) instead of a loop over characters
    position = 0
    while True:
        if hits is None:
            match = window.search(text, position)
            if match is None:
                break
            begin, end = match.start(), match.end()
        else:
            begin = hits.find(1, position)
            if begin == -1:
                break
            end = begin + MIN_BASE85_RUN
        # (A window lies inside one run, so the next search starts after the run: one search per run, where
        # ``finditer`` would stop every 14 characters of a long run.)
        if backwards is None:
            backwards = text[::-1]
        head = rest.match(backwards, len(text) - begin)
        start = begin - (head.end() - head.start()) if head is not None else begin
        tail = rest.match(text, end)
        done = tail.end() if tail is not None else end
        position = done
        run = text[start:done]
        if _HEX_RUN.fullmatch(run):
            continue  # a digest or an id: base85 of text is practically never made of hex digits only
        decoded = decode(run)
        if decoded is not None:
            found.append(decoded)
    return found


def raw_payloads(text: str) -> list[str]:
    """Printable texts hidden in ``text`` as ascii85 / base85 runs or uuencoded lines (see the module docstring).
    ``text`` is scanned as given: these alphabets hold ``%``, ``&``, ``=`` and backslashes, which the normaliser
    would read as escapes.

    A long text beyond ASCII (where the bit-parallel windows do not apply) is read word by word
    (:func:`_raw_payloads_by_words`); every other text whole (:func:`raw_payloads_whole`): the same list."""
    if len(text) >= BIT_PARALLEL_MIN and not text.isascii():
        return _raw_payloads_by_words(text)
    return raw_payloads_whole(text)


def _raw_payloads_by_words(text: str) -> list[str]:
    """:func:`raw_payloads_whole` of ``text``, in the same order, with each word's runs and token found once per
    process (:func:`_word_raw_texts`). Why the same: the bare runs (maximal runs of their alphabets, which hold no
    white space) lie inside words, a run's ends are where it ends inside its word, and they are found in text
    order, so the runs of the text are those of its words, word after word; a uuencoded token needs white space
    or the text's ends on both sides, so it is a whole word (:func:`_uu_word_text`); the Adobe blocks and the
    uuencoded lines may hold white space and are searched in the whole text. A table of look-alike characters
    repeats its names in every joined view: each name's words were decoded once per view."""
    found: list[str] = []
    if "<~" in text:
        for match in _ASCII85_ADOBE.finditer(text):
            decoded = as_text(_decode_ascii85(match.group(1)))
            if decoded is not None:
                found.append(decoded)
    parts = [_word_raw_texts(word) for word in text.split() if len(word) >= MIN_WORD_TOKEN]
    found.extend(decoded for ascii85, _base85, _token in parts for decoded in ascii85)
    found.extend(decoded for _ascii85, base85, _token in parts for decoded in base85)
    found.extend(_uu_line_texts(text))
    found.extend(token for _ascii85, _base85, token in parts if token is not None)
    return found


@functools.lru_cache(maxsize=65536)
def _word_raw_texts(word: str) -> tuple[tuple[str, ...], tuple[str, ...], str | None]:
    """The texts of one word's bare ascii85 runs and base85 runs, and of the word as a uuencoded token."""
    if len(word) < MIN_BASE85_RUN:
        return (), (), _uu_word_text(word)
    return (tuple(_bare_run_texts(word, _ASCII85_WINDOW, _ASCII85_REST, _ascii85_text)),
            tuple(_bare_run_texts(word, _BASE85_WINDOW, _BASE85_REST, _base85_text)), _uu_word_text(word))


def raw_payloads_whole(text: str) -> list[str]:
    """:func:`raw_payloads`, read over the whole text (bit-parallel windows on long ASCII text)."""
    found: list[str] = []
    if len(text) < 8:
        return found
    if "<~" in text:
        for match in _ASCII85_ADOBE.finditer(text):
            decoded = as_text(_decode_ascii85(match.group(1)))
            if decoded is not None:
                found.append(decoded)
    hits = _class_hits(text)
    if len(text) >= MIN_BASE85_RUN:
        found.extend(_bare_run_texts(text, _ASCII85_WINDOW, _ASCII85_REST, _ascii85_text,
                                     hits[0] if hits is not None else None))
        found.extend(_bare_run_texts(text, _BASE85_WINDOW, _BASE85_REST, _base85_text,
                                     hits[1] if hits is not None else None))
    found.extend(_uu_texts(text, hits[2] if hits is not None else None))
    return found


# The shortest token any per-word search below can find (a uuencoded token: a length character and 7 or more).
MIN_WORD_TOKEN = 8


def block_has_raw_payload(text: str) -> bool:
    """Whether the searches of :func:`raw_payloads` that may reach across white space (Adobe ``<~...~>`` blocks and
    uuencoded lines, which may hold spaces) find a text in ``text``. With :func:`word_has_raw_payload` over the
    white-space-separated words of ``text``, ``bool(raw_payloads(text))`` (see ``engine.has_encoded_payload``)."""
    if len(text) < 8:
        return False
    if "<~" in text:
        for match in _ASCII85_ADOBE.finditer(text):
            if as_text(_decode_ascii85(match.group(1))) is not None:
                return True
    return bool(_uu_line_texts(text))


@functools.lru_cache(maxsize=65536)
def word_has_raw_payload(word: str) -> bool:
    """Whether a bare ascii85 / base85 run or a uuencoded token of ``word`` (a string without white space) decodes
    to text. Every run and token these searches find in a text is made of characters that are not white space
    (``str.isspace``) and ends at white space or at the text's ends; the uuencoded token's boundary test is exactly
    "white space or an end". So they find, in a text, the concatenation of what they find in its white-space-split
    words, and a word's answer is cached (the pieces of a joined view and the view share most words)."""
    if len(word) < MIN_WORD_TOKEN:
        return False
    if len(word) >= MIN_BASE85_RUN and (_bare_run_texts(word, _ASCII85_WINDOW, _ASCII85_REST, _ascii85_text)
                                        or _bare_run_texts(word, _BASE85_WINDOW, _BASE85_REST, _base85_text)):
        return True
    return _uu_word_text(word) is not None


def _uu_word_text(word: str) -> str | None:
    """:func:`_uu_token_texts` of a word (no white space), at most one text: a token needs white space or the text's
    ends on both sides, so in a word only the whole word can be one; ``_UU_TOKEN`` matches there exactly when the
    word's first character is a length character and every other one is a uuencode character (its greedy run then
    ends at the word's end), and it is taken when it is as long as its length character announces."""
    if _UU_TOKEN.fullmatch(word) is None or len(word) - 1 != 4 * ((ord(word[0]) - 30) // 3):
        return None
    return _uu_token_text(word)
