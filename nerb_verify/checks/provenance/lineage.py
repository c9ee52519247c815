"""Lineage family: sealed-test access, the append-only lineage, frozen targets, the audit chain and the audit plan.

The charter allows the final test to be read once per frozen release candidate, and every access (passed, failed or
aborted) to enter an append-only public lineage in which each entry hashes its predecessor. This family checks, on the
evidence's ``test_access`` and ``audit_chain`` objects (spec 10 sections 5.3, 5.4, 9.5, 9.6):

* the test was never an optimisation target, access is one-shot and timestamped consistently;
* the frozen target binds exactly the bank, evaluator, split, test artifact, performance plan and commit of the
  evidence (the audit-plan hash is checked with its other copies; the thresholds hash by the gate family);
* the lineage: contiguous sequence, strictly increasing timezone-aware timestamps, unique versions, test
  artifacts and audit plans (each candidate is newly preregistered), ``previous_entry_sha256`` links, every
  ``entry_sha256`` and the head recomputed, origin and disclosure rules (a follow-up is frozen after the outcome it
  discloses), the current access as the head with the frozen target it was run against;
* with ``--trusted-lineage FILE``, the previously published lineage must be a prefix of this one (append-only);
* the audit chain: ``chain_sha256`` recomputed, cross-stage hash equalities, no unresolved cases, a valid terminal
  state, and ``quality_decision_passed`` equal to the verifier's own exact quality decision;
* ``audit_plan_sha256`` identical in the evidence, the chain, all four chain stages and the frozen target (the
  manifest's copy is the binding family's).
"""

from __future__ import annotations

from typing import Any

from nerb_verify import context as C
from nerb_verify import timestamps
from nerb_verify.canonical import python_canonical_bytes, self_hash
from nerb_verify.checks.raw import gate_eval
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext
from nerb_verify.findings import Label
from nerb_verify.pointers import join

EV = C.EVIDENCE

MALFORMED = register(
    "lineage.malformed", "A field the lineage or audit-chain checks need is missing or has the wrong type.",
    "test_access, its lineage entries and the audit chain must have the shape of evidence v2 (spec 10 sections 5.3 and "
    "5.4). The checks that need the field are not evaluated, which is never a pass. Fix the evidence producer.")
TEST_OPTIMIZED = register(
    "lineage.test_optimized", "The test split is listed among the optimisation roles.",
    "Bank building and policy tuning may read train and validation only; listing `test` in "
    "test_access.optimization_roles declares that the final test was tuned on, which invalidates the evaluation.")
ROLES_UNDERSTATED = register(
    "lineage.optimization_roles_understated", "The optimisation roles omit a split the bank card shows was used.",
    "The bank card records how the bank was made: built from train records (builder.train_records > 0) and, when its "
    "development validation evaluated documents, selected on the validation split. test_access.optimization_roles "
    "must then list `train` and `validation` respectively: a bundle may not understate which splits it tuned on.")
ACCESS_TIMESTAMP = register(
    "lineage.access_timestamp", "The current-version access timestamp disagrees with the access count or lineage.",
    "current_version_accessed_at must be null exactly when current_version_access_count is 0, and equal the "
    "accessed_at of the current version's lineage entry when the count is 1.")
REPEATED_ACCESS = register(
    "lineage.repeated_access", "The sealed test was accessed more than once for this version.",
    "The final test is run once per frozen release candidate (one-shot access): current_version_access_count must be "
    "0 or 1. A second look needs a new benchmark version, a newly sealed test and a linked lineage entry.")
INVALID_TIMESTAMP = register(
    "lineage.invalid_timestamp", "A lineage timestamp is not a timezone-aware RFC 3339 date-time.",
    "Timestamps must be RFC 3339 date-times with `Z` or a numeric offset. A naive timestamp (no offset) cannot be "
    "ordered against the others and is reported like an unparseable one; the ordering checks that need it are not "
    "evaluated.")
FREEZE_MISMATCH = register(
    "lineage.freeze_mismatch", "The frozen target does not bind the evidence it claims to have frozen.",
    "test_access.frozen_target must repeat the evidence's bank canonical hash, evaluator source hash, split manifest "
    "hash, test split artifact hash, performance manifest hash and git commit exactly.")
BENCHMARK_VERSION_MISMATCH = register(
    "lineage.benchmark_version_mismatch", "The test-access benchmark version differs from the manifest's.",
    "test_access.benchmark_version must equal the manifest's benchmark_version: the access belongs to the "
    "preregistered benchmark.")
FREEZE_BEFORE_MANIFEST = register(
    "lineage.freeze_before_manifest", "The target was frozen before the manifest was created.",
    "test_access.frozen_target.frozen_at must not precede manifest.created_at: the freeze covers the preregistered "
    "manifest, which must already exist.")
SEQUENCE = register(
    "lineage.sequence", "Lineage sequence numbers are not contiguous from 1.",
    "Entry k (0-based) of test_access.lineage must have sequence k+1: a gap or repeat means an entry was removed, "
    "duplicated or reordered.")
VERSION_REUSED = register(
    "lineage.version_reused", "A benchmark version appears twice in the lineage.",
    "Each benchmark version is accessed once; a second entry for the same version means the sealed test was looked "
    "at again (or an entry was duplicated).")
