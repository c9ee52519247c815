"""Attack simulator: write mutant bundles (as patches) with what the verifier must say about each.

Four families of cases, over two valid bases: the vendored real bundle (``fixtures/bundles/nerb-enron``, a
decision-profile bundle) and the small synthetic smoke bundle our own producers generate
(``fixtures/bundles/synthetic-smoke``, written by ``tools/make_synthetic_bundle.py``; its cases are named
``smoke-*`` and their edits are derived from the committed copy, so re-run this tool after regenerating it):

* ``naive``: an edit (a count, a rate, a threshold, a raw timing or RSS sample, a gate flag, a claim, an enum, a
  figure in summary.md or an SVG) with every hash left stale;
* ``hash_aware``: an edit followed by recomputing every binding hash up to ``publication_sha256``
  (:func:`nerb_verify.seal.seal_bundle`), so only recomputation or a cross-artifact binding can catch it; includes
  privacy payloads in free-text fields of every JSON artifact kind under many encodings;
* ``structural``: hostile files (nesting, huge arrays, NaN, duplicate keys, bad UTF-8, lone surrogates, BOM,
  trailing garbage, wrong root, 200 MiB files, symlinks, path traversal, missing/extra/empty files);
* ``control``: changes that must still verify (byte copy, whitespace, key order, ASCII escapes, file modes, links).

Each case is written to ``contract_tests/cases/<family>/<name>/`` as ``case.json`` (fixturelib ops) and
``expected.json`` (``verdict``, ``exit_code``, ``codes`` that must appear, ``families`` of which at least one code
must appear, optional ``pointers``; never messages). Large files are produced by ``write_repeat`` ops at test time,
never committed. Injected identifiers are stored masked (``fixturelib.mask``: UTF-8 XOR 0x80, base64; our scanner
decodes base64, so plain base64 would not keep the repository clean under its own scanner);
``expected.json`` lists their decoded forms under ``forbidden_output_masked`` so the runner can check that no output
ever contains them.

Usage: python tools/mutate.py [--out DIR]
"""

from __future__ import annotations

import argparse
import base64
import json
import shutil
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.fixturelib import mask  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "contract_tests" / "cases"

EVIDENCE = "benchmark-evidence.json"
MANIFEST = "benchmark-manifest.json"
REPORT = "performance-report.json"
CARD = "bank-card.json"
CAPACITY = "capacity-decision.json"
PUBLICATION = "publication.json"
INVENTORY = "inventories/real_validation_inventory.json"
JSON_KINDS = [MANIFEST, EVIDENCE, REPORT, PUBLICATION, CARD, CAPACITY, INVENTORY]
MIB = 1024 * 1024


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _set(file: str, pointer: str, value: Any) -> dict[str, Any]:
    return {"op": "json_set", "file": file, "pointer": pointer, "value": value}


def _case(family: str, name: str, ops: list[dict[str, Any]], description: str, *, reseal: bool = False,
          post_ops: list[dict[str, Any]] | None = None, post_seal: list[str] | None = None,
          verdict: str = "rejected", codes: list[str] | None = None, families: list[str] | None = None,
          forbidden: list[str] | None = None, warnings: list[str] | None = None,
          base: str = "nerb-enron") -> dict[str, Any]:
    exit_code = {"verified": 0, "rejected": 1, "could_not_verify": 2, "ineligible": 3}[verdict]
    expect: dict[str, Any] = {"verdict": verdict, "exit_code": exit_code, "codes": sorted(codes or []),
                              "families": sorted(families or [])}
    if forbidden:
        expect["forbidden_output_masked"] = [mask(v) for v in forbidden]
    if warnings:
        expect["warnings"] = sorted(warnings)
    case: dict[str, Any] = {"family": family, "name": name, "description": description, "base": base,
                            "ops": ops, "reseal": reseal}
    if post_ops:
        case["post_ops"] = post_ops
    if post_seal:
        case["post_seal"] = post_seal
    return {"case": case, "expected": expect}


# --- naive edits: hashes left stale ------------------------------------------------------------------------------

