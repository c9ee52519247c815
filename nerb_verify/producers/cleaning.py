"""Cleaning policy ``nerb-verify.enron-cleaning.v1``: one validated source row becomes one prepared record.

Steps (docs/producers.md has the full policy text, whose sha256 is the public ``cleaning_policy_sha256``):
MIME walk with strict transfer decoding and an allowlist of charsets; HTML to visible text; Unicode normalisation
(NFC, invisible/bidi controls removed, newline and whitespace layout); top-down separation of the current body from
quoted replies, forwards and reply header blocks; signature/footer cut for the core view; RFC 2047 subjects;
casefolded addresses; dates with explicit statuses; stable document identity; grouping features (exact hashes,
message ids, thread subject, participants, SimHash64).

A cleaning failure raises :class:`CleaningError` with a closed, non-echoing code; the caller counts it as the
rejection ``cleaning_<code>``. Nothing here ever prints input text.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import hashlib
import re
import unicodedata
from datetime import datetime, timezone
from email import errors as email_errors
from email.header import decode_header
from email.message import Message
from email.parser import Parser
from email.policy import compat32
from email.utils import getaddresses, parsedate_to_datetime
from html.parser import HTMLParser
from typing import Any

from nerb_verify.producers.sources import canonical_text, domain_hash

POLICY_VERSION = "nerb-verify.enron-cleaning.v1"
BODY_CHAR_LIMIT = 2_500_000
BODY_BYTE_LIMIT = 16 * 1024 * 1024
SUBJECT_CHAR_LIMIT = 4_096
SUBJECT_BYTE_LIMIT = 16 * 1024
RECIPIENT_LIMIT = 2_048
MIME_HEADER_LINES = 64
MIME_HEADER_CHARS = 16_384
MIME_MAX_PARTS = 64
MIME_MAX_DEPTH = 4
MIME_BOUNDARY_CHARS = 70
HTML_MAX_TAGS = 20_000
HTML_MAX_DEPTH = 256
OUTPUT_CHAR_LIMIT = 4 * BODY_CHAR_LIMIT
EMBEDDED_ID_LIMIT = 64
SIMHASH_KEEP = 4_096
ELIGIBLE_START = datetime(1990, 1, 1, tzinfo=timezone.utc)
ELIGIBLE_END = datetime(2011, 1, 1, tzinfo=timezone.utc)

CLEANING_CODES = (
    "invalid_type", "invalid_unicode", "input_char_limit", "input_byte_limit", "output_char_limit",
    "output_byte_limit", "mime_structure", "mime_structure_limit", "mime_transfer_unsupported",
    "mime_transfer_invalid", "mime_charset_unsupported", "mime_charset_invalid", "html_structure_limit",
    "grouping_expansion_limit",
)

ALLOWED_CHARSETS = frozenset({
    "ascii", "utf-8", "latin-1", "iso8859-1", "cp1252", "iso8859-2", "iso8859-3", "iso8859-4", "iso8859-5",
    "iso8859-6", "iso8859-7", "iso8859-8", "iso8859-9", "iso8859-10", "iso8859-13", "iso8859-14", "iso8859-15",
    "iso8859-16", "cp1250", "cp1251", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "cp1258", "koi8-r",
    "koi8-u", "mac-roman", "big5", "gb2312", "gbk", "gb18030", "shift_jis", "euc_jp", "iso2022_jp", "euc_kr",
    "utf-16", "utf-16-le", "utf-16-be",
})

TEXT_VIEWS = ("full_visible_body", "current_body", "subject_current_body", "current_body_core")
VIEW_REGIONS = {
    "full_visible_body": ["full_visible_body"],
    "current_body": ["current_body"],
    "subject_current_body": ["subject", "current_body"],
    "current_body_core": ["current_body_core"],
}
PRIMARY_VIEW = "subject_current_body"


class CleaningError(Exception):
    """A row that cannot be cleaned under the policy; ``code`` is one of :data:`CLEANING_CODES`."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


# ---------------------------------------------------------------- Unicode and layout

def _deletion_table() -> dict[int, None]:
    singles = [0x061C, 0x200E, 0x200F, 0x200B, 0x2060, 0xFEFF, 0x00AD, 0x034F, 0x180E, 0x3164, 0xFFA0]
    ranges = [(0x202A, 0x202E), (0x2066, 0x2069), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
              (0x2060, 0x206F), (0xFE00, 0xFE0F), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
              (0xE0000, 0xE0FFF)]
    table: dict[int, None] = {cp: None for cp in singles}
    for low, high in ranges:
        for cp in range(low, high + 1):
            table[cp] = None
    return table


