"""Shared pytest helpers: the vendored real bundle, running the core, running the CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

# No per-example deadline anywhere (a loaded machine must not turn a slow example into a failure). Examples are
# derandomized by default, so `.ci/run` (which sets no CI variable) is reproducible: a gap the property tests find by
# chance must not fail one run and pass the next. Set NERB_VERIFY_HYPOTHESIS_EXPLORE=1 to draw fresh examples locally;
# tools/sweep_nudges.py walks the whole single-nudge pool instead of sampling it.
settings.register_profile("nerb-verify", deadline=None,
                          derandomize=not os.environ.get("NERB_VERIFY_HYPOTHESIS_EXPLORE"))
settings.load_profile("nerb-verify")

REPO = Path(__file__).resolve().parent.parent
REAL_BUNDLE = REPO / "fixtures" / "bundles" / "nerb-enron"


@pytest.fixture(scope="session")
def real_bundle() -> Path:
    """Path of the vendored, unmodified NERB Enron bundle."""
    return REAL_BUNDLE


@pytest.fixture(scope="session")
def real_result():
    """The verification result of the real bundle, computed once per test session."""
    from nerb_verify.verify import verify_bundle

    return verify_bundle(REAL_BUNDLE, display_root="fixtures/bundles/nerb-enron")


@pytest.fixture(scope="session")
def demo(tmp_path_factory):
    """One small demo run (200 messages, 30-document sample) shared by the producer tests of a test process."""
    pytest.importorskip("re2")
    from nerb_verify.producers.demo_pipeline import run_demo

    out = tmp_path_factory.mktemp("demo") / "run"
    return run_demo(out, messages=200, seed=11, progress=lambda _m: None, sample_size=30)


def in_process_sample(request: dict) -> dict:
    """A stand-in for ``sampling.fresh_sample`` that runs the timed operation in this process (tests stub the fresh
    process with it), leaving the sampler's helper cache as it found it."""
    from nerb_verify.producers import sampling

    saved = dict(sampling.HELPER_CACHE)
    try:
        return sampling.run_operation(request)
    finally:
        sampling.HELPER_CACHE.clear()
        sampling.HELPER_CACHE.update(saved)


def harness_inputs(demo_result, work_dir: Path):
    """The performance harness's inputs for a demo run: its bank, development split and validation documents."""
    import json

    from nerb_verify.producers import harness
    from nerb_verify.producers.bank_card import structured_headers_view

    development = demo_result.private / "enron-split" / "run" / "development"
    records = [json.loads(line) for line in (development / "validation.jsonl").read_text().splitlines()]
    evidence = json.loads((demo_result.bundle / "benchmark-evidence.json").read_text())
    return harness.HarnessInputs(
        bank_path=demo_result.private / "bank" / "bank.json", train_dir=development,
        train_source=development / "train.jsonl", train_artifact=evidence["splits"]["roles"]["train"]["artifact"],
        validation_documents=[structured_headers_view(r)[0].encode() for r in records], work_dir=work_dir)


def open_real_bundle():
    """The real bundle opened and schema-checked: the parsed, schema-valid inputs every later check family reads
    (for tests that run one family's ``run`` on edited copies of those inputs)."""
    from nerb_verify.bundle import open_bundle
    from nerb_verify.checks.raw import schema_check
    from nerb_verify.context import VerifyContext, VerifyOptions
    from nerb_verify.findings import Collector

    ctx = VerifyContext(root=REAL_BUNDLE, options=VerifyOptions(), collector=Collector())
    open_bundle(ctx)
    schema_check.run(ctx)
    return ctx


def verify_dir(path: Path, **options):
    """Run the core verifier on ``path`` with VerifyOptions(**options)."""
    from nerb_verify.context import VerifyOptions
    from nerb_verify.verify import verify_bundle

    return verify_bundle(path, VerifyOptions(**options), display_root=str(path))


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120) -> CliResult:
    """Run ``python -m nerb_verify ARGS`` in a subprocess (the way a user runs it) and capture everything."""
    full_env = dict(os.environ)
    full_env.setdefault("PYTHONPATH", str(REPO))
    if env:
        full_env.update(env)
    proc = subprocess.run([sys.executable, "-m", "nerb_verify", *args], cwd=cwd or REPO, env=full_env,
                          capture_output=True, text=True, timeout=timeout)
    return CliResult(proc.returncode, proc.stdout, proc.stderr)
