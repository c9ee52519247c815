"""Issue 16/17 speed work, differential: the base64 token finders and decoders rewritten for speed in session 10
give exactly what the forms they replace give.

* :func:`engine._base64_tokens` against ``_BASE64_TOKEN.finditer`` (the lookbehind written as a consumed
  character) and :func:`engine._wrap_starts` (session 11: found from the line breaks, in the text read backwards)
  against every place the wrap condition, written here as one forward pattern, holds; on every string of both bundles,
  on the repository's own source files, and on seeded random texts drawn from an alphabet dense in the cases that
  matter: a token at the very start, after "=", before three or more "=", URL-safe and standard characters, short
  runs, line breaks with blanks and carriage returns, and non-ASCII letters.
* The two rewritten views' byte screens (session 11): wherever ``_LETTER_DIGIT_HINT`` or ``_ROT13_AT_HINT`` matches, its
  screen holds (they are necessary conditions), on the same texts and on texts dense in digits of other scripts next
  to an "O", "ng" words and lone surrogates; each condition is needed (a screen without one part misses a hint).
* :func:`engine._base64_text` and :func:`engine._reversed_base64_text` (one encoding per token, the leader screen on
  bytes) against the per-alignment forms they replace, written out here, on every token of both bundles and of the
  repository's source, on seeded random tokens, and on tokens that do carry text: base64 of ASCII, of UTF-16 with and
  without a byte order mark, of gzip, reversed, URL-safe, glued to a prefix, with one to three characters too many.

Must-reject values are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

import base64
import gzip
import random
import re
from pathlib import Path

import pytest

from contract_tests.bundle_texts import bundle_strings
from nerb_verify.privacy import engine, payloads
from nerb_verify.privacy.payloads import as_text

REPO = Path(__file__).resolve().parent.parent
_AT = "@"
_SECRETS = ["jane.roe" + _AT + "corp-mail" + ".org", "555-01" + "23-4567", "/ho" + "me/jroe/x", "hello world text"]


# --- the forms replaced (session 9's code), the oracles -------------------------------------------------------

def _reference_tokens(clean: str) -> list[str]:
    return [match.group(0) for match in engine._BASE64_TOKEN.finditer(clean)]


# The wrap condition as one forward pattern (session 10's ``_WRAP_START``), inside a lookahead: ``finditer`` then
# yields every place it holds.
_WRAP_CONDITION = re.compile(r"(?=(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}[ \t]*\r?\n[ \t]*[A-Za-z0-9+/_-]{4})")


def _reference_wrap_starts(clean: str) -> list[int]:
    return [match.start() for match in _WRAP_CONDITION.finditer(clean)]


def _reference_base64_text(token: str) -> str | None:
    if token.isdigit():
        return None
    for offset in range(4):
        if len(token) - offset < 12:
            break
        text = as_text(engine._decode_base64(token[offset:]))
        if text is not None:
            return text
    return None


def _reference_mostly(leaders: str) -> bool:
    allowed = engine._B64_TEXT_LEADERS
    return bool(leaders) and len(leaders) - len(leaders.translate(allowed)) >= engine._MIN_LEADER_SHARE * len(leaders)


def _reference_reversed_text(token: str) -> str | None:
    body = token.rstrip("=")[::-1].lstrip("=")
    for offset in range(4):
        if len(body) - offset < 12:
            break
        if _reference_mostly(body[offset::4]):
            text = as_text(engine._decode_base64(body[offset:]))
            if text is not None:
                return text
    return None


# --- texts ----------------------------------------------------------------------------------------------------

_PIECES = ["A", "Z", "a", "q", "0", "9", "+", "/", "-", "_", "=", "==", "===", " ", "\t", "\n", " \n  ", "\r\n",
           ".", ":", "é", "ß", "\u0430", "abcdefghijkl", "ABCDEFGHIJKLMNOP", "dGVzdA", "x" * 11, "Q" * 16]


def _random_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        texts.append("".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 40))))
    return texts


def _source_texts() -> list[str]:
    files = sorted((REPO / "nerb_verify").rglob("*.py"))[:60] + sorted((REPO / "docs").glob("*.md"))[:10]
    return [path.read_text(encoding="utf-8") for path in files]


def _text_tokens(secret: str) -> list[str]:
    raw = secret.encode()
    b64 = base64.b64encode(raw).decode()
    tokens = [b64, b64.rstrip("="), b64[::-1], b64.rstrip("=")[::-1],
              base64.urlsafe_b64encode(b"\xfb\xff" + raw).decode(),
              base64.b64encode(secret.encode("utf-16")).decode(), base64.b64encode(secret.encode("utf-16-be")).decode(),
              base64.b64encode(secret.encode("utf-32")).decode(), base64.b64encode(gzip.compress(raw, mtime=0)).decode()]
    glued = [prefix + token for token in tokens for prefix in ("k", "ke", "key", "keyZ")]
    return tokens + glued + [token + "=" for token in tokens] + [token + "==" for token in tokens]


def _all_tokens() -> list[str]:
    texts = [*bundle_strings(), *_source_texts(), *_random_texts(3000, 10)]
    tokens = {token for text in texts for token in _reference_tokens(text)}
    rng = random.Random(11)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_"
    for _ in range(4000):
        tokens.add("".join(rng.choice(alphabet) for _ in range(rng.randint(12, 80))) + "=" * rng.randint(0, 2))
    for secret in _SECRETS:
        tokens.update(_text_tokens(secret))
    # Inputs no pattern yields, for the general path: non-ASCII, "=" inside, digits only, padding only.
    tokens.update(["abcdefghijklé0", "abcd=efghijklmn", "123456789012345", "=" * 14, "ab" + "=" * 12])
    return sorted(tokens)


# --- tests ----------------------------------------------------------------------------------------------------

def test_token_finder_matches_the_pattern_on_every_text() -> None:
    texts = [*bundle_strings(), *_source_texts(), *_random_texts(20000, 7)]
    assert sum(bool(engine._BASE64_TOKEN.match(text)) for text in texts) > 100  # tokens at the very start
    assert any(re.search(r"=[A-Za-z0-9+/_-]{12}", text) for text in texts)  # tokens right after "="
    assert any(re.search(r"[A-Za-z0-9+/_-]{12}===", text) for text in texts)  # runs the lookahead refuses
    for text in texts:
        assert engine._base64_tokens(text) == _reference_tokens(text)


def test_wrap_starts_are_every_place_the_wrap_condition_holds() -> None:
    texts = [*bundle_strings(), *_source_texts(), *_random_texts(20000, 9)]
    found = at_start = 0
    for text in texts:
        expected = _reference_wrap_starts(text)
        assert engine._wrap_starts(text) == expected
        found += len(expected)
        at_start += bool(expected) and expected[0] == 0
    assert found > 200 and at_start > 10  # not vacuous: many places, some at the very start of a text


def test_a_stricter_reversed_wrap_end_fails_the_comparison(monkeypatch: pytest.MonkeyPatch) -> None:
    """A first line one character longer than the condition asks (17) loses the places with exactly 16."""
    monkeypatch.setattr(engine, "_WRAP_END_REVERSED", re.compile(r"\n\r?[ \t]*[A-Za-z0-9+/_-]{17}"))
    texts = _random_texts(5000, 9)
    assert any(engine._wrap_starts(text) != _reference_wrap_starts(text) for text in texts)


_HINT_PIECES = ["O", "o", "OO", "0", "7", "\u0665", "\u0967", "\uff15", "\ud800", "a", "Z", "ng", "NG", "nG", "n",
                "g", " ", "-", ".", "\n", "é", "\u0430", "1O", "O1", "xng", "ngx", " ng ", "5o",
                "I", "l", "Il", "3l", "I4", "i", "L"]  # (session 15: I and l for a one)


def _hint_texts() -> list[str]:
    rng = random.Random(12)
    texts = ["".join(rng.choice(_HINT_PIECES) for _ in range(rng.randint(0, 12))) for _ in range(20000)]
    return texts + ["ng", "O", "1O", "O1", "\u0665O", "O\u0665", "x ng", "ng y", "a\ud8001O", "1l", "I1", "\u0665l"]


def _screens(text: str) -> tuple[bool, bool]:
    raw = text.encode("utf-8", "surrogatepass")
    return engine._may_have_letter_digit(raw), engine._may_have_rot13_at(raw)


def test_the_rewritten_view_screens_hold_wherever_a_hint_matches() -> None:
    texts = [*bundle_strings(), *_source_texts(), *_random_texts(5000, 13), *_hint_texts()]
    letter_o = rot13 = skipped = 0
    for text in texts:
        may_o, may_rot13 = _screens(text)
        if engine._LETTER_DIGIT_HINT.search(text) is not None:
            assert may_o, text
            letter_o += 1
        if engine._ROT13_AT_HINT.search(text) is not None:
            assert may_rot13, text
            rot13 += 1
        skipped += not may_o and not may_rot13
    assert letter_o > 1000 and rot13 > 1000 and skipped > 1000  # hints of both kinds, and texts the screens skip


@pytest.mark.parametrize("marks, kept", [("_DIGIT_LETTER_MARKS", "od"), ("_DIGIT_LETTER_MARKS", "do"),
                                         ("_NG_MARKS", "start"), ("_NG_MARKS", "end")])
def test_each_part_of_a_screen_is_needed(monkeypatch: pytest.MonkeyPatch, marks: str, kept: str) -> None:
    """A screen that drops one of its parts misses a hint: "do" (a digit before the O), "od" (after the run), a
    non-ASCII digit marked as one, and "ng" at a text's start or end."""
    if marks == "_DIGIT_LETTER_MARKS":
        monkeypatch.setattr(engine, "_may_have_letter_digit",
                            lambda raw: ("d" + "o" if kept == "do" else "o" + "d").encode() in raw.translate(
                                engine._DIGIT_LETTER_MARKS))
        texts = ["x1O", "Oo5", "\u0665O", "O\u0967", "x1l", "Il5"]
        assert any(engine._LETTER_DIGIT_HINT.search(text) and not _screens(text)[0] for text in texts)
    else:
        monkeypatch.setattr(engine, "_may_have_rot13_at",
                            lambda raw: b".ng." in raw.translate(engine._NG_MARKS) or (
                                raw.translate(engine._NG_MARKS).startswith(b"ng") if kept == "start"
                                else raw.translate(engine._NG_MARKS).endswith(b"ng")))
        texts = ["ng at", "at ng"]
        assert any(engine._ROT13_AT_HINT.search(text) and not _screens(text)[1] for text in texts)


