"""Broken fixtures for the gate family: targets, exact-copy actuals, rational results, threshold hash and policy.

Every case that edits a check re-seals (the threshold hash and its copies are recomputed), so only the gate rule can
catch it. The threshold-hash cases edit after sealing and refresh only what a careless producer would.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from tools.fixturelib import make_case

EV = "benchmark-evidence.json"
MF = "benchmark-manifest.json"
OTHER_HASH = "sha256:" + "4" * 64
CHECKS = "/promotion/checks"
# Indices of the real bundle's non-performance checks (sorted by id).
CATALOG_COVERAGE = 1
CATALOGED_FALSE_NEGATIVE = 2
CLEAN_GIT = 5
NEGATIVE_FALSE_ALARM = 8
OVER_REDACTION = 10
PRIVACY_SCAN = 118


_REAL_EVIDENCE = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "bundles" / "nerb-enron"
                             / "benchmark-evidence.json").read_text(encoding="utf-8"))


def _set(pointer: str, value: Any, file: str = EV) -> dict[str, Any]:
    return {"op": "json_set", "file": file, "pointer": pointer, "value": value}


def _insert(index: int, value: dict[str, Any]) -> dict[str, Any]:
    return {"op": "json_insert", "file": EV, "pointer": f"{CHECKS}/{index}", "value": value}


def _check_index(check_id: str) -> int:
    """Position of a promotion check in the real evidence, by its id."""
    checks = _REAL_EVIDENCE["promotion"]["checks"]
    return next(i for i, c in enumerate(checks) if c["id"] == check_id)


_case = make_case  # the shared case builder (tools/fixturelib.py)


def _check(id_: str, category: str, target: str, operator: str, threshold: Any, actual: Any,
           passed: bool) -> dict[str, Any]:
    return {"id": id_, "category": category, "target": target, "operator": operator, "threshold": threshold,
            "actual": actual, "passed": passed}


EXEMPTIONS = {
    "gate.malformed": "Only reachable with schema-invalid checks (the schema requires every field and closes the "
                      "category and operator enums); unit-tested on in-memory dicts.",
    "gate.not_evaluated": "A gate figure is missing or null only when another family could not compute it, which "
                          "that family reports with its own code; unit-tested with figures removed in memory.",
}

CASES = [
    _case("gate.duplicate_id", "clean-git-twice",
          [_insert(6, _check("clean_git", "provenance", "/software/git_commit", "eq",
                             "f574b79caaf194f17ba8b8113939bd22c9380bc3", "f574b79caaf194f17ba8b8113939bd22c9380bc3",
                             True))],
          "A second check reuses the id clean_git on another target (resealed)."),
    _case("gate.duplicate_target", "git-dirty-gated-twice",
          [_insert(6, _check("clean_git_again", "provenance", "/software/git_dirty", "eq", False, False, True))],
          "A second gate on /software/git_dirty (resealed)."),
    _case("gate.category_target", "privacy-gate-as-provenance",
          [_set(f"{CHECKS}/{PRIVACY_SCAN}/category", "provenance")],
          "The privacy gate is filed under provenance, whose prefixes exclude /privacy/ (resealed)."),
    _case("gate.target", "negative-index-quirk",
          [_insert(CATALOGED_FALSE_NEGATIVE + 1, _check("cataloged_true_positive_floor", "quality",
                                                        "/quality/slices/-1/cataloged_true_positive", "gte", 0, 20,
                                                        True))],
          "A gate target uses index -1 (NERB's int() resolves it to the last slice; strict RFC 6901 does not) "
          "(resealed). A target that does not resolve is not exempt from the privacy path rule.",
          codes=["gate.target", "privacy.local_path"]),
    _case("gate.target", "leading-zero-index",
          [_insert(CATALOGED_FALSE_NEGATIVE + 1, _check("cataloged_true_positive_floor", "quality",
                                                        "/quality/slices/00/cataloged_true_positive", "gte", 0, 142,
                                                        True))],
          "A gate target uses index 00 (resealed)."),
    _case("gate.actual", "coverage-actual-one-ulp-up",
          [_set(f"{CHECKS}/{CATALOG_COVERAGE}/actual", math.nextafter(0.1048097631012204, 1.0))],
          "The catalog_coverage gate's actual is one ulp above the stored metric (resealed)."),
    _case("gate.actual", "git-dirty-actual-as-integer",
          [_set(f"{CHECKS}/{CLEAN_GIT}/actual", 0)],
          "The clean_git gate's actual is the integer 0 instead of the boolean false (resealed)."),
    _case("gate.comparison", "count-against-string",
          [_insert(6, _check("bank_patterns", "provenance", "/bank/active_patterns", "eq", "13201", 13201, True))],
          "A numeric target compared with a string threshold (resealed)."),
    _case("gate.result", "clean-git-flipped",
          [_set(f"{CHECKS}/{CLEAN_GIT}/passed", False)],
          "The clean_git gate says failed although git_dirty is false (resealed)."),
    _case("gate.result", "coverage-passes-on-rounded-double",
          [_set(f"{CHECKS}/{CATALOG_COVERAGE}/threshold", 0.1048097631012204),
           _set(f"{CHECKS}/{CATALOG_COVERAGE}/passed", True)],
          "catalog_coverage threshold set to the stored double: the double passes gte, but 146/1393 is below the "
          "decimal 0.1048097631012204, so the gate fails (resealed). The summary's printed threshold no longer "
          "traces either.", codes=["gate.result", "gate.threshold_policy", "summary.number_not_traced"]),
    _case("gate.thresholds_hash", "threshold-weakened-unsealed",
          [_set(f"{CHECKS}/{NEGATIVE_FALSE_ALARM}/threshold", 0.6)],
          "The false-alarm ceiling was weakened after the threshold set was hashed; publication list refreshed only, "
          "so the hash and both frozen copies are stale.", reseal=False, post_seal=["publication"],
          codes=["gate.thresholds_hash", "gate.thresholds_copy", "gate.threshold_policy"]),
    _case("gate.thresholds_hash", "hash-replaced-everywhere", [],
          "thresholds_sha256 replaced in evidence and manifest alike (manifest binding refreshed).",
          post_ops=[_set("/thresholds_sha256", OTHER_HASH), _set("/thresholds_sha256", OTHER_HASH, MF)],
          post_seal=["manifest_sha256", "publication"]),
    _case("gate.thresholds_copy", "score-stage-copy-differs", [],
          "The audit chain's score stage names another threshold set (chain hash recomputed).",
          post_ops=[{"op": "json_edit", "transform": "chain_set_rehash",
                     "args": {"pointer": "/audit_chain/score/thresholds_sha256", "value": OTHER_HASH}}],
          post_seal=["publication"]),
    _case("gate.vacuous_threshold", "over-redaction-lte-one",
          [_set(f"{CHECKS}/{OVER_REDACTION}/threshold", 1.0)],
          "over_redaction_rate <= 1.0 can never fail (resealed)."),
    _case("gate.threshold_policy", "false-alarm-ceiling-weakened",
          [_set(f"{CHECKS}/{NEGATIVE_FALSE_ALARM}/threshold", 0.6)],
          "The negative-document false-alarm ceiling is weakened from 0.50 to 0.60 and resealed: only the policy "
          "catches it."),
    _case("gate.threshold_policy", "coverage-floor-weakened",
          [_set(f"{CHECKS}/{CATALOG_COVERAGE}/threshold", 0.75)],
          "The catalog_coverage floor is weakened from 0.80 to 0.75 and resealed; the summary's printed 80% no "
          "longer traces to the frozen threshold either.",
          codes=["gate.threshold_policy", "summary.number_not_traced"]),
    _case("gate.missing_required", "clean-git-removed",
          [{"op": "json_remove", "file": EV, "pointer": f"{CHECKS}/{CLEAN_GIT}"}],
          "The clean_git gate was dropped (resealed)."),
    _case("gate.required_semantics", "cataloged-misses-threshold-one",
          [_set(f"{CHECKS}/{CATALOGED_FALSE_NEGATIVE}/threshold", 1)],
          "The cataloged_false_negative gate allows one miss instead of zero (resealed)."),
    _case("gate.performance_threshold_policy", "setup-budget-loosened",
          [_set(f"{CHECKS}/{_check_index('performance_29_p99_seconds')}/threshold", 121.0)],
          "An end-to-end p99 budget loosened from 120 s to 121 s and resealed: only the frozen budget catches it."),
    _case("gate.performance_threshold_policy", "direct-p99-loosened",
          [_set(f"{CHECKS}/{_check_index('performance_27_p99_seconds')}/threshold", 0.06)],
          "The document p99 budget loosened from 50 ms to 60 ms and resealed."),
    _case("gate.performance_required_missing", "document-p99-gate-dropped",
          [{"op": "json_remove", "file": EV,
            "pointer": f"{CHECKS}/{_check_index('performance_27_p99_seconds')}"}],
          "The headline document p99 gate dropped and resealed."),
    _case("gate.performance_required_semantics", "rss-gate-reversed",
          [_set(f"{CHECKS}/{_check_index('performance_20_peak_rss_bytes')}/operator", "gte"),
           _set(f"{CHECKS}/{_check_index('performance_20_peak_rss_bytes')}/passed", False)],
          "A peak-RSS gate turned into a lower bound (and marked failed, consistently) and resealed."),
]