TEST_ARTIFACT_REUSED = register(
    "lineage.test_artifact_reused", "A test artifact is reused by two lineage entries.",
    "After an access the test population is spent: a later release candidate needs a newly sealed test artifact. "
    "Two entries with the same frozen_target.test_artifact_sha256 reuse it.")
AUDIT_PLAN_REUSED = register(
    "lineage.audit_plan_reused", "Two lineage entries were run under one preregistered audit plan.",
    "Each release candidate is newly preregistered: its audit plan binds its own sealed test artifact, bank, "
    "evaluator, thresholds and freeze. A failed or aborted predecessor and the candidate that follows it cannot share "
    "frozen_target.audit_plan_sha256; two entries naming one plan mean the plan was reused for another candidate.")
SUCCESSOR_FROZEN_EARLY = register(
    "lineage.successor_frozen_before_outcome", "A follow-up release candidate was frozen before its predecessor's "
    "outcome existed.",
    "A lineage entry after the first discloses changes informed by its predecessor's outcome, which is known only "
    "once the predecessor's sealed test was read. Its frozen_target.frozen_at must therefore be strictly later than "
    "the predecessor's accessed_at; a freeze at or before it claims to be informed by an outcome that did not yet "
    "exist.")
ENTRY_HASH = register(
    "lineage.entry_hash_mismatch", "A lineage entry hash does not match its content.",
    "entry_sha256 must be the canonical hash of the entry without that key (it includes previous_entry_sha256, so "
    "the entries form a hash chain). The entry was edited after it was sealed.")
ACCESS_BEFORE_FREEZE = register(
    "lineage.access_before_freeze", "The test was accessed before its target was frozen.",
    "A lineage entry's accessed_at must not precede its frozen_target.frozen_at: the bank, evaluator, thresholds and "
    "workloads are frozen before the sealed test is read.")
TIMESTAMP_ORDER = register(
    "lineage.timestamp_order", "Lineage access timestamps are not strictly increasing.",
    "Each entry's accessed_at must be strictly later than the previous entry's: the lineage is append-only.")
ORIGIN = register(
    "lineage.origin", "The first lineage entry claims a predecessor.",
    "The first entry must have previous_entry_sha256 and predecessor_benchmark_version null and an empty "
    "changes_informed_by_predecessor list.")
PREDECESSOR_HASH = register(
    "lineage.predecessor_hash", "A lineage entry does not link to the previous entry's hash.",
    "previous_entry_sha256 of entry k must equal entry_sha256 of entry k-1; otherwise an entry was removed, inserted "
    "or rewritten.")
PREDECESSOR_VERSION = register(
    "lineage.predecessor_version", "A lineage entry names the wrong predecessor version.",
    "predecessor_benchmark_version of entry k must equal benchmark_version of entry k-1.")
MISSING_DISCLOSURE = register(
    "lineage.missing_disclosure", "A follow-up lineage entry discloses no changes informed by its predecessor.",
    "After a failed or aborted run, the next release candidate must disclose the changes and decisions its "
    "predecessor's outcome informed (a non-empty changes_informed_by_predecessor list).")
HEAD_MISMATCH = register(
    "lineage.head_mismatch", "The lineage head hash is not the last entry's hash.",
    "lineage_head_sha256 must equal the recomputed entry_sha256 of the last lineage entry, or be null when the "
    "lineage is empty.")
ACCESS_COUNT = register(
    "lineage.access_count", "The access count disagrees with the lineage.",
    "current_version_access_count must equal the number of lineage entries for test_access.benchmark_version.")
AGGREGATE_WITHOUT_ACCESS = register(
    "lineage.aggregate_without_access", "Test-split results are published without a recorded test access.",
    "A quality slice or claim on the test split needs current_version_access_count 1 and its lineage entry.")
CURRENT_NOT_HEAD = register(
    "lineage.current_not_head", "The current version's lineage entry is not the last one.",
    "The current access is the most recent event of the lineage; an entry after it would come from the future.")
CURRENT_FREEZE_MISMATCH = register(
    "lineage.current_freeze_mismatch", "The current lineage entry was run against a different frozen target.",
    "The frozen_target of the current version's lineage entry must equal test_access.frozen_target exactly.")
EVIDENCE_BEFORE_ACCESS = register(
    "lineage.evidence_before_access", "The evidence was created before the test access it reports.",
    "evidence.created_at must not precede the current access's accessed_at.")
EVIDENCE_BEFORE_MANIFEST = register(
    "lineage.evidence_before_manifest", "The evidence was created before the manifest it evaluates.",
    "evidence.created_at must not precede manifest.created_at: the evidence records an evaluation under the "
    "preregistered manifest (its manifest_sha256 binds it), so the manifest existed first. Together with the freeze "
    "and access rules this orders every timestamp the bundle states: manifest created <= target frozen <= test "
    "accessed <= evidence created.")
FAILED_TEST_PROMOTION = register(
    "lineage.failed_test_promotion", "A promoted bundle's current test access did not pass.",
    "Promotion needs the current version's lineage entry to have outcome `passed`.")
