"""The scan profiles, as data: which rules run, and the budgets. One engine runs all three.

``contract`` is the charter's strict scan for public JSON evidence: any at-sign, every SSN/phone shape, any absolute
local path, identifier-length JSON numbers in free-form fields. ``repository`` is for a repository's source, docs and
data: e-mail grammar instead of any at-sign (so ``@pytest.fixture`` and ``@types/x`` pass), plausible SSN/phone shapes,
and only the local paths that reveal a person or a private location (``/tmp/out`` and ``/usr/bin`` pass).
``rendered`` is for a bundle's rendered text (summary.md, figures/*.svg); the contract profile hands Markdown and SVG
files to it (:func:`for_text_file`).
"""

from __future__ import annotations

import functools

from nerb_verify.frozen import Frozen
from nerb_verify.privacy.rules import ALL_RULES
from nerb_verify.privacy.rules.base import Rule

_BOTH = (
    "email.spelled",
    "ssn.context",
    "path.home", "path.root_home", "path.tilde_user", "path.share_uri", "path.traversal_evasion",
)
# The contract and rendered profiles' strict forms of rules the repository profile narrows for real-text false
# positives (issue 17: DOIs, runs of ids, ``~name`` web pages, escape runs in source code).
_STRICT_SHAPES = ("phone.double_zero", "phone.trunk", "phone.pairs", "path.tilde_user_in_url", "path.unc",
                  "path.unc_slash")


class Profile(Frozen):
    """A named selection of rules plus budgets. ``flag_numbers``: JSON integers of 9-15 digits in free-form fields
    are identifiers. ``permit_gate_targets``: a ``/promotion/checks/N/target`` string that resolves into the
    evidence skips the path rules (identifier rules still apply). An immutable value
    (:class:`~nerb_verify.frozen.Frozen`; ``profile._replace(max_chars=...)`` is a changed copy, which is
    not the registered profile of its name)."""

    __slots__ = ("name", "rule_names", "flag_numbers", "permit_gate_targets", "rendered_text", "max_rounds",
                 "max_chars", "max_url_depth", "max_url_payloads")

    name: str
    rule_names: tuple[str, ...]
    flag_numbers: bool
    permit_gate_targets: bool
    # The profile that text files of a rendered kind (RENDERED_SUFFIXES) are scanned with instead, or None.
    rendered_text: str | None
    max_rounds: int
    max_chars: int
    max_url_depth: int
    max_url_payloads: int

    def __init__(self, name: str, rule_names: tuple[str, ...], flag_numbers: bool, permit_gate_targets: bool,
                 rendered_text: str | None = None, max_rounds: int = 8, max_chars: int = 16384,
                 max_url_depth: int = 4, max_url_payloads: int = 256) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "rule_names", rule_names)
        object.__setattr__(self, "flag_numbers", flag_numbers)
        object.__setattr__(self, "permit_gate_targets", permit_gate_targets)
        object.__setattr__(self, "rendered_text", rendered_text)
        object.__setattr__(self, "max_rounds", max_rounds)
        object.__setattr__(self, "max_chars", max_chars)
        object.__setattr__(self, "max_url_depth", max_url_depth)
        object.__setattr__(self, "max_url_payloads", max_url_payloads)

    @property
    def rules(self) -> tuple[Rule, ...]:
        return _rules(self.rule_names)


@functools.lru_cache(maxsize=32)
def _rules(names: tuple[str, ...]) -> tuple[Rule, ...]:
    return tuple(ALL_RULES[name] for name in names)


# The strict identifier rules: any at-sign, every address, every SSN and phone shape.
_STRICT_IDENTIFIERS = (
    "email.address", "email.spelled_plain", "email.spelled_letter_a", "email.at_sign", "email.document_id",
    "ssn.shape", "ssn.spaced_digits",
    "phone.international", "phone.context", "phone.north_american", "phone.compact", "phone.grouped",
    "phone.spaced_digits", "phone.e164_bare", "phone.national", "phone.national_compact",
)

# The strict SSN and phone rules, which also read the odd-separator view (``separator_view.py``).
STRICT_NUMBER_RULES = frozenset(name for name in _STRICT_SHAPES + _STRICT_IDENTIFIERS
                                if name.startswith(("ssn.", "phone.")))

CONTRACT = Profile(
    name="contract",
    rule_names=_BOTH + _STRICT_SHAPES + _STRICT_IDENTIFIERS + (
        "path.file_uri_any", "path.posix_absolute", "path.drive", "path.rooted_backslash", "path.home_shorthand",
        "path.option_attached", "path.relative_home", "path.traversal",
    ),
    flag_numbers=True,
    permit_gate_targets=True,
    rendered_text="rendered",
)

REPOSITORY = Profile(
    name="repository",
    rule_names=_BOTH + ("email.address_public", "ssn.issuable_shape", "phone.international_public",
                        "phone.context_public", "phone.north_american_plausible", "path.file_uri",
                        "ssn.spaced_digits_issuable", "phone.grouped_public", "phone.spaced_digits_public",
                        "phone.compact_in_url", "phone.double_zero_public", "phone.trunk_public",
                        "phone.pairs_public", "path.unc_public", "path.traversal_escaped"),
    flag_numbers=False,
    permit_gate_targets=False,
)

# The rendered text of a bundle (summary.md, figures/*.svg): every identifier rule of the contract profile (any at-sign,
# every address, spelled-out addresses, every SSN and phone shape), but the path rules of a document that may quote a
# reproduce command: a generic output directory such as /tmp/x passes, a home folder, a drive, `~/`, a file URI or a
# share does not.
RENDERED = Profile(
    name="rendered",
    rule_names=_BOTH + _STRICT_SHAPES + _STRICT_IDENTIFIERS + (
        "path.file_uri_any", "path.drive", "path.home_shorthand", "path.relative_home", "path.traversal",
    ),
    flag_numbers=False,
    permit_gate_targets=False,
)

PROFILES: dict[str, Profile] = {CONTRACT.name: CONTRACT, REPOSITORY.name: REPOSITORY, RENDERED.name: RENDERED}

# Rendered text: the file kinds a bundle renders (summary.md, figures/*.svg). Under the contract profile they get the
# rendered profile, as the privacy family of ``verify`` does, so ``scan --profile contract`` on a bundle agrees with
# ``verify`` on it.
RENDERED_SUFFIXES = (".md", ".svg")


def for_text_file(profile: Profile, name: str) -> Profile:
    """The profile a text file named ``name`` is scanned with: ``profile.rendered_text`` for a Markdown or SVG file
    when the profile names one (contract: rendered), else ``profile`` itself. JSON, file names and link targets
    always keep ``profile``."""
    if profile.rendered_text is not None and name.lower().endswith(RENDERED_SUFFIXES):
        return PROFILES[profile.rendered_text]
    return profile
