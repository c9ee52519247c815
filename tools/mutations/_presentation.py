"""Presentation codes that earlier cases now raise as well (issue 16, class 8).

These cases edit counts or plan fields that ``summary.md`` and the figures display, but leave the rendered files as
they were. Since the presentation rules bind every table cell, SVG label, bar and threshold marker to the figure its
row names, the stale rendering is reported too: each case's expected codes gain the presentation codes below.
(A case written after those rules lists its codes itself.) :func:`tools.fixturelib.all_cases` applies the table.
"""

from __future__ import annotations

PRESENTATION_ALSO: dict[tuple[str, str], list[str]] = {
    ("conformance.arithmetic", "outcomes-exceed-approved"): ["summary.cell_mismatch"],
    ("conformance.bank_mismatch", "conformance-on-fewer-patterns"): ["summary.cell_mismatch", "summary.label_mismatch", "summary.ratio_not_traced"],
    ("conformance.empty", "no-negative-cases"): ["summary.threshold_marker"],
    ("conformance.incomplete_pattern_support", "one-pattern-untested"): ["summary.cell_mismatch", "summary.label_mismatch", "summary.ratio_not_traced"],
    ("conformance.negative_bounds", "more-matches-than-negatives"): ["summary.bar_geometry", "summary.cell_mismatch", "summary.label_mismatch"],
    ("conformance.recall_should_be_null", "no-approved-positives"): ["summary.bar_geometry", "summary.cell_mismatch", "summary.label_mismatch", "summary.threshold_marker", "summary.ratio_not_traced"],
    ("decision.bundle_overstates_known_bank_contract", "publication-hides-conformance-failure"): ["summary.cell_mismatch", "summary.label_mismatch", "summary.ratio_not_traced"],
    ("manifest.gate_plan_set", "slice-gate-flag-dropped"): ["summary.bar_geometry", "summary.label_mismatch"],
    ("manifest.gate_support_floor", "too-few-cataloged-and-negatives"): ["summary.bar_geometry", "summary.label_mismatch"],
    ("manifest.missing_gate_slice", "gate-flag-dropped"): ["summary.threshold_marker"],
    ("manifest.panel_gate", "person-slice-gates"): ["summary.bar_geometry", "summary.label_mismatch"],
    ("quality.cataloged_tp_partition", "wrong-canonical-beyond-tp"): ["summary.bar_geometry", "summary.cell_mismatch", "summary.label_mismatch"],
    ("quality.character_universe", "universe-too-small"): ["summary.cell_mismatch"],
    ("quality.empty", "evaluated-without-slices"): ["summary.threshold_marker"],
    ("quality.empty_prediction_characters", "no-predictions-but-characters"): ["summary.cell_mismatch", "summary.label_mismatch"],
    ("quality.exact_recall_characters", "no-misses-but-leaks"): ["summary.bar_geometry", "summary.cell_mismatch", "summary.label_mismatch"],
    ("quality.invalid_gate", "gate-on-partial-labels"): ["summary.threshold_marker"],
    ("quality.metric_should_be_null", "cataloged-rates-without-cataloged-gold"): ["summary.bar_geometry", "summary.cell_mismatch", "summary.label_mismatch"],
    ("quality.not_evaluated_has_slices", "evaluated-false"): ["summary.threshold_marker"],
}
