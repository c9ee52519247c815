"""Joined views: identifiers split across pieces that are innocent one by one.

A reader sees ``["jane.roe", "@corp-mail.org"]``, ``{"area": "713", "line": "555 2368"}``, two consecutive lines
of text or the ``<tspan>`` pieces of one SVG ``<text>`` element as one whole. So the scanner also scans *joined
views*: the pieces of one container (a JSON array's strings, a JSON object's keys and string values in order, the
text content of an SVG text element or of a whole figure) concatenated with no separator, with one space, and with
one space except at address fragments (:func:`fragment_joined`). Base64 or hex halves in adjacent pieces become one
token in the unseparated view and are decoded there.

A joined view reports only the codes that none of its pieces raises on its own (those are already reported at the
piece), at the container's pointer (JSON) or at the first line of the joined lines (text). Bounded and linear, at
any container size: each view is built and scanned as a *sliding window* (:class:`JoinedScan`), in chunks of
``CHUNK`` characters overlapping by ``OVERLAP``, holding at most one chunk per view, so every run of adjacent pieces
whose joined text is at most ``OVERLAP`` characters long lies whole in some chunk. The chunks are exactly those of
the whole view (:func:`reference_joined_codes`), so the findings are the same. It fails closed with
``privacy.joined_budget_exceeded`` only where a bound is truly exceeded: a piece the caller could not hold (the
streamed JSON reader holds no string over 1 MiB) or a chunk the normaliser cannot decode within its budget.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Collection, Hashable, Sequence
from typing import NamedTuple

import regex

from nerb_verify.codes import register
from nerb_verify.privacy.engine import FAIL_CLOSED, prefilter_skips, scan_string, scan_uncached
from nerb_verify.privacy.normalise import may_expand_past, normalise
from nerb_verify.privacy.profiles import CONTRACT, PROFILES, Profile
from nerb_verify.privacy.rules.email import EMAIL
from nerb_verify.privacy.rules.paths import PERSONAL_PATH

JOINED_BUDGET = register(
    "privacy.joined_budget_exceeded", "A joined view could not be scanned within its bounds.",
    "Adjacent strings of one JSON array or object, and the text pieces of one SVG text element or figure, are also "
    "scanned joined (with and without a space), because an identifier split across them is read as one. The views "
    "are scanned in overlapping windows of 8,192 characters, so a container of any size is joined; a view that "
    "holds a string too long to window (over 1 MiB, streamed JSON) or a window that cannot be decoded within the "
    "normaliser's budget (NFKC expansion) was not scanned and fails closed. Shorten that string.")

CHUNK = 8192
OVERLAP = 512

# A joined chunk that is too long after decoding (NFKC expands) or does not converge was not scanned: the joined view
# fails closed with the budget code.
_FAIL_CLOSED = FAIL_CLOSED


# A piece that ends in an at-sign and a dotted domain ("...@host.tld") already ends a whole domain.
_ENDS_IN_DOMAIN = regex.compile(r"@[\w-]+(?:\.[\w-]+)+\s*$")


# A whole address needs six characters (one letter, the at-sign, one letter, a dot, a last label of two letters: the
# e-mail rule asks two or more), so a piece no longer than this, as given and decoded, holds none. (Every decoding
# step and payload decoder shortens a text, except NFKC, which the decoded length bounds, and base85's ``z``/``y``,
# which stand for zero bytes and spaces.)
SHORTER_THAN_ADDRESS = 5


def holds_whole_address(piece: str) -> bool:
    """Whether the contract profile finds a whole address in ``piece`` (``privacy.email``); a piece of at most
    ``SHORTER_THAN_ADDRESS`` characters, as given and decoded, is answered without the scan (a JSON file of
    one-character strings, such as a table of look-alike characters, has thousands of them)."""
    if len(piece) <= SHORTER_THAN_ADDRESS:
        clean = normalise(piece)
        if clean.ok and len(clean.text) <= SHORTER_THAN_ADDRESS:
            return False
    return EMAIL in scan_string(piece, CONTRACT)


def _glue(piece: str) -> str:
    if "@" not in piece and piece.isascii():
        return piece
    if holds_whole_address(piece):
        return f" {piece} "
    clean = normalise(piece)
    return f"{piece} " if clean.ok and _ENDS_IN_DOMAIN.search(clean.text) else piece


def glued(pieces: Sequence[str]) -> str:
    """The pieces with no separator, except around a piece that already holds a whole address (the contract
    profile finds one in it) and after one that ends in ``@`` and a dotted domain: those are not fragments, and
    gluing the next word to their domain would invent a new address (``...@example.invalid`` + ``Draft``)."""
    return "".join(_glue(piece) for piece in pieces)


# The last token of a piece that holds an unfinished address: an at-sign not followed by a whole dotted domain (one
# whose last label has two letters or more), as in "...@corp-", "...@corp-mail" or "...@corp-mail.o".
_OPEN_ADDRESS = regex.compile(r"@(?![\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}$)[\w.-]*$")


def _ends_open(piece: str) -> bool:
    """The piece ends in an unfinished address (see ``_OPEN_ADDRESS``) and holds no whole one: the next piece is
    its continuation, so the fragment view glues it on."""
    if "@" not in piece and piece.isascii():
        return False
    clean = normalise(piece)
    if not clean.ok:
        return False  # the piece fails closed on its own
    tokens = clean.text.split()
    return bool(tokens) and bool(_OPEN_ADDRESS.search(tokens[-1])) and EMAIL not in scan_string(piece, CONTRACT)


def _starts_at(piece: str) -> bool:
    """The piece starts with an at-sign (after decoding): it continues the local part before it."""
    if "@" not in piece and piece.isascii():
        return False
    clean = normalise(piece)
    return clean.ok and clean.text.lstrip().startswith("@")


def _fragment_separator(left_open: bool, right: str) -> str:
    return "" if left_open or _starts_at(right) else " "


def fragment_joined(pieces: Sequence[str]) -> str:
    """The pieces joined with one space, except glued where the left piece ends in an unfinished address or the right
    one starts with an at-sign. It finds the address the glued view misses: one whose piece ends like ``...@host.o``
    (which the glued view treats as a whole domain) and one followed by a piece starting with ``_`` or a digit
    (``...mail.org`` + ``split_3``, which the glued view corrupts into one domain label)."""
    parts: list[str] = []
    left_open = False
    for index, piece in enumerate(pieces):
        if index:
            parts.append(_fragment_separator(left_open, piece))
        parts.append(piece)
        left_open = _ends_open(piece)
    return "".join(parts)


def glued_pair(left: str, right: str) -> str:
    """Two pieces glued as :func:`glued` glues them, and with no separator at all where ``left`` ends in an
    unfinished address (``...@host.o`` + ``rg``): what a line break between two lines reads as (text junctions)."""
    return left + right if _ends_open(left) else glued([left, right])


def views(pieces: Sequence[str]) -> list[str]:
    """The joined views of ``pieces``: glued (see :func:`glued`), joined with one space, and, where it differs from
    the spaced one, fragment-glued (see :func:`fragment_joined`)."""
    spaced = " ".join(pieces)
    fragment = fragment_joined(pieces)
    return [glued(pieces), spaced] if fragment == spaced else [glued(pieces), spaced, fragment]


# A path stored as its components (``["/", "home", "<name>", ".ssh"]``, what ``pathlib.PurePath.parts`` gives, or
# ``["C:\\", "Users", "<name>"]``) reads as the path to whoever joins them, yet no separator view holds it: the
# components are joined with the path separator after a root (``""`` or ``"/"``, or a drive ``C:``, ``C:\\`` or
# ``C:/``), up to the first piece that is no single component (empty, or holding a slash or backslash), at most
# ``PATH_PARTS`` pieces. Only the personal-path code is taken from that view: a table whose first header cell is
# empty (``["", "precision", "recall"]``) joins to an absolute path too, and is no one's folder.
PATH_PARTS = 8
_DRIVE_ROOT = regex.compile(r"[A-Za-z]:[\\/]?")


def path_parts_view(pieces: Sequence[str]) -> str | None:
    """The path that ``pieces`` spell as components after a root (see ``PATH_PARTS``), or None."""
    if len(pieces) < 2:
        return None
    root = pieces[0]
    if root in ("", "/"):
        start, separator = "/", "/"
    elif _DRIVE_ROOT.fullmatch(root):
        start, separator = root[:2] + "\\", "\\"
    else:
        return None
    parts: list[str] = []
    for piece in pieces[1:PATH_PARTS]:
        if not piece or "/" in piece or "\\" in piece:
            break
        parts.append(piece)
    return start + separator.join(parts) if parts else None


def _path_parts_codes(pieces: Sequence[str], profile: Profile) -> set[str]:
    """The personal-path code, when the path the pieces spell as components (:func:`path_parts_view`) raises it."""
    view = path_parts_view(pieces)
    if view is None:
        return set()
    return view_codes(view, profile) & {PERSONAL_PATH}


def joined_chunks(text: str) -> list[str]:
    """The chunks a joined view is scanned in (``CHUNK`` characters, overlapping by ``OVERLAP``)."""
    return _chunks(text)


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


class _ViewWindow:
    """One joined view scanned while it is built: the chunks of :func:`_chunks` of the whole view, in order, holding
    at most one chunk. A chunk is scanned once it is complete; at :meth:`finish` the last, shorter one is."""

    __slots__ = ("profile", "parts", "length", "scanned", "found")

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.parts: list[str] = []  # the view from the current chunk's start on, in parts (joined only when needed)
        self.length = 0  # characters in ``parts``
        self.scanned = False  # the chunk at the start of ``parts`` was scanned
        self.found: set[str] = set()

    def _scan(self, chunk: str) -> None:
        codes = scan_string(chunk, self.profile)
        self.found |= {JOINED_BUDGET} if codes & _FAIL_CLOSED else codes

    def feed(self, part: str) -> None:
        """Append ``part`` to the view; scan every chunk it completes. The held text is joined only when a chunk is
        complete or the next one begins, so each character is copied a bounded number of times (linear)."""
        if not part:
            return
        self.parts.append(part)
        self.length += len(part)
        if self.length < CHUNK or (self.scanned and self.length == CHUNK):
            return
        text = "".join(self.parts)
        step = CHUNK - OVERLAP
        position = 0
        while True:
            if not self.scanned and len(text) - position >= CHUNK:
                self._scan(text[position:position + CHUNK])
                self.scanned = True
            # the next chunk exists once the view is longer than this chunk's end
            if self.scanned and len(text) - position > CHUNK:
                position += step
                self.scanned = False
                continue
            break
        rest = text[position:]
        self.parts, self.length = [rest], len(rest)

    def copy(self) -> _ViewWindow:
        """A window in the same state (the same view so far), fed on independently."""
        twin = _ViewWindow(self.profile)
        twin.parts, twin.length, twin.scanned, twin.found = list(self.parts), self.length, self.scanned, set(self.found)
        return twin

    def finish(self) -> set[str]:
        """Scan the last chunk if it is not scanned yet; the codes of every chunk."""
        if not self.scanned:
            self._scan("".join(self.parts))
            self.scanned = True
        return self.found


class JoinedScan:
    """The joined views of one container, fed piece by piece (:meth:`add`) in bounded memory and linear time: a
    glued view (see :func:`glued`) and a one-space view, each a :class:`_ViewWindow`. :meth:`codes` is what
    :func:`reference_joined_codes` returns for the same pieces. A piece the caller could not hold is recorded with
    :meth:`add_unseen`: the views around it were not scanned, so they fail closed."""

    __slots__ = ("profile", "count", "piece_codes", "glued", "spaced", "fragment", "left_open", "unseen", "head")

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.count = 0
        self.piece_codes: set[str] = set()
        self.glued = _ViewWindow(profile)
        self.spaced = _ViewWindow(profile)
        # The fragment view (:func:`fragment_joined`) is the spaced view until its first glued boundary: it is forked
        # from the spaced window there, so a container with no address fragment scans it not at all.
        self.fragment: _ViewWindow | None = None
        self.left_open = False  # the last piece ends in an unfinished address
        self.unseen = False
        self.head: list[str] = []  # the first ``PATH_PARTS`` pieces (:func:`path_parts_view`)

    def add(self, piece: str, codes: Collection[str] | None = None) -> None:
        """Add the next piece; ``codes``: its own codes (:func:`scan_string`, no path skipping), if known."""
        self.piece_codes |= scan_string(piece, self.profile) if codes is None else codes
        if self.count:
            separator = _fragment_separator(self.left_open, piece)
            if self.fragment is None and not separator:
                self.fragment = self.spaced.copy()
            if self.fragment is not None:
                self.fragment.feed(separator)
            self.spaced.feed(" ")
        self.spaced.feed(piece)
        if self.fragment is not None:
            self.fragment.feed(piece)
        self.glued.feed(_glue(piece))
        self.left_open = _ends_open(piece)
        if self.count < PATH_PARTS and len(self.head) == self.count:
            self.head.append(piece)
        self.count += 1

    def add_unseen(self) -> None:
        """Add a piece whose text is not available (too long to hold): the container fails closed."""
        self.count += 1
        self.unseen = True

    def codes(self) -> set[str]:
        """Codes the joined views raise that no piece raises on its own; the budget code if a piece was unseen."""
        if self.count < 2:
            return set()
        found = self.glued.finish() | self.spaced.finish()
        if self.fragment is not None:
            found |= self.fragment.finish()
        found |= _path_parts_codes(self.head, self.profile)
        if self.piece_codes & _FAIL_CLOSED:
            # A piece already failed closed (the container is rejected for it): its undecodable text is why the
            # joined chunk could not be decoded either, so that is not reported twice.
            found.discard(JOINED_BUDGET)
        found -= self.piece_codes
        if self.unseen:
            found.add(JOINED_BUDGET)
        return found


def joined_codes(pieces: Sequence[str], profile: Profile, piece_codes: set[str] | None = None) -> set[str]:
    """Codes the pieces raise joined (no separator, one space) that no single piece raises, scanned as sliding
    windows (:class:`JoinedScan`), so any number and length of pieces is joined in bounded extra memory.
    ``piece_codes``: the union of the pieces' own codes, if known."""
    if len(pieces) < 2:
        return set()
    scan = JoinedScan(profile)
    for piece in pieces:
        scan.add(piece, () if piece_codes is not None else None)
    if piece_codes is not None:
        scan.piece_codes |= piece_codes
    return scan.codes()


