"""Synthetic conformance cases for every active pattern, their scoring, and the ``catalog_conformance`` section.

What it proves (spec 50 §6, charter "Coverage, Conformance, And Recall"): every approved pattern is found, mapped to
its own canonical identity, in the situations the declared semantics promise (any casing, inside HTML and
punctuation, with other whitespace where whitespace is normalized), and nothing is found where a word boundary
forbids it or the input is a malformed near-miss. It says nothing about open-world recall.

Expectations are derived from the bank's declared semantics, not from the engine under test: the witness of a
literal is its value; the boundary case ``x<w>y`` becomes a positive for an active regex of the same entity only if
the independent reference (the ``regex`` module, :func:`reference_matcher.detector_end`) says that regex covers the
whole text, and a negative otherwise.

Counting: the active bank is compiled once and each case scanned. Expectations are paired one-to-one with records
equal on (entity, name, pattern, kind, canonical, string, start, end). A leftover expectation is ``wrong_canonical``
when an unused record has the same (entity, string, start, end) with a different (name, canonical), otherwise
``missed``. A negative case with any record is an unexpected negative match.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from nerb_verify.canonical import python_canonical_bytes, python_canonical_sha256
from nerb_verify.producers.bank_format import Detector, active_detectors, canonical_hash
from nerb_verify.producers.engine import WHITE_SPACE, CompiledBank, EngineCompileError, plan_regex
from nerb_verify.producers.reference_matcher import detector_end

POSITIVE_SCHEMA = "nerb.enron_conformance_positive_case.v2"
NEGATIVE_SCHEMA = "nerb.enron_conformance_negative_case.v2"
LABEL_ARTIFACT_ID = "enron_catalog_conformance_labels"
POSITIVE_ARTIFACT_ID = "enron_catalog_conformance_positive_cases"
NEGATIVE_ARTIFACT_ID = "enron_catalog_conformance_negative_cases"
PHONE_WITNESS = "212-555-0198"
CONTEXT_PREFIX = "<p>Regards,<br>"
CONTEXT_SUFFIX = "</p>"
REQUIRED_TAGS = ("boundary", "casing", "html", "malformed", "negative", "overlap", "punctuation", "signature",
                 "unicode", "whitespace")

# Our own policy descriptor: its canonical hash is the section's policy_sha256 (we do not reuse NERB's hash).
POLICY = {
    "schema_version": "nerb_verify.conformance_policy.v1",
    "witness": {"literal": "value", "email_fallback": "unknown.<bank_hash_hex[0:12]>@example.invalid",
                "phone_fallback": PHONE_WITNESS},
    "positive": ["casing:simple_swapcase", "context:" + CONTEXT_PREFIX + "<w>" + CONTEXT_SUFFIX,
                 "whitespace:run->' \\t '", "boundary:x<w>y->same_entity_regex_if_reference_covers",
                 "overlap:two_fallback_witnesses"],
    "negative": ["boundary:x<w>y->literal_word_boundary", "fixed:ten_malformed_near_misses"],
    "counting": "one_to_one_exact;leftover_same_span_other_identity=wrong_canonical;else_missed",
}

# NERB's fixed negatives (spec 50 §6) with NERB's published reason codes and tags; the Unicode-boundary negative
# around the fallback witness comes last.
FIXED_NEGATIVES = (
    ("missing.domain@localhost", ["malformed", "negative"], "email_missing_domain_suffix"),
    ("contact: @example.invalid", ["malformed", "negative"], "email_missing_local_part"),
    ("name@example..invalid", ["malformed", "negative"], "email_empty_domain_label"),
    ("name@example.123", ["malformed", "negative"], "email_numeric_top_level_domain"),
    ("name @example.invalid", ["malformed", "negative", "whitespace"], "email_embedded_whitespace"),
    ("name@-example.invalid", ["malformed", "negative"], "email_invalid_domain_label"),
    ("price@risk ratio", ["malformed", "negative"], "email_missing_domain_separator"),
    ("Call 202-555-0198", ["negative", "signature"], "phone_fallback_not_promoted"),
    ("Call 415.555.0199 x123", ["negative", "signature"], "phone_extension_fallback_not_promoted"),
)


def simple_swapcase(text: str) -> str:
    """Swap the case of each character whose swapped form is one character (``ß`` -> ``SS`` would change length,
    which simple case folding never matches, so such characters are kept)."""
    out = []
    for ch in text:
        swapped = ch.swapcase()
        out.append(swapped if len(swapped) == 1 else ch)
    return "".join(out)


def _is_email_fallback(det: Detector) -> bool:
    return det.kind == "regex" and "@" in det.value


def _is_phone_fallback(det: Detector) -> bool:
    return det.kind == "regex" and "@" not in det.value and "[0-9]{4}" in det.value


def _witness(det: Detector, bank_hash: str) -> str | None:
    if det.kind == "literal":
        return det.value
    if _is_email_fallback(det):
        return f"unknown.{bank_hash[7:19]}@example.invalid"
    if _is_phone_fallback(det):
        return PHONE_WITNESS
    return None


def _case_insensitive(det: Detector) -> bool:
    """Whether a detector ignores case: its flags, or for a regex its leading inline ``(?i)``."""
    if det.ignore_case or det.kind == "literal":
        return det.ignore_case
    try:
        return "i" in plan_regex(det).inline_flags
    except EngineCompileError:
        return False


def _expectation(det: Detector, text: str, start_char: int, end_char: int) -> dict[str, Any]:
    start = len(text[:start_char].encode("utf-8"))
    end = start + len(text[start_char:end_char].encode("utf-8"))
    return {"entity_id": det.entity_id, "name_id": det.name_id, "pattern_id": det.pattern_id,
            "pattern_kind": det.kind, "canonical_name": det.canonical_name, "string": text[start_char:end_char],
            "start": start, "end": end}


def _normalize_runs(text: str) -> str:
    out: list[str] = []
    for ch in text:
        if ch in WHITE_SPACE:
            if not out or out[-1] != " \t ":
                out.append(" \t ")
        else:
            out.append(ch)
    return "".join(out)


@dataclass
class ConformanceCases:
    """The generated cases (closed JSONL objects) with their artifact bytes."""

    positive: list[dict[str, Any]]
    negative: list[dict[str, Any]]

    @staticmethod
    def _jsonl(cases: list[dict[str, Any]]) -> bytes:
        return b"".join(python_canonical_bytes(c) + b"\n" for c in sorted(cases, key=lambda c: c["case_id"]))

    def positive_bytes(self) -> bytes:
        return self._jsonl(self.positive)

    def negative_bytes(self) -> bytes:
        return self._jsonl(self.negative)

    def tags(self) -> set[str]:
        return {t for c in self.positive + self.negative for t in c["tags"]}


def generate_cases(bank: dict[str, Any]) -> ConformanceCases:
    """Positive and negative cases for every active pattern, in (entity, name, pattern) order (spec 50 §6)."""
    bank_hash = canonical_hash(bank)
    detectors = active_detectors(bank)
    positives: list[tuple[str, list[str], list[dict[str, Any]]]] = []
    negatives: list[tuple[str, list[str], str]] = []
    by_entity_regex: dict[str, list[Detector]] = {}
    for det in detectors:
        if det.kind == "regex":
            by_entity_regex.setdefault(det.entity_id, []).append(det)
    email_fallback = next((d for d in detectors if _is_email_fallback(d)), None)
    phone_active = any(_is_phone_fallback(d) for d in detectors)
    for det in detectors:
        w = _witness(det, bank_hash)
        if w is None:
            continue  # an unsupported regex has no witness: it stays without positive support (fails the gate)
        casing = simple_swapcase(w) if _case_insensitive(det) else w
        positives.append((casing, ["casing"], [_expectation(det, casing, 0, len(casing))]))
        ctx = CONTEXT_PREFIX + w + CONTEXT_SUFFIX
        positives.append((ctx, ["html", "punctuation", "signature"],
                          [_expectation(det, ctx, len(CONTEXT_PREFIX), len(CONTEXT_PREFIX) + len(w))]))
        if det.kind == "literal" and det.normalize_whitespace:
            spaced = _normalize_runs(w)
            if spaced != w:
                positives.append((spaced, ["whitespace"], [_expectation(det, spaced, 0, len(spaced))]))
        if det.kind == "literal" and det.left_boundary == "word" and det.right_boundary == "word":
            boxed = "x" + w + "y"
            cover = next((r for r in sorted(by_entity_regex.get(det.entity_id, []), key=lambda d: d.order_key)
                          if detector_end(r, boxed, 0) == len(boxed)), None)
            if cover is not None:
                positives.append((boxed, ["boundary"], [_expectation(cover, boxed, 0, len(boxed))]))
            else:
                negatives.append((boxed, ["boundary", "negative"], "literal_word_boundary"))
    if email_fallback is not None:
        first = f"first.{bank_hash[7:19]}@example.invalid"
        second = f"second.{bank_hash[19:31]}@example.invalid"
        text = first + " and " + second
        positives.append((text, ["overlap"], [_expectation(email_fallback, text, 0, len(first)),
                                               _expectation(email_fallback, text, len(text) - len(second),
                                                            len(text))]))
    for text, tags, reason in FIXED_NEGATIVES:
        if reason.startswith("phone_") and phone_active:
            continue  # an active phone pattern would (rightly) match these
        negatives.append((text, tags, reason))
    if email_fallback is not None:
        witness = _witness(email_fallback, bank_hash)
        negatives.append(("\u03a9" + str(witness) + "\u03a9", ["boundary", "negative", "unicode"],
                          "unicode_word_boundary"))
    positive_cases = [
        {"schema_version": POSITIVE_SCHEMA, "case_id": f"pattern_{i:08d}", "text": text, "tags": sorted(tags),
         "expected": sorted(exp, key=_expectation_key)}
        for i, (text, tags, exp) in enumerate(positives)
    ]
    negative_cases = [
        {"schema_version": NEGATIVE_SCHEMA, "case_id": f"negative_{i:08d}", "text": text, "tags": sorted(tags),
         "reason_code": reason}
        for i, (text, tags, reason) in enumerate(negatives)
    ]
    return ConformanceCases(positive_cases, negative_cases)


def _expectation_key(e: dict[str, Any]) -> tuple[Any, ...]:
    return (e["start"], e["end"], e["entity_id"], e["name_id"], e["pattern_id"], e["pattern_kind"],
            e["canonical_name"], e["string"])


@dataclass
class ConformanceCounts:
    """Integer counts from scoring the cases against an engine."""

    active_patterns: int
    patterns_with_positive_cases: int
    approved_positive_cases: int
    correctly_mapped: int
    missed: int
    wrong_canonical: int
    negative_cases: int
    unexpected_negative_matches: int


def score_cases(compiled: CompiledBank, cases: ConformanceCases) -> ConformanceCounts:
    """Scan every case once with the compiled bank and count (spec 50 §6 counting rules)."""
    correct = missed = wrong = 0
    supported: set[tuple[str, str, str]] = set()
    for case in cases.positive:
        records = compiled.scan_text(case["text"])
        used = [False] * len(records)
        for exp in case["expected"]:
            supported.add((exp["entity_id"], exp["name_id"], exp["pattern_id"]))
            hit = next((i for i, r in enumerate(records) if not used[i] and all(
                r[k] == exp[k] for k in ("entity_id", "name_id", "pattern_id", "pattern_kind", "canonical_name",
                                         "string", "start", "end"))), None)
            if hit is not None:
                used[hit] = True
                correct += 1
                continue
            other = next((i for i, r in enumerate(records) if not used[i]
                          and (r["entity_id"], r["string"], r["start"], r["end"])
                          == (exp["entity_id"], exp["string"], exp["start"], exp["end"])
                          and (r["name_id"], r["canonical_name"]) != (exp["name_id"], exp["canonical_name"])), None)
            if other is not None:
                used[other] = True
                wrong += 1
            else:
                missed += 1
    unexpected = sum(1 for case in cases.negative if compiled.scan_text(case["text"]))
    return ConformanceCounts(compiled.active_patterns, len(supported), correct + missed + wrong, correct, missed,
                             wrong, len(cases.negative), unexpected)


def artifact_ref(artifact_id: str, data: bytes) -> dict[str, Any]:
    """A closed public artifact reference ``{id, sha256, bytes}`` over the artifact's raw bytes."""
    return {"id": artifact_id, "sha256": "sha256:" + hashlib.sha256(data).hexdigest(), "bytes": len(data)}


