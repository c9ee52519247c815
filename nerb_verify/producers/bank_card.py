"""The public bank card (``nerb.enron_public_bank_card``), the manifest ``bank`` section, and the development
validation that feeds them (spec 50 §5.6, spec 30 §A.6).

Everything public here is aggregate: counts, hashes, ids we wrote, reason codes. No bank value, address, name or
path is copied into the card or the manifest section. Validation is structured-weak: in the ``structured_headers``
view of validation records (one ``field: Name <addr>`` line per header entry), every valid address is a contact span
and every display name that normalizes to a person is a person span; a span is *cataloged* when an active contact
literal (or an active alias key) equals it. Validation text is read here for scoring only; it never reaches mining.
"""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from nerb_verify.canonical import python_canonical_sha256
from nerb_verify.producers.bank_builder import (
    HEADER_FIELDS,
    BuildResult,
    catalog_key,
    normalize_address,
    person_identity,
)
from nerb_verify.producers.bank_format import active_detectors, bank_stats, canonical_hash, canonical_json_bytes
from nerb_verify.producers.bank_format import native_source_bytes as _native_source_bytes
from nerb_verify.producers.engine import CompiledBank

CARD_SCHEMA = "nerb.enron_public_bank_card"
PRIVACY = {"aggregate_only": True, "bank_values_included": False, "direct_identifiers_included": False,
           "private_paths_included": False, "raw_text_included": False, "violation_count": 0}
VALIDATION_PROTOCOL = {"schema_version": "nerb_verify.bank_validation_protocol.v1", "view": "structured_headers",
                       "label_strength": "structured_weak", "contact": "every_valid_address",
                       "person": "display_names_normalizing_to_a_person", "matching": "exact_span_and_class",
                       "catalog": "active_literal_equality"}
SOURCE_FIELDS = ("dataset_id", "dataset_revision", "dataset_split", "development_manifest_sha256",
                 "full_split_manifest_sha256", "preparation_manifest_sha256", "split_policy_sha256",
                 "train_artifact_sha256", "validation_artifact_sha256", "train_groups", "train_records",
                 "validation_groups", "validation_records")


class CardError(ValueError):
    """The card cannot be assembled without inventing a value (fail closed). Message: field names only."""


def structured_headers_view(record: dict[str, Any]) -> tuple[str, list[tuple[str, int, int, str]]]:
    """The validation view text and its weak gold spans ``(class, char_start, char_end, key)``."""
    lines: list[str] = []
    spans: list[tuple[str, int, int, str]] = []
    offset = 0
    headers = record.get("headers") or {}
    for field_name in HEADER_FIELDS:
        entries = headers.get(field_name) or []
        for entry in entries if isinstance(entries, list) else [entries]:
            if not isinstance(entry, dict):
                continue
            name = " ".join(str(entry.get("name") or "").split())
            address = str(entry.get("address") or "")
            prefix = f"{field_name}: "
            if name and address:
                line = f"{prefix}{name} <{address}>"
                name_at, addr_at = len(prefix), len(prefix) + len(name) + 2
            elif address:
                line, name_at, addr_at = prefix + address, -1, len(prefix)
            elif name:
                line, name_at, addr_at = prefix + name, len(prefix), -1
            else:
                continue
            if addr_at >= 0:
                normalized = normalize_address(address)
                if normalized is not None:
                    spans.append(("contact", offset + addr_at, offset + addr_at + len(address), normalized))
            if name_at >= 0 and person_identity(name) is not None:
                spans.append(("person", offset + name_at, offset + name_at + len(name), catalog_key(name)))
            lines.append(line)
            offset += len(line) + 1
    return "\n".join(lines), spans


def _rate(num: int, den: int) -> float | None:
    return None if den == 0 else float(Fraction(num, den))