def reference_joined_codes(pieces: Sequence[str], profile: Profile, piece_codes: set[str] | None = None) -> set[str]:
    """The whole-container join: both views built whole, then scanned in chunks (:func:`view_codes`). What
    :func:`joined_codes` must agree with exactly (used only by the equivalence tests, never by the scanner)."""
    if len(pieces) < 2:
        return set()
    if piece_codes is None:
        piece_codes = set()
        for piece in pieces:
            piece_codes |= scan_string(piece, profile)
    found: set[str] = set()
    for view in views(pieces):
        found |= view_codes(view, profile)
    found |= _path_parts_codes(pieces, profile)
    if piece_codes & _FAIL_CLOSED:
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
    return profile._replace(max_chars=SCREEN_CHARS * 20, max_url_payloads=1_000_000)


class _ContainerMemo:
    """A bounded LRU of the joined codes of containers already scanned in this process, per registered profile:
    ``(profile name, pieces) -> codes``. The joined codes of a container are a function of its pieces and the
    profile only (:func:`joined_codes`), and the files of one bundle repeat containers (the same object or array
    in the manifest, the evidence and the capacity decision), so each is screened and scanned once per process.
    Only the registered profiles are remembered (a custom profile of the same name is scanned afresh). The pieces
    are the caller's strings (no copy), but the memo keeps them alive, so it holds at most ``maxsize`` containers
    and ``max_chars`` characters of pieces in all, and no container longer than ``max_container_chars`` (a longer
    one is scanned afresh each time); ``cache_clear`` empties it, as ``functools.lru_cache`` does."""

    def __init__(self, maxsize: int, name: str, max_chars: int = 1 << 20, max_container_chars: int = CHUNK) -> None:
        self.maxsize = maxsize
        self.max_chars = max_chars
        self.max_container_chars = max_container_chars
        self.chars = 0
        self.entries: OrderedDict[tuple[str, tuple[str, ...]], tuple[frozenset[str], int]] = OrderedDict()
        # What a cache function of ``functools.lru_cache`` has, on the instance (not the class), so that the
        # benchmark tools, which empty every cache of the privacy modules by these names, find this one and only it.
        self.__name__ = name
        self.cache_clear = self._clear
        self.cache_info = self._info

    def get(self, key: tuple[str, tuple[str, ...]]) -> frozenset[str] | None:
        entry = self.entries.get(key)
        if entry is None:
            return None
        self.entries.move_to_end(key)
        return entry[0]

    def put(self, key: tuple[str, tuple[str, ...]], codes: Collection[str]) -> None:
        size = sum(map(len, key[1]))
        if size > self.max_container_chars or key in self.entries:
            return
        self.entries[key] = (frozenset(codes), size)
        self.chars += size
        while len(self.entries) > self.maxsize or self.chars > self.max_chars:
            _key, (_codes, dropped) = self.entries.popitem(last=False)
            self.chars -= dropped

    def _clear(self) -> None:
        self.entries.clear()
        self.chars = 0

    def _info(self) -> tuple[int, int]:
        return len(self.entries), self.maxsize


