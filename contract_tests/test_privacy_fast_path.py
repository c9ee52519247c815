"""Issue 17 speed work, differential: the scanner's fast paths find exactly what its full path finds.

* Documents: :func:`json_scan.scan_json` (the walk with its per-scan memo, the prefilter in front of every string,
  the screened joined views) against an oracle written here from the contract of ``scan_json``'s docstring: a plain
  recursive walk that runs the full path (:func:`engine.scan_full`, no prefilter, no cache) on every key and string,
  on every array's spelled text and on every chunk of every joined view. Generated documents are built around the
  prefilter's hints (digits and separators, at-signs, slashes, options, escapes, encoded identifiers, look-alikes).
* Strings: :func:`engine.scan_uncached` (prefilter, then the full path) equals :func:`engine.scan_full` in every
  profile, on generated identifier-like strings (snake/camel/dotted identifiers, digests, base64 and hex of text,
  option-attached paths, numbers with separators).
* The rewritten primitives against the forms they replace: the bare base85/ascii85 run finder (one search per run,
  the run's start found on the reversed text) against the character walk, the base64 decoder (``binascii`` without
  the ``base64`` wrapper) against the ``base64`` module, and the printable-text test's fast path against the
  general one.

Must-reject values are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

import base64
import binascii
import gzip
import random
import unicodedata
import zlib
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nerb_verify import pointers
from nerb_verify.findings import Collector
from nerb_verify.privacy import engine, joined, json_scan, normalise, payloads
from nerb_verify.privacy.profiles import CONTRACT, PROFILES, REPOSITORY

SETTINGS = settings(max_examples=100, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

_AT = "@"
_ADDRESS = "jane.roe" + _AT + "corp-mail" + ".org"
_FRAGMENTS = [
    "jane.roe", _AT + "corp-mail.org", _ADDRESS, "713", "555", "-0123", "555 2368", "(713)", "219-09-", "9999",
    "+44 20 " + "7946 0", "00", "011", "/ho" + "me/", "jroe", "C:" + "\\Us" + "ers\\", "~" + "jroe/",
    "-I/usr/include", "--out",
    "/tmp/out", "../", "file:", "%40", "&#64;", "\\u0040", "=40", "ng", "O", "(at)", "[dot]", " at ", " dot ",
    "tel", "ssn", "doc_", "http://host/x?q=", "sha256:", "ab12" * 8, "scale_1000", "direct_bank_scan_harness",
    "2026-07-15T09:26:30Z", "0.9530201342281879", "\uff10", "\u2215", "\u0430", "\u00a0",
    base64.b64encode(_ADDRESS.encode()).decode(), _ADDRESS.encode().hex(),
    base64.b32encode(_ADDRESS.encode()).decode(), base64.b85encode(_ADDRESS.encode()).decode(),
]
_ALPHABET = "0123456789 -./_~:+()[]\t\n@%&=\\#$<>{}\"'abcdefghijklmnopqrstuvwxyzOAT"

_text = st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(alphabet=_ALPHABET, max_size=8)),
                 max_size=5).map("".join)
_VOCABULARY = sorted(pointers.known_keys())[:40]
_keys = st.one_of(st.sampled_from(_VOCABULARY), _text)
_numbers = st.one_of(st.integers(min_value=-10, max_value=10**5), st.integers(min_value=10**8, max_value=10**15),
                     st.sampled_from([106, 97, 110, 101, 64]))
_documents = st.recursive(
    st.one_of(st.none(), st.booleans(), _numbers, _text),
    lambda children: st.one_of(st.lists(children, max_size=7), st.dictionaries(_keys, children, max_size=5)),
    max_leaves=30)


def _full_joined(pieces: list[str], profile) -> set[str]:
    """What a container's joined views raise that no piece raises, every view chunk on the full path."""
    piece_codes: set[str] = set()
    for piece in pieces:
        piece_codes |= engine.scan_full(piece, profile)
    found: set[str] = set()
    for view in joined.views(pieces):
        for chunk in joined._chunks(view):
            codes = engine.scan_full(chunk, profile)
            found |= {joined.JOINED_BUDGET} if codes & engine.FAIL_CLOSED else codes
    if piece_codes & engine.FAIL_CLOSED:
        found.discard(joined.JOINED_BUDGET)
    return found - piece_codes


