"""Issue 17, the scanner's prefilter (``nerb_verify/privacy/prefilter.py``): a text it skips raises nothing on the
full path, over every corpus row, every string of both bundles, their joined views and seeded random strings; it
fails safe for a rule it does not know; and it does skip ordinary text (it is not vacuous)."""

from __future__ import annotations

import base64
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contract_tests import privacy_corpus, privacy_fp_corpus
from contract_tests.bundle_texts import bundle_containers, bundle_strings
from nerb_verify.privacy.engine import prefilter_skips, scan_full, scan_uncached
from nerb_verify.privacy.joined import views
from nerb_verify.privacy.profiles import PROFILES

PROFILE_LIST = list(PROFILES.values())


def _corpus_texts() -> list[str]:
    texts = [row[1] for row in privacy_corpus.rows()]
    texts += [line for _kind, line in privacy_fp_corpus.MUST_PASS]
    texts += [privacy_fp_corpus.assemble(text) for _kind, text, _code in privacy_fp_corpus.MUST_FIND]
    # Every corpus text cut in half and with its break markers left in: near misses of every shape.
    texts += [text[: len(text) // 2] for text in texts] + [text[len(text) // 2:] for text in texts]
    return texts


def _bundle_strings() -> tuple[list[str], list[tuple[str, ...]]]:
    return bundle_strings(), bundle_containers(2)


def _check(text: str) -> bool:
    """Assert the prefilter's promise for ``text`` in every profile; True when some profile skipped it."""
    skipped = False
    for profile in PROFILE_LIST:
        full = scan_full(text, profile)
        if prefilter_skips(text, profile):
            skipped = True
            assert full == frozenset(), (profile.name, text)
        assert scan_uncached(text, profile) == full, (profile.name, text)
    return skipped


def test_corpus_rows_skipped_raise_nothing_on_the_full_path() -> None:
    texts = _corpus_texts()
    skipped = sum(_check(text) for text in texts)
    assert len(texts) > 800 and skipped > 50  # benign rows and the halves of rows are skipped


def test_bundle_strings_and_joined_views_skipped_raise_nothing() -> None:
    strings, containers = _bundle_strings()
    skipped = sum(_check(text) for text in strings)
    assert skipped >= len(strings) // 2, "most evidence strings need no full scan"
    for pieces in containers[:400]:
        for view in views(pieces):
            if len(view) <= 8192:
                _check(view)


# Characters that sit next to every hint: digits and separators, the path and escape punctuation, the letters of
# the hint words, the at-sign, brackets, line breaks, and a few non-ASCII look-alikes.
_ALPHABET = ("0123456789" * 3 + " -./_~:+()[]\t\n\r" + "@%&=\\#$<>{}\"'" + "OoNngGatAThomeusrfil"
             + "xyzQWK" + "\uff10\u2215\u00a0\u0430\u2603")
_WORDS = ["at", "dot", "home", "users", "file:", "tel", "phone", "ssn", "doc_", "http://", "~", "/r" + "oot", "0x",
          "%40", "&#64;", "\\u0040", "=40", "555", "713", "2368", "219", "09", "9999", "+44", "00", "011", "ng",
          "O", "(at)", "[dot]", "C:\\", "\\\\", "$HOME", "%USERPROFILE%", "6a616e65",
          base64.b64encode(("jane" + "@" + "corp.com").encode()).decode()]


def _random_text(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 12)):
        if rng.random() < 0.35:
            parts.append(rng.choice(_WORDS))
        else:
            parts.append("".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 9))))
    return "".join(parts)


def test_seeded_random_strings_skipped_raise_nothing() -> None:
    rng = random.Random(20261201)
    skipped = sum(_check(_random_text(rng)) for _ in range(4000))
    assert skipped > 100


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(sorted(set(_ALPHABET))), max_size=60))
def test_prefilter_property(text: str) -> None:
    _check(text)


