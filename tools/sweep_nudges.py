"""Exhaustive form of the single-nudge property: nudge every pooled leaf of a base bundle, reseal, verify.

The property test (contract_tests/test_mutation_property.py) samples this pool; this tool walks all of it and
prints every leaf whose nudge still verifies. Use it after changing a check, and before changing the pool's
free-leaf list.

    python tools/sweep_nudges.py [--base nerb-enron|synthetic-smoke] [--jobs 2]
    python tools/sweep_nudges.py --every-artifact [--stride N]   # every number/boolean of every JSON artifact

``--strings`` does the same for string leaves: a ``sha256:`` value gets its last digit changed, any other string is
swapped for another value the bundle uses under the same key (an enum swap); strings with no such alternative are
skipped.

``--arrays`` edits every list of two or more elements instead: drop the last element, duplicate the first, swap
the first two (raw sample lists and what the seal rewrites aside).

``--every-artifact`` goes beyond the property's pool: every non-string leaf of every JSON file of the base bundle
(raw samples excepted), each nudged the same way, every ``--stride``-th leaf of files with more than 2,000 of them.
Leaves it reports are either gaps or values that are free by design (docs/threat-model.md); triage each.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nerb_verify.pointers import escape, unescape


def _check(args: tuple[str, int]) -> tuple[str, str] | None:
    from contract_tests import test_mutation_property as prop
    from contract_tests.conftest import verify_dir
    from tools.fixturelib import materialize

    base, index = args
    evidence = prop.EVIDENCE if base == "nerb-enron" else prop.SYNTHETIC_EVIDENCE
    pool = prop.POOL if base == "nerb-enron" else prop.SYNTHETIC_POOL
    pointer, value = pool[index]
    case = {"base": base, "reseal": True,
            "ops": [{"op": "json_set", "file": "benchmark-evidence.json", "pointer": pointer,
                     "value": prop._nudge(value, pointer, evidence)}]}
    with tempfile.TemporaryDirectory() as folder:
        result = verify_dir(materialize(case, Path(folder) / "b"))
    return None if result.verdict == "rejected" else (pointer, result.verdict)


SAMPLE_KEYS = ("samples_seconds", "rss_samples_bytes", "samples_ns", "rss_samples")
# What the seal rewrites inside capacity-decision.json (nerb_verify/seal_capacity.py): a resealed edit of these is
# undone before verification, so sweeping them proves nothing (their stale forms are fixtures of their own codes).
CAPACITY_SEALED = ("/commitments_sha256", "/privacy_scan_chain_sha256", "/runtime_environment_sha256",
                   "/report_bytes", "/run_sha256", "/policy_sha256", "/report_sha256", "/execution_sha256",
                   "/attempt_sha256", "/previous_attempt_sha256", "/attempt_chain_sha256", "/terminal_attempt_sha256",
                   "/measured_source_inventory_sha256", "/commit_source_inventory_sha256", "/decision_sha256",
                   "/privacy_sha256", "/pre_report_owned_disk_bytes")


def _sealed(rel: str, pointer: str) -> bool:
    """True for a leaf the seal rewrites: the report's copy of the performance section, the publication's artifact
    list, and the capacity decision's internal hashes and terminal copy."""
    if rel == "performance-report.json" and pointer.startswith("/performance"):
        return True
    if rel == "publication.json" and pointer.startswith("/artifacts"):
        return True
    return rel == "capacity-decision.json" and (
        pointer.startswith("/terminal_attempt") or pointer.endswith(CAPACITY_SEALED)
        or pointer in ("/attestation/sha256", "/verification_scope/sha256"))


def leaves(value: object, pointer: str = "") -> list[tuple[str, object]]:
    """(RFC 6901 pointer, value) of every scalar leaf; keys are escaped (``~`` as ``~0``, ``/`` as ``~1``), so a key
    such as a module path resolves back to its own leaf."""
    if isinstance(value, dict):
        return [leaf for key, child in value.items() for leaf in leaves(child, f"{pointer}/{escape(key)}")]
    if isinstance(value, list):
        return [leaf for i, child in enumerate(value) for leaf in leaves(child, f"{pointer}/{i}")]
    return [(pointer, value)]


def last_key(pointer: str) -> str:
    """The unescaped last reference token of a pointer."""
    return unescape(pointer.rsplit("/", 1)[-1])


def _artifact_leaves(base: str, stride: int) -> list[tuple[str, str, object]]:
    root = REPO / "fixtures" / "bundles" / base
    found: list[tuple[str, str, object]] = []
    for path in sorted(root.rglob("*.json")):
        rel = path.relative_to(root).as_posix()
        found_leaves = [(pointer, value) for pointer, value in leaves(json.loads(path.read_text()))
                  if not isinstance(value, str) and value is not None
                  and not any(f"/{key}/" in pointer for key in SAMPLE_KEYS)
                  # The seal copies the evidence's performance section into the report, rewrites publication.json's
                  # artifact list from the files and the capacity decision's internal hashes, so a resealed edit of
                  # those is undone before verification; their forgeries are post-seal cases
                  # (perf_set_report, binding.artifact_bytes-declared-size-off-by-one, capacity stale-hash cases).
                  and not _sealed(rel, pointer)]
        if len(found_leaves) > 2000:
            found_leaves = found_leaves[::stride]
        found.extend((rel, pointer, value) for pointer, value in found_leaves)
    return found