def test_a_non_ascii_digit_counts_as_a_digit_in_the_letter_o_screen() -> None:
    table = bytearray(engine._DIGIT_LETTER_MARKS)
    for byte in range(0x80, 0x100):
        assert table[byte] == ord("d")
    assert engine._LETTER_DIGIT_HINT.search("\u0665O") and engine._may_have_letter_digit("\u0665O".encode())


def test_decoders_match_the_per_alignment_forms() -> None:
    tokens = _all_tokens()
    forwards = backwards = 0
    for token in tokens:
        engine._base64_text.cache_clear()
        engine._reversed_base64_text.cache_clear()
        forward = _reference_base64_text(token)
        backward = _reference_reversed_text(token)
        assert engine._base64_text(token) == forward, token
        assert engine._reversed_base64_text(token) == backward, token
        forwards += forward is not None
        backwards += backward is not None
    # The corpus holds tokens that decode, both ways (a test of None == None alone would prove nothing).
    assert forwards >= 4 * len(_SECRETS) and backwards >= 2 * len(_SECRETS)


def test_the_leader_screen_keeps_a_share_of_exactly_sixty_percent() -> None:
    """Five groups, two of them led by a UTF-8 lead byte ("w"): 3 of 5 leaders can lead ASCII text, exactly the
    share the screen asks for, and the reversed token is decoded (a mutant asking for more fails)."""
    raw = "\u00e9a\u00e9b".encode() + b"abcdefghi"
    token = base64.b64encode(raw).decode()
    assert [token[i] for i in range(0, len(token), 4)].count("w") == 2 and len(token) == 20
    engine._reversed_base64_text.cache_clear()
    assert engine._reversed_base64_text(token[::-1]) == raw.decode() == _reference_reversed_text(token[::-1])


