"""Generate the small synthetic valid bundle: ``fixtures/bundles/synthetic-smoke/``.

It is the second base of the attack simulator (``tools/mutate.py``) and of the decision-scope tests: a complete
bundle (manifest, evidence, performance report, bank card, publication, summary, figures, inventories) built by our
own producers from the embedded synthetic corpus (``nerb-verify demo`` with a small corpus), so it holds no real
person's data. It is a *declared smoke bundle*: it verifies with no finding and is not decision grade
(docs/decision-grade.md).

Timing samples and timestamps are real measurements, so two runs differ; the committed copy is the reference and
``contract_tests/test_synthetic_base.py`` checks that it still verifies and that a fresh run of this tool would too
(the demo tests). Re-run after a change to the producers or the contracts:

    python tools/make_synthetic_bundle.py [--out fixtures/bundles/synthetic-smoke]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "fixtures" / "bundles" / "synthetic-smoke"
MESSAGES = 200
SEED = 11
SAMPLE_SIZE = 30


def build(out: Path, *, quiet: bool = False) -> int:
    """Run the demo pipeline on a small corpus and copy its verified bundle to ``out``; 0 on success."""
    sys.path.insert(0, str(REPO))
    from nerb_verify.producers.demo_pipeline import run_demo

    def progress(message: str) -> None:
        if not quiet:
            sys.stderr.write(f"synthetic bundle: {message}\n")

    with tempfile.TemporaryDirectory(prefix="nerb-synthetic-") as tmp:
        result = run_demo(Path(tmp) / "run", messages=MESSAGES, seed=SEED, progress=progress,
                          sample_size=SAMPLE_SIZE)
        if result.verdict != "verified" or not result.second_access_refused:
            sys.stderr.write(f"synthetic bundle: the demo bundle did not verify ({result.verdict}; "
                             f"{', '.join(result.error_codes) or 'no codes'}).\n")
            return 1
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(result.bundle, out)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="destination folder (replaced)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    return build(args.out, quiet=args.quiet)


if __name__ == "__main__":
    sys.exit(main())
