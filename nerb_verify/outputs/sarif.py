"""SARIF 2.1.0 output: one log, one run, one ``rules[]`` entry per registered finding code.

What goes in, and why:

* ``tool.driver.rules``: every code of :mod:`nerb_verify.codes` (not just the ones raised), with the title as short
  description, the help text as full description and help, the registered severity as default level, and a
  ``helpUri`` into ``docs/findings/<family>.md``. The URI is relative (``docs/findings/...``) unless a documentation
  base is given (``--doc-base``, which the GitHub Action sets to the action's own repository and ref), because the
  SARIF spec asks for an absolute URI there and only the caller knows where the docs are published.
* ``results``: one per finding, ``ruleId``/``ruleIndex``, ``level`` from the registry, the templated message (plus the
  JSON Pointer, which our pointers never fill with input keys), a physical location with a repository-relative URI
  under ``uriBaseId`` (see :mod:`nerb_verify.outputs.locations`), and a region: the finding's line/column, or
  ``startLine: 1`` when the finding is addressed by a JSON Pointer. The pointer itself is carried as a logical
  location (``fullyQualifiedName`` = the pointer, ``kind: "value"``) and in ``properties.pointer``.
* ``partialFingerprints``: a SHA-256 over code, path and pointer (or line:column when there is no pointer), so an
  alert keeps its identity across runs; never computed from any value of the input.
* Never: code snippets, file contents, absolute paths, environment details.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from nerb_verify import __version__, catalog, codes
from nerb_verify.findings import Finding
from nerb_verify.outputs.locations import BASE_DESCRIPTIONS, PathBase

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
TOOL_NAME = "nerb-verify"
FINGERPRINT_KEY = "nerbVerifyFinding/v1"
LEVELS = {"error": "error", "warning": "warning", "note": "note"}


@dataclass
class RunInfo:
    """What one command invocation contributes to a SARIF log: its findings and how it ended."""

    command: str
    findings: Sequence[Finding]
    base: PathBase
    exit_code: int
    verdict: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def help_uri(info: codes.CodeInfo, doc_base: str | None) -> str:
    """The documentation link of a code: ``doc_base`` + the code's docs anchor, or the anchor alone (relative)."""
    if not doc_base:
        return info.doc_anchor
    return doc_base.rstrip("/") + "/" + info.doc_anchor


