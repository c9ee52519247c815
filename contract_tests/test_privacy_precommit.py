"""The pre-commit hooks, run by the real pre-commit framework on a clean clone of this checkout.

Each test runs ``pre-commit run`` in a scratch git repository, with a config that names the clone at its HEAD commit
(what CI has) and the hook under test. pre-commit installs the hook repository (``pip install .`` into a fresh
virtualenv; this needs PyPI for the dependencies) into its store the first time and reuses it after: every test of
a session shares one ``PRE_COMMIT_HOME``, and the tests run on one xdist worker (``xdist_group``), so the hook
environment is built once per test session. (``pre-commit try-repo`` would build it anew on every call: it uses a
temporary store.) We clone this checkout first so the hooks under test are exactly the committed HEAD. One more test
installs the hook as a real git hook and shows that ``git commit`` itself is stopped.

Must-reject values are assembled at run time; the assertions check that no value reaches the hook's output.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from contract_tests.conftest import REAL_BUNDLE, REPO

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("pre-commit")]

AT = chr(64)
EMAIL = "jane.roe" + AT + "corp-mail.co.uk"
PHONE = "+44 7911 " + "123456"
HOME = "/ho" + "me/" + "jroe/project/notes.txt"

GIT_ENV = {"GIT_AUTHOR_NAME": "Hook Test", "GIT_AUTHOR_EMAIL": "hook" + AT + "example.org",
           "GIT_COMMITTER_NAME": "Hook Test", "GIT_COMMITTER_EMAIL": "hook" + AT + "example.org"}


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def hook_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = dict(os.environ)
    env.update(GIT_ENV)
    env["PRE_COMMIT_HOME"] = str(tmp_path_factory.mktemp("pre-commit-home"))
    env.pop("PYTHONPATH", None)  # the hook must run from its own installed environment
    return env


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory, hook_env: dict[str, str]) -> Path:
    """A clean clone of this checkout at HEAD (what CI has)."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    clone = tmp_path_factory.mktemp("hook-repo") / "nerb-verify"
    result = _run(["git", "clone", "--quiet", "--no-hardlinks", str(REPO), str(clone)], REPO, hook_env)
    assert result.returncode == 0, result.stderr
    if not (clone / ".pre-commit-hooks.yaml").exists():
        pytest.skip("HEAD has no .pre-commit-hooks.yaml yet")
    return clone


def _scratch(tmp_path: Path, env: dict[str, str], files: dict[str, str]) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    assert _run(["git", "init", "--quiet"], work, env).returncode == 0
    for name, text in files.items():
        target = work / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    assert _run(["git", "add", "--all"], work, env).returncode == 0
    return work


def _config(repo: Path, hook: str, env: dict[str, str]) -> str:
    """A pre-commit config naming ``repo`` at its HEAD commit and the one hook ``hook``."""
    head = _run(["git", "rev-parse", "HEAD"], repo, env).stdout.strip()
    return "repos:\n  - repo: " + str(repo) + "\n    rev: " + head + "\n    hooks:\n      - id: " + hook + "\n"


