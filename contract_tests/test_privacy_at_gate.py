"""Issue 16 speed work: the spelled-out at-sign gate (``rules/email.py``, ``_AT_GATE``, also the prefilter's hint for
``email.spelled_plain``) written for fast scanning finds a match exactly where the form it replaced does."""

from __future__ import annotations

import random
import re

from contract_tests import privacy_corpus, privacy_fp_corpus
from contract_tests.bundle_texts import bundle_strings
from nerb_verify.privacy import prefilter
from nerb_verify.privacy.rules import email

# The form it replaced: a separator or the start, a word, a separator or the end; or a glued word.
_BEFORE = re.compile(rf"(?:^|[\s_-])(?:{email._lower_words(email._AT_WORDS)})(?:$|[\s_-])"
                     rf"|{email._lower_words(email._AT_WORDS_GLUED)}")


def _forms() -> list[str]:
    return sorted({variant for word in email._AT_WORDS + email._AT_WORDS_GLUED
                   for variant in (word, word.upper(), word.capitalize())})


def _random_texts(count: int) -> list[str]:
    rng = random.Random(1612)
    forms = _forms()
    # separators, near-separators (a dot, a slash, a digit, a letter), line breaks and other scripts' white space
    around = [" ", "_", "-", "\n", "\t", "\r\n", "\u3000", "\u00a0", ".", "/", "x", "9", "", "", "@", "\u2603"]
    texts = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 5)):
            parts.append(rng.choice(around))
            if rng.random() < 0.6:
                form = rng.choice(forms)
                if rng.random() < 0.2:  # a near miss: the word cut or extended
                    form = form[:-1] if rng.random() < 0.5 else form + rng.choice("sx_")
                parts.append(form)
            else:
                parts.append("".join(rng.choice("atATsign_- \nxo") for _ in range(rng.randint(1, 6))))
            parts.append(rng.choice(around))
        texts.append("".join(parts))
    return texts


def _texts() -> list[str]:
    texts = [row[1] for row in privacy_corpus.rows()]
    texts += [line for _kind, line in privacy_fp_corpus.MUST_PASS]
    strings = bundle_strings()
    return texts + strings + _random_texts(6000) + ["at", "at_x", "x_at", "created_at", "xat", "atx",
                                                           "\nat", "at\n", "a\nt", "\u201cat\u201d"]


def test_the_gate_matches_where_the_form_it_replaced_does() -> None:
    matched = 0
    for text in _texts():
        low = text.lower()
        expected = _BEFORE.search(low) is not None
        assert (email._AT_GATE.search(low) is not None) == expected, text
        matched += expected
    assert matched > 1000  # not vacuous


def test_the_prefilter_form_of_the_gate_matches_alike_on_ascii_text() -> None:
    # The prefilter compiles its hint patterns with ASCII classes; the gate has none to rewrite, and matches alike.
    ascii_form = re.compile(prefilter._ascii_classes(email._AT_GATE.pattern))
    for text in _random_texts(2000):
        low = text.lower()
        if low.isascii():
            assert (ascii_form.search(low) is None) == (_BEFORE.search(low) is None), text


def test_the_word_lists_normal_forms_are_the_normalisers() -> None:
    """The at/dot word alternations skip the normaliser for printable ASCII words without an escape (session 12,
    import time): every word of both lists, in each case variant the rules use, has exactly the form the normaliser
    gives; and such text is a fixed point of the normaliser character by character."""
    import string

    from nerb_verify.privacy.normalise import normalise
    from nerb_verify.privacy.rules import email

    for word in email._AT_WORDS + email._DOT_WORDS + email._AT_WORDS_GLUED + email._DOT_WORDS_GLUED:
        for variant in (word, word.upper(), word.capitalize()):
            assert email._normal_form(variant) == normalise(variant).text, variant
    for char in string.printable:
        if " " <= char <= "~" and char not in email._ESCAPE_STARTS:
            assert normalise("x" + char + "y").text == "x" + char + "y", repr(char)
