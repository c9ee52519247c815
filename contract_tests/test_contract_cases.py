"""Run the attack simulator's cases (contract_tests/cases, written by tools/mutate.py).

Every mutant must be rejected with its required codes (or at least one code of each required family), every
control must verify, and no output may contain a traceback or an injected value (in any of its encodings).

Point the runner at another implementation with ``NERB_VERIFY_CLI="some-verifier --flags"``: each case is then run
as ``$NERB_VERIFY_CLI verify <bundle>`` in a subprocess and only the exit code and the absence of tracebacks and
injected values are checked (codes are ours).
"""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
import textwrap
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import jsonschema
import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tools import mutate  # noqa: E402
from tools.fixturelib import materialize, unmask  # noqa: E402

CASES = REPO / "contract_tests" / "cases"
CASE_DIRS = sorted(p.parent for p in CASES.rglob("case.json"))
SCHEMA = json.loads((REPO / "contract_tests" / "case.schema.json").read_text())
EXTERNAL = os.environ.get("NERB_VERIFY_CLI")


def _load(case_dir: Path) -> tuple[dict, dict]:
    return json.loads((case_dir / "case.json").read_text()), json.loads((case_dir / "expected.json").read_text())


def test_simulator_output_is_committed_and_reproducible(tmp_path: Path) -> None:
    count = mutate.write_all(tmp_path / "cases")
    assert count >= 80
    generated = {p.relative_to(tmp_path / "cases"): p.read_bytes() for p in (tmp_path / "cases").rglob("*.json")}
    committed = {p.relative_to(CASES): p.read_bytes() for p in CASES.rglob("*.json")}
    assert generated == committed, "run python tools/mutate.py"


def test_families_are_all_present() -> None:
    families = {_load(d)[0]["family"] for d in CASE_DIRS}
    assert families == {"naive", "hash_aware", "structural", "control"}


@pytest.mark.parametrize("case_dir", CASE_DIRS, ids=[f"{p.parent.name}/{p.name}" for p in CASE_DIRS])
def test_case(case_dir: Path, tmp_path: Path) -> None:
    case, expected = _load(case_dir)
    jsonschema.Draft202012Validator(SCHEMA).validate({"case": case, "expected": expected})
    bundle = materialize(case, tmp_path)
    forbidden = [unmask(v) for v in expected.get("forbidden_output_masked", [])]
    if EXTERNAL:
        proc = subprocess.run([*shlex.split(EXTERNAL), "verify", str(bundle)], capture_output=True, text=True,
                              timeout=120)
        output = proc.stdout + proc.stderr
        assert proc.returncode == expected["exit_code"]
        assert "Traceback" not in output
        assert not [v for v in forbidden if v in output]
        return
    measured = case["family"] == "structural"
    result, output, elapsed, peak = _run_measured(bundle, tmp_path) if measured else _run_in_process(bundle, tmp_path)
    assert "Traceback" not in output
    assert not [v for v in forbidden if v in output], "an injected value was echoed"
    assert result["verdict"] == expected["verdict"], sorted({f["code"] for f in result["findings"]})
    assert result["exit_code"] == expected["exit_code"]
    raised = {f["code"] for f in result["findings"]}
    missing = [c for c in expected["codes"] if c not in raised]
    assert missing == [], sorted(raised)
    for family in expected["families"]:
        assert any(code.startswith(family + ".") for code in raised), (family, sorted(raised))
    for warning in expected.get("warnings", []):
        assert warning in raised
    if measured:
        assert elapsed < 2.0, elapsed  # CPU seconds per verification
        assert peak < 300 * 1024 * 1024, peak


def _run_in_process(bundle: Path, work: Path) -> tuple[dict, str, float, int]:
    """Run the CLI's ``main`` in this process, once: text on stdout, the JSON report through ``--report-output``
    (the same verification renders both). Return the report and all output (time and memory are not measured)."""
    from nerb_verify.cli import main

    report_path = work / "report.json"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        main(["verify", str(bundle), "--report-output", str(report_path)])
    report = report_path.read_text(encoding="utf-8")
    return json.loads(report), out.getvalue() + report + err.getvalue(), 0.0, 0


def _run_measured(bundle: Path, work: Path) -> tuple[dict, str, float, int]:
    """Run the CLI once in a fresh subprocess (text on stdout, the JSON report through ``--report-output``); return
    the report, all output, CPU time and peak RSS of that process."""
    script = textwrap.dedent(
        """
        import io, json, sys, time
        from contextlib import redirect_stdout
        from nerb_verify.cli import main
        start = time.process_time()
        text = io.StringIO()
        with redirect_stdout(text):
            main(["verify", sys.argv[1], "--report-output", sys.argv[2]])
        # CPU seconds of this process: what the verifier costs, independent of how busy the machine is.
        elapsed = time.process_time() - start
        # VmHWM belongs to this process image (ru_maxrss would include the forking pytest process's pages).
        peak = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmHWM:"))
        print(json.dumps({"text": text.getvalue(), "elapsed": elapsed, "peak": peak}))
        """
    )
    report_path = work / "report.json"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", script, str(bundle), str(report_path)], capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    outer = json.loads(proc.stdout)
    report = report_path.read_text(encoding="utf-8")
    output = outer["text"] + report + proc.stderr
    return json.loads(report), output, outer["elapsed"], outer["peak"]
