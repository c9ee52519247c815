"""Issue 17, false positives on real text: the repository profile lets the real-text shapes of
``privacy_fp_corpus.MUST_PASS`` through (alone and as one text file), still finds the personal data next to each
class, and raises nothing on seeded random tokens of realistic shape; ``tools/fp_corpus.py`` reports by class."""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from contract_tests import privacy_fp_corpus as corpus
from nerb_verify.findings import Collector
from nerb_verify.privacy.engine import scan_uncached
from nerb_verify.privacy.profiles import REPOSITORY
from nerb_verify.privacy.text_scan import scan_text

REPO = Path(__file__).resolve().parent.parent


def _text_codes(text: str) -> list[str]:
    collector = Collector()
    scan_text(text, REPOSITORY, collector, "corpus.txt")
    return sorted(finding.code for finding in collector.findings)


@pytest.mark.parametrize("kind,line", corpus.MUST_PASS, ids=[f"{k}-{i}" for i, (k, _l) in enumerate(corpus.MUST_PASS)])
def test_real_text_shape_passes(kind: str, line: str) -> None:
    assert scan_uncached(line, REPOSITORY) == frozenset(), kind
    assert _text_codes(line + "\n") == [], kind


def test_the_whole_must_pass_corpus_passes_as_one_file() -> None:
    # Joined views included: adjacent lines read together and glued at line breaks.
    assert _text_codes("\n".join(line for _kind, line in corpus.MUST_PASS) + "\n") == []


def test_every_class_has_a_must_find_neighbour() -> None:
    passing = {kind for kind, _line in corpus.MUST_PASS}
    finding = {kind for kind, _text, _code in corpus.MUST_FIND}
    assert passing - {"ip-like"} <= finding | {"ip-like"}
    assert len(corpus.MUST_PASS) >= 40 and len(corpus.MUST_FIND) >= 20


@pytest.mark.parametrize("kind,text,code", corpus.MUST_FIND, ids=[f"{k}-{i}" for i, (k, _t, _c) in enumerate(corpus.MUST_FIND)])
def test_personal_data_near_a_false_positive_class_is_still_found(kind: str, text: str, code: str) -> None:
    value = corpus.assemble(text)
    assert corpus.BREAK not in value
    assert code in scan_uncached(value, REPOSITORY), kind
    assert code in _text_codes(value + "\n"), kind


def test_decorator_lines_are_not_glued_into_an_address_but_a_split_address_is() -> None:
    # (each line a string of its own, so this file's own text holds no backslash-n glued to an at-sign)
    source = "\n".join(["# Do not reach full accuracy", "@pytest.mark.xfail", "def test_it():", "    pass", ""])
    assert _text_codes(source) == []
    assert _text_codes("\n".join(["class A:", "    x = 3.12", "@dataclasses.dataclass", "class B: ...", ""])) == []
    split = "reply to jane.roe\n@" + "corp-mail.co.uk today\n"
    assert _text_codes(split) == ["privacy.email"]


def test_a_line_starting_with_a_url_is_not_glued_to_the_previous_word() -> None:
    assert _text_codes("\n".join(["by Jane Roe", "http://crypto.example.edu/~jroe/CS250/HW5+.pdf", ""])) == []
    # ... while a local path split over a line break still is.
    assert _text_codes("see /ho\nme/" + "jroe/notes.txt\n") == ["privacy.personal_path"]


def _random_tokens(rng: random.Random, count: int) -> list[str]:
    """Tokens of the shapes real source and data are full of: identifiers (snake, camel, dotted, dunder), hex
    digests and ids, base64-ish and base64url runs, UUIDs, versions, numbers with units."""
    words = ["data", "value", "node", "graph", "test", "parse", "token", "index", "cache", "user", "home", "path",
             "config", "server", "client", "share", "file", "mail", "phone", "name", "id", "key", "list", "map"]
    makers = [
        lambda: "_".join(rng.choice(words) for _ in range(rng.randint(1, 5))),
        lambda: rng.choice(words) + "".join(rng.choice(words).capitalize() for _ in range(rng.randint(1, 4))),
        lambda: ".".join(rng.choice(words) for _ in range(rng.randint(2, 4))),
        lambda: "__" + rng.choice(words) + "__",
        lambda: "".join(rng.choice("0123456789abcdef") for _ in range(rng.choice((7, 8, 12, 32, 40, 64)))),
        lambda: "".join(rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(rng.randint(12, 88))),
        lambda: "".join(rng.choice(string.ascii_letters + string.digits + "-_") for _ in range(rng.randint(12, 64))),
        lambda: "-".join("".join(rng.choice("0123456789abcdef") for _ in range(n)) for n in (8, 4, 4, 4, 12)),
        lambda: ".".join(str(rng.randint(0, 30)) for _ in range(rng.randint(2, 4))),
        lambda: f"{rng.randint(0, 10**6)}{rng.choice(['ms', 'KB', 'MiB', 'ns', 'px', ''])}",
        lambda: rng.choice(words) + str(rng.randint(0, 10**4)),
    ]
    return [rng.choice(makers)() for _ in range(count)]


def test_seeded_random_tokens_of_realistic_shape_raise_nothing() -> None:
    rng = random.Random(20261201)
    tokens = _random_tokens(rng, 6000)
    flagged = [index for index, token in enumerate(tokens) if scan_uncached(token, REPOSITORY)]
    assert flagged == []
    # Also as lines of code and prose, a few tokens at a time.
    lines = [f"    {a} = {b}({c}, '{d}')  # {e}" for a, b, c, d, e in zip(*[iter(tokens)] * 5)]
    assert _text_codes("\n".join(lines) + "\n") == []


def test_fp_corpus_tool_builds_a_tree_and_reports_by_class_without_values(tmp_path: Path) -> None:
    source = tmp_path / "site"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg-1.0.dist-info").mkdir()
    address = "jroe" + "@" + "mailbox" + ".org"
    (source / "pkg-1.0.dist-info" / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: pkg\nAuthor-email: Jane Roe <{address}>\n\nClassifier: Intended Audience :: "
        "End Users/Desktop\n", encoding="utf-8")
    (source / "pkg" / "mod.py").write_text(f'"""Mail {address} for help."""\nX = 1\n', encoding="utf-8")
    (source / "pkg" / "skip.so").write_bytes(b"\x00binary")
    out = tmp_path / "tree"
    tool = [sys.executable, str(REPO / "tools" / "fp_corpus.py")]
    built = subprocess.run(tool + ["build", "--out", str(out), "--mb", "1", "--source", str(source)],
                           capture_output=True, text=True, check=True)
    assert json.loads(built.stdout)["files"] == 2
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"pkg/mod.py:1:privacy.email": "personal_address"}), encoding="utf-8")
    done = subprocess.run(tool + ["report", str(out), "--labels", str(labels)], capture_output=True, text=True,
                          check=True)
    assert address not in done.stdout and "mailbox" not in done.stdout
    report = json.loads(done.stdout)
    assert report["findings"] == 2 and report["by_code"] == {"privacy.email": 2}
    assert report["by_class"]["published_contact"] == 1 and report["by_class"]["personal_address"] == 1
    assert report["strict_false_positives_per_mb"] == 0.0
