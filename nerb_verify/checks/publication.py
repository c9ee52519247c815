"""Placeholder for the publication check family: reports itself as not implemented so coverage stays visible."""

from __future__ import annotations

from nerb_verify.context import VerifyContext


def run(ctx: VerifyContext) -> None:
    """Not implemented yet: recorded in checks_run so a report never implies this family passed."""
    ctx.collector.ran("publication", "not_implemented")
