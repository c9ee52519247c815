"""Syrupy snapshots of the text and JSON outputs: the real bundle and three broken ones.

The JSON snapshot keeps every field except the long ``recomputed`` list, which is summarised by its length, its
status counts and a digest (any change to any recomputed figure still changes the snapshot, through the digest and
through ``report_sha256``). Paths are fixed display names, so the snapshots do not depend on temporary folders.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nerb_verify.context import VerifyOptions  # noqa: E402
from nerb_verify.report import build_report, render_text  # noqa: E402
from nerb_verify.verify import verify_bundle  # noqa: E402
from tools.fixturelib import materialize  # noqa: E402

BROKEN = {
    "naive-count": {"base": "nerb-enron", "reseal": False, "ops": [
        {"op": "json_set", "file": "benchmark-evidence.json", "pointer": "/quality/slices/0/true_positive",
         "value": 143}]},
    "hash-aware-rate-one-ulp": {"base": "nerb-enron", "reseal": True, "ops": [
        {"op": "json_set", "file": "benchmark-evidence.json", "pointer": "/quality/slices/0/metrics/precision",
         "value": 0.953020134228188}]},
    "structural-duplicate-key": {"base": "nerb-enron", "reseal": False, "ops": [],
                                 "post_ops": [{"op": "replace_text", "file": "benchmark-evidence.json",
                                               "old": '"recall": 1.0,', "new": '"recall": 0.5,\n    "recall": 1.0,'}],
                                 "post_seal": ["publication"]},
}


def _summarised(report: dict) -> dict:
    recomputed = report["recomputed"]
    out = dict(report)
    out["recomputed"] = {
        "count": len(recomputed),
        "status": {s: sum(1 for r in recomputed if r["status"] == s) for s in ("match", "mismatch", "not_evaluated")},
        "sha256": hashlib.sha256(json.dumps(recomputed, sort_keys=True).encode()).hexdigest(),
    }
    return out


def _outputs(path: Path, name: str) -> tuple[str, dict]:
    result = verify_bundle(path, VerifyOptions(), display_root=name)
    return render_text(result), _summarised(build_report(result))


def test_real_bundle_outputs(real_bundle: Path, snapshot) -> None:
    text, report = _outputs(real_bundle, "fixtures/bundles/nerb-enron")
    assert text == snapshot(name="text")
    assert report == snapshot(name="json")


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_bundle_outputs(name: str, tmp_path: Path, snapshot) -> None:
    bundle = materialize(BROKEN[name], tmp_path)
    text, report = _outputs(bundle, name)
    assert report["verdict"] == "rejected"
    assert text == snapshot(name="text")
    assert report == snapshot(name="json")
