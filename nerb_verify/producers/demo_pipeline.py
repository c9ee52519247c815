"""The whole producer workflow on the embedded synthetic corpus, end to end (``nerb-verify demo``).

Steps: generate the corpus and its answer key -> prepare -> split (fixture mode: the demo corpus is far below the
production floors) -> bank build from train (with conformance) -> smoke performance profile -> freeze the manifest
(plans, thresholds, audit plan) -> bind the frozen target and open the sealed test **once** -> sample, two
synthetic annotation passes imported and adjudicated into independent gold (``demo_annotation``), catalog
qualification from the bank, one scan per sampled document, scoring -> assemble and seal -> verify. Private files
live under ``<output>/private`` (0700); the public bundle is ``<output>/bundle``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from nerb_verify.canonical import python_canonical_sha256
from nerb_verify.loader import sha256_prefixed
from nerb_verify.producers import assembly, capacity, capacity_pipeline, demo_corpus, evaluation, harness
from nerb_verify.producers.sealed import SealedAccessError, SealedTest

LABEL_POLICY = {"policy": "nerb_verify.demo_two_pass_adjudicated_gold.v1", "view": "subject_current_body",
                "classes": ["contact", "person"],
                "source": "two independent synthetic annotation passes (Label Studio export, brat standoff), "
                          "imported, compared and adjudicated by a distinct reviewer (producers/demo_annotation.py)",
                "strength": "independent"}
GATE_SLICE = "person_contact_all_test"
# share of negative messages in the decision demo's corpus: its 100-document gate sample needs >= 20 negatives
DECISION_NEGATIVE_SHARE = 0.3
DECISION_MESSAGES = 2000
SLICES = (("person_contact_all_test", "person_contact", "demo_gold_person_contact", ["contact", "person"]),
          ("contact_all_test", "contact", "demo_gold_contact", ["contact"]),
          ("person_all_test", "person", "demo_gold_person", ["person"]))


@dataclass
class DemoResult:
    """Where things went and what the verifier said."""

    bundle: Path
    private: Path
    verdict: str
    exit_code: int
    error_codes: list[str]
    second_access_refused: bool
    errors: list[tuple[str, str, str]]
    # Decision-grade requirements the bundle does not meet (codes; reported, not findings: decision_scope.py).
    unmet_requirements: list[str]
    decision_grade_eligible: bool = False
    blocked_by: list[str] = field(default_factory=list)


def _now() -> str:
    """UTC now at whole seconds (the lineage's resolution), after waiting for the next second to begin.

    Waiting makes successive timestamps strictly increasing: freeze < access < evidence, as the lineage requires.
    """
    import time

    time.sleep(1.0 - (time.time() % 1.0) + 0.01)
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _cli(argv: list[str]) -> int:
    from nerb_verify.cli import main

    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        return main(argv)


PLACEHOLDER_COMMIT = "0" * 40


def checkout_commit(repo: Path) -> tuple[str, bool]:
    """(HEAD commit, dirty) of the git checkout whose top level is ``repo``; the placeholder and dirty otherwise.

    Only a checkout *rooted at* ``repo`` counts: an installed package under some other repository's tree (a venv
    inside a project) must not borrow that project's commit. The placeholder (forty zeros) is allowed only because
    every run the demo makes is a ``synthetic_fixture``; the verifier rejects it on a ``real_benchmark``
    (``manifest.placeholder_release_identity``).
    """
    from nerb_verify.checks.provenance.release_identity import commit_problem

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True,
                              timeout=30).stdout.decode().strip()

    try:
        top = Path(git("rev-parse", "--show-toplevel")).resolve()
        commit = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        return PLACEHOLDER_COMMIT, True
    if top != repo.resolve() or commit_problem(commit) is not None:
        return PLACEHOLDER_COMMIT, True
    return commit, dirty


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


MESSAGES_RANGE = (50, 20_000)
STEP = re.compile(r"^[1-9]/9 ")


class DemoPrerequisiteError(Exception):
    """The demo cannot start; ``problems`` are our own sentences (never an input value). Nothing was written."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class DemoError(Exception):
    """The demo stopped at ``step`` (e.g. ``4/9 bank build ...``); everything it wrote has been removed.

    ``reason`` is our own message for our own errors, else only the exception's type name.
    """

    def __init__(self, step: str, reason: str) -> None:
        super().__init__(f"{step}: {reason}")
        self.step = step
        self.reason = reason


