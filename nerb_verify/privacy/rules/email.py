"""Direct identifiers: e-mail addresses (both profiles), any at-sign and NERB-style document ids (contract profile).

Rules run on normalised text, so fullwidth, small-form, percent-, HTML-, quoted-printable- and backslash-escaped
at-signs are plain ``@`` by then. The e-mail grammar is deliberately loose on the local part (any word character,
dot, plus, percent, hyphen) and needs a dotted domain ending in a letters-only label, so ``@pytest.fixture`` and
``@types/x`` (no local part) and ``user@host`` (no dotted domain) are not e-mail addresses. The spelled-out form with
bracketed ``(at)`` / ``[dot]`` / ``[.]`` is an e-mail address too, and in the contract profile so is the plain
``name at host dot org`` spelling (also with ``_`` or ``-`` for the spaces, ``period`` for ``dot``, the words
for the at-sign and the dot in other languages, quoted ``"at"``, ``at sign`` and a real dot after the spelled at). The repository profile does not flag addresses at domains
reserved for documentation and tests (``example.com``, ``*.example``, ``*.test``, ``*.invalid``, ``*.localhost``),
nor the ``user@host`` of an SSH clone URL in scp form (``git@github.com:owner/repo.git``: a dotted host followed by a
colon and a repository path), nor an SSH algorithm name (``aes256-gcm@openssh.com``); the contract profile flags
every address (and every at-sign).
"""

from __future__ import annotations

import functools
import re

import regex

from nerb_verify.codes import register
from nerb_verify.privacy.lazy import LazyPattern
from nerb_verify.privacy.lowercase import lowered
from nerb_verify.privacy.normalise import normalise
from nerb_verify.privacy.rules.anchored import AnchoredPattern
from nerb_verify.privacy.rules.base import Rule, compile_rule

EMAIL = register(
    "privacy.email", "Text has the shape of an e-mail address.",
    "An e-mail address is a direct identifier. The scan decodes every encoding layer first (fullwidth or escaped "
    "at-signs, percent escapes, HTML entities, quoted-printable, JSON/Python escapes, zero-width characters) and "
    "also matches the bracketed '(at)' / '[dot]' spelling. The value is never printed: open the file at the location "
    "given and remove or aggregate it.")
AT_SIGN = register(
    "privacy.at_sign", "Text contains an at-sign.",
    "Public evidence may not contain an at-sign in any form, fullwidth and escaped ones included (charter, "
    "'Artifact Retention And Ethics'). Evidence has no legitimate use for one, so any at-sign is treated as a "
    "possible direct identifier. Reported only when no e-mail address was found at the same place.")
DOCUMENT_ID = register(
    "privacy.document_id", "Text contains a per-document identifier (doc_ plus 64 hex digits).",
    "Per-document identifiers let a reader re-identify individual source documents; public evidence is aggregate "
    "only (contract profile).")

_LOCAL_CHARS = r"[\w.+%'-]"
_LOCAL = rf"{_LOCAL_CHARS}*\w"
_LABEL = r"[^\W_](?:[\w-]{0,62}[^\W_])?"
_OPEN = r"[\(\[\{<]"
_CLOSE = r"[\)\]\}>]"

# Spelled-out separators ("jane at corp", "jane_at_corp", "jane-at-corp") and words for the dot.
_SEP = r"(?:\s+|\s*[-_]\s*)"
# The last label of a spelled-out address: a country code or a common generic TLD ("... dot product" is prose).
# Session 14: and the generic TLDs registered most since 2014 (xyz, top, shop, app, dev, tech, ...).
_SPELLED_TLD = (r"(?:[a-z]{2}|com|org|net|edu|gov|mil|int|info|biz|name|mobi|email|mail|online|site|aero|coop"
                r"|xyz|top|shop|store|app|dev|tech|cloud|club|live|vip|icu|pro|space|website|fun|life|blog|link"
                r"|digital|agency|studio|network|solutions|company|world|media|work)")