def _oracle(document: Any, profile) -> list[tuple[str, str]]:
    """(code, pointer) of every finding ``scan_json`` must report for ``document`` (no gate targets)."""
    found: list[tuple[str, str]] = []
    vocabulary = pointers.known_keys()

    def number(value: Any, path: tuple) -> None:
        if (profile.flag_numbers and type(value) is int and json_scan._identifier_length(value)
                and json_scan._free_form(path)):
            found.append((json_scan.IDENTIFIER_NUMBER, pointers.for_path(path)))

    def walk(value: Any, path: tuple) -> set[str]:
        """Add the findings of ``value`` and below; return what its own joined views raise (for the records view
        of the array it is an element of)."""
        if isinstance(value, dict):
            pieces: list[str] = []
            values: list[str] = []
            for position, (key, child) in enumerate(value.items()):
                child_path = path + ((key, position),)
                if key not in vocabulary:
                    pieces.append(key)
                found.extend((code, f"{pointers.for_path(path)}/@key:{position}")
                             for code in engine.scan_full(key, profile))
                if isinstance(child, str):
                    pieces.append(child)
                    values.append(child)
                    found.extend((code, pointers.for_path(child_path)) for code in engine.scan_full(child, profile))
                elif isinstance(child, (dict, list)):
                    walk(child, child_path)
                else:
                    number(child, child_path)
            containers = [pieces] + ([values] if len(values) != len(pieces) else [])
        elif isinstance(value, list):
            spelled = json_scan.spelled_text(value)
            if spelled is not None:
                found.extend((code, pointers.for_path(path)) for code in engine.scan_full(spelled, profile))
            # The records view (session 18): the strings of the object and array elements, element after element
            # (an object's string values, an array's strings), in groups; what no element's own view raises.
            records: list[str] = []
            rows = 0
            element_codes: set[str] = set()
            for index, item in enumerate(value):
                item_path = path + ((index, index),)
                if isinstance(item, str):
                    found.extend((code, pointers.for_path(item_path)) for code in engine.scan_full(item, profile))
                elif isinstance(item, (dict, list)):
                    element_codes |= walk(item, item_path)
                    strings = ([child for child in item.values() if isinstance(child, str)] if isinstance(item, dict)
                               else [child for child in item if isinstance(child, str)])
                    if strings:
                        records.extend(strings)
                        rows += 1
                else:
                    number(item, item_path)
            containers = [[item for item in value if isinstance(item, str)]]
            if rows >= 2:
                record_codes: set[str] = set()
                for group in json_scan.record_groups(records):
                    if len(group) >= 2:
                        record_codes |= _full_joined(group, profile)
                found.extend((code, pointers.for_path(path)) for code in record_codes - element_codes)
        else:
            if isinstance(value, str):
                found.extend((code, pointers.for_path(path)) for code in engine.scan_full(value, profile))
            else:
                number(value, path)
            return set()
        own: set[str] = set()
        for pieces in containers:
            if len(pieces) >= 2:
                codes = _full_joined(pieces, profile)
                own |= codes
                found.extend((code, pointers.for_path(path)) for code in codes)
        return own

    walk(document, ())
    return sorted(found)


def _fast(document: Any, profile) -> list[tuple[str, str]]:
    collector = Collector()
    json_scan.scan_json(document, profile, collector, "x.json")
    return sorted((finding.code, finding.pointer) for finding in collector.findings)


@SETTINGS
@given(_documents)
def test_scan_json_equals_the_full_path_oracle_contract(document: Any) -> None:
    assert _fast(document, CONTRACT) == _oracle(document, CONTRACT)


@SETTINGS
@given(_documents)
def test_scan_json_equals_the_full_path_oracle_repository(document: Any) -> None:
    assert _fast(document, REPOSITORY) == _oracle(document, REPOSITORY)


