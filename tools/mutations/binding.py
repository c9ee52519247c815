"""Broken fixtures for the binding family: raw-byte artifact list and first-layer hash equalities."""

from __future__ import annotations


def _case(code: str, slug: str, ops: list, description: str, *, reseal: bool = False, post_ops: list | None = None,
          post_seal: list | None = None, codes: list | None = None) -> dict:
    case = {"code": code, "slug": slug, "base": "nerb-enron", "ops": ops, "reseal": reseal,
            "description": description, "expect": {"codes": codes if codes is not None else [code]}}
    if post_ops:
        case["post_ops"] = post_ops
    if post_seal:
        case["post_seal"] = post_seal
    return case


CASES = [
    _case("binding.artifact_sha256", "summary-prose-edited",
          [{"op": "replace_text", "file": "summary.md", "old": "The source corpus is public.",
            "new": "The source corpus is publix."}],
          "A word of summary.md changed after publication; hashes left stale."),
    _case("binding.artifact_bytes", "declared-size-off-by-one", [], "The declared size of summary.md is one byte off.",
          post_ops=[{"op": "json_set", "file": "publication.json", "pointer": "/artifacts/17/bytes", "value": 6108}],
          post_seal=["publication_sha256"]),
    _case("binding.declared_missing", "figure-deleted", [{"op": "delete", "file": "figures/bank-coverage.svg"}],
          "A declared figure is missing from the folder."),
    _case("binding.undeclared_file", "inventory-undeclared",
          [{"op": "json_remove", "file": "publication.json", "pointer": "/artifacts/15"}],
          "An inventory present in the bundle but removed from the publication list (resealed).", reseal=True),
    _case("binding.duplicate_artifact", "summary-twice",
          [{"op": "json_copy", "file": "publication.json", "from": "/artifacts/17", "pointer": "/artifacts/18"}],
          "The same path listed twice (resealed).", reseal=True),
    _case("binding.unsafe_artifact_path", "traversal",
          [{"op": "json_insert", "file": "publication.json", "pointer": "/artifacts/18",
            "value": {"path": "../outside.md", "sha256": "sha256:" + "2" * 64, "bytes": 1}}],
          "A declared path that climbs out of the bundle (resealed); the publication schema's path pattern and the "
          "contract privacy scan (a parent-directory segment) also refuse it.", reseal=True,
          codes=["binding.unsafe_artifact_path", "privacy.path_traversal", "schema.pattern"]),
    _case("binding.manifest_sha256", "manifest-edited-after-binding", [],
          "The manifest changed after the evidence bound it; the publication list was refreshed.",
          post_ops=[{"op": "json_set", "file": "benchmark-manifest.json",
                     "pointer": "/labels/0/annotation_provenance/producer_id", "value": "edited_producer"}],
          post_seal=["publication"]),
    _case("binding.audit_plan_sha256", "manifest-plan-differs",
          [{"op": "json_set", "file": "benchmark-manifest.json", "pointer": "/audit_plan_sha256",
            "value": "sha256:" + "3" * 64}],
          "The manifest names another audit plan than the evidence (resealed).", reseal=True),
    _case("binding.thresholds_sha256", "manifest-thresholds-differ", [],
          "The manifest names another threshold set than the evidence; manifest hash re-bound.",
          post_ops=[{"op": "json_set", "file": "benchmark-manifest.json", "pointer": "/thresholds_sha256",
                     "value": "sha256:" + "4" * 64}],
          post_seal=["manifest_sha256", "publication"]),
    _case("binding.provenance_mismatch", "evidence-bank-aliases",
          [{"op": "json_set", "file": "benchmark-evidence.json", "pointer": "/bank/active_aliases", "value": 1}],
          "The evidence's bank section differs from the manifest's (resealed); it also no longer matches the evaluated "
          "performance bank.", reseal=True,
          codes=["binding.provenance_mismatch", "performance.unknown_reference"]),
    _case("binding.provenance_mismatch", "int-versus-float",
          [{"op": "json_set", "file": "benchmark-evidence.json", "pointer": "/commands/0/timeout_seconds",
            "value": 7200}],
          "The evidence writes 7200 where the manifest froze 7200.0 (resealed).", reseal=True),
    _case("binding.performance_manifest_sha256", "report-differs", [],
          "The performance report names another performance manifest; publication list refreshed.",
          post_ops=[{"op": "json_set", "file": "performance-report.json", "pointer": "/performance_manifest_sha256",
                     "value": "sha256:" + "5" * 64}],
          post_seal=["run_sha256", "publication"],
          codes=["binding.performance_manifest_sha256", "performance.manifest_hash"]),
]
