"""The engine's ASCII path (Hyperscan literal index + RE2 group, ``nerb_verify/producers/ascii_index.py``) gives
exactly the records of the RE2 path and of the pure-Python reference matcher; the facts it rests on hold in RE2;
without Hyperscan, or with the RE2 path forced, the records are the same."""

from __future__ import annotations

import os
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

re2 = pytest.importorskip("re2", reason="the RE2 engine needs google-re2 (the 'producers' or 'test' extra)")
if not hasattr(getattr(re2, "_re2", None), "Set"):
    pytest.skip("the installed 're2' module is not google-re2 (no RE2::Set)", allow_module_level=True)

from contract_tests.test_producers_engine import EMAIL_REGEX, _lit, _regex, literal_patterns, make_bank  # noqa: E402
from nerb_verify.producers import ascii_index, engine  # noqa: E402
from nerb_verify.producers.engine import WHITE_SPACE, compile_bank  # noqa: E402
from nerb_verify.producers.reference_matcher import reference_scan  # noqa: E402

needs_hyperscan = pytest.mark.skipif(ascii_index.HYPERSCAN is None,
                                     reason="the ASCII path needs hyperscan (the 'producers' or 'test' extra)")
EXAMPLES = int(os.environ.get("NERB_DIFF_EXAMPLES", "200"))
MARK = chr(64)  # addresses are built from parts at run time (the repository's own privacy scan)


def _every_code_point() -> str:
    from array import array

    points = array("I", range(0xD800))
    points.extend(range(0xE000, 0x110000))
    return points.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")


def test_ascii_fold_orbits_in_re2_are_what_the_index_assumes():
    """Under RE2's (?i), an ASCII letter matches its two ASCII cases and, for k and s only, U+212A and U+017F;
    every other ASCII character matches only itself. So a case-insensitive literal with any other non-ASCII
    non-space character can never match ASCII text, and folding ASCII text is lower-casing."""
    every = _every_code_point()
    extra = {"k": {"\u212a"}, "s": {"\u017f"}}
    for code in range(0x21, 0x7F):
        ch = chr(code)
        escaped = ch if ch.isalnum() else "\\x{%X}" % code
        found = set(re2.compile(f"(?i){escaped}").findall(every))
        expected = {ch.lower(), ch.upper()} | extra.get(ch.lower(), set())
        assert found == expected, ch


@needs_hyperscan
def test_keys_and_routing():
    """What goes to the index, what stays with RE2, what can never match ASCII text."""
    bank = make_bank({"e": [
        ("a", "A", _lit("Ann  Lee", ws=True)), ("b", "B", _lit("\u212aim\u00a0Ro", ws=True)),
        ("c", "C", _lit("Ann Lee", ws=False)), ("d", "D", _lit("Ann", case_sensitive=True)),
        ("f", "F", _lit("1-2", case_sensitive=True)), ("g", "G", _lit("Jos\u00e9")), ("h", "H", _lit(" Ann", ws=True)),
        ("r", "R", _regex(EMAIL_REGEX))]})
    compiled = compile_bank(bank)
    matcher = compiled.entities[0]
    by_name = {d.name_id: ascii_index.ascii_key(d, WHITE_SPACE) for d in matcher.detectors}
    assert by_name == {"a": "ann lee", "b": "kim ro", "c": ascii_index.RE2_GROUP, "d": ascii_index.RE2_GROUP,
                       "f": "1-2", "g": ascii_index.NEVER, "h": ascii_index.RE2_GROUP, "r": ascii_index.RE2_GROUP}
    group = sorted(matcher.detectors[i].name_id for s in matcher.ascii_group for i in s.detector_indices)
    assert group == ["c", "d", "h", "r"]
    assert matcher._shards is None  # the full RE2 path waits for a non-ASCII document
    assert compile_bank(bank, eager_full_path=True).entities[0]._shards is not None
    text = f"ANN \t LEE, kim\n\nro, Ann Lee, Ann, 1-2, x{MARK}y.org"
    assert compiled.scan_text(text) == reference_scan(bank, text)
    assert matcher._shards is None
    other = "Jos\u00e9 ann  lee"
    assert compiled.scan_text(other) == reference_scan(bank, other)
    assert matcher._shards is not None


