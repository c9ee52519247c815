"""What every check family receives: the opened bundle, the parsed artifacts and one shared collector.

Check families are pure functions ``run(ctx: VerifyContext) -> None`` that read parsed artifacts and write findings,
recomputed figures and decisions into ``ctx.collector``. Families never read files themselves (the bundle was read
once, by :mod:`nerb_verify.bundle`) and never re-parse anything.

``ctx.figures`` is how families share exact recomputed values: keyed by the RFC 6901 pointer of the stored field in
the evidence (e.g. ``/quality/slices/0/metrics/precision`` -> ``Fraction(142, 149)``; a performance statistic in
seconds as a ``Fraction`` of integer nanoseconds), with ``None`` meaning "recomputed as not evaluated" (an empty
denominator). The gate family compares thresholds against these exact values instead of the stored doubles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nerb_verify.findings import Collector

# Bundle-relative file names of the artifact kinds (the real bundle's layout).
MANIFEST = "benchmark-manifest.json"
EVIDENCE = "benchmark-evidence.json"
PERFORMANCE_REPORT = "performance-report.json"
PUBLICATION = "publication.json"
BANK_CARD = "bank-card.json"
CAPACITY_DECISION = "capacity-decision.json"
SUMMARY = "summary.md"
FIGURES_DIR = "figures"
INVENTORIES_DIR = "inventories"

JSON_ARTIFACTS = (MANIFEST, EVIDENCE, PERFORMANCE_REPORT, PUBLICATION, BANK_CARD, CAPACITY_DECISION)


@dataclass
class VerifyOptions:
    """Options from the command line that change what is checked (never what is skipped)."""

    require_standalone_redaction_eligible: bool = False
    require_decision_grade: bool = False
    trusted_lineage: list[Any] | None = None
    trusted_lineage_path: str | None = None
    source_repo: Path | None = None
    # 2: scan the bundle's files for privacy in a forked child while the other families run (nerb_verify.prefork);
    # 1: everything in this process. The findings are the same either way.
    jobs: int = 1
    # The process verifies one bundle and exits (the console script): the cyclic garbage collector is off while it
    # runs and the loaded bundle is frozen out of its passes (nerb_verify.verify).
    single_run: bool = False


@dataclass
class VerifyContext:
    """The state of one verification run, shared by all check families (see module docstring)."""

    root: Path
    options: VerifyOptions
    collector: Collector
    # Every regular file of the bundle that was read: relative path -> LoadedFile (JSON parsed where applicable).
    files: dict[str, Any] = field(default_factory=dict)
    # Parsed JSON artifacts that loaded and passed their schema (None when missing, unloadable or schema-invalid).
    artifacts: dict[str, Any] = field(default_factory=dict)
    # Parsed JSON artifacts that loaded, whether or not their schema passed (for checks that must still look).
    loaded: dict[str, Any] = field(default_factory=dict)
    # Inventory files that loaded, keyed by inventory id (file stem minus nothing: ``inventories/<id>.json``).
    inventories: dict[str, Any] = field(default_factory=dict)
    # Exact recomputed values keyed by evidence pointer (see module docstring).
    figures: dict[str, Any] = field(default_factory=dict)
    # Anything else a family wants to hand to a later one (keyed by "<family>.<name>").
    shared: dict[str, Any] = field(default_factory=dict)

    def artifact(self, name: str) -> Any:
        """The schema-valid parsed artifact ``name`` (a bundle-relative file name), or None."""
        return self.artifacts.get(name)

    @property
    def manifest(self) -> dict[str, Any] | None:
        return self.artifacts.get(MANIFEST)

    @property
    def evidence(self) -> dict[str, Any] | None:
        return self.artifacts.get(EVIDENCE)
