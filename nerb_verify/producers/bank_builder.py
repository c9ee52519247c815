"""Build a known-entity bank from the **train** role only (spec 50 §5; charter "Taxonomy And Bank Policy").

Train-only by construction: :func:`build_bank` accepts nothing but a :class:`TrainBundle`, and the only way to get one
is :func:`open_train_bundle`, which opens ``train.jsonl`` and ``memberships.jsonl`` of a development bundle and
refuses the bundle unless every record's membership role is ``train``. Validation and test text never reach mining.

Mining signals (§5.2): contacts (valid addresses in the structured headers), organization domains, person aliases
from display names paired with one valid address, and the bounded e-mail fallback. Support is counted in **distinct
train leakage groups**. Promotion (§5.3): a contact is active with >= 2 groups (within the active capacity); a person
alias is active only when its identity is owned by exactly one address, that address's contact is retained, the alias
recurs in >= 2 groups, its identity is not first-initial-only and the name agrees with the address's local part;
anything ambiguous stays draft (never active), anything over capacity is rejected. Every candidate lands in exactly
one decision, so the funnel conserves. Domains stay draft (an exact domain boundary is not expressible as a word
literal); the phone fallback stays draft (no independent negative evidence).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from nerb_verify.canonical import python_canonical_bytes, python_canonical_sha256
from nerb_verify.producers.bank_format import SCHEMA_VERSION, validate_bank

EMAIL_FALLBACK_REGEX = (r"(?i)\b[a-z0-9_][a-z0-9.!#$%&'*+/=?^_`{|}~-]*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+"
                        r"[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?\b")
PHONE_FALLBACK_REGEX = (r"\b(?:1[ .-])?(?:[2-9][0-9]{2}[ .-][0-9]{3}[ .-][0-9]{4}|[2-9][0-9]{2}\)[ .-]?[0-9]{3}"
                        r"[ .-][0-9]{4})(?:[ ]*(?:x|ext[.]?)[ ]*[0-9]{1,6})?\b")
ROLE_TOKENS = frozenset("admin administrator alerts billing desk distribution enron help helpdesk info mail marketing "
                        "notifications office operations ops sales service support team trading".split())
ADDRESS_RE = re.compile(r"^[a-z0-9_][a-z0-9.!#$%&'*+/=?^_`{|}~-]*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+"
                        r"[a-z](?:[a-z0-9-]*[a-z0-9])?$")
NAME_TOKEN_RE = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")
HEADER_FIELDS = ("from", "to", "cc", "bcc")
CANDIDATE_TYPES = ("contact", "contact_fallback", "organization_domain", "person_alias", "phone_fallback")


@dataclass(frozen=True)
class BuildPolicy:
    """Promotion thresholds and caps (NERB's published values by default)."""

    min_groups: int = 2
    max_active_contacts: int = 12_000
    max_active_people: int = 12_000
    max_person_aliases: int = 12_999
    pattern_budget: int = 25_000
    max_drafts: int = 2_000
    max_domain_drafts: int = 2_000
    max_train_records: int = 600_000
    max_observations: int = 10_000_000
    max_candidates: int = 200_000
    max_value_bytes: int = 4_096
    max_header_entries: int = 8_192

    def descriptor(self) -> dict[str, Any]:
        return {"schema_version": "nerb_verify.bank_build_policy.v1", "support_unit": "distinct_train_leakage_group",
                "thresholds": self.__dict__.copy(), "email_fallback": EMAIL_FALLBACK_REGEX,
                "phone_fallback": PHONE_FALLBACK_REGEX, "role_tokens": sorted(ROLE_TOKENS)}

    def sha256(self) -> str:
        return python_canonical_sha256(self.descriptor())


class TrainOnlyError(ValueError):
    """The input is not a train-only bundle, or exceeds a build cap (message: our words only)."""


@dataclass
class TrainBundle:
    """Train records paired with their leakage groups. Create with :func:`open_train_bundle` only."""

    records: list[dict[str, Any]]
    groups: dict[str, str]
    train_artifact_sha256: str
    manifest: dict[str, Any] | None
    _token: object = field(default=None, repr=False)
    manifest_sha256: str | None = None


_TRAIN_TOKEN = object()


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def open_train_bundle(bundle_dir: Path, policy: BuildPolicy = BuildPolicy()) -> TrainBundle:
    """Open the train role of a development bundle: ``train.jsonl`` + ``memberships.jsonl`` (+ ``manifest.json``).

    Refused: a missing file, a record without a membership, a membership role other than ``train`` for a train
    record, more than the record cap. ``validation.jsonl`` and ``test.jsonl`` are never opened.
    """
    bundle_dir = Path(bundle_dir)
    train_path = bundle_dir / "train.jsonl"
    members_path = bundle_dir / "memberships.jsonl"
    if not train_path.is_file() or not members_path.is_file():
        raise TrainOnlyError("a train bundle needs train.jsonl and memberships.jsonl")
    roles: dict[str, tuple[str, str]] = {}
    with members_path.open("rb") as handle:
        for line in handle:
            row = json.loads(line)
            roles[row["document_id"]] = (row["role"], row["group_id"])
    records: list[dict[str, Any]] = []
    groups: dict[str, str] = {}
    with train_path.open("rb") as handle:
        for line in handle:
            record = json.loads(line)
            doc = record.get("document_id")
            role = roles.get(doc)
            if role is None or role[0] != "train":
                raise TrainOnlyError("train.jsonl holds a record whose membership role is not train")
            records.append(record)
            groups[doc] = role[1]
            if len(records) > policy.max_train_records:
                raise TrainOnlyError("train record cap exceeded")
    manifest_path = bundle_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text("utf-8")) if manifest_path.is_file() else None
    manifest_sha = _sha256_file(manifest_path) if manifest_path.is_file() else None
    records.sort(key=lambda r: r["document_id"])
    return TrainBundle(records, groups, _sha256_file(train_path), manifest, _TRAIN_TOKEN, manifest_sha)


