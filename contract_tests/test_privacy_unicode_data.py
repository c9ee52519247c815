"""The Unicode data behind the normaliser's look-alike step: the generated UTS #39 table is current and is used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from nerb_verify.privacy.confusables_data import DATA_SOURCE, SOURCES, TARGETS
from nerb_verify.privacy.normalise import normalise

ROOT = Path(__file__).resolve().parent.parent


def test_generated_confusables_table_matches_the_package_data() -> None:
    result = subprocess.run([sys.executable, "tools/gen_confusables.py", "--check"], cwd=ROOT, check=False)
    assert result.returncode == 0, "run python tools/gen_confusables.py"
    assert DATA_SOURCE.startswith("confusable-homoglyphs ")
    assert len(SOURCES) == len(TARGETS) > 1000


def test_every_confusable_reads_as_its_ascii_twin_or_a_hand_kept_choice() -> None:
    # Each source character normalises to one ASCII character (its UTS #39 twin, or the hand-kept entry that wins).
    for source in SOURCES:
        text = normalise(source).text
        assert len(text) == 1 and text.isascii(), hex(ord(source))
