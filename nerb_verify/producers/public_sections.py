"""Public projection of a preparation and a split: the manifest ``source``, ``preparation`` and ``splits`` sections.

Only aggregate counts, hashes and our own identifiers leave the private root. Before anything is written the
sections are checked three ways, failing closed:

1. structure, against the field tables of spec 10 §3 (closed objects, exact types, hash shapes, bounds), and
   against ``schemas/nerb.enron_manifest.v2.json`` when that schema is present;
2. the manifest rules of spec 10 §9.2 (no crossing groups, test sealed, groups <= records, distinct role
   artifacts, role records sum to ``output_records``, ``output_records <= input_records``) and the one-primary-view
   rule of §8;
3. the contract privacy profile: no at-sign, no ``doc_<64 hex>``, no phone/SSN shapes or bare long digit runs, no
   absolute, home, Windows or ``file://`` paths and no ``..``, in every string and key.

Problems are returned as (code, JSON pointer) pairs; values are never echoed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

HASH = re.compile(r"^sha256:[0-9a-f]{64}$")
REVISION = re.compile(r"^([0-9a-f]{40}|[0-9a-f]{64})$")
MAX_INT = 2**63 - 1


def public_revision(manifest: dict[str, Any]) -> str:
    """The public ``source.revision`` of a committed preparation manifest.

    The ``--revision`` given to ``prepare`` when there was one, else the content commitment's hex: an immutable
    name for exactly these source bytes. ``prepare`` publishes it, ``split`` carries it to the bank card.
    """
    declared = manifest.get("revision")
    if isinstance(declared, str) and declared:
        return declared
    return str(manifest["source"]["content_sha256"])[len("sha256:"):]


def source_section(manifest: dict[str, Any], *, source_id: str, revision: str, owner: str,
                   access: str) -> dict[str, Any]:
    """The ``source`` section from a committed preparation manifest and the declared source identity."""
    return {"id": source_id, "revision": revision, "owner": owner, "access": access,
            "content_sha256": manifest["source"]["content_sha256"],
            "input_records": manifest["source"]["input_records"]}


def preparation_section(manifest: dict[str, Any]) -> dict[str, Any]:
    """The ``preparation`` section (policy hashes, unique output records, prepared artifact, the four views)."""
    return {"cleaning_policy_sha256": manifest["cleaning_policy_sha256"],
            "grouping_policy_sha256": manifest["grouping_policy_sha256"],
            "output_records": manifest["output_records"],
            "prepared_artifact": dict(manifest["prepared_artifact"]),
            "text_views": [dict(view) for view in manifest["text_views"]]}


def splits_section(split_manifest: dict[str, Any], split_manifest_sha256: str, audit: dict[str, Any],
                   test_sealed: bool) -> dict[str, Any]:
    """The ``splits`` section from the full (sealed) split manifest, its file hash and the leakage audit."""
    return {"manifest_sha256": split_manifest_sha256,
            "policy_sha256": split_manifest["policy_sha256"],
            "leakage_audit_sha256": split_manifest["leakage_audit_sha256"],
            "leakage_groups_crossing": audit["crossing_groups"],
            "test_sealed": test_sealed,
            "seed": split_manifest["seed_sha256"],
            "roles": {role: {"records": split_manifest["roles"][role]["records"],
                             "groups": split_manifest["roles"][role]["groups"],
                             "artifact": dict(split_manifest["roles"][role]["artifact"])}
                      for role in ("train", "validation", "test")}}


# ---------------------------------------------------------------- structure (spec 10 §3)

def _is_int(value: Any) -> bool:
    return type(value) is int


def _check(problems: list[tuple[str, str]], ok: bool, code: str, pointer: str) -> None:
    if not ok:
        problems.append((code, pointer))


def _closed(problems: list[tuple[str, str]], obj: Any, keys: tuple[str, ...], pointer: str) -> bool:
    if not isinstance(obj, dict):
        problems.append(("schema.type", pointer))
        return False
    if set(obj) != set(keys):
        problems.append(("schema.properties", pointer))
        return False
    return True


def _nonempty(value: Any, limit: int = 4096) -> bool:
    return isinstance(value, str) and 0 < len(value) <= limit


def _artifact_ref(problems: list[tuple[str, str]], ref: Any, pointer: str) -> None:
    if _closed(problems, ref, ("id", "sha256", "bytes"), pointer):
        _check(problems, _nonempty(ref["id"], 256), "schema.id", pointer + "/id")
        _check(problems, isinstance(ref["sha256"], str) and bool(HASH.match(ref["sha256"])), "schema.pattern",
               pointer + "/sha256")
        _check(problems, _is_int(ref["bytes"]) and 1 <= ref["bytes"] <= MAX_INT, "schema.minimum", pointer + "/bytes")


def structure_problems(sections: dict[str, Any]) -> list[tuple[str, str]]:
    """Check the three sections against the spec 10 §3 field tables."""
    problems: list[tuple[str, str]] = []
    source = sections.get("source")
    if _closed(problems, source, ("id", "revision", "owner", "access", "content_sha256", "input_records"), "/source"):
        _check(problems, _nonempty(source["id"], 256), "schema.id", "/source/id")
        for name in ("revision", "owner", "access"):
            _check(problems, _nonempty(source[name]), "schema.minLength", f"/source/{name}")
        _check(problems, isinstance(source["revision"], str) and bool(REVISION.match(source["revision"])),
               "source.revision_not_immutable", "/source/revision")
        _check(problems, isinstance(source["content_sha256"], str) and bool(HASH.match(source["content_sha256"])),
               "schema.pattern", "/source/content_sha256")
        _check(problems, _is_int(source["input_records"]) and 1 <= source["input_records"] <= MAX_INT,
               "schema.minimum", "/source/input_records")
    prep = sections.get("preparation")
    if _closed(problems, prep, ("cleaning_policy_sha256", "grouping_policy_sha256", "output_records",
                                "prepared_artifact", "text_views"), "/preparation"):
        for name in ("cleaning_policy_sha256", "grouping_policy_sha256"):
            _check(problems, isinstance(prep[name], str) and bool(HASH.match(prep[name])), "schema.pattern",
                   f"/preparation/{name}")
        _check(problems, _is_int(prep["output_records"]) and 1 <= prep["output_records"] <= MAX_INT,
               "schema.minimum", "/preparation/output_records")
        _artifact_ref(problems, prep["prepared_artifact"], "/preparation/prepared_artifact")
        views = prep["text_views"]
        if not isinstance(views, list) or not views:
            problems.append(("schema.minItems", "/preparation/text_views"))
        else:
            for index, view in enumerate(views):
                pointer = f"/preparation/text_views/{index}"
                if _closed(problems, view, ("id", "artifact_sha256", "content_policy_sha256", "document_regions",
                                            "primary_for_quality", "answer_bearing_fields_included"), pointer):
                    _check(problems, _nonempty(view["id"], 256), "schema.id", pointer + "/id")
                    for name in ("artifact_sha256", "content_policy_sha256"):
                        _check(problems, isinstance(view[name], str) and bool(HASH.match(view[name])),
                               "schema.pattern", f"{pointer}/{name}")
                    regions = view["document_regions"]
                    _check(problems, isinstance(regions, list) and bool(regions)
                           and all(_nonempty(r) for r in regions) and len(set(regions)) == len(regions),
                           "schema.uniqueItems", pointer + "/document_regions")
                    for name in ("primary_for_quality", "answer_bearing_fields_included"):
                        _check(problems, isinstance(view[name], bool), "schema.type", f"{pointer}/{name}")
    splits = sections.get("splits")
    if splits is not None and _closed(problems, splits, ("manifest_sha256", "policy_sha256", "leakage_audit_sha256",
                                                         "leakage_groups_crossing", "test_sealed", "seed", "roles"),
                                      "/splits"):
        for name in ("manifest_sha256", "policy_sha256", "leakage_audit_sha256"):
            _check(problems, isinstance(splits[name], str) and bool(HASH.match(splits[name])), "schema.pattern",
                   f"/splits/{name}")
        _check(problems, _is_int(splits["leakage_groups_crossing"]) and 0 <= splits["leakage_groups_crossing"]
               <= MAX_INT, "schema.minimum", "/splits/leakage_groups_crossing")
        _check(problems, isinstance(splits["test_sealed"], bool), "schema.type", "/splits/test_sealed")
        _check(problems, _nonempty(splits["seed"]), "schema.minLength", "/splits/seed")
        if _closed(problems, splits["roles"], ("train", "validation", "test"), "/splits/roles"):
            for role in ("train", "validation", "test"):
                pointer = f"/splits/roles/{role}"
                entry = splits["roles"][role]
                if _closed(problems, entry, ("records", "groups", "artifact"), pointer):
                    for name in ("records", "groups"):
                        _check(problems, _is_int(entry[name]) and 1 <= entry[name] <= MAX_INT, "schema.minimum",
                               f"{pointer}/{name}")
                    _artifact_ref(problems, entry["artifact"], pointer + "/artifact")
    return problems


# ---------------------------------------------------------------- manifest rules (spec 10 §8, §9.2)

def rule_problems(sections: dict[str, Any]) -> list[tuple[str, str]]:
    """The manifest rules that concern these sections, as (contract code, pointer) pairs."""
    problems: list[tuple[str, str]] = []
    prep = sections["preparation"]
    primaries = [view for view in prep["text_views"] if view["primary_for_quality"] is True]
    if len(primaries) != 1:
        problems.append(("contract.primary_quality_view", "/preparation/text_views"))
    for index, view in enumerate(prep["text_views"]):
        if view["answer_bearing_fields_included"] is not False:
            problems.append(("producers.answer_bearing_view", f"/preparation/text_views/{index}"))
    ids = [view["id"] for view in prep["text_views"]]
    if len(set(ids)) != len(ids):
        problems.append(("contract.duplicate_id", "/preparation/text_views"))
    if prep["output_records"] > sections["source"]["input_records"]:
        problems.append(("contract.preparation_record_bounds", "/preparation/output_records"))
    splits = sections.get("splits")
    if splits is None:
        return problems
    if splits["leakage_groups_crossing"] != 0:
        problems.append(("contract.split_leakage", "/splits/leakage_groups_crossing"))
    if splits["test_sealed"] is not True:
        problems.append(("contract.test_not_sealed", "/splits/test_sealed"))
    roles = splits["roles"]
    for role in ("train", "validation", "test"):
        if roles[role]["groups"] > roles[role]["records"]:
            problems.append(("contract.split_group_bounds", f"/splits/roles/{role}/groups"))
    artifact_ids = {roles[role]["artifact"]["id"] for role in roles}
    artifact_hashes = {roles[role]["artifact"]["sha256"] for role in roles}
    if len(artifact_ids) != 3 or len(artifact_hashes) != 3:
        problems.append(("contract.split_artifact_overlap", "/splits/roles"))
    if sum(roles[role]["records"] for role in roles) != prep["output_records"]:
        problems.append(("contract.split_record_total", "/splits/roles"))
    return problems


# ---------------------------------------------------------------- contract privacy profile

_PRIVACY = (
    ("at_sign", re.compile(r"@")),
    ("document_id", re.compile(r"doc_[0-9a-f]{64}")),
    ("ssn", re.compile(r"\b\d{3}-\d{2}-\d{4}\b")),
    ("phone", re.compile(r"(?<![\w:])(\+?1[ .-]?)?\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}\b")),
    ("long_digits", re.compile(r"(?<![0-9a-f])\d{10,11}(?![0-9a-f])")),
    ("absolute_path", re.compile(r"(^/|^~|^[A-Za-z]:[\\/]|\\\\|file://|(^|[\\/])\.\.([\\/]|$))")),
)


def _string_codes(text: str) -> set[str]:
    """Contract-profile codes for one string: the project's privacy engine, plus our own conservative shapes."""
    codes: set[str] = set()
    try:
        from nerb_verify.privacy.engine import scan_string
        from nerb_verify.privacy.profiles import CONTRACT

        codes.update(scan_string(text, CONTRACT))
    except ImportError:  # pragma: no cover - the scanner ships with the package
        pass
    stripped = text[len("sha256:"):] if HASH.match(text) else text
    for name, pattern in _PRIVACY:
        if pattern.search(stripped):
            codes.add(f"privacy.{name}")
    return codes


