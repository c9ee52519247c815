"""Broken fixtures on the synthetic smoke base (``fixtures/bundles/synthetic-smoke``), each resealed.

Edits that a sweep over every leaf and array of the synthetic bundle found to be accepted, before the rule that
now rejects them existed.
"""

from __future__ import annotations

from tools.fixturelib import make_case

EVIDENCE = "benchmark-evidence.json"
SYNTHETIC = "synthetic-smoke"

CASES = [
    make_case("performance.bank_composition", "scale-class-renamed",
              [{"op": "json_set", "file": EVIDENCE, "pointer": "/performance/banks/1/composition/taxonomy/1/entity_class",
                "value": "persona"}],
              "The scale bank's person class renamed (resealed): its composition no longer mirrors the evaluated "
              "bank's.", base=SYNTHETIC),
    make_case("card.iterations_invalid", "selected-iteration-size-differs",
              [{"op": "json_set", "file": "bank-card.json", "pointer": "/iterations/0/canonical_json_bytes",
                "value": 104165}],
              "The selected iteration's canonical JSON size is not the published bank's.", base=SYNTHETIC),
    make_case("performance.descriptor_kind", "real-input-relabelled-synthetic",
              [{"op": "json_set", "file": EVIDENCE, "pointer": "/performance/inputs/0/kind",
                "value": "synthetic_input"}],
              "The real input relabelled as a synthetic one, with no generator (resealed).", base=SYNTHETIC),
]
