"""The pipeline's capacity facts: what each measured phase commits to, the validation runs and the replay.

Used by ``demo --profile decision`` around its ``prepare``, ``split`` and ``bank build`` steps
(:mod:`nerb_verify.producers.capacity` measures them). Every commitment is read from the files the steps wrote
(the public sections, the preparation and split manifests, the bank card, the sealed folder's markers) or computed
here (the validation run hashes, the replay): never restated from an expectation. The streaming-validation phase
re-reads ``validation.jsonl`` line by line and scans each record's primary view with the built bank; the deep
replay rebuilds the bank from the development split into a scratch folder under the private root (removed after)
and runs the validation again, so ``replay_equal`` is a comparison of two independent computations.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nerb_verify.canonical import nerb_pretty_bytes, python_canonical_sha256
from nerb_verify.loader import sha256_prefixed
from nerb_verify.producers import capacity_identity as identity
from nerb_verify.producers.capacity import SEALED_UNBOUND, CapacityRun

VIEW = "subject_current_body"
SEALED_MARKERS = ("EVIDENCE_BOUND.json", "ACCESS_CLAIMED.json", "ACCESS_OUTCOME.json")
CHECKPOINT_EVERY = 1000
SCANNER_SOURCE = "nerb_verify/privacy/runner.py"


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def validation_run(compiled: Any, records: list[dict[str, Any]]) -> tuple[str, int]:
    """(run hash, UTF-8 bytes scanned): the bank's matches on each validation record's primary view, in order."""
    rows: list[list[Any]] = []
    size = 0
    for index, record in enumerate(records):
        text = str((record.get("views") or {}).get(VIEW) or "")
        size += len(text.encode("utf-8"))
        rows.append([index, compiled.scan_text(text, "char")])
    return python_canonical_sha256(rows), size


def sealed_state(split_dir: Path, lineage: Path) -> dict[str, Any]:
    """The sealed test's access state now: which access markers exist, the lineage's claimed accesses."""
    sealed = split_dir / "sealed"
    markers = sorted(name for name in SEALED_MARKERS if (sealed / name).exists())
    entries = _jsonl(lineage) if lineage.is_file() else []
    claimed = sum(1 for e in entries if e.get("event") == "claimed")
    state = SEALED_UNBOUND if not markers and not entries else "sealed_bound_or_accessed"
    digest = python_canonical_sha256({"state": state, "markers": markers, "lineage_entries": len(entries),
                                      "sealed_manifest_sha256": sha256_prefixed((sealed / "manifest.json").read_bytes())})
    return {"sealed_state": state, "sealed_test_accessed": claimed > 0 or "ACCESS_CLAIMED.json" in markers,
            "preseal_access_count": claimed, "sealed_access_state_sha256": digest,
            "preseal_verification_sha256": sha256_prefixed((sealed / "PRESEAL_VERIFIED.json").read_bytes())}


def privacy_scanner(folder: Path) -> Callable[[str, dict[str, Any]], tuple[str, int]]:
    """A phase privacy scan: the commitments written to a private file and scanned with the contract profile."""
    from nerb_verify.privacy.profiles import PROFILES
    from nerb_verify.privacy.runner import scan_paths

    def scan(phase: str, commitments: dict[str, Any]) -> tuple[str, int]:
        raw = nerb_pretty_bytes(commitments)
        path = folder / f"privacy-scan-{phase}.json"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
        violations = sum(1 for f in scan_paths([str(path)], PROFILES["contract"]).findings if f.severity == "error")
        return python_canonical_sha256({"phase": phase, "scanned_sha256": sha256_prefixed(raw),
                                        "profile": "contract", "violations": violations}), violations

    return scan


def preparation_commitments(private: Path, sections: dict[str, Any], card: dict[str, Any],
                            policy: dict[str, Any], reader_environment_sha256: str) -> dict[str, Any]:
    """The preparation phase's own commitments (source, prepared and rejected rows, reader)."""
    run = private / "enron-preparation" / "run"
    manifest = json.loads((run / "manifest.json").read_bytes())
    source, preparation = sections["source"], sections["preparation"]
    rejected = sum(int(v) for v in (manifest["source"].get("rejected") or {}).values())
    prepared = int(preparation["output_records"])
    umask = os.umask(0o077)
    os.umask(umask)
    token_absent = not os.environ.get("HF_TOKEN") and not (Path.home() / ".cache" / "huggingface" / "token").exists()
    return {
        "dataset_id": source["id"], "dataset_revision": source["revision"],
        "dataset_split": card["source"]["dataset_split"],
        "preparation_manifest_sha256": card["source"]["preparation_manifest_sha256"],
        "prepared_artifact_bytes": preparation["prepared_artifact"]["bytes"],
        "prepared_artifact_sha256": preparation["prepared_artifact"]["sha256"],
        "prepared_records": prepared, "prepared_source_rows": prepared,
        "privacy_scanner_source_sha256": identity.file_sha256(SCANNER_SOURCE),
        "rejected_source_rows": rejected, "rejection_artifact_bytes": (run / "rejections.jsonl").stat().st_size,
        "rejection_artifact_sha256": manifest["rejections_sha256"], "sealed_test_accessed": False,
        "source_conservation_sha256": python_canonical_sha256({"input": source["input_records"],
                                                               "prepared": prepared, "rejected": rejected}),
        "source_input_rows": source["input_records"], "source_reader": "nerb_verify.producers.sources (local file)",
        "source_reader_ambient_credentials_disabled": True, "source_reader_cache_lock_files_owner_only": False,
        "source_reader_cache_lock_mode": policy["reader_cache_lock_mode"],
        "source_reader_cache_lock_adapter_sha256": policy["reader_cache_lock_adapter_sha256"],
        "source_reader_cache_roots_phase_owned": False, "source_reader_cache_symlinks_disabled": False,
        "source_reader_effective_path_count": 1,
        "source_reader_endpoint_sha256": policy["reader_official_endpoint_sha256"],
        "source_reader_environment_sha256": reader_environment_sha256,
        "source_reader_explicit_anonymous_load": False, "source_reader_explicit_cache_dir": False,
        "source_reader_isolation_mode": "local_file_no_network",
        "source_reader_isolation_sha256": identity.declared("source_reader_isolation", "local_file_no_network"),
        "source_reader_network_activity_adapter_sha256": policy["reader_network_activity_adapter_sha256"],
        "source_reader_network_activity_observed": False, "source_reader_official_endpoint": False,
        "source_reader_package_version": policy["critical_reader_versions"]["datasets"],
        "source_reader_restrictive_umask": umask & 0o077 == 0o077, "source_reader_token_files_absent": token_absent,
        "source_row_multiset_sha256": source["content_sha256"],
    }


