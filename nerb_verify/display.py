"""How paths are shown in findings and reports without echoing personal data or an absolute location.

A published bundle's own file names (``benchmark-evidence.json``, ``figures/bank-coverage.svg``, ...) are shown as
they are. Any other path component is privacy-scanned with the strict contract profile; a component that trips a
rule (an e-mail address used as a file name, say) is shown as ``@name:<index>``, its position in the path.

The bundle folder itself (:func:`display_bundle_path`) is shown relative to the working directory when it lies under
it, and as the fixed text ``<bundle>`` otherwise, so no output ever carries an absolute path (which names a home
folder or a user more often than not).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

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


OUTSIDE_BUNDLE = "<bundle>"


def _relative_under(path: Path, base: Path) -> str | None:
    """``path`` relative to ``base`` in POSIX form ("" for ``base`` itself), or None when it is not under it.

    Tried lexically first (``/w/./b`` under ``/w``), then with symbolic links resolved (a temporary folder reached
    through a linked parent), the way :mod:`nerb_verify.outputs.locations` places SARIF paths.
    """
    candidates = [(Path(os.path.abspath(path)), Path(os.path.abspath(base)))]
    try:
        candidates.append((path.resolve(), base.resolve()))
    except (OSError, RuntimeError):
        pass
    for candidate, root in candidates:
        try:
            rel = candidate.relative_to(root).as_posix()
        except ValueError:
            continue
        return "" if rel == "." else rel
    return None


def display_bundle_path(path: str | os.PathLike[str], cwd: str | os.PathLike[str] | None = None) -> str:
    """How the bundle folder ``path`` is printed: relative to ``cwd`` (default: the working directory) when it is
    under it (``.`` for the directory itself), else ``<bundle>``; personal-data components are masked as in
    :func:`safe_relpath`. Never an absolute path, never a ``..`` that climbs out of the working directory."""
    try:
        base = Path(cwd) if cwd is not None else Path.cwd()
    except OSError:  # the working directory was removed: nothing is "under" it
        return OUTSIDE_BUNDLE
    rel = _relative_under(Path(path), base)
    if rel is None:
        return OUTSIDE_BUNDLE
    return safe_relpath(rel) if rel else "."
