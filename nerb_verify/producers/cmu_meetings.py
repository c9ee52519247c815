"""Loader for the CMU Enron Meetings archive (Minkov, Wang and Cohen's person-name annotations), pinned by SHA-256.

The charter names this archive as the independent person-name source and pins it:
``e7d8dbd9e066eddd6d706a041e379ca93daf9e441a73009646ead41e94a60202`` (``EnronMeetings-XML.zip``, 568,012 bytes). Its
published split and annotation scope must be preserved and reported, and its labels prove nothing about other classes
(addresses, domains). What this module relies on, and checks:

* **Pin first.** The archive's bytes are hashed before anything is opened; a different hash is a refusal
  (:class:`CmuPinError`) naming the pin, not a warning. Tests pass the pin of a small archive they generate
  (``expected_sha256``); only the real pin also checks the published inventory (729 train documents in bunches 1-3
  with 1,896 spans, 247 test documents in bunch 4 with 527 spans).
* **Layout.** A ZIP whose members are ``EnronMeetings-XML/<train|test>/<bunchN>/<mailbox>__calendar__<n>.txt`` (plus
  those folders): train holds bunches 1-3 and test bunch 4, and that *is* the published split; a member anywhere else,
  a bunch in the wrong role, an absolute or ``..`` name, a duplicate, an oversized member or a suspicious compression
  ratio is refused. Nothing is extracted to disk.
* **Fragments are text, not XML.** Each member is UTF-8 text with literal ``<true_name>`` ... ``</true_name>`` markers
  around person names; other angle-bracket text is part of the document. The two marker tokens are removed, each span
  is the marked text with surrounding ASCII whitespace trimmed (half-open Unicode-scalar offsets into the marker-free
  text); a nested, unbalanced or empty marker, or any other spelling of a ``true_name`` tag, is refused.
* **Scope.** Entity class ``person`` only, region ``meeting_email_fragment``. The archive does not publish a reviewer
  or an adjudication record, so on its own it is one annotation pass (:func:`annotation_pass`), not adjudicated gold:
  it becomes ``independent`` only with a second pass and an adjudication (:mod:`nerb_verify.producers.annotations`).

Document ids are hashes of the member name (which carries a mailbox name), so no name leaves the private side.
"""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nerb_verify.canonical import python_canonical_sha256
from nerb_verify.producers.annotations import AnnotationPass, Span

CMU_MEETINGS_SHA256 = "e7d8dbd9e066eddd6d706a041e379ca93daf9e441a73009646ead41e94a60202"
CMU_MEETINGS_BYTES = 568_012
SOURCE_ID = "cmu_enron_meetings_xml"
ROOT = "EnronMeetings-XML"
PUBLISHED_SPLIT = {"train": ("bunch1", "bunch2", "bunch3"), "test": ("bunch4",)}
PUBLISHED_POPULATIONS = {"train": {"documents": 729, "spans": 1_896}, "test": {"documents": 247, "spans": 527}}
OPEN, CLOSE = "<true_name>", "</true_name>"
ASCII_SPACE = " \t\r\n\f\v"
MEMBER = re.compile(rf"^{ROOT}/(?P<role>train|test)/(?P<bunch>bunch[1-9])/[A-Za-z0-9][A-Za-z0-9_.-]{{0,127}}"
                    r"__calendar__[0-9]{1,10}\.txt$")
TAG_LIKE = re.compile(r"<[^<>]*>")
TRUE_NAME_WORD = re.compile(r"true[\s_-]*name", re.IGNORECASE)
MAX_ARCHIVE_BYTES = 8 * 1024 * 1024
MAX_ENTRIES = 4096
MAX_MEMBER_BYTES = 1024 * 1024
MAX_TOTAL_BYTES = 32 * 1024 * 1024
MAX_RATIO = 200
ANNOTATOR = "cmu_meetings_published_annotation"
SCOPE = {"entity_classes": ["person"], "document_regions": ["meeting_email_fragment"], "exclusions": []}
SPAN_POLICY = {"policy": "nerb_verify.cmu_meetings_inline_true_name.v1", "markers": [OPEN, CLOSE],
               "text": "markers removed, everything else verbatim", "span": "marked text, outer ASCII whitespace "
               "trimmed", "offsets": "unicode_scalar_half_open", "entity_class": "person"}