def split_commitments(sections: dict[str, Any], card: dict[str, Any], sealed: dict[str, Any]) -> dict[str, Any]:
    """The split phase's own commitments (split manifest and policy, roles, the sealed test's state)."""
    splits = sections["splits"]
    out = {"development_manifest_sha256": card["source"]["development_manifest_sha256"],
           "full_split_manifest_sha256": splits["manifest_sha256"], "split_policy_sha256": splits["policy_sha256"],
           **{k: sealed[k] for k in ("preseal_access_count", "preseal_verification_sha256",
                                     "sealed_access_state_sha256", "sealed_state", "sealed_test_accessed")}}
    for role in ("train", "validation", "test"):
        entry = splits["roles"][role]
        out.update({f"{role}_records": entry["records"], f"{role}_artifact_sha256": entry["artifact"]["sha256"],
                    f"{role}_artifact_bytes": entry["artifact"]["bytes"]})
    return out


def build_commitments(bank_section: dict[str, Any], card: dict[str, Any], validation_sha256: str) -> dict[str, Any]:
    """The build phase's own commitments (the bank, its builder and candidates, the validation run)."""
    return {"active_entity_count": bank_section["active_entities"], "active_name_count": bank_section["active_names"],
            "active_pattern_count": bank_section["active_patterns"],
            "bank_artifact_sha256": bank_section["artifact_sha256"],
            "bank_canonical_json_bytes": bank_section["canonical_json_bytes"],
            "bank_card_run_sha256": python_canonical_sha256(card), "bank_sha256": bank_section["canonical_hash"],
            "builder_policy_sha256": card["builder"]["policy_sha256"],
            "candidate_count": card["candidate_funnel"]["total_candidates"],
            "candidate_ledger_sha256": card["builder"]["candidate_ledger_sha256"],
            "candidate_source_sha256": card["builder"]["candidate_source_sha256"],
            "evaluator_sha256": identity.file_sha256("nerb_verify/producers/capacity_pipeline.py"),
            "validation_run_sha256": validation_sha256}


def validation_phases(run: CapacityRun, development: Path, compiled: Any, validation_sha256: str,
                      bank_sha256: str, rebuild: Callable[[Path, Path], str]) -> dict[str, Any]:
    """Measure the streaming-validation and deep-replay phases; return their own commitments.

    ``rebuild(private_dir, public_dir)`` builds the bank again from ``development`` and returns its canonical hash
    (the demo runs ``bank build``); the replayed bank is compiled and the validation run again."""
    from nerb_verify.producers.bank_format import load_bank
    from nerb_verify.producers.engine import compile_bank

    path = development / "validation.jsonl"
    records: list[dict[str, Any]] = []
    with run.phase("streaming_validation") as phase:
        with open(path, "rb") as handle:
            for line in handle:
                if line.strip():
                    records.append(json.loads(line))
                    if len(records) % CHECKPOINT_EVERY == 0:
                        phase.checkpoint(len(records))
        streamed, text_bytes = validation_run(compiled, records)
        phase.checkpoint(len(records))
    if streamed != validation_sha256:
        run.fail("replay_mismatch")
        raise RuntimeError("the streamed validation differs from the build's")
    train = sum(1 for line in (development / "train.jsonl").read_bytes().splitlines() if line.strip())
    scratch = run.folder / "replay"
    with run.phase("deep_replay") as phase:
        if scratch.exists():
            shutil.rmtree(scratch)
        scratch.mkdir(mode=0o700)
        replay_bank = rebuild(scratch / "bank", scratch / "public")
        phase.checkpoint(train)
        replay_run, _ = validation_run(compile_bank(load_bank(scratch / "bank" / "bank.json")), records)
        phase.checkpoint(train + len(records))
        shutil.rmtree(scratch)
    equal = replay_bank == bank_sha256 and replay_run == validation_sha256
    return {"streaming_validation": {"validation_text_utf8_bytes": text_bytes},
            "deep_replay": {"replay_bank_sha256": replay_bank, "replay_equal": equal,
                            "replay_validation_run_sha256": replay_run}}
