"""Helpers for the output tests: broken copies of the real bundle, the official SARIF schema, masking."""

from __future__ import annotations

import copy
import functools
import json
import shutil
from pathlib import Path
from typing import Any

from jsonschema import Draft4Validator

REPO = Path(__file__).resolve().parent.parent
REAL_BUNDLE = REPO / "fixtures" / "bundles" / "nerb-enron"
SARIF_SCHEMA_PATH = REPO / "contract_tests" / "data" / "sarif" / "sarif-schema-2.1.0.json"
CANARY = "canary-value-8c1f2e"


@functools.lru_cache(maxsize=1)
def sarif_validator() -> Draft4Validator:
    """The official OASIS SARIF 2.1.0 schema (draft-04), vendored with its license."""
    schema = json.loads(SARIF_SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft4Validator.check_schema(schema)
    return Draft4Validator(schema)


def sarif_errors(log: Any) -> list[str]:
    """Schema violations as pointer + validator keyword only (error messages would quote instance values)."""
    return sorted("/" + "/".join(str(p) for p in e.absolute_path) + " " + str(e.validator)
                  for e in sarif_validator().iter_errors(log))


def copy_bundle(dest: Path) -> Path:
    """A private, writable copy of the real bundle (file modes normalised to 0644/0755)."""
    shutil.copytree(REAL_BUNDLE, dest)
    for path in [dest, *dest.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return dest


def broken_extra_file(dest: Path) -> Path:
    """The real bundle plus one file it does not declare."""
    root = copy_bundle(dest)
    (root / "notes.txt").write_text("an undeclared file\n", encoding="utf-8")
    return root


def broken_truncated_json(dest: Path) -> Path:
    """The real bundle with bank-card.json cut in half (it no longer parses) and a canary in the remaining text."""
    root = copy_bundle(dest)
    card = root / "bank-card.json"
    raw = card.read_bytes()
    card.write_bytes(b'{"canary": "' + CANARY.encode() + b'", ' + raw[1: len(raw) // 2])
    return root


def broken_edited_count(dest: Path) -> Path:
    """The real bundle with one integer count of the first quality slice changed (hashes not resealed)."""
    root = copy_bundle(dest)
    evidence = root / "benchmark-evidence.json"
    text = evidence.read_text(encoding="utf-8")
    old = '"false_positive": 7,'
    assert text.count(old) >= 1, "the real bundle's first slice has false_positive 7"
    evidence.write_text(text.replace(old, '"false_positive": 8,', 1), encoding="utf-8")
    return root


BROKEN = {"extra-file": broken_extra_file, "truncated-json": broken_truncated_json,
          "edited-count": broken_edited_count}


def masked(log: dict[str, Any]) -> dict[str, Any]:
    """A SARIF log made stable for a snapshot: tool versions masked, rules cut down to the ones results use.

    The full rules[] list follows the code registry (checked by its own test), so pinning it here would churn with
    every new code; ruleIndex is dropped for the same reason.
    """
    out = copy.deepcopy(log)
    for run in out["runs"]:
        driver = run["tool"]["driver"]
        driver["version"] = "<version>"
        driver["semanticVersion"] = "<version>"
        used = {r["ruleId"] for r in run["results"]}
        driver["rules"] = [rule for rule in driver["rules"] if rule["id"] in used]
        for result in run["results"]:
            result.pop("ruleIndex", None)
    return out
