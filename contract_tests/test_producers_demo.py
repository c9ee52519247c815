"""Producers III: quality evaluator, performance harness, bundle assembly and the one-command demo.

The module-scoped fixture runs a small demo (200 messages, ~20 s on 2 cores) once; the other tests check the bundle it
produced, flip single counts / samples / hashes in copies of it with tools/fixturelib.py ops, and unit-test the
evaluator and harness against the verifier's own arithmetic.
"""

from __future__ import annotations

import json
import shutil
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contract_tests.conftest import REPO, harness_inputs, run_cli, verify_dir

pytest.importorskip("re2")

sys.path.insert(0, str(REPO))
from nerb_verify.checks.quality import quality_math
from nerb_verify.checks.performance import blocks
from nerb_verify.producers import evaluation, harness
from tools import fixturelib

# The session's one demo run (conftest ``demo``) is shared by the tests of this group: one xdist worker runs them all.
pytestmark = pytest.mark.xdist_group("demo")

EV = "benchmark-evidence.json"
REPORT = "performance-report.json"




def _errors(path: Path) -> set[tuple[str, str, str]]:
    result = verify_dir(path)
    return {(f.code, f.artifact, f.pointer) for f in result.collector.findings if f.severity == "error"}


# ------------------------------------------------------------------------------------------------ the demo run

SMOKE_UNMET = ["capacity.not_evaluated", "manifest.missing_gate_slice", "performance.decision_matrix",
               "performance.not_decision_profile", "performance.sweep_uncontrolled",
               "performance.value_model_policy"]


def test_demo_bundle_verifies_with_no_finding(demo):
    assert demo.verdict == "verified" and demo.exit_code == 0
    assert demo.errors == [] and demo.error_codes == []
    # a declared smoke bundle: not decision grade, and the verifier says exactly what it lacks
    assert demo.unmet_requirements == SMOKE_UNMET


def test_every_recomputed_figure_matches(demo):
    result = verify_dir(demo.bundle)
    assert result.collector.findings == []
    mismatches = [r for r in result.collector.recomputed if r.status == "mismatch"]
    assert [r.to_json() for r in mismatches] == []
    assert len(result.collector.recomputed) > 150
    # the gold is independent (two passes, adjudicated), so the open-world metrics are evaluated too: nothing is left
    not_evaluated = {r.pointer for r in result.collector.recomputed if r.status == "not_evaluated"}
    assert not_evaluated == set()
    ran = {name: info.get("status") for name, info in result.collector.checks_run.items()}
    for family in ("quality", "conformance", "lineage", "gate", "binding", "summary", "privacy", "card",
                   "performance", "manifest", "decision", "claim", "publication"):
        assert ran.get(family) == "ran", family
    # no capacity decision in a smoke bundle: the family reports not_evaluated (a decision-grade requirement)
    assert ran.get("capacity") == "not_evaluated"


def test_sealed_test_opened_once_and_second_attempt_refused_and_recorded(demo):
    assert demo.second_access_refused
    lineage = demo.private / "enron-split" / "lineage.jsonl"
    events = [json.loads(line)["event"] for line in lineage.read_text().splitlines()]
    assert events == ["evidence_bound", "claimed", "completed", "access_refused"]
    evidence = json.loads((demo.bundle / EV).read_text())
    assert evidence["test_access"]["current_version_access_count"] == 1
    assert len(evidence["test_access"]["lineage"]) == 1
    report = json.loads((demo.bundle / REPORT).read_text())
    assert report["profile"] == "smoke"
    assert report["decision_grade"] == {"passed": False, "failure_codes": ["smoke_profile_nonpromotable"]}
    assert evidence["promotion"]["passed"] is False and evidence["verifier"]["passed"] is False


def test_private_values_never_reach_the_bundle(demo):
    corpus = (demo.private / "corpus" / "answer-key.jsonl").read_text()
    surfaces = {m["surface"] for line in corpus.splitlines() for m in json.loads(line)["mentions"]}
    text = "\n".join(p.read_text(encoding="utf-8") for p in demo.bundle.rglob("*") if p.is_file())
    assert surfaces and not [s for s in surfaces if s in text]
    assert "doc_" not in text


