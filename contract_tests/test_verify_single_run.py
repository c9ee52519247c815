"""``VerifyOptions.single_run`` (the console script): the cyclic garbage collector is off while the one verification
runs and what it loaded and built is frozen out of the collector's passes (issue 16, speed; ``nerb_verify.verify``).

Run in fresh interpreters: freezing is process-wide, and a pytest worker must not be left with a frozen heap.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REAL = REPO / "fixtures" / "bundles" / "nerb-enron"

SCRIPT = """
import gc, json, sys
from pathlib import Path
from nerb_verify.context import VerifyOptions
from nerb_verify.verify import verify_bundle
seen = []
gc.callbacks.append(lambda phase, info: seen.append(info["generation"]) if phase == "start" else None)
def summary(result):
    c = result.collector
    return [result.verdict, [repr(f) for f in c.sorted_findings()], [repr(r) for r in c.recomputed],
            json.dumps(c.checks_run, sort_keys=True, default=str),
            json.dumps(c.decisions, sort_keys=True, default=str)]
plain = summary(verify_bundle(Path(sys.argv[1]), VerifyOptions()))
gc.collect()
frozen_before = gc.get_freeze_count()
del seen[:]
single = summary(verify_bundle(Path(sys.argv[1]), VerifyOptions(single_run=True)))
print(json.dumps({"same": plain == single, "verdict": single[0], "collections_during": len(seen),
                  "enabled_after": gc.isenabled(), "frozen_grew": gc.get_freeze_count() > frozen_before}))
"""


def _python(*args: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_single_run_verifies_exactly_as_usual_without_a_collection(tmp_path: Path) -> None:
    """The real bundle and a rejected copy (a schema violation: the explaining validator runs) give the same verdict,
    findings, figures and decisions with and without ``single_run``; with it, no collection runs during the
    verification, the collector is on again afterwards and what was built is frozen."""
    import shutil

    broken = tmp_path / "b"
    shutil.copytree(REAL, broken)
    card = json.loads((broken / "bank-card.json").read_text())
    card["schema_version"] = 7
    (broken / "bank-card.json").write_text(json.dumps(card))
    for bundle, verdict in ((REAL, "verified"), (broken, "rejected")):
        out = _python(str(bundle))
        assert out == {"same": True, "verdict": verdict, "collections_during": 0, "enabled_after": True,
                       "frozen_grew": True}


def test_the_console_script_verifies_as_a_single_run() -> None:
    """``nerb-verify verify`` run as the process's entry point asks for ``single_run``; a caller in Python does
    not."""
    from nerb_verify.commands import verify as command

    seen = []

    def fake(root, options, display_root=None):  # type: ignore[no-untyped-def]
        seen.append(options.single_run)
        raise SystemExit(0)

    from nerb_verify import cli

    original = command.verify_bundle
    command.verify_bundle = fake
    try:
        for entry in (True, False):
            parser = cli.build_parser("verify")
            args = parser.parse_args(["verify", str(REAL)])
            args._entry_point = entry
            try:
                args._run(args)
            except SystemExit:
                pass
    finally:
        command.verify_bundle = original
    assert seen == [True, False]


ENTRY = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("teardown ran\\n"))
from nerb_verify.cli import main
sys.argv = ["nerb-verify", *sys.argv[1:]]
sys.exit(main())
"""


def _entry(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-c", ENTRY, *args], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=300)


def test_the_console_verify_ends_without_teardown_and_keeps_its_output_and_exit_code(tmp_path: Path) -> None:
    """``nerb-verify verify`` as the entry point ends once its output is flushed (no exit handler, no teardown):
    the whole JSON report arrives through the pipe and the exit code is the verdict's, 0 and 1 alike; another
    command (``explain``) ends the ordinary way."""
    import shutil

    verified = _entry("verify", str(REAL), "--format", "json")
    assert verified.returncode == 0 and "teardown ran" not in verified.stderr
    assert json.loads(verified.stdout)["verdict"] == "verified"
    broken = tmp_path / "b"
    shutil.copytree(REAL, broken)
    (broken / "summary.md").write_text("edited\n")
    rejected = _entry("verify", str(broken), "--format", "json")
    assert rejected.returncode == 1 and "teardown ran" not in rejected.stderr
    assert json.loads(rejected.stdout)["verdict"] == "rejected"
    explained = _entry("explain", "privacy.email")
    assert explained.returncode == 0 and "teardown ran" in explained.stderr
