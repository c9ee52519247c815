"""Bundle assembly: manifest, evidence, performance report, bank card, publication, summary and figures.

Order (each artifact is built only from aggregate sections; no text, address, name, document id or span surface ever
reaches this module):

1. :func:`freeze_plans` builds the manifest *before* the sealed test is opened: labels, ``quality_plan``,
   ``conformance_plan``, the gate thresholds and ``audit_plan_sha256`` (the canonical hash of the private audit
   plan: sample policy and salt, label policy, slices, evaluator and thresholds). The frozen target binds them.
2. After the one-shot test access and scoring, :func:`build_evidence` copies the manifest's frozen sections and adds
   ``quality``, ``catalog_conformance``, ``performance``, ``promotion`` (gate checks evaluated on exact rationals),
   ``test_access`` (the append-only lineage projected to the public entry shape) and ``audit_chain``.
3. :func:`write_bundle` writes everything into a staging folder, re-derives every binding hash bottom-up with
   :func:`nerb_verify.seal.seal_bundle`, renders our own summary and figures from a verification of the staged
   bundle (``nerb_verify.render``), seals the publication again, privacy-scans every file (contract profile for JSON,
   rendered profile for text) and only then moves the folder into place. Any privacy finding aborts the write.

The demo bundle is a smoke run: ``verifier.passed`` and ``promotion.passed`` are false, nothing is claimed, and the
performance report says ``profile: smoke`` with ``decision_grade.passed: false``. See docs/producers.md.
"""

from __future__ import annotations

import copy
import os
import platform
import shutil
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from nerb_verify import context as C
from nerb_verify.canonical import nerb_pretty_bytes, python_canonical_sha256
from nerb_verify.checks.raw import gate_eval
from nerb_verify.checks.cross_artifact.gates import POLICY
from nerb_verify.loader import sha256_prefixed
from nerb_verify.producers import gate_figures

CHARTER_VERSION = "2"
# The contract names the verifier rule set by NERB's identity (schema const); source_sha256 is our own verifier.
CONTRACT_VERIFIER = {"id": "nerb-enron-contract", "version": "2.2.0"}
BENCHMARK_VERSION = "enron"
# The contract's two run kinds (manifest and evidence ``artifact_kind``); a generated corpus is a synthetic fixture.
REAL_BENCHMARK = "real_benchmark"
SYNTHETIC_FIXTURE = "synthetic_fixture"
ARTIFACT_KINDS = (REAL_BENCHMARK, SYNTHETIC_FIXTURE)
COMMAND_ID = "nerb_verify_performance_runner"
HEADLINE_WORKLOAD = "real_direct_throughput"
PERFORMANCE_GATES = (("documents_per_second", "gte", 100.0), ("mib_per_second", "gte", 1.0),
                     ("peak_rss_bytes", "lte", 8589934592))


class AssemblyError(RuntimeError):
    """The bundle could not be assembled (a privacy finding, a missing section); the message names no value."""


def _h(value: Any) -> str:
    return python_canonical_sha256(value)


@dataclass
class Provenance:
    """Who measured what: software, environment, evaluator and verifier identities (no paths, no host names)."""

    git_commit: str
    git_dirty: bool
    package_version: str
    evaluator_source_sha256: str
    verifier_source_sha256: str
    created_at: str

    def software(self) -> dict[str, Any]:
        """The ``software`` block: package and engine version, measurement commit and whether the tree was dirty."""
        return {"engine_version": self.package_version, "git_commit": self.git_commit, "git_dirty": self.git_dirty,
                "package_version": self.package_version}

    @staticmethod
    def environment() -> dict[str, Any]:
        """Machine facts only: architecture, CPU count and model, memory, OS and Python version."""
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") if hasattr(os, "sysconf") else 1
        model = "unknown"
        try:
            for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
                if line.lower().startswith("model name"):
                    model = line.split(":", 1)[1].strip()[:120] or "unknown"
                    break
        except OSError:
            pass
        return {"architecture": platform.machine() or "unknown", "cpu_count": os.cpu_count() or 1,
                "cpu_model": model, "memory_bytes": int(memory), "os": platform.system() or "unknown",
                "python": platform.python_version()}