TRUSTED_REQUIRED = register(
    "lineage.trusted_lineage_required", "A promoted or verified bundle was checked without a trusted lineage.",
    "Append-only can only be shown against a lineage published earlier. Pass --trusted-lineage FILE (the lineage "
    "list of the previous publication, or [] for a first publication) when the bundle claims promotion or "
    "verification.")
TRUSTED_SHAPE = register(
    "lineage.trusted_lineage_shape", "The trusted lineage is not a list of lineage entry objects.",
    "--trusted-lineage must name a JSON file holding an array of lineage entry objects (test_access.lineage of a "
    "previous publication).")
NOT_APPEND_ONLY = register(
    "lineage.not_append_only", "The lineage is not an append-only extension of the trusted lineage.",
    "Every entry of the previously published (trusted) lineage must appear unchanged, in order, at the start of "
    "this lineage. An entry was removed, rewritten or reordered.")
CHAIN_HASH = register(
    "lineage.audit_chain_hash", "The audit chain hash does not match its content.",
    "audit_chain.chain_sha256 must be the canonical hash of the audit chain without that key.")
CHAIN_BINDING = register(
    "lineage.audit_chain_binding", "Audit chain stages do not bind the same artifacts.",
    "Every stage repeats the chain's audit_output_binding_sha256; catalog and score use gold's sample artifact; "
    "catalog, score and prediction audit use gold's gold hash; score and prediction audit use catalog's binding; the "
    "prediction audit names the score manifest; the score names the evidence's evaluator source; gold's annotation "
    "policy is the span policy (annotation_scope.span_policy_sha256) of every label artifact the quality plan uses.")
CHAIN_UNRESOLVED = register(
    "lineage.audit_chain_unresolved", "The audit chain has unresolved cases.",
    "gold.unresolved, catalog.unresolved and prediction_audit.unresolved_cases must all be 0 before a result is "
    "published.")
CHAIN_TERMINAL = register(
    "lineage.audit_chain_terminal", "The audit chain is not in a valid terminal state.",
    "The score and prediction-audit statuses, commitments, decision flags and release value must form one of the "
    "terminal states of spec 10 section 9.6 (insufficient support, accepted, quality gates failed, invalidated gold "
    "defect).")
CHAIN_QUALITY_DECISION = register(
    "lineage.audit_chain_quality_decision", "The audit chain's quality decision disagrees with the recomputed one.",
    "score.quality_decision_passed must equal the verifier's quality decision: every quality-category gate passes "
    "on exact rationals (false when there are none).")
AUDIT_PLAN_MISMATCH = register(
    "lineage.audit_plan_mismatch", "A copy of the audit plan hash differs from the evidence's.",
    "audit_plan_sha256 (the preregistered private audit plan) cannot be recomputed from public data, so every copy "
    "in the evidence must be identical: the audit chain, its four stages and the frozen target (the manifest's copy "
    "is compared by binding.audit_plan_sha256).")

FROZEN_BINDINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("bank_hash", ("bank", "canonical_hash")),
    ("evaluator_source_sha256", ("evaluator", "source_sha256")),
    ("split_manifest_sha256", ("splits", "manifest_sha256")),
    ("test_artifact_sha256", ("splits", "roles", "test", "artifact", "sha256")),
    ("performance_manifest_sha256", ("performance_manifest_sha256",)),
    ("git_commit", ("software", "git_commit")),
)
STAGES = ("gold", "catalog", "score", "prediction_audit")
SUPPORT_FAILURE_ORDER = (
    "production_document_count_mismatch", "documents_below_minimum", "gold_spans_below_minimum",
    "negative_documents_below_minimum", "sensitive_characters_below_minimum", "contact_gold_support_missing",
    "person_gold_support_missing",
)
EMPTY_AUDIT_ARTIFACTS_SHA256 = "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"


