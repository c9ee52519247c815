"""Property: any single edit of a recomputable or bound value, resealed, is detected.

A leaf is drawn from the parts of the real evidence whose every value the verifier either recomputes from raw data
(quality counts and rates, conformance, gate actuals and flags, performance statistics and comparison figures) or
binds across artifacts (provenance copied from the manifest). It is nudged (an integer by +1, a float to the next
double up, a boolean flipped), every hash is recomputed, and the verifier must reject the bundle.

Raw timing samples are deliberately not in the pool: moving one sample without changing any statistic yields a
consistent bundle, which is exactly the forgery verification cannot detect (docs/threat-model.md).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tools.fixturelib import materialize  # noqa: E402

from contract_tests.conftest import REAL_BUNDLE, verify_dir  # noqa: E402

EVIDENCE = json.loads((REAL_BUNDLE / "benchmark-evidence.json").read_text())
PREFIXES = ("/quality/slices/", "/catalog_conformance/", "/promotion/checks/", "/performance/comparisons/",
            "/performance/breakeven_models/", "/environment/", "/bank/", "/splits/", "/source/input_records")
SKIP_SUFFIXES = ("/samples_seconds", "/rss_samples_bytes")
# Leaves that are free within their bounds: plan parameters with an allowed range (a different value is a different
# but legitimate plan), and a raw count that no derived figure depends on. Found by this property; documented in
# docs/threat-model.md as raw measurements that consistency cannot pin down.
FREE_LEAVES = ("/maximum_units", "/minimum_units", "/regression_tolerance", "/noise_multiplier",
               "/documents_with_any_leaked_character")


def _leaves(value: object, pointer: str = "") -> list[tuple[str, object]]:
    if isinstance(value, dict):
        return [leaf for key, child in value.items() for leaf in _leaves(child, f"{pointer}/{key}")]
    if isinstance(value, list):
        return [leaf for i, child in enumerate(value) for leaf in _leaves(child, f"{pointer}/{i}")]
    return [(pointer, value)]


def _pool() -> list[tuple[str, object]]:
    pool = []
    for pointer, value in _leaves(EVIDENCE):
        if not pointer.startswith(PREFIXES) and "/stats/" not in pointer:
            continue
        if any(s in pointer for s in SKIP_SUFFIXES) or pointer.endswith(FREE_LEAVES):
            continue
        if isinstance(value, str) or value is None:
            continue
        pool.append((pointer, value))
    return pool


POOL = _pool()


def _nudge(value: object, pointer: str = "") -> object:
    """The smallest edit of a leaf that the verifier must notice.

    Thresholds move in the *loosening* direction (tightening a threshold is always allowed). Performance
    statistics move by a relative 1e-9, because the float policy accepts either of two derivations of the same
    figure (exact, or step by step in doubles) and a one-ulp step can land on the other one.
    """
    if isinstance(value, bool):
        return not value
    direction = 1
    if pointer.endswith("/threshold"):
        check = EVIDENCE["promotion"]["checks"][int(pointer.split("/")[3])]
        direction = -1 if check["operator"] == "gte" else 1
    if isinstance(value, int):
        return value + direction
    assert isinstance(value, float)
    if pointer.startswith("/performance/") and value != 0.0:
        return value * (1 + direction * 1e-9)
    return math.nextafter(value, direction * math.inf)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(POOL))
def test_single_nudge_is_detected(tmp_path_factory, leaf: tuple[str, object]) -> None:
    pointer, value = leaf
    case = {"base": "nerb-enron", "reseal": True,
            "ops": [{"op": "json_set", "file": "benchmark-evidence.json", "pointer": pointer,
                     "value": _nudge(value, pointer)}]}
    bundle = materialize(case, tmp_path_factory.mktemp("nudge"))
    result = verify_dir(bundle)
    assert result.verdict == "rejected", pointer


def test_pool_is_large() -> None:
    assert len(POOL) > 500
