"""Broken fixtures for the early layout questions (nerb_verify.layout): not a bundle at all, or an older layout.

Both stop verification with exactly one finding and the verdict ``could_not_verify`` (exit 2).
"""

from __future__ import annotations

SVG = '<svg xmlns="http://www.w3.org/2000/svg"/>\n'
PLACEHOLDER = {"sha256": "sha256:" + "0" * 64, "bytes": 0}

# The decision block of NERB's earlier publication layout, with the values the real bundle's evidence supports.
PRE_V2_DECISION = {
    "audit_status": "quality_gates_failed",
    "bank_release_eligible": False,
    "capacity_gates_passed": True,
    "package_release_allowed": False,
    "performance_decision_grade": True,
    "quality_gates_passed": False,
    "release": "do_not_ship",
}

CASES = [
    {"code": "usage.not_a_bundle", "slug": "publication-deleted", "base": "nerb-enron",
     "ops": [{"op": "delete", "file": "publication.json"}], "reseal": False,
     "description": "A folder of artifacts without publication.json is not a publication bundle: one finding, "
                    "nothing else checked.",
     "expect": {"codes": ["usage.not_a_bundle"], "verdict": "could_not_verify"}},
    {"code": "publication.unsupported_layout", "slug": "pre-v2-decision-keys", "base": "nerb-enron",
     "ops": [{"op": "json_set", "file": "publication.json", "pointer": "/decision", "value": PRE_V2_DECISION}],
     "reseal": True,
     "description": "publication.json carries NERB's earlier decision block (package_release_allowed, release, ...) "
                    "instead of the v2 keys (resealed): an unsupported layout, not a pile of schema errors.",
     "expect": {"codes": ["publication.unsupported_layout"], "verdict": "could_not_verify",
                "findings": [{"code": "publication.unsupported_layout", "pointer": ""}]}},
    {"code": "publication.unsupported_layout", "slug": "pre-v2-figures", "base": "nerb-enron",
     "ops": [{"op": "delete", "file": "figures/bank-coverage.svg"},
             {"op": "delete", "file": "figures/known-bank-contract.svg"},
             {"op": "delete", "file": "figures/standalone-redaction.svg"},
             {"op": "write_text", "file": "figures/leakage.svg", "text": SVG},
             {"op": "write_text", "file": "figures/quality-recall.svg", "text": SVG},
             {"op": "json_remove", "file": "publication.json", "pointer": "/artifacts/7"},
             {"op": "json_remove", "file": "publication.json", "pointer": "/artifacts/5"},
             {"op": "json_set", "file": "publication.json", "pointer": "/artifacts/4",
              "value": {"path": "figures/leakage.svg", **PLACEHOLDER}},
             {"op": "json_insert", "file": "publication.json", "pointer": "/artifacts/6",
              "value": {"path": "figures/quality-recall.svg", **PLACEHOLDER}}],
     "reseal": True,
     "description": "The bundle publishes NERB's earlier figure set (leakage, quality-recall, performance-scale) "
                    "instead of the v2 figures (resealed): an unsupported layout.",
     "expect": {"codes": ["publication.unsupported_layout"], "verdict": "could_not_verify"}},
]
