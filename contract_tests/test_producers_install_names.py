"""No text tells a newcomer to install an unpublished distribution by name (issue 15.10).

nerb-verify has no release on a package index, so ``pip install`` of its bare name (with or without an extra) finds
nothing, or a squatter's package. Docs, error messages and ``--help`` texts say ``pip install '.[producers]'`` (from
a clone) instead.
"""

from __future__ import annotations

import re
import subprocess

from contract_tests.conftest import REPO, run_cli

# a requirement naming the distribution itself: an extra on the bare name, or `pip install <name>`
UNPUBLISHED = (re.compile(r"(?<![\w./\\-])nerb[-_]verify\["),
               re.compile(r"pip3?\s+install\s+(?:-\S+\s+)*['\"]?nerb[-_]verify(?![\w.-])", re.IGNORECASE))
SKIP_PARTS = {".git", "fixtures", "cases", "__pycache__"}


def _repo_text_files() -> list[str]:
    done = subprocess.run(["git", "-C", str(REPO), "ls-files"], capture_output=True, text=True, check=False)
    names = done.stdout.splitlines() if done.returncode == 0 and done.stdout else [
        str(p.relative_to(REPO)) for p in REPO.rglob("*") if p.is_file()]
    return [n for n in names if not SKIP_PARTS & set(n.split("/"))]


def _hits(text: str) -> bool:
    return any(pattern.search(text) for pattern in UNPUBLISHED)


def test_the_patterns_catch_the_unpublished_forms():
    dash, under = "nerb" + "-verify", "nerb" + "_verify"  # spelled apart so this file passes its own grep
    for bad in (f"pip install '{dash}[producers]'", f"pip install {under}[test]", f"pip install {dash}",
                f"python -m pip install -U {dash}", f"{dash}[producers]>=0.1"):
        assert _hits(bad), bad
    for good in ("pip install '.[producers]'", "pip install 'DIR[producers]'", "pip install ./nerb-verify",
                 "nerb-verify verify DIR", "Reinstall nerb-verify.", "pip install nerb==0.0.12"):
        assert not _hits(good), good


def test_no_file_names_the_unpublished_distribution():
    offenders = []
    for name in _repo_text_files():
        try:
            text = (REPO / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        offenders.extend(f"{name}:{number}" for number, line in enumerate(text.splitlines(), 1) if _hits(line))
    assert offenders == []


def test_help_texts_and_the_readme_name_the_clone_install():
    for argv in (["demo", "--help"], ["bank", "build", "--help"]):
        done = run_cli(*argv)
        assert done.code == 0 and "pip install '.[producers]'" in " ".join(done.stdout.split()), argv
        assert not _hits(done.stdout)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    demo_sentence = next(s for s in readme.split(". ") if "nerb-verify demo --output-dir" in s)
    assert "pip install '.[producers]'" in demo_sentence


def test_the_engine_error_names_the_clone_install():
    from nerb_verify.producers import INSTALL_PRODUCERS, engine

    assert INSTALL_PRODUCERS == "pip install '.[producers]'"
    assert INSTALL_PRODUCERS in engine.RE2_MISSING and not _hits(engine.RE2_MISSING + engine.RE2_FOREIGN)
