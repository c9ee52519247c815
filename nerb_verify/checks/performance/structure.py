"""Collection shape, descriptor hashes, bank composition and references between descriptors and workloads."""

from __future__ import annotations

from typing import Any

from nerb_verify.checks.performance import codes as C
from nerb_verify.checks.performance import hashes
from nerb_verify.checks.performance.state import COLLECTIONS, PerfState, label

REFERENCE_FIELDS = (("harness_id", "harnesses"), ("bank_id", "banks"), ("input_id", "inputs"),
                    ("baseline_id", "baselines"))


def check_collections(state: PerfState) -> bool:
    """Every collection is a list of objects sorted by unique string id; builds the id index. False = unusable."""
    usable = True
    for name in COLLECTIONS:
        value = state.performance.get(name)
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            state.add(C.SECTION_MALFORMED, (name,), "Collection {name} is not a list of objects.", name=label(name))
            usable = False
            continue
        ids = [item.get("id") for item in value]
        positions: dict[str, int] = {}
        for position, ident in enumerate(ids):
            if isinstance(ident, str) and ident not in positions:
                positions[ident] = position
        state.index[name] = positions
        if not all(isinstance(i, str) for i in ids) or len(positions) != len(ids) or ids != sorted(ids):
            state.add(C.DESCRIPTOR_ORDER, (name,), "Collection {name} is not sorted by unique id.", name=label(name))
    return usable


def check_descriptor_hashes(state: PerfState) -> None:
    """descriptor_sha256 of banks/inputs/harnesses/baselines and harness operation_spec_sha256, recomputed."""
    for name in hashes.DESCRIPTOR_COLLECTIONS:
        for position, descriptor in enumerate(state.items(name)):
            recomputed = hashes.descriptor_sha256(descriptor)
            published = descriptor.get("descriptor_sha256")
            state.record((name, position, "descriptor_sha256"), f"performance.{name}.descriptor_sha256", published,
                         recomputed, published == recomputed)
            if published != recomputed:
                state.add(C.DESCRIPTOR_HASH, (name, position, "descriptor_sha256"))
    for position, harness in enumerate(state.items("harnesses")):
        recomputed_spec = hashes.operation_spec_sha256(harness)
        published = harness.get("operation_spec_sha256")
        if recomputed_spec is not None:
            state.record(("harnesses", position, "operation_spec_sha256"), "performance.harness.operation_spec_sha256",
                         published, recomputed_spec, published == recomputed_spec)
        if recomputed_spec is None or published != recomputed_spec:
            state.add(C.DESCRIPTOR_HASH, ("harnesses", position, "operation_spec_sha256"))


def _class_set(bank: dict[str, Any]) -> frozenset[Any] | None:
    composition = bank.get("composition")
    rows = composition.get("taxonomy") if isinstance(composition, dict) else None
    if not isinstance(rows, list):
        return None
    return frozenset(r.get("entity_class") for r in rows if isinstance(r, dict))


GENERATED_KINDS = {"banks": ("evaluated_bank", "synthetic_scale"), "inputs": ("real_input", "synthetic_input")}


def _check_generators(state: PerfState) -> None:
    """Generator null exactly for the evaluated bank and real inputs, an object for everything synthetic."""
    for collection, (natural, synthetic) in GENERATED_KINDS.items():
        for position, item in enumerate(state.items(collection)):
            kind, generator = item.get("kind"), item.get("generator")
            if (kind == natural and generator is not None) or (kind == synthetic and not isinstance(generator, dict)):
                state.add(C.DESCRIPTOR_KIND, (collection, position, "generator"))


def _check_class_sets(state: PerfState) -> None:
    """Every synthetic scale bank covers exactly the evaluated bank's entity classes (its composition is a scaled
    copy of the evaluated bank's, so a class renamed or added in one bank is not a measurement)."""
    banks = state.items("banks")
    evaluated = [_class_set(b) for b in banks if b.get("kind") == "evaluated_bank"]
    if len(evaluated) != 1 or evaluated[0] is None:
        return
    for position, bank in enumerate(banks):
        if bank.get("kind") == "synthetic_scale" and _class_set(bank) not in (None, evaluated[0]):
            state.add(C.BANK_COMPOSITION, ("banks", position, "composition", "taxonomy"),
                      "The scale bank's entity classes are not the evaluated bank's.")


