"""Schema family: every JSON artifact is validated against the shipped JSON Schema for its declared version.

An artifact is admitted to ``ctx.artifacts`` (and so to every semantic family) only when it loaded and its schema
passed; otherwise the semantic families report ``not_evaluated`` and the schema findings say why. An unknown or
missing ``schema_version`` is rejected, never skipped. Each failing JSON Schema keyword has its own stable code
(``schema.type``, ``schema.required``, ...), with the instance pointer; library messages are never shown.
"""

from __future__ import annotations

import re

from nerb_verify import context as C
from nerb_verify import memo, pointers
from nerb_verify import schema_validation as schemas
from nerb_verify.canonical import canonical_equal
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext
from nerb_verify.findings import Label

UNKNOWN_VERSION = register(
    "schema.unknown_version", "Artifact declares a schema_version this verifier does not know.",
    "Each artifact kind has exactly one accepted schema_version (for example nerb.enron_evidence.v2). A document "
    "with another or no version is rejected rather than skipped, so a new format cannot pass unchecked.")
UNAVAILABLE = register(
    "schema.unavailable", "No schema is shipped for this artifact kind.",
    "The verifier could not find the schema file for this artifact in its installation. Reinstall nerb-verify.")
MISSING_ARTIFACT = register(
    "schema.missing_artifact", "A required artifact is missing or could not be loaded.",
    "manifest, evidence, performance report, publication, bank card and capacity decision must all be present and "
    "loadable. Without one of them the checks that depend on it cannot run, so the bundle is rejected.")
PARITY = register(
    "schema.parity", "The two schema validators disagree about this document.",
    "fastjsonschema rejected the document but jsonschema found no error. The verifier fails closed. Please report "
    "this with the artifact's schema_version.")

# JSON Schema keyword -> code suffix. Each keyword is its own code so findings are stable and specific.
KEYWORDS = {
    "type": "A value has the wrong JSON type (integers must be written without a fraction; booleans are not numbers).",
    "required": "A required property is missing.",
    "additionalProperties": "An object has a property the schema does not allow (the key is not printed).",
    "const": "A value differs from the only value the schema allows.",
    "enum": "A value is not one of the allowed values.",
    "pattern": "A string, or an object key, does not match the required pattern (for example sha256:<64 "
               "lowercase hex>); keys are never printed.",
    "minimum": "A number is below the allowed minimum.",
    "maximum": "A number is above the allowed maximum.",
    "exclusiveMinimum": "A number is not above the exclusive minimum.",
    "minItems": "An array has fewer items than required.",
    "maxItems": "An array has more items than allowed.",
    "uniqueItems": "An array repeats an item that must be unique.",
    "minLength": "A string is shorter than allowed (empty strings are not allowed where text is required).",
    "maxLength": "A string is longer than allowed.",
    "minProperties": "An object has fewer properties than required.",
    "maxProperties": "An object has more properties than allowed.",
    "anyOf": "A value matches none of the allowed alternatives.",
    "oneOf": "A value matches none, or more than one, of the exclusive alternatives.",
}


def _code_name(keyword: str) -> str:
    return "schema." + re.sub(r"(?<!^)([A-Z])", r"_\1", keyword).lower()


KEYWORD_CODES = {kw: register(_code_name(kw), f"Schema violation: {kw}.", text) for kw, text in KEYWORDS.items()}
OTHER = register("schema.other_keyword", "Schema violation (another keyword).",
                 "The document violates a schema keyword not listed separately; the pointer says where.")

# artifact file (or folder prefix) -> (accepted schema_version or None for versionless, schema file name)
ARTIFACT_SCHEMAS: dict[str, tuple[str | None, str]] = {
    C.MANIFEST: ("nerb.enron_manifest.v2", "nerb.enron_manifest.v2.json"),
    C.EVIDENCE: ("nerb.enron_evidence.v2", "nerb.enron_evidence.v2.json"),
    C.PERFORMANCE_REPORT: ("nerb.enron_performance_run.v1", "nerb.enron_performance_run.v1.json"),
    C.PUBLICATION: ("nerb.enron_publication", "nerb.enron_publication.json"),
    C.BANK_CARD: ("nerb.enron_public_bank_card", "nerb.enron_public_bank_card.json"),
    C.CAPACITY_DECISION: ("nerb.enron_capacity_portable_decision", "nerb.enron_capacity_portable_decision.json"),
}
INVENTORY_SCHEMA = "nerb.enron_inventory.json"


