"""Broken fixtures for the card family (bank-card.json); every case is resealed (card_sha256, publication)."""

from __future__ import annotations

FILE = "bank-card.json"


def _case(code: str, slug: str, pointer: str, value: object, description: str) -> dict:
    return {"code": code, "slug": slug, "base": "nerb-enron",
            "ops": [{"op": "json_set", "file": FILE, "pointer": pointer, "value": value}],
            "reseal": True, "description": description, "expect": {"codes": [code]}}


CASES = [
    {"code": "card.hash_mismatch", "slug": "card-hash-zeroed", "base": "nerb-enron", "ops": [], "reseal": False,
     "post_ops": [{"op": "json_set", "file": FILE, "pointer": "/card_sha256", "value": "sha256:" + "0" * 64}],
     "post_seal": ["publication"], "description": "card_sha256 does not seal the card (publication list refreshed).",
     "expect": {"codes": ["card.hash_mismatch"]}},
    _case("card.funnel_not_conserved", "reason-count-inflated", "/candidate_funnel/by_primary_reason/draft_capacity",
          63535, "One primary-reason count is one higher, so reasons no longer sum to the candidate total."),
    dict(_case("card.stats_not_conserved", "regex-count-inflated", "/bank/stats/by_kind/regex", 3,
               "Literal plus regex patterns no longer equal the pattern total (and the fallback candidates are 2)."),
         expect={"codes": ["card.pattern_counts", "card.stats_not_conserved"]}),
    {"code": "card.pattern_counts", "slug": "by-kind-regex-shifted", "base": "nerb-enron",
     "ops": [{"op": "json_set", "file": FILE, "pointer": "/bank/stats/by_kind/literal", "value": 18111},
             {"op": "json_set", "file": FILE, "pointer": "/bank/stats/by_kind/regex", "value": 3}],
     "reseal": True, "expect": {"codes": ["card.pattern_counts"]},
     "description": "A coherent forgery of the card's bank stats: one literal pattern recounted as regex (literal "
                    "+ regex still the pattern total), resealed; the bank's regex patterns are its two fallbacks."},
    {"code": "card.pattern_counts", "slug": "active-fallback-shifted", "base": "nerb-enron",
     "ops": [{"op": "json_set", "file": FILE, "pointer": p, "value": v} for p, v in (
         ("/candidate_funnel/by_type/contact/active", 11999), ("/candidate_funnel/by_type/contact/total", 68037),
         ("/candidate_funnel/by_type/contact_fallback/active", 2),
         ("/candidate_funnel/by_type/contact_fallback/total", 2),
         ("/candidate_funnel/by_primary_reason/recurring_valid_contact", 11999),
         ("/candidate_funnel/by_primary_reason/bounded_structured_email_fallback", 2),
         ("/bank/stats/by_kind/literal", 18111), ("/bank/stats/by_kind/regex", 3))],
     "reseal": True, "expect": {"codes": ["card.pattern_counts"]},
     "description": "A coherent forgery of the funnel: one active contact literal becomes a second active email "
                    "fallback regex, with type totals, primary reasons and the bank's by-kind counts rewritten to "
                    "match (every funnel and stats sum holds), resealed; the evaluated bank has 12,000 contact "
                    "literals and 1 regex."},
    {"code": "card.alias_count_mismatch", "slug": "bank-aliases-restated-as-names", "base": "nerb-enron",
     "ops": [{"op": "json_set", "file": f, "pointer": p, "value": v} for f, p, v in (
         ("benchmark-manifest.json", "/bank/active_aliases", 1190),
         ("benchmark-evidence.json", "/bank/active_aliases", 1190),
         *((f, base + tail, v) for f, base in (("benchmark-evidence.json", "/performance/banks/0"),
                                               ("performance-report.json", "/performance/banks/0"))
           for tail, v in (("/active_aliases", 1190), ("/composition/taxonomy/1/aliases", 1190),
                           ("/composition/taxonomy/1/canonical_names", 10))))],
     "reseal": True, "expect": {"codes": ["card.alias_count_mismatch"]},
     "description": "A coherent forgery of the bank's aliases: ten active person aliases restated as canonical "
                    "names in every copy of the bank (manifest, evidence, evaluated performance bank and its "
                    "taxonomy, performance report), names and patterns unchanged, resealed; the card's funnel "
                    "still has 1,200 active person-alias candidates."},
    _case("card.iterations_invalid", "iteration-count-off", "/builder/iteration_count", 4,
          "The builder claims four iterations; the log has three."),
    _case("card.iterations_invalid", "parent-unknown", "/iterations/2/parent_id", "iteration_09_unknown",
          "An iteration names a parent that is not an earlier iteration."),
    _case("card.validation_inconsistent", "coverage-rounded", "/development_validation/contact/catalog_coverage",
          0.871, "The development catalog coverage is not the exact double of cataloged / gold spans."),
    _case("card.validation_inconsistent", "open-world-precision-on-weak-labels",
          "/development_validation/contact/precision", 0.99,
          "A development precision published although the labels are structured_weak (no open-world support)."),
    _case("card.validation_inconsistent", "person-evaluated-without-documents",
          "/development_validation/person/evaluated", True,
          "Person marked evaluated although its validation has no documents."),
    _case("card.validation_inconsistent", "validation-run-not-the-selected-iterations",
          "/development_validation/quality_run_sha256", "sha256:" + "5" * 64,
          "The development validation names another quality run than the selected iteration."),
    _case("card.validation_inconsistent", "development-labels-claimed-independent",
          "/development_validation/label_strength", "independent",
          "Development labels claimed independent although the manifest has no independent validation labels."),
    _case("card.validation_inconsistent", "open-world-support-on-weak-labels",
          "/development_validation/open_world_metrics_supported", True,
          "Open-world metrics claimed as supported on structured_weak labels."),
    _case("card.validation_inconsistent", "person-reason-claims-weak-spans",
          "/development_validation/person/reason_code", "structured_weak_person_spans",
          "The person reason code says person was evaluated on weak spans although it has no gold spans."),
    _case("card.validation_inconsistent", "unsupported-reason-not-the-labels",
          "/development_validation/unsupported_reason_code", "not_requested",
          "Open-world metrics are unsupported on structured_weak labels, but the reason given is another one."),
    _case("card.bank_mismatch", "other-bank-id", "/bank/id", "enron_other_bank",
          "The card names another bank than the evidence and manifest."),
    _case("card.bank_version_format", "version-with-free-text", "/bank/version", "2026.07.10 final build",
          "bank.version holds free text instead of a version token."),
    _case("card.source_mismatch", "other-dataset-split", "/source/dataset_split", "validation",
          "The card says the bank was built from another split than the capacity run read."),
    _case("card.builder_mismatch", "other-candidate-ledger", "/builder/candidate_ledger_sha256", "sha256:" + "7" * 64,
          "The card names another candidate ledger than the capacity build phase."),
    _case("card.conformance_mismatch", "negative-cases-differ", "/catalog_conformance/negative_cases", 1211,
          "The card's conformance block differs from the evidence's."),
    _case("card.benchmark_version_mismatch", "other-benchmark", "/benchmark_version", "enron_next",
          "The card was built for another benchmark version."),
    _case("card.validation_inconsistent", "validation-documents-exceed-split",
          "/development_validation/contact/documents", 51724,
          "Development validation claims one document more than the validation split holds (a sweep find)."),
]