def _string_leaves(base: str, stride: int) -> list[tuple[str, str, object]]:
    """(file, pointer, new value) for every string leaf that has a plausible replacement (see module docstring)."""
    root = REPO / "fixtures" / "bundles" / base
    documents = {path.relative_to(root).as_posix(): json.loads(path.read_text()) for path in sorted(root.rglob("*.json"))}
    return string_edits(documents, stride)


def string_edits(documents: dict[str, object], stride: int) -> list[tuple[str, str, object]]:
    """(file, escaped pointer, new value) for every string leaf of ``documents`` with a plausible replacement."""
    seen: dict[str, set[str]] = {}
    for document in documents.values():
        for pointer, value in leaves(document):
            if isinstance(value, str):
                seen.setdefault(last_key(pointer), set()).add(value)
    found: list[tuple[str, str, object]] = []
    for rel, document in documents.items():
        edits = []
        for pointer, value in leaves(document):
            if not isinstance(value, str):
                continue
            if _sealed(rel, pointer):
                continue
            if value.startswith("sha256:") and len(value) == 71:
                edits.append((pointer, value[:-1] + ("0" if value[-1] != "0" else "1")))
                continue
            others = sorted(seen.get(last_key(pointer), set()) - {value})
            if others and len(others) < 64:
                edits.append((pointer, others[0]))
        if len(edits) > 2000:
            edits = edits[::stride]
        found.extend((rel, pointer, value) for pointer, value in edits)
    return found


def _array_edits(base: str) -> list[tuple[str, str, object]]:
    """(file, pointer, new list) for each list edit (see module docstring)."""
    root = REPO / "fixtures" / "bundles" / base
    found: list[tuple[str, str, object]] = []

    def walk(rel: str, value: object, pointer: str) -> None:
        if isinstance(value, dict):
            for key, child in value.items():
                walk(rel, child, f"{pointer}/{escape(key)}")
        elif isinstance(value, list):
            skip = any(pointer.endswith("/" + key) for key in SAMPLE_KEYS) or _sealed(rel, pointer)
            if len(value) >= 2 and not skip:
                found.append((rel, pointer, value[:-1]))
                found.append((rel, pointer, [value[0]] + value))
                if value[0] != value[1]:
                    found.append((rel, pointer, [value[1], value[0]] + value[2:]))
            if len(value) <= 64:
                for index, child in enumerate(value):
                    walk(rel, child, f"{pointer}/{index}")

    for path in sorted(root.rglob("*.json")):
        walk(path.relative_to(root).as_posix(), json.loads(path.read_text()), "")
    return found


def _check_artifact(args: tuple) -> tuple[str, str, str] | None:
    import math

    from contract_tests.conftest import verify_dir
    from tools.fixturelib import materialize

    base, rel, pointer, value = args[:4]
    if len(args) == 5:
        nudged: object = args[4]
    elif isinstance(value, bool):
        nudged = not value
    elif isinstance(value, int):
        nudged = value + 1
    else:
        assert isinstance(value, float)
        nudged = value * (1 + 1e-9) if value != 0.0 else math.nextafter(value, math.inf)
    case = {"base": base, "reseal": True,
            "ops": [{"op": "json_set", "file": rel, "pointer": pointer, "value": nudged}]}
    with tempfile.TemporaryDirectory() as folder:
        result = verify_dir(materialize(case, Path(folder) / "b"))
    return None if result.verdict == "rejected" else (rel, pointer, result.verdict)


def _every_artifact(bases: list[str], jobs: int, stride: int, only: list[str] | None = None,
                    strings: bool = False, arrays: bool = False) -> int:
    missed = 0
    for base in bases:
        if arrays:
            work = [(base, rel, pointer, None, value) for rel, pointer, value in _array_edits(base)
                    if not only or rel in only]
        elif strings:
            work = [(base, rel, pointer, None, value) for rel, pointer, value in _string_leaves(base, stride)
                    if not only or rel in only]
        else:
            work = [(base, rel, pointer, value) for rel, pointer, value in _artifact_leaves(base, stride)
                    if not only or rel in only]
        with ProcessPoolExecutor(jobs) as executor:
            for outcome in executor.map(_check_artifact, work, chunksize=8):
                if outcome is not None:
                    missed += 1
                    print(json.dumps({"base": base, "file": outcome[0], "pointer": outcome[1],
                                      "verdict": outcome[2]}), flush=True)
        print(f"{base}: {len(work)} leaves swept", file=sys.stderr)
    return 1 if missed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", choices=("nerb-enron", "synthetic-smoke"), action="append")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--every-artifact", action="store_true")
    parser.add_argument("--stride", type=int, default=40)
    parser.add_argument("--only", action="append", help="with --every-artifact: only these bundle files")
    parser.add_argument("--strings", action="store_true", help="with --every-artifact: string leaves instead")
    parser.add_argument("--arrays", action="store_true", help="with --every-artifact: list edits instead")
    args = parser.parse_args()
    if args.every_artifact:
        return _every_artifact(args.base or ["nerb-enron", "synthetic-smoke"], args.jobs, args.stride, args.only,
                              args.strings, args.arrays)
    from contract_tests import test_mutation_property as prop

    missed = 0
    for base in args.base or ["nerb-enron", "synthetic-smoke"]:
        pool = prop.POOL if base == "nerb-enron" else prop.SYNTHETIC_POOL
        with ProcessPoolExecutor(args.jobs) as executor:
            for outcome in executor.map(_check, [(base, i) for i in range(len(pool))], chunksize=8):
                if outcome is not None:
                    missed += 1
                    print(json.dumps({"base": base, "pointer": outcome[0], "verdict": outcome[1]}), flush=True)
        print(f"{base}: {len(pool)} leaves swept", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
