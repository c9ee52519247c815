"""Seeded inputs for ``tools/bench_scan_engine.py``: banks shaped like the bank builder's output and realistic mail.

Nothing here is real personal data. People are built from syllables (fictional names), addresses live only on
reserved example domains (RFC 2606 / RFC 6761: ``example.com``/``.org``/``.net``, the ``.example`` and ``.test``
top-level domains) and phone numbers use the fictional 555-01xx range. Everything is a function of ``seed``; the
benchmark writes the output under a temporary directory and it is never committed.

Bank shape (``bank_builder.build_bank``): an active ``contact`` entity of exact-address literals (case-insensitive, no
whitespace normalisation, ``word``/``word``, priority = rank) plus the bounded e-mail fallback regex (priority 24,999),
an active ``person`` entity of full-name literals (case-insensitive, whitespace-normalised, ``word``/``word``,
priority 20,000 + rank), draft ``organization_domain`` and ``phone_number`` entities, builder-sized pattern metadata.
Half of the active patterns are names, half addresses. Names come with the variants real display names have
(middle initials, hyphenated and apostrophe surnames, the odd all-caps header surface; accented letters on request).

Workloads (each document different: Zipf-sampled vocabulary, numbers, dates, quoted replies, signatures, URLs, phone
numbers; no shared padding):

- ``normal``: ~2.2 KB e-mails with 3-4 bank hits (names with whitespace/case variants, known and unknown addresses);
- ``dense``: ~2.8 KB meeting notes / forwards with ~31 hits;
- ``addrlist``: distribution-list mail, 50 addresses per document, drawn across the whole contact list;
- ``long``: long threads of 20 KB, 200 KB and 2 MB (quoted history), hit rate of normal mail.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from nerb_verify.producers.bank_builder import EMAIL_FALLBACK_REGEX, PHONE_FALLBACK_REGEX, stable_id
from nerb_verify.producers.demo_corpus import FIRST, LAST, WORDS

DOMAINS = ["example.com", "example.org", "example.net", "mail.example.com", "corp.example.org", "trading.example.net",
           "energy.example", "ops.example.test", "lists.example.org", "hq.example.com"]
UNKNOWN_DOMAINS = ["partners.example.net", "vendor.example", "news.example.org", "alerts.example.com"]
ONSETS = ["b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "kr", "l", "m", "n", "p", "pr", "r", "s",
          "sh", "st", "t", "tr", "v", "w", "y", "z", ""]
VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou", "y"]
CODAS = ["", "n", "l", "r", "s", "th", "nd", "rk", "st", "m", "x", "ck", "ll", "tt"]
ACCENTED = {"a": "á", "e": "é", "o": "ö", "u": "ü", "i": "í"}
SUFFIXES = ["", "", "", "son", "ley", "ton", "berg", "man", "ford", "ell", "ine", "wood"]
# Ordinary business-mail vocabulary on top of the demo corpus words; sampled with Zipf weights.
COMMON = ("the of and to a in is that for it on with as be at by this we you are from have or not will can an "
          "please thanks let me know if there any our your would should could about all been more when which their "
          "what so up out just also do has but was they he she them get one two three new here next last call "
          "today tomorrow friday monday attached below above regarding per asap fyi note see following hi hello "
          "regards best cheers sorry again still need make sure send sent received review reviewed changes change "
          "numbers number file files version final draft latest sheet meeting conference room floor building "
          "houston london calgary portland omaha new york office desk group legal finance accounting trading "
          "origination structuring gas power electricity crude weather options swaps forwards physical financial "
          "counterparty counterparties master agreement isda guaranty collateral threshold rating downgrade "
          "confirm confirmation settlement nominations pipeline transport interconnect flow mmbtu mw mwh peak "
          "offpeak daily monthly quarterly annual bid offer mid curve mark marked marks var book books p&l "
          "estimate estimates actual actuals variance spreadsheet database system systems login access password "
          "reset ticket server outage weekend holiday vacation lunch dinner travel flight hotel expense expenses").split()
TICKERS = ["NYMEX", "ICE", "EOL", "HH", "PG&E", "SoCal", "ERCOT", "PJM", "NEPOOL", "CAISO", "WSCC", "MAPP"]
WORKLOADS = ("normal", "dense", "addrlist", "long")
LONG_SIZES = (20_000, 200_000, 2_000_000)


# --- people and the bank -----------------------------------------------------------------------------------------

def _syllable_word(rng: random.Random, parts: int) -> str:
    word = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + (rng.choice(CODAS) if i == parts - 1 else "")
                   for i in range(parts))
    return word if len(word) >= 3 else word + rng.choice(["n", "ra", "la"])


def make_people(count: int, seed: int, non_ascii: float = 0.0) -> list[dict[str, str]]:
    """``count`` distinct fictional people: display surface (with variants), identity key and a known address.

    ``non_ascii``: the share of surfaces whose first name carries an accented vowel (Enron-era headers are almost
    all ASCII, hence 0 by default; NERB 0.0.12's engine leaves its fast path as soon as the bank has one)."""
    rng = random.Random(f"people:{seed}")
    firsts = sorted({w.capitalize() for w in (_syllable_word(rng, rng.randint(1, 3)) for _ in range(3_000))}
                    | set(FIRST))
    lasts = sorted({(w + rng.choice(SUFFIXES)).capitalize()
                    for w in (_syllable_word(rng, rng.randint(1, 3)) for _ in range(40_000))} | set(LAST))
    people: list[dict[str, str]] = []
    seen_names: set[str] = set()
    seen_addresses: set[str] = set()
    while len(people) < count:
        first, last = rng.choice(firsts), rng.choice(lasts)
        key = f"{first} {last}".casefold()
        if key in seen_names:
            continue
        roll = rng.random()
        accent = rng.random() < non_ascii
        if roll < 0.08:
            surface = f"{first} {rng.choice('ABCDEFGHJKLMNPRSTW')}. {last}"
        elif roll < 0.13:
            surface = f"{first} {last}-{rng.choice(lasts)}"
        elif roll < 0.17:
            surface = f"{first} O'{last}"
        elif roll < 0.19:
            surface = f"{first} {last}".upper()
        else:
            surface = f"{first} {last}"
        vowel = next((c for c in first[1:] if c in ACCENTED), None)
        if accent and vowel:
            surface = surface.replace(vowel, ACCENTED[vowel], 1)
        local_first = first.lower()
        local_last = last.lower()
        shape = rng.random()
        if shape < 0.6:
            local = f"{local_first}.{local_last}"
        elif shape < 0.8:
            local = f"{local_first[0]}{local_last}"
        elif shape < 0.9:
            local = f"{local_first}_{local_last}"
        else:
            local = f"{local_first}.{local_last}{rng.randint(1, 99)}"
        address = f"{local}@{rng.choice(DOMAINS)}"
        if address in seen_addresses:
            continue
        seen_names.add(key)
        seen_addresses.add(address)
        people.append({"surface": surface, "identity": key, "address": address})
    return people


def _fake_sha(*parts: Any) -> str:
    return "sha256:" + hashlib.sha256(repr(parts).encode()).hexdigest()


FULL_METADATA_MAX = 25_000  # the builder's pattern budget; above it a bank with full metadata exceeds NERB's 64 MiB


def _meta(kind: str, rank: int, privacy_class: str, full: bool = True) -> dict[str, Any]:
    """Pattern metadata the size and shape of ``bank_builder._pattern_metadata`` (hashes are of the rank only);
    ``full=False``: a lean three-field form for banks larger than any the builder makes (NERB 0.0.12 refuses
    bank sources over 64 MiB, which 100k patterns with full metadata exceed)."""
    if not full:
        return {"source_type": "header_from", "privacy_class": privacy_class,
                "evidence_sha256": _fake_sha(kind, rank, "evidence")}
    groups = 2 + rank % 17
    return {"source_type": "header_from+header_to", "split": "train", "observation_count": 3 * groups,
            "distinct_document_count": 2 * groups, "distinct_leakage_group_count": groups,
            "first_seen": "2000-01-03T09:00:00+00:00", "last_seen": "2001-11-30T17:00:00+00:00",
            "unknown_date_documents": 0, "confidence": "high" if groups >= 5 else "medium",
            "review_status": "active", "curation_reason_code": "recurring_valid_contact" if kind == "contact"
            else "recurring_unique_full_name_alias", "privacy_class": privacy_class,
            "label_strength": "structured_weak", "evidence_sha256": _fake_sha(kind, rank, "evidence"),
            "provenance_sha256": _fake_sha(kind, rank, "provenance"), "builder_policy_sha256": _fake_sha("policy"),
            "ambiguity": {"status": "unambiguous", "reason_codes": []}}


def _literal(value: str, priority: int, ws: bool, meta: dict[str, Any], description: str) -> dict[str, Any]:
    return {"kind": "literal", "value": value, "description": description, "status": "active", "priority": priority,
            "case_sensitive": False, "normalize_whitespace": ws, "left_boundary": "word", "right_boundary": "word",
            "metadata": meta}


def make_bank(patterns: int, seed: int, non_ascii_names: float = 0.0) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """A ``nerb.bank.v1`` bank with ``patterns`` active patterns in the builder's shape, and the people in it.

    ``patterns // 2 - 1`` contact literals + the e-mail fallback regex, ``patterns - patterns // 2`` person literals;
    the returned people list holds every banked person (name and address both banked) first, then 20% extra
    outsiders (in no bank) that documents mention as misses or fallback hits."""
    names_count = patterns - patterns // 2
    contacts_count = patterns // 2 - 1
    people = make_people(max(names_count, contacts_count) + names_count // 5 + 10, seed, non_ascii_names)
    full = patterns <= FULL_METADATA_MAX
    contact_names: dict[str, Any] = {}
    person_names: dict[str, Any] = {}
    for rank, person in enumerate(people[:contacts_count]):
        meta = _meta("contact", rank, "email_address", full)
        if full:
            meta["contact_scope"] = "external"
        contact_names[stable_id("contact", person["address"])] = {
            "canonical": person["address"], "description": "Observed contact address.", "status": "active",
            "metadata": {"authoritative_pattern_metadata_ref": "exact_email"},
            "patterns": {"exact_email": _literal(person["address"], rank, False, meta, "Observed contact address.")}}
    for rank, person in enumerate(people[:names_count]):
        meta = _meta("person", rank, "person_name", full)
        if full:
            meta["identity_ref"] = stable_id("identity", person["identity"])
        canonical = " ".join(t.capitalize() for t in person["identity"].split())
        person_names[stable_id("alias", person["identity"])] = {
            "canonical": canonical, "description": "Address-anchored person alias.", "status": "active",
            "metadata": {"authoritative_pattern_metadata_ref": "full_name"},
            "patterns": {"full_name": _literal(person["surface"], 20_000 + rank, True, meta,
                                               "Observed full-name alias.")}}
    contact_names["unknown_email_contact"] = {
        "canonical": "Unknown email contact", "description": "Bounded unknown-email fallback.", "status": "active",
        "metadata": {"authoritative_pattern_metadata_ref": "structured_email"},
        "patterns": {"structured_email": {"kind": "regex", "value": EMAIL_FALLBACK_REGEX,
                                          "description": "Bounded unknown-email fallback.", "status": "active",
                                          "priority": 24_999, "regex_flags": [],
                                          "metadata": {"source_type": "generic_structured_fallback"}}}}
    entities = {
        "contact": {"description": "Known contact addresses and a bounded unknown-email fallback.",
                    "status": "active", "regex_flags": [], "names": contact_names,
                    "metadata": {"label_source": "train_structured_headers"}},
        "person": {"description": "Address-anchored people with recurring collision-free full-name aliases.",
                   "status": "active", "regex_flags": [], "names": person_names,
                   "metadata": {"first_name_aliases": "prohibited"}},
        "organization_domain": {"description": "Domain candidates awaiting exact-boundary support.", "status": "draft",
                                "regex_flags": [], "metadata": {}, "names": {stable_id("domain", DOMAINS[0]): {
                                    "canonical": DOMAINS[0], "description": "Organization domain candidate.",
                                    "status": "draft", "metadata": {},
                                    "patterns": {"at_domain": {
                                        "kind": "literal", "value": "@" + DOMAINS[0], "description": "Draft suffix.",
                                        "status": "draft", "priority": 25_003, "case_sensitive": False,
                                        "normalize_whitespace": False, "left_boundary": "none",
                                        "right_boundary": "word", "metadata": {}}}}}},
        "phone_number": {"description": "Unknown-phone fallback retained as draft.", "status": "draft",
                         "regex_flags": [], "metadata": {}, "names": {"unknown_phone_number": {
                             "canonical": "Unknown phone number", "description": "Draft structured-phone fallback.",
                             "status": "draft", "metadata": {},
                             "patterns": {"structured_us_phone": {
                                 "kind": "regex", "value": PHONE_FALLBACK_REGEX, "description": "Draft fallback.",
                                 "status": "draft", "priority": 24_998, "regex_flags": [], "metadata": {}}}}}},
    }
    bank = {"schema_version": "nerb.bank.v1", "id": f"bench_{patterns}", "name": "Benchmark bank (synthetic)",
            "description": "Generated in the bank builder's shape for tools/bench_scan_engine.py.", "version": "1",
            "status": "active", "created_at": "1970-01-01T00:00:00Z", "updated_at": "1970-01-01T00:00:00Z",
            "unicode_normalization": "none", "default_regex_flags": [], "entities": entities,
            "metadata": {"builder": "tools.bench_scan_corpus", "seed": seed}}
    return bank, people


# --- mail text ---------------------------------------------------------------------------------------------------

class Mail:
    """A seeded writer of varied business mail; ``hit_*`` methods plant bank hits and count them."""

    def __init__(self, people: list[dict[str, str]], names_banked: int, contacts_banked: int, seed: int, tag: str):
        self.rng = random.Random(f"{tag}:{seed}")
        self.people = people
        self.names_banked = names_banked
        self.contacts_banked = contacts_banked
        vocabulary = COMMON + WORDS + [w.lower() for w in FIRST[:6]]
        self.vocabulary = vocabulary
        self.weights = [1.0 / (i + 1) for i in range(len(vocabulary))]  # function words first: Zipf by rank
        self.planted = 0
        self.address_cursor = self.rng.randrange(max(1, contacts_banked))

    def words(self, n: int) -> list[str]:
        """``n`` vocabulary words (Zipf-weighted), with the odd number, price, date, ticker or code."""
        out = self.rng.choices(self.vocabulary, self.weights, k=n)
        for i in range(n):
            r = self.rng.random()
            if r < 0.025:
                out[i] = str(self.rng.randint(1, 99_999))
            elif r < 0.035:
                out[i] = f"${self.rng.randint(1, 999)}.{self.rng.randint(0, 99):02d}"
            elif r < 0.042:
                out[i] = f"{self.rng.randint(1, 12)}/{self.rng.randint(1, 28)}/0{self.rng.randint(0, 2)}"
            elif r < 0.05:
                out[i] = self.rng.choice(TICKERS)
            elif r < 0.055:
                out[i] = f"#{self.rng.randint(100_000, 999_999)}"
            elif r < 0.12:  # the long tail: rare words, sharing letters and prefixes with the banked names
                out[i] = _syllable_word(self.rng, self.rng.randint(1, 3))
        return out

    def sentence(self) -> str:
        """One sentence of 6-20 words."""
        w = self.words(self.rng.randint(6, 20))
        text = " ".join(w)
        if self.rng.random() < 0.3:
            cut = self.rng.randrange(1, len(w))
            text = " ".join(w[:cut]) + ", " + " ".join(w[cut:])
        return text[0].upper() + text[1:] + self.rng.choice([".", ".", ".", "?", "!"])

    def paragraph(self, target: int) -> str:
        """Sentences until ``target`` characters."""
        out: list[str] = []
        size = 0
        while size < target:
            s = self.sentence()
            out.append(s)
            size += len(s) + 1
        return " ".join(out)

    def banked_person(self) -> dict[str, str]:
        return self.people[self.rng.randrange(self.names_banked)]

    def name_hit(self) -> str:
        """A banked name as it shows up in text: spacing and case variants of the banked surface."""
        self.planted += 1
        surface = self.banked_person()["surface"]
        r = self.rng.random()
        if r < 0.15:
            surface = surface.replace(" ", "  ", 1)
        elif r < 0.22:
            surface = surface.replace(" ", "\n", 1)
        elif r < 0.25:
            surface = surface.replace(" ", " \t", 1)
        r = self.rng.random()
        if r < 0.08:
            surface = surface.upper()
        elif r < 0.14:
            surface = surface.lower()
        return surface

    def address_hit(self, spread: bool = False) -> str:
        """A known address (``spread``: walk the contact list, so many documents touch many detectors), or 15% of
        the time an unknown one that only the fallback regex catches."""
        self.planted += 1
        if self.rng.random() < 0.15 or self.contacts_banked == 0:
            person = self.people[self.rng.randrange(len(self.people))]
            local = person["address"].split("@")[0]
            return f"{local}@{self.rng.choice(UNKNOWN_DOMAINS)}"
        if spread:
            self.address_cursor = (self.address_cursor + 7_919) % self.contacts_banked
            address = self.people[self.address_cursor]["address"]
        else:
            address = self.people[self.rng.randrange(self.contacts_banked)]["address"]
        return address if self.rng.random() < 0.9 else address.capitalize()

    def miss_name(self) -> str:
        """A full name that is in no bank (an outsider), or a banked first name alone: no record expected."""
        if self.rng.random() < 0.5 and len(self.people) > self.names_banked:
            return self.people[self.rng.randrange(self.names_banked, len(self.people))]["surface"]
        return self.banked_person()["surface"].split()[0]

    def signature(self, name: str) -> str:
        """A sign-off, sometimes with a title, a fictional phone number and a URL on an example domain."""
        lines = [self.rng.choice(["Thanks,", "Regards,", "Best,", "Thx", "--"]), name]
        if self.rng.random() < 0.5:
            lines.append(self.rng.choice(["Director, Gas Trading", "Analyst", "Manager, Risk Control",
                                          "VP Origination", "Legal Specialist"]))
            lines.append(f"(713) 555-01{self.rng.randint(0, 99):02d}")
        if self.rng.random() < 0.2:
            lines.append(f"http://www.{self.rng.choice(DOMAINS)}/{'/'.join(self.words(2))}")
        return "\n".join(lines)


def normal_mail(mail: Mail, target: int = 2_200, hits: tuple[int, int] = (3, 4)) -> str:
    """An e-mail body of about ``target`` bytes with ``hits`` planted bank hits among misses."""
    k = mail.rng.randint(*hits)
    pieces = [mail.rng.choice(["Hi,", "Hello all,", "Team,", "All -", "Quick note:"])]
    plants = [mail.rng.choice(("name", "address")) for _ in range(k)]
    size = 0
    per = max(200, target // (k + 2))
    for plant in plants:
        para = mail.paragraph(per)
        if plant == "name":
            para += f" Please check with {mail.name_hit()} before the {mail.words(1)[0]} review."
        else:
            para += f" Send the {mail.words(1)[0]} file to {mail.address_hit()} today."
        if mail.rng.random() < 0.5:
            para += f" {mail.miss_name()} said {' '.join(mail.words(5))}."
        pieces.append(para)
        size += len(para)
    if size < target - 150:
        pieces.append(mail.paragraph(target - 150 - size))
    pieces.append(mail.signature(mail.miss_name()))
    return "\n\n".join(pieces) + "\n"


def dense_mail(mail: Mail, target: int = 2_800, hits: int = 31) -> str:
    """Meeting notes / a forwarded header block: about ``hits`` hits in about ``target`` bytes."""
    lines = ["-----Original Message-----"]
    start = mail.planted
    while mail.planted - start < hits - 1:
        pair = mail.rng.random()
        if pair < 0.5:
            lines.append(f"{mail.name_hit()} <{mail.address_hit()}>,")
        elif pair < 0.75:
            lines.append(f"- {mail.name_hit()}: {' '.join(mail.words(mail.rng.randint(3, 8)))}")
        else:
            lines.append(f"cc {mail.address_hit()} re {' '.join(mail.words(mail.rng.randint(2, 5)))}")
    lines.append("")
    body = mail.paragraph(max(100, target - sum(len(s) + 1 for s in lines) - 60))
    return "\n".join(lines) + "\n" + body + "\n" + f"Call {mail.name_hit()} with questions.\n"


def addrlist_mail(mail: Mail, addresses: int = 50) -> str:
    """Distribution-list mail: a ``To:`` list of ``addresses`` addresses walked across the contact list."""
    entries = [mail.address_hit(spread=True) for _ in range(addresses)]
    header = "To: "
    lines = []
    for entry in entries:
        if len(header) + len(entry) > 76:
            lines.append(header.rstrip())
            header = "    "
        header += entry + ", "
    lines.append(header.rstrip(", "))
    subject = "Subject: " + " ".join(mail.words(mail.rng.randint(3, 7))).capitalize()
    return "\n".join(lines) + "\n" + subject + "\n\n" + mail.paragraph(mail.rng.randint(300, 900)) + "\n"


def long_mail(mail: Mail, target: int) -> str:
    """A long thread: normal messages with growing ``>`` quoting until ``target`` bytes."""
    parts: list[str] = []
    size = 0
    depth = 0
    while size < target:
        msg = normal_mail(mail, mail.rng.randint(1_200, 3_500))
        if depth:
            msg = "\n".join(">" * depth + " " + line if line else ">" * depth for line in msg.splitlines()) + "\n"
        header = f"\n-----Original Message-----\nFrom: {mail.name_hit()}\nSent: {' '.join(mail.words(3))}\n\n"
        parts.append(header + msg)
        size += len((header + msg).encode("utf-8"))
        depth = min(depth + (1 if mail.rng.random() < 0.3 else 0), 6)
    return "".join(parts)


def make_workload(kind: str, people: list[dict[str, str]], patterns: int, seed: int,
                  count: int | None = None) -> tuple[list[str], int]:
    """The documents of one workload for the bank of ``patterns`` patterns, and how many hits were planted."""
    names_banked = patterns - patterns // 2
    contacts_banked = patterns // 2 - 1
    mail = Mail(people, names_banked, contacts_banked, seed, f"{kind}:{patterns}")
    docs: list[str] = []
    if kind == "normal":
        docs = [normal_mail(mail, mail.rng.randint(1_700, 2_700)) for _ in range(count or 2_000)]
    elif kind == "dense":
        docs = [dense_mail(mail) for _ in range(count or 500)]
    elif kind == "addrlist":
        docs = [addrlist_mail(mail) for _ in range(count or 500)]
    elif kind == "long":
        sizes = LONG_SIZES if count is None else LONG_SIZES[:count]
        docs = [long_mail(mail, size) for size in sizes]
    else:
        raise ValueError(f"unknown workload {kind}")
    return docs, mail.planted