def test_the_oracle_is_not_vacuous() -> None:
    # The oracle (and so the comparison) sees what the scanner must report: a key, a value, a split address, a
    # number of identifier length in a free-form field.
    document = {"notes": [_ADDRESS[:8], _ADDRESS[8:]], _ADDRESS: 1, "x": {"free_text": 713_555_0123},
                "v": "-I/usr/include"}
    codes = {code for code, _pointer in _oracle(document, CONTRACT)}
    assert {"privacy.email", "privacy.identifier_number", "privacy.local_path"} <= codes
    assert _fast(document, CONTRACT) == _oracle(document, CONTRACT)


_IDENTIFIER_PARTS = ["scale", "direct", "bank", "scan", "harness", "control", "p99", "seconds", "1000", "25000",
                     "canonical", "input", "enron", "v2", "Test", "Case", "opt", "out", "include", "usr"]


@st.composite
def _identifier_like(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["snake", "camel", "dotted", "digest", "b64", "hex", "option", "number", "mixed"]))
    parts = draw(st.lists(st.sampled_from(_IDENTIFIER_PARTS), min_size=1, max_size=5))
    if kind == "snake":
        return "_".join(parts)
    if kind == "camel":
        return "".join(part.capitalize() for part in parts)
    if kind == "dotted":
        return ".".join(parts)
    if kind == "digest":
        return "sha256:" + draw(st.text(alphabet="0123456789abcdef", min_size=40, max_size=64))
    if kind == "b64":
        payload = draw(st.sampled_from([_ADDRESS, "_".join(parts), "/ho" + "me/jroe/x", "713-555-0123"]))
        encoded = base64.b64encode(payload.encode()).decode()
        return draw(st.sampled_from(["", "x", "token=", "Xq"])) + encoded
    if kind == "hex":
        return draw(st.sampled_from(["", "0x"])) + "_".join(parts).encode().hex()
    if kind == "option":
        return draw(st.sampled_from(["-", "--", " -", "=-"])) + parts[0][0] + draw(
            st.sampled_from(["/", "~/", "C:/", "\\\\", ""])) + "/".join(parts)
    if kind == "number":
        digits = draw(st.text(alphabet="0123456789", min_size=2, max_size=12))
        separator = draw(st.sampled_from(["-", ".", " ", "/", ":", "_", ""]))
        return separator.join([digits[:3], digits[3:6], digits[6:]])
    return draw(st.text(alphabet=_ALPHABET, max_size=30))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_identifier_like())
def test_prefiltered_scan_equals_the_full_path_on_identifier_like_strings(text: str) -> None:
    for profile in PROFILES.values():
        assert engine.scan_uncached(text, profile) == engine.scan_full(text, profile), (profile.name, text)


def test_option_attached_paths_are_still_found() -> None:
    # The option hint is the rule's own match without its lookbehind: every shape the rule knows still reaches it.
    for text in ("-I/usr/include", "cc -L/opt/lib", "--prefix/usr/local", "x=-o~/out", "(-DC:\\x)", "-I\\\\srv\\s"):
        assert "privacy.local_path" in engine.scan_uncached(text, CONTRACT), text
    assert engine.prefilter_skips("src/nerb/engines.py", CONTRACT)  # a relative path needs no full scan


def _bare_runs_by_walking(text: str, window, alphabet: frozenset[str], rest, decode) -> list[str]:
    """The character-walk form of ``payloads._bare_run_texts`` (what it replaced)."""
    found: list[str] = []
    done = -1
    for match in window.finditer(text):
        if match.start() < done:
            continue
        start = match.start()
        while start > 0 and text[start - 1] in alphabet:
            start -= 1
        tail = rest.match(text, match.end())
        done = tail.end() if tail is not None else match.end()
        run = text[start:done]
        if payloads._HEX_RUN.fullmatch(run):
            continue
        decoded = decode(run)
        if decoded is not None:
            found.append(decoded)
    return found


