"""Taking performance samples: the fresh worker process, reused-process sessions, the timed operations.

:mod:`nerb_verify.producers.harness` plans the cells and emits the evidence section; :mod:`harness_value` runs the
cache-value Williams blocks. Both take their samples here, so neither imports the other's internals (they used to
import each other). A fresh-process sample runs ``python -m nerb_verify.producers.sampling --worker REQUEST``; timing
is ``perf_counter_ns`` around the operation only, followed by one RSS sample.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from nerb_verify.canonical import python_canonical_bytes, python_canonical_sha256
from nerb_verify.loader import sha256_prefixed

WARMUPS = 3
BLOCKS = 10
FRESH = {"source_profile", "source_build", "cold_compile", "helper_cache_miss", "end_to_end"}


# The platforms whose ``ru_maxrss`` the protocol reads (spec 20 section 4.5): Linux in KiB, macOS in bytes. The
# verifier rejects RSS samples under any other platform (``performance.rss_unsupported_platform``), so the harness
# does not measure there.
RSS_PLATFORMS = ("linux", "darwin")


def rss_platform_problem() -> str | None:
    """Why this platform cannot run the performance harness (None on Linux and macOS)."""
    if sys.platform.startswith(RSS_PLATFORMS):
        return None
    return ("the performance harness measures peak RSS on Linux and macOS only (the protocol reads ru_maxrss there, "
            "and a verifier rejects RSS samples from another platform): run the producers on Linux or macOS")


def rss_bytes() -> int:
    """This process's peak RSS in bytes (Linux reports KiB, macOS bytes); a RuntimeError on any other platform,
    where the protocol has no RSS measurement (:func:`rss_platform_problem`)."""
    problem = rss_platform_problem()
    if problem is not None:
        raise RuntimeError(problem)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def scan_all(compiled: Any, documents: list[bytes]) -> tuple[int, str]:
    """Scan every document; returns (record count, correctness hash over the per-document records)."""
    import hashlib

    digest = hashlib.sha256()
    total = 0
    for data in documents:
        records = compiled.scan_bytes(data)
        total += len(records)
        digest.update(python_canonical_bytes([[r["entity_id"], r["name_id"], r["pattern_id"], r["start"], r["end"]]
                                              for r in records]))
    return total, "sha256:" + digest.hexdigest()


def read_documents(path: Path) -> list[bytes]:
    return [json.loads(line)["text"].encode("utf-8") for line in path.read_bytes().splitlines() if line.strip()]


HELPER_CACHE: dict[str, Any] = {}


def helper_compile(bank_raw: bytes) -> Any:
    """The "helper" path: a compile memoised by the bank bytes' hash (hit = lookup; miss = validate + compile)."""
    from nerb_verify.producers.bank_format import parse_bank_bytes
    from nerb_verify.producers.engine import compile_bank

    key = sha256_prefixed(bank_raw)
    compiled = HELPER_CACHE.get(key)
    if compiled is None:
        compiled = compile_bank(parse_bank_bytes(bank_raw))
        HELPER_CACHE[key] = compiled
    return compiled


def run_operation(request: dict[str, Any]) -> dict[str, Any]:
    """One fresh-process sample: prepare outside the clock, time the operation, report ns, RSS and correctness."""
    from nerb_verify.producers.bank_format import parse_bank_bytes
    from nerb_verify.producers.engine import compile_bank

    phase = request["phase"]
    records, correctness = 0, None
    if phase == "source_profile":
        raw = Path(request["source"]).read_bytes()
        start = time.perf_counter_ns()
        rows = [json.loads(line) for line in raw.splitlines() if line.strip()]
        correctness = python_canonical_sha256(rows)
        elapsed = time.perf_counter_ns() - start
    elif phase == "source_build":
        from nerb_verify.producers.bank_builder import build_bank, open_train_bundle
        from nerb_verify.producers.bank_format import canonical_hash

        start = time.perf_counter_ns()
        result = build_bank(open_train_bundle(Path(request["source_dir"])))
        correctness = canonical_hash(result.bank)
        elapsed = time.perf_counter_ns() - start
    elif phase == "cold_compile":
        bank = parse_bank_bytes(Path(request["bank"]).read_bytes())
        start = time.perf_counter_ns()
        compiled = compile_bank(bank)
        elapsed = time.perf_counter_ns() - start
        correctness = python_canonical_sha256(compiled.active_patterns)
    elif phase == "helper_cache_miss":
        bank_raw = Path(request["bank"]).read_bytes()
        documents = read_documents(Path(request["input"]))
        HELPER_CACHE.clear()
        start = time.perf_counter_ns()
        records, correctness = scan_all(helper_compile(bank_raw), documents)
        elapsed = time.perf_counter_ns() - start
    elif phase == "end_to_end":
        start = time.perf_counter_ns()
        bank = parse_bank_bytes(Path(request["bank"]).read_bytes())
        documents = read_documents(Path(request["input"]))
        records, correctness = scan_all(compile_bank(bank), documents)
        elapsed = time.perf_counter_ns() - start
    else:
        raise ValueError("unknown phase")
    return {"pid": os.getpid(), "elapsed_ns": max(1, elapsed), "peak_rss_bytes": rss_bytes(),
            "record_count": records, "correctness_sha256": correctness}


def fresh_sample(request: dict[str, Any]) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2]), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-m", "nerb_verify.producers.sampling", "--worker", json.dumps(request)],
                          capture_output=True, check=True, env=env, timeout=600)
    return json.loads(done.stdout.decode("utf-8").strip().splitlines()[-1])


class Session:
    """A fresh reused-process session: compile (or prime the helper cache) once, then time ``operation()`` calls.

    Whole-input sessions scan every document per call; document sessions scan one document per call, cycling, and
    ``reset()`` puts the cursor back to document 0 after the warmups (so a block of n samples is one pass).
    """

    def __init__(self, phase: str, concurrency: int, bank: dict[str, Any], documents: list[bytes], bank_raw: bytes,
                 unit: str) -> None:
        from nerb_verify.producers.engine import compile_bank

        self.documents, self.unit, self.cursor, self.bank_raw = documents, unit, 0, bank_raw
        self.helper = phase == "helper_cache_hit"
        if self.helper:
            HELPER_CACHE.clear()
            helper_compile(bank_raw)
            self.compiled = None
        else:
            self.compiled = compile_bank(bank)
        self.concurrency = concurrency
        self.pool = ThreadPoolExecutor(max_workers=concurrency) if concurrency > 1 else None

    def reset(self) -> None:
        """Back to document 0 (after the warmups)."""
        self.cursor = 0

    def operation(self) -> tuple[int, str]:
        """One timed unit of work: (records found, correctness hash)."""
        compiled = helper_compile(self.bank_raw) if self.helper else self.compiled
        if self.unit == "document":
            data = self.documents[self.cursor % len(self.documents)]
            self.cursor += 1
            return scan_all(compiled, [data])
        if self.pool is not None:
            chunks = [self.documents[i::self.concurrency] for i in range(self.concurrency)]
            results = list(self.pool.map(lambda chunk: scan_all(compiled, chunk), chunks))
            return sum(r[0] for r in results), python_canonical_sha256([r[1] for r in results])
        return scan_all(compiled, self.documents)


def main(argv: list[str] | None = None) -> int:
    """Worker entry point: ``--worker REQUEST_JSON`` runs one fresh-process sample and prints its JSON result."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] != "--worker":
        sys.stderr.write("usage: python -m nerb_verify.producers.sampling --worker REQUEST_JSON\n")
        return 2
    sys.stdout.write(json.dumps(run_operation(json.loads(args[1]))) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
