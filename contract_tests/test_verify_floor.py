"""``tools/verify_floor.py`` (the ``parse_floor`` subject of ``tools/bench_verify.py --floor``) reads, hashes and parses
every file of a bundle and nothing more: on the vendored real bundle it sees every file and fails on a JSON file that
does not parse."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REAL = REPO / "fixtures" / "bundles" / "nerb-enron"


def _floor(bundle: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(REPO / "tools" / "verify_floor.py"), str(bundle)], capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_floor_reads_every_file_of_the_real_bundle() -> None:
    files = [path for path in REAL.rglob("*") if path.is_file()]
    done = _floor(REAL)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{len(files)} files, {sum(path.stat().st_size for path in files)} bytes")


def test_the_floor_parses_the_json(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(REAL, bundle)
    (bundle / "publication.json").write_text("{", encoding="utf-8")
    assert _floor(bundle).returncode != 0
