"""Every finding code the tool can emit: importing this module imports every module that registers codes.

:mod:`nerb_verify.codes` is the registry itself and imports nothing of the package, so that every check module can
import it without a cycle. The modules that register codes are named here, once: the verifier (which imports every
check family, the bundle reader, the strict loader and the layout check), the privacy scanner (rules, JSON scan,
allowlist, runner) and the decision-scope report. ``contract_tests/test_docs_and_codes.py`` checks that every module
calling ``register`` is reached from here.
"""

from __future__ import annotations

from nerb_verify import codes, decision_scope, families, layout, verify  # noqa: F401  (imported to register codes)
from nerb_verify.privacy import allowlist, engine, json_scan, messages, registry, runner  # noqa: F401
from nerb_verify.privacy.rules import email, paths, phone, ssn  # noqa: F401


def all_codes() -> list[codes.CodeInfo]:
    """Every registered code, sorted by family then code (list-codes, explain, SARIF rules, the docs tests)."""
    return codes.registered_codes()
