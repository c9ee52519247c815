"""The NERB JSON bank (``nerb.bank.v1``): strict reading, writing, canonical hashing, statistics, active detectors.

The format is closed at every level (spec 50 §4.1): bank, entity, name and pattern objects carry exactly the fields
listed below; a literal pattern carries the literal fields and no ``regex_flags``, a regex pattern the reverse. The
reader refuses anything else with a :class:`BankFormatError` whose message names the field path we wrote (never an
input value), so a hostile bank cannot leak text through an error.

The canonical hash (``canonical_hash``, the card's ``canonical_sha256``) is NERB's: keys sorted, flag lists
deduplicated and put in the fixed flag order, ``eval_refs`` sorted, canonical JSON, sha256. Drafts are included.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, NamedTuple

from nerb_verify.canonical import nerb_pretty_bytes, python_canonical_bytes, python_canonical_sha256

SCHEMA_VERSION = "nerb.bank.v1"
ID_RE = re.compile(r"^[a-z][a-z0-9_]{0,79}$")
STATUSES = ("active", "draft", "inactive", "deprecated")
FLAG_ORDER = ("ASCII", "IGNORECASE", "MULTILINE", "DOTALL", "VERBOSE")
BOUNDARIES = ("none", "word")
MAX_PATTERN_CHARS = 10_000

BANK_KEYS = {"schema_version", "id", "name", "description", "version", "status", "created_at", "updated_at",
             "unicode_normalization", "default_regex_flags", "entities", "metadata"}
BANK_OPTIONAL_KEYS = {"eval_refs"}
ENTITY_KEYS = {"description", "status", "regex_flags", "names", "metadata"}
NAME_KEYS = {"canonical", "description", "status", "patterns", "metadata"}
PATTERN_COMMON_KEYS = {"kind", "value", "description", "status", "priority", "metadata"}
LITERAL_KEYS = PATTERN_COMMON_KEYS | {"case_sensitive", "normalize_whitespace", "left_boundary", "right_boundary"}
REGEX_KEYS = PATTERN_COMMON_KEYS | {"regex_flags"}


class BankFormatError(ValueError):
    """A bank that is not a valid ``nerb.bank.v1`` document. The message holds only our own field paths."""


class Detector(NamedTuple):
    """One active pattern, ready to compile: its identity, its ordering key and its declared matching options.

    ``order_key`` is spec 50 §4.2 step 5: (priority, canonical_name, surface_name, regex source, flags), compared in
    code-point order. ``surface_name`` is the literal value, or the pattern id for a regex.
    """

    entity_id: str
    name_id: str
    pattern_id: str
    kind: str
    canonical_name: str
    surface_name: str
    value: str
    priority: int
    flags: tuple[str, ...]
    case_sensitive: bool
    normalize_whitespace: bool
    left_boundary: str
    right_boundary: str

    @property
    def order_key(self) -> tuple[Any, ...]:
        return (self.priority, self.canonical_name, self.surface_name, self.value, self.flags)

    @property
    def ignore_case(self) -> bool:
        return "IGNORECASE" in self.flags


def _require(cond: bool, where: str, what: str) -> None:
    if not cond:
        raise BankFormatError(f"{where}: {what}")


def _check_text(value: Any, where: str, allow_empty: bool = True) -> None:
    _require(isinstance(value, str), where, "must be a string")
    if not allow_empty:
        _require(len(value) > 0, where, "must not be empty")


def _check_flags(value: Any, where: str) -> None:
    _require(isinstance(value, list), where, "must be a list of flags")
    for flag in value:
        _require(isinstance(flag, str) and flag in FLAG_ORDER, where, "unknown regex flag")


def _check_keys(obj: Any, required: set[str], optional: set[str], where: str) -> None:
    _require(isinstance(obj, dict), where, "must be an object")
    keys = set(obj)
    _require(required <= keys, where, "missing required field(s): " + ",".join(sorted(required - keys)))
    _require(keys <= required | optional, where, "unknown field(s)")


def validate_bank(bank: Any) -> None:
    """Check the closed ``nerb.bank.v1`` shape (spec 50 §4.1); raise :class:`BankFormatError` on the first problem.

    Checked: every level closed, ids match ``^[a-z][a-z0-9_]{0,79}$``, statuses and flags from their vocabularies,
    literal/regex field sets exclusive, values 1-10,000 chars, priorities non-negative ints (not bools),
    ``unicode_normalization`` = ``none`` (the only value the engine compiles).
    """
    _check_keys(bank, BANK_KEYS, BANK_OPTIONAL_KEYS, "bank")
    _require(bank["schema_version"] == SCHEMA_VERSION, "bank.schema_version", "unsupported schema version")
    _require(isinstance(bank["id"], str) and ID_RE.match(bank["id"]) is not None, "bank.id", "invalid id")
    for key in ("name", "description", "version", "created_at", "updated_at"):
        _check_text(bank[key], f"bank.{key}")
    _require(bank["status"] in STATUSES, "bank.status", "unknown status")
    _require(bank["unicode_normalization"] == "none", "bank.unicode_normalization", "only 'none' compiles")
    _check_flags(bank["default_regex_flags"], "bank.default_regex_flags")
    _require(isinstance(bank["metadata"], dict), "bank.metadata", "must be an object")
    if "eval_refs" in bank:
        _require(isinstance(bank["eval_refs"], list), "bank.eval_refs", "must be a list")
    entities = bank["entities"]
    _require(isinstance(entities, dict), "bank.entities", "must be an object")
    for entity_id, entity in entities.items():
        where = f"entities[{_safe_id(entity_id)}]"
        _require(isinstance(entity_id, str) and ID_RE.match(entity_id) is not None, where, "invalid entity id")
        _check_keys(entity, ENTITY_KEYS, set(), where)
        _check_text(entity["description"], where + ".description")
        _require(entity["status"] in STATUSES, where + ".status", "unknown status")
        _check_flags(entity["regex_flags"], where + ".regex_flags")
        _require(isinstance(entity["metadata"], dict), where + ".metadata", "must be an object")
        _require(isinstance(entity["names"], dict), where + ".names", "must be an object")
        for name_id, name in entity["names"].items():
            nwhere = f"{where}.names[{_safe_id(name_id)}]"
            _require(isinstance(name_id, str) and ID_RE.match(name_id) is not None, nwhere, "invalid name id")
            _check_keys(name, NAME_KEYS, set(), nwhere)
            _check_text(name["canonical"], nwhere + ".canonical", allow_empty=False)
            _check_text(name["description"], nwhere + ".description")
            _require(name["status"] in STATUSES, nwhere + ".status", "unknown status")
            _require(isinstance(name["metadata"], dict), nwhere + ".metadata", "must be an object")
            _require(isinstance(name["patterns"], dict), nwhere + ".patterns", "must be an object")
            for pattern_id, pattern in name["patterns"].items():
                pwhere = f"{nwhere}.patterns[{_safe_id(pattern_id)}]"
                _require(isinstance(pattern_id, str) and ID_RE.match(pattern_id) is not None, pwhere,
                         "invalid pattern id")
                _validate_pattern(pattern, pwhere)


def _safe_id(value: Any) -> str:
    """An id is printed only when it is a valid id (our vocabulary of shapes); anything else is masked."""
    return value if isinstance(value, str) and ID_RE.match(value) else "?"


def _validate_pattern(pattern: Any, where: str) -> None:
    _require(isinstance(pattern, dict), where, "must be an object")
    kind = pattern.get("kind")
    _require(kind in ("literal", "regex"), where + ".kind", "must be literal or regex")
    _check_keys(pattern, LITERAL_KEYS if kind == "literal" else REGEX_KEYS, set(), where)
    value = pattern["value"]
    _require(isinstance(value, str) and 1 <= len(value) <= MAX_PATTERN_CHARS, where + ".value",
             "must be a string of 1-10,000 chars")
    _check_text(pattern["description"], where + ".description")
    _require(pattern["status"] in STATUSES, where + ".status", "unknown status")
    priority = pattern["priority"]
    _require(isinstance(priority, int) and not isinstance(priority, bool) and priority >= 0, where + ".priority",
             "must be a non-negative integer")
    _require(isinstance(pattern["metadata"], dict), where + ".metadata", "must be an object")
    if kind == "literal":
        for key in ("case_sensitive", "normalize_whitespace"):
            _require(isinstance(pattern[key], bool), f"{where}.{key}", "must be a boolean")
        for key in ("left_boundary", "right_boundary"):
            _require(pattern[key] in BOUNDARIES, f"{where}.{key}", "must be none or word")
    else:
        _check_flags(pattern["regex_flags"], where + ".regex_flags")


def ordered_flags(*flag_lists: list[str]) -> tuple[str, ...]:
    """The union of flag lists, deduplicated, in NERB's fixed order (ASCII, IGNORECASE, MULTILINE, DOTALL, VERBOSE)."""
    present = {flag for flags in flag_lists for flag in flags}
    return tuple(flag for flag in FLAG_ORDER if flag in present)


