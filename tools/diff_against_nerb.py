#!/usr/bin/env python3
"""Differential check of the RE2 engine against NERB's own engine on random banks and texts (not a test).

Run with an interpreter that has google-re2 and ``nerb`` (a throwaway venv; nerb is never a dependency):

    PYTHONPATH=. /tmp/venv-gre2/bin/python tools/diff_against_nerb.py --cases 2000 --seed 1

Banks: 1-2 entities of 1-6 literals (random case sensitivity, whitespace normalization and boundaries) plus, half
the time, NERB's email fallback regex; texts from a hostile alphabet (Kelvin sign, long s, sharp s, Greek, combining
marks, circled letters, NBSP, em space, zero-width space) mixed with the literals. Records are compared on
(entity, canonical, surface, string, start, end); the first disagreement is printed and the exit code is 1.
"""

from __future__ import annotations

import argparse
import json
import random
import sys

ALPHABET = ["a", "b", "k", "K", "\u212a", "s", "S", "\u017f", "\u00df", "\u03a9", "\u03c9", "\u00e9", "\u0301",
            "\u24b6", "1", "_", "-", ".", "@", " ", "\u00a0", "\t", "\u2003", "\u200b", "x", "\n"]
EMAIL = (r"(?i)\b[a-z0-9_][a-z0-9.!#$%&'*+/=?^_`{|}~-]*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+"
         r"[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?\b")


ASCII_ALPHABET = ["a", "b", "k", "K", "s", "S", "1", "_", "-", ".", "@", "x"]
TEXT_EXTRA = ["\u212a", "\u017f", "\u00e9", " ", "\u24b6"]


def word(rng: random.Random, alphabet: list[str] | None = None) -> str:
    return "".join(rng.choice(alphabet or ALPHABET) for _ in range(rng.randint(1, 4)))


def make_case(rng: random.Random, ascii_literals: bool = False) -> tuple[dict, str]:
    entities = {}
    values = []
    for e in range(rng.randint(1, 2)):
        names = {}
        for i in range(rng.randint(1, 6)):
            value = word(rng, ASCII_ALPHABET if ascii_literals else None)
            values.append(value)
            names[f"n{i}"] = {"canonical": f"N{i}", "description": "", "status": "active", "metadata": {},
                              "patterns": {"p": {"kind": "literal", "value": value, "description": "",
                                                 "status": "active", "priority": rng.randint(0, 3),
                                                 "case_sensitive": rng.random() < 0.5,
                                                 "normalize_whitespace": rng.random() < 0.5,
                                                 "left_boundary": rng.choice(["none", "word"]),
                                                 "right_boundary": rng.choice(["none", "word"]), "metadata": {}}}}
        if rng.random() < (0.1 if ascii_literals else 0.5):
            names["unknown_email"] = {"canonical": "Unknown email", "description": "", "status": "active",
                                      "metadata": {}, "patterns": {"p": {"kind": "regex", "value": EMAIL,
                                                                         "description": "", "status": "active",
                                                                         "priority": rng.randint(0, 4),
                                                                         "regex_flags": [], "metadata": {}}}}
        entities[f"e{e}"] = {"description": "", "status": "active", "regex_flags": [], "metadata": {},
                             "names": names}
    bank = {"schema_version": "nerb.bank.v1", "id": "diff_bank", "name": "d", "description": "", "version": "1",
            "status": "active", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
            "unicode_normalization": "none", "default_regex_flags": [], "metadata": {}, "entities": entities}
    pieces = [rng.choice([word(rng, ASCII_ALPHABET + TEXT_EXTRA if ascii_literals else None), rng.choice(values), "a@b.kx", "x.a_b@k-a.ss", "\u03a9a@b.c\u03a9",
                          rng.choice(values).swapcase()]) for _ in range(rng.randint(0, 8))]
    return bank, "".join(pieces)


def key(records: list[dict]) -> list[tuple]:
    return sorted((r["entity"], r["canonical_name"], r["surface_name"], r["string"], r["start"], r["end"])
                  for r in records)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ascii-literals", action="store_true",
                        help="ASCII literals without whitespace (exercises the engine's Set-free path)")
    args = parser.parse_args()
    from nerb.engine import Bank

    from nerb_verify.producers.engine import EngineCompileError, compile_bank

    rng = random.Random(args.seed)
    compared = refused_both = 0
    for n in range(args.cases):
        bank, text = make_case(rng, args.ascii_literals)
        source = json.dumps(bank).encode()
        try:
            theirs = key(Bank.from_source_bytes(source, use_cache=False).scan_bytes(text.encode()))
        except Exception:  # noqa: BLE001 - NERB refused the bank; ours must refuse it too
            theirs = None
        try:
            ours = key(compile_bank(bank).scan_text(text))
        except EngineCompileError:
            ours = None
        if theirs is None and ours is None:
            refused_both += 1
            continue
        compared += 1
        if theirs != ours:
            print(json.dumps({"case": n, "bank": bank, "text": text, "nerb": theirs, "ours": ours},
                             ensure_ascii=False, indent=1))
            return 1
    print(f"{compared} cases identical, {refused_both} banks refused by both engines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
