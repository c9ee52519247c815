"""The ten frozen paired blocks: hash-derived candidate-first/control-first assignment and ABBA/BAAB order.

For block index i = 0..9 the digest is SHA-256(domain || i as 2-byte big-endian); indices sorted by the raw digest
ascending, the first half are ``candidate_first`` and the rest ``control_first``. Block b of a twin's chronological
samples is the slice [b*k, (b+1)*k). Within a block the observation order repeats candidate, control, control,
candidate (ABBA) for candidate-first blocks and the swapped BAAB for control-first blocks.
"""

from __future__ import annotations

import hashlib

BLOCK_DOMAIN = b"nerb/enron/performance/exact-block-assignment/v1\x00"
CANDIDATE_FIRST = "candidate_first"
CONTROL_FIRST = "control_first"


def block_assignment(block_count: int) -> list[str]:
    """The frozen balanced assignment for ``block_count`` blocks (first half by digest order is candidate-first)."""
    digests = [(hashlib.sha256(BLOCK_DOMAIN + i.to_bytes(2, "big")).digest(), i) for i in range(block_count)]
    ranked = [index for _digest, index in sorted(digests)]
    first = set(ranked[: block_count // 2])
    return [CANDIDATE_FIRST if i in first else CONTROL_FIRST for i in range(block_count)]


def abba_labels(first: str, per_twin: int) -> list[str]:
    """Observation labels of one block: ABBA repeated (BAAB when control goes first) until each twin has k samples."""
    a, b = ("candidate", "control") if first == CANDIDATE_FIRST else ("control", "candidate")
    pattern = (a, b, b, a)
    return [pattern[i % 4] for i in range(2 * per_twin)]


def split_blocks(samples: list[int], block_count: int) -> list[list[int]] | None:
    """Chronological blocks of equal size, or None when the samples do not split evenly."""
    n = len(samples)
    if block_count <= 0 or n % block_count:
        return None
    size = n // block_count
    return [samples[b * size:(b + 1) * size] for b in range(block_count)]
