"""``nerb-verify demo --output-dir DIR``: the whole producer workflow on an embedded synthetic corpus, then verify.

Generates the synthetic corpus (no real person or address), runs prepare, split, bank build + conformance, the smoke
performance profile, freezes the manifest, opens the sealed test exactly once (a second attempt is refused and
recorded in the private lineage), evaluates quality, assembles and seals the public bundle under ``DIR/bundle``
(private files under ``DIR/private``, mode 0700), verifies it and prints the verdicts.

Every prerequisite (the RE2 engine, an empty or new output folder, the message count) is checked before anything is
written; a run that fails later removes what it wrote, so the same command can be run again.

The demo is honest about what it is: a smoke run is never decision grade and nothing is promoted. The bundle declares
itself a smoke bundle, so it verifies with no finding while the verifier lists the decision-grade requirements it does
not meet (decision matrix, sweeps, value model, profile, gold gate slice, capacity decision; docs/decision-grade.md).

``--profile decision`` runs the frozen decision matrix instead of the smoke profile and makes the combined quality
slice the gate (2,000 messages by default; docs/producers.md, "Decision-profile demo"); ``--reduced-per-block K``
runs that matrix with at most K samples per block and twin (the setup cells keep their frozen 2), which the
verifier rejects for the direct cells' sample counts only (``performance.protocol_count``,
``performance.sample_support``). A decision run also
measures its prepare, split and bank build and ships ``capacity-decision.json`` (docs/producers.md, "Capacity
decision").

Exit codes: 0 the bundle was built and verified (and a second test access was refused); 1 the bundle was built but
did not verify, or the second access was not refused; 2 the demo could not run (nothing is left behind).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nerb_verify.producers import INSTALL_PRODUCERS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (f"Needs the RE2 scan engine (google-re2), the producers extra: run {INSTALL_PRODUCERS} in a "
                     "nerb-verify clone.")
    parser.add_argument("--output-dir", required=True, metavar="DIR", help="new (or empty) folder for the run")
    parser.add_argument("--messages", type=int, default=None,
                        help="synthetic messages to generate (default 400; 2,000 with --profile decision, so the "
                             "test split holds the 100-group gate sample)")
    parser.add_argument("--seed", type=int, default=7, help="corpus seed (default 7)")
    parser.add_argument("--profile", choices=("smoke", "decision"), default="smoke",
                        help="performance profile: smoke (seconds, not decision grade; default) or decision (the "
                             "frozen decision matrix; see docs/producers.md for its wall time)")
    parser.add_argument("--reduced-per-block", type=int, default=None, metavar="K",
                        help="with --profile decision: run the same matrix with K samples per block and twin instead "
                             "of the frozen counts (a CI variant; NOT decision grade, the verifier says so)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")


def run(args: argparse.Namespace) -> int:
    """Check every prerequisite, run the nine steps, print the verdicts; exit 2 (nothing left behind) on failure."""
    from nerb_verify.producers.demo_pipeline import DECISION_MESSAGES, DemoError, DemoPrerequisiteError, run_demo

    out = Path(args.output_dir)

    def progress(message: str) -> None:
        if not args.quiet:
            sys.stderr.write(f"demo: {message}\n")

    try:
        messages = args.messages if args.messages is not None else (
            DECISION_MESSAGES if args.profile == "decision" else 400)
        result = run_demo(out, messages=messages, seed=args.seed, progress=progress, profile=args.profile,
                          paired_per_block=args.reduced_per_block)
    except DemoPrerequisiteError as exc:
        for problem in exc.problems:
            sys.stderr.write(f"nerb-verify demo: {problem}.\n")
        sys.stderr.write("nerb-verify demo: nothing was written.\n")
        return 2
    except DemoError as exc:
        sys.stderr.write(f"nerb-verify demo: could not complete step {exc.step} ({exc.reason}); everything this run "
                         "wrote was removed, so the same command can be run again.\n")
        return 2
    sys.stdout.write(f"bundle: {result.bundle}\nprivate files: {result.private}\n")
    sys.stdout.write(f"sealed test opened once; second attempt refused: {'yes' if result.second_access_refused else 'NO'}\n")
    label = {"smoke": "smoke profile", "decision": "decision profile"}[args.profile]
    if args.reduced_per_block is not None:
        label = (f"REDUCED decision profile ({args.reduced_per_block} per block and twin; the frozen sample counts "
                 "are not met, so performance.protocol_count and sample_support are expected)")
    sys.stdout.write(f"verdict: {result.verdict} (exit {result.exit_code}); {label}, not promoted\n")
    for code, artifact, pointer in result.errors:
        sys.stdout.write(f"  finding: {code} {artifact}{pointer and ' ' + pointer}\n")
    if result.decision_grade_eligible:
        sys.stdout.write("decision grade: eligible\n")
    else:
        why = "smoke" if args.profile == "smoke" else ", ".join(result.blocked_by) or "unknown"
        sys.stdout.write(f"decision grade: not eligible ({why}); unmet requirements: "
                         + (", ".join(result.unmet_requirements) or "none") + "\n")
    sys.stdout.write(f"details: nerb-verify verify {result.bundle}\n")
    return 0 if result.verdict == "verified" and result.second_access_refused else 1
