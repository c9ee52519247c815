"""The thin command-line layer: parse arguments, call the core, print, return an exit code.

Each subcommand lives in ``nerb_verify/commands/<name>.py`` with ``add_arguments(parser)`` and ``run(args) -> int``.
Argument errors exit 2 (argparse's convention, and ours for "could not verify"). Unexpected internal errors are
caught at the top so no traceback (which could include input values) is ever printed; they exit 2.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence

from nerb_verify import __version__

# (subcommand, module under nerb_verify.commands, one-line help)
COMMANDS: list[tuple[str, str, str]] = [
    ("verify", "verify", "Verify a published bundle: hashes, schemas, every figure recomputed."),
    ("explain", "explain", "Explain a finding code."),
    ("list-codes", "list_codes", "List every finding code."),
    ("scan", "scan", "Privacy-scan files or folders (contract, repository or rendered profile)."),
    ("allowlist", "allowlist", "Manage the privacy allowlist (add an entry with its justification)."),
    ("render", "render", "Render our own summary and figures from a verified bundle."),
    ("prepare", "prepare", "Prepare an authorized email corpus into private cleaned records (producers)."),
    ("split", "split", "Freeze leakage-safe train/validation/sealed-test roles from a preparation (producers)."),
    ("bank", "bank", "Build a known-entity bank from the train role only, with its public card (producers)."),
    ("scan-bank", "scan_bank", "Compile a bank once on RE2 and scan many documents (producers)."),
    ("conformance", "conformance", "Prove a bank against synthetic cases for every active pattern (producers)."),
    ("demo", "demo", "Run the whole producer workflow on an embedded synthetic corpus, then verify (producers)."),
    ("gold", "gold", "Verify the pinned CMU Enron Meetings archive and report its published split (producers)."),
    ("retention", "retention", "Report and enforce the private root's retention record (status, purge, encrypt)."),
]


def selected_command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names, or None when it names none of ``COMMANDS``.

    The top-level options (``--version``, ``--list-codes``, ``-h``) take no value, so the first token that is not an
    option is the subcommand (``--`` ends the options). Used so that a run imports only its own command module: the
    producer commands (and what they import) are not loaded to verify a bundle.
    """
    for token in argv:
        if token == "--" or not token.startswith("-"):
            return token if any(token == name for name, _, _ in COMMANDS) else None
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered; with ``only``, every subcommand is still listed (same
    help and usage text) but only that one's module is imported and given its arguments, since argparse parses the
    remaining arguments with the chosen subcommand's parser alone."""
    parser = argparse.ArgumentParser(
        prog="nerb-verify",
        description="Verify NERB benchmark bundles, scan for private data, and gate CI.",
    )
    parser.add_argument("--version", action="version", version=f"nerb-verify {__version__}")
    parser.add_argument("--list-codes", action="store_true", help="list every finding code and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name, help_text in COMMANDS:
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        if only is not None and name != only:
            continue
        module = importlib.import_module(f"nerb_verify.commands.{module_name}")
        module.add_arguments(sub)
        sub.set_defaults(_run=module.run, _ends_process=getattr(module, "ENDS_WITHOUT_TEARDOWN", False))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for the ``nerb-verify`` console script and ``python -m nerb_verify``."""
    # Run as the process's entry point (no argv given), importing the command's modules creates many long-lived
    # objects and no garbage: the cyclic collector is off while they load, and what they built is then frozen out of
    # its later passes (issue 16, speed). A caller passing argv (a test, an embedding program) is left alone.
    entry = argv is None and gc.isenabled()
    if entry:
        gc.disable()
    try:
        parser = build_parser(selected_command(sys.argv[1:] if argv is None else argv))
    finally:
        if entry:
            gc.freeze()
            gc.enable()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 for --help/--version
        return int(exc.code or 0)
    if args.list_codes:
        from nerb_verify.commands import list_codes

        return list_codes.run(argparse.Namespace(format="text"))
    if not getattr(args, "_run", None):
        parser.print_help(sys.stderr)
        return 2
    args._entry_point = argv is None  # the console script itself, not a caller in Python (verify --jobs auto)
    try:
        code = int(args._run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 2
    except Exception as exc:  # noqa: BLE001 - last line of defence: never print a traceback with input values
        sys.stderr.write(f"nerb-verify: internal error ({type(exc).__name__}); could not complete.\n")
        return 2
    if argv is None and getattr(args, "_ends_process", False):
        end_process(code)
    return code


def end_process(code: int) -> None:
    """End the console script now with ``code``, once standard output and error are flushed, without the
    interpreter's teardown: freeing every object of a verified bundle one by one and clearing every module cost about
    15 ms of a 0.25 s run (issue 16, speed). Only for a command that declares ``ENDS_WITHOUT_TEARDOWN`` (it has closed
    every file it wrote and registers no exit handler). Output that cannot be flushed (a closed pipe) ends the
    process with 120, as the interpreter's own exit would."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 120
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
