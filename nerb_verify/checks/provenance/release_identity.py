"""Release identity: a real benchmark names the commit it was measured at, never a placeholder.

NERB refuses an all-zero ``software.git_commit`` on a ``real_benchmark`` (spec 10 section 1.1,
``contract.placeholder_release_identity``). We apply the same rule more widely, because a placeholder anywhere breaks
the chain from published numbers back to the code that produced them: when the manifest or the evidence declares
``artifact_kind: real_benchmark``, every commit field of every JSON artifact of the bundle (``git_commit``,
``measurement_git_commit``, ``executable_git_commit``, ``frozen_git_commit``, wherever they occur) must be a
plausible git object name:

* 40 characters (a SHA-1 object name; the contract's pattern), lowercase hexadecimal;
* not one character repeated 40 times (forty zeros is the usual fallback of a producer run outside a checkout; any
  repeated digit is just as clearly not a commit).

Wrong length and non-hex are also schema errors; they are reported here too because the schema finding alone does
not say that a real run lost its release identity, and this check reads the parsed artifacts whether or not their
schema passed (``ctx.loaded``), so it still runs when the schema rejected the very field. A ``synthetic_fixture`` is
test data and may carry any commit (the contract's kind for synthetic runs). Messages carry the rule, never the value.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from typing import Any

from nerb_verify.codes import register
from nerb_verify.context import EVIDENCE, JSON_ARTIFACTS, MANIFEST, VerifyContext
from nerb_verify.findings import Label
from nerb_verify.pointers import safe_pointer

FAMILY = "manifest"
REAL_KIND = "real_benchmark"
SYNTHETIC_KIND = "synthetic_fixture"
COMMIT_FIELDS = frozenset({"git_commit", "measurement_git_commit", "executable_git_commit", "frozen_git_commit"})
COMMIT_LENGTH = 40
HEX_DIGITS = frozenset("0123456789abcdef")

PLACEHOLDER_RELEASE_IDENTITY = register(
    "manifest.placeholder_release_identity",
    "A real benchmark's commit is a placeholder or not a commit.",
    "When the manifest or the evidence says artifact_kind real_benchmark, every commit field of the bundle "
    "(software.git_commit, the frozen target's and lineage's git_commit, the publication's measurement_git_commit, "
    "the capacity decision's executable_git_commit) must be 40 lowercase hexadecimal characters and not one "
    "character repeated (forty zeros is what a producer writes when it runs outside a git checkout). The message "
    "names the rule broken (not_a_string, wrong_length, not_lowercase_hex, all_zero, repeated_digit). Fix: measure "
    "from a git checkout and record its HEAD commit, or declare the run a synthetic_fixture.")


def commit_problem(value: Any) -> str | None:
    """The rule a commit value breaks (``None`` when it is a plausible 40-hex object name)."""
    if not isinstance(value, str):
        return "not_a_string"
    if len(value) != COMMIT_LENGTH:
        return "wrong_length"
    if not set(value) <= HEX_DIGITS:
        return "not_lowercase_hex"
    if len(set(value)) == 1:
        return "all_zero" if value[0] == "0" else "repeated_digit"
    return None


def declares_real(ctx: VerifyContext) -> bool | None:
    """True when the manifest or the evidence (as loaded) says ``real_benchmark``; None when neither loaded."""
    kinds = [doc.get("artifact_kind") for doc in (ctx.loaded.get(MANIFEST), ctx.loaded.get(EVIDENCE))
             if isinstance(doc, dict)]
    if not kinds:
        return None
    return REAL_KIND in kinds


def _path(link: tuple[Any, str | int] | None) -> list[str | int]:
    """The path a chain of (parent link, key or index) pairs spells, root first."""
    parts: list[str | int] = []
    while link is not None:
        link, part = link
        parts.append(part)
    return parts[::-1]


def commit_fields(document: Any) -> Iterator[tuple[list[str | int], Any]]:
    """Every (path, value) of a commit field in ``document``; lists of scalars are not descended into.

    Each container on the stack carries its path as a link to its parent's (one pair, not a copy of the whole
    path); a path is spelled out only for a commit field found."""
    stack: list[tuple[Any, tuple[Any, str | int] | None]] = [(document, None)]
    while stack:
        node, link = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in COMMIT_FIELDS:
                    yield [*_path(link), key], value
                elif isinstance(value, (dict, list)):
                    stack.append((value, (link, key)))
        elif isinstance(node, list) and node and isinstance(node[0], (dict, list)):
            if _flat_records_without_commits(node):
                continue
            stack.extend((value, (link, index)) for index, value in enumerate(node)
                         if isinstance(value, (dict, list)))


def _flat_records_without_commits(node: list[Any]) -> bool:
    """A list of plain objects whose keys include no commit field and whose values are all scalars (the capacity
    report's thousands of sample records): nothing below it to find or descend into, told in C-level passes."""
    if set(map(type, node)) != {dict}:
        return False
    if not COMMIT_FIELDS.isdisjoint(set().union(*node)):
        return False
    kinds = set(map(type, chain.from_iterable(map(dict.values, node))))
    return not any(issubclass(kind, (dict, list)) for kind in kinds)


def run(ctx: VerifyContext) -> None:
    """Reject a placeholder or malformed commit anywhere in a bundle whose manifest or evidence is real."""
    real = declares_real(ctx)
    if real is None:
        ctx.shared["manifest.release_identity"] = {"status": "not_evaluated"}
        return
    checked = 0
    bad = 0
    if real:
        for rel in JSON_ARTIFACTS:
            document = ctx.loaded.get(rel)
            if document is None:
                continue
            for path, value in sorted(commit_fields(document), key=lambda item: [str(p) for p in item[0]]):
                checked += 1
                problem = commit_problem(value)
                if problem is not None:
                    bad += 1
                    ctx.collector.add(PLACEHOLDER_RELEASE_IDENTITY, rel, safe_pointer(document, path),
                                      "A real benchmark's commit field breaks the release-identity rule {rule}.",
                                      rule=Label(problem))
    ctx.shared["manifest.release_identity"] = {"status": "ran", "real": real, "commits": checked, "rejected": bad}