NAIVE_EDITS: list[tuple[str, list[dict[str, Any]], str]] = [
    ("count", [_set(EVIDENCE, "/quality/slices/0/true_positive", 143)], "a quality count"),
    ("rate", [_set(EVIDENCE, "/quality/slices/0/metrics/precision", 0.96)], "a stored rate"),
    ("threshold", [_set(EVIDENCE, "/promotion/checks/1/threshold", 0.1)], "a gate threshold"),
    ("timing-sample", [_set(EVIDENCE, "/performance/workloads/0/samples_seconds/0", 0.0001)], "a raw timing sample"),
    ("rss-sample", [_set(EVIDENCE, "/performance/workloads/0/rss_samples_bytes/0", 42667008)], "a raw RSS sample"),
    ("gate-flag", [_set(EVIDENCE, "/promotion/checks/1/passed", True)], "a gate's passed flag"),
    ("claim", [_set(EVIDENCE, "/promotion/claims", [{"id": "c"}])], "an injected claim"),
    ("enum", [_set(EVIDENCE, "/audit_chain/prediction_audit/release", "quality_eligible")], "an enum value"),
    ("manifest-count", [_set(MANIFEST, "/source/input_records", 517402)], "a manifest count"),
    ("card-count", [_set(CARD, "/candidate_funnel/total_candidates", 82174)], "a bank-card count"),
    ("capacity-attempt", [_set(CAPACITY, "/attempt_chain/0/elapsed_ns", 410079834)], "a capacity attempt"),
    ("report-sample", [_set(REPORT, "/performance/workloads/0/samples_seconds/1", 0.0001)], "a report sample"),
    ("inventory", [_set(INVENTORY, "/0/bytes", 59)], "an inventory entry"),
    ("summary-figure", [{"op": "replace_text", "file": "summary.md", "old": "| 10.48% |", "new": "| 80.48% |"}],
     "a percentage in summary.md"),
    ("svg-figure", [{"op": "replace_text", "file": "figures/performance-scale.svg", "old": ">6,811 docs/s<",
                     "new": ">9,811 docs/s<"}], "a number in an SVG figure"),
]


def naive_cases() -> list[dict[str, Any]]:
    cases = []
    for name, ops, what in NAIVE_EDITS:
        cases.append(_case("naive", name, ops, f"Edit {what}; every hash left stale.",
                           codes=["binding.artifact_sha256"]))
    cases.append(_case("naive", "publication-decision",
                       [_set(PUBLICATION, "/decision/standalone_privacy_redaction_allowed", True)],
                       "Flip the publication's standalone-redaction decision; its self hash left stale.",
                       families=["publication"]))
    return cases


# --- hash-aware edits: every binding hash recomputed ------------------------------------------------------------

def _copy_env(field: str, value: Any) -> list[dict[str, Any]]:
    return [_set(f, f"/environment/{field}", value) for f in (MANIFEST, EVIDENCE, REPORT)]


