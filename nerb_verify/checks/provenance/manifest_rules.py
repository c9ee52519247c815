"""Manifest family: manifest v2 semantics and the binding of evidence quality slices to the manifest's plan.

Three groups of rules (spec 10 sections 8, 9.2, 9.3 and 9.9; charter "Standalone Privacy-Redaction Application
Gates"):

1. **Manifest semantics**: duplicate ids, exactly one primary text view (without answer-bearing fields), split
   checks (also on the evidence's copy of the splits), bank alias bound, every label-artifact rule, every quality-plan
   rule and the conformance-plan rules.
2. **Slice binding**: evidence slices in plan order, each bound to its plan entry (label, split, class, cohort,
   view, gate flag, sample size) and to its label artifact (strength, scope deep-equal, completeness, role,
   population bounds).
3. **The combined gate panel**, always checked whether or not the bundle is promoted (spec 00 decision 3): exactly one
   ``person_contact`` gate slice over exactly the 100 sampled documents of the 51,704-document frame, on the primary
   view without exclusions, with its support floors (>= 100 gold spans, >= 20 negative documents, >= 500 union gold
   characters, non-zero cataloged gold and evaluated characters), one diagnostic ``contact`` and one ``person`` slice
   beside it, and the combined counts equal to the per-class sums (both classes non-zero).

Only checks that need a schema-valid manifest wait for one; the evidence-only panel rules run regardless.
"""

from __future__ import annotations

from typing import Any

from nerb_verify.checks.provenance import (
    adjudication_identity,
    release_identity,
    scanner_identity,
    source_pin,
    view_identity,
)
from nerb_verify.codes import register
from nerb_verify.context import EVIDENCE, MANIFEST, VerifyContext
from nerb_verify.findings import Label
from nerb_verify.pointers import join

FAMILY = "manifest"
GATE_SAMPLE_DOCUMENTS = 100
GATE_FRAME_DOCUMENTS = 51704
MIN_GATE_GOLD_SPANS = 100
MIN_GATE_NEGATIVE_DOCUMENTS = 20
MIN_GATE_SENSITIVE_CHARACTERS = 500
COMBINED_CLASSES = ["contact", "person"]
NATURAL_STRENGTHS = ("independent", "structured_weak")


def _reg(name: str, title: str, help_text: str, severity: str = "error") -> str:
    return register("manifest." + name, title, help_text, severity)  # type: ignore[arg-type]


DUPLICATE_ID = _reg(
    "duplicate_id", "Two entries of a manifest list share one id.",
    "Ids of commands, labels, text views and quality-plan slices are references; a duplicate makes them ambiguous. "
    "The pointer names the second occurrence. Fix: make ids unique.")
PRIMARY_VIEW = _reg(
    "primary_view", "The manifest does not designate exactly one primary text view.",
    "The charter requires exactly one prepared primary natural-content view for quality (`primary_for_quality`). "
    "Fix: mark exactly one text view as primary.")
ANSWER_BEARING_VIEW = _reg(
    "answer_bearing_primary_view", "The primary quality view includes answer-bearing fields.",
    "A quality run on a view that contains answer-bearing fields (e.g. headers that spell out the entities) measures "
    "nothing. Checked always, not only for promoted bundles. Fix: use a view without answer-bearing fields.")
BANK_ALIAS_BOUNDS = _reg(
    "bank_alias_bounds", "The bank declares more active aliases than active names.",
    "Aliases are names, so `active_aliases` cannot exceed `active_names`. Fix: recount the bank.")
SPLIT_LEAKAGE = _reg(
    "split_leakage", "The split leakage audit reports groups crossing splits.",
    "`leakage_groups_crossing` must be 0: a group (thread) in both train and test leaks test content into tuning. "
    "Fix: re-split by group.")
TEST_NOT_SEALED = _reg(
    "test_not_sealed", "The test split is not sealed.",
    "`test_sealed` must be true: the final test is read once, after freezing. Fix: seal the test split.")
SPLIT_GROUP_BOUNDS = _reg(
    "split_group_bounds", "A split role has more groups than records.",
    "Every group holds at least one record, so groups <= records. Fix: recount the split.")
SPLIT_ARTIFACT_OVERLAP = _reg(
    "split_artifact_overlap", "Two split roles share an artifact id or hash.",
    "Train, validation and test must be three different artifacts (distinct ids and distinct sha256). Fix: bind each "
    "role to its own artifact.")
SPLIT_RECORD_TOTAL = _reg(
    "split_record_total", "Split records do not add up to the prepared records.",
    "train + validation + test records must equal `preparation.output_records` (no record dropped or duplicated). "
    "Fix: recount.")
PREPARATION_BOUNDS = _reg(
    "preparation_record_bounds", "More prepared records than source input records.",
    "Preparation can only drop records: `preparation.output_records <= source.input_records`. Fix: recount.")
LABEL_DUPLICATE_ROLE = _reg(
    "label_duplicate_population_role", "A label artifact lists one role population twice.",
    "Each role has one population per label artifact. Fix: merge the populations.")
LABEL_POPULATION_ROLES = _reg(
    "label_population_roles", "A label's role populations do not match its roles.",
    "The set of population roles must equal `roles`, so every declared role has exact counts. Fix: align them.")
LABEL_POPULATION_SPANS = _reg(
    "label_population_spans", "A label's population spans do not sum to its span count.",
    "`span_count` must equal the sum of the role populations' spans. Fix: recount the spans.")
LABEL_POPULATION_BOUNDS = _reg(
    "label_population_bounds", "A label population has more documents than its split role has records.",
    "A label population on a natural split role cannot exceed that role's records. Fix: recount.")
UNLABELED_STATE = _reg(
    "unlabeled_annotation_state", "An unlabeled artifact declares a completeness or spans.",
    "`unlabeled` requires completeness `not_applicable` and 0 spans. Fix: correct the label artifact.")
EMPTY_LABELED = _reg(
    "empty_labeled_artifact", "A labeled artifact has no spans or completeness `not_applicable`.",
    "Any strength other than `unlabeled` must declare a completeness and hold spans. Fix: correct the label.")
INCOMPLETE_CONFORMANCE_LABELS = _reg(
    "incomplete_conformance_labels", "Synthetic conformance labels are not exhaustive within scope.",
    "Catalog conformance requires exhaustive synthetic labels. Fix: declare `exhaustive_within_scope`.")
CONFORMANCE_LABEL_ROLE = _reg(
    "conformance_label_role", "Synthetic conformance labels are used outside the conformance role.",
    "`synthetic_conformance` labels must have roles exactly [conformance]. Fix: correct the roles.")
