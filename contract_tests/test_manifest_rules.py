"""Manifest family: manifest v2 semantics, slice binding and the combined gate panel (always checked).

Spec: 10-manifest-evidence.md sections 8, 9.2, 9.3 (with manifest) and 9.9 (support floors, panel); spec 00
decision 3 (promotion-level checks always run); charter "Standalone Privacy-Redaction Application Gates".
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from contract_tests.family_harness import real_artifacts, run_families, slice_of
from nerb_verify.checks.provenance import manifest_rules
from nerb_verify.context import EVIDENCE, MANIFEST
from tools.mutations.manifest import EXTRA_LABEL, REVIEWED, _label, _synthetic


def run(artifacts: dict[str, Any]):
    return run_families(artifacts, (manifest_rules.run,))


def found(edit: Callable[[dict[str, Any]], None]) -> set[tuple[str, str]]:
    a = real_artifacts()
    edit(a)
    return {(f.code, f.pointer) for f in run(a).collector.findings}


def codes_of(edit: Callable[[dict[str, Any]], None]) -> set[str]:
    return {code for code, _ in found(edit)}


def both(a: dict[str, Any], path: list[Any], value: Any) -> None:
    for name in (MANIFEST, EVIDENCE):
        node = a[name]
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value


def test_real_bundle_is_clean() -> None:
    ctx = run(real_artifacts())
    assert ctx.collector.findings == []
    assert ctx.collector.checks_run["manifest"]["status"] == "ran"


def test_floors_are_checked_on_an_unpromoted_bundle() -> None:
    """Spec 00 decision 3: the real bundle is not promoted, yet the floors run (and would fire)."""
    def edit(a: dict[str, Any]) -> None:
        s = slice_of(a, 0)
        s.update(negative_documents=19, documents_with_sensitive_gold=81)

    assert real_artifacts()[EVIDENCE]["promotion"]["passed"] is False
    assert ("manifest.gate_support_floor", "/quality/slices/0/negative_documents") in found(edit)


@pytest.mark.parametrize("field,value", [
    ("documents", 99), ("gold_spans", 99), ("sensitive_gold_characters", 499), ("cataloged_gold_spans", 0),
    ("evaluated_characters", 0)])
def test_each_support_floor(field: str, value: int) -> None:
    assert ("manifest.gate_support_floor", f"/quality/slices/0/{field}") in found(
        lambda a: slice_of(a, 0).__setitem__(field, value))


def test_floor_boundaries_pass() -> None:
    def edit(a: dict[str, Any]) -> None:
        s = slice_of(a, 0)
        s.update(negative_documents=20, gold_spans=100, sensitive_gold_characters=500)

    assert "manifest.gate_support_floor" not in codes_of(edit)


CASES: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("manifest.duplicate_id", lambda a: a[MANIFEST]["preparation"]["text_views"][3].__setitem__("id", "current_body")),
    ("manifest.primary_view", lambda a: a[MANIFEST]["preparation"]["text_views"][0].__setitem__(
        "primary_for_quality", True)),
    ("manifest.answer_bearing_primary_view", lambda a: a[MANIFEST]["preparation"]["text_views"][2].__setitem__(
        "answer_bearing_fields_included", True)),
    ("manifest.bank_alias_bounds", lambda a: both(a, ["bank", "active_aliases"], 13202)),
    ("manifest.split_leakage", lambda a: both(a, ["splits", "leakage_groups_crossing"], 1)),
    ("manifest.test_not_sealed", lambda a: both(a, ["splits", "test_sealed"], False)),
    ("manifest.split_group_bounds", lambda a: both(a, ["splits", "roles", "test", "groups"], 51705)),
    ("manifest.split_artifact_overlap", lambda a: both(a, ["splits", "roles", "validation", "artifact", "id"], "test")),
    ("manifest.split_record_total", lambda a: both(a, ["splits", "roles", "validation", "records"], 51724)),
    ("manifest.preparation_record_bounds", lambda a: both(a, ["source", "input_records"], 517178)),
    ("manifest.label_duplicate_population_role", lambda a: a[MANIFEST]["labels"][1]["role_populations"].append(
        {"documents": 1, "role": "test", "spans": 0})),
    ("manifest.label_population_roles", lambda a: a[MANIFEST]["labels"][1].__setitem__("roles", ["test", "train"])),
    ("manifest.label_population_spans", lambda a: a[MANIFEST]["labels"][1].__setitem__("span_count", 127)),
    ("manifest.unlabeled_annotation_state", lambda a: a[MANIFEST]["labels"].append(
        _label(annotation_completeness="partial"))),
    ("manifest.empty_labeled_artifact", lambda a: a[MANIFEST]["labels"].append(_synthetic(
        span_count=0, role_populations=[{"documents": 1, "role": "conformance", "spans": 0}]))),
    ("manifest.incomplete_conformance_labels", lambda a: a[MANIFEST]["labels"].append(
        _synthetic(annotation_completeness="partial"))),
    ("manifest.natural_label_role", lambda a: a[MANIFEST]["labels"].append(_label(
        roles=["conformance"], role_populations=[{"documents": 1, "role": "conformance", "spans": 0}]))),
    ("manifest.annotation_review_provenance", lambda a: a[MANIFEST]["labels"].append(
        _label(annotation_provenance=dict(REVIEWED, independently_reviewed=False)))),
    # The three gold labels share one sealed annotation artifact and one adjudication artifact.
    ("manifest.label_artifact_inconsistent", lambda a: a[MANIFEST]["labels"][2]["artifact"].__setitem__(
        "bytes", 92452)),
    ("manifest.label_artifact_inconsistent", lambda a: a[MANIFEST]["labels"][1]["annotation_provenance"][
        "adjudication_artifact"].__setitem__("sha256", "sha256:" + "7" * 64)),
    ("manifest.annotation_independence", lambda a: a[MANIFEST]["labels"].append(
        _synthetic(annotation_provenance=copy.deepcopy(EXTRA_LABEL["annotation_provenance"])))),
    ("manifest.quality_plan_label_set", lambda a: a[MANIFEST]["labels"].append(_label(
        label_strength="structured_weak", annotation_completeness="partial", span_count=1,
        role_populations=[{"documents": 1, "role": "train", "spans": 1}]))),
    ("manifest.quality_plan_panel_sample_binding", lambda a: a[MANIFEST]["quality_plan"][2]["sample_design"].__setitem__(
        "seed_sha256", "sha256:" + "6" * 64)),
    ("manifest.slice_plan_order", lambda a: a[EVIDENCE]["quality"]["slices"].reverse()),
    ("manifest.slice_label_binding", lambda a: slice_of(a, 2)["annotation_scope"].__setitem__(
        "span_policy_sha256", "sha256:" + "8" * 64)),
    ("manifest.slice_population_bounds", lambda a: (
        a[MANIFEST]["labels"][2]["role_populations"][0].__setitem__("spans", 1266),
        a[MANIFEST]["labels"][2].__setitem__("span_count", 1266))),
    ("manifest.slice_population_exactness", lambda a: (
        a[MANIFEST]["labels"][2]["role_populations"][0].__setitem__("spans", 1268),
        a[MANIFEST]["labels"][2].__setitem__("span_count", 1268))),
    ("manifest.panel_support", lambda a: slice_of(a, 2).__setitem__("sensitive_gold_characters", 11997)),
]


@pytest.mark.parametrize("code,edit", CASES, ids=[c[0] for c in CASES])
def test_rule_raises_exactly_its_code(code: str, edit: Callable[[dict[str, Any]], None]) -> None:
    assert codes_of(edit) == {code}


def test_population_bounds_and_conformance_role() -> None:
    def edit(a: dict[str, Any]) -> None:
        label = a[MANIFEST]["labels"][1]
        label["roles"] = ["test", "validation"]
        label["role_populations"].append({"documents": 51724, "role": "validation", "spans": 0})

    assert codes_of(edit) == {"manifest.label_population_bounds"}
    assert codes_of(lambda a: a[MANIFEST]["labels"].append(_synthetic(
        roles=["conformance", "train"], role_populations=[{"documents": 1, "role": "conformance", "spans": 1},
                                                          {"documents": 1, "role": "train", "spans": 0}]))) == {
        "manifest.conformance_label_role"}


def test_natural_label_classes_order_matters() -> None:
    def edit(a: dict[str, Any]) -> None:
        a[MANIFEST]["labels"][0]["annotation_scope"]["entity_classes"] = ["person", "contact"]

    assert "manifest.natural_label_entity_population" in codes_of(edit)


def test_gate_plan_must_be_the_100_of_51704() -> None:
    def edit(a: dict[str, Any]) -> None:
        for name in (MANIFEST, EVIDENCE):
            a[name]["splits"]["roles"]["test"]["records"] = 51705
            a[name]["splits"]["roles"]["train"]["records"] = 413751
        for entry in a[MANIFEST]["quality_plan"]:
            entry["frame_documents"] = 51705

    assert codes_of(edit) == {"manifest.quality_plan_gate_test_population"}


def _synthetic_frame(a: dict[str, Any], records: int, kinds: tuple[str, str] = ("synthetic_fixture",) * 2,
                     sample: int = 100) -> None:
    """A test frame of ``records`` documents (a train record moved to test), under the given manifest/evidence kinds."""
    a[MANIFEST]["artifact_kind"], a[EVIDENCE]["artifact_kind"] = kinds
    for name in (MANIFEST, EVIDENCE):
        a[name]["splits"]["roles"]["test"]["records"] = records
        a[name]["splits"]["roles"]["train"]["records"] = 465456 - records
    for entry in a[MANIFEST]["quality_plan"]:
        entry["frame_documents"] = records
        entry["sample_documents"] = sample


def test_synthetic_fixture_gate_frame_is_its_own_test_role() -> None:
    """Decision (docs/decision-grade.md): 51,704 is the real corpus's frame; a synthetic fixture binds its own."""
    assert "manifest.quality_plan_gate_test_population" not in codes_of(lambda a: _synthetic_frame(a, 51705))
    assert "manifest.quality_plan_gate_test_population" not in codes_of(lambda a: _synthetic_frame(a, 2000))