ASCII_CHARS = ["a", "b", "k", "K", "s", "S", "1", "_", "-", ".", "@", " ", "\t", "\n", "x", "'"]
VALUE_CHARS = ASCII_CHARS + ["\u212a", "\u017f", "\u00a0", "\u00e9"]
ascii_words = st.lists(st.sampled_from(ASCII_CHARS), min_size=1, max_size=12).map("".join)
value_words = st.lists(st.sampled_from(VALUE_CHARS), min_size=1, max_size=12).map("".join)
ascii_literal = literal_patterns(value_words)


@st.composite
def ascii_bank_and_text(draw):
    """Random banks (literals of every option, long values sharing prefixes, the e-mail fallback) and ASCII texts
    that contain the literals' ASCII forms, their case and spacing variants and e-mail-like strings."""
    entities = {}
    for e in range(draw(st.integers(1, 2))):
        patterns = draw(st.lists(ascii_literal, min_size=1, max_size=8))
        names = [(f"n{i}", f"N{i}", p) for i, p in enumerate(patterns)]
        if draw(st.booleans()):
            names.append(("unknown_email", "Unknown email", _regex(EMAIL_REGEX, draw(st.integers(0, 4)))))
        entities[f"e{e}"] = names
    bank = make_bank(entities)
    values = [p["value"] for names in entities.values() for _, _, p in names if p["kind"] == "literal"]
    ascii_values = [v.replace("\u212a", "K").replace("\u017f", "s").replace("\u00a0", "  ").replace("\u00e9", "e")
                    for v in values]
    variants = [v.upper() for v in ascii_values] + [v.replace(" ", " \t\n ") for v in ascii_values]
    pieces = draw(st.lists(st.one_of(ascii_words, st.sampled_from(
        ascii_values + variants + [f"a{MARK}b.kx", f"x.a_b{MARK}k-a.ss", f"k.s{MARK}a-b.kk-", f"a{MARK}b.c1"])), max_size=10))
    return bank, "".join(pieces), draw(st.integers(1, 3))


@needs_hyperscan
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ascii_bank_and_text())
def test_ascii_path_agrees_with_re2_path_and_reference(case):
    bank, text, shard_size = case
    assert text.isascii()
    fast = compile_bank(bank, shard_size=shard_size)
    slow = compile_bank(bank, shard_size=shard_size, ascii_path=False)
    assert slow.ascii_literals is None
    expected = reference_scan(bank, text)
    assert fast.scan_text(text) == expected
    assert slow.scan_text(text) == expected
    assert fast.scan_text(text, offsets="char") == slow.scan_text(text, offsets="char")


