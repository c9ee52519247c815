"""Who measured a capacity run: the execution identity and runtime of ``capacity-decision.json`` for our producers.

The capacity report's wire format (NERB's, closed by ``schemas/nerb.enron_capacity_portable_decision.json``) names
NERB's own source files as the slots of ``execution.relevant_module_sha256`` (51 paths) and
``execution.core_source_sha256`` (11 modules), and NERB's reader (Hugging Face ``datasets`` and four more
distributions). Our run fills each slot with what plays that role here (:data:`MODULE_SLOTS`: e.g.
``src/nerb/enron_capacity.py`` holds the SHA-256 of ``nerb_verify/producers/capacity.py``); a slot with no
counterpart (NERB's Rust extension sources, ``uv.lock``, its MCP server ...) holds :data:`ABSENT`, the SHA-256 of zero
bytes, which says "no such file". The reader slots hold the versions of those distributions *as installed here*
(``absent`` when not installed): our reader is ``nerb_verify.producers.sources`` (a local JSONL or mail file, no
network), which the policy's reader adapter and endpoint slots describe by declaration hashes (:func:`declared`).
Nothing here is a claim to be NERB; docs/producers.md ("Capacity decision") lists the choices.
"""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from nerb_verify.canonical import python_canonical_sha256

PACKAGE = Path(__file__).resolve().parents[1]
REPO = PACKAGE.parent
ABSENT = "sha256:" + hashlib.sha256(b"").hexdigest()
READER_DISTRIBUTIONS = ("datasets", "fsspec", "httpx", "huggingface-hub", "pyarrow")
# NERB slot -> our file (relative to the repository root), or None for a slot with no counterpart here.
MODULE_SLOTS: dict[str, str | None] = {
    "pyproject.toml": "pyproject.toml",
    "scripts/run_enron_capacity.py": "nerb_verify/producers/capacity_observer.py",
    "src/nerb/__init__.py": "nerb_verify/__init__.py",
    "src/nerb/_capacity_bootstrap.py": None,
    "src/nerb/bank.py": "nerb_verify/producers/bank_format.py",
    "src/nerb/cli.py": "nerb_verify/cli.py",
    "src/nerb/engine.py": "nerb_verify/producers/engine.py",
    "src/nerb/engines.py": "nerb_verify/producers/ascii_index.py",
    "src/nerb/enron_activity.py": "nerb_verify/producers/progress.py",
    "src/nerb/enron_annotations.py": "nerb_verify/producers/annotations.py",
    "src/nerb/enron_bank_builder.py": "nerb_verify/producers/bank_builder.py",
    "src/nerb/enron_bank_workflow.py": "nerb_verify/producers/bank_card.py",
    "src/nerb/enron_capacity.py": "nerb_verify/producers/capacity.py",
    "src/nerb/enron_cleaning.py": "nerb_verify/producers/cleaning.py",
    "src/nerb/enron_conformance.py": "nerb_verify/producers/conformance_cases.py",
    "src/nerb/enron_performance.py": "nerb_verify/producers/harness.py",
    "src/nerb/enron_performance_worker.py": "nerb_verify/producers/sampling.py",
    "src/nerb/enron_preparation.py": "nerb_verify/producers/preparation.py",
    "src/nerb/enron_private_io.py": "nerb_verify/producers/sealed.py",
    "src/nerb/enron_quality.py": "nerb_verify/producers/evaluation.py",
    "src/nerb/enron_splitting.py": "nerb_verify/producers/splitting.py",
    "src/nerb/records.py": "nerb_verify/producers/sources.py",
    "src/nerb/validation.py": "nerb_verify/verify.py",
}
CORE_MODULES = ("_capacity_bootstrap", "engine", "engines", "enron_activity", "enron_bank_builder",
                "enron_bank_workflow", "enron_capacity", "enron_preparation", "enron_private_io", "enron_quality",
                "enron_splitting")
# Phase -> the module that runs it here.
RUNNERS = {"preparation": "nerb_verify/commands/prepare.py", "split": "nerb_verify/commands/split.py",
           "build": "nerb_verify/commands/bank.py", "streaming_validation": "nerb_verify/producers/capacity.py",
           "deep_replay": "nerb_verify/producers/capacity.py"}


def file_sha256(rel: str | None) -> str:
    """SHA-256 of a repository file; :data:`ABSENT` for no file (or one not shipped in this installation)."""
    if rel is None:
        return ABSENT
    try:
        return "sha256:" + hashlib.sha256((REPO / rel).read_bytes()).hexdigest()
    except OSError:
        return ABSENT


def declared(slot: str, value: Any) -> str:
    """A declaration hash for a slot our reader has no file for: the canonical hash of what it declares."""
    return python_canonical_sha256({"nerb_verify_capacity_slot": slot, "declared": value})


