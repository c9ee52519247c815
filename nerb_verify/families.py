"""The check families, in the order a verification runs them.

Each entry names a family (its finding codes start with that name) and the module whose ``run(ctx)`` implements it.
Importing this module imports every check module, which registers every finding code.
"""

from __future__ import annotations

from collections.abc import Callable

from nerb_verify.checks import capacity, performance, quality
from nerb_verify.checks.cross_artifact import binding, decisions, gates
from nerb_verify.checks.presentation import claims, publication, summary
from nerb_verify.checks.provenance import bank_card, lineage, manifest_rules
from nerb_verify.checks.quality import conformance
from nerb_verify.checks.raw import files, privacy_scan, schema_check
from nerb_verify.context import VerifyContext

FamilyRun = Callable[[VerifyContext], None]

# Order matters only where a family reads ``ctx.figures`` or ``ctx.shared`` written by an earlier one:
# quality/conformance/performance before gates, claims and decisions; everything before summary and publication.
FAMILY_ORDER: list[tuple[str, FamilyRun]] = [
    ("bundle", files.run),
    ("schema", schema_check.run),
    ("binding", binding.run),
    ("manifest", manifest_rules.run),
    ("quality", quality.run),
    ("conformance", conformance.run),
    ("lineage", lineage.run),
    ("performance", performance.run),
    ("gate", gates.run),
    ("claim", claims.run),
    ("decision", decisions.run),
    ("card", bank_card.run),
    ("capacity", capacity.run),
    ("publication", publication.run),
    ("summary", summary.run),
    ("privacy", privacy_scan.run),
]