@needs_hyperscan
@settings(max_examples=max(50, EXAMPLES // 3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ascii_bank_and_text(), st.integers(8, 12))
def test_distinguishing_prefixes_of_any_length_agree(case, prefix_bytes):
    """The prefix floor only changes which keys need confirming, never the records."""
    bank, text, _ = case
    old = ascii_index.PREFIX_BYTES
    ascii_index.PREFIX_BYTES = prefix_bytes
    try:
        assert compile_bank(bank).scan_text(text) == reference_scan(bank, text)
    finally:
        ascii_index.PREFIX_BYTES = old


def test_without_hyperscan_every_document_takes_the_re2_path(monkeypatch):
    monkeypatch.setattr(ascii_index, "HYPERSCAN", None)
    bank = make_bank({"p": [("a", "A", _lit("Ann Lee", ws=True))],
                      "c": [("b", "B", _lit(f"ann{MARK}x.org")), ("u", "U", _regex(EMAIL_REGEX, 9))]})
    compiled = compile_bank(bank)
    assert compiled.ascii_literals is None
    assert all(not m.ascii_path and m._shards is not None for m in compiled.entities)
    text = f"Mail ann{MARK}x.org or bo{MARK}y.org, ANN\n LEE said"
    assert compiled.scan_text(text) == reference_scan(bank, text)


def test_verifier_cache_is_bounded(monkeypatch):
    """An address list touching many detectors keeps at most VERIFIER_CACHE programs per entity."""
    monkeypatch.setattr(engine, "VERIFIER_CACHE", 8)
    names = [(f"n{i}", f"N{i}", _lit(f"user{i}{MARK}x.org")) for i in range(40)]
    bank = make_bank({"c": names + [("u", "U", _regex(EMAIL_REGEX, 99))]})
    compiled = compile_bank(bank, ascii_path=False)
    text = "\u00e9 " + ", ".join(f"user{i}{MARK}x.org" for i in range(40))
    first = compiled.scan_text(text)
    assert len(compiled.entities[0].verifiers) <= 8
    assert first == compiled.scan_text(text) == reference_scan(bank, text)
    assert len(first) == 40


def test_record_templates_are_bounded_and_keep_the_record_keys_in_order(monkeypatch):
    """Record templates are made on first use and at most TEMPLATE_CACHE are kept per entity between documents
    (the list starts again once a document fills it); every record has NERB's keys first, in order, then ours,
    and its own captures."""
    monkeypatch.setattr(engine, "TEMPLATE_CACHE", 8)
    names = [(f"n{i}", f"N{i}", _lit(f"user{i}{MARK}x.org")) for i in range(40)]
    bank = make_bank({"c": names + [("u", "U", _regex(EMAIL_REGEX, 99))]})
    compiled = compile_bank(bank)
    matcher = compiled.entities[0]
    kept = lambda: sum(t is not None for t in matcher.templates)  # noqa: E731
    few = ", ".join(f"user{i}{MARK}x.org" for i in range(5))
    assert compiled.scan_text(few) == reference_scan(bank, few)
    assert matcher.template_count == kept() == 5  # below the bound: kept
    more = ", ".join(f"user{i}{MARK}x.org" for i in range(5, 10))
    assert compiled.scan_text(more) == reference_scan(bank, more)
    assert matcher.template_count == kept() == 0  # 10 >= 8: the list started again
    text = ", ".join(f"user{i}{MARK}x.org" for i in range(40))
    first = compiled.scan_text(text)
    assert matcher.template_count <= 8 and kept() <= 8
    assert first == compiled.scan_text(text) == reference_scan(bank, text) and len(first) == 40
    assert all(list(r) == ["entity", "canonical_name", "surface_name", "string", "start", "end", "offset_unit",
                           "entity_id", "name_id", "pattern_id", "pattern_kind", "captures"] for r in first)
    assert first[0]["captures"] == {} and first[0]["captures"] is not first[1]["captures"]
    assert engine.RECORD_BASE["captures"] is None and engine.RECORD_BASE["entity"] == ""


def test_record_templates_read_the_detector_fields_in_order():
    """``scan_bytes`` makes a detector's record template from the first six fields of its ``Detector``, unpacked
    in this order (one slice, no attribute look-ups); a reordered ``Detector`` must change the engine too."""
    from nerb_verify.producers.bank_format import Detector

    assert Detector._fields[:6] == ("entity_id", "name_id", "pattern_id", "kind", "canonical_name", "surface_name")


@needs_hyperscan
def test_record_strings_of_short_and_long_ascii_documents(monkeypatch):
    """An ASCII document up to COLLAPSE_IN_ONE_BUFFER bytes is decoded once and sliced per record, a longer one is
    sliced as bytes and each string decoded: the same records (strings are ``str``) either way."""
    bank = make_bank({"p": [("a", "A", _lit("Ann Lee", ws=True))],
                      "c": [("m", "M", _lit(f"ann.lee{MARK}x.org")), ("u", "U", _regex(EMAIL_REGEX, 9))]})
    compiled = compile_bank(bank)
    text = f"Hi ANN  LEE, see ann.lee{MARK}x.org and bo{MARK}y.org. " * 3
    short = compiled.scan_text(text)
    monkeypatch.setattr(ascii_index, "COLLAPSE_IN_ONE_BUFFER", 16)
    assert compiled.scan_text(text) == short == reference_scan(bank, text)
    assert len(short) == 9 and all(type(r["string"]) is str for r in short)


def test_group_gap_prefilter():
    """The bytes at which no regex of the group can start; None where the first bytes cannot be worked out."""
    bank = make_bank({"c": [("u", "U", _regex(EMAIL_REGEX)), ("v", "V", _regex("(?i:a)b")),
                            ("w", "W", _regex("[[:alpha:]]x")), ("y", "Y", _regex("\u212ax")), ("z", "Z", _regex("(?i)\u212ax"))]})
    matcher = compile_bank(bank, ascii_path=False).entities[0]
    by_name = {d.name_id: i for i, d in enumerate(matcher.detectors)}
    gap = engine._group_gap([by_name["u"]], matcher.plans)
    assert gap is not None
    assert b"Az09_".translate(None, gap) == b"Az09_"
    assert b", \n<>".translate(None, gap) == b""
    assert engine._group_gap([by_name["v"]], matcher.plans) is None
    assert engine._group_gap([by_name["w"]], matcher.plans) is None
    assert engine._group_gap([by_name["y"]], matcher.plans) == bytes(range(128))  # never matches ASCII text
    assert engine._group_gap([by_name["z"]], matcher.plans) == bytes(b for b in range(128) if b not in b"kK")


def test_one_compiled_bank_scans_from_many_threads():
    """The harness scans one compiled bank from a thread pool (``--concurrency``): the ASCII path (one Hyperscan
    scratch per thread) and the RE2 path (lazy shards, the bounded verifier cache) give the sequential records."""
    from concurrent.futures import ThreadPoolExecutor

    names = [(f"n{i}", f"N{i}", _lit(f"user{i}{MARK}x.org")) for i in range(300)]
    people = [(f"p{i}", f"P{i}", _lit(f"Ann{i} Lee", ws=True)) for i in range(300)]
    bank = make_bank({"c": names + [("u", "U", _regex(EMAIL_REGEX, 999))], "p": people})
    docs = [(", ".join(f"user{(i * 7 + j) % 400}{MARK}x.org Ann{j}  Lee" for j in range(40))
             + (" \u00e9" if i % 3 == 0 else "")).encode() for i in range(60)]
    expected = [compile_bank(bank).scan_bytes(d) for d in docs]
    old = engine.VERIFIER_CACHE
    engine.VERIFIER_CACHE = 16  # evictions while other threads read the cache
    try:
        compiled = compile_bank(bank)
        with ThreadPoolExecutor(max_workers=4) as pool:
            for _ in range(3):
                assert list(pool.map(compiled.scan_bytes, docs)) == expected
    finally:
        engine.VERIFIER_CACHE = old


def test_group_lead_prefilter_shapes():
    """Which group regexes get the lead-byte prefilter (body ``X B* c``, ``c`` an ASCII byte B cannot match):
    the e-mail fallback does (its lead is the at sign), other shapes and groups of two do not."""
    bank = make_bank({"c": [("u", "U", _regex(EMAIL_REGEX)), ("v", "V", _regex("[a-z][a-z.]*@x")),
                            ("w", "W", _regex("[a-z][a-z@]*@x")), ("x", "X", _regex("[a-z][a-z]+@x")),
                            ("y", "Y", _regex("(?i)[a-z][a-z]*k")), ("z", "Z", _regex("[a-z]*@x"))]})
    matcher = compile_bank(bank, ascii_path=False).entities[0]
    by_name = {d.name_id: i for i, d in enumerate(matcher.detectors)}
    table, lead = engine._group_lead([by_name["u"]], matcher.plans)
    assert lead == ord(MARK)
    assert all(table[b] for b in b"aZ09_.+-") and not any(table[b] for b in b" ,<>()\n" + MARK.encode())
    table, lead = engine._group_lead([by_name["v"]], matcher.plans)
    assert lead == ord(MARK) and table[ord(".")] and not table[ord("-")]
    assert engine._group_lead([by_name["w"]], matcher.plans) is None  # the run class holds the lead byte
    assert engine._group_lead([by_name["x"]], matcher.plans) is None  # a run of at least one: not X B* c
    assert engine._group_lead([by_name["y"]], matcher.plans) is None  # a case-insensitive letter lead
    assert engine._group_lead([by_name["z"]], matcher.plans) is None  # no single first character
    assert engine._group_lead([by_name["u"], by_name["v"]], matcher.plans) is None


@needs_hyperscan
def test_group_lead_prefilter_is_exact_and_skips_re2_between_banked_addresses():
    """Between banked addresses in ordinary text the fallback regex is not searched at all; where a match could
    start before a literal (an unknown address, a local part running into a banked one, the lead byte in between)
    RE2 is asked and the records are the reference's."""
    banked = [f"bob{MARK}x.org", f"ann.lee{MARK}y.net", f"kim{MARK}z.com"]
    bank = make_bank({"c": [(f"n{i}", f"N{i}", _lit(v)) for i, v in enumerate(banked)]
                      + [("u", "U", _regex(EMAIL_REGEX, 9))],
                      "p": [("a", "A", _lit("Ann Lee", ws=True))]})
    compiled = compile_bank(bank)
    matcher = next(m for m in compiled.entities if m.entity_id == "c")
    assert matcher.group_lead is not None and matcher.group_find is not None
    calls = []
    real = matcher.group_find
    matcher.group_find = lambda *args: calls.append(args[2]) or real(*args)
    plain = (f"Hi Ann  Lee <ann.lee{MARK}y.net>, and bob{MARK}x.org\n(kim{MARK}z.com) wrote: thanks, "
             f"bob{MARK}x.org.")
    assert compiled.scan_text(plain) == reference_scan(bank, plain)
    assert len(compiled.scan_text(plain)) == 5 and calls == []
    for text in (f"jim.bob{MARK}x.org and kim{MARK}z.com",  # the local part runs into a banked address
                 f"bo{MARK}q.org, bob{MARK}x.org",  # an unknown address before a banked one
                 f"x{MARK} bob{MARK}x.org",  # the lead byte alone in between
                 f"kim{MARK}z.com then sue{MARK}w.org",  # an unknown address after the last literal
                 f"_bob{MARK}x.org", f"bob{MARK}x.org{MARK}x.org", f"a.{MARK}bob{MARK}x.org"):
        calls.clear()
        assert compiled.scan_text(text) == reference_scan(bank, text), text
        assert calls, text


def test_inert_bytes_of_the_fallback_and_of_other_shapes():
    """The bytes after a key occurrence that the e-mail fallback can neither consume nor read as a word character:
    separators such as ``,``, space, line break and ``>``, not ``.``, ``-``, the at sign or letters; a body with a
    construct whose characters are not listed has none."""
    bank = make_bank({"c": [("u", "U", _regex(EMAIL_REGEX)), ("v", "V", _regex("[a-z][^,]*@x")),
                            ("w", "W", _regex("(?i)k[a-z]*@x"))]})
    matcher = compile_bank(bank, ascii_path=False).entities[0]
    by_name = {d.name_id: i for i, d in enumerate(matcher.detectors)}
    inert = engine._inert_bytes(matcher.plans[by_name["u"]])
    assert inert is not None and all(inert[b] for b in b", \n\t<>()[];:\"")
    assert not any(inert[b] for b in b".-_+!#'/=?^`{|}~aZ09" + MARK.encode()) and not any(inert[128:])
    assert engine._inert_bytes(matcher.plans[by_name["v"]]) is None  # a negated class
    assert all(engine._inert_bytes(matcher.plans[by_name["w"]])[b] for b in b", ")


@needs_hyperscan
def test_fallback_before_banked_addresses_is_known_at_each_key():
    """When the fallback regex comes before banked addresses in detector order (the builder ranks contacts past
    the fallback's priority in banks of 25k patterns and more), its match at a banked address followed by an
    inert byte is taken from the compile-time table, with no RE2 search; followed by anything else, or with the
    lead byte or a local-part byte just before it, RE2 is asked. The records are the reference's either way."""
    banked = [f"bob{MARK}x.org", f"ann.lee{MARK}y.net", f"kim{MARK}z.com", f"jo{MARK}a-b.example"]
    bank = make_bank({"c": [(f"n{i}", f"N{i}", _lit(v, 20)) for i, v in enumerate(banked)]
                      + [("u", "U", _regex(EMAIL_REGEX, 9))] + [("m", "M", _lit(f"sue{MARK}w.org", 3))],
                      "p": [("a", "A", _lit("Ann Lee", ws=True))]})
    compiled = compile_bank(bank)
    matcher = next(m for m in compiled.entities if m.entity_id == "c")
    assert matcher.group_at_key is not None
    by_name = {d.name_id: i for i, d in enumerate(matcher.detectors)}
    assert matcher.group_at_key[by_name["n0"]] == len(banked[0]) and matcher.group_at_key[by_name["m"]] == -2
    calls = []
    real = matcher.group_find
    matcher.group_find = lambda *args: calls.append(args[2]) or real(*args)
    plain = (f"To: BOB{MARK}X.org, ann.lee{MARK}y.net,\n    kim{MARK}z.com <jo{MARK}a-b.example> (Bob{MARK}x.org) "
             f"Ann  Lee\nsue{MARK}w.org, bob{MARK}x.org;")
    records = compiled.scan_text(plain)
    assert records == reference_scan(bank, plain)
    assert [r["name_id"] for r in records].count("u") == 6 and calls == []
    for text in (f"bob{MARK}x.org.", f"bob{MARK}x.org-x, kim{MARK}z.com", f"bob{MARK}x.org.uk ann.lee{MARK}y.net",
                 f"a.bob{MARK}x.org", f"x{MARK} bob{MARK}x.org", f"jim.bob{MARK}x.org and kim{MARK}z.com",
                 f"kim{MARK}z.com{MARK}x.org, bob{MARK}x.org", f"bob{MARK}x.org_ kim{MARK}z.com"):
        calls.clear()
        assert compiled.scan_text(text) == reference_scan(bank, text), text
        assert calls, text
    # a literal without a left boundary after a word byte the regex cannot start with: the table's match is
    # taken only where the regex's own left boundary holds
    bank = make_bank({"c": [("n", "N", _lit(f"bob{MARK}x.org", 20, left="none")),
                            ("u", "U", _regex(f"(?i)\\b[a-z][a-z]*{MARK}x\\.org\\b", 9))]})
    compiled = compile_bank(bank)
    assert compiled.entities[0].group_at_key is not None
    for text in (f"9bob{MARK}x.org, _bob{MARK}x.org, bob{MARK}x.org", f"-bob{MARK}x.org "):
        assert compiled.scan_text(text) == reference_scan(bank, text), text


@needs_hyperscan
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from([f"bob{MARK}x.org", f"BOB{MARK}x.ORG", f"ann.lee{MARK}y.net", f"jo{MARK}a-b.example",
                                 f"kim{MARK}z.com", "x", "_", ".", "-", ",", " ", "\n", ">", "<", MARK, "a.", "9",
                                 ".uk", "-q", "Ann Lee"]), max_size=16).map("".join))