SPAN_POLICY_SHA256 = python_canonical_sha256(SPAN_POLICY)


class CmuArchiveError(ValueError):
    """The archive cannot be read faithfully; the text is our own sentence (never a member name or content)."""


class CmuPinError(CmuArchiveError):
    """The archive is not the pinned one: nothing was read from it."""


@dataclass(frozen=True)
class CmuDocument:
    """One fragment: its published role and bunch, the marker-free text and its person spans."""

    document_id: str
    role: str
    bunch: str
    text: str
    spans: tuple[tuple[int, int], ...]


@dataclass
class CmuCorpus:
    archive_sha256: str
    pinned: bool
    documents: list[CmuDocument]

    def report(self) -> dict[str, Any]:
        """Counts only: the pin, the published split (bunches, documents, spans, negatives) and the scope."""
        split = {}
        for role, bunches in PUBLISHED_SPLIT.items():
            docs = [d for d in self.documents if d.role == role]
            split[role] = {"bunches": list(bunches), "documents": len(docs),
                           "spans": sum(len(d.spans) for d in docs),
                           "negative_documents": sum(not d.spans for d in docs),
                           "documents_by_bunch": {b: sum(d.bunch == b for d in docs) for b in bunches}}
        return {"source_id": SOURCE_ID, "archive_sha256": "sha256:" + self.archive_sha256,
                "pinned_archive": self.pinned, "published_split": split, "annotation_scope": dict(SCOPE),
                "span_policy_sha256": SPAN_POLICY_SHA256,
                "not_evidence_for": ["contact", "domain", "any class other than person"],
                "review": "one published annotation pass; no reviewer or adjudication record is published"}