@dataclass
class FrozenPlan:
    """What is frozen before the test is opened: the manifest skeleton and the private audit plan's hash."""

    manifest: dict[str, Any]
    audit_plan: dict[str, Any]
    checks: list[dict[str, Any]] = field(default_factory=list)

    @property
    def audit_plan_sha256(self) -> str:
        """Canonical hash of the private audit plan (the value every public copy must carry)."""
        return _h(self.audit_plan)


def label_entry(label_id: str, classes: list[str], strength: str, artifact: dict[str, Any], documents: int,
                spans: int, policy_sha256: str, provenance: dict[str, Any]) -> dict[str, Any]:
    """A manifest ``labels[]`` entry for gold of the sealed test (scope: subject + current body)."""
    return {"id": label_id, "label_strength": strength, "annotation_completeness": "exhaustive_within_scope",
            "annotation_scope": {"document_regions": ["subject", "current_body"], "entity_classes": classes,
                                 "exclusions": [], "span_policy_sha256": policy_sha256},
            "annotation_provenance": provenance, "artifact": artifact, "roles": ["test"],
            "role_populations": [{"documents": documents, "role": "test", "spans": spans}], "span_count": spans}


def conformance_label(plan: dict[str, Any]) -> dict[str, Any]:
    """The synthetic conformance label bound to the conformance plan's positive-case artifact."""
    policy = plan["policy_sha256"]
    return {"id": plan["label_artifact_id"], "label_strength": "synthetic_conformance",
            "annotation_completeness": "exhaustive_within_scope",
            "annotation_scope": {"document_regions": ["synthetic_cases"],
                                 "entity_classes": ["approved_catalog_patterns"], "exclusions": [],
                                 "span_policy_sha256": policy},
            "annotation_provenance": {"adjudication_artifact": {"id": "enron_catalog_conformance_adjudication",
                                                                "sha256": plan["negative_cases_artifact"]["sha256"],
                                                                "bytes": plan["negative_cases_artifact"]["bytes"]},
                                      "independently_reviewed": True,
                                      "producer_id": "deterministic_conformance_generator",
                                      "protocol_sha256": policy, "reviewer_id": "conformance_reference_matcher"},
            "artifact": plan["positive_cases_artifact"], "roles": ["conformance"],
            "role_populations": [{"documents": plan["positive_cases"], "role": "conformance",
                                  "spans": plan["positive_cases"]}],
            "span_count": plan["positive_cases"]}


