"""Issue 16/17 speed work, differential: the prefilter's payload question answered word by word, and its hints
tested in groups, give exactly the answers of the forms they replace.

* :func:`engine.has_encoded_payload` (the searches that may cross white space on the whole text, every other one
  per white-space-separated word, cached per word) against ``bool(engine.encoded_payloads(text))`` on every corpus
  row, every string of both bundles, every joined view of their containers, and seeded random texts built from
  encoded tokens of every kind (base64 forwards and backwards, base64url, wrapped base64, base32, hex plain and
  byte-separated, ascii85 blocks and bare runs, base85, uuencoded lines, blocks and tokens) glued to one another
  and to words with every kind of white space and glue character;
* :func:`prefilter.needs_full_scan` (literal-only and word-only hints tested in groups) against the per-hint loop it
  replaced, written here, on the same texts, in every profile.

Must-reject values are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

import base64
import binascii
import gzip
import random

import pytest

from contract_tests import privacy_corpus, privacy_fp_corpus
from contract_tests.bundle_texts import bundle_containers, bundle_strings
from nerb_verify.privacy import engine, payloads, prefilter
from nerb_verify.privacy.joined import views
from nerb_verify.privacy.profiles import PROFILES

_AT = "@"
_ADDRESS = "jane.roe" + _AT + "corp-mail" + ".org"
_SECRETS = [_ADDRESS, "555-01" + "23-4567", "/ho" + "me/jroe/x", "hello world text"]


def _clear() -> None:
    for cache in (engine._base64_text, engine._reversed_base64_text, engine._base32_text, engine._hex_text,
                  engine._word_has_payload, payloads._ascii85_text, payloads._base85_text, payloads._uu_token_text,
                  payloads.word_has_raw_payload):
        cache.cache_clear()


def _encodings(secret: str) -> list[str]:
    raw = secret.encode()
    b64 = base64.b64encode(raw).decode()
    gzipped = base64.b64encode(gzip.compress(raw, mtime=0)).decode()
    uu = binascii.b2a_uu(raw[:45]).decode().rstrip("\n")
    return [
        b64, b64.rstrip("="), b64[::-1], base64.urlsafe_b64encode(b"\xfb" + raw).decode(),
        "\n".join(b64[i:i + 16] for i in range(0, len(b64), 16)),
        "\n".join(gzipped[i:i + 16] for i in range(0, len(gzipped), 16)),
        base64.b32encode(raw).decode(), base64.b32encode(raw).decode().lower(),
        raw.hex(), " ".join(f"{byte:02x}" for byte in raw), ":".join(f"{byte:02X}" for byte in raw),
        "<~" + base64.a85encode(raw).decode() + "~>", "<~ " + base64.a85encode(raw, wrapcol=8).decode() + " ~>",
        base64.a85encode(raw).decode(), base64.b85encode(raw).decode(), "k=" + base64.b85encode(raw).decode(),
        uu, "begin 644 x\n" + uu + "\n`\nend", "payload " + uu + " end",
        binascii.b2a_uu(raw[:6]).decode().rstrip("\n"),  # a 9-character uuencoded token (the shortest)
        secret.encode("utf-16").hex(),
    ]


_WHITE = [" ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x1c", "\u3000", "\u00a0", ""]
_GLUE = ["", "=", ":", "/", "-", "_", "\"", "(", "\u2603", ".", ",", "x", "Q", "0"]
_WORDS = ["plain", "snake_case_identifier_of_length", "sha256", "ab12" * 8, "0123456789abcdef" * 2, "M", "end",
          "begin", "<~", "~>", "performance_29_median_seconds", "/quality/slices/0/metrics/precision"]


def _random_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    tokens = [token for secret in _SECRETS for token in _encodings(secret)]
    texts: list[str] = []
    for _ in range(count):
        parts: list[str] = []
        for _ in range(rng.randint(1, 6)):
            choice = rng.random()
            if choice < 0.45:
                token = rng.choice(tokens)
                if rng.random() < 0.3:  # cut: a half that may decode only joined with its neighbour
                    cut = rng.randint(1, max(1, len(token) - 1))
                    token = token[:cut] if rng.random() < 0.5 else token[cut:]
                parts.append(token)
            elif choice < 0.8:
                parts.append(rng.choice(_WORDS))
            else:
                parts.append("".join(rng.choice("AZaz09+/_-=! ~`M\n\t:") for _ in range(rng.randint(1, 20))))
            parts.append(rng.choice(_WHITE) + rng.choice(_GLUE) if rng.random() < 0.6 else rng.choice(_WHITE))
        texts.append("".join(parts))
    return texts


def _bundle_texts() -> list[str]:
    texts = bundle_strings()
    for pieces in bundle_containers(2):
        texts.extend(views(pieces))
    return texts


def _corpus_texts() -> list[str]:
    texts = [row[1] for row in privacy_corpus.rows()]
    texts += [line for _kind, line in privacy_fp_corpus.MUST_PASS]
    texts += [privacy_fp_corpus.assemble(text) for _kind, text, _code in privacy_fp_corpus.MUST_FIND]
    return texts + [text[: len(text) // 2] for text in texts] + [text[len(text) // 2:] for text in texts]


# Near misses of the hints: a word of a digit-counting hint with too few digits, a literal next to a word, ...
_HINT_WORDS = ["ssn", "social", "SSN 1234", "tel", "phone 12", "call 1-2", "doc_id", "DOC_", "file:", "FILE:x",
               "home", "users", "Documents and Settings", "%appdata%", "ng", "1o", "at", " at ", "(at)", "~", "$",
               "0011", "+1", "12345", "555 0123", "1234567890", "a\\b", "x..y", "-I/x", "C:/", "http://x"]


def _hint_texts() -> list[str]:
    rng = random.Random(17)
    return [" ".join(rng.choice(_HINT_WORDS + _WORDS) for _ in range(rng.randint(1, 4))) for _ in range(1500)]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return _corpus_texts() + _bundle_texts() + _random_texts(3000, 20261201) + _hint_texts()


def test_payloads_word_by_word_equal_the_whole_text_search(texts: list[str]) -> None:
    _clear()
    found = 0
    for text in texts:
        expected = bool(engine.encoded_payloads(text))
        assert engine.has_encoded_payload(text) == expected, text
        found += expected
    # and again with every cache filled by other texts first (a word's cached answer is that of any text)
    for text in reversed(texts):
        assert engine.has_encoded_payload(text) == bool(engine.encoded_payloads(text)), text
    assert found > 1000  # not vacuous: many texts hold a payload


def _words_only(text: str) -> bool:
    """The per-word part alone (what the whole-text searches add is the difference)."""
    return len(text) >= 12 and any(engine._word_has_payload(word) for word in text.split())


def test_the_whole_text_searches_are_needed_and_exercised() -> None:
    # Texts where only a search that crosses white space finds the payload: byte-separated hex with spaces, a
    # wrapped base64 token, an ascii85 block with blanks, a uuencoded block. Dropping any whole-text search from
    # has_encoded_payload makes the differential test above fail on such texts (the random texts hold them).
    raw = _ADDRESS.encode()
    # (gzip: each 16-character line alone inflates to too little text; wrapped, the stream is read whole)
    wrapped = base64.b64encode(gzip.compress(raw, mtime=0)).decode()
    crossing = [" ".join(f"{byte:02x}" for byte in raw),
                "\n".join(wrapped[i:i + 16] for i in range(0, len(wrapped), 16)),
                "<~ " + base64.a85encode(raw, wrapcol=8).decode().replace("\n", " ") + " ~>",
                "begin 644 x\n" + binascii.b2a_uu(raw).decode() + "`\nend"]
    _clear()
    for text in crossing:
        assert engine.has_encoded_payload(text) and bool(engine.encoded_payloads(text)), text
        assert not _words_only(text), text
    # ... and the shortest per-word token (a 9-character uuencoded line) is found, inside a longer text only
    token = binascii.b2a_uu(b"jroe-1").decode().rstrip("\n")
    assert len(token) == 9 and engine.has_encoded_payload("x " + token + " y")
    assert not engine.has_encoded_payload(token) and not engine.encoded_payloads(token)  # under 12 characters
    # a split that also cut at "-" or "_" would break base64url tokens: such a token is found only whole
    url = base64.urlsafe_b64encode(("jro???" + _AT + "x.org").encode()).decode()
    assert max(len(part) for part in url.replace("-", "_").split("_")) < 12  # each part too short to decode
    assert engine.has_encoded_payload(url)


def _reference_needs_full_scan(text: str, profile) -> bool:
    """The per-hint loop :func:`prefilter.needs_full_scan` used before its hints were grouped (every hint in turn,
    digits counted by deleting them)."""
    if len(text) > profile.max_chars:
        return True
    hints: list[prefilter.Hint] = list(prefilter.ENGINE_HINTS + engine.PREFILTER_HINTS)
    for name in profile.rule_names:
        known = prefilter.RULE_HINTS.get(name)
        if known is None:
            return True
        hints.extend(known if isinstance(known, tuple) else known())
    low = text.lower()
    digits = len(text) - len(text.translate(str.maketrans("", "", "0123456789")))
    for hint in hints:
        if hint.literal is not None and hint.literal not in text:
            continue
        if digits < hint.min_digits:
            continue
        if hint.lower and not any(word in low for word in hint.lower):
            continue
        if hint.pattern is not None:
            pattern = prefilter.re.compile(prefilter._ascii_classes(hint.pattern))
            if pattern.search(low if hint.on_lower else text) is None:
                continue
        return True
    return bool(engine.encoded_payloads(text))


@pytest.mark.parametrize("profile_name", sorted(PROFILES))
def test_grouped_hints_equal_the_per_hint_loop(texts: list[str], profile_name: str) -> None:
    profile = PROFILES[profile_name]
    skipped = 0
    sample = texts
    for text in sample:
        fast = prefilter.needs_full_scan(text, profile.rule_names, profile.max_chars, engine.PREFILTER_HINTS,
                                         engine.has_encoded_payload)
        assert fast == _reference_needs_full_scan(text, profile), text
        skipped += not fast
    assert skipped > len(sample) // 10  # not vacuous: the prefilter does skip texts


def test_plan_groups_only_plain_hints() -> None:
    # The literal group holds the literal-only hints' literals, the word group the word-only hints' words; every
    # other hint stays in the loop (a hint with a pattern, a digit count, or both a literal and words).
    profile = PROFILES["repository"]
    plan = prefilter._hints(profile.rule_names, engine.PREFILTER_HINTS)
    assert plan is not None
    assert "@" in plan.literals and "~" in plan.literals and "file:" in plan.words
    assert all(hint.pattern is not None or hint.min_digits or (hint.literal and hint.lower) for hint in plan.rest)


def test_raw_payloads_word_by_word_equal_the_whole_text_search() -> None:
    """``payloads.raw_payloads`` reads a long text beyond ASCII word by word (each word's runs and token cached):
    the same list, in the same order, as the whole-text search, on long non-ASCII texts built from every encoded
    token kind (Adobe blocks and uuencoded lines cross white space), words, glue and every kind of white space, and
    again with the word cache filled by other texts first."""
    rng = random.Random(20261203)
    pieces = _random_texts(2000, 20261203)
    long_texts = []
    for _ in range(300):
        text = ""
        while len(text) < payloads.BIT_PARALLEL_MIN + rng.randint(0, 400):
            text += rng.choice(pieces) + rng.choice(_WHITE + ["\u00e9", "\uff20", "\u2028", "\u0301 ", "\u4e03"])
        long_texts.append(text if not text.isascii() else text + "\u00e9")
    payloads._word_raw_texts.cache_clear()
    found = 0
    for text in long_texts + long_texts[::-1]:
        expected = payloads.raw_payloads_whole(text)
        assert payloads.raw_payloads(text) == expected, text
        found += bool(expected)
    assert found > 100 and payloads._word_raw_texts.cache_info().hits > 1000  # not vacuous, and cached
