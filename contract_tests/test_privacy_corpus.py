"""Table-driven privacy corpus: every row is scanned with both profiles and must raise exactly its codes."""

from __future__ import annotations

import pytest

from contract_tests import privacy_corpus
from nerb_verify.privacy.engine import scan_string
from nerb_verify.privacy.profiles import CONTRACT, REPOSITORY

ROWS = privacy_corpus.rows()
# Encoders that change only digits (or only letters), so they leave a base without any unchanged.
_DIGITS_ONLY = ("arabic_digits", "devanagari_digits", "digit_full_stop", "roman_numerals", "cjk_numerals",
                "negative_squared_letters")


def test_corpus_is_large_and_covers_both_verdicts() -> None:
    assert len(ROWS) >= 150
    rejects = [row for row in ROWS if row[2] or row[3]]
    accepts = [row for row in ROWS if not row[3]]
    assert len(rejects) >= 100 and len(accepts) >= 50
    encoders = {row[0].split("~", 1)[1] for row in ROWS if "~" in row[0]}
    assert encoders == set(privacy_corpus.ENCODERS)


def test_no_row_is_secretly_identical_to_its_base() -> None:
    # An encoder that returned its input unchanged would make the encoding rows test nothing new.
    for name, (value, _c, _r) in privacy_corpus.BASE.items():
        for encoder_name, encoder in privacy_corpus.ENCODERS.items():
            if encoder_name not in _DIGITS_ONLY + ("plain", "lookalikes"):
                assert encoder(value) != value, (name, encoder_name)
    for encoder_name in _DIGITS_ONLY + ("lookalikes",):
        changed = [name for name, (value, _c, _r) in privacy_corpus.BASE.items()
                   if privacy_corpus.ENCODERS[encoder_name](value) != value]
        assert len(changed) >= 3, encoder_name


@pytest.mark.parametrize("row_id,text,contract,repository", ROWS, ids=[row[0] for row in ROWS])
def test_corpus_row(row_id: str, text: str, contract: set[str], repository: set[str]) -> None:
    assert set(scan_string(text, CONTRACT)) == contract, "contract"
    assert set(scan_string(text, REPOSITORY)) == repository, "repository"
