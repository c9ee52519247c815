"""Split producer: leakage groups, role assignment, row-order independence, audit, sealed one-shot test access."""

from __future__ import annotations

import json
import random
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))

import make_corpus
from conftest import run_cli

from nerb_verify.producers import public_sections, splitting
from nerb_verify.producers.cleaning import feature_hash
from nerb_verify.producers.preparation import prepare
from nerb_verify.producers.sealed import SealedAccessError, SealedTest, file_ref, read_development_role
from nerb_verify.producers.splitting import SplitError
from nerb_verify.producers.splitting_run import run_split

REVISION = "cd" * 20


def _corpus_lines(path: Path) -> list[bytes]:
    return [line + b"\n" for line in path.read_bytes().split(b"\n")[:-1] if len(line) < 1_000_000]


def _prepare_and_split(lines: list[bytes], root: Path, seed: str = "test-seed"):
    root.mkdir(parents=True, exist_ok=True)
    source = root / "corpus.jsonl"
    source.write_bytes(b"".join(lines))
    prep = prepare(source, root / ".nerb", dataset_id="gen", revision=REVISION)
    split = run_split(prep.run_dir, root / ".nerb", seed=seed, mode="fixture")
    return prep, split


def _memberships(split) -> list[dict]:
    path = split.split_dir / "sealed" / "memberships.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("split-corpus")
    make_corpus.write_corpus(root, 400, 21, "jsonl", broken=True)
    return root


@pytest.fixture(scope="module")
def baseline(corpus, tmp_path_factory):
    return _prepare_and_split(_corpus_lines(corpus / "corpus.jsonl"), tmp_path_factory.mktemp("baseline"))


def test_every_true_group_lands_in_one_role_and_one_component(corpus, baseline):
    prep, split = baseline
    key = {("sha256:" + feature_hash("source-locator", row["file_name"])): row["group"]
           for row in (json.loads(line) for line in (corpus / "answer-key.jsonl").read_text().splitlines())
           if "file_name" in row}
    locator = {}
    with open(prep.run_dir / "prepared.jsonl", "rb") as handle:
        for line in handle:
            record = json.loads(line)
            locator[record["document_id"]] = record["source"]["source_locator_sha256"]
    roles, components = defaultdict(set), defaultdict(set)
    for row in _memberships(split):
        group = key.get(locator[row["document_id"]])
        if group is not None:
            roles[group].add(row["role"])
            components[group].add(row["group_id"])
    assert len(roles) == len({g for g in key.values()})
    assert all(len(r) == 1 for r in roles.values())
    assert all(len(c) == 1 for c in components.values())
    # the generated near duplicates and copies are joined by their own edge families
    assert split.audit["edge_counts"]["near_duplicate"] > 0
    assert split.audit["edge_counts"]["exact_plaintext"] > 0
    assert split.audit["edge_counts"]["thread_shared_participant"] > 0


def test_no_group_crosses_roles_and_audit_is_clean(baseline):
    _, split = baseline
    role_of_group = defaultdict(set)
    for row in _memberships(split):
        role_of_group[row["group_id"]].add(row["role"])
    assert all(len(r) == 1 for r in role_of_group.values())
    assert split.audit["crossing_groups"] == 0
    assert set(split.audit["crossing_keys_by_family"].values()) == {0}
    roles = split.manifest["roles"]
    assert sum(roles[r]["records"] for r in roles) == split.audit["records"]
    assert sum(roles[r]["groups"] for r in roles) == split.audit["groups"] == len(role_of_group)


def test_temporal_roles_follow_dates(baseline):
    _, split = baseline
    anchors = defaultdict(list)
    for row in _memberships(split):
        if row["temporal"]["anchor_utc"] and "non_temporal" not in row["challenges"]:
            anchors[row["role"]].append(row["temporal"]["anchor_utc"])
    assert max(anchors["train"]) <= min(anchors["validation"]) <= max(anchors["validation"]) <= min(anchors["test"])
    records = split.manifest["roles"]
    total = sum(records[r]["records"] for r in records)
    assert 0.6 < records["train"]["records"] / total < 0.9


