"""Run every check family over one bundle and decide the verdict and exit code.

Verdicts and exit codes (spec 00 decision 6):

* ``verified`` (0): no error-severity finding;
* ``rejected`` (1): at least one error finding (the evidence does not hold);
* ``could_not_verify`` (2): the bundle path itself is unusable (not a directory, unreadable), the folder is not a
  bundle (no ``publication.json``), its publication is in an older NERB layout (:mod:`nerb_verify.layout`), or a
  check family failed internally;
* ``ineligible`` (3): verified, but ``--require-standalone-redaction-eligible`` was asked and the verifier's own
  standalone-redaction decision is not eligible, or ``--require-decision-grade`` was asked and a decision-grade
  requirement is unmet (possible only for a bundle that does not claim decision grade: a declared smoke run, or a
  decision run that honestly reports its grade as not passed; see :mod:`nerb_verify.decision_scope`).

A requirement the evidence honestly fails (a failed quality gate, a gate panel whose declared support is
insufficient, an unstable stability cell in a bundle that does not claim decision grade) is such an outcome, never an
error finding; an error finding means something the bundle states is false (docs/threat-model.md).

Every family always runs; a family whose inputs are missing or invalid records ``not_evaluated`` in ``checks_run``
and the missing input is itself an error finding, so nothing passes by being skipped.
"""

from __future__ import annotations

import gc
import os
import stat
from pathlib import Path

from nerb_verify import display, layout, memo, prefork
from nerb_verify.bundle import open_bundle
from nerb_verify.checks.raw import privacy_scan
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext, VerifyOptions
from nerb_verify.display import display_bundle_path, safe_relpath
from nerb_verify.findings import Collector, Label

NOT_A_DIRECTORY = register(
    "usage.bundle_not_directory", "The bundle path is not a readable directory.",
    "Pass the folder that holds publication.json and the other artifacts. Symbolic links are not followed, so the "
    "path itself must be a real directory.")
INTERNAL_ERROR = register(
    "usage.internal_error", "A check family failed internally; the bundle could not be verified.",
    "A defect in nerb-verify stopped one check family. The verdict is 'could not verify' (exit 2), never a pass. "
    "The message names the family; please report it. No input value is printed.")
INELIGIBLE = register(
    "decision.standalone_redaction_ineligible", "Standalone redaction eligibility was required but does not hold.",
    "With --require-standalone-redaction-eligible the verifier's own standalone-redaction decision must be eligible. "
    "The message names the gates that failed (quality gates, quality_support for a gate panel that honestly misses "
    "a support floor, catalog conformance, privacy, clean git, performance). The evidence itself may still be "
    "authentic and verified: this is a decision outcome, reported only under the flag (exit code 3).")

NOT_DECISION_GRADE = register(
    "decision.decision_grade_ineligible", "Decision grade was required but the bundle is not decision grade.",
    "With --require-decision-grade every decision-grade requirement must hold (19 decision cells, controlled "
    "sweeps, value model, quality gate slice, capacity decision, decision profile, and measured outcomes the charter "
    "calls nonpromotable). A bundle that does not claim decision grade (a declared smoke run, or a decision run "
    "whose report honestly says its grade did not pass, with no promotion and no claims) verifies without them: "
    "the unmet requirements are a decision outcome, exit code 3 only under this flag. The message lists the unmet "
    "requirement codes.")

EXIT_VERIFIED = 0
EXIT_REJECTED = 1
EXIT_COULD_NOT_VERIFY = 2
EXIT_INELIGIBLE = 3


class VerifyResult:
    """Everything a verification produced; the report and CLI outputs are rendered from this.

    ``display_root`` is the bundle folder as every output prints it (:func:`display_bundle_path`: relative to the
    working directory, or ``<bundle>``), never an absolute path.
    """

    def __init__(self, root: Path, display_root: str, ctx: VerifyContext, verdict: str, exit_code: int) -> None:
        """Hold the run's context with its verdict and exit code (:func:`_decide` may still set both)."""
        self.root: Path = root
        self.display_root: str = display_root
        self.ctx: VerifyContext = ctx
        self.verdict: str = verdict
        self.exit_code: int = exit_code

    @property
    def collector(self) -> Collector:
        return self.ctx.collector


def verify_bundle(root: Path, options: VerifyOptions | None = None, display_root: str | None = None) -> VerifyResult:
    """Verify the bundle at ``root`` and return the result (never raises for bad input).

    ``display_root`` is how the caller named the folder (default: ``root``); outputs show it through
    :func:`display_bundle_path`, so an absolute path is printed relative to the working directory or masked.
    """
    options = options or VerifyOptions()
    collector = Collector()
    ctx = VerifyContext(root=root, options=options, collector=collector)
    named = display_root if display_root is not None else root
    try:
        info = os.lstat(root)
        usable = stat.S_ISDIR(info.st_mode)
    except OSError:
        usable = False
    if not usable:
        collector.add(NOT_A_DIRECTORY, ".", "")
        return VerifyResult(root, display_bundle_path(named), ctx, "could_not_verify", EXIT_COULD_NOT_VERIFY)
    if not layout.has_publication_entry(root):
        # Not a bundle at all: one finding and nothing else (no walk, no family, no table).
        collector.add(layout.NOT_A_BUNDLE, ".", "")
        return VerifyResult(root, display_bundle_path(named), ctx, "could_not_verify", EXIT_COULD_NOT_VERIFY)
    # The console script verifies one bundle and exits (``single_run``): the cyclic garbage collector stays off for
    # the verification and what was loaded is frozen out of its passes. Parsing builds a few hundred thousand
    # containers and no garbage, and every later collection walked them all again (about 40 ms per process on the
    # real bundle); a whole verification leaves about a hundred objects in reference cycles (116 on the real bundle,
    # 1,206 on a schema-rejected one, measured), which go with the process. A frozen object is still freed when its
    # last reference goes. Before the fork, this also spares the child copies of the pages a collection would touch.
    paused = options.single_run and gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _verify_opened(ctx, named, paused)
    finally:
        if paused:
            gc.freeze()  # what the verification built is the result the caller prints: not garbage either
            gc.enable()


