"""What any whole-process Python verifier of a bundle does before it checks anything, timed as ``parse_floor`` by
``tools/bench_verify.py --floor``: start the interpreter, read every regular file under the bundle, hash each with
SHA-256 (every file reference of a bundle is a digest), decode it as UTF-8 and parse the JSON files with the standard
library. It imports nothing of nerb-verify and prints one line (files, bytes, JSON values at the top level).

Usage: python tools/verify_floor.py BUNDLE_DIR
"""

from __future__ import annotations

import hashlib
import json
import os
import sys


def main(argv: list[str]) -> int:
    """Read, hash and parse every file under ``argv[0]``; 0 when every JSON file parses, else 1."""
    files = 0
    size = 0
    roots = 0
    for directory, _folders, names in os.walk(argv[0]):
        for name in sorted(names):
            path = os.path.join(directory, name)
            with open(path, "rb") as handle:
                raw = handle.read()
            hashlib.sha256(raw).hexdigest()
            text = raw.decode("utf-8")
            if name.endswith(".json"):
                roots += len(json.loads(text))
            files += 1
            size += len(raw)
    print(f"{files} files, {size} bytes, {roots} top-level JSON members")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
