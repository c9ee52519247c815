"""Exact number formatting for the render: thousands separators, fixed decimals, percentages.

Values are Fractions (or ints); rounding is half-even on the exact value at the printed precision, so a printed
figure is always the correctly rounded value of the recomputed one (our summary checker traces it back).
"""

from __future__ import annotations

from fractions import Fraction


def _group(digits: str) -> str:
    out = []
    while len(digits) > 3:
        out.insert(0, digits[-3:])
        digits = digits[:-3]
    out.insert(0, digits)
    return ",".join(out)


def fixed(value: Fraction | int, decimals: int) -> str:
    """``value`` rounded half-even to ``decimals`` places, with thousands separators (``143,057.2``)."""
    scaled = round(Fraction(value) * 10**decimals)
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled)).rjust(decimals + 1, "0")
    whole, frac = (digits[:-decimals], digits[-decimals:]) if decimals else (digits, "")
    return sign + _group(whole) + ("." + frac if decimals else "")


def count(value: int) -> str:
    """An integer with thousands separators."""
    return fixed(value, 0)


def percent(value: Fraction | int, decimals: int = 2) -> str:
    """A ratio as a percentage (``0.1019...`` -> ``10.19%``)."""
    return fixed(Fraction(value) * 100, decimals) + "%"