HASH_AWARE: list[tuple[str, list[dict[str, Any]], str, list[str]]] = [
    ("count-plus-one", [_set(EVIDENCE, "/quality/slices/0/true_positive", 143)],
     "A true-positive count raised by one.", ["quality"]),
    ("rate-one-ulp", [_set(EVIDENCE, "/quality/slices/0/metrics/precision", 0.9530201342281880)],
     "A stored rate nudged by one unit in the last place.", ["quality"]),
    ("rate-favourable", [_set(EVIDENCE, "/quality/slices/0/metrics/catalog_coverage", 0.105)],
     "A stored rate rounded the favourable way.", ["quality"]),
    ("threshold-weakened", [_set(EVIDENCE, "/promotion/checks/1/threshold", 0.1),
                            _set(EVIDENCE, "/promotion/checks/1/passed", True)],
     "The catalog-coverage threshold weakened to 10% so the gate passes.", ["gate"]),
    ("gate-flag-flipped", [_set(EVIDENCE, "/promotion/checks/9/passed", True)],
     "A failing gate marked passed.", ["gate"]),
    ("gate-actual-drift", [_set(EVIDENCE, "/promotion/checks/1/actual", 0.10480976310122041)],
     "A gate's actual value drifted from the stored metric.", ["gate"]),
    ("support-floor-missed", [_set(EVIDENCE, "/quality/slices/0/negative_documents", 19)],
     "Negative support one below the floor of 20.", ["quality", "manifest"]),
    ("lineage-duplicated", [{"op": "json_copy", "file": EVIDENCE, "from": "/test_access/lineage/0",
                             "pointer": "/test_access/lineage/1"}],
     "The sealed-test lineage entry duplicated.", ["lineage"]),
    ("claim-injected", [_set(EVIDENCE, "/promotion/claims", [{
        "id": "injected", "kind": "open_world_quality", "metric": "open_world_recall", "value": 0.11,
        "label_strength": "independent", "annotation_completeness": "exhaustive_within_scope",
        "quality_slice_id": "person_contact_all_test", "performance_workload_id": None,
        "scope": {"entity_class": "person_contact", "cohort": "all", "split_role": "test",
                  "text_view": "subject_current_body"},
        "benchmark_version": "enron", "source_revision": "cfc06c758093d90993abce1a43668fb7357258a6",
        "bank_hash": "sha256:9e67747f90873fb6f2cd1bb52afa1cb9e882d6004708d7c22fa4ca08551af84d",
        "evaluator_source_sha256": "sha256:7814ee7ef36ad73ca89d353419f8e22da933bafc6e71b32d2d1faeb567e7d63c",
        "environment_sha256": "sha256:" + "0" * 64}])],
     "A claim injected with a favourably rounded value and a wrong environment hash.", ["claim"]),
    ("sample-dropped", [{"op": "json_remove", "file": EVIDENCE, "pointer": "/performance/workloads/0/samples_seconds/999"},
                        {"op": "json_remove", "file": EVIDENCE,
                         "pointer": "/performance/workloads/0/rss_samples_bytes/999"}],
     "One timing sample and its RSS sample dropped.", ["performance"]),
    ("p99-forged", [_set(EVIDENCE, "/performance/workloads/0/stats/p99_seconds", 0.000220416)],
     "A p99 replaced by a value from another rank rule.", ["performance"]),
    ("median-forged", [_set(EVIDENCE, "/performance/workloads/0/stats/median_seconds", 0.000207)],
     "A median rounded.", ["performance"]),
    ("rss-above-memory", [_set(EVIDENCE, "/performance/workloads/0/rss_samples_bytes/5", 17179869185)],
     "An RSS sample above the machine's memory.", ["performance"]),
    ("block-reordered", [{"op": "json_edit", "transform": "sim_swap_blocks"}],
     "Two paired blocks swapped in a stability comparison.", ["performance"]),
    ("stability-result", [_set(EVIDENCE, "/performance/comparisons/0/result", "unstable")],
     "A stability verdict changed.", ["performance"]),
    ("machine-relabelled", _copy_env("cpu_model", "Apple M4 Max"),
     "The machine relabelled consistently in manifest, evidence and report.", ["summary"]),
    ("bank-card-other-bank", [_set(CARD, "/bank/id", "another_bank")],
     "The bank card names another bank than the evidence.", ["card"]),
    ("publication-decision", [_set(PUBLICATION, "/decision/standalone_privacy_redaction_allowed", True)],
     "The publication's standalone-redaction decision flipped and resealed.", ["decision"]),
    ("capacity-sample-above-peak", [_set(CAPACITY, "/report/phases/0/resource_samples/5/process_tree_rss_bytes",
                                         1547223041)],
     "A capacity phase's retained RSS sample raised above the phase's peak; the capacity decision's whole internal "
     "chain resealed.", ["capacity"]),
    ("known-bank-passed-false", [_set(EVIDENCE, "/catalog_conformance/missed", 1),
                                 _set(EVIDENCE, "/catalog_conformance/correctly_mapped", 39603)],
     "One conformance case missed while recall and passed still claim 1.0 and true.", ["conformance"]),
]

POST_PUBLICATION = ["publication"]
TEXT_EDITS: list[tuple[str, str, str, str, str]] = [
    ("summary-throughput", "summary.md", "143,057.2 documents/s", "143,957.2 documents/s", "A throughput edited."),
    ("summary-percent-favourable", "summary.md", "| 10.48% |", "| 10.49% |", "A percentage rounded up."),
    ("summary-count", "summary.md", "82,173 candidates", "82,137 candidates", "A count edited."),
    ("summary-verdict", "summary.md", "NOT ELIGIBLE for standalone", "ELIGIBLE for standalone", "A verdict word."),
    ("svg-number", "figures/performance-scale.svg", ">6,811 docs/s<", ">9,811 docs/s<", "A figure's number edited."),
    ("summary-columns-swapped", "summary.md", "| Precision | 95.30% | 95.31% | 95.24% |",
     "| Precision | 95.30% | 95.24% | 95.31% |", "Two verified rates swapped between class columns."),
]


def hash_aware_cases() -> list[dict[str, Any]]:
    cases = []
    for name, ops, description, families in HASH_AWARE:
        cases.append(_case("hash_aware", name, ops, description + " Every hash recomputed.", reseal=True,
                           families=families))
    # The full reseal recomputes the capacity decision's internal chain too, so a stale receipt hash needs the
    # internal seal with that one step kept (tools/mutations/capacity.py) and no full reseal.
    cases.append(_case("hash_aware", "capacity-attempt-edited",
                       [_set(CAPACITY, "/attempt_chain/0/elapsed_ns", 410079834),
                        {"op": "json_edit", "transform": "capacity_internal_seal",
                         "args": {"keep": ["attempt_hashes"]}}],
                       "A capacity attempt edited, every other internal hash resealed (its receipt hash left as "
                       "published). Publication list refreshed.", post_seal=POST_PUBLICATION, families=["capacity"]))
    for name, file, old, new, description in TEXT_EDITS:
        cases.append(_case("hash_aware", name, [], description + " Publication list refreshed.",
                           post_ops=[{"op": "replace_text", "file": file, "old": old, "new": new}],
                           post_seal=POST_PUBLICATION, families=["summary"]))
    cases.extend(privacy_cases())
    return cases


