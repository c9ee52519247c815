"""Joined views: identifiers split across pieces that are innocent one by one.

A reader sees ``["jane.roe", "@corp-mail.org"]``, ``{"area": "713", "line": "555 2368"}``, two consecutive lines
of text or the ``<tspan>`` pieces of one SVG ``<text>`` element as one whole. So the scanner also scans *joined
views*: the pieces of one container (a JSON array's strings, a JSON object's keys and string values in order, the
text content of an SVG text element or of a whole figure) concatenated with no separator and with one space. Base64
or hex halves in adjacent pieces become one token in the unseparated view and are decoded there.

A joined view reports only the codes that none of its pieces raises on its own (those are already reported at the
piece), at the container's pointer (JSON) or at the first line of the joined lines (text). Bounded and linear: each
view is scanned in chunks of ``CHUNK`` characters overlapping by ``OVERLAP``, and a container whose pieces hold more
than ``MAX_JOINED_CHARS`` characters (or more than ``MAX_PIECES`` pieces) is not joined but fails closed with
``privacy.joined_budget_exceeded``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Hashable, Sequence

import regex

from nerb_verify.codes import register
from nerb_verify.privacy.engine import FAIL_CLOSED, prefilter_skips, scan_string, scan_uncached
from nerb_verify.privacy.normalise import may_expand_past, normalise
from nerb_verify.privacy.profiles import CONTRACT, Profile
from nerb_verify.privacy.rules.email import EMAIL

JOINED_BUDGET = register(
    "privacy.joined_budget_exceeded", "A container holds more text than the joined-view budget.",
    "Adjacent strings of one JSON array or object, and the text pieces of one SVG text element or figure, are also "
    "scanned joined (with and without a space), because an identifier split across them is read as one. A "
    "container whose strings hold more than 262,144 characters or number more than 16,384 is not joined and fails "
    "closed, because what its pieces spell together was not scanned. Split the data into smaller containers.")

CHUNK = 8192
OVERLAP = 512
MAX_JOINED_CHARS = 262144
MAX_PIECES = 16384

# A joined chunk that is too long after decoding (NFKC expands) or does not converge was not scanned: the joined view
# fails closed with the budget code.
_FAIL_CLOSED = FAIL_CLOSED


# A piece that ends in an at-sign and a dotted domain ("...@host.tld") already ends a whole domain.
_ENDS_IN_DOMAIN = regex.compile(r"@[\w-]+(?:\.[\w-]+)+\s*$")


def _glue(piece: str) -> str:
    if "@" not in piece and piece.isascii():
        return piece
    if EMAIL in scan_string(piece, CONTRACT):
        return f" {piece} "
    clean = normalise(piece)
    return f"{piece} " if clean.ok and _ENDS_IN_DOMAIN.search(clean.text) else piece


def glued(pieces: Sequence[str]) -> str:
    """The pieces with no separator, except around a piece that already holds a whole address (the contract
    profile finds one in it) and after one that ends in ``@`` and a dotted domain: those are not fragments, and
    gluing the next word to their domain would invent a new address (``...@example.invalid`` + ``Draft``)."""
    return "".join(_glue(piece) for piece in pieces)


def views(pieces: Sequence[str]) -> list[str]:
    """The joined views of ``pieces``: glued (see :func:`glued`) and joined with one space."""
    return [glued(pieces), " ".join(pieces)]


def _chunks(text: str) -> list[str]:
    if len(text) <= CHUNK:
        return [text]
    step = CHUNK - OVERLAP
    return [text[start:start + CHUNK] for start in range(0, max(len(text) - OVERLAP, 1), step)]


def view_codes(text: str, profile: Profile, skip_paths: bool = False) -> set[str]:
    """Codes raised by one joined view, scanned in overlapping chunks; a chunk that cannot be decoded within the
    normaliser's budget raises the joined budget code (fail closed)."""
    found: set[str] = set()
    for chunk in _chunks(text):
        codes = scan_string(chunk, profile, skip_paths)
        found |= {JOINED_BUDGET} if codes & _FAIL_CLOSED else codes
    return found


def within_budget(pieces: Sequence[str]) -> bool:
    """True when the pieces may be joined (see ``MAX_JOINED_CHARS`` and ``MAX_PIECES``)."""
    return len(pieces) <= MAX_PIECES and sum(len(piece) for piece in pieces) <= MAX_JOINED_CHARS


def joined_codes(pieces: Sequence[str], profile: Profile, piece_codes: set[str] | None = None) -> set[str]:
    """Codes the pieces raise joined (no separator, one space) that no single piece raises; the budget code when
    there are too many or too long pieces. ``piece_codes``: the union of the pieces' own codes, if known."""
    if len(pieces) < 2:
        return set()
    if not within_budget(pieces):
        return {JOINED_BUDGET}
    if piece_codes is None:
        piece_codes = set()
        for piece in pieces:
            piece_codes |= scan_string(piece, profile)
    found: set[str] = set()
    for view in views(pieces):
        found |= view_codes(view, profile)
    if piece_codes & _FAIL_CLOSED:
        # A piece already failed closed (the container is rejected for it): its undecodable text is why the joined
        # chunk could not be decoded either, so that is not reported twice.
        found.discard(JOINED_BUDGET)
    return found - piece_codes


