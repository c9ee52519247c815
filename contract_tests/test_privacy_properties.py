"""Hypothesis properties of the privacy scanner.

* The normaliser is idempotent on what it returns and stays within its budget (rounds and length).
* Any generated e-mail address, phone number, SSN or home path, wrapped in any generated chain of encodings and
  surrounded by benign text, is still caught by both profiles with the right code.
* No output (message, pointer, artifact) ever contains the input value, its normalised form or a hash of either.
"""

from __future__ import annotations

import hashlib
import urllib.parse

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nerb_verify.findings import Collector
from nerb_verify.privacy import messages
from nerb_verify.privacy.engine import scan_uncached
from nerb_verify.privacy.json_scan import scan_json
from nerb_verify.privacy.normalise import MAX_ROUNDS, normalise
from nerb_verify.privacy.profiles import CONTRACT, REPOSITORY
from nerb_verify.privacy.text_scan import scan_text

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

lower = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8)
RESERVED_TLDS = {"test", "example", "invalid", "localhost"}


@st.composite
def emails(draw: st.DrawFn) -> tuple[str, str]:
    local = draw(lower) + draw(st.sampled_from(["", ".", "_", "+", "-"])) + draw(lower)
    domain = draw(lower) + draw(st.sampled_from(["", "-mail"])) + "." + draw(
        st.sampled_from(["com", "org", "net", "co.uk", "de", "io", "fr"]))
    return local + chr(64) + domain, "privacy.email"


@st.composite
def phones(draw: st.DrawFn) -> tuple[str, str]:
    area = draw(st.integers(200, 999))
    exchange = draw(st.integers(200, 999).filter(lambda n: n != 555))
    line = draw(st.integers(0, 9999))
    shape = draw(st.sampled_from(["e164", "us", "us_paren", "intl", "double_zero"]))
    sep = draw(st.sampled_from(["-", ".", " ", "/", " - ", "_"]))
    if shape == "e164":
        text = f"+{draw(st.integers(1, 99))}{area}{exchange}{line:04d}"
    elif shape == "us":
        text = f"{area}{sep}{exchange}{sep}{line:04d}"
    elif shape == "us_paren":
        text = f"({area}) {exchange}{sep}{line:04d}"
    elif shape == "intl":
        text = f"+{draw(st.integers(1, 99))} {area} {exchange} {line:04d}"
    else:
        text = f"00{draw(st.integers(1, 99))}{area}{exchange}{line:04d}"
    return text, "privacy.phone"


@st.composite
def ssns(draw: st.DrawFn) -> tuple[str, str]:
    area = draw(st.integers(1, 899).filter(lambda n: n != 666))
    group = draw(st.integers(1, 99))
    serial = draw(st.integers(1, 9999))
    sep = draw(st.sampled_from(["-", ".", " ", "/", "_", " - ", "\t"]))
    return f"{area:03d}{sep}{group:02d}{sep}{serial:04d}", "privacy.ssn"


@st.composite
def home_paths(draw: st.DrawFn) -> tuple[str, str]:
    user = draw(lower)
    shape = draw(st.sampled_from(["posix", "mac", "windows", "windows_fwd", "tilde"]))
    tail = draw(st.sampled_from(["", "/notes.txt", "/a/b"]))
    if shape == "posix":
        text = "/ho" + "me/" + user + tail
    elif shape == "mac":
        text = "/Us" + "ers/" + user + tail
    elif shape == "windows":
        text = "C:\\Us" + "ers\\" + user + tail.replace("/", "\\")
    elif shape == "windows_fwd":
        text = "D:/Us" + "ers/" + user + tail
    else:
        text = "~" + user + "/" + (tail.lstrip("/") or "x")
    return text, "privacy.personal_path"


def _percent(text: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode("utf-8"))


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


