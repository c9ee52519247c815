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
outcomes = []
finish = prefork.finish
def counted(child):
    outcomes.append(finish(child))
    return outcomes[-1]
prefork.finish = counted
def summary(result):
    c = result.collector
    return {"verdict": result.verdict, "findings": [repr(f) for f in c.sorted_findings()],
            "figures": [repr(r) for r in c.recomputed], "ran": json.dumps(c.checks_run, sort_keys=True, default=str),
            "decisions": json.dumps(c.decisions, sort_keys=True, default=str)}
def _ctx(path):
    from nerb_verify.bundle import open_bundle
    from nerb_verify.context import VerifyContext
    from nerb_verify.findings import Collector
    ctx = VerifyContext(root=Path(path), options=VerifyOptions(), collector=Collector())
    open_bundle(ctx)
    return ctx
one = summary(verify_bundle(Path(sys.argv[1]), VerifyOptions(jobs=1)))
memo.clear()
two = summary(verify_bundle(Path(sys.argv[1]), VerifyOptions(jobs=2)))
jobs = len(privacy_scan.memo_jobs(_ctx(sys.argv[1]))) + 1  # and the job deciding every shown name
print(json.dumps({"outcomes": [vars(o) for o in outcomes], "jobs": jobs, "hits": memo.stats()["hits"],
                  "same": one == two}))
"""


@pytest.mark.parametrize("bundle", [REAL, SMOKE], ids=["real", "smoke"])
def test_the_child_computes_every_privacy_scan_and_the_result_is_the_single_process_one(bundle: Path) -> None:
    """With --jobs 2 every memoisable privacy scan (one per JSON artifact, summary and figure, and the names scan)
    and the decision on every shown name are computed ahead of the family, by the child (at least the largest) or
    here from the small end, each then a memo hit; findings, figures and decisions equal --jobs 1's."""
    out = json.loads(_python(PUBLISHED, str(bundle)))
    outcomes = [o for o in out["outcomes"] if any(o.values())]
    assert len(outcomes) == 1
    outcome = outcomes[0]
    assert outcome["from_child"] >= 1 and outcome["left"] == 0
    assert outcome["from_child"] + outcome["in_parent"] == out["jobs"] >= 5
    assert out["hits"] >= out["jobs"]
    assert out["same"] is True


FAILING = """
import json, os, sys, tempfile, time
from nerb_verify import memo, prefork
GATE = os.path.join(tempfile.mkdtemp(), "go")
def boom():
    raise RuntimeError("child failure")
CHILD = []
def gated(value):
    # the child's first job: it starts once this process has begun its own job from the small end (the gate file),
    # so this process never finds the child done before its first read, however loaded the machine is
    def compute():
        deadline = time.monotonic() + 60
        while not os.path.exists(GATE) and time.monotonic() < deadline:
            time.sleep(0.005)
        return value() if callable(value) else value
    return compute
def slow(value):
    # a job this process takes from the small end: it opens the gate, then returns once the child has exited (a
    # zombie not yet reaped), so the child's frames and its end of file are all in the pipe
    def compute():
        open(GATE, "w").close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with open(f"/proc/{CHILD[-1].pid}/stat") as stat:
                    if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                        break
            except OSError:
                time.sleep(0.5)
                break
            time.sleep(0.01)
        os.remove(GATE)
        return value
    return compute
def run(jobs):
    CHILD.append(prefork.start(jobs))
    return vars(prefork.finish(CHILD[-1], patience=0))
# the child takes the largest first: "a" (sent), then "b" raises; this process, meanwhile, takes "z" from the small end
failed = run([(("t", "a"), gated((1, ())), 3), (("t", "b"), boom, 2), (("t", "z"), slow((9, ())), 1)])
# the child's only job cannot travel back; this process takes the small one, then finds the pipe closed
unpicklable = run([(("t", "c"), gated(lambda: (lambda: None)), 2), (("t", "y"), slow((8, ())), 1)])
good = run([(("t", "d"), lambda: (2, ("x",)), 1)])
print(json.dumps({"failed": failed, "unpicklable": unpicklable, "good": good,
                  "a": memo.contains(("t", "a")), "b": memo.contains(("t", "b")), "c": memo.contains(("t", "c")),
                  "d": memo.cached(("t", "d"), lambda: None)}))
"""


