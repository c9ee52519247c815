"""Named transforms used by the attack simulator's cases (tools/mutate.py); no broken fixtures of its own."""

from __future__ import annotations

import json
from pathlib import Path

from nerb_verify.canonical import nerb_pretty_bytes

CASES: list[dict] = []


def sim_swap_blocks(root: Path) -> None:
    """Swap the first two paired blocks of the first stability comparison (a reordered block)."""
    path = root / "benchmark-evidence.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    blocks = doc["performance"]["comparisons"][0]["block_assignment"]
    blocks[0], blocks[1] = blocks[1], blocks[0]
    path.write_bytes(nerb_pretty_bytes(doc))


TRANSFORMS = {"sim_swap_blocks": sim_swap_blocks}
