"""Issue 17 class 1 in text files: a split a reader reads across blank lines or comment markers (``_Gaps`` in
nerb_verify/privacy/text_scan.py).

Two lines with blank lines between them, or two comment lines, read as one text once the markers are taken out; a
value split over them is reported once, as a joined finding at the first line. What a line raises alone is not
reported again, a decorator after a blank line is not an address, and the streaming reader agrees with the
in-memory scan. Must-reject values are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

import pytest

from nerb_verify.findings import Collector
from nerb_verify.privacy import messages
from nerb_verify.privacy.profiles import CONTRACT, REPOSITORY
from nerb_verify.privacy.stream import scan_text_stream
from nerb_verify.privacy.text_scan import comment_body, scan_text

AT = chr(64)
LOCAL, HOST = "jane." + "roe", "corp-" + "mail.org"
AREA, EXCHANGE, LINE = "713", "555", "2368"


def _findings(text: str, profile=REPOSITORY) -> list[tuple[str, int | None, bool]]:
    collector = Collector()
    scan_text(text, profile, collector, "x.txt")
    return sorted((f.code, f.line, f.message.startswith(messages.JOINED)) for f in collector.findings)


SPLITS = [
    ("blank-line", f"call me at {AREA}-{EXCHANGE}\n\n{LINE} after six\n", "privacy.phone", 1),
    ("two-blank-lines-with-spaces", f"intro\n{AREA} {EXCHANGE}\n   \n\t\n{LINE}\n", "privacy.phone", 2),
    ("hash-comments", f"# phone {AREA}-{EXCHANGE}\n# {LINE}\n", "privacy.phone", 1),
    ("slash-comments", f"  // {AREA}.{EXCHANGE}.\n  // {LINE}\n", "privacy.phone", 1),
    ("comment-after-blank", f"x = 1  # {AREA} {EXCHANGE}\n\n\n// {LINE}\n", "privacy.phone", 1),
    ("quoted-reply", f"> write to {LOCAL}{AT}{HOST[:5]}\n>\n> {HOST[5:]}\n", "privacy.email", 1),
    ("address-over-a-blank-line", f"mail {LOCAL}{AT}\n\n{HOST}\n", "privacy.email", 1),
    ("home-in-comments", "# copied from /ho\n# me/jroe/notes.txt\n", "privacy.personal_path", 1),
]


@pytest.mark.parametrize("name,text,code,line", SPLITS, ids=[s[0] for s in SPLITS])
def test_a_split_across_blank_or_comment_lines_is_one_joined_finding(name, text, code, line):
    for profile in (REPOSITORY, CONTRACT):
        found = _findings(text, profile)
        assert (code, line, True) in found, (name, profile.name, found)
        assert [f for f in found if f[0] == code] == [(code, line, True)], (name, profile.name, found)


PASSES = [
    ("decorator-after-a-blank-line", "    return x  # the docs\n\n" + AT + "pytest.mark.xfail\ndef f():\n    pass\n"),
    ("decorator-with-a-generic-tld", "    raise\n\n\n" + AT + "click.group()\ndef cli():\n    pass\n"),
    ("numbered-comments", "# step 1\n\n# step 2\n\n# step 3\n"),
    ("ordinary-code", "def f(x):\n    # 256 at most\n\n    return x * 512\n"),
    ("years-and-pages", "# 2024\n\n# pages 10-12\n"),
    ("markdown-quote", "> a quote\n>\n> more words\n"),
]


@pytest.mark.parametrize("name,text", PASSES, ids=[p[0] for p in PASSES])
def test_ordinary_text_with_blank_and_comment_lines_passes(name, text):
    assert _findings(text) == []


def test_a_line_that_raises_alone_is_not_reported_again_as_joined():
    text = f"call {AREA}-{EXCHANGE}-{LINE}\n\n# {LINE}\n"
    assert _findings(text) == [("privacy.phone", 1, False)]


def test_the_stream_agrees_with_the_in_memory_scan():
    for _name, text, _code, _line in SPLITS:
        memory = Collector()
        scan_text(text, REPOSITORY, memory, "x.txt")
        streamed = Collector()
        scan_text_stream(iter([text]), REPOSITORY, streamed, "x.txt")
        assert [(f.code, f.line, f.column) for f in streamed.findings] == \
            [(f.code, f.line, f.column) for f in memory.findings], _name


def test_comment_body():
    assert comment_body("  # x") == ("x", True) and comment_body("// y") == ("y", True)
    assert comment_body("-- z") == ("z", True) and comment_body("plain") == ("plain", False)
    assert comment_body("* item") == ("item", True) and comment_body(">> q") == ("q", True)
