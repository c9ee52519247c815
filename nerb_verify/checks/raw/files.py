"""Bundle family: the bundle is a closed set of files, known in advance from the contract.

The expected set is fixed by the artifact kinds: the six JSON artifacts, ``summary.md``, the four figures, and one
``inventories/<id>.json`` per inventory the evidence's performance inputs reference. Anything else present is
``bundle.unexpected_file`` (including ``.DS_Store``, editor backups, and files the publication list declares but the
contract does not expect). An expected file that is absent *and* not declared in ``publication.json`` is
``bundle.missing_file``; one that is declared but absent is the binding family's ``binding.declared_missing``, so each
situation raises exactly one code.
"""

from __future__ import annotations

import re
from typing import Any

from nerb_verify import context as C
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext
from nerb_verify.display import safe_relpath

UNEXPECTED_FILE = register(
    "bundle.unexpected_file", "The bundle contains a file the contract does not expect.",
    "A published bundle holds exactly the six JSON artifacts, summary.md, the four figures and one inventory per "
    "referenced performance input. Extra files (.DS_Store, backups, notes, smuggled data) are rejected even when "
    "publication.json declares them. Remove the file.")
MISSING_FILE = register(
    "bundle.missing_file", "An expected file is absent and not declared.",
    "A file the contract requires (for example a figure or a referenced inventory) is neither present nor listed in "
    "publication.json. Publish it.")

FIGURES = (
    "figures/bank-coverage.svg",
    "figures/known-bank-contract.svg",
    "figures/performance-scale.svg",
    "figures/standalone-redaction.svg",
)
INVENTORY_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


def referenced_inventory_ids(evidence: Any) -> list[str]:
    """Distinct, well-formed inventory ids referenced by ``performance.inputs[].inventory_ref.id`` (sorted).

    Works on the loaded (not necessarily schema-valid) evidence; malformed entries are ignored here and reported by
    the schema and performance families.
    """
    ids: set[str] = set()
    performance = evidence.get("performance") if isinstance(evidence, dict) else None
    inputs = performance.get("inputs") if isinstance(performance, dict) else None
    for item in inputs if isinstance(inputs, list) else []:
        ref = item.get("inventory_ref") if isinstance(item, dict) else None
        ref_id = ref.get("id") if isinstance(ref, dict) else None
        if isinstance(ref_id, str) and INVENTORY_ID.fullmatch(ref_id):
            ids.add(ref_id)
    return sorted(ids)


def expected_files(ctx: VerifyContext) -> set[str]:
    """The closed set of bundle-relative paths the contract expects for this bundle."""
    expected = set(C.JSON_ARTIFACTS) | {C.SUMMARY} | set(FIGURES)
    if C.EVIDENCE in ctx.loaded:
        ids = referenced_inventory_ids(ctx.loaded[C.EVIDENCE])
    else:
        # Without a loadable evidence file the referenced set is unknown; the evidence's own finding rejects the
        # bundle, so well-named inventories present are taken as expected rather than reported a second time.
        prefix = C.INVENTORIES_DIR + "/"
        ids = [rel[len(prefix):-5] for rel in ctx.files if rel.startswith(prefix) and rel.endswith(".json")
               and INVENTORY_ID.fullmatch(rel[len(prefix):-5])]
    for inventory_id in ids:
        expected.add(f"{C.INVENTORIES_DIR}/{inventory_id}.json")
    return expected


def declared_paths(publication: Any) -> set[str]:
    """Paths declared in ``publication.json``'s artifact list (loaded, not necessarily schema-valid)."""
    artifacts = publication.get("artifacts") if isinstance(publication, dict) else None
    paths: set[str] = set()
    for item in artifacts if isinstance(artifacts, list) else []:
        path = item.get("path") if isinstance(item, dict) else None
        if isinstance(path, str):
            paths.add(path)
    return paths


def is_unusable(ctx: VerifyContext, rel: str) -> bool:
    """True when ``rel`` or a folder above it exists but was refused when opening (symlink, special file)."""
    unusable = ctx.shared.get("bundle.unusable", set())
    parts = rel.split("/")
    return any("/".join(parts[: i + 1]) in unusable for i in range(len(parts)))


def run(ctx: VerifyContext) -> None:
    """Compare the files present with the expected closed set (symlinks were already reported when opening)."""
    expected = expected_files(ctx)
    ctx.shared["bundle.expected_files"] = expected
    declared = declared_paths(ctx.loaded.get(C.PUBLICATION))
    present = set(ctx.files)
    for rel in sorted(present - expected):
        ctx.collector.add(UNEXPECTED_FILE, safe_relpath(rel), "")
    for rel in sorted(expected - present):
        if rel in C.JSON_ARTIFACTS:
            continue  # reported by the schema family as schema.missing_artifact
        if rel not in declared and not is_unusable(ctx, rel):
            ctx.collector.add(MISSING_FILE, rel, "")
    ctx.collector.ran("bundle", files=len(present), expected=len(expected))
