"""Release identity (issue 19 item 1): a real benchmark's commit is never a placeholder or malformed.

The broken fixtures ``fixtures/invalid/manifest.placeholder_release_identity-*`` cover the whole verifier (exact code
sets); these tests pin the rule itself, that a synthetic fixture is exempt, that the check still runs when the
schema rejected the field, and that messages never carry the value.
"""

from __future__ import annotations

import copy

import pytest

from contract_tests.conftest import open_real_bundle
from nerb_verify.checks.provenance import release_identity
from nerb_verify.context import EVIDENCE, MANIFEST

CODE = release_identity.PLACEHOLDER_RELEASE_IDENTITY
REAL_COMMIT = "f574b79caaf194f17ba8b8113939bd22c9380bc3"


@pytest.mark.parametrize(("value", "rule"), [
    ("0" * 40, "all_zero"),
    ("1" * 40, "repeated_digit"),
    ("a" * 40, "repeated_digit"),
    (REAL_COMMIT[:-1], "wrong_length"),
    (REAL_COMMIT + "0" * 24, "wrong_length"),
    ("", "wrong_length"),
    (REAL_COMMIT.upper(), "not_lowercase_hex"),
    (REAL_COMMIT[:-1] + "g", "not_lowercase_hex"),
    (None, "not_a_string"),
    (40, "not_a_string"),
])
def test_commit_problem_names_the_rule(value: object, rule: str) -> None:
    assert release_identity.commit_problem(value) == rule


@pytest.mark.parametrize("value", [REAL_COMMIT, "0" * 39 + "1", "4ae41c2a4defb0a2b478c848644f5c0dd17a0cea"])
def test_real_commits_pass(value: str) -> None:
    assert release_identity.commit_problem(value) is None


def _run(edit) -> list:  # type: ignore[no-untyped-def]
    ctx = open_real_bundle()
    ctx.loaded = copy.deepcopy(ctx.loaded)
    edit(ctx.loaded)
    release_identity.run(ctx)
    return [f for f in ctx.collector.findings if f.code == CODE]


def test_the_real_bundle_has_a_release_identity(real_result) -> None:  # type: ignore[no-untyped-def]
    assert not [f for f in real_result.collector.findings if f.code == CODE]
    assert _run(lambda loaded: None) == []


def test_every_commit_field_of_a_real_bundle_is_checked() -> None:
    def zero_capacity_phases(loaded: dict) -> None:
        for phase in loaded["capacity-decision.json"]["report"]["phases"]:
            phase["executable_git_commit"] = "0" * 40
        loaded[EVIDENCE]["test_access"]["frozen_target"]["git_commit"] = "9" * 40

    findings = _run(zero_capacity_phases)
    pointers = sorted(f.pointer for f in findings)
    assert pointers == sorted([f"/report/phases/{i}/executable_git_commit" for i in range(5)]
                              + ["/test_access/frozen_target/git_commit"])


def test_synthetic_fixture_may_carry_a_placeholder_commit() -> None:
    def synthetic(loaded: dict) -> None:
        for rel in (MANIFEST, EVIDENCE):
            loaded[rel]["artifact_kind"] = "synthetic_fixture"
            loaded[rel]["software"]["git_commit"] = "0" * 40

    assert _run(synthetic) == []


def test_one_real_declaration_is_enough() -> None:
    """A manifest that says real and an evidence that says synthetic (itself a provenance mismatch) is still real."""
    def mixed(loaded: dict) -> None:
        loaded[EVIDENCE]["artifact_kind"] = "synthetic_fixture"
        loaded[EVIDENCE]["software"]["git_commit"] = "0" * 40

    assert [f.pointer for f in _run(mixed)] == ["/software/git_commit"]


def test_runs_on_a_schema_invalid_manifest_and_never_prints_the_value() -> None:
    value = REAL_COMMIT.upper()

    def malformed(loaded: dict) -> None:
        loaded[MANIFEST]["software"]["git_commit"] = value

    ctx = open_real_bundle()
    ctx.loaded = copy.deepcopy(ctx.loaded)
    malformed(ctx.loaded)
    ctx.artifacts.pop(MANIFEST, None)  # as if the schema had rejected it
    release_identity.run(ctx)
    findings = [f for f in ctx.collector.findings if f.code == CODE]
    assert [(f.artifact, f.pointer) for f in findings] == [(MANIFEST, "/software/git_commit")]
    assert value not in findings[0].message and value.lower() not in findings[0].message
    assert "not_lowercase_hex" in findings[0].message