def test_fallback_at_banked_keys_agrees_with_re2_and_the_reference(text):
    """Banked addresses after the fallback in order, in any text made of them, separators and the bytes that can
    extend or precede an address: the ASCII path, the RE2 path and the reference give the same records."""
    bank = make_bank({"c": [(f"n{i}", f"N{i}", _lit(v, 20)) for i, v in enumerate(
        [f"bob{MARK}x.org", f"ann.lee{MARK}y.net", f"jo{MARK}a-b.example", f"kim{MARK}z.com"])]
        + [("u", "U", _regex(EMAIL_REGEX, 9))], "p": [("a", "A", _lit("Ann Lee", ws=True))]})
    fast, slow = _fallback_banks(bank)
    expected = reference_scan(bank, text)
    assert fast.scan_text(text) == expected
    assert slow.scan_text(text) == expected


_FALLBACK_BANKS: dict[str, tuple[object, object]] = {}


def _fallback_banks(bank):
    """The bank compiled with the ASCII path and with RE2 alone (once per test session)."""
    if "banks" not in _FALLBACK_BANKS:
        _FALLBACK_BANKS["banks"] = (compile_bank(bank), compile_bank(bank, ascii_path=False))
    return _FALLBACK_BANKS["banks"]


@given(st.lists(st.sampled_from(["a", "b", " ", "  ", "    ", "     ", " " * 9, "x_y"]), max_size=30).map("".join))
def test_collapse_and_its_run_map(text):
    """The collapse has one space for every run of spaces, and the run map sends each collapsed offset to the same
    byte of the original (a run's single space to the run's first space), the text's end to its end."""
    from bisect import bisect_left
    import re

    folded = text.encode("ascii")
    collapsed, runs, removed = ascii_index.collapse(folded)
    assert collapsed == re.sub(rb" {2,}", b" ", folded)
    for k in range(len(collapsed) + 1):
        mapped = k + removed[bisect_left(runs, k)]
        assert folded[mapped:mapped + 1] == collapsed[k:k + 1]
        if k and collapsed[k - 1:k] != b" ":
            assert folded[mapped - 1:mapped] == collapsed[k - 1:k]