NATURAL_LABEL_ROLE = _reg(
    "natural_label_role", "Natural-text labels claim the conformance role.",
    "Only synthetic conformance labels may serve the conformance role. Fix: remove `conformance` from the roles.")
NATURAL_LABEL_CLASSES = _reg(
    "natural_label_entity_population", "Natural labels cover an unsupported class combination.",
    "independent and structured_weak labels cover exactly one class or exactly [contact, person] (in that order). "
    "Fix: split the label artifact by class.")
REVIEW_PROVENANCE = _reg(
    "annotation_review_provenance", "`independently_reviewed` disagrees with the review provenance.",
    "Independent review means a reviewer id, different from the producer id, and an adjudication artifact; the flag "
    "must say exactly that. Fix: correct the flag or the provenance.")
LABEL_ARTIFACT = _reg(
    "label_artifact_inconsistent", "Two labels describe one private artifact differently.",
    "Several labels may be scored against one sealed annotation artifact (and share one adjudication artifact). "
    "The artifact itself is private, so its size and hash cannot be recomputed, but every reference to one "
    "artifact id must state the same sha256 and byte count: two different descriptions of one file mean one of "
    "them is false. Fix: state the artifact's one hash and size in every label that names it.")
ANNOTATION_INDEPENDENCE = _reg(
    "annotation_independence", "Independent or conformance labels lack separate review.",
    "`independent` and `synthetic_conformance` labels need a separate reviewer and an adjudication artifact. Fix: "
    "review the labels independently or declare a weaker strength.")
PLAN_DUPLICATE_DESCRIPTOR = _reg(
    "quality_plan_duplicate_descriptor", "Two quality-plan entries describe the same slice.",
    "(label, split role, class, cohort, view) must be unique across the plan. Fix: drop the duplicate.")
PLAN_UNKNOWN_LABEL = _reg(
    "quality_plan_unknown_label", "A quality-plan entry names a label artifact the manifest does not declare.",
    "Plans bind to declared label artifacts. Fix: declare the label or correct the id.")
PLAN_LABEL_ROLE = _reg(
    "quality_plan_label_role", "A quality-plan entry's split role is not a role of its label artifact.",
    "The plan can only sample a role the labels cover. Fix: align split role and label roles.")
PLAN_ENTITY_CLASS = _reg(
    "quality_plan_entity_class", "A quality-plan entry's class does not match its label scope.",
    "`person_contact` needs scope classes [contact, person]; any other class needs exactly that class. Fix: align.")
PLAN_POPULATION_BOUNDS = _reg(
    "quality_plan_population_bounds", "A quality-plan sample is larger than the label population (or has none).",
    "The label needs a population for the plan's split role, and `sample_documents` cannot exceed it. Fix: recount.")
PLAN_POPULATION_EXACTNESS = _reg(
    "quality_plan_population_exactness", "An `all` cohort does not cover the whole label population.",
    "cohort `all` means every labeled document: `sample_documents` must equal the population's documents.")
PLAN_SAMPLE_FRAME = _reg(
    "quality_plan_sample_frame", "A quality-plan frame does not match its split role or is smaller than the sample.",
    "`frame_documents` must equal the split role's records and be >= `sample_documents`. Fix: bind the real frame.")
SAMPLE_DESIGN_SPLIT = _reg(
    "sample_design_split", "A quality-plan sample draws more distinct groups than its split role holds.",
    "The frozen sample design (`deterministic_stratified_without_replacement`) takes one representative per "
    "leakage group: the charter's 100-document, 100-distinct-group sample. So `sample_documents` distinct groups "
    "must fit in the groups the split manifest records for the plan's split role (`splits.roles.<role>.groups`), "
    "just as the sample fits in the role's records (`manifest.quality_plan_sample_frame`). Fix: record the split's "
    "real group count, or sample no more documents than it has groups.")
PLAN_UNKNOWN_VIEW = _reg(
    "quality_plan_unknown_text_view", "A quality-plan entry names an undeclared text view.",
    "Plans are scored on a declared prepared view. Fix: declare the view or correct the id.")
PLAN_VIEW_REGIONS = _reg(
    "quality_plan_view_regions", "The label's annotated regions are not all in the plan's text view.",
    "Labels cannot be scored on regions the view does not contain. Fix: pick a view that covers the regions.")
PLAN_GATE_SCOPE = _reg(
    "quality_plan_gate_annotation_scope", "The gate plan's label regions differ from the primary view or exclude parts.",
    "The combined gate covers the complete primary view without exclusions: label regions must equal the primary "
    "view's regions and `exclusions` must be empty. Fix: annotate the whole primary view.")
PLAN_INVALID_GATE = _reg(
    "quality_plan_invalid_gate", "The gate plan is not on independent exhaustive test labels, cohort all, primary view.",
    "A promotion gate is only meaningful on independent, exhaustive labels of the sealed test split, cohort `all`, "
    "scored on the primary view. Fix: correct the plan or make it diagnostic.")
PLAN_GATE_POPULATION = _reg(
    "quality_plan_gate_test_population", "The gate plan is not the 100 sampled documents of the 51,704-document frame.",
    "The preregistered design is a 100-document sample from the 51,704-document test frame; label population, "
    "sample size, frame and test records must all agree with it. A synthetic fixture (manifest and evidence both "
    "`synthetic_fixture`) binds its own test role's record count as the frame instead of 51,704; the 100-document "
    "sample still holds. Fix: bind the preregistered sample.")
PLAN_PANEL_GATE = _reg(
    "quality_plan_panel_gate", "The plan does not have exactly one gate entry, the combined person_contact one.",
    "The charter's single combined person-contact application slice is the only gate. Fix: gate only that slice.")
PLAN_PANEL_SAMPLE = _reg(
    "quality_plan_panel_sample_binding", "The plan lacks the contact/person diagnostics on the gate's sample.",
    "Beside the gate there must be exactly one non-gate `contact` and one non-gate `person` entry on the same split, "
    "cohort and view, with identical sample design, sample size and frame. Fix: plan both diagnostics.")
PLAN_LABEL_SET = _reg(
    "quality_plan_label_set", "Natural label artifacts and quality-plan labels differ.",
    "Every independent or structured-weak label artifact is evaluated by some plan entry, and plans use only those. "
    "Fix: plan every natural label (or drop unused ones).")
CONF_PLAN_LABEL = _reg(
    "conformance_plan_label_binding", "The conformance plan is not bound to its synthetic label artifact.",
    "The plan's label must exist, be synthetic_conformance and exhaustive, have the positive-case artifact as its "
    "artifact and a span count equal to the planned positive cases. Fix: bind the plan to the label.")
