"""Machine-readable outputs of a run: SARIF 2.1.0, GitHub workflow commands, exit policy and the job summary.

Every renderer here works from :class:`nerb_verify.findings.Finding` objects (code, artifact path, JSON Pointer or
line/column, templated message) and the code registry, so no output can carry an input value that a finding does not.

Modules: ``render`` (``render_findings``, the entry point for ``verify`` and ``scan``), ``sarif``, ``github``,
``locations`` (repository-relative paths), ``exit_policy`` (``--fail-on``, ``--exit-zero``) and ``job_summary`` (the
GitHub Action's summary). Nothing is imported here, so ``python -m nerb_verify.outputs.<module>`` runs cleanly.
"""