def test_a_failing_child_publishes_nothing_so_the_parent_computes() -> None:
    """A job that raises in the child, or a value that cannot travel back, is left to the caller (not published);
    what the child sent before is published, and so is what this process computed meanwhile."""
    out = json.loads(_python(FAILING))
    assert out["failed"] == {"from_child": 1, "in_parent": 1, "left": 1}
    assert out["unpicklable"] == {"from_child": 0, "in_parent": 1, "left": 1}
    assert out["good"]["from_child"] + out["good"]["in_parent"] == 1 and out["good"]["left"] == 0
    assert (out["a"], out["b"], out["c"], out["d"]) == (True, False, False, [2, ["x"]])


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
    """--jobs auto is 2 only when cli.main runs as the process entry point on Linux with more than one CPU; a
    caller in Python, one CPU or macOS gets 1; an explicit value wins."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert jobs_of(argparse.Namespace(jobs="auto", _entry_point=True)) == 2
    assert jobs_of(argparse.Namespace(jobs="auto")) == 1
    assert jobs_of(argparse.Namespace(jobs="1", _entry_point=True)) == 1
    assert jobs_of(argparse.Namespace(jobs="2")) == 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert jobs_of(argparse.Namespace(jobs="auto", _entry_point=True)) == 1
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(sys, "platform", "darwin")
    assert jobs_of(argparse.Namespace(jobs="auto", _entry_point=True)) == 1


PATIENT = """
import json, time
from nerb_verify import prefork
def quick(value):
    def compute():
        time.sleep(0.05)
        return value
    return compute
child = prefork.start([(("t", "p"), quick((1, ())), 2), (("t", "q"), quick((2, ())), 1)])
print(json.dumps(vars(prefork.finish(child, patience=120))))
"""


def test_a_patient_parent_leaves_the_child_its_jobs() -> None:
    """Before computing a job itself for the first time, this process waits up to ``patience`` seconds for the
    child (that first job would cost it the imports the child already paid): a child that finishes within it
    delivers every job. (``patience=0``, the failing-child test above, takes jobs from the small end at once.)"""
    out = json.loads(_python(PATIENT))
    assert out == {"from_child": 2, "in_parent": 0, "left": 0}


NO_SCANNER = """
import json, sys
from pathlib import Path
from nerb_verify import prefork
from nerb_verify.context import VerifyOptions
from nerb_verify.verify import verify_bundle
# However loaded the machine, wait for the child rather than help it (helping imports the scanner by design): the
# test is about what a clean bundle needs here, not about the timing
finish = prefork.finish
prefork.finish = lambda child, patience=600.0: finish(child, patience)
result = verify_bundle(Path(sys.argv[1]), VerifyOptions(jobs=int(sys.argv[2])), display_root=sys.argv[1])
print(json.dumps({"verdict": result.verdict, "shown": result.display_root,
                  "privacy": result.collector.checks_run.get("privacy", {}).get("status"),
                  "engine": "nerb_verify.privacy.engine" in sys.modules, "regex": "regex" in sys.modules}))
"""


def test_with_two_jobs_this_process_never_imports_the_scanner_for_a_clean_bundle() -> None:
    """With --jobs 2 the child decides every privacy scan and every shown name (the bundle's entries and the folder
    as given), so for a clean bundle this process imports neither the privacy engine nor ``regex`` (issue 16,
    speed); with --jobs 1 it scans here. The verdict, the privacy family's status and the shown folder agree."""
    shown = str(REAL.relative_to(REPO))
    two = json.loads(_python(NO_SCANNER, shown, "2"))
    one = json.loads(_python(NO_SCANNER, shown, "1"))
    assert two == {"verdict": "verified", "shown": shown, "privacy": "ran", "engine": False, "regex": False}
    assert one == {**two, "engine": True, "regex": True}


def test_cli_jobs_1_and_2_agree_on_personal_names(tmp_path: Path) -> None:
    """File names and a bundle folder that are personal data are decided in the child with --jobs 2: the JSON
    report (masked names, the names scan's findings, the shown folder) is byte-identical to --jobs 1's."""
    import shutil

    folder = "jane.roe" + "@" + "corp-mail.co.uk"
    bundle = tmp_path / folder
    shutil.copytree(REAL, bundle)
    (bundle / "figures" / (folder + ".svg")).write_text("<svg/>")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "nerb_verify", "verify", folder, "--format", "json", "--jobs"]
    runs = [subprocess.run([*command, jobs], capture_output=True, env=env, cwd=tmp_path, timeout=300)
            for jobs in ("1", "2")]
    assert runs[0].returncode == runs[1].returncode == 1
    assert runs[0].stdout == runs[1].stdout
    assert b"jane.roe" not in runs[0].stdout + runs[0].stderr + runs[1].stderr
    report = json.loads(runs[0].stdout)
    assert ("privacy.email", "figures/@name:1") in {(f["code"], f["artifact"]) for f in report["findings"]}


def test_the_privacy_familys_profile_constants_are_the_profiles() -> None:
    """The privacy family names its profiles in memo keys without importing the scanner; the names and the gate-target
    permission are the profiles' own."""
    from nerb_verify.checks.raw import privacy_scan
    from nerb_verify.privacy.profiles import CONTRACT, RENDERED

    assert privacy_scan.CONTRACT_NAME == CONTRACT.name
    assert privacy_scan.RENDERED_NAME == RENDERED.name
    assert privacy_scan.CONTRACT_PERMITS_GATE_TARGETS is CONTRACT.permit_gate_targets