def prerequisite_problems(output: Path, messages: int) -> list[str]:
    """Everything the demo needs, checked before it writes a byte: empty list when it can run.

    The RE2 engine (google-re2) must import (the bank build, conformance, performance and evaluation steps scan with
    it), the platform must be one whose peak RSS the performance protocol reads (Linux, macOS), the output folder must be new or empty, its nearest existing parent a writable folder, and ``messages``
    within range. A check that fails here would otherwise stop the run half-way, after the private files were written.
    """
    from nerb_verify.producers.engine import engine_problem
    from nerb_verify.producers.sampling import rss_platform_problem

    problems: list[str] = []
    engine = engine_problem()
    if engine:
        problems.append(engine)
    platform = rss_platform_problem()
    if platform:
        problems.append(platform)
    if output.is_symlink() or (output.exists() and not output.is_dir()):
        problems.append("the output folder exists and is not a folder")
    elif output.is_dir():
        try:
            if any(output.iterdir()):
                problems.append("the output folder exists and is not empty")
            elif not os.access(output, os.W_OK | os.X_OK):
                problems.append("the output folder is not writable")
        except OSError:
            problems.append("the output folder cannot be read")
    else:
        parent = output.parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            problems.append("the output folder cannot be created (its nearest existing parent is not a writable "
                            "folder)")
    low, high = MESSAGES_RANGE
    if not low <= messages <= high:
        problems.append(f"--messages must be between {low:,} and {high:,}")
    return problems


def _discard(output: Path, created: bool) -> None:
    """Remove what a failed run wrote: the folder itself if the run created it, else its contents (it was empty)."""
    if created:
        shutil.rmtree(output, ignore_errors=True)
        return
    for child in list(output.iterdir()) if output.is_dir() else []:
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def _reason(exc: BaseException) -> str:
    """Our own exception texts name only steps and field names; anything else is reduced to its type."""
    from nerb_verify.producers.engine import EngineCompileError

    if isinstance(exc, (assembly.AssemblyError, EngineCompileError, evaluation.EvaluationError)):
        return str(exc)
    if isinstance(exc, SealedAccessError):
        return f"sealed test access refused ({exc.code})"
    return f"unexpected {type(exc).__name__}"


PROFILES = ("smoke", "decision")


def run_demo(output: Path, *, messages: int = 400, seed: int = 7, progress: Callable[[str], None] = print,
             sample_size: int = 100, profile: str = "smoke", paired_per_block: int | None = None,
             performance_only: set[str] | None = None) -> DemoResult:
    """Run the whole workflow into ``output`` (must not exist or be empty); returns the verdict.

    ``profile`` is ``smoke`` or ``decision`` (the frozen decision matrix, with the combined slice as the quality gate);
    ``paired_per_block`` runs the decision matrix with at most that many samples per block and twin instead of the
    frozen counts (a reduced run: the verifier rejects it for the direct cells' counts only,
    ``performance.protocol_count`` / ``performance.sample_support``); a decision run measures its pipeline (:mod:`nerb_verify.producers.capacity`)
    and ships the capacity decision when every capacity gate passed;
    ``performance_only`` (tests) limits the measured cells (``harness.run_profile``'s ``only``).
    Every prerequisite is checked first (:func:`prerequisite_problems`; :class:`DemoPrerequisiteError`, nothing
    written). A run that fails later removes everything it wrote, so the same command can simply be run again, and
    raises :class:`DemoError` naming the step. The demo's corpus is synthetic and regenerated by every run, so
    discarding its private lineage with the rest loses nothing; the real producer commands never delete a lineage.
    """
    problems = prerequisite_problems(output, messages)
    if profile not in PROFILES:
        problems.append("--profile must be smoke or decision")
    if paired_per_block is not None and (profile != "decision" or not 10 <= paired_per_block <= 100):
        # below 10 per block a direct cell has fewer than 100 samples and no p99 to compare
        problems.append("--reduced-per-block needs --profile decision and a value between 10 and 100")
    if problems:
        raise DemoPrerequisiteError(problems)
    created = not output.exists()
    step = ["0/9 start"]

    def tracked(message: str) -> None:
        if STEP.match(message):
            step[0] = message
        progress(message)

    try:
        output.mkdir(parents=True, exist_ok=True)
        return _run_demo(output, messages=messages, seed=seed, progress=tracked, sample_size=sample_size,
                         profile=profile, paired_per_block=paired_per_block, performance_only=performance_only)
    except BaseException as exc:
        _discard(output, created)
        if isinstance(exc, Exception):
            raise DemoError(step[0], _reason(exc)) from exc
        raise