FLIPS = [
    # (name, ops, reseal)
    ("quality count", [{"op": "json_set", "file": EV, "pointer": "/quality/slices/0/true_positive", "value": 0}],
     False),
    ("quality count resealed", [{"op": "json_set", "file": EV, "pointer": "/quality/slices/1/gold_spans",
                                 "value": 1}], True),
    ("quality rate", [{"op": "json_set", "file": EV, "pointer": "/quality/slices/0/metrics/catalog_coverage",
                       "value": 0.5}], True),
    ("conformance count", [{"op": "json_set", "file": EV, "pointer": "/catalog_conformance/correctly_mapped",
                            "value": 1}], True),
    ("timing sample, hashes left alone", [{"op": "json_set", "file": EV,
                                          "pointer": "/performance/workloads/0/samples_seconds/0", "value": 0.5}],
     False),
    ("median timing sample resealed", [{"op": "json_edit_median_sample", "workload": 5}], True),
    ("rss sample, hashes left alone", [{"op": "json_set", "file": EV,
                                        "pointer": "/performance/workloads/1/rss_samples_bytes/0", "value": 1}],
     False),
    ("peak rss sample resealed", [{"op": "json_edit_peak_rss", "workload": 1}], True),
    ("statistic", [{"op": "json_set", "file": EV, "pointer": "/performance/workloads/2/stats/median_seconds",
                    "value": 1.0}], True),
    ("bank hash", [{"op": "json_set", "file": EV, "pointer": "/bank/canonical_hash",
                    "value": "sha256:" + "1" * 64}], True),
    ("evidence manifest hash", [{"op": "json_set", "file": EV, "pointer": "/manifest_sha256",
                                 "value": "sha256:" + "2" * 64}], False),
    ("lineage entry hash", [{"op": "json_set", "file": EV, "pointer": "/test_access/lineage/0/entry_sha256",
                             "value": "sha256:" + "3" * 64}], False),
    ("inventory row", [{"op": "replace_text", "file": "inventories/real_validation_inventory.json",
                        "old": '"records":', "new": '"records": ', "count": 1}], True),
    ("card count", [{"op": "json_set", "file": "bank-card.json", "pointer": "/bank/active_patterns",
                     "value": 1}], True),
]


