"""tools/interop_nerb.py tells the truth without NERB installed (issue 15.15).

The python runner calls NERB's console entry point function (``nerb.cli:main``), because NERB 0.0.12's ``cli``
module has no ``__main__`` guard and ``python -m nerb.cli`` exits 0 having done nothing. An exit code without an
accept line or an ``Error:`` message is "no verdict" (NERB could not run), never a rejection. The stand-in ``nerb``
package below has the same shape as NERB 0.0.12: a ``cli`` module with ``main()`` and no ``__main__`` guard.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from contract_tests.conftest import REPO

sys.path.insert(0, str(REPO))
from tools import interop_nerb as tool  # noqa: E402

STAND_IN_CLI = '''import json
import sys


def main():
    argv = sys.argv[1:]
    if argv[:2] != ["verify-enron-evidence", "--bundle"] or len(argv) < 3:
        sys.stderr.write("Error: No such command.\\n")
        raise SystemExit(2)
    print(json.dumps({"valid": True, "bundle_files": 1}))
    raise SystemExit(0)
'''


def _checkout(tmp_path: Path) -> Path:
    checkout = tmp_path / "nerb"
    package = checkout / "src" / "nerb"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "enron_publication.py").write_text("# stand-in\n")
    (package / "cli.py").write_text(STAND_IN_CLI)  # no __main__ guard, like NERB 0.0.12
    return checkout


def _bundle(tmp_path: Path) -> Path:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    return bundle


def test_python_runner_calls_the_console_entry_point_function(tmp_path):
    checkout = _checkout(tmp_path)
    args = tool.parse_args(["--nerb-checkout", str(checkout), "--runner", "python", "--python", "/opt/py/bin/python",
                            str(tmp_path)])
    argv = tool.nerb_argv(args, tmp_path)
    assert argv == ["/opt/py/bin/python", "-c", "import sys; from nerb.cli import main; sys.exit(main())",
                    "verify-enron-evidence", "--bundle", str(tmp_path)]
    assert "-m" not in argv


def test_python_runner_gets_nerbs_answer_from_a_module_without_main_guard(tmp_path, capsys):
    checkout = _checkout(tmp_path)
    bundle = _bundle(tmp_path)
    code = tool.main(["--nerb-checkout", str(checkout), "--runner", "python", str(bundle)])
    report = json.loads(capsys.readouterr().out)
    row = report["results"][0]
    assert row["nerb"] == {"verdict": "accepted", "accepted": True, "exit": 0, "message": None}
    # our verifier rejects an empty folder, so the two disagree: a real comparison, exit 1
    assert row["ours"]["verdict"] != "verified" and row["agree"] is False and code == 1


@pytest.mark.parametrize("returncode,stdout,stderr,verdict,message", [
    (0, '{"valid": true}\n', "", "accepted", None),
    (0, 'progress\n{"valid": true, "x": 1}\n', "", "accepted", None),
    (1, "", "Error: Published evidence failed.\n", "rejected", "Published evidence failed."),
    (0, '{"valid": false, "error": "x"}\n', "", "rejected", None),
    (0, "", "", "no_verdict", None),  # `python -m nerb.cli` on NERB 0.0.12: imports, runs nothing, exits 0
    (1, "", "", "no_verdict", None),  # an exit code and no output at all
    (1, "", "Traceback (most recent call last):\nModuleNotFoundError: No module named 'typer'\n", "no_verdict", None),
    (2, "", "Error: No such option: --bundle\n", "no_verdict", None),  # a usage error is not a rejection
    (0, "not json\n", "", "no_verdict", None),
    (0, '{"valid": "yes"}\n', "", "no_verdict", None),
    (-9, "", "", "no_verdict", None),
])
def test_classification(returncode, stdout, stderr, verdict, message):
    answer = tool.classify(returncode, stdout, stderr)
    assert answer["verdict"] == verdict and answer["message"] == message and answer["exit"] == returncode
    assert answer["accepted"] is {"accepted": True, "rejected": False, "no_verdict": None}[verdict]


def test_no_verdict_is_could_not_run_never_a_rejection(tmp_path, capsys):
    checkout = _checkout(tmp_path)
    (checkout / "silent.py").write_text("import sys\nsys.exit(1)\n")
    bundle = _bundle(tmp_path)
    command = f"{sys.executable} {{checkout}}/silent.py {{bundle}}"
    assert tool.main(["--nerb-checkout", str(checkout), "--command", command, str(bundle)]) == 2
    captured = capsys.readouterr()
    row = json.loads(captured.out)["results"][0]
    assert row["nerb"]["verdict"] == "no_verdict" and row["nerb"]["accepted"] is None and row["agree"] is None
    assert "no verdict" in captured.err and "could not run" in captured.err


def test_runner_prerequisites(tmp_path, capsys):
    bundle = _bundle(tmp_path)
    assert tool.main(["--runner", "uv", str(bundle)]) == 2  # uv runs a checkout's project
    assert "--nerb-checkout" in capsys.readouterr().err
    assert tool.main(["--command", "x {checkout} {bundle}", str(bundle)]) == 2
    assert "{checkout}" in capsys.readouterr().err


def test_relative_bundle_paths_reach_nerb_as_absolute_paths(tmp_path, capsys, monkeypatch):
    checkout = _checkout(tmp_path)
    (checkout / "echo.py").write_text("import json, os, sys\nprint(json.dumps({'valid': os.path.isabs(sys.argv[1])"
                                      " and os.path.isdir(sys.argv[1])}))\n")
    _bundle(tmp_path)
    monkeypatch.chdir(tmp_path)
    command = f"{sys.executable} {{checkout}}/echo.py {{bundle}}"
    tool.main(["--nerb-checkout", str(checkout), "--command", command, "bundle"])
    row = json.loads(capsys.readouterr().out)["results"][0]
    assert row["nerb"]["verdict"] == "accepted"  # NERB runs in the checkout, yet found the folder