# Free-text fields of each JSON artifact kind where a payload stays schema-valid.
PRIVACY_FIELDS: list[tuple[str, str]] = [
    (MANIFEST, "/source/owner"),
    (MANIFEST, "/commands/0/argv/3"),
    (EVIDENCE, "/evaluator/version"),
    (EVIDENCE, "/environment/python"),
    (REPORT, "/suite"),
    (CARD, "/bank/version"),
    (CAPACITY, "/attempt_chain/0/measurement_boundary"),
    (PUBLICATION, "/artifact_kind"),
]


def _payloads() -> list[tuple[str, str, str]]:
    """(name, injected text, the identifier it hides). Built from parts so this file holds no identifier."""
    user, host = "jane.doe", "example" + ".org"
    mail = user + "@" + host
    phone = "+1 415 555 " + "0134"
    ssn = "123-45-" + "6789"
    home = "/" + "home/" + "jdoe/" + "data"
    return [
        ("email-plain", mail, mail),
        ("email-percent", user + "%40" + host, mail),
        ("email-html-entity", user + "&#64;" + host, mail),
        ("email-fullwidth", user + "\uff20" + host, mail),
        ("email-zero-width", user + "\u200b@\u200b" + host, mail),
        ("email-u-escape", user + "\\u0040" + host, mail),
        ("email-percent-u", user + "%u0040" + host, mail),
        ("email-quoted-printable", user + "=40" + host, mail),
        ("email-double-percent", user + "%2540" + host, mail),
        ("phone-plain", phone, phone),
        ("phone-dots", phone.replace(" ", "."), phone),
        ("ssn-plain", ssn, ssn),
        ("home-path", home, home),
        ("home-path-percent", home.replace("/", "%2F"), home),
        ("home-path-lookalike-slash", home.replace("/", "\u2215"), home),
    ]


def privacy_cases() -> list[dict[str, Any]]:
    cases = []
    payloads = _payloads()
    for index, (file, pointer) in enumerate(PRIVACY_FIELDS):
        # Every field gets the plain e-mail; encodings rotate over the fields so every encoding is exercised.
        chosen = [payloads[0]] + [payloads[(index * 2 + k) % (len(payloads) - 1) + 1] for k in range(2)]
        for name, text, hidden in chosen:
            slug = f"privacy-{file.split('/')[-1].removesuffix('.json')}-{pointer.strip('/').replace('/', '-')}-{name}"
            value_masked = mask(json.dumps(text))
            ops = [{"op": "json_set_masked", "file": file, "pointer": pointer, "value_masked": value_masked}]
            if file == MANIFEST:
                # Keep the evidence's provenance copy identical so only the privacy scan can object.
                twin = pointer if pointer.startswith("/source") or pointer.startswith("/commands") else None
                if twin:
                    ops.append({"op": "json_set_masked", "file": EVIDENCE, "pointer": twin, "value_masked": value_masked})
            cases.append(_case("hash_aware", slug, ops, f"A {name} payload in {file} {pointer}, resealed.",
                               reseal=True, families=["privacy"], forbidden=[text, hidden]))
    return cases


# --- structural attacks --------------------------------------------------------------------------------------------

def _deep(file: str) -> dict[str, Any]:
    return {"op": "write_repeat", "file": file, "prefix": "", "unit": "[", "count": 10000, "suffix": "]" * 10000}


