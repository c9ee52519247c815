"""The documented producer chain, through the CLI, on a small synthetic corpus (issue 15.12).

``prepare INPUT --public-out F`` -> ``split --mode fixture --public-out F`` -> ``bank build DEV --private-dir P
--public-dir Q``, exactly as docs/producers.md documents it: no ``--dataset-*`` flag is needed, the card's source
identity is the one ``prepare`` published. Also: ``split`` refuses a ``--public-out`` that is not prepare's file
before writing anything, and a refused split leaves no folder behind.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from contract_tests.conftest import REPO, run_cli

MESSAGES = "40"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("chain") / "corpus"
    subprocess.run([sys.executable, str(REPO / "tools" / "make_corpus.py"), str(out), "--messages", MESSAGES,
                    "--seed", "3"], check=True, capture_output=True, timeout=120)
    return out / "corpus.jsonl"


def _prepare(corpus: Path, root: Path, public: Path, *extra: str) -> None:
    done = run_cli("prepare", str(corpus), "--private-root", str(root), "--public-out", str(public),
                   "--no-progress", *extra)
    assert done.code == 0, done.stderr


def _split(root: Path, public: Path, *extra: str):
    return run_cli("split", "--private-root", str(root), "--public-out", str(public), "--no-progress", *extra)


def test_the_documented_chain_builds_a_card_bound_to_the_published_source(corpus, tmp_path):
    pytest.importorskip("re2")
    root, public = tmp_path / ".nerb", tmp_path / "new" / "nerb-public" / "manifest-sections.json"
    _prepare(corpus, root, public)  # a new file in a new folder
    split = _split(root, public, "--mode", "fixture")
    assert split.code == 0, split.stderr
    development = root / "enron-split" / "run" / "development"
    built = run_cli("bank", "build", str(development), "--private-dir", str(root / "bank"), "--public-dir",
                    str(tmp_path / "pub"))
    assert built.code == 0, built.stderr
    card = json.loads((tmp_path / "pub" / "bank-card.json").read_text())
    sections = json.loads(public.read_text())
    assert card["source"]["dataset_id"] == sections["source"]["id"] == "local-corpus"
    # no --revision: the public revision is the content commitment's hex, and the card carries that very value
    assert card["source"]["dataset_revision"] == sections["source"]["revision"]
    assert "sha256:" + card["source"]["dataset_revision"] == sections["source"]["content_sha256"]
    assert card["source"]["dataset_split"] == "train"
    assert card["source"]["full_split_manifest_sha256"] == sections["splits"]["manifest_sha256"]


def test_declared_revision_and_source_split_reach_the_card(corpus, tmp_path):
    pytest.importorskip("re2")
    root, public = tmp_path / ".nerb", tmp_path / "sections.json"
    revision = "0123456789abcdef" * 2 + "01234567"
    _prepare(corpus, root, public, "--revision", revision, "--source-split", "full", "--source-id", "corpus-b")
    assert _split(root, public, "--mode", "fixture").code == 0
    built = run_cli("bank", "build", str(root / "enron-split" / "run" / "development"), "--private-dir",
                    str(root / "bank"), "--public-dir", str(tmp_path / "pub"))
    assert built.code == 0, built.stderr
    source = json.loads((tmp_path / "pub" / "bank-card.json").read_text())["source"]
    assert (source["dataset_id"], source["dataset_revision"], source["dataset_split"]) == ("corpus-b", revision,
                                                                                           "full")


def test_a_bad_source_split_is_refused_up_front(corpus, tmp_path):
    done = run_cli("prepare", str(corpus), "--private-root", str(tmp_path / ".nerb"), "--public-out",
                   str(tmp_path / "s.json"), "--source-split", "a/b")
    assert done.code == 2 and "--source-split must be 1-64 letters" in done.stderr
    assert not (tmp_path / ".nerb").exists()


def test_split_into_a_new_public_file_is_refused_clearly_before_anything_is_written(corpus, tmp_path):
    root, public = tmp_path / ".nerb", tmp_path / "sections.json"
    _prepare(corpus, root, public)
    done = _split(root, tmp_path / "other.json", "--mode", "fixture")
    assert done.code == 2
    assert "--public-out names no existing sections file" in done.stderr and "nerb-verify prepare" in done.stderr
    assert "schema.type" not in done.stderr
    assert not (root / "enron-split").exists() and not (tmp_path / "other.json").exists()
    # the right file then works with the same run name: nothing was frozen by the refused attempt
    assert _split(root, public, "--mode", "fixture").code == 0


def test_split_refuses_the_sections_of_another_preparation(corpus, tmp_path):
    root, public = tmp_path / ".nerb", tmp_path / "sections.json"
    _prepare(corpus, root, public)
    other = tmp_path / "other.json"
    sections = json.loads(public.read_text())
    sections["preparation"]["output_records"] += 1
    other.write_text(json.dumps(sections))
    done = _split(root, other, "--mode", "fixture")
    assert done.code == 2 and "another preparation run" in done.stderr
    assert not (root / "enron-split").exists()


def test_a_refused_split_leaves_no_folder_behind(corpus, tmp_path):
    root, public = tmp_path / ".nerb", tmp_path / "sections.json"
    _prepare(corpus, root, public)
    refused = _split(root, public)  # production mode: a 40-message corpus misses the floors
    assert refused.code == 1 and "production_floors" in refused.stderr
    assert not (root / "enron-split").exists()
    # an existing split root (with another run's lineage) is kept; only the refused run's folders go
    (root / "enron-split").mkdir(mode=0o700)
    (root / "enron-split" / "lineage.jsonl").write_text("")
    assert _split(root, public, "--run", "second").code == 1
    assert sorted(p.name for p in (root / "enron-split").iterdir()) == ["lineage.jsonl"]
    assert json.loads(public.read_text()).keys() == {"source", "preparation"}


def test_bank_build_without_a_source_identity_writes_nothing(corpus, tmp_path):
    pytest.importorskip("re2")
    root, public = tmp_path / ".nerb", tmp_path / "sections.json"
    _prepare(corpus, root, public)
    assert _split(root, public, "--mode", "fixture").code == 0
    development = root / "enron-split" / "run" / "development"
    manifest = json.loads((development / "manifest.json").read_text())
    del manifest["source_card"]  # a development bundle from before the split carried the identity
    (development / "manifest.json").write_text(json.dumps(manifest))
    done = run_cli("bank", "build", str(development), "--private-dir", str(root / "bank"), "--public-dir",
                   str(tmp_path / "pub"))
    assert done.code == 2 and "dataset_revision" in done.stderr and "nothing written" in done.stderr
    assert not (root / "bank").exists() and not (tmp_path / "pub").exists()
