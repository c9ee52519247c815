"""Leakage-safe splitting: union-find leakage groups, whole components to train/validation/test, cross-split audit.

Nodes are prepared records in ``document_id`` order. Five edge families join nodes (spec 50 §3.1): exact view text
(all four views under one key space, so a match across views also joins), the same normalised message id, a shared
message id in own ∪ referenced ids, the same thread subject with one shared participant, and SimHash64 near
duplicates at Hamming distance <= 3 found through a banded index (5 bands of 13/13/13/13/12 bits, one key per band
pair: any two signatures within 3 flips share at least two intact bands, so the index is complete).

Components move whole. Components with an eligible date go to roles 80/10/10 by their latest eligible date
(cumulative record counts, ties to the lower index); undated components by a seeded hash. Every input to the
assignment is keyed by ``document_id`` or ``group_id``, so the partition and the roles do not depend on row order.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from nerb_verify.producers.sources import domain_hash

ROLES = ("train", "validation", "test")
EDGE_FAMILIES = ("exact_plaintext", "same_message_id", "message_id_reference", "thread_shared_participant",
                 "near_duplicate")
BAND_BITS = (13, 13, 13, 13, 12)
NEAR_MAX_DISTANCE = 3
NEAR_MIN_TOKENS = 12
NEAR_MIN_SHINGLES = 8
NEAR_CAP = 100_000_000
TRAIN_FRACTION = (8, 10)
VALIDATION_FRACTION = (9, 10)
SIZE_BUCKETS = ((0, "0"), (255, "1-255"), (1023, "256-1023"), (4095, "1024-4095"), (16383, "4096-16383"),
                (65535, "16384-65535"), (262143, "65536-262143"), (1048575, "262144-1048575"))
GROUP_SIZE_BUCKETS = ((1, "1"), (2, "2"), (4, "3-4"), (9, "5-9"), (99, "10-99"))


class SplitError(Exception):
    """The split cannot be produced under the policy (fail closed); ``code`` is a stable reason."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def split_policy(seed_commitment: str) -> dict[str, Any]:
    """The split policy object; its canonical hash is the public ``splits.policy_sha256``."""
    return {
        "policy_version": "nerb-verify.enron-split-policy.v1",
        "seed_sha256": seed_commitment,
        "fractions": {"train": "0.8", "validation": "0.1", "test": "0.1"},
        "grouping": {"families": list(EDGE_FAMILIES), "near_duplicate": {
            "max_hamming": NEAR_MAX_DISTANCE, "min_tokens": NEAR_MIN_TOKENS, "min_shingles": NEAR_MIN_SHINGLES,
            "bands": list(BAND_BITS), "keys": "one per band pair", "cap": NEAR_CAP},
            "union_find_root": "smaller node index", "group_id": "D(nerb/enron/split-component/v2, sorted doc ids)"},
        "assignment": {"temporal": "latest eligible UTC date per component, cumulative records closest to 0.8/0.9",
                       "non_temporal": "sha256(nerb/enron/non-temporal/v2 \\0 enron \\0 seed \\0 group_id) / 2^256"},
        "cohorts": {"recurrence": "train-only distinct group counts", "frequency": ["novel", "tail", "mid", "head"],
                    "size_buckets": [label for _, label in SIZE_BUCKETS] + ["1048576+"],
                    "group_size_buckets": [label for _, label in GROUP_SIZE_BUCKETS] + ["100+"]},
        "floors": {"role_records": "max(ceil(5%), 10000)", "role_groups": 1000, "largest_group_fraction": "< 0.05"},
    }


def seed_commitment(seed: str) -> str:
    """The public split seed: only its commitment ``D(nerb/enron/split-seed/v2, seed)`` is published."""
    return "sha256:" + domain_hash("nerb/enron/split-seed/v2", seed)


@dataclass(slots=True)
class Node:
    """The grouping features of one prepared record that the splitter needs (no text)."""

    document_id: str
    exact: list[bytes]
    message_id: bytes | None
    references: list[bytes]
    thread_subject: bytes | None
    participants: list[bytes]
    signatures: list[int]
    anchor_us: int | None
    anchor_utc: str | None
    date_status: str
    occurrences: int
    primary_bytes: int
    mailbox_owner: str | None
    structured_present: bool
    truncated: bool


