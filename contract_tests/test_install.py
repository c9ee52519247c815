"""The README's two commands, as a new user runs them: the wheel ships everything the verifier needs.

The wheel is built from this checkout and installed into a fresh virtual environment, then `nerb-verify verify
fixtures/bundles/nerb-enron` is run from the repository root with that environment's console script.

The throwaway environment borrows its dependencies from the interpreter running the tests (no network needed): a
``.pth`` file lists that interpreter's own site directories. ``system_site_packages=True`` would not do: from inside a
venv it inherits the *base* interpreter's site-packages, not the test venv's, so the dependencies a newcomer installed
with ``pip install '.[test]'`` would be missing. The ``.pth`` lines come after the new environment's own
site-packages on ``sys.path``, so the freshly installed wheel, not a copy in the test environment, is what answers.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def test_readme_shows_the_two_commands() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "python -m pip install . && nerb-verify verify fixtures/bundles/nerb-enron" in readme
    assert "python -m pip install '.[test]' && python -m pytest" in readme
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m pip install '.[test]' && python -m pytest" in ci


def test_ci_runs_the_test_command_inside_a_fresh_venv() -> None:
    """CI must see what a newcomer's plain venv sees: it creates a venv and activates it before the README's command."""
    lines = [line.strip() for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    create = next(i for i, line in enumerate(lines) if line.startswith("python3 -m venv "))
    activate = next(i for i, line in enumerate(lines) if line.startswith(". ") and line.endswith("/bin/activate\""))
    command = lines.index("python -m pip install '.[test]' && python -m pytest")
    assert create < activate < command
    assert "--system-site-packages" not in lines[create]


def borrowed_site_dirs() -> list[str]:
    """The site directories of the interpreter running the tests, where the wheel's dependencies are installed.

    Works the same from a venv, a system Python or a pyenv shim: it asks this interpreter, not its base.
    """
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    for key in ("purelib", "platlib"):
        dirs.append(sysconfig.get_paths()[key])
    unique: list[str] = []
    for entry in dirs:
        if Path(entry).is_dir() and entry not in unique:
            unique.append(entry)
    return unique


def child_site_packages(python: Path) -> Path:
    """The purelib folder of the environment whose interpreter is ``python``."""
    out = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("install")
    # Build from a private copy: setuptools writes build/ and *.egg-info into the source folder, and parallel test
    # workers building the same checkout would trample each other.
    source = work / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(".git", "build", "*.egg-info", "__pycache__",
                                                                 ".hypothesis", ".pytest_cache", "_compiled"))
    wheel_dir = work / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q",
                    "-w", str(wheel_dir)], check=True, cwd=work)
    env_dir = work / "venv"
    venv.EnvBuilder(system_site_packages=False, with_pip=False).create(env_dir)
    wheel = next(wheel_dir.glob("nerb_verify-*.whl"))
    python = env_dir / "bin" / "python"
    (child_site_packages(python) / "_nerb_verify_test_deps.pth").write_text(
        "".join(entry + "\n" for entry in borrowed_site_dirs()), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
                    "--force-reinstall", str(wheel)], check=True)
    return env_dir


def test_wheel_ships_schemas_and_every_package(installed: Path) -> None:
    wheel = next((installed.parent / "wheels").glob("nerb_verify-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for schema in sorted((REPO / "schemas").glob("*.json")):
        assert f"nerb_verify/schemas/{schema.name}" in names
    for init in sorted((REPO / "nerb_verify").rglob("__init__.py")):
        assert init.relative_to(REPO).as_posix() in names


def test_readme_first_command_verifies_the_real_bundle(installed: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["NERB_VERIFY_CACHE_DIR"] = "off"
    out = subprocess.run([str(installed / "bin" / "nerb-verify"), "verify", "fixtures/bundles/nerb-enron"],
                         cwd=REPO, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.match(r"nerb-verify: VERIFIED fixtures/bundles/nerb-enron", out.stdout)
    # The installed copy, not the checkout nor a copy in the test environment, answered: its schemas come from the
    # throwaway environment's own site-packages.
    probe = subprocess.run([str(installed / "bin" / "python"), "-c",
                            "from nerb_verify import resources; print(resources.schema_dir())"],
                           cwd=installed, capture_output=True, text=True, env=env, check=True)
    assert Path(probe.stdout.strip()).resolve().is_relative_to(installed.resolve()), probe.stdout


def test_wheel_ships_precompiled_validators_for_these_schemas(installed: Path) -> None:
    """The wheel's validators were generated from exactly the shipped schemas, so no code is generated at run time."""
    probe = subprocess.run(
        [str(installed / "bin" / "python"), "-c",
         "from nerb_verify import schema_validation as s\n"
         "names = [u[len(s.BASE_URI):] for u in s.schema_store()]\n"
         "print(all(s._precompiled(n, ()) is not None for n in names))\n"
         "print(all(s._precompiled(n, o) is not None for n, o in s.PRECOMPILED_VARIANTS))"],
        cwd=installed, capture_output=True, text=True, check=True)
    assert probe.stdout.split() == ["True", "True"]
