"""Broken fixtures for the manifest family (hash-aware: every case is resealed).

Splits, bank and preparation are copied into the evidence, so those edits are applied to both files (the
manifest/evidence provenance stays equal). Several rules are inherently entangled with others (a slice that leaves the
plan is also out of plan order; a gate plan that changes its sample also loses its diagnostics' binding); those cases
list every code the edit must raise.
"""

from __future__ import annotations

import copy
from typing import Any

EVIDENCE = "benchmark-evidence.json"
MANIFEST = "benchmark-manifest.json"

# A well-formed extra label artifact used by the label-rule cases (each case breaks one rule of it).
EXTRA_LABEL: dict[str, Any] = {
    "annotation_completeness": "not_applicable",
    "annotation_provenance": {
        "adjudication_artifact": None,
        "independently_reviewed": False,
        "producer_id": "extra_producer",
        "protocol_sha256": "sha256:" + "1" * 64,
        "reviewer_id": None,
    },
    "annotation_scope": {
        "document_regions": ["subject"],
        "entity_classes": ["contact"],
        "exclusions": [],
        "span_policy_sha256": "sha256:" + "1" * 64,
    },
    "artifact": {"bytes": 10, "id": "extra_labels", "sha256": "sha256:" + "2" * 64},
    "id": "extra_unlabeled",
    "label_strength": "unlabeled",
    "role_populations": [{"documents": 1, "role": "train", "spans": 0}],
    "roles": ["train"],
    "span_count": 0,
}
# The real bundle's sealed gold annotations (labels 0 to 2 name this artifact).
GOLD_ANNOTATIONS = {"bytes": 92451, "id": "sealed_gold_annotations",
                    "sha256": "sha256:6c3e6176d0e4fb3f137bcf651934c4938b271b2949d79cf6f168e1eb6b1b6f9b"}
REVIEWED = {"adjudication_artifact": {"bytes": 10, "id": "extra_adjudication", "sha256": "sha256:" + "3" * 64},
            "independently_reviewed": True, "producer_id": "extra_producer",
            "protocol_sha256": "sha256:" + "1" * 64, "reviewer_id": "extra_reviewer"}


def _label(**changes: Any) -> dict[str, Any]:
    label = copy.deepcopy(EXTRA_LABEL)
    label.update(changes)
    return label


def _synthetic(**changes: Any) -> dict[str, Any]:
    base = {"label_strength": "synthetic_conformance", "annotation_completeness": "exhaustive_within_scope",
            "roles": ["conformance"], "role_populations": [{"documents": 1, "role": "conformance", "spans": 1}],
            "span_count": 1, "annotation_provenance": dict(REVIEWED)}
    base.update(changes)
    return _label(**base)


def _add_label(label: dict[str, Any]) -> dict[str, Any]:
    return {"op": "json_insert", "file": MANIFEST, "pointer": "/labels/4", "value": label}


def _set(file: str, pointer: str, value: Any) -> dict[str, Any]:
    return {"op": "json_set", "file": file, "pointer": pointer, "value": value}


def _both(pointer: str, value: Any) -> list[dict[str, Any]]:
    return [_set(MANIFEST, pointer, value), _set(EVIDENCE, pointer, value)]


def _case(code: str, slug: str, ops: list[dict[str, Any]], description: str,
          codes: list[str] | None = None) -> dict[str, Any]:
    return {"code": code, "slug": slug, "base": "nerb-enron", "ops": ops, "reseal": True,
            "description": description,
            "expect": {"verdict": "rejected", "codes": sorted(codes if codes is not None else [code])}}


# Every place the real bundle's measurement commit appears (manifest, evidence, frozen target and its lineage copy,
# the performance report, the publication binding), so a release-identity case changes it consistently.
COMMIT_POINTERS = [(MANIFEST, "/software/git_commit"), (EVIDENCE, "/software/git_commit"),
                   (EVIDENCE, "/test_access/frozen_target/git_commit"),
                   (EVIDENCE, "/test_access/lineage/0/frozen_target/git_commit"),
                   ("performance-report.json", "/software/git_commit"),
                   ("publication.json", "/bindings/measurement_git_commit")]


REAL_COMMIT = "f574b79caaf194f17ba8b8113939bd22c9380bc3"