def _raw(value: str | None) -> bytes | None:
    """A ``sha256:<hex>`` feature hash as its 32 raw bytes (half the memory of the text form)."""
    return bytes.fromhex(value[len("sha256:"):]) if value else None


def node_from_record(record: dict[str, Any]) -> Node:
    """Extract a :class:`Node` from a prepared record."""
    grouping = record["grouping"]
    signatures = []
    for view in ("current_body_core", "full_visible_body"):
        near = grouping["near_duplicate"][view]
        if near["token_count"] >= NEAR_MIN_TOKENS and near["shingle_count"] >= NEAR_MIN_SHINGLES:
            value = int(near["simhash64"], 16)
            if value not in signatures:
                signatures.append(value)
    date = record["date"]
    anchor_us = None
    if date["temporal_eligible"] and date["utc"]:
        parsed = datetime.fromisoformat(date["utc"].replace("Z", "+00:00"))
        anchor_us = int(parsed.timestamp()) * 1_000_000 + parsed.microsecond
    headers = record["headers"]
    cleaning = record["cleaning"]
    return Node(
        document_id=record["document_id"],
        exact=sorted({_raw(value) for value in grouping["exact"].values() if value}),
        message_id=_raw(grouping["normalized_message_id_sha256"]),
        references=[_raw(value) for value in grouping["embedded_message_id_sha256s"]],
        thread_subject=_raw(grouping["normalized_thread_subject_sha256"]),
        participants=[_raw(value) for value in grouping["participant_sha256s"]],
        signatures=signatures,
        anchor_us=anchor_us,
        anchor_utc=date["utc"] if date["temporal_eligible"] else None,
        date_status=date["status"],
        occurrences=record["source"]["identical_occurrence_count"],
        primary_bytes=record["view_metadata"]["subject_current_body"]["utf8_bytes"],
        mailbox_owner=record["source"]["mailbox_owner_sha256"],
        structured_present=any(headers[key] for key in ("from", "to", "cc", "bcc")),
        truncated=bool(cleaning["body_truncated"] or cleaning["subject_truncated"]
                       or cleaning["transform_counts"].get("recipient_values_truncated")),
    )


