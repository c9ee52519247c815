"""Privacy family: the contract-profile scan of every parsed JSON artifact and the repository-profile scan of the
rendered text (summary.md and figures/*.svg). Runs last.

NERB contract-scans only the manifest, the evidence and the capacity decision; ``publication.json``,
``bank-card.json``, ``performance-report.json`` and the inventories get only a narrow, case-sensitive byte scan that
JSON escapes and fullwidth forms slip past (spec 30, C.2 and C.4). Here every JSON file of the bundle that loaded,
whether or not its schema passed, is scanned after decoding: every string value, every key, and identifier-length
integers in free-form fields. The rendered Markdown and SVG files get the ``rendered`` profile: the contract
profile's identifier rules, but not its "any absolute path" rule, which would reject a table cell such as
``142 / 1,393`` or a generic ``/tmp/...`` output directory in a reproduce command (C.3, C.5); a home directory, a
drive, a file URI or a share is still caught.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nerb_verify import context as C
from nerb_verify import memo
from nerb_verify.context import VerifyContext
from nerb_verify.display import safe_relpath
from nerb_verify.findings import Collector, Finding, Label

# The scanner itself (the engine, its rules, the JSON and text scans) is imported where a scan runs, not here: with
# ``verify --jobs 2`` the forked child computes every scan of this family (nerb_verify.prefork) and the parent, which
# imports this module to list those scans, finds their results in the memo and never needs the scanner unless
# something was found (issue 16, speed). The memo keys name the profiles by these constants; a test checks them
# against nerb_verify.privacy.profiles.
CONTRACT_NAME = "contract"
RENDERED_NAME = "rendered"
CONTRACT_PERMITS_GATE_TARGETS = True


def register_codes() -> None:
    """Import every module that registers a code this family can report (the rules, the JSON and text scans, the
    messages, the runner's ``privacy.not_scanned`` and the allowlist family's codes), so that findings computed in
    another process can be reported here."""
    from nerb_verify.privacy import allowlist, registry, runner  # noqa: F401


def _is_rendered_text(rel: str) -> bool:
    return rel == C.SUMMARY or (rel.startswith(C.FIGURES_DIR + "/") and rel.endswith(".svg"))


def bundle_names(ctx: VerifyContext) -> tuple[str, ...]:
    """Every entry of the bundle the names scan covers: regular files, and symbolic links or special files already
    reported as unusable, sorted."""
    return tuple(sorted(set(ctx.files) | set(ctx.shared.get("bundle.unusable", ()))))


def _names_key(names: tuple[str, ...]) -> tuple[Any, ...]:
    return ("privacy.names", CONTRACT_NAME, names)


def _scan_names(names: tuple[str, ...], collector: Collector) -> int:
    """Scan every path component of every entry in ``names`` with the contract profile: a file or folder named after
    a person is a finding at that name, shown as ``@name:<index>``."""
    from nerb_verify.privacy import messages
    from nerb_verify.privacy.engine import scan_string
    from nerb_verify.privacy.profiles import CONTRACT

    seen: set[str] = set()
    added = 0
    for rel in names:
        parts = rel.split("/")
        for index, part in enumerate(parts):
            prefix = "/".join(parts[: index + 1])
            if prefix in seen:
                continue
            seen.add(prefix)
            for code in sorted(scan_string(part, CONTRACT)):
                messages.add(collector, code, safe_relpath(prefix), "", messages.NAME, CONTRACT.name)
                added += 1
    return added


def _reads_pointer_root(document: Any) -> bool:
    """Whether the contract scan of ``document`` may read the evidence (``pointer_root``): only a document with a
    top-level ``promotion`` object can hold a ``/promotion/checks/N/target`` gate target, the one place
    :func:`scan_json` resolves a string into the evidence. A superset of the real condition, so a memo key that
    includes the evidence's hash whenever this holds never serves a result computed against other evidence."""
    return isinstance(document, dict) and "promotion" in document


Scan = Callable[[Collector], int]


