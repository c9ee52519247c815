"""How a bundle-relative path is shown in findings and reports without echoing personal data in a file name.

A published bundle's own file names (``benchmark-evidence.json``, ``figures/bank-coverage.svg``, ...) are shown as
they are. Any other path component is privacy-scanned with the strict contract profile; a component that trips a
rule (an e-mail address used as a file name, say) is shown as ``@name:<index>``, its position in the path.
"""

from __future__ import annotations

import functools

from nerb_verify.privacy.engine import scan_string
from nerb_verify.privacy.profiles import CONTRACT


@functools.lru_cache(maxsize=4096)
def safe_relpath(rel: str) -> str:
    """``rel`` with every component that is itself personal data replaced by ``@name:<index>``."""
    parts = rel.split("/")
    shown = []
    for index, part in enumerate(parts):
        if part in ("", ".", "..") or not scan_string(part, CONTRACT):
            shown.append(part)
        else:
            shown.append(f"@name:{index}")
    return "/".join(shown)
