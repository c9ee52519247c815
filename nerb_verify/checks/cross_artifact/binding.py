"""Binding family, first layer: the hashes that tie the bundle's artifacts to each other.

* ``publication.json``'s artifact list: each entry is a safe relative path, present, with the exact raw-byte
  SHA-256 and byte length of the file; no path twice; every expected file present is declared.
* The evidence's ``manifest_sha256`` is the canonical hash (Python-style canonical JSON, spec 10 section 1.2) of the
  manifest object; ``audit_plan_sha256``, ``thresholds_sha256`` and ``performance_manifest_sha256`` are equal across
  manifest, evidence and (for the last) the performance report.

Deeper recomputations (thresholds from the gate set, the performance manifest from its descriptors, the audit chain,
lineage and publication bindings) belong to the gate, performance, lineage and publication families.
"""

from __future__ import annotations

import re
from typing import Any

from nerb_verify import context as C
from nerb_verify import pointers
from nerb_verify.canonical import python_canonical_bytes, python_canonical_sha256
from nerb_verify.checks.raw.files import declared_paths, is_unusable
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext
from nerb_verify.display import safe_relpath
from nerb_verify.findings import Label

ARTIFACT_SHA256 = register(
    "binding.artifact_sha256", "A file's raw-byte SHA-256 differs from publication.json.",
    "publication.json lists the SHA-256 of every file's exact bytes. A different hash means the file changed after "
    "publication (or the list was edited). Nothing downstream of a changed file can be trusted.")
ARTIFACT_BYTES = register(
    "binding.artifact_bytes", "A file's byte length differs from publication.json.",
    "publication.json lists the exact byte length of every file; it must equal the file's size.")
DECLARED_MISSING = register(
    "binding.declared_missing", "publication.json declares a file that is not in the bundle.",
    "Every artifact the publication lists must be present as a regular file.")
UNDECLARED_FILE = register(
    "binding.undeclared_file", "An expected file is present but not declared in publication.json.",
    "Every file of the bundle (other than publication.json itself) must be listed with its hash and size.")
DUPLICATE_ARTIFACT = register(
    "binding.duplicate_artifact", "publication.json lists the same path twice.",
    "Each path may appear once in the artifact list; two entries could bind two different hashes.")
UNSAFE_PATH = register(
    "binding.unsafe_artifact_path", "publication.json lists a path that is not a safe relative path.",
    "Artifact paths must be relative, use forward slashes, and contain no '..', '.', empty or absolute components, "
    "backslashes, drive letters or control characters (path traversal).")
MANIFEST_SHA256 = register(
    "binding.manifest_sha256", "evidence manifest_sha256 is not the canonical hash of the manifest.",
    "The evidence binds its manifest by the canonical hash of the whole manifest object (sorted keys, compact "
    "separators, Python float form). A different value means evidence and manifest do not belong together.")
AUDIT_PLAN = register(
    "binding.audit_plan_sha256", "audit_plan_sha256 differs between manifest and evidence.",
    "The preregistered audit plan hash must be identical in manifest and evidence.")
THRESHOLDS = register(
    "binding.thresholds_sha256", "thresholds_sha256 differs between manifest and evidence.",
    "The frozen threshold set hash must be identical in manifest and evidence (the gate family also recomputes it "
    "from the gate checks).")
PERFORMANCE_MANIFEST = register(
    "binding.performance_manifest_sha256", "performance_manifest_sha256 differs between artifacts.",
    "The performance manifest hash must be identical in manifest, evidence and performance report (the performance "
    "family also recomputes it from the descriptors).")

PROVENANCE = register(
    "binding.provenance_mismatch", "A provenance section of the evidence differs from the manifest's copy.",
    "The evidence repeats the manifest's artifact_kind, evaluator, source, preparation, splits, bank, software, "
    "commands, environment and privacy sections, and its verifier identity (minus the passed flag). Each copy must be "
    "identical to the manifest's, value for value and type for type (7200 is not 7200.0), or the evidence is not "
    "about the benchmark the manifest froze.")

PROVENANCE_FIELDS = ("artifact_kind", "evaluator", "source", "preparation", "splits", "bank", "software", "commands",
                     "environment", "privacy")

_DRIVE = re.compile(r"^[A-Za-z]:")


def safe_relative_path(path: str) -> bool:
    """True for a plain relative POSIX path with no traversal, no absolute or drive prefix, no control chars."""
    if not path or len(path) > 512 or not path.isprintable() or "\\" in path or path.startswith("/"):
        return False
    if _DRIVE.match(path):
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


