"""Write large inputs for the privacy scanner's streaming path (issue 17): an evidence-like JSON file and a text file
of a given size, deterministic for a seed. They are generated, never committed.

    python tools/make_large_scan_inputs.py OUT_DIR [--mib 200] [--seed 17] [--plant]

writes ``OUT_DIR/large-evidence.json`` (an object with run metadata and an array of per-document records: ids,
hashes, timestamps, labels, offsets, per-sample integer timings, short notes in varied words, nested metrics; every
container is small, as in real evidence), ``OUT_DIR/large-notes.txt`` (log-like and
prose lines of varied length, with an occasional long line) and ``OUT_DIR/large-config.yaml`` (the same records as
YAML mappings and lists, nested, as a large configuration or data file is). ``--plant`` adds one e-mail address near
the end of each file (assembled at run time; in the YAML file split over two entries of one mapping, which only the
key-value reader joins), so a run can check that the end of a 200 MiB file is still read.

Then measure, one core, peak RSS and CPU seconds::

    /usr/bin/time -v python -m nerb_verify scan --profile contract --jobs 1 OUT_DIR/large-evidence.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec "
         "romeo sierra tango uniform victor whiskey xray yankee zulu entity alias bank span match token slice "
         "metric precision recall latency sample warm cold compile scan report review note draft final").split()
LABELS = ("ORG", "PERSON_ALIAS", "PRODUCT", "LOCATION", "EVENT", "CODE")


def _words(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def _record(rng: random.Random, index: int) -> dict[str, object]:
    digest = hashlib.sha256(f"{index}:{rng.random()}".encode()).hexdigest()
    return {
        "document_id": f"doc-{index:09d}",
        "sha256": "sha256:" + digest,
        "recorded_at": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:"
                       f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z",
        "label": rng.choice(LABELS),
        "spans": [{"start": start, "end": start + rng.randint(1, 40), "label": rng.choice(LABELS),
                   "alias_rank": rng.randint(0, 9)} for start in sorted(rng.sample(range(4000), rng.randint(1, 6)))],
        "timings_ns": [rng.randint(20_000, 9_000_000) for _ in range(rng.randint(8, 32))],
        "metrics": {"precision": round(rng.random(), 6), "recall": round(rng.random(), 6),
                    "matched": rng.randint(0, 500), "expected": rng.randint(0, 500)},
        "note": _words(rng, 3, 18),
        "tags": [rng.choice(WORDS) for _ in range(rng.randint(0, 5))],
    }


def write_json(path: Path, size: int, seed: int, plant: bool) -> int:
    """Write the evidence-like JSON document of about ``size`` bytes; returns the bytes written."""
    rng = random.Random(seed)
    written = 0
    with path.open("w", encoding="utf-8") as out:
        head = '{"schema_version": "1.0", "run": {"tool": "generator", "seed": %d}, "records": [\n' % seed
        out.write(head)
        written += len(head)
        index = 0
        while written < size - 512:
            text = ("" if index == 0 else ",\n") + json.dumps(_record(rng, index), separators=(",", ":"))
            out.write(text)
            written += len(text.encode("utf-8"))
            index += 1
        tail = '\n], "summary": {"records": %d, "contact": "%s"}}\n' % (
            index, ("ops" + chr(64) + "corp-mail.co.uk") if plant else "none")
        out.write(tail)
        written += len(tail)
    return written


def write_text(path: Path, size: int, seed: int, plant: bool) -> int:
    """Write the text file of about ``size`` bytes; returns the bytes written."""
    rng = random.Random(seed + 1)
    written = 0
    with path.open("w", encoding="utf-8") as out:
        number = 0
        while written < size - 256:
            kind = rng.random()
            if kind < 0.6:
                line = (f"2024-05-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} "
                        f"INFO worker-{rng.randint(1, 64)} processed batch {rng.randint(1, 10**6)} in "
                        f"{rng.randint(1, 9999)} ms ({_words(rng, 1, 6)})")
            elif kind < 0.995:
                line = _words(rng, 4, 30).capitalize() + "."
            else:
                line = _words(rng, 400, 1500)
            text = line + "\n"
            out.write(text)
            written += len(text)
            number += 1
        tail = ("contact " + "ops" + chr(64) + "corp-mail.co.uk\n") if plant else "end of notes\n"
        out.write(tail)
        written += len(tail)
    return written


def write_yaml(path: Path, size: int, seed: int, plant: bool) -> int:
    """Write the YAML file of about ``size`` bytes; returns the bytes written."""
    rng = random.Random(seed + 2)
    written = 0
    with path.open("w", encoding="utf-8") as out:
        head = f"schema_version: '1.0'\nrun:\n  tool: generator\n  seed: {seed}\nrecords:\n"
        out.write(head)
        written += len(head)
        index = 0
        while written < size - 512:
            record = _record(rng, index)
            lines = [f"  - document_id: {record['document_id']}", f"    sha256: '{record['sha256']}'",
                     f"    recorded_at: {record['recorded_at']}", f"    label: {record['label']}", "    spans:"]
            spans, metrics, tags = record["spans"], record["metrics"], record["tags"]
            assert isinstance(spans, list) and isinstance(metrics, dict) and isinstance(tags, list)
            for span in spans:
                lines += [f"      - start: {span['start']}", f"        end: {span['end']}",
                          f"        label: {span['label']}"]
            lines += ["    metrics:"] + [f"      {key}: {value}" for key, value in metrics.items()]
            lines += [f"    note: {record['note']}  # {_words(rng, 1, 4)}", "    tags:"]
            lines += [f"      - {tag}" for tag in tags]
            text = "\n".join(lines) + "\n"
            out.write(text)
            written += len(text)
            index += 1
        local, domain = ("ops" + chr(64), "corp-mail.co.uk") if plant else ("none", "none")
        tail = f"summary:\n  records: {index}\n  contact_local: {local}\n  contact_domain: {domain}\n"
        out.write(tail)
        written += len(tail)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--mib", type=float, default=200.0, help="size of each file in MiB (default 200)")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--plant", action="store_true", help="add one e-mail address near the end of each file")
    parser.add_argument("--only", choices=("json", "text", "yaml"), help="write only one of the files")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    size = int(args.mib * 1024 * 1024)
    if args.only in (None, "json"):
        count = write_json(args.out / "large-evidence.json", size, args.seed, args.plant)
        sys.stdout.write(f"{args.out / 'large-evidence.json'}: {count} bytes\n")
    if args.only in (None, "text"):
        count = write_text(args.out / "large-notes.txt", size, args.seed, args.plant)
        sys.stdout.write(f"{args.out / 'large-notes.txt'}: {count} bytes\n")
    if args.only in (None, "yaml"):
        count = write_yaml(args.out / "large-config.yaml", size, args.seed, args.plant)
        sys.stdout.write(f"{args.out / 'large-config.yaml'}: {count} bytes\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
