"""What a verification imports (issue 16, speed): only what the success path needs.

``nerb-verify verify`` builds its argument parser with the chosen subcommand's module only
(:func:`nerb_verify.cli.selected_command`), so the producer commands, the renderer and the test-only libraries are not
loaded to verify a bundle; the parser still parses and prints exactly what the full parser does.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nerb_verify import cli  # noqa: E402

BUNDLE = REPO / "fixtures" / "bundles" / "nerb-enron"

# Never needed to verify a valid bundle: the producers and the other commands, the renderer, the explaining schema
# validator (only run when the fast path rejects a document), test-only libraries, and for the text output the SARIF
# and annotation renderers, the catalog of every code (SARIF's rules) and RFC 8785 (the JSON report's digest).
NOT_ON_THE_SUCCESS_PATH = ("nerb_verify.producers", "nerb_verify.render.markdown", "hypothesis", "pytest", "syrupy",
                           "jsonschema", "referencing", "re2", "nerb_verify.outputs.sarif", "nerb_verify.outputs.github",
                           "nerb_verify.catalog", "rfc8785")


def test_verify_imports_no_producer_renderer_or_test_library() -> None:
    code = ("import json, sys\nfrom nerb_verify.cli import main\n"
            f"exit_code = main(['verify', {str(BUNDLE)!r}])\n"
            "print(json.dumps([exit_code, sorted(sys.modules)]), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False)
    exit_code, modules = json.loads(done.stderr.strip().splitlines()[-1])
    assert exit_code == 0
    commands = {m for m in modules if m.startswith("nerb_verify.commands.")}
    assert commands == {"nerb_verify.commands.verify"}
    loaded = [m for m in modules if any(m == p or m.startswith(p + ".") for p in NOT_ON_THE_SUCCESS_PATH)]
    assert loaded == []


@pytest.mark.parametrize("argv", [
    ["verify", "some/bundle"],
    ["verify", "some/bundle", "--format", "json", "--require-decision-grade", "--fail-on", "warning"],
    ["--list-codes", "verify", "b"],
    ["scan", "--profile", "repository", "a.txt", "b.txt"],
    ["explain", "privacy.email_address"],
    ["list-codes"],
    ["render", "bundle", "--out", "o"],
    ["demo", "--help"],
    ["verify"],
    ["verify", "b", "--no-such-option"],
    ["no-such-command"],
    ["--", "verify", "b"],
    ["--version"],
    [],
])
def test_the_parser_of_one_command_parses_as_the_full_parser(argv: list[str]) -> None:
    """Same namespace, same exit status and the same text on stdout/stderr for help, usage errors and --version."""

    def parse(parser: object) -> tuple[object, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                namespace = vars(parser.parse_args(argv))  # type: ignore[attr-defined]
            except SystemExit as exc:
                namespace = {"exit": exc.code}
        return namespace, out.getvalue(), err.getvalue()

    assert parse(cli.build_parser(cli.selected_command(argv))) == parse(cli.build_parser())


def test_selected_command() -> None:
    assert cli.selected_command(["verify", "x"]) == "verify"
    assert cli.selected_command(["--list-codes", "scan", "x"]) == "scan"
    assert cli.selected_command(["-h"]) is None
    assert cli.selected_command(["--", "verify"]) is None
    assert cli.selected_command(["nope", "verify"]) is None
    assert cli.selected_command([]) is None