# Screening: many containers' views are scanned as one string, separated by a character no rule matches or skips
# over, between line breaks (so a rule anchored at a view's end, such as a trailing ``~``, still matches). A match
# inside one view is a match inside the screen, so screening can only send more containers to the exact per-container
# scan, never fewer; the per-container scan decides what is reported.
SCREEN_SEPARATOR = "\n\u2603\n"
SCREEN_CHARS = 65536


@functools.lru_cache(maxsize=8)
def _screen_profile(profile: Profile) -> Profile:
    return dataclasses.replace(profile, max_chars=SCREEN_CHARS * 20, max_url_payloads=1_000_000)


def joined_findings(containers: Sequence[tuple[Hashable, Sequence[str]]],
                    profile: Profile) -> list[tuple[Hashable, set[str]]]:
    """``(key, codes)`` for every container whose joined views raise something new (see :func:`joined_codes`).

    Containers with the same pieces are scanned once (and each reported at its own key). A container whose views
    are each a single chunk that the prefilter proves clean (``engine.prefilter_skips``) raises nothing and is not
    screened. The others are first screened in batches of about ``SCREEN_CHARS`` characters (see
    ``SCREEN_SEPARATOR``); only the containers of a batch that raises something are scanned one by one.
    """
    codes_of: dict[tuple[str, ...], set[str]] = {}
    batch: list[tuple[str, ...]] = []
    size = 0

    def run_batch() -> None:
        texts = [view for pieces in batch for view in views(pieces)]
        # The screen's budget is sized for the batch: a view chunk that decodes past the per-string budget (which the
        # per-container scan fails closed on) is sent to that scan too.
        flagged = bool(texts) and (bool(scan_uncached(SCREEN_SEPARATOR.join(texts), _screen_profile(profile)))
                                   or any(may_expand_past(chunk, profile.max_chars)
                                          for text in texts for chunk in _chunks(text)))
        for pieces in batch:
            codes_of[pieces] = joined_codes(pieces, profile) if flagged else set()
        batch.clear()

    for _key, container in containers:
        pieces = tuple(container)
        if len(pieces) < 2 or pieces in codes_of:
            continue
        if not within_budget(pieces):
            codes_of[pieces] = {JOINED_BUDGET}
            continue
        length = sum(len(piece) + 1 for piece in pieces)
        if length <= CHUNK and all(len(view) <= CHUNK and prefilter_skips(view, profile) for view in views(pieces)):
            codes_of[pieces] = set()  # each view is one chunk that provably raises nothing
            continue
        if length > SCREEN_CHARS // 2:
            codes_of[pieces] = joined_codes(pieces, profile)
            continue
        if size + length > SCREEN_CHARS // 2:
            run_batch()
            size = 0
        codes_of[pieces] = set()  # placeholder until its batch runs, so a repeat is not batched twice
        batch.append(pieces)
        size += length
    run_batch()
    return [(key, codes_of[tuple(pieces)]) for key, pieces in containers
            if len(pieces) >= 2 and codes_of.get(tuple(pieces))]


def reference_joined_findings(containers: Sequence[tuple[Hashable, Sequence[str]]],
                              profile: Profile) -> list[tuple[Hashable, set[str]]]:
    """The full join, unscreened: :func:`joined_codes` of every container. The reference :func:`joined_findings`
    must agree with exactly (used only by the equivalence tests, never by the scanner)."""
    out: list[tuple[Hashable, set[str]]] = []
    for key, pieces in containers:
        if len(pieces) >= 2:
            codes = joined_codes(tuple(pieces), profile)
            if codes:
                out.append((key, codes))
    return out


# SVG text: each <text> element (its <tspan> children included) is one piece of rendered text.
_SVG_TEXT = regex.compile(r"<text\b[^>]*>(.*?)</text\s*>", regex.S | regex.I)
_TAG = regex.compile(r"<[^>]*>")


def svg_text_elements(text: str) -> list[tuple[int, list[str]]]:
    """``(offset, pieces)`` for every ``<text>`` element of an SVG document: its offset in ``text`` and the text
    between its tags (tspan contents as separate pieces, entity references left to the normaliser)."""
    elements: list[tuple[int, list[str]]] = []
    if "<text" not in text and "<TEXT" not in text.upper():
        return elements
    for match in _SVG_TEXT.finditer(text):
        pieces = [piece for piece in _TAG.split(match.group(1)) if piece.strip()]
        if pieces:
            elements.append((match.start(), pieces))
    return elements