def stable_id(prefix: str, value: str) -> str:
    """``<prefix>_`` + first 20 hex of sha256(``<prefix>\\0<value>``) (NERB's id scheme)."""
    return f"{prefix}_" + hashlib.sha256(f"{prefix}\0{value}".encode("utf-8")).hexdigest()[:20]


def normalize_address(raw: str, max_bytes: int = 4096) -> str | None:
    """NFKC, strip, casefold; a valid RFC-like address (local <= 64, domain <= 253, labels <= 63, total <= 320)."""
    value = unicodedata.normalize("NFKC", raw).strip().casefold()
    if not value or len(value) > 320 or len(value.encode("utf-8")) > max_bytes or ADDRESS_RE.match(value) is None:
        return None
    local, _, domain = value.rpartition("@")
    if len(local) > 64 or len(domain) > 253 or any(len(label) > 63 for label in domain.split(".")):
        return None
    return value


def person_identity(display: str) -> tuple[str, list[str]] | None:
    """Normalize a display name to a person identity (casefolded tokens joined by a space), or None (§5.2)."""
    text = " ".join(unicodedata.normalize("NFKC", display).split()).strip("\"<>()[]{}").strip()
    if not text or "@" in text or len(text) > 160:
        return None
    if text.count(",") == 1:
        last, first = (part.strip() for part in text.split(","))
        text = f"{first} {last}"
    tokens = [t.casefold() for t in NAME_TOKEN_RE.findall(text)]
    if not 2 <= len(tokens) <= 8 or any(t in ROLE_TOKENS for t in tokens) or all(len(t) == 1 for t in tokens):
        return None
    return " ".join(tokens), tokens


def catalog_key(surface: str) -> str:
    """Per-character case fold of the whitespace-collapsed surface (no reordering)."""
    return "".join(ch.casefold() if len(ch.casefold()) == 1 else ch for ch in " ".join(surface.split()))


@dataclass
class Candidate:
    """Evidence for one mined value: counts, distinct documents and groups, dates, surfaces, related values."""

    kind: str
    value: str
    observations: int = 0
    documents: set[str] = field(default_factory=set)
    groups: set[str] = field(default_factory=set)
    unknown_date_documents: set[str] = field(default_factory=set)
    first_seen: str | None = None
    last_seen: str | None = None
    surfaces: Counter = field(default_factory=Counter)
    related: Counter = field(default_factory=Counter)
    source_types: Counter = field(default_factory=Counter)
    identity: str | None = None
    identities: set[str] = field(default_factory=set)
    rows: list[tuple[str, str, str]] = field(default_factory=list)

    def observe(self, doc: str, group: str, date: str | None, surface: str, related: str | None,
                source_type: str) -> None:
        self.observations += 1
        self.documents.add(doc)
        self.groups.add(group)
        if date is None:
            self.unknown_date_documents.add(doc)
        else:
            self.first_seen = date if self.first_seen is None or date < self.first_seen else self.first_seen
            self.last_seen = date if self.last_seen is None or date > self.last_seen else self.last_seen
        self.surfaces[surface] += 1
        if related is not None:
            self.related[related] += 1
        self.source_types[source_type] += 1
        self.rows.append((doc, surface, related or ""))

    def evidence_sha256(self) -> str:
        return python_canonical_sha256({"kind": self.kind, "value": self.value, "rows": sorted(self.rows)})

    def evidence_row(self) -> dict[str, Any]:
        return {"kind": self.kind, "value": self.value, "observations": self.observations,
                "documents": len(self.documents), "groups": len(self.groups),
                "evidence_sha256": self.evidence_sha256()}


