"""GitHub Actions workflow commands (``::error file=...,line=...,title=CODE::message``) for findings.

For pull requests from forks, where a workflow may not upload SARIF, annotations printed on stdout still show each
finding on the diff. One command per finding: ``error``, ``warning`` or ``notice`` after the registered severity, the
repository-relative file, the line (1 when the finding is addressed by a JSON Pointer) and column when known, the code
as title, and the templated message plus the pointer. Values from the input are never part of a finding, so never
part of an annotation.

Escaping follows the workflow-command rules of the Actions toolkit: in the message (data) ``%``, CR and LF become
``%25``, ``%0D``, ``%0A``; in property values additionally ``:`` and ``,`` become ``%3A`` and ``%2C``. Without that, a
file name holding ``,line=`` or ``::`` could forge another property or command.
"""

from __future__ import annotations

from collections.abc import Iterable

from nerb_verify.findings import Finding
from nerb_verify.outputs.locations import PathBase

COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}


def escape_data(text: str) -> str:
    """Escape a workflow-command message: ``%`` first, then CR and LF."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow-command property value: as data, plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding, base: PathBase) -> str:
    """The one workflow command line (without newline) that annotates ``finding``."""
    command = COMMANDS.get(finding.severity, "error")
    _base, path = base.locate(finding.artifact)
    props = []
    if path:  # a finding about the target folder itself (say, it does not exist) annotates the run, not a file
        props.append(f"file={escape_property(path)}")
        props.append(f"line={max(1, finding.line) if finding.line is not None else 1}")
        if finding.line is not None:
            props.append(f"col={max(1, finding.column or 1)}")
    props.append(f"title={escape_property(finding.code)}")
    message = finding.message
    if finding.pointer:
        message = f"{message} (JSON Pointer {finding.pointer})"
    return f"::{command} {','.join(props)}::{escape_data(message)}"


def render(findings: Iterable[Finding], base: PathBase) -> str:
    """Every finding as a workflow command, sorted by location, one per line (empty text when there are none)."""
    lines = [annotation(f, base) for f in sorted(findings, key=Finding.sort_key)]
    return "".join(line + "\n" for line in lines)
