"""The sealing tool (nerb_verify/seal.py) on broken bundles: it reseals what it can and never raises."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from contract_tests.conftest import REPO, verify_dir
from nerb_verify.seal import seal_bundle, seal_steps

SYNTHETIC = REPO / "fixtures" / "bundles" / "synthetic-smoke"


def test_sealing_a_bundle_whose_plan_cannot_be_rebuilt_leaves_the_plan_hash(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(SYNTHETIC, bundle)
    path = bundle / "benchmark-evidence.json"
    evidence = json.loads(path.read_text())
    evidence["performance"]["harnesses"].pop()  # a workload now names a missing harness
    path.write_text(json.dumps(evidence))
    report_before = json.loads((bundle / "performance-report.json").read_text())["plan_sha256"]
    seal_bundle(bundle)
    seal_steps(bundle, ["plan_sha256"])
    assert json.loads((bundle / "performance-report.json").read_text())["plan_sha256"] == report_before
    codes = {f.code for f in verify_dir(bundle).collector.findings}
    assert {"performance.plan_hash", "performance.unknown_reference"} <= codes


def test_sealing_a_comparison_of_the_wrong_kind_does_not_raise(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(REPO / "fixtures" / "bundles" / "nerb-enron", bundle)
    path = bundle / "benchmark-evidence.json"
    evidence = json.loads(path.read_text())
    evidence["performance"]["comparisons"][0]["comparison_kind"] = "cross_path_value"
    path.write_text(json.dumps(evidence))
    seal_bundle(bundle)
    assert verify_dir(bundle).verdict == "rejected"
