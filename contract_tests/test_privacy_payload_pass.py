"""Issue 17 (fourth round), differential: the payload token pass's fast paths find exactly what the forms they
replace found.

``_reference_payloads`` is :func:`engine.encoded_payloads` as it was at ``b9557cb`` (every search over the whole
text, wrapped base64 by ``regex.finditer`` after the line-break hint, bare base85/ascii85 runs decoded by the
``base64`` module), kept here as the oracle. The fast form must
return the same list (same texts, same order) on every corpus row, every string of both bundles and every joined
view of their containers, 400+ installed source files, and seeded random payload-shaped texts (base64 / base32 /
hex / base85 / ascii85 / uuencode of text and of random bytes, UTF-16 with a byte order mark, gzip, reversed base64,
wrapped at 16, 60, 64 and 76 characters, with and without CRLF and blanks at the line ends). A mutation of each
necessary condition (one character stricter) must make the comparison fail, so the test can fail.

Must-reject values are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

import base64
import binascii
import gzip
import random
import re
import sysconfig
from pathlib import Path

import pytest
import regex

from contract_tests import bundle_texts, privacy_corpus, privacy_fp_corpus
from nerb_verify.privacy import engine, payloads
from nerb_verify.privacy.joined import views

_AT = "@"
_SECRETS = ["jane.roe" + _AT + "corp-mail" + ".org", "555-01" + "23-4567", "/ho" + "me/jroe/x",
            "call 0" + "20 7946 0" + "958 now", "hello world text"]


def _clear() -> None:
    for cache in (engine._base64_text, engine._reversed_base64_text, engine._base32_text, engine._hex_text,
                  engine._word_has_payload, payloads._ascii85_text, payloads._base85_text, payloads._uu_token_text,
                  payloads.word_has_raw_payload):
        cache.cache_clear()


def _reference_ascii85_text(run: str) -> str | None:
    if "z" in run:
        return payloads.as_text(payloads._decode_ascii85(run))
    return payloads._run_text(run, payloads._ASCII85_TEXT_LEADERS, payloads._ASCII85_NO_LEADER,
                              payloads._decode_ascii85)


def _reference_base85_text(run: str) -> str | None:
    return payloads._run_text(run, payloads._BASE85_TEXT_LEADERS, payloads._BASE85_NO_LEADER,
                              payloads._decode_base85)


def _reference_raw_payloads(text: str) -> list[str]:
    """``payloads.raw_payloads`` at ``b9557cb``: bare runs decoded by ``base64.a85decode`` / ``b85decode``."""
    found: list[str] = []
    if len(text) < 8:
        return found
    if "<~" in text:
        for match in payloads._ASCII85_ADOBE.finditer(text):
            decoded = payloads.as_text(payloads._decode_ascii85(match.group(1)))
            if decoded is not None:
                found.append(decoded)
    if len(text) >= payloads.MIN_BASE85_RUN:
        found.extend(payloads._bare_run_texts(text, payloads._ASCII85_WINDOW, payloads._ASCII85_REST,
                                              _reference_ascii85_text))
        found.extend(payloads._bare_run_texts(text, payloads._BASE85_WINDOW, payloads._BASE85_REST,
                                              _reference_base85_text))
    found.extend(payloads._uu_texts(text))
    return found


def _reference_payloads(clean: str) -> list[str]:
    """``engine.encoded_payloads`` at ``b9557cb``, with session 14's additions written plainly (base64 in groups of
    four searched over the whole text; a token without a short suffix glued after its only underscore or hyphen):
    the oracle."""
    found: list[str] = []
    if len(clean) < 12:
        return found
    tokens = [match.group(0) for match in engine._BASE64_TOKEN.finditer(clean)]
    if "\n" in clean:
        tokens += [regex.sub(r"\s+", "", match.group(0)) for match in engine._WRAPPED_BASE64.finditer(clean)]
    tokens += [regex.sub(r"[ -]", "", match.group(0)) for match in engine._GROUPED_BASE64.finditer(clean)]
    tokens += [match.group(0) for match in engine._GLUED_PADDING.finditer(clean)]  # (session 15)
    for token in tokens:
        text = engine._base64_text(token)
        if text is None:
            text = engine._reversed_base64_text(token)
        glue = [i for i, char in enumerate(token) if char in "_-"]
        if text is None and len(glue) == 1 and glue[0] >= 12 and len(token) - glue[0] - 1 <= 8:
            text = engine._base64_text(token[:glue[0]])
        if text is not None:
            found.append(text)
    for match in engine._BASE32_TOKEN.finditer(clean):
        text = engine._base32_text(match.group(0))
        if text is not None:
            found.append(text)
    for pattern in (engine._HEX_TOKEN, engine._SEPARATED_HEX):
        for match in pattern.finditer(clean):
            text = engine._hex_text(match.group(0))
            if text is not None:
                found.append(text)
    found.extend(_reference_raw_payloads(clean))
    return found


def _wrap(token: str, width: int, rng: random.Random) -> str:
    breaks = ["\n", "\r\n", " \n", "\n  ", "\t\r\n\t"]
    lines = [token[i:i + width] for i in range(0, len(token), width)]
    return "".join(line + rng.choice(breaks) for line in lines[:-1]) + lines[-1]


def _payload_texts(count: int, seed: int) -> list[str]:
    """Seeded random texts made of payload-shaped tokens (of secrets and of random bytes), words and code."""
    rng = random.Random(seed)
    words = ["plain", "snake_case_identifier_of_length", "return value", "def f(x):", "    self.assertEqual(",
             "0123456789abcdef" * 2, "M", "end", "begin 644 x", "<~", "~>", "import os", "# comment",
             "caf\u00e9 au lait", "\u2014", "\u65e5\u672c\u8a9e", "\U0001f600 ok"]
    texts: list[str] = []
    for _ in range(count):
        parts: list[str] = []
        for _ in range(rng.randint(1, 5)):
            if rng.random() < 0.5:
                raw = rng.choice(_SECRETS).encode() if rng.random() < 0.6 else rng.randbytes(rng.randint(6, 90))
                kind = rng.randrange(6)
                if kind == 1:
                    raw = rng.choice(_SECRETS).encode("utf-16")  # with its byte order mark
                elif kind == 2:
                    raw = gzip.compress(raw, mtime=0)
                elif kind == 3:
                    raw = ((rng.choice(_SECRETS) + " ") * rng.randint(2, 6)).encode()
                encoding = rng.randrange(9)
                if encoding == 0:
                    token = base64.b64encode(raw).decode()
                elif encoding == 1:
                    token = base64.b64encode(raw).decode()[::-1]
                elif encoding == 2:
                    token = base64.urlsafe_b64encode(raw).decode().rstrip("=")
                elif encoding == 3:
                    token = base64.b32encode(raw).decode()
                elif encoding == 4:
                    token = raw.hex() if rng.random() < 0.7 else " ".join(f"{byte:02x}" for byte in raw)
                elif encoding == 5:
                    token = base64.b85encode(raw).decode()
                elif encoding == 6:
                    token = base64.a85encode(raw).decode()
                elif encoding == 7:
                    token = binascii.b2a_uu(raw[:45]).decode().rstrip("\n")
                else:
                    token = base64.b64encode(raw * 3).decode()
                if encoding in (0, 1, 8) and rng.random() < 0.6:
                    token = _wrap(token, rng.choice([16, 17, 60, 64, 76]), rng)
                elif encoding in (0, 8) and rng.random() < 0.3:  # in groups of four (session 14)
                    token = rng.choice(" -").join(token[i:i + 4] for i in range(0, len(token), 4))
                elif encoding in (0, 2) and rng.random() < 0.3:  # a suffix glued on (session 14)
                    token = token.rstrip("=") + rng.choice(["_v2", "-final", "_x", "-2026"])
                elif encoding == 0 and token.endswith("=") and rng.random() < 0.4:  # glued after the padding (15)
                    token += rng.choice(["x", "=x", "_v2", "==", "AB", "-"])
                if rng.random() < 0.2:
                    cut = rng.randint(1, max(1, len(token) - 1))
                    token = token[:cut] if rng.random() < 0.5 else token[cut:]
                parts.append(token)
            else:
                parts.append(rng.choice(words))
            parts.append(rng.choice([" ", "\n", "\r\n", "\t", "=", ":", "", "\n    ", "x"]))
        texts.append("".join(parts))
    return texts


def _source_texts(limit: int = 420) -> list[str]:
    """Installed Python source files (the standard library's, then site-packages), at most 64 KiB each."""
    found: list[str] = []
    for key in ("stdlib", "purelib"):
        for path in sorted(Path(sysconfig.get_paths()[key]).rglob("*.py"))[::7]:
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if 200 < len(text) <= 65536:
                found.append(text)
            if len(found) >= limit:
                return found
    return found


def _edge_texts() -> list[str]:
    """The shortest token of each search that decodes to text, alone and in a line: a stricter necessary condition
    misses it."""
    short = ("jroe" + _AT + "x.o").encode()  # 8 bytes
    b64 = base64.b64encode(short * 2).decode()
    tokens = [base64.b32encode(short[:5] * 2).decode(), base64.b32encode(short[:5] * 2).decode().lower(),
              short[:6].hex(), short[:6].hex().upper(), " ".join(f"{byte:02x}" for byte in short[:6]),
              "-".join(f"{byte:02X}" for byte in short[:6]), b64[:16] + "\n" + b64[16:], b64[:16] + " \r\n\t" + b64[16:]]
    return [text for token in tokens for text in (token, "x = '" + token + "'\n", "a\n" + token + "\nb")]


def _corpus_texts() -> list[str]:
    texts = [row[1] for row in privacy_corpus.rows()]
    texts += [line for _kind, line in privacy_fp_corpus.MUST_PASS]
    texts += [privacy_fp_corpus.assemble(text) for _kind, text, _code in privacy_fp_corpus.MUST_FIND]
    return texts


@pytest.fixture(scope="module")
def texts() -> list[str]:
    joined = [view for pieces in bundle_texts.bundle_containers() for view in views(pieces)]
    sources = _source_texts()
    assert len(sources) >= 400
    return _edge_texts() + _corpus_texts() + bundle_texts.bundle_strings() + joined + _payload_texts(4000, 20261217) + sources


def _differences(texts: list[str]) -> list[str]:
    _clear()
    return [text for text in texts if engine.encoded_payloads(text) != _reference_payloads(text)]


def test_payload_pass_equals_the_reference(texts: list[str]) -> None:
    assert _differences(texts) == []
    wrapped = sum(1 for text in texts if engine._wrapped_base64_runs(text))
    assert wrapped > 300  # not vacuous: many texts hold wrapped base64


def test_a_stricter_wrap_start_fails_the_comparison(texts: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # One character more on the first line than _WRAPPED_BASE64 asks: runs with a 16-character first line are lost.
    monkeypatch.setattr(engine, "_WRAP_END_REVERSED", re.compile(r"\n\r?[ \t]*[A-Za-z0-9+/_-]{17}"))
    assert _differences(texts)


@pytest.mark.parametrize("name, stricter", [("_BASE32_RUN", b"x" * 17), ("_HEX_RUN", b"x" * 13),
                                            ("_SEPARATED_HEX_RUN", b"sxx" * 6)])
def test_a_stricter_whole_text_condition_fails_the_comparison(texts: list[str], monkeypatch: pytest.MonkeyPatch,
                                                              name: str, stricter: bytes) -> None:
    monkeypatch.setattr(engine, name, stricter)
    assert _differences(texts)


def test_raw_payloads_equal_the_reference(texts: list[str]) -> None:
    _clear()
    assert [text for text in texts if payloads.raw_payloads(text) != _reference_raw_payloads(text)] == []


def _module_decode(decode, body: str) -> bytes | None:
    try:
        return decode(body.encode("ascii"))
    except ValueError:
        return None


def _runs(alphabet: str, seed: int) -> list[str]:
    """Runs of every length 0-40 of an alphabet: random characters (many groups overflow), encodings of random
    bytes, and the highest and lowest digits (the overflow boundary)."""
    rng = random.Random(seed)
    runs = [alphabet[-1] * length for length in range(41)] + [alphabet[0] * length for length in range(41)]
    for _ in range(20000):
        length = rng.randrange(41)
        runs.append("".join(rng.choice(alphabet) for _ in range(length)))
    return runs


def test_the_group_decoder_equals_the_base64_module() -> None:
    ascii85 = payloads._ASCII85_CHARS.replace("z", "")
    encoded = [base64.a85encode(random.Random(size).randbytes(size)).decode() for size in range(60)]
    for run in _runs(ascii85, 1) + [run for run in encoded if "z" not in run]:
        assert payloads._decode_bare_ascii85(run) == _module_decode(base64.a85decode, run), run
    encoded = [base64.b85encode(random.Random(size).randbytes(size)).decode() for size in range(60)]
    for run in _runs(payloads._BASE85_ALPHABET, 2) + encoded:
        assert payloads._decode_bare_base85(run) == _module_decode(base64.b85decode, run), run
    # not vacuous: overflowing groups, and text, are both among them
    assert payloads._decode_bare_ascii85("uuuuu") is None
    assert payloads._decode_bare_base85(base64.b85encode(b"jroe-x").decode()) == b"jroe-x"


def test_a_decoder_padding_one_short_fails_the_comparison(monkeypatch: pytest.MonkeyPatch) -> None:
    real = payloads._decode_85_groups

    def mutated(body: str, values: bytes) -> bytes | None:
        raw = real(body, values)
        return raw[:-1] if raw and len(body) % 5 else raw

    monkeypatch.setattr(payloads, "_decode_85_groups", mutated)
    run = base64.b85encode(b"jroe-xy").decode()
    assert payloads._decode_bare_base85(run) != _module_decode(base64.b85decode, run)


def test_a_wrong_run_start_test_fails_the_comparison(texts: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # A run may not start right after a base64 character; taking a separator for one loses the runs after a blank.
    monkeypatch.setattr(engine, "_BASE64_MARK", ord("s"))
    assert _differences(texts)


@pytest.mark.parametrize("prefix", ["", "x ", "caf\u00e9 ", "\u65e5\u672c\u8a9e\u3000", "\U0001f600\U0001f600 ", "a\u0301-",
                                    "\ud800 "])
def test_grouped_runs_after_non_ascii_text_are_found_where_they_start(prefix: str) -> None:
    # The marks are one per character: a multi-byte character before the run must not shift where it is looked for.
    token = base64.b64encode(_SECRETS[0].encode()).decode()
    grouped = " ".join(token[i:i + 4] for i in range(0, len(token), 4))
    for text in (prefix + grouped, prefix + grouped + " \u00e9 " + grouped, prefix * 3 + "word " + grouped + "."):
        raw = text.encode("utf-8", "surrogatepass")
        expected = [match.group(0).replace(" ", "") for match in engine._GROUPED_BASE64.finditer(text)]
        assert expected and engine._grouped_base64_runs(text, raw) == expected


def test_a_longer_body_asked_after_glued_padding_fails_the_comparison(texts: list[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # The run before the padding must hold 12 characters, as the pattern asks; 13 loses the shortest tokens.
    monkeypatch.setattr(engine, "_MIN_BASE64_BODY", 13)
    assert _differences(texts)


def test_glued_padding_after_non_ascii_text_is_found_where_it_starts() -> None:
    token = base64.b64encode(_SECRETS[0].encode()).decode()
    for prefix in ("", "caf\u00e9 ", "\u65e5\u672c ", "\U0001f600=", "a\u0301."):
        text = prefix + token + "x and " + prefix + token + "==_v2"
        raw = text.encode("utf-8", "surrogatepass")
        expected = [match.group(0) for match in engine._GLUED_PADDING.finditer(text)]
        assert len(expected) == 2 and engine._glued_padding_tokens(text, raw) == expected


def test_a_stricter_group_screen_fails_the_comparison(texts: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # Four groups asked of the screen where the pattern needs three: runs of exactly four groups are lost.
    monkeypatch.setattr(engine, "_THREE_GROUPS", b"bbbbsbbbbsbbbbsbbbbs")
    assert _differences(texts)
