"""fastjsonschema (the fast path) and jsonschema (the explainer) agree on every artifact of every schema fixture
and of the real bundle: both accept, or both reject."""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nerb_verify import schema_validation  # noqa: E402
from nerb_verify.checks.raw.schema_check import ARTIFACT_SCHEMAS, INVENTORY_SCHEMA  # noqa: E402
from nerb_verify.loader import BUNDLE_LIMITS, LoadFailure, parse_json_bytes  # noqa: E402
from tools.fixturelib import INVALID, materialize  # noqa: E402

SCHEMA_CASES = sorted(p for p in INVALID.iterdir() if p.name.startswith("schema."))


def _documents(bundle: Path) -> list[tuple[str, str, bytes, str]]:
    """(file, schema, raw bytes, JSON root) of every schema-checked artifact in ``bundle``."""
    docs = []
    for rel, (_version, schema) in ARTIFACT_SCHEMAS.items():
        path = bundle / rel
        if path.is_file():
            docs.append((rel, schema, path.read_bytes(), "object"))
    for path in sorted((bundle / "inventories").glob("*.json")):
        docs.append((path.name, INVENTORY_SCHEMA, path.read_bytes(), "array"))
    return docs


# Both validators are pure functions of (schema, document): a document whose exact bytes were already compared under
# the same schema (most files of a schema fixture are the real bundle's, unchanged) need not be compared again.
_COMPARED: dict[tuple[str, str], tuple[bool, bool]] = {}


def _verdicts(schema: str, raw: bytes, root: str) -> tuple[bool, bool] | None:
    """(fast path valid, explainer valid) for one document, or None when it does not parse."""
    key = (schema, hashlib.sha256(raw).hexdigest())
    if key not in _COMPARED:
        try:
            doc = parse_json_bytes(raw, BUNDLE_LIMITS, root=root)
        except LoadFailure:
            return None
        _COMPARED[key] = (schema_validation.fast_is_valid(schema, doc), schema_validation.explain(schema, doc) == [])
    return _COMPARED[key]


def _assert_parity(bundle: Path) -> None:
    for rel, schema, raw, root in _documents(bundle):
        verdicts = _verdicts(schema, raw, root)
        if verdicts is not None:
            fast, slow = verdicts
            assert fast == slow, rel


def test_parity_on_the_real_bundle(real_bundle: Path) -> None:
    _assert_parity(real_bundle)


@pytest.mark.parametrize("case_dir", SCHEMA_CASES, ids=[p.name for p in SCHEMA_CASES])
def test_parity_on_fixtures(case_dir: Path, tmp_path: Path) -> None:
    case = json.loads((case_dir / "case.json").read_text())
    _assert_parity(materialize(case, tmp_path))


_EVIDENCE = REPO / "fixtures" / "bundles" / "nerb-enron" / "benchmark-evidence.json"


@functools.lru_cache(maxsize=None)
def _validator(schema: str, bulk: bool) -> object:
    """The generated fast validator of ``schema``, with or without the bulk checks of number and record arrays."""
    with pytest.MonkeyPatch.context() as patch:
        if not bulk:
            patch.setattr(schema_validation, "_numeric_items", lambda resolver, items: None)
            patch.setattr(schema_validation, "_record_items", lambda resolver, items: None)
        name, source = schema_validation._generate_source(schema)
    assert (schema_validation._BULK_NAME + "(" in source) is bulk
    namespace: dict[str, object] = {}
    exec(compile(source, schema, "exec"), namespace)  # noqa: S102 - generated from our own schema files
    return namespace[name]


def _accepts(validator: object, doc: object) -> bool:
    import fastjsonschema

    try:
        validator(doc)  # type: ignore[operator]
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True


