"""Run the manifest, quality, conformance and decision families on in-memory artifacts (fast unit tests).

The artifacts are deep copies of the real bundle's manifest, evidence and publication, edited by the test; only the
families under test run, so a test sees exactly the findings those families raise.
"""

from __future__ import annotations

import copy
import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from nerb_verify.checks import quality  # noqa: E402
from nerb_verify.checks.cross_artifact import decisions  # noqa: E402
from nerb_verify.checks.provenance import manifest_rules  # noqa: E402
from nerb_verify.checks.quality import conformance  # noqa: E402
from nerb_verify.context import EVIDENCE, MANIFEST, PUBLICATION, VerifyContext, VerifyOptions  # noqa: E402
from nerb_verify.findings import Collector  # noqa: E402

BUNDLE = REPO / "fixtures" / "bundles" / "nerb-enron"
ALL_FAMILIES: tuple[Callable[[VerifyContext], None], ...] = (
    manifest_rules.run, quality.run, conformance.run, decisions.run)


@functools.lru_cache(maxsize=1)
def _real() -> dict[str, Any]:
    return {name: json.loads((BUNDLE / name).read_text(encoding="utf-8"))
            for name in (MANIFEST, EVIDENCE, PUBLICATION)}


def real_artifacts() -> dict[str, Any]:
    """Fresh deep copies of the real manifest, evidence and publication."""
    return copy.deepcopy(_real())


def run_families(artifacts: dict[str, Any],
                 families: tuple[Callable[[VerifyContext], None], ...] = ALL_FAMILIES) -> VerifyContext:
    """Run ``families`` over ``artifacts`` (name -> parsed object, None for missing) and return the context."""
    ctx = VerifyContext(root=BUNDLE, options=VerifyOptions(), collector=Collector())
    for name, value in artifacts.items():
        if value is not None:
            ctx.artifacts[name] = value
            ctx.loaded[name] = value
    for run in families:
        run(ctx)
    return ctx


def codes(ctx: VerifyContext) -> set[str]:
    """The set of finding codes raised."""
    return {f.code for f in ctx.collector.findings}


def mutate(edit: Callable[[dict[str, Any]], None]) -> VerifyContext:
    """Copy the real artifacts, apply ``edit(artifacts)``, run all four families."""
    artifacts = real_artifacts()
    edit(artifacts)
    return run_families(artifacts)


def slice_of(artifacts: dict[str, Any], index: int) -> dict[str, Any]:
    """Evidence quality slice ``index``."""
    return artifacts[EVIDENCE]["quality"]["slices"][index]
