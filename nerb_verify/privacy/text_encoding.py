"""Which encoding a file's text is written in: UTF-8, or UTF-16 or UTF-32 (either byte order); and UTF-8 with
stray bytes (:func:`lenient_utf8`).

A file was skipped as binary when its first 8 KiB held a NUL byte. Text saved as UTF-16 (what Windows tools such as
PowerShell's ``Out-File`` write by default) or UTF-32 holds a NUL byte beside every ASCII character, so an address
list exported that way was never read, and the pre-commit hook let it through. Such a file is text to every editor
and viewer, so it is decoded and scanned like any other text file.

The decision is made on the file's first bytes (the *probe*), as the binary test was:

* a byte order mark names the encoding (UTF-32's marks are tested before UTF-16's, since ``FF FE 00 00`` starts
  with ``FF FE``; a UTF-8 mark is left to the UTF-8 decoder, which removes it);
* a probe with no NUL byte is UTF-8, as before;
* otherwise each wide encoding, both byte orders, is tried on the probe: it must decode strictly, and every
  character must be one text holds (:func:`reads_as_text`: no control character but white space, no unassigned
  code point, private-use character or lone surrogate). Of those that pass, the one that reads the most ASCII
  characters wins: ASCII text in UTF-16LE read as big-endian is a run of CJK ideographs that can pass the test, but
  it holds no ASCII character, while the right reading does. Without a mark, a reading counts only when at least
  half of its characters are ASCII: the NUL bytes of wide text without a mark are the high bytes of ASCII (or
  Latin-1) characters, while a few random bytes, or ``00 01 02 03``, can read as assigned letters of other
  scripts with one ASCII character among them. (Wide text without a mark and mostly in other scripts is read as
  binary: a known limit; editors and Windows tools write the mark.)

Random binary data decoded as UTF-16 or UTF-32 meets a lone surrogate, an out-of-range value, a control character or
an unassigned code point within a few characters, so binary files stay binary. The whole file must still decode
strictly in the chosen encoding (the caller's decoder), or it is binary.
"""

from __future__ import annotations

import codecs
import re
import unicodedata

UTF8 = "utf-8"
WIDE_ENCODINGS = ("utf-32-le", "utf-32-be", "utf-16-le", "utf-16-be")

# Byte order marks, the longest first where one starts another.
_MARKS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
          (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))

_WHITE_CONTROLS = frozenset("\t\n\v\f\r")
_NOT_TEXT = frozenset({"Cc", "Cs", "Cn", "Co"})


def reads_as_text(text: str) -> bool:
    """Whether every character of ``text`` is one that text holds: no control character other than tab, line
    feed, vertical tab, form feed and carriage return, no lone surrogate, no unassigned code point (in the running
    Python's Unicode version) and no private-use character."""
    for character in text:
        if character.isascii():
            if character < " " and character not in _WHITE_CONTROLS or character == "\x7f":
                return False
        elif unicodedata.category(character) in _NOT_TEXT:
            return False
    return True


def _probe_text(probe: bytes, encoding: str) -> str | None:
    """The probe decoded strictly in ``encoding`` (an incomplete character at its end left out), or None."""
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    try:
        return decoder.decode(probe, final=False)
    except UnicodeDecodeError:
        return None


def text_encoding(probe: bytes) -> str | None:
    """The encoding a file whose first bytes are ``probe`` is written in (``"utf-8"`` or one of
    ``WIDE_ENCODINGS``), or None when it is binary (see the module docstring). The caller decodes the whole file in
    that encoding, strictly, and removes a leading U+FEFF."""
    for mark, encoding in _MARKS:
        if probe.startswith(mark):
            text = _probe_text(probe, encoding)
            return encoding if text is not None and reads_as_text(text.removeprefix("\ufeff")) else None
    if b"\x00" not in probe:
        return UTF8
    best: str | None = None
    best_ascii = -1
    for encoding in WIDE_ENCODINGS:
        text = _probe_text(probe, encoding)
        if text is None or not text or not reads_as_text(text):
            continue
        ascii_count = sum(1 for character in text if character.isascii())
        if ascii_count * 2 >= len(text) and ascii_count > best_ascii:
            best, best_ascii = encoding, ascii_count
    return best


# A control character other than white space: text that is not UTF-8 and holds one is binary (see ``lenient_utf8``).
CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


def lenient_utf8(raw: bytes) -> str | None:
    """``raw`` decoded as UTF-8 with a replacement character (U+FFFD) for each invalid byte sequence, or None when
    the result holds a control character other than white space (then it is binary).

    A file that is UTF-8 but for one stray byte (a Latin-1 ``é`` in a comment, a Windows-1252 export, a byte
    appended on purpose) was skipped whole as binary, so one ``\\xff`` hid every address in it. Such a file is text
    to a reader: its ASCII and its valid sequences are read as they are, each invalid sequence as a replacement
    character. Binary data is told apart by its control bytes (about one byte in eight of random or compressed
    data; none in text but tab, line feed, vertical tab, form feed and carriage return)."""
    text = raw.decode("utf-8", "replace")
    return None if CONTROL.search(text) else text
