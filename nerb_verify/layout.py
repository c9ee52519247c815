"""Is the folder a v2 publication bundle at all? Asked once, before any check family runs.

Two answers stop verification early with exactly one finding and the verdict ``could_not_verify`` (exit 2), because
the checks that would follow describe a v2 bundle and would only bury the cause under dozens of consequences:

* ``usage.not_a_bundle``: the folder has no ``publication.json`` entry at all (an empty folder, the parent of a
  bundle, a checkout root). A ``publication.json`` that exists but is not a regular file is a finding about the
  bundle (``bundle.symlink``, ``bundle.special_file``, ...), not this.
* ``publication.unsupported_layout``: ``publication.json`` is an object in an older NERB layout. NERB never changed
  the publication's ``schema_version`` marker (``nerb.enron_publication``) between layouts; what changed is the
  ``decision`` block's key set and the figure set. Detection is deliberately conservative: the ``decision`` object
  holds **none** of the v2-only decision keys and at least one pre-v2 key, or the figure set (declared in
  ``artifacts`` or present under ``figures/``) holds a pre-v2 figure and **none** of the v2-only figures. A v2
  publication with one key removed or renamed is still verified (and gets its schema findings). A different
  ``schema_version`` is ``schema.unknown_version``, as for every artifact.

The message names differences by field name only, and only names from our own vocabulary (the v2 schema's decision
keys and figure paths, the pre-v2 names below); any other key or file is counted, never printed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from nerb_verify import context as C
from nerb_verify.checks.raw.files import FIGURES
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext
from nerb_verify.findings import Label

NOT_A_BUNDLE = register(
    "usage.not_a_bundle", "Not a publication bundle: no publication.json.",
    "The folder has no publication.json, so it is not a NERB publication bundle (an empty folder, the folder above a "
    "bundle, a repository root). Nothing else is checked or reported. Pass the folder that holds publication.json.")
UNSUPPORTED_LAYOUT = register(
    "publication.unsupported_layout", "Unsupported layout: publication.json predates the v2 bundle layout.",
    "publication.json uses an older NERB layout (its decision keys or its figure set predate v2). nerb-verify "
    "verifies v2 bundles only, so nothing else is checked and the verdict is 'could not verify' (exit 2), not a "
    "judgement of the evidence. The message names the decision keys and figures that differ, by field name.")

# The v2 decision block (schemas/nerb.enron_publication.json, properties.decision).
V2_DECISION_KEYS = (
    "capacity_gates_passed",
    "catalog_conformance_passed",
    "performance_gates_passed",
    "standalone_privacy_audit_outcome",
    "standalone_privacy_audit_status",
    "standalone_privacy_redaction_allowed",
    "standalone_privacy_redaction_quality_passed",
)
# The decision block of NERB's earlier publication layout (a fact of its history, not a schema we accept).
PRE_V2_DECISION_KEYS = (
    "audit_status",
    "bank_release_eligible",
    "capacity_gates_passed",
    "package_release_allowed",
    "performance_decision_grade",
    "quality_gates_passed",
    "release",
)
V2_FIGURES = FIGURES
PRE_V2_FIGURES = (
    "figures/leakage.svg",
    "figures/performance-scale.svg",
    "figures/quality-recall.svg",
)


def has_publication_entry(root: Path) -> bool:
    """Whether ``root`` has a directory entry named ``publication.json`` (of any kind; links are not followed).

    An entry that cannot be inspected for another reason than its absence counts as present, so the bundle walk
    reports it instead of this check hiding it.
    """
    try:
        os.lstat(root / C.PUBLICATION)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True


def _older_vocabulary(present: set[str], v2: Sequence[str], pre_v2: Sequence[str]
                      ) -> tuple[list[str], list[str]] | None:
    """(v2 names missing, pre-v2 names present) when ``present`` holds no v2-only name and some pre-v2-only one;
    None otherwise (a v2 layout, or one with a name renamed, is left to the ordinary schema findings)."""
    v2_only = set(v2) - set(pre_v2)
    pre_only = set(pre_v2) - set(v2)
    if present & v2_only or not present & pre_only:
        return None
    missing = [name for name in v2 if name not in present]
    unknown = [name for name in pre_v2 if name in present and name not in v2]
    return missing, unknown


def _decision_differences(publication: dict[str, object]) -> list[str] | None:
    decision = publication.get("decision")
    if not isinstance(decision, dict):
        return None
    keys = set(decision)
    difference = _older_vocabulary(keys, V2_DECISION_KEYS, PRE_V2_DECISION_KEYS)
    if difference is None:
        return None
    missing, unknown = difference
    others = len(keys - set(V2_DECISION_KEYS) - set(PRE_V2_DECISION_KEYS))
    parts = ["decision keys: missing " + ", ".join(missing), "unknown " + ", ".join(unknown)]
    if others:
        parts[-1] += f" and {others} other key(s)"
    return parts


def _figure_differences(ctx: VerifyContext, publication: dict[str, object]) -> list[str] | None:
    names = {rel for rel in ctx.files if rel.startswith(C.FIGURES_DIR + "/")}
    artifacts = publication.get("artifacts")
    for item in artifacts if isinstance(artifacts, list) else []:
        path = item.get("path") if isinstance(item, dict) else None
        if isinstance(path, str) and path.startswith(C.FIGURES_DIR + "/"):
            names.add(path)
    difference = _older_vocabulary(names, V2_FIGURES, PRE_V2_FIGURES)
    if difference is None:
        return None
    missing, unknown = difference
    return ["figures: missing " + ", ".join(missing), "unknown " + ", ".join(unknown)]


def check_layout(ctx: VerifyContext) -> bool:
    """After the bundle was opened: add ``publication.unsupported_layout`` and return False when the loaded
    ``publication.json`` is in a pre-v2 layout (see module docstring); True otherwise (verification goes on)."""
    publication = ctx.loaded.get(C.PUBLICATION)
    if not isinstance(publication, dict):
        return True  # missing, unparseable or not an object: the ordinary findings say so
    parts = (_decision_differences(publication) or []) + (_figure_differences(ctx, publication) or [])
    if not parts:
        return True
    ctx.collector.add(UNSUPPORTED_LAYOUT, C.PUBLICATION, "",
                      "Unsupported layout: publication.json predates the v2 bundle layout ({detail}).",
                      detail=Label("; ".join(parts)))
    return False
