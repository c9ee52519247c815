"""Quality family: published figures of the real bundle, every count rule, exact-double rates, hostile types.

Spec: 10-manifest-evidence.md sections 5.1, 9.3, 10, 11; charter "Quality Metrics" and "Coverage, Conformance, And
Recall". The hypothesis properties build slices from brute-force span matching and check that the family accepts the
exact doubles and rejects any perturbed one.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract_tests.family_harness import codes, mutate, real_artifacts, run_families, slice_of
from nerb_verify.checks import quality
from nerb_verify.checks.quality.quality_math import COUNT_FIELDS, METRIC_NAMES
from nerb_verify.context import EVIDENCE

# Published figures of the combined gate slice (spec 10 section 10), unreduced as the spec writes them.
COMBINED = {
    "precision": (142, 149),
    "open_world_recall": (142, 1393),
    "f1": (284, 1542),
    "catalog_coverage": (146, 1393),
    "cataloged_recall": (142, 146),
    "document_leak_rate": (62, 69),
    "cataloged_document_leak_rate": (3, 39),
    "sensitive_character_recall": (3183, 14916),
    "sensitive_character_leak_rate": (11733, 14916),
    "negative_document_false_alarm_rate": (0, 31),
    "over_redaction_rate": (226, 590044),
}


def only_quality(artifacts: dict[str, Any]):
    return run_families(artifacts, (quality.run,))


# ------------------------------------------------------------------------------------------------ the real bundle

def test_real_bundle_all_33_rates_match_exactly() -> None:
    ctx = only_quality(real_artifacts())
    assert ctx.collector.findings == []
    rates = [r for r in ctx.collector.recomputed if r.figure.startswith("quality.")]
    assert len(rates) == 33
    assert {r.status for r in rates} == {"match"}
    assert ctx.collector.checks_run["quality"] == {"status": "ran", "figures": 33, "slices": 3}


@pytest.mark.parametrize("name", sorted(COMBINED))
def test_real_combined_slice_exact_fractions(name: str) -> None:
    ctx = only_quality(real_artifacts())
    numerator, denominator = COMBINED[name]
    assert ctx.figures[f"/quality/slices/0/metrics/{name}"] == Fraction(numerator, denominator)
    stored = real_artifacts()[EVIDENCE]["quality"]["slices"][0]["metrics"][name]
    assert stored == numerator / denominator  # the published double is the correctly rounded one


def test_real_counts_are_published_as_figures() -> None:
    ctx = only_quality(real_artifacts())
    assert ctx.figures["/quality/slices/0/true_positive"] == 142
    assert ctx.figures["/quality/slices/0/sensitive_gold_characters"] == 14916
    assert ctx.figures["/quality/slices/2/gold_spans"] == 1267
    assert all(type(ctx.figures[f"/quality/slices/{i}/{c}"]) is int for i in range(3) for c in COUNT_FIELDS)


# ------------------------------------------------------------------------------------------------ exact doubles

def test_nudge_of_1e_11_is_a_mismatch() -> None:
    def edit(a: dict[str, Any]) -> None:
        slice_of(a, 0)["metrics"]["precision"] += 1e-11

    ctx = mutate(edit)
    assert codes(ctx) == {"quality.metric_mismatch"}
    finding = ctx.collector.findings[0]
    assert finding.pointer == "/quality/slices/0/metrics/precision"
    assert "142/149" in finding.message
    status = {r.pointer: r.status for r in ctx.collector.recomputed}
    assert status["/quality/slices/0/metrics/precision"] == "mismatch"


def test_one_ulp_is_a_mismatch() -> None:
    def edit(a: dict[str, Any]) -> None:
        metrics = slice_of(a, 1)["metrics"]
        metrics["f1"] = math.nextafter(metrics["f1"], 0.0)

    assert codes(mutate(edit)) == {"quality.metric_mismatch"}


def test_integer_one_equals_double_one() -> None:
    def edit(a: dict[str, Any]) -> None:
        slice_of(a, 1)["metrics"]["catalog_coverage"] = 1

    assert codes(mutate(edit)) == set()


def test_null_where_defined_is_its_own_code() -> None:
    def edit(a: dict[str, Any]) -> None:
        slice_of(a, 0)["metrics"]["over_redaction_rate"] = None

    ctx = mutate(edit)
    assert codes(ctx) == {"quality.metric_unexpected_null"}


def test_value_where_denominator_is_zero_is_its_own_code() -> None:
    def edit(a: dict[str, Any]) -> None:
        s = slice_of(a, 2)
        s.update(cataloged_gold_spans=0, cataloged_true_positive=0, documents_with_cataloged_gold=0)
        s["metrics"]["catalog_coverage"] = 0.0

    ctx = mutate(edit)
    # the person slice edited alone no longer adds up to the combined one (quality.slice_identity, tested below)
    assert codes(ctx) - {"quality.slice_identity"} == {"quality.metric_should_be_null"}
    pointers = {f.pointer for f in ctx.collector.findings if f.code != "quality.slice_identity"}
    assert pointers == {"/quality/slices/2/metrics/cataloged_recall",
                        "/quality/slices/2/metrics/cataloged_document_leak_rate"}
    assert ctx.figures["/quality/slices/2/metrics/cataloged_recall"] is None


def test_zero_filled_rate_on_empty_denominator_is_rejected() -> None:
    """Charter: empty denominators produce not_evaluated, never 0 or 1."""
    def edit(a: dict[str, Any]) -> None:
        s = slice_of(a, 2)
        s.update(cataloged_gold_spans=0, cataloged_true_positive=0, documents_with_cataloged_gold=0)
        s["metrics"].update(catalog_coverage=0.0, cataloged_recall=None, cataloged_document_leak_rate=0.0)

    assert codes(mutate(edit)) - {"quality.slice_identity"} == {"quality.metric_should_be_null"}


# ------------------------------------------------------------------------------------------------ hostile types

@pytest.mark.parametrize("value", [5.0, True, "5", None, [5]])
def test_non_integer_count(value: Any) -> None:
    artifacts = real_artifacts()
    slice_of(artifacts, 1)["false_positive"] = value
    ctx = only_quality(artifacts)
    found = {(f.code, f.pointer) for f in ctx.collector.findings}
    assert ("quality.count_not_integer", "/quality/slices/1/false_positive") in found
    # precision, f1 read false_positive? f1 does; the published f1 cannot be recomputed: rate without counts.
    assert ("quality.rate_without_counts", "/quality/slices/1/metrics/f1") in found
    assert ctx.figures["/quality/slices/1/false_positive"] is None
    assert ctx.figures["/quality/slices/1/metrics/f1"] is None
    assert ctx.figures["/quality/slices/1/metrics/precision"] == Fraction(122, 128)  # unaffected rate


def test_negative_count() -> None:
    artifacts = real_artifacts()
    slice_of(artifacts, 2)["over_redacted_characters"] = -1
    found = {(f.code, f.pointer) for f in only_quality(artifacts).collector.findings}
    assert ("quality.count_negative", "/quality/slices/2/over_redacted_characters") in found
    assert ("quality.rate_without_counts", "/quality/slices/2/metrics/over_redaction_rate") in found


def test_missing_count_and_rate_without_counts() -> None:
    artifacts = real_artifacts()
    del slice_of(artifacts, 0)["true_positive"]
    ctx = only_quality(artifacts)
    found = {(f.code, f.pointer) for f in ctx.collector.findings}
    assert ("quality.count_missing", "/quality/slices/0/true_positive") in found
    for name in ("precision", "open_world_recall", "f1"):
        assert ("quality.rate_without_counts", f"/quality/slices/0/metrics/{name}") in found
        assert ctx.figures[f"/quality/slices/0/metrics/{name}"] is None
    statuses = {r.pointer: r.status for r in ctx.collector.recomputed}
    assert statuses["/quality/slices/0/metrics/precision"] == "not_evaluated"


def test_metric_not_number_and_absent() -> None:
    artifacts = real_artifacts()
    slice_of(artifacts, 0)["metrics"]["precision"] = "0.95"
    del slice_of(artifacts, 0)["metrics"]["f1"]
    found = {(f.code, f.pointer) for f in only_quality(artifacts).collector.findings}
    assert ("quality.metric_not_number", "/quality/slices/0/metrics/precision") in found
    assert ("quality.metric_absent", "/quality/slices/0/metrics/f1") in found


def test_bool_metric_is_not_a_number() -> None:
    artifacts = real_artifacts()
    slice_of(artifacts, 1)["metrics"]["catalog_coverage"] = True  # True == 1 in Python; still not a number
    assert "quality.metric_not_number" in codes(only_quality(artifacts))


@pytest.mark.parametrize("quality_value", [None, [], "x", {"evaluated": "yes", "slices": []},
                                           {"evaluated": True, "slices": {}},
                                           {"evaluated": True, "slices": [1, None]},
                                           {"evaluated": True, "slices": [{"metrics": []}]}])
def test_malformed_sections_do_not_crash(quality_value: Any) -> None:
    artifacts = real_artifacts()
    artifacts[EVIDENCE]["quality"] = quality_value
    ctx = only_quality(artifacts)
    assert ctx.collector.findings, "a malformed section must never pass silently"


def test_no_evidence_is_not_evaluated() -> None:
    ctx = run_families({}, (quality.run,))
    assert ctx.collector.checks_run["quality"]["status"] == "not_evaluated"


def test_messages_never_echo_input_strings() -> None:
    artifacts = real_artifacts()
    slice_of(artifacts, 0)["metrics"]["precision"] = "secret-value-9"
    slice_of(artifacts, 0)["documents"] = "secret-count-7"
    ctx = only_quality(artifacts)
    for finding in ctx.collector.findings:
        assert "secret" not in finding.message and "secret" not in finding.pointer
    assert all(r.published is None or isinstance(r.published, (int, float)) for r in ctx.collector.recomputed)


# ------------------------------------------------------------------------------------------------ count rules

RULES = [
    ("quality.count_identity", 2, {"predicted_characters": 264}),
    ("quality.count_bounds", 2, {"documents_with_any_leaked_character": 62, "documents_with_any_miss": 62}),
    ("quality.cataloged_tp_partition", 1, {"cataloged_wrong_canonical": 1, "cataloged_false_negative": 3}),
    ("quality.document_partition", 2, {"negative_documents": 38}),
    ("quality.document_event_zero_together", 2, {"documents_with_any_leaked_character": 0}),
    ("quality.document_event_bounds", 2, {"negative_documents_with_predictions": 2}),
    ("quality.character_universe", 2, {"over_redacted_characters": 100, "predicted_characters": 363,
                                       "evaluated_characters": 12050}),
    ("quality.exact_recall_characters", 1, {
        "true_positive": 126, "false_negative": 0, "predicted_spans": 132, "cataloged_true_positive": 126,
        "cataloged_false_negative": 0, "documents_with_any_miss": 0, "documents_with_any_cataloged_miss": 0,
        "covered_sensitive_characters": 2919, "leaked_sensitive_characters": 1, "predicted_characters": 3145,
        "documents_with_any_leaked_character": 1}),
    ("quality.empty_prediction_characters", 2, {
        "true_positive": 0, "false_positive": 0, "predicted_spans": 0, "false_negative": 1267,
        "cataloged_true_positive": 0, "cataloged_false_negative": 20, "documents_with_any_miss": 61,
        "documents_with_any_cataloged_miss": 10}),
]


@pytest.mark.parametrize("code,index,counts", RULES, ids=[r[0] for r in RULES])
def test_count_rule_raises_exactly_its_code(code: str, index: int, counts: dict[str, int]) -> None:
    from tools.mutations.quality import recompute_metrics

    artifacts = real_artifacts()
    item = slice_of(artifacts, index)
    item.update(counts)
    recompute_metrics(item)
    # A class slice edited alone usually no longer adds up to the combined slice as well (quality.slice_identity,
    # tested on its own below); the per-slice rule must still be the only other code.
    assert codes(only_quality(artifacts)) - {"quality.slice_identity"} == {code}


def test_ineligible_slice_keeps_hits_and_misses_only() -> None:
    from tools.mutations.quality import recompute_metrics

    artifacts = real_artifacts()
    item = slice_of(artifacts, 2)
    item["annotation_completeness"] = "partial"
    recompute_metrics(item)
    ctx = only_quality(artifacts)
    assert codes(ctx) == {"quality.ineligible_open_world_counts"}
    flagged = {f.pointer.rsplit("/", 1)[1] for f in ctx.collector.findings}
    assert flagged == {"false_positive", "sensitive_gold_characters", "covered_sensitive_characters",
                       "leaked_sensitive_characters", "predicted_characters", "evaluated_characters",
                       "negative_documents", "documents_with_any_leaked_character"}
    # open-world rates are not evaluated on a partial slice; coverage and cataloged recall still are
    assert ctx.figures["/quality/slices/2/metrics/precision"] is None
    assert ctx.figures["/quality/slices/2/metrics/catalog_coverage"] == Fraction(20, 1267)
    assert ctx.figures["/quality/slices/2/metrics/cataloged_recall"] == Fraction(1)


def test_partial_slice_with_open_world_rates_published() -> None:
    def edit(a: dict[str, Any]) -> None:
        item = slice_of(a, 2)
        item["annotation_completeness"] = "partial"
        for name in ("false_positive", "sensitive_gold_characters", "covered_sensitive_characters",
                     "leaked_sensitive_characters", "predicted_characters", "over_redacted_characters",
                     "evaluated_characters", "negative_documents", "negative_documents_with_predictions",
                     "documents_with_any_leaked_character"):
            item[name] = 0
        item["predicted_spans"] = item["true_positive"]

    ctx = run_families(_edited(edit), (quality.run,))
    assert codes(ctx) == {"quality.metric_should_be_null"}
    assert len(ctx.collector.findings) == 9  # the 9 open-world rates


def _edited(edit) -> dict[str, Any]:
    artifacts = real_artifacts()
    edit(artifacts)
    return artifacts


@pytest.mark.parametrize("field,value,code", [
    ("label_strength", "unlabeled", "quality.unsupported_strength"),
    ("annotation_completeness", "not_applicable", "quality.invalid_completeness"),
])
def test_descriptor_rules(field: str, value: str, code: str) -> None:
    artifacts = real_artifacts()
    slice_of(artifacts, 2)[field] = value
    assert code in codes(only_quality(artifacts))


def test_small_slice_and_scope_and_gate() -> None:
    artifacts = real_artifacts()
    slice_of(artifacts, 1)["documents"] = 4
    slice_of(artifacts, 2)["annotation_scope"]["entity_classes"] = ["contact"]
    slice_of(artifacts, 0)["split_role"] = "validation"
    found = {(f.code, f.pointer) for f in only_quality(artifacts).collector.findings}
    assert ("quality.small_slice", "/quality/slices/1/documents") in found
    assert ("quality.annotation_scope_mismatch", "/quality/slices/2/annotation_scope/entity_classes") in found
    assert ("quality.invalid_gate", "/quality/slices/0/promotion_gate") in found


def test_section_rules() -> None:
    a = real_artifacts()
    a[EVIDENCE]["quality"]["evaluated"] = False
    assert codes(only_quality(a)) == {"quality.not_evaluated_has_slices"}
    a = real_artifacts()
    a[EVIDENCE]["quality"]["slices"] = []
    assert codes(only_quality(a)) == {"quality.empty"}
    a = real_artifacts()
    slice_of(a, 2)["id"] = slice_of(a, 1)["id"]
    assert codes(only_quality(a)) == {"quality.duplicate_slice_id"}
    a = real_artifacts()
    a[EVIDENCE]["quality"]["evaluated"] = False
    a[EVIDENCE]["quality"]["slices"] = []
    assert codes(only_quality(a)) == set()


# ------------------------------------------------------------------------------------------------ brute force

Span = tuple[str, int, int, int | None]  # class, start, end, catalog identity (None = not cataloged)


@st.composite
def documents(draw: Any) -> list[dict[str, Any]]:
    """5..8 documents, each with a length and random gold and predicted spans of two classes."""
    docs = []
    for _ in range(draw(st.integers(5, 8))):
        length = draw(st.integers(1, 25))

        def span_list(max_size: int) -> list[Span]:
            out = []
            for _ in range(draw(st.integers(0, max_size))):
                start = draw(st.integers(0, length - 1))
                end = draw(st.integers(start + 1, length))
                out.append((draw(st.sampled_from(["contact", "person"])), start, end,
                            draw(st.one_of(st.none(), st.integers(1, 3)))))
            return out

        gold = span_list(4)
        predicted = span_list(3)
        # reuse some gold spans as predictions so there are matches
        for g in gold:
            if draw(st.booleans()):
                predicted.append((g[0], g[1], g[2], draw(st.one_of(st.just(g[3]), st.integers(1, 3)))))
        docs.append({"length": length, "gold": gold, "predicted": predicted})
    return docs


def brute_force_counts(docs: list[dict[str, Any]], classes: set[str]) -> dict[str, int]:
    """Count every slice quantity by direct enumeration (one-to-one exact span+class matching, character sets)."""
    c = dict.fromkeys(COUNT_FIELDS, 0)
    c["documents"] = len(docs)
    for doc in docs:
        gold = [g for g in doc["gold"] if g[0] in classes]
        predicted = [p for p in doc["predicted"] if p[0] in classes]
        used = [False] * len(predicted)
        misses = cataloged_misses = 0
        tp = 0
        for cls, start, end, identity in gold:
            candidates = [i for i, p in enumerate(predicted) if not used[i] and p[:3] == (cls, start, end)]
            if identity is not None:
                preferred = [i for i in candidates if predicted[i][3] == identity]
                candidates = preferred + [i for i in candidates if i not in preferred]
            chosen = candidates[0] if candidates else None
            if chosen is not None:
                used[chosen] = True
                tp += 1
            else:
                misses += 1
            if identity is not None:
                c["cataloged_gold_spans"] += 1
                if chosen is None:
                    c["cataloged_false_negative"] += 1
                    cataloged_misses += 1
                elif predicted[chosen][3] == identity:
                    c["cataloged_true_positive"] += 1
                else:
                    c["cataloged_wrong_canonical"] += 1
                    cataloged_misses += 1
        c["gold_spans"] += len(gold)
        c["predicted_spans"] += len(predicted)
        c["true_positive"] += tp
        c["false_positive"] += len(predicted) - tp
        c["false_negative"] += misses
        gold_chars = {i for g in gold for i in range(g[1], g[2])}
        predicted_chars = {i for p in predicted for i in range(p[1], p[2])}
        leaked = len(gold_chars - predicted_chars)
        c["sensitive_gold_characters"] += len(gold_chars)
        c["covered_sensitive_characters"] += len(gold_chars & predicted_chars)
        c["leaked_sensitive_characters"] += leaked
        c["predicted_characters"] += len(predicted_chars)
        c["over_redacted_characters"] += len(predicted_chars - gold_chars)
        c["evaluated_characters"] += doc["length"]
        if gold:
            c["documents_with_sensitive_gold"] += 1
        else:
            c["negative_documents"] += 1
            if predicted:
                c["negative_documents_with_predictions"] += 1
        if misses:
            c["documents_with_any_miss"] += 1
        if any(g[3] is not None for g in gold):
            c["documents_with_cataloged_gold"] += 1
        if cataloged_misses:
            c["documents_with_any_cataloged_miss"] += 1
        if leaked:
            c["documents_with_any_leaked_character"] += 1
    return c


def brute_force_rates(c: dict[str, int]) -> dict[str, float | None]:
    """The stored doubles by plain int/int division (None for an empty denominator), independent of Fraction."""
    def rate(n: int, d: int) -> float | None:
        return None if d == 0 else n / d

    return {
        "precision": rate(c["true_positive"], c["predicted_spans"]),
        "open_world_recall": rate(c["true_positive"], c["gold_spans"]),
        "f1": rate(2 * c["true_positive"], 2 * c["true_positive"] + c["false_positive"] + c["false_negative"]),
        "catalog_coverage": rate(c["cataloged_gold_spans"], c["gold_spans"]),
        "cataloged_recall": rate(c["cataloged_true_positive"], c["cataloged_gold_spans"]),
        "document_leak_rate": rate(c["documents_with_any_miss"], c["documents_with_sensitive_gold"]),
        "cataloged_document_leak_rate": rate(c["documents_with_any_cataloged_miss"],
                                             c["documents_with_cataloged_gold"]),
        "sensitive_character_recall": rate(c["covered_sensitive_characters"], c["sensitive_gold_characters"]),
        "sensitive_character_leak_rate": rate(c["leaked_sensitive_characters"], c["sensitive_gold_characters"]),
        "negative_document_false_alarm_rate": rate(c["negative_documents_with_predictions"],
                                                   c["negative_documents"]),
        "over_redaction_rate": rate(c["over_redacted_characters"], c["evaluated_characters"]),
    }


TEMPLATE_SLICE = real_artifacts()[EVIDENCE]["quality"]["slices"][0]


def synthetic_evidence(docs: list[dict[str, Any]], entity_class: str) -> tuple[dict[str, Any], dict[str, int]]:
    classes = {"contact", "person"} if entity_class == "person_contact" else {entity_class}
    counts = brute_force_counts(docs, classes)
    item = dict(TEMPLATE_SLICE)
    item.update(counts)
    item.update(entity_class=entity_class, promotion_gate=False,
                annotation_scope=dict(item["annotation_scope"], entity_classes=sorted(classes)))
    item["metrics"] = brute_force_rates(counts)
    evidence = {"quality": {"evaluated": True, "slices": [item]}}
    return {EVIDENCE: evidence}, counts


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=documents(), entity_class=st.sampled_from(["person_contact", "contact", "person"]))
def test_brute_force_slices_are_accepted_and_rates_are_exact(docs: list[dict[str, Any]], entity_class: str) -> None:
    artifacts, counts = synthetic_evidence(docs, entity_class)
    ctx = only_quality(artifacts)
    assert ctx.collector.findings == []
    rates = brute_force_rates(counts)
    for name in METRIC_NAMES:
        exact = ctx.figures[f"/quality/slices/0/metrics/{name}"]
        if rates[name] is None:
            assert exact is None
        else:
            assert float(exact) == rates[name]
    assert ctx.figures["/quality/slices/0/metrics/precision"] == (
        None if counts["predicted_spans"] == 0 else Fraction(counts["true_positive"], counts["predicted_spans"]))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=documents(), name=st.sampled_from(METRIC_NAMES), direction=st.sampled_from([-1.0, 2.0]))
def test_brute_force_perturbed_rate_is_rejected(docs: list[dict[str, Any]], name: str, direction: float) -> None:
    artifacts, _ = synthetic_evidence(docs, "person_contact")
    metrics = artifacts[EVIDENCE]["quality"]["slices"][0]["metrics"]
    if metrics[name] is None:
        metrics[name] = 0.0
        expected = "quality.metric_should_be_null"
    else:
        metrics[name] = math.nextafter(metrics[name], direction)
        expected = "quality.metric_mismatch"
    assert codes(only_quality(artifacts)) == {expected}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=documents(), completeness=st.sampled_from(["partial", "exhaustive_within_scope"]),
       strength=st.sampled_from(["independent", "structured_weak"]))
def test_brute_force_ineligible_slices_keep_hits_and_misses_only(docs: list[dict[str, Any]], completeness: str,
                                                                 strength: str) -> None:
    """Partial or structured-weak labels: hits and misses only, open-world counts zero and open-world rates null."""
    from nerb_verify.checks.quality.quality_math import OPEN_WORLD_ONLY_COUNTS, is_open_world_eligible

    artifacts, counts = synthetic_evidence(docs, "person")
    item = artifacts[EVIDENCE]["quality"]["slices"][0]
    item.update(label_strength=strength, annotation_completeness=completeness)
    eligible = is_open_world_eligible(strength, completeness)
    if not eligible:
        for name in OPEN_WORLD_ONLY_COUNTS:
            item[name] = 0
        item["predicted_spans"] = item["true_positive"]
        rates = brute_force_rates(item)
        item["metrics"] = {name: (rates[name] if name in ("catalog_coverage", "cataloged_recall") else None)
                           for name in METRIC_NAMES}
    ctx = only_quality(artifacts)
    assert ctx.collector.findings == []
    assert (ctx.figures["/quality/slices/0/metrics/precision"] is None) == (
        not eligible or counts["predicted_spans"] == 0)
    if not eligible and counts["false_positive"] > 0:
        item["false_positive"] = counts["false_positive"]
        item["predicted_spans"] = counts["predicted_spans"]
        assert codes(only_quality(artifacts)) == {"quality.ineligible_open_world_counts"}


# ------------------------------------------------------------------------------------ slice identities (issue 16)

def synthetic_panel(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """The combined, contact and person slices scored by brute force on the same documents."""
    slices = [synthetic_evidence(docs, entity_class)[0][EVIDENCE]["quality"]["slices"][0]
              for entity_class in ("person_contact", "contact", "person")]
    for item, slice_id in zip(slices, ("combined", "contact", "person")):
        item["id"] = slice_id
    return {EVIDENCE: {"quality": {"evaluated": True, "slices": slices}}}


def identity_findings(ctx: Any) -> set[str]:
    return {f.pointer for f in ctx.collector.findings if f.code == "quality.slice_identity"}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=documents())
def test_brute_force_panel_satisfies_every_slice_identity(docs: list[dict[str, Any]]) -> None:
    """Combined and per-class slices scored from one matching never violate the identities (they are sound)."""
    artifacts = synthetic_panel(docs)
    assert only_quality(artifacts).collector.findings == []
    from nerb_verify.checks.quality.quality_panel import check_slice_identities  # the panel is found (and so checked)

    ctx = only_quality(artifacts)
    assert check_slice_identities(ctx, artifacts[EVIDENCE]["quality"]["slices"]) == 1


REAL_SLICES = real_artifacts()[EVIDENCE]["quality"]["slices"]


def _sum(name: str) -> int:
    return REAL_SLICES[1][name] + REAL_SLICES[2][name]


def _largest(name: str) -> int:
    return max(REAL_SLICES[1][name], REAL_SLICES[2][name])


# (combined count, a value that breaks its identity on the real panel)
IDENTITY_BREAKS = [
    *((name, _sum(name) + delta) for name in ("true_positive", "false_negative", "cataloged_gold_spans",
                                              "cataloged_true_positive", "cataloged_false_negative",
                                              "cataloged_wrong_canonical", "false_positive", "predicted_spans")
      for delta in (-1, 1) if _sum(name) + delta >= 0),
    *((name, value) for name in ("documents_with_sensitive_gold", "documents_with_any_miss",
                                 "documents_with_cataloged_gold", "documents_with_any_cataloged_miss")
      for value in (_largest(name) - 1, _sum(name) + 1) if value >= 0),
    ("covered_sensitive_characters", _largest("covered_sensitive_characters") - 1),
    *((name, _sum(name) + 1) for name in ("leaked_sensitive_characters", "documents_with_any_leaked_character",
                                          "negative_documents_with_predictions")),
]


@pytest.mark.parametrize("name,value", IDENTITY_BREAKS, ids=[f"{n}={v}" for n, v in IDENTITY_BREAKS])
def test_combined_count_outside_its_identity_is_reported_there(name: str, value: int) -> None:
    artifacts = real_artifacts()
    slice_of(artifacts, 0)[name] = value
    assert identity_findings(only_quality(artifacts)) == {f"/quality/slices/0/{name}"}


@pytest.mark.parametrize("name,value", [("documents_with_sensitive_gold", 61), ("documents_with_sensitive_gold", 93),
                                        ("documents_with_any_miss", 59), ("covered_sensitive_characters", 3500),
                                        ("leaked_sensitive_characters", 0)])
def test_union_bounds_are_inclusive_and_one_sided_where_they_should_be(name: str, value: int) -> None:
    """The bounds are as wide as unions allow: the larger class value, the class sum, and no upper bound on covered
    characters (a person prediction may cover a contact's gold) nor a lower one on leaked characters."""
    artifacts = real_artifacts()
    slice_of(artifacts, 0)[name] = value
    assert identity_findings(only_quality(artifacts)) == set()


def test_open_world_sums_wait_for_eligible_slices() -> None:
    """A partial person slice keeps hits and misses only, so the false-positive and character identities do not
    apply; the span sums that hold on any slice still do."""
    artifacts = real_artifacts()
    person = slice_of(artifacts, 2)
    person["annotation_completeness"] = "partial"
    slice_of(artifacts, 0)["false_positive"] = 0
    slice_of(artifacts, 0)["true_positive"] = 141
    assert identity_findings(only_quality(artifacts)) == {"/quality/slices/0/true_positive"}


def test_a_combined_slice_without_an_unambiguous_panel_is_not_bound() -> None:
    artifacts = real_artifacts()
    slice_of(artifacts, 2)["text_view"] = "another_view"
    slice_of(artifacts, 0)["true_positive"] = 1
    from nerb_verify.checks.quality.quality_panel import check_slice_identities

    ctx = only_quality(artifacts)
    assert identity_findings(ctx) == set()
    assert check_slice_identities(ctx, artifacts[EVIDENCE]["quality"]["slices"]) == 0