ENCODINGS = {
    "percent": _percent,
    "percent_u": lambda t: "".join(f"%u{ord(c):04X}" for c in t),
    "html_decimal": lambda t: "".join(f"&#{ord(c)};" for c in t),
    "html_hex": lambda t: "".join(f"&#x{ord(c):X};" for c in t),
    "quoted_printable": lambda t: "".join(f"={b:02X}" for b in t.encode("utf-8")),
    "json_u": lambda t: "".join(f"\\u{ord(c):04x}" for c in t),
    "fullwidth": _fullwidth,
    "zero_width": lambda t: "\u200b".join(t),
    "word_joiner": lambda t: "\u2060".join(t),
    "lookalikes": lambda t: t.translate(str.maketrans({"/": "\u2215", "-": "\u2010", ".": "\u2024",
                                                        " ": "\u202f", "\\": "\u2216"})),
    "arabic_digits": lambda t: t.translate(str.maketrans({str(d): chr(0x0660 + d) for d in range(10)})),
    "url_query": lambda t: "https://r.example.org/go?to=" + urllib.parse.quote(t, safe="") + "&k=v",
    "url_fragment": lambda t: "https://r.example.org/page#" + urllib.parse.quote(t, safe="/"),
}

identifiers = st.one_of(emails(), phones(), ssns(), home_paths())
chains = st.lists(st.sampled_from(sorted(ENCODINGS)), min_size=0, max_size=3)
benign = st.sampled_from(["", "contact ", "see: ", "value (", "[x] ", "note\t"])
benign_after = st.sampled_from(["", " today", ")", " ok.", ";", "\tend"])


def _wrap(value: str, chain: list[str]) -> str:
    for name in chain:
        value = ENCODINGS[name](value)
    return value


@SETTINGS
@given(identifier=identifiers, chain=chains, before=benign, after=benign_after)
def test_any_identifier_in_any_encoding_chain_is_caught(identifier: tuple[str, str], chain: list[str], before: str,
                                                         after: str) -> None:
    value, code = identifier
    # Decoding layers inside a URL payload are peeled by the payload scan; everything else by the normaliser.
    text = before + _wrap(value, chain) + after
    for profile in (CONTRACT, REPOSITORY):
        found = scan_uncached(text, profile)
        assert code in found, (profile.name, chain)


@SETTINGS
@given(text=st.text(max_size=200))
def test_normaliser_is_idempotent_and_bounded(text: str) -> None:
    for quoted_printable in (False, True):
        result = normalise(text, quoted_printable=quoted_printable)
        assert result.rounds <= MAX_ROUNDS + 1
        if result.ok:
            again = normalise(result.text, quoted_printable=quoted_printable)
            assert again.ok and again.text == result.text and again.rounds == 0


@SETTINGS
@given(identifier=identifiers, chain=chains)
def test_encoded_text_normalises_to_a_fixed_point(identifier: tuple[str, str], chain: list[str]) -> None:
    text = _wrap(identifier[0], [name for name in chain if not name.startswith("url_")])
    result = normalise(text)
    assert result.ok
    assert normalise(result.text).text == result.text


@SETTINGS
@given(text=st.text(alphabet="%25&amp;#x40;=4\\u0", max_size=120))
def test_escape_soup_never_escapes_the_budget(text: str) -> None:
    result = normalise(text)
    assert result.status in ("ok", "not_converged", "too_long")
    assert len(result.text) <= 16384


def _outputs(collector: Collector) -> list[str]:
    out: list[str] = []
    for finding in collector.findings:
        out.extend([finding.message, finding.pointer, finding.artifact, repr(finding.to_json())])
    return out


def _forbidden(value: str) -> list[str]:
    normalised = normalise(value).text
    forms = {value, normalised}
    forms |= {hashlib.sha256(form.encode()).hexdigest() for form in list(forms)}
    forms |= {hashlib.sha1(form.encode()).hexdigest() for form in list(forms) if len(form) < 200}
    return [form for form in forms if len(form) >= 4]


@SETTINGS
@given(identifier=identifiers, chain=chains, as_key=st.booleans(), depth=st.integers(0, 3))
def test_no_output_contains_the_value(identifier: tuple[str, str], chain: list[str], as_key: bool, depth: int) -> None:
    value = _wrap(identifier[0], chain)
    document: object = {value: "benign"} if as_key else {"free": value}
    for _ in range(depth):
        document = {identifier[0]: [document]}
    for profile in (CONTRACT, REPOSITORY):
        collector = Collector()
        scan_json(document, profile, collector, "artifact.json")
        assert collector.findings, profile.name
        scan_text(f"x {value} y\n{identifier[0]}", profile, collector, "notes.txt")
        for output in _outputs(collector):
            for form in _forbidden(value) + _forbidden(identifier[0]):
                assert form not in output