def check_bank_composition(state: PerfState) -> None:
    """Bank totals equal taxonomy sums (names = canonical names + aliases, patterns = literal + regex)."""
    for position, bank in enumerate(state.items("banks")):
        rows = (bank.get("composition") or {}).get("taxonomy") if isinstance(bank.get("composition"), dict) else None
        if not isinstance(rows, list) or not rows:
            state.add(C.BANK_COMPOSITION, ("banks", position, "composition"))
            continue
        try:
            sums = {
                "active_entities": sum(r["entities"] for r in rows),
                "active_aliases": sum(r["aliases"] for r in rows),
                "active_names": sum(r["canonical_names"] + r["aliases"] for r in rows),
                "active_patterns": sum(r["literal_patterns"] + r["regex_patterns"] for r in rows),
            }
            classes = [r["entity_class"] for r in rows]
        except (KeyError, TypeError):
            state.add(C.BANK_COMPOSITION, ("banks", position, "composition"))
            continue
        if len(set(classes)) != len(classes):
            state.add(C.BANK_COMPOSITION, ("banks", position, "composition", "taxonomy"),
                      "A taxonomy class appears twice.")
        for key, total in sums.items():
            published = bank.get(key)
            state.record(("banks", position, key), f"performance.bank.{key}", published, total, published == total)
            if published != total or isinstance(published, bool):
                state.add(C.BANK_COMPOSITION, ("banks", position, key), "{field} is not the taxonomy sum.",
                          field=label(key))
    _check_class_sets(state)
    _check_generators(state)
    kinds = [b.get("kind") for b in state.items("banks")]
    if kinds.count("evaluated_bank") != 1:
        state.add(C.BANK_COMPOSITION, ("banks",), "Exactly one evaluated bank is required; found {n}.",
                  n=kinds.count("evaluated_bank"))
    values = [str(b.get("bank_hash")) for b in state.items("banks")]
    if len(set(values)) != len(values):
        state.add(C.BANK_COMPOSITION, ("banks",), "Two banks share one bank_hash.")
    artifacts = [str((b.get("artifact") or {}).get("sha256")) if isinstance(b.get("artifact"), dict) else ""
                 for b in state.items("banks")]
    if len(set(artifacts)) != len(artifacts):
        state.add(C.BANK_COMPOSITION, ("banks",), "Two banks share one artifact.")
    evidence_bank = (state.ctx.evidence or {}).get("bank") if isinstance(state.ctx.evidence, dict) else None
    evaluated = [b for b in state.items("banks") if b.get("kind") == "evaluated_bank"]
    if isinstance(evidence_bank, dict) and evaluated:
        artifact = evaluated[0].get("artifact") if isinstance(evaluated[0].get("artifact"), dict) else {}
        if (evaluated[0].get("bank_hash") != evidence_bank.get("canonical_hash")
                or artifact.get("sha256") != evidence_bank.get("artifact_sha256")
                or artifact.get("bytes") != evidence_bank.get("artifact_bytes")
                or any(evaluated[0].get(key) != evidence_bank.get(key) for key in EVALUATED_BANK_SIZES)):
            position = state.items("banks").index(evaluated[0])
            state.add(C.UNKNOWN_REFERENCE, ("banks", position, "bank_hash"),
                      "The evaluated performance bank is not the evidence's bank.")


# What each frozen exploratory harness's implementation can do (spec 20 section 2; the charter: "capability
# differences must still be stated for non-equivalent exploratory baseline measurements").
EXPLORATORY_CAPABILITIES: dict[str, dict[str, bool]] = {
    "generic_regex_harness": {"aliases": False, "canonical_mapping": False, "literal_patterns": False,
                              "regex_patterns": True, "unicode": False},
    "python_literal_harness": {"aliases": True, "canonical_mapping": True, "literal_patterns": True,
                               "regex_patterns": False, "unicode": True},
}


# Sizes and counts the evaluated performance bank shares with the evidence's bank provenance (the same bank).
EVALUATED_BANK_SIZES = ("canonical_json_bytes", "native_source_bytes", "active_entities", "active_names",
                        "active_aliases", "active_patterns")


