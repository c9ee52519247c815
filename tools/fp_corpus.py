"""False-positive corpus for the privacy scanner: build a tree of real third-party text, report findings per MB.

Usage:

    python tools/fp_corpus.py build --out /tmp/fp-tree [--mb 36] [--per-package-mb 2.5] [--source SITE_PACKAGES]
    python tools/fp_corpus.py report /tmp/fp-tree [--labels labels.json] [--profile repository]

``build`` copies the ``.py``, ``.md``, ``METADATA``, ``.json``, ``.txt`` and ``.cfg`` files of the installed
packages (the running interpreter's site-packages unless ``--source``) into ``--out``, in sorted order, at most
``--per-package-mb`` from each top-level entry so one large package does not dominate, until ``--mb`` MB. The tree
is deterministic for one set of installed packages; it is never committed (third-party files).

``report`` scans the tree in process and prints JSON: size, findings by code, by class and per MB. A finding's
class comes from ``--labels`` (a JSON object mapping ``"<relative path>:<line>:<code>"``, or
``"<relative path>:<JSON pointer>:<code>"`` for a JSON finding, to a class name, written by hand after reading each
finding in the file: ``false_positive`` (not personal data, nor its shape), ``personal_address`` (a real person's
address or home folder), ``published_contact`` (a project's or a list's address), ``invented_identifier`` (a
placeholder or example in the shape of one), ``local_path`` (a real but impersonal local path in a file URI)) or, failing that, from a structural rule that needs no reading:
an address in a ``METADATA`` header (``Author-email``, ``Maintainer-email``) is ``published_contact``. Everything
else is ``unlabelled``. ``strict_false_positives_per_mb`` counts the class ``false_positive``. Like every scanner
output, the report names files, lines, columns and codes only, never the text that raised a finding.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import sysconfig
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nerb_verify.privacy.profiles import PROFILES  # noqa: E402
from nerb_verify.privacy.runner import scan_paths  # noqa: E402

KINDS = (".py", ".md", ".json", ".txt", ".cfg")
SKIP_PARTS = frozenset({"__pycache__"})
CLASSES = ("false_positive", "personal_address", "published_contact", "invented_identifier", "local_path",
           "unlabelled")
_METADATA_CONTACT = ("author-email:", "maintainer-email:")


def wanted(path: Path) -> bool:
    """Whether ``path`` is one of the text kinds the corpus is made of."""
    return path.name == "METADATA" or path.suffix in KINDS


def build(source: Path, out: Path, target_mb: float, per_package_mb: float) -> dict[str, int]:
    """Copy the corpus into ``out`` (see the module docstring); returns the file count and bytes copied."""
    total = files = 0
    for entry in sorted(source.iterdir()):
        if total >= target_mb * 1_000_000:
            break
        if entry.is_file():
            candidates = [entry] if wanted(entry) else []
        else:
            candidates = sorted(p for p in entry.rglob("*") if p.is_file() and not p.is_symlink() and wanted(p)
                                and not SKIP_PARTS.intersection(p.parts))
        taken = 0
        for path in candidates:
            size = path.stat().st_size
            if taken + size > per_package_mb * 1_000_000:
                continue
            target = out / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            taken += size
            files += 1
        total += taken
    return {"files": files, "bytes": total}


def _structural_class(tree: Path, artifact: str, line: int | None) -> str:
    """``published_contact`` for a finding on a METADATA ``Author-email``/``Maintainer-email`` header line, else
    ``unlabelled`` (the line is read but never printed)."""
    if line is None or not artifact.endswith("METADATA"):
        return "unlabelled"
    try:
        text = (tree / artifact).read_text(encoding="utf-8").split("\n")[line - 1]
    except (OSError, UnicodeDecodeError, IndexError):
        return "unlabelled"
    return "published_contact" if text.lower().startswith(_METADATA_CONTACT) else "unlabelled"


def report(tree: Path, labels: dict[str, str], profile_name: str) -> dict[str, object]:
    """Scan ``tree`` with the profile and count findings by code and class (see the module docstring)."""
    start = time.process_time_ns()
    result = scan_paths([str(tree)], PROFILES[profile_name])
    cpu_ns = time.process_time_ns() - start
    size = result.summary.bytes_scanned
    prefix = tree.as_posix().rstrip("/") + "/"
    by_code: dict[str, int] = {}
    by_class: dict[str, int] = dict.fromkeys(CLASSES, 0)
    rows: list[dict[str, object]] = []
    for finding in result.findings:
        if not finding.code.startswith("privacy."):
            continue
        artifact = finding.artifact.removeprefix(prefix)
        key = f"{artifact}:{finding.line if finding.line is not None else finding.pointer}:{finding.code}"
        label = labels.get(key) or _structural_class(tree, artifact, finding.line)
        by_code[finding.code] = by_code.get(finding.code, 0) + 1
        by_class[label] = by_class.get(label, 0) + 1
        rows.append({"place": key, "column": finding.column, "pointer": finding.pointer, "class": label})
    megabytes = size / 1_000_000
    return {
        "profile": profile_name, "files": result.summary.files_scanned, "bytes": size, "cpu_s": round(cpu_ns / 1e9, 3),
        "findings": len(rows), "by_code": dict(sorted(by_code.items())), "by_class": by_class,
        "findings_per_mb": round(len(rows) / megabytes, 3) if megabytes else None,
        "strict_false_positives_per_mb": round(by_class["false_positive"] / megabytes, 3) if megabytes else None,
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("build", help="copy a corpus of installed third-party text")
    make.add_argument("--out", type=Path, required=True)
    make.add_argument("--mb", type=float, default=36.0)
    make.add_argument("--per-package-mb", type=float, default=2.5)
    make.add_argument("--source", type=Path, default=Path(sysconfig.get_paths()["purelib"]))
    scan = commands.add_parser("report", help="scan a tree and report findings per MB by class")
    scan.add_argument("tree", type=Path)
    scan.add_argument("--labels", type=Path)
    scan.add_argument("--profile", default="repository", choices=sorted(PROFILES))
    args = parser.parse_args(argv)
    if args.command == "build":
        if args.out.exists() and any(args.out.iterdir()):
            parser.error("--out must be a new or empty folder")
        print(json.dumps(build(args.source, args.out, args.mb, args.per_package_mb)))
        return 0
    labels = json.loads(args.labels.read_text(encoding="utf-8")) if args.labels else {}
    print(json.dumps(report(args.tree, labels, args.profile), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
