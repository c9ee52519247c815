"""The privacy scanner's finding codes, complete whatever the caller has imported so far.

Codes are registered by the modules that raise them when those are imported (:mod:`nerb_verify.codes`). The verifier
imports the scanner only where a scan runs (with ``verify --jobs 2``, in a forked child: issue 16, speed), so a
process can hold findings or an allowlist entry naming a privacy code before any rule module was imported. Importing
this module imports every module that registers a code for a finding about scanned content; the runner's
``privacy.not_scanned`` (a path that could not be read) is not one, and it is never allowlisted.
"""

from __future__ import annotations

from nerb_verify import codes
from nerb_verify.privacy import engine, joined, json_scan, messages, text_scan  # noqa: F401  (register their codes)

NOT_ALLOWLISTED = frozenset({"privacy.not_scanned"})


def content_codes() -> frozenset[str]:
    """Every privacy code a scan of content can report (rules, JSON and text scans, joined views, truncation): the
    codes an allowlist entry may name."""
    return frozenset(code for code in codes.REGISTRY if code.startswith("privacy.") and code not in NOT_ALLOWLISTED)