@pytest.mark.parametrize("secret", _SECRETS)
def test_every_alignment_of_a_glued_payload_is_still_decoded(secret: str) -> None:
    """A mutant that tried fewer alignments, or decoded the wrong slice, fails here."""
    b64 = base64.b64encode(secret.encode()).decode()
    for prefix in ("", "k", "ke", "key"):
        token = prefix + b64
        engine._base64_text.cache_clear()
        assert engine._base64_text(token) == secret
        engine._reversed_base64_text.cache_clear()
        assert engine._reversed_base64_text(token[::-1]) == secret


# --- the bit-parallel base85 / ascii85 window search (session 11) ---------------------------------------------

def _reference_window_starts(text: str, window: re.Pattern[str]) -> list[int]:
    return [match.start() for match in re.finditer("(?=" + window.pattern + ")", text)]


def _starts_of(hits: bytes) -> list[int]:
    return [index for index, value in enumerate(hits) if value]


_WINDOW_PIECES = ["!", "I", "J", "u", "v", "z", "~", "0", "9", "A", "e", "f", "Z", "a", "{", "}", "@", "^", " ", "\n",
                  "\t", "<~", "abcde", "ABCDEFGHIJKLMN", "!!!!!", "0a0a0", "vvvvv", "%&()*"]


def _window_texts() -> list[str]:
    rng = random.Random(14)
    texts = []
    for _ in range(400):
        body = "".join(rng.choice(_WINDOW_PIECES) for _ in range(rng.randint(100, 400)))
        texts.append(body)
        texts.append(body + "ABCDEFGHIJKLMN")  # a window that ends exactly at the text's end
    return texts