def _run_demo(output: Path, *, messages: int, seed: int, progress: Callable[[str], None],
              sample_size: int, profile: str, paired_per_block: int | None,
              performance_only: set[str] | None = None) -> DemoResult:
    """The nine steps, into an empty ``output``."""
    from nerb_verify.producers.bank_format import load_bank
    from nerb_verify.producers.engine import compile_bank
    from nerb_verify.verify import verify_bundle

    private = output / "private"
    private.mkdir(mode=0o700)
    public = private / "public-sections"
    progress("1/9 corpus: generating the embedded synthetic corpus")
    decision = profile == "decision"
    corpus, answers = demo_corpus.write(private / "corpus", messages, seed,
                                        negative_share=DECISION_NEGATIVE_SHARE if decision else 0.0)
    repo = Path(__file__).resolve().parents[2]
    commit, dirty = checkout_commit(repo)
    # the decision demo measures its pipeline (capacity-decision.json); the smoke demo does not
    measured = capacity.CapacityRun(private, commit=commit, dirty=dirty, output=output) if decision else None
    if measured is not None:
        measured.begin()
    progress("2/9 prepare" + (" (capacity: measured)" if measured is not None else ""))
    sections = public / "manifest-sections.json"
    # a decision run's capacity policy needs a 40-hex revision: the corpus file's git blob id (immutable)
    revision = ["--revision", git_blob_id(corpus)] if decision else []
    with _phase(measured, "preparation") as phase:
        if _cli(["prepare", str(corpus), "--private-root", str(private), "--source-id", "nerb_verify_demo",
                 "--owner", "nerb_verify_demo", "--access", "synthetic_public",
                 "--retention-purpose", "nerb_verify_demo_synthetic_run", "--public-out", str(sections),
                 "--no-progress", *revision]) != 0:
            raise assembly.AssemblyError("prepare failed")
        phase.checkpoint(json.loads(sections.read_text(encoding="utf-8"))["source"]["input_records"])
    progress("3/9 split (fixture mode: the demo corpus is below the production floors)")
    with _phase(measured, "split") as phase:
        if _cli(["split", "--private-root", str(private), "--mode", "fixture", "--public-out", str(sections),
                 "--no-progress"]) != 0:
            raise assembly.AssemblyError("split failed")
        public_sections = json.loads(sections.read_text(encoding="utf-8"))
        phase.checkpoint(public_sections["preparation"]["output_records"])
    split_dir = private / "enron-split" / "run"
    development = split_dir / "development"
    progress("4/9 bank build from train, conformance")
    bank_dir = private / "bank"
    with _phase(measured, "build") as phase:
        # the card's dataset id, revision and split come from the split manifest (carried from prepare)
        if _cli(["bank", "build", str(development), "--private-dir", str(bank_dir), "--public-dir",
                 str(public)]) != 0:
            raise assembly.AssemblyError("bank build failed")
        bank = load_bank(bank_dir / "bank.json")
        compiled = compile_bank(bank)
        validation_sha = None
        if measured is not None:
            validation_sha, _ = capacity_pipeline.validation_run(compiled, _jsonl(development / "validation.jsonl"))
        phase.checkpoint(public_sections["splits"]["roles"]["train"]["records"])
    bank_sections = json.loads((public / "manifest-bank.json").read_text(encoding="utf-8"))
    card = json.loads((public / "bank-card.json").read_text(encoding="utf-8"))
    conformance = json.loads((bank_dir / "conformance" / "result.json").read_text(encoding="utf-8"))
    capacity_decision = None
    if measured is not None and validation_sha is not None:
        progress("4/9 capacity: streaming validation, deep replay, report")
        capacity_decision = measure_capacity(measured, private, split_dir, public_sections, bank_sections, card,
                                             compiled, validation_sha)
        failed = sorted(g for g, ok in measured.last_gates.items() if not ok and g != "passed")
        progress("4/9 capacity: " + ("decision written (gates passed)" if capacity_decision is not None else
                                     f"gate(s) failed ({', '.join(failed)}); the failed attempt is kept and no "
                                     "capacity decision written"))
    if profile == "smoke":
        progress("5/9 performance: smoke profile (not decision grade)")
    elif paired_per_block is None:
        progress("5/9 performance: decision profile (the frozen decision matrix)")
    else:
        progress(f"5/9 performance: REDUCED decision profile ({paired_per_block} per block and twin; not decision "
                 "grade)")
    from nerb_verify.producers.bank_card import structured_headers_view

    validation = [text.encode("utf-8") for text in (structured_headers_view(r)[0]
                                                     for r in _jsonl(development / "validation.jsonl")) if text]
    import time

    started = time.monotonic()
    performance, inventories = harness.run_profile(profile, harness.HarnessInputs(
        bank_path=bank_dir / "bank.json", train_dir=development, train_source=development / "train.jsonl",
        train_artifact=public_sections["splits"]["roles"]["train"]["artifact"], validation_documents=validation,
        work_dir=private / "performance", progress=progress), paired_per_block=paired_per_block,
        only=performance_only)
    performance_seconds = round(time.monotonic() - started, 3)
    progress("6/9 freeze: manifest, thresholds, quality and conformance plans, audit plan")
    provenance = assembly.Provenance(
        git_commit=commit, git_dirty=dirty, package_version=_package_version(),
        evaluator_source_sha256=assembly.source_sha256(Path(evaluation.__file__)),
        verifier_source_sha256=assembly.source_sha256(Path(__file__).resolve().parents[1] / "verify.py"),
        created_at=_now())
    sealed_manifest = json.loads((split_dir / "sealed" / "manifest.json").read_bytes())
    test_ref = sealed_manifest["roles"]["test"]["artifact"]
    salt = [test_ref["sha256"], public_sections["splits"]["policy_sha256"], commit]
    label_policy_sha = python_canonical_sha256(LABEL_POLICY)
    audit_plan = {"schema_version": "nerb_verify.demo_audit_plan.v1", "sample_size": sample_size,
                  "sample_salt": salt, "rank_domain": evaluation.SAMPLE_RANK_DOMAIN,
                  "label_policy_sha256": label_policy_sha,
                  "catalog_policy_sha256": python_canonical_sha256({"catalog": "bank_only_literal_or_exact_regex"}),
                  "scoring_policy_sha256": python_canonical_sha256({"matching": evaluation.MATCHING}),
                  "slices": [s[0] for s in SLICES], "bank_hash": bank_sections["bank"]["canonical_hash"]}
    sample_design = {"method": "deterministic_stratified_without_replacement",
                     "policy_sha256": python_canonical_sha256({"strata": "recurrence x size band x risk",
                                                               "minimum": 2, "residual": "hamilton"}),
                     "seed_sha256": python_canonical_sha256(audit_plan),
                     "membership_artifact": {"id": "demo_gold_sample_membership", "sha256": None, "bytes": 0}}
    test_role = public_sections["splits"]["roles"]["test"]  # public counts: nothing of the test is read yet
    frame = test_role["records"]
    # the decision demo's combined slice is the charter's gate (its frame is the fixture's own test role:
    # docs/decision-grade.md, "Synthetic fixtures and the frozen panel"); a smoke demo has diagnostics only
    quality_plan = [{"id": sid, "entity_class": cls, "label_artifact_id": lid, "cohort": "all",
                     "split_role": "test", "text_view": "subject_current_body",
                     "promotion_gate": decision and sid == GATE_SLICE,
                     "frame_documents": frame, "sample_documents": min(sample_size, test_role["groups"]),
                     "sample_design": sample_design} for sid, cls, lid, _ in SLICES]
    privacy = assembly.privacy_report([sections, public / "manifest-bank.json", public / "bank-card.json"],
                                      retention_policy_sha256=retention_policy_sha256(private))
    write_private_json(private / "public-sections" / "privacy-report.json", privacy)
    plan = assembly.freeze_plans(
        public_sections=public_sections, bank_section=bank_sections["bank"],
        conformance_plan=bank_sections["conformance_plan"], labels=[], quality_plan=quality_plan,
        provenance=provenance, audit_plan=audit_plan, gate_slice=0 if decision else None,
        performance_plan=performance,
        command_argv=["nerb-verify", "demo", "--messages", str(messages), "--seed", str(seed), "--profile", profile]
        + (["--reduced-per-block", str(paired_per_block)] if paired_per_block is not None else []),
        command_elapsed_seconds=performance_seconds, artifact_kind=assembly.SYNTHETIC_FIXTURE,
        privacy_report_sha256=python_canonical_sha256(privacy))
    from nerb_verify.checks.performance.hashes import performance_manifest_sha256

    perf_hash = performance_manifest_sha256(performance)
    target = assembly.frozen_target(plan, bank_hash=bank_sections["bank"]["canonical_hash"],
                                    split_manifest_sha256=sha256_prefixed(
                                        (split_dir / "sealed" / "manifest.json").read_bytes()),
                                    test_artifact_sha256=test_ref["sha256"], frozen_at=_now(),
                                    performance_manifest_sha256=perf_hash)
    progress("7/9 sealed test: bind the frozen target, open once, evaluate")
    sealed = SealedTest(split_dir / "sealed", private / "enron-split" / "lineage.jsonl")
    _now()  # the access happens in a later second than the freeze
    sealed.bind_evidence(target)
    key = {row["message_id"]: row["mentions"] for row in _jsonl(answers)}
    with sealed.open_once() as lines:
        records = [json.loads(line) for line in lines]
    # sealed-side metadata (groups, strata flags) is read only after the one access was claimed
    memberships = {m["document_id"]: m for m in _jsonl(split_dir / "sealed" / "memberships.jsonl")
                   if m.get("role") == "test"}
    second_refused = refuse_second_access(sealed, target)
    scored = evaluate_test(records, memberships, key, bank, compiled, salt, sample_size, label_policy_sha,
                           annotation_dir=private / "annotation", gate=decision)
    progress("8/9 assemble: evidence, audit chain, lineage, report, publication, summary, figures")
    plan.manifest["labels"] = scored["labels"] + [assembly.conformance_label(bank_sections["conformance_plan"])]
    membership_ref = scored["sample_artifact"]
    for entry in plan.manifest["quality_plan"]:
        entry["sample_design"]["membership_artifact"] = membership_ref
    entries = sealed.lineage.entries()
    stage_files = write_audit_files(private / "audit", scored, plan.audit_plan_sha256)
    chain = assembly.audit_chain(plan, gold_sha256=scored["gold_sha256"], sample_sha256=membership_ref["sha256"],
                                 catalog_binding_sha256=scored["catalog_sha256"],
                                 prediction_sha256=scored["prediction_sha256"], quality_passed=False,
                                 evaluator_source_sha256=provenance.evaluator_source_sha256,
                                 stage_files=stage_files)
    aggregate = {"id": "demo_prediction_audit_receipt", "sha256": python_canonical_sha256(scored["quality"]),
                 "bytes": len(json.dumps(scored["quality"]))}
    lineage = assembly.public_lineage(entries, target, aggregate)
    claimed = [e for e in entries if e.get("event") == "claimed"]
    test_access = {"benchmark_version": assembly.BENCHMARK_VERSION, "current_version_access_count": len(claimed),
                   "current_version_accessed_at": claimed[-1]["at"] if claimed else None,
                   "frozen_target": target, "lineage": lineage, "lineage_head_sha256": None,
                   "optimization_roles": ["train", "validation"]}
    evidence = assembly.build_evidence(plan, quality=scored["quality"], catalog_conformance=conformance,
                                       performance=performance, test_access=test_access, chain=chain,
                                       created_at=_now())
    report = assembly.performance_report(evidence, profile)
    bundle = assembly.write_bundle(output / "bundle", manifest=plan.manifest, evidence=evidence, report=report,
                                   card=card, inventories=inventories, capacity=capacity_decision)
    record_retention(private)
    progress("9/9 verify")
    result = verify_bundle(bundle)
    errors = sorted({(f.code, f.artifact, f.pointer) for f in result.collector.findings if f.severity == "error"})
    codes = sorted({code for code, _, _ in errors})
    grade = result.collector.decisions.get("decision_grade") or {}
    unmet = sorted({str(item["code"]) for item in grade.get("unmet") or []})
    return DemoResult(bundle, private, result.verdict, result.exit_code, codes, second_refused, errors, unmet,
                      grade.get("eligible") is True, sorted(str(b) for b in grade.get("blocked_by") or []))