def check_baselines(state: PerfState) -> None:
    """An ``exact`` baseline supports every capability (it stands in for the candidate's semantics); a baseline
    measured by a frozen exploratory harness is ``not_equivalent`` with that implementation's capabilities."""
    harnesses_of: dict[object, set[object]] = {}
    for workload in state.items("workloads"):
        harnesses_of.setdefault(workload.get("baseline_id"), set()).add(workload.get("harness_id"))
    for position, baseline in enumerate(state.items("baselines")):
        capabilities = baseline.get("capabilities")
        if baseline.get("semantic_equivalence") == "exact" and (
                not isinstance(capabilities, dict) or not capabilities
                or not all(value is True for value in capabilities.values())):
            state.add(C.BASELINE_CAPABILITY, ("baselines", position, "capabilities"))
            continue
        for harness in sorted(str(h) for h in harnesses_of.get(baseline.get("id"), set())):
            frozen = EXPLORATORY_CAPABILITIES.get(harness)
            if frozen is not None and (baseline.get("semantic_equivalence") != "not_equivalent"
                                       or capabilities != frozen):
                state.add(C.BASELINE_CAPABILITY, ("baselines", position, "capabilities"),
                          "The baseline measured by {harness} does not state that implementation's capabilities.",
                          harness=label(harness))
                break


def check_references(state: PerfState) -> None:
    """Workload and input references resolve, with matching reference hashes; every descriptor is used."""
    used: dict[str, set[str]] = {name: set() for _f, name in REFERENCE_FIELDS}
    for position, item in enumerate(state.items("inputs")):
        found = state.lookup("banks", item.get("bank_id"))
        if found is None or found[1].get("bank_hash") != item.get("bank_hash"):
            state.add(C.UNKNOWN_REFERENCE, ("inputs", position, "bank_id"))
    for position, workload in enumerate(state.items("workloads")):
        for key, name in REFERENCE_FIELDS:
            ident = workload.get(key)
            if ident is None and key in ("input_id", "baseline_id"):
                continue
            found = state.lookup(name, ident)
            if found is None:
                state.add(C.UNKNOWN_REFERENCE, ("workloads", position, key))
                continue
            used[name].add(ident)
            target = found[1]
            pairs: list[tuple[str, Any]] = []
            if name == "harnesses":
                pairs = [("harness_sha256", target.get("descriptor_sha256"))]
            elif name == "banks":
                pairs = [("bank_hash", target.get("bank_hash"))]
            elif name == "inputs":
                pairs = [("input_sha256", target.get("descriptor_sha256"))]
                if target.get("bank_id") != workload.get("bank_id"):
                    state.add(C.UNKNOWN_REFERENCE, ("workloads", position, "input_id"),
                              "The input was prepared for another bank.")
            for field_name, expected in pairs:
                if workload.get(field_name) != expected:
                    state.add(C.UNKNOWN_REFERENCE, ("workloads", position, field_name))
        if workload.get("input_id") is None and workload.get("input_sha256") is not None:
            state.add(C.UNKNOWN_REFERENCE, ("workloads", position, "input_sha256"))
    for _key, name in REFERENCE_FIELDS:
        for position, item in enumerate(state.items(name)):
            if item.get("id") not in used[name]:
                state.add(C.UNUSED_DESCRIPTOR, (name, position))
    commands = (state.ctx.evidence or {}).get("commands") if isinstance(state.ctx.evidence, dict) else None
    command_ids = _command_ids(commands)
    for position, harness in enumerate(state.items("harnesses")):
        if command_ids is not None and harness.get("command_id") not in command_ids:
            state.add(C.UNKNOWN_REFERENCE, ("harnesses", position, "command_id"))
        needs_source = harness.get("phase") in ("source_profile", "source_build")
        if needs_source != (harness.get("source_artifact") is not None):
            state.add(C.UNKNOWN_REFERENCE, ("harnesses", position, "source_artifact"))
        elif needs_source:
            train = _train_artifact(state)
            if train is not None and harness.get("source_artifact") != train:
                state.add(C.UNKNOWN_REFERENCE, ("harnesses", position, "source_artifact"),
                          "The setup harness does not bind the frozen train split artifact.")


def _command_ids(commands: Any) -> set[str] | None:
    if isinstance(commands, list):
        return {c.get("id") for c in commands if isinstance(c, dict) and isinstance(c.get("id"), str)}
    if isinstance(commands, dict):
        return {k for k in commands if isinstance(k, str)}
    return None


def _train_artifact(state: PerfState) -> Any:
    evidence = state.ctx.evidence if isinstance(state.ctx.evidence, dict) else {}
    splits = evidence.get("splits")
    if not isinstance(splits, dict):
        return None
    roles = splits.get("roles")
    if not isinstance(roles, dict) or not isinstance(roles.get("train"), dict):
        return None
    return roles["train"].get("artifact")
