"""Repository-relative locations for findings, so no output ever carries an absolute path.

A finding's ``artifact`` is relative to the folder a command was given (the bundle for ``verify``, the scanned
folder for ``scan``). Outputs that point at files (SARIF, GitHub annotations) need paths relative to the *source
root*: the repository checkout, by default the current working directory. :class:`PathBase` does that translation:

* the target folder lies inside the source root: the path is ``<target relative to root>/<artifact>`` under the
  SARIF base id ``%SRCROOT%`` (what GitHub code scanning resolves against the checkout);
* otherwise the path is the artifact alone under the base id ``TARGETROOT``, whose location is deliberately not
  recorded (it would be an absolute, possibly personal, path).

Paths are normalised to POSIX form; a path that would climb out of its base (``..``), or an absolute path outside
the source root, is cut down to its last component under ``TARGETROOT`` rather than printed. An archive member
(``<archive>!/<member>``, named by the scanner) keeps its member path after the archive's last component, so two
members of one archive never share a location.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path, PurePosixPath
from typing import NamedTuple

SRCROOT = "%SRCROOT%"
TARGETROOT = "TARGETROOT"

BASE_DESCRIPTIONS = {
    SRCROOT: "The source root: the repository checkout the command ran in (or --source-root).",
    TARGETROOT: "The folder given on the command line, outside the source root; its location is not recorded.",
}


def _inside(path: Path, root: Path) -> str | None:
    """``path`` relative to ``root`` in POSIX form, or None when it is not inside (tried lexically, then resolved)."""
    for candidate, base in ((Path(os.path.abspath(path)), Path(os.path.abspath(root))),
                            (_resolved(path), _resolved(root))):
        if candidate is None or base is None:
            continue
        try:
            rel = candidate.relative_to(base)
        except ValueError:
            continue
        text = rel.as_posix()
        return "" if text == "." else text
    return None


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def _clean_relative(text: str) -> str | None:
    """Normalise a relative POSIX path; None if it is absolute or climbs out of its base."""
    text = text.replace("\\", "/")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":"):
        return None
    norm = posixpath.normpath(text) if text else "."
    if norm == ".":
        return ""
    if norm == ".." or norm.startswith("../"):
        return None
    return norm


def _cut_down(artifact: str) -> str:
    """The last component of an artifact's path on disk, followed by its archive member path if it names one.

    The scanner names a member ``<file on disk>!/<member>`` (its member path holds no ``..`` and no empty or ``.``
    components). ``!/`` may also occur in a directory's name, so the file on disk is found by asking the file
    system which prefix is a file: the first such prefix ends the on-disk part. Nothing before that file's own name
    is kept (it would be an absolute, possibly personal, path)."""
    text = artifact.replace("\\", "/")
    mark = text.find("!/")
    while mark != -1:
        if os.path.isfile(text[:mark]):
            return PurePosixPath(text[:mark]).name + text[mark:]
        mark = text.find("!/", mark + 2)
    return PurePosixPath(text).name


def names_target(artifact: str) -> bool:
    """True when a finding's artifact is the command's target folder itself (``.`` or empty), not a file in it."""
    return _clean_relative(artifact) == ""


class PathBase(NamedTuple):
    """Where one run's artifact paths live, relative to the source root when possible (see module docstring)."""

    prefix: str | None
    source_root: Path

    @classmethod
    def for_target(cls, target: str | os.PathLike[str] | None, source_root: str | os.PathLike[str] | None = None,
                   ) -> PathBase:
        """The base for artifacts found under ``target`` (None: artifacts are already relative to the source root)."""
        root = Path(source_root) if source_root is not None else Path.cwd()
        if target is None:
            return cls(prefix="", source_root=root)
        return cls(prefix=_inside(Path(target), root), source_root=root)

    def locate(self, artifact: str) -> tuple[str, str]:
        """``(uri_base_id, posix_path)`` for an artifact path as a finding holds it; the path may be ``""``."""
        if os.path.isabs(artifact):
            inside = _inside(Path(artifact), self.source_root)
            if inside is not None:
                return SRCROOT, inside
            return TARGETROOT, _cut_down(artifact)
        rel = _clean_relative(artifact)
        if rel is None:
            return TARGETROOT, _cut_down(artifact)
        if self.prefix is None:
            return TARGETROOT, rel
        if not self.prefix:
            return SRCROOT, rel
        return SRCROOT, f"{self.prefix}/{rel}" if rel else self.prefix

    def display(self, artifact: str) -> str:
        """A printable repository-relative path (``.`` for the root itself), never absolute."""
        _base, path = self.locate(artifact)
        return path or "."