class _Unmeasured:
    """A phase of a run that is not measured (the smoke demo): checkpoints go nowhere."""

    def checkpoint(self, completed_records: int) -> None:
        """Nothing to record."""


@contextlib.contextmanager
def _phase(measured: capacity.CapacityRun | None, name: str) -> Iterator[Any]:
    if measured is None:
        yield _Unmeasured()
        return
    with measured.phase(name) as phase:
        yield phase


def git_blob_id(path: Path) -> str:
    """The git object id (SHA-1) of a file's bytes: a 40-hex immutable revision of a local corpus file."""
    import hashlib

    data = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # noqa: S324 - git's object id, not security


def measure_capacity(measured: capacity.CapacityRun, private: Path, split_dir: Path, sections: dict[str, Any],
                     bank_sections: dict[str, Any], card: dict[str, Any], compiled: Any,
                     validation_sha: str) -> dict[str, Any] | None:
    """The last two capacity phases, the commitments and the report (None when a gate failed)."""
    from nerb_verify.producers import capacity_identity

    development = split_dir / "development"
    lineage = private / "enron-split" / "lineage.jsonl"
    sealed = capacity_pipeline.sealed_state(split_dir, lineage)
    bank = bank_sections["bank"]

    def rebuild(bank_dir: Path, public_dir: Path) -> str:
        public_dir.mkdir(mode=0o700)
        if _cli(["bank", "build", str(development), "--private-dir", str(bank_dir), "--public-dir",
                 str(public_dir)]) != 0:
            raise assembly.AssemblyError("the deep replay's bank build failed")
        return str(json.loads((public_dir / "manifest-bank.json").read_text(encoding="utf-8"))["bank"]
                   ["canonical_hash"])

    later = capacity_pipeline.validation_phases(measured, development, compiled, validation_sha,
                                                bank["canonical_hash"], rebuild)
    measured.sealed_states.append(capacity_pipeline.sealed_state(split_dir, lineage)["sealed_access_state_sha256"])
    versions = capacity_identity.reader_versions()
    policy = capacity.run_policy(sections["source"], versions)
    reader_env = python_canonical_sha256(capacity_identity.reader_environment(versions))
    own = [capacity_pipeline.preparation_commitments(private, sections, card, policy, reader_env),
           capacity_pipeline.split_commitments(sections, card, sealed),
           capacity_pipeline.build_commitments(bank, card, validation_sha),
           later["streaming_validation"], later["deep_replay"]]
    chained = capacity.chain_commitments(own, capacity_pipeline.privacy_scanner(measured.folder))
    return measured.finish(chained, policy)


