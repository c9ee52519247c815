"""``tools/scan_floor.py`` (the ``read_floor`` and ``rules_floor`` subjects of ``tools/bench_scan.py --floor``) reads
every regular file of a tree and, for ``rules``, asks every rule of the repository profile of each text file: it sees
every file, skips a file that is not UTF-8 and a symbolic link, and its rules floor hits where the rules do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_AT = "@"


def _floor(subject: str, tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(REPO / "tools" / "scan_floor.py"), subject, str(tree)],
                          capture_output=True, text=True, timeout=120, check=False, cwd=tree)


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    (tree / "pkg" / "b.md").write_text("write to jane.roe" + _AT + "corp-mail.org\n", encoding="utf-8")
    (tree / "blob.bin").write_bytes(b"\xff\xfe\x00binary")
    (tree / "link.py").symlink_to(tree / "pkg" / "a.py")
    return tree


def test_the_read_floor_reads_every_regular_file(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    done = _floor("read", tree)
    assert done.returncode == 0, done.stderr
    size = sum(path.stat().st_size for path in tree.rglob("*") if path.is_file() and not path.is_symlink())
    assert done.stdout.strip() == f"3 files, {size} bytes, 5 lines, 0 rule hits"


def test_the_rules_floor_asks_the_rules(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    done = _floor("rules", tree)
    assert done.returncode == 0, done.stderr
    hits = int(done.stdout.split(", ")[3].split()[0])
    assert hits >= 1  # the address rule of the repository profile, in b.md only
    (tree / "pkg" / "b.md").write_text("nothing here\n", encoding="utf-8")
    assert _floor("rules", tree).stdout.strip().endswith(", 0 rule hits")


def test_a_wrong_subject_is_refused(tmp_path: Path) -> None:
    assert _floor("parse", _tree(tmp_path)).returncode == 2
