"""The pinned Enron source cannot be renamed: its revision and row commitment belong to the pinned dataset id.

Spec 50 section 1 pins the benchmark's source: ``corbt/enron-emails`` at revision
``cfc06c758093d90993abce1a43668fb7357258a6`` (an immutable commit), 517,401 rows whose row-multiset commitment
(``source.content_sha256``) the real bundle publishes. The charter's pins (the published capacity policy's corpus
fields, ``nerb_verify.checks.capacity.capacity_policy``) apply when a bundle names that dataset id; a bundle on
another corpus (the synthetic smoke bundle, an organisation's own mail, a synthetic fixture on another revision)
binds its own source instead. A coherent forger can therefore *rename* the dataset (every copy of the id rewritten)
and keep the Enron revision and row commitment, so that no pin applies any more. Such a source states something
false: a revision is a commit of one dataset, and the row commitment is a digest of one multiset of rows. So, in
the manifest's and the evidence's ``source`` (checked on each copy; ``binding.provenance_mismatch`` binds them to
each other), a source whose ``revision`` is the pinned revision or whose ``content_sha256`` is the pinned row
commitment names the pinned dataset id.

The other direction (the pinned id at another revision) is not this rule's: a synthetic fixture may honestly read
another revision, and a real benchmark on the pinned id is held to the pinned revision by the capacity policy's
corpus pins. A source that differs from the pin in id, revision and commitment alike is another corpus, which no
public check can tell from an honest one (the rows are private). Messages name the rule, never a value.
"""

from __future__ import annotations

from typing import Any

from nerb_verify.codes import register
from nerb_verify.context import EVIDENCE, MANIFEST, VerifyContext
from nerb_verify.pointers import join

# The published capacity policy's corpus fields (nerb_verify/data/capacity_policy.json); a test pins the equality.
PINNED_ID = "corbt/enron-emails"
PINNED_REVISION = "cfc06c758093d90993abce1a43668fb7357258a6"
# The row-multiset commitment of the pinned revision (spec 50 section 1.2; the real bundle's source.content_sha256).
PINNED_CONTENT_SHA256 = "sha256:589728f73f65d56bf6f57a537edf074b8aa20f7135a7db094e9adeefc77514e0"

SOURCE_PIN_SPLIT = register(
    "manifest.source_pin_split",
    "The source states the pinned Enron revision or row commitment under another dataset id.",
    "The benchmark's pinned source (spec 50 section 1) is corbt/enron-emails at one immutable revision, with one "
    "published row-multiset commitment over its rows. The charter's pins apply to a bundle that names that dataset "
    "id, so the id cannot be split from its revision and rows: a source whose revision is the pinned revision, or "
    "whose content_sha256 is the pinned commitment, names the pinned dataset id. A renamed dataset with the Enron "
    "revision or rows (every copy rewritten, so the pins no longer apply) states something false. Checked on the "
    "manifest's and the evidence's source. Fix: name the dataset the rows came from, or the revision and "
    "commitment of the source actually read.")


def renamed(source: dict[str, Any]) -> bool:
    """True when ``source`` states the pinned revision or row commitment under a dataset id (a string) other than
    the pinned id. Only string fields take part; a mistyped field is the schema family's finding."""
    source_id, revision, content = source.get("id"), source.get("revision"), source.get("content_sha256")
    if not isinstance(source_id, str) or source_id == PINNED_ID:
        return False
    return (isinstance(revision, str) and revision == PINNED_REVISION) or \
        (isinstance(content, str) and content == PINNED_CONTENT_SHA256)


def check_source(ctx: VerifyContext, artifact: str, doc: dict[str, Any]) -> None:
    """Report ``manifest.source_pin_split`` at ``/source/id`` when ``doc``'s source renames the pinned dataset."""
    source = doc.get("source")
    if isinstance(source, dict) and renamed(source):
        ctx.collector.add(SOURCE_PIN_SPLIT, artifact, join(["source", "id"]),
                          "The source names the pinned Enron revision or rows under another dataset id.")


def run(ctx: VerifyContext) -> None:
    """Check the rule on the schema-valid manifest and evidence (whichever are present)."""
    for artifact, doc in ((MANIFEST, ctx.manifest), (EVIDENCE, ctx.evidence)):
        if isinstance(doc, dict):
            check_source(ctx, artifact, doc)