def test_synthetic_fixture_gate_keeps_the_100_document_sample() -> None:
    assert "manifest.quality_plan_gate_test_population" in codes_of(
        lambda a: _synthetic_frame(a, 2000, sample=99))


def test_frame_constant_binds_unless_both_say_synthetic() -> None:
    for kinds in (("synthetic_fixture", "real_benchmark"), ("real_benchmark", "synthetic_fixture"),
                  ("real_benchmark", "real_benchmark")):
        assert "manifest.quality_plan_gate_test_population" in codes_of(
            lambda a, kinds=kinds: _synthetic_frame(a, 51705, kinds))


def test_synthetic_fixture_frame_must_still_equal_the_test_role() -> None:
    def edit(a: dict[str, Any]) -> None:
        _synthetic_frame(a, 2000)
        for entry in a[MANIFEST]["quality_plan"]:
            entry["frame_documents"] = 2001

    assert "manifest.quality_plan_gate_test_population" in codes_of(edit)


def test_gate_slice_rules() -> None:
    assert ("manifest.missing_gate_slice", "/quality/slices") in found(
        lambda a: slice_of(a, 0).__setitem__("promotion_gate", False))
    assert ("manifest.gate_primary_view", "/quality/slices/0/text_view") in found(
        lambda a: slice_of(a, 0).__setitem__("text_view", "full_visible_body"))
    assert ("manifest.invalid_gate_slice", "/quality/slices/0/promotion_gate") in found(
        lambda a: slice_of(a, 0).__setitem__("cohort", "head"))
    assert ("manifest.gate_annotation_scope", "/quality/slices/0/annotation_scope") in found(
        lambda a: slice_of(a, 0)["annotation_scope"].__setitem__("exclusions", ["quoted"]))
    assert "manifest.panel_gate" in codes_of(lambda a: slice_of(a, 2).__setitem__("promotion_gate", True))
    assert "manifest.gate_plan_set" in codes_of(lambda a: slice_of(a, 2).__setitem__("promotion_gate", True))
    assert "manifest.panel_diagnostics" in codes_of(lambda a: slice_of(a, 1).__setitem__("split_role", "validation"))


