"""The one registry of finding codes.

Every finding the tool can emit has a code registered here, with a title, a severity, a help text and the
documentation page (family) that lists it. The registry (complete once :mod:`nerb_verify.catalog` is imported) feeds `nerb-verify explain CODE`, `--list-codes`, the SARIF
`rules[]` array and the docs, so a code that is not registered cannot be raised (``Collector.add`` refuses it).

Codes are stable, dotted, lower-case identifiers: ``<family>.<name>``. Families map one-to-one to the pages in
``docs/findings/<family>.md``. Check modules register their own codes at import time with :func:`register`.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

Severity = Literal["error", "warning", "note"]

DOCS_BASE = "docs/findings"

# Families: the documentation page for each, with a one-line description. Check modules add codes to these.
FAMILIES: dict[str, str] = {
    "usage": "Command-line usage and unreadable input paths (the tool could not verify).",
    "load": "Strict bounded JSON loading: file kind, size, encoding, grammar, limits, duplicates, numbers.",
    "bundle": "The bundle as a set of files: closed file set, symlinks, modes, declared artifacts.",
    "schema": "JSON Schema 2020-12 validation of every artifact kind.",
    "binding": "Hash bindings between artifacts (canonical object hashes and raw-byte file hashes).",
    "manifest": "Manifest v2 semantic rules: labels, quality plan, conformance plan, splits.",
    "quality": "Quality slices: counts, identities, bounds and every rate recomputed as an exact fraction.",
    "conformance": "Catalog conformance: recall recomputed, gate conditions, plan and bank binding.",
    "lineage": "Sealed-test access lineage, append-only chain, frozen targets and the audit chain.",
    "gate": "Promotion gate checks: targets, exact-copy actuals, rational comparisons, threshold policy.",
    "claim": "Promotion claims: provenance, scope, and conservative rounding of every claimed value.",
    "decision": "Decisions the verifier computes itself (known-bank contract, standalone redaction, performance).",
    "performance": "Performance statistics, stability tests, comparisons and break-even recomputed from samples.",
    "publication": "publication.json, the artifact list, bindings and the decision block.",
    "card": "bank-card.json: structure, self hash and binding to manifest and evidence.",
    "capacity": "capacity-decision.json: structure, self hash, attempt chain, attestation.",
    "summary": "summary.md and figures/*.svg: every printed number traced to a recomputed figure.",
    "privacy": "Privacy scan: direct identifiers, structured identifiers and local paths, in any encoding.",
    "allowlist": "The privacy allowlist file: structure and justification.",
}


class CodeInfo(NamedTuple):
    """What one finding code means: shown by ``explain``, listed in docs and SARIF rules."""

    code: str
    family: str
    title: str
    severity: Severity
    help: str

    @property
    def doc_anchor(self) -> str:
        """Relative documentation link for this code: the family page plus the anchor GitHub gives its heading.

        Pages use one heading per code, ``## `family.name` ``; GitHub's slug drops the backticks and the dot and keeps
        underscores, so ``quality.metric_mismatch`` is ``#qualitymetric_mismatch``.
        """
        return f"{DOCS_BASE}/{self.family}.md#{self.code.replace('.', '')}"


REGISTRY: dict[str, CodeInfo] = {}


def register(code: str, title: str, help: str, severity: Severity = "error") -> str:
    """Register a finding code and return it, so modules can write ``X = register("family.name", ...)``.

    The family is the part before the first dot and must be one of :data:`FAMILIES`. Registering the same code twice
    with different text is a programming error (two modules disagreeing about what a code means).
    """
    family = code.split(".", 1)[0]
    if family not in FAMILIES:
        raise ValueError(f"unknown finding family for code {code!r}")
    info = CodeInfo(code=code, family=family, title=title, severity=severity, help=help)
    existing = REGISTRY.get(code)
    if existing is not None and existing != info:
        raise ValueError(f"finding code {code!r} registered twice with different meanings")
    REGISTRY[code] = info
    return code


def get(code: str) -> CodeInfo:
    """Return the registered information for ``code`` (KeyError if the code was never registered)."""
    return REGISTRY[code]


def registered_codes() -> list[CodeInfo]:
    """The codes registered so far, sorted by family then code.

    This module imports nothing of the package (it is a leaf every check module imports); the complete list, with
    every registering module imported first, is :func:`nerb_verify.catalog.all_codes`.
    """
    return sorted(REGISTRY.values(), key=lambda info: (info.family, info.code))
