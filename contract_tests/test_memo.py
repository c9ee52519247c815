"""The content-addressed memo (nerb_verify.memo) never changes a verification: a memo hit returns exactly what a
fresh computation returns, also for a bundle whose file differs from a memoised one by a single byte.

"Fresh" means ``NERB_VERIFY_MEMO=off`` (every stage computed from the parsed document); each comparison is of the
whole JSON report (findings with pointers and messages, recomputed figures, decisions, coverage) and of the
collector's unsorted finding list, so order and duplicates count too.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from contract_tests.conftest import REAL_BUNDLE, verify_dir  # noqa: E402
from nerb_verify import memo  # noqa: E402
from nerb_verify.report import build_report  # noqa: E402
from tools.fixturelib import INVALID, materialize  # noqa: E402

# Fixtures whose changed file is scanned or validated differently: a privacy hit in the card, gate targets that
# the privacy scan resolves into the evidence, a schema violation, a file that does not load, the summary text.
CASES = [
    "privacy.ssn-card-version-ssn",
    "privacy.email-card-version-json-escaped-address",
    "gate.target-leading-zero-index",
    "gate.target-negative-index-quirk",
    "load.lone_surrogate-lone-high-surrogate",
]


def _outcome(bundle: Path) -> tuple[str, list[tuple]]:
    result = verify_dir(bundle)
    report = build_report(result)
    findings = [(f.code, f.artifact, f.pointer, f.message, f.line, f.column) for f in result.collector.findings]
    return json.dumps(report, sort_keys=True), findings


def _fresh(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, list[tuple]]:
    with monkeypatch.context() as patch:
        patch.setenv("NERB_VERIFY_MEMO", "off")
        return _outcome(bundle)


def test_lru_is_bounded_and_keyed_exactly() -> None:
    memo.clear()
    calls: list[int] = []
    for index in range(memo.MAX_ENTRIES + 5):
        assert memo.cached(("t", index), lambda index=index: calls.append(index) or (index,)) == (index,)
    assert memo.stats()["entries"] == memo.MAX_ENTRIES
    assert memo.cached(("t", memo.MAX_ENTRIES + 4), lambda: ("recomputed",)) == (memo.MAX_ENTRIES + 4,)
    assert memo.cached(("t", 0), lambda: ("recomputed",)) == ("recomputed",)  # evicted, so computed again
    memo.clear()
    assert memo.stats() == {"hits": 0, "misses": 0, "entries": 0}


def test_memo_hit_equals_fresh_on_the_real_bundle(monkeypatch: pytest.MonkeyPatch) -> None:
    memo.clear()
    fresh = _fresh(REAL_BUNDLE, monkeypatch)
    first = _outcome(REAL_BUNDLE)  # fills the memo
    misses = memo.stats()["misses"]
    second = _outcome(REAL_BUNDLE)  # served from it
    stats = memo.stats()
    assert stats["misses"] == misses and stats["hits"] >= misses > 0
    assert first == fresh
    assert second == fresh


@pytest.mark.parametrize("name", CASES)
def test_memo_hit_equals_fresh_on_broken_fixtures(name: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """With the memo warmed by the real bundle (the fixture shares most of its files), the fixture's outcome is the
    fresh one, before and after its own files are memoised."""
    memo.clear()
    _outcome(REAL_BUNDLE)
    case = json.loads((INVALID / name / "case.json").read_text())
    bundle = materialize(case, tmp_path / "case")
    fresh = _fresh(bundle, monkeypatch)
    hits = memo.stats()["hits"]
    assert _outcome(bundle) == fresh
    assert memo.stats()["hits"] > hits  # unchanged files were served from the memo
    assert _outcome(bundle) == fresh


def _flip_one_byte(path: Path, old: bytes, new: bytes) -> None:
    raw = path.read_bytes()
    assert len(old) == len(new) == 1 or old != new
    index = raw.index(old)
    path.write_bytes(raw[:index] + new + raw[index + len(old):])


def test_one_byte_change_is_recomputed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A memoised file changed by one byte is computed again: its schema errors and privacy findings are the fresh
    ones, not the memoised ones of the original bytes."""
    case = json.loads((INVALID / "privacy.ssn-card-version-ssn" / "case.json").read_text())
    bundle = materialize(case, tmp_path / "case")
    memo.clear()
    original = _outcome(bundle)
    card = bundle / "bank-card.json"
    text = card.read_text(encoding="utf-8")
    assert '"sha256:' in text
    # One byte: an uppercase hex digit breaks the sha256 pattern (schema) and changes the raw-byte hash.
    position = text.index('"sha256:') + len('"sha256:')
    digit = next(i for i in range(position, position + 64) if text[i] in "abcdef")
    card.write_bytes(text[:digit].encode() + text[digit].upper().encode() + text[digit + 1:].encode())
    changed = _outcome(bundle)
    assert changed == _fresh(bundle, monkeypatch)
    assert changed != original
    assert "schema.pattern" in {item[0] for item in changed[1]}
    assert "privacy.ssn" in {item[0] for item in changed[1]}
    # One byte in the SSN itself: the privacy finding of the memoised bytes must not come back.
    shutil.copy(card, tmp_path / "card-before.json")
    raw = card.read_bytes()
    ssn = next(i for i in range(len(raw) - 11) if raw[i:i + 11].replace(b"-", b"").isdigit()
               and raw[i + 3:i + 4] == b"-" and raw[i + 6:i + 7] == b"-")
    card.write_bytes(raw[:ssn] + b"x" + raw[ssn + 1:])
    edited = _outcome(bundle)
    assert edited == _fresh(bundle, monkeypatch)
    assert edited != changed