def _verify_opened(ctx: VerifyContext, named: str | os.PathLike[str], freeze: bool) -> VerifyResult:
    """Open the bundle and run every family (``verify_bundle`` past its first checks); ``freeze``: freeze what the
    bundle's loading built out of the cyclic collector's passes."""
    root, options, collector = ctx.root, ctx.options, ctx.collector
    open_bundle(ctx)
    if freeze:
        gc.freeze()
    if not layout.check_layout(ctx):
        # An older NERB layout: the v2 families would only repeat the one difference dozens of times.
        return VerifyResult(root, display_bundle_path(named), ctx, "could_not_verify", EXIT_COULD_NOT_VERIFY)
    # Every name this run may show (the bundle's entries and the folder as given), decided by the privacy scanner:
    # in the child with --jobs 2, alongside the privacy family's scans, so this process does not import the scanner.
    shown_root = display.bundle_relpath(named)
    names_key, names_compute, names_size = display.components_job(
        [*privacy_scan.bundle_names(ctx), *([shown_root] if shown_root else [])])
    child = None
    if options.jobs > 1:
        child = prefork.start([*privacy_scan.memo_jobs(ctx), (names_key, names_compute, names_size)])
    # The check families (and the decision scope) are imported here, after the fork: with --jobs 2 this process
    # loads them while the child is already scanning (issue 16, speed).
    from nerb_verify import decision_scope, families

    failed = False
    for family, run in families.FAMILY_ORDER:
        if family == "privacy":
            prefork.finish(child)
            child = None
        try:
            run(ctx)
        except Exception as exc:  # noqa: BLE001 - a defect must not become a traceback or a pass
            failed = True
            collector.add(INTERNAL_ERROR, ".", "", "The {family} family failed internally ({kind}).",
                          family=Label(family), kind=Label(type(exc).__name__))
            collector.ran(family, "not_evaluated", reason="internal error")
    prefork.finish(child)  # a family order without privacy: still reap the child
    display.remember(memo.cached(names_key, names_compute))
    shown = display_bundle_path(named)
    _mask_artifact_names(collector)
    if failed:
        return VerifyResult(root, shown, ctx, "could_not_verify", EXIT_COULD_NOT_VERIFY)
    decision_scope.apply(ctx)
    return _decide(VerifyResult(root, shown, ctx, "", 0))


def _mask_artifact_names(collector: Collector) -> None:
    """Show every finding's file as :func:`safe_relpath` does, whichever family wrote it: a file name that is itself
    personal data (an address or a phone number used as a name) is never echoed, even by a family that reported
    the file for another reason (a schema violation in an oddly named inventory, say)."""
    for index, finding in enumerate(collector.findings):
        shown = safe_relpath(finding.artifact)
        if shown != finding.artifact:
            collector.findings[index] = finding._replace(artifact=shown)


def _decide(result: VerifyResult) -> VerifyResult:
    collector = result.collector
    errors = [f for f in collector.findings if f.severity == "error" and f.code not in (INELIGIBLE, NOT_DECISION_GRADE)]
    if errors:
        result.verdict, result.exit_code = "rejected", EXIT_REJECTED
        return result
    if result.ctx.options.require_decision_grade:
        grade = collector.decisions.get("decision_grade") or {}
        if grade.get("eligible") is not True:
            unmet = sorted({str(item.get("code")) for item in grade.get("unmet") or []})
            # Requirement codes are registered identifiers, never input text.
            collector.add(NOT_DECISION_GRADE, "performance-report.json", "/profile",
                          "Not decision grade; unmet requirements: " + (", ".join(unmet) or "none recorded"))
            result.verdict, result.exit_code = "ineligible", EXIT_INELIGIBLE
            return result
    if result.ctx.options.require_standalone_redaction_eligible:
        standalone = collector.decisions.get("standalone_redaction") or {}
        if standalone.get("eligible") is not True:
            failed = standalone.get("failed_gates") or []
            if not any(f.code == INELIGIBLE for f in collector.findings):
                names = ", ".join(str(g) for g in failed) if failed else "the decision could not be evaluated"
                # Gate ids are written by the verifier from its own fixed vocabulary, never copied from input.
                collector.add(INELIGIBLE, "benchmark-evidence.json", "/promotion/checks",
                              "Standalone redaction is not eligible; failed gates: " + names.replace("{", "(")
                              .replace("}", ")"))
            result.verdict, result.exit_code = "ineligible", EXIT_INELIGIBLE
            return result
    result.verdict, result.exit_code = "verified", EXIT_VERIFIED
    return result