lines = st.lists(st.one_of(st.sampled_from(["", "plain words", "x = 40", "5 / 3", "cd ~", "see: (", "\t", "1",
                                            "219", "-09-9999", "&amp;", "%", "https://example.org/?q=1"]),
                           identifiers.map(lambda pair: pair[0])), min_size=1, max_size=12)


@SETTINGS
@given(parts=lines, profile=st.sampled_from([CONTRACT, REPOSITORY]))
def test_block_screen_never_changes_text_results(parts: list[str], profile) -> None:
    from nerb_verify.privacy.engine import scan_string
    from nerb_verify.privacy.text_scan import _chunks, locate

    text = "\n".join(parts)
    screened = Collector()
    scan_text(text, profile, screened, "f.txt")
    expected = set()
    for number, line in enumerate(text.split("\n"), start=1):
        for start, chunk in _chunks(line):
            for code in scan_string(chunk, profile):
                expected.add((code, number, start + locate(chunk, code, profile) + 1))
    # Joined findings (split across lines, issue 17) come on top of the per-line ones.
    per_line = {(f.code, f.line, f.column) for f in screened.findings if not f.message.startswith(messages.JOINED)}
    assert per_line == expected


@SETTINGS
@given(digest=st.binary(min_size=32, max_size=32), prefix=st.sampled_from(["sha256:", "", "git ", "id="]),
       uuid=st.uuids())
def test_hashes_and_uuids_are_never_identifiers(digest: bytes, prefix: str, uuid) -> None:
    # Evidence is full of digests; a run of digits inside one (after a colon, say) must not look like a number.
    for text in (prefix + digest.hex(), str(uuid), digest.hex()[:40]):
        for profile in (CONTRACT, REPOSITORY):
            assert scan_uncached(text, profile) == frozenset(), (text, profile.name)


def test_random_tokens_in_every_decoded_encoding_raise_nothing() -> None:
    """Random bytes written as base32 (either case), base64 or hex are not rescanned as text, gzip/zlib headers
    glued to random bytes do not inflate to text, and a random decode does not pass as a bare ``name@host``.
    Seeded, so the run is reproducible; base64 tokens that start with a slash are left out (the token itself then
    reads as an absolute path to the contract profile, before any decoding)."""
    import base64
    import random

    rng = random.Random(20261129)
    for _ in range(3000):
        raw = rng.randbytes(rng.randint(9, 48))
        tokens = [base64.b32encode(raw).decode(), base64.b32encode(raw).decode().lower().rstrip("="),
                  base64.b64encode(raw).decode(), base64.b64encode(b"\x1f\x8b\x08\x00" + raw).decode(),
                  base64.b64encode(b"\x78\x9c" + raw).decode(), (b"\x78\x9c" + raw).hex()]
        for token in tokens:
            if token.startswith("/"):
                continue
            for profile in (CONTRACT, REPOSITORY):
                assert scan_uncached("token " + token, profile) == frozenset(), (token, profile.name)


def test_long_base64_runs_with_a_line_break_scan_in_linear_time() -> None:
    """A 16,000-character base64 run followed by a line break once took 10 s (the wrapped-base64 pattern backtracked
    quadratically from every start). Compared as a ratio within this run, not against a wall-clock bound: eight times
    the input must cost well under the 64 times a quadratic pattern would."""
    import base64
    import random
    import time

    from nerb_verify.privacy.engine import encoded_payloads

    rng = random.Random(7)

    def cost(size: int) -> float:
        text = base64.b64encode(rng.randbytes(size * 3 // 4)).decode() + "!\nx"
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            encoded_payloads(text)
            best = min(best, time.perf_counter() - start)
        return best

    small, large = cost(2000), cost(16000)
    assert large < 32 * max(small, 1e-4)