@settings(max_examples=3, deadline=None)
@given(order_seed=st.integers(0, 10_000))
def test_shuffling_input_rows_changes_nothing_in_the_split(corpus, baseline, order_seed, tmp_path_factory):
    _, split = baseline
    lines = _corpus_lines(corpus / "corpus.jsonl")
    random.Random(order_seed).shuffle(lines)
    _, again = _prepare_and_split(lines, tmp_path_factory.mktemp("shuffled"))
    assert [(r["document_id"], r["group_id"], r["role"]) for r in _memberships(again)] == \
        [(r["document_id"], r["group_id"], r["role"]) for r in _memberships(split)]
    assert again.manifest["roles"] == split.manifest["roles"]
    assert again.audit == split.audit
    assert again.manifest["policy_sha256"] == split.manifest["policy_sha256"]


@settings(max_examples=300, deadline=None)
@given(signature=st.integers(0, 2**64 - 1), flips=st.sets(st.integers(0, 63), max_size=3))
def test_band_index_is_complete_within_three_flips(signature, flips):
    other = signature
    for bit in flips:
        other ^= 1 << bit
    assert set(splitting.band_keys(signature)) & set(splitting.band_keys(other))


def test_union_find_keeps_the_smaller_root_and_components_move_whole():
    uf = splitting.UnionFind(5)
    uf.union(4, 2)
    uf.union(3, 4)
    assert uf.find(3) == 2 and uf.find(4) == 2
    old = splitting.Component([0], "sha256:" + "1" * 64, 10, "a", set())
    comps = [splitting.Component([i], "sha256:" + f"{i + 2:064x}", 100 + i, "b", set()) for i in range(1, 30)]
    splitting.assign_roles([old, *comps], "s")
    assert old.role == "train"
    assert {c.role for c in comps[-2:]} == {"test"}


def test_split_public_section_is_valid_and_checked(baseline):
    _, split = baseline
    sealed = split.split_dir / "sealed"
    section = public_sections.splits_section(split.manifest, file_ref(sealed / "manifest.json", "m")["sha256"],
                                             split.audit, True)
    prep_manifest = json.loads((split.split_dir.parent.parent / "enron-preparation" / "run" / "manifest.json")
                               .read_text())
    sections = {"source": public_sections.source_section(prep_manifest, source_id="generated-corpus",
                                                         revision=REVISION, owner="tests", access="synthetic"),
                "preparation": public_sections.preparation_section(prep_manifest), "splits": section}
    assert public_sections.all_problems(sections) == []
    assert section["seed"] == splitting.seed_commitment("test-seed") and "test-seed" not in json.dumps(section)
    assert section["leakage_audit_sha256"] == file_ref(sealed / "leakage-audit.json", "a")["sha256"]
    broken = json.loads(json.dumps(sections))
    broken["splits"]["leakage_groups_crossing"] = 1
    broken["splits"]["roles"]["test"]["artifact"] = dict(broken["splits"]["roles"]["train"]["artifact"])
    broken["splits"]["roles"]["train"]["records"] += 1
    codes = {code for code, _ in public_sections.rule_problems(broken)}
    assert {"contract.split_leakage", "contract.split_artifact_overlap", "contract.split_record_total"} <= codes


def test_production_mode_refuses_a_small_split_and_frozen_runs_are_immutable(baseline, corpus, tmp_path):
    prep, split = baseline
    with pytest.raises(SplitError) as exc:
        run_split(prep.run_dir, tmp_path / ".nerb", mode="production")
    assert exc.value.code == "production_floors"
    with pytest.raises(SplitError) as exc:
        run_split(prep.run_dir, split.split_dir.parent.parent, mode="fixture")
    assert exc.value.code == "split_already_frozen"


