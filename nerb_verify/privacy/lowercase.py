"""One lower-cased text shared by the rules that read it (the bracketed and plain spelled-out addresses, the SSN
context words, the home-path words): a block of a source file is lower-cased once for all of them, not once each."""

from __future__ import annotations

# The last text lower-cased by :func:`lowered` and its lower-case form (one pair, replaced whole).
_last_lowered: tuple[str, str] = ("", "")


def lowered(text: str) -> str:
    """``text.lower()``, remembered for the last text asked: the rules of one scan ask it of the same string object
    one after another (three of them lower a whole block), so it is computed once per text. The identity test
    (``is``) makes a different string with equal content simply computed again."""
    global _last_lowered
    last = _last_lowered
    if last[0] is text:
        return last[1]
    low = text.lower()
    _last_lowered = (text, low)
    return low