CONF_PLAN_SUPPORT = _reg(
    "conformance_plan_support", "Fewer planned positive cases than active bank patterns.",
    "Every active pattern needs a positive case, so positive_cases >= bank.active_patterns. Fix: plan more cases.")
CONF_PLAN_OVERLAP = _reg(
    "conformance_plan_artifact_overlap", "Positive and negative conformance artifacts share an id or hash.",
    "Positive and negative case sets are different artifacts. Fix: bind two distinct artifacts.")
SLICE_PLAN_ORDER = _reg(
    "slice_plan_order", "Evidence quality slices are not the quality plan's slices in plan order.",
    "The slice id list must equal the quality-plan id list, in order: a missing, extra or reordered slice is how "
    "an inconvenient result is dropped. Fix: publish exactly the planned slices, in plan order.")
UNKNOWN_PLAN_SLICE = _reg(
    "unknown_plan_slice", "An evidence slice is not in the quality plan.",
    "Every published slice must be preregistered. Fix: remove the slice or preregister it before test access.")
SLICE_PLAN_BINDING = _reg(
    "slice_plan_binding", "An evidence slice does not match its quality-plan entry.",
    "label, split role, class, cohort, view and gate flag must equal the plan, and `documents` the planned "
    "`sample_documents`. Fix: score exactly the planned slice.")
UNKNOWN_SLICE_LABEL = _reg(
    "unknown_slice_label", "An evidence slice names a label artifact the manifest does not declare.",
    "Slices are scored against declared label artifacts. Fix: correct the label id.")
SLICE_LABEL_BINDING = _reg(
    "slice_label_binding", "An evidence slice's label provenance differs from its label artifact.",
    "`label_strength`, `annotation_scope` (deep-equal) and `annotation_completeness` are copied from the manifest "
    "label, so a slice cannot claim stronger labels than it has. Fix: copy them exactly.")
SLICE_LABEL_ROLE = _reg(
    "slice_label_role", "An evidence slice's split role is not a role of its label artifact.",
    "The labels must cover the split the slice was scored on. Fix: correct the split role.")
SLICE_MISSING_POPULATION = _reg(
    "slice_missing_population", "The slice's label artifact has no population for the slice's split role.",
    "Population counts bound the slice; without them the slice is unbound. Fix: declare the population.")
SLICE_POPULATION_BOUNDS = _reg(
    "slice_population_bounds", "A slice has more documents or gold spans than its label population.",
    "documents <= population documents and gold_spans <= population spans. Fix: recount.")
SLICE_POPULATION_EXACTNESS = _reg(
    "slice_population_exactness", "An `all` cohort slice does not cover its whole label population.",
    "For cohort `all`, documents and gold spans must equal the population's. Fix: score every labeled document.")
MISSING_GATE_SLICE = _reg(
    "missing_gate_slice", "Evaluated quality has no promotion-gate slice.",
    "The standalone-redaction decision needs the combined person_contact gate slice; without it nothing can be "
    "decided and the quality gates would pass vacuously. Fix: publish the gate slice.")
GATE_PLAN_SET = _reg(
    "gate_plan_set", "Gate slices in the evidence differ from gate entries in the plan.",
    "The set of gate slice ids must equal the set of gate plan ids. Fix: gate exactly what was preregistered.")
INVALID_GATE_SLICE = _reg(
    "invalid_gate_slice", "The gate slice is not the combined independent exhaustive test slice, cohort all.",
    "The gate slice must be `person_contact` with scope [contact, person], independent, exhaustive_within_scope, on "
    "the test split, cohort `all`. Fix: gate the combined slice.")
GATE_PRIMARY_VIEW = _reg(
    "gate_primary_view", "The gate slice is not scored on the primary text view.",
    "The combined gate covers the complete primary view. Fix: score the gate on the primary view.")
GATE_ANNOTATION_SCOPE = _reg(
    "gate_annotation_scope", "The gate slice's annotated regions differ from the primary view or have exclusions.",
    "The gate covers every region of the primary view without exclusions. Fix: annotate the complete view.")
GATE_SUPPORT_FLOOR = _reg(
    "gate_support_floor", "The gate slice is below a support floor the bundle does not declare.",
    "The combined gate must contain exactly the 100 sampled documents, at least 100 gold spans, at least 20 negative "
    "documents, at least 500 union gold characters, and gold of both classes; these floors are checked always, not "
    "only for promoted bundles. A panel that misses them is an honest outcome when the audit chain says so (score "
    "status insufficient_support naming exactly the failed floors, spec 10 section 9.6): the bundle verifies and the "
    "standalone-redaction decision is not eligible (exit 3 under --require-standalone-redaction-eligible). A panel "
    "below a floor while the chain reports a scored audit states support it does not have: that is this error. "
    "Non-zero cataloged gold and evaluated characters are structural floors NERB's chain has no code for; below "
    "them is always this error. Fix: declare the insufficient support, or sample a panel that meets the floors.")
SUPPORT_DECLARATION = _reg(
    "support_failures_mismatch", "The audit chain's support failures are not the ones the gate panel shows.",
    "An insufficient_support score lists support_failure_codes; recomputed from the gate slice and its per-class "
    "diagnostics (documents other than the 100 sampled, below 100 documents, gold spans, negative documents or "
    "sensitive characters below their floors, a class without gold), the list must be exactly the failures the "
    "panel shows, in canonical order. Naming a failure the panel does not have, or omitting one it has, is a false "
    "statement. Fix: list the panel's real support failures.")
PANEL_GATE = _reg(
    "panel_gate", "There is not exactly one gate slice, the combined person_contact one.",
    "The floors apply once to the combined panel, never per class. Fix: gate only the combined slice.")
PANEL_DIAGNOSTICS = _reg(
    "panel_diagnostics", "The gate slice lacks exactly one contact and one person diagnostic slice beside it.",
    "Per-class diagnostics on the same split, cohort and view must accompany the combined gate. Fix: publish them.")
PANEL_SUPPORT = _reg(
    "panel_support", "Combined and per-class panel counts do not agree.",
    "Combined documents and evaluated characters equal each class's (one set of documents, one text view); "
    "combined gold spans and sensitive characters equal contact + person (the classes are disjoint); combined "
    "predicted characters lie between the larger class's and the two together (a union); combined over-redacted "
    "characters are at most the two together; combined negative documents are at most each class's; both classes "
    "have gold (unless the audit chain declares that class's missing support, manifest.gate_support_floor). Fix: "
    "recompute the panel from one set of documents.")