# ... or a 2-4 letter label with a letter outside ASCII (a TLD spelled in its own script: .рф, .中国, .ком).
_SCRIPT_TLD = r"(?=[^\W\d_]{2,4}(?![\w-]))[^\W\d_]*[^\W\d_a-zA-Z][^\W\d_]*"
# Country codes that are also common file extensions: "look at setup.py" is not an address (nor "saved at
# step_1000.pt", a PyTorch checkpoint; .pm Perl, .gd Godot, .bz bzip, .mo gettext, .tk Tcl), nor generic TLDs that
# are (.app a macOS bundle, .pro a Qt project, .link and .work files of build tools): "look at Xcode.app".
_NOT_TLD_AFTER_REAL_DOT = (r"(?!(?:py|md|sh|pl|ps|so|rs|cc|mk|ml|mm|ai|am|in|lo|js|ts|cs|rb|go|gz|xz|7z|pt|pm|gd|bz|mo"
                           r"|tk|app|pro|link|work)(?![\w-]))")

# Words people say for the at-sign and the dot (issue 17 class 3): English, Spanish, Portuguese, French, German,
# Italian, Dutch, Swedish, Polish, Czech, Turkish, Russian, Greek, Chinese, Japanese, Korean and (below) more. Words of
# scripts written without spaces (CJK, kana, hangul) may touch their neighbours; the others need a separator.
_AT_WORDS = ("at", "at sign", "at-sign", "at symbol", "\"at\"", "'at'", "\u201cat\u201d", "arroba", "arobase",
             "arrobe", "a commercial", "klammeraffe", "affenschwanz", "chiocciola", "chiocciolina", "apenstaartje",
             "snabel-a", "snabela", "ma\u0142pa", "zavin\u00e1\u010d", "kuyruklu a", "\u0441\u043e\u0431\u0430\u043a\u0430",
             "\u0441\u043e\u0431\u0430\u0447\u043a\u0430", "\u03c0\u03b1\u03c0\u03ac\u03ba\u03b9",
             # (session 12) more languages and spellings: German, Finnish, Hungarian, Norwegian, Danish, Turkish,
             # Latvian, Estonian, Lithuanian, Slovenian, Croatian and Serbian, Catalan, Ukrainian, Hebrew, Vietnamese.
             "at-zeichen", "at zeichen", "at-merkki", "at merkki", "miukumauku", "kissanh\u00e4nt\u00e4", "kukac",
             "kr\u00f8llalfa", "grisehale", "et i\u015fareti", "at i\u015fareti", "et", "\u00e4t", "eta", "afna",
             "majmun", "\u043c\u0430\u0458\u043c\u0443\u043d", "arrova",
             "\u0440\u0430\u0432\u043b\u0438\u043a", "\u05e9\u05d8\u05e8\u05d5\u05d3\u05dc", "a c\u00f2ng",
             "a m\u00f3c",
             # (session 21) the English word written in other scripts: Hindi, Arabic, Urdu, Persian, Bengali.
             "\u090f\u091f", "\u0910\u091f", "\u0622\u062a", "\u0627\u062a", "\u0627\u06cc\u0679",
             "\u0985\u09cd\u09af\u09be\u099f")
_AT_WORDS_GLUED = ("\u827e\u7279", "\u5708a", "\u5c0f\u8001\u9f20", "\u30a2\u30c3\u30c8\u30de\u30fc\u30af",
                   "\u30a2\u30c3\u30c8", "\uace8\ubc45\uc774", "\uc553",
                   # (session 21) Thai, written without spaces.
                   "\u0e41\u0e2d\u0e17")
_DOT_WORDS = ("dot", "period", "punto", "point", "punkt", "ponto", "punt", "kropka", "te\u010dka", "nokta", "pont",
              "\u0442\u043e\u0447\u043a\u0430", "\u03c4\u03b5\u03bb\u03b5\u03af\u03b1",
              # (session 12) quoted, and more languages (as for the at-sign above).
              "\"dot\"", "'dot'", "\u201cdot\u201d", "punktum", "piste", "punct", "bodka", "punkts", "ta\u0161kas",
              "t\u00e4pp", "titik", "\u0442\u0430\u0447\u043a\u0430", "\u043a\u0440\u0430\u043f\u043a\u0430",
              "\u05e0\u05e7\u05d5\u05d3\u05d4", "ch\u1ea5m",
              # (session 21) Hindi, Arabic, Urdu, Persian and Bengali, as for the at-sign above.
              "\u0921\u0949\u091f", "\u0921\u093e\u091f", "\u062f\u0648\u062a", "\u0646\u0642\u0637\u0629",
              "\u0688\u0627\u0679", "\u0646\u0642\u0637\u0647", "\u09a1\u099f")