class UnionFind:
    """Disjoint sets over node indices; the smaller index is always the root."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, node: int) -> int:
        parent = self.parent
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def union(self, a: int, b: int) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if ra < rb:
            self.parent[rb] = ra
        else:
            self.parent[ra] = rb
        return True


_BAND_SHIFTS = tuple(sum(BAND_BITS[:i]) for i in range(len(BAND_BITS)))
_BAND_PAIRS = tuple((i, j) for i in range(len(BAND_BITS)) for j in range(i + 1, len(BAND_BITS)))


def band_pair_key(signature: int, pair_index: int) -> int:
    """The key of one band pair as a single int: ``band_i << bits_j | band_j`` (the pair index is the pass)."""
    i, j = _BAND_PAIRS[pair_index]
    band_i = (signature >> _BAND_SHIFTS[i]) & ((1 << BAND_BITS[i]) - 1)
    band_j = (signature >> _BAND_SHIFTS[j]) & ((1 << BAND_BITS[j]) - 1)
    return (band_i << BAND_BITS[j]) | band_j


def band_keys(signature: int) -> list[tuple[int, int]]:
    """The 10 band-pair keys of a 64-bit signature (bands from the least significant bit)."""
    bands = []
    shift = 0
    for bits in BAND_BITS:
        bands.append(((signature >> shift) & ((1 << bits) - 1), bits))
        shift += bits
    keys = []
    pair_index = 0
    for i in range(len(bands)):
        for j in range(i + 1, len(bands)):
            keys.append((pair_index, (bands[i][0] << bands[j][1]) | bands[j][0]))
            pair_index += 1
    return keys


@dataclass
class Grouping:
    """The leakage partition and its audit counts."""

    uf: UnionFind
    edge_counts: Counter = field(default_factory=Counter)
    group_flags: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))
    near_raw_emissions: int = 0
    near_pairs: set[tuple[int, int]] = field(default_factory=set)


def build_groups(nodes: list[Node]) -> Grouping:
    """Union-find over the five edge families (nodes must be in ``document_id`` order)."""
    uf = UnionFind(len(nodes))
    grouping = Grouping(uf)
    flagged: list[tuple[int, int, str]] = []

    def join_by_key(family: str, keys: Iterator[tuple[Any, int]]) -> None:
        first: dict[Any, int] = {}
        for key, index in keys:
            other = first.setdefault(key, index)
            if other != index:
                if uf.union(other, index):
                    grouping.edge_counts[family] += 1
                flagged.append((other, index, family))

    join_by_key("exact_plaintext", ((value, i) for i, node in enumerate(nodes) for value in node.exact))
    join_by_key("same_message_id", ((node.message_id, i) for i, node in enumerate(nodes) if node.message_id))
    join_by_key("message_id_reference", ((value, i) for i, node in enumerate(nodes)
                                         for value in ([node.message_id] if node.message_id else []) + node.references))
    join_by_key("thread_shared_participant", (((node.thread_subject, p), i) for i, node in enumerate(nodes)
                                              if node.thread_subject for p in node.participants))
    # near duplicates: identical signatures join directly; distinct ones meet through the band index, built one band
    # pair at a time so only one pair's keys are in memory (10 passes over the unique signatures)
    representative: dict[int, int] = {}
    for index, node in enumerate(nodes):
        for signature in node.signatures:
            other = representative.setdefault(signature, index)
            if other != index:
                if uf.union(other, index):
                    grouping.edge_counts["near_duplicate"] += 1
                flagged.append((other, index, "near_duplicate"))
    unique = list(representative.items())
    for pair_index in range(len(_BAND_PAIRS)):
        buckets: dict[int, Any] = {}
        for signature, index in unique:
            key = band_pair_key(signature, pair_index)
            held = buckets.get(key)
            if held is None:
                buckets[key] = signature
                continue
            candidates = held if isinstance(held, list) else [held]
            grouping.near_raw_emissions += len(candidates)
            if grouping.near_raw_emissions > NEAR_CAP:
                raise SplitError("near_candidate_cap")
            for candidate in candidates:
                if (signature ^ candidate).bit_count() <= NEAR_MAX_DISTANCE:
                    pair = (min(signature, candidate), max(signature, candidate))
                    if pair in grouping.near_pairs:
                        continue
                    grouping.near_pairs.add(pair)
                    if len(grouping.near_pairs) > NEAR_CAP:
                        raise SplitError("near_pair_cap")
                    other = representative[candidate]
                    if uf.union(other, index):
                        grouping.edge_counts["near_duplicate"] += 1
                    flagged.append((other, index, "near_duplicate"))
            if isinstance(held, list):
                held.append(signature)
            else:
                buckets[key] = [held, signature]
        del buckets
    for a, _, family in flagged:
        grouping.group_flags[uf.find(a)].add(family)
    return grouping


@dataclass
class Component:
    """One leakage group: member node indices, id, anchor and role."""

    members: list[int]
    group_id: str
    anchor_us: int | None
    anchor_utc: str | None
    families: set[str]
    role: str = ""


def components_of(nodes: list[Node], grouping: Grouping) -> list[Component]:
    """Materialise the components with their ``group_id`` and latest eligible date."""
    members: dict[int, list[int]] = defaultdict(list)
    for index in range(len(nodes)):
        members[grouping.uf.find(index)].append(index)
    result = []
    for root, indices in members.items():
        doc_ids = sorted(nodes[i].document_id for i in indices)
        group_id = "sha256:" + domain_hash("nerb/enron/split-component/v2", "\n".join(doc_ids))
        dated = [(nodes[i].anchor_us, nodes[i].anchor_utc) for i in indices if nodes[i].anchor_us is not None]
        anchor = max(dated) if dated else (None, None)
        families = set(grouping.group_flags.get(root, set()))
        result.append(Component(indices, group_id, anchor[0], anchor[1], families))
    result.sort(key=lambda component: component.group_id)
    return result


def _closest_index(cumulative: list[int], target_num: int, target_den: int, low: int, high: int) -> int:
    """The index k in [low, high] whose cumulative count (first k components) is closest to target (ties: lower)."""
    best, best_gap = low, None
    for k in range(low, high + 1):
        gap = abs(cumulative[k] * target_den - target_num)
        if best_gap is None or gap < best_gap:
            best, best_gap = k, gap
    return best


def non_temporal_role(seed: str, group_id: str) -> str:
    """Seeded-hash role for a component without an eligible date."""
    value = int(hashlib.sha256(f"nerb/enron/non-temporal/v2\x00enron\x00{seed}\x00{group_id}".encode()).hexdigest(), 16)
    scaled = value * 10
    if scaled < 8 << 256:
        return "train"
    if scaled < 9 << 256:
        return "validation"
    return "test"


def assign_roles(components: list[Component], seed: str) -> None:
    """Whole components to roles: temporal ones by anchor order 80/10/10, the rest by seeded hash."""
    temporal = sorted((c for c in components if c.anchor_us is not None), key=lambda c: (c.anchor_us, c.group_id))
    for component in components:
        if component.anchor_us is None:
            component.role = non_temporal_role(seed, component.group_id)
    n = len(temporal)
    if n < 3:
        for component in temporal:
            component.role = non_temporal_role(seed, component.group_id)
        return
    cumulative = [0]
    for component in temporal:
        cumulative.append(cumulative[-1] + len(component.members))
    total = cumulative[-1]
    train_end = _closest_index(cumulative, total * TRAIN_FRACTION[0], TRAIN_FRACTION[1], 1, n - 2)
    validation_end = _closest_index(cumulative, total * VALIDATION_FRACTION[0], VALIDATION_FRACTION[1],
                                    train_end + 1, n - 1)
    for position, component in enumerate(temporal):
        component.role = "train" if position < train_end else "validation" if position < validation_end else "test"


def audit_crossings(nodes: list[Node], roles: list[str], grouping: Grouping) -> dict[str, int]:
    """Re-derive every joining key from the node features and count keys seen in more than one role.

    This does not trust the union-find: it rebuilds key -> role maps per family and checks every verified
    near-duplicate pair, so a bug in grouping or assignment shows up as a non-zero crossing count.
    """
    crossings: Counter = Counter()

    def check(family: str, keys: Iterator[tuple[Any, int]]) -> None:
        role_of_key: dict[Any, str] = {}
        crossed: set[Any] = set()
        for key, index in keys:
            role = role_of_key.setdefault(key, roles[index])
            if role != roles[index]:
                crossed.add(key)
        crossings[family] = len(crossed)

    check("exact_plaintext", ((value, i) for i, node in enumerate(nodes) for value in node.exact))
    check("message_id_reference", ((value, i) for i, node in enumerate(nodes)
                                   for value in ([node.message_id] if node.message_id else []) + node.references))
    check("thread_shared_participant", (((node.thread_subject, p), i) for i, node in enumerate(nodes)
                                        if node.thread_subject for p in node.participants))
    signature_roles: dict[int, set[str]] = defaultdict(set)
    for index, node in enumerate(nodes):
        for signature in node.signatures:
            signature_roles[signature].add(roles[index])
    crossed_near = sum(1 for rs in signature_roles.values() if len(rs) > 1)
    crossed_near += sum(1 for a, b in grouping.near_pairs if signature_roles[a] != signature_roles[b])
    crossings["near_duplicate"] = crossed_near
    return dict(crossings)


def bucket(value: int, table: tuple[tuple[int, str], ...], last: str) -> str:
    """The label of the first bucket whose upper bound holds ``value``."""
    for upper, label in table:
        if value <= upper:
            return label
    return last


def frequency_label(groups: int) -> str:
    """Train-only distinct group count -> novel / tail / mid / head."""
    if groups == 0:
        return "novel"
    if groups == 1:
        return "tail"
    if groups <= 9:
        return "mid"
    return "head"


def memberships(nodes: list[Node], components: list[Component],
                natural_present: list[bool]) -> Iterator[dict[str, Any]]:
    """One membership row per node (document_id order) with cohorts and challenges, generated one at a time."""
    comp_of: dict[int, Component] = {}
    for component in components:
        for index in component.members:
            comp_of[index] = component
    identity_groups: dict[str, set[str]] = defaultdict(set)
    train_owners: set[str] = set()
    for index, node in enumerate(nodes):
        component = comp_of[index]
        if component.role == "train":
            for participant in node.participants:
                identity_groups[participant].add(component.group_id)
            if node.mailbox_owner:
                train_owners.add(node.mailbox_owner)
    for index, node in enumerate(nodes):
        component = comp_of[index]
        counts = [len(identity_groups.get(p, ())) for p in node.participants]
        if not counts:
            recurrence = "unavailable"
        elif all(counts):
            recurrence = "all_known"
        elif not any(counts):
            recurrence = "all_novel"
        else:
            recurrence = "mixed"
        frequencies = sorted({frequency_label(c) for c in counts})
        mailbox = "unavailable" if not node.mailbox_owner else "known" if node.mailbox_owner in train_owners else "novel"
        challenges = []
        if component.anchor_us is None:
            challenges.append("non_temporal")
        if mailbox == "unavailable":
            challenges.append("mailbox_unavailable")
        elif mailbox == "novel":
            challenges.append("mailbox_novelty")
        if len(component.members) > 1:
            challenges.append("multi_record_leakage_group")
        if "exact_plaintext" in component.families:
            challenges.append("exact_duplicate_group")
        if component.families & {"same_message_id", "message_id_reference", "thread_shared_participant"}:
            challenges.append("thread_or_reply_group")
        if "near_duplicate" in component.families:
            challenges.append("near_duplicate_group")
        if component.role != "train" and component.anchor_us is not None:
            challenges.append("temporal_future")
        if not natural_present[index]:
            challenges.append("natural_empty")
        if not node.structured_present:
            challenges.append("structured_empty")
        if recurrence in ("all_novel", "mixed"):
            challenges.append("identity_novelty")
        yield {
            "schema_version": "nerb_verify.enron_split_membership.v1",
            "document_id": node.document_id, "group_id": component.group_id, "role": component.role,
            "occurrence_count": node.occurrences,
            "temporal": {"eligible": node.anchor_us is not None, "status": node.date_status,
                         "anchor_utc": component.anchor_utc},
            "mailbox_recurrence": mailbox,
            "size": bucket(node.primary_bytes, SIZE_BUCKETS, "1048576+"),
            "group_size": bucket(len(component.members), GROUP_SIZE_BUCKETS, "100+"),
            "identities": {"recurrence": recurrence, "count": len(counts), "contains_frequency": frequencies},
            "views": {"natural": "present" if natural_present[index] else "empty",
                      "structured": "present" if node.structured_present else "empty"},
            "challenges": challenges,
        }


def production_floor_failures(role_records: dict[str, int], role_groups: dict[str, int], largest: int, total: int,
                              truncated: int, cohorts: dict[str, Counter]) -> list[str]:
    """Names of the production floors (spec 50 §3.5) this split misses; empty when it may be promoted."""
    failures = []
    for role in ROLES:
        floor = max(-(-total * 5 // 100), 10_000)
        if role_records[role] < floor:
            failures.append(f"{role}_records")
        if role_groups[role] < 1_000:
            failures.append(f"{role}_groups")
    if total and largest * 20 >= total:
        failures.append("largest_group_fraction")
    for role in ("validation", "test"):
        for cohort in ("identity:all_known", "identity:all_novel", "frequency:head", "frequency:tail",
                       "natural:present", "structured:present"):
            if cohorts[role][cohort] < 100:
                failures.append(f"{role}_{cohort.replace(':', '_')}")
    if truncated:
        failures.append("grouping_affecting_truncation")
    return failures
