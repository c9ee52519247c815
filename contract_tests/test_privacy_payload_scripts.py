"""Issue 17, session 15: a decoded payload counts only when it is written as text is (``payloads.written_as_text``).

Random bytes that happen to be UTF-8 (a digest, or words glued in a joined view, decoded at some alignment) mix ASCII
with combining marks and letters of unrelated scripts; one such decoding of three glued tag words read as a home
folder (a tilde, a letter and a slash) and raised ``privacy.personal_path`` in a JSON array and in a YAML list. Hidden text does not mix
scripts that way, a name in any script next to an address included: those payloads are still found. Must-reject values
are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

import base64
import json
import random

import pytest

from nerb_verify.findings import Collector
from nerb_verify.privacy import engine
from nerb_verify.privacy.engine import scan_string
from nerb_verify.privacy.json_scan import scan_json
from nerb_verify.privacy.payloads import written_as_text
from nerb_verify.privacy.profiles import CONTRACT, REPOSITORY

AT = chr(64)

# Decodings of glued words and digests seen in generated data (marks of Thaana, Syriac, Hebrew and Arabic after Latin
# letters or punctuation).
JUNK = ["~z" + "/zf\u07ae)\u0749", "jek''z\u05a5", "jjezz-z)\u0749", "~)\u0696z-z)\u0749", "r\u05a6jei\u01dbz\ua792)",
        "ab\u05d0\u0430cd"]  # (the last: Hebrew and Cyrillic letters together)

TEXTS = ["Jos\u00e9 Roe <jose" + AT + "corp-mail.es>", "Jose\u0301 Roe <jose" + AT + "corp-mail.es>",
         "\u0418\u0432\u0430\u043d \u041f\u0435\u0442\u0440\u043e\u0432 <ivan" + AT + "corp-mail.ru>",
         "\u5c71\u7530\u592a\u90ce \u3084\u307e\u3060 \u30e4\u30de\u30c0 yamada" + AT + "corp-mail.jp",
         "\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd dana" + AT + "corp-mail.co.il",
         "\u0645\u064e\u0631\u0652\u062d\u064e\u0628\u064b\u0627 omar" + AT + "corp-mail.ae",
         "\uae40\ubbfc\uc900 minjun" + AT + "corp-mail.kr", "\u0928\u092e\u0938\u094d\u0924\u0947 raj" + AT + "corp-mail.in",
         "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35 somchai" + AT + "corp-mail.co.th",
         "\u0395\u03bb\u03ad\u03bd\u03b7 eleni" + AT + "corp-mail.gr", "\U0001d423\U0001d41a\U0001d427\U0001d41e" + AT + "corp-mail.com",
         "\U0001f44d\ufe0f mail jane" + AT + "corp-mail.com"]


@pytest.mark.parametrize("text", JUNK)
def test_bytes_that_merely_decode_are_not_text(text: str) -> None:
    assert not written_as_text(text)


@pytest.mark.parametrize("text", TEXTS)
def test_hidden_text_in_any_script_is_text_and_its_payload_is_found(text: str) -> None:
    assert written_as_text(text)
    token = base64.b64encode(text.encode("utf-8")).decode("ascii")
    for profile in (CONTRACT, REPOSITORY):
        assert "privacy.email" in scan_string("id " + token, profile), (text, profile.name)


def test_glued_tag_words_no_longer_read_as_a_home_folder() -> None:
    tags = ["golf", "november", "india"]
    assert not engine.encoded_payloads("".join(tags))
    collector = Collector()
    scan_json({"tags": tags}, REPOSITORY, collector, "x.json")
    assert collector.findings == []


def test_seeded_glued_words_raise_nothing() -> None:
    # Word lists glued as a joined view glues them: none of their decodings may raise a code.
    words = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
             "quebec romeo sierra tango uniform victor whiskey xray yankee zulu entity alias bank span match token "
             "slice metric precision recall latency sample warm cold compile scan report review note draft").split()
    rng = random.Random(20261202)
    for _ in range(3000):
        tags = [rng.choice(words) for _ in range(rng.randint(2, 6))]
        collector = Collector()
        scan_json(json.loads(json.dumps({"tags": tags})), REPOSITORY, collector, "x.json")
        assert collector.findings == [], tags