_DOT_WORDS_GLUED = ("\u70b9", "\u9ede", "\u53e5\u70b9", "\u30c9\u30c3\u30c8", "\uc810",
                    "\u0e14\u0e2d\u0e17", "\u0e08\u0e38\u0e14")


# Characters that can start an escape the normaliser decodes (an HTML reference, a percent, quoted-printable or a
# backslash escape): an ASCII word without any of them is its own normal form (no NFKC, look-alike, tag or digit
# mapping applies to ASCII letters, spaces, hyphens and quotes), so it is not normalised at import.
_ESCAPE_STARTS = frozenset("&%=\\")


def _normal_form(word: str) -> str:
    """``normalise(word).text``, without running the normaliser on an ASCII word that holds no escape."""
    if word.isascii() and not _ESCAPE_STARTS.intersection(word) and all(" " <= char <= "~" for char in word):
        return word
    return normalise(word).text


def _words(words: tuple[str, ...]) -> str:
    """An alternation of ``words`` as the normaliser leaves them (rules see normalised text), in any case."""
    forms: dict[str, str] = {}
    for word in words:
        for variant in (word, word.upper(), word.capitalize()):
            form = _normal_form(variant)
            forms.setdefault(form.lower(), form)
    return "|".join(regex.escape(form) for form in sorted(forms.values(), key=len, reverse=True))


_AT = rf"(?:{_SEP}(?:{_words(_AT_WORDS)}){_SEP}|\s*(?:{_words(_AT_WORDS_GLUED)})\s*)"
_DOT = rf"(?:{_SEP}(?:{_words(_DOT_WORDS)}){_SEP}|\s*(?:{_words(_DOT_WORDS_GLUED)})\s*)"
_BRACKET_AT = rf"(?:at|{_words(_AT_WORDS[7:] + _AT_WORDS_GLUED)})"
_BRACKET_DOT = rf"(?:dot|\.|{_words(_DOT_WORDS[2:] + _DOT_WORDS_GLUED)})"


def _lower_words(words: tuple[str, ...]) -> str:
    forms = {_normal_form(variant).lower() for word in words for variant in (word, word.upper(), word.capitalize())}
    return "|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True))


def _separated_words(words: tuple[str, ...]) -> str:
    """An alternation that matches, in lower-cased text, one of ``words`` (as :func:`_lower_words` forms them) with
    a separator (white space, ``_`` or ``-``) or the text's start before it and a separator or the end after it:
    what ``(?:^|[\\s_-])(?:<words>)(?:$|[\\s_-])`` matches, as a truth value, written so that the standard
    library's engine can skip ahead fast. Each alternative starts with a literal, the first character of some
    words (so the pattern starts with a set of literals, which the engine scans for, where a leading ``^`` or
    ``(?:^|...)`` makes it try every position), followed by ``(?<![^\\s_-].)``: the character before that first
    one, if there is one, is a separator (at the text's start the two-character lookbehind has nothing to see, so
    it holds; the first character is never a line break, which ``.`` would not match)."""
    forms = {_normal_form(variant).lower() for word in words for variant in (word, word.upper(), word.capitalize())}
    by_first: dict[str, list[str]] = {}
    for form in sorted(forms, key=len, reverse=True):
        by_first.setdefault(form[0], []).append(form[1:])
    return "|".join(rf"{re.escape(first)}(?<![^\s_-].)(?:{'|'.join(re.escape(rest) for rest in rests)})(?:$|[\s_-])"
                    for first, rests in sorted(by_first.items()))


# Cheap prefilter of the plain spelling: a word for the at-sign (a Latin one between separators or at an end) in the
# lower-cased text, with the standard library's engine (about four times faster here than a case-insensitive
# ``regex`` alternation, which matters: joined views of a whole bundle go through it; and written as
# :func:`_separated_words`, about three times faster again than ``(?:^|[\s_-])(?:<words>)(?:$|[\s_-])``).
_AT_GATE = re.compile(rf"{_separated_words(_AT_WORDS)}|{_lower_words(_AT_WORDS_GLUED)}")