def _record_date(record: dict[str, Any]) -> str | None:
    date = record.get("date") or {}
    return date.get("utc") if date.get("status") == "valid" else None


def _entries(record: dict[str, Any], field_name: str) -> list[dict[str, str]]:
    headers = record.get("headers") or {}
    value = headers.get(field_name) or []
    return value if isinstance(value, list) else [value]


def _local_tokens(address: str) -> list[str] | None:
    local = address.split("@", 1)[0].split("+", 1)[0]
    tokens = [t for t in re.split(r"[._-]", local) if t]
    if not 2 <= len(tokens) <= 4 or not all(t.isascii() and t.isalpha() and len(t) >= 2 for t in tokens):
        return None
    if any(t in ROLE_TOKENS for t in tokens):
        return None
    return tokens


def _body_local_link(record: dict[str, Any], tokens: list[str]) -> str | None:
    body = ((record.get("views") or {}).get("current_body") or "")[-8192:]
    tail = "\n".join(body.split("\n")[-12:])
    pattern = re.compile(r"(?<!\w)" + r"\s+".join(re.escape(t) for t in tokens) + r"(?!\w)", re.IGNORECASE)
    match = pattern.search(tail)
    return match.group(0) if match else None


@dataclass
class MiningResult:
    candidates: dict[tuple[str, str], Candidate]
    observations: int
    candidate_source_sha256: str


def mine(train: TrainBundle, policy: BuildPolicy) -> MiningResult:
    """Mine contact, domain and person-alias candidates from train structured headers (and the sender-body link)."""
    candidates: dict[tuple[str, str], Candidate] = {}
    source_digest = hashlib.sha256(b"nerb/enron/bank-mining-source/v2\0")
    observations = 0

    def get(kind: str, value: str) -> Candidate:
        key = (kind, value)
        if key not in candidates:
            if len(candidates) >= policy.max_candidates:
                raise TrainOnlyError("unique candidate cap exceeded")
            candidates[key] = Candidate(kind, value)
        return candidates[key]

    for record in train.records:
        doc = record["document_id"]
        group = train.groups[doc]
        date = _record_date(record)
        structured: list[dict[str, str]] = []
        body_aliases: list[dict[str, str]] = []
        count = 0
        for field_name in HEADER_FIELDS:
            for entry in _entries(record, field_name):
                count += 1
                if count > policy.max_header_entries:
                    raise TrainOnlyError("header entry cap exceeded")
                if not isinstance(entry, dict):
                    continue
                address = normalize_address(str(entry.get("address") or ""), policy.max_value_bytes)
                name = str(entry.get("name") or "")
                structured.append({"field": field_name, "name": name, "address": address or ""})
                if address is None:
                    continue
                get("contact", address).observe(doc, group, date, address, None, "structured_header")
                domain = address.rsplit("@", 1)[1]
                get("organization_domain", domain).observe(doc, group, date, domain, None, "structured_header")
                observations += 2
                ident = person_identity(name) if name else None
                if ident is not None:
                    surface = " ".join(name.split())
                    cand = get("person_alias", catalog_key(surface))
                    cand.identity = cand.identity or ident[0]
                    cand.observe(doc, group, date, surface, address, "structured_display_name")
                    cand.identities.add(ident[0])
                    observations += 1
                elif not name and field_name == "from":
                    tokens = _local_tokens(address)
                    matched = _body_local_link(record, tokens) if tokens else None
                    if matched is not None:
                        ident2 = person_identity(matched)
                        if ident2 is not None:
                            cand = get("person_alias", catalog_key(matched))
                            cand.identity = cand.identity or ident2[0]
                            cand.observe(doc, group, date, " ".join(matched.split()), address,
                                         "sender_body_local_link")
                            cand.identities.add(ident2[0])
                            body_aliases.append({"address": address, "surface": matched})
                            observations += 1
        if observations > policy.max_observations:
            raise TrainOnlyError("observation cap exceeded")
        source_digest.update(python_canonical_bytes({"document_id": doc, "group_id": group, "observed_at": date,
                                                     "structured_entries": structured,
                                                     "sender_body_aliases": body_aliases}))
    return MiningResult(candidates, observations, "sha256:" + source_digest.hexdigest())