def _commit_everywhere(value: str) -> list[dict[str, Any]]:
    """The commit replaced in every artifact and in the summary line that prints it."""
    return [*(_set(file, pointer, value) for file, pointer in COMMIT_POINTERS),
            {"op": "replace_text", "file": "summary.md", "old": REAL_COMMIT, "new": value}]


CASES = [
    # --- release identity (artifact_kind real_benchmark)
    _case("manifest.placeholder_release_identity", "all-zero-commit",
          _commit_everywhere("0" * 40),
          "The real benchmark's measurement commit is forty zeros everywhere it appears (the fallback of a run "
          "outside a git checkout), consistently, so every binding still holds."),
    _case("manifest.placeholder_release_identity", "repeated-digit-commit",
          _commit_everywhere("7" * 40),
          "The real benchmark's measurement commit is one digit repeated forty times, consistently."),
    _case("manifest.placeholder_release_identity", "capacity-commit-zeroed",
          [_set("capacity-decision.json", "/attestation/executable_git_commit", "0" * 40)],
          "The capacity decision's attested executable commit is forty zeros (the capacity family also sees the "
          "attestation no longer matching its phases).",
          codes=["capacity.attestation_mismatch", "manifest.placeholder_release_identity"]),
    _case("manifest.placeholder_release_identity", "short-commit",
          _commit_everywhere(REAL_COMMIT[:-1]),
          "The real benchmark's commit has 39 characters (also a schema pattern error in every artifact).",
          codes=["manifest.placeholder_release_identity", "schema.pattern"]),
    _case("manifest.placeholder_release_identity", "uppercase-commit",
          _commit_everywhere(REAL_COMMIT.upper()),
          "The real benchmark's commit is uppercase hexadecimal (also a schema pattern error in every artifact).",
          codes=["manifest.placeholder_release_identity", "schema.pattern"]),
    # --- manifest semantics
    _case("manifest.duplicate_id", "text-view-id-twice",
          [_set(MANIFEST, "/preparation/text_views/3/id", "current_body"),
           _set(EVIDENCE, "/preparation/text_views/3/id", "current_body")],
          "Two text views share the id current_body."),
    _case("manifest.primary_view", "two-primary-views",
          _both("/preparation/text_views/0/primary_for_quality", True),
          "Two text views are marked primary for quality."),
    _case("manifest.answer_bearing_primary_view", "primary-view-answer-bearing",
          _both("/preparation/text_views/2/answer_bearing_fields_included", True),
          "The primary quality view includes answer-bearing fields."),
    _case("manifest.bank_alias_bounds", "aliases-exceed-names",
          _both("/bank/active_aliases", 13202),
          "13,202 active aliases for 13,201 active names (no longer the evaluated performance bank's count either).",
          codes=["manifest.bank_alias_bounds", "performance.unknown_reference"]),
    _case("manifest.split_leakage", "one-group-crosses",
          _both("/splits/leakage_groups_crossing", 1),
          "The leakage audit reports one group in two splits."),
    _case("manifest.test_not_sealed", "test-unsealed",
          _both("/splits/test_sealed", False),
          "The test split is not sealed."),
    _case("manifest.split_group_bounds", "test-groups-exceed-records",
          _both("/splits/roles/test/groups", 51705),
          "51,705 test groups in 51,704 records."),
    _case("manifest.split_artifact_overlap", "validation-reuses-test-id",
          _both("/splits/roles/validation/artifact/id", "test"),
          "The validation split artifact has the test split's id."),
    _case("manifest.split_record_total", "validation-record-added",
          _both("/splits/roles/validation/records", 51724)
          + [_set("bank-card.json", "/source/validation_records", 51724)],
          "Split records add up to 517,180, one more than the 517,179 prepared records (the bank card's copy of "
          "the validation count follows; the capacity run's split commitments do not).",
          codes=["capacity.evidence_binding_mismatch", "manifest.split_record_total"]),
    _case("manifest.preparation_record_bounds", "source-smaller-than-prepared",
          _both("/source/input_records", 517178),
          "517,179 prepared records from 517,178 source rows (the publication scope repeats the source count).",
          codes=["capacity.evidence_binding_mismatch", "manifest.preparation_record_bounds",
                 "publication.scope_mismatch", "summary.number_not_traced"]),
    # --- label artifacts
    _case("manifest.label_duplicate_population_role", "test-population-twice",
          [{"op": "json_insert", "file": MANIFEST, "pointer": "/labels/1/role_populations/1",
            "value": {"documents": 1, "role": "test", "spans": 0}}],
          "The contact label lists its test population twice."),
    _case("manifest.label_population_roles", "role-without-population",
          [_set(MANIFEST, "/labels/1/roles", ["test", "validation"])],
          "The contact label claims the validation role without a validation population."),
    _case("manifest.label_population_spans", "span-count-off-by-one",
          [_set(MANIFEST, "/labels/1/span_count", 127)],
          "The contact label's span count 127 is not the sum of its populations (126)."),
    _case("manifest.label_population_bounds", "population-exceeds-split",
          [_set(MANIFEST, "/labels/1/roles", ["test", "validation"]),
           {"op": "json_insert", "file": MANIFEST, "pointer": "/labels/1/role_populations/1",
            "value": {"documents": 51724, "role": "validation", "spans": 0}}],
          "A validation population of 51,724 documents in a 51,723-record split."),
    _case("manifest.unlabeled_annotation_state", "unlabeled-but-partial",
          [_add_label(_label(annotation_completeness="partial"))],
          "An unlabeled artifact declares partial completeness."),
    _case("manifest.empty_labeled_artifact", "synthetic-without-spans",
          [_add_label(_synthetic(span_count=0, role_populations=[{"documents": 1, "role": "conformance",
                                                                  "spans": 0}]))],
          "A synthetic conformance label artifact with no spans."),
    _case("manifest.incomplete_conformance_labels", "synthetic-partial",
          [_add_label(_synthetic(annotation_completeness="partial"))],
          "Synthetic conformance labels declared partial."),
    _case("manifest.conformance_label_role", "synthetic-on-train",
          [_add_label(_synthetic(roles=["conformance", "train"],
                                 role_populations=[{"documents": 1, "role": "conformance", "spans": 1},
                                                   {"documents": 1, "role": "train", "spans": 0}]))],
          "Synthetic conformance labels also serve the train role."),
    _case("manifest.natural_label_role", "unlabeled-claims-conformance",
          [_add_label(_label(roles=["conformance"],
                             role_populations=[{"documents": 1, "role": "conformance", "spans": 0}]))],
          "A non-synthetic label artifact claims the conformance role."),
    _case("manifest.natural_label_entity_population", "contact-label-with-two-classes",
          [_set(MANIFEST, "/labels/1/annotation_scope/entity_classes", ["person", "contact"]),
           _set(EVIDENCE, "/quality/slices/1/annotation_scope/entity_classes", ["person", "contact"])],
          "The contact label (and its slice) covers [person, contact]: two classes in the wrong order.",
          codes=["manifest.natural_label_entity_population", "manifest.quality_plan_entity_class",
                 "quality.annotation_scope_mismatch"]),
    _case("manifest.annotation_review_provenance", "flag-says-not-reviewed",
          [_add_label(_label(annotation_provenance=dict(REVIEWED, independently_reviewed=False)))],
          "A label with a separate reviewer and an adjudication artifact says it was not independently reviewed."),
    _case("manifest.annotation_independence", "synthetic-without-review",
          [_add_label(_synthetic(annotation_provenance=dict(EXTRA_LABEL["annotation_provenance"])))],
          "Synthetic conformance labels without a separate reviewer or adjudication."),
    # --- quality plan
    _case("manifest.quality_plan_duplicate_descriptor", "contact-planned-twice",
          [{"op": "json_copy", "file": MANIFEST, "from": "/quality_plan/1", "pointer": "/quality_plan/3"},
           _set(MANIFEST, "/quality_plan/3/id", "contact_all_test_again")],
          "The contact slice is planned twice under two ids (the evidence then misses a planned slice, and the "
          "gate has two contact diagnostics).",
          codes=["manifest.quality_plan_duplicate_descriptor", "manifest.quality_plan_panel_sample_binding",
                 "manifest.slice_plan_order"]),
    _case("manifest.quality_plan_unknown_label", "plan-label-undeclared",
          [_set(MANIFEST, "/quality_plan/1/label_artifact_id", "undeclared_labels")],
          "A plan entry names an undeclared label artifact.",
          codes=["manifest.quality_plan_label_set", "manifest.quality_plan_unknown_label",
                 "manifest.slice_plan_binding"]),
    _case("manifest.quality_plan_label_role", "plan-on-validation",
          [_set(MANIFEST, "/quality_plan/1/split_role", "validation"),
           _set(MANIFEST, "/quality_plan/1/frame_documents", 51723)],
          "The contact plan samples the validation role its labels do not cover.",
          codes=["manifest.quality_plan_label_role", "manifest.quality_plan_panel_sample_binding",
                 "manifest.quality_plan_population_bounds", "manifest.slice_plan_binding"]),
    _case("manifest.quality_plan_entity_class", "contact-plan-on-person-label",
          [_set(MANIFEST, "/quality_plan/1/label_artifact_id", "enron_gold_person"),
           _set(EVIDENCE, "/quality/slices/1/label_artifact_id", "enron_gold_person")],
          "The contact plan (and slice) are bound to the person label artifact.",
          codes=["manifest.quality_plan_entity_class", "manifest.quality_plan_label_set",
                 "manifest.slice_label_binding", "manifest.slice_population_exactness"]),
    _case("manifest.quality_plan_population_bounds", "sample-exceeds-population",
          [_set(MANIFEST, "/quality_plan/1/sample_documents", 101)],
          "The contact plan samples 101 documents from a 100-document label population.",
          codes=["manifest.quality_plan_panel_sample_binding", "manifest.quality_plan_population_bounds",
                 "manifest.slice_plan_binding"]),
    _case("manifest.quality_plan_population_exactness", "all-cohort-undersampled",
          [_set(MANIFEST, "/labels/1/role_populations/0/documents", 101)],
          "Cohort all samples 100 of a 101-document contact population.",
          codes=["manifest.quality_plan_population_exactness", "manifest.slice_population_exactness"]),
    _case("manifest.quality_plan_sample_frame", "frame-not-test-records",
          [_set(MANIFEST, "/quality_plan/1/frame_documents", 51703)],
          "The contact plan's frame is 51,703 documents; the test split has 51,704.",
          codes=["manifest.quality_plan_panel_sample_binding", "manifest.quality_plan_sample_frame"]),
    _case("manifest.quality_plan_unknown_text_view", "plan-view-undeclared",
          [_set(MANIFEST, "/quality_plan/1/text_view", "undeclared_view")],
          "The contact plan names an undeclared text view.",
          codes=["manifest.quality_plan_panel_sample_binding", "manifest.quality_plan_unknown_text_view",
                 "manifest.slice_plan_binding"]),
    _case("manifest.quality_plan_view_regions", "plan-on-body-only-view",
          [_set(MANIFEST, "/quality_plan/1/text_view", "current_body"),
           _set(EVIDENCE, "/quality/slices/1/text_view", "current_body")],
          "The contact plan is scored on current_body, which lacks the labelled subject region.",
          codes=["manifest.panel_diagnostics", "manifest.quality_plan_panel_sample_binding",
                 "manifest.quality_plan_view_regions"]),
    _case("manifest.quality_plan_gate_annotation_scope", "gate-label-excludes",
          [_set(MANIFEST, "/labels/0/annotation_scope/exclusions", ["quoted_text"]),
           _set(EVIDENCE, "/quality/slices/0/annotation_scope/exclusions", ["quoted_text"])],
          "The gate's labels (and slice) exclude part of the primary view.",
          codes=["manifest.gate_annotation_scope", "manifest.quality_plan_gate_annotation_scope"]),
    _case("manifest.quality_plan_invalid_gate", "gate-plan-cohort",
          [_set(MANIFEST, "/quality_plan/0/cohort", "head"), _set(MANIFEST, "/quality_plan/1/cohort", "head"),
           _set(MANIFEST, "/quality_plan/2/cohort", "head")] +
          [_set(EVIDENCE, f"/quality/slices/{i}/cohort", "head") for i in range(3)],
          "The whole panel (plan and slices) is on cohort head instead of all.",
          codes=["manifest.invalid_gate_slice", "manifest.quality_plan_invalid_gate"]),
    _case("manifest.quality_plan_gate_test_population", "frame-not-51704",
          _both("/splits/roles/test/records", 51705) + _both("/splits/roles/train/records", 413751) +
          [_set(MANIFEST, f"/quality_plan/{i}/frame_documents", 51705) for i in range(3)],
          "The test split and the frame have 51,705 documents, not the preregistered 51,704 (a train record moved).",
          codes=["capacity.evidence_binding_mismatch", "card.source_mismatch",
                 "manifest.quality_plan_gate_test_population", "publication.scope_mismatch",
                 "summary.number_not_traced"]),
    _case("manifest.quality_plan_panel_gate", "contact-plan-gates-too",
          [_set(MANIFEST, "/quality_plan/1/promotion_gate", True),
           _set(EVIDENCE, "/quality/slices/1/promotion_gate", True)],
          "The contact plan and slice gate promotion beside the combined gate.",
          codes=["gate.missing_required", "manifest.invalid_gate_slice", "manifest.panel_gate",
                 "manifest.quality_plan_panel_gate"]),
    _case("manifest.quality_plan_panel_sample_binding", "person-diagnostic-other-design",
          [_set(MANIFEST, "/quality_plan/2/sample_design/seed_sha256", "sha256:" + "6" * 64)],
          "The person diagnostic was planned with another sample seed than the gate."),
    _case("manifest.quality_plan_label_set", "natural-label-unplanned",
          [_add_label(_label(label_strength="structured_weak", annotation_completeness="partial", span_count=1,
                             role_populations=[{"documents": 1, "role": "train", "spans": 1}]))],
          "A structured-weak label artifact is declared but never evaluated by the plan."),
    # --- conformance plan
    _case("manifest.conformance_plan_label_binding", "plan-positive-count",
          [_set(MANIFEST, "/conformance_plan/positive_cases", 39605)],
          "The conformance plan freezes 39,605 positives; the label artifact holds 39,604.",
          codes=["conformance.plan_binding", "manifest.conformance_plan_label_binding"]),
    _case("manifest.conformance_plan_support", "plan-fewer-positives-than-patterns",
          [_set(MANIFEST, "/bank/active_aliases", 1200), _set(MANIFEST, "/bank/active_patterns", 39605),
           _set(EVIDENCE, "/bank/active_patterns", 39605)],
          "The bank declares 39,605 active patterns; the plan has 39,604 positives.",
          codes=["capacity.evidence_binding_mismatch", "card.bank_mismatch", "conformance.bank_mismatch",
                 "conformance.passed_mismatch",
                 "decision.bundle_overstates_known_bank_contract", "manifest.conformance_plan_support",
                 "performance.unknown_reference", "publication.scope_mismatch", "summary.verdict_mismatch"]),
    _case("manifest.conformance_plan_artifact_overlap", "negatives-reuse-positive-hash",
          [_set(MANIFEST, "/conformance_plan/negative_cases_artifact/sha256",
                "sha256:7da2b0aec11da2ebecd0857482987e4bc2b0de8f0df4009c43ae2960ad650bcb")],
          "The negative case artifact has the positive artifact's hash.",
          codes=["conformance.plan_binding", "manifest.conformance_plan_artifact_overlap"]),
    # --- slice binding
    _case("manifest.slice_plan_order", "person-before-contact",
          [{"op": "json_edit", "transform": "swap_slices", "args": {"first": 1, "second": 2}}],
          "The contact and person slices are published in the wrong order."),
    _case("manifest.unknown_plan_slice", "person-slice-renamed",
          [_set(EVIDENCE, "/quality/slices/2/id", "person_unplanned")],
          "The person slice has an id the plan does not know.",
          codes=["manifest.slice_plan_order", "manifest.unknown_plan_slice"]),
    _case("manifest.slice_plan_binding", "person-slice-other-cohort",
          [_set(EVIDENCE, "/quality/slices/2/cohort", "head")],
          "The person slice is published for cohort head; the plan says all.",
          codes=["manifest.panel_diagnostics", "manifest.slice_plan_binding"]),
    _case("manifest.unknown_slice_label", "slice-label-undeclared",
          [_set(EVIDENCE, "/quality/slices/2/label_artifact_id", "undeclared_labels")],
          "The person slice names an undeclared label artifact.",
          codes=["manifest.slice_plan_binding", "manifest.unknown_slice_label"]),
    _case("manifest.slice_label_binding", "span-policy-differs",
          [_set(EVIDENCE, "/quality/slices/2/annotation_scope/span_policy_sha256", "sha256:" + "8" * 64)],
          "The person slice's annotation scope names another span policy than its label artifact."),
    _case("manifest.slice_label_binding", "label-excludes-what-the-slice-does-not",
          [_set(MANIFEST, "/labels/1/annotation_scope/exclusions", ["quoted_history"])],
          "The contact label artifact now excludes a region while the contact slice's annotation scope (its copy) "
          "excludes nothing (resealed)."),
    _case("manifest.label_artifact_inconsistent", "gold-artifact-size-differs",
          [_set(MANIFEST, "/labels/1/artifact/bytes", 92452)],
          "The contact label states one byte more for the sealed gold annotations than the two other labels that "
          "name the same artifact (resealed)."),
    _case("manifest.slice_label_role", "label-role-moved",
          [_set(MANIFEST, "/labels/2/roles", ["validation"]),
           _set(MANIFEST, "/labels/2/role_populations/0/role", "validation")],
          "The person label artifact covers validation, but its plan and slice are on test.",
          codes=["manifest.quality_plan_label_role", "manifest.quality_plan_population_bounds",
                 "manifest.slice_label_role", "manifest.slice_missing_population"]),
    _case("manifest.slice_missing_population", "population-for-other-role",
          [_set(MANIFEST, "/labels/2/roles", ["test", "validation"]),
           _set(MANIFEST, "/labels/2/role_populations/0/role", "validation")],
          "The person label claims test but only has a validation population.",
          codes=["manifest.label_population_roles", "manifest.quality_plan_population_bounds",
                 "manifest.slice_missing_population"]),
    _case("manifest.slice_population_bounds", "gold-exceeds-population",
          [_set(MANIFEST, "/labels/2/role_populations/0/spans", 1266), _set(MANIFEST, "/labels/2/span_count", 1266)],
          "The person slice has 1,267 gold spans; its label population holds 1,266."),
    _case("manifest.slice_population_exactness", "gold-below-population",
          [_set(MANIFEST, "/labels/2/role_populations/0/spans", 1268), _set(MANIFEST, "/labels/2/span_count", 1268)],
          "Cohort all: the person slice scores 1,267 of 1,268 labelled spans."),
    # --- gate panel
    _case("manifest.missing_gate_slice", "gate-flag-dropped",
          [_set(MANIFEST, "/quality_plan/0/promotion_gate", False),
           _set(EVIDENCE, "/quality/slices/0/promotion_gate", False)],
          "Neither the plan nor the evidence has a gate slice any more (so no decision can be made, which the "
          "summary's verdict does not say).",
          codes=["manifest.missing_gate_slice", "summary.verdict_mismatch"]),
    _case("manifest.gate_plan_set", "slice-gate-flag-dropped",
          [_set(EVIDENCE, "/quality/slices/0/promotion_gate", False),
           _set(EVIDENCE, "/quality/slices/1/promotion_gate", True)],
          "The evidence gates the contact slice; the plan gates the combined one.",
          codes=["gate.missing_required", "manifest.gate_plan_set", "manifest.invalid_gate_slice",
                 "manifest.panel_gate", "manifest.slice_plan_binding"]),
    _case("manifest.invalid_gate_slice", "gate-slice-on-head-cohort",
          [_set(EVIDENCE, "/quality/slices/0/cohort", "head")],
          "The gate slice is published for cohort head.",
          codes=["manifest.invalid_gate_slice", "manifest.panel_diagnostics", "manifest.slice_plan_binding"]),
    _case("manifest.gate_primary_view", "gate-on-other-view",
          [_set(EVIDENCE, "/quality/slices/0/text_view", "full_visible_body")],
          "The gate slice is scored on a view that is not the primary view.",
          codes=["manifest.gate_primary_view", "manifest.panel_diagnostics", "manifest.slice_plan_binding"]),
    _case("manifest.gate_annotation_scope", "gate-slice-regions",
          [_set(EVIDENCE, "/quality/slices/0/annotation_scope/document_regions", ["current_body"])],
          "The gate slice's annotation covers only current_body of the primary view.",
          codes=["manifest.gate_annotation_scope", "manifest.slice_label_binding"]),
    _case("manifest.sample_design_split", "test-role-fewer-groups-than-sample",
          _both("/splits/roles/test/groups", 99),
          "A coherent forgery of the split: the sealed test role is recorded with 99 leakage groups in both the "
          "manifest and the evidence (groups <= records still holds, resealed), while the preregistered design "
          "samples 100 documents from 100 distinct groups of that role."),
    _case("manifest.gate_support_floor", "too-few-cataloged-and-negatives",
          [{"op": "json_edit", "transform": "quality_set_counts",
            "args": {"slice": 0, "counts": {"negative_documents": 19, "documents_with_sensitive_gold": 81},
                     "keep_metrics": True}}],
          "The gate slice has 19 negative documents, below the floor of 20 (partition kept; its stored document "
          "leak rate is now stale, and the summary's 31 negatives are untraceable).",
          codes=["manifest.gate_support_floor", "quality.metric_mismatch", "summary.number_not_traced"]),
    _case("manifest.panel_gate", "person-slice-gates",
          [_set(MANIFEST, "/quality_plan/0/promotion_gate", False),
           _set(MANIFEST, "/quality_plan/2/promotion_gate", True),
           _set(EVIDENCE, "/quality/slices/0/promotion_gate", False),
           _set(EVIDENCE, "/quality/slices/2/promotion_gate", True)],
          "The person slice gates instead of the combined one.",
          codes=["gate.missing_required", "manifest.invalid_gate_slice", "manifest.panel_gate",
                 "manifest.quality_plan_panel_gate"]),
    _case("manifest.panel_diagnostics", "contact-diagnostic-other-split",
          [_set(EVIDENCE, "/quality/slices/1/split_role", "validation")],
          "The contact diagnostic is published for the validation split.",
          codes=["manifest.panel_diagnostics", "manifest.slice_label_role", "manifest.slice_missing_population",
                 "manifest.slice_plan_binding"]),
    _case("manifest.panel_support", "person-characters-not-disjoint",
          [{"op": "json_edit", "transform": "quality_set_counts",
            "args": {"slice": 2, "counts": {"sensitive_gold_characters": 11997, "leaked_sensitive_characters": 11734}}}],
          "Combined sensitive characters 14,916 != contact 2,920 + person 11,997."),
    _case("manifest.panel_support", "person-character-universe-differs",
          [_set(EVIDENCE, "/quality/slices/2/evaluated_characters", 590045)],
          "The person diagnostic claims one more evaluated character than the panel's shared text view (its "
          "over-redaction rate is 0 either way, so only the panel identity sees it)."),
    # --- identities a coherent forger can break while every copy and hash agrees
    _case("manifest.scanner_source_mismatch", "scanner-source-differs-in-both-copies",
          _both("/privacy/scanner_source_sha256", "sha256:" + "ab" * 32),
          "The manifest and the evidence both name a privacy scanner source other than the verifier's source "
          "(the copies still agree with each other; resealed)."),
    _case("manifest.source_pin_split", "dataset-renamed-with-the-pinned-revision",
          [{"op": "replace_text", "file": name, "old": "corbt/enron-emails", "new": "corbt/enron-emails-mirror",
            "count": -1}
           for name in (MANIFEST, EVIDENCE, "bank-card.json", "capacity-decision.json")],
          "Every copy of the dataset id (manifest, evidence, bank card, capacity policy and phases) renamed, so the "
          "charter's pins no longer apply, while the Enron revision and row commitment are kept (resealed)."),
    _case("manifest.adjudication_is_label_artifact", "gold-adjudicated-by-its-own-annotations",
          [_set(MANIFEST, f"/labels/{i}/annotation_provenance/adjudication_artifact", GOLD_ANNOTATIONS)
           for i in range(3)],
          "Every gold label names the sealed gold annotations (same id, hash and size) as their own adjudication "
          "record, so the independent review they claim has no record of its own (resealed)."),
    _case("manifest.text_view_artifact_shared", "primary-view-states-the-full-body-digest",
          _both("/preparation/text_views/2/artifact_sha256",
                "sha256:1304bf0973b9c08d113217601e9cf9d171efc9858dbadfbf2400c91cfb109692"),
          "The primary quality view (subject and current body) states the full visible body view's digest in the "
          "manifest and the evidence alike; views are hashed with their own name as seed, so two views cannot share "
          "one (resealed)."),
]


def swap_slices(root: Any, first: int, second: int) -> None:
    """Swap two evidence quality slices (their content is untouched)."""
    import json

    from nerb_verify.canonical import nerb_pretty_bytes

    path = root / EVIDENCE
    evidence = json.loads(path.read_text(encoding="utf-8"))
    slices = evidence["quality"]["slices"]
    slices[first], slices[second] = slices[second], slices[first]
    path.write_bytes(nerb_pretty_bytes(evidence))


TRANSFORMS = {"swap_slices": swap_slices}
