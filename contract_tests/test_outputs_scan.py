"""`nerb-verify scan --format sarif|github` and the action's scan step, on folders made at test time.

The flagged text is assembled at run time so this repository never contains an address itself.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from contract_tests.action_runner import REPO, local_install, run_action
from contract_tests.conftest import run_cli
from contract_tests.outputs_helpers import sarif_errors

LOCAL = "jane.doe"
ADDRESS = LOCAL + chr(64) + "corp-mail.net"


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "notes.md").write_text("Nothing personal here.\n", encoding="utf-8")
    flagged = tmp_path / "flagged"
    flagged.mkdir()
    (flagged / "contact.txt").write_text(f"first line\nwrite to {ADDRESS} today\n", encoding="utf-8")
    return clean, flagged


def test_scan_sarif_validates_and_hides_the_value(tmp_path):
    clean, flagged = _folders(tmp_path)
    result = run_cli("scan", "--format", "sarif", "--no-allowlist", str(flagged))
    assert result.code == 1
    log = json.loads(result.stdout)
    assert not sarif_errors(log)
    [finding] = log["runs"][0]["results"]
    assert finding["level"] == "error"
    location = finding["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "contact.txt", "uriBaseId": "TARGETROOT"}
    assert location["region"]["startLine"] == 2 and location["region"]["startColumn"] >= 1
    assert LOCAL not in result.stdout and str(tmp_path) not in result.stdout
    assert log["runs"][0]["invocations"][0]["properties"] == {"command": "scan", "profile": "repository"}
    clean_run = run_cli("scan", "--format", "sarif", "--no-allowlist", str(clean))
    assert clean_run.code == 0 and json.loads(clean_run.stdout)["runs"][0]["results"] == []


def test_scan_paths_inside_the_source_root_are_relative_to_it(tmp_path):
    _folders(tmp_path)
    result = run_cli("scan", "--format", "github", "--no-allowlist", "flagged", cwd=tmp_path,
                     env={"PYTHONPATH": str(REPO)})
    assert result.code == 1
    assert re.fullmatch(r"::error file=flagged/contact\.txt,line=2,col=\d+,title=privacy\.\w+::[^\n]+\n"
                        r"::notice title=nerb-verify scan::nerb-verify scan \(repository profile\): 1 finding\(s\) "
                        r"in 1 file\(s\) scanned;[^\n]+\n", result.stdout)
    assert LOCAL not in result.stdout


def test_scan_exit_policy(tmp_path):
    _clean, flagged = _folders(tmp_path)
    assert run_cli("scan", "--exit-zero", "--no-allowlist", str(flagged)).code == 0
    assert run_cli("scan", "--exit-zero", "--no-allowlist", str(tmp_path / "missing")).code == 2


def test_local_action_run_with_scan(tmp_path):
    clean, flagged = _folders(tmp_path)
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    sarif_path = tmp_path / "out.sarif"
    run = run_action({"scan-paths": f"{clean}\n{flagged}", "sarif": str(sarif_path)}, tmp_path, temp,
                     skip=local_install())
    assert run.exit_code == 1
    assert run.outputs["verdict"] == "rejected" and run.outputs["exit-code"] == "1"
    assert "| repository | 1 | 1 error(s), 0 warning(s) |" in run.summary
    log = json.loads(sarif_path.read_text(encoding="utf-8"))
    assert not sarif_errors(log) and len(log["runs"][0]["results"]) == 1
    assert LOCAL not in run.summary + run.stdout + sarif_path.read_text(encoding="utf-8")
    temp2 = tmp_path / "runner-temp-2"
    temp2.mkdir()
    ok = run_action({"scan-paths": str(clean), "sarif": str(tmp_path / "ok.sarif")}, tmp_path, temp2,
                    skip=local_install())
    assert ok.exit_code == 0 and ok.outputs["verdict"] == "verified"


def _archive_outside(tmp_path: Path) -> Path:
    """A zip with the same flagged line in two members, in a folder whose own name holds ``!``."""
    import zipfile

    folder = tmp_path / "odd!"
    folder.mkdir()
    archive = folder / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for name in ("docs/readme.txt", "notes/readme.txt"):
            out.writestr(name, f"write to {ADDRESS} today\n")
    return archive


def test_archive_members_outside_the_source_root_keep_their_member_paths(tmp_path):
    # A file outside the source root is cut down to its own name; its archive members must stay apart.
    archive = _archive_outside(tmp_path)
    source_root = tmp_path / "checkout"
    source_root.mkdir()
    github = run_cli("scan", "--format", "github", "--no-allowlist", str(archive), cwd=source_root,
                     env={"PYTHONPATH": str(REPO)})
    assert github.code == 1
    files = re.findall(r"^::error file=([^,]+),", github.stdout, flags=re.M)
    assert sorted(files) == ["bundle.zip!/docs/readme.txt", "bundle.zip!/notes/readme.txt"]
    sarif = run_cli("scan", "--format", "sarif", "--no-allowlist", str(archive), cwd=source_root,
                    env={"PYTHONPATH": str(REPO)})
    log = json.loads(sarif.stdout)
    assert not sarif_errors(log)
    locations = sorted(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                       for result in log["runs"][0]["results"])
    assert locations == ["bundle.zip%21/docs/readme.txt", "bundle.zip%21/notes/readme.txt"]
    for output in (github.stdout, sarif.stdout):
        assert LOCAL not in output and str(tmp_path) not in output and "odd" not in output


def test_cut_down_keeps_nothing_above_the_file_on_disk(tmp_path):
    from nerb_verify.outputs.locations import TARGETROOT, PathBase

    archive = _archive_outside(tmp_path)
    base = PathBase.for_target(None, tmp_path / "elsewhere")
    assert base.locate(f"{archive}!/docs/readme.txt") == (TARGETROOT, "bundle.zip!/docs/readme.txt")
    assert base.locate(f"{archive}!/inner.zip!/x.txt") == (TARGETROOT, "bundle.zip!/inner.zip!/x.txt")
    # No prefix is a file: only the last component, as before (a directory's "!" is not taken for an archive).
    assert base.locate(f"{tmp_path}/odd!/gone.zip!/x.txt") == (TARGETROOT, "x.txt")
    assert base.locate(str(archive)) == (TARGETROOT, "bundle.zip")