def parse_fragment(text: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The marker-free text and its spans; refuses nested, unbalanced, empty or variant markers."""
    residual = text.replace(OPEN, "").replace(CLOSE, "")
    if any(TRUE_NAME_WORD.search(tag) for tag in TAG_LIKE.findall(residual)):
        raise CmuArchiveError("a fragment holds a true_name tag in a spelling the loader does not know")
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    length = 0
    cursor = 0
    while True:
        opened = text.find(OPEN, cursor)
        closed = text.find(CLOSE, cursor)
        if opened < 0:
            if closed >= 0:
                raise CmuArchiveError("a fragment closes a true_name marker it never opened")
            pieces.append(text[cursor:])
            break
        if 0 <= closed < opened:
            raise CmuArchiveError("a fragment closes a true_name marker it never opened")
        pieces.append(text[cursor:opened])
        length += opened - cursor
        inner_start = opened + len(OPEN)
        inner_end = text.find(CLOSE, inner_start)
        if inner_end < 0:
            raise CmuArchiveError("a fragment opens a true_name marker it never closes")
        inner = text[inner_start:inner_end]
        if OPEN in inner:
            raise CmuArchiveError("a fragment nests true_name markers")
        lead = len(inner) - len(inner.lstrip(ASCII_SPACE))
        core = inner.strip(ASCII_SPACE)
        if not core:
            raise CmuArchiveError("a fragment has an empty true_name marker")
        spans.append((length + lead, length + lead + len(core)))
        pieces.append(inner)
        length += len(inner)
        cursor = inner_end + len(CLOSE)
    return "".join(pieces), tuple(spans)


def _document_id(member: str) -> str:
    digest = hashlib.sha256(("nerb_verify/cmu-meetings/document/v1\0" + member).encode("utf-8")).hexdigest()
    return "cmu_" + digest[:32]


def load_cmu_meetings(path: Path, *, expected_sha256: str = CMU_MEETINGS_SHA256) -> CmuCorpus:
    """Verify the pin, then read every fragment of the archive (see module docstring)."""
    expected = expected_sha256.removeprefix("sha256:")
    if not re.fullmatch(r"[0-9a-f]{64}", expected):
        raise CmuArchiveError("the expected SHA-256 is not 64 lowercase hex digits")
    try:
        size = path.stat().st_size
        if size > MAX_ARCHIVE_BYTES:
            raise CmuPinError("the archive is larger than the pinned archive could be; refused before reading")
        raw = path.read_bytes()
    except OSError:
        raise CmuArchiveError("the archive cannot be read") from None
    actual = hashlib.sha256(raw).hexdigest()
    if actual != expected:
        raise CmuPinError("the archive's SHA-256 does not match the pinned SHA-256; refused, nothing was read "
                          "from it (download the pinned EnronMeetings-XML.zip, or pass the pin of the archive "
                          "you mean)")
    pinned = expected == CMU_MEETINGS_SHA256
    if pinned and len(raw) != CMU_MEETINGS_BYTES:
        raise CmuPinError("the pinned archive has the wrong size")
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
        infos = archive.infolist()
    except (zipfile.BadZipFile, ValueError):
        raise CmuArchiveError("the archive is not a readable ZIP file") from None
    if len(infos) > MAX_ENTRIES:
        raise CmuArchiveError("the archive has too many entries")
    folders = {f"{ROOT}/", *(f"{ROOT}/{role}/" for role in PUBLISHED_SPLIT),
               *(f"{ROOT}/{role}/{bunch}/" for role, bunches in PUBLISHED_SPLIT.items() for bunch in bunches)}
    seen: set[str] = set()
    total = 0
    documents: list[CmuDocument] = []
    for info in infos:
        name = info.filename
        if name in seen:
            raise CmuArchiveError("the archive lists one member twice")
        seen.add(name)
        if name.endswith("/"):
            if name not in folders:
                raise CmuArchiveError("the archive holds a folder outside the published layout")
            continue
        match = MEMBER.match(name)
        if match is None or match["bunch"] not in PUBLISHED_SPLIT[match["role"]]:
            raise CmuArchiveError("the archive holds a member outside the published layout (role, bunch, name)")
        total += info.file_size
        if info.file_size > MAX_MEMBER_BYTES or total > MAX_TOTAL_BYTES or \
                (info.compress_size and info.file_size / info.compress_size > MAX_RATIO):
            raise CmuArchiveError("a member is too large or too compressed")
        try:
            data = archive.read(info)
            text = data.decode("utf-8")
        except (zipfile.BadZipFile, UnicodeDecodeError, RuntimeError):
            raise CmuArchiveError("a member is unreadable or not UTF-8") from None
        clean, spans = parse_fragment(text)
        documents.append(CmuDocument(_document_id(name), match["role"], match["bunch"], clean, spans))
    documents.sort(key=lambda d: (d.role, d.bunch, d.document_id))
    corpus = CmuCorpus(actual, pinned, documents)
    if pinned:
        split = corpus.report()["published_split"]
        if any(split[role]["documents"] != counts["documents"] or split[role]["spans"] != counts["spans"]
               for role, counts in PUBLISHED_POPULATIONS.items()):
            raise CmuArchiveError("the pinned archive does not hold its published populations")
    return corpus


def annotation_pass(corpus: CmuCorpus, role: str) -> AnnotationPass:
    """The published annotation of one published split role as an :class:`AnnotationPass` (class ``person``)."""
    if role not in PUBLISHED_SPLIT:
        raise CmuArchiveError("the published split has only the roles train and test")
    result = AnnotationPass(ANNOTATOR, "cmu_meetings_inline")
    for document in corpus.documents:
        if document.role != role:
            continue
        result.add_document(document.document_id, document.text)
        for start, end in document.spans:
            result.add_span(Span(document.document_id, "person", start, end))
    return result
