"""The privacy scanner is part of the verifier: its source hash is the verifier's source hash.

Spec 10 section 7 (hash catalogue): ``verifier.source_sha256`` and ``privacy.scanner_source_sha256`` are both the
SHA-256 of the raw bytes of one file, ``src/nerb/enron_contract.py`` at the measurement commit (NERB's public
privacy scan is a function of that module). Neither can be recomputed without the publisher's repository, but a
manifest or evidence that states two different hashes for the one file states something false, whatever the file
is. The real bundle states the same hash in both places. The rule is checked on the manifest's copy and on the
evidence's copy (the two copies are bound to each other by ``binding.provenance_mismatch``; a coherent forger
rewrites both, so each copy must hold on its own). The message names the rule, never either hash.
"""

from __future__ import annotations

from typing import Any

from nerb_verify.codes import register
from nerb_verify.context import EVIDENCE, MANIFEST, VerifyContext
from nerb_verify.pointers import join

SCANNER_SOURCE_MISMATCH = register(
    "manifest.scanner_source_mismatch",
    "The privacy scanner's source hash is not the verifier's source hash.",
    "The public privacy scan is run by the contract verifier itself: privacy.scanner_source_sha256 and "
    "verifier.source_sha256 are both the SHA-256 of the verifier's source file at the measurement commit (spec 10, "
    "hash catalogue), so they must be equal, in the manifest and in the evidence. Two different hashes for one file "
    "mean one of them is false. Fix: record the hash of the source that actually scanned the evidence in both "
    "fields.")


def check_scanner_source(ctx: VerifyContext, artifact: str, doc: dict[str, Any]) -> None:
    """Report ``manifest.scanner_source_mismatch`` when ``doc`` states a scanner source hash and a verifier source
    hash (both strings) that differ; a missing or mistyped field is the schema family's finding, not this one."""
    privacy, verifier = doc.get("privacy"), doc.get("verifier")
    if not isinstance(privacy, dict) or not isinstance(verifier, dict):
        return
    scanner, source = privacy.get("scanner_source_sha256"), verifier.get("source_sha256")
    if isinstance(scanner, str) and isinstance(source, str) and scanner != source:
        ctx.collector.add(SCANNER_SOURCE_MISMATCH, artifact, join(["privacy", "scanner_source_sha256"]),
                          "The privacy scanner's source hash differs from the verifier's source hash.")


def run(ctx: VerifyContext) -> None:
    """Check the rule on the schema-valid manifest and evidence (whichever are present)."""
    for artifact, doc in ((MANIFEST, ctx.manifest), (EVIDENCE, ctx.evidence)):
        if isinstance(doc, dict):
            check_scanner_source(ctx, artifact, doc)
