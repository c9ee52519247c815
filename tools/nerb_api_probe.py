"""Run NERB 0.0.12's bundle checks one by one through its Python API and print one JSON line (issue 19, item 6).

Runs inside the NERB environment (``python tools/nerb_api_probe.py BUNDLE``; it imports ``nerb``, never
``nerb_verify``). Each check calls NERB's own function on the bundle's files; nothing of NERB's logic is copied. The
generated-file comparison (``summary.md`` and the SVGs byte for byte against NERB's renderer) is **off**: the whole
bundle runs through ``_verify_bundle_core(..., check_generated=False)``.

Output: ``{"nerb_version", "checks": [{"check", "result", "detail"}], "whole_bundle": {...}}`` where ``result`` is
``passed``, ``failed`` or ``not_run`` and ``detail`` is NERB's fixed error sentence, NERB's diagnostic codes (never
their messages or paths, which can quote values) or an exception's type name.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _outcome(name: str, call: Callable[[], Any], errors: tuple[type[BaseException], ...]) -> dict[str, Any]:
    """Run one NERB check; a NERB publication error gives its fixed message, anything else only its type."""
    from nerb.enron_publication import EnronPublicationError

    try:
        value = call()
    except EnronPublicationError as exc:
        return {"check": name, "result": "failed", "detail": str(exc)}
    except errors as exc:
        return {"check": name, "result": "failed", "detail": type(exc).__name__}
    if isinstance(value, dict) and "valid" in value:
        codes = sorted({str(d.get("code")) for d in value.get("diagnostics") or [] if d.get("severity") == "error"})
        return {"check": name, "result": "passed" if value["valid"] is True else "failed", "detail": codes}
    if value is False:
        return {"check": name, "result": "failed", "detail": "NERB's recomputation differs"}
    return {"check": name, "result": "passed", "detail": None}


def probe(bundle: Path, whole_bundle: bool = True) -> dict[str, Any]:
    """Every NERB bundle check we can call on its own, in NERB's order, then (unless ``whole_bundle`` is False) the
    whole bundle."""
    import nerb.enron_publication as pub
    from nerb import __version__

    errors = (Exception,)
    load = pub._load_json
    docs = {name: load(bundle / f"{name}.json") for name in
            ("benchmark-manifest", "benchmark-evidence", "performance-report", "bank-card", "publication")}
    manifest, evidence, report = docs["benchmark-manifest"], docs["benchmark-evidence"], docs["performance-report"]
    inventories = {path.stem: pub._load_inventory(path) for path in sorted((bundle / "inventories").glob("*.json"))}
    checks: list[dict[str, Any]] = []
    capacity: dict[str, Any] = {}

    def capacity_check() -> None:
        capacity.update(pub._verify_capacity_artifact(bundle / "capacity-decision.json"))

    checks.append(_outcome("capacity_decision (verify_portable_capacity_decision, require_production=False)",
                           capacity_check, errors))
    checks.append(_outcome("manifest_contract (validate_enron_manifest)",
                           lambda: pub.validate_enron_manifest(manifest), errors))
    checks.append(_outcome("evidence_contract (validate_enron_evidence with the inventories)",
                           lambda: pub.validate_enron_evidence(evidence, manifest=manifest,
                                                               referenced_input_inventories=inventories), errors))
    checks.append(_outcome("performance_decision (evaluate_enron_performance_decision = report.decision_grade)",
                           lambda: pub.evaluate_enron_performance_decision(
                               report["performance"], report["environment"], report["software"],
                               profile=str(report["profile"])) == report.get("decision_grade"), errors))
    checks.append(_outcome("bank_card (_verify_bank_card)", lambda: pub._verify_bank_card(docs["bank-card"]), errors))
    files = {str(p.relative_to(bundle)): p.read_bytes() for p in sorted(bundle.rglob("*")) if p.is_file()}
    checks.append(_outcome("privacy_scan (_privacy_scan, every file)", lambda: pub._privacy_scan(files), errors))
    name = "publication_manifest (_verify_publication_manifest)"
    if not capacity and (bundle / "capacity-decision.json").is_file():
        # the capacity file as loaded, so the publication's bindings are still checked when its verification failed
        capacity.update(load(bundle / "capacity-decision.json"))
        name += " with the capacity file as loaded (its own verification failed)"
    if capacity:
        checks.append(_outcome(name, lambda: pub._verify_publication_manifest(
            docs["publication"], files={k: v for k, v in files.items() if k != "publication.json"},
            manifest=manifest, evidence=evidence, performance_report=report, bank_card=docs["bank-card"],
            capacity=capacity), errors))
    else:
        checks.append({"check": "publication_manifest (_verify_publication_manifest)", "result": "not_run",
                       "detail": "needs a verified capacity decision"})
    if not whole_bundle:
        return {"nerb_version": __version__, "checks": checks, "whole_bundle": None}
    whole = _outcome("whole bundle (_verify_bundle_core, check_generated=False)",
                     lambda: pub._verify_bundle_core(bundle, check_generated=False,
                                                     require_standalone_redaction_eligible=False), errors)
    return {"nerb_version": __version__, "checks": checks, "whole_bundle": whole}


def main(argv: list[str]) -> int:
    """Print the probe's JSON line for the bundle named by the last argument; exit 0 (the verdicts are in the JSON).

    ``--checks-only`` runs every check once and skips the whole-bundle run, which repeats them up to NERB's first
    failure (``tools/bench_verify.py`` times NERB's checks that way: each once, none twice)."""
    checks_only = argv[:1] == ["--checks-only"]
    rest = argv[1:] if checks_only else argv
    if len(rest) != 1:
        sys.stderr.write("usage: nerb_api_probe.py [--checks-only] BUNDLE\n")
        return 2
    print(json.dumps(probe(Path(rest[0]).resolve(), whole_bundle=not checks_only)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