def structural_cases() -> list[dict[str, Any]]:
    cases = []
    for file in JSON_KINDS:
        stem = file.split("/")[-1].removesuffix(".json")
        cases.append(_case("structural", f"nesting-10000-{stem}", [], f"{file} nested 10,000 levels deep.",
                           post_ops=[_deep(file)], post_seal=POST_PUBLICATION, codes=["load.too_deep"]))
    raw_edits = [
        ("array-2000000", [{"op": "write_repeat", "file": EVIDENCE, "prefix": '{"a":[0', "unit": ",0",
                            "count": 2_000_000, "suffix": "]}"}], ["load.too_many_nodes"]),
        ("nan", [{"op": "replace_text", "file": EVIDENCE, "old": '"recall": 1.0', "new": '"recall": NaN'}],
         ["load.non_finite_number"]),
        ("infinity", [{"op": "replace_text", "file": MANIFEST, "old": '"timeout_seconds": 7200.0',
                       "new": '"timeout_seconds": Infinity'}], ["load.non_finite_number"]),
        ("1e999", [{"op": "replace_text", "file": MANIFEST, "old": '"timeout_seconds": 7200.0',
                    "new": '"timeout_seconds": 1e999'}], ["load.number_out_of_range"]),
        ("duplicate-key-same", [{"op": "replace_text", "file": EVIDENCE, "old": '"recall": 1.0,',
                                 "new": '"recall": 1.0,\n    "recall": 1.0,'}], ["load.duplicate_key"]),
        ("duplicate-key-different", [{"op": "replace_text", "file": EVIDENCE, "old": '"recall": 1.0,',
                                      "new": '"recall": 0.5,\n    "recall": 1.0,'}], ["load.duplicate_key"]),
        ("invalid-utf8", [{"op": "replace_bytes", "file": MANIFEST, "old_b64": _b64(b'"corbt"'),
                           "new_b64": _b64(b'"corb\xff"')}], ["load.invalid_utf8"]),
        ("lone-surrogate", [{"op": "replace_text", "file": EVIDENCE, "old": '"cpu_model": "Apple M4"',
                             "new": '"cpu_model": "Apple M4\\ud800"'}], ["load.lone_surrogate"]),
        ("bom", [{"op": "prepend_bytes", "file": MANIFEST, "base64": _b64(b"\xef\xbb\xbf")}], ["load.bom"]),
        ("trailing-garbage", [{"op": "append_bytes", "file": MANIFEST, "base64": _b64(b"{}")}],
         ["load.invalid_json"]),
        ("wrong-root", [{"op": "write_text", "file": CAPACITY, "text": "[]"}], ["load.wrong_root_type"]),
        ("empty-file", [{"op": "write_text", "file": CARD, "text": ""}], ["load.empty"]),
        ("huge-declared-200mib", [{"op": "write_repeat", "file": REPORT, "prefix": "{", "unit": " ",
                                   "count": 200 * MIB, "suffix": "}"}], ["load.too_large"]),
    ]
    for name, ops, codes in raw_edits:
        cases.append(_case("structural", name, [], f"Hostile bytes: {name}; publication list refreshed.",
                           post_ops=ops, post_seal=POST_PUBLICATION, codes=codes))
    cases.extend([
        _case("structural", "huge-undeclared-200mib",
              [{"op": "write_repeat", "file": "extra.bin", "prefix": "", "unit": "\u0000", "count": 200 * MIB}],
              "An undeclared 200 MiB file.", codes=["bundle.unexpected_file"]),
        _case("structural", "file-symlink", [{"op": "symlink", "file": "summary.md", "target": "/etc/hostname"}],
              "summary.md replaced by a link to a file outside the bundle.", codes=["bundle.symlink"]),
        _case("structural", "directory-symlink",
              [{"op": "delete", "file": "figures"}, {"op": "symlink", "file": "figures", "target": "../"}],
              "The figures folder replaced by a link out of the bundle.", codes=["bundle.symlink"]),
        _case("structural", "path-traversal",
              [{"op": "json_insert", "file": PUBLICATION, "pointer": "/artifacts/18",
                "value": {"path": "../../etc/hostname", "sha256": "sha256:" + "6" * 64, "bytes": 7}}],
              "publication.json declares a path outside the bundle.", reseal=True,
              codes=["binding.unsafe_artifact_path"]),
        _case("structural", "missing-declared-file", [{"op": "delete", "file": "figures/standalone-redaction.svg"}],
              "A declared figure deleted.", codes=["binding.declared_missing"]),
        _case("structural", "extra-undeclared-file", [{"op": "write_text", "file": "inventories/extra.json",
                                                       "text": "[]"}],
              "An extra undeclared file.", codes=["bundle.unexpected_file"]),
    ])
    return cases


# --- controls: must still verify ----------------------------------------------------------------------------------