def test_not_evaluated_without_manifest_or_evidence() -> None:
    ctx = open_real_bundle()
    ctx.loaded = {k: v for k, v in ctx.loaded.items() if k not in (MANIFEST, EVIDENCE)}
    release_identity.run(ctx)
    assert ctx.shared["manifest.release_identity"] == {"status": "not_evaluated"}


# ------------------------------------------------------------------------------------------------ the demo's side

@pytest.mark.xdist_group("demo")
def test_the_demo_labels_its_synthetic_run_synthetic(demo) -> None:  # type: ignore[no-untyped-def]
    import json

    for rel in (MANIFEST, EVIDENCE):
        doc = json.loads((demo.bundle / rel).read_text(encoding="utf-8"))
        assert doc["artifact_kind"] == "synthetic_fixture", rel
    assert demo.verdict == "verified" and demo.error_codes == []


def _git(repo, *args: str) -> str:  # type: ignore[no-untyped-def]
    import subprocess

    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t" + "@" + "example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t" + "@" + "example.invalid", "HOME": str(repo), "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True, env=env,
                          text=True).stdout.strip()


def test_checkout_commit_is_the_head_of_the_checkout_rooted_there(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from nerb_verify.producers.demo_pipeline import PLACEHOLDER_COMMIT, checkout_commit

    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    _git(repo, "init", "-q")
    assert checkout_commit(repo) == (PLACEHOLDER_COMMIT, True)  # no commit yet
    (repo / "pkg" / "f.txt").write_text("one\n")
    _git(repo, "add", "pkg/f.txt")
    _git(repo, "commit", "-qm", "one")
    head = _git(repo, "rev-parse", "HEAD")
    assert checkout_commit(repo) == (head, False)
    (repo / "pkg" / "f.txt").write_text("two\n")
    assert checkout_commit(repo) == (head, True)
    # a package installed somewhere inside another project's tree does not borrow that project's commit
    assert checkout_commit(repo / "pkg") == (PLACEHOLDER_COMMIT, True)
    assert checkout_commit(tmp_path / "not-a-repo") == (PLACEHOLDER_COMMIT, True)


def test_assembly_refuses_an_unknown_artifact_kind() -> None:
    from nerb_verify.producers import assembly

    with pytest.raises(assembly.AssemblyError):
        assembly.freeze_plans(public_sections={}, bank_section={}, conformance_plan={}, labels=[], quality_plan=[],
                              provenance=None, audit_plan={}, gate_slice=None, performance_plan=None,  # type: ignore[arg-type]
                              privacy_report_sha256="", command_argv=[], command_elapsed_seconds=0.0,
                              artifact_kind="real")


def _commit_fields_by_copied_paths(document: object) -> list[tuple[list[object], object]]:
    """The commit-field walk with each path copied at every step (the rule ``commit_fields`` implements)."""
    from nerb_verify.checks.provenance.release_identity import COMMIT_FIELDS

    found: list[tuple[list[object], object]] = []
    stack: list[tuple[object, list[object]]] = [(document, [])]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in COMMIT_FIELDS:
                    found.append(([*path, key], value))
                elif isinstance(value, (dict, list)):
                    stack.append((value, [*path, key]))
        elif isinstance(node, list) and node and isinstance(node[0], (dict, list)):
            stack.extend((value, [*path, index]) for index, value in enumerate(node) if isinstance(value, (dict, list)))
    return found


def test_commit_fields_walk_finds_the_same_fields_and_paths() -> None:
    """Over every JSON file of both vendored bundles, and a nested synthetic document, the linked-path walk yields
    the same (path, value) pairs in the same order as copying the path at every step."""
    import json
    from pathlib import Path

    from nerb_verify.checks.provenance.release_identity import commit_fields

    root = Path(__file__).resolve().parent.parent / "fixtures" / "bundles"
    documents: list[object] = [json.loads(p.read_bytes()) for p in sorted(root.rglob("*.json"))]
    documents.append({"a": [{"git_commit": "x", "b": [[{"git_commit": 1}]]}, {"c": {"git_commit": None}}],
                      "git_commit": "y", "d": [1, 2, {"git_commit": "z"}],
                      "records": [{"n": 1, "s": "t"}, {"n": 2, "git_commit": "w"}],
                      "flat": [{"n": 1}, {"n": 2, "m": None}], "nested": [{"n": 1}, {"n": {"git_commit": "v"}}],
                      "deep": [{"n": [1]}, {"n": [{"frozen_git_commit": "u"}]}]})
    found = 0
    for document in documents:
        expected = _commit_fields_by_copied_paths(document)
        assert list(commit_fields(document)) == expected
        found += len(expected)
    assert found > 7
