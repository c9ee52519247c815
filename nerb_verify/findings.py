"""Findings, recomputed figures and the collector that every check writes into.

A finding is a code, the bundle-relative path of the artifact, an RFC 6901 JSON Pointer and a message rendered from a
fixed template. It never carries the offending value: message parameters may only be numbers, booleans, ``None`` or
:class:`Label` strings, which are written by our own code (field names, schema keywords), never copied from input.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Literal, NamedTuple, Union

from nerb_verify import codes

Status = Literal["match", "mismatch", "not_evaluated"]


class Label(str):
    """A string that our own code wrote (a field name, a keyword, a family name): safe to print in a message.

    Never wrap text that came from an input file in a Label.
    """


Param = Union[int, float, bool, None, Label, Fraction]


def _render_param(value: Param) -> str:
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, (bool, int, float, Label)) or value is None:
        return str(value)
    raise TypeError("finding message parameters must be numbers, booleans, None or Label")


class Finding(NamedTuple):
    """One problem found: which code, where (artifact + JSON Pointer, or line/column for text), and a safe message."""

    code: str
    artifact: str
    pointer: str
    message: str
    line: int | None = None
    column: int | None = None

    @property
    def severity(self) -> str:
        return codes.get(self.code).severity

    def sort_key(self) -> tuple[str, str, int, int, str]:
        return (self.artifact, self.pointer, self.line or 0, self.column or 0, self.code)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity,
            "artifact": self.artifact,
            "pointer": self.pointer,
            "message": self.message,
        }
        if self.line is not None:
            out["line"] = self.line
            out["column"] = self.column if self.column is not None else 1
        return out


def exact_string(value: Fraction | int | None) -> str | None:
    """Exact text of a recomputed figure: ``n/d`` for fractions, digits for integers, None when not evaluated."""
    if value is None:
        return None
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        return f"{value.numerator}/{value.denominator}"
    return str(value)


def float_of(value: Fraction | int | None) -> float | None:
    """The correctly rounded double of an exact figure (Fraction to float rounds correctly), None stays None."""
    if value is None:
        return None
    try:
        return float(value)
    except OverflowError:
        return math.inf


class Recomputed(NamedTuple):
    """One figure the verifier recomputed from raw data, with the value the artifact published beside it."""

    artifact: str
    pointer: str
    figure: str
    published: Any
    exact: str | None
    value: float | int | str | None
    status: Status

    def to_json(self) -> dict[str, Any]:
        return {
            "artifact": self.artifact,
            "pointer": self.pointer,
            "figure": self.figure,
            "published": json_safe(self.published),
            "exact": self.exact,
            "value": json_safe(self.value),
            "status": self.status,
        }


SAFE_INTEGER = 2**53 - 1


def json_safe(value: Any) -> Any:
    """A published scalar made safe for the report: integers beyond 2^53-1 (which RFC 8785 cannot hash) become
    decimal strings; containers are summarised by their type, since a recomputed figure is always a scalar."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if abs(value) <= SAFE_INTEGER else str(value)
    if isinstance(value, float):
        return value
    return "<" + type(value).__name__ + ">"


class Collector:
    """Accumulates findings, recomputed figures, decisions and check coverage for one verification run."""

    def __init__(
        self,
        findings: list[Finding] | None = None,
        recomputed: list[Recomputed] | None = None,
        decisions: dict[str, Any] | None = None,
        checks_run: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        """Start empty, or continue from the given lists and dicts (kept as they are, not copied)."""
        self.findings: list[Finding] = [] if findings is None else findings
        self.recomputed: list[Recomputed] = [] if recomputed is None else recomputed
        self.decisions: dict[str, Any] = {} if decisions is None else decisions
        self.checks_run: dict[str, dict[str, Any]] = {} if checks_run is None else checks_run

    def add(
        self,
        code: str,
        artifact: str,
        pointer: str = "",
        message: str | None = None,
        *,
        line: int | None = None,
        column: int | None = None,
        **params: Param,
    ) -> Finding:
        """Record a finding. ``message`` is a template (``str.format`` fields) filled only with safe ``params``.

        Without a message the registered title is used. The code must be registered.
        """
        info = codes.get(code)
        template = message if message is not None else info.title
        rendered = template.format(**{k: _render_param(v) for k, v in params.items()}) if params else template
        finding = Finding(code=code, artifact=artifact, pointer=pointer, message=rendered, line=line, column=column)
        self.findings.append(finding)
        return finding

    def record(
        self,
        artifact: str,
        pointer: str,
        figure: str,
        published: Any,
        recomputed: Fraction | int | str | None,
        matches: bool,
        *,
        evaluated: bool = True,
    ) -> Recomputed:
        """Record a recomputed figure beside its published value. ``matches`` is decided by the caller's rule.

        Strings (hashes) are recorded as the exact text; Fractions and ints as exact text plus a float.
        """
        if isinstance(recomputed, str):
            exact: str | None = recomputed
            value: float | int | str | None = recomputed
        elif isinstance(recomputed, int) and not isinstance(recomputed, bool):
            exact = str(recomputed)
            value = recomputed
        else:
            exact = exact_string(recomputed)
            value = float_of(recomputed)
        status: Status = "not_evaluated" if not evaluated else ("match" if matches else "mismatch")
        item = Recomputed(artifact, pointer, figure, published, exact, value, status)
        self.recomputed.append(item)
        return item

    def ran(self, family: str, status: str = "ran", **detail: Any) -> None:
        """Note that a check family ran (or could not: ``status`` = ``not_evaluated``) so coverage is visible."""
        entry = {"status": status}
        entry.update(detail)
        self.checks_run[family] = entry

    def has_errors(self) -> bool:
        return any(f.severity == "error" for f in self.findings)

    def sorted_findings(self) -> list[Finding]:
        # Deduplicate identical findings (same code, place and message) while keeping a stable order.
        unique = {(f.code, f.artifact, f.pointer, f.line, f.column, f.message): f for f in self.findings}
        return sorted(unique.values(), key=Finding.sort_key)