def control_cases() -> list[dict[str, Any]]:
    return [
        _case("control", "byte-identical", [], "An unmodified copy.", verdict="verified"),
        _case("control", "resealed-unchanged", [], "Sealing an unmodified copy changes nothing.", reseal=True,
              verdict="verified"),
        _case("control", "evidence-reindented", [],
              "Evidence re-serialised with 4-space indent: only canonical hashes bind its content.",
              post_ops=[{"op": "json_reformat", "file": EVIDENCE, "indent": 4, "sort_keys": True}],
              post_seal=POST_PUBLICATION, verdict="verified"),
        _case("control", "manifest-key-order", [],
              "Manifest keys in reverse order and compact separators.",
              post_ops=[{"op": "json_reformat", "file": MANIFEST, "reverse_keys": True, "separators": [",", ":"]}],
              post_seal=POST_PUBLICATION, verdict="verified"),
        _case("control", "card-ascii-escapes", [], "Bank card written with ASCII escapes.",
              post_ops=[{"op": "json_reformat", "file": CARD, "indent": 1, "ensure_ascii": True}],
              post_seal=POST_PUBLICATION, verdict="verified"),
        _case("control", "group-writable", [{"op": "chmod", "file": EVIDENCE, "mode": "666"}],
              "World-writable evidence: a warning, not tampering.", verdict="verified", warnings=["bundle.file_mode"]),
        _case("control", "hard-linked", [{"op": "hardlink_external", "file": MANIFEST}],
              "A manifest with a second hard link: a warning.", verdict="verified", warnings=["bundle.hard_link"]),
    ]


# --- the synthetic smoke base ----------------------------------------------------------------------------------------

SMOKE = "synthetic-smoke"
SMOKE_DIR = REPO / "fixtures" / "bundles" / SMOKE


def _smoke_json(file: str) -> Any:
    return json.loads((SMOKE_DIR / file).read_text(encoding="utf-8"))


def _bumped_sample(value: float) -> float:
    return round(value * 2 + 1e-6, 9)


