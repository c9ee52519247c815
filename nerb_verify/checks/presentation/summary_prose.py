"""Prose in summary.md and the figures: decision sentences and claims the charter calls unsupportable.

Verdict *words* (PASS/FAIL, ELIGIBLE/NOT ELIGIBLE, "result pass|fail") are checked in summary.py. A forger can
also state a decision in a sentence ("this bank qualifies as a standalone redactor", "the bundle was promoted") or
make a claim no evidence can support. Each sentence (Markdown lines and table cells outside code; SVG title, desc
and text content) is read lower-case without emphasis and judged by explicit rules:

* **Decision sentences** (``summary.decision_sentence``): a sentence about standalone/comprehensive redaction
  that says the bank is (or is not) eligible, qualifies, passes or fails; about promotion (promoted, promotion
  passed/granted); or about the known-bank contract (passes, holds, is met, fails, is broken). Its polarity (a
  negation word makes it negative) must agree with the verifier's own decision. Questions, conditionals ("only
  when", "whether", "if") and sentences already carrying an upper-case verdict word are not statements here.
* **Gate claims and answers** (``summary.decision_sentence`` too): a sentence saying that every (all, each) gate,
  requirement or threshold was met, passed, satisfied or cleared must agree with the verifier's decision for the
  family it names (performance gates, the known-bank contract, otherwise the quality gates of standalone redaction),
  negated or not (a statement of the rule, with "when", "must", "requires", ..., is not a claim); and a short answer ("It could not.", "Yes.") right after a yes/no question about the bank redacting
  on its own, promotion or the known-bank contract must give that decision.
* **Unsupportable claims** (``summary.unsupportable_claim``), after the charter's guarantee boundary ("NERB catches
  all PII" is not supportable; open-world recall is never NERB matcher recall or guaranteed 100% recall):
  detecting/catching/redacting all or every PII or personal data (not qualified as cataloged/known/in the bank);
  a guarantee of 100%, complete, perfect or full recall, coverage, detection or redaction; never missing or
  leaking any PII; and open-world recall described as matcher recall. Each applies unless the clause is negated.

Findings give the file, line and column of the sentence, never its text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from nerb_verify.checks.presentation import summary_layout
from nerb_verify.checks.raw._access import dig
from nerb_verify.codes import register

DECISION = register(
    "summary.decision_sentence", "A sentence states a decision the verifier did not reach.",
    "A sentence in summary.md or a figure that says the bank is or is not eligible (or qualifies) for standalone "
    "redaction, that the bundle was or was not promoted, or that the known-bank contract passed or failed must "
    "agree with the verifier's own decision (standalone redaction, the evidence's promotion, the known-bank "
    "contract). A flipped sentence ('not promoted' -> 'promoted') is caught here.")
UNSUPPORTABLE = register(
    "summary.unsupportable_claim", "A sentence makes a claim the charter calls unsupportable.",
    "The charter's guarantee boundary: NERB guarantees detection of what the validated bank knows, never of all "
    "PII. A sentence claiming that something catches, detects or redacts all (every, any, 100% of) PII or personal "
    "data, guarantees 100%, complete or perfect recall or coverage, never misses or leaks any PII, or calls "
    "open-world recall matcher recall, is not supportable by any evidence.")

MAX_SENTENCES = 5000
SENTENCE = re.compile(r"(?:[^.!?|\n]|\.(?=\d))+[.!?]?")
CODE_SPAN = re.compile(r"`[^`\n]*`")
NEGATION = re.compile(r"\b(not|no|never|neither|nor|cannot|can't|isn't|doesn't|don't|won't|without|unsupportable|"
                      r"unsupported|false|ineligible|fails?|failed|could not|does not|did not)\b")
SKIP = re.compile(r"\?|\b(only when|whether|if|unless|would|should|asked)\b")
UPPER_VERDICT = re.compile(r"\b(PASS|FAIL|ELIGIBLE)\b")
PII = (r"(pii|personal data|personal information|personally identifiable information|sensitive (?:data|information|"
       r"text)|private data|personal details)")
QUALIFIED = re.compile(r"\b(cataloged|catalogued|known|in the bank|approved|bank's|catalog)\b")
UNIVERSAL = re.compile(r"\b(catch(?:es)?|caught|detects?|detected|finds?|found|redacts?|redacted|removes?|removed|"
                       r"masks?|masked|flags?|flagged|stops?|blocks?|covers?|covered|protects? against)\b"
                       r"[^.;:]{0,40}?\b(all|every|any|each|100 ?%(?: of)?)\s+(?:[a-z-]+ ){0,3}?" + PII + r"\b")
GUARANTEE = re.compile(r"\b(guarantee[sd]?|guaranteeing|ensures?|promises?|certif(?:y|ies|ied))\b[^.;]{0,60}?"
                       r"\b(100(?:\.0+)? ?%|complete|perfect|full|total)\s+(recall|coverage|detection|redaction)\b"
                       r"|\b(100(?:\.0+)? ?%|complete|perfect|full|total)\s+(recall|coverage|detection|redaction)\b"
                       r"[^.;]{0,30}?\bguarantee")
NEVER_MISSES = re.compile(r"\b(never|does not|doesn't|will not|won't|cannot|can't|can not)\s+(miss(?:es)?|leaks?|"
                          r"overlooks?)\b[^.;]{0,30}?\b(any|a single|anything|" + PII[1:-1] + r")"
                          r"|\b(no|zero)\s+" + PII + r"\s+(?:is |was |will be |ever )*(missed|leaked)\b")
MATCHER = re.compile(r"open[- ]world (?:pii )?recall[^.;]{0,60}?\b(is|as|measures?|equals?|reflects?|means?)\b"
                     r"[^.;]{0,20}?\bmatcher recall\b")
STANDALONE = re.compile(r"\b(standalone|stand alone|comprehensive)\b[^.;]{0,60}\bredact|\bredact[a-z]*\b[^.;]{0,60}"
                        r"\b(standalone|stand alone|comprehensive)\b")
ELIGIBLE_VERB = re.compile(r"\b(eligible|qualif(?:y|ies|ied)|suitable|approved|passe[sd]|pass|fails?|failed|meets?|"
                           r"ready)\b")
PROMOTED = re.compile(r"\b(promoted|promotion (?:passed|was granted|granted|succeeded|approved|failed|"
                      r"was refused|refused|denied))\b")
CONTRACT = re.compile(r"\bknown[- ]bank contract\b[^.;]{0,80}?\b(pass(?:es|ed)?|holds|held|is met|was met|fails?|"
                      r"failed|is broken|was broken|violated)\b")
CONTRACT_NEGATIVE = re.compile(r"\b(fails?|failed|broken|violated|not)\b")
# A claim about a whole family of gates: every / all / each gate (requirement, threshold) met, passed, satisfied or
# cleared, in either order ("All preregistered application gates were met", "the bank met every application gate").
_GATE_WORDS = r"(?:gates?|requirements?|thresholds?)"
_MET = r"(?:met|meets?|passed|pass(?:es)?|satisf(?:ied|ies|y)|cleared|clears?)"
ALL_GATES = re.compile(rf"\b(?:every|all|each)\b[^.;:?]{{0,60}}?\b{_GATE_WORDS}\b[^.;:?]{{0,30}}?\b{_MET}\b"
                       rf"|\b{_MET}\b[^.;:?]{{0,20}}?\b(?:every|all|each)\b[^.;:?]{{0,60}}?\b{_GATE_WORDS}\b")
# Words that make a gate sentence a statement of the rule, not of the result ("every gate must pass", "eligible once
# all gates are met", "every threshold is met when ..."): those are not claims about this bundle.
RULE_WORDS = re.compile(r"\b(when|whenever|once|until|must|needs?|requires?|required|to be eligible)\b")
# A short answer to the question before it ("...could this bank, by itself, redact all in-scope PII? It could not."):
# yes or no, or a pronoun and an auxiliary verb, negated or not, and nothing more than a few words.
ANSWER = re.compile(r"\s*(?:(?P<word>yes|no)\b|(?:it|this bank|the bank|this|they)\s+(?:could|can|did|does|do|was|is|"
                    r"would|will|has|had|were|are)(?:n't)?\b(?:\s+not\b)?)[^.;?]{0,30}[.!]?\s*")
# The question's topic: standalone redaction (the bank redacting on its own, or redacting all PII), promotion, the
# known-bank contract.
_ALONE = re.compile(r"\b(by itself|on its own|alone|standalone|stand alone|comprehensive)\b|\ball\b[^?]{0,40}\bpii\b")


def _negated(clause: str) -> bool:
    return NEGATION.search(clause) is not None


def sentences(rel: str, text: str) -> Iterator[tuple[int, int, str]]:
    """(1-based line, 1-based column, sentence) of the prose in one file, at most MAX_SENTENCES."""
    count = 0
    if rel.endswith(".svg"):
        elements = summary_layout.parse_svg(text)
        if elements is None:
            return  # reported as summary.figure_unreadable
        starts = summary_layout.line_starts(text)
        for element in elements:
            if element.name not in ("title", "desc", "text") or not element.text:
                continue
            body = summary_layout.blank_entities(element.text)
            for match in SENTENCE.finditer(body):
                count += 1
                if count > MAX_SENTENCES:
                    return
                line, column = summary_layout.line_col(starts, element.text_offset + match.start())
                yield line, column, match.group(0)
        return
    fenced = False
    for number, line in enumerate(text.split("\n"), start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        clean = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for match in SENTENCE.finditer(clean):
            count += 1
            if count > MAX_SENTENCES:
                return
            yield number, match.start() + 1, match.group(0)


def _plain(sentence: str) -> str:
    return re.sub(r"[*_]+", "", sentence).lower()


def decision_holds(sentence: str, decisions: dict[str, Any], evidence: Any) -> bool | None:
    """None when the sentence states no decision; else whether what it states agrees with the verifier."""
    if UPPER_VERDICT.search(sentence):
        return None  # verdict words are summary.verdict_mismatch
    plain = _plain(sentence)
    if SKIP.search(plain):
        return None
    if STANDALONE.search(plain) and ELIGIBLE_VERB.search(plain):
        eligible = dig(decisions.get("standalone_redaction"), "eligible")
        return (eligible is True) is not _negated(plain)
    if PROMOTED.search(plain):
        promoted = dig(evidence, "promotion", "passed") is True
        positive = not _negated(plain) and "failed" not in plain and "refused" not in plain and "denied" not in plain
        return promoted is positive
    contract = CONTRACT.search(plain)
    if contract:
        passed = dig(decisions.get("known_bank_contract"), "passed") is True
        return passed is (CONTRACT_NEGATIVE.search(plain[contract.start():]) is None)
    if ALL_GATES.search(plain) and not RULE_WORDS.search(plain):
        passed = _family_passed(plain, decisions)
        return None if passed is None else passed is not _negated(plain)
    return None


def _family_passed(plain: str, decisions: dict[str, Any]) -> bool | None:
    """Whether every gate of the family a sentence names passed, by the verifier's own decisions: performance gates,
    the known-bank contract (conformance), otherwise the quality (application, standalone-redaction) gates; None
    when that decision was not reached."""
    if "performance" in plain:
        grade = dig(decisions.get("performance"), "decision_grade")
        return None if grade not in ("passed", "failed") else grade == "passed"
    if "contract" in plain or "conformance" in plain:
        passed = dig(decisions.get("known_bank_contract"), "passed")
        return passed if isinstance(passed, bool) else None
    passed = dig(decisions.get("standalone_redaction"), "quality_gates_passed")
    return passed if isinstance(passed, bool) else None


def answer_holds(question: str, answer: str, decisions: dict[str, Any], evidence: Any) -> bool | None:
    """None when ``answer`` is not a short yes/no answer to a decision ``question``; else whether it agrees with the
    verifier: a question about the bank redacting on its own (standalone redaction), about promotion or about the
    known-bank contract is answered by its decision."""
    plain_question, plain_answer = _plain(question), _plain(answer)
    if not plain_question.rstrip().endswith("?"):
        return None
    match = ANSWER.fullmatch(plain_answer)
    if match is None:
        return None
    positive = match.group("word") == "yes" if match.group("word") else not _negated(plain_answer)
    if re.search(r"\bredact", plain_question) and _ALONE.search(plain_question):
        decided = dig(decisions.get("standalone_redaction"), "eligible")
    elif re.search(r"\bpromot", plain_question):
        decided = dig(evidence, "promotion", "passed")
    elif "contract" in plain_question:
        decided = dig(decisions.get("known_bank_contract"), "passed")
    else:
        return None
    return None if not isinstance(decided, bool) else decided is positive


def unsupportable(sentence: str) -> bool:
    """True when the sentence makes one of the claims the charter names as unsupportable (see module docstring)."""
    plain = _plain(sentence)
    if "?" in plain:
        return False
    if NEVER_MISSES.search(plain):
        return True
    for pattern in (UNIVERSAL, GUARANTEE, MATCHER):
        for match in pattern.finditer(plain):
            clause = plain[:match.end()]
            if _negated(clause):
                continue
            if pattern is UNIVERSAL and QUALIFIED.search(plain[match.start():match.end() + 40]):
                continue
            return True
    return False


def check(rel: str, text: str, decisions: dict[str, Any], evidence: Any,
          found: list[tuple[int, int, str]] | None = None) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(decision-sentence positions, unsupportable-claim positions) of one file; ``found``: its sentences, when the
    caller already has them (:func:`sentences`)."""
    wrong: list[tuple[int, int]] = []
    claims: list[tuple[int, int]] = []
    previous = ""
    for line, column, sentence in (sentences(rel, text) if found is None else found):
        offset = 0
        for clause in sentence.split(";"):  # each clause of a sentence states its own decision
            if decision_holds(clause, decisions, evidence) is False:
                wrong.append((line, column + offset))
                break
            offset += len(clause) + 1
        else:
            if answer_holds(previous, sentence, decisions, evidence) is False:
                wrong.append((line, column))
        if unsupportable(sentence):
            claims.append((line, column))
        previous = sentence
    return wrong, claims
