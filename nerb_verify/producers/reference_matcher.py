"""A slow, obviously correct reference for the scan semantics, used only in tests against the RE2 engine.

It shares nothing with the engine's matching machinery: no RE2, no finder, no Set, no sharding. It walks every
character position of the text and, for each entity, tries every detector in declared order at that position:

* a literal is compared character by character (simple case folding by the ``regex`` module's IGNORECASE, which is
  Unicode simple folding; a normalized whitespace run matches one or more White_Space characters, maximally), and
  its word boundaries are checked with the Unicode word predicate;
* a regex is run as written by the ``regex`` module (a backtracking engine whose ``\\b`` is Unicode), anchored at the
  position.

The first detector that matches at the smallest position wins, the cursor moves to its end (or one character if
nothing matches), exactly the rule of spec 50 §4.3. Quadratic and slow by design.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import regex

from nerb_verify.producers.bank_format import Detector, active_detectors
from nerb_verify.producers.engine import WHITE_SPACE, is_word_char


@lru_cache(maxsize=200_000)
def _fold_equal(a: str, b: str) -> bool:
    """True when two characters are equal under Unicode simple case folding."""
    return a == b or regex.fullmatch(regex.escape(a), b, flags=regex.IGNORECASE) is not None


def _literal_end(det: Detector, text: str, pos: int) -> int | None:
    i = pos
    j = 0
    value = det.value
    while j < len(value):
        ch = value[j]
        if det.normalize_whitespace and ch in WHITE_SPACE:
            while j < len(value) and value[j] in WHITE_SPACE:
                j += 1
            if i >= len(text) or text[i] not in WHITE_SPACE:
                return None
            while i < len(text) and text[i] in WHITE_SPACE:
                i += 1
            continue
        if i >= len(text):
            return None
        if not (text[i] == ch or (det.ignore_case and _fold_equal(ch, text[i]))):
            return None
        i += 1
        j += 1
    return i


def _word(text: str, i: int) -> bool:
    return 0 <= i < len(text) and is_word_char(text[i])


@lru_cache(maxsize=1024)
def _compiled_regex(value: str, flags: tuple[str, ...]) -> Any:
    f = 0
    f |= regex.IGNORECASE if "IGNORECASE" in flags else 0
    f |= regex.MULTILINE if "MULTILINE" in flags else 0
    f |= regex.DOTALL if "DOTALL" in flags else 0
    return regex.compile(value, flags=f)


def detector_end(det: Detector, text: str, pos: int) -> int | None:
    """Where ``det`` ends when it matches at character ``pos`` of ``text`` (boundaries included), else None."""
    if det.kind == "regex":
        m = _compiled_regex(det.value, det.flags).match(text, pos)
        if m is None or m.end() == pos:
            return None
        return m.end()
    end = _literal_end(det, text, pos)
    if end is None or end == pos:
        return None
    if det.left_boundary == "word" and _word(text, pos - 1) == _word(text, pos):
        return None
    if det.right_boundary == "word" and _word(text, end - 1) == _word(text, end):
        return None
    return end


def reference_scan(bank: dict[str, Any], text: str) -> list[dict[str, Any]]:
    """Records for ``text`` with UTF-8 byte offsets, sorted like the engine's (start, end, entity, name, pattern,
    string), computed by brute force."""
    by_entity: dict[str, list[Detector]] = {}
    for det in active_detectors(bank):
        by_entity.setdefault(det.entity_id, []).append(det)
    byte_at = [0]
    for ch in text:
        byte_at.append(byte_at[-1] + len(ch.encode("utf-8")))
    records = []
    for entity_id, dets in by_entity.items():
        dets = sorted(dets, key=lambda d: d.order_key)
        pos = 0
        while pos < len(text):
            hit = None
            for det in dets:
                end = detector_end(det, text, pos)
                if end is not None:
                    hit = (det, end)
                    break
            if hit is None:
                pos += 1
                continue
            det, end = hit
            records.append({
                "entity": entity_id, "canonical_name": det.canonical_name, "surface_name": det.surface_name,
                "string": text[pos:end], "start": byte_at[pos], "end": byte_at[end], "offset_unit": "byte",
                "entity_id": entity_id, "name_id": det.name_id, "pattern_id": det.pattern_id,
                "pattern_kind": det.kind, "captures": {},
            })
            pos = end
    records.sort(key=lambda r: (r["start"], r["end"], r["entity_id"], r["name_id"], r["pattern_id"], r["string"]))
    return records
