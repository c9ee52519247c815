"""``nerb-verify allowlist add|check``: write or validate the privacy allowlist.

``add`` is the only writer of the allowlist file (the scan and the pre-commit hook only read it)::

    nerb-verify allowlist add --path data/x.json --pointer /rows/0/@key:1 --code privacy.phone \\
        --justification "Synthetic number kept to test the detector."
    nerb-verify allowlist add --path docs/guide.md --line 42 --code privacy.personal_path --justification "..."
    nerb-verify allowlist add --path tests/corpus.txt --whole-file --code privacy.email --justification "..."

Paths are stored relative to the allowlist file's folder, in POSIX form. The file is rewritten sorted, so a review
sees a one-line diff. ``check`` validates the file and exits 1 on any problem. Exit 2: the file cannot be written.

Both say what they did on stdout: ``add`` the code, location, file and allowlist it added (and the entry count),
``check`` the entry count per code. Never the justification, and never a hand-typed path component or pointer that
does not have the scanner's own shape (it could hold the very value): those are shown as ``@name:<index>`` and
"a JSON pointer". The allowlist file is shown relative to the current folder, or by its name when outside it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

import regex

from nerb_verify import pointers
from nerb_verify.display import safe_relpath
from nerb_verify.findings import Collector
from nerb_verify.outputs.locations import PathBase
from nerb_verify.privacy import allowlist as allowlist_file

# A pointer segment the scanner itself prints: an index, a key position, or a key of the schema vocabulary.
_SAFE_SEGMENT = regex.compile(r"[0-9]+|@key:[0-9]+|@name:[0-9]+")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="add one justified entry (creates the file if needed)")
    add.add_argument("--allowlist", metavar="FILE", default=allowlist_file.DEFAULT_NAME,
                     help=f"allowlist file (default: {allowlist_file.DEFAULT_NAME})")
    add.add_argument("--path", required=True, help="the file the finding is in, as the scan printed it")
    where = add.add_mutually_exclusive_group(required=True)
    where.add_argument("--pointer", help="JSON pointer of the finding, as the scan printed it")
    where.add_argument("--line", type=int, help="line number of the finding")
    where.add_argument("--whole-file", action="store_true", help="every finding of this code in the file")
    add.add_argument("--code", required=True, help="the privacy finding code")
    add.add_argument("--justification", required=True, help="why this location is not personal data")
    check = sub.add_parser("check", help="validate an allowlist file")
    check.add_argument("--allowlist", metavar="FILE", default=allowlist_file.DEFAULT_NAME)


def _report(collector: Collector) -> None:
    for finding in collector.sorted_findings():
        sys.stderr.write(f"{finding.artifact}#{finding.pointer}: {finding.severity} {finding.code}: "
                         f"{finding.message}\n")


def _file_shown(path: Path) -> str:
    """The allowlist file relative to the current folder (its name when outside), personal components masked."""
    return safe_relpath(PathBase.for_target(None).display(str(path)))


def _pointer_shown(pointer: str) -> str:
    """``JSON pointer /a/0`` when every segment has the scanner's own shape, else ``a JSON pointer``."""
    segments = pointer.split("/")[1:]
    keys = pointers.known_keys()
    if all(_SAFE_SEGMENT.fullmatch(part) or part in keys for part in segments):
        return f"JSON pointer {pointer}"
    return "a JSON pointer"


def _location_shown(entry: allowlist_file.Entry) -> str:
    if entry.location == "file":
        return "anywhere in"
    if entry.location.startswith("line:"):
        return f"at line {entry.location[len('line:'):]} of"
    return f"at {_pointer_shown(entry.location[len('pointer:'):])} of"


def _entries(count: int) -> str:
    return f"{count} entry" if count == 1 else f"{count} entries"


def _check(path: Path, collector: Collector) -> int:
    """Validate the allowlist; say on stdout how many entries of which codes it holds, or on stderr what is wrong."""
    loaded = allowlist_file.load(path, collector)
    _report(collector)
    if loaded is None or collector.findings:
        sys.stderr.write(f"nerb-verify allowlist check: {_file_shown(path)} has {len(collector.findings)} "
                         "problem(s); fix them before relying on it.\n")
        return 1
    per_code = Counter(entry.code for entry in loaded.entries)
    detail = ", ".join(f"{code} {per_code[code]}" for code in sorted(per_code))
    sys.stdout.write(f"nerb-verify allowlist check: {_file_shown(path)} is valid: {_entries(len(loaded.entries))}"
                     f"{' (' + detail + ')' if detail else ''}.\n")
    return 0


def _write_atomic(path: Path, data: bytes) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    handle, temporary = tempfile.mkstemp(prefix=".allowlist-", dir=folder)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def run(args: argparse.Namespace) -> int:
    path = Path(args.allowlist)
    collector = Collector()
    if args.action == "check":
        return _check(path, collector)
    entries: list[allowlist_file.Entry] = []
    if path.exists() or path.is_symlink():
        loaded = allowlist_file.load(path, collector)
        if loaded is None or collector.has_errors():
            _report(collector)
            sys.stderr.write("nerb-verify: fix the allowlist file before adding to it.\n")
            return 1
        entries = loaded.entries
    relative = allowlist_file.relative_to_base(args.path, path.parent if str(path.parent) else Path("."))
    if args.whole_file:
        location: dict[str, str] = {"anchor": "file"}
    elif args.line is not None:
        location = {"anchor": f"line:{args.line}"}
    else:
        location = {"pointer": args.pointer}
    raw = {"path": relative, "code": args.code, "justification": args.justification, **location}
    new = allowlist_file.parse_entries({"version": 1, "entries": [raw]}, collector, str(path))
    if relative is None or not new or collector.findings:
        _report(collector)
        sys.stderr.write("nerb-verify: the entry was not added (path outside the allowlist's folder, unknown code, "
                         "bad location or justification too short).\n")
        return 1
    if any((e.path, e.location, e.code) == (new[0].path, new[0].location, new[0].code) for e in entries):
        sys.stderr.write("nerb-verify: an entry for this location and code already exists.\n")
        return 0
    try:
        _write_atomic(path, allowlist_file.dump(entries + new))
    except OSError:
        sys.stderr.write("nerb-verify: the allowlist file could not be written.\n")
        return 2
    entry = new[0]
    sys.stdout.write(f"nerb-verify allowlist add: added {entry.code} {_location_shown(entry)} "
                     f"{safe_relpath(entry.path)} to {_file_shown(path)} ({_entries(len(entries) + 1)} in all).\n")
    return 0
