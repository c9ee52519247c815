"""Broken fixtures for the summary family: edited numbers, roundings, hashes, provenance and verdict words.

Every case edits the text and reseals, so the raw-byte hashes in publication.json are current and only the
summary's own problem remains.
"""

from __future__ import annotations


def _case(code: str, slug: str, file: str, old: str, new: str, description: str) -> dict:
    return {"code": code, "slug": slug, "base": "nerb-enron",
            "ops": [{"op": "replace_text", "file": file, "old": old, "new": new}],
            "reseal": True, "description": description, "expect": {"codes": [code]}}


CASES = [
    _case("summary.number_misplaced", "precision-columns-swapped", "summary.md",
          "| Precision | 95.30% | 95.31% | 95.24% |", "| Precision | 95.30% | 95.24% | 95.31% |",
          "The contact and person precision swapped between their columns: both numbers are verified, each only for "
          "the other class."),
    _case("summary.number_not_traced", "cataloged-count-edited", "summary.md", "cataloged only 146 of 1,393",
          "cataloged only 164 of 1,393", "A count in the prose was edited (146 -> 164)."),
    _case("summary.number_not_traced", "svg-throughput-edited", "figures/performance-scale.svg", "53,300 docs/s",
          "63,300 docs/s", "A throughput label in a figure was edited."),
    _case("summary.favourable_rounding", "open-world-recall-rounded-up", "summary.md",
          "| Open-world recall | 10.19% |", "| Open-world recall | 10.20% |",
          "142/1,393 = 10.1938% printed as 10.20% (rounded up, flattering a higher-is-better rate)."),
    _case("summary.misrounded", "contact-recall-rounded-down", "summary.md",
          "| Open-world recall | 10.19% | 96.83% |", "| Open-world recall | 10.19% | 96.82% |",
          "61/63 = 96.8254% printed as 96.82% (rounded the wrong way, unfavourably)."),
    _case("summary.ratio_not_traced", "mixed-denominator", "summary.md",
          "| Documents without an exact-span miss | 7 / 69 |", "| Documents without an exact-span miss | 7 / 62 |",
          "Both counts are verified, but 7 / 62 mixes two different ratios."),
    _case("summary.hash_not_traced", "bank-hash-edited", "summary.md",
          "bank: `sha256:9e67747f", "bank: `sha256:9e67747e", "The bank hash in the provenance list was edited."),
    _case("summary.provenance_mismatch", "other-cpu", "summary.md", "recorded Apple M4 environment",
          "recorded Apple M3 environment", "The summary names another CPU than the evidence records."),
    _case("summary.provenance_mismatch", "larger-variant-cpu", "summary.md", "recorded Apple M4 environment",
          "recorded Apple M4 Max environment", "The summary names a larger variant of the recorded chip."),
    _case("summary.verdict_mismatch", "claims-eligible", "summary.md", "NOT ELIGIBLE for standalone",
          "ELIGIBLE for standalone", "The summary says the bank is eligible for standalone redaction."),
    _case("summary.verdict_mismatch", "svg-row-passes", "figures/known-bank-contract.svg",
          "minimum threshold 100.00%; result fail", "minimum threshold 100.00%; result pass",
          "A figure says 142 of 146 passes a 100% threshold."),
]
