"""Split grouping on a Dask cluster: features per partition, connected components over shuffled group keys.

Three task layers, each with opaque keys (:func:`nerb_verify.producers.cluster.task_keys`):

1. ``features``: one task per byte range of ``prepared.jsonl`` (cut at line starts) parses its records into
   :class:`~nerb_verify.producers.splitting.Node` features and routes every group key (exact view text, message id,
   own-or-referenced id, thread subject with a participant, SimHash signature) to one of ``B`` buckets by the key's
   bytes (never Python's per-process ``hash``).
2. ``keys``: one task per bucket joins the nodes sharing a key, per family, and returns a spanning forest of those
   joins (at most ``nodes - 1`` edges), one node per joined key (for the family flags) and, for signatures, the
   representative (smallest node index) of each signature, re-routed by band-pair key.
3. ``bands``: one task per band bucket compares the signatures sharing a band-pair key (Hamming distance <= 3) and
   returns the near pairs, their representative edges and the raw candidate count.

The client unions the forests family by family in the single-process order. The number of successful unions of a
family equals the drop in the component count, which depends on the edge set and not on the order, and the root of
a component is its smallest node index; so ``edge_counts``, the components, their ``group_id`` and every count are
the ones :func:`~nerb_verify.producers.splitting.build_groups` computes, whatever the partitions and workers.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from nerb_verify.producers import splitting
from nerb_verify.producers.cluster import ClusterError, connect, task_keys, worker_count
from nerb_verify.producers.sources import jsonl_line_starts
from nerb_verify.producers.splitting import BAND_BITS, SplitError

FAMILIES = ("exact_plaintext", "same_message_id", "message_id_reference", "thread_shared_participant",
            "near_duplicate")
SIGNATURE = "signature"  # the identical-signature keys (family near_duplicate)
PARTS_PER_WORKER = 4
_MIX = 0x9E3779B97F4A7C15


class Piece:
    """One shuffled piece (routed group keys, or band entries) that Dask moves between processes as one pickle.

    A worker sends a task result that is a plain ``list`` element by element (one pickle call and one header per
    tuple: measured, that cost more CPU in the workers' event loops than the grouping itself); an object of this
    class is pickled whole. ``__sizeof__`` reports the items' size, so Dask's memory accounting stays right.
    """

    __slots__ = ("items",)

    def __init__(self, items: list[Any]) -> None:
        self.items = items

    def __reduce__(self) -> tuple[Any, tuple[list[Any]]]:
        return (Piece, (self.items,))

    def __sizeof__(self) -> int:
        from dask.sizeof import sizeof

        return int(sizeof(self.items)) + 16


def _route(key: Any, buckets: int) -> int:
    """A bucket for a group key, from its bytes (stable across processes and machines)."""
    if isinstance(key, bytes):
        return int.from_bytes(key[:8], "big") % buckets
    if isinstance(key, tuple):
        return (int.from_bytes(key[0][:8], "big") ^ int.from_bytes(key[1][:8], "big")) % buckets
    return ((key * _MIX) & 0xFFFFFFFFFFFFFFFF) % buckets


def features_task(path: str, start: int, end: int, buckets: int) -> dict[str, Any]:
    """Layer 1: the nodes of one byte range and their group keys routed to ``buckets`` buckets (local indices)."""
    nodes: list[splitting.Node] = []
    natural: list[bool] = []
    routed: list[list[tuple[str, Any, int]]] = [[] for _ in range(buckets)]
    with open(path, "rb") as handle:
        handle.seek(start)
        while handle.tell() < end:
            line = handle.readline()
            if not line:
                break
            record = json.loads(line)
            node = splitting.node_from_record(record)
            local = len(nodes)
            nodes.append(node)
            natural.append(bool(record["views"]["subject_current_body"]))
            keyed: list[tuple[str, Any]] = [("exact_plaintext", value) for value in node.exact]
            if node.message_id:
                keyed.append(("same_message_id", node.message_id))
            keyed += [("message_id_reference", value)
                      for value in ([node.message_id] if node.message_id else []) + node.references]
            if node.thread_subject:
                keyed += [("thread_shared_participant", (node.thread_subject, p)) for p in node.participants]
            keyed += [(SIGNATURE, signature) for signature in node.signatures]
            for family, key in keyed:
                routed[_route(key, buckets)].append((family, key, local))
    return {"nodes": nodes, "natural": natural, "routed": routed}


class _Forest:
    """A small union-find over arbitrary node indices that keeps the edges that joined two trees."""

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}
        self.edges: list[tuple[int, int]] = []

    def find(self, node: int) -> int:
        parent = self.parent
        root = node
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(node, node) != root:
            parent[node], node = root, parent[node]
        return root

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)
            self.edges.append((a, b))


def band_groups(signature: int) -> list[int]:
    """The 10 band-pair keys of a signature, each as ``band_pair_key * 16 + pair index`` (one int per pair)."""
    bands = [(signature >> shift) & ((1 << bits) - 1) for shift, bits in zip(splitting._BAND_SHIFTS, BAND_BITS)]
    return [((bands[i] << BAND_BITS[j]) | bands[j]) * 16 + pair_index
            for pair_index, (i, j) in enumerate(splitting._BAND_PAIRS)]


def keys_task(offsets: list[int], bucket: int, band_buckets: int, *routed_parts: Piece) -> dict[str, Any]:
    """Layer 2: join the nodes sharing a key in this bucket; forests and flags per family, signatures re-routed.

    One pass in global index order (the parts come in partition order, their local indices ascending), so the first
    holder of a key is its smallest index, as in :func:`~nerb_verify.producers.splitting.build_groups`: every later
    holder is joined to it, the first holder is flagged once per joined key, and each distinct signature is sent
    once, with that representative, to the band buckets of its 10 band-pair keys.
    """
    first: dict[tuple[str, Any], int] = {}
    joined: set[tuple[str, Any]] = set()
    forests = {family: _Forest() for family in FAMILIES}
    flags: dict[str, list[int]] = {family: [] for family in FAMILIES}
    bands: list[list[tuple[int, int, int]]] = [[] for _ in range(band_buckets)]
    for offset, part in zip(offsets, routed_parts):
        for family, key, local in part.items:
            index = offset + local
            held = (family, key)
            other = first.get(held)
            if other is None:
                first[held] = index
                if family == SIGNATURE:
                    for group in band_groups(key):
                        bands[((group * _MIX) & 0xFFFFFFFFFFFFFFFF) % band_buckets].append((group, key, index))
                continue
            if other == index:  # the same key twice in one record (a repeated reference)
                continue
            target = "near_duplicate" if family == SIGNATURE else family
            forests[target].union(other, index)
            if held not in joined:
                joined.add(held)
                flags[target].append(other)
    return {"forests": {family: forest.edges for family, forest in forests.items()}, "flags": flags,
            "bands": bands}


def bands_task(*band_parts: Piece) -> dict[str, Any]:
    """Layer 3: signatures sharing a band-pair key within Hamming distance 3 are near pairs (and edges)."""
    groups: dict[int, Any] = {}
    for part in band_parts:
        for group, signature, representative in part.items:
            held = groups.get(group)
            if held is None:
                groups[group] = (signature, representative)
            elif isinstance(held, list):
                held.append((signature, representative))
            else:
                groups[group] = [held, (signature, representative)]
    emissions = 0
    pairs: dict[tuple[int, int], tuple[int, int]] = {}
    for members in groups.values():
        if not isinstance(members, list):
            continue
        count = len(members)
        emissions += count * (count - 1) // 2
        for i in range(count):
            a, rep_a = members[i]
            for j in range(i + 1, count):
                b, rep_b = members[j]
                if (a ^ b).bit_count() <= splitting.NEAR_MAX_DISTANCE:
                    pairs.setdefault((min(a, b), max(a, b)), (min(rep_a, rep_b), max(rep_a, rep_b)))
    return {"emissions": emissions, "pairs": pairs}


def group_on_cluster(cluster: Any, prepared_path: Path, parts: int | None = None
                     ) -> tuple[list[splitting.Node], list[bool], splitting.Grouping]:
    """Nodes (``document_id`` order), natural-view flags and the grouping of ``prepared.jsonl``, on ``cluster``."""
    try:
        with connect(cluster) as client:
            workers = worker_count(client)
            cuts = jsonl_line_starts(prepared_path, parts or PARTS_PER_WORKER * workers)
            count = max(1, len(cuts) - 1)
            buckets = count
            feature_keys = task_keys("split-features", count)
            features = [client.submit(features_task, str(prepared_path), cuts[k], cuts[k + 1], buckets, key=key,
                                      pure=False, retries=3)
                        for k, key in enumerate(feature_keys)]
            picked = [[client.submit(_routed, future, bucket, key=f"{key}-r{bucket:05d}", pure=False, retries=3)
                       for bucket in range(buckets)] for future, key in zip(features, feature_keys)]
            sizes = client.gather([client.submit(_size, future, key=f"{key}-n", pure=False, retries=3)
                                   for future, key in zip(features, feature_keys)])
            offsets = [sum(sizes[:k]) for k in range(count)]
            key_keys = task_keys("split-keys", buckets)
            keyed = [client.submit(keys_task, offsets, bucket, buckets, *[picked[k][bucket] for k in range(count)],
                                   key=key, pure=False, retries=3) for bucket, key in enumerate(key_keys)]
            band_keys = task_keys("split-bands", buckets)
            banded = [client.submit(bands_task, *[client.submit(_bands, keyed[b], bucket,
                                                                key=f"{key}-b{b:05d}", pure=False, retries=3)
                                                  for b in range(buckets)], key=key, pure=False, retries=3)
                      for bucket, key in enumerate(band_keys)]
            node_parts = client.gather([client.submit(_nodes, future, key=f"{key}-f", pure=False, retries=3)
                                        for future, key in zip(features, feature_keys)])
            key_results = client.gather(keyed)
            band_results = client.gather(banded)
    except SplitError:
        raise
    except Exception as exc:  # noqa: BLE001 - a lost cluster or a worker killed beyond the retries
        raise ClusterError("cluster_run_failed") from exc
    nodes = [node for part in node_parts for node in part["nodes"]]
    natural = [flag for part in node_parts for flag in part["natural"]]
    for previous, node in zip(nodes, nodes[1:]):
        if node.document_id <= previous.document_id:
            raise SplitError("prepared_not_sorted")
    return nodes, natural, _merge(len(nodes), key_results, band_results)


def _routed(result: dict[str, Any], bucket: int) -> Piece:
    return Piece(result["routed"][bucket])


def _nodes(result: dict[str, Any]) -> dict[str, Any]:
    """Only the nodes and flags of a features result (its routed keys stay on the workers)."""
    return {"nodes": result["nodes"], "natural": result["natural"]}


def _size(result: dict[str, Any]) -> int:
    return len(result["nodes"])


def _bands(result: dict[str, Any], bucket: int) -> Piece:
    return Piece(result["bands"][bucket])


def _merge(size: int, key_results: list[dict[str, Any]], band_results: list[dict[str, Any]]) -> splitting.Grouping:
    """Union the forests family by family (single-process order) into the global grouping."""
    grouping = splitting.Grouping(splitting.UnionFind(size))
    emissions = sum(result["emissions"] for result in band_results)
    grouping.near_raw_emissions = emissions
    if emissions > splitting.NEAR_CAP:
        raise SplitError("near_candidate_cap")
    near_edges: dict[tuple[int, int], tuple[int, int]] = {}
    for result in band_results:
        for pair, edge in result["pairs"].items():
            near_edges.setdefault(pair, edge)
    grouping.near_pairs = set(near_edges)
    if len(grouping.near_pairs) > splitting.NEAR_CAP:
        raise SplitError("near_pair_cap")
    flagged: list[tuple[int, str]] = []
    for family in FAMILIES:
        edges = [edge for result in key_results for edge in result["forests"][family]]
        if family == "near_duplicate":
            edges += [near_edges[pair] for pair in sorted(near_edges)]
            flagged += [(edge[0], family) for edge in near_edges.values()]
        joined = sum(1 for a, b in edges if grouping.uf.union(a, b))
        if joined:
            grouping.edge_counts[family] += joined
        flagged += [(index, family) for result in key_results for index in result["flags"][family]]
    for index, family in flagged:
        grouping.group_flags[grouping.uf.find(index)].add(family)
    return grouping