def test_an_unknown_rule_is_never_skipped() -> None:
    # A rule the hint table does not know (a new rule, or another engineer's) sends every text to the full path.
    repository = PROFILES["repository"]
    profile = repository._replace(name="custom", rule_names=repository.rule_names + ("email.not_a_known_rule",))
    assert not prefilter_skips("plain words", profile)
    assert prefilter_skips("plain words", PROFILES["repository"])


@pytest.mark.parametrize("text", ["plain words and_identifiers_of_some_length", "def function_12(value: int):",
                                  "sha256:" + "ab12" * 16, "quality_slices", "0.9530201342281879"])
def test_ordinary_text_is_skipped(text: str) -> None:
    assert prefilter_skips(text, PROFILES["repository"])


def test_rewritten_hex_token_patterns_find_what_the_lookbehind_first_forms_found() -> None:
    # The engine's hex patterns test "no hex digit before" after their first character (faster); the forms they
    # replaced, with the test first, must find exactly the same spans.
    import re

    from nerb_verify.privacy import engine

    # (Plain runs of either parity since session 14: an odd run is decoded without one end digit.)
    before = {engine._HEX_TOKEN: re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{12,}(?![0-9A-Fa-f])"),
              engine._SEPARATED_HEX: re.compile(
                  r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{2}(?:[ :-][0-9A-Fa-f]{2}){5,}(?![0-9A-Fa-f])")}
    rng = random.Random(7)
    texts = _corpus_texts() + ["".join(rng.choice("0123456789abcdefABCDEFxyz :-=\n") for _ in range(rng.randint(0, 90)))
                               for _ in range(3000)]
    for text in texts:
        for now, then in before.items():
            assert [m.span() for m in now.finditer(text)] == [m.span() for m in then.finditer(text)], text


# Text for the weaker forms of the hints: digits, every separator, the letters read as digits, other letters, the
# odd separators, and the joined-view screen separator (the one non-ASCII character the hints read).
_HINT_ALPHABET = "0123456789-./_~:+()[]<>{} \t\r\nOoIlabxyZ!\"#$%&'*;=?\\^`|\u2603"


def _weaker_forms() -> list[object]:
    from nerb_verify.privacy import engine, prefilter

    hints = []
    for profile in PROFILE_LIST:
        plan = prefilter._hints(profile.rule_names, engine.PREFILTER_HINTS)
        assert plan is not None
        hints += [hint for hint in plan.rest + plan.counting if hint.marks is not None or hint.gate is not None]
    return list(dict.fromkeys(hints))


def test_hints_have_weaker_forms() -> None:
    # The digit-group hints, the letters-for-digits hint and the odd-separator hint carry marks or a gate (if a
    # table edit dropped them, the test below would check nothing).
    hints = _weaker_forms()
    assert sum(hint.marks is not None for hint in hints) >= 7 and any(hint.gate is not None for hint in hints)


# ... and text mostly of digits, with a few letters, separators and the letters read as digits among them, so
# long digit runs (compact and E.164 numbers) next to letters, dots and plus signs occur often.
_DIGIT_HEAVY = st.text(alphabet=st.sampled_from("0123456789" * 6 + "aZOl.+_ -\u2603"), max_size=40)


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(st.one_of(st.text(alphabet=_HINT_ALPHABET, max_size=40), _DIGIT_HEAVY))
def test_every_text_a_hint_pattern_matches_matches_its_weaker_forms(text: str) -> None:
    """``Hint.marks`` and ``Hint.gate`` are necessary conditions of the hint's pattern: wherever the pattern
    matches, its marks (over the text's number marks) and its gate match too, so testing them first only spares
    pattern searches that could not match."""
    from nerb_verify.privacy.prefilter import number_marks

    marks = number_marks(text)
    for hint in _weaker_forms():
        source = text.lower() if hint.on_lower else text
        if hint.pattern is not None and hint.pattern.search(source) is not None:
            assert hint.marks is None or hint.marks.search(marks) is not None, (hint.marks.pattern, text)
            assert hint.gate is None or hint.gate.search(text) is not None, (hint.gate.pattern, text)


def test_number_marks_count_the_ascii_digits() -> None:
    from nerb_verify.privacy.prefilter import number_marks

    text = "a1b22\u0663\uff13 9_O0l.\u2603"
    assert number_marks(text).count(b"d") == sum(text.count(digit) for digit in "0123456789") == 5
    assert number_marks("ab12_-O") == b".aadds" + b"so"


# URL paths whose code only the URL path rules find (contract profile), assembled so this file passes its own scan.
_PATH_ONLY = [("/a/" + "../" * 2 + "etc/x", "privacy.path_traversal"),
              ("/" + chr(126) + "jr" + "oe/x", "privacy.personal_path"),
              ("/" + chr(36) + "HOME/.ssh/x", "privacy.local_path"), ("/d/C" + ":/U" + "sers/x", "privacy.local_path")]


def _url_texts() -> list[str]:
    """Texts with URLs whose query values, fragments and nested URLs hold every kind of payload: plain words and
    numbers (which the prefilter clears), phones, home folders, tilde paths, addresses, escapes, encoded tokens,
    nested URLs, site paths; plus every corpus row that holds a URL."""
    sign, tilde, user, dots, back = chr(64), chr(126), "jr" + "oe", "." * 2, chr(92)
    values = ["123", "word", "a-b_c", "713" + "-555-" + "0123", "7135550123", "/ho" + "me/" + user + "/x", "/runs/42",
              tilde + user + "/x", "jane.roe" + sign + "corp-mail" + ".org", "jane%" + "40corp-mail.org",
              "%2Fhome%2F" + user, base64.b64encode(("jane.roe" + sign + "corp-mail.org").encode()).decode(),
              "x" * 40, "https://example.org/?next=" + "713" + "555" + "0123", "C:" + back + "Users" + back + user,
              dots + "%2F" + dots + "%2Fetc", "O1I2"]
    rng = random.Random(31)
    texts = []
    for _ in range(600):
        query = "&".join(f"k{index}={rng.choice(values)}" for index in range(rng.randint(1, 4)))
        path = rng.choice(["", "/docs/", "/" + tilde + user + "/", "/a/b/c.html", "/" + rng.choice(values),
                           "/call/713" + "5550123", _PATH_ONLY[0][0], _PATH_ONLY[1][0], _PATH_ONLY[2][0],
                           _PATH_ONLY[3][0], "/%7E" + user + "/x"])
        fragment = rng.choice(["", "#top", "#/dashboard", "#" + rng.choice(values)])
        texts.append(f"see https://example.org{path}?{query}{fragment} now")
    texts += [text for text in _corpus_texts() if "://" in text]
    return texts


def test_url_parts_the_prefilter_clears_raise_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine skips a URL path or payload the prefilter proves clean (``engine._url_part_needs_scan``): every
    text with URLs raises exactly what it raises when every part is read, in every profile."""
    from nerb_verify.privacy import engine

    texts = _url_texts()
    fast = [[scan_full(text, profile) for profile in PROFILE_LIST] for text in texts]
    monkeypatch.setattr(engine, "_url_part_needs_scan", lambda _payload, _profile: True)
    slow = [[scan_full(text, profile) for profile in PROFILE_LIST] for text in texts]
    assert fast == slow
    # Not vacuous: with no part read, hundreds of these texts lose a code (a home folder or a traversal in a query
    # value, a tilde folder in a path, is found only there).
    monkeypatch.setattr(engine, "_url_part_needs_scan", lambda _payload, _profile: False)
    none = [[scan_full(text, profile) for profile in PROFILE_LIST] for text in texts]
    assert sum(row_none != row_slow for row_none, row_slow in zip(none, slow)) > 200


@pytest.mark.parametrize(("path", "code"), _PATH_ONLY)
def test_a_path_only_the_url_path_rules_read_is_still_found(path: str, code: str) -> None:
    """What only the URL path's own rules find (a traversal, a tilde folder, a home shorthand, a drive, in the
    contract profile) is still found with the clean-part skip in place (a skip test at the call site that ignored
    the prefilter would lose these)."""
    assert code in scan_full(f"see https://example.org{path} now", PROFILES["contract"])