def test_tampered_prepared_artifact_is_refused(corpus, tmp_path):
    lines = _corpus_lines(corpus / "corpus.jsonl")[:80]
    source = tmp_path / "c.jsonl"
    source.write_bytes(b"".join(lines))
    prep = prepare(source, tmp_path / ".nerb", dataset_id="gen", revision=REVISION)
    with open(prep.run_dir / "prepared.jsonl", "ab") as handle:
        handle.write(b"\n")
    with pytest.raises(SplitError) as exc:
        run_split(prep.run_dir, tmp_path / ".nerb", mode="fixture")
    assert exc.value.code == "prepared_artifact_changed"


def _frozen_target(split) -> dict:
    sealed = split.split_dir / "sealed"
    return {"frozen_at": "2026-01-01T00:00:00Z", "audit_plan_sha256": "sha256:" + "1" * 64,
            "bank_hash": "sha256:" + "2" * 64, "evaluator_source_sha256": "sha256:" + "3" * 64,
            "split_manifest_sha256": file_ref(sealed / "manifest.json", "m")["sha256"],
            "test_artifact_sha256": split.manifest["roles"]["test"]["artifact"]["sha256"],
            "thresholds_sha256": "sha256:" + "4" * 64, "performance_manifest_sha256": "sha256:" + "5" * 64,
            "git_commit": "6" * 40}


def test_sealed_test_opens_exactly_once_and_is_recorded(corpus, tmp_path):
    _, split = _prepare_and_split(_corpus_lines(corpus / "corpus.jsonl"), tmp_path / "run")
    development = split.split_dir / "development"
    assert not (development / "test.jsonl").exists()
    with pytest.raises(SealedAccessError):
        list(read_development_role(development, "test"))
    assert sum(1 for _ in read_development_role(development, "train")) == split.manifest["roles"]["train"]["records"]
    redacted = json.loads((development / "manifest.json").read_text())
    assert "artifact" not in redacted["roles"]["test"] and "test" not in redacted["cohorts"]
    lineage = split.split_dir.parent / "lineage.jsonl"
    sealed = SealedTest(split.split_dir / "sealed", lineage)
    assert sealed.state() == "sealed_unbound"
    with pytest.raises(SealedAccessError):
        sealed.claim()  # no access before the frozen target is bound
    sealed.bind_evidence(_frozen_target(split))
    with sealed.open_once() as lines:
        count = sum(1 for _ in lines)
    assert count == split.manifest["roles"]["test"]["records"]
    assert sealed.state() == "completed"
    with pytest.raises(SealedAccessError):
        sealed.claim()
    events = [entry["event"] for entry in sealed.lineage.entries()]
    assert events == ["evidence_bound", "claimed", "completed"]
    text = lineage.read_text()
    lineage.write_text(text.replace('"completed"', '"failed"', 1))
    with pytest.raises(SealedAccessError) as exc:
        sealed.lineage.entries()
    assert exc.value.code == "lineage_chain_broken"


def test_aborted_access_still_counts(corpus, tmp_path):
    _, split = _prepare_and_split(_corpus_lines(corpus / "corpus.jsonl")[:200], tmp_path / "run")
    sealed = SealedTest(split.split_dir / "sealed", split.split_dir.parent / "lineage.jsonl")
    sealed.bind_evidence(_frozen_target(split))
    with pytest.raises(RuntimeError), sealed.open_once() as lines:
        next(lines)
        raise RuntimeError("evaluator crashed")
    assert sealed.state() == "aborted"
    with pytest.raises(SealedAccessError):
        sealed.claim()


