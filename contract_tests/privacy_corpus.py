"""The privacy scanner's table-driven corpus: must-reject strings in every encoding family and must-accept benign text,
with the codes each profile must raise.

The repository scans itself with its own scanner, so no must-reject string appears here in plain text: each is
written with the break marker ``«»`` inside it (which stops every rule) and assembled at run time by
:func:`assemble`, or built by the encoders below from pieces. Must-accept strings are written as they are.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import gzip
import urllib.parse
import zlib
from collections.abc import Callable

BREAK = "«»"

EMAIL = "privacy.email"
AT = "privacy.at_sign"
DOC = "privacy.document_id"
SSN = "privacy.ssn"
PHONE = "privacy.phone"
PERSONAL = "privacy.personal_path"
LOCAL = "privacy.local_path"
SHARE = "privacy.network_share"
FILE_URI = "privacy.file_uri"
NOT_CONVERGED = "privacy.encoding_not_converged"
TOO_LONG = "privacy.string_too_long"
URL_BUDGET = "privacy.url_budget_exceeded"
EXPANDED = "privacy.expansion_exceeds_budget"
TRAVERSAL = "privacy.path_traversal"


def assemble(text: str) -> str:
    """Remove the break markers: the run-time value of a corpus string."""
    return text.replace(BREAK, "")


# Base identifiers, assembled from pieces so the source text never holds them.
BASE: dict[str, tuple[str, set[str], set[str]]] = {
    # name: (value, contract codes, repository codes)
    "email": ("jane.roe" + "@" + "corp-mail.co.uk", {EMAIL}, {EMAIL}),
    "phone_e164": ("+44" + "7911" + "123456", {PHONE}, {PHONE}),
    "phone_us": ("(713) " + "555-" + "2368", {PHONE}, {PHONE}),
    "ssn": ("219-" + "09-" + "9999", {SSN}, {SSN}),
    "home": ("/ho" + "me/" + "jroe/notes.txt", {PERSONAL}, {PERSONAL}),
    "windows_home": ("C:" + "\\Us" + "ers\\" + "jroe\\Desktop", {PERSONAL}, {PERSONAL}),
}


def _every_char(fmt: Callable[[str], str]) -> Callable[[str], str]:
    return lambda text: "".join(fmt(char) for char in text)


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _percent(text: str) -> str:
    return "".join("%{:02X}".format(b) for b in text.encode("utf-8"))


def _base64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _wrapped(token: str, width: int) -> str:
    return "\n".join(token[i:i + width] for i in range(0, len(token), width))


def _base64url_nopad(text: str) -> str:
    return base64.urlsafe_b64encode(("to: " + text).encode("utf-8")).decode("ascii").rstrip("=")


def _qp(text: str) -> str:
    return "".join("={:02X}".format(b) for b in text.encode("utf-8"))


_LOOKALIKE = str.maketrans({"/": "\u2215", "-": "\u2011", ".": "\u2024", " ": "\u00a0", "@": "\ufe6b",
                            "\\": "\u2216", ":": "\u2236"})
_ARABIC_DIGITS = str.maketrans({str(d): chr(0x0660 + d) for d in range(10)})
_DEVANAGARI_DIGITS = str.maketrans({str(d): chr(0x0966 + d) for d in range(10)})



def _shift(letters: dict[str, int], digits: dict[str, int]) -> Callable[[str], str]:
    """Map a-z / A-Z / 0-9 to consecutive code points starting at the given bases (a key missing: unchanged)."""
    def encode(text: str) -> str:
        out = []
        for char in text:
            if "a" <= char <= "z" and "a" in letters:
                out.append(chr(letters["a"] + ord(char) - ord("a")))
            elif "A" <= char <= "Z" and "A" in letters:
                out.append(chr(letters["A"] + ord(char) - ord("A")))
            elif "1" <= char <= "9" and "1" in digits:
                out.append(chr(digits["1"] + ord(char) - ord("1")))
            elif char == "0" and "0" in digits:
                out.append(chr(digits["0"]))
            else:
                out.append(char)
        return "".join(out)
    return encode


def _confusable_letters() -> Callable[[str], str]:
    """Each ASCII letter and digit replaced by a look-alike from the UTS #39 data that the old hand-kept
    Cyrillic/Greek map did not have (Cherokee, Lisu, Latin extensions, ...)."""
    from nerb_verify.privacy.confusables_data import SOURCES, TARGETS
    hand = "\u0430\u03b1\u0441\u0435\u043e\u0440\u0455\u0445\u0443\u0456\u0458"
    table: dict[str, str] = {}
    for source, char in zip(SOURCES, TARGETS):
        if char.isalnum() and char not in table and source not in hand:
            table[char] = source
    return lambda text: "".join(table.get(char, char) for char in text)


def _ascii85(text: str) -> str:
    return base64.a85encode(text.encode("utf-8")).decode("ascii")


def _uu_block(text: str) -> str:
    return "begin 644 notes.txt\n" + binascii.b2a_uu(text.encode("utf-8")).decode("ascii") + "`\nend\n"


_CJK_DIGITS = str.maketrans({str(d): "\u3007\u4e00\u4e8c\u4e09\u56db\u4e94\u516d\u4e03\u516b\u4e5d"[d]
                             for d in range(10)})

def _char_codes(separator: str, number: Callable[[int], str] = str, utf8: bool = False) -> Callable[[str], str]:
    """Every character's code (or every UTF-8 byte's, ``utf8``) written with ``number``, joined by ``separator``."""
    def encode(text: str) -> str:
        codes = list(text.encode("utf-8")) if utf8 else [ord(char) for char in text]
        return separator.join(number(code) for code in codes)
    return encode


ENCODERS: dict[str, Callable[[str], str]] = {
    "plain": lambda t: t,
    "fullwidth": _fullwidth,
    "percent": _percent,
    "percent_twice": lambda t: _percent(_percent(t)),
    "percent_u": _every_char(lambda c: "%u{:04X}".format(ord(c))),
    "html_decimal": _every_char(lambda c: "&#{};".format(ord(c))),
    "html_hex": _every_char(lambda c: "&#x{:x};".format(ord(c))),
    "html_then_percent": lambda t: _percent("".join("&#{};".format(ord(c)) for c in t)),
    "quoted_printable": _qp,
    "json_u": _every_char(lambda c: "\\u{:04x}".format(ord(c))),
    "python_x": _every_char(lambda c: "\\x{:02x}".format(ord(c)) if ord(c) < 256 else c),
    "c_octal": _every_char(lambda c: "\\{:03o}".format(ord(c)) if ord(c) < 256 else c),
    "zero_width": lambda t: "\u200b".join(t),
    "unicode_tags": _every_char(lambda c: chr(0xE0000 + ord(c)) if " " <= c <= "~" else c),
    "soft_hyphen_joiner": lambda t: "".join(c + ("\u00ad" if i % 2 else "\u2060") for i, c in enumerate(t)),
    "combining_marks": lambda t: "".join(c + "\u0332" for c in t),
    "lookalikes": lambda t: t.translate(_LOOKALIKE),
    # Issue 17 class 2: enclosed and parenthesised letters and digits, numerals, mathematical alphanumerics, UTS #39
    # confusables.
    "circled": _shift({"a": 0x24D0, "A": 0x24B6}, {"1": 0x2460, "0": 0x24EA}),
    "parenthesised": _shift({"a": 0x249C}, {"1": 0x2474}),
    "digit_full_stop": _shift({}, {"1": 0x2488, "0": 0x1F100}),
    "negative_circled": _shift({"a": 0x1F150, "A": 0x1F150}, {"1": 0x2776, "0": 0x24FF}),
    "negative_squared_letters": _shift({"a": 0x1F170, "A": 0x1F170}, {}),
    "math_bold": _shift({"a": 0x1D41A, "A": 0x1D400}, {"1": 0x1D7CF, "0": 0x1D7CE}),
    "math_double_struck": _shift({"a": 0x1D552}, {"1": 0x1D7D9, "0": 0x1D7D8}),
    "roman_numerals": _shift({}, {"1": 0x2160}),
    "cjk_numerals": lambda t: t.translate(_CJK_DIGITS),
    # Session 21: character codes written as a list of numbers (String.fromCharCode, a C byte array, od -b), and
    # CSS escapes of every character.
    "char_codes_decimal": _char_codes(","),
    "char_codes_js": lambda t: "String.fromCharCode(" + _char_codes(", ")(t) + ")",
    "char_codes_c_array": lambda t: "{\n    " + _char_codes(",\n    ", "0x{:02x}".format, utf8=True)(t) + "\n};",
    "char_codes_octal_bytes": _char_codes(" ", "{:03o}".format, utf8=True),
    "char_codes_semicolons": _char_codes("; "),
    "char_codes_tabs": _char_codes("\t"),
    "css_escapes": _every_char(lambda c: "\\{:x} ".format(ord(c))),
    "confusables_uts39": _confusable_letters(),
    "arabic_digits": lambda t: t.translate(_ARABIC_DIGITS),
    "devanagari_digits": lambda t: t.translate(_DEVANAGARI_DIGITS),
    "url_query": lambda t: "https://redirect.example.org/go?next=" + urllib.parse.quote(t, safe="") + "&x=1",
    "url_fragment": lambda t: "see https://docs.example.org/page#" + urllib.parse.quote(t, safe="/"),
    "base64": _base64,
    "base64url_nopad": _base64url_nopad,
    "base64_twice": lambda t: _base64(_base64(t)),
    "base64_mime_word": lambda t: "Reply-To: =?utf-8?B?" + _base64(t) + "?=",
    "base64_in_url_query": lambda t: "https://track.example.org/c?d=" + urllib.parse.quote(_base64(t), safe=""),
    "base64_as_query_value": lambda t: "token=" + _base64(t),
    "base64_misaligned": lambda t: "Xq" + _base64(t),
    # Session 14: a short suffix glued on after an underscore or a hyphen; groups of four with spaces or hyphens.
    "base64_glued_suffix": lambda t: _base64(t).rstrip("=") + "_v2",
    "base64_glued_word": lambda t: _base64(t).rstrip("=") + "-final",
    "base64_groups_of_four": lambda t: " ".join(_base64(t)[i:i + 4] for i in range(0, len(_base64(t)), 4)),
    "base64_hyphen_groups": lambda t: "-".join(_base64(t)[i:i + 4] for i in range(0, len(_base64(t)), 4)),
    "base64_with_crlf": lambda t: base64.b64encode((t + "\r\n").encode("utf-8")).decode("ascii"),
    "base64_utf16le": lambda t: base64.b64encode(t.encode("utf-16-le")).decode("ascii"),
    "base64_mime_wrapped": lambda t: _wrapped(_base64("note: " + t), 16),
    "base64_gzip": lambda t: base64.b64encode(gzip.compress(t.encode("utf-8"), mtime=0)).decode("ascii"),
    "base64_zlib": lambda t: base64.b64encode(zlib.compress(t.encode("utf-8"))).decode("ascii"),
    "hex_zlib": lambda t: zlib.compress(t.encode("utf-8")).hex(),
    # Session 15: text glued after a token's padding.
    "base64_glued_after_padding": lambda t: (_base64(t) if _base64(t).endswith("=") else _base64(t + " ")) + "x",
    "base64_extra_padding": lambda t: (_base64(t) if _base64(t).endswith("=") else _base64(t + " ")) + "==",
    # Session 15: UTF-7 (RFC 2152), the whole text in one shift sequence, or only its at-sign, slashes and digits.
    "utf7_whole": lambda t: "+" + base64.b64encode(t.encode("utf-16-be")).decode("ascii").rstrip("=") + "-",
    "utf7_specials": lambda t: "".join(
        "+" + base64.b64encode(c.encode("utf-16-be")).decode("ascii").rstrip("=") + "-" if c in "@/\\0123456789"
        else "+-" if c == "+" else c for c in t),
    "base32": lambda t: base64.b32encode(t.encode("utf-8")).decode("ascii"),
    "base32_lower_nopad": lambda t: base64.b32encode(("to: " + t).encode("utf-8")).decode("ascii").lower().rstrip("="),
    "hex_space_separated": lambda t: " ".join(f"{b:02x}" for b in t.encode("utf-8")),
    "hex_odd_digit_after": lambda t: t.encode("utf-8").hex() + "7",
    "hex_odd_digit_before": lambda t: "c" + t.encode("utf-8").hex(),
    "hex_colon_separated": lambda t: ":".join(f"{b:02X}" for b in t.encode("utf-8")),
    "hex": lambda t: t.encode("utf-8").hex(),
    "hex_0x_upper": lambda t: "0x" + t.encode("utf-8").hex().upper(),
    "url_nested": lambda t: "https://a.example.org/?u=" + urllib.parse.quote(
        "https://b.example.org/?v=" + urllib.parse.quote(t, safe=""), safe=""),
    # Issue 17 class 5: base64 of UTF-16 (both byte orders, with and without a byte order mark) and UTF-32, base85 and
    # ascii85, uuencode, reversed base64 and nested payloads. ("Xq" glued in front keeps a token that starts with a
    # slash from reading as an absolute path to the contract profile, and tests the alignments.)
    "base64_utf16be": lambda t: base64.b64encode(t.encode("utf-16-be")).decode("ascii"),
    "base64_utf16le_bom": lambda t: "Xq" + base64.b64encode(b"\xff\xfe" + t.encode("utf-16-le")).decode("ascii"),
    "base64_utf16be_bom": lambda t: "Xq" + base64.b64encode(b"\xfe\xff" + t.encode("utf-16-be")).decode("ascii"),
    "base64_utf32be": lambda t: base64.b64encode(t.encode("utf-32-be")).decode("ascii"),
    "base64_utf32_bom": lambda t: "Xq" + base64.b64encode(t.encode("utf-32")).decode("ascii"),
    "hex_utf16be": lambda t: t.encode("utf-16-be").hex(),
    "ascii85": _ascii85,
    "ascii85_adobe_wrapped": lambda t: base64.a85encode(t.encode("utf-8"), adobe=True, wrapcol=16).decode("ascii"),
    "ascii85_glued": lambda t: "key:" + _ascii85(t),
    "ascii85_in_url_query": lambda t: "https://track.example.org/c?d=" + urllib.parse.quote(_ascii85(t), safe=""),
    "base85": lambda t: base64.b85encode(t.encode("utf-8")).decode("ascii"),
    "base85_glued": lambda t: "blob=" + base64.b85encode(("to: " + t).encode("utf-8")).decode("ascii"),
    "uuencode_block": _uu_block,
    "uuencode_token": lambda t: "payload " + binascii.b2a_uu(t.encode("utf-8"), backtick=True).decode("ascii").strip()
    + " end",
    "base64_reversed": lambda t: _base64(t)[::-1],
    "base64_reversed_misaligned": lambda t: _base64("to: " + t)[::-1] + "Xq",
    "base64_of_ascii85": lambda t: _base64(_ascii85(t)),
    "uuencode_of_base64": lambda t: binascii.b2a_uu(_base64(t).encode("ascii")).decode("ascii"),
    "reversed_base64_of_ascii85": lambda t: _base64(_ascii85(t))[::-1],
}

# Rows: (id, text (with break markers), contract codes, repository codes).
Row = tuple[str, str, set[str], set[str]]


# Encodings that change what a base means: negative circled and squared letters exist only as capitals, and a POSIX
# home folder written in capitals (/HOME/...) is some other absolute path.
_OVERRIDES: dict[tuple[str, str], tuple[set[str], set[str]]] = {
    ("home", "negative_circled"): ({LOCAL}, set()),
    ("home", "negative_squared_letters"): ({LOCAL}, set()),
    # Session 21: the contract profile reads these lists of numbers themselves as phone numbers too (groups of digits
    # with one separator throughout), as it reads any such list; what they spell is found as well.
    ("email", "char_codes_semicolons"): ({EMAIL, PHONE}, {EMAIL}),
    ("email", "char_codes_tabs"): ({EMAIL, PHONE}, {EMAIL, PHONE}),
    ("ssn", "char_codes_octal_bytes"): ({SSN, PHONE}, {SSN}),
    ("home", "char_codes_octal_bytes"): ({PERSONAL, PHONE}, {PERSONAL}),
}
# The ascii85 and uuencode alphabets hold the at-sign: where the encoded text itself has one, the contract profile
# rejects it anywhere (as it would any at-sign), on top of what the payload decodes to.
for _base, _encoders in (("phone_e164", ("uuencode_block", "uuencode_token")),
                         ("phone_us", ("uuencode_block", "uuencode_token")),
                         ("ssn", ("ascii85", "ascii85_adobe_wrapped", "ascii85_glued", "ascii85_in_url_query")),
                         ("home", ("ascii85", "ascii85_adobe_wrapped", "ascii85_glued", "ascii85_in_url_query"))):
    for _encoder in _encoders:
        _OVERRIDES[(_base, _encoder)] = (BASE[_base][1] | {AT}, BASE[_base][2])


def _encoded_rows() -> list[Row]:
    rows: list[Row] = []
    for base_name, (value, contract, repository) in BASE.items():
        for encoder_name, encoder in ENCODERS.items():
            expected = _OVERRIDES.get((base_name, encoder_name), (contract, repository))
            rows.append((f"{base_name}~{encoder_name}", encoder(value), *expected))
    return rows


_HEX64 = "0123456789abcdef" * 4

HAND_REJECT: list[Row] = [
    # E-mail and at-signs.
    ("email-spelled", "jane (at«») corp-mail (dot) com", {EMAIL}, {EMAIL}),
    ("email-spelled-brackets", "jane[at«»]corp-mail[dot]org", {EMAIL}, {EMAIL}),
    ("email-spelled-bracket-dot", "jane[at«»]corp-mail[.]org", {EMAIL}, {EMAIL}),
    ("email-spelled-plain", "jane.roe at«» corp-mail dot co dot uk", {EMAIL}, set()),
    ("email-spelled-plain-upper", "JANE AT«» CORP-MAIL DOT COM", {EMAIL}, set()),
    ("email-spelled-underscores", "jane_at«»_corp-mail_dot_org", {EMAIL}, set()),
    ("email-spelled-period", "jane at«» corp-mail period com", {EMAIL}, set()),
    ("email-named-entity", "jane&commat«»;corp-mail.org", {EMAIL}, {EMAIL}),
    ("email-python-named", "jane\\N«»{COMMERCIAL AT}corp-mail.org", {EMAIL}, {EMAIL}),
    ("email-backslash-at", "jane\\«»@corp-mail.org", {EMAIL}, {EMAIL}),
    ("email-small-at", "jane\ufe6b«»corp-mail.org", {EMAIL}, {EMAIL}),
    ("email-ignorable-in-escape", "jane%4«»\u20620corp-mail.org", {EMAIL}, {EMAIL}),
    ("email-html-to-percent", "jane&#37;«»40corp-mail.org", {EMAIL}, {EMAIL}),
    ("email-in-url-userinfo", "https://jane«»@corp-mail.org/x", {EMAIL}, {EMAIL}),
    ("email-in-url-path", "https://example.org/u/jane«»@corp-mail.org", {EMAIL}, {EMAIL}),
    ("email-qp-single-escape", "jane=«»40corp-mail.co.uk", {EMAIL}, {EMAIL}),
    ("email-eight-percent-layers", "jane%«»" + "25" * 7 + "40corp-mail.org", {EMAIL}, {EMAIL}),
    ("at-any", "meet @«» noon", {AT}, set()),
    ("at-fullwidth-alone", "\uff20«»", {AT}, set()),
    ("at-decorator-in-evidence", "@«»pytest.fixture", {AT}, set()),
    # ROT13 and reversed text keep the at-sign and the shape of an address.
    ("email-rot13", codecs.encode("jane.roe" + chr(64) + "corp-mail.co.uk", "rot13"), {EMAIL}, {EMAIL}),
    ("email-reversed", ("jane.roe" + chr(64) + "corp-mail.co.uk")[::-1], {EMAIL}, {EMAIL}),
    # A bare name@host (no dotted domain) is weak in a decoded payload, unless it is the whole payload.
    ("at-bare-address-in-base64", _base64("jroe" + chr(64) + "mailhost"), {AT}, set()),
    ("at-bare-address-in-base32", base64.b32encode(("jroe" + chr(64) + "mailhost").encode()).decode(), {AT}, set()),
    ("at-escaped-alone", "100%«»40", {AT}, set()),
    ("at-reserved-domain", "x@«»example.com", {EMAIL}, set()),
    ("doc-id", "doc_«»" + _HEX64, {DOC}, set()),
    # SSN shapes.
    ("ssn-dots", "219.«»09.9999", {SSN}, {SSN}),
    ("ssn-slashes", "219/«»09/9999", {SSN}, {SSN}),
    ("ssn-underscores", "219_«»09_9999", {SSN}, {SSN}),
    ("ssn-spaced-hyphens", "219 - «»09 - 9999", {SSN}, {SSN}),
    ("ssn-tabs", "219\t«»09\t9999", {SSN}, {SSN}),
    ("ssn-newlines", "219\n«»09\n9999", {SSN}, {SSN}),
    ("ssn-nul", "219\x00«»09\x009999", {SSN}, {SSN}),
    ("ssn-context", "SSN: 2190«»99999", {SSN}, {SSN}),
    ("ssn-context-words", "social security number 2190«»99999", {SSN}, {SSN}),
    ("ssn-unissuable-area", "000-«»12-3456", {SSN}, set()),
    # Phone shapes.
    ("phone-formatted-intl", "+44 «»7911 123456", {PHONE}, {PHONE}),
    ("phone-padded", "+44 7911 «»123456 9999", {PHONE}, {PHONE}),
    ("phone-double-zero", "0044«»7911123456", {PHONE}, {PHONE}),
    ("phone-double-zero-spaced", "00 44 «»7911 123456", {PHONE}, {PHONE}),
    ("phone-uk-national", "020 «»7946 0958", {PHONE}, {PHONE}),
    ("phone-fr-pairs", "06 12 «»34 56 78", {PHONE}, {PHONE}),
    ("phone-us-dots", "713.«»555.2368", {PHONE}, {PHONE}),
    ("phone-us-slashes", "713/«»555/2368", {PHONE}, {PHONE}),
    ("phone-us-one", "1-713-«»555-2368", {PHONE}, {PHONE}),
    ("phone-middle-dot", "713\u00b7«»555\u00b72368", {PHONE}, {PHONE}),
    ("phone-hyphen-bullet", "713\u2043«»555\u20432368", {PHONE}, {PHONE}),
    ("phone-line-separator", "713\u2028«»555\u20282368", {PHONE}, {PHONE}),
    ("phone-glued-context", "tel71355«»52368", {PHONE}, {PHONE}),
    ("phone-context-spaced", "phone: 713«»5552368", {PHONE}, {PHONE}),
    ("phone-compact", "713«»5552368", {PHONE}, set()),
    ("phone-fictional", "(713) «»555-0123", {PHONE}, set()),
    ("phone-in-url-path", "https://example.org/c/713«»5552368", {PHONE}, {PHONE}),
    # Issue 17 class 4: separators and formats. Every separator (tilde, colon, plus, line break, spaced double
    # hyphen, brackets), one digit at a time, and international formats.
    ("phone-tilde", "713~«»555~2368", {PHONE}, {PHONE}),
    ("phone-colon", "713:«»555:2368", {PHONE}, {PHONE}),
    ("phone-plus-separator", "713+«»555+2368", {PHONE}, {PHONE}),
    ("phone-newline", "713\n«»555\n2368", {PHONE}, {PHONE}),
    ("phone-crlf", "call me\r\n713\r\n«»555\r\n2368", {PHONE}, {PHONE}),
    ("phone-double-hyphen", "713 -- «»555 -- 2368", {PHONE}, {PHONE}),
    ("phone-square-brackets", "[713] «»555-2368", {PHONE}, {PHONE}),
    ("phone-bracketed-groups", "(713)(«»555)(2368)", {PHONE}, {PHONE}),
    ("phone-one-digit-spacing", "7 1 3 «»5 5 5 2 3 6 8", {PHONE}, {PHONE}),
    ("phone-one-digit-dots", "4.4.7.9.1.1.«»1.2.3.4.5.6", {PHONE}, set()),
    ("phone-plus-parenthesised-cc", "+(44) «»7911 123456", {PHONE}, {PHONE}),
    ("phone-trunk-zero-in-parens", "+44 (0) «»7911 123456", {PHONE}, {PHONE}),
    ("phone-trunk-zero-national", "(0)20 «»7946 0958", {PHONE}, {PHONE}),
    ("phone-trunk-parenthesised", "(020) «»7946 0958", {PHONE}, {PHONE}),
    ("phone-011-prefix", "011 44 «»7911 123456", {PHONE}, {PHONE}),
    ("phone-011-compact", "01144«»7911123456", {PHONE}, {PHONE}),
    ("phone-3-3-2-2", "079 «»123 45 67", {PHONE}, {PHONE}),
    ("phone-3-3-2-2-dots", "079.«»123.45.67", {PHONE}, {PHONE}),
    ("phone-3-2-2-3", "(612) «»34 56 789", {PHONE}, {PHONE}),
    ("phone-pairs-colon", "06:12:«»34:56:78", {PHONE}, {PHONE}),
    ("phone-e164-bare-uk", "447911«»123456", {PHONE}, set()),
    ("phone-e164-bare-de", "to 491711«»234567 today", {PHONE}, set()),
    ("ssn-tilde", "219~«»09~9999", {SSN}, {SSN}),
    ("ssn-colon", "219:«»09:9999", {SSN}, {SSN}),
    ("ssn-plus", "219+«»09+9999", {SSN}, {SSN}),
    ("ssn-double-hyphen", "219 -- «»09 -- 9999", {SSN}, {SSN}),
    ("ssn-brackets", "[219]«»[09][9999]", {SSN}, {SSN}),
    ("ssn-crlf", "219\r\n«»09\r\n9999", {SSN}, {SSN}),
    ("ssn-one-digit-spacing", "2 1 9 «»0 9 9 9 9 9", {SSN}, {SSN}),
    ("ssn-one-digit-hyphens", "2-1-9-«»0-9-9-9-9-9", {SSN}, {SSN}),
    # Issue 17 class 5 (part): ROT13 of a spelled-out address ("at" reads "ng", "dot" reads "qbg").
    ("email-rot13-spelled", codecs.encode("jane.roe at«» corp-mail dot co dot uk", "rot13"), {EMAIL}, set()),
    ("email-rot13-spelled-bracketed", codecs.encode("jane (at«») corp-mail (dot) com", "rot13"), {EMAIL}, {EMAIL}),
    # Issue 17 class 6: compact forms after a parenthesised area code, the letter O for zero, phone shapes in a
    # URL's path or query (also in the repository profile).
    ("phone-parens-compact", "(713)«»5552368", {PHONE}, {PHONE}),
    ("phone-parens-compact-fictional", "(713)«»5550123", {PHONE}, set()),
    ("phone-letter-o", "(713) «»555-O368", {PHONE}, {PHONE}),
    ("phone-letter-o-lower-intl", "+44 «»79o1 123456", {PHONE}, {PHONE}),
    ("ssn-letter-o", "219-«»O9-9999", {SSN}, {SSN}),
    # Session 15: a capital I or a small l for a one.
    ("phone-letter-small-l", "(713) «»382-l234", {PHONE}, {PHONE}),
    ("phone-letter-capital-i", "713-«»382-I234", {PHONE}, {PHONE}),
    ("phone-letters-mixed-intl", "+44 «»79l1 I23456", {PHONE}, {PHONE}),
    ("ssn-letter-capital-i", "219-«»I9-9999", {SSN}, {SSN}),
    ("phone-in-url-query", "https://example.org/c?n=713«»5552368&x=1", {PHONE}, {PHONE}),
    ("phone-in-url-query-encoded", "https://example.org/c?n=%2B1713«»5552368", {PHONE}, {PHONE}),
    ("phone-in-url-path-segment", "https://example.org/u/1713«»5552368/profile", {PHONE}, {PHONE}),
    # Paths.
    ("path-users-mac", "/Us«»ers/jroe/Library", {PERSONAL}, {PERSONAL}),
    # Latin look-alike letters from other scripts (a Cyrillic o, a Cyrillic dze for s, Greek capitals).
    ("path-home-cyrillic-o", "/h\u043e«»me/jroe/notes", {PERSONAL}, {PERSONAL}),
    ("path-users-cyrillic-dze", "C:\\U\u0455«»ers\\jroe\\Desktop", {PERSONAL}, {PERSONAL}),
    ("email-greek-capital-domain", "JANE" + chr(64) + "\u039a\u039f«»\u03a1\u03a1.\u039f\u03a1\u0393".replace("\u0393", "G"),
     {EMAIL}, {EMAIL}),
    ("path-users-relative", "Us«»ers/jroe/Documents", {PERSONAL}, {PERSONAL}),
    ("path-users-relative-backslash", "Us«»ers\\jroe\\Documents", {PERSONAL}, {PERSONAL}),
    ("path-windows-forward", "C:/Us«»ers/jroe", {PERSONAL}, {PERSONAL}),
    ("path-root-home", "/ro«»ot/.ssh", {PERSONAL}, {PERSONAL}),
    ("path-var-home", "/var/ho«»me/jroe", {PERSONAL}, {PERSONAL}),
    ("path-wsl", "/mnt/c/Us«»ers/jroe", {PERSONAL}, {PERSONAL}),
    ("path-tilde-user", "~jroe«»/notes", {PERSONAL}, {PERSONAL}),
    ("path-division-slash", "\u2215ho«»me\u2215jroe", {PERSONAL}, {PERSONAL}),
    ("path-fraction-slash", "\u2044ho«»me\u2044jroe", {PERSONAL}, {PERSONAL}),
    ("path-big-solidus", "\u29f8ho«»me\u29f8jroe", {PERSONAL}, {PERSONAL}),
    ("path-option-home", "-I/ho«»me/jroe/include", {PERSONAL}, {PERSONAL}),
    ("path-unc", "\\\\«»fileserver\\share", {SHARE}, {SHARE}),
    ("path-smb", "sm«»b://fileserver/share", {SHARE}, {SHARE}),
    ("path-file-uri", "fi«»le:///etc/hosts", {FILE_URI}, {FILE_URI}),
    ("path-file-uri-in-url", "https://x.example.org/fi«»le:///etc/hosts", {FILE_URI}, {FILE_URI}),
    ("path-drive-authority", "http://C:«»/Us«»ers/jroe", {PERSONAL}, {PERSONAL}),
    ("path-drive-authority-backslash", "https://C:«»\\Us«»ers\\jroe", {PERSONAL}, {PERSONAL}),
    ("path-query-payload", "https://example.org/a?next=%2Fho«»me%2Fjroe", {PERSONAL}, {PERSONAL}),
    ("path-fragment-payload", "https://example.org/a#/ho«»me/jroe", {PERSONAL}, {PERSONAL}),
    ("path-file-relative", "fi«»le:notes.txt", {FILE_URI}, set()),
    ("path-tmp", "/t«»mp/out", {LOCAL}, set()),
    ("path-usr-bin", "/u«»sr/bin/env", {LOCAL}, set()),
    ("path-etc", "see /e«»tc/hosts", {LOCAL}, set()),
    ("path-option-attached", "-I/u«»sr/include", {LOCAL}, set()),
    ("path-option-drive", "--outC:«»\\x", {LOCAL}, set()),
    ("path-option-equals", "--out=/t«»mp/x", {LOCAL}, set()),
    ("path-drive-generic", "D:«»\\data\\x", {LOCAL}, set()),
    ("path-rooted-backslash", "\\Win«»dows\\System32", {LOCAL}, set()),
    ("path-tilde-slash", "~«»/notes", {LOCAL}, set()),
    ("path-dollar-home", "$HO«»ME/notes", {LOCAL}, set()),
    ("path-dollar-brace-home", "${HO«»ME}/notes", {LOCAL}, set()),
    ("path-userprofile", "%USER«»PROFILE%\\notes", {LOCAL}, set()),
    ("path-relative-home", "ho«»me/jroe/x", {PERSONAL}, set()),
    ("path-pointer-outside-gate", "/quality/slices/0/«»metrics", {LOCAL}, set()),
    # Spelled-out addresses beyond English (issue 17 class 3): the words for the at-sign and the dot in other
    # languages, quoted "at", "at sign", and a real dot after the spelled at.
    ("email-spelled-es", "juan.perez arroba«» correo punto es", {EMAIL}, set()),
    ("email-spelled-es-upper", "JUAN ARROBA«» CORREO PUNTO COM", {EMAIL}, set()),
    ("email-spelled-fr", "marie arobase«» exemple-mail point fr", {EMAIL}, set()),
    ("email-spelled-de", "hans at«» firma punkt de", {EMAIL}, set()),
    ("email-spelled-de-affe", "hans klammeraffe«» firma punkt de", {EMAIL}, set()),
    ("email-spelled-it", "mario chiocciola«» posta punto it", {EMAIL}, set()),
    ("email-spelled-nl", "piet apenstaartje«» bedrijf punt nl", {EMAIL}, set()),
    ("email-spelled-pl", "jan ma\u0142pa«» poczta kropka pl", {EMAIL}, set()),
    ("email-spelled-ru", "ivan \u0441\u043e\u0431\u0430\u043a\u0430«» pochta "
     "\u0442\u043e\u0447\u043a\u0430 \u0440\u0443", {EMAIL}, set()),
    ("email-spelled-ru-script-tld", "ivan \u0441\u043e\u0431\u0430\u043a\u0430 «»\u043f\u043e\u0447\u0442\u0430 "
     "\u0442\u043e\u0447\u043a\u0430 \u0440\u0444", {EMAIL}, set()),
    ("email-spelled-zh-glued", "wang\u827e\u7279«»corp\u70b9com", {EMAIL}, set()),
    ("email-spelled-ja", "tanaka \u30a2\u30c3\u30c8\u30de\u30fc\u30af«» corp \u30c9\u30c3\u30c8 jp", {EMAIL}, set()),
    ("email-spelled-ko", "kim \uace8\ubc45\uc774«» corp \uc810 kr", {EMAIL}, set()),
    ("email-spelled-quoted-at", "jane \"at«»\" corp-mail dot com", {EMAIL}, set()),
    ("email-spelled-single-quoted-at", "jane 'at«»' corp-mail.org", {EMAIL}, set()),
    ("email-spelled-at-sign", "jane at«» sign corp-mail dot com", {EMAIL}, set()),
    ("email-spelled-at-sign-hyphen", "jane at«»-sign corp-mail.org", {EMAIL}, set()),
    ("email-spelled-real-dot", "jane.roe at«» corp-mail.co.uk", {EMAIL}, set()),
    ("email-spelled-bracketed-es", "jane (arroba«») corp (punto) es", {EMAIL}, {EMAIL}),
    # Session 21: CSS escapes (a backslash, 1-6 hex digits, one optional space), as in a style sheet's content value.
    ("email-css-escape-space", "jane.roe\\«»40 corp-mail.co.uk", {EMAIL}, {EMAIL}),
    ("email-css-escape-six-digits", "jane.roe\\«»000040corp-mail.co.uk", {EMAIL}, {EMAIL}),
    ("email-css-escape-before-non-hex", "jane.roe\\«»40mail-corp.co.uk", {EMAIL}, {EMAIL}),
    ("email-css-escape-every-dot", 'a { content: "jane\\«»2e roe\\40 corp-mail\\2e co\\2e uk" }', {EMAIL}, {EMAIL}),
    ("email-css-escape-every-char", "".join("\\%x " % ord(c) for c in "jane.roe" + chr(64) + "corp-mail.org"),
     {EMAIL}, {EMAIL}),
    ("phone-css-escape-digits", "call \\«»37 \\31 \\33 \\35 55-2368", {PHONE}, {PHONE}),
    ("path-css-escape-slashes", "\\«»2f ho«»me\\2f jroe\\2f notes", {PERSONAL}, {PERSONAL}),
    # Session 21: the English words written in other scripts (Hindi, Arabic, Urdu, Persian, Bengali; Thai glued),
    # and the native Arabic and Persian words for the dot.
    ("email-spelled-hi", "ravi \u090f«»\u091f dakmail \u0921\u0949\u091f in", {EMAIL}, set()),
    ("email-spelled-ar", "omar \u0622«»\u062a barid \u062f\u0648\u062a com", {EMAIL}, set()),
    ("email-spelled-ar-nuqta", "omar \u0622«»\u062a barid \u0646\u0642\u0637\u0629 eg", {EMAIL}, set()),
    ("email-spelled-ur", "ali \u0627\u06cc«»\u0679 dak \u0688\u0627\u0679 pk", {EMAIL}, set()),
    ("email-spelled-fa", "sara \u0627«»\u062a post \u0646\u0642\u0637\u0647 ir", {EMAIL}, set()),
    ("email-spelled-bn", "rahim \u0985\u09cd\u09af\u09be«»\u099f dak \u09a1\u099f com", {EMAIL}, set()),
    ("email-spelled-th-glued", "somchai\u0e41\u0e2d«»\u0e17mail\u0e14\u0e2d\u0e17com", {EMAIL}, set()),
    ("email-spelled-th-dot-word", "somchai\u0e41\u0e2d«»\u0e17mail\u0e08\u0e38\u0e14co\u0e08\u0e38\u0e14th",
     {EMAIL}, set()),
    ("email-spelled-bracketed-ru", "jane [\u0441\u043e\u0431\u0430\u043a\u0430«»] corp "
     "[\u0442\u043e\u0447\u043a\u0430] ru", {EMAIL}, {EMAIL}),
    # Numerals and enclosed letters (issue 17 class 2) mixed in one string, and financial CJK numerals.
    ("ssn-cjk-financial", "\u8d30\u58f9\u7396-«»\u96f6\u7396-\u7396\u7396\u7396\u7396", {SSN}, {SSN}),
    ("phone-mixed-numerals", "(\u2166\u2460\u248a) «»\u4e94\u2784\U0001D7DD-\u2781\u248a\u2475\u2787",
     {PHONE}, {PHONE}),
    ("email-mixed-enclosed", "\u24d9\U0001F130\u24a9\u24ba\u00ad@«»\U0001D41C\u24de\u24ad\u24df.org",
     {EMAIL}, {EMAIL}),
    ("email-math-script-at-small", "\U0001D4BF\U0001D4B6ne\ufe6b«»c\U0001D4C8rp.org", {EMAIL}, {EMAIL}),
    # Issue 17 class 6: parent-directory traversal. Every ".." segment in the contract profile (a path outside the
    # bundle); in the repository profile only one written with an escape or a look-alike (a plain one is a link).
    ("traversal-plain", "..«»/..«»/secrets/key.txt", {TRAVERSAL}, set()),
    ("traversal-backslash", "..«»\\..«»\\secrets", {TRAVERSAL}, set()),
    ("traversal-trailing", "output/run/..«»", {TRAVERSAL}, set()),
    ("traversal-option", "--out..«»/results", {TRAVERSAL}, set()),
    ("traversal-option-equals", "--out=..«»/results", {TRAVERSAL}, set()),
    ("traversal-path-parameter", "static/..«»;/admin", {TRAVERSAL, LOCAL}, set()),
    ("traversal-url-path", "https://example.org/static/..«»/..«»/admin", {TRAVERSAL}, set()),
    ("traversal-in-url-query", "https://example.org/dl?file=..«»/..«»/secrets", {TRAVERSAL}, set()),
    ("traversal-in-base64", _base64("../../secrets/key"), {TRAVERSAL}, set()),
    ("traversal-percent-slash", "..%«»2F..%2Fsecrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-percent-lower", "..%«»2f..%2fsecrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-percent-dots", "%2E%«»2E/secrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-percent-all", "%2e%«»2e%2fsecrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-percent-backslash", "..%«»5Csecrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-double-encoded", "..%«»252F..%252Fsecrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-double-encoded-dots", "%252E%«»252E%252Fsecrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-overlong-2-byte", "%c0%«»ae%c0%ae%c0%afsecrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-overlong-slash", "..%«»c0%afsecrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-overlong-backslash", "..%«»c1%9csecrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-overlong-3-byte", "%e0%«»80%ae%e0%80%ae/secrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-percent-u", "%u002e%«»u002e%u2215secrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-html", "&#46;&«»#46;/secrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-fullwidth", "\uff0e\uff0e«»\uff0fsecrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-escaped-after-plain", "..«»/..%«»2Fsecrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-escaped-in-url-path", "https://example.org/static/..%«»2F..%2Fadmin", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-escaped-in-url-query", "https://example.org/dl?file=..%«»252F..%252Fsecrets", {TRAVERSAL},
     {TRAVERSAL}),
    # Escaped traversal that reaches a home folder: both codes.
    ("traversal-to-home", "..%«»2F..%2Fho«»me%2Fjroe%2Fnotes", {TRAVERSAL, PERSONAL}, {TRAVERSAL, PERSONAL}),
    # Session 20: shapes written to pass a filter that deletes "../" (or "..\\") once: what it leaves is a traversal.
    # Never a relative link, so the repository profile flags them too, as it flags escaped ones.
    ("traversal-evasion-four-dots", "....«»//....«»//secrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-evasion-backslash", "....«»\\\\....«»\\\\secrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-evasion-dot-slash", "...«»/./...«»/./secrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-evasion-mixed", "..../«»\\secrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-evasion-in-path", "static/....«»//admin", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-evasion-url-path", "https://example.org/static/....«»//....«»//admin", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-evasion-url-query", "https://example.org/dl?file=....«»//....«»//secrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-evasion-percent", "....%«»2F%2F....%«»2F%2Fsecrets", {TRAVERSAL}, {TRAVERSAL}),
    ("traversal-evasion-base64", _base64("...." + "//" + "...." + "//etc/key"), {TRAVERSAL}, {TRAVERSAL}),
    # Session 12, from an adversarial probe of the six classes (written anew, not copied from any held-out row).
    # National numbers as written at home, with their trunk 0 or a bracketed area code (contract profile): UK,
    # Germany, India, Brazil, Japan, Australia, the Netherlands; and a bracketed area code before line breaks.
    ("phone-national-gb-mobile", "07911 «»123456", {PHONE}, set()),
    ("phone-national-de", "030 «»90182735", {PHONE}, set()),
    ("phone-national-de-slash", "0151/«»23456789", {PHONE}, set()),
    ("phone-national-de-mobile-split", "01512 «»3456789", {PHONE}, set()),
    ("phone-national-in", "098450 «»12345", {PHONE}, set()),
    ("phone-national-br", "(11) «»98765-4321", {PHONE}, set()),
    ("phone-national-jp", "03-3581-«»4221", {PHONE}, set()),
    ("phone-national-jp-spaces", "03 3581 «»4221", {PHONE}, set()),
    ("phone-national-au", "(02) 9374 «»4000", {PHONE}, set()),
    ("phone-national-nl", "06-«»12345678", {PHONE}, set()),
    ("phone-national-compact", "04123«»45678", {PHONE}, set()),
    ("phone-bracket-then-newlines", "(312)\n«»846\n2093", {PHONE}, set()),
    ("phone-angle-bracket-area", "<415> «»382-7719", {PHONE}, {PHONE}),
    ("phone-curly-bracket-area", "{415} «»382-7719", {PHONE}, {PHONE}),
    # More words that say "phone" before a number ("ph" glued to it; German "Handy").
    ("phone-context-ph-glued", "ph415-«»382-7719", {PHONE}, {PHONE}),
    ("phone-context-handy", "Handy: 0151«»23456789", {PHONE}, {PHONE}),
    # A right-to-left override displays the run after it reversed: the reader sees the identifier.
    ("phone-rtl-override", "\u202e9177-283«»-514\u202c", {PHONE}, {PHONE}),
    ("ssn-rtl-override", "\u202e7822-64«»-135\u202c", {SSN}, {SSN}),
    ("path-rtl-override", "\u202eiksvowokm/em«»oh/\u202c", {PERSONAL}, {PERSONAL}),
    # Spelled-out addresses in more languages, and a quoted "dot".
    ("email-spelled-de-at-zeichen", "lena.hofmann at-Zeichen«» web Punkt de", {EMAIL}, set()),
    ("email-spelled-fi", "mikko.virtanen at-merkki«» elisa piste fi", {EMAIL}, set()),
    ("email-spelled-hu", "kovacs.anna kukac«» freemail pont hu", {EMAIL}, set()),
    ("email-spelled-no", "ola.nordmann kr\u00f8llalfa«» online punktum no", {EMAIL}, set()),
    ("email-spelled-tr-et", "emre.yilmaz et«» hotmail nokta com", {EMAIL}, set()),
    ("email-spelled-uk", ("oksana.k \u0440\u0430\u0432\u043b\u0438\u043a«» ukr "
                          "\u043a\u0440\u0430\u043f\u043a\u0430 net"), {EMAIL}, set()),
    ("email-spelled-he", ("dana.levi \u05e9\u05d8\u05e8\u05d5\u05d3\u05dc«» walla \u05e0\u05e7\u05d5\u05d3\u05d4 co "
                          "\u05e0\u05e7\u05d5\u05d3\u05d4 il"), {EMAIL}, set()),
    ("email-spelled-vi", "nguyen.van.an a c\u00f2ng«» vnn ch\u1ea5m vn", {EMAIL}, set()),
    ("email-spelled-quoted-dot", "harriet.cole at«» btinternet \"dot\" com", {EMAIL}, set()),
    # A quoted-printable at-sign before a domain that starts with a digit.
    ("email-qp-digit-domain", "wei.zhang=«»40163.com", {EMAIL}, {EMAIL}),
    # Session 13: a bracketed letter a for the at-sign (contract profile), and a UNC share written with forward
    # slashes, with a dotless server or a private network's suffix (contract and rendered profiles).
    ("email-bracketed-letter-a", "priya.nair(a«»)rediffmail.com", {EMAIL}, set()),
    ("email-bracketed-letter-a-spaced", "t.okafor [ A «»] yahoo [dot] co [dot] uk", {EMAIL}, set()),
    ("email-bracketed-letter-a-spelled-dot", "m.rossi {a«»} libero punto it", {EMAIL}, set()),
    ("path-unc-forward-slashes", "//«»hr-files01/salaries/2026.xlsx", {SHARE}, set()),
    ("path-unc-forward-slashes-private-suffix", "copied to //nas02.«»corp.internal/scans", {SHARE}, set()),
    # Session 14: a combining mark after a letter (NFKC would compose the two into an accented letter the rules do
    # not read as the plain one), and the precomposed accented letter itself.
    ("path-home-combining-acute", "/ho\u0301«»me/jroe/notes", {PERSONAL}, {PERSONAL}),
    ("path-users-combining-diaeresis", "/U\u0308«»sers/jroe/Library", {PERSONAL}, {PERSONAL}),
    ("path-home-precomposed-accent", "/h\u00f3«»me/jroe/notes", {PERSONAL}, {PERSONAL}),
    ("path-windows-users-combining", "C:\\U\u0301«»sers\\jroe\\Desktop", {PERSONAL}, {PERSONAL}),
    ("email-spelled-at-combining-grave", "priya.nair a\u0300«»t rediffmail dot com", {EMAIL}, set()),
    # Session 14: digit groups split by a character no number rule reads as a separator (the strict profiles read
    # an odd-separator view; the repository profile does not).
    ("phone-semicolons", "call 713;5«»55;0198 after six", {PHONE}, set()),
    ("phone-apostrophes-spaced", "713 ' 5«»55 ' 0198", {PHONE}, set()),
    ("phone-bar-glued", "713|5«»55|0198", {PHONE}, set()),
    ("phone-ampersand-after-bracket", "(713)&5«»55&0198", {PHONE}, set()),
    ("phone-caret-and-bang", "713^5«»55!0198", {PHONE}, set()),
    ("phone-equals-double", "713==5«»55==0198", {PHONE}, set()),
    ("phone-box-drawing", "713\u25005«»55\u25000198", {PHONE}, set()),
    ("phone-white-bullet", "713\u25e65«»55\u25e60198", {PHONE}, set()),
    ("phone-triangular-bullet", "713\u20235«»55\u20230198", {PHONE}, set()),
    ("phone-arabic-full-stop", "713\u06d45«»55\u06d40198", {PHONE}, set()),
    ("phone-international-semicolons", "+44;79«»11;123456", {PHONE}, set()),
    ("phone-pairs-asterisks", "06*12*3«»4*56*78", {PHONE}, set()),
    ("ssn-bars", "219|0«»9|9999", {SSN}, set()),
    ("ssn-quotes", '219"0«»9"9999', {SSN}, set()),
    ("ssn-hash-signs", "219#0«»9#9999", {SSN}, set()),
    ("ssn-horizontal-line-extension", "219\u23af0«»9\u23af9999", {SSN}, set()),
    # A number on the next line does not make a phone written on one line a list item.
    ("phone-then-a-number-on-the-next-line", "713 5«»55 2368\n1", {PHONE}, {PHONE}),
    ("phone-after-a-number-on-the-line-before", "12\n(713) 5«»55-2368", {PHONE}, {PHONE}),
    # A query value or fragment that is a path on the site is a URL path: what reads a person in it still counts.
    ("url-query-site-path-home", "https://x.example.org/view?f=/ho«»me/jroe/notes.txt", {PERSONAL}, {PERSONAL}),
    ("url-fragment-site-path-users", "https://x.example.org/#/Us«»ers/jroe/Desktop", {PERSONAL}, {PERSONAL}),
    ("url-query-site-path-traversal", "https://x.example.org/dl?f=/../«»../etc/passwd", {TRAVERSAL}, set()),
    ("url-query-drive", "https://x.example.org/dl?f=C:«»/data/x.csv", {LOCAL}, set()),
    # Spelled-out addresses ending in a newer generic TLD; a circled letter a for the at-sign.
    ("email-spelled-tld-dev", "t.okafor at corp«»mail dot dev", {EMAIL}, set()),
    ("email-spelled-tld-xyz-real-dot", "t.okafor at corp«»mail.xyz", {EMAIL}, set()),
    ("email-spelled-tld-tech", "m.rossi at studio«»rossi dot tech", {EMAIL}, set()),
    ("email-circled-a-glued", "priya.nair\u24d0redi«»ffmail.com", {EMAIL}, set()),
    ("email-circled-capital-a-spaced", "priya.nair \u24b6 redi«»ffmail dot com", {EMAIL}, set()),
    # A home folder written as a shorthand inside a payload (a lone generic path in one is weak; this is not).
    ("home-shorthand-in-base64", _base64("cat ~/.ssh/config"), {LOCAL}, set()),
    ("home-variable-in-base64", _base64("cp $HOME/.aws/credentials ."), {LOCAL}, set()),
    # The hex of a number written with digits only is read when it is a number written out.
    ("phone-hex-decimal-digits-only", ("713555" + "2368").encode().hex(), {PHONE}, set()),
    # Fail closed.
    ("not-converged-percent", "A%«»" + "25" * 9 + "41", {NOT_CONVERGED}, {NOT_CONVERGED}),
    ("not-converged-html", "A&«»" + "amp;" * 9 + "amp;x", {NOT_CONVERGED}, {NOT_CONVERGED}),
    ("too-long", "a" * 16385, {TOO_LONG}, {TOO_LONG}),
    # Issue 17 class 6: text within the budget that NFKC expands past it fails closed with its own code (a ligature
    # of 18 characters, squared katakana words of 6, an entity decoded in one round and expanded in the next).
    ("expanded-after-nfkc", "\ufdfa" * 1000, {EXPANDED}, {EXPANDED}),
    ("expanded-squared-words", "\u3316" * 2800, {EXPANDED}, {EXPANDED}),
    ("expanded-entity-then-nfkc", "&#xFDFA;" * 1000, {EXPANDED}, {EXPANDED}),
    ("expanded-around-an-address", "\ufdfa" * 910 + "jane«»" + chr(64) + "corp-mail.org", {EXPANDED}, {EXPANDED}),
    ("url-too-deep", "https://a.example.org/?u=https://b.example.org/?u=https://c.example.org/?u=https://"
     "d.example.org/?u=https://e.example.org/?u=https://f.example.org/?u=x", {URL_BUDGET}, {URL_BUDGET}),
]

ACCEPT_BOTH: list[str] = [
    # Ellipses next to slashes and Go's package wildcard: no filter-evasion shape (session 20).
    "go test ./...", "go vet ./.../internal", "wait.../ok", "docs/.../index.md", "see .../lib/x", "x = y...// note",
    "and so on...", "a...b/c", "..\n", "i = j....", "[...](./x)",
    "\u041f\u0440\u0438\u0432\u0435\u0442, \u043e\u0442\u0447\u0451\u0442 \u0433\u043e\u0442\u043e\u0432 (2024-05-01).",
    "\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac / \u03ba\u03b5\u03af\u03bc\u03b5\u03bd\u03bf 142 / 1,393",
    "5 / 3", "142 / 1,393", "Plan B: retry", "Vitamin C: 10mg", "urn:x:y", "<b>bold</b>", "</svg>",
    '<path d="M10 10 L20 20"/>', "<br/>", r"\d{3}-\d{2}-\d{4}", r"\bword\b", r"[\w.]+", "[docs](/docs/x)",
    "[docs](https://example.org/docs/x)", "TCP/IP", "07/10/2026", "2026-07-15T09:26:30.373967Z", "corbt/enron-emails",
    "venv/lib/python3.13/site-packages", "src/nerb/enron_contract.py", "./x", "-Lrelative/lib",
    "--out=relative/x", ".nerb/private", "sha256:" + _HEX64, "9b2e4f60-1c1d-4b8e-9a7a-0f5c2d1e3b4a", "97.26%",
    "Research &amp; Development", "1700000000", "4,294,967,296", "id_1234567890", "0.1234567890", "+0.123456789",
    "+1.5 ms", "v1.2.3", "192.168.100.200", "10.0.0.1:8080", "https://example.org/a/b(c)", "n = 40",
    "ratio 3:2 at 10:30", "a -> b", "C++ and C#", "x ~ y", "HEAD~2", "pkg~=1.0", "$PATH", "price $5",
    "https://example.org/path?q=1&r=two#section", "ftp://ftp.example.org/pub",
    "https://a.example.org/?u=https://b.example.org/?u=https://c.example.org/?u=https://d.example.org/?q=1",
    "Known-bank contract evidence: PASS.", "13,201 / 13,201", "0.699 ms (143,057.2 documents/s)",
    "scale_100000_canonical_bank", "compare_scale_100000_direct_vs_control_scale_100000_direct_p99_seconds",
    "home page", "Users guide",
    "https://github.com/johnnygreco/nerb/blob/main/docs/enron-benchmark.md#artifact-contract", "",
    "id=40a0b1c2d3e4f5a6b7c8d9", "sha256:009413140403d0216b8279ae3146a376cf655b099134f9dea8aaab0fdfd868ee",
    "\u00e9t\u00e9 \u0928\u092e\u0938\u094d\u0924\u0947", "ISBN 978-3-16-148410-0", "port 8080 and 8443",
    # binary-to-text tokens that are not hidden identifiers: decoded benign text, digests, ids, long identifiers
    "aGVsbG8gd29ybGQsIG5vdGhpbmcgdG8gc2VlIGhlcmU=", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
    "sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC", "eyJhbGciOiJIUzI1NiJ9",
    "9b2e4f601c1d4b8e9a7a0f5c2d1e3b4a", "bd573361c0ffee00112233445566778899aabbcc",
    "compareScale100000DirectVsControlScale100000Direct", "documents_with_any_cataloged_miss",
    "48656c6c6f2c20776f726c6421", "VGhlIHF1aWNrIGJyb3duIGZveA",
    # A subdivision flag: black flag plus tag letters and a cancel tag (the tags read as the word "gbsct").
    "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F flag",
    "compare at scale dot product", "runs at 5 dot 2", "meet at noon", "seed 404142434445",
    "run 202611291200 and 404142434445464748", "read_at_home_dot_comfort",
    # Ordinary text in other languages with the words for at and dot (issue 17 class 3).
    "la arroba es un s\u00edmbolo muy com\u00fan", "el punto de partida es claro", "c'est un point important",
    "Der Punkt ist klar, wir treffen uns um 10 Uhr", "il punto di vista \u00e8 chiaro",
    "\u043c\u043e\u044f \u0441\u043e\u0431\u0430\u043a\u0430 \u043b\u044e\u0431\u0438\u0442 "
    "\u0433\u0443\u043b\u044f\u0442\u044c, \u0442\u043e\u0447\u043a\u0430",
    "\u6211\u4eec\u8ba8\u8bba\u4e86\u8fd9\u4e00\u70b9", "look at setup.py and README.md",
    "see the chart at section 3.2", "measured at 10.5 ms", "results at scale.product level",
    "an at sign is not allowed", "jan ma\u0142pa kropka", "sent at noon, point taken",
    # Ordinary text with numerals, enclosed characters and other scripts (issue 17 class 2).
    "\u2460 install \u2461 run \u2462 verify", "Chapter \u216b, section \u2476, step \u2489",
    "\u7b2c\u4e00\u7ae0\uff1a\u4e8c\u3007\u4e8c\u56db\u5e74\u5341\u4e8c\u6708\u4e09\u5341\u4e00\u65e5",
    "\u4e09\u6642\u306b\u4f1a\u3044\u307e\u3057\u3087\u3046 (\u5348\u5f8c)",
    "\u0417\u0434\u0440\u0430\u0432\u0441\u0442\u0432\u0443\u0439\u0442\u0435, \u0431\u043e\u0431 "
    "\u0437\u0430\u0432\u0442\u0440\u0430 \u0432 9:30",
    "\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd 2024", "\u0645\u0631\u062d\u0628\u0627 \u0661\u0662\u0663",
    "\U0001D465 + \U0001D466 = \U0001D467, \u00bd + \u00bc", "\U0001F1FA\U0001F1F8 \U0001F1EC\U0001F1E7 team",
    "\u2474 \u2475 \u2476 options", "\u00a9 2026 \u00ae \u2122 \u00b0C 3\u00d74",
    # Numbers that are not phones or SSNs under the issue 17 separators and formats (classes 4 and 6).
    "2026-07-15 09:26:30", "15.07.2026 09:26:30", "07/15/2026 09:26", "2026:07:15:09:26", "12:30:45.123456",
    "10.100.200.30", "192.168.10.200", "v10.200.30.40", "ISBN 978-0-306-40615-7", "ISBN-10 0-306-40615-2",
    "40.7128, -74.0060", "40 42 51 N 74 00 21 W", "1 2 3 4 5 6 7 8 9 0", "0 0 0 0 0 0 0 0 0 0 0 0",
    "9 8 7 6 5 4 3 2 1 0", "1.2.3.4.5", "seed 202611291200", "ns 1113195801125", "id 404142434445",
    "https://example.org/issues/12345678", "https://example.org/v/2026.07.15/x?page=2&size=100",
    "3.14159265358979", "p99 = 0.000123456 s", "HEAD~3..HEAD~1", "x = 100 + 2000", "ratio 1:2:3:4:5",
    "matrix [0, 1, 0, 1, 0, 1, 0, 1, 0, 1]", "Room 101 (Floor 2)", "1O0 items", "boot order: O1, O2",
    "Andrew Ng at Stanford", "ng build --prod", "the NG version ships at noon",
    # Two dots that are not a parent-directory segment (issue 17 class 6).
    "HEAD~3..HEAD~1", "git log main..feature", "range 1..10", "for i in 0..9 {", "wait... ok", "etc.../x",
    "cd ..", "see ... below", "a..b", "v1.2..v1.3", "x = [0..n]",
    # Text that looks like base85, ascii85 or uuencode but is not (issue 17 class 5): punctuation-rich words,
    # operators, ALL-CAPS lines, "begin" in prose and in SQL.
    "Tr0ub4dor&3!correct#horse$battery", "if(a<b&&c>d){return(x+y)*z;}", "x=(a+b)*c-d;y=e%f;z=g^h",
    "R&D;Q&A;P&L;M&A;S&P-500;AT&T", "begin 644 is a file mode, not the start of a block",
    "begin\nthe work\nend", "BEGIN TRANSACTION;\nUPDATE T SET X=1;\nCOMMIT;", "WARNING: DO NOT EDIT THIS FILE",
    "MAX_INFLATED_BYTES = 65536", "M1 M2 M3 M4 M5 M6", "<~ not ascii85 ~>", "a+b=c;d*e=f;g-h=i;j/k=l",
    "the <~ and ~> delimiters", "MIME-Version: 1.0\nContent-Type: text/plain", "1,1d,0K,C^,F3,B9",
    # Session 12: look-alikes of the new national shapes, words and TLDs that are ordinary evidence text.
    "checkpoint saved at step_1000.pt", "weights at model.pt and vocab at tokens.mo", "#/$defs/slice",
    "#/definitions/slice", "Smith et al. 2020", "recall et precision", "at 09:26:30.373967", "01/02/2026 10:30",
    "sizes 256 512 1024 2048 4096", "ticks 0 250 500 750 1000", "0123 456789", "1111 111111",
    "released 2026-07-15, build 0.10.12", "template {0} {1} {2}", "<x>123</x> <y>456</y>", "<td>713</td><td>555</td><td>2368</td>",
    # Text with compatibility characters that stays within the budget after NFKC.
    "\ufdfa" * 100, "\u3316" * 100 + " ok",
    # Session 13: list labels and file names around a bracketed letter a; double slashes that are not shares.
    "option (a) numpy.array", "variant (a) model.pt", "see (a) and (b).", "case (A) v2.0 or (B) v3.1",
    "//cdn.example.org/lib.min.js", "http://mirror.example.org/a//b", "a // comment", "1//2 floor division",
    "https://example.org//double", "s3://bucket//key",
    # Session 14: accented words, composed and with combining marks, are words.
    "cr\u00e8me br\u00fbl\u00e9e at 20:00", "S\u00e3o Paulo 2026-05-01", "Zoe\u0308 and Ren\u00e9e: home page",
    "na\u00efve r\u00e9sum\u00e9 (2 pages)", "Jos\u00e9 M. / Universit\u00e4t Z\u00fcrich",
    # Session 14: odd separators between numbers that are not identifiers: a Markdown table row, thousands, a
    # resolution, ratios, short lists and comparisons.
    "| 256 | 512 | 1024 |", "| 713 | 555 | 0198 |", "1920\u00d71080", "13,201 / 13,201", "a=1;b=2;c=3",
    "p99 <= 0.05; n = 100", "1'234'567 rows", "12;34;56", "x=713; y=55; z=1", "45\u00b030'15\"",
    "v1.2.3;v1.2.4", "3 * 4 = 12",
    # Session 14: whole numbers one per line (a column of counts, a JSON array of batch sizes joined line by line).
    "256\n512\n1024\n2048", "128\n256\n512\n1024\n2048\n4096", "0\n250\n500\n750\n1000",
    "batch sizes:\n  64\n  128\n  256\n  1024\n  4096", "312\r\n455\r\n1290\r\n77",
    # Session 14: routes of a single-page application and redirect targets are paths on the site, not local paths.
    "https://app.example.org/#/dashboard", "https://example.org/login?next=/runs/42",
    "https://example.org/#/settings/profile", "https://example.org/auth?next=%2Fruns%2F42%3Ftab%3Dgates",
    "https://example.org/?redirect=/docs/findings/privacy.html#codes",
    # Session 15: a capital I or a small l next to digits that is no digit run of an identifier.
    "l10n and i18n", "I2C bus 100", "x = 1000000l", "level1 col2 row3", "Model 3I, 2024", "HTML5 l0gin",
    "Ill 1990-2001", "page l2 of 300",
    # Session 15: text that looks like a UTF-7 shift sequence but decodes to no printable ASCII (code, base64, C++).
    "x = a+self.b", "C++ and +AB", "total+ACde", "i+=1; j+AZ9", "ab+/w==", "+Zm9v-bar", "1+2+3=6",
    # Session 14: bundles and project files after "at"; circled letters as list markers and in words.
    # Session 21: backslashes before hex digits that are no CSS escape of an identifier's character: regular
    # expressions, LaTeX, Windows folders, C's octal escapes, a hex digit after the escape.
    r"\begin{document}\bf x", r"be\bad\cafe", r"\040\101", r"\d+\.\d+", r"x\40c", r"\b[a-f\d]{40}\b", r"\1\2",
    r"\e[1;31m red", r"\a\f\b",
    # Session 21: lists of numbers that spell no identifier: counts, pixels, sizes, a greeting, random bytes.
    "72, 101, 108, 108, 111, 33", "sizes = [1, 2, 4, 8, 16, 32, 64, 128]", "0x00, 0x01, 0xff, 0x10, 0x20, 0x30",
    "rgb 255 255 255 0 0 0 128", "{0xde, 0xad, 0xbe, 0xef, 0x00, 0x11}",
    # Session 21: prose holding the new words for the at-sign and the dot, with no address around them.
    "\u090f\u091f \u0939\u094b\u092e \u092a\u0947\u091c",
    "\u0646\u0642\u0637\u0629 \u0627\u0644\u0628\u062f\u0627\u064a\u0629 \u0647\u064a 10",
    "\u0627\u062a \u0646\u0642\u0637\u0647", "\u0e08\u0e38\u0e14\u0e40\u0e23\u0e34\u0e48\u0e21\u0e15\u0e49\u0e19",
    "\u09a1\u099f \u0995\u09ae",
    "look at Xcode.app", "built at qt/demo.pro", "see \u24d0 and \u24d1", "option \u24d0 numpy.array",
    "\u24d9\u24d0\u24dd\u24d4 \u24d3\u24de\u24d4", "step \u24b6: look at the data",
]

ACCEPT_REPOSITORY_ONLY: list[tuple[str, set[str]]] = [
    ("@pytest.fixture", {AT}), ("@types/node", {AT}), ("meet @ noon", {AT}), ("/tmp/out", {LOCAL}),
    ("/usr/bin/env python3", {LOCAL}), ("--out=/tmp/x", {LOCAL}), ("~/.bashrc", {LOCAL}), ("$HOME/.config", {LOCAL}),
    ("C:\\tmp\\x", {LOCAL}), ("the users/admins split", {PERSONAL}), ("home/index.html", {PERSONAL}),
    ("n=40 documents", set()), ("x=2F", set()), ("uv run nerb render --output-dir /tmp/nerb-enron-render", {LOCAL}),
    ("/home/<name>/notes", {LOCAL}), ("/var/log/syslog", {LOCAL}), ("-I/usr/include", {LOCAL}),
    ("ping@example.org", {EMAIL}), ("docs@example.com", {EMAIL}), ("alice@example.test", {EMAIL}),
    ("Call 202-555-0198", {PHONE}), ("+1 212 555 0123", {PHONE}), ("C:\\Users\\Public\\x", {LOCAL}),
    # Relative links and paths with a plain parent-directory segment: ordinary in a repository, outside the bundle in
    # public evidence (issue 17 class 6).
    ("../x", {TRAVERSAL}), ("[contributing](../CONTRIBUTING.md)", {TRAVERSAL}), ("see ../docs/index.md", {TRAVERSAL}),
    ('from ..engine import scan  # "../engine.py"', {TRAVERSAL}), ("docs/findings/../index.md", {TRAVERSAL}),
    ("..\\build\\out", {TRAVERSAL, LOCAL}), ("include(../cmake/x.cmake)", {TRAVERSAL}),
    # Bazel labels and Go build constraints: double-slash names, shares only in public evidence.
    ("//tools/build:rule", {SHARE}), ('deps = ["//third_party/zlib"]', {SHARE}),
]


def rows() -> list[Row]:
    """Every corpus row, with break markers removed: (id, text, contract codes, repository codes)."""
    out: list[Row] = []
    for row_id, text, contract, repository in _encoded_rows() + HAND_REJECT:
        out.append((row_id, assemble(text), contract, repository))
    for index, text in enumerate(ACCEPT_BOTH):
        out.append((f"accept-{index}", text, set(), set()))
    for index, (text, contract) in enumerate(ACCEPT_REPOSITORY_ONLY):
        out.append((f"accept-repository-{index}", text, contract, set()))
    return out