def test_bit_parallel_windows_are_the_pattern_matches() -> None:
    texts = [*_source_texts(), *_window_texts()]
    compared = ascii_windows = base_windows = at_end = 0
    for text in texts:
        hits = payloads._class_hits(text)
        if hits is None:
            assert len(text) < payloads.BIT_PARALLEL_MIN or not text.isascii()
            continue
        ascii85 = _reference_window_starts(text, payloads._ASCII85_WINDOW)
        base85 = _reference_window_starts(text, payloads._BASE85_WINDOW)
        assert _starts_of(hits[0]) == ascii85
        assert _starts_of(hits[1]) == base85
        compared += 1
        ascii_windows += len(ascii85)
        base_windows += len(base85)
        at_end += bool(base85) and base85[-1] == len(text) - payloads.MIN_BASE85_RUN
    assert compared > 500 and ascii_windows > 1000 and base_windows > 1000 and at_end > 100


def test_the_runs_found_from_the_hits_are_those_found_by_the_search() -> None:
    for text in [*_source_texts(), *_window_texts()]:
        hits = payloads._class_hits(text)
        if hits is None:
            continue
        for window, rest, found in ((payloads._ASCII85_WINDOW, payloads._ASCII85_REST, hits[0]),
                                    (payloads._BASE85_WINDOW, payloads._BASE85_REST, hits[1])):
            runs: list[str] = []
            searched: list[str] = []
            payloads._bare_run_texts(text, window, rest, runs.append, found)  # type: ignore[arg-type]
            payloads._bare_run_texts(text, window, rest, searched.append)  # type: ignore[arg-type]
            assert runs == searched


# --- base32 tokens from the run starts of the marks (session 11) ----------------------------------------------

_BASE32_PIECES = ["ABCDEFGH", "IJKLMNOP", "QRSTUVWX", "YZ234567", "abcdefgh", "ijklmnop", "qrstuvwx", "yz234567", "A",
                  "a", "2", "7", "0", "1", "8", "9", "=", "==", "===", " ", "\n", "-", ".", "_", "é", "\u0430", "Ab"]


def _base32_texts() -> list[str]:
    rng = random.Random(15)
    return ["".join(rng.choice(_BASE32_PIECES) for _ in range(rng.randint(0, 30))) for _ in range(6000)]


def _reference_base32_tokens(text: str) -> list[str]:
    return [match.group(0) for match in engine._BASE32_TOKEN.finditer(text)]


def test_base32_tokens_match_the_pattern_on_every_text() -> None:
    texts = [*bundle_strings(), *_source_texts(), *_base32_texts()]
    found = from_runs = 0
    for text in texts:
        expected = _reference_base32_tokens(text)
        assert engine._base32_tokens(text, text.encode("utf-8", "surrogatepass")) == expected, text
        found += len(expected)
        from_runs += bool(expected) and text.isascii()
    assert found > 400 and from_runs > 100  # not vacuous: tokens of both cases, found from the runs


