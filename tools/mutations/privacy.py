"""Broken fixtures for the privacy family: identifiers NERB's own scan lets through (spec 30, C.2 and C.4).

NERB contract-scans only the manifest, the evidence and the capacity decision and gives the rest a narrow byte scan,
so a fullwidth or JSON-escaped identifier in ``bank-card.json`` or ``performance-report.json`` is published. Every
value here is one that only the contract profile rejects (a reserved-domain address, a fictional-range or compact
phone number, a generic temporary path, a phone-length number), so the repository's own scan of these case files
stays clean. Where another family also objects (the card's version format, the report's hash pattern, funnel
conservation), its code is part of the expected set: the privacy code is what NERB misses.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

from nerb_verify.canonical import nerb_pretty_bytes

FULLWIDTH_AT = "\uff20"


def _nest_base64(text: str, layers: int) -> str:
    for _ in range(layers):
        text = base64.b64encode(text.encode()).decode()
    return text


# Values both profiles reject are built here at run time from pieces, so the committed case files hold only a kind
# name and the repository's own scan of them stays clean.
_BUILT: dict[str, str] = {
    "ssn": "219-" + "09-" + "9999",
    "home": "/ho" + "me/" + "jroe/notes",
    "share": "\\\\" + "fileserver" + "\\" + "share",
    "file_uri": "fi" + "le:///etc/hosts",
    "doc_id": "doc_" + "0123456789abcdef" * 4,
    "not_converged": "A%" + "25" * 9 + "41",
    "url_too_deep": "".join("https://h%d.example.org/?u=" % n for n in range(6)) + "x",
    "base64_address": base64.b64encode(("ops" + "@example.org").encode()).decode(),
    "hex_home": ("/ho" + "me/" + "jroe/notes").encode().hex(),
    "base64_six_deep": _nest_base64("nothing to see here", 6),
    "escaped_traversal": ".." + "%2F" + ".." + "%2F" + "bank-v1",
    # 1,000 ligatures of 18 characters each, gzipped and base64-encoded: 60-odd characters in the field, 18,000 once
    # inflated and NFKC-normalised.
    "expanding_payload": base64.b64encode(gzip.compress(("\ufdfa" * 1000).encode(), mtime=0)).decode(),
}


def privacy_set_string(bundle_dir: Path, file: str, path: list, kind: str) -> None:
    """Set the string at ``path`` (a list of keys) in ``file`` to the built value ``kind``; pretty NERB bytes."""
    target = bundle_dir / file
    document = json.loads(target.read_text(encoding="utf-8"))
    node = document
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = _BUILT[kind]
    target.write_bytes(nerb_pretty_bytes(document))


TRANSFORMS = {"privacy_set_string": privacy_set_string}


def _built(kind: str, file: str = "bank-card.json", path: tuple = ("bank", "version")) -> list:
    return [{"op": "json_edit", "transform": "privacy_set_string",
             "args": {"file": file, "path": list(path), "kind": kind}}]


def _case(code: str, slug: str, ops: list, description: str, *, codes: list[str], reseal: bool = True,
          post_ops: list | None = None, post_seal: list | None = None) -> dict:
    case = {"code": code, "slug": slug, "base": "nerb-enron", "ops": ops, "reseal": reseal,
            "description": description, "expect": {"codes": codes}}
    if post_ops:
        case["post_ops"] = post_ops
    if post_seal:
        case["post_seal"] = post_seal
    return case


CASES = [
    _case("privacy.email", "card-version-json-escaped-address",
          [{"op": "json_set", "file": "bank-card.json", "pointer": "/bank/version", "value": "ops" + "@example.org"}],
          "The address is written with a JSON escape in the file bytes, which hides it from a byte scan (C.2 #2).",
          codes=["card.bank_version_format", "privacy.email"],
          post_ops=[{"op": "replace_text", "file": "bank-card.json", "old": '"version": "ops' + '@example.org"',
                     "new": '"version": "ops\\u0040example.org"'}],
          post_seal=["publication"]),
    _case("privacy.email", "card-version-fullwidth-address-and-tmp-path",
          [{"op": "json_set", "file": "bank-card.json", "pointer": "/bank/version",
            "value": "ops" + FULLWIDTH_AT + "example.org /tmp/x"}],
          "bank-card bank.version carries a fullwidth-at address and a temporary path (NERB: accepted, C.2 #4).",
          codes=["card.bank_version_format", "privacy.email", "privacy.local_path"]),
    _case("privacy.at_sign", "performance-report-plan-hash-text", [],
          "performance-report plan_sha256 holds free text with a fullwidth at-sign (NERB: no format check, C.2 #3); "
          "written after sealing, so only the publication list is refreshed.",
          codes=["privacy.at_sign", "schema.pattern", "summary.verdict_mismatch"], reseal=False,
          post_ops=[{"op": "json_set", "file": "performance-report.json", "pointer": "/plan_sha256",
                     "value": "call desk " + FULLWIDTH_AT + " noon"}],
          post_seal=["publication"]),
    _case("privacy.phone", "card-version-compact-phone",
          [{"op": "json_set", "file": "bank-card.json", "pointer": "/bank/version", "value": "713555" + "0123"}],
          "bank-card bank.version is a compact North American phone number (NERB: the card is not scanned).",
          codes=["privacy.phone"]),
    _case("privacy.identifier_number", "card-funnel-phone-as-number",
          [{"op": "json_set", "file": "bank-card.json", "pointer": "/candidate_funnel/by_primary_reason/callback",
            "value": 7135550123}],
          "A phone-length integer under a free-form key of the card (NERB never scans numbers, C.4).",
          codes=["card.funnel_not_conserved", "privacy.identifier_number"]),
    _case("privacy.ssn", "card-version-ssn", _built("ssn"),
          "An SSN shape in the card's version string (the card is not scanned by NERB).",
          codes=["privacy.ssn"]),
    _case("privacy.personal_path", "card-version-home-path", _built("home"),
          "A home-directory path in the card's version string.", codes=["card.bank_version_format",
                                                                       "privacy.personal_path"]),
    _case("privacy.network_share", "card-version-unc-share", _built("share"),
          "A UNC share in the card's version string.", codes=["card.bank_version_format", "privacy.network_share"]),
    _case("privacy.file_uri", "card-version-file-uri", _built("file_uri"),
          "A file URI in the card's version string.", codes=["card.bank_version_format", "privacy.file_uri"]),
    _case("privacy.document_id", "card-version-document-id", _built("doc_id"),
          "A per-document identifier in the card's version string.",
          codes=["card.bank_version_format", "privacy.document_id"]),
    _case("privacy.encoding_not_converged", "card-version-nine-percent-layers", _built("not_converged"),
          "Nine nested percent layers: the scan cannot reach a fixed point and fails closed.",
          codes=["card.bank_version_format", "privacy.encoding_not_converged"]),
    _case("privacy.url_budget_exceeded", "card-version-urls-six-deep", _built("url_too_deep"),
          "Six URLs nested in each other's queries: deeper than the URL budget, fails closed.",
          codes=["card.bank_version_format", "privacy.url_budget_exceeded"]),
    _case("privacy.email", "card-version-base64-address", _built("base64_address"),
          "The address base64-encoded in the card's version string (decoded and rescanned).",
          codes=["privacy.email"]),
    _case("privacy.email", "card-version-spelled-address",
          [{"op": "json_set", "file": "bank-card.json", "pointer": "/bank/version",
            "value": "ops at corp-mail dot com"}],
          "An address spelled out without brackets ('name at host dot com') in the card's version string.",
          codes=["card.bank_version_format", "privacy.email"]),
    _case("privacy.personal_path", "card-version-hex-home-path", _built("hex_home"),
          "A home-directory path hex-encoded in the card's version string.",
          codes=["privacy.personal_path"]),
    _case("privacy.encoded_payload_budget", "card-version-base64-six-deep", _built("base64_six_deep"),
          "Six nested base64 layers: deeper than the payload budget, fails closed.",
          codes=["card.bank_version_format", "privacy.encoded_payload_budget"]),
    _case("privacy.path_traversal", "card-version-escaped-traversal", _built("escaped_traversal"),
          "A percent-encoded parent-directory path (two levels up, slashes written %2F) in the card's version "
          "string: outside the bundle.",
          codes=["card.bank_version_format", "privacy.path_traversal"]),
    _case("privacy.expansion_exceeds_budget", "card-version-gzipped-ligatures", _built("expanding_payload"),
          "A base64 gzip stream of 1,000 ligatures in the card's version string: the payload NFKC-expands past the "
          "normalisation budget, so it fails closed.",
          codes=["card.bank_version_format", "privacy.expansion_exceeds_budget"]),
    _case("privacy.local_path", "card-version-generic-tmp-path",
          [{"op": "json_set", "file": "bank-card.json", "pointer": "/bank/version", "value": "built in /tmp/bank"}],
          "A generic absolute path: no person in it, but public evidence may hold no local path at all.",
          codes=["card.bank_version_format", "privacy.local_path"]),
]
