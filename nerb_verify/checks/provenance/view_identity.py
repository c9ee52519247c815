"""Each prepared text view has a digest of its own.

Spec 50 section 2.5 (manifest ``preparation`` section): a view's ``artifact_sha256`` is a SHA-256 whose input starts
with a seed naming the view (``nerb/enron/view/<name>/v2`` and a NUL byte) and then carries the view's records in
document order. Two views with different ids therefore never share a digest, whatever their texts: even two views
whose every text is identical hash differently. A manifest that states one digest for two views states that at
least one of them was not prepared as it says; a coherent forger who points the primary quality view at another
view's bytes (the full visible body with its quoted replies, say) while keeping its regions and every other hash
is caught only here.

The rule is read on the manifest's copy and on the evidence's copy (the two are bound to each other by
``binding.provenance_mismatch``; a forger rewrites both). Duplicate view ids are ``manifest.duplicate_id``'s, so only
views with distinct string ids are compared. The message names the rule, never the digest.
"""

from __future__ import annotations

from typing import Any

from nerb_verify.codes import register
from nerb_verify.context import EVIDENCE, MANIFEST, VerifyContext
from nerb_verify.pointers import join

VIEW_ARTIFACT_SHARED = register(
    "manifest.text_view_artifact_shared",
    "Two prepared text views state the same artifact digest.",
    "A view's artifact_sha256 is seeded with the view's own name before its records are hashed (spec 50 section "
    "2.5), so two views with different ids cannot have the same digest, even with identical texts. A shared digest "
    "means one view is not the artifact it claims (a primary view pointed at another view's bytes, say). Fix: "
    "record each view's own seeded digest, in the manifest and in the evidence.")


def shared_views(views: list[Any]) -> list[int]:
    """Indexes of the views whose digest an earlier view with another id already states (string ids and digests
    only; anything else is the schema's finding)."""
    first: dict[str, str] = {}
    shared: list[int] = []
    for index, view in enumerate(views):
        if not isinstance(view, dict):
            continue
        view_id, digest = view.get("id"), view.get("artifact_sha256")
        if not isinstance(view_id, str) or not isinstance(digest, str):
            continue
        if digest in first and first[digest] != view_id:
            shared.append(index)
        first.setdefault(digest, view_id)
    return shared


def check_views(ctx: VerifyContext, artifact: str, doc: dict[str, Any]) -> None:
    """Report ``manifest.text_view_artifact_shared`` at each view of ``doc`` that repeats another view's digest."""
    preparation = doc.get("preparation")
    views = preparation.get("text_views") if isinstance(preparation, dict) else None
    if not isinstance(views, list):
        return
    for index in shared_views(views):
        ctx.collector.add(VIEW_ARTIFACT_SHARED, artifact,
                          join(["preparation", "text_views", index, "artifact_sha256"]),
                          "This text view states the artifact digest of another view.")


def run(ctx: VerifyContext) -> None:
    """Check the rule on the manifest and the evidence (whichever are present and objects)."""
    for artifact, doc in ((MANIFEST, ctx.manifest), (EVIDENCE, ctx.evidence)):
        if isinstance(doc, dict):
            check_views(ctx, artifact, doc)