def run(ctx: VerifyContext) -> None:
    """Check manifest semantics, the slice binding and the gate panel (see module docstring).

    The release-identity rule (:mod:`nerb_verify.checks.provenance.release_identity`) runs first, on the artifacts as loaded,
    because a malformed commit makes the very manifest it would check schema-invalid.
    """
    release_identity.run(ctx)
    manifest = ctx.manifest
    evidence = ctx.evidence
    if not isinstance(manifest, dict) and not isinstance(evidence, dict):
        ctx.collector.ran(FAMILY, "not_evaluated", reason=Label("manifest and evidence missing or invalid"))
        return
    scanner_identity.run(ctx)
    source_pin.run(ctx)
    view_identity.run(ctx)
    if isinstance(manifest, dict):
        check_manifest(ctx, manifest)
        adjudication_identity.run(ctx)
    if isinstance(evidence, dict):
        _check_splits(ctx, EVIDENCE, evidence)
        _check_bank(ctx, EVIDENCE, evidence)
        slices = _slices(evidence)
        if slices is not None:
            if isinstance(manifest, dict):
                check_slice_binding(ctx, manifest, slices)
            check_gate_panel(ctx, manifest if isinstance(manifest, dict) else None, slices)
    if isinstance(manifest, dict):
        ctx.collector.ran(FAMILY)
    else:
        ctx.collector.ran(FAMILY, "not_evaluated", reason=Label("manifest missing or invalid"))


# ------------------------------------------------------------------------------------------------------------ helpers

def _list(obj: Any, key: str) -> list[Any]:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, list) else []


def _dict(obj: Any, key: str) -> dict[str, Any]:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def _int(obj: Any, key: str) -> int | None:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if type(value) is int else None


def _slices(evidence: dict[str, Any]) -> list[Any] | None:
    quality = evidence.get("quality")
    if not isinstance(quality, dict) or quality.get("evaluated") is not True:
        return None
    slices = quality.get("slices")
    return slices if isinstance(slices, list) else None


def _by_id(items: list[Any]) -> dict[Any, dict[str, Any]]:
    """First occurrence of each id (later duplicates are reported separately)."""
    out: dict[Any, dict[str, Any]] = {}
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"] not in out:
            out[item["id"]] = item
    return out


def _population(label: dict[str, Any], role: Any) -> dict[str, Any] | None:
    for population in _list(label, "role_populations"):
        if isinstance(population, dict) and population.get("role") == role:
            return population
    return None