_CONTAINERS = _ContainerMemo(maxsize=4096, name="_CONTAINERS")


def joined_findings(containers: Sequence[tuple[Hashable, Sequence[str]]],
                    profile: Profile) -> list[tuple[Hashable, set[str]]]:
    """``(key, codes)`` for every container whose joined views raise something new (see :func:`joined_codes`).

    Containers with the same pieces are scanned once (and each reported at its own key), and once per process for
    a registered profile (:data:`_CONTAINERS`). A view that is a single
    chunk the prefilter proves clean (``engine.prefilter_skips``) raises nothing and is not screened; a container
    whose views all are raises nothing. The other views are first screened in batches of about ``SCREEN_CHARS``
    characters (see ``SCREEN_SEPARATOR``); only the containers of a batch that raises something are scanned one by
    one, every view of them.
    """
    codes_of: dict[tuple[str, ...], set[str]] = {}
    batch: list[tuple[tuple[str, ...], list[str]]] = []
    size = 0
    registered = PROFILES.get(profile.name) is profile
    fresh: list[tuple[str, ...]] = []  # containers scanned by this call (remembered at the end)

    def run_batch() -> None:
        texts = [view for _pieces, screened in batch for view in screened]
        # The screen's budget is sized for the batch: a view chunk that decodes past the per-string budget (which the
        # per-container scan fails closed on) is sent to that scan too.
        flagged = bool(texts) and (bool(scan_uncached(SCREEN_SEPARATOR.join(texts), _screen_profile(profile)))
                                   or any(may_expand_past(chunk, profile.max_chars)
                                          for text in texts for chunk in _chunks(text)))
        for pieces, _screened in batch:
            codes_of[pieces] = joined_codes(pieces, profile) if flagged else set()
        batch.clear()

    for _key, container in containers:
        pieces = tuple(container)
        if len(pieces) < 2 or pieces in codes_of:
            continue
        if registered:
            known = _CONTAINERS.get((profile.name, pieces))
            if known is not None:
                codes_of[pieces] = set(known)
                continue
            fresh.append(pieces)
        length = sum(len(piece) + 1 for piece in pieces)
        screened = views(pieces)
        parts_view = path_parts_view(pieces)
        if parts_view is not None:
            screened.append(parts_view)
        if length <= CHUNK:
            # A view of one chunk that the prefilter proves clean raises nothing (its chunk is the view itself), so
            # only the others need the screen; a container with none raises nothing.
            screened = [view for view in screened if len(view) > CHUNK or not prefilter_skips(view, profile)]
            if not screened:
                codes_of[pieces] = set()
                continue
        if length > SCREEN_CHARS // 2:
            codes_of[pieces] = joined_codes(pieces, profile)
            continue
        if size + length > SCREEN_CHARS // 2:
            run_batch()
            size = 0
        codes_of[pieces] = set()  # placeholder until its batch runs, so a repeat is not batched twice
        batch.append((pieces, screened))
        size += length
    run_batch()
    for pieces in fresh:
        _CONTAINERS.put((profile.name, pieces), codes_of[pieces])
    return [(key, codes_of[tuple(pieces)]) for key, pieces in containers
            if len(pieces) >= 2 and codes_of.get(tuple(pieces))]