def _has_at_word(text: str) -> bool:
    """True when ``text`` holds a word for the at-sign (the plain spelled-out rule cannot match otherwise)."""
    return _AT_GATE.search(lowered(text)) is not None


# The plain spelled-out rule's own gate (its ``prefilter``), sharper than ``_AT_GATE``: a word for the at-sign, then
# a label, then a real dot or a word for the dot, on the lower-cased text with the standard library's engine. Every
# match of the rule holds one (issue 16: the bundle's ``created_at``, ``..._at_minimum_...`` and ``s. at 100,000``
# pass ``_AT_GATE`` but not this, so the rule's costly pattern is neither compiled nor searched there). Why it is
# necessary, part by part of a match of the rule (``_SPELLED_LOCAL _AT _LABEL`` then, in the first alternative, a
# ``_DOT`` (the next part after the first label, whether the starred group repeats or not) or, in the second, a
# real ``.``):
# * ``_AT`` is ``_SEP`` word ``_SEP`` or ``\s*`` glued-word ``\s*``: ``_AT_GATE`` matches there (a separator before
#   the word, the word, the first character of the separator after it; or the glued word), as that gate's own test
#   shows; the rest of ``_SEP`` or the ``\s*`` is white space, ``-`` or ``_``, which ``[\W_]*`` takes (white space is
#   never a word character of ``re``; ``regex``'s ``\s`` is a subset of ``re``'s);
# * ``_LABEL`` is one or more word characters or ``-``: none is white space or ``.``, nor lower-cases to one, so
#   ``[^\s.]+?`` takes it;
# * ``\.``: itself; ``_DOT`` is ``_SEP`` dot-word (one or more of white space, ``-``, ``_``: ``[\W_]+``, then the
#   word in the lower-cased forms the rule's own alternation is built from) or ``\s*`` glued dot-word.
# The alternation is one pattern, so the engine backtracks into every at-word and label length.
_AT_THEN_DOT: re.Pattern[str] | None = None


def _has_at_word_then_dot(text: str) -> bool:
    """True when ``text`` holds a word for the at-sign followed by a label and a real dot or a word for the dot (see
    ``_AT_THEN_DOT``): the plain spelled-out rule cannot match otherwise. Compiled on first use."""
    global _AT_THEN_DOT
    if _AT_THEN_DOT is None:
        _AT_THEN_DOT = re.compile(rf"(?:{_AT_GATE.pattern})[\W_]*[^\s.]+?(?:\.|[\W_]+(?:{_lower_words(_DOT_WORDS)})"
                                  rf"|[\W_]*(?:{_lower_words(_DOT_WORDS_GLUED)}))")
    return _AT_THEN_DOT.search(lowered(text)) is not None

_SPELLED_LOCAL = r"(?<![\w.+-])[\w.+-]{0,63}\w"

# Searched only at the starts of the local-part runs before an at-sign (``AnchoredPattern``: the pattern meets its
# conditions (a)-(c) with the local part's class, ``_LOCAL_CHARS``, and "@").
_ADDRESS = AnchoredPattern(rf"(?<!{_LOCAL_CHARS}){_LOCAL}@(?P<domain>(?:{_LABEL}\.)+[^\W\d_]{{2,63}})(?![\w-])",
                           "@", _LOCAL_CHARS)
# Domains reserved for documentation and testing (RFC 2606, RFC 6761): no person can have an address there.
_RESERVED = LazyPattern(r"(?i)(?:^|\.)(?:example\.(?:com|net|org)|example|test|invalid|localhost)$")


# What follows the host of an SSH clone URL in scp form (``git@github.com:owner/repo.git``): a colon and a repository
# path, that is path segments with at least one slash, or one segment ending in ``.git``, not followed by an at-sign.
_SSH_REPO_PATH = LazyPattern(
    r":(?:[\w.~-]+(?:/[\w.~-]+)+/?|[\w.~-]+\.git/?)(?![\w.~@/-])")


