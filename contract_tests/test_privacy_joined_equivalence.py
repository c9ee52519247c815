"""Issue 17 speed work: the screened joined views (:func:`joined.joined_findings`) report exactly what the full,
unscreened join (:func:`joined.reference_joined_findings`) reports, and the engine's fast paths (token patterns on
``re``, cached token decodes, the NFKC skip for ASCII plus the screen separator) change no result.

Cases: the privacy corpus, the joined tests' cases, random splits of every must-reject corpus value into 2-4 pieces
across arrays, object values and keys (hypothesis, derandomized), and every container of both vendored bundles."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privacy_corpus
import test_privacy_joined
from nerb_verify.findings import Collector
from nerb_verify.privacy import engine, joined, json_scan
from nerb_verify.privacy.normalise import INERT_SEPARATOR, _IGNORABLE, _LOOKALIKES, _NON_ASCII_DIGIT
from nerb_verify.privacy.profiles import CONTRACT, PROFILES, REPOSITORY

ROOT = Path(__file__).resolve().parents[1]
BUNDLES = [ROOT / "fixtures" / "bundles" / "nerb-enron", ROOT / "fixtures" / "bundles" / "synthetic-smoke"]
SETTINGS = settings(max_examples=120, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
CORPUS = privacy_corpus.rows()
REJECT = [text for _id, text, contract, _repository in CORPUS if contract]


def _containers(document: object, profile) -> list:
    """The containers :func:`json_scan.scan_json` hands to the joined views for ``document``."""
    captured: list = []
    original = json_scan.joined_findings

    def capture(containers, prof):
        captured.extend(containers)
        return original(containers, prof)

    json_scan.joined_findings = capture
    try:
        scan_json(document, profile)
    finally:
        json_scan.joined_findings = original
    return captured


def scan_json(document: object, profile) -> None:
    json_scan.scan_json(document, profile, Collector(), "x.json", pointer_root=document)


def _assert_same(containers: list, profile) -> None:
    fast = {(repr(key), frozenset(codes)) for key, codes in joined.joined_findings(containers, profile)}
    full = {(repr(key), frozenset(codes)) for key, codes in joined.reference_joined_findings(containers, profile)}
    assert fast == full


@pytest.mark.parametrize("profile", list(PROFILES.values()), ids=list(PROFILES))
def test_corpus_pairs_and_whole_corpus_agree(profile) -> None:
    texts = [text for _id, text, _c, _r in CORPUS]
    containers = [((index,), (texts[index], texts[index + 1])) for index in range(len(texts) - 1)]
    containers += [(("all",), tuple(texts))]
    _assert_same(containers, profile)


@pytest.mark.parametrize("profile", [CONTRACT, REPOSITORY], ids=["contract", "repository"])
def test_joined_test_cases_agree(profile) -> None:
    documents = [doc for _n, doc, _c in test_privacy_joined.SPLIT_JSON] + list(test_privacy_joined.ACCEPT_JSON)
    for document in documents:
        _assert_same(_containers(document, profile), profile)


@SETTINGS
@given(st.sampled_from(REJECT), st.lists(st.integers(min_value=1, max_value=10_000), min_size=1, max_size=3),
       st.sampled_from(["array", "values", "keys"]), st.sampled_from(["contract", "repository"]))
def test_random_splits_agree(value: str, cuts: list[int], shape: str, profile_name: str) -> None:
    points = sorted({cut % len(value) for cut in cuts} - {0}) if len(value) > 1 else []
    edges = [0, *points, len(value)]
    pieces = [value[start:end] for start, end in zip(edges, edges[1:]) if end > start]
    if shape == "array":
        document: object = {"rows": pieces}
    elif shape == "values":
        document = {f"x_{index}": piece for index, piece in enumerate(pieces)}
    else:
        document = {"rows": {piece: "v" for piece in pieces}}
    profile = PROFILES[profile_name]
    _assert_same(_containers(document, profile), profile)


@pytest.mark.parametrize("bundle", BUNDLES, ids=[bundle.name for bundle in BUNDLES])
@pytest.mark.parametrize("profile", [CONTRACT, REPOSITORY], ids=["contract", "repository"])
def test_every_bundle_container_agrees(bundle: Path, profile) -> None:
    files = sorted(bundle.rglob("*.json"))
    assert files
    for path in files:
        document = json.loads(path.read_text(encoding="utf-8"))
        containers = _containers(document, profile)
        _assert_same(containers, profile)


# The engine's token patterns: ``re`` and ``regex`` find the same matches.
_TOKEN_PATTERNS = [engine._BASE64_TOKEN, engine._HEX_TOKEN, engine._SEPARATED_HEX, engine._BASE32_TOKEN]


def _agree(text: str) -> None:
    for pattern in _TOKEN_PATTERNS:
        assert isinstance(pattern, re.Pattern)
        twin = regex.compile(pattern.pattern)
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in twin.finditer(text)]
    # Where a wrapped run can start (the wrap condition, a necessary condition of the pattern at each match start).
    starts = set(engine._wrap_starts(text))
    for match in engine._WRAPPED_BASE64.finditer(text):
        assert match.start() in starts


def test_token_patterns_agree_on_the_corpus_and_bundles() -> None:
    for _id, text, _c, _r in CORPUS:
        _agree(text)
    for bundle in BUNDLES:
        for path in sorted(bundle.rglob("*.json")):
            _agree(path.read_text(encoding="utf-8"))


@SETTINGS
@given(st.text(alphabet=st.sampled_from(list("aAzZ09fF27+/_-= :\n\r\t.gG")), max_size=200))
def test_token_patterns_agree_on_random_text(text: str) -> None:
    _agree(text)


@SETTINGS
@given(st.text(alphabet=st.characters(max_codepoint=127) | st.just(INERT_SEPARATOR), max_size=200))
def test_ascii_with_the_separator_skips_nothing(text: str) -> None:
    """The non-ASCII step (NFKC, ignorables, look-alikes, digits) is the identity on ASCII plus the separator, so
    skipping it there changes no round."""
    full = unicodedata.normalize("NFKC", text)
    full = _IGNORABLE.sub("", full).translate(_LOOKALIKES)
    full = _NON_ASCII_DIGIT.sub("", full)
    assert full == text
