"""Joined views (issue 17, class 1): identifiers split across adjacent JSON strings, keys and values, lines of text
and SVG text elements are found at the container's pointer or the first line; ordinary structures stay clean."""

from __future__ import annotations

import base64
import json

import pytest

from nerb_verify import pointers
from nerb_verify.findings import Collector
from nerb_verify.privacy.json_scan import scan_json
from nerb_verify.privacy.profiles import CONTRACT, RENDERED, REPOSITORY
from nerb_verify.privacy.text_scan import scan_text

AT = chr(64)
EMAIL_LOCAL, EMAIL_HOST = "jane." + "roe", "corp-" + "mail.org"
PHONE = ("(713) ", "555", "-2368")
_B64 = base64.b64encode((EMAIL_LOCAL + AT + EMAIL_HOST).encode()).decode()


def _json_findings(document: object, profile=REPOSITORY) -> list[tuple[str, str, str]]:
    collector = Collector()
    scan_json(document, profile, collector, "x.json", pointer_root=document)
    return [(f.code, f.pointer, f.message) for f in collector.findings]


def _text_findings(text: str, profile=REPOSITORY, name: str = "x.txt") -> list[tuple[str, int | None, str]]:
    collector = Collector()
    scan_text(text, profile, collector, name)
    return [(f.code, f.line, f.message) for f in collector.findings]


SPLIT_JSON = [
    ("array-address", {"rows": [EMAIL_LOCAL, AT + EMAIL_HOST]}, "privacy.email"),
    ("array-address-mid-token", {"rows": [EMAIL_LOCAL + AT + EMAIL_HOST[:7], EMAIL_HOST[7:]]}, "privacy.email"),
    ("sibling-phone", {"x_area": PHONE[0], "x_exchange": PHONE[1], "x_line": PHONE[2]}, "privacy.phone"),
    ("array-phone-three", {"rows": ["+44", "7911", "123456"]}, "privacy.phone"),
    ("key-and-value", {"rows": {EMAIL_LOCAL + AT: EMAIL_HOST}}, "privacy.email"),
    ("array-home", {"rows": ["/ho", "me/", "jroe"]}, "privacy.personal_path"),
    ("base64-halves", {"rows": [_B64[:20], _B64[20:]]}, "privacy.email"),
    ("ssn-siblings", {"a_1": "219", "a_2": "09", "a_3": "9999"}, "privacy.ssn"),
    # a piece ending in "@host.o" (a last label too short to end a domain) is glued to the next piece
    ("array-address-short-last-label", {"rows": [EMAIL_LOCAL + AT + EMAIL_HOST[:-2], EMAIL_HOST[-2:]]},
     "privacy.email"),
    # the piece after the domain starts with "_" or a digit: gluing it on would corrupt the domain
    ("array-address-then-underscore", {"rows": [EMAIL_LOCAL + AT + EMAIL_HOST[:5], EMAIL_HOST[5:], "split_3"]},
     "privacy.email"),
    ("array-address-then-digit", {"rows": [EMAIL_LOCAL + AT + EMAIL_HOST[:5], EMAIL_HOST[5:], "3rd"]},
     "privacy.email"),
    ("array-at-piece-then-underscore", {"rows": [EMAIL_LOCAL, AT + EMAIL_HOST[:5], EMAIL_HOST[5:], "_3"]},
     "privacy.email"),
    ("array-short-label-then-digit", {"rows": [EMAIL_LOCAL + AT + EMAIL_HOST[:-2], EMAIL_HOST[-2:], "2026"]},
     "privacy.email"),
    # session 21: a path stored as its components (pathlib's parts), after a root or a drive
    ("path-parts-posix", {"rows": ["/", "ho" + "me", "jroe", ".ssh"]}, "privacy.personal_path"),
    ("path-parts-empty-root", {"rows": ["", "Us" + "ers", "jroe", "notes.txt"]}, "privacy.personal_path"),
    ("path-parts-drive", {"rows": ["C:" + chr(92), "Us" + "ers", "jroe", "Desktop"]}, "privacy.personal_path"),
    ("path-parts-drive-bare", {"rows": ["D:", "Us" + "ers", "jroe"]}, "privacy.personal_path"),
]


@pytest.mark.parametrize("name,document,code", SPLIT_JSON, ids=[row[0] for row in SPLIT_JSON])
def test_split_json_is_found_at_the_container(name: str, document: dict, code: str) -> None:
    found = _json_findings(document)
    container = pointers.for_path((("rows", 0),)) if "rows" in document else ""
    assert (code, container) in {(c, p) for c, p, _m in found}, found
    joined_rows = [row for row in found if row[0] == code]
    assert all("Adjacent strings" in message for _c, _p, message in joined_rows)
    dumped = json.dumps(found)
    for value in (EMAIL_LOCAL, EMAIL_HOST, "7911", "2368", "jroe", "9999"):
        assert value not in dumped