_DELETE = _deletion_table()
_CONTROL_TO_SPACE = {cp: " " for cp in list(range(32)) + list(range(0x7F, 0xA0)) if cp not in (9, 10)}
_CLEAN_TABLE: dict[int, Any] = {**_CONTROL_TO_SPACE, **_DELETE}
def _class_of(codepoints: Any) -> re.Pattern[str]:
    """A regex character class matching exactly ``codepoints`` (built from runs, for a fast "needs work?" test)."""
    points = sorted(set(codepoints))
    parts = []
    start = prev = points[0]
    for cp in points[1:] + [None]:
        if cp is not None and cp == prev + 1:
            prev = cp
            continue
        parts.append(re.escape(chr(start)) + ("-" + re.escape(chr(prev)) if prev != start else ""))
        if cp is not None:
            start = prev = cp
    return re.compile("[" + "".join(parts) + "]")


_NEEDS_CLEAN = _class_of(_CLEAN_TABLE)
_NEWLINES = re.compile("\r\n|[\r\u0085\u2028\u2029]")
_JOINERS = re.compile(r"(?<=[A-Za-z0-9@._+'\-])[\u200c\u200d]+(?=[A-Za-z0-9@._+'\-])")
_JOINERS_ANY = re.compile("[\u200c\u200d]")
_INLINE_SPACE = re.compile(r"[^\S\n]+")
_BLANK_RUNS = re.compile(r"\n{3,}")


def normalize_text(text: str) -> str:
    """Newlines to LF, NFC, invisible/bidi controls removed, other controls to spaces, tidy line layout."""
    text = _NEWLINES.sub("\n", text)
    text = unicodedata.normalize("NFC", text)
    text = _JOINERS.sub("", text)
    if _NEEDS_CLEAN.search(text):
        text = text.translate(_CLEAN_TABLE)
    lines = [_INLINE_SPACE.sub(" ", line).strip() for line in text.split("\n")]
    text = "\n".join(lines)
    text = _BLANK_RUNS.sub("\n\n", text)
    return text.strip("\n")


def utf8_safe_truncate(text: str, max_chars: int, max_bytes: int) -> tuple[str, bool]:
    """Cut ``text`` to at most ``max_chars`` characters and ``max_bytes`` UTF-8 bytes without splitting a char."""
    truncated = False
    if len(text) > max_chars:
        text, truncated = text[:max_chars], True
    data = text.encode("utf-8", "surrogatepass")
    if len(data) > max_bytes:
        text, truncated = data[:max_bytes].decode("utf-8", "ignore"), True
    return text, truncated


# ---------------------------------------------------------------- HTML

_HTML_TAG = re.compile(
    r"<\s*/?\s*(html|body|head|div|p|br|table|tr|td|th|tbody|span|a|img|input|form|font|b|i|u|strong|em|ul|ol|li|"
    r"h[1-6]|meta|style|script|center|blockquote|hr|pre|title)\b[^<>]{0,2000}>",
    re.IGNORECASE,
)
_BLOCK_TAGS = frozenset({"p", "div", "tr", "table", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6",
                         "blockquote", "pre", "hr", "center", "form", "title", "dl", "dt", "dd", "section",
                         "article", "header", "footer", "address"})
_SKIP_TAGS = frozenset({"head", "script", "style", "template"})
_VOID_TAGS = frozenset({"br", "img", "input", "hr", "meta", "link", "area", "base", "col", "embed", "param",
                        "source", "track", "wbr"})
_NATURAL_ATTRIBUTES = ("alt", "title", "placeholder", "value", "label")