def canonical_form(bank: dict[str, Any]) -> dict[str, Any]:
    """The object NERB hashes: flag lists deduplicated in fixed order and ``eval_refs`` sorted (keys sort in JSON)."""

    def walk(value: Any, key: str | None) -> Any:
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            if key in ("default_regex_flags", "regex_flags"):
                return list(ordered_flags(value))
            items = [walk(v, None) for v in value]
            if key == "eval_refs":
                items = sorted(items, key=lambda item: json.dumps(item, sort_keys=True, ensure_ascii=False))
            return items
        return value

    return walk(bank, None)


def canonical_hash(bank: dict[str, Any]) -> str:
    """``sha256:`` + hex of the canonical bank JSON (spec 50 §4.1); drafts included."""
    return python_canonical_sha256(canonical_form(bank))


def canonical_json_bytes(bank: dict[str, Any]) -> int:
    """Byte length of the canonical serialization (the manifest's ``canonical_json_bytes``)."""
    return len(python_canonical_bytes(canonical_form(bank)))


def active_only(bank: dict[str, Any]) -> dict[str, Any]:
    """The bank restricted to what is active at every level; names and entities left empty drop out."""
    entities: dict[str, Any] = {}
    if bank["status"] == "active":
        for entity_id, entity in bank["entities"].items():
            if entity["status"] != "active":
                continue
            names: dict[str, Any] = {}
            for name_id, name in entity["names"].items():
                if name["status"] != "active":
                    continue
                patterns = {pid: p for pid, p in name["patterns"].items() if p["status"] == "active"}
                if patterns:
                    names[name_id] = {**name, "patterns": patterns}
            if names:
                entities[entity_id] = {**entity, "names": names}
    return {**bank, "entities": entities}