@pytest.mark.parametrize("name,ops,reseal", FLIPS, ids=[f[0] for f in FLIPS])
def test_single_flip_is_rejected_with_a_new_finding(demo, tmp_path, name, ops, reseal):
    base = set(demo.errors)
    case = {"code": "x", "slug": "y", "base": "demo", "ops": ops, "reseal": reseal}
    bundle = tmp_path / "bundle"
    shutil.copytree(demo.bundle, bundle)
    for op in ops:
        if op["op"] == "json_edit_peak_rss":  # raise the largest RSS sample of one workload (its peak moves)
            evidence = json.loads((bundle / EV).read_text())
            samples = evidence["performance"]["workloads"][op["workload"]]["rss_samples_bytes"]
            fixturelib.apply_op(bundle, {"op": "json_set", "file": EV, "value": max(samples) + 4096,
                                         "pointer": f"/performance/workloads/{op['workload']}/rss_samples_bytes/"
                                                    f"{samples.index(max(samples))}"})
        elif op["op"] == "json_edit_median_sample":  # move the median sample to the top: the median must move
            evidence = json.loads((bundle / EV).read_text())
            samples = evidence["performance"]["workloads"][op["workload"]]["samples_seconds"]
            middle = sorted(samples)[len(samples) // 2]
            fixturelib.apply_op(bundle, {"op": "json_set", "file": EV, "value": round(max(samples) * 2, 9),
                                         "pointer": f"/performance/workloads/{op['workload']}/samples_seconds/"
                                                    f"{samples.index(middle)}"})
        else:
            fixturelib.apply_op(bundle, op)
    if case["reseal"]:
        from nerb_verify.seal import seal_bundle

        seal_bundle(bundle)
    new = _errors(bundle) - base
    assert new, name


def test_verifier_flags_a_reused_test_artifact(demo, tmp_path):
    bundle = tmp_path / "bundle"
    shutil.copytree(demo.bundle, bundle)
    evidence = json.loads((bundle / EV).read_text())
    first = evidence["test_access"]["lineage"][0]
    second = json.loads(json.dumps(first))
    second.update({"sequence": 2, "benchmark_version": "enron_2", "predecessor_benchmark_version": "enron",
                   "changes_informed_by_predecessor": ["evaluated twice"],
                   "accessed_at": first["accessed_at"].replace("Z", ".5Z")})
    fixturelib.apply_op(bundle, {"op": "json_insert", "file": EV, "pointer": "/test_access/lineage/1",
                                 "value": second})
    from nerb_verify.seal import seal_bundle

    seal_bundle(bundle)
    codes = {c for c, _a, _p in _errors(bundle)}
    assert "lineage.test_artifact_reused" in codes


# ----------------------------------------------------------------------------------------------- evaluator units

def _spec(cls="person_contact", strength="independent"):
    return evaluation.SliceSpec(id="s", entity_class=cls, label_artifact_id="l", label_strength=strength,
                                annotation_completeness="exhaustive_within_scope", annotation_scope={})


def test_score_slice_counts_and_rates_by_hand():
    g = evaluation.GoldSpan
    p = evaluation.Prediction
    ident = {"entity_id": "person", "name_id": "n1", "pattern_id": "p"}
    gold = [g("a", "person", 0, 5, ident), g("a", "contact", 10, 20, None), g("b", "person", 3, 6, ident)]
    preds = [p("a", "person", 0, 5, "n2", "p"), p("a", "person", 0, 5, "n1", "p"),  # same key, identity picked
             p("a", "contact", 12, 22, "c", "p"),  # overlaps gold but not exact
             p("c", "person", 1, 4, "n1", "p")]  # alarm on a negative document
    out = evaluation.score_slice(_spec(), {"a": 30, "b": 10, "c": 8}, gold, preds)
    assert (out["true_positive"], out["false_negative"], out["false_positive"], out["predicted_spans"]) == (1, 2, 3, 4)
    assert (out["cataloged_gold_spans"], out["cataloged_true_positive"], out["cataloged_false_negative"]) == (2, 1, 1)
    assert out["sensitive_gold_characters"] == 5 + 10 + 3
    assert out["covered_sensitive_characters"] == 5 + 8  # [0,5) and [12,20)
    assert out["predicted_characters"] == 5 + 10 + 3  # union per document: [0,5), [12,22), [1,4)
    assert out["over_redacted_characters"] == 18 - 13
    assert (out["negative_documents"], out["negative_documents_with_predictions"]) == (1, 1)
    assert out["documents_with_any_miss"] == 2 and out["documents_with_any_leaked_character"] == 2
    for metric in quality_math.METRICS:
        exact = quality_math.exact_metric(metric, out, True)
        assert quality_math.stored_rate_matches(out["metrics"][metric.name], exact), metric.name
    assert out["metrics"]["precision"] == float(Fraction(1, 4))


def test_weak_labels_publish_no_open_world_figures():
    gold = [evaluation.GoldSpan("a", "person", 0, 5, None)]
    preds = [evaluation.Prediction("a", "person", 0, 5, "n", "p"), evaluation.Prediction("a", "person", 7, 9, "m", "p")]
    out = evaluation.score_slice(_spec(strength="structured_weak"), {"a": 10}, gold, preds)
    assert out["predicted_spans"] == out["true_positive"] == 1
    assert all(out[k] == 0 for k in quality_math.OPEN_WORLD_ONLY_COUNTS)
    assert out["metrics"]["precision"] is None and out["metrics"]["catalog_coverage"] == 0.0


def test_duplicate_gold_key_and_out_of_range_are_refused():
    g = evaluation.GoldSpan("a", "person", 0, 5)
    with pytest.raises(evaluation.EvaluationError):
        evaluation.score_slice(_spec(), {"a": 10}, [g, evaluation.GoldSpan("a", "person", 0, 5)], [])
    with pytest.raises(evaluation.EvaluationError):
        evaluation.score_slice(_spec(), {"a": 3}, [g], [])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(1, 10)), max_size=12),
       st.lists(st.tuples(st.integers(0, 40), st.integers(1, 10)), max_size=12))