# The last labels a real address ends in, most of the time: a country code or a common generic TLD. Used only where a
# view is speculative (two lines glued at a line break, the second starting with ``@``: stacked Python decorators such
# as ``@pytest.mark.xfail`` glued to a comment's last word read as an address at ``.xfail``).
_COMMON_TLD_ADDRESS = AnchoredPattern(
    rf"(?<!{_LOCAL_CHARS}){_LOCAL}@(?:{_LABEL}\.)+(?i:[a-z]{{2}}|com|org|net|edu|gov|mil|int|info|biz|name|mobi|email"
    rf"|mail|online|site|aero|coop|dev|app|tech|cloud|works|page|blog|xyz|club|news|pro|team|systems|software"
    rf"|digital|network|solutions|company|global|world|today|life|space|website|media|group|studio|design|zone)"
    rf"(?![\w-])", "@", _LOCAL_CHARS)


def has_common_tld_address(text: str) -> bool:
    """True when the normalised ``text`` holds an address whose last label is a country code or a common generic
    TLD (see ``_COMMON_TLD_ADDRESS``)."""
    clean = normalise(text)
    return clean.ok and _COMMON_TLD_ADDRESS.search(clean.text) is not None


def has_real_tld_address(text: str) -> bool:
    """:func:`has_common_tld_address`, with a two-letter last label counted only when it is a country's code (a
    region of libphonenumber's metadata, which follows ISO 3166-1, plus ``uk`` and ``eu``): for views glued from
    separate entries, where ``...@v7`` + ``env.rc`` reads as an address at ``.rc``."""
    clean = normalise(text)
    if not clean.ok:
        return False
    for match in _COMMON_TLD_ADDRESS.finditer(clean.text):
        label = match.group(0).rsplit(".", 1)[-1]
        if len(label) != 2 or label.upper() in _country_codes():
            return True
    return False


@functools.lru_cache(maxsize=1)
def _country_codes() -> frozenset[str]:
    import phonenumbers  # (imported only where a glued view needs it)

    return frozenset(phonenumbers.SUPPORTED_REGIONS) | {"UK", "EU"}


# SSH algorithm and extension names (RFC 4251, section 6: ``name@domain``), such as ``aes256-gcm@openssh.com`` or
# ``curve25519-sha256@libssh.org``: a hyphenated name with a digit at the domains of the two SSH implementations that
# define them. They name an algorithm, not a person.
_SSH_NAME_DOMAIN = LazyPattern(r"(?i)(?:openssh\.com|libssh\.org)")
_SSH_NAME_LOCAL = LazyPattern(r"(?i)(?=[a-z0-9-]*\d)(?=[a-z0-9]*-)-?[a-z0-9]+(?:-[a-z0-9]+)+")


def _ssh_algorithm_name(match: regex.Match[str]) -> bool:
    local = match.group(0)[:match.start("domain") - match.start() - 1]
    return (_SSH_NAME_DOMAIN.fullmatch(match.group("domain")) is not None
            and _SSH_NAME_LOCAL.fullmatch(local) is not None)


def _public_address(match: regex.Match[str]) -> bool:
    """An address outside the documentation domains that is not the ``user@host`` part of an SSH clone URL nor an
    SSH algorithm name."""
    if _RESERVED.search(match.group("domain")) is not None or _ssh_algorithm_name(match):
        return False
    return _SSH_REPO_PATH.match(match.string, match.end()) is None


# The bracketed spelling's gate: an opening bracket, a word for the at-sign and a closing one. Searched with the
# standard library's engine (about twice as fast as ``regex`` over source text, where brackets are everywhere), so
# it must hold wherever the ``regex`` form holds: ``contract_tests/test_privacy_anchored.py`` checks, over every code
# point, that ``re``'s case-insensitive match of each letter of these words, and ``re``'s ``\s``, accept every
# character ``regex``'s do (the brackets are literals).
_BRACKETED_AT_GATE = re.compile(rf"(?i){_OPEN}\s*{_BRACKET_AT}\s*{_CLOSE}")
# In ASCII text only the ASCII words can match (no letter of the others matches an ASCII character case-insensitively,
# which the same test checks), and lower-casing ASCII is exact: their lower-case forms, case-sensitive, in the
# lower-cased text (about 1.7 times as fast again).
_ASCII_BRACKET_AT_WORDS = sorted({word.lower() for word in ("at",) + _AT_WORDS[7:] + _AT_WORDS_GLUED
                                  if word.isascii()}, key=len, reverse=True)