def privacy_problems(value: Any, pointer: str = "") -> list[tuple[str, str]]:
    """Contract-profile scan of every key and string (numbers are not scanned)."""
    problems: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            problems.extend((code, pointer) for code in sorted(_string_codes(key)))
            problems.extend(privacy_problems(item, f"{pointer}/{key}"))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            problems.extend(privacy_problems(item, f"{pointer}/{index}"))
    elif isinstance(value, str):
        problems.extend((code, pointer) for code in sorted(_string_codes(value)))
    return problems


# ---------------------------------------------------------------- schema (when the lead's schema is present)

def schema_problems(sections: dict[str, Any]) -> list[tuple[str, str]] | None:
    """Validate each section against its subschema of ``nerb.enron_manifest.v2.json``; None if the schema is absent.

    Uses the project's offline registry and strict validator (``5.0`` is not an integer). jsonschema error texts
    contain instance values, so only the keyword and pointer are kept.
    """
    try:
        from nerb_verify import schema_validation as sv

        sv.schema_by_name("nerb.enron_manifest.v2.json")
    except (ImportError, KeyError):
        return None
    problems: list[tuple[str, str]] = []
    for name, value in sections.items():
        validator = sv.strict_validator_class()({"$ref": f"{sv.BASE_URI}nerb.enron_manifest.v2.json#/properties/{name}"},
                                       registry=sv.registry())
        for error in validator.iter_errors(value):
            pointer = "/" + name + "".join(f"/{part}" for part in error.absolute_path)
            problems.append((f"schema.{error.validator}", pointer))
    return problems