def _runs_cases() -> list[str]:
    rng = random.Random(1717)
    encoded = [base64.a85encode(_ADDRESS.encode()).decode(), base64.b85encode(_ADDRESS.encode()).decode(),
               base64.b85encode(b"219-09-" + b"9999 x").decode()]
    cases = []
    for _ in range(1500):
        pieces = []
        for _ in range(rng.randint(1, 8)):
            choice = rng.random()
            if choice < 0.3:
                pieces.append(rng.choice(encoded))
            elif choice < 0.6:
                pieces.append("".join(rng.choice("!#$%&()*+-;<=>?@^_`{|}~0123456789ABCDEFabcdefuvwxyz")
                                      for _ in range(rng.randint(1, 40))))
            else:
                pieces.append(rng.choice([" ", "\n", "\t", "\"", ",", "  ", "\u2603", "key=", "'", "[", "z"]))
        cases.append("".join(pieces))
    return cases


def test_bare_run_finder_equals_the_character_walk() -> None:
    ascii85 = frozenset(payloads._ASCII85_CHARS)
    base85 = frozenset(payloads._BASE85_ALPHABET)
    for text in _runs_cases():
        assert (payloads._bare_run_texts(text, payloads._ASCII85_WINDOW, payloads._ASCII85_REST,
                                         payloads._ascii85_text)
                == _bare_runs_by_walking(text, payloads._ASCII85_WINDOW, ascii85, payloads._ASCII85_REST,
                                         payloads._ascii85_text)), text
        assert (payloads._bare_run_texts(text, payloads._BASE85_WINDOW, payloads._BASE85_REST,
                                         payloads._base85_text)
                == _bare_runs_by_walking(text, payloads._BASE85_WINDOW, base85, payloads._BASE85_REST,
                                         payloads._base85_text)), text


def _library_base64(token: str) -> bytes | None:
    body = token.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        if "-" in body or "_" in body:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (ValueError, binascii.Error):
        return None


@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=*. \u00e9", max_size=40))
def test_base64_decoder_equals_the_library(token: str) -> None:
    assert engine._decode_base64(token) == _library_base64(token)


def _printable_text_general(raw: bytes) -> str | None:
    """``payloads._printable_text`` without its fast paths."""
    encoding, skip = payloads._text_encoding(raw)
    try:
        text = raw[skip:].decode(encoding)
    except UnicodeDecodeError:
        return None
    kept = "".join(ch for ch in text if ch in "\t\n\r " or unicodedata.category(ch) not in ("Cc", "Cf"))
    if len(text) - len(kept) > payloads.MAX_STRIPPED_CHARS or len(kept) < payloads.MIN_DECODED_CHARS:
        return None
    if not kept.replace("\n", " ").replace("\t", " ").replace("\r", " ").isprintable():
        return None
    return kept


_TEXTS = ["jane roe", "\u00e9t\u00e9 \u2603", "\u200bab\u00adcdef", "x\ty\nz\r\n12", "\ufeffhello", "abc\x00def"]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.one_of(st.binary(min_size=1, max_size=40),
                 st.sampled_from(_TEXTS).flatmap(lambda text: st.sampled_from(
                     [text.encode(name) for name in ("utf-8", "utf-16-le", "utf-16-be", "utf-16", "utf-32-le",
                                                     "utf-32", "utf-8-sig")]))))
def test_printable_text_fast_path_equals_the_general_test(raw: bytes) -> None:
    assert payloads._printable_text(raw) == _printable_text_general(raw)


def _as_text_general(raw: bytes | None) -> str | None:
    """``payloads.as_text`` without its fast path: the printable test, then the same on the inflated stream."""
    if not raw:
        return None
    text = payloads._printable_text(raw)
    if text is None:
        inflated = payloads._inflate(raw)
        text = payloads._printable_text(inflated) if inflated else None
    return text


def _compressed(text: str, kind: str) -> bytes:
    data = text.encode("utf-8")
    return gzip.compress(data) if kind == "gzip" else zlib.compress(data, level=int(kind[-1]))


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.one_of(st.binary(min_size=1, max_size=40),
                 st.tuples(st.integers(0, 255), st.binary(max_size=30)).map(lambda pair: bytes([pair[0]]) + pair[1]),
                 st.sampled_from(_TEXTS).flatmap(lambda text: st.sampled_from(
                     [text.encode(name) for name in ("utf-8", "utf-16-le", "utf-16-be", "utf-16", "utf-32-le",
                                                     "utf-32", "utf-8-sig")]
                     + [_compressed(text * 3, kind) for kind in ("gzip", "zlib1", "zlib6", "zlib9")]))))