def gate_checks(gate_slice: int | None, performance: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The frozen threshold set: fixed gates, charter quality gates on the gate slice (if any), headline speed gates.

    Thresholds are the charter's (``checks.cross_artifact.gates.POLICY``) written as decimals; ``actual``/``passed`` are filled in
    by :func:`evaluate_checks` after scoring.
    """
    checks = [
        {"id": "catalog_conformance", "category": "catalog_conformance", "target": "/catalog_conformance/passed",
         "operator": "eq", "threshold": True},
        {"id": "privacy_scan", "category": "privacy", "target": "/privacy/status", "operator": "eq",
         "threshold": "passed"},
        {"id": "clean_git", "category": "provenance", "target": "/software/git_dirty", "operator": "eq",
         "threshold": False},
    ]
    if gate_slice is not None:
        for metric, (operator, bound) in POLICY.items():
            checks.append({"id": metric, "category": "quality", "operator": operator, "threshold": float(bound),
                           "target": f"/quality/slices/{gate_slice}/metrics/{metric}"})
        for count in ("cataloged_false_negative", "cataloged_wrong_canonical", "documents_with_any_cataloged_miss"):
            checks.append({"id": count, "category": "quality", "operator": "eq", "threshold": 0,
                           "target": f"/quality/slices/{gate_slice}/{count}"})
    cells = [(i, w) for i, w in enumerate(performance["workloads"]) if w.get("decision_grade") is True] \
        if performance is not None else []
    if performance is not None and cells:
        checks.extend(decision_cell_gates(performance, cells))
    elif performance is not None:
        ids = [w["id"] for w in performance["workloads"]]
        if HEADLINE_WORKLOAD in ids:
            position = ids.index(HEADLINE_WORKLOAD)
            for stat, operator, threshold in PERFORMANCE_GATES:
                target = (f"/performance/workloads/{position}/peak_rss_bytes" if stat == "peak_rss_bytes"
                          else f"/performance/workloads/{position}/stats/{stat}")
                checks.append({"id": f"performance_{position}_{stat}", "category": "performance",
                               "target": target, "operator": operator, "threshold": threshold})
    return sorted(checks, key=lambda c: c["id"])


def decision_cell_gates(performance: dict[str, Any], cells: list[tuple[int, dict[str, Any]]]
                        ) -> list[dict[str, Any]]:
    """The required gate set of every decision cell (spec 20 section 10.2), each threshold at its frozen budget.

    The fields and budgets are the verifier's (``performance_gate_policy``); a budget is written as the nearest
    double on the strict side, judged by the decimal the double prints as (never above an upper bound, never below
    a lower one), so the threshold never loosens the budget it stands for.
    """
    import math

    from nerb_verify.checks.cross_artifact.performance_gate_policy import budget, required_fields

    inputs = {item["id"]: item for item in performance.get("inputs", [])}
    out = []
    for position, workload in cells:
        item = inputs.get(workload.get("input_id"))
        for stat, operator in sorted(required_fields(workload).items()):
            rule = budget(workload, stat, item)
            if rule is None:
                continue
            bound = rule[1]
            # Written as doubles like NERB's (8 GiB as 8589934592.0); a threshold is read as the decimal it prints
            # as (repr), so that decimal is what is compared with the bound.
            threshold = float(bound)
            if operator == "lte" and gate_eval.decimal_value(threshold) > bound:
                threshold = math.nextafter(threshold, -math.inf)
            if operator == "gte" and gate_eval.decimal_value(threshold) < bound:
                threshold = math.nextafter(threshold, math.inf)
            target = (f"/performance/workloads/{position}/peak_rss_bytes" if stat == "peak_rss_bytes"
                      else f"/performance/workloads/{position}/stats/{stat}")
            out.append({"id": f"performance_{position}_{stat}", "category": "performance", "target": target,
                        "operator": operator, "threshold": threshold})
    return out


def evaluate_checks(checks: list[dict[str, Any]], evidence: dict[str, Any]) -> list[dict[str, Any]]:
    """Fill ``actual`` (a type-exact copy of the stored scalar) and ``passed``: the exact rational comparison of the
    figure the verifier recomputes (:func:`gate_figures.exact_figure`, never the stored double) with the threshold
    read as the decimal it is written as. A figure that cannot be derived fails its gate."""
    out = []
    for check in checks:
        found, stored, value = gate_figures.exact_figure(evidence, check["target"])
        actual = stored if found else None
        passed = False
        limit = gate_eval.decimal_value(check["threshold"])
        if found and (gate_eval.is_number(value) or isinstance(value, Fraction)):
            passed = limit is not None and gate_eval.compare(Fraction(value), check["operator"], limit)
        elif found and value is not None and type(value) is type(check["threshold"]):
            passed = check["operator"] == "eq" and value == check["threshold"]
        out.append({**check, "actual": actual, "passed": passed})
    return out


def freeze_plans(*, public_sections: dict[str, Any], bank_section: dict[str, Any], conformance_plan: dict[str, Any],
                 labels: list[dict[str, Any]], quality_plan: list[dict[str, Any]], provenance: Provenance,
                 audit_plan: dict[str, Any], gate_slice: int | None, performance_plan: dict[str, Any] | None,
                 privacy_report_sha256: str, command_argv: list[str], command_elapsed_seconds: float,
                 artifact_kind: str, verifier_id: str = "nerb-enron-contract") -> FrozenPlan:
    """The manifest frozen before the sealed test is opened (``performance_manifest_sha256`` filled at sealing).

    ``command_argv`` / ``command_elapsed_seconds`` describe the performance run the harnesses point to (argv without
    private paths). ``artifact_kind`` is the contract's run kind and has no default, so every caller says what it
    measured: ``real_benchmark`` only for an authorized real corpus measured from a git checkout (the verifier then
    rejects a placeholder commit), ``synthetic_fixture`` for a generated corpus such as the demo's.
    """
    if artifact_kind not in ARTIFACT_KINDS:
        raise AssemblyError("artifact_kind must be real_benchmark or synthetic_fixture")
    checks = gate_checks(gate_slice, performance_plan)
    manifest = {
        "schema_version": "nerb.enron_manifest.v2", "artifact_kind": artifact_kind,
        "benchmark_version": BENCHMARK_VERSION, "charter_version": CHARTER_VERSION,
        "created_at": provenance.created_at, "audit_plan_sha256": _h(audit_plan),
        "source": public_sections["source"], "preparation": public_sections["preparation"],
        "splits": public_sections["splits"], "bank": bank_section, "conformance_plan": conformance_plan,
        "labels": labels, "quality_plan": quality_plan,
        "commands": [{"argv": list(command_argv), "cwd": ".", "elapsed_seconds": float(command_elapsed_seconds),
                      "exit_status": 0, "id": COMMAND_ID, "timeout_seconds": 7200.0}],
        "environment": Provenance.environment(), "software": provenance.software(),
        "evaluator": {"id": "nerb-verify-quality", "label_schema_sha256": _h({"label_schema": "nerb_verify.gold.v1"}),
                      "source_sha256": provenance.evaluator_source_sha256, "version": "1.0.0"},
        "verifier": {**CONTRACT_VERIFIER, "source_sha256": provenance.verifier_source_sha256},
        "privacy": {"direct_identifiers_included": False, "raw_text_included": False,
                    "report_sha256": privacy_report_sha256, "scanner": verifier_id,
                    "scanner_source_sha256": provenance.verifier_source_sha256, "status": "passed",
                    "violation_count": 0},
        "performance_manifest_sha256": None,
        "thresholds_sha256": None,
    }
    from nerb_verify.seal import thresholds_sha256

    manifest["thresholds_sha256"] = thresholds_sha256(checks)
    return FrozenPlan(manifest=manifest, audit_plan=audit_plan, checks=checks)


def privacy_report(paths: list[Path], retention_policy_sha256: str | None = None) -> dict[str, Any]:
    """Contract-profile scan of the public sections available at freeze time; raises on any finding.

    Returns the scan summary (counts only); its canonical hash is the manifest's ``privacy.report_sha256``. The
    closed v2 manifest has no retention field, so the private root's retention policy hash
    (:mod:`nerb_verify.producers.retention`) is committed here, inside the privacy report the manifest binds: a
    reviewer given the policy and this report recomputes both hashes. No private path is ever part of it.
    """
    from nerb_verify.privacy.profiles import PROFILES
    from nerb_verify.privacy.runner import scan_paths

    result = scan_paths([str(p) for p in paths], PROFILES["contract"])
    if result.findings:
        raise AssemblyError("a public section failed the privacy scan before freezing")
    report: dict[str, Any] = {"profile": "contract", "summary": result.summary.to_json(), "violation_count": 0}
    if retention_policy_sha256 is not None:
        report["retention_policy_sha256"] = retention_policy_sha256
    return report


def frozen_target(plan: FrozenPlan, *, bank_hash: str, split_manifest_sha256: str, test_artifact_sha256: str,
                  frozen_at: str, performance_manifest_sha256: str | None) -> dict[str, Any]:
    """The nine hashes the sealed-test access is bound to (spec 50 section 3.4)."""
    manifest = plan.manifest
    return {"audit_plan_sha256": plan.audit_plan_sha256, "bank_hash": bank_hash,
            "evaluator_source_sha256": manifest["evaluator"]["source_sha256"], "frozen_at": frozen_at,
            "git_commit": manifest["software"]["git_commit"],
            "performance_manifest_sha256": performance_manifest_sha256,
            "split_manifest_sha256": split_manifest_sha256, "test_artifact_sha256": test_artifact_sha256,
            "thresholds_sha256": manifest["thresholds_sha256"]}


def audit_chain(plan: FrozenPlan, *, gold_sha256: str, sample_sha256: str, catalog_binding_sha256: str,
                prediction_sha256: str, quality_passed: bool, evaluator_source_sha256: str,
                stage_files: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The four-stage audit chain (gold, catalog, score, prediction audit), aggregate hashes only.

    ``stage_files[stage]`` holds the sha256 of that stage's private files (``artifacts``: the stage output,
    ``manifest``: the stage manifest binding its inputs and outputs, ``receipt``: the completion receipt); they are
    written under the private root by the caller, so every hash here names a real file a reviewer can re-hash.
    """
    plan_hash = plan.audit_plan_sha256
    binding = _h({"audit_plan": plan_hash, "gold": gold_sha256, "sample": sample_sha256})

    def stage(name: str, **extra: Any) -> dict[str, Any]:
        files = stage_files[name]
        return {"audit_output_binding_sha256": binding, "audit_plan_sha256": plan_hash,
                "artifacts_sha256": files["artifacts"], "manifest_sha256": files["manifest"],
                "receipt_sha256": files["receipt"], **extra}

    return {
        "schema_version": "nerb.enron_audit_chain.v1", "audit_plan_sha256": plan_hash,
        "audit_output_binding_sha256": binding,
        "gold": stage("gold", annotation_policy_sha256=plan.audit_plan["label_policy_sha256"],
                      gold_sha256=gold_sha256, sample_artifact_sha256=sample_sha256, status="completed",
                      unresolved=0),
        "catalog": stage("catalog", binding_artifact_sha256=stage_files["catalog"]["artifacts"],
                         catalog_binding_sha256=catalog_binding_sha256,
                         catalog_policy_sha256=plan.audit_plan["catalog_policy_sha256"], gold_sha256=gold_sha256,
                         review_artifact_sha256=stage_files["catalog"]["review"],
                         sample_artifact_sha256=sample_sha256, status="completed", unresolved=0),
        "score": stage("score", catalog_binding_sha256=catalog_binding_sha256,
                       evaluator_source_sha256=evaluator_source_sha256, gold_sha256=gold_sha256,
                       prediction_commitment_sha256=prediction_sha256, quality_decision_passed=quality_passed,
                       quality_decision_sha256=_h({"quality_passed": quality_passed, "binding": binding}),
                       sample_artifact_sha256=sample_sha256,
                       scoring_policy_sha256=plan.audit_plan["scoring_policy_sha256"],
                       status="scored_pending_prediction_audit", support_failure_codes=[],
                       thresholds_sha256=plan.manifest["thresholds_sha256"]),
        "prediction_audit": stage("prediction_audit", catalog_binding_sha256=catalog_binding_sha256,
                                  decision_eligible=False, gold_defects=0, gold_sha256=gold_sha256,
                                  prediction_audit_policy_sha256=_h({"prediction_audit": "no_review_performed"}),
                                  prediction_commitment_sha256=prediction_sha256, release="do_not_ship",
                                  score_manifest_sha256=stage_files["score"]["manifest"],
                                  status="quality_gates_failed" if not quality_passed else "passed",
                                  unresolved_cases=0),
        "privacy": {"aggregate_only": True, "document_ids_included": False, "private_paths_included": False,
                    "raw_text_included": False, "reviewer_ids_included": False,
                    "span_coordinates_included": False, "span_surfaces_included": False},
        "chain_sha256": None,
    }


def public_lineage(entries: list[dict[str, Any]], frozen: dict[str, Any], aggregate: dict[str, Any]
                   ) -> list[dict[str, Any]]:
    """Project the private access lineage onto evidence ``test_access.lineage`` (one entry per access)."""
    out = []
    for number, entry in enumerate(e for e in entries if e.get("event") == "claimed"):
        out.append({"sequence": number + 1, "accessed_at": entry["at"], "aggregate_artifact": aggregate,
                    "benchmark_version": BENCHMARK_VERSION if number == 0 else f"{BENCHMARK_VERSION}_{number}",
                    "changes_informed_by_predecessor": [], "frozen_target": frozen, "outcome": "failed",
                    "predecessor_benchmark_version": None, "previous_entry_sha256": None, "entry_sha256": None})
    return out


def build_evidence(plan: FrozenPlan, *, quality: dict[str, Any], catalog_conformance: dict[str, Any],
                   performance: dict[str, Any], test_access: dict[str, Any], chain: dict[str, Any],
                   created_at: str) -> dict[str, Any]:
    """The evidence: the manifest's frozen sections plus results; gate checks evaluated on the stored values."""
    manifest = plan.manifest
    evidence = {key: copy.deepcopy(manifest[key]) for key in (
        "artifact_kind", "audit_plan_sha256", "bank", "charter_version", "commands", "environment", "evaluator",
        "preparation", "privacy", "software", "source", "splits", "thresholds_sha256")}
    evidence.update({
        "schema_version": "nerb.enron_evidence.v2", "created_at": created_at, "manifest_sha256": None,
        "verifier": {**manifest["verifier"], "passed": False}, "quality": quality,
        "catalog_conformance": catalog_conformance, "performance": performance,
        "performance_manifest_sha256": None, "test_access": test_access, "audit_chain": chain,
    })
    evidence["promotion"] = {"checks": evaluate_checks(plan.checks, evidence), "claims": [], "passed": False}
    return evidence


def performance_report(evidence: dict[str, Any], profile: str) -> dict[str, Any]:
    """performance-report.json: the evidence's section plus run identity; a smoke run is never decision grade."""
    return {"schema_version": "nerb.enron_performance_run.v1", "suite": "enron_cache_value",
            "benchmark_version": BENCHMARK_VERSION, "profile": profile, "sealed_test_accessed": False,
            "software": evidence["software"], "environment": evidence["environment"],
            "privacy": {"status": "passed", "raw_text_included": False, "direct_identifiers_included": False,
                        "private_paths_included": False, "violation_count": 0},
            "decision_grade": _decision_grade(evidence, profile),
            "performance": evidence["performance"], "performance_manifest_sha256": None,
            "plan_sha256": None, "run_sha256": None}


def _decision_grade(evidence: dict[str, Any], profile: str) -> dict[str, Any]:
    """Spec 20 §10.1: a smoke run is always ``smoke_profile_nonpromotable``; a decision run is graded on its cells."""
    from nerb_verify.producers.harness import report_failure_codes

    if profile == "smoke":
        return {"passed": False, "failure_codes": ["smoke_profile_nonpromotable"]}
    codes = report_failure_codes(evidence["performance"], evidence["software"], evidence["environment"])
    return {"passed": not codes, "failure_codes": codes}


def publication(evidence: dict[str, Any], card: dict[str, Any], files: list[str]) -> dict[str, Any]:
    """publication.json: scope, decision, bindings and the artifact list (hashes filled by the sealing step)."""
    manifest_sections = evidence
    quality_slices = evidence["quality"].get("slices") or []
    headline = quality_slices[0] if quality_slices else {}
    chain = evidence["audit_chain"]
    return {
        "schema_version": "nerb.enron_publication", "artifact_kind": "aggregate_benchmark_publication",
        "scope": {"active_patterns": evidence["bank"]["active_patterns"],
                  "candidate_count": card.get("candidate_funnel", {}).get("total_candidates", 0),
                  "gold_sample_documents": headline.get("documents", 0), "gold_spans": headline.get("gold_spans", 0),
                  "prepared_records": manifest_sections["preparation"].get("output_records", 0),
                  "sealed_test_frame_documents": manifest_sections["splits"]["roles"]["test"]["records"],
                  "source_input_rows": manifest_sections["source"]["input_records"]},
        "decision": {"capacity_gates_passed": False,
                     "catalog_conformance_passed": bool(evidence["catalog_conformance"].get("passed")),
                     "performance_gates_passed": False,
                     "standalone_privacy_audit_outcome": chain["prediction_audit"]["release"],
                     "standalone_privacy_audit_status": chain["prediction_audit"]["status"],
                     "standalone_privacy_redaction_allowed": False,
                     "standalone_privacy_redaction_quality_passed": False},
        "bindings": {"audit_chain_sha256": None, "bank_sha256": evidence["bank"]["canonical_hash"],
                     "benchmark_manifest_sha256": None, "capacity_decision_sha256": None,
                     "catalog_binding_sha256": chain["catalog"]["catalog_binding_sha256"],
                     "evidence_manifest_sha256": None, "gold_sha256": chain["gold"]["gold_sha256"],
                     "measurement_git_commit": evidence["software"]["git_commit"],
                     "performance_manifest_sha256": None, "performance_run_sha256": None,
                     "prediction_audit_manifest_sha256": chain["prediction_audit"]["manifest_sha256"],
                     "score_manifest_sha256": chain["score"]["manifest_sha256"]},
        "privacy": {"aggregate_only": True, "bank_values_included": False, "direct_identifiers_included": False,
                    "document_ids_included": False, "private_paths_included": False, "raw_text_included": False,
                    "span_surfaces_included": False, "violation_count": 0},
        "artifacts": [{"path": rel, "sha256": None, "bytes": 0} for rel in sorted(files)],
        "publication_sha256": None,
    }


def _privacy_findings(root: Path) -> int:
    from nerb_verify.privacy.profiles import PROFILES
    from nerb_verify.privacy.runner import scan_paths

    json_files = [str(p) for p in sorted(root.rglob("*.json"))]
    text_files = [str(p) for p in sorted(root.rglob("*")) if p.is_file() and p.suffix in (".md", ".svg")]
    found = scan_paths(json_files, PROFILES["contract"]).findings if json_files else []
    found += scan_paths(text_files, PROFILES["rendered"]).findings if text_files else []
    return sum(1 for f in found if f.severity == "error")


def write_bundle(out_dir: Path, *, manifest: dict[str, Any], evidence: dict[str, Any], report: dict[str, Any],
                 card: dict[str, Any], inventories: dict[str, bytes], capacity: dict[str, Any] | None) -> Path:
    """Stage, seal, render, re-seal, privacy-scan, then move the bundle into ``out_dir`` (which must not exist)."""
    from nerb_verify.render.output import render_files
    from nerb_verify.seal import seal_bundle
    from nerb_verify.verify import verify_bundle

    if out_dir.exists():
        raise AssemblyError("the bundle folder already exists")
    staging = out_dir.parent / (out_dir.name + ".staging")
    if staging.exists():
        shutil.rmtree(staging)
    (staging / C.INVENTORIES_DIR).mkdir(parents=True)
    (staging / C.FIGURES_DIR).mkdir()
    artifacts = {C.MANIFEST: manifest, C.EVIDENCE: evidence, C.PERFORMANCE_REPORT: report, C.BANK_CARD: card}
    if capacity is not None:
        artifacts[C.CAPACITY_DECISION] = capacity
    for rel, data in artifacts.items():
        (staging / rel).write_bytes(nerb_pretty_bytes(data))
    for inventory_id, raw in inventories.items():
        (staging / C.INVENTORIES_DIR / f"{inventory_id}.json").write_bytes(raw)
    from nerb_verify.checks.raw.files import FIGURES

    placeholders = {C.SUMMARY: b"# Summary\n", **{rel: b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n"
                                                   for rel in FIGURES}}
    for rel, raw in placeholders.items():
        (staging / rel).write_bytes(raw)
    files = sorted([*artifacts, *(f"{C.INVENTORIES_DIR}/{i}.json" for i in inventories), *placeholders])
    public = publication(evidence, card, files)
    if capacity is not None:  # the capacity gates passed exactly when the capacity report says so
        public["decision"]["capacity_gates_passed"] = capacity["report"]["gates"]["passed"] is True
    (staging / C.PUBLICATION).write_bytes(nerb_pretty_bytes(public))
    _seal_with_plan(staging, seal_bundle)
    for rel, raw in rendered_files(render_files(verify_bundle(staging).ctx)).items():
        (staging / rel).write_bytes(raw)
    _seal_with_plan(staging, seal_bundle)
    if _privacy_findings(staging):
        shutil.rmtree(staging)
        raise AssemblyError("the assembled bundle failed the privacy scan; nothing was published")
    staging.rename(out_dir)
    return out_dir


def rendered_files(files: dict[str, bytes]) -> dict[str, bytes]:
    """Our renderer's output under the contract's file names, with the assembly-time opening sentence."""
    from nerb_verify.render.output import bundle_files

    return bundle_files(files, assembly=True)


def _seal_with_plan(root: Path, seal_bundle: Any) -> None:
    """seal.py plus the performance report's ``plan_sha256`` (rebuilt from the report, as the verifier does)."""
    import json

    from nerb_verify.checks.performance import hashes

    seal_bundle(root)
    report_path = root / C.PERFORMANCE_REPORT
    report = json.loads(report_path.read_text(encoding="utf-8"))
    report["plan_sha256"] = hashes.plan_sha256(report)
    report["run_sha256"] = hashes.run_sha256(report)
    report_path.write_bytes(nerb_pretty_bytes(report))
    seal_bundle(root)


def source_sha256(path: Path) -> str:
    """sha256 of a source file (our evaluator and verifier identities)."""
    return sha256_prefixed(path.read_bytes())