def relevant_modules(slots: list[str]) -> dict[str, str]:
    """Every slot of ``relevant_module_sha256`` (the schema's closed list) with our counterpart's hash."""
    return {slot: file_sha256(MODULE_SLOTS.get(slot)) for slot in slots}


def reader_versions() -> dict[str, str]:
    """The five reader distributions' installed versions here (``absent`` when not installed)."""
    out: dict[str, str] = {}
    for name in READER_DISTRIBUTIONS:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def native_extension_sha256() -> str:
    """SHA-256 of the RE2 native extension the scan engine loads (:data:`ABSENT` when it is not importable)."""
    try:
        import _re2  # type: ignore[import-not-found]
    except ImportError:
        try:
            import re2 as _re2  # type: ignore[import-not-found,no-redef]
        except ImportError:
            return ABSENT
    path = getattr(_re2, "__file__", None)
    if not path:
        return ABSENT
    try:
        return "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ABSENT


def _distribution_inventory() -> tuple[int, str]:
    names = sorted({(d.metadata["Name"] or "").lower() + "==" + (d.version or "") for d in metadata.distributions()})
    return len(names), python_canonical_sha256(names)


def reader_environment(versions: dict[str, str]) -> dict[str, Any]:
    """The runtime's reader environment: counts and an inventory hash of the installed distributions."""
    count, inventory = _distribution_inventory()
    present = [name for name in READER_DISTRIBUTIONS if versions[name] != "absent"]
    files, size = 0, 0
    for name in present:
        for item in metadata.distribution(name).files or []:
            files += 1
            try:
                size += Path(str(item.locate())).stat().st_size
            except OSError:
                continue
    return {"critical_reader_distribution_count": len(present),
            "critical_reader_distribution_sha256": python_canonical_sha256(versions),
            "critical_reader_file_count": files, "critical_reader_total_bytes": size,
            "critical_reader_versions": dict(versions),
            "datasets_distribution_sha256": declared("datasets_distribution", versions["datasets"]),
            "datasets_file_count": 0, "datasets_total_bytes": 0, "datasets_version": versions["datasets"],
            "installed_distribution_count": count, "installed_distribution_inventory_sha256": inventory}


def runtime(native: str, versions: dict[str, str], reader_policy_sha256: str, launcher_sha256: str,
            guard_sha256: str) -> dict[str, Any]:
    """``environment.runtime``: interpreter, machine, bootstrap (as this interpreter actually runs) and reader."""
    flags = sys.flags
    executable = Path(sys.executable)
    try:
        interpreter = "sha256:" + hashlib.sha256(executable.read_bytes()).hexdigest()
    except OSError:
        interpreter = ABSENT
    return {
        "architecture": platform.machine() or "unknown",
        "capacity_bootstrap": {
            "bytecode_disabled": bool(flags.dont_write_bytecode), "dependency_root_count": 1,
            "dependency_root_layouts": ["inherited_sys_path"], "isolated": bool(flags.isolated),
            "launcher_source_sha256": launcher_sha256, "mode": "inherited_interpreter",
            "private_pycache_prefix": sys.pycache_prefix is not None, "pth_processing": not flags.no_site,
            "schema": "nerb_verify.capacity_bootstrap.v1", "site_disabled": bool(flags.no_site),
            "source_import_guard_sha256": guard_sha256, "source_root": "installed_package"},
        "cpu_model": platform.processor() or platform.machine() or "unknown",
        "kernel_release": platform.release() or "unknown", "kernel_system": platform.system() or "unknown",
        "logical_cpu_count": os.cpu_count() or 1,
        "native_build_source_sha256": ABSENT, "native_extension_build_source_sha256": ABSENT,
        "native_extension_sha256": native, "os_name": os.name, "python_executable_sha256": interpreter,
        "python_implementation": platform.python_implementation(), "python_version": platform.python_version(),
        "reader_environment": reader_environment(versions),
        "reader_phase_environment_policy_sha256": reader_policy_sha256,
    }


def git_facts(commit: str) -> dict[str, str]:
    """The commit object's SHA-256 and root tree of ``commit`` in the package's checkout (absent/zeros outside)."""
    def git(*args: str) -> bytes:
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, check=True, timeout=30).stdout

    try:
        raw = git("cat-file", "commit", commit)
        tree = git("rev-parse", commit + "^{tree}").decode().strip()
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        return {"commit_object_sha256": ABSENT, "root_tree_object_id": "0" * 40}
    return {"commit_object_sha256": "sha256:" + hashlib.sha256(raw).hexdigest(), "root_tree_object_id": tree}


def repository_tree_sha256() -> str:
    """The measured package tree: canonical hash of {path: sha256} over every file of ``nerb_verify`` (sorted)."""
    inventory = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if "__pycache__" not in rel:
            inventory[rel] = file_sha256(rel)
    return python_canonical_sha256(inventory)
