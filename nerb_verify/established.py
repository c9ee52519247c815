"""Whether a verification establishes the verifier's decisions, and the words every output uses when it does not.

The decision families always run and record what they recompute (``collector.decisions``), so a rejected bundle's
in-memory result still holds a known-bank "PASS" or a standalone-redaction gate table. Those are not findings about
the evidence: once any error finding rejects the bundle, no decision drawn from it is established. Every output
therefore shows a rejected (or unverifiable) bundle's decisions as ``not established (<reason>)``: the text output,
the JSON report (each decision becomes ``{"established": false, "status": ...}``) and the job summary built from it.
Verified and ineligible bundles keep their decisions as computed.
"""

from __future__ import annotations

from typing import Any

NOT_ESTABLISHED: dict[str, str] = {
    "rejected": "not established (bundle rejected)",
    "could_not_verify": "not established (bundle could not be verified)",
}

# Text labels of the decisions (names are written by our own families), in the order the text output lists them.
LABELS: dict[str, str] = {
    "known_bank_contract": "Known-bank contract",
    "standalone_redaction": "Standalone redaction",
    "performance": "Performance decision",
    "decision_grade": "Decision grade",
    "claims": "Claims",
}


def not_established(verdict: str) -> str | None:
    """The status text of every decision under ``verdict``, or None when the verdict establishes them."""
    return NOT_ESTABLISHED.get(verdict)


def shown_decisions(decisions: dict[str, Any], verdict: str) -> dict[str, Any]:
    """The decisions as the report prints them: as computed, or each withheld as not established."""
    status = not_established(verdict)
    if status is None:
        return decisions
    return {name: {"established": False, "status": status} for name in sorted(decisions)}


def text_lines(decisions: dict[str, Any], verdict: str) -> list[str]:
    """``<Label>: not established (...)`` for each decision of a verdict that establishes none (else no line)."""
    status = not_established(verdict)
    if status is None:
        return []
    names = [n for n in LABELS if n in decisions] + sorted(n for n in decisions if n not in LABELS)
    return [f"{LABELS.get(name, name.replace('_', ' ').capitalize())}: {status}" for name in names]