def _dig(obj: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _same(a: object, b: object) -> bool:
    """Type-strict deep equality (the canonical bytes of both sides)."""
    try:
        return python_canonical_bytes(a) == python_canonical_bytes(b)
    except (TypeError, ValueError):
        return False


def _hash_or_none(obj: dict[str, Any], key: str) -> str | None:
    try:
        return self_hash(obj, key)
    except (TypeError, ValueError):
        return None


def is_promoted(evidence: dict[str, Any]) -> bool:
    """Whether the evidence claims promotion."""
    return _dig(evidence, ("promotion", "passed")) is True


def is_verifier_passed(evidence: dict[str, Any]) -> bool:
    """Whether the evidence claims its contract verifier passed."""
    return _dig(evidence, ("verifier", "passed")) is True


class _Lineage:
    """One run of the family over one evidence object."""

    def __init__(self, ctx: VerifyContext, evidence: dict[str, Any]) -> None:
        self.ctx = ctx
        self.ev = evidence
        self.add = ctx.collector.add
        self.detail: dict[str, Any] = {}
        self._created: tuple[timestamps.Instant | None, timestamps.Instant | None] | None = None

    def _roles_used_by_card(self, roles: list[Any]) -> None:
        """The splits the bank card shows were read to build (train) and select (validation) the bank are listed."""
        card = self.ctx.artifact(C.BANK_CARD)
        if not isinstance(card, dict):
            return
        used = []
        train_records = _dig(card, ("builder", "train_records"))
        if _is_int(train_records) and train_records > 0:
            used.append("train")
        documents = [_dig(card, ("development_validation", cls, "documents")) for cls in ("contact", "person")]
        if any(_is_int(value) and value > 0 for value in documents):
            used.append("validation")
        if any(role not in roles for role in used):
            self.add(ROLES_UNDERSTATED, EV, "/test_access/optimization_roles")

    def _annotation_policy(self, gold: dict[str, Any]) -> None:
        """The gold stage's annotation policy is the span policy of every label artifact the quality plan scores
        against (spec 50: the gold annotation policy hash is the published ``span_policy_sha256``): a chain that
        claims gold was annotated under another policy than the labels declare does not describe these labels."""
        manifest = self.ctx.manifest if isinstance(self.ctx.manifest, dict) else {}
        plans = manifest.get("quality_plan") if isinstance(manifest.get("quality_plan"), list) else []
        labels = manifest.get("labels") if isinstance(manifest.get("labels"), list) else []
        used = {plan.get("label_artifact_id") for plan in plans if isinstance(plan, dict)}
        policy = gold.get("annotation_policy_sha256")
        for label in labels:
            if not isinstance(label, dict) or label.get("id") not in used:
                continue
            if _dig(label, ("annotation_scope", "span_policy_sha256")) != policy:
                self.add(CHAIN_BINDING, EV, join(["audit_chain", "gold", "annotation_policy_sha256"]),
                         "audit_chain.gold.annotation_policy_sha256 is not the span policy of the quality plan's "
                         "labels.")
                return

    # -- helpers ---------------------------------------------------------------------------------------------------
    def malformed(self, parts: list[str | int], what: str) -> None:
        self.add(MALFORMED, EV, join(parts), "Field {field} is missing or has the wrong type.", field=Label(what))

    def timestamp(self, value: object, parts: list[str | int], artifact: str = EV) -> timestamps.Instant | None:
        try:
            return timestamps.parse(value)
        except timestamps.TimestampError as exc:
            message = ("Timestamp has no UTC offset (naive)." if exc.naive
                       else "Timestamp is not an RFC 3339 date-time.")
            self.add(INVALID_TIMESTAMP, artifact, join(parts), message)
            return None

    def created(self) -> tuple[timestamps.Instant | None, timestamps.Instant | None]:
        """Parse manifest.created_at and evidence.created_at once (an unparseable one is an error, never skipped),
        and order them: the evidence evaluates the manifest, so it cannot be older."""
        if self._created is None:
            manifest = self.ctx.manifest if isinstance(self.ctx.manifest, dict) else None
            made = self.timestamp(manifest.get("created_at"), ["created_at"], C.MANIFEST) if manifest else None
            evaluated = self.timestamp(self.ev.get("created_at"), ["created_at"])
            if made is not None and evaluated is not None and evaluated < made:
                self.add(EVIDENCE_BEFORE_MANIFEST, EV, "/created_at")
            elif made is None or evaluated is None:
                self.detail["evidence_after_manifest"] = "not_evaluated"
            self._created = (made, evaluated)
        return self._created

    # -- test access -------------------------------------------------------------------------------------------------
    def test_access(self) -> None:
        ta = self.ev.get("test_access")
        if not isinstance(ta, dict):
            self.malformed(["test_access"], "test_access")
            self.detail["test_access"] = "not_evaluated"
            return
        roles = ta.get("optimization_roles")
        if not isinstance(roles, list):
            self.malformed(["test_access", "optimization_roles"], "optimization_roles")
        else:
            if "test" in roles:
                self.add(TEST_OPTIMIZED, EV, "/test_access/optimization_roles")
            self._roles_used_by_card(roles)
        count = ta.get("current_version_access_count")
        accessed_at = ta.get("current_version_accessed_at")
        if not _is_int(count) or count < 0:
            self.malformed(["test_access", "current_version_access_count"], "current_version_access_count")
            count = None
        elif count > 1:
            self.add(REPEATED_ACCESS, EV, "/test_access/current_version_access_count")
            count = None  # reported; the checks that depend on a one-shot count are not evaluated
        if accessed_at is not None:
            self.timestamp(accessed_at, ["test_access", "current_version_accessed_at"])
        if count is not None and (count == 0) != (accessed_at is None):
            self.add(ACCESS_TIMESTAMP, EV, "/test_access/current_version_accessed_at",
                     "current_version_accessed_at must be null exactly when the access count is 0.")
        frozen = ta.get("frozen_target")
        frozen_at = None
        if not isinstance(frozen, dict):
            self.malformed(["test_access", "frozen_target"], "frozen_target")
        else:
            frozen_at = self.timestamp(frozen.get("frozen_at"), ["test_access", "frozen_target", "frozen_at"])
            for field, source in FROZEN_BINDINGS:
                expected = _dig(self.ev, source)
                if not isinstance(expected, str) or frozen.get(field) != expected:
                    self.add(FREEZE_MISMATCH, EV, join(["test_access", "frozen_target", field]),
                             "frozen_target.{field} does not equal {source}.", field=Label(field),
                             source=Label(".".join(source)))
        manifest = self.ctx.manifest
        if isinstance(manifest, dict):
            if ta.get("benchmark_version") != manifest.get("benchmark_version"):
                self.add(BENCHMARK_VERSION_MISMATCH, EV, "/test_access/benchmark_version")
            created = self.created()[0]
            if created is not None and frozen_at is not None and frozen_at < created:
                self.add(FREEZE_BEFORE_MANIFEST, EV, "/test_access/frozen_target/frozen_at")
            elif created is None or frozen_at is None:
                self.detail["freeze_after_manifest"] = "not_evaluated"
        lineage = ta.get("lineage")
        if not isinstance(lineage, list):
            self.malformed(["test_access", "lineage"], "lineage")
            self.detail["lineage"] = "not_evaluated"
            return
        recomputed_last = self.entries(lineage)
        head = ta.get("lineage_head_sha256")
        expected_head = recomputed_last if lineage else None
        if lineage and expected_head is None:
            self.detail["lineage_head"] = "not_evaluated"
        else:
            self.ctx.collector.record(EV, "/test_access/lineage_head_sha256", "lineage.head_sha256", head,
                                      expected_head, head == expected_head)
            if head != expected_head:
                self.add(HEAD_MISMATCH, EV, "/test_access/lineage_head_sha256")
        self.current_access(ta, lineage, count, accessed_at)

    def entries(self, lineage: list[Any]) -> str | None:
        """Check every lineage entry; return the recomputed hash of the last one (None if not computable)."""
        versions: set[str] = set()
        artifacts: set[str] = set()
        plans: set[str] = set()
        previous: dict[str, Any] | None = None
        previous_at: timestamps.Instant | None = None
        recomputed: str | None = None
        for k, entry in enumerate(lineage):
            base: list[str | int] = ["test_access", "lineage", k]
            if not isinstance(entry, dict):
                self.malformed(base, "lineage entry")
                previous, previous_at, recomputed = None, None, None
                continue
            sequence = entry.get("sequence")
            if not _is_int(sequence) or sequence != k + 1:
                self.add(SEQUENCE, EV, join(base + ["sequence"]), "Entry {index} must have sequence {expected}.",
                         index=k, expected=k + 1)
            version = entry.get("benchmark_version")
            if isinstance(version, str):
                if version in versions:
                    self.add(VERSION_REUSED, EV, join(base + ["benchmark_version"]))
                versions.add(version)
            else:
                self.malformed(base + ["benchmark_version"], "benchmark_version")
            frozen = entry.get("frozen_target")
            frozen_at = None
            if isinstance(frozen, dict):
                artifact = frozen.get("test_artifact_sha256")
                if isinstance(artifact, str):
                    if artifact in artifacts:
                        self.add(TEST_ARTIFACT_REUSED, EV, join(base + ["frozen_target", "test_artifact_sha256"]))
                    artifacts.add(artifact)
                plan = frozen.get("audit_plan_sha256")
                if isinstance(plan, str):
                    if plan in plans:
                        self.add(AUDIT_PLAN_REUSED, EV, join(base + ["frozen_target", "audit_plan_sha256"]))
                    plans.add(plan)
                frozen_at = self.timestamp(frozen.get("frozen_at"), base + ["frozen_target", "frozen_at"])
            else:
                self.malformed(base + ["frozen_target"], "frozen_target")
            recomputed = _hash_or_none(entry, "entry_sha256")
            stored = entry.get("entry_sha256")
            self.ctx.collector.record(EV, join(base + ["entry_sha256"]), "lineage.entry_sha256", stored, recomputed,
                                      stored == recomputed, evaluated=recomputed is not None)
            if recomputed is None or stored != recomputed:
                self.add(ENTRY_HASH, EV, join(base + ["entry_sha256"]))
            accessed = self.timestamp(entry.get("accessed_at"), base + ["accessed_at"])
            if accessed is not None and frozen_at is not None and accessed < frozen_at:
                self.add(ACCESS_BEFORE_FREEZE, EV, join(base + ["accessed_at"]))
            if accessed is not None and previous_at is not None and not accessed > previous_at:
                self.add(TIMESTAMP_ORDER, EV, join(base + ["accessed_at"]))
            if k > 0 and frozen_at is not None and previous_at is not None and not frozen_at > previous_at:
                self.add(SUCCESSOR_FROZEN_EARLY, EV, join(base + ["frozen_target", "frozen_at"]))
            changes = entry.get("changes_informed_by_predecessor")
            if k == 0:
                for field in ("previous_entry_sha256", "predecessor_benchmark_version"):
                    if entry.get(field) is not None:
                        self.add(ORIGIN, EV, join(base + [field]), "The first entry must have {field} null.",
                                 field=Label(field))
                if changes != []:
                    self.add(ORIGIN, EV, join(base + ["changes_informed_by_predecessor"]),
                             "The first entry must disclose no predecessor-informed changes.")
            else:
                if previous is not None:
                    if entry.get("previous_entry_sha256") != previous.get("entry_sha256"):
                        self.add(PREDECESSOR_HASH, EV, join(base + ["previous_entry_sha256"]))
                    if entry.get("predecessor_benchmark_version") != previous.get("benchmark_version"):
                        self.add(PREDECESSOR_VERSION, EV, join(base + ["predecessor_benchmark_version"]))
                if not isinstance(changes, list) or not changes:
                    self.add(MISSING_DISCLOSURE, EV, join(base + ["changes_informed_by_predecessor"]))
            previous = entry
            # An unparseable timestamp keeps the last good one as the reference for the order check.
            previous_at = accessed if accessed is not None else previous_at
        return recomputed

    def current_access(self, ta: dict[str, Any], lineage: list[Any], count: int | None, accessed_at: object) -> None:
        version = ta.get("benchmark_version")
        current = [k for k, e in enumerate(lineage) if isinstance(e, dict) and e.get("benchmark_version") == version]
        if count is not None and len(current) != count:
            self.add(ACCESS_COUNT, EV, "/test_access/current_version_access_count",
                     "The lineage has {found} entries for the current version; the count says {count}.",
                     found=len(current), count=count)
        slices = _dig(self.ev, ("quality", "slices"))
        claims = _dig(self.ev, ("promotion", "claims"))
        test_results = any(isinstance(s, dict) and s.get("split_role") == "test" for s in slices or []) or any(
            isinstance(c, dict) and _dig(c, ("scope", "split_role")) == "test" for c in claims or [])
        if test_results and count is not None and count != 1:
            self.add(AGGREGATE_WITHOUT_ACCESS, EV, "/test_access/current_version_access_count")
        if count != 1 or len(current) != 1:
            return
        k = current[0]
        entry = lineage[k]
        base: list[str | int] = ["test_access", "lineage", k]
        if k != len(lineage) - 1:
            self.add(CURRENT_NOT_HEAD, EV, join(base))
        if accessed_at != entry.get("accessed_at"):
            self.add(ACCESS_TIMESTAMP, EV, "/test_access/current_version_accessed_at",
                     "current_version_accessed_at must equal the current lineage entry's accessed_at.")
        if not _same(ta.get("frozen_target"), entry.get("frozen_target")):
            self.add(CURRENT_FREEZE_MISMATCH, EV, join(base + ["frozen_target"]))
        created = self.created()[1]
        accessed = timestamps.try_parse(entry.get("accessed_at"))
        if created is not None and accessed is not None:
            if created < accessed:
                self.add(EVIDENCE_BEFORE_ACCESS, EV, "/created_at")
        else:
            self.detail["evidence_after_access"] = "not_evaluated"
        if is_promoted(self.ev) and entry.get("outcome") != "passed":
            self.add(FAILED_TEST_PROMOTION, EV, join(base + ["outcome"]))

    # -- trusted lineage ---------------------------------------------------------------------------------------------
    def trusted(self) -> None:
        trusted = self.ctx.options.trusted_lineage
        lineage = _dig(self.ev, ("test_access", "lineage"))
        if trusted is None:
            self.detail["append_only"] = "not_run_no_trusted_lineage"
            if is_promoted(self.ev) or is_verifier_passed(self.ev):
                self.add(TRUSTED_REQUIRED, EV, "/test_access/lineage")
            return
        source = "--trusted-lineage"  # a fixed label: the path the user typed is never echoed
        if not isinstance(trusted, list) or not all(isinstance(e, dict) for e in trusted):
            self.add(TRUSTED_SHAPE, source, "")
            self.detail["append_only"] = "not_evaluated"
            return
        if not isinstance(lineage, list):
            self.detail["append_only"] = "not_evaluated"
            return
        self.detail["append_only"] = "ran"
        self.detail["trusted_entries"] = len(trusted)
        for k, entry in enumerate(trusted):
            if k >= len(lineage):
                self.add(NOT_APPEND_ONLY, EV, "/test_access/lineage",
                         "The trusted lineage has {trusted} entries; this lineage has only {found}.",
                         trusted=len(trusted), found=len(lineage))
                return
            if not _same(entry, lineage[k]):
                self.add(NOT_APPEND_ONLY, EV, join(["test_access", "lineage", k]),
                         "Entry {index} differs from the trusted lineage's entry {index}.", index=k)
                return

    # -- audit chain -------------------------------------------------------------------------------------------------
    def audit_chain(self) -> None:
        chain = self.ev.get("audit_chain")
        if not isinstance(chain, dict):
            self.malformed(["audit_chain"], "audit_chain")
            self.detail["audit_chain"] = "not_evaluated"
            return
        recomputed = _hash_or_none(chain, "chain_sha256")
        stored = chain.get("chain_sha256")
        self.ctx.collector.record(EV, "/audit_chain/chain_sha256", "audit_chain.chain_sha256", stored, recomputed,
                                  stored == recomputed, evaluated=recomputed is not None)
        if recomputed is None or stored != recomputed:
            self.add(CHAIN_HASH, EV, "/audit_chain/chain_sha256")
        stages: dict[str, dict[str, Any]] = {}
        for name in STAGES:
            stage = chain.get(name)
            if isinstance(stage, dict):
                stages[name] = stage
            else:
                self.malformed(["audit_chain", name], name)
        if len(stages) != len(STAGES):
            self.detail["audit_chain"] = "not_evaluated"
            return
        gold, catalog, score, prediction = (stages[n] for n in STAGES)
        binding = chain.get("audit_output_binding_sha256")
        equalities: list[tuple[str, str, object]] = [
            (name, "audit_output_binding_sha256", binding) for name in STAGES]
        equalities += [
            ("score", "evaluator_source_sha256", _dig(self.ev, ("evaluator", "source_sha256"))),
            ("catalog", "sample_artifact_sha256", gold.get("sample_artifact_sha256")),
            ("score", "sample_artifact_sha256", gold.get("sample_artifact_sha256")),
            ("catalog", "gold_sha256", gold.get("gold_sha256")),
            ("score", "gold_sha256", gold.get("gold_sha256")),
            ("prediction_audit", "gold_sha256", gold.get("gold_sha256")),
            ("score", "catalog_binding_sha256", catalog.get("catalog_binding_sha256")),
            ("prediction_audit", "catalog_binding_sha256", catalog.get("catalog_binding_sha256")),
            ("prediction_audit", "score_manifest_sha256", score.get("manifest_sha256")),
        ]
        for name, field, expected in equalities:
            if not isinstance(expected, str) or stages[name].get(field) != expected:
                self.add(CHAIN_BINDING, EV, join(["audit_chain", name, field]),
                         "audit_chain.{stage}.{field} does not equal its binding.", stage=Label(name),
                         field=Label(field))
        self._annotation_policy(gold)
        for name, field in (("gold", "unresolved"), ("catalog", "unresolved"), ("prediction_audit", "unresolved_cases")):
            value = stages[name].get(field)
            if not _is_int(value):
                self.malformed(["audit_chain", name, field], field)
            elif value != 0:
                self.add(CHAIN_UNRESOLVED, EV, join(["audit_chain", name, field]))
        self.terminal(gold, catalog, score, prediction)
        self.quality_decision(score)

    def _terminal(self, stage: str, field: str, rule: str) -> None:
        self.add(CHAIN_TERMINAL, EV, join(["audit_chain", stage, field]),
                 "audit_chain.{stage}.{field} breaks the terminal rule: {rule}.", stage=Label(stage),
                 field=Label(field), rule=Label(rule))

    def terminal(self, gold: dict[str, Any], catalog: dict[str, Any], score: dict[str, Any],
                 prediction: dict[str, Any]) -> None:
        """Terminal-state rules of spec 10 section 9.6."""
        for name, stage in (("gold", gold), ("catalog", catalog)):
            if stage.get("status") != "completed":
                self._terminal(name, "status", "gold and catalog stages are completed")
        p_status, s_status = prediction.get("status"), score.get("status")
        if s_status == "insufficient_support":
            codes = score.get("support_failure_codes")
            ordered = (isinstance(codes, list) and bool(codes) and all(c in SUPPORT_FAILURE_ORDER for c in codes)
                       and [SUPPORT_FAILURE_ORDER.index(c) for c in codes]
                       == sorted(set(SUPPORT_FAILURE_ORDER.index(c) for c in codes)))
            if not ordered:
                self._terminal("score", "support_failure_codes", "insufficient support names its failure codes in "
                               "canonical order")
            if score.get("artifacts_sha256") != EMPTY_AUDIT_ARTIFACTS_SHA256:
                self._terminal("score", "artifacts_sha256", "insufficient support scores no artifacts")
            for field in ("prediction_commitment_sha256", "quality_decision_sha256"):
                if score.get(field) is not None:
                    self._terminal("score", field, "insufficient support has no prediction commitment or decision")
            if score.get("quality_decision_passed") is not False:
                self._terminal("score", "quality_decision_passed", "insufficient support never passes")
            if p_status != "not_run_insufficient_support":
                self._terminal("prediction_audit", "status", "insufficient support is not prediction-audited")
            for field in ("receipt_sha256", "manifest_sha256", "artifacts_sha256", "prediction_commitment_sha256"):
                if prediction.get(field) is not None:
                    self._terminal("prediction_audit", field, "an audit that did not run has no artifacts")
            self._not_eligible(prediction, "insufficient support", need_no_defects=True)
            return
        if s_status != "scored_pending_prediction_audit":
            self._terminal("score", "status", "the score is scored or insufficient support")
        if score.get("support_failure_codes") != []:
            self._terminal("score", "support_failure_codes", "a scored audit has no support failures")
        for field in ("prediction_commitment_sha256", "quality_decision_sha256"):
            if not isinstance(score.get(field), str):
                self._terminal("score", field, "a scored audit commits to its predictions and decision")
        for field in ("receipt_sha256", "manifest_sha256", "artifacts_sha256", "prediction_commitment_sha256"):
            if not isinstance(prediction.get(field), str):
                self._terminal("prediction_audit", field, "a prediction audit of a scored run has its artifacts")
        if prediction.get("prediction_commitment_sha256") != score.get("prediction_commitment_sha256"):
            self._terminal("prediction_audit", "prediction_commitment_sha256",
                           "the prediction audit checks the scored prediction commitment")
        passed = score.get("quality_decision_passed")
        defects = prediction.get("gold_defects")
        if p_status == "accepted":
            if passed is not True:
                self._terminal("score", "quality_decision_passed", "an accepted audit passed its quality decision")
            if defects != 0:
                self._terminal("prediction_audit", "gold_defects", "an accepted audit found no gold defects")
            if prediction.get("decision_eligible") is not True:
                self._terminal("prediction_audit", "decision_eligible", "an accepted audit is decision eligible")
            if prediction.get("release") != "quality_eligible":
                self._terminal("prediction_audit", "release", "an accepted audit releases as quality_eligible")
        elif p_status == "quality_gates_failed":
            if passed is not False:
                self._terminal("score", "quality_decision_passed", "failed quality gates mean a failed decision")
            self._not_eligible(prediction, "failed quality gates", need_no_defects=True)
        elif p_status == "invalidated_gold_defect":
            if not _is_int(defects) or defects <= 0:
                self._terminal("prediction_audit", "gold_defects", "a gold-defect invalidation counts its defects")
            self._not_eligible(prediction, "a gold defect", need_no_defects=False)
        else:
            self._terminal("prediction_audit", "status", "a scored run is accepted, failed or invalidated")

    def _not_eligible(self, prediction: dict[str, Any], why: str, need_no_defects: bool) -> None:
        if need_no_defects and prediction.get("gold_defects") != 0:
            self._terminal("prediction_audit", "gold_defects", why + " reports no gold defects")
        if prediction.get("decision_eligible") is not False:
            self._terminal("prediction_audit", "decision_eligible", why + " is not decision eligible")
        if prediction.get("release") != "do_not_ship":
            self._terminal("prediction_audit", "release", why + " releases as do_not_ship")

    def quality_decision(self, score: dict[str, Any]) -> None:
        """score.quality_decision_passed against the exact quality decision (skipped for insufficient support)."""
        if score.get("status") == "insufficient_support":
            return
        decision = recompute_quality_decision(self.ev, self.ctx.figures)
        self.ctx.shared["lineage.quality_decision"] = decision
        stored = score.get("quality_decision_passed")
        if decision is None:
            self.detail["quality_decision"] = "not_evaluated"
            self.ctx.collector.record(EV, "/audit_chain/score/quality_decision_passed",
                                      "audit_chain.quality_decision_passed", stored, None, False, evaluated=False)
            return
        self.ctx.collector.record(EV, "/audit_chain/score/quality_decision_passed",
                                  "audit_chain.quality_decision_passed", stored, "true" if decision else "false",
                                  stored is decision)
        if stored is not decision:
            self.add(CHAIN_QUALITY_DECISION, EV, "/audit_chain/score/quality_decision_passed",
                     "The recomputed quality decision is {decision}.", decision=decision)

    # -- audit plan --------------------------------------------------------------------------------------------------
    def audit_plan(self) -> None:
        reference = self.ev.get("audit_plan_sha256")
        if not isinstance(reference, str):
            self.malformed(["audit_plan_sha256"], "audit_plan_sha256")
            return
        # The manifest's copy is compared by the binding family (binding.audit_plan_sha256).
        copies: list[tuple[str, list[str | int], object]] = []
        chain = self.ev.get("audit_chain")
        if isinstance(chain, dict):
            copies.append((EV, ["audit_chain", "audit_plan_sha256"], chain.get("audit_plan_sha256")))
            for name in STAGES:
                if isinstance(chain.get(name), dict):
                    copies.append((EV, ["audit_chain", name, "audit_plan_sha256"],
                                   chain[name].get("audit_plan_sha256")))
        frozen = _dig(self.ev, ("test_access", "frozen_target"))
        if isinstance(frozen, dict):
            copies.append((EV, ["test_access", "frozen_target", "audit_plan_sha256"], frozen.get("audit_plan_sha256")))
        for artifact, parts, value in copies:
            if value != reference:
                self.add(AUDIT_PLAN_MISMATCH, artifact, join(parts))


def recompute_quality_decision(evidence: dict[str, Any], figures: dict[str, Any]) -> bool | None:
    """The quality decision: every quality-category gate passes on exact values; False with no quality gates.

    A gate that fails, or cannot be compared (bad target, malformed comparison), makes the decision False; a gate whose
    exact figure is not available makes it unknown (None) unless another gate already failed.
    """
    checks = _dig(evidence, ("promotion", "checks"))
    if not isinstance(checks, list):
        return None
    quality = [c for c in checks if isinstance(c, dict) and c.get("category") == "quality"]
    if not quality:
        return False
    unknown = False
    for check in quality:
        outcome = gate_eval.evaluate(check, evidence, figures)
        if outcome.status == "ok":
            if not outcome.result:
                return False
        elif outcome.status == "not_evaluated":
            unknown = True
        else:
            return False
    return None if unknown else True


def run(ctx: VerifyContext) -> None:
    """Check test access, lineage, trusted prefix, audit chain and audit-plan copies (see module docstring)."""
    evidence = ctx.evidence
    if not isinstance(evidence, dict):
        ctx.collector.ran("lineage", "not_evaluated", reason=Label("evidence missing or invalid"))
        return
    family = _Lineage(ctx, evidence)
    family.created()
    family.test_access()
    family.trusted()
    family.audit_chain()
    family.audit_plan()
    ctx.collector.ran("lineage", **family.detail)
