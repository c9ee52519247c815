"""Retention records of the private root (issue 19 item 5; charter "Artifact Retention And Ethics").

Owner, purpose, creation time, deadline and deletion outcome per artifact; ``retention status|purge`` report and
enforce them; optional AES-GCM at rest; the public side carries the policy's hash only.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from contract_tests.conftest import run_cli
from nerb_verify.canonical import python_canonical_sha256
from nerb_verify.producers import retention
from nerb_verify.producers.retention import RetentionError, RetentionPolicy

POLICY = RetentionPolicy(owner="tests_owner", purpose="tests_purpose", retention_days=10, audit_retention_days=100)
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _tree(root: Path) -> Path:
    """A small private root: prepared records, a split with its lineage and access receipt, an audit file."""
    files = {"enron-preparation/run/prepared.jsonl": b"{\"a\": 1}\n",
             "enron-split/run/sealed/test.jsonl": b"{\"t\": 1}\n",
             "enron-split/run/sealed/ACCESS_CLAIMED.json": b"{}\n",
             "enron-split/lineage.jsonl": b"{\"event\": \"claimed\"}\n",
             "audit/gold.json": b"{\"gold\": []}\n"}
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.utime(path, (T0.timestamp(), T0.timestamp()))
    return root


def _entries(root: Path) -> dict[str, dict]:
    record = retention.load_record(root)
    assert record is not None
    return {e["path"]: e for e in record["artifacts"]}


def test_every_file_gets_owner_purpose_creation_deadline_and_an_open_deletion(tmp_path: Path) -> None:
    root = _tree(tmp_path / "private")
    record = retention.register_tree(root, POLICY, now=T0 + timedelta(hours=1))
    assert record["policy_sha256"] == POLICY.sha256 == python_canonical_sha256(POLICY.to_json())
    entries = _entries(root)
    assert sorted(entries) == sorted(["audit/gold.json", "enron-preparation/run/prepared.jsonl",
                                      "enron-split/lineage.jsonl", "enron-split/run/sealed/ACCESS_CLAIMED.json",
                                      "enron-split/run/sealed/test.jsonl"])
    for path, entry in entries.items():
        assert entry["owner"] == "tests_owner" and entry["purpose"] == "tests_purpose"
        assert entry["created_at"] == "2026-01-01T00:00:00Z" and entry["deletion"] is None
        audit = path.endswith(("lineage.jsonl", "ACCESS_CLAIMED.json")) or path.startswith("audit/")
        assert entry["class"] == ("audit" if audit else "data")
        assert entry["retain_until"] == ("2026-04-11T00:00:00Z" if audit else "2026-01-11T00:00:00Z")
    assert (root / retention.RECORD_NAME).stat().st_mode & 0o777 == 0o600
    # a second registration adds only new files
    (root / "bank").mkdir()
    (root / "bank" / "bank.json").write_bytes(b"{}")
    retention.register_tree(root)
    assert len(_entries(root)) == 6


def test_no_policy_no_record_and_no_silent_policy_change(tmp_path: Path) -> None:
    root = _tree(tmp_path / "private")
    with pytest.raises(RetentionError, match="no retention policy"):
        retention.register_tree(root)
    retention.register_tree(root, POLICY)
    longer = RetentionPolicy(owner="tests_owner", purpose="tests_purpose", retention_days=11,
                             audit_retention_days=100)
    with pytest.raises(RetentionError, match="different retention policy"):
        retention.register_tree(root, longer)
    assert retention.policy_conflict(root, longer) and retention.policy_conflict(root, POLICY) is None
    assert RetentionPolicy(owner="", retention_days=0).problems()  # fail closed on an empty owner or no deadline


def test_an_edited_record_is_refused_not_repaired(tmp_path: Path) -> None:
    root = _tree(tmp_path / "private")
    retention.register_tree(root, POLICY)
    path = root / retention.RECORD_NAME
    record = json.loads(path.read_text())
    record["policy"]["retention_days"] = 3650  # extend the deadline without re-hashing the policy
    path.write_text(json.dumps(record))
    with pytest.raises(RetentionError, match="policy hash"):
        retention.status(root)


def test_status_reports_retained_due_missing_and_unrecorded(tmp_path: Path) -> None:
    root = _tree(tmp_path / "private")
    retention.register_tree(root, POLICY, now=T0)
    report = retention.status(root, now=T0 + timedelta(days=1))
    assert report.counts() == {"retained": 5, "due": 0, "deleted": 0, "missing": 0, "unrecorded": 0,
                               "unencrypted": 0}
    assert report.in_order
    (root / "enron-preparation/run/prepared.jsonl").unlink()
    (root / "stray.txt").write_bytes(b"x")
    report = retention.status(root, now=T0 + timedelta(days=20))
    states = {item.path: item.state for item in report.states}
    assert states["enron-preparation/run/prepared.jsonl"] == "missing"
    assert states["stray.txt"] == "unrecorded"
    assert states["enron-split/run/sealed/test.jsonl"] == "due"
    assert states["enron-split/lineage.jsonl"] == "retained"  # audit class: kept longer
    assert not report.in_order


def test_purge_deletes_what_is_due_records_the_outcome_and_keeps_the_record(tmp_path: Path) -> None:
    root = _tree(tmp_path / "private")
    retention.register_tree(root, POLICY, now=T0)
    (root / "enron-preparation/run/prepared.jsonl").unlink()  # gone before the purge
    dry = retention.purge(root, now=T0 + timedelta(days=20), dry_run=True)
    assert dry.outcomes == {"enron-preparation/run/prepared.jsonl": "already_absent",
                            "enron-split/run/sealed/test.jsonl": "would_delete"}
    assert (root / "enron-split/run/sealed/test.jsonl").exists()
    report = retention.purge(root, now=T0 + timedelta(days=20))
    assert report.outcomes == {"enron-preparation/run/prepared.jsonl": "already_absent",
                               "enron-split/run/sealed/test.jsonl": "deleted"}
    assert not (root / "enron-split/run/sealed/test.jsonl").exists()
    assert not (root / "enron-preparation").exists()  # emptied folders removed
    entries = _entries(root)
    assert entries["enron-split/run/sealed/test.jsonl"]["deletion"] == {"at": "2026-01-21T00:00:00Z",
                                                                      "outcome": "deleted"}
    assert entries["enron-split/lineage.jsonl"]["deletion"] is None
    assert retention.status(root, now=T0 + timedelta(days=20)).in_order
    # later, the audit class goes too; the record stays as the proof of deletion
    retention.purge(root, now=T0 + timedelta(days=200))
    assert sorted(p.name for p in root.iterdir()) == [retention.RECORD_NAME]
    assert all(e["deletion"] for e in _entries(root).values())


def test_a_failed_deletion_is_recorded_and_stays_due(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "private")
    retention.register_tree(root, POLICY, now=T0)
    real_unlink = Path.unlink

    def refuse(self: Path, missing_ok: bool = False) -> None:
        if self.name == "test.jsonl":
            raise PermissionError(13, "denied")
        real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", refuse)
    report = retention.purge(root, now=T0 + timedelta(days=20))
    assert report.failed == ["enron-split/run/sealed/test.jsonl"]
    assert report.outcomes["enron-split/run/sealed/test.jsonl"] == "failed:EACCES"
    entry = _entries(root)["enron-split/run/sealed/test.jsonl"]
    assert entry["deletion"] is None and entry["last_deletion_attempt"]["outcome"] == "failed:EACCES"
    assert {i.path: i.state for i in retention.status(root, now=T0 + timedelta(days=20)).states}[
        "enron-split/run/sealed/test.jsonl"] == "due"


def test_cli_status_and_purge_exit_codes(tmp_path: Path) -> None:
    root = _tree(tmp_path / "private")
    missing = run_cli("retention", "status", "--private-root", str(tmp_path / "nothing"))
    assert missing.code == 2 and "no retention record" in missing.stderr
    retention.register_tree(root, POLICY, now=T0)
    ok = run_cli("retention", "status", "--private-root", str(root), "--now", "2026-01-02T00:00:00Z")
    assert ok.code == 0 and "in order" in ok.stdout and POLICY.sha256 in ok.stdout
    due = run_cli("retention", "status", "--private-root", str(root), "--now", "2026-02-01T00:00:00Z",
                  "--format", "json")
    data = json.loads(due.stdout)
    assert due.code == 1 and data["counts"]["due"] == 2 and data["policy_sha256"] == POLICY.sha256
    purged = run_cli("retention", "purge", "--private-root", str(root), "--now", "2026-02-01T00:00:00Z")
    assert purged.code == 0 and "deleted 2" in purged.stdout
    assert "{" not in purged.stdout + due.stderr  # never a file's content
    naive = run_cli("retention", "purge", "--private-root", str(root), "--now", "2026-02-01T00:00:00")
    assert naive.code == 2 and "timezone" in naive.stderr


# ------------------------------------------------------------------------------------------------ encryption

def _key() -> bytes:
    return bytes(range(32))


def test_encryption_round_trip_binds_names_and_skips_the_lineage(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("cryptography")
    from nerb_verify.producers import retention_crypto

    monkeypatch.setattr(retention_crypto, "CHUNK", 4)  # several chunks per file
    root = _tree(tmp_path / "private")
    before = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    retention.register_tree(root, POLICY, now=T0)
    done = retention_crypto.encrypt_root(root, _key())
    assert "enron-split/lineage.jsonl" not in done and len(done) == 4
    for relative in done:
        raw = (root / relative).read_bytes()
        assert raw.startswith(retention_crypto.MAGIC) and before[relative] not in raw
        assert _entries(root)[relative]["encrypted"] is True
    assert retention_crypto.encrypt_root(root, _key()) == []  # idempotent
    # a ciphertext copied onto another artifact's name does not decrypt, nor does a truncated one
    first, second = (root / done[0]), (root / done[1])
    swapped = tmp_path / "swapped"
    with pytest.raises(RetentionError, match="authenticate"):
        retention_crypto.decrypt_file(first, swapped, _key(), done[1])
    truncated = tmp_path / "truncated"
    truncated.write_bytes(second.read_bytes()[:-20])
    with pytest.raises(RetentionError, match="authenticate"):
        retention_crypto.decrypt_file(truncated, swapped, _key(), done[1])
    assert not swapped.exists()
    with pytest.raises(RetentionError, match="authenticate"):
        retention_crypto.decrypt_root(root, bytes(32))
    retention_crypto.decrypt_root(root, _key())
    after = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()
             and p.name != retention.RECORD_NAME}
    assert after == before


def test_status_reports_plaintext_against_a_policy_that_declares_encryption(tmp_path: Path) -> None:
    pytest.importorskip("cryptography")
    from nerb_verify.producers import retention_crypto

    root = _tree(tmp_path / "private")
    declared = RetentionPolicy(owner="tests_owner", encryption_at_rest="aes_256_gcm_stream_v1")
    retention.register_tree(root, declared, now=T0)
    report = retention.status(root, now=T0)
    assert report.counts()["unencrypted"] == 4 and not report.in_order  # the lineage is plaintext by design
    retention_crypto.encrypt_root(root, _key())
    assert retention.status(root, now=T0).in_order


def test_the_key_is_never_printed(tmp_path: Path) -> None:
    pytest.importorskip("cryptography")
    root = _tree(tmp_path / "private")
    retention.register_tree(root, POLICY, now=T0)
    hex_key = _key().hex()
    env = {**os.environ, "NERB_RETENTION_KEY": hex_key}
    out = run_cli("retention", "encrypt", "--private-root", str(root), env=env)
    assert out.code == 0 and "encrypted 4" in out.stdout
    wrong = run_cli("retention", "decrypt", "--private-root", str(root), env={**env, "NERB_RETENTION_KEY": "ab" * 31})
    assert wrong.code == 2 and "32 bytes" in wrong.stderr
    bad = run_cli("retention", "decrypt", "--private-root", str(root), env={**env, "NERB_RETENTION_KEY": "cd" * 32})
    assert bad.code == 2
    back = run_cli("retention", "decrypt", "--private-root", str(root), env=env)
    assert back.code == 0
    for result in (out, wrong, bad, back):
        assert hex_key not in result.stdout + result.stderr and "cd" * 32 not in result.stdout + result.stderr
    assert hex_key not in (root / retention.RECORD_NAME).read_text()
    key_file = tmp_path / "key"
    key_file.write_bytes(_key())
    from nerb_verify.producers import retention_crypto

    assert retention_crypto.load_key(key_file) == _key()
    with pytest.raises(RetentionError, match="no key"):
        retention_crypto.load_key(None, environ={})


# ------------------------------------------------------------------------------------------------ producers

def test_prepare_refuses_a_conflicting_policy_before_writing(tmp_path: Path) -> None:
    root = tmp_path / "private"
    root.mkdir()
    retention.register_tree(root, POLICY)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("{}\n")
    out = run_cli("prepare", str(corpus), "--private-root", str(root), "--owner", "someone_else",
                  "--public-out", str(tmp_path / "public.json"), "--no-progress")
    assert out.code == 2 and "different retention policy" in out.stderr
    assert sorted(p.name for p in root.iterdir()) == [retention.RECORD_NAME]


@pytest.mark.xdist_group("demo")
def test_the_demo_records_every_private_file_and_publishes_only_the_policy_hash(demo) -> None:  # type: ignore[no-untyped-def]
    report = retention.status(demo.private)
    assert report.in_order and report.counts()["retained"] > 20
    assert report.owner == "nerb_verify_demo"
    privacy = json.loads((demo.private / "public-sections" / "privacy-report.json").read_text())
    assert privacy["retention_policy_sha256"] == report.policy_sha256
    manifest = json.loads((demo.bundle / "benchmark-manifest.json").read_text())
    assert manifest["privacy"]["report_sha256"] == python_canonical_sha256(privacy)
    public = b"".join(p.read_bytes() for p in demo.bundle.rglob("*") if p.is_file())
    assert retention.RECORD_NAME.encode() not in public and str(demo.private).encode() not in public