@dataclass
class Decision:
    candidate_type: str
    decision: str  # active | draft | rejected
    reason: str
    candidate: Candidate | None = None
    priority: int | None = None
    ambiguity: tuple[str, list[str]] = ("clear", [])


def _confidence(groups: int) -> str:
    return "high" if groups >= 5 else "medium" if groups >= 2 else "low"


def _name_matches_local(tokens: list[str], address: str) -> bool:
    local = address.split("@", 1)[0].split("+", 1)[0]
    local_tokens = [t for t in re.split(r"[._-]", local) if t]
    first, last = tokens[0], tokens[-1]
    compact = "".join(local_tokens)
    return ((first in local_tokens and last in local_tokens) or compact in (first + last, last + first)
            or compact.startswith(first[0] + last) or compact.startswith(last + first[0]))


def decide(mined: MiningResult, policy: BuildPolicy) -> list[Decision]:
    """Promotion and collision policy (§5.3): every candidate gets exactly one decision."""
    decisions: list[Decision] = []
    cands = mined.candidates
    budget = policy.pattern_budget - 1  # one reserved pattern: the email fallback
    decisions.append(Decision("contact_fallback", "active", "bounded_structured_email_fallback", priority=24_999,
                              ambiguity=("bounded_format", [])))
    decisions.append(Decision("phone_fallback", "draft", "iteration_deferred", priority=24_998,
                              ambiguity=("review_required", ["independent_phone_negative_evidence_unavailable"])))
    contacts = sorted((c for (k, _), c in cands.items() if k == "contact"),
                      key=lambda c: (-len(c.groups), -len(c.documents), c.value))
    active = drafts = 0
    retained: set[str] = set()
    for rank, c in enumerate(contacts):
        if len(c.groups) >= policy.min_groups and active < policy.max_active_contacts and active < budget:
            decisions.append(Decision("contact", "active", "recurring_valid_contact", c, priority=active))
            active += 1
            retained.add(c.value)
        elif drafts < policy.max_drafts:
            reason = ("insufficient_distinct_group_support" if len(c.groups) < policy.min_groups
                      else "active_pattern_capacity")
            decisions.append(Decision("contact", "draft", reason, c, priority=25_001,
                                      ambiguity=("review_required", [reason])))
            drafts += 1
            retained.add(c.value)
        else:
            decisions.append(Decision("contact", "rejected", "draft_capacity", c))
    active_contacts = {d.candidate.value for d in decisions if d.candidate_type == "contact" and d.decision == "active"}

    # Person aliases: ownership first (collisions never activate).
    aliases = [c for (k, _), c in cands.items() if k == "person_alias"]
    identity_owners: dict[str, set[str]] = defaultdict(set)
    for c in aliases:
        for address in c.related:
            identity_owners[c.identity or ""].add(address)
    person_decisions: dict[str, Decision] = {}
    by_address: dict[str, list[Candidate]] = defaultdict(list)
    for c in aliases:
        if len(c.related) != 1 or len(c.identities) != 1 or len(identity_owners[c.identity or ""]) != 1:
            person_decisions[c.value] = Decision("person_alias", "draft", "ambiguous_address_ownership", c,
                                                 ambiguity=("ambiguous", ["ambiguous_address_ownership"]))
            continue
        by_address[next(iter(c.related))].append(c)
    activated: list[Candidate] = []
    for address in sorted(by_address, key=lambda a: (-sum(len(c.groups) for c in by_address[a]), a)):
        group = by_address[address]
        if address not in retained:
            for c in group:
                person_decisions[c.value] = Decision("person_alias", "rejected", "contact_anchor_not_retained", c)
            continue
        recurring = [c for c in group if len(c.groups) >= policy.min_groups]
        anchors = [c for c in recurring if len((c.identity or "").split()[0]) > 1
                   and _name_matches_local((c.identity or "").split(), address)]
        anchor_identities = {c.identity for c in anchors}
        chosen: list[Candidate] = []
        reason_for: dict[str, str] = {}
        if len(anchor_identities) == 1 and address in active_contacts:
            top = sorted(anchors, key=lambda c: (-len(c.groups), c.value))[0]
            chosen = [c for c in recurring if c.identity == top.identity]
        for c in group:
            if c in chosen:
                continue
            if len(c.groups) < policy.min_groups:
                reason_for[c.value] = "insufficient_distinct_group_support"
            elif len((c.identity or "").split()[0]) == 1:
                reason_for[c.value] = "first_initial_identity"
            elif len(anchor_identities) > 1:
                reason_for[c.value] = "ambiguous_address_local_part"
            elif not _name_matches_local((c.identity or "").split(), address):
                reason_for[c.value] = "address_local_part_incompatible"
            elif address not in active_contacts:
                reason_for[c.value] = "identity_not_eligible"
            else:
                reason_for[c.value] = "incompatible_alias_set"
        for c in chosen:
            if (len(activated) < min(policy.max_active_people, policy.max_person_aliases)
                    and active + len(activated) < budget):
                activated.append(c)
            else:
                reason_for[c.value] = "active_pattern_capacity"
        for value, reason in reason_for.items():
            cand = next(c for c in group if c.value == value)
            person_decisions[value] = Decision("person_alias", "draft", reason, cand,
                                               ambiguity=("review_required", [reason]))
    ranked = sorted(activated, key=lambda c: (-len(c.surfaces.most_common(1)[0][0]), -len(c.groups), c.value))
    for rank, c in enumerate(ranked):
        person_decisions[c.value] = Decision("person_alias", "active", "recurring_unique_full_name_alias", c,
                                             priority=20_000 + rank)
    person_drafts = 0
    for value in sorted(person_decisions):
        d = person_decisions[value]
        if d.decision == "draft":
            if person_drafts < policy.max_drafts:
                d.priority = 25_002
                person_drafts += 1
            else:
                d.decision, d.reason = "rejected", "draft_capacity"
        decisions.append(d)

    domains = sorted((c for (k, _), c in cands.items() if k == "organization_domain"),
                     key=lambda c: (-len(c.groups), c.value))
    for i, c in enumerate(domains):
        if i < policy.max_domain_drafts:
            decisions.append(Decision("organization_domain", "draft", "exact_domain_boundary_not_expressible", c,
                                      priority=25_003,
                                      ambiguity=("review_required", ["exact_domain_boundary_not_expressible"])))
        else:
            decisions.append(Decision("organization_domain", "rejected", "draft_capacity", c))
    return decisions