@pytest.mark.parametrize("field, value", [
    ("rss_samples_bytes", 0), ("rss_samples_bytes", True), ("rss_samples_bytes", 5.0), ("rss_samples_bytes", -1),
    ("rss_samples_bytes", 2**63), ("rss_samples_bytes", "7"), ("rss_samples_bytes", 2**63 - 1),
    ("samples_seconds", 0.0), ("samples_seconds", 1e-10), ("samples_seconds", 86400), ("samples_seconds", 86400.5),
    ("samples_seconds", False), ("samples_seconds", float("nan")), ("samples_seconds", float("inf")),
    ("samples_seconds", 10**400), ("samples_seconds", None), ("samples_seconds", 1), ("samples_seconds", 1e-9),
])
def test_bulk_number_arrays_give_the_per_item_verdict(field: str, value: object) -> None:
    """The generated validator checks arrays of bounded numbers in bulk before its per-item loop; one bad item
    anywhere (type, bound, bool, NaN, infinity, a huge int) gives the verdict the per-item loop alone gives, and the
    real arrays are accepted both ways."""
    schema = ARTIFACT_SCHEMAS["benchmark-evidence.json"][1]
    with_bulk, per_item = _validator(schema, True), _validator(schema, False)
    doc = json.loads(_EVIDENCE.read_bytes())
    assert _accepts(with_bulk, doc) and _accepts(per_item, doc)
    items = doc["performance"]["workloads"][3][field]
    items[len(items) // 2] = value
    assert _accepts(with_bulk, doc) == _accepts(per_item, doc)


_CAPACITY = REPO / "fixtures" / "bundles" / "nerb-enron" / "capacity-decision.json"


def _mutate_record(kind: str, item: dict) -> object:
    """One record of an array of flat records, broken (or kept valid) in one way."""
    key = "kind" if "kind" in item else "sequence"
    changes = {
        "missing key": lambda: {k: v for k, v in item.items() if k != key},
        "extra key": lambda: {**item, "extra": 1},
        "not a dict": lambda: list(item.items()),
        "bool count": lambda: {**item, "sequence": True},
        "float count": lambda: {**item, "sequence": 5.0},
        "negative count": lambda: {**item, "sequence": -1},
        "huge count": lambda: {**item, "sequence": 2**63},
        "null count": lambda: {**item, "sequence": None},
        "empty kind": lambda: {**item, key: ""} if key == "kind" else {**item, key: "x"},
        "control char kind": lambda: {**item, key: "a\u0007b"} if key == "kind" else {**item, key: 1.5},
        "long kind": lambda: {**item, key: "k" * 4097} if key == "kind" else {**item, key: [1]},
        "int kind": lambda: {**item, key: 7} if key == "kind" else {**item, key: {}},
        "valid other kind": lambda: {**item, key: "another_kind"} if key == "kind" else {**item, key: 3},
        "reordered keys": lambda: dict(reversed(list(item.items()))),
    }
    return changes[kind]()


@pytest.mark.parametrize("array", ["progress_signals", "checkpoint_samples"])
@pytest.mark.parametrize("kind", ["missing key", "extra key", "not a dict", "bool count", "float count",
                                  "negative count", "huge count", "null count", "empty kind", "control char kind",
                                  "long kind", "int kind", "valid other kind", "reordered keys"])
def test_bulk_record_arrays_give_the_per_item_verdict(array: str, kind: str) -> None:
    """The generated validator checks arrays of flat records (exactly the required keys, bounded numbers, bounded
    strings with a pattern) column by column before its per-item loop; one record broken in any way (a key missing
    or added, not an object, a bool, float, negative, huge or null count, a string empty, too long, off its pattern
    or not a string) gives the verdict the per-item loop alone gives; valid changes are accepted both ways."""
    schema = ARTIFACT_SCHEMAS["capacity-decision.json"][1]
    with_bulk, per_item = _validator(schema, True), _validator(schema, False)
    doc = json.loads(_CAPACITY.read_bytes())
    assert _accepts(with_bulk, doc) and _accepts(per_item, doc)
    items = doc["report"]["phases"][1][array]
    items[len(items) // 2] = _mutate_record(kind, items[len(items) // 2])
    verdict = _accepts(per_item, doc)
    assert _accepts(with_bulk, doc) == verdict
    assert verdict is (kind in ("valid other kind", "reordered keys") or (array == "checkpoint_samples"
                                                                           and kind == "valid other kind"))


def test_generated_validators_do_not_depend_on_the_hash_seed() -> None:
    """The validators shipped in the wheel are generated source: two builds with different hash seeds write the same
    bytes (a set's order, say, must not leak into them)."""
    import os
    import subprocess
    import sys

    script = ("import hashlib, sys\nfrom nerb_verify import schema_validation as sv\nh = hashlib.sha256()\n"
              "for uri in sorted(sv.schema_store()):\n    if uri.startswith(sv.BASE_URI):\n"
              "        h.update(sv._generate_source(uri[len(sv.BASE_URI):])[1].encode())\nprint(h.hexdigest())\n")
    digests = set()
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONHASHSEED=seed)
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=REPO,
                              timeout=300, check=True)
        digests.add(done.stdout.strip())
    assert len(digests) == 1