def policy_sha256() -> str:
    """Canonical hash of our conformance policy descriptor."""
    return python_canonical_sha256(POLICY)


def conformance_section(counts: ConformanceCounts, cases: ConformanceCases, bank_active_patterns: int,
                        label_artifact_id: str = LABEL_ARTIFACT_ID) -> dict[str, Any]:
    """The ``catalog_conformance`` section (the 15 fields of evidence and card). ``passed`` needs positive support
    for every active pattern, zero misses, zero wrong canonicals, zero unexpected negative matches and recall
    exactly 1; recall is the correctly rounded double of correct/approved, computed from a Fraction."""
    if counts.approved_positive_cases == 0 and counts.negative_cases == 0:
        return {"active_patterns": 0, "approved_positive_cases": 0, "correctly_mapped": 0, "evaluated": False,
                "label_artifact_id": None, "missed": 0, "negative_cases": 0, "negative_cases_artifact": None,
                "passed": False, "patterns_with_positive_cases": 0, "policy_sha256": None,
                "positive_cases_artifact": None, "recall": None, "unexpected_negative_matches": 0,
                "wrong_canonical": 0}
    recall_fraction = (Fraction(counts.correctly_mapped, counts.approved_positive_cases)
                       if counts.approved_positive_cases else None)
    passed = (counts.approved_positive_cases > 0 and counts.negative_cases > 0
              and counts.active_patterns == bank_active_patterns
              and counts.patterns_with_positive_cases == counts.active_patterns
              and counts.approved_positive_cases >= counts.patterns_with_positive_cases
              and counts.missed == 0 and counts.wrong_canonical == 0 and counts.unexpected_negative_matches == 0
              and recall_fraction == 1)
    return {
        "active_patterns": counts.active_patterns,
        "approved_positive_cases": counts.approved_positive_cases,
        "correctly_mapped": counts.correctly_mapped,
        "evaluated": True,
        "label_artifact_id": label_artifact_id,
        "missed": counts.missed,
        "negative_cases": counts.negative_cases,
        "negative_cases_artifact": artifact_ref(NEGATIVE_ARTIFACT_ID, cases.negative_bytes()),
        "passed": passed,
        "patterns_with_positive_cases": counts.patterns_with_positive_cases,
        "policy_sha256": policy_sha256(),
        "positive_cases_artifact": artifact_ref(POSITIVE_ARTIFACT_ID, cases.positive_bytes()),
        "recall": None if recall_fraction is None else float(recall_fraction),
        "unexpected_negative_matches": counts.unexpected_negative_matches,
        "wrong_canonical": counts.wrong_canonical,
    }


def conformance_plan(section: dict[str, Any]) -> dict[str, Any]:
    """The manifest ``conformance_plan`` bound to the same artifacts as the section."""
    return {"label_artifact_id": section["label_artifact_id"], "negative_cases": section["negative_cases"],
            "negative_cases_artifact": section["negative_cases_artifact"], "policy_sha256": section["policy_sha256"],
            "positive_cases": section["approved_positive_cases"],
            "positive_cases_artifact": section["positive_cases_artifact"]}


def run_conformance(bank: dict[str, Any], compiled: CompiledBank) -> tuple[dict[str, Any], ConformanceCases]:
    """Generate, score and summarise: the section plus the cases (write their bytes to the private root)."""
    cases = generate_cases(bank)
    counts = score_cases(compiled, cases)
    bank_active = len(active_detectors(bank))
    return conformance_section(counts, cases, bank_active), cases
