"""Short texts beyond ASCII (issue 17 speed): ``engine.SHORT_CLEAN_CHARS`` lets a registered profile skip the full
path for a non-ASCII text of at most that many characters, as given and decoded. These tests check the promise
against the full path itself: every assigned code point alone, and seeded pairs built from the characters the rules
and the normaliser act on (slashes, tildes, at-signs, dots, backslashes, colons, digits and their look-alikes,
characters NFKC expands), in the profile that has a bound; a bound one longer fails them.
"""

from __future__ import annotations

import random
import sys
import unicodedata

import pytest

from nerb_verify.privacy import engine
from nerb_verify.privacy.confusables_data import SOURCES
from nerb_verify.privacy.engine import SHORT_CLEAN_CHARS, scan_full, scan_uncached
from nerb_verify.privacy.normalise import normalise
from nerb_verify.privacy.profiles import PROFILES

_ACTIVE = "~/\\@.:0123456789$%&#=+-_ \n" + "azAZ"
_WIDE = ["\uff0f", "\u2215", "\u29f8", "\uff3c", "\uff5e", "\u02dc", "\uff20", "\ufe6b", "\uff0e", "\u2024",
         "\uff1a", "\u2460", "\u2474", "\u2488", "\u24d0", "\u0430", "\u0440", "\ufdfa", "\u3392", "\u33c2",
         "\u2100", "\u2101", "\u2105", "\ufb03", "\u00bd", "\u2153", "\u2474", "\U0001d7ce", "\u0660", "\u06f1",
         "\u200b", "\u202e", "\U000e0041", "\U000e007e", "\U000e002f"]


def _assigned_code_points() -> list[str]:
    return [chr(code) for code in range(0x80, sys.maxunicode + 1)
            if unicodedata.category(chr(code)) not in ("Cn", "Cs", "Co")]


def _skipped(text: str, profile_name: str, bound: int) -> bool:
    """Whether a text would be skipped under ``bound`` (what ``engine._short_and_clean`` decides)."""
    profile = PROFILES[profile_name]
    if len(text) > bound or text.isascii():
        return False
    clean = normalise(text, profile.max_rounds, profile.max_chars)
    return clean.ok and len(clean.text) <= bound


def _pairs(rng: random.Random, count: int) -> list[str]:
    pool = list(_ACTIVE) + _WIDE + list(SOURCES)
    pairs = [rng.choice(pool) + rng.choice(pool) for _ in range(count)]
    return [pair for pair in pairs if not pair.isascii()]


@pytest.mark.parametrize("profile_name", sorted(SHORT_CLEAN_CHARS))
def test_a_short_text_with_a_short_decoding_raises_nothing(profile_name: str) -> None:
    bound = SHORT_CLEAN_CHARS[profile_name]
    profile = PROFILES[profile_name]
    rng = random.Random(20261203)
    texts = _assigned_code_points() + _pairs(rng, 60_000)
    skipped = [text for text in texts if _skipped(text, profile_name, bound)]
    assert len(skipped) > 100_000
    raising = [ascii(text) for text in skipped if scan_full(text, profile)]
    assert raising == []


def test_a_bound_one_longer_would_hide_a_finding() -> None:
    """The repository profile's bound is tight: three characters of look-alikes (a tilde folder written with a
    fullwidth tilde and slash) raise a code that a bound of three would skip."""
    profile = PROFILES["repository"]
    tilde_folder = "\uff5e" + "a" + "\uff0f"  # (a tilde, a letter, a slash: look-alikes)
    assert _skipped(tilde_folder, "repository", 3) and scan_full(tilde_folder, profile)
    assert not _skipped(tilde_folder, "repository", SHORT_CLEAN_CHARS["repository"])
    assert scan_uncached(tilde_folder, profile)  # (not skipped under the real bound)
    rng = random.Random(7)
    three = [a + b for a in ("\uff5e", "~") for b in ("a\uff0f", "\u0430/")] + [
        rng.choice(_WIDE) + rng.choice(_ACTIVE) + rng.choice(_WIDE) for _ in range(3000)]
    assert any(_skipped(text, "repository", 3) and scan_full(text, profile) for text in three)


def test_the_skip_is_taken_only_for_registered_profiles_and_non_ascii_text(monkeypatch: pytest.MonkeyPatch) -> None:
    profile = PROFILES["repository"]
    custom = profile._replace(name="repository")  # (same name, not the registered object)
    assert engine._short_and_clean("\u00e9", profile)
    assert not engine._short_and_clean("\u00e9", custom)
    assert not engine._short_and_clean("ab", profile)  # (ASCII: the prefilter's business)
    assert not engine._short_and_clean("\u00e9", PROFILES["contract"])  # (a lone at-sign is a finding there)
    calls: list[str] = []
    monkeypatch.setattr(engine, "scan_full", lambda text, *_args, **_kw: calls.append(text) or frozenset())
    assert scan_uncached("\u00e9\u00e8", profile) == frozenset() and calls == []
    scan_uncached("\u00e9\u00e8\u00ea", profile)
    assert calls == ["\u00e9\u00e8\u00ea"]
