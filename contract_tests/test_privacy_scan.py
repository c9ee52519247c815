"""JSON and text scanning, the privacy check family on the real bundle, the scan/allowlist CLI and the runner.

Must-reject values are assembled at run time (the repository scans itself).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from contract_tests.conftest import run_cli
from nerb_verify import catalog, codes
from nerb_verify.bundle import open_bundle
from nerb_verify.checks.raw import privacy_scan
from nerb_verify.context import VerifyContext, VerifyOptions
from nerb_verify.findings import Collector
from nerb_verify.privacy.json_scan import scan_json
from nerb_verify.privacy.profiles import CONTRACT, RENDERED, REPOSITORY
from nerb_verify.privacy.text_scan import scan_text

AT = chr(64)
EMAIL = "jane.roe" + AT + "corp-mail.co.uk"
PHONE = "+44" + "7911" + "123456"
HOME = "/ho" + "me/" + "jroe/notes"
SSN = "219-" + "09-" + "9999"


def _scan(document: object, profile=CONTRACT, pointer_root: object = None) -> list:
    collector = Collector()
    scan_json(document, profile, collector, "a.json", pointer_root=pointer_root)
    return collector.findings


def _leaks(findings: list, *values: str) -> bool:
    blob = json.dumps([f.to_json() for f in findings], ensure_ascii=False)
    return any(value in blob for value in values)


# --- JSON scanning -------------------------------------------------------------------------------------------------

def test_value_under_an_unsafe_key_is_reported_by_position_never_by_key() -> None:
    # NERB's leak (spec B.2): the value's pointer echoed the raw key above it.
    findings = _scan({"benign": 1, EMAIL: PHONE})
    assert {(f.code, f.pointer) for f in findings} == {("privacy.email", "/@key:1"), ("privacy.phone", "/@key:1")}
    assert {f.message.split(":")[0] for f in findings} == {"An object key", "A string value"}
    assert not _leaks(findings, EMAIL, PHONE, "jane", "7911")


def test_nested_keys_and_indices_build_the_pointer() -> None:
    findings = _scan({"rows": [{"x": 1}, {"note": "mail " + EMAIL}]})
    assert [(f.code, f.pointer) for f in findings] == [("privacy.email", "/@key:0/1/@key:0")]


def test_gate_target_that_resolves_is_permitted_elsewhere_it_is_a_path() -> None:
    evidence = {"quality": {"slices": [{"metrics": {"precision": 0.9}}]},
                "promotion": {"checks": [{"target": "/quality/slices/0/metrics/precision"},
                                         {"target": "/quality/slices/7/metrics/precision"},
                                         {"target": "/quality/slices/0/metrics/precision " + EMAIL},
                                         {"target": "/" + "home/someone/metrics"}]},
                "note": "/quality/slices/0/metrics/precision"}
    findings = _scan(evidence, pointer_root=evidence)
    got = {(f.code, f.pointer) for f in findings}
    # An unresolved target made only of gate roots, schema words and indices is a pointer (the gate family reports
    # that it does not resolve); anything else in a target is scanned as a path.
    assert not any(p == "/promotion/checks/1/target" for _c, p in got)
    assert any(c in ("privacy.local_path", "privacy.personal_path") and p == "/promotion/checks/3/target"
               for c, p in got)
    assert ("privacy.email", "/promotion/checks/2/target") in got  # identifier rules still apply
    assert not any(p == "/promotion/checks/0/target" for _c, p in got)
    assert any(c == "privacy.local_path" and p.endswith("@key:2") or p == "/note" for c, p in got)


def test_identifier_length_numbers_in_free_form_fields() -> None:
    document = {"callback": 7135552368, "ssn_like": 219099999, "wall_elapsed_ns": 7135552368,
                "rss_samples_bytes": [7135552368], "short": 12345678, "big": 1234567890123456, "flag": True}
    findings = _scan(document)
    assert sorted(f.pointer for f in findings) == ["/@key:0", "/@key:1"]
    assert {f.code for f in findings} == {"privacy.identifier_number"}
    assert _scan(document, REPOSITORY) == []


def test_findings_are_capped_per_file() -> None:
    findings = _scan({"rows": [EMAIL] * 1200})
    assert len(findings) == 1001 and findings[-1].code == "privacy.findings_truncated"


def test_hostile_shapes_never_raise() -> None:
    for document in (None, 1.5, True, [], {}, [[[[]]]], {"": ""}, "x" * 20000, {"k": ["\ud800"]}):
        _scan(document)


# --- text scanning -------------------------------------------------------------------------------------------------

def test_text_lines_and_columns() -> None:
    collector = Collector()
    text = "clean line\r\nsee " + EMAIL + " and " + HOME + "\n\n  ssn " + SSN + "\n"
    scan_text(text, REPOSITORY, collector, "notes.md")
    got = sorted((f.code, f.line, f.column) for f in collector.findings)
    assert got == [("privacy.email", 2, 5), ("privacy.personal_path", 2, 5 + len(EMAIL) + 5),
                   ("privacy.ssn", 4, 7)]
    assert not _leaks(collector.findings, EMAIL, HOME, SSN)


BACKSLASH = chr(92)
# (text before the path, the path, the code every profile raises for it).
_PATH_CASES = [
    ("see ", HOME, "privacy.personal_path"),
    ("--data=", HOME, "privacy.personal_path"),
    ("(", HOME + ")", "privacy.personal_path"),
    ("at ", "C:" + BACKSLASH + "Users" + BACKSLASH + "jroe" + BACKSLASH + "notes", "privacy.personal_path"),
    ("in ", "~" + "jroe/notes", "privacy.personal_path"),
    ("as ", "/ro" + "ot/.profile", "privacy.personal_path"),
    ("on ", BACKSLASH * 2 + "fileserver" + BACKSLASH + "share", "privacy.network_share"),
    ("open ", "file" + ":///etc/hosts", "privacy.file_uri"),
]


@pytest.mark.parametrize("profile", [CONTRACT, RENDERED, REPOSITORY], ids=lambda p: p.name)
@pytest.mark.parametrize("before,path,code", _PATH_CASES)
def test_path_findings_point_at_the_first_character_of_the_path(profile, before: str, path: str,
                                                                 code: str) -> None:
    """Issue 15 item 7: the contract and rendered profiles pointed one column late (their relative home/<name> rule
    also matches the tail of /home/<name>, and the locator stopped at the shortest such tail)."""
    collector = Collector()
    scan_text("x\n" + before + path + "\n", profile, collector, "notes.md")
    assert [(f.code, f.line, f.column) for f in collector.findings] == [(code, 2, len(before) + 1)]


def test_contract_only_path_columns() -> None:
    for before, path in (("cd ", "/tmp/out"), ("cd ", "~/out"), ("x ", "D:" + BACKSLASH + "out"),
                         ("cc ", "-I/usr/include"), ("in ", "data/ho" + "me/jroe")):
        collector = Collector()
        scan_text(before + path, CONTRACT, collector, "notes.md")
        assert [f.column for f in collector.findings] == [len(before) + 1], path


SSH_CLONES = ["git" + AT + "github.com:owner/repo.git", "git" + AT + "gitlab.com:group/sub/repo",
              "deploy" + AT + "git.corp-host.co.uk:team/tools.git", "git" + AT + "bitbucket.org:team/repo.git/"]


@pytest.mark.parametrize("clone", SSH_CLONES)
def test_ssh_clone_urls_pass_the_repository_profile_only(clone: str) -> None:
    """Issue 15 item 14: user@host:path (a dotted host, a colon, a repository path) is an SSH clone URL, common in
    READMEs; the repository profile lets it through, the contract and rendered profiles still reject the at-sign."""
    for text in ("git clone " + clone, "`" + clone + "`", "(" + clone + ")"):
        collector = Collector()
        scan_text(text + "\n", REPOSITORY, collector, "README.md")
        assert collector.findings == [], text
    for profile in (CONTRACT, RENDERED):
        collector = Collector()
        scan_text("git clone " + clone + "\n", profile, collector, "README.md")
        assert [f.code for f in collector.findings] == ["privacy.email"], profile.name


def test_addresses_next_to_an_ssh_clone_url_are_still_found() -> None:
    clone = SSH_CLONES[0]
    for text, column in ((clone + " or write to " + EMAIL, len(clone) + 14),
                         ("write to " + EMAIL + ": " + clone, 10),
                         ("write to " + EMAIL + ":", 10),
                         ("write to " + EMAIL + ":5", 10),
                         ("write to " + EMAIL + ":notes", 10)):
        collector = Collector()
        scan_text(text, REPOSITORY, collector, "README.md")
        assert [(f.code, f.column) for f in collector.findings] == [("privacy.email", column)], text
    assert _scan({"readme": clone}, REPOSITORY) == []
    assert [f.code for f in _scan({"readme": clone})] == ["privacy.email"]


def test_address_after_an_ssh_clone_url_is_located_whatever_the_padding() -> None:
    # A clone URL cut after the .co of .com is an address: the locator's prefix search must not settle inside the URL.
    clone = SSH_CLONES[0]
    for before in range(0, 30, 3):
        for between in range(0, 30, 2):
            text = "a " * before + clone + " " + "b" * between + " " + EMAIL
            collector = Collector()
            scan_text(text, REPOSITORY, collector, "README.md")
            assert [f.column for f in collector.findings] == [text.index(EMAIL) + 1], (before, between)


def test_long_lines_are_chunked_and_still_caught() -> None:
    collector = Collector()
    scan_text("x" * 9000 + " " + EMAIL + " " + "y" * 9000, REPOSITORY, collector, "min.js")
    assert [(f.code, f.line, f.column) for f in collector.findings] == [("privacy.email", 1, 9002)]


# --- the privacy family on the real bundle ---------------------------------------------------------------------------

def _context(root: Path) -> VerifyContext:
    ctx = VerifyContext(root=root, options=VerifyOptions(), collector=Collector())
    open_bundle(ctx)
    return ctx


def test_real_bundle_has_zero_privacy_findings(real_bundle: Path) -> None:
    ctx = _context(real_bundle)
    privacy_scan.run(ctx)
    assert [f for f in ctx.collector.findings if f.code.startswith("privacy.")] == []
    ran = ctx.collector.checks_run["privacy"]
    assert ran["status"] == "ran" and ran["json_files"] == 14 and ran["text_files"] == 5


def test_real_summary_would_fail_the_contract_profile_but_passes_repository(real_bundle: Path) -> None:
    # The reproduce command's generic /tmp output folder is a local path to the contract profile only (spec B.1).
    text = (real_bundle / "summary.md").read_text(encoding="utf-8")
    strict, lenient = Collector(), Collector()
    scan_text(text, CONTRACT, strict, "summary.md")
    scan_text(text, REPOSITORY, lenient, "summary.md")
    assert [f.code for f in strict.findings] == ["privacy.local_path"] and lenient.findings == []


def test_rendered_profile_passes_real_text_and_catches_what_repository_lets_through(real_bundle: Path) -> None:
    """summary.md and the SVGs get the contract identifier rules: a documentation-domain address, a spelled-out
    address, a bare at-sign, a fiction-range phone and an unissuable SSN shape are findings there, not in repository."""
    for path in [real_bundle / "summary.md", *sorted((real_bundle / "figures").glob("*.svg"))]:
        collector = Collector()
        scan_text(path.read_text(encoding="utf-8"), RENDERED, collector, path.name)
        assert collector.findings == [], path.name
    planted = {
        "privacy.email": "write to jroe" + AT + "example.com today",
        "privacy.at_sign": "owner: jroe" + AT + "mailhost",
        "privacy.ssn": "id 000-" + "12-" + "3456",
        "privacy.phone": "call 212-555-" + "0142 now",
    }
    spelled = "mail jane.roe at corp-mail dot co dot uk"
    for code, line in [*planted.items(), ("privacy.email", spelled)]:
        rendered, repository = Collector(), Collector()
        scan_text(line + "\n", RENDERED, rendered, "summary.md")
        scan_text(line + "\n", REPOSITORY, repository, "summary.md")
        assert code in {f.code for f in rendered.findings}, code
        assert repository.findings == [], code
    for line in ("cd /tmp/nerb-render && make", "| 142 / 1,393 |", "</svg>"):
        collector = Collector()
        scan_text(line + "\n", RENDERED, collector, "summary.md")
        assert collector.findings == [], line
    home = Collector()
    scan_text("output in " + HOME + "\n", RENDERED, home, "summary.md")
    assert [f.code for f in home.findings] == ["privacy.personal_path"]


def test_family_scans_every_json_artifact_including_inventories_and_card(tmp_path: Path, real_bundle: Path) -> None:
    import shutil

    bundle = tmp_path / "b"
    shutil.copytree(real_bundle, bundle)
    inventory = bundle / "inventories" / "real_validation_inventory.json"
    rows = json.loads(inventory.read_text())
    rows[0]["note"] = "call " + PHONE
    inventory.write_text(json.dumps(rows))
    card = json.loads((bundle / "bank-card.json").read_text())
    card["bank"]["version"] = "jroe\\u00" + "40corp-mail.co.uk"  # a JSON escape spelled in the value itself
    (bundle / "bank-card.json").write_text(json.dumps(card))
    summary = bundle / "summary.md"
    summary.write_text(summary.read_text() + "\nContact: " + EMAIL + "\n")
    ctx = _context(bundle)
    privacy_scan.run(ctx)
    got = {(f.code, f.artifact) for f in ctx.collector.findings if f.code.startswith("privacy.")}
    assert got == {("privacy.phone", "inventories/real_validation_inventory.json"),
                   ("privacy.email", "bank-card.json"), ("privacy.email", "summary.md")}


def test_every_privacy_code_is_documented() -> None:
    catalog.all_codes()
    import nerb_verify.privacy.allowlist  # noqa: F401
    import nerb_verify.privacy.runner  # noqa: F401

    docs = Path(__file__).resolve().parent.parent / "docs" / "findings"
    for family in ("privacy", "allowlist"):
        page = (docs / f"{family}.md").read_text(encoding="utf-8")
        for info in codes.REGISTRY.values():
            if info.family == family:
                assert f"## {info.code}" in page, info.code


# --- CLI: scan -----------------------------------------------------------------------------------------------------

@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "clean.md").write_text("# Title\n\n5 / 3 and /tmp/out and @pytest.fixture\n")
    (root / "docs" / "leak.md").write_text("line one\ncontact " + EMAIL + "\n")
    (root / "data.json").write_text(json.dumps({"rows": [{"who": HOME}]}))
    (root / "broken.json").write_text('{"x": "' + SSN + '",}')
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + EMAIL.encode())
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[user]\n\temail = " + EMAIL + "\n")
    os.symlink(HOME, root / "link")
    return root


def test_scan_cli_text_output(tree: Path) -> None:
    result = run_cli("scan", "--no-allowlist", str(tree))
    assert result.code == 1
    lines = result.stdout.splitlines()
    body = [line for line in lines if line.startswith(str(tree))]
    rel = [line[len(str(tree)) + 1:] for line in body]
    assert rel == [
        "broken.json:1:8: error privacy.ssn: The line: Text has the shape of a US Social Security number "
        "(repository profile).",
        "data.json#/@key:0/0/@key:0: error privacy.personal_path: A string value: Text contains a local path that "
        "reveals a person or a private location (repository profile).",
        "docs/leak.md:2:9: error privacy.email: The line: Text has the shape of an e-mail address (repository "
        "profile).",
        "link:1:1: error privacy.personal_path: The symbolic link's target: Text contains a local path that reveals "
        "a person or a private location (repository profile).",
    ]
    assert "1 binary file(s) skipped" in result.stdout
    assert not any(v in result.stdout + result.stderr for v in (EMAIL, HOME, SSN, "jroe", "corp-mail"))


def test_scan_cli_json_output_and_exit_codes(tree: Path) -> None:
    result = run_cli("scan", "--no-allowlist", "--format", "json", "--profile", "contract", str(tree / "docs"))
    document = json.loads(result.stdout)
    assert result.code == 1 and document["exit_code"] == 1 and document["profile"] == "contract"
    # Markdown gets the rendered rules under the contract profile: every at-sign, but /tmp/out is no finding.
    assert {f["code"] for f in document["findings"]} == {"privacy.email", "privacy.at_sign"}
    assert document["summary"]["files_scanned"] == 2
    clean = run_cli("scan", "--no-allowlist", str(tree / "docs" / "clean.md"))
    assert (clean.code, clean.stdout, clean.stderr) == (0, "", "")
    missing = run_cli("scan", "--no-allowlist", str(tree / "nope"))
    assert missing.code == 2 and "privacy.not_scanned" in missing.stdout
    usage = run_cli("scan", "--profile", "strict", str(tree))
    assert usage.code == 2


def test_scan_cli_reports_personal_file_names_by_position(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("fine\n")
    (tmp_path / (EMAIL + ".txt")).write_text("fine\n")
    result = run_cli("scan", "--no-allowlist", str(tmp_path))
    assert result.code == 1 and "@name:1: error privacy.email: The file or folder name" in result.stdout
    assert EMAIL not in result.stdout


def test_contract_scan_of_the_real_bundle_passes_like_verify(real_bundle: Path) -> None:
    """Issue 15 item 13: summary.md quotes a reproduce command with a generic output folder; verify scans it with the
    rendered profile, and so does scan --profile contract (for .md and .svg files), so both pass the real bundle."""
    result = run_cli("scan", "--no-allowlist", "--profile", "contract", "--format", "json", str(real_bundle))
    document = json.loads(result.stdout)
    assert (result.code, document["findings"]) == (0, [])
    assert document["summary"]["text_files"] == 5 and document["summary"]["json_files"] == 14


def test_contract_profile_scans_rendered_files_with_the_rendered_rules(tmp_path: Path) -> None:
    generic = "Reproduce: tool run --out /tmp/nerb-out\n"
    for name in ("summary.md", "figures/plot.svg", "notes.txt", "data.json"):
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "summary.md").write_text(generic + "See " + HOME + " or ask " + "meet " + AT + " noon\n")
    (tmp_path / "figures" / "plot.svg").write_text("<svg><text>" + generic + "</text></svg>\n")
    (tmp_path / "notes.txt").write_text(generic)
    (tmp_path / "data.json").write_text(json.dumps({"note": generic}))
    result = run_cli("scan", "--no-allowlist", "--profile", "contract", "--format", "json", str(tmp_path))
    found = sorted((Path(f["artifact"]).name, f["code"], f["message"].rsplit("(", 1)[1])
                   for f in json.loads(result.stdout)["findings"])
    assert result.code == 1
    assert found == [("data.json", "privacy.local_path", "contract profile)."),
                     ("notes.txt", "privacy.local_path", "contract profile)."),
                     ("summary.md", "privacy.at_sign", "rendered profile)."),
                     ("summary.md", "privacy.personal_path", "rendered profile).")]


def test_contract_profile_reports_unparseable_json_and_still_scans_its_text(tree: Path) -> None:
    result = run_cli("scan", "--no-allowlist", "--profile", "contract", "--format", "json", str(tree / "broken.json"))
    found = {(f["code"], f.get("line")) for f in json.loads(result.stdout)["findings"]}
    assert found == {("load.invalid_json", 1), ("privacy.ssn", 1)}


# --- allowlist -----------------------------------------------------------------------------------------------------

def test_allowlist_add_then_scan_suppresses_only_that_location(tree: Path) -> None:
    allow = tree / ".nerb-privacy-allowlist.json"
    added = run_cli("allowlist", "add", "--allowlist", str(allow), "--path", str(tree / "docs" / "leak.md"),
                    "--line", "2", "--code", "privacy.email", "--justification", "Synthetic address for a test.")
    assert added.code == 0, added.stderr
    entry = json.loads(allow.read_text())
    assert entry == {"version": 1, "entries": [{"anchor": "line:2", "code": "privacy.email",
                                                "justification": "Synthetic address for a test.",
                                                "path": "docs/leak.md"}]}
    run_cli("allowlist", "add", "--allowlist", str(allow), "--path", str(tree / "data.json"),
            "--pointer", "/@key:0/0/@key:0", "--code", "privacy.personal_path", "--justification",
            "Synthetic home folder for a test.")
    result = run_cli("scan", "--allowlist", str(allow), "--format", "json", str(tree / "docs"), str(tree / "data.json"))
    document = json.loads(result.stdout)
    assert result.code == 0 and document["findings"] == [] and document["summary"]["suppressed"] == 2
    # The same code on another line is not suppressed.
    (tree / "docs" / "leak.md").write_text("contact " + EMAIL + "\nline two\n")
    again = run_cli("scan", "--allowlist", str(allow), str(tree / "docs"))
    assert again.code == 1 and "leak.md:1:9" in again.stdout


def test_allowlist_add_and_check_say_what_was_done_without_the_value(tree: Path) -> None:
    """Issue 15 item 9: add and check printed nothing on success."""
    allow = tree / ".nerb-privacy-allowlist.json"
    justification = "Synthetic address for a test."
    added = run_cli("allowlist", "add", "--path", "docs/leak.md", "--line", "2", "--code", "privacy.email",
                    "--justification", justification, cwd=tree)
    assert added.code == 0
    assert added.stdout == ("nerb-verify allowlist add: added privacy.email at line 2 of docs/leak.md to "
                            ".nerb-privacy-allowlist.json (1 entry in all).\n")
    pointer = run_cli("allowlist", "add", "--path", "data.json", "--pointer", "/@key:0/0/@key:0", "--code",
                      "privacy.personal_path", "--justification", justification, cwd=tree)
    assert pointer.stdout == ("nerb-verify allowlist add: added privacy.personal_path at JSON pointer /@key:0/0/@key:0 "
                              "of data.json to .nerb-privacy-allowlist.json (2 entries in all).\n")
    # A pointer or path typed by hand may hold the very value: it is not echoed unless it has the scanner's shape.
    hidden = run_cli("allowlist", "add", "--path", EMAIL + ".txt", "--pointer", "/rows/" + EMAIL, "--code",
                     "privacy.email", "--justification", justification, cwd=tree)
    assert hidden.code == 0 and EMAIL not in hidden.stdout + hidden.stderr
    assert hidden.stdout == ("nerb-verify allowlist add: added privacy.email at a JSON pointer of @name:0 to "
                             ".nerb-privacy-allowlist.json (3 entries in all).\n")
    whole = run_cli("allowlist", "add", "--path", "docs/leak.md", "--whole-file", "--code", "privacy.phone",
                    "--justification", justification, cwd=tree)
    assert whole.stdout == ("nerb-verify allowlist add: added privacy.phone anywhere in docs/leak.md to "
                            ".nerb-privacy-allowlist.json (4 entries in all).\n")
    checked = run_cli("allowlist", "check", cwd=tree)
    assert checked.code == 0
    assert checked.stdout == ("nerb-verify allowlist check: .nerb-privacy-allowlist.json is valid: 4 entries "
                              "(privacy.email 2, privacy.personal_path 1, privacy.phone 1).\n")
    elsewhere = run_cli("allowlist", "check", "--allowlist", str(allow))
    assert elsewhere.code == 0 and str(tree) not in elsewhere.stdout
    assert justification not in added.stdout + checked.stdout + elsewhere.stdout
    allow.write_text("[]")
    broken = run_cli("allowlist", "check", cwd=tree)
    assert broken.code == 1 and broken.stdout == ""
    assert broken.stderr.splitlines()[-1] == ("nerb-verify allowlist check: .nerb-privacy-allowlist.json has 1 "
                                              "problem(s); fix them before relying on it.")


def test_allowlist_rejects_entries_without_justification_or_bad_location(tmp_path: Path) -> None:
    allow = tmp_path / "allow.json"
    short = run_cli("allowlist", "add", "--allowlist", str(allow), "--path", "x.md", "--line", "1", "--code",
                    "privacy.email", "--justification", "ok")
    assert short.code == 1 and not allow.exists()
    unknown = run_cli("allowlist", "add", "--allowlist", str(allow), "--path", "x.md", "--line", "1", "--code",
                      "privacy.nope", "--justification", "A long enough justification.")
    assert unknown.code == 1
    allow.write_text(json.dumps({"version": 1, "entries": [
        {"path": "../x.md", "anchor": "file", "code": "privacy.email", "justification": "A long enough one."},
        {"path": "x.md", "anchor": "line:0", "code": "privacy.email", "justification": "A long enough one."},
        {"path": "x.md", "anchor": "file", "code": "privacy.email", "justification": " "},
        {"path": "x.md", "anchor": "file", "code": "privacy.email", "justification": "A long enough one.",
         "extra": "x"},
        {"path": "x.md", "anchor": "file", "code": "privacy.email", "justification": "A long enough one."},
        {"path": "x.md", "anchor": "file", "code": "privacy.email", "justification": "A long enough one."}]}))
    check = run_cli("allowlist", "check", "--allowlist", str(allow))
    assert check.code == 1
    got = [line.split(": ")[1] for line in check.stderr.splitlines()[:-1]]  # the last line is the summary
    assert got == ["error allowlist.invalid_entry", "error allowlist.invalid_entry",
                   "error allowlist.missing_justification", "error allowlist.invalid_entry",
                   "warning allowlist.duplicate_entry"]
    allow.write_text("[]")
    scan = run_cli("scan", "--allowlist", str(allow), str(allow))
    assert scan.code == 1 and "allowlist.invalid_file" in scan.stdout


# --- scan --bundles (the nerb-verify-bundle hook's entry) ------------------------------------------------------------

def test_scan_bundles_verifies_touched_bundles(tmp_path: Path, real_bundle: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tools.fixturelib import materialize
    from tools.mutations.privacy import CASES

    clean = run_cli("scan", "--bundles", str(real_bundle / "summary.md"), str(real_bundle / "figures"),
                    str(tmp_path / "not-a-bundle.md"))
    assert (clean.code, clean.stdout) == (0, "")
    case = next(c for c in CASES if c["slug"] == "card-version-compact-phone")
    mutant = materialize(case, tmp_path / "mutant")
    result = run_cli("scan", "--bundles", "--format", "json", str(mutant / "bank-card.json"))
    document = json.loads(result.stdout)
    assert result.code == 1
    assert [(f["code"], f["artifact"], f["pointer"]) for f in document["findings"]] == [
        ("privacy.phone", f"{mutant.as_posix()}/bank-card.json", "/bank/version")]


def _materialize(slug: str, dest: Path) -> Path:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tools.fixturelib import materialize
    from tools.mutations import binding, privacy

    case = next(c for c in privacy.CASES + binding.CASES if c["slug"] == slug)
    return materialize(case, dest)


def test_scan_bundles_labels_findings_by_family_and_hints_privacy_only_for_privacy(tmp_path: Path) -> None:
    """Issue 15 item 14: a binding finding is not a privacy finding: no "(contract profile)" scan line and no
    allowlist hint for it; the summary counts bundles by verdict and findings by family."""
    edited = _materialize("summary-prose-edited", tmp_path / "edited")
    result = run_cli("scan", "--bundles", "--pre-commit", str(edited / "summary.md"))
    lines = result.stdout.splitlines()
    assert result.code == 1
    assert lines[-2] == "nerb-verify scan --bundles: 1 bundle(s) verified (1 rejected); 1 finding(s) (binding 1) in " \
                        "19 file(s)."
    assert lines[-1] == ("Other findings (binding): each code is explained in nerb-verify's "
                         "docs/findings/binding.md.")
    assert "profile" not in result.stdout and "allowlist" not in result.stdout
    leaked = _materialize("card-version-compact-phone", tmp_path / "leaked")
    privacy = run_cli("scan", "--bundles", "--pre-commit", str(leaked / "bank-card.json"))
    assert privacy.code == 1
    assert "(privacy 1)" in privacy.stdout and "published evidence has no allowlist" in privacy.stdout
    assert "nerb-verify allowlist add" not in privacy.stdout and "Other findings" not in privacy.stdout


def test_scan_hint_names_a_command_that_works_where_the_user_is(tree: Path) -> None:
    plain = run_cli("scan", "--no-allowlist", str(tree / "docs"))
    assert plain.code == 1 and "'nerb-verify allowlist add'" in plain.stdout
    hooked = run_cli("scan", "--no-allowlist", "--pre-commit", str(tree / "docs"))
    assert hooked.code == 1 and "nerb-verify allowlist add" not in hooked.stdout
    assert "'pre-commit run nerb-privacy-allowlist --hook-stage manual'" in hooked.stdout
    missing = run_cli("scan", "--no-allowlist", str(tree / "nope"))
    assert missing.code == 2 and "allowlist entry" not in missing.stdout and "Values are never" not in missing.stdout


def test_arrays_that_spell_text_are_scanned_as_that_text() -> None:
    """An identifier spelled as character codes or as single characters, one array element each, is a finding at the
    array's pointer; arrays of ordinary numbers (counts, nanosecond samples) and of words are not read as text."""
    from nerb_verify.privacy.json_scan import spelled_text

    codes_array = [ord(ch) for ch in EMAIL]
    chars_array = list(PHONE)
    document = {"notes": {"codes": codes_array, "chars": chars_array},
                "samples_ns": [207271, 212875, 199083, 219041, 215750, 210666],
                "counts": [100, 31, 69, 142, 4, 7], "words": ["alpha", "beta", "gamma", "delta", "eps", "zeta"]}
    collector = Collector()
    scan_json(document, CONTRACT, collector, "e.json")
    got = {(f.code, f.pointer) for f in collector.findings}
    assert ("privacy.email", "/@key:0/@key:0") in got
    assert ("privacy.phone", "/@key:0/@key:1") in got
    assert all(not pointer.startswith(("/@key:1", "/@key:2", "/@key:3")) for _code, pointer in got)
    assert all(EMAIL not in f.message and PHONE not in f.message for f in collector.findings)
    assert spelled_text(codes_array) == EMAIL and spelled_text(codes_array[:5]) is None
    assert spelled_text([0xD800] * 8) is None and spelled_text(["ab", "cde"] * 4) is None


def test_bundle_file_names_are_scanned_and_never_echoed(tmp_path: Path, real_bundle: Path) -> None:
    """A file named after a person is a privacy finding at '@name:<index>', and every other finding about that file
    (unexpected file, schema violation of an inventory) shows the masked name too, in every output format."""
    import shutil

    from contract_tests.conftest import verify_dir

    bundle = tmp_path / "b"
    shutil.copytree(real_bundle, bundle)
    (bundle / "figures" / (EMAIL + ".svg")).write_text("<svg/>")
    (bundle / "inventories" / (PHONE + ".json")).write_text("[]")
    result = verify_dir(bundle)
    got = {(f.code, f.artifact) for f in result.collector.findings}
    assert ("privacy.email", "figures/@name:1") in got
    assert ("privacy.phone", "inventories/@name:1") in got
    assert ("schema.min_items", "inventories/@name:1") in got
    for fmt in ("text", "json", "sarif", "github"):
        out = run_cli("verify", str(bundle), "--format", fmt)
        assert out.code == 1
        assert EMAIL not in out.stdout + out.stderr and PHONE not in out.stdout + out.stderr, fmt
