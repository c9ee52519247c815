"""The demo checks every prerequisite before it writes anything, and a failed run leaves nothing behind (issue 15.11).

No demo is run to completion here: the missing-engine case stops before the first byte, and the mid-run failure is
forced at step 5 of a 50-message run (steps 1-4 take about a second).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from contract_tests.conftest import REPO, run_cli

HIDE_RE2 = ("import sys; sys.modules['re2'] = None; from nerb_verify.cli import main; "
            "sys.exit(main(sys.argv[1:]))")


def _without_re2(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a fresh interpreter where ``import re2`` fails, as it does without the producers extra."""
    return subprocess.run([sys.executable, "-c", HIDE_RE2, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=120)


def test_missing_re2_is_reported_before_anything_is_written(tmp_path):
    out = tmp_path / "demo"
    done = _without_re2("demo", "--output-dir", str(out), "--messages", "50", "--quiet")
    assert done.returncode == 2, done.stderr
    assert "RE2 scan engine is missing" in done.stderr and "google-re2" in done.stderr
    assert "pip install '.[producers]'" in done.stderr
    assert "AssemblyError" not in done.stderr and "Traceback" not in done.stderr
    assert "nothing was written" in done.stderr
    assert not out.exists()
    # a pre-created empty folder stays empty
    out.mkdir()
    assert _without_re2("demo", "--output-dir", str(out), "--messages", "50", "--quiet").returncode == 2
    assert list(out.iterdir()) == []


def test_every_prerequisite_problem_is_listed_at_once(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    done = _without_re2("demo", "--output-dir", str(target), "--messages", "5")
    assert done.returncode == 2
    assert "RE2 scan engine is missing" in done.stderr
    assert "exists and is not a folder" in done.stderr
    assert "--messages must be between 50 and 20,000" in done.stderr
    assert target.read_text() == "x"


def test_output_below_a_file_cannot_be_created(tmp_path):
    (tmp_path / "file").write_text("x")
    done = run_cli("demo", "--output-dir", str(tmp_path / "file" / "run"), "--quiet")
    assert done.code == 2 and "cannot be created" in done.stderr


@pytest.mark.parametrize("precreated", [False, True], ids=["new-folder", "empty-folder"])
def test_a_run_that_fails_mid_way_removes_what_it_wrote(tmp_path, monkeypatch, capsys, precreated):
    pytest.importorskip("re2")
    from nerb_verify.cli import main
    from nerb_verify.producers import harness

    def broken(*_args, **_kwargs):
        raise RuntimeError("a planted failure")

    monkeypatch.setattr(harness, "run_profile", broken)
    out = tmp_path / "demo"
    if precreated:
        out.mkdir()
    assert main(["demo", "--output-dir", str(out), "--messages", "50", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "could not complete step 5/9" in err and "RuntimeError" in err
    assert "a planted failure" not in err  # a foreign exception is reduced to its type
    assert "was removed" in err
    if precreated:
        assert out.is_dir() and list(out.iterdir()) == []
    else:
        assert not out.exists()


def test_prerequisites_are_checked_by_the_library_entry_point_too(tmp_path):
    from nerb_verify.producers.demo_pipeline import DemoPrerequisiteError, run_demo

    (tmp_path / "x").write_text("x")
    with pytest.raises(DemoPrerequisiteError) as exc:
        run_demo(tmp_path, messages=10, progress=lambda _m: None)
    assert "not empty" in str(exc.value) and "--messages" in str(exc.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x"]


def test_the_demo_help_names_the_install_command():
    done = run_cli("demo", "--help")
    assert done.code == 0 and "pip install '.[producers]'" in " ".join(done.stdout.split())


def test_a_platform_without_rss_measurement_is_a_prerequisite_problem(tmp_path, monkeypatch):
    # The verifier rejects RSS samples under a platform other than Linux or macOS
    # (performance.rss_unsupported_platform), so the producers refuse to measure there instead of writing a bundle
    # the verifier rejects.
    from nerb_verify.producers import demo_pipeline, sampling

    for platform, refused in (("linux", False), ("darwin", False), ("freebsd14", True), ("win32", True)):
        monkeypatch.setattr(sampling.sys, "platform", platform)
        problem = sampling.rss_platform_problem()
        assert (problem is not None) is refused, platform
        problems = demo_pipeline.prerequisite_problems(tmp_path / f"out-{platform}", 50)
        assert any("peak RSS on Linux and macOS only" in text for text in problems) is refused, platform
        if refused:
            with pytest.raises(RuntimeError, match="Linux and macOS only"):
                sampling.rss_bytes()
        else:
            assert sampling.rss_bytes() > 0
