"""Producers on Dask (issue 20): prepare, split and scan-bank on a LocalCluster are byte-identical to one process.

Small corpora from tools/make_corpus.py (with broken units), plus exact duplicates, a near duplicate and a thread
spread so that they fall in different partitions. Clusters are in-process (``processes=False``) except where a worker
must be killed. The whole module skips when the ``distributed`` extra is absent.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")
from dask.distributed import Client, LocalCluster  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))

import make_corpus  # noqa: E402
from conftest import run_cli  # noqa: E402

from nerb_verify.producers.cluster import ClusterError, partitions  # noqa: E402
from nerb_verify.producers.cluster_prepare import prepare  # noqa: E402
from nerb_verify.producers.splitting_run import run_split  # noqa: E402

REVISION = "ef" * 20
KEY = re.compile(r"^nerb-[a-z-]+-[0-9a-f]{12}-[0-9]{5}(-[a-z][0-9]{0,5})?$")


def _tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (relative path -> sha256 of its bytes)."""
    return {path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def _rows_with_spread(corpus: Path) -> bytes:
    """The corpus lines plus, spread over the file: exact duplicates, a near duplicate and a six-message thread."""
    lines = [line for line in corpus.read_bytes().split(b"\n")[:-1] if len(line) < 1_000_000]  # even byte ranges
    rows = []
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("body"), str) and len(row["body"].split()) > 30 \
                and isinstance(row.get("from"), str) and isinstance(row.get("subject"), str):
            rows.append(row)
    head, near_source, thread_source = rows[0], rows[1], rows[2]
    words = near_source["body"].split(" ")
    words[-3] = "different"
    near = {**near_source, "body": " ".join(words), "message_id": "<near.1@example.invalid>",
            "file_name": near_source["file_name"] + "near"}
    replies = [{**thread_source, "subject": "Re: " + thread_source["subject"], "body": f"Reply number {n} agreed.",
                "message_id": f"<thread.{n}@example.invalid>", "file_name": thread_source["file_name"] + f"r{n}",
                "to": [thread_source["from"]]} for n in range(6)]
    out = list(lines)
    step = max(1, len(out) // 6)
    for n, reply in enumerate(replies):
        out.insert(min(len(out), n * step + 1), json.dumps(reply, sort_keys=True).encode())
    out.append(json.dumps(head, sort_keys=True).encode())  # an exact duplicate in the last partition
    out.insert(len(out) // 2, json.dumps(head, sort_keys=True).encode())
    out.append(json.dumps(near, sort_keys=True).encode())
    return b"\n".join(out) + b"\n"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cluster-corpus")
    make_corpus.write_corpus(root / "gen", 300, 13, "jsonl", broken=True)
    path = root / "corpus.jsonl"
    path.write_bytes(_rows_with_spread(root / "gen" / "corpus.jsonl"))
    return path


@pytest.fixture(scope="module")
def baseline(corpus, tmp_path_factory):
    root = tmp_path_factory.mktemp("cluster-baseline")
    prep = prepare(corpus, root, dataset_id="gen", revision=REVISION)
    split = run_split(prep.run_dir, root, mode="fixture")
    return prep, split


def test_baseline_has_cross_partition_joins(baseline, corpus):
    """The corpus really exercises the merge: duplicates collapsed, near pairs and thread unions present."""
    prep, split = baseline
    assert prep.profile["identical_duplicates_collapsed"] >= 2
    assert split.audit["near_candidate_pairs"] >= 1
    assert split.audit["edge_counts"]["exact_plaintext"] >= 1
    assert split.audit["edge_counts"]["thread_shared_participant"] >= 5
    assert len(partitions(corpus, "jsonl", 7)) == 7


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_prepare_and_split_are_byte_identical_on_a_local_cluster(workers, corpus, baseline, tmp_path):
    """Every private artifact of prepare and split, whatever the workers and partitions, equals the 1-process bytes."""
    prep, split = baseline
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        for parts in (1, 3, 7):
            root = tmp_path / f"p{parts}"
            result = prepare(corpus, root, dataset_id="gen", revision=REVISION, cluster=client, partitions=parts)
            assert _tree(result.run_dir) == _tree(prep.run_dir)
            assert result.manifest == prep.manifest
            for split_parts in (2, 5):
                frozen = run_split(result.run_dir, root, run=f"s{split_parts}", mode="fixture", cluster=client,
                                   partitions=split_parts)
                assert _tree(frozen.split_dir) == _tree(split.split_dir)
                assert frozen.audit == split.audit


def test_maildir_partitions_are_byte_identical(tmp_path):
    """Maildir subtrees (runs of message files) as partitions give the single-process bytes."""
    make_corpus.write_corpus(tmp_path / "gen", 80, 7, "maildir", broken=True)
    source = tmp_path / "gen" / "maildir"
    single = prepare(source, tmp_path / "single", dataset_id="gen", revision=REVISION)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        for parts in (2, 5):
            result = prepare(source, tmp_path / f"p{parts}", dataset_id="gen", revision=REVISION, cluster=client,
                             partitions=parts)
            assert _tree(result.run_dir) == _tree(single.run_dir)


class _Keys(distributed.diagnostics.plugin.SchedulerPlugin):
    """Records every task key the scheduler sees."""

    def __init__(self) -> None:
        self.keys: set[str] = set()

    def transition(self, key, start, finish, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.keys.add(str(key))


def test_task_keys_and_logs_carry_nothing_private(corpus, tmp_path):
    """Task keys are opaque (no path, subject, address or digest); scheduler and worker logs hold no input value."""
    private = [str(corpus), corpus.parent.name, "example.invalid", "Reply number", "enron.com"]
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        plugin = _Keys()
        cluster.scheduler.add_plugin(plugin, name="keys")
        result = prepare(corpus, tmp_path, dataset_id="gen", revision=REVISION, cluster=client, partitions=3)
        run_split(result.run_dir, tmp_path, mode="fixture", cluster=client, partitions=3)
        logs = json.dumps([client.get_scheduler_logs(), client.get_worker_logs()])
    assert plugin.keys and all(KEY.match(key) for key in plugin.keys), sorted(plugin.keys)[:3]
    digests = {json.loads(line)["document_id"] for line in (result.run_dir / "prepared.jsonl").open("rb")}
    for value in private:
        assert value not in logs and not any(value in key for key in plugin.keys)
    assert not any(digest[4:16] in key for key in plugin.keys for digest in digests)


def test_a_lost_cluster_commits_nothing(corpus, tmp_path):
    """A run whose cluster is gone is refused with nothing written (no run folder, no split folder)."""
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        client = Client(cluster)
        client.close()
        with pytest.raises(ClusterError):
            prepare(corpus, tmp_path / "p", dataset_id="gen", revision=REVISION, cluster=client)
        assert not (tmp_path / "p" / "enron-preparation" / "run").exists()
        single = prepare(corpus, tmp_path / "s", dataset_id="gen", revision=REVISION)
        with pytest.raises(ClusterError):
            run_split(single.run_dir, tmp_path / "s", mode="fixture", cluster=client)
        assert not (tmp_path / "s" / "enron-split").exists()


@pytest.mark.slow
def test_a_worker_killed_mid_run_gives_a_complete_run_or_nothing_and_retry_is_identical(baseline, tmp_path):
    """SIGKILL one worker process while partitions are being cleaned: the run completes with the same bytes (its
    tasks rerun elsewhere) or is refused with nothing committed; a retry gives the single-process bytes."""
    make_corpus.write_corpus(tmp_path / "gen", 1500, 3, "jsonl")
    source = tmp_path / "gen" / "corpus.jsonl"
    single = prepare(source, tmp_path / "single", dataset_id="gen", revision=REVISION)
    root = tmp_path / "cluster"
    run_dir = root / "enron-preparation" / "run"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        pids = client.run(os.getpid)
        outcome: dict[str, object] = {}

        def target() -> None:
            try:
                outcome["result"] = prepare(source, root, dataset_id="gen", revision=REVISION, cluster=client,
                                            partitions=8)
            except ClusterError as exc:
                outcome["error"] = exc.code

        thread = threading.Thread(target=target)
        thread.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not list((run_dir / ".parts").glob("*.tmp")):
            time.sleep(0.01)
        busy = [address for address, keys in client.processing().items() if keys] or list(pids)
        os.kill(pids[busy[0]], signal.SIGKILL)
        thread.join(120)
        assert not thread.is_alive()
        if "result" in outcome:
            assert _tree(run_dir) == _tree(single.run_dir)
        else:
            assert outcome["error"] == "cluster_run_failed"
            assert not (run_dir / "COMMITTED").exists() and not (run_dir / ".parts").exists()
        client.wait_for_workers(2, timeout=60)
        retry = prepare(source, root, run="retry", dataset_id="gen", revision=REVISION, cluster=client, partitions=3)
        assert _tree(retry.run_dir) == _tree(single.run_dir)


@pytest.mark.slow
def test_cli_prepare_and_split_with_local_cluster_write_the_same_public_sections(corpus, tmp_path):
    """``--cluster local:2`` on the command line: same public sections as the single-process commands."""
    outputs = []
    for name, extra in (("single", []), ("cluster", ["--cluster", "local:2", "--partitions", "3"])):
        private, public = tmp_path / name / ".nerb", tmp_path / name / "sections.json"
        common = ["--private-root", str(private), "--public-out", str(public)]
        prepared = run_cli("prepare", str(corpus), "--revision", REVISION, "--source-id", "gen", *common, *extra,
                           timeout=300)
        assert prepared.code == 0, prepared.stderr[-400:]
        split = run_cli("split", "--mode", "fixture", *common, *extra, timeout=300)
        assert split.code == 0, split.stderr[-400:]
        outputs.append(public.read_bytes())
    assert outputs[0] == outputs[1]


def test_cli_cluster_argument_is_checked_before_anything_runs(corpus, tmp_path):
    """A malformed --cluster or --partitions without --cluster is exit 2 and writes nothing."""
    for extra in (["--cluster", "local:x"], ["--partitions", "3"]):
        result = run_cli("prepare", str(corpus), "--private-root", str(tmp_path / ".nerb"),
                         "--public-out", str(tmp_path / "s.json"), *extra)
        assert result.code == 2
        assert not (tmp_path / ".nerb").exists()


def _scan_corpus(path: Path) -> None:
    """Documents for the bank scan: known entities, one without an id (named by its line number), a blank line."""
    person = "Dan " + "Ruiz"
    contact = "dan.ruiz" + "@" + "example.org"
    rows = [json.dumps({"document_id": f"d{n}", "text": f"{person} <{contact}> note {n}" if n % 3 else "nothing"})
            for n in range(40)]
    rows.insert(17, "")
    rows.insert(25, json.dumps({"text": f"{person} again"}))
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def _built_bank_and_corpus(tmp_path):
    """A bank built by the CLI from a small development bundle (needs google-re2, else the test skips) and a JSONL
    corpus to scan with it: the paths of bank.json and docs.jsonl."""
    from test_producers_bank import _need_google_re2, make_train_bundle

    _need_google_re2()
    dev = make_train_bundle(tmp_path / "dev")
    assert run_cli("bank", "build", str(dev), "--private-dir", str(tmp_path / "priv"), "--public-dir",
                   str(tmp_path / "pub")).code == 0
    docs = tmp_path / "docs.jsonl"
    _scan_corpus(docs)
    return tmp_path / "priv" / "bank.json", docs


def test_scan_bank_on_a_local_cluster_is_byte_identical(tmp_path):
    """The bank scan over ranges of a JSONL corpus writes the single-process bytes; a refused document has the same
    number and nothing is written."""
    bank, docs = _built_bank_and_corpus(tmp_path)
    from nerb_verify.producers.cluster_scan import scan_on_cluster

    single = run_cli("scan-bank", str(bank), str(docs), "--out", str(tmp_path / "single.jsonl"))
    assert single.code == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(docs.read_bytes() + b"\xff\n" + docs.read_bytes())
    refused = run_cli("scan-bank", str(bank), str(bad))
    assert refused.code == 2
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        for parts in (1, 3, 8):
            out_path = tmp_path / f"cluster{parts}.jsonl"
            with open(out_path, "w", encoding="utf-8") as out:
                result = scan_on_cluster(client, bank, docs, offsets="byte", shard_size=50_000, out=out, parts=parts,
                                         work_parent=tmp_path)
            assert result["error"] is None
            assert out_path.read_bytes() == (tmp_path / "single.jsonl").read_bytes()
            assert f"scanned {result['documents']} document(s), {result['records']} record(s)" in single.stderr
            with open(tmp_path / "refused.jsonl", "w", encoding="utf-8") as out:
                result = scan_on_cluster(client, bank, bad, offsets="byte", shard_size=50_000, out=out, parts=parts,
                                         work_parent=tmp_path)
            assert result["error"] == "malformed"
            assert f"at document {result['documents']}" in refused.stderr
            assert (tmp_path / "refused.jsonl").read_bytes() == b""
    assert not list(tmp_path.glob(".nerb-scan-*"))


class _KillOnce(distributed.diagnostics.plugin.WorkerPlugin):
    """SIGKILLs the worker process when a task of ``layer`` (``nerb-<layer>-<token>-<part>``) starts executing, once
    per ``marker`` file: the first worker to start such a task dies mid-run (the results it holds are lost with it),
    the rescheduled task runs."""

    name = "nerb-test-kill-once"

    def __init__(self, layer: str, marker: str) -> None:
        self.layer = layer
        self.marker = marker

    def transition(self, key, start, finish, **kwargs):  # type: ignore[no-untyped-def]
        if finish != "executing" or not re.match(f"^nerb-{self.layer}-[0-9a-f]{{12}}-[0-9]{{5}}$", str(key)):
            return
        try:
            os.close(os.open(self.marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            return
        os.kill(os.getpid(), signal.SIGKILL)


def _killing_cluster(tolerated: bool):  # type: ignore[no-untyped-def]
    """A 2-process LocalCluster whose scheduler reschedules a task lost with a killed worker (``tolerated``) or
    gives up at once (``allowed-failures`` 0: the run must then be refused)."""
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 3 if tolerated else 0}):
        return LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)


@pytest.fixture(scope="module")
def small_prepared(tmp_path_factory):
    """A 400-message prepared run and its single-process split (the reference bytes for the kill tests)."""
    root = tmp_path_factory.mktemp("kill-split")
    make_corpus.write_corpus(root / "gen", 400, 5, "jsonl")
    prep = prepare(root / "gen" / "corpus.jsonl", root / "single", dataset_id="gen", revision=REVISION)
    return prep, run_split(prep.run_dir, root / "single", mode="fixture")


@pytest.mark.parametrize("tolerated", [True, False], ids=["rescheduled", "refused"])
def test_split_with_a_worker_killed_mid_run_completes_or_writes_nothing_and_retry_is_identical(
        small_prepared, tolerated, tmp_path):
    """SIGKILL the worker that starts the first key-bucket task (the features it holds are lost with it): with
    Dask's default tolerance the split completes with the single-process bytes; when the scheduler gives up
    (allowed-failures 0) the split is refused (ClusterError) with no ``enron-split`` folder left behind. A retry on
    the same cluster gives the single-process bytes."""
    prep, single = small_prepared
    root = tmp_path / "cluster"
    with _killing_cluster(tolerated) as cluster, Client(cluster) as client:
        pids = set(client.run(os.getpid).values())
        client.register_plugin(_KillOnce("split-keys", str(tmp_path / "killed")))
        if tolerated:
            frozen = run_split(prep.run_dir, root, mode="fixture", cluster=client, partitions=4)
            assert _tree(frozen.split_dir) == _tree(single.split_dir)
            assert frozen.audit == single.audit
        else:
            with pytest.raises(ClusterError) as refused:
                run_split(prep.run_dir, root, mode="fixture", cluster=client, partitions=4)
            assert refused.value.code == "cluster_run_failed"
            assert not (root / "enron-split").exists()
        client.wait_for_workers(2, timeout=60)
        assert pids - set(client.run(os.getpid).values())  # a worker process really was killed (and replaced)
        retry = run_split(prep.run_dir, root, run="retry", mode="fixture", cluster=client, partitions=3)
        assert _tree(retry.split_dir) == _tree(single.split_dir)


@pytest.mark.parametrize("tolerated", [True, False], ids=["rescheduled", "refused"])
def test_scan_bank_with_a_worker_killed_mid_run_completes_or_writes_nothing_and_retry_is_identical(
        tolerated, tmp_path):
    """SIGKILL the worker that starts the first range scan (after the line counts): the scan completes with the single-process bytes, or
    (allowed-failures 0) is refused with nothing written to the output and no private part folder left; a retry
    gives the single-process bytes."""
    bank, docs = _built_bank_and_corpus(tmp_path)
    from nerb_verify.producers.cluster_scan import scan_on_cluster

    assert run_cli("scan-bank", str(bank), str(docs), "--out", str(tmp_path / "single.jsonl")).code == 0
    work = tmp_path / "work"
    work.mkdir()
    with _killing_cluster(tolerated) as cluster, Client(cluster) as client:
        pids = set(client.run(os.getpid).values())
        client.register_plugin(_KillOnce("scan", str(tmp_path / "killed")))
        out_path = tmp_path / "cluster.jsonl"
        with open(out_path, "w", encoding="utf-8") as out:
            if tolerated:
                result = scan_on_cluster(client, bank, docs, offsets="byte", shard_size=50_000, out=out, parts=4,
                                         work_parent=work)
                assert result["error"] is None
            else:
                with pytest.raises(ClusterError) as refused:
                    scan_on_cluster(client, bank, docs, offsets="byte", shard_size=50_000, out=out, parts=4,
                                    work_parent=work)
                assert refused.value.code == "cluster_run_failed"
        assert list(work.iterdir()) == []  # the private part folder is gone either way
        expected = (tmp_path / "single.jsonl").read_bytes()
        assert out_path.read_bytes() == (expected if tolerated else b"")
        client.wait_for_workers(2, timeout=60)
        assert pids - set(client.run(os.getpid).values())  # a worker process really was killed (and replaced)
        with open(tmp_path / "retry.jsonl", "w", encoding="utf-8") as out:
            assert scan_on_cluster(client, bank, docs, offsets="byte", shard_size=50_000, out=out, parts=3,
                                   work_parent=work)["error"] is None
        assert (tmp_path / "retry.jsonl").read_bytes() == expected


def _local_directory(dask_worker) -> str:  # type: ignore[no-untyped-def]
    return str(dask_worker.local_directory)


def test_local_cluster_workers_spill_into_a_private_folder_that_is_removed(tmp_path):
    """``local:N`` workers keep their scratch space (spilled task results: feature digests, document ids) in a
    fresh 0700 folder, not in Dask's shared, world-readable default, and the folder is gone after the run."""
    import tempfile

    from nerb_verify.producers.cluster import connect

    with connect("local:1") as client:
        folders = list(client.run(_local_directory).values())
        assert folders
        private = set()
        for folder in folders:
            path = Path(folder).resolve()
            base = Path(tempfile.gettempdir()).resolve()
            assert base in path.parents
            top = base / path.relative_to(base).parts[0]
            assert top.stat().st_mode & 0o777 == 0o700
            private.add(top)
    assert private and not any(top.exists() for top in private)


def test_band_groups_are_the_single_process_band_pair_keys():
    """The key-bucket task's inlined band-pair keys are ``band_pair_key`` of the single-process index, one int per
    pair (``key * 16 + pair``), so the band buckets meet exactly the candidates one process compares."""
    import random

    from nerb_verify.producers import splitting
    from nerb_verify.producers.cluster_split import band_groups

    rng = random.Random(20)
    for signature in [0, (1 << 64) - 1, *(rng.getrandbits(64) for _ in range(2000))]:
        assert band_groups(signature) == [splitting.band_pair_key(signature, pair) * 16 + pair
                                          for pair in range(len(splitting._BAND_PAIRS))]


def test_shuffled_pieces_travel_as_one_pickle_each():
    """A worker sends a plain list result element by element (one pickle call and header per tuple); the routed keys
    and band entries are wrapped so that each piece is one pickle, and they come back equal."""
    from distributed.protocol import Serialize, deserialize, serialize

    from nerb_verify.producers import cluster_split

    routed = [[("exact_plaintext", bytes([n % 256]) * 32, n) for n in range(2000)]]
    bands = [[(n * 16 + 3, n * 7919, n) for n in range(2000)]]
    for piece in (cluster_split._routed({"routed": routed}, 0), cluster_split._bands({"bands": bands}, 0)):
        header, frames = serialize(Serialize(piece))
        assert not header.get("is-collection") and len(frames) <= 2
        assert deserialize(header, frames).items == piece.items
    from dask.sizeof import sizeof

    assert sizeof(cluster_split.Piece(routed[0])) >= sizeof(routed[0])  # Dask's memory accounting sees the items