def test_as_text_fast_path_equals_the_general_path(raw: bytes) -> None:
    assert payloads.as_text(raw) == _as_text_general(raw)


def test_as_text_fast_path_equals_the_general_path_on_invalid_and_valid_utf8() -> None:
    """The fast path decodes with ``surrogateescape`` and refuses escaped bytes (session 11): the same verdict as a
    strict decode, also for encoded surrogates (which strict UTF-8 refuses), overlong forms, cut sequences, and text in
    other scripts; on seeded random bytes of every first byte."""
    import random

    cases = [b"\xed\xa0\x80" + b"abcdefgh", b"abcdefgh\xed\xb2\x80", b"\xc0\xafabcdefgh", b"abcdefgh\xe2\x82",
             "caf\u00e9 cr\u00e8me".encode(), "\u65e5\u672c\u8a9e\u306e\u6587\u5b57".encode(),
             "\U0001f600 smile ok".encode(), b"abc\x7fdefgh", b"ab\x1bcdefgh\x1b", "\udc80".encode("utf-8", "surrogatepass")]
    rng = random.Random(17)
    cases += [bytes(rng.randrange(256) for _ in range(rng.randint(1, 40))) for _ in range(20000)]
    cases += [bytes([rng.choice((0xc3, 0xe2, 0xf0, 0x41))]) + bytes(rng.randrange(0x80, 0xc0) for _ in range(3)) * 3
              for _ in range(2000)]
    for raw in cases:
        assert payloads.as_text(raw) == _as_text_general(raw), raw
    # Not vacuous: the valid texts are text, the invalid ones are not.
    assert all(payloads.as_text(raw) is not None for raw in cases[4:7])
    assert all(payloads.as_text(raw) is None for raw in cases[:4])


def _gzip_without_zero_bytes(text: str) -> bytes:
    """A gzip stream of ``text`` (with as many spaces appended as it takes) that holds no zero byte.
    ``gzip.compress`` writes zero flags, so its streams always hold one and take the general path anyway; this one
    has an extra field instead of a name, a non-zero time, no trailer and its final zero bytes cut (the inflater
    needs neither and returns what it decoded)."""
    for padding in range(64):
        packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
        body = (packer.compress((text + " " * padding).encode("ascii")) + packer.flush()).rstrip(b"\x00")
        stream = b"\x1f\x8b\x08\x04" + b"\x01\x01\x01\x01" + b"\x02\x03" + b"\x04\x01" + b"x" * 0x104 + body
        if b"\x00" not in stream:
            return stream
    raise AssertionError("no zero-free stream found")


def test_as_text_fast_path_leaves_every_compressed_and_marked_lead_to_the_general_path() -> None:
    """Every first byte a gzip or zlib stream (any window size, any level) or a byte order mark begins with takes
    the general path, so such a payload is still inflated or decoded (a lead set without 0x1F or the zlib leads
    would return None here)."""
    text = "call 713 555 0123 please"
    assert payloads.as_text(gzip.compress(text.encode("ascii"))) == text
    stream = _gzip_without_zero_bytes(text)
    assert (payloads.as_text(stream) or "").startswith(text[:-1])
    for level in range(10):
        for wbits in range(9, 16):
            packer = zlib.compressobj(level, zlib.DEFLATED, wbits)
            stream = packer.compress(text.encode("ascii")) + packer.flush()
            assert stream[0] in payloads._GENERAL_LEADS
            assert payloads.as_text(stream) == text
    for encoding in ("utf-8-sig", "utf-16", "utf-32", "utf-16-be", "utf-32-be"):
        raw = text.encode(encoding)
        assert raw[0] in payloads._GENERAL_LEADS
        assert payloads.as_text(raw) == text


_UNICODE = ("abc e1=<>\n\t\u0301\u0327\u0338\u00e9\uff10\uff20\u2215\u0430\u2603\u200b\u00ad\U000e0041\U000e006a"
            "\u2460\u24b6\u4e03\u2162\ufdfa\u1100\u1161\u11a8\u0660\ufb01\u212a\U0001d400")