def smoke_cases() -> list[dict[str, Any]]:
    """Mutants and controls over the synthetic smoke bundle, with edits computed from its committed values."""
    evidence, report = _smoke_json(EVIDENCE), _smoke_json(REPORT)
    card = _smoke_json(CARD)
    slices = evidence["quality"]["slices"]
    person = next(i for i, s in enumerate(slices) if s["entity_class"] == "person")
    contact = next(i for i, s in enumerate(slices) if s["entity_class"] == "contact")
    workloads = evidence["performance"]["workloads"]
    direct = next(i for i, w in enumerate(workloads) if w["phase"] == "direct_bank_scan"
                  and w["sample_unit"] == "whole_input")
    samples = workloads[direct]["samples_seconds"]
    rss = workloads[direct]["rss_samples_bytes"]
    stats = workloads[direct]["stats"]
    conformance = evidence["catalog_conformance"]
    checks = evidence["promotion"]["checks"]
    gte = next(i for i, c in enumerate(checks) if c["operator"] == "gte" and isinstance(c["threshold"], float))
    flag = next(i for i, c in enumerate(checks) if c["category"] == "provenance")
    coverage = slices[person]["metrics"]["catalog_coverage"]
    patterns = card["bank"]["stats"]["active_totals"]["patterns"]
    ws = f"/performance/workloads/{direct}"

    def smoke(family: str, name: str, ops: list[dict[str, Any]], description: str, **kwargs: Any) -> dict[str, Any]:
        return _case(family, "smoke-" + name, ops, description + " (synthetic smoke base)", base=SMOKE, **kwargs)

    cases = []
    naive = [
        ("count", [_set(EVIDENCE, f"/quality/slices/{contact}/true_positive", slices[contact]["true_positive"] + 1)],
         "a quality count"),
        ("timing-sample", [_set(EVIDENCE, f"{ws}/samples_seconds/0", _bumped_sample(samples[0]))],
         "a raw timing sample"),
        ("rss-sample", [_set(EVIDENCE, f"{ws}/rss_samples_bytes/0", rss[0] + 4096)], "a raw RSS sample"),
        ("conformance-count", [_set(EVIDENCE, "/catalog_conformance/correctly_mapped",
                                    conformance["correctly_mapped"] - 1)], "a conformance count"),
        ("report-sample", [_set(REPORT, f"{ws}/samples_seconds/1", _bumped_sample(samples[1]))],
         "a report sample"),
        ("inventory", [_set("inventories/real_validation_inventory.json", "/0/bytes",
                            _smoke_json("inventories/real_validation_inventory.json")[0]["bytes"] + 1)],
         "an inventory entry"),
        ("summary-figure", [{"op": "replace_text", "file": "summary.md", "old": "**NOT ELIGIBLE**",
                             "new": "**ELIGIBLE**"}], "a verdict in summary.md"),
    ]
    for name, ops, what in naive:
        cases.append(smoke("naive", name, ops, f"Edit {what}; every hash left stale.",
                           codes=["binding.artifact_sha256"]))
    hash_aware: list[tuple[str, list[dict[str, Any]], str, list[str]]] = [
        ("count-plus-one", [_set(EVIDENCE, f"/quality/slices/{contact}/true_positive",
                                 slices[contact]["true_positive"] + 1)], "A true-positive count raised by one.",
         ["quality"]),
        ("rate-favourable", [_set(EVIDENCE, f"/quality/slices/{person}/metrics/catalog_coverage",
                                  round(coverage + 0.005, 2))], "A stored rate rounded the favourable way.",
         ["quality"]),
        ("sample-dropped", [{"op": "json_remove", "file": EVIDENCE, "pointer": f"{ws}/samples_seconds/0"},
                            {"op": "json_remove", "file": EVIDENCE, "pointer": f"{ws}/rss_samples_bytes/0"}],
         "One timing sample and its RSS sample dropped.", ["performance"]),
        ("sample-forged", [_set(EVIDENCE, f"{ws}/samples_seconds/{samples.index(max(samples))}",
                                round(max(samples) / 4, 9))], "The slowest sample made fast; stats left.",
         ["performance"]),
        ("median-forged", [_set(EVIDENCE, f"{ws}/stats/median_seconds", round(stats["median_seconds"] * 0.9, 9))],
         "A median rounded down.", ["performance"]),
        ("rss-above-memory", [_set(EVIDENCE, f"{ws}/rss_samples_bytes/0", evidence["environment"]["memory_bytes"] + 1)],
         "An RSS sample above the machine's memory.", ["performance"]),
        ("threshold-weakened", [_set(EVIDENCE, f"/promotion/checks/{gte}/threshold", 1e-06)],
         "A throughput threshold weakened after freezing.", ["gate"]),
        ("gate-flag-flipped", [_set(EVIDENCE, f"/promotion/checks/{flag}/passed", not checks[flag]["passed"])],
         "A gate's passed flag flipped.", ["gate"]),
        ("conformance-missed", [_set(EVIDENCE, "/catalog_conformance/missed", conformance["missed"] + 1),
                                _set(EVIDENCE, "/catalog_conformance/correctly_mapped",
                                     conformance["correctly_mapped"] - 1)],
         "One conformance case missed while recall and passed stay.", ["conformance"]),
        ("lineage-duplicated", [{"op": "json_copy", "file": EVIDENCE, "from": "/test_access/lineage/0",
                                 "pointer": "/test_access/lineage/1"}], "The lineage entry duplicated.",
         ["lineage"]),
        ("claim-injected", [_set(EVIDENCE, "/promotion/claims", [_smoke_claim(evidence)])],
         "A well-formed, fully supported known-bank claim injected into a smoke bundle: claims need a passed "
         "verifier, and a claim takes the bundle out of smoke scope.", ["claim"]),
        ("grade-passed", [_set(REPORT, "/decision_grade", {"passed": True, "failure_codes": []}),
                          _set(PUBLICATION, "/decision/performance_gates_passed", True)],
         "The smoke run's decision grade claimed as passed.", ["performance"]),
        ("relabelled-decision", [_set(REPORT, "/profile", "decision")],
         "The smoke report relabelled as a decision run: every decision-grade requirement now rejects.",
         ["performance"]),
        ("capacity-binding", [_set(PUBLICATION, "/bindings/capacity_decision_sha256", "sha256:" + "c" * 64)],
         "A capacity binding without a capacity decision.", ["publication"]),
        ("card-count", [_set(CARD, "/bank/stats/active_totals/patterns", patterns + 1)],
         "The bank card's active pattern total raised by one.", ["card"]),
    ]
    summary = (SMOKE_DIR / "summary.md").read_text(encoding="utf-8")
    rows = [line for line in summary.splitlines() if line.startswith(("| Contact |", "| Person |"))]
    if len(rows) == 2:
        contact, person = (row.split(" | ") for row in rows)
        swapped_contact = " | ".join(contact[:1] + person[1:2] + contact[2:])
        swapped_person = " | ".join(person[:1] + contact[1:2] + person[2:])
        cases.append(smoke("hash_aware", "summary-rows-swapped", [],
                           "Two verified counts swapped between summary rows; publication list refreshed.",
                           post_ops=[{"op": "replace_text", "file": "summary.md", "old": rows[0],
                                      "new": swapped_contact},
                                     {"op": "replace_text", "file": "summary.md", "old": rows[1],
                                      "new": swapped_person}],
                           post_seal=POST_PUBLICATION, codes=["summary.render_mismatch"]))
    for name, ops, description, families in hash_aware:
        cases.append(smoke("hash_aware", name, ops, description + " Every hash recomputed.", reseal=True,
                           families=families))
    payloads = _payloads()
    fields = [(MANIFEST, "/source/owner"), (EVIDENCE, "/environment/python"), (CARD, "/bank/version"),
              (REPORT, "/software/package_version")]
    for index, (file, pointer) in enumerate(fields):
        for name, text, hidden in (payloads[0], payloads[1 + (index * 3) % (len(payloads) - 1)]):
            value_masked = mask(json.dumps(text))
            ops = [{"op": "json_set_masked", "file": file, "pointer": pointer, "value_masked": value_masked}]
            if pointer.startswith("/source") or pointer.startswith("/environment") or pointer.startswith("/software"):
                for twin in (MANIFEST, EVIDENCE, REPORT):  # provenance copies kept identical: only privacy objects
                    if twin != file and _has_pointer(_smoke_json(twin), pointer):
                        ops.append({"op": "json_set_masked", "file": twin, "pointer": pointer,
                                    "value_masked": value_masked})
            stem = file.removesuffix(".json")
            cases.append(smoke("hash_aware", f"privacy-{stem}-{pointer.strip('/').replace('/', '-')}-{name}", ops,
                               f"A {name} payload in {file} {pointer}, resealed.", reseal=True,
                               families=["privacy"], forbidden=[text, hidden]))
    cases.extend([
        smoke("structural", "nesting-10000-evidence", [], "The evidence nested 10,000 levels deep.",
              post_ops=[_deep(EVIDENCE)], post_seal=POST_PUBLICATION, codes=["load.too_deep"]),
        smoke("structural", "nan", [], "A NaN in the evidence.",
              post_ops=[{"op": "replace_text", "file": EVIDENCE, "old": '"recall": 1.0', "new": '"recall": NaN'}],
              post_seal=POST_PUBLICATION, codes=["load.non_finite_number"]),
        smoke("structural", "duplicate-key", [], "A duplicated key with another value.",
              post_ops=[{"op": "replace_text", "file": EVIDENCE, "old": '"recall": 1.0,',
                         "new": '"recall": 0.5,\n    "recall": 1.0,'}],
              post_seal=POST_PUBLICATION, codes=["load.duplicate_key"]),
        smoke("structural", "undeclared-capacity",
              [{"op": "write_text", "file": CAPACITY, "text": "{}"}],
              "An undeclared capacity-decision.json dropped into the bundle.", families=["binding"]),
        smoke("control", "byte-identical", [], "An unmodified copy.", verdict="verified"),
        smoke("control", "resealed-unchanged", [], "Sealing an unmodified copy changes nothing.", reseal=True,
              verdict="verified"),
        smoke("control", "evidence-reindented", [], "Evidence re-serialised with 4-space indent and sorted keys.",
              post_ops=[{"op": "json_reformat", "file": EVIDENCE, "indent": 4, "sort_keys": True}],
              post_seal=POST_PUBLICATION, verdict="verified"),
    ])
    return cases