def retention_policy_sha256(private: Path) -> str:
    """The hash of the retention policy ``prepare`` recorded at the demo's private root (the public side's copy)."""
    from nerb_verify.producers import retention

    record = retention.load_record(private)
    if record is None:
        raise assembly.AssemblyError("the private root has no retention record")
    return str(record["policy_sha256"])


def record_retention(private: Path) -> None:
    """Register every private file the demo wrote after ``prepare`` (audit, performance, lineage, staging)."""
    from nerb_verify.producers import retention

    try:
        retention.register_tree(private)
    except retention.RetentionError as exc:
        raise assembly.AssemblyError(f"retention record not updated: {exc}") from None


def write_private_json(path: Path, data: Any) -> None:
    """A 0600 pretty JSON file under a private folder."""
    from nerb_verify.canonical import nerb_pretty_bytes

    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(nerb_pretty_bytes(data))


def write_audit_files(folder: Path, scored: dict[str, Any], plan_sha256: str) -> dict[str, dict[str, str]]:
    """Write each audit stage's private output, manifest and receipt (0600 under a 0700 folder); return their hashes."""
    import os

    from nerb_verify.canonical import nerb_pretty_bytes

    folder.mkdir(mode=0o700, exist_ok=True)
    hashes: dict[str, dict[str, str]] = {}

    def put(name: str, data: Any) -> str:
        raw = nerb_pretty_bytes(data)
        fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
        return sha256_prefixed(raw)

    outputs = {"gold": scored["private"]["gold"], "catalog": scored["private"]["catalog"],
               "score": scored["quality"], "prediction_audit": {"reviewed": False,
                                                                "reason": "synthetic demo: no prediction review"}}
    for stage, output in outputs.items():
        artifact = put(f"{stage}.json", output)
        manifest = put(f"{stage}.manifest.json", {"stage": stage, "audit_plan_sha256": plan_sha256,
                                                 "output_sha256": artifact})
        receipt = put(f"{stage}.receipt.json", {"stage": stage, "manifest_sha256": manifest, "status": "completed"})
        hashes[stage] = {"artifacts": artifact, "manifest": manifest, "receipt": receipt}
    hashes["catalog"]["review"] = put("catalog.review.json", {"replayed_by": "nerb_verify.producers.evaluation",
                                                              "catalog_sha256": hashes["catalog"]["artifacts"]})
    return hashes