def native_source_bytes(bank: dict[str, Any]) -> int:
    """Byte length of the canonical serialization of the active-only bank (the manifest's ``native_source_bytes``)."""
    return canonical_json_bytes(active_only(bank))


def active_detectors(bank: dict[str, Any]) -> list[Detector]:
    """Every active pattern as a :class:`Detector` (spec 50 §4.2 steps 1-3), in (entity, name, pattern) id order.

    Only what is active at every level (bank, entity, name, pattern) is returned. Flags are the union of the bank's
    default flags, the entity's flags and the pattern's own; a literal with ``case_sensitive: false`` adds
    IGNORECASE.
    """
    out: list[Detector] = []
    if bank["status"] != "active":
        return out
    for entity_id in sorted(bank["entities"]):
        entity = bank["entities"][entity_id]
        if entity["status"] != "active":
            continue
        literal_flags = {
            True: ordered_flags(bank["default_regex_flags"], entity["regex_flags"]),
            False: ordered_flags(bank["default_regex_flags"], entity["regex_flags"], ["IGNORECASE"]),
        }
        for name_id in sorted(entity["names"]):
            name = entity["names"][name_id]
            if name["status"] != "active":
                continue
            for pattern_id in sorted(name["patterns"]):
                p = name["patterns"][pattern_id]
                if p["status"] != "active":
                    continue
                if p["kind"] == "literal":
                    out.append(Detector(entity_id, name_id, pattern_id, "literal", name["canonical"], p["value"],
                                        p["value"], p["priority"], literal_flags[p["case_sensitive"]],
                                        p["case_sensitive"], p["normalize_whitespace"], p["left_boundary"],
                                        p["right_boundary"]))
                else:
                    flags = ordered_flags(bank["default_regex_flags"], entity["regex_flags"], p["regex_flags"])
                    out.append(Detector(entity_id, name_id, pattern_id, "regex", name["canonical"], pattern_id,
                                        p["value"], p["priority"], flags, True, False, "none", "none"))
    return out


