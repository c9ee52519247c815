"""Broken fixtures for the summary family: edited numbers, roundings, hashes, provenance and verdict words.

Every case edits the text and reseals, so the raw-byte hashes in publication.json are current and only the
summary's own problem remains.
"""

from __future__ import annotations


def _rt(file: str, old: str, new: str) -> dict:
    return {"op": "replace_text", "file": file, "old": old, "new": new}


def _coherent(code: str, slug: str, ops: list[dict], description: str, codes: list[str] | None = None) -> dict:
    """A coherent forgery: several consistent edits (summary, figure labels, description), resealed."""
    return {"code": code, "slug": slug, "base": "nerb-enron", "ops": ops, "reseal": True,
            "description": description, "expect": {"codes": codes or [code]}}


def _swap(file: str, first: str, second: str) -> list[dict]:
    """Ops that exchange two unique snippets of one file."""
    marker = "@@swap@@"
    return [_rt(file, first, marker), _rt(file, second, first), _rt(file, marker, second)]


SUMMARY, COVERAGE, STANDALONE, SCALE = ("summary.md", "figures/bank-coverage.svg", "figures/standalone-redaction.svg",
                                        "figures/performance-scale.svg")
CELL, LABEL, BAR, MARKER = ("summary.cell_mismatch", "summary.label_mismatch", "summary.bar_geometry",
                            "summary.threshold_marker")


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

