"""Floors under a whole-process Python scan of a tree, timed by ``tools/bench_scan.py --floor`` in the same run as
``nerb-verify scan`` and detect-secrets: what any such scanner pays before it decodes or joins anything.

* ``read``: start the interpreter, walk the tree (sorted, symbolic links not followed), read every regular file,
  decode it as UTF-8 (a file that does not decode is skipped, as a binary one is) and split it into lines. It imports
  nothing of nerb-verify.
* ``rules``: the same, then import the repository profile's rules (``nerb_verify.privacy.profiles``) and ask each rule
  once, with its own gates, windows and prefilters (``Rule.hits``), of every text file's whole text as given: no
  normaliser, no decoded payload, no URL part, no joined view, no line-by-line pass and no column. Every finding the
  real scan reports needs at least this work, so a goal above this subject's speed cannot be met by any scanner that
  asks these rules of the text.

Prints one line: files read, bytes, lines, and (``rules``) how many (file, rule) pairs hit. Exit 0.

Usage: python tools/scan_floor.py {read,rules} TREE
"""

from __future__ import annotations

import os
import sys


def _texts(tree: str) -> tuple[int, int, list[str]]:
    """(files read, bytes read, the texts that decode as UTF-8) of the regular files under ``tree``."""
    files = size = 0
    texts: list[str] = []
    for directory, folders, names in os.walk(tree):
        folders.sort()
        for name in sorted(names):
            path = os.path.join(directory, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with open(path, "rb") as handle:
                raw = handle.read()
            files += 1
            size += len(raw)
            try:
                texts.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                continue
    return files, size, texts


def main(argv: list[str]) -> int:
    """Run the ``argv[0]`` subject (``read`` or ``rules``) on the tree ``argv[1]``."""
    if len(argv) != 2 or argv[0] not in ("read", "rules"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    files, size, texts = _texts(argv[1])
    lines = sum(len(text.split("\n")) for text in texts)
    hits = 0
    if argv[0] == "rules":
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's rules
        from nerb_verify.privacy.profiles import PROFILES

        rules = PROFILES["repository"].rules
        for text in texts:
            gates: dict[object, object] = {}
            hits += sum(1 for rule in rules if rule.hits(text, gates))
    print(f"{files} files, {size} bytes, {lines} lines, {hits} rule hits")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
