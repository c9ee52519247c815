"""An adjudication record is its own artifact, never the annotations it adjudicates.

Spec 10 section 8 (``contract.annotation_review_provenance``) defines separate review as a reviewer other than the
producer *and* an adjudication artifact; `independent` and `synthetic_conformance` labels need it
(``manifest.annotation_independence``). An adjudication artifact that is the label artifact itself (the same id, or
the same sha256 under another id) is no record of review at all: the review claim is satisfied by naming the
annotations twice. So every label's ``annotation_provenance.adjudication_artifact`` must differ from *every* label
artifact of the manifest in id and in sha256 (several labels share one sealed annotation file and one adjudication
record in the real bundle, so the rule is across labels, not only within one). The real bundle's adjudication
records (``sealed_gold_adjudication``, ``enron_catalog_conformance_adjudication``) are distinct from its
annotation artifacts. Messages name the field, never the id or the hash.
"""

from __future__ import annotations

from typing import Any

from nerb_verify.codes import register
from nerb_verify.context import MANIFEST, VerifyContext
from nerb_verify.findings import Label
from nerb_verify.pointers import join

ADJUDICATION_IS_LABEL_ARTIFACT = register(
    "manifest.adjudication_is_label_artifact",
    "A label's adjudication artifact is a label artifact itself.",
    "Separate review needs an adjudication artifact (spec 10 section 8): the record of a distinct reviewer's "
    "rulings, which is a different file from the annotations it rules on. An adjudication_artifact with the id or "
    "the sha256 of a label artifact of the manifest (its own label's or another's) names the annotations as their own "
    "review, so the independently_reviewed flag and an independent or synthetic_conformance strength resting on it "
    "are false. The message names which field coincides (id or sha256). Fix: reference the adjudication record "
    "itself, or declare the labels unreviewed and a weaker strength.")


def _labels(manifest: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    labels = manifest.get("labels")
    return [(i, label) for i, label in enumerate(labels) if isinstance(label, dict)] \
        if isinstance(labels, list) else []


def check_adjudication_artifacts(ctx: VerifyContext, manifest: dict[str, Any]) -> None:
    """Report ``manifest.adjudication_is_label_artifact`` for every adjudication artifact whose id or sha256 is the
    id or sha256 of any label artifact of ``manifest`` (one finding per field that coincides)."""
    labels = _labels(manifest)
    artifact_fields: dict[str, set[str]] = {"id": set(), "sha256": set()}
    for _index, label in labels:
        artifact = label.get("artifact")
        for field, seen in artifact_fields.items():
            value = artifact.get(field) if isinstance(artifact, dict) else None
            if isinstance(value, str):
                seen.add(value)
    for index, label in labels:
        provenance = label.get("annotation_provenance")
        adjudication = provenance.get("adjudication_artifact") if isinstance(provenance, dict) else None
        if not isinstance(adjudication, dict):
            continue
        for field, seen in artifact_fields.items():
            value = adjudication.get(field)
            if isinstance(value, str) and value in seen:
                ctx.collector.add(ADJUDICATION_IS_LABEL_ARTIFACT, MANIFEST,
                                  join(["labels", index, "annotation_provenance", "adjudication_artifact", field]),
                                  "The adjudication artifact has the {field} of a label artifact.",
                                  field=Label(field))


def run(ctx: VerifyContext) -> None:
    """Check the rule on the schema-valid manifest (the evidence carries no labels)."""
    if isinstance(ctx.manifest, dict):
        check_adjudication_artifacts(ctx, ctx.manifest)
