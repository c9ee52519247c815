"""Machine-readable outputs of a run: SARIF 2.1.0, GitHub workflow commands, exit policy and the job summary.

Every renderer here works from :class:`nerb_verify.findings.Finding` objects (code, artifact path, JSON Pointer or
line/column, templated message) and the code registry, so no output can carry an input value that a finding does not.
"""

from __future__ import annotations

from nerb_verify.outputs.exit_policy import FAIL_ON_LEVELS, apply_exit_policy
from nerb_verify.outputs.render import FORMATS, render_findings

__all__ = ["FAIL_ON_LEVELS", "FORMATS", "apply_exit_policy", "render_findings"]
