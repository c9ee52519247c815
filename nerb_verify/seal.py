"""Recompute every binding hash of a bundle folder, bottom-up, and rewrite the artifacts in NERB's pretty form.

This is what a publisher's tool does after producing artifacts, and what an attacker who can rewrite the whole
bundle would do after an edit. The fixture tools use it to make *hash-aware* mutants (only recomputation from raw
data, or a cross-artifact binding that needs more than hashes, can catch them); the producers use it to assemble a
bundle. The verifier itself never calls it.

Order (each step depends only on the ones before it):

1. performance section sub-hashes and ``performance_manifest_sha256`` (the performance family's hash functions);
2. ``thresholds_sha256`` from ``promotion.checks``;
3. copies of both in manifest, frozen targets (current and lineage), audit chain ``score``;
4. lineage ``entry_sha256`` chain and ``lineage_head_sha256``; audit chain ``chain_sha256``;
5. evidence ``manifest_sha256``;
6. performance report: ``performance`` copied from the evidence, ``performance_manifest_sha256``, ``plan_sha256``,
   ``run_sha256``;
7. bank card ``card_sha256``; the capacity decision's whole internal chain, bottom-up (phase commitments, privacy
   chain, report size and run hash, receipts, terminal copy, attestation, ``decision_sha256``:
   :func:`nerb_verify.seal_capacity.seal_capacity_decision`);
8. every JSON artifact rewritten; then publication ``artifacts[]`` (raw bytes), ``bindings`` and
   ``publication_sha256``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nerb_verify import context as C
from nerb_verify.canonical import nerb_pretty_bytes, python_canonical_sha256, self_hash
from nerb_verify.checks.cross_artifact.gates import thresholds_sha256
from nerb_verify.loader import sha256_prefixed
from nerb_verify.seal_capacity import seal_capacity_decision


def _read(root: Path, rel: str) -> Any:
    path = root / rel
    if not path.is_file() or path.is_symlink():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


def _hash_or_none(value: Any) -> str | None:
    """Canonical hash, or None when the value cannot be hashed (a hostile document with NaN or 1e999)."""
    if value is None:
        return None
    try:
        return python_canonical_sha256(value)
    except ValueError:
        return None


def _write(root: Path, rel: str, data: Any) -> None:
    (root / rel).write_bytes(nerb_pretty_bytes(data))


def _performance_hooks() -> tuple[Any, Any, Any, Any]:
    from nerb_verify.checks.performance import hashes

    return (hashes.reseal_performance_section, hashes.performance_manifest_sha256, hashes.run_sha256,
            hashes.plan_sha256)


def _set_frozen(target: Any, field: str, value: str) -> None:
    if isinstance(target, dict) and field in target:
        target[field] = value


def seal_bundle(root: Path) -> None:
    """Recompute all binding hashes of the bundle at ``root`` in place (see module docstring for the order)."""
    manifest = _read(root, C.MANIFEST)
    evidence = _read(root, C.EVIDENCE)
    report = _read(root, C.PERFORMANCE_REPORT)
    card = _read(root, C.BANK_CARD)
    capacity = _read(root, C.CAPACITY_DECISION)
    reseal_performance, performance_hash, run_hash, plan_hash = _performance_hooks()

    if isinstance(evidence, dict):
        performance = evidence.get("performance")
        if isinstance(performance, dict):
            if reseal_performance is not None:
                reseal_performance(performance)
            if performance_hash is not None:
                try:
                    evidence["performance_manifest_sha256"] = performance_hash(performance)
                except (KeyError, TypeError, ValueError):
                    pass  # a section too malformed to hash keeps its value (the verifier reports it)
        promotion = evidence.get("promotion")
        if isinstance(promotion, dict) and isinstance(promotion.get("checks"), list):
            recomputed = thresholds_sha256(promotion["checks"])
            if recomputed is not None:
                evidence["thresholds_sha256"] = recomputed
        perf_hash = evidence.get("performance_manifest_sha256")
        thr_hash = evidence.get("thresholds_sha256")
        access = evidence.get("test_access") if isinstance(evidence.get("test_access"), dict) else {}
        targets = [access.get("frozen_target")]
        lineage = access.get("lineage") if isinstance(access.get("lineage"), list) else []
        current_version = access.get("benchmark_version")
        for entry in lineage:
            if isinstance(entry, dict) and entry.get("benchmark_version") == current_version:
                targets.append(entry.get("frozen_target"))
        for target in targets:
            _set_frozen(target, "performance_manifest_sha256", perf_hash)
            _set_frozen(target, "thresholds_sha256", thr_hash)
        chain = evidence.get("audit_chain")
        if isinstance(chain, dict) and isinstance(chain.get("score"), dict):
            chain["score"]["thresholds_sha256"] = thr_hash
        previous = None
        for entry in lineage:
            if not isinstance(entry, dict):
                continue
            if "previous_entry_sha256" in entry:
                entry["previous_entry_sha256"] = previous
            entry["entry_sha256"] = self_hash(entry, "entry_sha256")
            previous = entry["entry_sha256"]
        if "lineage_head_sha256" in access:
            access["lineage_head_sha256"] = previous
        if isinstance(chain, dict):
            chain["chain_sha256"] = self_hash(chain, "chain_sha256")
        if isinstance(manifest, dict):
            for field in ("performance_manifest_sha256", "thresholds_sha256"):
                if field in manifest:
                    manifest[field] = evidence.get(field)
            evidence["manifest_sha256"] = python_canonical_sha256(manifest)
    if isinstance(report, dict) and isinstance(evidence, dict):
        if "performance" in report and "performance" in evidence:
            report["performance"] = evidence["performance"]
        if "performance_manifest_sha256" in report:
            report["performance_manifest_sha256"] = evidence.get("performance_manifest_sha256")
        if "plan_sha256" in report:
            try:
                report["plan_sha256"] = plan_hash(report)
            except (KeyError, TypeError, ValueError):
                pass  # no plan can be rebuilt from this report (a mutant): leave the value as it is
        report["run_sha256"] = run_hash(report)
    if isinstance(card, dict):
        card["card_sha256"] = self_hash(card, "card_sha256")
    if isinstance(capacity, dict):
        seal_capacity_decision(capacity)
    for rel, data in ((C.MANIFEST, manifest), (C.EVIDENCE, evidence), (C.PERFORMANCE_REPORT, report),
                      (C.BANK_CARD, card), (C.CAPACITY_DECISION, capacity)):
        if data is not None:
            _write(root, rel, data)
    _seal_publication(root, evidence, report, card, capacity)


def seal_steps(root: Path, steps: list[str]) -> None:
    """Run only some sealing steps, touching nothing else (for fixtures whose hostile bytes must survive).

    ``manifest_sha256``: rewrite the evidence's manifest binding from the current manifest;
    ``publication``: refresh publication.json's artifact list, bindings and self hash from the files as they are;
    ``publication_sha256``: only publication.json's own self hash;
    ``plan_sha256`` / ``run_sha256``: the performance report's plan or run hash from the report as it is.
    """
    for step in steps:
        if step == "manifest_sha256":
            manifest, evidence = _read(root, C.MANIFEST), _read(root, C.EVIDENCE)
            if isinstance(manifest, dict) and isinstance(evidence, dict):
                evidence["manifest_sha256"] = python_canonical_sha256(manifest)
                _write(root, C.EVIDENCE, evidence)
        elif step == "publication":
            _seal_publication(root, _read(root, C.EVIDENCE), _read(root, C.PERFORMANCE_REPORT),
                              _read(root, C.BANK_CARD), _read(root, C.CAPACITY_DECISION))
        elif step == "run_sha256":
            report = _read(root, C.PERFORMANCE_REPORT)
            if isinstance(report, dict):
                report["run_sha256"] = _performance_hooks()[2](report)
                _write(root, C.PERFORMANCE_REPORT, report)
        elif step == "plan_sha256":
            report = _read(root, C.PERFORMANCE_REPORT)
            if isinstance(report, dict):
                try:
                    report["plan_sha256"] = _performance_hooks()[3](report)
                except (KeyError, TypeError, ValueError):
                    continue  # no plan can be rebuilt from this report: leave it as it is
                _write(root, C.PERFORMANCE_REPORT, report)
        elif step == "publication_sha256":
            publication = _read(root, C.PUBLICATION)
            if isinstance(publication, dict):
                publication["publication_sha256"] = self_hash(publication, "publication_sha256")
                _write(root, C.PUBLICATION, publication)
        else:
            raise ValueError(f"unknown seal step {step}")


def _seal_publication(root: Path, evidence: Any, report: Any, card: Any, capacity: Any) -> None:
    publication = _read(root, C.PUBLICATION)
    if not isinstance(publication, dict):
        return
    artifacts = publication.get("artifacts")
    if isinstance(artifacts, list):
        for item in artifacts:
            if not isinstance(item, dict) or not isinstance(item.get("path"), str):
                continue
            path = root / item["path"]
            if path.is_file() and not path.is_symlink() and ".." not in item["path"].split("/"):
                raw = path.read_bytes()
                item["sha256"] = sha256_prefixed(raw)
                item["bytes"] = len(raw)
    bindings = publication.get("bindings")
    if isinstance(bindings, dict) and isinstance(evidence, dict):
        chain = evidence.get("audit_chain") if isinstance(evidence.get("audit_chain"), dict) else {}
        manifest = _read(root, C.MANIFEST)
        updates = {
            "audit_chain_sha256": chain.get("chain_sha256"),
            "benchmark_manifest_sha256": _hash_or_none(manifest),
            "evidence_manifest_sha256": evidence.get("manifest_sha256"),
            "performance_manifest_sha256": evidence.get("performance_manifest_sha256"),
            "performance_run_sha256": report.get("run_sha256") if isinstance(report, dict) else None,
            "capacity_decision_sha256": capacity.get("decision_sha256") if isinstance(capacity, dict) else None,
        }
        for key, value in updates.items():
            if key in bindings and value is not None:
                bindings[key] = value
    publication["publication_sha256"] = self_hash(publication, "publication_sha256")
    _write(root, C.PUBLICATION, publication)
