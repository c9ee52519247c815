"""Write every broken fixture declared in tools/mutations/*.py to fixtures/invalid/<CODE>-<slug>/.

Each folder gets ``case.json`` (base bundle, ops, reseal flag) and ``expected.json`` (verdict, the exact set of
error codes, and any pointers the case pins). Output is deterministic; ``contract_tests/test_fixtures.py`` re-runs
this into a temporary folder and compares it byte for byte with the committed tree.

Usage: python tools/gen_fixtures.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.fixturelib import INVALID, all_cases, case_dir_name  # noqa: E402


def _dump(data: object) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_all(out: Path) -> list[str]:
    """Write every case under ``out`` (replacing it) and return the folder names written."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    names: list[str] = []
    for case in all_cases():
        name = case_dir_name(case)
        if name in names:
            raise ValueError(f"duplicate fixture {name}")
        names.append(name)
        folder = out / name
        folder.mkdir()
        body = {k: case[k] for k in ("base", "ops", "reseal", "post_ops", "post_seal", "description") if k in case}
        body["code"] = case["code"]
        expect = dict(case["expect"])
        expect.setdefault("verdict", "rejected")
        expect["codes"] = sorted(set(expect.get("codes", [case["code"]])))
        (folder / "case.json").write_text(_dump(body), encoding="utf-8")
        (folder / "expected.json").write_text(_dump(expect), encoding="utf-8")
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=INVALID)
    args = parser.parse_args()
    names = write_all(args.out)
    print(f"wrote {len(names)} fixtures to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
