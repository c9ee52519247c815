"""Direct identifiers: e-mail addresses (both profiles), any at-sign and NERB-style document ids (contract profile).

Rules run on normalised text, so fullwidth, small-form, percent-, HTML-, quoted-printable- and backslash-escaped
at-signs are plain ``@`` by then. The e-mail grammar is deliberately loose on the local part (any word character,
dot, plus, percent, hyphen) and needs a dotted domain ending in a letters-only label, so ``@pytest.fixture`` and
``@types/x`` (no local part) and ``user@host`` (no dotted domain) are not e-mail addresses. The spelled-out form with
bracketed ``(at)`` / ``[dot]`` / ``[.]`` is an e-mail address too, and in the contract profile so is the plain
``name at host dot org`` spelling (also with ``_`` or ``-`` for the spaces and ``period`` for ``dot``). The repository profile does not flag addresses at domains
reserved for documentation and tests (``example.com``, ``*.example``, ``*.test``, ``*.invalid``, ``*.localhost``),
nor the ``user@host`` of an SSH clone URL in scp form (``git@github.com:owner/repo.git``: a dotted host followed by a
colon and a repository path); the contract profile flags every address (and every at-sign).
"""

from __future__ import annotations

import regex

from nerb_verify.codes import register
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

_LOCAL = r"[\w.+%'-]*\w"
_LABEL = r"[^\W_](?:[\w-]{0,62}[^\W_])?"
_OPEN = r"[\(\[\{<]"
_CLOSE = r"[\)\]\}>]"

# Spelled-out separators ("jane at corp", "jane_at_corp", "jane-at-corp") and words for the dot.
_SEP = r"(?:\s+|\s*[-_]\s*)"
_DOT = r"(?:dot|period)"
# The last label of a spelled-out address: a country code or a common generic TLD ("... dot product" is prose).
_SPELLED_TLD = r"(?:[a-z]{2}|com|org|net|edu|gov|mil|int|info|biz|name|mobi|email|mail|online|site|aero|coop)"

_ADDRESS = compile_rule(rf"(?<![\w.+%'-]){_LOCAL}@(?P<domain>(?:{_LABEL}\.)+[^\W\d_]{{2,63}})(?![\w-])")
# Domains reserved for documentation and testing (RFC 2606, RFC 6761): no person can have an address there.
_RESERVED = regex.compile(r"(?i)(?:^|\.)(?:example\.(?:com|net|org)|example|test|invalid|localhost)$")


# What follows the host of an SSH clone URL in scp form (``git@github.com:owner/repo.git``): a colon and a repository
# path, that is path segments with at least one slash, or one segment ending in ``.git``, not followed by an at-sign.
_SSH_REPO_PATH = regex.compile(
    r":(?:[\w.~-]+(?:/[\w.~-]+)+/?|[\w.~-]+\.git/?)(?![\w.~@/-])")


def _public_address(match: regex.Match[str]) -> bool:
    """An address outside the documentation domains that is not the ``user@host`` part of an SSH clone URL."""
    if _RESERVED.search(match.group("domain")) is not None:
        return False
    return _SSH_REPO_PATH.match(match.string, match.end()) is None


RULES = (
    Rule("email.address", EMAIL, _ADDRESS, ("full",), trigger="@"),
    Rule("email.address_public", EMAIL, _ADDRESS, ("full",), trigger="@", validate=_public_address),
    Rule("email.spelled", EMAIL, compile_rule(
        rf"(?i)(?<![\w.+-])[\w.+-]{{1,64}}\s*{_OPEN}\s*at\s*{_CLOSE}\s*{_LABEL}"
        rf"(?:\s*(?:{_OPEN}\s*(?:dot|\.)\s*{_CLOSE}|\.)\s*{_LABEL})+"),
        ("full",), gate=regex.compile(rf"(?i){_OPEN}\s*at\s*{_CLOSE}")),
    # Contract profile only: the unbracketed spelling ("name at host dot org"), which ordinary prose in a
    # repository can contain but public evidence has no use for.
    Rule("email.spelled_plain", EMAIL, compile_rule(
        rf"(?i)(?<![\w.+-])[\w.+-]{{0,63}}\w{_SEP}at{_SEP}{_LABEL}(?:{_SEP}{_DOT}{_SEP}{_LABEL})*{_SEP}{_DOT}{_SEP}"
        rf"{_SPELLED_TLD}(?![\w-])"),
        ("full",), gate=regex.compile(rf"(?i)(?:\s|[-_])(?:dot|period)(?:\s|[-_])")),
    Rule("email.at_sign", AT_SIGN, compile_rule(r"@"), ("full",), trigger="@"),
    Rule("email.document_id", DOCUMENT_ID, compile_rule(r"(?i)(?<![^\W_])doc_[0-9a-f]{64}(?![^\W_])"), ("full",)),
)