def evaluate_validation(compiled: CompiledBank, bank: dict[str, Any], records: list[dict[str, Any]]
                        ) -> dict[str, dict[str, Any]]:
    """Structured-weak counts per class on validation records (exact span and class; cataloged by identity)."""
    catalog: dict[str, dict[str, str]] = {"contact": {}, "person": {}}
    for det in active_detectors(bank):
        if det.kind == "literal" and det.entity_id in catalog:
            key = det.value.casefold() if det.entity_id == "contact" else catalog_key(det.value)
            catalog[det.entity_id][key] = det.name_id
    out: dict[str, dict[str, Any]] = {}
    counts = {c: {"documents": 0, "documents_with_sensitive_gold": 0, "gold_spans": 0, "true_positive": 0,
                  "cataloged_gold_spans": 0, "cataloged_true_positive": 0, "cataloged_wrong_canonical": 0}
              for c in ("contact", "person")}
    for record in records:
        text, spans = structured_headers_view(record)
        found = {}
        for r in compiled.scan_text(text, offsets="char"):
            found.setdefault((r["entity_id"], r["start"], r["end"]), []).append(r["name_id"])
        for cls in ("contact", "person"):
            mine = [s for s in spans if s[0] == cls]
            counts[cls]["documents"] += 1
            counts[cls]["documents_with_sensitive_gold"] += 1 if mine else 0
            for _, start, end, key in mine:
                c = counts[cls]
                c["gold_spans"] += 1
                names = found.get((cls, start, end))
                if names:
                    c["true_positive"] += 1
                expected = catalog[cls].get(key)
                if expected is not None:
                    c["cataloged_gold_spans"] += 1
                    if names and expected in names:
                        c["cataloged_true_positive"] += 1
                    elif names:
                        c["cataloged_wrong_canonical"] += 1
    for cls, c in counts.items():
        fn = c["gold_spans"] - c["true_positive"]
        cataloged_fn = c["cataloged_gold_spans"] - c["cataloged_true_positive"] - c["cataloged_wrong_canonical"]
        out[cls] = {
            "catalog_coverage": _rate(c["cataloged_gold_spans"], c["gold_spans"]),
            "cataloged_false_negative": cataloged_fn,
            "cataloged_gold_spans": c["cataloged_gold_spans"],
            "cataloged_recall": _rate(c["cataloged_true_positive"], c["cataloged_gold_spans"]),
            "cataloged_true_positive": c["cataloged_true_positive"],
            "cataloged_wrong_canonical": c["cataloged_wrong_canonical"],
            "documents": c["documents"] if c["gold_spans"] else (c["documents"] if cls == "contact" else 0),
            "documents_with_sensitive_gold": c["documents_with_sensitive_gold"],
            "false_negative": fn, "gold_spans": c["gold_spans"],
            "labeled_span_recall": _rate(c["true_positive"], c["gold_spans"]),
            "negative_document_false_alarm_rate": None, "open_world_recall": None, "over_redaction_rate": None,
            "precision": None, "true_positive": c["true_positive"],
        }
    person_evaluated = out["person"]["gold_spans"] > 0
    out["person"]["evaluated"] = person_evaluated
    out["person"]["reason_code"] = "structured_weak_person_spans" if person_evaluated else "zero_labeled_person_spans"
    return out


