"""The publication's gold counts come from the charter's headline slice, so that slice must be there and be the panel.

Spec 30 section A.5: ``scope.gold_sample_documents`` and ``scope.gold_spans`` are the ``documents`` and ``gold_spans``
of the evidence slice with the fixed id ``person_contact_all_test``; they are null only when quality was not
evaluated and there are no slices. Spec 50 section 7.4 and spec 10 section 4 give that id to the combined
``person_contact`` panel on the sealed test split, cohort ``all`` (the charter's one combined gold panel, measured
once across both active classes). The publication family compares the two counts with that slice
(``publication.scope_mismatch``), but only when it exists: a coherent forger who renames the slice (evidence and
manifest plan alike, resealed), or swaps its id with a class slice's, leaves the published gold counts with no panel
behind them, and nothing else notices. So, when the evidence holds quality slices, the slice with the headline id
exists and is the combined ``person_contact`` slice of the test split and cohort ``all`` (for a promotion-gate slice
only the class is read here: the gate rules, ``manifest.invalid_gate_slice``, own its split and cohort); otherwise
each published gold count is reported at its pointer. Messages name the rule, never a value or an id.
"""

from __future__ import annotations

from typing import Any

from nerb_verify import context as C
from nerb_verify.checks.raw._access import as_dict, as_list, dig
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext
from nerb_verify.pointers import join

HEADLINE_SLICE = "person_contact_all_test"
# What the headline id names (spec 50 section 7.4): the combined panel, sealed test split, every cohort.
HEADLINE_PANEL = {"entity_class": "person_contact", "split_role": "test", "cohort": "all"}
GOLD_FIELDS = ("gold_sample_documents", "gold_spans")

GOLD_SLICE_UNSUPPORTED = register(
    "publication.gold_slice_unsupported",
    "The publication's gold counts have no headline panel slice to be taken from.",
    "The publication's scope.gold_sample_documents and scope.gold_spans are the documents and gold spans of the "
    "evidence slice person_contact_all_test (spec 30 section A.5), the id the benchmark gives its combined "
    "person_contact panel on the test split, cohort all (spec 50 section 7.4). When the evidence holds quality "
    "slices, that slice must exist and be that panel; a renamed headline slice, or its id moved to a class slice, "
    "leaves the published gold counts unsupported. Fix: keep the headline id on the combined test panel.")


def headline_problem(slices: list[Any]) -> str | None:
    """Why ``slices`` (the evidence's quality slices) cannot back the publication's gold counts, or None when they
    can: no slices at all (the insufficient-support case, or another family's finding), or a slice with the headline
    id whose entity class, split role and cohort are the combined test panel's (for a promotion-gate slice only the
    entity class: the gate rules already hold a gate slice to the test split and cohort all)."""
    items = [s for s in slices if isinstance(s, dict)]
    if not items:
        return None
    headline = next((s for s in items if s.get("id") == HEADLINE_SLICE), None)
    if headline is None:
        return "The evidence holds quality slices but none with the headline id the gold counts are taken from."
    # A gate slice's split and cohort are the gate rules' (manifest.invalid_gate_slice): one problem, one code.
    keys = ["entity_class"] if headline.get("promotion_gate") is True else list(HEADLINE_PANEL)
    if any(headline.get(key) != HEADLINE_PANEL[key] for key in keys):
        return "The slice with the headline id is not the combined test panel the gold counts describe."
    return None


def run(ctx: VerifyContext) -> None:
    """Report ``publication.gold_slice_unsupported`` at each published gold count when the evidence's slices cannot
    back it (see module docstring); silent when the publication or the evidence's slices are missing or mistyped
    (other families report those)."""
    scope = as_dict(dig(ctx.artifact(C.PUBLICATION), "scope"))
    slices = as_list(dig(ctx.evidence, "quality", "slices"))
    if scope is None or slices is None:
        return
    problem = headline_problem(slices)
    if problem is None:
        return
    for field in GOLD_FIELDS:
        if field in scope:
            ctx.collector.add(GOLD_SLICE_UNSUPPORTED, C.PUBLICATION, join(["scope", field]), problem)
