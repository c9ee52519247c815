"""Exhaustive form of the single-nudge property: nudge every pooled leaf of a base bundle, reseal, verify.

The property test (contract_tests/test_mutation_property.py) samples this pool; this tool walks all of it and
prints every leaf whose nudge still verifies. Use it after changing a check, and before changing the pool's
free-leaf list.

    python tools/sweep_nudges.py [--base nerb-enron|synthetic-smoke] [--jobs 2]
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", choices=("nerb-enron", "synthetic-smoke"), action="append")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
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
