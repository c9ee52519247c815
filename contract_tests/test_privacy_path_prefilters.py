"""Issue 16 speed work (second round): the literal prefilters of the traversal and root-home path rules
(``rules/paths.py``, ``_has_dot_dot`` and ``_has_root_home``) never turn away a text the rule's pattern matches, so
each rule hits exactly where it hit with its trigger alone.

Must-reject values are assembled at run time (this file passes the repository's own scan).
"""

from __future__ import annotations

import random

import pytest

from contract_tests import privacy_corpus, privacy_fp_corpus
from contract_tests.bundle_texts import bundle_strings
from nerb_verify.privacy.normalise import normalise
from nerb_verify.privacy.rules import ALL_RULES, paths

_ROOT = "/r" + "oot"
_RULES = {"path.traversal": paths._has_dot_dot, "path.traversal_escaped": paths._has_dot_dot,
          "path.root_home": paths._has_root_home}


def _generated(count: int) -> list[str]:
    """Traversal and root-home shapes and near misses among every character the patterns' lookarounds test."""
    rng = random.Random(1618)
    parts = ["..", ".", "...", "/", "\\", ";", "-o", "--out", " ", "=", ",", "(", ")", "[", "]", "{", "}", "x", "9",
             "_", "~", "-", "\"", "'", "<", ">", "|", "`", "\n", _ROOT, _ROOT[:-1], _ROOT.upper(), "r" + "oot", "/R",
             "oot", "HEAD~3..HEAD", "1..10", "cd ..", "%2F", "\u2024", "\uff0e"]
    return ["".join(rng.choice(parts) for _ in range(rng.randint(1, 8))) for _ in range(count)]


def _texts() -> list[str]:
    texts = [row[1] for row in privacy_corpus.rows()]
    texts += [line for _kind, line in privacy_fp_corpus.MUST_PASS]
    texts += [privacy_fp_corpus.assemble(text) for _kind, text, _code in privacy_fp_corpus.MUST_FIND]
    strings = bundle_strings()
    texts += strings + _generated(8000)
    normalised = [normalise(text) for text in texts]
    return texts + [clean.text for clean in normalised if clean.ok]


@pytest.mark.parametrize("name", sorted(_RULES))
def test_the_prefilter_never_turns_away_a_match(name: str) -> None:
    rule = ALL_RULES[name]
    assert rule.prefilter is _RULES[name] and rule.gate is None and rule.window is None
    matched = turned_away = 0
    for text in _texts():
        triggered = rule.trigger is None or any(char in text for char in rule.trigger)
        expected = triggered and rule._hits_in(text, 0, len(text))  # the pattern, without the prefilter
        assert rule.hits(text) == expected, text
        matched += expected
        turned_away += triggered and not rule.prefilter(text)
    assert matched > 300 and turned_away > 1000  # not vacuous: many matches, many texts the trigger alone passes