def reference_joined_findings(containers: Sequence[tuple[Hashable, Sequence[str]]],
                              profile: Profile) -> list[tuple[Hashable, set[str]]]:
    """The full join, unscreened and whole: :func:`reference_joined_codes` of every container. The reference
    :func:`joined_findings` must agree with exactly (used only by the equivalence tests, never by the scanner)."""
    out: list[tuple[Hashable, set[str]]] = []
    for key, pieces in containers:
        if len(pieces) >= 2:
            codes = reference_joined_codes(tuple(pieces), profile)
            if codes:
                out.append((key, codes))
    return out


# SVG text: each <text> element (its <tspan> children included) is one piece of rendered text.
_SVG_TEXT = regex.compile(r"<text\b[^>]*>(?P<body>.*?)</text\s*>", regex.S | regex.I)
_SVG_OPEN = regex.compile(r"<text\b", regex.I)
# Office documents (session 18): a paragraph of a Word, PowerPoint or ODF text document (``w:p``, ``a:p``,
# ``text:p``, ``text:h``) and a shared string of a spreadsheet (``si``) are rendered text as an SVG <text> element is,
# and an editor cuts them into runs wherever formatting, spell checking or revision marks change, so a word (an
# address) is often split over several ``<w:t>`` elements. A self-closing element (an empty paragraph) opens nothing.
_OFFICE_TEXT = regex.compile(r"<(w:p|a:p|text:p|text:h|si)\b[^>]*(?<!/)>(?P<body>.*?)</\1\s*>", regex.S)
# (A start tag, or the start of one cut off at the end of what the streamed reader holds so far.)
_OFFICE_OPEN = regex.compile(r"<(?:w:p|a:p|text:p|text:h|si)\b(?:[^>]*(?<!/)>|[^>]*$)")
_TAG = regex.compile(r"<[^>]*>")