def builder_source_sha256() -> str:
    """sha256 of the builder module's source bytes (our implementation identity)."""
    path = Path(__file__).with_name("bank_builder.py")
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def card_source_from_manifest(manifest: dict[str, Any] | None, build: BuildResult, train_groups: int,
                              train: Any = None, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The card's ``source`` block; a field that cannot be found is an error, never a zero (fail closed).

    Read from the development bundle written by ``nerb-verify split`` (``nerb_verify.enron_split_manifest.v1``):
    ``full_split_manifest_sha256``, ``preparation_manifest_sha256``, ``policy_sha256`` (the split policy),
    ``roles.validation.{artifact.sha256, groups, records}``; the development manifest's own file hash; the dataset
    id/revision/split from the train records' ``source`` block (all records must agree). A ``source_card`` object in
    the manifest, then ``overrides`` (the command line's ``--dataset-*``), supply fields directly; an empty string
    counts as missing. ``train_*`` fields always come from the train bundle, and
    a manifest that names a different train artifact hash is refused.
    """
    manifest = manifest or {}
    direct = manifest.get("source_card") if isinstance(manifest.get("source_card"), dict) else {}
    roles = manifest.get("roles") if isinstance(manifest.get("roles"), dict) else {}
    validation = roles.get("validation") if isinstance(roles.get("validation"), dict) else {}
    train_role = roles.get("train") if isinstance(roles.get("train"), dict) else {}
    declared_train = (train_role.get("artifact") or {}).get("sha256") if isinstance(train_role.get("artifact"),
                                                                                   dict) else None
    if declared_train is not None and declared_train != build.train_artifact_sha256:
        raise CardError("the development manifest names a different train artifact than the one built from")
    datasets = set()
    for record in getattr(train, "records", []) or []:
        src = record.get("source") or {}
        datasets.add((src.get("dataset_id"), src.get("revision"), src.get("split")))
    dataset = next(iter(datasets)) if len(datasets) == 1 else (None, None, None)
    source = {
        "dataset_id": dataset[0], "dataset_revision": dataset[1], "dataset_split": dataset[2],
        "development_manifest_sha256": getattr(train, "manifest_sha256", None),
        "full_split_manifest_sha256": manifest.get("full_split_manifest_sha256"),
        "preparation_manifest_sha256": manifest.get("preparation_manifest_sha256"),
        "split_policy_sha256": manifest.get("policy_sha256"),
        "validation_artifact_sha256": (validation.get("artifact") or {}).get("sha256")
        if isinstance(validation.get("artifact"), dict) else None,
        "validation_groups": validation.get("groups"), "validation_records": validation.get("records"),
    }
    for given in (direct, overrides or {}):
        for key in SOURCE_FIELDS:
            if given.get(key) is not None:
                source[key] = given[key]
    source["train_artifact_sha256"] = build.train_artifact_sha256
    source["train_records"] = build.train_records
    source["train_groups"] = train_groups
    source = {key: source.get(key) for key in SOURCE_FIELDS}
    missing = [key for key, value in source.items() if value is None or value == ""]
    if missing:
        raise CardError("card source fields missing from the development bundle: " + ", ".join(missing))
    return source


def build_card(build: BuildResult, artifact_bytes: bytes, conformance: dict[str, Any],
               validation: dict[str, dict[str, Any]], source: dict[str, Any], *, benchmark_version: str = "enron",
               iteration_id: str = "iteration_01_train_bank") -> dict[str, Any]:
    """Assemble the closed public card and its ``card_sha256`` (canonical hash of the card without that key)."""
    bank = build.bank
    stats = bank_stats(bank)
    bank_hash = canonical_hash(bank)
    protocol_sha = python_canonical_sha256(VALIDATION_PROTOCOL)
    quality_run_sha = python_canonical_sha256({"bank": bank_hash, "protocol": protocol_sha, "validation": validation})
    contact = validation["contact"]
    person = validation["person"]
    if contact["gold_spans"] < 1:
        raise CardError("development validation has no contact spans: the card cannot be built")
    iteration = {
        "active_patterns": stats["active_totals"]["patterns"], "bank_sha256": bank_hash,
        "canonical_json_bytes": canonical_json_bytes(bank),
        "contact_cataloged_false_negative": contact["cataloged_false_negative"],
        "contact_cataloged_wrong_canonical": contact["cataloged_wrong_canonical"],
        "contact_labeled_false_negative": contact["false_negative"],
        "contact_labeled_recall": contact["labeled_span_recall"],
        "contact_labeled_spans": contact["gold_spans"],
        "contact_labeled_true_positive": contact["true_positive"],
        "decision": "keep", "decision_reason_code": "single_train_only_iteration", "id": iteration_id,
        "open_world_metrics_supported": False, "parent_id": None,
        "person_cataloged_false_negative": person["cataloged_false_negative"] if person["evaluated"] else None,
        "person_cataloged_wrong_canonical": person["cataloged_wrong_canonical"] if person["evaluated"] else None,
        "person_labeled_spans": person["gold_spans"] if person["evaluated"] else None,
        "policy_sha256": build.policy_sha256, "quality_run_sha256": quality_run_sha, "selected": True,
        "utility_metrics_supported": False, "validation_protocol_sha256": protocol_sha,
    }
    card = {
        "schema_version": CARD_SCHEMA,
        "benchmark_version": benchmark_version,
        "source": source,
        "builder": {"candidate_ledger_sha256": build.candidate_ledger_sha256,
                    "candidate_source_sha256": build.candidate_source_sha256, "iteration_count": 1,
                    "observations": build.observations, "policy_sha256": build.policy_sha256,
                    "selected_iteration_id": iteration_id, "source_sha256": builder_source_sha256(),
                    "train_records": build.train_records},
        "bank": {"artifact_sha256": "sha256:" + hashlib.sha256(artifact_bytes).hexdigest(),
                 "canonical_json_bytes": canonical_json_bytes(bank), "canonical_sha256": bank_hash,
                 "id": bank["id"], "stats": stats, "version": bank["version"]},
        "candidate_funnel": build.funnel,
        "iterations": [iteration],
        "development_validation": {
            "contact": {k: v for k, v in contact.items()}, "person": person,
            "evaluator_sha256": python_canonical_sha256({"evaluator": "nerb_verify.producers.bank_card"}),
            "label_strength": "structured_weak", "open_world_metrics_supported": False,
            "protocol_sha256": protocol_sha, "quality_run_sha256": quality_run_sha,
            "unsupported_reason_code": "independent_exhaustive_validation_labels_unavailable",
            "utility_metrics_supported": False,
        },
        "catalog_conformance": conformance,
        "privacy": dict(PRIVACY),
    }
    card["card_sha256"] = python_canonical_sha256(card)
    return card


def manifest_bank_section(bank: dict[str, Any], artifact_bytes: bytes) -> dict[str, Any]:
    """The manifest ``bank`` section: ids, hashes, sizes and active counts (active aliases = active person names)."""
    stats = bank_stats(bank)
    active_aliases = sum(1 for det in active_detectors(bank) if det.entity_id == "person")
    return {"active_aliases": active_aliases, "active_entities": stats["active_totals"]["entities"],
            "active_names": stats["active_totals"]["names"], "active_patterns": stats["active_totals"]["patterns"],
            "artifact_bytes": len(artifact_bytes),
            "artifact_sha256": "sha256:" + hashlib.sha256(artifact_bytes).hexdigest(),
            "canonical_hash": canonical_hash(bank), "canonical_json_bytes": canonical_json_bytes(bank),
            "id": bank["id"], "native_source_bytes": _native_source_bytes(bank)}


def card_arithmetic_problems(card: dict[str, Any]) -> list[str]:
    """The card invariants of spec 30 §A.6 that hold by construction; returns the names of any that fail."""
    problems = []
    funnel = card["candidate_funnel"]
    total = funnel["total_candidates"]
    if not (sum(funnel["by_decision"].values()) == total == sum(t["total"] for t in funnel["by_type"].values())
            == sum(funnel["by_primary_reason"].values())):
        problems.append("funnel_totals")
    for row in funnel["by_type"].values():
        if row["active"] + row["draft"] + row["rejected"] != row["total"]:
            problems.append("funnel_type_row")
    stats = card["bank"]["stats"]
    if funnel["by_decision"]["active"] != stats["active_totals"]["patterns"]:
        problems.append("funnel_active_vs_bank")
    if stats["active_totals"] != stats["by_status"]["active"]:
        problems.append("active_totals_vs_by_status")
    for f in ("entities", "names", "patterns"):
        if stats["totals"][f] != sum(stats["by_status"][s][f] for s in stats["by_status"]):
            problems.append("totals_" + f)
    if stats["by_kind"]["literal"] + stats["by_kind"]["regex"] != stats["totals"]["patterns"]:
        problems.append("by_kind")
    selected = [it for it in card["iterations"] if it["selected"]]
    if len(selected) != 1 or selected[0]["bank_sha256"] != card["bank"]["canonical_sha256"] \
            or selected[0]["active_patterns"] != stats["active_totals"]["patterns"]:
        problems.append("selected_iteration")
    if card["builder"]["iteration_count"] != len(card["iterations"]):
        problems.append("iteration_count")
    if python_canonical_sha256({k: v for k, v in card.items() if k != "card_sha256"}) != card["card_sha256"]:
        problems.append("card_sha256")
    return problems


def dumps_public(obj: dict[str, Any]) -> bytes:
    """Pretty public JSON (sorted keys, indent 2, trailing newline)."""
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