def _primary_views(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    views = _list(_dict(manifest, "preparation"), "text_views")
    return [v for v in views if isinstance(v, dict) and v.get("primary_for_quality") is True]


def _scope_classes(item: dict[str, Any]) -> Any:
    return _dict(item, "annotation_scope").get("entity_classes")


def _expected_classes(entity_class: Any) -> list[Any]:
    return list(COMBINED_CLASSES) if entity_class == "person_contact" else [entity_class]


def _regions_set(value: Any) -> frozenset[Any] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return frozenset(value)


# ---------------------------------------------------------------------------------------------------- manifest rules

def check_manifest(ctx: VerifyContext, manifest: dict[str, Any]) -> None:
    """Manifest v2 semantics: ids, primary view, splits, bank, labels, quality plan, conformance plan."""
    add = ctx.collector.add
    for path in (["commands"], ["labels"], ["preparation", "text_views"], ["quality_plan"]):
        container: Any = manifest
        for key in path:
            container = container.get(key) if isinstance(container, dict) else None
        seen: set[str] = set()
        for index, item in enumerate(container if isinstance(container, list) else []):
            ident = item.get("id") if isinstance(item, dict) else None
            if isinstance(ident, str):
                if ident in seen:
                    add(DUPLICATE_ID, MANIFEST, join([*path, index, "id"]))
                seen.add(ident)
    primaries = _primary_views(manifest)
    if len(primaries) != 1:
        add(PRIMARY_VIEW, MANIFEST, join(["preparation", "text_views"]),
            "{n} text views are primary; exactly one is required.", n=len(primaries))
    views = _list(_dict(manifest, "preparation"), "text_views")
    for index, view in enumerate(views):
        if isinstance(view, dict) and view.get("primary_for_quality") is True \
                and view.get("answer_bearing_fields_included") is not False:
            add(ANSWER_BEARING_VIEW, MANIFEST,
                join(["preparation", "text_views", index, "answer_bearing_fields_included"]))
    _check_splits(ctx, MANIFEST, manifest)
    _check_bank(ctx, MANIFEST, manifest)
    _check_labels(ctx, manifest)
    _check_label_artifacts(ctx, manifest)
    _check_quality_plan(ctx, manifest)
    _check_conformance_plan(ctx, manifest)


def _check_label_artifacts(ctx: VerifyContext, manifest: dict[str, Any]) -> None:
    """Every label reference to one private artifact id (annotations or adjudication) states one hash and size."""
    first: dict[str, tuple[Any, Any]] = {}
    for index, label in enumerate(_list(manifest, "labels")):
        refs = (("artifact",), ("annotation_provenance", "adjudication_artifact"))
        for path in refs:
            ref: Any = label
            for key in path:
                ref = ref.get(key) if isinstance(ref, dict) else None
            if not isinstance(ref, dict) or not isinstance(ref.get("id"), str):
                continue
            stated = (ref.get("sha256"), ref.get("bytes"))
            seen = first.setdefault(ref["id"], stated)
            for position, field in enumerate(("sha256", "bytes")):
                if not _same_json(seen[position], stated[position]):
                    ctx.collector.add(LABEL_ARTIFACT, MANIFEST, join(["labels", index, *path, field]))


def _same_json(a: Any, b: Any) -> bool:
    """Type-strict equality of two JSON scalars (1 and 1.0 and True differ)."""
    return type(a) is type(b) and a == b


def _check_bank(ctx: VerifyContext, artifact: str, doc: dict[str, Any]) -> None:
    bank = _dict(doc, "bank")
    aliases, names = _int(bank, "active_aliases"), _int(bank, "active_names")
    if aliases is not None and names is not None and aliases > names:
        ctx.collector.add(BANK_ALIAS_BOUNDS, artifact, join(["bank", "active_aliases"]))


def _check_splits(ctx: VerifyContext, artifact: str, doc: dict[str, Any]) -> None:
    """Spec 10 section 9.2, for the manifest's and the evidence's copy of the splits."""
    add = ctx.collector.add
    splits = doc.get("splits")
    if not isinstance(splits, dict):
        return
    crossing = splits.get("leakage_groups_crossing")
    if type(crossing) is int and crossing != 0:
        add(SPLIT_LEAKAGE, artifact, join(["splits", "leakage_groups_crossing"]))
    if splits.get("test_sealed") is not True:
        add(TEST_NOT_SEALED, artifact, join(["splits", "test_sealed"]))
    roles = _dict(splits, "roles")
    ids: list[Any] = []
    hashes: list[Any] = []
    total = 0
    total_known = True
    for role in ("train", "validation", "test"):
        entry = _dict(roles, role)
        groups, records = _int(entry, "groups"), _int(entry, "records")
        if groups is not None and records is not None and groups > records:
            add(SPLIT_GROUP_BOUNDS, artifact, join(["splits", "roles", role, "groups"]))
        if records is None:
            total_known = False
        else:
            total += records
        art = _dict(entry, "artifact")
        ids.append(art.get("id"))
        hashes.append(art.get("sha256"))
    if len(set(map(repr, ids))) != len(ids) or len(set(map(repr, hashes))) != len(hashes):
        add(SPLIT_ARTIFACT_OVERLAP, artifact, join(["splits", "roles"]))
    output = _int(_dict(doc, "preparation"), "output_records")
    if total_known and output is not None and total != output:
        add(SPLIT_RECORD_TOTAL, artifact, join(["splits", "roles"]))
    source_records = _int(_dict(doc, "source"), "input_records")
    if output is not None and source_records is not None and output > source_records:
        add(PREPARATION_BOUNDS, artifact, join(["preparation", "output_records"]))


def _check_labels(ctx: VerifyContext, manifest: dict[str, Any]) -> None:
    add = ctx.collector.add
    split_roles = _dict(_dict(manifest, "splits"), "roles")
    for index, label in enumerate(_list(manifest, "labels")):
        if not isinstance(label, dict):
            continue
        base = ["labels", index]
        populations = [p for p in _list(label, "role_populations") if isinstance(p, dict)]
        pop_roles = [p.get("role") for p in populations]
        if len(set(map(repr, pop_roles))) != len(pop_roles):
            add(LABEL_DUPLICATE_ROLE, MANIFEST, join([*base, "role_populations"]))
        roles = _list(label, "roles")
        if set(map(repr, pop_roles)) != set(map(repr, roles)):
            add(LABEL_POPULATION_ROLES, MANIFEST, join([*base, "role_populations"]))
        spans = [p.get("spans") for p in populations]
        span_count = label.get("span_count")
        if all(type(s) is int for s in spans) and type(span_count) is int and sum(spans) != span_count:
            add(LABEL_POPULATION_SPANS, MANIFEST, join([*base, "span_count"]))
        for p_index, population in enumerate(populations):
            role = population.get("role")
            if role == "conformance" or not isinstance(role, str):
                continue
            docs, records = _int(population, "documents"), _int(_dict(split_roles, role), "records")
            if docs is not None and records is not None and docs > records:
                add(LABEL_POPULATION_BOUNDS, MANIFEST, join([*base, "role_populations", p_index, "documents"]))
        strength = label.get("label_strength")
        completeness = label.get("annotation_completeness")
        if strength == "unlabeled":
            if completeness != "not_applicable" or span_count != 0:
                add(UNLABELED_STATE, MANIFEST, join([*base, "annotation_completeness"]))
        elif completeness == "not_applicable" or (type(span_count) is int and span_count <= 0):
            add(EMPTY_LABELED, MANIFEST, join([*base, "span_count"]))
        if strength == "synthetic_conformance":
            if completeness != "exhaustive_within_scope":
                add(INCOMPLETE_CONFORMANCE_LABELS, MANIFEST, join([*base, "annotation_completeness"]))
            if roles != ["conformance"]:
                add(CONFORMANCE_LABEL_ROLE, MANIFEST, join([*base, "roles"]))
        elif "conformance" in roles:
            add(NATURAL_LABEL_ROLE, MANIFEST, join([*base, "roles"]))
        if strength in NATURAL_STRENGTHS:
            classes = _scope_classes(label)
            single = isinstance(classes, list) and len(classes) == 1
            if not single and classes != COMBINED_CLASSES:
                add(NATURAL_LABEL_CLASSES, MANIFEST, join([*base, "annotation_scope", "entity_classes"]))
        provenance = _dict(label, "annotation_provenance")
        reviewer, producer = provenance.get("reviewer_id"), provenance.get("producer_id")
        separate = reviewer is not None and reviewer != producer \
            and provenance.get("adjudication_artifact") is not None
        if provenance and provenance.get("independently_reviewed") is not separate:
            add(REVIEW_PROVENANCE, MANIFEST, join([*base, "annotation_provenance", "independently_reviewed"]))
        if strength in ("independent", "synthetic_conformance") and not separate:
            add(ANNOTATION_INDEPENDENCE, MANIFEST, join([*base, "annotation_provenance"]))


def _check_quality_plan(ctx: VerifyContext, manifest: dict[str, Any]) -> None:
    add = ctx.collector.add
    labels = _by_id(_list(manifest, "labels"))
    views = _by_id(_list(_dict(manifest, "preparation"), "text_views"))
    primaries = _primary_views(manifest)
    primary = primaries[0] if len(primaries) == 1 else None
    split_roles = _dict(_dict(manifest, "splits"), "roles")
    plan = [p for p in _list(manifest, "quality_plan")]
    descriptors: set[str] = set()
    gate_indices: list[int] = []
    for index, entry in enumerate(plan):
        if not isinstance(entry, dict):
            continue
        base = ["quality_plan", index]
        descriptor = repr(tuple(entry.get(k) for k in
                                ("label_artifact_id", "split_role", "entity_class", "cohort", "text_view")))
        if descriptor in descriptors:
            add(PLAN_DUPLICATE_DESCRIPTOR, MANIFEST, join(base))
        descriptors.add(descriptor)
        label = labels.get(entry.get("label_artifact_id"))
        view = views.get(entry.get("text_view"))
        role = entry.get("split_role")
        sample, frame = _int(entry, "sample_documents"), _int(entry, "frame_documents")
        if entry.get("promotion_gate") is True:
            gate_indices.append(index)
        if label is None:
            add(PLAN_UNKNOWN_LABEL, MANIFEST, join([*base, "label_artifact_id"]))
        else:
            if role not in _list(label, "roles"):
                add(PLAN_LABEL_ROLE, MANIFEST, join([*base, "split_role"]))
            if _scope_classes(label) != _expected_classes(entry.get("entity_class")):
                add(PLAN_ENTITY_CLASS, MANIFEST, join([*base, "entity_class"]))
            population = _population(label, role)
            pop_docs = _int(population, "documents")
            if population is None or (sample is not None and pop_docs is not None and sample > pop_docs):
                add(PLAN_POPULATION_BOUNDS, MANIFEST, join([*base, "sample_documents"]))
            elif entry.get("cohort") == "all" and sample is not None and pop_docs is not None and sample != pop_docs:
                add(PLAN_POPULATION_EXACTNESS, MANIFEST, join([*base, "sample_documents"]))
        role_records = _int(_dict(split_roles, role), "records") if isinstance(role, str) else None
        if frame is not None and (frame != role_records or (sample is not None and sample > frame)):
            add(PLAN_SAMPLE_FRAME, MANIFEST, join([*base, "frame_documents"]))
        role_groups = _int(_dict(split_roles, role), "groups") if isinstance(role, str) else None
        if sample is not None and role_groups is not None and sample > role_groups:
            add(SAMPLE_DESIGN_SPLIT, MANIFEST, join([*base, "sample_documents"]),
                "The plan samples {n} documents from distinct groups; the split role has {m} groups.",
                n=sample, m=role_groups)
        if view is None:
            add(PLAN_UNKNOWN_VIEW, MANIFEST, join([*base, "text_view"]))
        elif label is not None:
            label_regions = _regions_set(_dict(label, "annotation_scope").get("document_regions"))
            view_regions = _regions_set(view.get("document_regions"))
            if label_regions is not None and view_regions is not None and not label_regions <= view_regions:
                add(PLAN_VIEW_REGIONS, MANIFEST, join([*base, "text_view"]))
        if entry.get("promotion_gate") is True:
            _check_gate_plan(ctx, entry, base, label, view, primary, split_roles)
    _check_plan_panel(ctx, plan, gate_indices)
    planned = {p.get("label_artifact_id") for p in plan if isinstance(p, dict)}
    natural = {lab_id for lab_id, lab in labels.items() if lab.get("label_strength") in NATURAL_STRENGTHS}
    if planned != natural:
        add(PLAN_LABEL_SET, MANIFEST, join(["quality_plan"]))


def synthetic_frame(ctx: VerifyContext) -> bool:
    """True only when both the manifest and the evidence (as loaded) say ``synthetic_fixture``.

    The charter's 51,704-document frame is a fact of the real corpus's test split; a generated corpus has its own
    test role, so a synthetic fixture's gate frame is bound to that role's record count instead (the 100-document
    sample and every support floor still hold). Anything else, including a missing or mixed kind, binds 51,704: a
    synthetic fixture can never be promoted (``claim.synthetic_fixture``), so the exception cannot carry a claim.
    See docs/decision-grade.md, "Synthetic fixtures and the frozen panel".
    """
    kinds = [ctx.loaded.get(name, {}).get("artifact_kind") if isinstance(ctx.loaded.get(name), dict) else None
             for name in (MANIFEST, EVIDENCE)]
    return kinds == [release_identity.SYNTHETIC_KIND, release_identity.SYNTHETIC_KIND]


def _check_gate_plan(ctx: VerifyContext, entry: dict[str, Any], base: list[Any], label: dict[str, Any] | None,
                     view: dict[str, Any] | None, primary: dict[str, Any] | None,
                     split_roles: dict[str, Any]) -> None:
    add = ctx.collector.add
    if label is not None and primary is not None:
        scope = _dict(label, "annotation_scope")
        if _regions_set(scope.get("document_regions")) != _regions_set(primary.get("document_regions")) \
                or scope.get("exclusions") != []:
            add(PLAN_GATE_SCOPE, MANIFEST, join([*base, "label_artifact_id"]))
    valid = (label is not None and label.get("label_strength") == "independent"
             and label.get("annotation_completeness") == "exhaustive_within_scope"
             and entry.get("split_role") == "test" and entry.get("cohort") == "all"
             and view is not None and (primary is None or view is primary))
    if not valid:
        add(PLAN_INVALID_GATE, MANIFEST, join([*base, "promotion_gate"]))
    pop_docs = _int(_population(label, "test"), "documents") if label is not None else None
    test_records = _int(_dict(split_roles, "test"), "records")
    frame_ok = test_records is not None and (test_records == GATE_FRAME_DOCUMENTS or synthetic_frame(ctx))
    if not (pop_docs == _int(entry, "sample_documents") == GATE_SAMPLE_DOCUMENTS
            and _int(entry, "frame_documents") == test_records and frame_ok):
        add(PLAN_GATE_POPULATION, MANIFEST, join([*base, "sample_documents"]))


def _check_plan_panel(ctx: VerifyContext, plan: list[Any], gate_indices: list[int]) -> None:
    add = ctx.collector.add
    if not gate_indices:
        return
    gate = plan[gate_indices[0]]
    if len(gate_indices) != 1 or gate.get("entity_class") != "person_contact":
        add(PLAN_PANEL_GATE, MANIFEST, join(["quality_plan", gate_indices[-1], "promotion_gate"]))
        return
    for entity_class in ("contact", "person"):
        peers = [p for p in plan if isinstance(p, dict) and p.get("promotion_gate") is False
                 and p.get("entity_class") == entity_class
                 and all(p.get(k) == gate.get(k) for k in ("split_role", "cohort", "text_view"))]
        if len(peers) != 1 or any(peers[0].get(k) != gate.get(k) or type(peers[0].get(k)) is not type(gate.get(k))
                                  for k in ("sample_design", "sample_documents", "frame_documents")):
            add(PLAN_PANEL_SAMPLE, MANIFEST, join(["quality_plan"]),
                "The gate plan has no matching {entity_class} diagnostic on its sample.",
                entity_class=Label(entity_class))


def _check_conformance_plan(ctx: VerifyContext, manifest: dict[str, Any]) -> None:
    add = ctx.collector.add
    plan = manifest.get("conformance_plan")
    if not isinstance(plan, dict):
        return
    label = _by_id(_list(manifest, "labels")).get(plan.get("label_artifact_id"))
    if label is None or label.get("label_strength") != "synthetic_conformance" \
            or label.get("annotation_completeness") != "exhaustive_within_scope" \
            or label.get("artifact") != plan.get("positive_cases_artifact") \
            or label.get("span_count") != plan.get("positive_cases"):
        add(CONF_PLAN_LABEL, MANIFEST, join(["conformance_plan", "label_artifact_id"]))
    positives, patterns = _int(plan, "positive_cases"), _int(_dict(manifest, "bank"), "active_patterns")
    if positives is not None and patterns is not None and positives < patterns:
        add(CONF_PLAN_SUPPORT, MANIFEST, join(["conformance_plan", "positive_cases"]))
    pos, neg = _dict(plan, "positive_cases_artifact"), _dict(plan, "negative_cases_artifact")
    if pos.get("id") == neg.get("id") or pos.get("sha256") == neg.get("sha256"):
        add(CONF_PLAN_OVERLAP, MANIFEST, join(["conformance_plan", "negative_cases_artifact"]))


# ------------------------------------------------------------------------------------------------------ slice binding

SLICE_PLAN_FIELDS = ("label_artifact_id", "split_role", "entity_class", "cohort", "text_view", "promotion_gate")


def check_slice_binding(ctx: VerifyContext, manifest: dict[str, Any], slices: list[Any]) -> None:
    """Each evidence slice is the planned slice, scored on its declared label artifact (spec 10 section 9.3)."""
    add = ctx.collector.add
    plan_list = [p for p in _list(manifest, "quality_plan") if isinstance(p, dict)]
    plan = _by_id(plan_list)
    labels = _by_id(_list(manifest, "labels"))
    slice_ids = [s.get("id") if isinstance(s, dict) else None for s in slices]
    if slice_ids != [p.get("id") for p in plan_list]:
        add(SLICE_PLAN_ORDER, EVIDENCE, join(["quality", "slices"]),
            "{n} slice(s) published for {m} planned slice(s), or not in plan order.", n=len(slices),
            m=len(plan_list))
    for index, item in enumerate(slices):
        if not isinstance(item, dict):
            continue
        base = ["quality", "slices", index]
        entry = plan.get(item.get("id"))
        if entry is None:
            add(UNKNOWN_PLAN_SLICE, EVIDENCE, join([*base, "id"]))
        else:
            for field in SLICE_PLAN_FIELDS:
                if item.get(field) != entry.get(field) or type(item.get(field)) is not type(entry.get(field)):
                    add(SLICE_PLAN_BINDING, EVIDENCE, join([*base, field]),
                        "Slice field {field} differs from the quality plan.", field=Label(field))
            documents, sample = _int(item, "documents"), _int(entry, "sample_documents")
            if documents is not None and sample is not None and documents != sample:
                add(SLICE_PLAN_BINDING, EVIDENCE, join([*base, "documents"]),
                    "Slice documents ({n}) differ from the planned sample ({m}).", n=documents, m=sample)
        label = labels.get(item.get("label_artifact_id"))
        if label is None:
            add(UNKNOWN_SLICE_LABEL, EVIDENCE, join([*base, "label_artifact_id"]))
            continue
        for field in ("label_strength", "annotation_scope", "annotation_completeness"):
            if item.get(field) != label.get(field):
                add(SLICE_LABEL_BINDING, EVIDENCE, join([*base, field]),
                    "Slice field {field} differs from its label artifact.", field=Label(field))
        role = item.get("split_role")
        if role not in _list(label, "roles"):
            add(SLICE_LABEL_ROLE, EVIDENCE, join([*base, "split_role"]))
        population = _population(label, role)
        if population is None:
            add(SLICE_MISSING_POPULATION, EVIDENCE, join([*base, "split_role"]))
            continue
        pairs = (("documents", "documents"), ("gold_spans", "spans"))
        for field, pop_field in pairs:
            value, bound = _int(item, field), _int(population, pop_field)
            if value is None or bound is None:
                continue
            if value > bound:
                add(SLICE_POPULATION_BOUNDS, EVIDENCE, join([*base, field]),
                    "Slice {field} exceeds the label population.", field=Label(field))
            elif item.get("cohort") == "all" and value != bound:
                add(SLICE_POPULATION_EXACTNESS, EVIDENCE, join([*base, field]),
                    "Slice {field} does not cover the whole label population.", field=Label(field))


# --------------------------------------------------------------------------------------------------------- gate panel

def check_gate_panel(ctx: VerifyContext, manifest: dict[str, Any] | None, slices: list[Any]) -> None:
    """The single combined person_contact gate slice, its support floors and its per-class diagnostics."""
    add = ctx.collector.add
    gates = [(i, s) for i, s in enumerate(slices) if isinstance(s, dict) and s.get("promotion_gate") is True]
    if not gates:
        add(MISSING_GATE_SLICE, EVIDENCE, join(["quality", "slices"]))
        return
    if manifest is not None:
        gate_plan_ids = {p.get("id") for p in _list(manifest, "quality_plan")
                         if isinstance(p, dict) and p.get("promotion_gate") is True}
        if {s.get("id") for _, s in gates} != gate_plan_ids:
            add(GATE_PLAN_SET, EVIDENCE, join(["quality", "slices"]))
    if len(gates) != 1 or gates[0][1].get("entity_class") != "person_contact":
        add(PANEL_GATE, EVIDENCE, join(["quality", "slices", gates[-1][0], "promotion_gate"]),
            "{n} gate slice(s); exactly one combined person_contact gate is required.", n=len(gates))
    primaries = _primary_views(manifest) if manifest is not None else []
    primary = primaries[0] if len(primaries) == 1 else None
    for index, item in gates:
        base = ["quality", "slices", index]
        valid = (item.get("entity_class") == "person_contact" and _scope_classes(item) == COMBINED_CLASSES
                 and item.get("label_strength") == "independent"
                 and item.get("annotation_completeness") == "exhaustive_within_scope"
                 and item.get("split_role") == "test" and item.get("cohort") == "all")
        if not valid:
            add(INVALID_GATE_SLICE, EVIDENCE, join([*base, "promotion_gate"]))
        if primary is not None:
            if item.get("text_view") != primary.get("id"):
                add(GATE_PRIMARY_VIEW, EVIDENCE, join([*base, "text_view"]))
            scope = _dict(item, "annotation_scope")
            if _regions_set(scope.get("document_regions")) != _regions_set(primary.get("document_regions")) \
                    or scope.get("exclusions") != []:
                add(GATE_ANNOTATION_SCOPE, EVIDENCE, join([*base, "annotation_scope"]))
        _check_support_floors(ctx, base, item, slices)
    if len(gates) == 1 and gates[0][1].get("entity_class") == "person_contact":
        _check_panel(ctx, slices, gates[0][0], gates[0][1])


# NERB's support failure codes (spec 10 section 9.6) in canonical order: (code, gate field, operator, floor).
SUPPORT_FLOORS: tuple[tuple[str, str, str, int], ...] = (
    ("production_document_count_mismatch", "documents", "==", GATE_SAMPLE_DOCUMENTS),
    ("documents_below_minimum", "documents", ">=", GATE_SAMPLE_DOCUMENTS),
    ("gold_spans_below_minimum", "gold_spans", ">=", MIN_GATE_GOLD_SPANS),
    ("negative_documents_below_minimum", "negative_documents", ">=", MIN_GATE_NEGATIVE_DOCUMENTS),
    ("sensitive_characters_below_minimum", "sensitive_gold_characters", ">=", MIN_GATE_SENSITIVE_CHARACTERS),
)
CLASS_SUPPORT = (("contact", "contact_gold_support_missing"), ("person", "person_gold_support_missing"))
# Structural floors without a support failure code: always an error below them.
STRUCTURAL_FLOORS: tuple[tuple[str, int], ...] = (("cataloged_gold_spans", 1), ("evaluated_characters", 1))
# ctx.shared key: the gate panel's recomputed support failures (codes), and whether the chain declares exactly them.
SHARED_SUPPORT = "quality.support_failures"


def _diagnostic(slices: list[Any], gate: dict[str, Any], entity_class: str) -> dict[str, Any] | None:
    """The one per-class diagnostic slice beside the gate (same split, cohort and view), or None."""
    found = [s for s in slices if isinstance(s, dict) and s.get("promotion_gate") is False
             and s.get("entity_class") == entity_class
             and all(s.get(k) == gate.get(k) for k in ("split_role", "cohort", "text_view"))]
    return found[0] if len(found) == 1 else None


def support_failures(item: dict[str, Any], slices: list[Any]) -> list[tuple[str, str, int, str, int]]:
    """The gate panel's support failures in canonical order: (code, field, value, operator, floor)."""
    out: list[tuple[str, str, int, str, int]] = []
    for code, field, operator, bound in SUPPORT_FLOORS:
        value = _int(item, field)
        if value is not None and not (value == bound if operator == "==" else value >= bound):
            out.append((code, field, value, operator, bound))
    for entity_class, code in CLASS_SUPPORT:
        peer = _diagnostic(slices, item, entity_class)
        gold = _int(peer, "gold_spans") if peer is not None else None
        if gold == 0:
            out.append((code, "gold_spans", 0, ">=", 1))
    return out


def _check_support_floors(ctx: VerifyContext, base: list[Any], item: dict[str, Any], slices: list[Any]) -> None:
    """Support floors: an honest outcome when the audit chain declares exactly the failures, else an error."""
    add = ctx.collector.add
    failures = support_failures(item, slices)
    codes = [code for code, *_ in failures]
    evidence = ctx.evidence if isinstance(ctx.evidence, dict) else {}
    score = _dict(_dict(evidence, "audit_chain"), "score")
    declared = score.get("status") == "insufficient_support"
    honest = declared and bool(codes) and score.get("support_failure_codes") == codes
    ctx.shared[SHARED_SUPPORT] = {"failures": codes, "declared": honest}
    if declared and score.get("support_failure_codes") != codes:
        add(SUPPORT_DECLARATION, EVIDENCE, "/audit_chain/score/support_failure_codes")
    if not honest:
        for _code, field, value, operator, bound in failures:
            if field == "gold_spans" and bound == 1:
                continue  # a class without gold: manifest.panel_support, beside the class counts
            add(GATE_SUPPORT_FLOOR, EVIDENCE, join([*base, field]),
                "Gate slice {field} is {value}; the floor is {operator} {bound}.", field=Label(field),
                value=value, operator=Label(operator), bound=bound)
    for field, bound in STRUCTURAL_FLOORS:
        value = _int(item, field)
        if value is not None and value < bound:
            add(GATE_SUPPORT_FLOOR, EVIDENCE, join([*base, field]),
                "Gate slice {field} is {value}; the floor is {operator} {bound}.", field=Label(field),
                value=value, operator=Label(">="), bound=bound)


def _check_panel(ctx: VerifyContext, slices: list[Any], gate_index: int, gate: dict[str, Any]) -> None:
    add = ctx.collector.add
    peers: dict[str, dict[str, Any]] = {}
    for entity_class in ("contact", "person"):
        found = [s for s in slices if isinstance(s, dict) and s.get("promotion_gate") is False
                 and s.get("entity_class") == entity_class
                 and all(s.get(k) == gate.get(k) for k in ("split_role", "cohort", "text_view"))]
        if len(found) != 1:
            add(PANEL_DIAGNOSTICS, EVIDENCE, join(["quality", "slices"]),
                "Expected exactly one {entity_class} diagnostic slice beside the gate, found {n}.",
                entity_class=Label(entity_class), n=len(found))
        else:
            peers[entity_class] = found[0]
    if len(peers) != 2:
        return
    base = ["quality", "slices", gate_index]
    contact, person = peers["contact"], peers["person"]

    def ints(name: str) -> tuple[int, int, int] | None:
        values = (_int(gate, name), _int(contact, name), _int(person, name))
        return values if all(v is not None for v in values) else None  # type: ignore[return-value]

    docs = ints("documents")
    if docs and not docs[0] == docs[1] == docs[2]:
        add(PANEL_SUPPORT, EVIDENCE, join([*base, "documents"]),
            "Combined and per-class documents differ.")
    for name in ("gold_spans", "sensitive_gold_characters"):
        values = ints(name)
        if values and values[0] != values[1] + values[2]:
            add(PANEL_SUPPORT, EVIDENCE, join([*base, name]), "Combined {field} is not contact + person.",
                field=Label(name))
    negatives = ints("negative_documents")
    if negatives and (negatives[0] > negatives[1] or negatives[0] > negatives[2]):
        add(PANEL_SUPPORT, EVIDENCE, join([*base, "negative_documents"]),
            "Combined negative documents exceed a class's negative documents.")
    gold = ints("gold_spans")
    declared = (ctx.shared.get(SHARED_SUPPORT) or {}).get("declared") is True
    if gold and (gold[1] == 0 or gold[2] == 0) and not declared:
        add(PANEL_SUPPORT, EVIDENCE, join([*base, "gold_spans"]), "A class of the panel has no gold support.")
    # One set of documents in one text view: one character universe. Predictions of the combined panel are the
    # union of the classes' predictions, and a character outside both classes' gold is outside each class's.
    universe = ints("evaluated_characters")
    if universe and not universe[0] == universe[1] == universe[2]:
        add(PANEL_SUPPORT, EVIDENCE, join([*base, "evaluated_characters"]),
            "Combined and per-class evaluated characters differ.")
    predicted = ints("predicted_characters")
    if predicted and not max(predicted[1], predicted[2]) <= predicted[0] <= predicted[1] + predicted[2]:
        add(PANEL_SUPPORT, EVIDENCE, join([*base, "predicted_characters"]),
            "Combined predicted characters are not the union of the classes'.")
    over = ints("over_redacted_characters")
    if over and over[0] > over[1] + over[2]:
        add(PANEL_SUPPORT, EVIDENCE, join([*base, "over_redacted_characters"]),
            "Combined over-redacted characters exceed the classes' together.")
