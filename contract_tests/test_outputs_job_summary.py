"""The job summary: fail-closed on bad reports, Markdown-safe, and the same exit policy as the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from nerb_verify.outputs import job_summary


def _report(path: Path, verdict: str, exit_code: int, severities: list[str], bundle: str = "b") -> Path:
    path.write_text(json.dumps({
        "schema_version": "nerb_verify.report.v1", "verdict": verdict, "exit_code": exit_code,
        "bundle": {"path": bundle, "files": []},
        "findings": [{"code": "x.y", "severity": s, "artifact": "a.json", "pointer": "", "message": "m"}
                     for s in severities],
        "recomputed": [{"pointer": "/quality/slices/0/metrics/precision", "figure": "precision",
                        "value": 0.5, "exact": "1/2", "status": "match", "published": 0.5, "artifact": "e"},
                       {"pointer": "/quality/slices/0/metrics/f1", "figure": "f1", "value": 0.25,
                        "exact": "1/4", "status": "mismatch", "published": 0.3, "artifact": "e"}],
        "decisions": {"standalone_redaction": {"eligible": False, "failed_gates": ["a", "b"]}},
        "checks_run": {"quality": {"status": "ran"}, "lineage": {"status": "not_evaluated"}},
    }), encoding="utf-8")
    return path


def _run(tmp_path: Path, *args: str) -> tuple[str, dict[str, str]]:
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    assert job_summary.main([*args, "--summary", str(summary), "--output", str(output)]) == 0
    outputs = dict(line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines())
    return summary.read_text(encoding="utf-8"), outputs


def test_rows_figures_and_outputs(tmp_path):
    report = _report(tmp_path / "r.json", "verified", 0, ["warning"], bundle="pub|lished<b>")
    text, outputs = _run(tmp_path, str(report), "--sarif", "x.sarif")
    assert outputs == {"verdict": "verified", "exit-code": "0", "sarif": "x.sarif"}
    assert "| pub\\|lished&lt;b&gt; | verified | 0 | 0 | 1 | 1 | 1 | 1/2 | not eligible (2 gate(s) failed) |" in text
    assert "| /quality/slices/0 | precision | 0.5 | match |" in text
    assert "| /quality/slices/0 | f1 | 0.25 | mismatch |" in text
    assert "0.3" not in text, "published values are not printed"


def test_fail_on_warning_and_exit_zero(tmp_path):
    report = _report(tmp_path / "r.json", "verified", 0, ["warning"])
    assert _run(tmp_path, str(report), "--fail-on", "warning")[1]["exit-code"] == "1"
    rejected = _report(tmp_path / "s.json", "rejected", 1, ["error"])
    _text, outputs = _run(tmp_path, str(rejected), "--exit-zero")
    assert outputs["exit-code"] == "0" and outputs["verdict"] == "rejected"


def test_bad_reports_fail_closed(tmp_path):
    (tmp_path / "empty.json").write_text("", encoding="utf-8")
    (tmp_path / "other.json").write_text(json.dumps({"verdict": "verified", "exit_code": 0}), encoding="utf-8")
    for name in ("empty.json", "other.json", "missing.json"):
        text, outputs = _run(tmp_path, str(tmp_path / name), "--exit-zero")
        assert outputs["verdict"] == "could_not_verify" and outputs["exit-code"] == "2", name
        assert "could not verify | 2 |" in text


def test_worst_run_wins_and_scan_counts(tmp_path):
    ok = _report(tmp_path / "ok.json", "verified", 0, [])
    inel = _report(tmp_path / "in.json", "ineligible", 3, [])
    _text, outputs = _run(tmp_path, str(ok), str(inel))
    assert outputs["verdict"] == "ineligible" and outputs["exit-code"] == "3"
    sarif = tmp_path / "scan.sarif"
    sarif.write_text(json.dumps({"version": "2.1.0", "runs": [{"results": [{"level": "error"}]}]}),
                     encoding="utf-8")
    text, outputs = _run(tmp_path, str(ok), "--scan-exit-code", "1", "--scan-sarif", str(sarif))
    assert outputs["verdict"] == "rejected" and outputs["exit-code"] == "1"
    assert "| repository | 1 | 1 error(s), 0 warning(s) |" in text
    # A scan that claims success but left no readable log is not a pass.
    _text, outputs = _run(tmp_path, str(ok), "--scan-exit-code", "0", "--scan-sarif", str(tmp_path / "nope"))
    assert outputs["exit-code"] == "2"


def test_nothing_checked_is_not_a_pass(tmp_path):
    text, outputs = _run(tmp_path)
    assert outputs["exit-code"] == "2" and "Nothing was checked" in text