def test_panel_both_classes_need_gold() -> None:
    def edit(a: dict[str, Any]) -> None:
        slice_of(a, 1)["gold_spans"] = 0

    assert ("manifest.panel_support", "/quality/slices/0/gold_spans") in found(edit)


def test_slice_binding_rules() -> None:
    assert codes_of(lambda a: slice_of(a, 2).__setitem__("id", "person_unplanned")) == {
        "manifest.slice_plan_order", "manifest.unknown_plan_slice"}
    assert "manifest.unknown_slice_label" in codes_of(
        lambda a: slice_of(a, 2).__setitem__("label_artifact_id", "undeclared"))
    assert "manifest.slice_plan_binding" in codes_of(lambda a: slice_of(a, 2).__setitem__("cohort", "head"))
    assert "manifest.slice_label_role" in codes_of(lambda a: (
        a[MANIFEST]["labels"][2].__setitem__("roles", ["validation"]),
        a[MANIFEST]["labels"][2]["role_populations"][0].__setitem__("role", "validation")))
    assert "manifest.slice_missing_population" in codes_of(lambda a: (
        a[MANIFEST]["labels"][2]["role_populations"][0].__setitem__("role", "validation")))


def test_missing_slice_is_an_order_finding() -> None:
    assert codes_of(lambda a: a[EVIDENCE]["quality"]["slices"].pop(2)) == {
        "manifest.slice_plan_order", "manifest.panel_diagnostics"}


