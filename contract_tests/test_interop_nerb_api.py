"""tools/interop_nerb.py --runner api: NERB 0.0.12's own checks, one by one, on a bundle we produced (issue 19.6).

Runs only where an interpreter can import NERB: ``NERB_PYTHON`` (e.g. ``/tmp/nerb-venv/bin/python`` after
``python3 -m venv /tmp/nerb-venv && /tmp/nerb-venv/bin/pip install nerb==0.0.12 google-re2``) or this interpreter;
skips otherwise. The bundle is committed into a scratch git repository with NERB's package under ``src/nerb`` (NERB's
capacity check looks for the repository from its own package folder). The generated-file comparison is off.
Every NERB check must pass except the capacity decision, which the bundle does not carry (docs/interop.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from contract_tests.conftest import REPO

pytestmark = pytest.mark.xdist_group("demo")


def _nerb_python() -> str | None:
    for candidate in (os.environ.get("NERB_PYTHON"), sys.executable):
        if not candidate:
            continue
        try:
            done = subprocess.run([candidate, "-c", "import nerb.enron_publication"], capture_output=True,
                                  timeout=120, check=False)
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return candidate
    return None


NERB_PYTHON = _nerb_python()


@pytest.mark.skipif(NERB_PYTHON is None, reason="NERB 0.0.12 is not importable (set NERB_PYTHON)")
def test_every_nerb_check_but_capacity_passes_on_the_demo_bundle(demo, tmp_path):
    out = tmp_path / "interop.json"
    done = subprocess.run([sys.executable, str(REPO / "tools" / "interop_nerb.py"), "--runner", "api", "--python",
                           str(NERB_PYTHON), str(demo.bundle), "--out", str(out)], capture_output=True, timeout=900,
                          check=False, cwd=REPO)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    report = json.loads(out.read_text())
    assert report["generated_file_comparison"] == "off"
    (result,) = report["results"]
    assert len(result["nerb"]["scratch_commit"]) == 40
    outcomes = {c["check"].split(" ")[0]: (c["result"], c["detail"]) for c in result["nerb"]["checks"]}
    assert outcomes.pop("capacity_decision") == ("failed", "Portable capacity decision verification failed.")
    assert outcomes.pop("publication_manifest")[0] == "not_run"  # needs the capacity decision
    assert outcomes == {"manifest_contract": ("passed", []), "evidence_contract": ("passed", []),
                        "performance_decision": ("passed", None), "bank_card": ("passed", None),
                        "privacy_scan": ("passed", None)}
    assert result["ours"]["verdict"] == "verified"


def test_api_runner_refuses_an_interpreter_without_nerb(tmp_path):
    """Without NERB the tool says so and exits 2 (nothing is reported as a NERB verdict)."""
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\nexit 1\n")
    python.chmod(0o755)
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    done = subprocess.run([sys.executable, str(REPO / "tools" / "interop_nerb.py"), "--runner", "api", "--python",
                           str(python), str(bundle)], capture_output=True, timeout=120, check=False, cwd=REPO)
    assert done.returncode == 2
    assert b"cannot import nerb" in done.stderr


def test_probe_usage_errors_exit_2() -> None:
    """The probe takes one bundle, optionally after ``--checks-only``; anything else is a usage error."""
    probe = REPO / "tools" / "nerb_api_probe.py"
    for args in ([], ["--checks-only"], ["a", "b"], ["--checks-only", "a", "b"]):
        done = subprocess.run([sys.executable, str(probe), *args], capture_output=True, timeout=120, check=False)
        assert done.returncode == 2, args


@pytest.mark.skipif(NERB_PYTHON is None, reason="NERB 0.0.12 is not importable (set NERB_PYTHON)")
def test_probe_checks_only_runs_each_check_once_without_the_whole_bundle(tmp_path) -> None:
    """``--checks-only`` (what tools/bench_verify.py times as ``nerb_checks``) lists NERB's checks and skips the
    whole-bundle run; on the vendored bundle in a scratch repository every check but the capacity decision passes."""
    sys.path.insert(0, str(REPO / "tools"))
    import interop_nerb

    repo, _ = interop_nerb.scratch_repository(interop_nerb.nerb_package_dir(str(NERB_PYTHON)),
                                              REPO / "fixtures" / "bundles" / "nerb-enron", tmp_path / "scratch")
    done = subprocess.run([str(NERB_PYTHON), str(REPO / "tools" / "nerb_api_probe.py"), "--checks-only",
                           str(repo / "evidence" / "enron")], capture_output=True, timeout=900, check=False,
                          env={**os.environ, "PYTHONPATH": str(repo / "src")})
    assert done.returncode == 0
    result = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert result["whole_bundle"] is None
    failed = [c["check"] for c in result["checks"] if c["result"] == "failed"]
    assert len(result["checks"]) == 7 and all(name.startswith("capacity_decision") for name in failed)