def _try_repo(work: Path, repo: Path, hook: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run ``hook`` of ``repo`` on the staged files of ``work``, the way ``pre-commit try-repo`` does, but from the
    session's shared store (the config lives beside ``work``, not in it, so it is not one of the staged files)."""
    config = work.parent / ("pre-commit-" + hook + ".yaml")
    config.write_text(_config(repo, hook, env), encoding="utf-8")
    return _run([sys.executable, "-m", "pre_commit", "run", "--config", str(config), "--verbose"], work, env)


@pytest.mark.parametrize("name,text,value", [
    ("contact.md", "# Contact\n\nWrite to " + EMAIL + " for access.\n", EMAIL),
    ("notes/call.txt", "On call: " + PHONE + "\n", PHONE),
    ("scripts/run.sh", "#!/bin/sh\npython tool.py --data " + HOME + "\n", HOME),
])
def test_staged_identifier_stops_the_hook_without_printing_it(tmp_path: Path, hook_env: dict[str, str],
                                                              hook_repo: Path, name: str, text: str,
                                                              value: str) -> None:
    work = _scratch(tmp_path, hook_env, {name: text, "README.md": "# Clean\n\nNothing to see: 5 / 3.\n"})
    result = _try_repo(work, hook_repo, "nerb-privacy-scan", hook_env)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "nerb privacy scan" in output and "Failed" in output and name in output
    assert value not in output
    for piece in ("jroe", "corp-mail", "7911", "123456"):
        assert piece not in output


def test_the_hook_reads_wide_text_and_links_that_pre_commit_calls_binary(tmp_path: Path, hook_env: dict[str, str],
                                                                         hook_repo: Path) -> None:
    work = _scratch(tmp_path, hook_env, {"README.md": "# Clean\n"})
    (work / "export.dat").write_bytes(("name\tmail\r\nJane\t" + EMAIL + "\r\n").encode("utf-16"))
    (work / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8)
    (work / "latest").symlink_to(HOME)
    assert _run(["git", "add", "--all"], work, hook_env).returncode == 0
    result = _try_repo(work, hook_repo, "nerb-privacy-scan", hook_env)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "export.dat:2:" in output and "privacy.email" in output
    assert "latest:1:1" in output and "privacy.personal_path" in output, output
    assert "logo.png" not in output
    for piece in (EMAIL, "jroe", "corp-mail"):
        assert piece not in output


def test_the_hook_reads_the_members_of_committed_archives(tmp_path: Path, hook_env: dict[str, str],
                                                           hook_repo: Path) -> None:
    """Session 18: a zip archive (here a document built on one) and a compressed tar archive were binary to the
    hook; their members are read, and the findings name the member, never the value."""
    import io
    import tarfile
    import zipfile

    work = _scratch(tmp_path, hook_env, {"README.md": "# Clean\n"})
    with zipfile.ZipFile(work / "minutes.docx", "w", zipfile.ZIP_DEFLATED) as document:
        document.writestr("word/document.xml", "<w:document><w:body><w:p><w:r><w:t>Contact " + EMAIL
                          + "</w:t></w:r></w:p></w:body></w:document>\n")
    payload = ("Jane\t" + EMAIL + "\n").encode()
    with tarfile.open(work / "export.tar.gz", "w:gz") as archive:
        info = tarfile.TarInfo("export/people.tsv")
        info.size = len(payload)
        archive.addfile(info, io.BytesIO(payload))
    assert _run(["git", "add", "--all"], work, hook_env).returncode == 0
    result = _try_repo(work, hook_repo, "nerb-privacy-scan", hook_env)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "minutes.docx!/word/document.xml:1:" in output and "export.tar.gz!/export/people.tsv:1:" in output, output
    for piece in (EMAIL, "jroe", "corp-mail"):
        assert piece not in output


def test_clean_staged_files_pass(tmp_path: Path, hook_env: dict[str, str], hook_repo: Path) -> None:
    work = _scratch(tmp_path, hook_env, {
        "README.md": "# Project\n\nRun `pytest` from /tmp/out; see [docs](/docs/x) and @pytest.fixture.\n",
        "src/app.py": "import re\n\nPATTERN = re.compile(r\"\\d{3}-\\d{2}\")\nRATIO = 5 / 3\n"})
    result = _try_repo(work, hook_repo, "nerb-privacy-scan", hook_env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout


def test_installed_hook_stops_git_commit(tmp_path: Path, hook_env: dict[str, str], hook_repo: Path) -> None:
    config = _config(hook_repo, "nerb-privacy-scan", hook_env)
    work = _scratch(tmp_path, hook_env, {".pre-commit-config.yaml": config, "leak.md": "mail " + EMAIL + "\n"})
    installed = _run([sys.executable, "-m", "pre_commit", "install"], work, hook_env)
    assert installed.returncode == 0, installed.stderr
    commit = _run(["git", "commit", "-m", "add notes"], work, hook_env)
    output = commit.stdout + commit.stderr
    assert commit.returncode == 1, output
    assert EMAIL not in output and "privacy.email" in output
    assert _run(["git", "rev-parse", "--verify", "HEAD"], work, hook_env).returncode != 0  # nothing was committed
    (work / "leak.md").write_text("mail the team lead\n")
    _run(["git", "add", "leak.md"], work, hook_env)
    again = _run(["git", "commit", "-m", "add notes"], work, hook_env)
    assert again.returncode == 0, again.stdout + again.stderr


def test_allowlist_hint_names_a_command_that_works_in_the_hook_environment(tmp_path: Path, hook_env: dict[str, str],
                                                                           hook_repo: Path) -> None:
    """Issue 15 item 14: the hook runs in pre-commit's environment, where nerb-verify is not on the user's PATH. The
    hint's command is run exactly as printed (with this interpreter's pre-commit): it checks a hand-added entry,
    which then lets the commit through, and it catches a broken one."""
    import json
    import re
    import shlex

    head = _run(["git", "rev-parse", "HEAD"], hook_repo, hook_env).stdout.strip()
    config = ("repos:\n  - repo: " + str(hook_repo) + "\n    rev: " + head + "\n    hooks:\n"
              "      - id: nerb-privacy-scan\n      - id: nerb-privacy-allowlist\n")
    work = _scratch(tmp_path, hook_env, {".pre-commit-config.yaml": config, "leak.md": "# Notes\n\nmail " + EMAIL + "\n"})
    first = _run([sys.executable, "-m", "pre_commit", "run", "--all-files"], work, hook_env)
    output = first.stdout + first.stderr
    assert first.returncode == 1, output
    assert EMAIL not in output and "nerb-verify allowlist add" not in output
    hinted = re.search(r"check it with '([^']+)'", output)
    assert hinted is not None, output
    command = shlex.split(hinted.group(1))
    assert command[:2] == ["pre-commit", "run"]
    location = re.search(r"^(\S+?):(\d+):\d+: error (privacy\.\w+):", output, re.MULTILINE)
    assert location is not None and location.group(1, 2, 3) == ("leak.md", "3", "privacy.email")
    allowlist = work / ".nerb-privacy-allowlist.json"
    entry = {"path": location.group(1), "anchor": "line:" + location.group(2), "code": location.group(3),
             "justification": "Synthetic address kept to test the hook."}
    allowlist.write_text(json.dumps({"version": 1, "entries": [entry]}) + "\n", encoding="utf-8")
    _run(["git", "add", "--all"], work, hook_env)
    checked = _run([sys.executable, "-m", "pre_commit", *command[1:], "--verbose"], work, hook_env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "is valid: 1 entry (privacy.email 1)" in checked.stdout
    again = _run([sys.executable, "-m", "pre_commit", "run", "--all-files"], work, hook_env)
    assert again.returncode == 0, again.stdout + again.stderr
    entry["justification"] = "short"
    allowlist.write_text(json.dumps({"version": 1, "entries": [entry]}) + "\n", encoding="utf-8")
    _run(["git", "add", "--all"], work, hook_env)
    broken = _run([sys.executable, "-m", "pre_commit", *command[1:]], work, hook_env)
    assert broken.returncode == 1 and "allowlist.missing_justification" in broken.stdout + broken.stderr


def test_bundle_hook_verifies_a_touched_bundle(tmp_path: Path, hook_env: dict[str, str], hook_repo: Path) -> None:
    sys.path.insert(0, str(REPO))
    from tools.fixturelib import materialize
    from tools.mutations.privacy import CASES

    work = _scratch(tmp_path, hook_env, {"README.md": "# Evidence\n"})
    shutil.copytree(REAL_BUNDLE, work / "evidence" / "enron")
    _run(["git", "add", "--all"], work, hook_env)
    clean = _try_repo(work, hook_repo, "nerb-verify-bundle", hook_env)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    _run(["git", "commit", "-q", "-m", "bundle", "--no-verify"], work, hook_env)
    case = next(c for c in CASES if c["slug"] == "card-version-fullwidth-address-and-tmp-path")
    shutil.rmtree(work / "evidence" / "enron")
    shutil.copytree(materialize(case, tmp_path / "mutant"), work / "evidence" / "enron")
    _run(["git", "add", "--all"], work, hook_env)
    broken = _try_repo(work, hook_repo, "nerb-verify-bundle", hook_env)
    output = broken.stdout + broken.stderr
    assert broken.returncode == 1, output
    assert "privacy.email" in output and "evidence/enron/bank-card.json#/bank/version" in output, output
    assert "example.org" not in output


def test_hook_manifest_and_own_config_are_valid() -> None:
    for command, path in (("validate-manifest", ".pre-commit-hooks.yaml"),
                          ("validate-config", ".pre-commit-config.yaml")):
        result = subprocess.run([sys.executable, "-m", "pre_commit", command, path], cwd=REPO, capture_output=True,
                                text=True, timeout=120)
        assert result.returncode == 0, result.stdout + result.stderr


def test_bundle_hook_file_pattern_matches_bundle_files_only() -> None:
    import re

    import yaml

    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    pattern = re.compile(hooks["nerb-verify-bundle"]["files"])
    for path in ("evidence/enron/publication.json", "benchmark-evidence.json", "a/b/figures/bank-coverage.svg",
                 "evidence/enron/inventories/real_validation_inventory.json", "x/summary.md"):
        assert pattern.search(path), path
    for path in ("README.md", "src/app.py", "evidence/enron/figures/deep/x.svg", "docs/summary.md.bak", "data.json"):
        assert not pattern.search(path), path
    # --jobs 1: pre-commit already runs the hook on batches of files in parallel (docs/privacy-scanner.md).
    assert hooks["nerb-privacy-scan"]["entry"] == "nerb-verify scan --profile repository --pre-commit --jobs 1"
    # Every staged file and link: the scanner decides what is text (UTF-16 files are "binary" to pre-commit's
    # identify, and a link's target is published as its text).
    assert hooks["nerb-privacy-scan"]["types_or"] == ["file", "symlink"] and hooks["nerb-privacy-scan"]["types"] == []
    assert hooks["nerb-verify-bundle"]["entry"] == "nerb-verify scan --bundles --pre-commit"
    manual = hooks["nerb-privacy-allowlist"]
    assert manual["stages"] == ["manual"] and manual["pass_filenames"] is False
    assert manual["entry"] == "nerb-verify allowlist check"