def _check_artifact_list(ctx: VerifyContext, publication: dict[str, Any]) -> None:
    collector = ctx.collector
    artifacts = publication.get("artifacts")
    if not isinstance(artifacts, list):
        return
    seen: set[str] = set()
    for index, item in enumerate(artifacts):
        if not isinstance(item, dict):
            continue
        path, digest, size = item.get("path"), item.get("sha256"), item.get("bytes")
        where = pointers.join(["artifacts", index])
        if not isinstance(path, str) or not safe_relative_path(path):
            collector.add(UNSAFE_PATH, C.PUBLICATION, where + "/path")
            continue
        if path in seen:
            collector.add(DUPLICATE_ARTIFACT, C.PUBLICATION, where + "/path")
            continue
        seen.add(path)
        loaded = ctx.files.get(path)
        if loaded is None:
            if not is_unusable(ctx, path):
                collector.add(DECLARED_MISSING, C.PUBLICATION, where + "/path")
            continue
        if not loaded.sha256:
            continue  # the file could not be read; its load finding says why
        hash_ok = digest == loaded.sha256
        collector.record(C.PUBLICATION, where + "/sha256", "file.sha256", digest, loaded.sha256, hash_ok)
        if not hash_ok:
            collector.add(ARTIFACT_SHA256, C.PUBLICATION, where + "/sha256",
                          "Raw-byte SHA-256 of {path} differs from the declared value.", path=Label(safe_relpath(path)))
        size_ok = type(size) is int and size == loaded.size
        collector.record(C.PUBLICATION, where + "/bytes", "file.bytes", size, loaded.size, size_ok)
        if not size_ok:
            collector.add(ARTIFACT_BYTES, C.PUBLICATION, where + "/bytes",
                          "Byte length of {path} is {actual}, not the declared value.", path=Label(safe_relpath(path)),
                          actual=loaded.size)
    expected = ctx.shared.get("bundle.expected_files", set())
    for rel in sorted(set(ctx.files) & expected):
        if rel != C.PUBLICATION and rel not in seen:
            collector.add(UNDECLARED_FILE, rel, "")


def _equal_hash(ctx: VerifyContext, code: str, field: str, sources: list[tuple[str, Any]]) -> None:
    """All present copies of ``field`` must be equal; record each copy against the first (the evidence's)."""
    present = [(rel, doc) for rel, doc in sources if isinstance(doc, dict) and field in doc]
    if len(present) < 2:
        return
    reference_rel, reference_doc = present[0]
    reference = reference_doc[field]
    for rel, doc in present[1:]:
        ok = doc[field] == reference
        ctx.collector.record(rel, "/" + field, f"binding.{field}", doc[field], reference, ok)
        if not ok:
            ctx.collector.add(code, rel, "/" + field, "Differs from the value in {other}.", other=Label(reference_rel))


def _check_provenance(ctx: VerifyContext, manifest: dict[str, Any], evidence: dict[str, Any]) -> None:
    """Each provenance section of the evidence must be identical (canonical bytes) to the manifest's copy."""
    pairs = [(field, manifest[field], evidence[field]) for field in PROVENANCE_FIELDS]
    verifier = {k: v for k, v in evidence["verifier"].items() if k != "passed"}
    pairs.append(("verifier", manifest["verifier"], verifier))
    for field, expected, actual in pairs:
        if python_canonical_bytes(expected) != python_canonical_bytes(actual):
            ctx.collector.add(PROVENANCE, C.EVIDENCE, "/" + field,
                              "The evidence's {field} differs from the manifest's.", field=Label(field))


def run(ctx: VerifyContext) -> None:
    """Check the publication artifact list and the first-layer hash equalities (see module docstring)."""
    publication = ctx.artifacts.get(C.PUBLICATION)
    loaded_publication = ctx.loaded.get(C.PUBLICATION)
    if isinstance(loaded_publication, dict):
        # The artifact list is checked even when publication.json has other schema problems: raw hashes are the
        # first thing a reader needs, and the checks are defensive about types.
        _check_artifact_list(ctx, loaded_publication)
    manifest, evidence = ctx.manifest, ctx.evidence
    report = ctx.artifacts.get(C.PERFORMANCE_REPORT)
    if manifest is not None and evidence is not None:
        recomputed = python_canonical_sha256(manifest)
        ok = evidence["manifest_sha256"] == recomputed
        ctx.collector.record(C.EVIDENCE, "/manifest_sha256", "binding.manifest_sha256",
                             evidence["manifest_sha256"], recomputed, ok)
        if not ok:
            ctx.collector.add(MANIFEST_SHA256, C.EVIDENCE, "/manifest_sha256")
    if manifest is not None and evidence is not None:
        _check_provenance(ctx, manifest, evidence)
    sources = [(C.EVIDENCE, evidence), (C.MANIFEST, manifest)]
    _equal_hash(ctx, AUDIT_PLAN, "audit_plan_sha256", sources)
    _equal_hash(ctx, THRESHOLDS, "thresholds_sha256", sources)
    _equal_hash(ctx, PERFORMANCE_MANIFEST, "performance_manifest_sha256", sources + [(C.PERFORMANCE_REPORT, report)])
    if manifest is None or evidence is None or loaded_publication is None:
        ctx.collector.ran("binding", "not_evaluated", reason="manifest, evidence or publication unavailable",
                          publication_schema_valid=publication is not None)
        return
    ctx.collector.ran("binding")
