"""Issue 17, class 1 (split structures), session 18: office documents' paragraphs are read as their reader sees them.

Word, PowerPoint and ODF documents and spreadsheets' shared strings are XML in a zip archive. An editor cuts a
paragraph into runs wherever formatting, spell checking or revision marks change, so an address is often stored as
``<w:t>jane.roe@</w:t></w:r><w:r><w:t>corp-mail.org</w:t>``: no line of the XML holds it, the reader sees it whole.
An XML file's paragraphs (``w:p``, ``a:p``, ``text:p``, ``text:h``) and shared strings (``si``) are joined per
element and per document, as an SVG figure's text elements are, in memory and streamed alike.

Must-reject values are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from nerb_verify.findings import Collector
from nerb_verify.privacy import stream
from nerb_verify.privacy.profiles import CONTRACT, REPOSITORY
from nerb_verify.privacy.runner import scan_paths
from nerb_verify.privacy.text_scan import scan_text

AT = chr(64)
LOCAL, HOST = "jane." + "roe", "corp-" + "mail.org"
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _runs(*texts: str) -> str:
    return "".join(f'<w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">{text}</w:t></w:r>' for text in texts)


def _document(*paragraphs: str) -> str:
    body = "".join(f'<w:p w:rsidR="00A1"><w:pPr><w:jc w:val="left"/></w:pPr>{paragraph}</w:p>'
                   for paragraph in paragraphs)
    header = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    return f"{header}<w:document {W}><w:body>{body}</w:body></w:document>\n"


def _memory(text: str, name: str = "word/document.xml", profile=REPOSITORY) -> list[tuple[str, int | None, str]]:
    collector = Collector()
    scan_text(text, profile, collector, name)
    return [(f.code, f.line, f.message) for f in collector.sorted_findings()]


def _pieces(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start:start + size]


def _streamed(text: str, window: int, name: str = "word/document.xml", profile=REPOSITORY) -> list:
    collector = Collector()
    stream.scan_text_stream(_pieces(text, window), profile, collector, name)
    return [(f.code, f.line, f.message) for f in collector.sorted_findings()]


SPLIT = [
    ("runs-of-one-paragraph", _document(_runs("Contact ", LOCAL + AT, HOST[:5], HOST[5:], " today."))),
    ("two-paragraphs", _document(_runs("Mail " + LOCAL), _runs(AT + HOST))),
    ("odf-paragraph", '<office:text><text:p text:style-name="P1">Mail <text:span>' + LOCAL + AT
     + "</text:span>" + HOST + "</text:p></office:text>\n"),
    ("shared-string-runs", '<sst><si><r><t>' + LOCAL + '</t></r><r><rPr><b/></rPr><t>' + AT + HOST
     + "</t></r></si></sst>\n"),
    ("slide-paragraph", "<p:txBody><a:p><a:r><a:t>" + LOCAL + AT + "</a:t></a:r><a:r><a:t>" + HOST
     + "</a:t></a:r></a:p></p:txBody>\n"),
]


@pytest.mark.parametrize("name,text", SPLIT, ids=[row[0] for row in SPLIT])
def test_an_address_split_over_runs_or_paragraphs_is_found(name: str, text: str) -> None:
    found = _memory(text)
    assert [code for code, _line, message in found if "Adjacent strings" in message] == ["privacy.email"], found
    assert LOCAL not in str(found) and HOST not in str(found)
    for window in (1, 7, 64, 4099):
        assert _streamed(text, window) == found


ACCEPT = [
    _document(_runs("The quarterly ", "rev", "iew is due ", "on Friday."), _runs("See section 4.2 and table 3.")),
    _document(_runs("Version ", "2.0.1", " released"), "<w:p/>", _runs("Contact the ", "team lead", ".")),
    '<sst><si><t>Revenue</t></si><si><t>2026</t></si><si><r><t>Q</t></r><r><t>3</t></r></si></sst>\n',
]


@pytest.mark.parametrize("text", ACCEPT)
def test_ordinary_documents_are_clean(text: str) -> None:
    assert _memory(text) == []
    assert _memory(text, profile=CONTRACT) == []
    assert _streamed(text, 5) == []


def test_only_xml_files_are_read_as_office_text() -> None:
    text = SPLIT[0][1]
    assert _memory(text, "notes.txt") == []
    assert _memory(text, "word/document.xml") != []


def test_a_self_closing_paragraph_opens_nothing() -> None:
    # ``<w:p/>`` before a split: the element reader must not run from it into the next paragraph and beyond
    text = _document(_runs("Mail " + LOCAL + AT), "<w:p/>", _runs(HOST))
    assert [code for code, _l, _m in _memory(text)] == ["privacy.email"]  # (the document view, across paragraphs)
    assert _streamed(text, 3) == _memory(text)


def test_a_docx_file_with_a_split_address_is_caught(tmp_path: Path) -> None:
    document = tmp_path / "minutes.docx"
    with zipfile.ZipFile(document, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>\n")
        archive.writestr("word/document.xml", SPLIT[0][1])
    result = scan_paths([str(document)], REPOSITORY)
    assert [(f.code, f.artifact) for f in result.findings] == [
        ("privacy.email", str(document) + "!/word/document.xml")]