class Markup(NamedTuple):
    """The rendered-text elements of one kind of markup file: ``element`` matches a whole element (its text in the
    ``body`` group), ``opener`` its start tag (the streamed reader waits for an open element to close)."""

    element: regex.Pattern[str]
    opener: regex.Pattern[str]


SVG = Markup(element=_SVG_TEXT, opener=_SVG_OPEN)
OFFICE = Markup(element=_OFFICE_TEXT, opener=_OFFICE_OPEN)


def markup_of(artifact: str) -> Markup | None:
    """The markup whose text elements are joined for a file of this name: SVG for ``*.svg``, the office documents'
    paragraphs for ``*.xml`` (the members of ``.docx``, ``.pptx``, ``.xlsx`` and ``.odt`` files are XML); None."""
    lowered = artifact.lower()
    if lowered.endswith(".svg"):
        return SVG
    if lowered.endswith(".xml"):
        return OFFICE
    return None


def element_pieces(body: str) -> list[str]:
    """The text pieces of an element's body: the text between its tags (entity references left to the normaliser)."""
    return [piece for piece in _TAG.split(body) if piece.strip()]


def text_elements(text: str, markup: Markup = SVG) -> list[tuple[int, list[str]]]:
    """``(offset, pieces)`` for every text element of a markup document (an SVG ``<text>`` element, with its tspan
    contents as separate pieces; an office paragraph, with its runs): its offset in ``text`` and its text pieces."""
    elements: list[tuple[int, list[str]]] = []
    if markup.opener.search(text) is None:
        return elements
    for match in markup.element.finditer(text):
        pieces = element_pieces(match.group("body"))
        if pieces:
            elements.append((match.start(), pieces))
    return elements