ACCEPT_JSON = [
    {"names": ["alpha", "beta", "gamma"], "kind": "literal", "status": "draft"},
    {"rows": ["5", "/", "3"], "dates": ["2026", "07", "10"], "ratio": ["142", "1,393"]},
    {"digests": ["sha256:" + "0123456789abcdef" * 4, "sha256:" + "fedcba9876543210" * 4]},
    {"value": "fixture" + AT + "example.invalid", "description": "Draft contact."},
    {"value": AT + "example.invalid", "description": "Draft suffix."},
    {"a": "compare at", "b": "scale dot product"},
    {"ports": ["8080", "8443", "9090"], "versions": ["v1.2.3", "v2.0.0"]},
    # neighbours of the fragment-glued view: reserved domains, whole domains and decorators stay clean
    {"rows": ["fixture" + AT + "example.i", "nvalid", "split_3"]},
    {"rows": ["fixture" + AT + "example.invalid", "split_3", "Draft"]},
    {"rows": [AT + "example.invalid", "Draft", "3"]},
    {"rows": ["see " + AT + "pytest.fixture", "_3", "x"]},
    {"rows": ["ratio 5.o", "rg", "split_3"]},
    # session 21: components after a root that name no one's folder; a table whose first header cell is empty
    {"rows": ["", "precision", "recall", "f1"]}, {"rows": ["/", "usr", "lib", "python3"]},
    {"rows": ["C:", "Program Files", "App"]}, {"rows": ["home", "about", "contact"]},
]


@pytest.mark.parametrize("document", ACCEPT_JSON)
def test_ordinary_structures_are_not_joined_into_findings(document: dict) -> None:
    assert _json_findings(document) == []


def test_number_lists_are_not_read_as_split_phone_numbers_in_the_contract_profile() -> None:
    """Batch sizes and axis ticks joined with spaces are lists of whole numbers, not a phone number (session 12); a
    phone number split over three strings still is one."""
    assert _json_findings({"sizes": ["256", "512", "1024", "2048", "4096"]}, CONTRACT) == []
    assert _json_findings({"ticks": ["0", "250", "500", "750", "1000"]}, CONTRACT) == []
    ticks = "".join(f'<text x="{index}">{value}</text>' for index, value in enumerate((0, 250, 500, 750, 1000)))
    assert _text_findings("<svg>" + ticks + "</svg>\n", RENDERED, "figure.svg") == []
    # two dates glued into one view are not a national number either
    assert _json_findings({"range": {"start": "2026-03-14", "end": "2026-03-15"}}, CONTRACT) == []
    found = _json_findings({"rows": ["415", "382", "7719"]}, CONTRACT)
    assert [code for code, _pointer, _message in found] == ["privacy.phone"]


def test_joined_views_respect_the_contract_profile_and_do_not_duplicate_piece_findings() -> None:
    # The pieces already raise the at-sign; the joined address is new and reported once at the array.
    found = _json_findings({"rows": [EMAIL_LOCAL, AT + EMAIL_HOST]}, CONTRACT)
    rows = pointers.for_path((("rows", 0),))
    assert sorted((c, p) for c, p, _m in found) == [("privacy.at_sign", rows + "/1"), ("privacy.email", rows)]


def test_a_container_of_any_size_is_joined_in_windows() -> None:
    # no per-container budget (the old one was 16,384 strings): more strings are joined in sliding windows
    rows = ["word"] * 20_000
    assert _json_findings({"rows": rows}) == []
    rows[17_000:17_002] = [EMAIL_LOCAL, AT + EMAIL_HOST]
    found = _json_findings({"rows": rows})
    assert [(c, p) for c, p, _m in found] == [("privacy.email", pointers.for_path((("rows", 0),)))]


SPLIT_TEXT = [
    ("glued-home", "see /ho\nme/jroe/notes\n", "privacy.personal_path", 1),
    ("glued-address", "x\nmail " + EMAIL_LOCAL + "\n" + AT + EMAIL_HOST + " now\n", "privacy.email", 2),
    ("ssn-over-lines", "a\nb\n219\n09\n9999\n", "privacy.ssn", 3),
    ("glued-short-last-label", "x\nmail " + EMAIL_LOCAL + AT + EMAIL_HOST[:-2] + "\n" + EMAIL_HOST[-2:] + " now\n",
     "privacy.email", 2),
    ("address-then-underscore-line", "x\n" + EMAIL_LOCAL + AT + EMAIL_HOST[:5] + "\n" + EMAIL_HOST[5:] + "\nsplit_3\n",
     "privacy.email", 2),
]


@pytest.mark.parametrize("name,text,code,line", SPLIT_TEXT, ids=[row[0] for row in SPLIT_TEXT])
def test_split_text_is_found_at_its_first_line(name: str, text: str, code: str, line: int) -> None:
    found = _text_findings(text)
    assert (code, line) in {(c, n) for c, n, _m in found}, found
    assert "jroe" not in json.dumps(found) and EMAIL_HOST not in json.dumps(found)