def test_collapse_of_a_large_document_is_the_same(monkeypatch):
    """Above COLLAPSE_IN_ONE_BUFFER bytes the collapse is built in one buffer: the same bytes and run map."""
    folded = b" " + b"ann  lee,     bob x" * 50 + b"   "
    small = ascii_index.collapse(folded)
    monkeypatch.setattr(ascii_index, "COLLAPSE_IN_ONE_BUFFER", 64)
    big = ascii_index.collapse(folded)
    assert isinstance(big[0], bytearray) and bytes(big[0]) == small[0] and big[1:] == small[1:]


def _runs_between(folded: bytes, before: bytes, after: bytes) -> list[tuple[int, int]]:
    """Every maximal run of two or more spaces with a byte of ``before`` just before it and one of ``after`` just
    after it, found by walking the bytes (the definition ``collapse`` must implement)."""
    spans = []
    i = 0
    while i < len(folded):
        if folded[i] != 0x20:
            i += 1
            continue
        j = i
        while j < len(folded) and folded[j] == 0x20:
            j += 1
        if j - i >= 2 and i > 0 and before[folded[i - 1]] and j < len(folded) and after[folded[j]]:
            spans.append((i, j))
        i = j
    return spans


@given(st.lists(st.sampled_from(["a", "b", ".", ",", "-", "]", "^", "\\", " ", "  ", "     ", " " * 9, " " * 40]),
                max_size=40).map("".join),
       st.sets(st.sampled_from("ab.,-]^\\")), st.sets(st.sampled_from("ab.,-]^\\")))