def candidate_funnel(decisions: list[Decision]) -> dict[str, Any]:
    """The conserved funnel (§5.5): every candidate counted once by decision, by type and by primary reason."""
    by_type = {t: {"active": 0, "draft": 0, "rejected": 0, "total": 0} for t in CANDIDATE_TYPES}
    by_decision = {"active": 0, "draft": 0, "rejected": 0}
    by_reason: Counter = Counter()
    for d in decisions:
        by_type[d.candidate_type][d.decision] += 1
        by_type[d.candidate_type]["total"] += 1
        by_decision[d.decision] += 1
        by_reason[d.reason] += 1
    return {"schema_version": "nerb.enron_candidate_funnel.v2", "total_candidates": len(decisions),
            "by_decision": by_decision, "by_type": by_type, "by_primary_reason": dict(sorted(by_reason.items()))}


def _pattern_metadata(d: Decision, policy_sha: str, source_binding: dict[str, Any], privacy_class: str
                      ) -> dict[str, Any]:
    c = d.candidate
    assert c is not None
    evidence = c.evidence_sha256()
    counts = [c.observations, len(c.documents), len(c.groups)]
    meta: dict[str, Any] = {
        "source_type": "+".join(sorted(c.source_types)), "split": "train", "observation_count": counts[0],
        "distinct_document_count": counts[1], "distinct_leakage_group_count": counts[2],
        "first_seen": c.first_seen, "last_seen": c.last_seen,
        "unknown_date_documents": len(c.unknown_date_documents), "confidence": _confidence(counts[2]),
        "review_status": d.decision, "curation_reason_code": d.reason, "privacy_class": privacy_class,
        "label_strength": "structured_weak", "evidence_sha256": evidence,
        "provenance_sha256": python_canonical_sha256({"source": source_binding, "policy": policy_sha,
                                                      "evidence": evidence, "counts": counts}),
        "builder_policy_sha256": policy_sha,
        "ambiguity": {"status": d.ambiguity[0], "reason_codes": list(d.ambiguity[1])},
    }
    return meta


