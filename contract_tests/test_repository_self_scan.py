"""The project's own published files pass its own privacy scanner (repository profile, with the repository's
allowlist), as the pre-commit hook in ``.pre-commit-config.yaml`` would check them on every commit: a test that
writes a must-reject value literally (instead of assembling it at run time) fails here, in CI, and not only on a
machine where the hook is installed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _tracked_files() -> list[str]:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    return [name for name in listed.decode("utf-8").split("\0") if name and (REPO / name).exists()]


def test_the_repository_passes_its_own_scan() -> None:
    files = _tracked_files()
    assert len(files) > 500
    done = subprocess.run([sys.executable, "-m", "nerb_verify", "scan", "--profile", "repository", "--jobs", "1",
                           "--format", "json", *files], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