def test_character_unions_match_a_brute_force_count(gold_iv, pred_iv):
    gold = {(s, s + n) for s, n in gold_iv}
    gold_spans = [evaluation.GoldSpan("a", "person", s, e) for s, e in sorted(gold)]
    preds = [evaluation.Prediction("a", "person", s, s + n, "n", "p") for s, n in pred_iv]
    out = evaluation.score_slice(_spec(), {"a": 60}, gold_spans, preds)
    g_chars = {i for s, e in gold for i in range(s, e)}
    p_chars = {i for s, n in pred_iv for i in range(s, s + n)}
    assert out["sensitive_gold_characters"] == len(g_chars)
    assert out["covered_sensitive_characters"] == len(g_chars & p_chars)
    assert out["over_redacted_characters"] == len(p_chars - g_chars)


def test_sample_is_deterministic_order_free_one_per_group_and_stratified():
    items = [evaluation.SampleCandidate(f"doc{i}", f"g{i // 2}", 100 if i % 3 else 20000, i % 5 == 0)
             for i in range(60)]
    first = evaluation.select_sample(items, 12, ["salt"])
    assert first == evaluation.select_sample(list(reversed(items)), 12, ["salt"])
    assert len(first) == 12 and len({int(d[3:]) // 2 for d in first}) == 12
    bands = {evaluation.size_band(next(i.utf8_bytes for i in items if i.document_id == d)) for d in first}
    assert bands == {"short", "long"}
    assert first != evaluation.select_sample(items, 12, ["other salt"])


def test_catalog_qualification_reads_the_bank_only():
    from nerb_verify.producers.bank_format import Detector

    def lit(value, cs=False, ws=False, name="n1", priority=1):
        return Detector("person", name, "p", "literal", value, value, value, priority, (), cs, ws, "word", "word")

    text = "Hello Ada  Brandt, and ada brandtx"
    dets = [lit("Ada Brandt", ws=True), lit("ada brandt", name="n0", priority=5)]
    assert evaluation.qualify_catalog(dets, text, "person", 6, 17)["name_id"] == "n1"
    assert evaluation.qualify_catalog(dets, text, "person", 23, 33) is None  # right boundary fails (brandtx)
    assert evaluation.qualify_catalog(dets, text, "contact", 6, 17) is None
    assert evaluation.qualify_catalog([lit("ada brandt", cs=True)], "Ada Brandt", "person", 0, 10) is None


# ------------------------------------------------------------------------------------------------- harness units

def test_block_schedule_is_the_verifiers_abba_baab():
    schedule = harness.block_schedule(10, 2)
    firsts = blocks.block_assignment(10)
    for labels, first in zip(schedule, firsts):
        expected = ["candidate", "control", "control", "candidate"] if first == blocks.CANDIDATE_FIRST else \
            ["control", "candidate", "candidate", "control"]
        assert labels == expected
    assert firsts.count(blocks.CANDIDATE_FIRST) == 5


def test_report_failure_codes_of_a_smoke_section(demo):
    evidence = json.loads((demo.bundle / EV).read_text())
    codes = harness.report_failure_codes(evidence["performance"], {"git_dirty": False}, evidence["environment"])
    assert codes == ["decision_cell_count", "finite_breakeven"]
    assert all(w["decision_grade"] is False and w["promotion_gate"] is False
               for w in evidence["performance"]["workloads"])


def test_demo_command_refuses_a_non_empty_folder(tmp_path):
    (tmp_path / "x").write_text("x")
    result = run_cli("demo", "--output-dir", str(tmp_path))
    assert result.code == 2 and "not empty" in result.stderr


# ---------------------------------------------------------------------------------------------- interop tool

def _interop():
    from tools import interop_nerb

    return interop_nerb


def test_interop_refuses_a_missing_or_foreign_checkout(tmp_path, capsys):
    tool = _interop()
    bundle = tmp_path / "b"
    bundle.mkdir()
    assert tool.main(["--nerb-checkout", str(tmp_path / "absent"), str(bundle)]) == 2
    assert tool.main(["--nerb-checkout", str(tmp_path), str(bundle)]) == 2
    assert "NERB source checkout" in capsys.readouterr().err
    assert tool.main(["--nerb-checkout", str(tmp_path)]) == 2  # no bundle


def _fake_checkout(tmp_path: Path) -> Path:
    checkout = tmp_path / "nerb"
    (checkout / "src" / "nerb").mkdir(parents=True)
    (checkout / "src" / "nerb" / "enron_publication.py").write_text("# stand-in\n")
    return checkout


def test_interop_reads_nerbs_accept_and_reject_answers(demo, tmp_path, capsys):
    tool = _interop()
    checkout = _fake_checkout(tmp_path)
    (checkout / "accept.py").write_text("import json\nprint(json.dumps({'valid': True}))\n")
    (checkout / "reject.py").write_text("import sys\nsys.stderr.write('Error: Published evidence failed.\\n')\n"
                                        "sys.exit(1)\n")
    accept = f"{sys.executable} {{checkout}}/accept.py {{bundle}}"
    assert tool.main(["--nerb-checkout", str(checkout), "--command", accept, str(demo.bundle)]) == 0
    report = json.loads(capsys.readouterr().out)
    row = report["results"][0]
    assert row["nerb"]["accepted"] is True and row["ours"]["verdict"] == "verified" and row["agree"] is True
    reject = f"{sys.executable} {{checkout}}/reject.py {{bundle}}"
    assert tool.main(["--nerb-checkout", str(checkout), "--command", reject, str(demo.bundle)]) == 1
    row = json.loads(capsys.readouterr().out)["results"][0]
    assert row["nerb"] == {"verdict": "rejected", "accepted": False, "exit": 1,
                           "message": "Published evidence failed."}
    assert row["agree"] is False
    assert tool.main(["--nerb-checkout", str(checkout), "--command", "true", str(demo.bundle)]) == 2
    argv = tool.nerb_argv(tool.parse_args(["--nerb-checkout", str(checkout), str(demo.bundle)]), demo.bundle)
    assert argv[:4] == ["uv", "run", "--project", str(checkout)] and argv[4:7] == ["nerb", "verify-enron-evidence",
                                                                                   "--bundle"]


def test_descriptor_collections_are_sorted_by_id(demo, tmp_path):
    """The full matrix lists inputs as real, scale, density, size: the evidence must list every descriptor collection
    sorted by id (performance.descriptor_order; the first finished full decision run was rejected for it)."""
    inputs = harness_inputs(demo, tmp_path / "perf")
    section, _inventories = harness.run_profile("smoke", inputs, paired_per_block=1,
                                                only={"scale_1000_direct", "density_sparse_direct"})
    assert {i["id"] for i in section["inputs"]} == {"scale_1000_input", "density_sparse_input"}
    for name in ("banks", "inputs", "harnesses", "baselines"):
        ids = [d["id"] for d in section[name]]
        assert ids == sorted(set(ids)), name


def test_paired_twins_and_same_path_comparisons_recompute(demo, tmp_path):
    """A paired run (1 sample per block and twin, reused-process cells) spliced into the demo bundle: the verifier
    recomputes every twin, p-value and result without an authenticity finding."""
    from nerb_verify.seal import seal_bundle

    evidence = json.loads((demo.bundle / EV).read_text())
    inputs = harness_inputs(demo, tmp_path / "perf")
    section, _inventories = harness.run_profile("smoke", inputs, paired_per_block=1,
                                                only={"real_direct_throughput", "scale_1000_direct"})
    assert [c["samples_per_block"] for c in section["comparisons"]] == [1, 1]
    assert all(len(w["samples_seconds"]) == 10 for w in section["workloads"])
    assert {w["id"] for w in section["workloads"]} == {"real_direct_throughput", "control_real_direct_throughput",
                                                       "scale_1000_direct", "control_scale_1000_direct"}
    bundle = tmp_path / "bundle"
    shutil.copytree(demo.bundle, bundle)
    # keep the demo's descriptors (inventories are the same bytes); replace workloads and comparisons only
    evidence["performance"]["workloads"] = section["workloads"]
    evidence["performance"]["comparisons"] = section["comparisons"]
    evidence["performance"]["baselines"] = section["baselines"]
    (bundle / EV).write_text(json.dumps(evidence))
    seal_bundle(bundle)
    codes = {c for c, _a, _p in _errors(bundle)}
    authenticity = {"performance.comparison_invalid", "performance.comparison_value_mismatch",
                    "performance.comparison_result_mismatch", "performance.block_assignment",
                    "performance.statistic_mismatch", "performance.workload_hash", "performance.comparison_hash",
                    "performance.rss_samples", "performance.invalid_sample", "performance.records_per_sample",
                    "performance.unknown_reference", "performance.section_malformed", "performance.descriptor_hash"}
    assert not codes & authenticity


@pytest.mark.slow
def test_demo_command_end_to_end(tmp_path):
    """The documented command, as a user runs it (default 400 messages; about half a minute on 2 cores)."""
    out = tmp_path / "demo"
    result = run_cli("demo", "--output-dir", str(out), "--quiet", timeout=600)
    assert result.code == 0, result.stdout + result.stderr
    assert "second attempt refused: yes" in result.stdout
    assert "verdict: verified (exit 0); smoke profile, not promoted" in result.stdout
    assert "decision grade: not eligible (smoke); unmet requirements: capacity.not_evaluated" in result.stdout
    assert "finding:" not in result.stdout and "Traceback" not in result.stderr
    assert sorted(p.name for p in (out / "bundle").iterdir()) == [
        "bank-card.json", "benchmark-evidence.json", "benchmark-manifest.json", "figures", "inventories",
        "performance-report.json", "publication.json", "summary.md"]
    assert oct((out / "private").stat().st_mode & 0o777) == "0o700"


def test_controlled_documents_and_scale_banks_follow_the_generator_spec():
    from nerb_verify.checks.performance.inventories import summarize
    from nerb_verify.checks.performance.policy import composition_shares
    from nerb_verify.producers.engine import compile_bank

    base = {"schema_version": "nerb.bank.v1", "id": "b", "name": "b", "description": "b", "version": "1",
            "status": "active", "created_at": "x", "updated_at": "x", "unicode_normalization": "none",
            "default_regex_flags": [], "metadata": {}, "entities": {}}
    for cls, count in (("contact", 60), ("person", 21)):
        names = {f"{cls[0]}{i}": {"canonical": f"Tok{cls}{i}", "description": "d", "metadata": {}, "status": "active",
                                  "patterns": {"p": {"kind": "literal", "value": f"Tok{cls}{i}", "case_sensitive": False,
                                                     "normalize_whitespace": False, "left_boundary": "word",
                                                     "right_boundary": "word", "priority": i, "status": "active",
                                                     "description": "d", "metadata": {}}}}
                 for i in range(count)}
        base["entities"][cls] = {"description": "d", "status": "active", "regex_flags": [], "metadata": {},
                                 "names": names}
    raw = json.dumps(base).encode()
    reference = composition_shares(harness.bank_descriptor("evaluated_bank", "evaluated_bank", base, raw, {}, None))
    scale = harness.scale_bank(base, 10000)
    classes = {eid: e["metadata"]["entity_class"] for eid, e in scale["entities"].items()}
    descriptor = harness.bank_descriptor("scale_10000", "synthetic_scale", scale, raw + b" ", classes, None)
    assert descriptor["active_patterns"] == 10000
    shares = composition_shares(descriptor)
    assert set(shares) == set(reference) and all(abs(shares[k] - reference[k]) <= Fraction(1, 10) for k in shares)
    small = harness.scale_bank(base, 1000)
    compiled = compile_bank(small)
    tokens = [harness.scale_token(0, i) for i in range(10)]
    expected = {"negative": ("negative", 0), "sparse": ("sparse", 1), "normal": ("normal", 100),
                "dense": ("dense", 300)}
    for density, (label, total) in expected.items():
        docs = harness.controlled_documents(100, harness.SIZES["medium"], tokens, density)
        rows = [{"bytes": len(d), "records": len(compiled.scan_bytes(d))} for d in docs]
        summary = summarize(rows)
        assert (summary["hit_density"], summary["records"], summary["size_cohort"]) == (label, total, "medium")
        assert {r["bytes"] for r in rows} == {10240}
    for size, cohort in (("small", "small"), ("large", "large"), ("huge", "huge")):
        docs = harness.controlled_documents(100, harness.SIZES[size])
        assert summarize([{"bytes": len(d), "records": 0} for d in docs])["size_cohort"] == cohort


def test_document_latency_twins_are_one_pass_per_block(demo, tmp_path):
    inputs = harness_inputs(demo, tmp_path / "perf")
    section, _inv = harness.run_profile("smoke", inputs, paired_per_block=1, only={"real_direct_latency"})
    documents = section["inputs"][0]["documents"]
    latency = {w["id"]: w for w in section["workloads"]}
    assert set(latency) == {"real_direct_latency", "control_real_direct_latency"}
    assert all(w["sample_unit"] == "document" and len(w["samples_seconds"]) == 10 * documents
               for w in latency.values())
    assert section["comparisons"][0]["samples_per_block"] == documents


def test_evaluator_limits_refuse_instead_of_truncating(monkeypatch):
    monkeypatch.setattr(evaluation, "MAX_PREDICTIONS_PER_DOCUMENT", 2)
    preds = [evaluation.Prediction("a", "person", i, i + 1, "n", "p") for i in range(3)]
    with pytest.raises(evaluation.EvaluationError):
        evaluation.score_slice(_spec(), {"a": 10}, [], preds)
    monkeypatch.setattr(evaluation, "MAX_DOCUMENT_SCALARS", 5)
    with pytest.raises(evaluation.EvaluationError):
        evaluation.score_slice(_spec(), {"a": 10}, [], [])


AUTHENTICITY = {"performance.comparison_invalid", "performance.comparison_value_mismatch",
                "performance.comparison_result_mismatch", "performance.block_assignment",
                "performance.statistic_mismatch", "performance.workload_hash", "performance.comparison_hash",
                "performance.rss_samples", "performance.invalid_sample", "performance.records_per_sample",
                "performance.unknown_reference", "performance.section_malformed", "performance.descriptor_hash",
                "performance.plan_hash", "performance.run_hash", "performance.manifest_hash",
                "performance.phase_contract", "performance.baseline_capability", "performance.unused_descriptor"}


def test_exploratory_baselines_are_authentic_and_not_equivalent(demo, tmp_path):
    from nerb_verify.seal import seal_bundle

    evidence = json.loads((demo.bundle / EV).read_text())
    inputs = harness_inputs(demo, tmp_path / "perf")
    section, _inv = harness.run_profile("smoke", inputs, paired_per_block=1,
                                        only={"explore_generic_email_regex", "explore_python_literal_scan"})
    assert {b["semantic_equivalence"] for b in section["baselines"]} == {"not_equivalent"}
    explore = [w for w in section["workloads"] if w["id"].startswith("explore_")]
    assert len(explore) == 2 and all(w["decision_grade"] is False for w in explore)
    bundle = tmp_path / "bundle"
    shutil.copytree(demo.bundle, bundle)
    evidence["performance"]["workloads"] = sorted(evidence["performance"]["workloads"] + explore,
                                                  key=lambda w: w["id"])
    evidence["performance"]["harnesses"] = section["harnesses"]
    evidence["performance"]["baselines"] = section["baselines"]
    (bundle / EV).write_text(json.dumps(evidence))
    seal_bundle(bundle)
    codes = {c for c, _a, _p in _errors(bundle)}
    assert not codes & AUTHENTICITY, sorted(codes & AUTHENTICITY)