@pytest.mark.parametrize("text", [
    "def f(x):\n    return x\nclass A:\n    pass\n",
    "alpha\nbeta\n/tmp\nout\n",
    "port 8080\n8443 open\n",
    "fixture" + AT + "example.invalid\nDraft\n",
    "fixture" + AT + "example.i\nnvalid\nsplit_3\n",
    "see " + AT + "pytest.fixture\n_3 x\n",
])
def test_ordinary_lines_are_not_glued_into_findings(text: str) -> None:
    assert _text_findings(text) == []


def test_svg_text_elements_are_joined_per_element_and_per_figure() -> None:
    tspans = ('<svg><text x="1"><tspan>' + PHONE[0] + PHONE[1] + "</tspan><tspan>" + PHONE[2]
              + "</tspan></text></svg>")
    assert [(c, n) for c, n, _m in _text_findings(tspans, RENDERED, "f.svg")] == [("privacy.phone", 1)]
    figure = ('<svg>\n<text x="1">+44 7911</text>\n<text x="2">123456</text>\n</svg>')
    assert [(c, n) for c, n, _m in _text_findings(figure, RENDERED, "f.svg")] == [("privacy.phone", 2)]
    plain = '<svg>\n<text x="1">precision</text>\n<text x="2">0.953</text>\n<text>142 / 149</text>\n</svg>'
    assert _text_findings(plain, RENDERED, "f.svg") == []
    assert _text_findings(figure, RENDERED, "notes.txt") == []  # only SVG files have text elements


# --- the short-piece answer of holds_whole_address --------------------------------------------------------------

def _short_pieces() -> list[str]:
    """Pieces of at most five characters built around what makes an address: at-signs and dots in every form the
    normaliser reads (fullwidth, small, escaped), letters and digits of other scripts, characters NFKC expands (a
    ligature, a square unit, U+FDFA), default-ignorables and tags, plus every one-character look-alike the
    normaliser maps."""
    import random

    from nerb_verify.privacy.confusables_data import SOURCES

    alphabet = list("@.a-b_c1") + ["\uff20", "\ufe6b", "\uff0e", "\u3002", "\u2024", "\u0430", "\u24d0", "\u2488",
                                   "\ufb03", "\u3392", "\ufdfa", "\u200b", "\U000e0040", "\U000e0061", "\u202e",
                                   "\uff41", "\U0001d41a", "\u2474", "\u00ba", "\u2100", "\u2101", "\u2105",
                                   "\u33c2", "\u2122", "\u2116", "z", "y", "=", "%", "&", "\\"]
    rng = random.Random(20261203)
    pieces = [rng.choice(alphabet) for _ in range(200)]
    pieces += ["".join(rng.choice(alphabet) for _ in range(rng.randint(2, 5))) for _ in range(5000)]
    pieces += ["".join(rng.choice(pair) for pair in ("a\uff41", "@\uff20", "b\u0430", ".\uff0e", "c\u24d2"))
               for _ in range(200)]
    pieces += list(SOURCES)  # (every look-alike alone)
    pieces += [rng.choice(SOURCES) + chr(64) + rng.choice(SOURCES) for _ in range(300)]
    return pieces


def test_a_short_piece_holds_no_whole_address() -> None:
    """holds_whole_address answers False without the scan for a piece of at most five characters (as given and
    decoded); on thousands of such pieces built to hold one, the contract scan agrees, and a six-character address
    is still found (a longer bound fails this)."""
    from nerb_verify.privacy.engine import scan_full
    from nerb_verify.privacy.joined import SHORTER_THAN_ADDRESS, holds_whole_address
    from nerb_verify.privacy.normalise import normalise
    from nerb_verify.privacy.rules.email import EMAIL

    checked = 0
    for piece in _short_pieces():
        clean = normalise(piece)
        if len(piece) <= SHORTER_THAN_ADDRESS and clean.ok and len(clean.text) <= SHORTER_THAN_ADDRESS:
            checked += 1
            assert EMAIL not in scan_full(piece, CONTRACT), ascii(piece)
            assert not holds_whole_address(piece)
    assert checked > 3000
    assert holds_whole_address("a" + chr(64) + "b.co") and holds_whole_address("\uff41" + "\uff20" + "b.co")


def test_path_parts_are_joined_in_a_streamed_file_too(tmp_path, monkeypatch) -> None:
    # Session 21: the streamed JSON reader feeds the same joined scan piece by piece; the components view keeps
    # the container's first pieces, so a large file finds the path its components spell as a small one does.
    from nerb_verify.privacy.runner import scan_paths

    path = tmp_path / "parts.json"
    path.write_text(json.dumps({"a": {"rows": ["/", "ho" + "me", "jroe", ".ssh"]}, "pad": "x" * 2000}),
                    encoding="utf-8")
    monkeypatch.setenv("NERB_SCAN_STREAM_BYTES", "100")
    result = scan_paths([str(path)], REPOSITORY)
    assert result.summary.streamed == 1
    assert [f.code for f in result.findings] == ["privacy.personal_path"]
