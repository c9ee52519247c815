"""Quality-slice arithmetic shared by the quality, manifest and decision families (no findings here, only math).

The 23 integer counts of a quality slice and the 11 rates derived from them are public facts of NERB's evidence v2
contract (field names and formulas; spec 10 section 10). Every rate is an exact ``Fraction`` of two integer counts, or
``None`` ("not evaluated") when its denominator is zero or when it is an open-world rate on a slice that is not
open-world eligible. A stored rate is correct only if it is exactly the correctly rounded double of that fraction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, NamedTuple

# The 23 counts of a slice, in the order the contract lists them.
COUNT_FIELDS: tuple[str, ...] = (
    "documents",
    "documents_with_sensitive_gold",
    "documents_with_any_miss",
    "documents_with_cataloged_gold",
    "documents_with_any_cataloged_miss",
    "documents_with_any_leaked_character",
    "gold_spans",
    "predicted_spans",
    "true_positive",
    "false_positive",
    "false_negative",
    "cataloged_gold_spans",
    "cataloged_true_positive",
    "cataloged_false_negative",
    "cataloged_wrong_canonical",
    "sensitive_gold_characters",
    "covered_sensitive_characters",
    "leaked_sensitive_characters",
    "predicted_characters",
    "over_redacted_characters",
    "evaluated_characters",
    "negative_documents",
    "negative_documents_with_predictions",
)

# Counts that must be zero on a slice that is not open-world eligible (hits and misses only are kept).
OPEN_WORLD_ONLY_COUNTS: tuple[str, ...] = (
    "false_positive",
    "sensitive_gold_characters",
    "covered_sensitive_characters",
    "leaked_sensitive_characters",
    "predicted_characters",
    "over_redacted_characters",
    "evaluated_characters",
    "negative_documents",
    "negative_documents_with_predictions",
    "documents_with_any_leaked_character",
)

Counts = Mapping[str, int]


class MetricDef(NamedTuple):
    """One rate: its name, which counts it reads, how numerator and denominator follow from them."""

    name: str
    fields: tuple[str, ...]
    numerator: Callable[[Counts], int]
    denominator: Callable[[Counts], int]
    open_world: bool
    higher_is_better: bool


def _field(name: str) -> Callable[[Counts], int]:
    return lambda c: c[name]


METRICS: tuple[MetricDef, ...] = (
    MetricDef("precision", ("true_positive", "predicted_spans"),
              _field("true_positive"), _field("predicted_spans"), True, True),
    MetricDef("open_world_recall", ("true_positive", "gold_spans"),
              _field("true_positive"), _field("gold_spans"), True, True),
    MetricDef("f1", ("true_positive", "false_positive", "false_negative"),
              lambda c: 2 * c["true_positive"],
              lambda c: 2 * c["true_positive"] + c["false_positive"] + c["false_negative"], True, True),
    MetricDef("catalog_coverage", ("cataloged_gold_spans", "gold_spans"),
              _field("cataloged_gold_spans"), _field("gold_spans"), False, True),
    MetricDef("cataloged_recall", ("cataloged_true_positive", "cataloged_gold_spans"),
              _field("cataloged_true_positive"), _field("cataloged_gold_spans"), False, True),
    MetricDef("document_leak_rate", ("documents_with_any_miss", "documents_with_sensitive_gold"),
              _field("documents_with_any_miss"), _field("documents_with_sensitive_gold"), True, False),
    MetricDef("cataloged_document_leak_rate", ("documents_with_any_cataloged_miss", "documents_with_cataloged_gold"),
              _field("documents_with_any_cataloged_miss"), _field("documents_with_cataloged_gold"), True, False),
    MetricDef("sensitive_character_recall", ("covered_sensitive_characters", "sensitive_gold_characters"),
              _field("covered_sensitive_characters"), _field("sensitive_gold_characters"), True, True),
    MetricDef("sensitive_character_leak_rate", ("leaked_sensitive_characters", "sensitive_gold_characters"),
              _field("leaked_sensitive_characters"), _field("sensitive_gold_characters"), True, False),
    MetricDef("negative_document_false_alarm_rate", ("negative_documents_with_predictions", "negative_documents"),
              _field("negative_documents_with_predictions"), _field("negative_documents"), True, False),
    MetricDef("over_redaction_rate", ("over_redacted_characters", "evaluated_characters"),
              _field("over_redacted_characters"), _field("evaluated_characters"), True, False),
)
METRIC_NAMES: tuple[str, ...] = tuple(m.name for m in METRICS)
METRICS_BY_NAME: dict[str, MetricDef] = {m.name: m for m in METRICS}


def is_count(value: Any) -> bool:
    """True for a JSON integer that is a valid count: an exact ``int`` (not bool, not ``5.0``) and >= 0."""
    return type(value) is int and value >= 0


def is_open_world_eligible(label_strength: Any, annotation_completeness: Any) -> bool:
    """Only independent labels that are exhaustive within their scope support open-world (precision-type) rates."""
    return label_strength == "independent" and annotation_completeness == "exhaustive_within_scope"


def exact_metric(metric: MetricDef, counts: Counts, eligible: bool) -> Fraction | None:
    """The exact value of ``metric`` from integer counts, or None (empty denominator or ineligible open-world rate)."""
    if metric.open_world and not eligible:
        return None
    denominator = metric.denominator(counts)
    if denominator == 0:
        return None
    return Fraction(metric.numerator(counts), denominator)


def is_stored_number(value: Any) -> bool:
    """A stored rate must be a JSON number (int or float, never a bool) or null."""
    return type(value) in (int, float)


def stored_rate_matches(stored: Any, exact: Fraction | None) -> bool:
    """Exact rule: the stored rate equals the correctly rounded double of the exact fraction (null iff None).

    No tolerance: ``float(Fraction)`` rounds correctly, so a stored value one ulp (or 1e-11) away does not match.
    """
    if exact is None:
        return stored is None
    if not is_stored_number(stored):
        return False
    return float(exact) == stored