class _VisibleText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip_depth = 0
        self.depth = 0
        self.tags = 0

    def _count(self) -> None:
        self.tags += 1
        if self.tags > HTML_MAX_TAGS or self.depth > HTML_MAX_DEPTH:
            raise CleaningError("html_structure_limit")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._count()
        if tag in _SKIP_TAGS:
            self.skip_depth += 1
            return
        if tag not in _VOID_TAGS:
            self.depth += 1
        if self.skip_depth:
            return
        if tag == "br" or tag in _BLOCK_TAGS:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" ")
        for name, value in attrs:
            if value and (name in _NATURAL_ATTRIBUTES or name.startswith("aria-")) and tag != "meta":
                self.parts.append(" " + value + " ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._count()
        if not self.skip_depth:
            if tag == "br" or tag in _BLOCK_TAGS:
                self.parts.append("\n")
            for name, value in attrs:
                if value and (name in _NATURAL_ATTRIBUTES or name.startswith("aria-")) and tag != "meta":
                    self.parts.append(" " + value + " ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if tag not in _VOID_TAGS:
            self.depth = max(0, self.depth - 1)
        if not self.skip_depth and tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip_depth:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    """Visible text of an HTML document: scripts/styles/head dropped, blocks and <br> as line breaks."""
    parser = _VisibleText()
    parser.feed(markup)
    parser.close()
    return "".join(parser.parts)


def looks_like_html(text: str) -> bool:
    """True when undeclared text carries one of the common HTML tags."""
    return _HTML_TAG.search(text) is not None


# ---------------------------------------------------------------- MIME

_MIME_START = re.compile(r"(?i)^(content-type|mime-version|content-transfer-encoding)\s*:")
_QP_ESCAPE = re.compile(r"=[0-9A-Fa-f]{2}")
_QP_BAD = re.compile(r"=(?![0-9A-Fa-f]{2}|\r?\n|$)", re.MULTILINE)
_STRUCTURE_DEFECTS = (email_errors.StartBoundaryNotFoundDefect, email_errors.CloseBoundaryNotFoundDefect,
                      email_errors.MultipartInvariantViolationDefect, email_errors.NoBoundaryInMultipartDefect)


def _charset(name: str | None, counts: dict[str, int]) -> str:
    if not name:
        return "ascii"
    try:
        normalized = codecs.lookup(name.strip().strip('"')).name
    except (LookupError, ValueError):
        raise CleaningError("mime_charset_unsupported") from None
    if normalized not in ALLOWED_CHARSETS:
        raise CleaningError("mime_charset_unsupported")
    return normalized


def _decode_bytes(data: bytes, charset: str, counts: dict[str, int]) -> str:
    if charset == "ascii":
        try:
            return data.decode("ascii")
        except UnicodeDecodeError:
            counts["ascii_declared_8bit"] = counts.get("ascii_declared_8bit", 0) + 1
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError:
                charset = "cp1252"
    try:
        return data.decode(charset)
    except UnicodeDecodeError:
        raise CleaningError("mime_charset_invalid") from None


def _transfer_decode(payload: str, cte: str, counts: dict[str, int]) -> bytes | str:
    """Bytes of a part after transfer decoding, or ``str`` when the payload already holds decoded text."""
    if cte in ("", "7bit", "8bit", "binary"):
        if max(payload, default="\x00") < "\u0100":
            return payload.encode("latin-1")
        return payload
    if cte == "quoted-printable":
        if _QP_BAD.search(payload):
            raise CleaningError("mime_transfer_invalid")
        counts["quoted_printable_decoded"] = counts.get("quoted_printable_decoded", 0) + 1
        raw = payload.encode("latin-1") if max(payload, default="\x00") < "\u0100" else payload.encode("utf-8")
        raw = re.sub(rb"=\r?\n", b"", raw)
        return re.sub(rb"=([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), raw)
    if cte == "base64":
        compact = "".join(payload.split())
        try:
            data = base64.b64decode(compact.encode("ascii"), validate=True)
        except (binascii.Error, ValueError, UnicodeEncodeError):
            raise CleaningError("mime_transfer_invalid") from None
        counts["base64_decoded"] = counts.get("base64_decoded", 0) + 1
        return data
    raise CleaningError("mime_transfer_unsupported")


def _part_text(part: Message, counts: dict[str, int]) -> str:
    cte = str(part.get("Content-Transfer-Encoding", "")).strip().lower()
    payload = part.get_payload()
    if not isinstance(payload, str):
        raise CleaningError("mime_structure")
    decoded = _transfer_decode(payload, cte, counts)
    charset = _charset(part.get_content_charset(), counts)
    if isinstance(decoded, str):
        text = decoded
    elif cte in ("", "7bit", "8bit", "binary"):
        # an unencoded payload is either bytes carried as Latin-1 code points (raw RFC 5322 input) or text that was
        # already decoded upstream (JSONL rows); decode by the declared charset, else keep the text as it is
        try:
            text = _decode_bytes(decoded, charset, counts)
        except CleaningError:
            counts["charset_text_passthrough"] = counts.get("charset_text_passthrough", 0) + 1
            text = payload
    else:
        text = _decode_bytes(decoded, charset, counts)
    if part.get_content_subtype() == "html":
        counts["html_converted"] = counts.get("html_converted", 0) + 1
        text = html_to_text(text)
    return text


_VISIBLE_NESTED_HEADERS = ("From", "To", "Cc", "Date", "Subject")


def _walk(part: Message, depth: int, state: dict[str, int], counts: dict[str, int]) -> str:
    state["parts"] += 1
    if state["parts"] > MIME_MAX_PARTS or depth > MIME_MAX_DEPTH:
        raise CleaningError("mime_structure_limit")
    if any(isinstance(defect, _STRUCTURE_DEFECTS) for defect in part.defects):
        raise CleaningError("mime_structure")
    ctype = part.get_content_type()
    disposition = str(part.get("Content-Disposition", "")).lower()
    if part.is_multipart():
        boundary = part.get_boundary()
        if ctype.startswith("multipart/") and (not boundary or len(boundary) > MIME_BOUNDARY_CHARS):
            raise CleaningError("mime_structure")
        children = part.get_payload()
        if ctype == "message/rfc822":
            lines = []
            for child in children:
                for name in _VISIBLE_NESTED_HEADERS:
                    if child.get(name) is not None:
                        lines.append(f"{name}: {decode_subject(str(child.get(name)), counts)}")
                lines.append("")
                lines.append(_walk(child, depth + 1, state, counts))
            return "\n".join(lines)
        texts = [_walk(child, depth + 1, state, counts) for child in children]
        if ctype == "multipart/alternative":
            order = {"text/plain": 0, "text/html": 1}
            ranked = sorted(zip(children, texts), key=lambda pair: order.get(pair[0].get_content_type(), 2))
            chosen: list[str] = []
            seen: set[str] = set()
            for _, text in ranked:
                key = normalize_text(text)
                if key and key not in seen:
                    seen.add(key)
                    chosen.append(text)
            texts = chosen
        pieces = []
        if part.preamble and part.preamble.strip():
            pieces.append(part.preamble)
        pieces.extend(text for text in texts if text.strip())
        if part.epilogue and part.epilogue.strip():
            pieces.append(part.epilogue)
        return "\n\n".join(pieces)
    if ctype.startswith("text/") and "attachment" not in disposition and ctype in ("text/plain", "text/html",
                                                                                  "text/enriched", "text/rfc822-headers"):
        return _part_text(part, counts)
    counts["parts_dropped"] = counts.get("parts_dropped", 0) + 1
    return ""


def decode_mime(body: str, counts: dict[str, int]) -> tuple[str, list[str]]:
    """Walk a body that starts with a MIME header block; returns (visible text, header reference ids)."""
    head, _, _ = body.partition("\n\n")
    header_lines = head.split("\n")
    if len(header_lines) > MIME_HEADER_LINES or len(head) > MIME_HEADER_CHARS:
        raise CleaningError("mime_structure_limit")
    message = Parser(policy=compat32).parsestr(body)
    if message.get("Content-Type") is None:
        raise CleaningError("mime_structure")
    references: list[str] = []
    for name in ("In-Reply-To", "References", "Message-ID"):
        for value in message.get_all(name) or []:
            references.extend(_MESSAGE_ID.findall(str(value)))
    counts["mime_decoded"] = counts.get("mime_decoded", 0) + 1
    return _walk(message, 0, {"parts": 0}, counts), references


def maybe_headerless_qp(text: str, counts: dict[str, int]) -> str:
    """Decode quoted-printable text that carries no header, only when it is unambiguous (see policy)."""
    if len(_QP_ESCAPE.findall(text)) < 2 or not re.search(r"=0[AaDd]", text) or _QP_BAD.search(text):
        return text
    try:
        raw = text.encode("latin-1")
    except UnicodeEncodeError:
        return text
    raw = re.sub(rb"=\r?\n", b"", raw)
    raw = re.sub(rb"=([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), raw)
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return text
    counts["headerless_qp_decoded"] = counts.get("headerless_qp_decoded", 0) + 1
    return decoded


def decode_body(body: str, counts: dict[str, int]) -> tuple[str, list[str]]:
    """Full visible body text (before layout normalisation) and any header reference ids found in a MIME block."""
    stripped = body.removeprefix("\ufeff")
    references: list[str] = []
    if _MIME_START.match(stripped):
        text, references = decode_mime(_NEWLINES.sub("\n", stripped), counts)
    else:
        text = maybe_headerless_qp(stripped, counts)
        if looks_like_html(text):
            counts["html_converted"] = counts.get("html_converted", 0) + 1
            text = html_to_text(text)
    return text, references


# ---------------------------------------------------------------- current body, core

_ORIGINAL = re.compile(r"(?i)^-{2,}\s*original message\s*-{2,}$")
_FORWARD = re.compile(r"(?i)^(-{2,}\s*forwarded (by|message)\b.*|begin forwarded message:?|-{2,}\s*forwarded message\s*-{2,})$")
_SEPARATOR = re.compile(r"^[_\-]{8,}$")
_HDR_FROM = re.compile(r"(?i)^from\s*:")
_HDR_DATE = re.compile(r"(?i)^(sent|date)\s*:")
_HDR_TO_SUBJ = re.compile(r"(?i)^(to|subject)\s*:")
_WROTE = re.compile(r"(?i)^on\b.{0,300}\bwrote:$")
_MOBILE = re.compile(r"(?i)^(sent from my (iphone|ipad|android|mobile device|blackberry)\b.*|get outlook for (ios|android)\b.*|"
                     r"sent from mail for windows\b.*)$")
_CONFIDENTIAL = re.compile(r"(?i)^(this (e-?mail|message)( and any attachments)? (is|are|may be) (confidential|privileged|intended)|"
                           r"confidentiality notice\b|\*{0,3}\s*this e-?mail is confidential)")


def _header_block_follows(lines: list[str], start: int) -> bool:
    window = lines[start: start + 11]
    has_from = any(_HDR_FROM.match(line) for line in window)
    has_date = any(_HDR_DATE.match(line) for line in window)
    has_to = any(_HDR_TO_SUBJ.match(line) for line in window)
    return has_from and has_date and has_to


def _header_block_here(lines: list[str], index: int) -> bool:
    """A bare reply header block: a From: line followed within 4 lines by Sent/Date and To/Subject lines."""
    if not _HDR_FROM.match(lines[index]):
        return False
    window = lines[index + 1: index + 5]
    return any(_HDR_DATE.match(line) for line in window) and any(_HDR_TO_SUBJ.match(line) for line in window)


def current_body(full: str, counts: dict[str, int]) -> str:
    """The author's own text: quoted replies, forwards, reply header blocks and ``>`` lines removed (top-down)."""
    lines = full.split("\n")
    kept: list[str] = []
    changed = False
    for index, line in enumerate(lines):
        if _ORIGINAL.match(line) or _FORWARD.match(line):
            counts["quoted_tail_cut"] = counts.get("quoted_tail_cut", 0) + 1
            changed = True
            break
        if _SEPARATOR.match(line) and _header_block_follows(lines, index + 1):
            counts["reply_header_cut"] = counts.get("reply_header_cut", 0) + 1
            changed = True
            break
        if _header_block_here(lines, index):
            counts["reply_header_cut"] = counts.get("reply_header_cut", 0) + 1
            changed = True
            break
        if _WROTE.match(line) or line.startswith(">"):
            counts["quoted_lines_removed"] = counts.get("quoted_lines_removed", 0) + 1
            changed = True
            continue
        kept.append(line)
    text = "\n".join(kept)
    return normalize_text(text) if changed else text


def current_body_core(current: str, counts: dict[str, int]) -> str:
    """``current_body`` without a trailing signature, mobile footer or confidentiality notice."""
    lines = current.split("\n")
    total = len(lines)
    cut = total
    for index in range(max(1, total - 16), total):
        if lines[index] in ("--", "-- ") and index < total - 1:
            cut = min(cut, index)
            break
    for index in range(max(0, total - 30), total):
        if _MOBILE.match(lines[index]) or _CONFIDENTIAL.match(lines[index]):
            cut = min(cut, index)
            break
    if cut == total:
        return current
    counts["signature_cut"] = counts.get("signature_cut", 0) + 1
    return normalize_text("\n".join(lines[:cut]))


# ---------------------------------------------------------------- subject, addresses, dates

def decode_subject(raw: str, counts: dict[str, int]) -> str:
    """RFC 2047 decode (unknown charsets and bad bytes become U+FFFD, counted) and normalise to one line."""
    pieces = []
    try:
        fragments = decode_header(raw)
    except Exception:  # noqa: BLE001 - email.header raises several types on hostile words; keep the raw text
        fragments = [(raw, None)]
    for value, charset in fragments:
        if isinstance(value, bytes):
            name = charset or "ascii"
            try:
                text = value.decode(name if name != "unknown-8bit" else "latin-1", "replace")
            except LookupError:
                text = value.decode("utf-8", "replace")
            replaced = text.count("\ufffd")
            if replaced:
                counts["subject_replacement_chars"] = counts.get("subject_replacement_chars", 0) + replaced
            pieces.append(text)
        else:
            pieces.append(value)
    return " ".join(normalize_text("".join(pieces)).split("\n")).strip()


def parse_addresses(items: list[str] | None, counts: dict[str, int]) -> list[dict[str, str]]:
    """``[{name, address}]`` per header item; addresses casefolded, names decoded; empty entries dropped."""
    result: list[dict[str, str]] = []
    if not items:
        return result
    if len(items) > RECIPIENT_LIMIT:
        counts["recipients_dropped"] = counts.get("recipients_dropped", 0) + len(items) - RECIPIENT_LIMIT
        counts["recipient_values_truncated"] = counts.get("recipient_values_truncated", 0) + 1
        items = items[:RECIPIENT_LIMIT]
    for name, address in getaddresses(items):
        name = decode_subject(name, counts) if name else ""
        address = "".join(normalize_text(address).split()).casefold()
        if name or address:
            result.append({"name": name, "address": address})
    return result


def parse_date(raw: str | None) -> dict[str, Any]:
    """Date status (missing, invalid, ambiguous_timezone, out_of_range, valid), UTC text and eligibility."""
    empty = {"status": "missing", "utc": None, "original_offset_minutes": None, "temporal_eligible": False}
    if raw is None or not raw.strip():
        return empty
    text = raw.strip()
    parsed: datetime | None = None
    try:
        parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        try:
            parsed = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):
            parsed = None
    if parsed is None:
        return {**empty, "status": "invalid"}
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        return {**empty, "status": "ambiguous_timezone"}
    try:
        offset = parsed.utcoffset()
        utc = parsed.astimezone(timezone.utc)
    except (OverflowError, ValueError):
        return {**empty, "status": "out_of_range"}
    offset_minutes = int(offset.total_seconds() // 60) if offset is not None else 0
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ" if utc.microsecond else "%Y-%m-%dT%H:%M:%SZ"
    eligible = ELIGIBLE_START <= utc < ELIGIBLE_END
    return {"status": "valid" if eligible else "out_of_range", "utc": utc.strftime(fmt),
            "original_offset_minutes": offset_minutes, "temporal_eligible": eligible}


# ---------------------------------------------------------------- grouping features

_GROUPING_DELETE = dict(_DELETE)
_GROUPING_DELETE.update({0x200C: None, 0x200D: None})
_NEEDS_GROUPING_CLEAN = _class_of(list(_GROUPING_DELETE) + list(_CONTROL_TO_SPACE))
_WORD = re.compile(r"\w+")
_SUBJECT_PREFIX = re.compile(r"(?i)^\s*((re|fw|fwd)\s*(\[\d+\])?\s*:\s*)+")
_MESSAGE_ID = re.compile(r"<[^<>\s]{1,998}>")
_REF_HEADER = re.compile(r"(?i)^(message-id|in-reply-to|references)\s*:")
_CONTINUATION = re.compile(r"^\s+\S")


def grouping_text(text: str) -> str:
    """Invisible chars removed, controls to space, NFKC, casefold, whitespace collapsed (bounded expansion)."""
    if _NEEDS_GROUPING_CLEAN.search(text):
        text = text.translate(_GROUPING_DELETE).translate(_CONTROL_TO_SPACE)
    folded = unicodedata.normalize("NFKC", text).casefold()
    if len(folded) > 4 * max(1, len(text)):
        raise CleaningError("grouping_expansion_limit")
    return " ".join(folded.split())


def feature_hash(kind: str, value: str) -> str:
    """Private feature hash under ``nerb/enron/private-feature/<kind>/v2``."""
    return domain_hash(f"nerb/enron/private-feature/{kind}/v2", value)


def normalize_message_id(raw: str) -> str:
    """NFC, strip, strip angle brackets, casefold, whitespace removed."""
    text = unicodedata.normalize("NFC", raw).strip().strip("<>").casefold()
    return "".join(text.split())


def thread_subject(subject: str) -> str:
    """Grouping-normalised subject with repeated leading re/fw/fwd prefixes removed."""
    return _SUBJECT_PREFIX.sub("", grouping_text(subject)).strip()


def embedded_message_ids(full: str) -> list[str]:
    """Ids from Message-ID / In-Reply-To / References header lines (continuations included) of the visible body."""
    found: list[str] = []
    active = False
    for line in full.split("\n"):
        if _REF_HEADER.match(line):
            active = True
            found.extend(_MESSAGE_ID.findall(line))
        elif active and _CONTINUATION.match(line):
            found.extend(_MESSAGE_ID.findall(line))
        else:
            active = False
    return found


_MASK64 = (1 << 64) - 1
_SHINGLE_PREFIX = b"nerb/enron/near-shingle/v2\x00"


def simhash64(text: str) -> dict[str, int | str]:
    """SimHash64 of 3-token shingles of the grouping text (4,096 smallest distinct shingle hashes kept)."""
    tokens = _WORD.findall(grouping_text(text))
    if not tokens:
        return {"token_count": 0, "shingle_count": 0, "simhash64": "0" * 16}
    width = min(3, len(tokens))
    sha = hashlib.sha256
    hashes = {int.from_bytes(sha(_SHINGLE_PREFIX + "\x1f".join(tokens[i:i + width]).encode("utf-8")).digest()[:8], "big")
              for i in range(len(tokens) - width + 1)}
    kept = sorted(hashes)[:SIMHASH_KEEP] if len(hashes) > SIMHASH_KEEP else list(hashes)
    # bit-sliced vertical counters: planes[i] holds bit i of each of the 64 per-position counts
    planes: list[int] = []
    for value in kept:
        carry = value
        i = 0
        while carry:
            if i == len(planes):
                planes.append(0)
            plane = planes[i]
            planes[i] = plane ^ carry
            carry &= plane
            i += 1
    # bit-parallel comparison of every count with the majority threshold, most significant plane first
    need = (len(kept) + 1) // 2
    width = max(len(planes), need.bit_length())
    greater, equal = 0, _MASK64
    for i in range(width - 1, -1, -1):
        plane = planes[i] if i < len(planes) else 0
        if (need >> i) & 1:
            equal &= plane
        else:
            greater |= equal & plane
            equal &= ~plane & _MASK64
    result = greater | equal
    return {"token_count": len(tokens), "shingle_count": len(kept), "simhash64": f"{result & _MASK64:016x}"}


# ---------------------------------------------------------------- mailbox

_FOLDER_ROLES = (
    ("sent", {"sent", "sent_items", "sent_mail", "_sent_mail", "sent_messages"}),
    ("inbox", {"inbox", "in", "incoming"}),
    ("deleted", {"deleted", "deleted_items", "trash"}),
    ("draft", {"draft", "drafts"}),
    ("archive", {"archive", "archives", "all_documents", "discussion_threads", "notes_inbox"}),
)
_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def mailbox_of(file_name: str | None) -> dict[str, Any]:
    """Owner hash and folder role from a mailbox path (NFC, ``\\`` as ``/``, at least two clean parts)."""
    if not file_name:
        return {"owner_sha256": None, "folder_role": "unavailable"}
    parts = [part.strip() for part in unicodedata.normalize("NFC", file_name).replace("\\", "/").split("/")]
    parts = [part for part in parts if part and part not in (".", "..")]
    if len(parts) < 2:
        return {"owner_sha256": None, "folder_role": "unavailable"}
    owner_index = 1 if parts[0].casefold() == "maildir" and len(parts) > 2 else 0
    if owner_index >= len(parts) - 1:
        return {"owner_sha256": None, "folder_role": "unavailable"}
    tokens = {_NON_ALNUM.sub("_", part.casefold()).strip("_") for part in parts[owner_index + 1: -1]}
    role = "other"
    for name, names in _FOLDER_ROLES:
        if tokens & names:
            role = name
            break
    return {"owner_sha256": feature_hash("mailbox-owner", parts[owner_index].casefold()), "folder_role": role}


# ---------------------------------------------------------------- the record

def _view_meta(name: str, text: str, truncated: bool) -> dict[str, Any]:
    return {"sha256": "sha256:" + feature_hash(f"view-{name}", text), "chars": len(text),
            "utf8_bytes": len(text.encode("utf-8")), "truncated": truncated}


def clean_row(row: dict[str, Any], dataset_id: str, revision: str, source_digest: str, occurrences: int = 1,
              cleaning_policy_sha256: str = "") -> dict[str, Any]:
    """Clean one validated row into a prepared record (raises :class:`CleaningError`)."""
    counts: dict[str, int] = {}
    body_raw = row.get("body") or ""
    subject_raw = row.get("subject") or ""
    if not isinstance(body_raw, str) or not isinstance(subject_raw, str):
        raise CleaningError("invalid_type")
    body_raw, body_truncated = utf8_safe_truncate(body_raw, BODY_CHAR_LIMIT, BODY_BYTE_LIMIT)
    subject_raw, subject_truncated = utf8_safe_truncate(subject_raw, SUBJECT_CHAR_LIMIT, SUBJECT_BYTE_LIMIT)
    visible, header_refs = decode_body(body_raw, counts)
    full = normalize_text(visible)
    if len(full) > OUTPUT_CHAR_LIMIT:
        raise CleaningError("output_char_limit")
    current = current_body(full, counts)
    core = current_body_core(current, counts)
    subject = decode_subject(subject_raw, counts)
    primary = "\n\n".join(part for part in (subject, current) if part)
    views_text = {"full_visible_body": full, "current_body": current, "subject_current_body": primary,
                  "current_body_core": core}
    headers = {
        "message_id": (row.get("message_id") or "").strip(),
        "subject": subject,
        "from": parse_addresses([row["from"]] if row.get("from") else [], counts),
        "to": parse_addresses(row.get("to"), counts),
        "cc": parse_addresses(row.get("cc"), counts),
        "bcc": parse_addresses(row.get("bcc"), counts),
    }
    structured = {key: headers[key] for key in ("from", "to", "cc", "bcc")}
    source_body_sha = "sha256:" + feature_hash("source-body", row.get("body") or "")
    document_id = "doc_" + domain_hash("nerb/enron/document/v2", canonical_text(
        {"dataset_id": dataset_id, "revision": revision, "source_sha256": source_digest}))
    mailbox = mailbox_of(row.get("file_name"))
    participants = sorted({
        feature_hash("participant", f"address:{entry['address']}" if entry["address"]
                     else f"name:{grouping_text(entry['name'])}")
        for key in ("from", "to", "cc", "bcc") for entry in headers[key]
    })
    own_id = normalize_message_id(headers["message_id"]) if headers["message_id"] else ""
    referenced = [normalize_message_id(ref) for ref in header_refs + embedded_message_ids(full)]
    referenced = sorted({ref for ref in referenced if ref and ref != own_id})[:EMBEDDED_ID_LIMIT]
    tsubject = thread_subject(subject)
    near_core = simhash64(core if core else current)
    near_full = near_core if full == (core if core else current) else simhash64(full)
    grouping = {
        "exact": {name: ("sha256:" + feature_hash("exact-view", grouping_text(text)) if text else None)
                  for name, text in views_text.items()},
        "normalized_message_id_sha256": ("sha256:" + feature_hash("message-id", own_id)) if own_id else None,
        "normalized_thread_subject_sha256": ("sha256:" + feature_hash("thread-subject", tsubject)) if tsubject else None,
        "participant_sha256s": ["sha256:" + p for p in participants],
        "participant_set_sha256": "sha256:" + feature_hash("participant-set", "\n".join(participants)),
        "embedded_message_id_sha256s": ["sha256:" + feature_hash("message-id", ref) for ref in referenced],
        "near_duplicate": {"current_body_core": near_core, "full_visible_body": near_full},
    }
    return {
        "schema_version": "nerb_verify.enron_prepared_record.v1",
        "document_id": document_id,
        "source": {"dataset_id": dataset_id, "revision": revision,
                   "source_locator_sha256": ("sha256:" + feature_hash("source-locator", row["file_name"]))
                   if row.get("file_name") else None,
                   "mailbox_owner_sha256": ("sha256:" + mailbox["owner_sha256"]) if mailbox["owner_sha256"] else None,
                   "mailbox_folder_role": mailbox["folder_role"],
                   "source_record_sha256": "sha256:" + source_digest,
                   "identical_occurrence_count": occurrences},
        "date": parse_date(row.get("date")),
        "headers": headers,
        "views": {**views_text, "structured_headers": structured},
        "view_metadata": {name: _view_meta(name, text, body_truncated or (subject_truncated and name == PRIMARY_VIEW))
                          for name, text in views_text.items()},
        "cleaning": {"policy_version": POLICY_VERSION, "policy_sha256": cleaning_policy_sha256,
                     "source_body_sha256": source_body_sha, "transform_counts": counts,
                     "body_truncated": body_truncated, "subject_truncated": subject_truncated},
        "grouping": grouping,
    }


def header_addresses(record: dict[str, Any]) -> set[str]:
    """Every non-empty address of the record's own From/To/Cc/Bcc headers."""
    return {entry["address"] for key in ("from", "to", "cc", "bcc") for entry in record["headers"][key]
            if entry["address"]}


def primary_view_is_answer_free(record: dict[str, Any]) -> bool:
    """The primary view is exactly subject + current body and carries no synthetic header/label line."""
    views = record["views"]
    expected = "\n\n".join(part for part in (record["headers"]["subject"], views["current_body"]) if part)
    return views[PRIMARY_VIEW] == expected
