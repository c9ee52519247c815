"""``verify --jobs 2``: the privacy scans computed in a forked child give exactly the single-process result.

The child's work is only a head start: :mod:`nerb_verify.prefork` publishes its results into the memo under the keys
the privacy family would compute, and anything that goes wrong in the child (an exception, a result that does not
pickle, a crash) publishes nothing, so the family computes every scan itself. These tests run the fork in a fresh
interpreter (a pytest worker may run other threads, and the module refuses to fork then).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tools.fixturelib import INVALID, materialize  # noqa: E402

from nerb_verify.commands.verify import jobs_of  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the platform cannot fork")

REAL = REPO / "fixtures" / "bundles" / "nerb-enron"
SMOKE = REPO / "fixtures" / "bundles" / "synthetic-smoke"


def _python(script: str, *args: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


PUBLISHED = """
import json, sys
from pathlib import Path
from nerb_verify import memo, prefork
from nerb_verify.checks.raw import privacy_scan
from nerb_verify.context import VerifyOptions
from nerb_verify.verify import verify_bundle
counts = []
finish = prefork.finish
def counted(child):
    counts.append(finish(child))
    return counts[-1]
prefork.finish = counted
def summary(result):
    c = result.collector
    return {"verdict": result.verdict, "findings": [repr(f) for f in c.sorted_findings()],
            "figures": [repr(r) for r in c.recomputed], "ran": json.dumps(c.checks_run, sort_keys=True, default=str),
            "decisions": json.dumps(c.decisions, sort_keys=True, default=str)}
one = summary(verify_bundle(Path(sys.argv[1]), VerifyOptions(jobs=1)))
memo.clear()
two = summary(verify_bundle(Path(sys.argv[1]), VerifyOptions(jobs=2)))
print(json.dumps({"published": counts, "hits": memo.stats()["hits"], "same": one == two}))
"""


@pytest.mark.parametrize("bundle", [REAL, SMOKE], ids=["real", "smoke"])
def test_the_child_computes_every_privacy_scan_and_the_result_is_the_single_process_one(bundle: Path) -> None:
    """With --jobs 2 every memoisable privacy scan (one per JSON artifact, summary and figure) comes from the child
    (published > 0, each then a memo hit in the family) and findings, figures and decisions equal --jobs 1's."""
    out = json.loads(_python(PUBLISHED, str(bundle)))
    published = [count for count in out["published"] if count]
    assert len(published) == 1 and published[0] >= 3
    assert out["hits"] >= published[0]
    assert out["same"] is True


FAILING = """
import json
from nerb_verify import memo, prefork
def boom():
    raise RuntimeError("child failure")
jobs = [(("t", "a"), lambda: (1, ())), (("t", "b"), boom)]
failed = prefork.finish(prefork.start(jobs))
unpicklable = prefork.finish(prefork.start([(("t", "c"), lambda: (lambda: None))]))
good = prefork.finish(prefork.start([(("t", "d"), lambda: (2, ("x",)))]))
print(json.dumps({"failed": failed, "unpicklable": unpicklable, "good": good,
                  "a": memo.contains(("t", "a")), "c": memo.contains(("t", "c")),
                  "d": memo.cached(("t", "d"), lambda: None)}))
"""


def test_a_failing_child_publishes_nothing_so_the_parent_computes() -> None:
    """A job that raises, or a value that cannot travel back, publishes none of the child's results (not even the
    jobs that succeeded); a good child publishes exactly its values."""
    out = json.loads(_python(FAILING))
    assert out == {"failed": 0, "unpicklable": 0, "good": 1, "a": False, "c": False, "d": [2, ["x"]]}


PRIVACY_CASES = sorted(p for p in INVALID.iterdir() if p.is_dir() and p.name.startswith("privacy."))[:4]


@pytest.mark.parametrize("case_dir", PRIVACY_CASES, ids=[p.name for p in PRIVACY_CASES])
def test_cli_jobs_1_and_2_print_the_same_report_on_privacy_fixtures(case_dir: Path, tmp_path: Path) -> None:
    """The console command's JSON report and exit code are byte-identical with --jobs 1 and --jobs 2 on bundles
    whose privacy scan finds something."""
    bundle = materialize(json.loads((case_dir / "case.json").read_text()), tmp_path)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    runs = [subprocess.run([sys.executable, "-m", "nerb_verify", "verify", str(bundle), "--format", "json",
                            "--jobs", jobs], capture_output=True, env=env, cwd=tmp_path, timeout=300)
            for jobs in ("1", "2")]
    assert runs[0].returncode == runs[1].returncode == 1
    assert runs[0].stdout == runs[1].stdout
    assert any(f["code"].startswith("privacy.") for f in json.loads(runs[0].stdout)["findings"])


def test_auto_forks_only_for_the_console_script_with_two_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """--jobs auto is 2 only when cli.main runs as the process entry point on a machine with more than one CPU; a
    caller in Python gets 1; an explicit value wins."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert jobs_of(argparse.Namespace(jobs="auto", _entry_point=True)) == 2
    assert jobs_of(argparse.Namespace(jobs="auto")) == 1
    assert jobs_of(argparse.Namespace(jobs="1", _entry_point=True)) == 1
    assert jobs_of(argparse.Namespace(jobs="2")) == 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert jobs_of(argparse.Namespace(jobs="auto", _entry_point=True)) == 1
