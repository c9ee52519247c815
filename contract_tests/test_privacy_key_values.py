"""Issue 17 class 1 in key-value files: a value split over two entries of a YAML, TOML, INI, ``.properties`` or
``.env`` mapping or list (``nerb_verify/privacy/key_values.py``), read as a JSON object's keys and values are.

The entries of one mapping (one indentation, until a shallower line, a section header or a document marker) are
joined; a split is reported once, as a joined finding at the mapping's first line. Numbers, booleans and nulls are
not joined (as in JSON), an address glued from entries needs a real last label, and the streaming reader agrees with
the in-memory scan. Must-reject values are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

import pytest

from nerb_verify.findings import Collector
from nerb_verify.privacy import key_values, messages
from nerb_verify.privacy.key_values import KeyValueReader, is_key_value_file, runs_of
from nerb_verify.privacy.profiles import CONTRACT, REPOSITORY
from nerb_verify.privacy.stream import scan_text_stream
from nerb_verify.privacy.text_scan import scan_text

AT = chr(64)
LOCAL, HOST = "jane." + "roe", "corp-" + "mail.org"
HOME_HEAD, HOME_TAIL = "/ho", "me/jroe/notes.txt"
AREA, EXCHANGE, LINE = "713", "555", "2368"


def _findings(text: str, name: str, profile=REPOSITORY) -> list[tuple[str, int | None, bool]]:
    collector = Collector()
    scan_text(text, profile, collector, name)
    return sorted((f.code, f.line, f.message.startswith(messages.JOINED)) for f in collector.findings)


def test_the_reader_takes_text_values_and_keys_that_are_not_plain_names_per_mapping():
    text = ("# settings\n"
            "name: demo\n"
            "owner:\n"
            "  local: 'a b'   # a comment\n"
            "  port: 5432\n"
            "  enabled: true\n"
            "  domain: \"c d\"\n"
            "list:\n"
            "  - x\n"
            "  - 3\n"
            "  - key: y\n"
            "    more: z\n"
            "  - key: w\n"
            "    other: v\n"
            "[section]\n"
            "user = u\n"
            "host=h\n"
            "---\n"
            "a.b: w\n"
            "'c d': x\n"
            "9lives: y\n")
    runs = sorted((run.first, run.pieces, run.values) for run in runs_of(text.split("\n")))
    assert runs == [
        (3, ("a b", "c d"), ("a b", "c d")),  # (plain-name keys are field names; numbers and booleans not joined)
        (10, ("y", "z"), ("y", "z")),  # (one mapping per list item; "x" alone is no run)
        (12, ("w", "v"), ("w", "v")),
        (15, ("u", "h"), ("u", "h")),
        (18, ("a.b", "w", "c d", "x", "9lives", "y"), ("w", "x", "y")),
    ]


@pytest.mark.parametrize("name, expected", [
    ("config.yaml", True), ("a/b/ci.YML", True), ("pyproject.toml", True), ("setup.cfg", True), ("tox.ini", True),
    ("app.properties", True), ("nginx.conf", True), (".env", True), ("deploy/.env.local", True), ("x.env", True),
    ("notes.txt", False), ("module.py", False), ("data.json", False), ("README.md", False), ("environment.py", False),
])
def test_key_value_files_are_told_by_name(name, expected):
    assert is_key_value_file(name) is expected


SPLITS = [
    ("yaml-address-at-the-at-sign", "config.yaml", f"owner:\n  local: {LOCAL}{AT}\n  domain: {HOST}\n",
     "privacy.email", 2),
    ("yaml-address-at-sign-first", "c.yml", f"contact:\n  user: {LOCAL}\n  host: '{AT}{HOST}'\n", "privacy.email", 2),
    ("yaml-list-items", "c.yml", f"to:\n  - {LOCAL}{AT}\n  - {HOST}\n", "privacy.email", 2),
    ("ini-section", "setup.cfg", f"[mail]\nname = {LOCAL}{AT}\nsuffix = {HOST}\n", "privacy.email", 2),
    ("toml-quoted", "p.toml", f'[tool.x]\na = "{LOCAL}"\nb = "{AT}{HOST}"\n', "privacy.email", 2),
    ("env-file", ".env", f"A={LOCAL}\nB={AT}{HOST}\n", "privacy.email", 1),
    ("properties", "app.properties", f"mail.user={LOCAL}{AT}\nmail.host={HOST}\n", "privacy.email", 1),
    ("yaml-home-path", "c.yml", f"paths:\n  - {HOME_HEAD}\n  - {HOME_TAIL}\n", "privacy.personal_path", 2),
    ("yaml-key-and-value", "c.yaml", f"{LOCAL}{AT}: {HOST}\nother: x\n", "privacy.email", 1),
]


@pytest.mark.parametrize("name,file,text,code,line", SPLITS, ids=[s[0] for s in SPLITS])
def test_a_value_split_over_entries_is_one_joined_finding(name, file, text, code, line):
    for profile in (REPOSITORY, CONTRACT):
        found = [f for f in _findings(text, file, profile) if f[0] == code]
        assert found == [(code, line, True)], (name, profile.name, found)


def test_a_phone_number_split_over_quoted_values_is_found_by_the_contract_profile():
    text = f"[phone]\narea = '{AREA}'\nnumber = '{EXCHANGE}-{LINE}'\n"
    assert ("privacy.phone", 2, True) in _findings(text, "a.ini", CONTRACT)


def test_the_same_text_in_a_file_that_is_not_key_value_is_not_read_as_entries():
    # The reader is for key-value files only (documented): in prose, "word: value" lines are not a mapping.
    text = f"owner:\n  local: {LOCAL}{AT}\n  domain: {HOST}\n"
    assert not [f for f in _findings(text, "notes.txt") if f[2]]
    assert [f for f in _findings(text, "notes.yaml") if f[2]]


PASSES = [
    ("github-workflow", "ci.yml",
     "jobs:\n  build:\n    steps:\n      - name: Create Pull Request\n        uses: owner/create-pull-request"
     + AT + "v7\n        if: env.rc == 0\n        with:\n          branch: main\n"),
    ("action-refs", "ci.yml", "steps:\n  - uses: actions/checkout" + AT + "v4\n  - uses: actions/setup-python" + AT
     + "v5\n    with:\n      python-version: '3.11'\n"),
    ("numbers", "settings.ini", "[server]\ntimeout = 30\nport = 8080\nretries = 5\nworkers = 12\nlimit = 4096\n"),
    ("versions", "pyproject.toml", "[project]\nname = \"x\"\nversion = \"1.2.3\"\nrequires-python = \">=3.10\"\n"),
    ("dates", "c.yaml", "released: 2024-05-01\nupdated: 2024-06-02\nexpires: 2025-01-01\n"),
    ("paths", "c.yaml", "src: src/pkg\ntests: tests/unit\ndocs: docs/build/html\n"),
]


@pytest.mark.parametrize("name,file,text", PASSES, ids=[p[0] for p in PASSES])
def test_ordinary_key_value_files_pass(name, file, text):
    assert _findings(text, file) == []


def test_an_address_glued_from_entries_needs_a_real_last_label():
    # "...@v7" glued to "env.rc": ".rc" is no country's code; the same split ending in ".uk" is an address.
    text = "uses: a/b" + AT + "v7\nif: env.rc == 0\n"
    assert _findings(text, "ci.yml") == []
    text = "uses: a/b" + AT + "v7\nif: env.co.uk\n"
    assert ("privacy.email", 1, True) in _findings(text, "ci.yml")


def test_a_line_that_raises_alone_is_not_reported_again_as_joined():
    text = f"mail: {LOCAL}{AT}{HOST}\nnext: {LOCAL}\n"
    assert _findings(text, "c.yaml") == [("privacy.email", 1, False)]


def test_a_split_at_the_cut_of_a_long_mapping_is_still_read(monkeypatch):
    # A run is handed over at MAX_RUN_CHARS; the next starts with its last entry, so the pair at the cut is read.
    monkeypatch.setattr(key_values, "MAX_RUN_CHARS", 200)
    lines = ["root:"] + [f"  key{n}: value number {n}" for n in range(40)]
    for cut in range(1, 40):
        split = lines[:cut + 1] + [f"  local: {LOCAL}{AT}", f"  domain: {HOST}"] + lines[cut + 1:]
        found = _findings("\n".join(split) + "\n", "c.yaml")
        assert [f for f in found if f[0] == "privacy.email"], cut


def test_runs_are_bounded():
    reader = KeyValueReader()
    for index in range(10_000):
        reader.feed(index, f"k{index}: {'v' * 50}")
    reader.finish()
    assert len(reader.runs) > 1
    assert max(sum(map(len, run.lines)) for run in reader.runs) <= key_values.MAX_RUN_CHARS + 70


def test_what_the_open_runs_hold_is_bounded_however_deep_the_nesting():
    # A mapping per indentation level, each with long entries: the open runs together never hold more than
    # MAX_OPEN_CHARS (and a line too long for a run is no entry).
    reader = KeyValueReader()
    index = 0
    for depth in range(300):
        for entry in range(40):
            reader.feed(index, " " * depth + f"k{entry}: " + "v" * 400)
            index += 1
            assert reader.open_chars <= key_values.MAX_OPEN_CHARS
            assert reader.open_chars == sum(run.chars for run in reader.open.values())
        reader.runs.clear()
    reader.feed(index, "k: " + "v" * (key_values.MAX_RUN_CHARS + 1))
    assert not reader.open


def test_the_stream_agrees_with_the_in_memory_scan():
    for name, file, text, _code, _line in SPLITS + [(p[0], p[1], p[2], "", 0) for p in PASSES]:
        memory = Collector()
        scan_text(text, REPOSITORY, memory, file)
        streamed = Collector()
        scan_text_stream(iter([text[:7], text[7:]]), REPOSITORY, streamed, file)
        assert [(f.code, f.line, f.column) for f in streamed.findings] == \
            [(f.code, f.line, f.column) for f in memory.findings], name