def test_collapse_finds_exactly_the_runs_that_matter(text, before_chars, after_chars):
    """``collapse`` with ``runs_that_matter`` collapses exactly the runs between a byte of ``before`` and one of
    ``after`` (regex metacharacters in the tables included), with the run map of those runs; a run left alone
    (after a comma, at an edge, before a byte outside ``after``) stays byte for byte."""
    from bisect import bisect_left

    folded = text.encode("ascii")
    before = bytes(1 if chr(b) in before_chars else 0 for b in range(256))
    after = bytes(1 if chr(b) in after_chars else 0 for b in range(256))
    spans = _runs_between(folded, before, after)
    expected = bytearray()
    last = 0
    for i, j in spans:
        expected += folded[last:i + 1]
        last = j
    expected += folded[last:]
    collapsed, runs, removed = ascii_index.collapse(folded, ascii_index.runs_that_matter(before, after))
    assert bytes(collapsed) == bytes(expected)
    assert len(runs) == len(spans)
    for k in range(len(collapsed) + 1):
        mapped = k + removed[bisect_left(runs, k)]
        assert folded[mapped:mapped + 1] == collapsed[k:k + 1]


@needs_hyperscan
def test_patterns_reach_the_first_separator():
    """A key's pattern runs through its first byte other than a letter or digit, so a name key's first word does
    not fire on that person's address (and back); still distinct, and a key shorter than the floor is whole."""
    keys = [b"shudyshy lin", f"shudyshy.jica{MARK}x.org".encode(), b"ann lee", b"annabelle", b"annabelle k"]
    patterns = ascii_index._patterns({key: [(0, ((i, False, False),))] for i, key in enumerate(keys)})
    sizes = {key: entry[1] for key, entry in zip(sorted(keys), patterns.prefixes)}
    assert sizes[b"shudyshy lin"] == 9 and sizes[f"shudyshy.jica{MARK}x.org".encode()] == 9
    assert sizes[b"ann lee"] == 7 and sizes[b"annabelle"] == 9 and sizes[b"annabelle k"] == 10


@needs_hyperscan
def test_only_runs_inside_a_possible_key_are_collapsed():
    """With the index's tables, a run is collapsed only between a byte that precedes a space in some key and one
    that follows a space in some key; an address list's ``,`` + line break + indentation stays as it is, and the
    records are the reference's either way."""
    bank = make_bank({"p": [("a", "A", _lit("Ann Lee", ws=True)), ("b", "B", _lit("J. Ro", ws=True))],
                      "c": [("m", "M", _lit(f"ann.lee{MARK}x.org")), ("u", "U", _regex(EMAIL_REGEX, 9))]})
    compiled = compile_bank(bank)
    index = compiled.ascii_literals
    text = f"To: ann.lee{MARK}x.org,\n    bo{MARK}y.org,\n\n  ANN\n\n  lee and j.   ro, ann  x"
    folded = b" " + text.encode().translate(ascii_index._FOLD_TABLE) + b" "
    collapsed, runs, _ = ascii_index.collapse(folded, index.matter)
    assert collapsed == folded.replace(b",     ", b",     ").replace(b"ann    lee", b"ann lee").replace(
        b"j.   ro", b"j. ro")
    assert len(runs) == 2
    assert compiled.scan_text(text) == reference_scan(bank, text)
