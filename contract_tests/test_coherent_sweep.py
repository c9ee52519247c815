"""The coherent sweep (issue 16): edit a primitive, re-derive everything downstream, reseal, verify.

``tools/coherent.py`` runs the model forward (recomputed figures written back, every hash resealed, summary and
figures rendered again); ``tools/sweep_coherent.py`` edits every primitive leaf of a base with a value its policy
allows or forbids. Here: the forward re-derivation is exact (a no-op on an unedited bundle, a raw-count edit and its
undo come back to the same bytes, the rendering is the producer's), and a seeded sample of the smoke bundle's
primitives shows no miss and no false rejection.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from fractions import Fraction
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nerb_verify.canonical import nerb_pretty_bytes
from nerb_verify.verify import verify_bundle
from tools import sweep_coherent
from tools.coherent import edit_count, path_of, rederive, render_ours
from tools.fixturelib import apply_op
from tools.sweep_nudges import leaves, string_edits

BUNDLES = REPO / "fixtures" / "bundles"
SMOKE = "synthetic-smoke"
EVIDENCE = "benchmark-evidence.json"


def _copy(base: str, tmp_path: Path) -> Path:
    root = tmp_path / "bundle"
    shutil.copytree(BUNDLES / base, root)
    return root


def _changed(root: Path, base: str) -> list[str]:
    source = BUNDLES / base
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and (not (source / rel).is_file() or path.read_bytes() != (source / rel).read_bytes()):
            out.append(rel)
    return out


@pytest.mark.parametrize("base", ["nerb-enron", SMOKE])
def test_rederiving_an_unedited_bundle_is_a_byte_identical_no_op(base: str, tmp_path: Path) -> None:
    root = _copy(base, tmp_path)
    outcome = rederive(root)
    assert outcome.result.verdict == "verified"
    assert outcome.rewritten == 0
    assert _changed(root, base) == []


def _edit(root: Path, index: int, name: str, delta: int) -> set:
    evidence = json.loads((root / EVIDENCE).read_text(encoding="utf-8"))
    moved = edit_count(evidence, index, name, delta)
    (root / EVIDENCE).write_bytes(nerb_pretty_bytes(evidence))
    return {(EVIDENCE, path) for path in moved}


def test_a_raw_count_edit_moves_its_totals_rates_and_rendering_and_its_undo_restores_every_byte(
        tmp_path: Path) -> None:
    root = _copy(SMOKE, tmp_path)
    slices = json.loads((root / EVIDENCE).read_text(encoding="utf-8"))["quality"]["slices"]
    person = next(i for i, s in enumerate(slices) if s["entity_class"] == "person")
    combined = next(i for i, s in enumerate(slices) if s["entity_class"] == "person_contact")
    before = slices[combined]

    pins = _edit(root, person, "true_positive", 1)
    assert (EVIDENCE, ("quality", "slices", combined, "gold_spans")) in pins  # the combined total moved too
    outcome = rederive(root, pins)
    after = json.loads((root / EVIDENCE).read_text(encoding="utf-8"))["quality"]["slices"][combined]
    assert after["true_positive"] == before["true_positive"] + 1
    assert after["gold_spans"] == before["gold_spans"] + 1
    # Rates were written back from the verifier's exact figures (the forward model), not left stale.
    assert after["metrics"]["catalog_coverage"] == float(Fraction(after["cataloged_gold_spans"], after["gold_spans"]))
    assert after["metrics"]["catalog_coverage"] != before["metrics"]["catalog_coverage"]
    assert outcome.rewritten > 0
    assert {"summary.md", "publication.json", EVIDENCE} <= set(_changed(root, SMOKE))
    # The rendering is what the producer writes for the re-derived bundle: rendering it again changes nothing.
    rendered = {rel: (root / rel).read_bytes() for rel in ["summary.md", *sorted(
        p.relative_to(root).as_posix() for p in (root / "figures").glob("*.svg"))]}
    render_ours(root, verify_bundle(root))
    assert {rel: (root / rel).read_bytes() for rel in rendered} == rendered
    # Every recomputed figure that is not pinned agrees with its leaf: nothing downstream was left behind.
    mismatches = [item for item in outcome.result.ctx.collector.recomputed if item.status == "mismatch"
                  and (item.artifact, path_of(json.loads((root / item.artifact).read_text()), item.pointer))
                  not in pins]
    assert mismatches == []

    rederive(root, _edit(root, person, "true_positive", -1))
    assert _changed(root, SMOKE) == []


def test_path_of_reads_positional_keys_and_escapes() -> None:
    document = {"a": {"x/y": [0, {"~k": 1}]}}
    assert path_of(document, "/a/@key:0/1/~0k") == ("a", "x/y", 1, "~k")
    assert path_of(document, "/a/x~1y/0") == ("a", "x/y", 0)
    assert path_of(document, "/a/@key:3") is None
    assert path_of(document, "/a/x~1y/9") is None


def test_string_sweep_escapes_keys_with_a_slash_or_a_tilde(tmp_path: Path) -> None:
    """tools/sweep_nudges.py --strings crashed on a key such as a module path: its pointers are RFC 6901 now."""
    digest = "sha256:" + "ab" * 32
    document = {"modules": {"pkg/mod.py": digest, "a~b": digest}, "kind": "x"}
    assert [p for p, _ in leaves(document)] == ["/modules/pkg~1mod.py", "/modules/a~0b", "/kind"]
    edits = string_edits({"doc.json": document}, stride=1)
    assert [(rel, pointer) for rel, pointer, _ in edits] == [("doc.json", "/modules/pkg~1mod.py"),
                                                              ("doc.json", "/modules/a~0b")]
    (tmp_path / "doc.json").write_bytes(nerb_pretty_bytes(document))
    for rel, pointer, value in edits:
        apply_op(tmp_path, {"op": "json_set", "file": rel, "pointer": pointer, "value": value})
    stored = json.loads((tmp_path / "doc.json").read_text())
    assert stored["modules"]["pkg/mod.py"] != digest and stored["modules"]["a~b"] != digest


SAMPLE = 36


def test_a_seeded_sample_of_the_smoke_bundles_primitives_has_no_miss_and_no_false_rejection() -> None:
    """CI form of ``python tools/sweep_coherent.py --base synthetic-smoke``: edits drawn with a fixed seed."""
    edits, _skipped = sweep_coherent.plan_edits(SMOKE, per_pattern=0)
    by_expect = {kind: [e for e in edits if e.expect == kind] for kind in ("allowed", "forbidden")}
    rng = random.Random(16)
    sample = rng.sample(by_expect["allowed"], SAMPLE // 2) + rng.sample(by_expect["forbidden"], SAMPLE // 2)
    outcomes = [sweep_coherent.run_edit(edit) for edit in sample]
    wrong = [(o.edit.artifact, o.edit.pointer, o.edit.expect, o.verdict, o.codes) for o in outcomes
             if o.outcome in (sweep_coherent.MISS, sweep_coherent.FALSE_REJECTION)]
    assert wrong == []
    assert sum(o.outcome == sweep_coherent.CAUGHT for o in outcomes) == SAMPLE // 2


def test_a_label_artifacts_size_has_every_reference_to_the_same_artifact_as_partners() -> None:
    # The conformance cases label is bound to the conformance plan's, the evidence's and the bank card's references
    # to the same artifact: an edit of its size that leaves them standing is incoherent (the verifier rejects it with
    # conformance.label_binding), so the sweep edits them together when it calls the edit allowed.
    references = sweep_coherent._artifact_references("nerb-enron")
    manifest = json.loads((REPO / "fixtures/bundles/nerb-enron/benchmark-manifest.json").read_text(encoding="utf-8"))
    index = next(i for i, label in enumerate(manifest["labels"])
                 if label["artifact"]["id"] == manifest["conformance_plan"]["positive_cases_artifact"]["id"])
    pointer = f"/labels/{index}/artifact/bytes"
    partners = sweep_coherent._same_artifact_fields(references, "benchmark-manifest.json", pointer,
                                                    manifest["labels"][index]["artifact"]["bytes"])
    assert ("benchmark-manifest.json", "/conformance_plan/positive_cases_artifact/bytes") in partners
    assert ("benchmark-evidence.json", "/catalog_conformance/positive_cases_artifact/bytes") in partners
    assert ("benchmark-manifest.json", pointer) not in partners
    # a value that differs is not an identity partner
    assert sweep_coherent._same_artifact_fields(references, "benchmark-manifest.json", pointer, -1) == []
