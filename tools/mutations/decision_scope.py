"""Broken fixtures for the decision-grade scope (nerb_verify/decision_scope.py, docs/decision-grade.md).

A declared smoke bundle verifies without the decision-grade requirements; these cases check that the declaration
cannot be abused: a decision report relabelled as smoke, a smoke bundle that claims more than it has, a capacity
binding without a capacity decision, a decision bundle without one. Every case is hash-aware (resealed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tools.fixturelib import make_case

EVIDENCE = "benchmark-evidence.json"
REPORT = "performance-report.json"
PUBLICATION = "publication.json"
SYNTHETIC = "synthetic-smoke"
REQUIREMENTS = ["capacity.not_evaluated", "manifest.missing_gate_slice", "performance.decision_matrix",
                "performance.not_decision_profile", "performance.sweep_uncontrolled",
                "performance.value_model_policy"]


def _set(file: str, pointer: str, value: Any) -> dict[str, Any]:
    return {"op": "json_set", "file": file, "pointer": pointer, "value": value}


SMOKE_GRADE = {"passed": False, "failure_codes": ["smoke_profile_nonpromotable"]}
_REAL = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "bundles" / "nerb-enron" / EVIDENCE).read_text())


def _flags_cleared() -> list[dict[str, Any]]:
    """Every workload of the real evidence made non-decision and non-gate, comparisons and models removed."""
    ops: list[dict[str, Any]] = []
    for index, _workload in enumerate(_REAL["performance"]["workloads"]):
        for key in ("decision_grade", "promotion_gate"):
            ops.append(_set(EVIDENCE, f"/performance/workloads/{index}/{key}", False))
    ops.append(_set(EVIDENCE, "/performance/comparisons", []))
    ops.append(_set(EVIDENCE, "/performance/breakeven_models", []))
    return ops


UNSTABLE = "compare_scale_1000_direct_vs_control_scale_1000_direct_p99_seconds"

# A valid control, not a broken fixture: the real bundle with one stability cell honestly unstable. The control twin
# of scale_1000_direct is 10 % slower (whole ns), its stats, the comparison's values, gap, log ratio, p-value over
# all 1,024 swaps and result ("unstable") recomputed, the report's grade failed with the recomputed failure code,
# the publication's performance gates and the summary's verdict set to failed, resealed. The charter calls the cell
# nonpromotable, not invalid; nothing the bundle states is false, so it verifies and reports the decision.
HONEST_UNSTABLE = {
    "code": "performance.comparison_failed", "slug": "honest-unstable-cell-is-an-outcome", "base": "nerb-enron",
    "ops": [{"op": "json_edit", "transform": "perf_scale_samples",
             "args": {"comparison": UNSTABLE, "numerator": 11, "denominator": 10, "honest": True}},
            _set(PUBLICATION, "/decision/performance_gates_passed", False),
            {"op": "replace_text", "file": "summary.md", "old": "performance decision-grade gates: passed",
             "new": "performance decision-grade gates: failed"}],
    "reseal": True, "post_ops": [{"op": "json_edit", "transform": "perf_reseal_plan"}], "post_seal": ["publication"],
    "description": "VALID CONTROL. A decision run that honestly reports one unstable stability cell (recomputed gap "
                   "and permutation test, report grade failed with comparison_regression_or_noise, publication and "
                   "summary say the performance gates failed, nothing promoted or claimed): verified, decision grade "
                   "not eligible with its reasons, exit 3 only under --require-decision-grade.",
    "expect": {"verdict": "verified", "codes": [], "decisions": {
        "decision_grade": {"scope": "not_claimed", "eligible": False,
                           "blocked_by": ["decision_grade_not_claimed", "unmet_requirements",
                                          "performance_grade_not_passed"],
                           "unmet": [{"code": "performance.comparison_failed", "artifact": EVIDENCE,
                                      "pointer": "/performance/comparisons/27/result"},
                                     {"code": "performance.decision_matrix", "artifact": EVIDENCE,
                                      "pointer": "/performance/comparisons/27"}]},
        "performance": {"decision_grade": "failed", "report_failure_codes": ["comparison_regression_or_noise"]}}},
}

CASES = [
    HONEST_UNSTABLE,
    make_case("performance.smoke_profile_shape", "real-relabelled-smoke",
              [_set(REPORT, "/profile", "smoke"), _set(REPORT, "/decision_grade", SMOKE_GRADE),
               _set(PUBLICATION, "/decision/performance_gates_passed", False)],
              "The real decision report relabelled as a smoke run (grade and publication made consistent, "
              "resealed) to escape the decision-grade requirements: its decision cells, comparisons and value "
              "model give it away, and so does its runner's recorded command line (--profile decision).",
              codes=["performance.command_profile_mismatch", "performance.smoke_profile_shape"]),
    make_case("performance.smoke_profile_shape", "real-relabelled-smoke-flags-cleared",
              [_set(REPORT, "/profile", "smoke"), _set(REPORT, "/decision_grade", SMOKE_GRADE),
               _set(PUBLICATION, "/decision/performance_gates_passed", False)] + _flags_cleared(),
              "The real decision report relabelled as smoke with every decision and gate flag cleared and the "
              "comparisons and value model removed (resealed): its control twins, its decision-only cells and its "
              "1,000-sample cells are still not the smoke plan (summary.md still reports what it measured).",
              codes=["performance.smoke_profile_shape", "summary.number_not_traced", "summary.verdict_mismatch"]),
    make_case("capacity.not_evaluated", "real-capacity-removed",
              [{"op": "delete", "file": "capacity-decision.json"},
               {"op": "json_remove", "file": PUBLICATION, "pointer": "/artifacts/3"},
               _set(PUBLICATION, "/bindings/capacity_decision_sha256", None),
               _set(PUBLICATION, "/decision/capacity_gates_passed", False)],
              "The real (decision-profile) bundle without its capacity decision, every binding made consistent: a "
              "decision-grade requirement, so it rejects (and summary.md still reports the capacity gates).",
              codes=["capacity.not_evaluated", "summary.verdict_mismatch"]),
    make_case("performance.not_decision_profile", "smoke-verifier-passed",
              [_set(EVIDENCE, "/verifier/passed", True)],
              "A smoke bundle whose evidence says the verifier passed: it no longer declares itself smoke, so every "
              "unmet decision-grade requirement is an error (plus the decision-grade prerequisites).",
              base=SYNTHETIC, codes=sorted(REQUIREMENTS + ["claim.decision_grade_prerequisite",
                                                           "lineage.trusted_lineage_required"])),
    make_case("publication.binding_mismatch", "smoke-capacity-binding-without-file",
              [_set(PUBLICATION, "/bindings/capacity_decision_sha256", "sha256:" + "a" * 64)],
              "A capacity binding while the bundle has no capacity decision.", base=SYNTHETIC),
    make_case("publication.decision_mismatch", "smoke-capacity-gates-claimed",
              [_set(PUBLICATION, "/decision/capacity_gates_passed", True)],
              "capacity_gates_passed true without a capacity decision (not evaluated is never a pass).",
              base=SYNTHETIC),
    make_case("performance.decision_grade_mismatch", "smoke-graded-on-cells",
              [_set(REPORT, "/decision_grade", {"passed": False,
                                                "failure_codes": ["decision_cell_count", "finite_breakeven"]})],
              "A smoke report's decision_grade must be exactly smoke_profile_nonpromotable (spec 20 §10.1).",
              base=SYNTHETIC),
    make_case("gate.performance_threshold_policy", "smoke-throughput-threshold-loosened",
              [_set(EVIDENCE, "/promotion/checks/2/threshold", 1e-06)],
              "A smoke bundle's documents/s gate loosened from the frozen 100 to 1e-06 and resealed: the budgets "
              "bind every gate, decision cell or not.", base=SYNTHETIC),
    make_case("summary.render_mismatch", "smoke-summary-rows-swapped", [],
              "Our own rendered summary with two verified counts swapped between the contact and person rows, "
              "publication list refreshed: every number still traces by value, only the re-render sees it.",
              reseal=False, base=SYNTHETIC,
              post_ops=[{"op": "replace_text", "file": "summary.md", "old": "| Contact | 21 | 21 |",
                         "new": "| Contact | 24 | 21 |"},
                        {"op": "replace_text", "file": "summary.md", "old": "| Person | 24 | 21 |",
                         "new": "| Person | 21 | 21 |"}],
              post_seal=["publication"],
              codes=["summary.cell_mismatch", "summary.number_misplaced", "summary.render_mismatch"]),
    make_case("performance.smoke_profile_shape", "smoke-cell-dropped",
              [{"op": "json_remove", "file": EVIDENCE, "pointer": "/performance/workloads/8"}],
              "A smoke run that quietly drops one of the seven frozen smoke cells (scale_1000_direct), resealed.",
              base=SYNTHETIC),
    make_case("performance.smoke_profile_shape", "smoke-setup-cell-two-work-units",
              [{"op": "json_set", "file": EVIDENCE, "pointer": "/performance/workloads/0/work_per_sample", "value": 2}],
              "The smoke cold-compile cell claims two work units per sample (its rates are null, so nothing else "
              "moves), resealed. Found by the every-artifact nudge sweep.", base=SYNTHETIC),
]