def _schema_available(file_name: str) -> bool:
    return schemas.BASE_URI + file_name in schemas.schema_store()


def _schema_errors(ctx: VerifyContext, rel: str, data: object, file_name: str,
                   opaque: tuple[str, ...]) -> tuple[schemas.SchemaError, ...]:
    """The schema errors of ``data`` (the parsed ``rel``), memoised by the file's raw-byte hash and the schema
    variant: the parsed value, and so the error list, is a pure function of those bytes (see :mod:`nerb_verify.memo`).
    """
    digest = getattr(ctx.files.get(rel), "sha256", "")

    def compute() -> tuple[schemas.SchemaError, ...]:
        return tuple(schemas.validate(file_name, data, opaque))

    if not digest:
        return compute()
    return memo.cached(("schema", digest, file_name, opaque), compute)


def _check_one(ctx: VerifyContext, rel: str, data: object, version: str | None, file_name: str,
               opaque: tuple[str, ...] = ()) -> bool:
    collector = ctx.collector
    if version is not None:
        declared = data.get("schema_version") if isinstance(data, dict) else None
        if declared != version:
            collector.add(UNKNOWN_VERSION, rel, "/schema_version" if isinstance(data, dict) and
                          "schema_version" in data else "", "Expected schema_version {expected}.",
                          expected=Label(version))
            return False
    if not _schema_available(file_name):
        collector.add(UNAVAILABLE, rel, "", "No schema file {name} is installed.", name=Label(file_name))
        return False
    try:
        errors = _schema_errors(ctx, rel, data, file_name, opaque)
    except schemas.SchemaUnavailable:
        collector.add(UNAVAILABLE, rel, "", "A schema that {name} refers to is not installed.", name=Label(file_name))
        return False
    for error in errors:
        pointer = pointers.safe_pointer(data, list(error.path))
        if error.keyword == "parity":
            collector.add(PARITY, rel, pointer)
        else:
            collector.add(KEYWORD_CODES.get(error.keyword, OTHER), rel, pointer)
    return not errors


def report_repeats_evidence(ctx: VerifyContext) -> bool:
    """Whether the performance report's ``performance`` section is canonically identical to the admitted evidence's.

    Computed once (canonical bytes, so ``1`` and ``1.0`` differ) and shared as ``schema.report_performance_identical``
    with the performance family, which must check the same equality.
    """
    key = "schema.report_performance_identical"
    if key not in ctx.shared:
        evidence, report = ctx.artifacts.get(C.EVIDENCE), ctx.loaded.get(C.PERFORMANCE_REPORT)
        identical = False
        if isinstance(evidence, dict) and isinstance(report, dict) and "performance" in report:
            identical = canonical_equal(report["performance"], evidence["performance"])
        ctx.shared[key] = identical
    return bool(ctx.shared[key])


def run(ctx: VerifyContext) -> None:
    """Validate every loaded JSON artifact; admit the valid ones to ``ctx.artifacts``; report missing ones."""
    checked = 0
    for rel, (version, file_name) in ARTIFACT_SCHEMAS.items():
        if rel not in ctx.loaded:
            absent = rel not in ctx.files and rel not in ctx.shared.get("bundle.unusable", set())
            # An absent capacity decision is a decision-grade requirement (capacity.not_evaluated), not a schema
            # failure: a declared smoke bundle may omit it (docs/decision-grade.md).
            if absent and rel != C.CAPACITY_DECISION:
                ctx.collector.add(MISSING_ARTIFACT, rel, "")
            continue
        checked += 1
        opaque = ("performance",) if rel == C.PERFORMANCE_REPORT and report_repeats_evidence(ctx) else ()
        if _check_one(ctx, rel, ctx.loaded[rel], version, file_name, opaque):
            ctx.artifacts[rel] = ctx.loaded[rel]
    for inventory_id in sorted(ctx.inventories):
        rel = f"{C.INVENTORIES_DIR}/{inventory_id}.json"
        checked += 1
        if not _check_one(ctx, rel, ctx.inventories[inventory_id], None, INVENTORY_SCHEMA):
            del ctx.inventories[inventory_id]
    ctx.collector.ran("schema", artifacts=checked)