def bank_stats(bank: dict[str, Any]) -> dict[str, Any]:
    """The card's ``bank.stats``: totals, active totals (active at every level), per-status and per-kind counts.

    A name or pattern's status is its own declared status (NERB's card counts declared statuses); active totals count
    only what would compile.
    """
    by_status = {s: {"entities": 0, "names": 0, "patterns": 0} for s in STATUSES}
    by_kind = {"literal": 0, "regex": 0}
    totals = {"entities": 0, "names": 0, "patterns": 0}
    for entity in bank["entities"].values():
        totals["entities"] += 1
        by_status[entity["status"]]["entities"] += 1
        for name in entity["names"].values():
            totals["names"] += 1
            by_status[name["status"]]["names"] += 1
            for pattern in name["patterns"].values():
                totals["patterns"] += 1
                by_status[pattern["status"]]["patterns"] += 1
                by_kind[pattern["kind"]] += 1
    active = active_only(bank)
    active_totals = {
        "entities": len(active["entities"]),
        "names": sum(len(e["names"]) for e in active["entities"].values()),
        "patterns": sum(len(n["patterns"]) for e in active["entities"].values() for n in e["names"].values()),
    }
    return {"active_totals": active_totals, "by_kind": by_kind, "by_status": by_status, "totals": totals}


def load_bank(path: Path, max_bytes: int = 512 * 1024 * 1024) -> dict[str, Any]:
    """Read, strictly parse (duplicate keys and non-finite numbers refused) and validate a bank file."""
    raw = Path(path).read_bytes()
    if len(raw) > max_bytes:
        raise BankFormatError("bank: file too large")
    return parse_bank_bytes(raw)


def parse_bank_bytes(raw: bytes) -> dict[str, Any]:
    """Parse and validate bank JSON bytes; refuses invalid UTF-8, duplicate keys and NaN/Infinity."""

    def no_dupes(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            raise BankFormatError("bank: duplicate object key")
        return out

    def no_constants(_: str) -> Any:
        raise BankFormatError("bank: non-finite number")

    try:
        text = raw.decode("utf-8")
        bank = json.loads(text, object_pairs_hook=no_dupes, parse_constant=no_constants)
    except UnicodeDecodeError as exc:
        raise BankFormatError("bank: not valid UTF-8") from exc
    except json.JSONDecodeError as exc:
        raise BankFormatError("bank: not valid JSON") from exc
    validate_bank(bank)
    return bank


def bank_bytes(bank: dict[str, Any]) -> bytes:
    """The physical file form (pretty, sorted keys, raw UTF-8, trailing newline), after validation."""
    validate_bank(bank)
    return nerb_pretty_bytes(bank)


def write_bank(bank: dict[str, Any], path: Path) -> bytes:
    """Validate and write the bank in its physical pretty form; returns the bytes written (hash them for refs)."""
    data = bank_bytes(bank)
    Path(path).write_bytes(data)
    return data