def _smoke_claim(evidence: dict[str, Any]) -> dict[str, Any]:
    """A schema-valid catalog-conformance claim whose value and provenance all match the smoke evidence."""
    from nerb_verify.canonical import python_canonical_sha256

    return {"id": "injected_known_bank", "kind": "catalog_conformance", "metric": "catalog_conformance_recall",
            "value": evidence["catalog_conformance"]["recall"], "label_strength": "synthetic_conformance",
            "annotation_completeness": "exhaustive_within_scope", "quality_slice_id": None,
            "performance_workload_id": None,
            "scope": {"entity_class": None, "cohort": None, "split_role": None, "text_view": None},
            "benchmark_version": evidence["test_access"]["benchmark_version"],
            "source_revision": evidence["source"]["revision"], "bank_hash": evidence["bank"]["canonical_hash"],
            "evaluator_source_sha256": evidence["evaluator"]["source_sha256"],
            "environment_sha256": python_canonical_sha256(evidence["environment"])}


def _has_pointer(document: Any, pointer: str) -> bool:
    node = document
    for part in pointer.strip("/").split("/"):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


def all_cases() -> list[dict[str, Any]]:
    """Every mutant and control over both bases, in a stable order."""
    return naive_cases() + hash_aware_cases() + structural_cases() + control_cases() + smoke_cases()


def write_all(out: Path) -> int:
    """Write every case under ``out`` (replacing it); return the number written."""
    if out.exists():
        shutil.rmtree(out)
    count = 0
    for item in all_cases():
        case = item["case"]
        folder = out / case["family"] / case["name"]
        if folder.exists():
            raise ValueError(f"duplicate case {case['family']}/{case['name']}")
        folder.mkdir(parents=True)
        for name, body in (("case.json", case), ("expected.json", item["expected"])):
            (folder / name).write_text(json.dumps(body, indent=2, sort_keys=True, ensure_ascii=True) + "\n",
                                       encoding="utf-8")
        count += 1
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    print(f"wrote {write_all(args.out)} cases to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