@pytest.mark.parametrize("mutant", ["stricter", "upper only"])
def test_a_base32_mutant_fails_the_comparison(monkeypatch: pytest.MonkeyPatch, mutant: str) -> None:
    if mutant == "stricter":
        monkeypatch.setattr(engine, "_BASE32_RUN", b"x" * 17)
    else:
        monkeypatch.setattr(engine, "_BASE32_LOWER_MARKS", engine._BASE32_UPPER_MARKS)
    texts = _base32_texts()
    assert any(engine._base32_tokens(text, text.encode("utf-8", "surrogatepass")) != _reference_base32_tokens(text)
               for text in texts)


def test_a_word_is_uudecoded_as_the_token_search_does() -> None:
    """``payloads._uu_word_text`` (session 11: a word can only be one token, whole) gives the first text of
    ``_uu_token_texts`` on every word: uuencoded lines of text (right length, one character more or less, a wrong
    length character), random words of the uuencode alphabet, and the source's and bundles' words."""
    import binascii

    rng = random.Random(18)
    words: list[str] = []
    for secret in _SECRETS:
        line = binascii.b2a_uu(secret.encode()).decode().rstrip("\n").replace(" ", "`")
        words += [line, line + "A", line[:-1], chr(ord(line[0]) + 1) + line[1:], "x" + line]
    alphabet = [chr(code) for code in range(ord("!"), ord("`") + 1)]
    words += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 70))) for _ in range(5000)]
    words += [word for text in [*bundle_strings(), *_source_texts()] for word in text.split()]
    texts = 0
    for word in words:
        found = payloads._uu_token_texts(word)
        assert payloads._uu_word_text(word) == (found[0] if found else None), word
        texts += bool(found)
    assert texts >= len(_SECRETS)  # not vacuous: the uuencoded lines of text decode


def _reference_uu_starts(text: str) -> list[int]:
    """Where a uuencoded token can start: ``_UU_TOKEN`` matches, after white space or at the text's start."""
    return [index for index in range(len(text))
            if payloads._UU_TOKEN.match(text, index) and (index == 0 or text[index - 1].isspace())]


_UU_PIECES = ["M", "!", "A", "`", "_", "a", "z", "~", " ", "\t", "\n", "\x1c", "\x0b", "ABCDEFG", "!!!!!!!", "0123",
              "M" + "A" * 60, "&5A:7-T", "x"]


def test_bit_parallel_uuencode_starts_are_the_token_starts() -> None:
    rng = random.Random(19)
    texts = [*_source_texts(), *_window_texts()]
    texts += ["".join(rng.choice(_UU_PIECES) for _ in range(rng.randint(80, 200))) for _ in range(800)]
    compared = starts_seen = at_start = 0
    for text in texts:
        hits = payloads._class_hits(text)
        if hits is None:
            continue
        expected = _reference_uu_starts(text)
        assert _starts_of(hits[2]) == expected
        assert payloads._uu_token_texts(text, hits[2]) == payloads._uu_token_texts(text)
        compared += 1
        starts_seen += len(expected)
        at_start += bool(expected) and expected[0] == 0
    assert compared > 500 and starts_seen > 2000 and at_start > 10


def test_marked_token_finder_matches_the_pattern_on_every_text() -> None:
    """``engine._marked_base64_tokens`` (long texts: the tokens read on byte marks) finds exactly what
    ``_BASE64_TOKEN.finditer`` finds, on source, bundle strings and random texts, each also with non-ASCII
    characters (several bytes each) and "=" runs put between its pieces."""
    texts = [*bundle_strings(), *_source_texts(), *_random_texts(20000, 8)]
    rng = random.Random(12)
    extra = []
    for text in texts[-3000:]:
        cut = rng.randint(0, len(text))
        extra.append(text[:cut] + rng.choice(["\u00e9", "\U0001d400", "=", "==", "===", "\ud800", "\u2603="])
                     + text[cut:])
    checked = 0
    for text in texts + extra:
        raw = text.encode("utf-8", "surrogatepass")
        expected = _reference_tokens(text)
        assert engine._marked_base64_tokens(raw) == expected, text
        checked += bool(expected)
    assert checked > 1000
