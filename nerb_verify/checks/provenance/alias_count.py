"""The card's active person-alias candidates are the evaluated bank's active aliases.

Spec 50 section 5.3: each ``person_alias`` candidate is one catalog key, and an active one becomes one active name
of the ``person`` entity with its own literal pattern; spec 50 section 5 (manifest ``bank`` section): the active
aliases are exactly the active person names (contacts and the email fallback count as canonical names). So the
card's ``candidate_funnel.by_type.person_alias.active`` counts the same names as the evaluated performance bank's
``active_aliases`` and as the ``aliases`` of its ``person`` taxonomy row. (The evidence's and the manifest's
``bank.active_aliases`` are bound to that bank by ``performance.unknown_reference`` and
``binding.provenance_mismatch``, so a copy that differs is their finding, not this one.)

``card.pattern_counts`` already holds the active person-alias candidates to the taxonomy's person literal patterns,
but nothing held the alias count itself: a coherent forger could restate the bank's active aliases (moving names
between aliases and canonical names in the taxonomy, every copy and hash redone) and the bundle still verified.
Reported once, on the card's count, naming which of the two disagrees, and only while the count is the person row's
literal patterns (otherwise the card's count itself is off: ``card.pattern_counts``); messages name the rule, never a
count.
"""

from __future__ import annotations

from typing import Any

from nerb_verify.checks.raw._access import as_int, dig
from nerb_verify.codes import register
from nerb_verify.context import BANK_CARD, VerifyContext

POINTER = "/candidate_funnel/by_type/person_alias/active"
# (differs from the bank's active_aliases, differs from its person row's aliases) -> message.
MESSAGES = {
    (True, True): "The active person-alias candidates differ from the evaluated bank's active aliases and from its "
                  "person aliases.",
    (True, False): "The active person-alias candidates differ from the evaluated bank's active aliases.",
    (False, True): "The active person-alias candidates differ from the evaluated bank's person aliases.",
}

ALIAS_COUNT = register(
    "card.alias_count_mismatch",
    "The card's active person-alias candidates are not the evaluated bank's active aliases.",
    "Each active person_alias candidate becomes one active person name with its own literal (spec 50 section 5.3), "
    "and the bank's active aliases are exactly its active person names (spec 50 section 5, bank section). So "
    "candidate_funnel.by_type.person_alias.active on the card equals the evaluated performance bank's "
    "active_aliases (to which the evidence's and manifest's bank are bound) and the aliases of its person taxonomy "
    "row. Fix: publish the card of the evaluated bank, or recount the bank's aliases.")


def evaluated_aliases(evidence: Any) -> tuple[int | None, int | None, int | None]:
    """(``active_aliases``, and the ``aliases`` and ``literal_patterns`` of the ``person`` taxonomy row) of the
    evidence's one evaluated performance bank; each None when it is not stated unambiguously (no or several
    evaluated banks, no or several person rows, a mistyped count)."""
    banks = dig(evidence, "performance", "banks")
    evaluated = [b for b in banks if isinstance(b, dict) and b.get("kind") == "evaluated_bank"] \
        if isinstance(banks, list) else []
    if len(evaluated) != 1:
        return None, None, None
    rows = dig(evaluated[0], "composition", "taxonomy")
    person = [r for r in rows if isinstance(r, dict) and r.get("entity_class") == "person"] \
        if isinstance(rows, list) else []
    row = person[0] if len(person) == 1 else {}
    return as_int(evaluated[0].get("active_aliases")), as_int(row.get("aliases")), as_int(row.get("literal_patterns"))


def run(ctx: VerifyContext) -> None:
    """Compare the card's active person-alias candidates with the evaluated bank's ``active_aliases`` and with its
    person row's ``aliases``. Skipped when the candidates are not the person row's literal patterns (that is
    ``card.pattern_counts``, one problem, one code) or a count is missing or mistyped (another family's finding)."""
    card = ctx.artifact(BANK_CARD)
    candidates = as_int(dig(card, "candidate_funnel", "by_type", "person_alias", "active"))
    stated, person, literals = evaluated_aliases(ctx.evidence)
    if candidates is None or (literals is not None and literals != candidates):
        return
    differs = (stated is not None and stated != candidates, person is not None and person != candidates)
    if any(differs):
        ctx.collector.add(ALIAS_COUNT, BANK_CARD, POINTER, MESSAGES[differs])