def _scan_jobs(ctx: VerifyContext) -> tuple[list[tuple[tuple[Any, ...] | None, Scan, int]], int, int]:
    """Every scan of the family, in the order the family appends their findings: ``(memo key or None, scan, its
    size)`` for each loaded JSON artifact (contract profile; size in bytes), then for summary.md and each figure
    (rendered profile), then the scan of every entry's name (size: the number of entries); with the number of JSON
    and text files.

    Each file's findings are a pure function of its raw bytes, the profile, its name and (for a document that can
    hold gate targets) the evidence's raw bytes, so they are memoised under those (:mod:`nerb_verify.memo`); the
    names scan is a pure function of the sorted entry names, its key."""
    evidence = ctx.loaded.get(C.EVIDENCE)
    evidence_digest = _digest(ctx, C.EVIDENCE) if evidence is not None else "absent"
    jobs: list[tuple[tuple[Any, ...] | None, Scan, int]] = []
    json_files = 0
    text_files = 0
    for rel in sorted(ctx.loaded):
        document, digest = ctx.loaded[rel], _digest(ctx, rel)
        root_digest = evidence_digest if CONTRACT_PERMITS_GATE_TARGETS and _reads_pointer_root(document) else ""
        # The shown name is a function of ``rel`` (safe_relpath), so ``rel`` keys it; it is computed where the scan
        # runs, since deciding whether a name is personal data takes the scanner.
        key = ("privacy.json", digest, CONTRACT_NAME, rel, root_digest) if digest and evidence_digest else None
        jobs.append((key, lambda collector, document=document, rel=rel: _scan_document(
            document, collector, safe_relpath(rel), evidence), _size(ctx, rel)))
        json_files += 1
    for rel in sorted(ctx.files):
        loaded = ctx.files[rel]
        text = getattr(loaded, "text", None)
        if _is_rendered_text(rel) and isinstance(text, str):
            digest = _digest(ctx, rel)
            key = ("privacy.text", digest, RENDERED_NAME, rel) if digest else None
            jobs.append((key, lambda collector, text=text, rel=rel: _scan_rendered(
                text, collector, safe_relpath(rel)), _size(ctx, rel)))
            text_files += 1
    names = bundle_names(ctx)
    jobs.append((_names_key(names), lambda collector, names=names: _scan_names(names, collector), len(names)))
    return jobs, json_files, text_files


def _scan_document(document: Any, collector: Collector, shown: str, evidence: Any) -> int:
    from nerb_verify.privacy.json_scan import scan_json
    from nerb_verify.privacy.profiles import CONTRACT

    return scan_json(document, CONTRACT, collector, shown, pointer_root=evidence)


def _scan_rendered(text: str, collector: Collector, shown: str) -> int:
    from nerb_verify.privacy.profiles import RENDERED
    from nerb_verify.privacy.text_scan import scan_text

    return scan_text(text, RENDERED, collector, shown)


def _isolated(scan: Scan) -> Callable[[], tuple[int, tuple[Finding, ...]]]:
    """``scan`` run into a fresh collector: its count and its (frozen) findings, the value the memo keeps."""

    def compute() -> tuple[int, tuple[Finding, ...]]:
        fresh = Collector()
        count = scan(fresh)
        return count, tuple(fresh.findings)

    return compute


def memo_jobs(ctx: VerifyContext) -> list[tuple[tuple[Any, ...], Callable[[], tuple[int, tuple[Finding, ...]]], int]]:
    """The family's memoisable scans as ``(key, compute, size)`` triples (size: the file's bytes, a proxy of its
    cost), for :mod:`nerb_verify.prefork` to compute in a child process ahead of the family; :func:`run` then finds
    their values under the same keys."""
    jobs, _, _ = _scan_jobs(ctx)
    return [(key, _isolated(scan), size) for key, scan, size in jobs if key is not None]


def _memo_scan(ctx: VerifyContext, key: tuple[Any, ...] | None, scan: Scan) -> int:
    """Run ``scan`` into ``ctx.collector``, memoised under ``key`` (None: not memoisable, run it directly).

    The scan writes into a fresh collector; its findings (frozen) are kept as a tuple and appended, in order, to
    ``ctx.collector`` on every run, exactly as a direct scan would append them."""
    if key is None:
        return scan(ctx.collector)
    count, found = memo.cached(key, _isolated(scan))
    if found:
        register_codes()  # computed in another process: this one may not have imported the rules yet
    ctx.collector.findings.extend(found)
    return count


def _digest(ctx: VerifyContext, rel: str) -> str:
    return getattr(ctx.files.get(rel), "sha256", "") or ""


def _size(ctx: VerifyContext, rel: str) -> int:
    return int(getattr(ctx.files.get(rel), "size", 0) or 0)


def run(ctx: VerifyContext) -> None:
    """Scan every loaded JSON artifact (contract profile), summary/figures text (rendered profile) and every path
    component of the bundle (contract profile), memoised per file and for the names (:func:`_scan_jobs`)."""
    jobs, json_files, text_files = _scan_jobs(ctx)
    findings = 0
    for key, scan, _ in jobs:
        findings += _memo_scan(ctx, key, scan)
    if json_files == 0 and text_files == 0:
        ctx.collector.ran("privacy", "not_evaluated", reason=Label("no artifact could be loaded"))
        return
    ctx.collector.ran("privacy", json_files=json_files, text_files=text_files, findings=findings)