@settings(max_examples=250, deadline=None, derandomize=True)
@given(st.text(alphabet=_UNICODE, max_size=80), st.text(alphabet="abc 1-./\n", min_size=200, max_size=400))
def test_unicode_steps_by_runs_equal_the_whole_text_steps(text: str, padding: str) -> None:
    # Long mostly-ASCII text gets the Unicode steps only around its non-ASCII runs: the same result as the steps on
    # the whole text, combining marks, composition (a letter and a combining mark, Hangul jamo) and expansions
    # (ligatures, U+FDFA) included.
    from nerb_verify.privacy import normalise

    for whole in (text, padding + text, text + padding + text, padding[:100] + text + padding):
        expected = normalise._unicode_steps(whole)
        assert normalise._unicode_steps_by_runs(whole, whole_share=2) == expected, whole  # always cut
        assert normalise._unicode_steps_by_runs(whole) == expected, whole  # whole where the runs are dense
        # (``_UNICODE`` holds the first separator: the runs of a text that holds it are joined with the second;
        # one that holds both is stepped run by run; one that holds neither takes the first.)
        for variant in (whole.replace(normalise._RUN_SEPARATORS[0], ""), whole + "\ue000"):
            assert normalise._unicode_steps_by_runs(variant, whole_share=2) == normalise._unicode_steps(variant)


def test_unicode_runs_are_stepped_in_one_call_over_a_separator_no_step_touches() -> None:
    """The runs of a long text go to the steps in one call, joined by ``_RUN_SEPARATOR``: a starter with no
    decomposition that composes with nothing, that no table maps to or from and no pattern matches, so the steps
    act on each run as on the run alone; and one call it is (counted), not one per run."""
    import unicodedata
    from unittest import mock

    from nerb_verify.privacy import normalise

    for separator in normalise._RUN_SEPARATORS:
        assert unicodedata.combining(separator) == 0 and unicodedata.decomposition(separator) == ""
        assert unicodedata.normalize("NFKC", "e\u0301" + separator + "\u0301") == "\u00e9" + separator + "\u0301"
        assert ord(separator) not in normalise._LOOKALIKES and ord(separator) not in normalise._TAGS
        assert not any(separator in target for target in normalise._LOOKALIKES.values())
        for pattern in (normalise._NUMERAL_OR_ENCLOSED, normalise._IGNORABLE, normalise._NON_ASCII_DIGIT,
                        normalise._TAG_CHAR):
            assert pattern.search(separator) is None
    text = " ".join(f"name{index} j\uff4fhn\u00e9 \u2460\u0301" for index in range(200))
    # (as given, and as a joined-view screen holds it: views separated by the first separator)
    for whole in (text, text + "\n\u2603\n" + text):
        normalise._RUN_STEPS.cache_clear()
        with mock.patch.object(normalise, "_unicode_steps", wraps=normalise._unicode_steps) as steps:
            result = normalise._unicode_steps_by_runs(whole)
        assert steps.call_count == 1
        assert result == normalise._unicode_steps(whole)
        assert "john" in result and "\u00e9" not in result
        # A run already stepped in this process is not stepped again; the result is the same.
        with mock.patch.object(normalise, "_unicode_steps", wraps=normalise._unicode_steps) as steps:
            assert normalise._unicode_steps_by_runs(whole) == result
        assert steps.call_count == 0


def test_the_run_memo_is_bounded() -> None:
    from nerb_verify.privacy import normalise

    memo = normalise._RunMemo(maxsize=4, max_run_chars=3)
    memo.add(["a\u00e9", "b\u00e9\u00e9\u00e9"], ["ae", "beee"])
    assert memo.entries == {"a\u00e9": "ae"}  # a run longer than max_run_chars is not kept
    memo.add(["c\u00e9", "d\u00e9", "e\u00e9", "f\u00e9"], ["ce", "de", "ee", "fe"])
    assert len(memo.entries) == 4 and "a\u00e9" not in memo.entries  # full: emptied, then filled
    assert memo.cache_info() == (4, 4)
    memo.cache_clear()
    assert memo.entries == {}


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.text(alphabet="ab \n1\u0301\u00e9\u4e03\uff10\U0001d400\x7f\x00", max_size=60))
def test_unicode_run_cuts_equal_the_runs_with_the_ascii_character_before(text: str) -> None:
    """The run finder of ``normalise._unicode_steps_by_runs`` (a bare non-ASCII run, taken with the character before
    it) cuts where the former pattern, an optional ASCII character then the run, matched."""
    import regex

    former = [match.span() for match in regex.finditer(r"[\x00-\x7f]?[^\x00-\x7f]+", text)]
    cuts = [(match.start() - 1 if match.start() else 0, match.end())
            for match in normalise._NON_ASCII_RUN.finditer(text)]
    assert cuts == former


