"""GitHub Actions workflow commands (``::error file=...,line=...,title=CODE::message``) for findings.

For pull requests from forks, where a workflow may not upload SARIF, annotations printed on stdout still show each
finding on the diff. One command per finding: ``error``, ``warning`` or ``notice`` after the registered severity, the
repository-relative file, the line (1 when the finding is addressed by a JSON Pointer) and column when known, the code
as title, and the templated message plus the pointer. Values from the input are never part of a finding, so never
part of an annotation.

A finding about the command's target itself has no ``file`` property: the bundle folder of ``verify`` (artifact
``.``), and a ``scan`` PATH that could not be inspected at all (the caller passes those as ``targets``); there is no
file in the checkout to place it on, and the message says which argument it is.

The output ends with one ``::notice`` command that says what was done (the command's own summary line: for ``verify``
the verdict, exit code and counts, for ``scan`` the profile and counts), also when nothing was found, so a clean run
is visible in the log and among the run's annotations, and every line printed stays a workflow command.

Escaping follows the workflow-command rules of the Actions toolkit: in the message (data) ``%``, CR and LF become
``%25``, ``%0D``, ``%0A``; in property values additionally ``:`` and ``,`` become ``%3A`` and ``%2C``. Without that, a
file name holding ``,line=`` or ``::`` could forge another property or command.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from nerb_verify.findings import Finding
from nerb_verify.outputs.locations import PathBase, names_target

COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}


def escape_data(text: str) -> str:
    """Escape a workflow-command message: ``%`` first, then CR and LF."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow-command property value: as data, plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding, base: PathBase, targets: Collection[str] = ()) -> str:
    """The one workflow command line (without newline) that annotates ``finding``. ``targets``: artifacts that name a
    command target which could not be inspected (annotated without ``file``, like the target folder itself)."""
    command = COMMANDS.get(finding.severity, "error")
    _base, path = base.locate(finding.artifact)
    about_target = names_target(finding.artifact) or finding.artifact in targets
    props = []
    if path and not about_target:  # a finding about the target itself annotates the run, not a file
        props.append(f"file={escape_property(path)}")
        props.append(f"line={max(1, finding.line) if finding.line is not None else 1}")
        if finding.line is not None:
            props.append(f"col={max(1, finding.column or 1)}")
    props.append(f"title={escape_property(finding.code)}")
    message = finding.message
    if finding.pointer:
        message = f"{message} (JSON Pointer {finding.pointer})"
    return f"::{command} {','.join(props)}::{escape_data(message)}"


def notice(title: str, summary: str) -> str:
    """The closing ``::notice`` command: ``title`` (the command, e.g. ``nerb-verify scan``) and its summary line."""
    return f"::notice title={escape_property(title)}::{escape_data(summary)}"


def render(findings: Iterable[Finding], base: PathBase, summary: tuple[str, str] | None = None,
           targets: Collection[str] = ()) -> str:
    """Every finding as a workflow command, sorted by location, one per line, then the ``(title, text)`` summary as
    one ``::notice`` (when given)."""
    lines = [annotation(f, base, targets) for f in sorted(findings, key=Finding.sort_key)]
    if summary is not None:
        lines.append(notice(*summary))
    return "".join(line + "\n" for line in lines)