CASES += [
    _coherent(CELL, "miss-and-wrong-swapped-everywhere", [
        _rt(SUMMARY, "| Combined | 146 | 142 | 4 | 0 |", "| Combined | 146 | 142 | 0 | 4 |"),
        _rt(COVERAGE, "142 exact · 4 span miss · 0 wrong mapping", "142 exact · 0 span miss · 4 wrong mapping"),
        _rt(COVERAGE, "4 cataloged exact-span misses, 0 cataloged wrong mappings, and 1,247",
            "0 cataloged exact-span misses, 4 cataloged wrong mappings, and 1,247")],
        "The combined exact-span misses (4) and wrong mappings (0) swapped in the table, the figure label and the "
        "figure description: every number is a verified count of the combined class, each in the wrong column.",
        [CELL, LABEL]),
    _coherent(CELL, "recall-and-coverage-rows-swapped",
              _swap(SUMMARY, "| Open-world recall | 10.19% |", "| Catalog coverage | 10.48% |"),
              "Combined open-world recall and catalog coverage exchanged between their rows (both verified "
              "combined rates)."),
    _coherent(CELL, "bank-size-labels-reversed",
              _swap(SUMMARY, "| 1,000 patterns |", "| 100,000 patterns |"),
              "The throughput table's bank-size labels of the first and last rows reversed: the fastest rate now "
              "sits under 100,000 patterns."),
    _coherent(LABEL, "gate-values-swapped", _swap(STANDALONE, ">10.19%<", ">21.34%<"),
              "Two verified gate values exchanged between the figure rows' value labels (bars untouched)."),
    _coherent(LABEL, "scale-labels-reversed", _swap(SCALE, ">1,000 patterns<", ">100,000 patterns<"),
              "The bank-size labels of the first and last figure rows reversed: each row's value and bar now "
              "belong to the other size.", [LABEL, BAR]),
    _coherent(BAR, "precision-bar-widened", [_rt(STANDALONE, 'width="477"', 'width="500"')],
              "The precision bar drawn full width (95.30% of the track is 477 px of 500)."),
    _coherent(BAR, "coverage-segment-widened", [
        _rt(COVERAGE, '<rect x="260" y="120" width="63" height="24" fill="#29c7a9"/><rect x="323" y="120" '
                      'width="2" height="24" fill="#f7c948"/><rect x="325" y="120" width="555"',
            '<rect x="260" y="120" width="93" height="24" fill="#29c7a9"/><rect x="353" y="120" '
            'width="2" height="24" fill="#f7c948"/><rect x="355" y="120" width="525"')],
        "The combined 'cataloged exact' segment widened and the following segments shifted so the stack still "
        "fills the track."),
    _coherent(MARKER, "recall-threshold-moved", [_rt(STANDALONE, 'x1="735" y1="104" x2="735"',
                                                     'x1="750" y1="104" x2="750"')],
              "The open-world recall threshold line moved from 95% to 98% of the track (another gate's threshold)."),
    _coherent("summary.figure_unreadable", "doctype", [_rt(SCALE, "<svg xmlns", "<!DOCTYPE svg><svg xmlns")],
              "A DOCTYPE before the root element: the figure is not plain SVG elements."),
    _coherent("summary.decision_sentence", "says-promoted", [
        _rt(SUMMARY, "This bundle verifies as authentic evidence, while",
            "This bundle was promoted. This bundle verifies as authentic evidence, while")],
        "A sentence says the bundle was promoted; the evidence's promotion did not pass."),
    _coherent("summary.decision_sentence", "qualifies-as-standalone-redactor", [
        _rt(SUMMARY, "That result limits this bank's use as a comprehensive redactor;",
            "This bank qualifies as a comprehensive standalone redactor;")],
        "Prose says the bank qualifies for standalone redaction; the verifier's decision is not eligible."),
    _coherent("summary.decision_sentence", "contract-failed", [
        _rt(SUMMARY, "This is the contract NERB is built to make:", "The known-bank contract failed here:")],
        "Prose says the known-bank contract failed; the verifier's known-bank decision passed."),
    # Session 12: prose and labels bound to the figure they name (found by a coherent-forgery probe of the real
    # bundle's summary and figures).
    _coherent("summary.decision_sentence", "question-answered-yes", [
        _rt(SUMMARY, "redact all in-scope person and contact PII? It could not.",
            "redact all in-scope person and contact PII? It could.")],
        "The answer to the summary's own question (could the bank redact all PII by itself?) flipped to yes; the "
        "verifier's standalone-redaction decision is not eligible."),
    _coherent("summary.decision_sentence", "every-gate-met", [
        _rt(SUMMARY, "These frozen results remain important",
            "The same bank met every preregistered application gate. These frozen results remain important")],
        "An added sentence says every application gate was met; eight quality gates failed."),
    _coherent("summary.decision_sentence", "figure-says-all-gates-met", [
        _rt(STANDALONE, "no threshold; diagnostic result.</desc>",
            "no threshold; diagnostic result. All preregistered application gates were met.</desc>")],
        "A figure's description says all application gates were met."),
    _coherent("summary.ratio_not_traced", "panel-pair-edited", [
        _rt(SUMMARY, "It found 142 of 146 catalog-qualified", "It found 146 of 146 catalog-qualified")],
        "146 of 146 is 100%, like several verified ratios, but no verified ratio has these two counts (the panel "
        "found 142 of 146); the bracketed 97.26% no longer states the pair either.",
        ["summary.pair_percent_mismatch", "summary.ratio_not_traced"]),
    _coherent("summary.pair_percent_mismatch", "panel-percent-edited", [
        _rt(SUMMARY, "the expected canonical mapping (97.26%).", "the expected canonical mapping (100.00%).")],
        "The bracketed percentage after 142 of 146 edited to 100.00%, a verified percentage of other ratios."),
    _coherent("summary.bank_size_mismatch", "small-bank-rate-at-largest-bank", [
        _rt(SUMMARY, "At 100,000 patterns, throughput remained 6,810.8 documents/s",
            "At 100,000 patterns, throughput remained 932,400.9 documents/s")],
        "The 1,000-pattern cell's throughput printed for the 100,000-pattern bank."),
    _coherent("summary.statistic_mismatch", "median-printed-as-p95", [
        _rt(SUMMARY, "9.021 µs median and 55.250 µs p95", "9.021 µs median and 9.021 µs p95")],
        "The headline latency's median printed as its p95."),
    _coherent("summary.document_count_not_traced", "input-size-edited", [
        _rt(SCALE, "Apple M4, 100-document controlled input", "Apple M4, 10,000-document controlled input")],
        "A figure subtitle says the scale cells ran on 10,000 documents (a bank size); the input has 100."),
    _coherent("summary.row_label_unknown", "leak-row-relabelled", [
        _rt(SUMMARY, "| Document leakage |", "| Documents fully redacted |")],
        "The failing document-leakage row relabelled as a success; the table then also lacks that failed gate.",
        ["summary.failed_gate_omitted", "summary.row_label_unknown"]),
    _coherent("summary.bar_colour_mismatch", "failing-bars-in-passing-colour", [
        {"op": "replace_text", "file": STANDALONE, "old": 'fill="#f05b67"', "new": 'fill="#29c7a9"', "count": 3}],
        "The three failing gates' bars recoloured in the colour the contract figure uses for its passing rows."),
    _coherent("summary.failed_gate_omitted", "failing-rows-dropped", [
        _rt(SUMMARY, "| Open-world recall | 10.19% | 96.83% | 1.58% | ≥95% |\n", ""),
        _rt(SUMMARY, "| Document leakage | 89.86% | 9.38% | 96.72% | ≤5% |\n", "")],
        "Two failing gates' rows deleted from the table of application metrics and their requirements."),
    _coherent("summary.class_omitted", "person-row-dropped-from-coverage", [
        _rt(SUMMARY, "| Person | 1,267 | 20 | 1,247 | 1.58% |\n", "")],
        "The person row (1.58% catalog coverage) deleted from the bank-coverage table; the numbers left all trace."),
    _coherent("summary.class_omitted", "person-column-dropped-from-application-metrics", [
        _rt(SUMMARY, "| Application metric | Combined | Contact | Person | Frozen requirement |\n|---|---:|---:|---:|---:|",
            "| Application metric | Combined | Contact | Frozen requirement |\n|---|---:|---:|---:|"),
        _rt(SUMMARY, "| Open-world recall | 10.19% | 96.83% | 1.58% | ≥95% |", "| Open-world recall | 10.19% | 96.83% | ≥95% |"),
        _rt(SUMMARY, "| Catalog coverage | 10.48% | 100.00% | 1.58% | ≥80% |",
            "| Catalog coverage | 10.48% | 100.00% | ≥80% |"),
        _rt(SUMMARY, "| Cataloged exact-span recall | 97.26% | 96.83% | 100.00% | 100% |",
            "| Cataloged exact-span recall | 97.26% | 96.83% | 100% |"),
        _rt(SUMMARY, "| Sensitive-character recall | 21.34% | 100.00% | 2.19% | ≥98% |",
            "| Sensitive-character recall | 21.34% | 100.00% | ≥98% |"),
        _rt(SUMMARY, "| Document leakage | 89.86% | 9.38% | 96.72% | ≤5% |", "| Document leakage | 89.86% | 9.38% | ≤5% |"),
        _rt(SUMMARY, "| Sensitive-character leakage | 78.66% | 0.00% | 97.81% | ≤2% |",
            "| Sensitive-character leakage | 78.66% | 0.00% | ≤2% |"),
        _rt(SUMMARY, "| Precision | 95.30% | 95.31% | 95.24% | diagnostic |", "| Precision | 95.30% | 95.31% | diagnostic |"),
        _rt(SUMMARY, "| Over-redaction | 0.04% | 0.04% | 0.00% | ≤5% |", "| Over-redaction | 0.04% | 0.04% | ≤5% |")],
        "The person column deleted from the application-metrics table (cells realigned); the numbers left all trace."),
    _coherent("summary.unsupportable_claim", "catches-all-pii", [
        _rt(SUMMARY, "It is not a guarantee to discover entities absent from the bank.", "NERB catches all PII.")],
        "The charter's own example of an unsupportable claim."),
    _coherent("summary.unsupportable_claim", "guaranteed-full-recall-in-figure", [
        _rt(COVERAGE, "not matcher misses.", "and NERB guarantees complete recall.")],
        "A figure subtitle claims guaranteed complete recall."),
    _coherent("summary.unsupportable_claim", "never-misses-personal-data", [
        _rt(SUMMARY, "It is not a guarantee to discover entities absent from the bank.",
            "It never misses any personal data.")],
        "A sentence claims no personal data is ever missed."),
    _coherent("summary.unsupportable_claim", "open-world-recall-as-matcher-recall", [
        _rt(SUMMARY, "Neither is matcher recall.", "Open-world recall is the matcher recall.")],
        "Open-world recall described as NERB matcher recall."),
]
