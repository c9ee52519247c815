"""Privacy rules, one module per family (e-mail, SSN, phone, paths). Each module registers its finding codes and
exposes ``RULES``: a tuple of :class:`~nerb_verify.privacy.rules.base.Rule`. Profiles (``profiles.py``) pick rules by
name; the engine (``engine.py``) runs them on normalised text."""

from __future__ import annotations

from nerb_verify.privacy.rules import email, paths, phone, ssn
from nerb_verify.privacy.rules.base import Rule

ALL_RULES: dict[str, Rule] = {rule.name: rule for module in (email, ssn, phone, paths) for rule in module.RULES}