def _literal(value: str, status: str, priority: int, ws: bool, left: str, right: str, meta: dict[str, Any],
             description: str) -> dict[str, Any]:
    return {"kind": "literal", "value": value, "description": description, "status": status, "priority": priority,
            "case_sensitive": False, "normalize_whitespace": ws, "left_boundary": left, "right_boundary": right,
            "metadata": meta}


def _entity(description: str, status: str, names: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "status": status, "regex_flags": [], "names": names, "metadata": meta}


@dataclass
class BuildResult:
    """The bank and everything the card, manifest and private ledger need."""

    bank: dict[str, Any]
    decisions: list[Decision]
    funnel: dict[str, Any]
    observations: int
    candidate_source_sha256: str
    candidate_ledger_sha256: str
    policy_sha256: str
    train_records: int
    train_artifact_sha256: str


def build_bank(train: TrainBundle, policy: BuildPolicy = BuildPolicy(), *, bank_id: str = "enron_intelligence",
               version: str = "1", created_at: str = "1970-01-01T00:00:00Z") -> BuildResult:
    """Mine, decide and assemble the ``nerb.bank.v1`` bank from a train bundle (and nothing else)."""
    if not isinstance(train, TrainBundle) or train._token is not _TRAIN_TOKEN:
        raise TrainOnlyError("the bank builder accepts only a train bundle opened with open_train_bundle")
    mined = mine(train, policy)
    decisions = decide(mined, policy)
    policy_sha = policy.sha256()
    binding = {"train_artifact_sha256": train.train_artifact_sha256, "train_records": len(train.records)}
    contact_names: dict[str, Any] = {}
    person_names: dict[str, Any] = {}
    domain_names: dict[str, Any] = {}
    for d in decisions:
        if d.decision == "rejected" or d.candidate is None:
            continue
        c = d.candidate
        if d.candidate_type == "contact":
            meta = _pattern_metadata(d, policy_sha, binding, "email_address")
            meta["contact_scope"] = ("internal" if c.value.endswith("@enron.com") or c.value.endswith(".enron.com")
                                     else "external")
            name_id = stable_id("contact", c.value)
            contact_names[name_id] = {
                "canonical": c.value, "description": "Observed contact address.", "status": d.decision,
                "metadata": {"authoritative_pattern_metadata_ref": "exact_email"},
                "patterns": {"exact_email": _literal(c.value, d.decision, d.priority or 0, False, "word", "word",
                                                     meta, "Observed contact address.")}}
        elif d.candidate_type == "person_alias":
            address = next(iter(c.related)) if len(c.related) == 1 else ""
            meta = _pattern_metadata(d, policy_sha, binding, "person_name")
            meta["identity_ref"] = stable_id("identity", c.identity or "")
            if address:
                meta["contact_ref"] = stable_id("contact", address)
            surface = c.surfaces.most_common(1)[0][0]
            canonical = " ".join(t.capitalize() for t in (c.identity or surface).split())
            name_id = stable_id("alias", c.value)
            person_names[name_id] = {
                "canonical": canonical, "description": "Address-anchored person alias.", "status": d.decision,
                "metadata": {"authoritative_pattern_metadata_ref": "full_name"},
                "patterns": {"full_name": _literal(surface, d.decision, d.priority or 25_002, True, "word", "word",
                                                   meta, "Observed full-name alias.")}}
        elif d.candidate_type == "organization_domain":
            meta = _pattern_metadata(d, policy_sha, binding, "organization_domain")
            meta["affiliation"] = "internal" if c.value == "enron.com" or c.value.endswith(".enron.com") else "external"
            name_id = stable_id("domain", c.value)
            domain_names[name_id] = {
                "canonical": c.value, "description": "Organization domain candidate.", "status": "draft",
                "metadata": {"authoritative_pattern_metadata_ref": "at_domain"},
                "patterns": {"at_domain": _literal("@" + c.value, "draft", 25_003, False, "none", "word", meta,
                                                   "Draft full-domain contact suffix.")}}
    fallback_meta = {"source_type": "generic_structured_fallback", "split": "train", "observation_count": 0,
                     "distinct_document_count": 0, "distinct_leakage_group_count": 0, "first_seen": None,
                     "last_seen": None, "unknown_date_documents": 0, "confidence": "medium",
                     "review_status": "active", "curation_reason_code": "bounded_structured_email_fallback",
                     "privacy_class": "email_address", "label_strength": "synthetic_conformance",
                     "evidence_scope": "synthetic_adversarial_and_structured_weak",
                     "ambiguity": {"status": "bounded_format", "reason_codes": []}}
    contact_names["unknown_email_contact"] = {
        "canonical": "Unknown email contact", "description": "Bounded unknown-email fallback.", "status": "active",
        "metadata": {"authoritative_pattern_metadata_ref": "structured_email"},
        "patterns": {"structured_email": {"kind": "regex", "value": EMAIL_FALLBACK_REGEX,
                                          "description": "Bounded unknown-email fallback.", "status": "active",
                                          "priority": 24_999, "regex_flags": [], "metadata": fallback_meta}}}
    phone_meta = {"source_type": "generic_structured_fallback", "split": "train", "confidence": "low",
                  "review_status": "draft", "curation_reason_code": "iteration_deferred",
                  "privacy_class": "phone_number", "label_strength": "synthetic_conformance",
                  "ambiguity": {"status": "review_required",
                                "reason_codes": ["independent_phone_negative_evidence_unavailable"]}}
    entities = {
        "contact": _entity("Known contact addresses and a bounded unknown-email fallback.", "active", contact_names,
                           {"label_source": "train_structured_headers"}),
        "person": _entity("Address-anchored people with recurring collision-free full-name aliases.", "active",
                          person_names, {"first_name_aliases": "prohibited"}),
        "organization_domain": _entity("Domain candidates awaiting exact-boundary support.", "draft", domain_names,
                                       {}),
        "phone_number": _entity("Unknown-phone fallback retained as draft.", "draft", {
            "unknown_phone_number": {
                "canonical": "Unknown phone number", "description": "Draft structured-phone fallback.",
                "status": "draft", "metadata": {"authoritative_pattern_metadata_ref": "structured_us_phone"},
                "patterns": {"structured_us_phone": {"kind": "regex", "value": PHONE_FALLBACK_REGEX,
                                                     "description": "Draft US-like phone fallback.",
                                                     "status": "draft", "priority": 24_998, "regex_flags": [],
                                                     "metadata": phone_meta}}}}, {}),
    }
    if not person_names:
        entities["person"]["status"] = "draft"  # an entity needs names to be meaningful; none promoted
    ledger = hashlib.sha256(b"nerb/enron/candidate-ledger/v2\0")
    ledger.update(train.train_artifact_sha256.encode("ascii"))
    ledger.update(policy_sha.encode("ascii"))
    for key in sorted(mined.candidates):
        ledger.update(python_canonical_bytes(mined.candidates[key].evidence_row()))
    bank = {
        "schema_version": SCHEMA_VERSION, "id": bank_id, "name": "Known-entity bank built from train",
        "description": "Contacts and address-anchored person aliases mined from train structured headers.",
        "version": version, "status": "active", "created_at": created_at, "updated_at": created_at,
        "unicode_normalization": "none", "default_regex_flags": [], "entities": entities,
        "metadata": {"builder": "nerb_verify.producers.bank_builder", "builder_policy_sha256": policy_sha,
                     "candidate_ledger_sha256": "sha256:" + ledger.hexdigest(),
                     "candidate_source_sha256": mined.candidate_source_sha256,
                     "source_binding": binding, "sealed_test_accessed": False, "real_pii_private": True},
    }
    validate_bank(bank)
    return BuildResult(bank, decisions, candidate_funnel(decisions), mined.observations,
                       mined.candidate_source_sha256, "sha256:" + ledger.hexdigest(), policy_sha,
                       len(train.records), train.train_artifact_sha256)


def iter_candidate_rows(result: BuildResult) -> Iterator[dict[str, Any]]:
    """Private ``candidates.jsonl`` rows: each candidate's evidence row with its decision and reason."""
    for d in result.decisions:
        row = d.candidate.evidence_row() if d.candidate else {"kind": d.candidate_type, "value": d.candidate_type}
        yield {**row, "candidate_type": d.candidate_type, "decision": d.decision, "reason_code": d.reason}