def test_quality_plan_rules() -> None:
    plan = lambda a: a[MANIFEST]["quality_plan"]  # noqa: E731
    assert "manifest.quality_plan_unknown_label" in codes_of(
        lambda a: plan(a)[1].__setitem__("label_artifact_id", "undeclared"))
    assert "manifest.quality_plan_label_role" in codes_of(lambda a: plan(a)[1].__setitem__("split_role", "train"))
    assert "manifest.quality_plan_entity_class" in codes_of(lambda a: plan(a)[1].__setitem__("entity_class", "x"))
    assert "manifest.quality_plan_population_bounds" in codes_of(
        lambda a: plan(a)[1].__setitem__("sample_documents", 101))
    assert "manifest.quality_plan_population_exactness" in codes_of(
        lambda a: a[MANIFEST]["labels"][1]["role_populations"][0].__setitem__("documents", 101))
    assert "manifest.quality_plan_sample_frame" in codes_of(lambda a: plan(a)[1].__setitem__("frame_documents", 1))
    assert "manifest.quality_plan_unknown_text_view" in codes_of(lambda a: plan(a)[1].__setitem__("text_view", "x"))
    assert "manifest.quality_plan_view_regions" in codes_of(
        lambda a: plan(a)[1].__setitem__("text_view", "current_body"))
    assert "manifest.quality_plan_gate_annotation_scope" in codes_of(
        lambda a: a[MANIFEST]["labels"][0]["annotation_scope"].__setitem__("exclusions", ["quoted"]))
    assert "manifest.quality_plan_invalid_gate" in codes_of(lambda a: plan(a)[0].__setitem__("cohort", "head"))
    assert "manifest.quality_plan_panel_gate" in codes_of(lambda a: plan(a)[1].__setitem__("promotion_gate", True))
    assert "manifest.quality_plan_duplicate_descriptor" in codes_of(
        lambda a: plan(a).append(dict(plan(a)[1], id="again")))


@pytest.mark.parametrize("groups,expected", [(99, {(f"/quality_plan/{i}/sample_documents") for i in range(3)}),
                                             (100, set()), (11625, set())])
def test_sample_of_distinct_groups_fits_the_split_role(groups: int, expected: set[str]) -> None:
    """Charter: the preregistered sample is 100 documents from 100 distinct groups of the test role, so the role
    must record at least that many groups (boundary: exactly 100 groups fit)."""
    pointers = {p for code, p in found(lambda a: both(a, ["splits", "roles", "test", "groups"], groups))
                if code == "manifest.sample_design_split"}
    assert pointers == expected


def test_conformance_plan_rules() -> None:
    cp = lambda a: a[MANIFEST]["conformance_plan"]  # noqa: E731
    assert codes_of(lambda a: cp(a).__setitem__("positive_cases", 39605)) == {
        "manifest.conformance_plan_label_binding"}
    assert "manifest.conformance_plan_support" in codes_of(
        lambda a: a[MANIFEST]["bank"].__setitem__("active_patterns", 39605))
    assert codes_of(lambda a: cp(a)["negative_cases_artifact"].__setitem__(
        "sha256", cp(a)["positive_cases_artifact"]["sha256"])) == {"manifest.conformance_plan_artifact_overlap"}


@pytest.mark.parametrize("damage", [
    lambda a: a[MANIFEST].__setitem__("labels", "x"),
    lambda a: a[MANIFEST].__setitem__("quality_plan", [1, None, "x"]),
    lambda a: a[MANIFEST].__setitem__("splits", {"roles": []}),
    lambda a: a[MANIFEST]["preparation"].__setitem__("text_views", None),
    lambda a: a[EVIDENCE]["quality"].__setitem__("slices", [None, 3]),
    lambda a: a[MANIFEST]["labels"][0].__setitem__("role_populations", [None, {"role": 5}]),
])
def test_hostile_shapes_do_not_crash(damage: Callable[[dict[str, Any]], None]) -> None:
    a = real_artifacts()
    damage(a)
    run(a)  # no exception


def test_without_manifest_the_panel_still_runs() -> None:
    a = real_artifacts()
    a[MANIFEST] = None
    slice_of(a, 0)["gold_spans"] = 99
    ctx = run(a)
    assert "manifest.gate_support_floor" in {f.code for f in ctx.collector.findings}
    assert ctx.collector.checks_run["manifest"]["status"] == "not_evaluated"


def test_label_artifact_sizes_are_free_when_every_reference_agrees() -> None:
    """A size restated the same in every label that names the artifact is not checkable (the artifact is private):
    docs/derivation.md classifies it as an identity between the references, free by design otherwise."""
    def edit(a: dict[str, Any]) -> None:
        for label in a[MANIFEST]["labels"][:3]:
            label["artifact"]["bytes"] = 92452
    assert codes_of(edit) == set()
    assert found(lambda a: a[MANIFEST]["labels"][2]["artifact"].__setitem__("bytes", 92452.0)) == {
        ("manifest.label_artifact_inconsistent", "/labels/2/artifact/bytes")}