def all_problems(sections: dict[str, Any]) -> list[tuple[str, str]]:
    """Structure, schema (if available), manifest rules and privacy, in that order; empty means publishable."""
    problems = structure_problems(sections)
    if problems:
        return problems
    problems.extend(schema_problems(sections) or [])
    problems.extend(rule_problems(sections))
    problems.extend(privacy_problems(sections))
    return problems


def split_target_problem(path: Path, prep_manifest: dict[str, Any]) -> str | None:
    """Why ``path`` cannot receive the ``splits`` section of a split of this preparation, or None when it can.

    The splits section is checked together with the ``source`` and ``preparation`` sections (spec 10 §9.2: role
    records sum to ``output_records``), and a split cannot invent those (the owner and access ``prepare`` was given
    are not in the private run). So the file must be the one ``prepare --public-out`` wrote for this very
    preparation: its ``preparation`` section equal to this run's, its source commitment and count equal too. The
    reasons name the option and the rule, never a value.
    """
    if not path.is_file():
        return ("--public-out names no existing sections file; pass the file that `nerb-verify prepare "
                "--public-out` wrote for this preparation (default nerb-public/manifest-sections.json): the splits "
                "section is checked against its source and preparation sections")
    try:
        current = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "--public-out is not a readable JSON sections file"
    if not isinstance(current, dict) or not isinstance(current.get("source"), dict) or not isinstance(
            current.get("preparation"), dict):
        return ("--public-out holds no source and preparation sections; pass the file that `nerb-verify prepare "
                "--public-out` wrote")
    source = current["source"]
    if (current["preparation"] != preparation_section(prep_manifest)
            or source.get("content_sha256") != prep_manifest["source"]["content_sha256"]
            or source.get("input_records") != prep_manifest["source"]["input_records"]):
        return ("--public-out holds the sections of another preparation run; run `nerb-verify prepare` again "
                "into it, or pass the file it wrote for this run")
    return None


def merge_and_write(path: Path, new_sections: dict[str, Any], drop: tuple[str, ...] = ()) -> dict[str, Any]:
    """Merge ``new_sections`` into the public sections file at ``path`` (pretty JSON) and return the result.

    ``drop`` names sections the new ones invalidate (a new preparation invalidates an older ``splits``).
    Raises ValueError with only codes and pointers when the merged sections are not publishable.
    """
    current: dict[str, Any] = {}
    if path.is_file():
        current = json.loads(path.read_text(encoding="utf-8"))
    merged = {key: value for key, value in {**current, **new_sections}.items() if key not in drop}
    problems = all_problems(merged)
    if problems:
        raise ValueError("; ".join(f"{code} at {pointer or '/'}" for code, pointer in problems[:20]))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(merged, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return merged
