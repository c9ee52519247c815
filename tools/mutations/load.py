"""Broken fixtures for the load family: hostile bytes in an artifact, publication list refreshed afterwards.

Each case writes the hostile content *after* sealing (post_ops) and then refreshes only publication.json's artifact
list (post_seal), so the raw-byte binding holds and only the loader can catch the problem.
"""

from __future__ import annotations

import base64

TARGET = "bank-card.json"


def _hostile(code: str, slug: str, op: dict, description: str, target: str = TARGET) -> dict:
    op = dict(op, file=target)
    return {"code": code, "slug": slug, "base": "nerb-enron", "ops": [], "reseal": False, "post_ops": [op],
            "post_seal": ["publication"], "description": description, "expect": {"codes": [code]}}


def _text(text: str) -> dict:
    return {"op": "write_text", "text": text}


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


CASES = [
    _hostile("load.empty", "empty-bank-card", _text(""), "An empty artifact is missing evidence."),
    _hostile("load.bom", "bom-bank-card", {"op": "prepend_bytes", "base64": _b64(b"\xef\xbb\xbf")},
             "A UTF-8 byte order mark before the JSON text."),
    _hostile("load.invalid_utf8", "invalid-utf8", {"op": "write_bytes", "base64": _b64(b'{"a": "\xc3\x28"}')},
             "An invalid UTF-8 sequence inside a string."),
    _hostile("load.invalid_utf8", "encoded-surrogate",
             {"op": "write_bytes", "base64": _b64(b'{"a": "\xed\xa0\x80"}')},
             "A surrogate encoded directly in UTF-8 (CESU-style), which strict UTF-8 forbids."),
    _hostile("load.invalid_json", "trailing-garbage", {"op": "append_bytes", "base64": _b64(b"}")},
             "Text after the top-level value."),
    _hostile("load.invalid_json", "raw-control-char", _text('{"a": "x\ty"}'),
             "A raw tab inside a string."),
    _hostile("load.too_deep", "nested-10000",
             {"op": "write_repeat", "prefix": '{"a":', "unit": "[", "count": 10000, "suffix": "]" * 10000 + "}"},
             "Nesting 10,000 levels deep; refused before parsing."),
    _hostile("load.too_many_nodes", "array-300k",
             {"op": "write_repeat", "prefix": '{"a":[0', "unit": ",0", "count": 300000, "suffix": "]}"},
             "300,001 values; refused before any object is built."),
    _hostile("load.collection_too_large", "array-10001",
             {"op": "write_repeat", "prefix": '{"a":[0', "unit": ",0", "count": 10000, "suffix": "]}"},
             "One array with 10,001 members."),
    _hostile("load.string_too_long", "string-4097",
             {"op": "write_repeat", "prefix": '{"a":"', "unit": "x", "count": 4097, "suffix": '"}'},
             "A 4,097-character string."),
    _hostile("load.duplicate_key", "same-value", _text('{"a": 1, "a": 1}'), "A key repeated with the same value."),
    _hostile("load.duplicate_key", "different-value", _text('{"b": {"a": 1, "a": 2}}'),
             "A nested key repeated with a different value."),
    _hostile("load.non_finite_number", "nan", _text('{"a": NaN}'), "NaN is not JSON."),
    _hostile("load.non_finite_number", "infinity", _text('{"a": [-Infinity]}'), "-Infinity is not JSON."),
    _hostile("load.number_out_of_range", "1e999", _text('{"a": 1e999}'), "A number that overflows a double."),
    _hostile("load.number_out_of_range", "int-5000-digits",
             {"op": "write_repeat", "prefix": '{"a":', "unit": "9", "count": 5000, "suffix": "}"},
             "An integer with 5,000 digits."),
    _hostile("load.lone_surrogate", "lone-high-surrogate", _text('{"a": "\\ud800"}'),
             "An unpaired surrogate escape."),
    _hostile("load.wrong_root_type", "array-root", _text("[]"), "An artifact whose root is an array."),
    _hostile("load.too_large", "evidence-17mib",
             {"op": "write_repeat", "prefix": "{", "unit": " ", "count": 17 * 1024 * 1024, "suffix": "}"},
             "An evidence file over the 16 MiB contract cap (generated on the fly, not stored).",
             target="benchmark-evidence.json"),
]
