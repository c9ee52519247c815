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


class VerifyOptions:
    """Options from the command line that change what is checked (never what is skipped)."""

    def __init__(self, require_standalone_redaction_eligible: bool = False, require_decision_grade: bool = False,
                 trusted_lineage: list[Any] | None = None, trusted_lineage_path: str | None = None,
                 source_repo: Path | None = None, jobs: int = 1, single_run: bool = False) -> None:
        """Keep the options as given; the defaults are a plain ``verify`` with no flag."""
        self.require_standalone_redaction_eligible: bool = require_standalone_redaction_eligible
        self.require_decision_grade: bool = require_decision_grade
        self.trusted_lineage: list[Any] | None = trusted_lineage
        self.trusted_lineage_path: str | None = trusted_lineage_path
        self.source_repo: Path | None = source_repo
        # 2: scan the bundle's files for privacy in a forked child while the other families run
        # (nerb_verify.prefork); 1: everything in this process. The findings are the same either way.
        self.jobs: int = jobs
        # The process verifies one bundle and exits (the console script): the cyclic garbage collector is off while
        # it runs and the loaded bundle is frozen out of its passes (nerb_verify.verify).
        self.single_run: bool = single_run


class VerifyContext:
    """The state of one verification run, shared by all check families (see module docstring)."""

    def __init__(self, root: Path, options: VerifyOptions, collector: Collector, files: dict[str, Any] | None = None,
                 artifacts: dict[str, Any] | None = None, loaded: dict[str, Any] | None = None,
                 inventories: dict[str, Any] | None = None, figures: dict[str, Any] | None = None,
                 shared: dict[str, Any] | None = None) -> None:
        """A run over ``root``; every dict not given starts empty (a dict given is kept, not copied)."""
        self.root: Path = root
        self.options: VerifyOptions = options
        self.collector: Collector = collector
        # Every regular file of the bundle that was read: relative path -> LoadedFile (JSON parsed where applicable).
        self.files: dict[str, Any] = {} if files is None else files
        # Parsed JSON artifacts that loaded and passed their schema (None when missing, unloadable or schema-invalid).
        self.artifacts: dict[str, Any] = {} if artifacts is None else artifacts
        # Parsed JSON artifacts that loaded, whether or not their schema passed (for checks that must still look).
        self.loaded: dict[str, Any] = {} if loaded is None else loaded
        # Inventory files that loaded, keyed by inventory id (file stem minus nothing: ``inventories/<id>.json``).
        self.inventories: dict[str, Any] = {} if inventories is None else inventories
        # Exact recomputed values keyed by evidence pointer (see module docstring).
        self.figures: dict[str, Any] = {} if figures is None else figures
        # Anything else a family wants to hand to a later one (keyed by "<family>.<name>").
        self.shared: dict[str, Any] = {} if shared is None else shared

    def artifact(self, name: str) -> Any:
        """The schema-valid parsed artifact ``name`` (a bundle-relative file name), or None."""
        return self.artifacts.get(name)

    @property
    def manifest(self) -> dict[str, Any] | None:
        return self.artifacts.get(MANIFEST)

    @property
    def evidence(self) -> dict[str, Any] | None:
        return self.artifacts.get(EVIDENCE)