def test_cli_prepare_split_and_one_shot_open(corpus, tmp_path):
    source = tmp_path / "c.jsonl"
    source.write_bytes(b"".join(_corpus_lines(corpus / "corpus.jsonl")))
    common = ["--private-root", str(tmp_path / ".nerb"), "--public-out", str(tmp_path / "public.json")]
    assert run_cli("prepare", str(source), *common, "--no-progress").code == 0
    refused = run_cli("split", *common, "--no-progress")
    assert refused.code == 1 and "production_floors" in refused.stderr
    done = run_cli("split", *common, "--mode", "fixture", "--run", "fx", "--no-progress")
    assert done.code == 0, done.stderr
    assert "groups crossing roles" in done.stdout and "@" not in done.stdout
    sections = json.loads((tmp_path / "public.json").read_text())
    assert set(sections) == {"source", "preparation", "splits"}
    assert public_sections.all_problems(sections) == []
    assert sections["splits"]["test_sealed"] is True and sections["splits"]["leakage_groups_crossing"] == 0
    sealed_manifest = tmp_path / ".nerb" / "enron-split" / "fx" / "sealed" / "manifest.json"
    assert sections["splits"]["manifest_sha256"] == file_ref(sealed_manifest, "m")["sha256"]
    target = json.loads(sealed_manifest.read_text())
    frozen = {"frozen_at": "2026-01-01T00:00:00Z", "audit_plan_sha256": "sha256:" + "1" * 64,
              "bank_hash": "sha256:" + "2" * 64, "evaluator_source_sha256": "sha256:" + "3" * 64,
              "split_manifest_sha256": sections["splits"]["manifest_sha256"],
              "test_artifact_sha256": target["roles"]["test"]["artifact"]["sha256"],
              "thresholds_sha256": "sha256:" + "4" * 64, "performance_manifest_sha256": "sha256:" + "5" * 64,
              "git_commit": "6" * 40}
    (tmp_path / "frozen.json").write_text(json.dumps(frozen))
    open_args = ["split", "--private-root", str(tmp_path / ".nerb"), "--run", "fx", "--open-test",
                 "--frozen-target", str(tmp_path / "frozen.json"), "--confirm-one-shot"]
    assert run_cli(*open_args).code == 2  # --into missing: nothing claimed
    first = run_cli(*open_args, "--into", str(tmp_path / "test-lines.jsonl"))
    assert first.code == 0, first.stderr
    second = run_cli(*open_args, "--into", str(tmp_path / "again.jsonl"))
    assert second.code == 1 and "refused" in second.stderr
    assert not (tmp_path / "again.jsonl").exists()
    # a new preparation invalidates the published splits section
    assert run_cli("prepare", str(source), *common, "--run", "second", "--no-progress").code == 0
    assert set(json.loads((tmp_path / "public.json").read_text())) == {"source", "preparation"}


def test_emitted_sections_pass_the_verifiers_manifest_checks(baseline, real_bundle):
    """Our three sections dropped into the real manifest raise no manifest-family finding inside those sections."""
    from nerb_verify.checks.provenance import manifest_rules
    from nerb_verify.context import VerifyContext, VerifyOptions
    from nerb_verify.findings import Collector

    _, split = baseline
    sealed = split.split_dir / "sealed"
    prep_manifest = json.loads((split.split_dir.parent.parent / "enron-preparation" / "run" / "manifest.json")
                               .read_text())
    manifest = json.loads((real_bundle / "benchmark-manifest.json").read_text())
    manifest["source"] = public_sections.source_section(prep_manifest, source_id="generated-corpus",
                                                        revision=REVISION, owner="tests", access="synthetic")
    manifest["preparation"] = public_sections.preparation_section(prep_manifest)
    manifest["splits"] = public_sections.splits_section(
        split.manifest, file_ref(sealed / "manifest.json", "m")["sha256"], split.audit, True)
    ctx = VerifyContext(root=Path("."), options=VerifyOptions(), collector=Collector())
    manifest_rules.check_manifest(ctx, manifest)
    ours = [f for f in ctx.collector.findings
            if str(f.pointer).startswith(("/source", "/preparation", "/splits"))]
    assert ours == []
    # and a crossing group in our splits section is caught by the verifier itself
    manifest["splits"]["leakage_groups_crossing"] = 1
    ctx = VerifyContext(root=Path("."), options=VerifyOptions(), collector=Collector())
    manifest_rules.check_manifest(ctx, manifest)
    assert any(f.code.endswith("split_leakage") for f in ctx.collector.findings)
