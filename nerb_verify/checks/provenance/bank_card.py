"""bank-card.json (``nerb.enron_public_bank_card``): self hash, internal arithmetic and binding to the other artifacts.

The card describes the bank the evidence evaluated. We check:

* ``card_sha256`` is the canonical hash of the card without that key;
* the candidate funnel conserves candidates (decision totals = type totals = reason totals = total_candidates, and
  each type's active + draft + rejected = total); bank stats add up (totals = sum over statuses, literal + regex =
  patterns, active totals = the active status, funnel active = active patterns);
* pattern counts by kind and status against the funnel and the evaluated bank: the types add up to the decision
  counts column by column, draft patterns are the draft candidates, the bank holds active and draft candidates only,
  literal/regex are the retained literal candidates and fallbacks, and the active candidates of each class and kind
  are the evaluated bank's (performance section taxonomy); the active person-alias candidates are the evaluated
  bank's active aliases (:mod:`nerb_verify.checks.provenance.alias_count`);
* the iteration log: exactly one selected iteration and it is the one kept, parents link to earlier iterations, the
  count and selected id agree with the builder, the selected iteration is the published bank, and each iteration's
  contact TP + FN = labeled spans with recall exactly TP / spans;
* development validation: TP + FN = gold spans, cataloged TP + FN + wrong = cataloged spans, and catalog coverage,
  cataloged recall and labeled-span recall are the exact doubles of their fractions (other rates there have no
  counts behind them and are only schema-checked);
* bindings: benchmark version (manifest), bank identity (``id`` to evidence and manifest, hashes and sizes to the
  evidence), active counts (evidence), source identity (evidence source, split manifest, split roles of the manifest),
  ``dataset_split`` and builder hashes to the capacity report's build commitments, catalog conformance (evidence,
  deep equality, int/float kept apart);
* the privacy block is a schema constant (``schema.const``), so it is not re-checked here;
* ``bank.version`` has no counterpart anywhere in the bundle, so it is held to a conservative version-token shape.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from nerb_verify import context as C
from nerb_verify.checks.provenance import alias_count
from nerb_verify.checks.raw._access import as_dict, as_int, check_self_hash, dig, same
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext
from nerb_verify.findings import Label
from nerb_verify.pointers import join, safe_pointer

A = C.BANK_CARD

MALFORMED = register(
    "card.malformed", "Bank card lacks a required part or has the wrong type there.",
    "The card checks need bank, source, builder, candidate_funnel, iterations and catalog_conformance in the "
    "published shapes; the schema family reports the detail.")
HASH = register(
    "card.hash_mismatch", "card_sha256 is not the canonical hash of the card.",
    "card_sha256 must be the canonical (Python-style) SHA-256 of the card without that key.")
FUNNEL = register(
    "card.funnel_not_conserved", "The candidate funnel does not add up.",
    "Candidates by decision, by type and by primary reason must each sum to total_candidates; each type's active, "
    "draft and rejected counts must sum to its total; the active decision count must equal the active patterns.")
STATS = register(
    "card.stats_not_conserved", "The bank statistics do not add up.",
    "bank.stats.totals must be the sum over the four statuses, active_totals must equal by_status.active, and "
    "literal + regex patterns must equal the pattern total.")
ITERATIONS = register(
    "card.iterations_invalid", "The iteration log does not identify the published bank.",
    "Exactly one iteration is selected and it is the one kept; ids are unique and each parent is an earlier "
    "iteration (none for the first); builder.iteration_count is the number of iterations; the selected id is "
    "builder.selected_iteration_id; the selected iteration's bank hash, active patterns and canonical JSON size are "
    "the card's bank; each "
    "iteration's contact true positives + false negatives = labeled spans and its recall is exactly TP / spans.")
VALIDATION = register(
    "card.validation_inconsistent", "The card's development-validation counts or rates do not agree.",
    "For contact and person: true positives + false negatives = gold spans; cataloged true positives + cataloged "
    "false negatives + cataloged wrong canonical = cataloged gold spans; catalog_coverage, cataloged_recall and "
    "labeled_span_recall are exactly the correctly rounded doubles of cataloged/gold, cataloged TP/cataloged and "
    "TP/gold (null exactly when the denominator is 0). The label strength is independent or structured_weak "
    "(natural text); open-world and utility "
    "support only with independent labels, and without open-world support the four open-world rates are null; a "
    "class not evaluated has no documents or gold, an evaluated one has documents, and no class has more documents "
    "than the card's validation split (`source.validation_records`); documents with gold fit the "
    "documents and gold spans; independent development labels need an independent validation-role label artifact in "
    "the manifest. The reason codes state what the figures show: the person reason code is "
    "`zero_labeled_person_spans` exactly when person has no gold spans, and the unsupported-metrics reason is "
    "`independent_exhaustive_validation_labels_unavailable` whenever the labels are not independent and never "
    "when open-world metrics are supported. The selected iteration carries the validation's quality run, protocol, flags and "
    "contact counts, and person counts exactly when person was evaluated.")
PATTERN_COUNTS = register(
    "card.pattern_counts", "The card's pattern counts by kind or status disagree with the funnel or the evaluated bank.",
    "Every bank pattern is a retained candidate: the funnel's types add up to its decision counts column by column; "
    "draft patterns are the draft candidates and the bank holds active and draft patterns only; literal patterns "
    "are the retained contact, person-alias and domain candidates and regex patterns the retained email and phone "
    "fallbacks; and the active candidates of each class and kind are the evaluated bank's literal and regex "
    "patterns of that class (the performance section's evaluated-bank taxonomy). Fix: publish the card of the "
    "evaluated bank.")
BANK = register(
    "card.bank_mismatch", "The card's bank is not the bank the evidence evaluated.",
    "bank.id must equal the evidence's and the manifest's bank id; canonical and artifact hashes, canonical size "
    "and active counts must equal the evidence's bank.")
BANK_VERSION = register(
    "card.bank_version_format", "bank.version is not a plain version token.",
    "Nothing else in the bundle records the bank version, so it cannot be bound; it must at least be a short "
    "version token (letters, digits, dot, dash, underscore, plus; 1-64 characters, starting with a letter or digit).")
SOURCE = register(
    "card.source_mismatch", "The card's source description disagrees with the manifest, evidence or capacity report.",
    "Dataset id and revision must equal the evidence's source; dataset_split and the development, preparation and "
    "split-policy hashes must equal the capacity report's build commitments; the full split manifest, train and "
    "validation artifacts, groups and records must equal the manifest's split roles.")
BUILDER = register(
    "card.builder_mismatch", "The card's builder description disagrees with the capacity report.",
    "Builder policy, candidate source and candidate ledger hashes, training records and the candidate count must "
    "equal the capacity report's build commitments.")
CONFORMANCE = register(
    "card.conformance_mismatch", "The card's catalog conformance differs from the evidence.",
    "catalog_conformance on the card must be exactly the evidence's catalog_conformance.")
VERSION = register(
    "card.benchmark_version_mismatch", "The card's benchmark version differs from the manifest's.",
    "benchmark_version names the benchmark the bank was built for and must equal the manifest's.")

VERSION_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
FIELDS = ("entities", "names", "patterns")
DECISIONS = ("active", "draft", "rejected")
# Candidate type -> (kind of pattern it becomes, bank entity class): the builder's fixed vocabulary (spec 50 section
# 5.3; the card schema fixes the five types). Fallbacks are regexes, the other candidates literals.
CANDIDATE_TYPES: dict[str, tuple[str, str]] = {
    "contact": ("literal", "contact"), "contact_fallback": ("regex", "contact"),
    "person_alias": ("literal", "person"), "organization_domain": ("literal", "organization_domain"),
    "phone_fallback": ("regex", "phone_number"),
}
STATUSES = ("active", "deprecated", "draft", "inactive")


def _count_sum(mapping: Any) -> int | None:
    """Sum of a mapping of counts, None if it is not a mapping of JSON integers."""
    if not isinstance(mapping, dict):
        return None
    values = [as_int(v) for v in mapping.values()]
    if any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None)


def run(ctx: VerifyContext) -> None:
    """Check the bank card (see module docstring)."""
    col = ctx.collector
    card = ctx.artifact(A)
    if not isinstance(card, dict):
        col.ran("card", "not_evaluated", reason=Label("bank-card.json missing or invalid"))
        return
    check_self_hash(ctx, A, card, "card_sha256", HASH)
    _funnel(ctx, card)
    _stats(ctx, card)
    _pattern_counts(ctx, card)
    alias_count.run(ctx)
    _iterations(ctx, card)
    _validation(ctx, card)
    _validation_semantics(ctx, card)
    version = dig(card, "bank", "version")
    if not isinstance(version, str) or not VERSION_TOKEN.fullmatch(version):
        col.add(BANK_VERSION, A, "/bank/version")
    evaluated = _bind_manifest_evidence(ctx, card)
    evaluated_capacity = _bind_capacity(ctx, card)
    col.ran("card", bindings=Label("evaluated") if evaluated else Label("not_evaluated"),
            capacity_bindings=Label("evaluated") if evaluated_capacity else Label("not_evaluated"))


def _funnel(ctx: VerifyContext, card: dict[str, Any]) -> None:
    col = ctx.collector
    funnel = as_dict(card.get("candidate_funnel"))
    if funnel is None:
        col.add(MALFORMED, A, "/candidate_funnel")
        return
    total = as_int(funnel.get("total_candidates"))
    by_type = as_dict(funnel.get("by_type"))
    sums = {
        "by_decision": _count_sum(funnel.get("by_decision")),
        "by_primary_reason": _count_sum(funnel.get("by_primary_reason")),
        "by_type": None,
    }
    if by_type is not None:
        totals = [as_int(dig(v, "total")) for v in by_type.values()]
        sums["by_type"] = None if any(t is None for t in totals) else sum(t for t in totals if t is not None)
        for name, entry in by_type.items():
            parts = [as_int(dig(entry, k)) for k in ("active", "draft", "rejected")]
            entry_total = as_int(dig(entry, "total"))
            if entry_total is None or any(p is None for p in parts) or sum(p for p in parts if p) != entry_total:
                col.add(FUNNEL, A, safe_pointer(card, ["candidate_funnel", "by_type", name]),
                        "A candidate type's active, draft and rejected counts do not add up to its total.")
    for name, value in sums.items():
        ok = total is not None and value == total
        col.record(A, join(["candidate_funnel", name]), "candidate_funnel_" + name, value, total, ok,
                   evaluated=total is not None)
        if not ok:
            col.add(FUNNEL, A, join(["candidate_funnel", name]), "The {part} counts do not sum to total_candidates.",
                    part=Label(name))
    active = as_int(dig(funnel, "by_decision", "active"))
    if active is None or active != as_int(dig(card, "bank", "stats", "active_totals", "patterns")):
        col.add(FUNNEL, A, "/candidate_funnel/by_decision/active",
                "Active candidates do not equal the bank's active patterns.")


def _stats(ctx: VerifyContext, card: dict[str, Any]) -> None:
    col = ctx.collector
    stats = as_dict(dig(card, "bank", "stats"))
    if stats is None:
        col.add(MALFORMED, A, "/bank/stats")
        return
    for field in FIELDS:
        parts = [as_int(dig(stats, "by_status", s, field)) for s in STATUSES]
        total = as_int(dig(stats, "totals", field))
        if total is None or any(p is None for p in parts) or sum(p for p in parts if p) != total:
            col.add(STATS, A, join(["bank", "stats", "totals", field]), "totals.{field} is not the sum over statuses.",
                    field=Label(field))
    if not same(stats.get("active_totals"), dig(stats, "by_status", "active")):
        col.add(STATS, A, "/bank/stats/active_totals", "active_totals differs from by_status.active.")
    literal, regex = as_int(dig(stats, "by_kind", "literal")), as_int(dig(stats, "by_kind", "regex"))
    if literal is None or regex is None or literal + regex != as_int(dig(stats, "totals", "patterns")):
        col.add(STATS, A, "/bank/stats/by_kind", "Literal plus regex patterns do not equal the pattern total.")


def _evaluated_taxonomy(ctx: VerifyContext) -> dict[str, dict[str, int]] | None:
    """Active literal and regex patterns per class of the evaluated bank, from the performance section (which the
    performance family binds to the evidence's bank); None when it is not stated unambiguously."""
    banks = dig(ctx.evidence, "performance", "banks")
    evaluated = [b for b in banks if isinstance(b, dict) and b.get("kind") == "evaluated_bank"] \
        if isinstance(banks, list) else []
    rows = dig(evaluated[0], "composition", "taxonomy") if len(evaluated) == 1 else None
    if not isinstance(rows, list):
        return None
    found: dict[str, dict[str, int]] = {}
    for row in rows:
        literal, regex = as_int(dig(row, "literal_patterns")), as_int(dig(row, "regex_patterns"))
        entity_class = dig(row, "entity_class")
        if literal is None or regex is None or not isinstance(entity_class, str) or entity_class in found:
            return None
        found[entity_class] = {"literal": literal, "regex": regex}
    return found


def _pattern_counts(ctx: VerifyContext, card: dict[str, Any]) -> None:
    """Pattern counts by kind and status against the candidate funnel and the evaluated bank (see PATTERN_COUNTS)."""
    col = ctx.collector
    by_type = as_dict(dig(card, "candidate_funnel", "by_type"))
    if by_type is None or set(by_type) != set(CANDIDATE_TYPES):
        return  # the schema fixes the five types; the funnel rules report the rest
    cells = {(t, d): as_int(dig(by_type, t, d)) for t in CANDIDATE_TYPES for d in DECISIONS}
    if any(v is None for v in cells.values()):
        return  # reported by _funnel
    count = {key: value for key, value in cells.items() if value is not None}
    by_decision = dig(card, "candidate_funnel", "by_decision")
    conserved = _count_sum(by_decision) == sum(count.values())  # otherwise card.funnel_not_conserved says so
    for decision in DECISIONS if conserved else ():
        if sum(count[(t, decision)] for t in CANDIDATE_TYPES) != as_int(dig(card, "candidate_funnel", "by_decision",
                                                                                decision)):
            col.add(PATTERN_COUNTS, A, join(["candidate_funnel", "by_decision", decision]),
                    "The candidate types' {decision} counts do not add up to by_decision.{decision}.",
                    decision=Label(decision))
    retained = {t: count[(t, "active")] + count[(t, "draft")] for t in CANDIDATE_TYPES}
    draft = sum(count[(t, "draft")] for t in CANDIDATE_TYPES)
    if as_int(dig(card, "bank", "stats", "by_status", "draft", "patterns")) != draft:
        col.add(PATTERN_COUNTS, A, "/bank/stats/by_status/draft/patterns",
                "Draft patterns are not the draft candidates.")
    if as_int(dig(card, "bank", "stats", "totals", "patterns")) != sum(retained.values()):
        col.add(PATTERN_COUNTS, A, "/bank/stats/totals/patterns",
                "The bank's patterns are not its active and draft candidates.")
    for kind in ("literal", "regex"):
        expected = sum(n for t, n in retained.items() if CANDIDATE_TYPES[t][0] == kind)
        if as_int(dig(card, "bank", "stats", "by_kind", kind)) != expected:
            col.add(PATTERN_COUNTS, A, join(["bank", "stats", "by_kind", kind]),
                    "by_kind.{kind} is not the retained {kind} candidates.", kind=Label(kind))
    taxonomy = _evaluated_taxonomy(ctx)
    if taxonomy is None:
        return
    classes = set(taxonomy) | {entity_class for _kind, entity_class in CANDIDATE_TYPES.values()}
    for entity_class in sorted(classes):
        for kind in ("literal", "regex"):
            types = [t for t, (k, c) in CANDIDATE_TYPES.items() if k == kind and c == entity_class]
            active = sum(count[(t, "active")] for t in types)
            if active != taxonomy.get(entity_class, {}).get(kind, 0):
                # type names are the fixed vocabulary checked above; a class only the bank has is not printed
                where = ["candidate_funnel", "by_type", types[0], "active"] if len(types) == 1 else \
                    ["candidate_funnel", "by_type"]
                col.add(PATTERN_COUNTS, A, join(where), "Active {kind} candidates of one class are not the "
                        "evaluated bank's {kind} patterns of that class.", kind=Label(kind))


def _iterations(ctx: VerifyContext, card: dict[str, Any]) -> None:
    col = ctx.collector
    iterations = card.get("iterations")
    if not isinstance(iterations, list) or not iterations:
        col.add(MALFORMED, A, "/iterations")
        return
    selected = [i for i, it in enumerate(iterations) if isinstance(it, dict) and it.get("selected") is True]
    if len(selected) != 1:
        col.add(ITERATIONS, A, "/iterations", "{n} iterations are selected; exactly one must be.", n=len(selected))
    if as_int(dig(card, "builder", "iteration_count")) != len(iterations):
        col.add(ITERATIONS, A, "/builder/iteration_count", "iteration_count is not the number of iterations.")
    seen: list[Any] = []
    for index, item in enumerate(iterations):
        if not isinstance(item, dict):
            continue
        base = ["iterations", index]
        parent = item.get("parent_id")
        if item.get("id") in seen or (parent is not None if index == 0 else parent not in seen):
            col.add(ITERATIONS, A, join(base + ["parent_id"]), "Iteration {n} is not linked to an earlier one.",
                    n=index + 1)
        seen.append(item.get("id"))
        # keep exactly when selected (the schema's closed set is keep/discard): the decision is derived.
        kept = (item.get("selected") is True) == (item.get("decision") == "keep")
        col.record(A, join(base + ["decision"]), "card.iteration_decision",
                   item.get("decision") if isinstance(item.get("decision"), str) else None,
                   "keep" if item.get("selected") is True else "discard", kept)
        if not kept:
            col.add(ITERATIONS, A, join(base + ["decision"]), "Only the selected iteration may be kept.")
        tp, fn, spans = (as_int(item.get(k)) for k in ("contact_labeled_true_positive",
                                                         "contact_labeled_false_negative", "contact_labeled_spans"))
        if tp is None or fn is None or spans is None or tp + fn != spans:
            col.add(ITERATIONS, A, join(base + ["contact_labeled_spans"]),
                    "Iteration {n}: true positives and false negatives do not add up to the labeled spans.",
                    n=index + 1)
        elif not _exact_rate(item.get("contact_labeled_recall"), tp, spans):
            col.add(ITERATIONS, A, join(base + ["contact_labeled_recall"]),
                    "Iteration {n}: the recall is not exactly TP / spans.", n=index + 1)
    if len(selected) != 1:
        return
    index = selected[0]
    chosen = iterations[index]
    checks = [
        ("id", dig(card, "builder", "selected_iteration_id"), "/builder/selected_iteration_id"),
        ("bank_sha256", dig(card, "bank", "canonical_sha256"), "/bank/canonical_sha256"),
        ("active_patterns", dig(card, "bank", "stats", "active_totals", "patterns"),
         "/bank/stats/active_totals/patterns"),
        ("canonical_json_bytes", dig(card, "bank", "canonical_json_bytes"), "/bank/canonical_json_bytes"),
    ]
    for key, expected, _where in checks:
        ok = expected is not None and same(chosen.get(key), expected)
        record_copy(ctx, join(["iterations", index, key]), key, chosen.get(key), expected, ok)
        if not ok:
            col.add(ITERATIONS, A, join(["iterations", index, key]),
                    "The selected iteration's {field} does not match the card.", field=Label(key))


def record_copy(ctx: VerifyContext, pointer: str, key: str, mine: Any, theirs: Any, ok: bool) -> None:
    """Record a selected-iteration leaf beside the card leaf it copies (figure ``card.selected_iteration.<key>``).

    The selected iteration is the validated bank, so its copies are derived leaves, not history: recording them
    tells the derivation model so, and gives a forward re-derivation the value to write. A flag is recorded as 0
    or 1; a counterpart that is absent (person not evaluated) is recorded as not evaluated."""
    shown = int(theirs) if isinstance(theirs, bool) else theirs if isinstance(theirs, (str, int)) else None
    published = mine if isinstance(mine, (str, int, bool)) else None
    ctx.collector.record(A, pointer, "card.selected_iteration." + key, published, shown, ok,
                         evaluated=shown is not None)


def _exact_rate(stored: Any, numerator: int, denominator: int) -> bool:
    """The stored rate is the correctly rounded double of numerator/denominator (null when the denominator is 0)."""
    if denominator == 0:
        return stored is None
    if isinstance(stored, bool) or not isinstance(stored, (int, float)):
        return False
    return float(stored) == float(Fraction(numerator, denominator))


def _validation(ctx: VerifyContext, card: dict[str, Any]) -> None:
    col = ctx.collector
    for cls in ("contact", "person"):
        block = as_dict(dig(card, "development_validation", cls))
        if block is None:
            col.add(MALFORMED, A, join(["development_validation", cls]))
            continue
        values = {k: as_int(block.get(k)) for k in (
            "true_positive", "false_negative", "gold_spans", "cataloged_true_positive", "cataloged_false_negative",
            "cataloged_wrong_canonical", "cataloged_gold_spans")}
        if any(v is None for v in values.values()):
            col.add(MALFORMED, A, join(["development_validation", cls]))
            continue
        v = {k: x for k, x in values.items() if x is not None}
        sums = [("gold_spans", v["true_positive"] + v["false_negative"], v["gold_spans"]),
                ("cataloged_gold_spans", v["cataloged_true_positive"] + v["cataloged_false_negative"]
                 + v["cataloged_wrong_canonical"], v["cataloged_gold_spans"])]
        for key, total, stored in sums:
            if total != stored:
                col.add(VALIDATION, A, join(["development_validation", cls, key]))
        rates = [("catalog_coverage", v["cataloged_gold_spans"], v["gold_spans"]),
                 ("cataloged_recall", v["cataloged_true_positive"], v["cataloged_gold_spans"]),
                 ("labeled_span_recall", v["true_positive"], v["gold_spans"])]
        for key, numerator, denominator in rates:
            ok = _exact_rate(block.get(key), numerator, denominator)
            exact = Fraction(numerator, denominator) if denominator else None
            col.record(A, join(["development_validation", cls, key]), "card." + key, block.get(key), exact, ok,
                       evaluated=exact is not None)
            if not ok:
                col.add(VALIDATION, A, join(["development_validation", cls, key]))


NATURAL_LABEL_STRENGTHS = ("independent", "structured_weak")
# Reason codes whose truth is a reading of the figures (spec 50 "Validation view"; charter: open-world metrics need
# independent, exhaustive labels).
ZERO_PERSON_SPANS = "zero_labeled_person_spans"
NO_INDEPENDENT_LABELS = "independent_exhaustive_validation_labels_unavailable"


def _has_independent_validation_labels(ctx: VerifyContext) -> bool:
    """The manifest declares an independent label artifact whose roles include validation."""
    labels = dig(ctx.manifest, "labels")
    return any(isinstance(label, dict) and label.get("label_strength") == "independent"
               and "validation" in (label.get("roles") or []) for label in (labels if isinstance(labels, list) else []))
OPEN_WORLD_FIELDS = ("precision", "open_world_recall", "over_redaction_rate", "negative_document_false_alarm_rate")
# Selected-iteration field -> (development-validation class, field): the selected iteration is the validated bank.
SELECTED_MATCHES = (("contact_labeled_spans", "contact", "gold_spans"),
                    ("contact_labeled_true_positive", "contact", "true_positive"),
                    ("contact_labeled_false_negative", "contact", "false_negative"),
                    ("contact_cataloged_false_negative", "contact", "cataloged_false_negative"),
                    ("contact_cataloged_wrong_canonical", "contact", "cataloged_wrong_canonical"))


def _reason_codes(ctx: VerifyContext, validation: dict[str, Any], strength: Any, open_world: bool) -> None:
    """The development validation's reason codes are statements about its figures; each must be true."""
    where = ["development_validation"]
    person = as_dict(validation.get("person")) or {}
    gold = as_int(person.get("gold_spans"))
    if gold is not None and (person.get("reason_code") == ZERO_PERSON_SPANS) != (gold == 0):
        ctx.collector.add(VALIDATION, A, join(where + ["person", "reason_code"]),
                          "The person reason code does not say what its gold spans show.")
    reason = validation.get("unsupported_reason_code")
    if (strength != "independent" and reason != NO_INDEPENDENT_LABELS) or (open_world and
                                                                           reason == NO_INDEPENDENT_LABELS):
        ctx.collector.add(VALIDATION, A, join(where + ["unsupported_reason_code"]),
                          "The unsupported-metrics reason does not say what the label strength shows.")


def _validation_semantics(ctx: VerifyContext, card: dict[str, Any]) -> None:
    """What the development validation may claim for its label strength, and its binding to the selected iteration.

    Open-world metrics need independent, exhaustive labels, so ``open_world_metrics_supported`` and
    ``utility_metrics_supported`` may be true only for ``independent`` labels, and when they are false the four
    open-world rates are null. A class that was not evaluated has no documents and no gold; an evaluated one has
    documents, at most the validation split's records (``source.validation_records``, itself bound to the manifest);
    documents with gold are bounded by documents and by gold spans. The selected iteration is the bank
    that was validated: same quality run, same protocol, same contact counts and flags, and person counts present
    exactly when person was evaluated.
    """
    col = ctx.collector
    validation = as_dict(card.get("development_validation"))
    if validation is None:
        return
    where = ["development_validation"]
    strength = validation.get("label_strength")
    if strength not in NATURAL_LABEL_STRENGTHS:
        col.add(VALIDATION, A, join(where + ["label_strength"]), "Development validation on natural text is labelled "
                "independent or structured_weak.")
    elif strength == "independent" and not _has_independent_validation_labels(ctx):
        col.add(VALIDATION, A, join(where + ["label_strength"]), "Independent development labels need an independent "
                "manifest label artifact for the validation role.")
    for flag in ("open_world_metrics_supported", "utility_metrics_supported"):
        if validation.get(flag) is True and strength != "independent":
            col.add(VALIDATION, A, join(where + [flag]), "Only independent labels support {flag}.",
                    flag=Label(flag))
    open_world = validation.get("open_world_metrics_supported") is True
    validation_records = as_int(dig(card, "source", "validation_records"))
    for cls in ("contact", "person"):
        block = as_dict(validation.get(cls)) or {}
        if not open_world:
            for field in OPEN_WORLD_FIELDS:
                if block.get(field) is not None:
                    col.add(VALIDATION, A, join(where + [cls, field]), "An open-world rate without support for "
                            "open-world metrics.")
        documents, with_gold, gold = (as_int(block.get(k)) for k in ("documents", "documents_with_sensitive_gold",
                                                                        "gold_spans"))
        if documents is None or with_gold is None or gold is None:
            continue
        if with_gold > documents or with_gold > gold or (gold > 0 and with_gold == 0):
            col.add(VALIDATION, A, join(where + [cls, "documents_with_sensitive_gold"]),
                    "Documents with gold do not fit the documents and gold spans.")
        if validation_records is not None and documents > validation_records:
            col.add(VALIDATION, A, join(where + [cls, "documents"]), "Development validation evaluated more "
                    "documents than the validation split holds.")
        if "evaluated" in block:
            evaluated = block.get("evaluated")
            if evaluated is False and (documents != 0 or gold != 0):
                col.add(VALIDATION, A, join(where + [cls, "evaluated"]), "A class that was not evaluated has "
                        "documents or gold.")
            if evaluated is True and documents == 0:
                col.add(VALIDATION, A, join(where + [cls, "evaluated"]), "An evaluated class has no documents.")
    _reason_codes(ctx, validation, strength, open_world)
    iterations = card.get("iterations") if isinstance(card.get("iterations"), list) else []
    chosen = [(i, it) for i, it in enumerate(iterations) if isinstance(it, dict) and it.get("selected") is True]
    if len(chosen) != 1:
        return  # reported by _iterations
    index, selected = chosen[0]
    pairs: list[tuple[str, Any, Any]] = [
        ("quality_run_sha256", selected.get("quality_run_sha256"), validation.get("quality_run_sha256")),
        ("validation_protocol_sha256", selected.get("validation_protocol_sha256"), validation.get("protocol_sha256")),
        ("open_world_metrics_supported", selected.get("open_world_metrics_supported"), open_world),
        ("utility_metrics_supported", selected.get("utility_metrics_supported"),
         validation.get("utility_metrics_supported")),
    ]
    for key, cls, field in SELECTED_MATCHES:
        pairs.append((key, selected.get(key), dig(validation, cls, field)))
    person = as_dict(validation.get("person")) or {}
    person_evaluated = person.get("evaluated") is not False
    for key, field in (("person_labeled_spans", "gold_spans"),
                       ("person_cataloged_false_negative", "cataloged_false_negative"),
                       ("person_cataloged_wrong_canonical", "cataloged_wrong_canonical")):
        pairs.append((key, selected.get(key), person.get(field) if person_evaluated else None))
    for key, mine, theirs in pairs:
        record_copy(ctx, join(["iterations", index, key]), key, mine, theirs, same(mine, theirs))
        if not same(mine, theirs):
            col.add(VALIDATION, A, join(["iterations", index, key]), "The selected iteration's {field} is not the "
                    "development validation's.", field=Label(key))


def _bind(ctx: VerifyContext, code: str, pointer: str, mine: Any, theirs: Any, figure: str) -> None:
    ok = theirs is not None and same(mine, theirs)
    shown = theirs if isinstance(theirs, (str, int)) and not isinstance(theirs, bool) else None
    ctx.collector.record(A, pointer, figure, mine if isinstance(mine, (str, int)) else None, shown, ok)
    if not ok:
        ctx.collector.add(code, A, pointer, "{field} does not match its counterpart.", field=Label(figure))


def _bind_manifest_evidence(ctx: VerifyContext, card: dict[str, Any]) -> bool:
    manifest, evidence = ctx.manifest, ctx.evidence
    if not isinstance(manifest, dict) or not isinstance(evidence, dict):
        return False
    g = dig
    _bind(ctx, VERSION, "/benchmark_version", card.get("benchmark_version"), manifest.get("benchmark_version"),
          "benchmark_version")
    if not same(card.get("catalog_conformance"), evidence.get("catalog_conformance")):
        ctx.collector.add(CONFORMANCE, A, "/catalog_conformance")
    bank_pairs = [
        ("/bank/id", g(card, "bank", "id"), g(evidence, "bank", "id"), "bank.id"),
        ("/bank/id", g(card, "bank", "id"), g(manifest, "bank", "id"), "bank.id (manifest)"),
        ("/bank/canonical_sha256", g(card, "bank", "canonical_sha256"), g(evidence, "bank", "canonical_hash"),
         "bank.canonical_sha256"),
        ("/bank/artifact_sha256", g(card, "bank", "artifact_sha256"), g(evidence, "bank", "artifact_sha256"),
         "bank.artifact_sha256"),
        ("/bank/canonical_json_bytes", g(card, "bank", "canonical_json_bytes"),
         g(evidence, "bank", "canonical_json_bytes"), "bank.canonical_json_bytes"),
        ("/bank/stats/active_totals/patterns", g(card, "bank", "stats", "active_totals", "patterns"),
         g(evidence, "bank", "active_patterns"), "bank.active_patterns"),
        ("/bank/stats/active_totals/names", g(card, "bank", "stats", "active_totals", "names"),
         g(evidence, "bank", "active_names"), "bank.active_names"),
        ("/bank/stats/active_totals/entities", g(card, "bank", "stats", "active_totals", "entities"),
         g(evidence, "bank", "active_entities"), "bank.active_entities"),
    ]
    for pointer, mine, theirs, name in bank_pairs:
        _bind(ctx, BANK, pointer, mine, theirs, name)
    roles = g(manifest, "splits", "roles")
    source_pairs = [
        ("/source/dataset_id", g(card, "source", "dataset_id"), g(evidence, "source", "id"), "source.dataset_id"),
        ("/source/dataset_revision", g(card, "source", "dataset_revision"), g(evidence, "source", "revision"),
         "source.dataset_revision"),
        ("/source/full_split_manifest_sha256", g(card, "source", "full_split_manifest_sha256"),
         g(evidence, "splits", "manifest_sha256"), "source.full_split_manifest_sha256"),
        ("/source/split_policy_sha256", g(card, "source", "split_policy_sha256"), g(evidence, "splits", "policy_sha256"),
         "source.split_policy_sha256"),
        ("/source/train_artifact_sha256", g(card, "source", "train_artifact_sha256"),
         g(roles, "train", "artifact", "sha256"), "source.train_artifact_sha256"),
        ("/source/validation_artifact_sha256", g(card, "source", "validation_artifact_sha256"),
         g(roles, "validation", "artifact", "sha256"), "source.validation_artifact_sha256"),
        ("/source/train_records", g(card, "source", "train_records"), g(roles, "train", "records"),
         "source.train_records"),
        ("/source/train_groups", g(card, "source", "train_groups"), g(roles, "train", "groups"), "source.train_groups"),
        ("/source/validation_records", g(card, "source", "validation_records"), g(roles, "validation", "records"),
         "source.validation_records"),
        ("/source/validation_groups", g(card, "source", "validation_groups"), g(roles, "validation", "groups"),
         "source.validation_groups"),
        ("/builder/train_records", g(card, "builder", "train_records"), g(roles, "train", "records"),
         "builder.train_records"),
    ]
    for pointer, mine, theirs, name in source_pairs:
        _bind(ctx, SOURCE, pointer, mine, theirs, name)
    return True


def _build_commitments(ctx: VerifyContext) -> dict[str, Any] | None:
    capacity = ctx.artifact(C.CAPACITY_DECISION)
    phases = dig(capacity, "report", "phases")
    if not isinstance(phases, list):
        return None
    for phase in phases:
        if isinstance(phase, dict) and phase.get("phase") == "build":
            return as_dict(phase.get("commitments"))
    return None


def _bind_capacity(ctx: VerifyContext, card: dict[str, Any]) -> bool:
    build = _build_commitments(ctx)
    if build is None:
        return False
    g = dig
    pairs = [
        (SOURCE, "/source/dataset_split", g(card, "source", "dataset_split"), build.get("dataset_split"),
         "source.dataset_split"),
        (SOURCE, "/source/development_manifest_sha256", g(card, "source", "development_manifest_sha256"),
         build.get("development_manifest_sha256"), "source.development_manifest_sha256"),
        (SOURCE, "/source/preparation_manifest_sha256", g(card, "source", "preparation_manifest_sha256"),
         build.get("preparation_manifest_sha256"), "source.preparation_manifest_sha256"),
        (BUILDER, "/builder/policy_sha256", g(card, "builder", "policy_sha256"), build.get("builder_policy_sha256"),
         "builder.policy_sha256"),
        (BUILDER, "/builder/candidate_source_sha256", g(card, "builder", "candidate_source_sha256"),
         build.get("candidate_source_sha256"), "builder.candidate_source_sha256"),
        (BUILDER, "/builder/candidate_ledger_sha256", g(card, "builder", "candidate_ledger_sha256"),
         build.get("candidate_ledger_sha256"), "builder.candidate_ledger_sha256"),
        (BUILDER, "/candidate_funnel/total_candidates", g(card, "candidate_funnel", "total_candidates"),
         build.get("candidate_count"), "candidate_funnel.total_candidates"),
    ]
    for code, pointer, mine, theirs, name in pairs:
        _bind(ctx, code, pointer, mine, theirs, name)
    return True