_ASCII_BRACKETED_AT_GATE = re.compile(
    rf"{_OPEN}\s*(?:{'|'.join(re.escape(word) for word in _ASCII_BRACKET_AT_WORDS)})\s*{_CLOSE}")


def _has_bracketed_at(text: str) -> bool:
    """The bracketed spelling's gate (see ``_BRACKETED_AT_GATE``): the rule cannot match a text without it."""
    if text.isascii():
        return _ASCII_BRACKETED_AT_GATE.search(lowered(text)) is not None
    return _BRACKETED_AT_GATE.search(text) is not None


_BRACKETED_LETTER_A = re.compile(r"[(\[{<]\s*[aA]\s*[)\]}>]")


def _has_bracketed_letter_a(text: str) -> bool:
    """The letter-a rule's gate: an opening bracket, the letter a (either case, white space around it) and a closing
    one; the rule cannot match a text without it. ``re``'s ``\\s`` accepts every character ``regex``'s does, and only
    ``a`` and ``A`` match the letter case-insensitively in either engine."""
    return _BRACKETED_LETTER_A.search(text) is not None


RULES = (
    Rule("email.address", EMAIL, _ADDRESS, ("full",), trigger="@"),
    Rule("email.address_public", EMAIL, _ADDRESS, ("full",), trigger="@", validate=_public_address),
    Rule("email.spelled", EMAIL, compile_rule(
        rf"(?i)(?<![\w.+-])[\w.+-]{{1,64}}\s*{_OPEN}\s*{_BRACKET_AT}\s*{_CLOSE}\s*{_LABEL}"
        rf"(?:\s*(?:{_OPEN}\s*{_BRACKET_DOT}\s*{_CLOSE}|\.)\s*{_LABEL})+"),
        ("full",), prefilter=_has_bracketed_at),
    # Contract profile only: the unbracketed spelling in many languages ("name at host dot org", "name arroba host
    # punto es", "name at host.org" with a real dot), which ordinary prose in a repository can contain but public
    # evidence has no use for.
    Rule("email.spelled_plain", EMAIL, LazyPattern(
        rf"(?i){_SPELLED_LOCAL}{_AT}{_LABEL}(?:{_DOT}{_LABEL})*{_DOT}(?:{_SPELLED_TLD}|{_SCRIPT_TLD})(?![\w-])"
        rf"|{_SPELLED_LOCAL}{_AT}(?:{_LABEL}\.)+{_NOT_TLD_AFTER_REAL_DOT}(?:{_SPELLED_TLD}|{_SCRIPT_TLD})(?![\w.-])"),
        ("full",), prefilter=_has_at_word_then_dot),
    # Contract profile only: a bracketed letter a for the at-sign ("name(a)host.org", "name [a] host [dot] org"), then
    # a domain whose dots are real, bracketed or spelled and whose last label is a top-level domain the spelled-out
    # rule knows, not a file extension after a real dot (so "option (a) numpy.array" and "variant (a) model.pt" are
    # not addresses). A repository's prose labels its items "(a)".
    Rule("email.spelled_letter_a", EMAIL, compile_rule(
        rf"(?i)(?<![\w.+-])[\w.+-]{{1,64}}\s*{_OPEN}\s*a\s*{_CLOSE}\s*{_LABEL}"
        rf"(?:(?:\s*{_OPEN}\s*{_BRACKET_DOT}\s*{_CLOSE}\s*|\s*\.\s*|{_DOT}){_LABEL})*"
        rf"(?:\s*{_OPEN}\s*{_BRACKET_DOT}\s*{_CLOSE}\s*|\s*\.\s*{_NOT_TLD_AFTER_REAL_DOT}|{_DOT})"
        rf"(?:{_SPELLED_TLD}|{_SCRIPT_TLD})(?![\w-])"),
        ("full",), prefilter=_has_bracketed_letter_a),
    Rule("email.at_sign", AT_SIGN, compile_rule(r"@"), ("full",), trigger="@"),
    Rule("email.document_id", DOCUMENT_ID, compile_rule(r"(?i)(?<![^\W_])doc_[0-9a-f]{64}(?![^\W_])"), ("full",)),
)
