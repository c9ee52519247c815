"""``nerb-verify retention status|purge|encrypt|decrypt``: report and enforce the private root's retention record.

* ``status [--private-root .nerb] [--now TS] [--format text|json]``: the policy hash, owner and purpose, counts per
  state and every artifact that needs action (due, missing, unrecorded), by path relative to the root. Exit 0 when
  nothing is due, missing or unrecorded, 1 otherwise, 2 when there is no readable record.
* ``purge [--private-root .nerb] [--now TS] [--dry-run]``: delete every artifact whose deadline has passed and record
  the outcome. Exit 0 when every due artifact is gone, 1 when a deletion failed, 2 when there is no readable record.
* ``encrypt`` / ``decrypt [--private-root .nerb] [--key-file F]`` (key else from ``NERB_RETENTION_KEY``): AES-256-GCM
  at rest (the ``encryption`` extra). The key is never printed.

Output names only paths under the private root that our producers chose, counts, states and the policy hash.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ACTION_STATES = ("due", "missing", "unrecorded", "unencrypted")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="retention_command", metavar="ACTION")
    for name, help_text in (("status", "report every recorded artifact's retention state"),
                            ("purge", "delete every artifact past its retention deadline and record the outcome"),
                            ("encrypt", "encrypt recorded artifacts at rest (AES-256-GCM, the encryption extra)"),
                            ("decrypt", "decrypt recorded artifacts before a producer reads them again")):
        action = sub.add_parser(name, help=help_text, description=help_text)
        action.add_argument("--private-root", type=Path, default=Path(".nerb"), help="private root (default .nerb)")
        if name in ("status", "purge"):
            action.add_argument("--now", help="evaluate deadlines at this ISO 8601 time (default: now)")
        if name == "status":
            action.add_argument("--format", choices=["text", "json"], default="text")
        if name == "purge":
            action.add_argument("--dry-run", action="store_true", help="report what would be deleted; change nothing")
        if name in ("encrypt", "decrypt"):
            action.add_argument("--key-file", type=Path, help="32-byte key file (or 64 hex digits); default: the "
                                                               "NERB_RETENTION_KEY environment variable")


def run(args: argparse.Namespace) -> int:
    from nerb_verify.producers import retention

    command = getattr(args, "retention_command", None)
    if command is None:
        sys.stderr.write("nerb-verify retention: choose an action: status, purge, encrypt or decrypt.\n")
        return 2
    try:
        now = retention.parse_time(args.now) if getattr(args, "now", None) else None
        if command == "status":
            return _status(retention.status(args.private_root, now=now), args.format)
        if command == "purge":
            return _purge(retention.purge(args.private_root, now=now, dry_run=args.dry_run), args.dry_run)
        from nerb_verify.producers import retention_crypto

        key = retention_crypto.load_key(args.key_file)
        done = (retention_crypto.encrypt_root if command == "encrypt" else retention_crypto.decrypt_root)(
            args.private_root, key)
        sys.stdout.write(f"{command}ed {len(done)} artifact(s)\n")
        return 0
    except retention.RetentionError as exc:
        sys.stderr.write(f"nerb-verify retention {command}: {exc}; nothing was changed by this command's failed "
                         "step.\n")
        return 2


def _status(report, output_format: str) -> int:  # type: ignore[no-untyped-def]
    counts = report.counts()
    action = [item for item in report.states if item.state in ACTION_STATES]
    if output_format == "json":
        sys.stdout.write(json.dumps({
            "policy_sha256": report.policy_sha256, "owner": report.owner, "purpose": report.purpose,
            "counts": counts, "in_order": report.in_order,
            "artifacts": [{"path": i.path, "state": i.state, "retain_until": i.retain_until, "class": i.klass}
                          for i in report.states]}, sort_keys=True) + "\n")
    else:
        lines = [f"retention policy {report.policy_sha256}", f"owner: {report.owner}; purpose: {report.purpose}",
                 ", ".join(f"{name} {count}" for name, count in counts.items())]
        lines += [f"  {item.state:<10} {item.path}" + (f" (deadline {item.retain_until})" if item.retain_until
                                                         else "") for item in action]
        lines.append("in order" if report.in_order else "action needed: run `nerb-verify retention purge` for due "
                     "artifacts, `retention encrypt` for unencrypted ones; missing or unrecorded artifacts mean "
                     "the record and the private root disagree")
        sys.stdout.write("\n".join(lines) + "\n")
    return 0 if report.in_order else 1


def _purge(report, dry_run: bool) -> int:  # type: ignore[no-untyped-def]
    tally: dict[str, int] = {}
    for outcome in report.outcomes.values():
        tally[outcome.split(":")[0]] = tally.get(outcome.split(":")[0], 0) + 1
    summary = ", ".join(f"{name} {count}" for name, count in sorted(tally.items())) or "nothing due"
    sys.stdout.write(("dry run: " if dry_run else "") + summary + "\n")
    for path in report.failed:
        sys.stdout.write(f"  failed     {path} ({report.outcomes[path].split(':', 1)[1]})\n")
    return 1 if report.failed else 0