def refuse_second_access(sealed: SealedTest, target: dict[str, Any]) -> bool:
    """Try a second evaluation against the same test artifact: it must be refused, and the refusal is recorded."""
    try:
        sealed.bind_evidence(target)
    except SealedAccessError as exc:
        sealed.lineage.append("access_refused", {"test_artifact_sha256": target["test_artifact_sha256"],
                                                 "reason": exc.code})
        return True
    return False


def _package_version() -> str:
    try:
        from importlib.metadata import version

        return version("nerb-verify")
    except Exception:  # noqa: BLE001 - an uninstalled checkout
        return "0.0.0"


def evaluate_test(records: list[dict[str, Any]], memberships: dict[str, dict[str, Any]],
                  key: dict[str, list[dict[str, str]]], bank: dict[str, Any], compiled: Any, salt: list[str],
                  sample_size: int, label_policy_sha: str, *, annotation_dir: Path, gate: bool = False
                  ) -> dict[str, Any]:
    """Sample, adjudicated two-pass gold, catalog qualification, one scan per sampled document, three slices.

    The gold is not read from the answer key: two synthetic annotators (one working from the key, one a rule tagger
    that never reads it) each label the sampled documents, their files go through the real importers, and a
    distinct reviewer adjudicates every disagreement (:mod:`nerb_verify.producers.demo_annotation`; files under
    ``annotation_dir``). The labels are therefore ``independent``, with the adjudication record's hash as evidence.
    """
    from nerb_verify.producers import demo_annotation

    by_id = {r["document_id"]: r for r in records}
    candidates = []
    for doc_id, record in by_id.items():
        member = memberships.get(doc_id, {})
        candidates.append(evaluation.SampleCandidate(
            doc_id, str(member.get("group_id", doc_id)),
            record["view_metadata"]["subject_current_body"]["utf8_bytes"],
            bool(member.get("challenges")),
            str((member.get("identities") or {}).get("recurrence", "none"))))
    sample = evaluation.select_sample(candidates, sample_size, salt)
    detectors = evaluation.catalog_index(bank)
    documents: dict[str, int] = {}
    gold: list[evaluation.GoldSpan] = []
    scan_rows: list[dict[str, Any]] = []
    texts = {doc_id: by_id[doc_id]["views"]["subject_current_body"] for doc_id in sample}
    planted = {doc_id: [(m["entity_class"], m["surface"]) for m in key.get(by_id[doc_id]["headers"]["message_id"], [])]
               for doc_id in sample}
    annotated = demo_annotation.annotate_sample(texts, planted, annotation_dir)
    for span in annotated.gold:
        text = texts[span.document_id]
        gold.append(evaluation.GoldSpan(span.document_id, span.entity_class, span.start, span.end,
                                        evaluation.qualify_catalog(detectors, text, span.entity_class, span.start,
                                                                   span.end)))
    for doc_id in sample:
        text = texts[doc_id]
        documents[doc_id] = len(text)
        for row in compiled.scan_text(text, "char"):
            scan_rows.append({"document_id": doc_id, **row})
    predictions = evaluation.predictions_from_records(scan_rows)
    gold_doc = {"documents": [{"document_id": d, "spans": sorted((g.entity_class, g.start, g.end) for g in gold
                                                                 if g.document_id == d)} for d in sample]}
    gold_sha = python_canonical_sha256(gold_doc)
    sample_raw = "\n".join(sample).encode("utf-8")
    scope = {"document_regions": ["subject", "current_body"], "exclusions": [], "span_policy_sha256": label_policy_sha}
    slices = []
    labels = []
    for sid, cls, lid, classes in SLICES:
        spec = evaluation.SliceSpec(id=sid, entity_class=cls, label_artifact_id=lid, label_strength="independent",
                                    annotation_completeness="exhaustive_within_scope",
                                    annotation_scope={**scope, "entity_classes": classes},
                                    promotion_gate=gate and sid == GATE_SLICE)
        scored = evaluation.score_slice(spec, documents, gold, predictions)
        slices.append(scored)
        spans = scored["gold_spans"]
        labels.append(assembly.label_entry(
            lid, classes, "independent",
            {"id": "demo_gold_annotations", "sha256": gold_sha, "bytes": len(json.dumps(gold_doc))},
            len(documents), spans, label_policy_sha,
            {"adjudication_artifact": annotated.adjudication.artifact_ref("demo_gold_adjudication"),
             "independently_reviewed": True, "producer_id": demo_annotation.KEY_ANNOTATOR,
             "protocol_sha256": annotated.protocol_sha256, "reviewer_id": demo_annotation.REVIEWER}))
    catalog = [(g.document_id, g.entity_class, g.start, g.end, g.catalog_identity) for g in gold]
    return {
        "quality": {"evaluated": True, "matching_semantics": evaluation.MATCHING,
                    "character_position_semantics": evaluation.POSITIONS, "slices": slices},
        "labels": labels, "gold_sha256": gold_sha, "catalog_sha256": python_canonical_sha256(catalog),
        "prediction_sha256": python_canonical_sha256([[p.document_id, p.entity_class, p.start, p.end, p.name_id]
                                                      for p in predictions]),
        "sample_artifact": {"id": "demo_gold_sample_membership", "sha256": sha256_prefixed(sample_raw),
                            "bytes": len(sample_raw)},
        "private": {"gold": gold_doc, "catalog": [list(row[:4]) + [row[4]] for row in catalog]},
        "agreement": annotated.agreement.to_json(),
    }
