"""Turn a verifier exit code into the process exit code under ``--fail-on`` and ``--exit-zero``.

Exit codes (spec 00 decision 6): 0 verified, 1 rejected, 2 could not verify, 3 verified but a required eligibility
does not hold. The policy may make a run *stricter* (``--fail-on warning`` turns a clean run with warnings into 1)
or, with ``--exit-zero``, report-only (0), but a run that could not complete is never turned into a success: any code
other than 0, 1 or 3 (2, an internal error, an interrupt) is returned unchanged, because an upload-only job must not
hide that nothing was checked.
"""

from __future__ import annotations

from collections.abc import Iterable

from nerb_verify.findings import Finding

FAIL_ON_LEVELS = ("error", "warning")

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_INCOMPLETE = 2
EXIT_INELIGIBLE = 3

# Codes that mean "the run completed and reached a verdict"; everything else means it could not complete.
COMPLETED_CODES = frozenset({EXIT_OK, EXIT_FINDINGS, EXIT_INELIGIBLE})


def completed(exit_code: int) -> bool:
    """Whether ``exit_code`` says the run completed (verified, rejected or ineligible), as opposed to could-not-run."""
    return exit_code in COMPLETED_CODES


def apply_exit_policy(exit_code: int, severities: Iterable[str], *, fail_on: str = "error",
                      exit_zero: bool = False) -> int:
    """The process exit code for a run that produced ``exit_code`` and findings of the given ``severities``.

    * ``fail_on="warning"``: a run that would exit 0 exits 1 when any finding has severity ``warning`` (or worse).
    * ``exit_zero``: a completed run exits 0 whatever it found; an incomplete run keeps its code.
    """
    if fail_on not in FAIL_ON_LEVELS:
        raise ValueError("fail_on must be 'error' or 'warning'")
    if not completed(exit_code):
        return exit_code
    code = exit_code
    if code == EXIT_OK and fail_on == "warning" and any(s in ("error", "warning") for s in severities):
        code = EXIT_FINDINGS
    return EXIT_OK if exit_zero else code


def severities_of(findings: Iterable[Finding]) -> list[str]:
    """The registered severity of each finding (the registry decides, never the input)."""
    return [f.severity for f in findings]


def worst_exit_code(codes: Iterable[int]) -> int:
    """Combine several runs' exit codes into one: could-not-run beats rejected beats ineligible beats verified.

    An empty set of runs is not a success: it yields 2 (nothing was checked).
    """
    values = list(codes)
    if not values:
        return EXIT_INCOMPLETE
    incomplete = [c for c in values if not completed(c)]
    if incomplete:
        return EXIT_INCOMPLETE if EXIT_INCOMPLETE in incomplete else max(incomplete)
    for code in (EXIT_FINDINGS, EXIT_INELIGIBLE):
        if code in values:
            return code
    return EXIT_OK
