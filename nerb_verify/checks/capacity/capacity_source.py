"""The optional ``--source-repo PATH`` mode of the capacity family: checks that need the publisher's git history.

With a full-history clone of the publisher's repository we can recompute what the attestation says about the
measured commit: the raw ``git cat-file commit`` bytes must hash (SHA-1, git's object id) to the commit id and
(SHA-256) to ``commit_object_sha256``; the commit's root tree must be ``root_tree_object_id``; and the SHA-256 of
``git ls-tree -r -z --full-tree <commit>`` must be ``repository_tree_sha256``. Without the option these checks are
reported in ``checks_run`` as not run, never as passed. Git is run with a fixed argument list (no shell), read-only.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from nerb_verify import context as C
from nerb_verify.checks.raw._access import dig
from nerb_verify.codes import register
from nerb_verify.context import VerifyContext

SOURCE_UNUSABLE = register(
    "capacity.source_repo_unusable", "The --source-repo path is not a usable git repository holding the commit.",
    "The source-repo mode needs a full-history clone of the publisher's repository that contains the measured "
    "commit. A shallow clone or another repository cannot confirm the attestation.")
SOURCE_MISMATCH = register(
    "capacity.source_repo_mismatch", "The publisher's repository contradicts the capacity attestation.",
    "Recomputed from git: the commit object's SHA-256, its root tree id, or the full-tree listing digest differs "
    "from what the attestation records.")

_HEX40 = re.compile(r"[0-9a-f]{40}")
TIMEOUT = 60


def _git(repo: str, *args: str) -> bytes | None:
    import subprocess  # only with --source-repo: a normal verify never loads it (issue 16, imports)

    try:
        proc = subprocess.run(["git", "-C", repo, *args], capture_output=True, timeout=TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def is_git_repository(path: str) -> bool:
    """Whether git recognises ``path`` as a repository (or a folder inside one): ``git -C PATH rev-parse --git-dir``
    succeeds. False when git itself cannot be run. The CLI asks this before verifying, so a mistyped
    ``--source-repo`` is a usage error rather than a finding about the bundle."""
    return _git(path, "rev-parse", "--git-dir") is not None


def run(ctx: VerifyContext, decision: dict[str, Any]) -> None:
    """Recompute the commit-object, root-tree and tree-listing hashes from ``ctx.options.source_repo``."""
    col = ctx.collector
    repo = str(ctx.options.source_repo)
    commit = dig(decision, "attestation", "executable_git_commit")
    if not isinstance(commit, str) or not _HEX40.fullmatch(commit):
        col.add(SOURCE_MISMATCH, C.CAPACITY_DECISION, "/attestation/executable_git_commit")
        return
    raw = _git(repo, "cat-file", "commit", commit)
    if raw is None:
        col.add(SOURCE_UNUSABLE, C.CAPACITY_DECISION, "/attestation/executable_git_commit")
        return
    header = b"commit " + str(len(raw)).encode() + b"\0"
    if hashlib.sha1(header + raw).hexdigest() != commit:
        col.add(SOURCE_MISMATCH, C.CAPACITY_DECISION, "/attestation/executable_git_commit")
    if "sha256:" + hashlib.sha256(raw).hexdigest() != dig(decision, "attestation", "commit_object_sha256"):
        col.add(SOURCE_MISMATCH, C.CAPACITY_DECISION, "/attestation/commit_object_sha256")
    first = raw.split(b"\n", 1)[0]
    tree = first[5:].decode("ascii", "replace") if first.startswith(b"tree ") else None
    if tree != dig(decision, "attestation", "root_tree_object_id"):
        col.add(SOURCE_MISMATCH, C.CAPACITY_DECISION, "/attestation/root_tree_object_id")
    listing = _git(repo, "ls-tree", "-r", "-z", "--full-tree", commit)
    if listing is None:
        col.add(SOURCE_UNUSABLE, C.CAPACITY_DECISION, "/attestation/repository_tree_sha256")
    elif "sha256:" + hashlib.sha256(listing).hexdigest() != dig(decision, "attestation", "repository_tree_sha256"):
        col.add(SOURCE_MISMATCH, C.CAPACITY_DECISION, "/attestation/repository_tree_sha256")