def _rule_name(code: str) -> str:
    """A CamelCase identifier for the rule (``quality.metric_mismatch`` -> ``QualityMetricMismatch``)."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[._]", code) if part)


def build_rules(doc_base: str | None = None) -> list[dict[str, Any]]:
    """One SARIF ``reportingDescriptor`` per registered finding code, sorted like ``list-codes``."""
    rules = []
    for info in catalog.all_codes():
        uri = help_uri(info, doc_base)
        rules.append({
            "id": info.code,
            "name": _rule_name(info.code),
            "shortDescription": {"text": info.title},
            "fullDescription": {"text": info.help},
            "help": {"text": f"{info.help} Documentation: {uri}",
                     "markdown": f"{info.help}\n\n[Documentation of `{info.code}`]({uri})"},
            "helpUri": uri,
            "defaultConfiguration": {"level": LEVELS[info.severity]},
            "properties": {"family": info.family, "tags": ["nerb-verify", info.family]},
        })
    return rules


def fingerprint(code: str, path: str, finding: Finding) -> str:
    """Stable identity of a result: code, repository-relative path and pointer (line:column when no pointer)."""
    where = finding.pointer if finding.pointer else (
        f"line:{finding.line}:{finding.column or 1}" if finding.line is not None else "")
    digest = hashlib.sha256("\0".join((code, path, where)).encode("utf-8")).hexdigest()
    return digest


def _message(finding: Finding) -> str:
    if finding.pointer:
        return f"{finding.message} (JSON Pointer {finding.pointer})"
    return finding.message


def _logical_location(pointer: str) -> dict[str, Any]:
    # A JSON Pointer addresses one value of a JSON document (SARIF logical-location kind "value"); the empty pointer
    # is the whole document, written "" as RFC 6901 does.
    return {"fullyQualifiedName": pointer, "kind": "value"}


def build_result(finding: Finding, base: PathBase, rule_index: dict[str, int]) -> dict[str, Any]:
    """One SARIF result for one finding (see module docstring for what is and is not included)."""
    base_id, path = base.locate(finding.artifact)
    artifact_location: dict[str, Any] = {"uri": quote(path, safe="/") if path else ".", "uriBaseId": base_id}
    if finding.line is not None:
        region = {"startLine": max(1, finding.line), "startColumn": max(1, finding.column or 1)}
    else:
        region = {"startLine": 1}
    location: dict[str, Any] = {"physicalLocation": {"artifactLocation": artifact_location, "region": region}}
    properties: dict[str, Any] = {"artifact": path or "."}
    if finding.pointer or finding.line is None:
        location["logicalLocations"] = [_logical_location(finding.pointer)]
        properties["pointer"] = finding.pointer
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": LEVELS.get(finding.severity, "error"),
        "message": {"text": _message(finding)},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(finding.code, f"{base_id}/{path}", finding)},
        "properties": properties,
    }
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    return result


def build_sarif(runs: Iterable[RunInfo], *, doc_base: str | None = None,
                automation_id: str | None = None) -> dict[str, Any]:
    """A complete SARIF 2.1.0 log holding every invocation in ``runs`` as one SARIF run of ``nerb-verify``.

    Several invocations (say, verifying two bundles and scanning the repository) share one run, so code scanning sees
    one tool and one category; each contributes an ``invocations[]`` entry with its exit code.
    """
    runs = list(runs)
    rules = build_rules(doc_base)
    rule_index = {rule["id"]: i for i, rule in enumerate(rules)}
    results: list[dict[str, Any]] = []
    invocations: list[dict[str, Any]] = []
    used_bases: set[str] = set()
    for run in runs:
        for finding in sorted(run.findings, key=Finding.sort_key):
            result = build_result(finding, run.base, rule_index)
            used_bases.add(result["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"])
            results.append(result)
        properties: dict[str, Any] = {"command": run.command}
        if run.verdict is not None:
            properties["verdict"] = run.verdict
        properties.update(run.extra)
        invocations.append({"executionSuccessful": run.exit_code in (0, 1, 3), "exitCode": run.exit_code,
                            "properties": properties})
    driver: dict[str, Any] = {"name": TOOL_NAME, "version": __version__, "semanticVersion": __version__,
                              "rules": rules}
    if doc_base:
        driver["informationUri"] = doc_base.rstrip("/") + "/docs/outputs.md"
    sarif_run: dict[str, Any] = {
        "tool": {"driver": driver},
        "invocations": invocations,
        "originalUriBaseIds": {base: {"description": {"text": BASE_DESCRIPTIONS[base]}}
                               for base in sorted(used_bases)},
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    if automation_id:
        sarif_run["automationDetails"] = {"id": automation_id}
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [sarif_run]}


def dumps(log: dict[str, Any]) -> str:
    """Serialise a SARIF log deterministically (two-space indent, UTF-8 text, trailing newline)."""
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def merge_logs(logs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Merge SARIF logs written by this tool into one log with one run (results and invocations concatenated).

    Used by the GitHub Action, which runs ``verify`` per bundle and ``scan`` once. The rules of the first log are
    kept; results are re-indexed against them. Logs from another tool are refused (ValueError). No logs at all give
    a valid log with no results (the action always leaves a file for the upload step).
    """
    if not logs:
        return build_sarif([])
    first = logs[0]["runs"][0]
    rules = first["tool"]["driver"]["rules"]
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    merged_run = json.loads(json.dumps(first))
    merged_run["results"] = []
    merged_run["invocations"] = []
    merged_run.pop("automationDetails", None)  # the merged log is one analysis; the uploader's category names it
    bases: dict[str, Any] = {}
    for log in logs:
        if log.get("version") != SARIF_VERSION:
            raise ValueError("not a SARIF 2.1.0 log")
        for run in log.get("runs", []):
            if run.get("tool", {}).get("driver", {}).get("name") != TOOL_NAME:
                raise ValueError("SARIF log from another tool")
            for result in run.get("results", []):
                result = dict(result)
                if result.get("ruleId") in index:
                    result["ruleIndex"] = index[result["ruleId"]]
                else:
                    result.pop("ruleIndex", None)
                merged_run["results"].append(result)
            merged_run["invocations"].extend(run.get("invocations", []))
            bases.update(run.get("originalUriBaseIds", {}))
    merged_run["originalUriBaseIds"] = {k: bases[k] for k in sorted(bases)}
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [merged_run]}


def _main(argv: Sequence[str] | None = None) -> int:
    """``python -m nerb_verify.outputs.sarif merge --output OUT IN...``: merge SARIF logs of this tool."""
    parser = argparse.ArgumentParser(prog="python -m nerb_verify.outputs.sarif")
    sub = parser.add_subparsers(dest="action", required=True)
    merge = sub.add_parser("merge", help="merge nerb-verify SARIF logs into one run")
    merge.add_argument("--output", required=True)
    merge.add_argument("inputs", nargs="*", help="SARIF logs of nerb-verify (none: an empty log)")
    args = parser.parse_args(argv)
    logs = []
    for name in args.inputs:
        try:
            logs.append(json.loads(Path(name).read_text(encoding="utf-8")))
        except (OSError, ValueError):
            sys.stderr.write("nerb-verify: a SARIF input could not be read.\n")
            return 2
    try:
        merged = merge_logs(logs)
    except (ValueError, KeyError, TypeError, IndexError):
        sys.stderr.write("nerb-verify: SARIF inputs are not nerb-verify SARIF 2.1.0 logs.\n")
        return 2
    Path(args.output).write_text(dumps(merged), encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_main())