def test_ascii_class_hints_match_where_the_unicode_forms_do_on_ascii_text() -> None:
    # The prefilter compiles its hint patterns with ASCII classes (\d as 0-9, \w as A-Za-z0-9_); on ASCII text, the
    # only text where a hint can decide, every hint finds exactly the matches its Unicode form finds.
    import re

    from nerb_verify.privacy import prefilter

    patterns: set[str] = set()
    for profile in PROFILES.values():
        hints = list(prefilter.ENGINE_HINTS + engine.PREFILTER_HINTS)
        for name in profile.rule_names:
            known = prefilter.RULE_HINTS[name]
            hints.extend(known if isinstance(known, tuple) else known())
        patterns.update(hint.pattern for hint in hints if hint.pattern)
    rng = random.Random(20261201)
    alphabet = "0123456789" * 3 + "abcxyzOoNnGgAT_ -./~:+()[]\t\n@%&=\\#$<>{}\"'"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(3000)]
    texts += [fragment for fragment in _FRAGMENTS if fragment.isascii()]
    assert any("\\d" in pattern or "\\w" in pattern for pattern in patterns)
    for pattern in patterns:
        unicode_form, ascii_form = re.compile(pattern), re.compile(prefilter._ascii_classes(pattern))
        for text in texts:
            assert ([m.span() for m in unicode_form.finditer(text)]
                    == [m.span() for m in ascii_form.finditer(text)]), (pattern, text)


def test_the_short_string_cache_is_keyed_by_every_argument() -> None:
    # normalise() remembers short strings; a result cached under one budget or quoted-printable setting must not be
    # returned for another (a ligature that fits 16,384 characters expands past 20; "=40" is decoded only with
    # quoted-printable on).
    normalise._normalise_short.cache_clear()
    ligature = "\ufdfa"
    assert normalise.normalise(ligature).ok
    assert normalise.normalise(ligature, max_chars=10).status == "expanded"
    assert normalise.normalise(ligature).ok
    assert normalise.normalise("a=40b", quoted_printable=False).text == "a=40b"
    assert normalise.normalise("a=40b").text == "a@b"
    assert normalise.normalise("x\u2024" * 3, max_rounds=0) == normalise.normalise_uncached("x\u2024" * 3, max_rounds=0)
    for text in ("", "plain", "\uff20", "%2540", "&amp;#64;", "\\u0040" * 40):
        for rounds in (0, 1, 8):
            assert normalise.normalise(text, max_rounds=rounds) == normalise.normalise_uncached(text, max_rounds=rounds)
    long_text = "\uff41" * (normalise._CACHED_CHARS + 1)
    before = normalise._normalise_short.cache_info().currsize
    assert normalise.normalise(long_text) == normalise.normalise_uncached(long_text)
    assert normalise._normalise_short.cache_info().currsize == before  # long strings are not kept


def test_the_benchmarks_empty_the_run_memo() -> None:
    """``tools/bench_scan.py`` (and the stage benchmark, the same way) empties every cache of the privacy modules it
    finds by ``cache_clear``/``cache_info``: the run memo is among them, and emptying them all works (a memo with
    those names on its class was found as the class, and its unbound ``cache_clear`` broke the benchmark)."""
    from tools.bench_scan import _clear_caches, _scanner_caches

    normalise._unicode_steps_by_runs("x" * 300 + " j\u00f6hn")
    assert normalise._RUN_STEPS.entries
    assert any(cache is normalise._RUN_STEPS for cache in _scanner_caches())
    _clear_caches()
    assert not normalise._RUN_STEPS.entries
