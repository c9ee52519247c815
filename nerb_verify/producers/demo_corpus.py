"""The embedded synthetic demo corpus: Enron-shaped JSONL rows plus an answer key of the entities planted in them.

Everything is generated from a seed (no real person, no real address: names are drawn from a small fixed list and
addresses use the reserved ``example.com`` domain of RFC 2606). Each message has a sender and recipients written as
``Display Name <address>`` (so the bank builder can mine contacts and person aliases from train headers) and a plain
text body that mentions some people by name and some by address. The answer key records, per ``file_name``, every
(class, surface) the generator planted in the subject and body. It is exhaustive by construction for what the
generator planted, but nobody annotated or reviewed it, so on its own it is ``structured_weak``; the demo's gold is
two annotation passes adjudicated against it (``demo_annotation``), which is what makes it ``independent``.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

FIRST = ["Ada", "Bruno", "Carla", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kiri", "Luca",
         "Maren", "Nils", "Olga", "Pavel", "Quinn", "Rosa", "Soren", "Tamsin", "Ulla", "Viktor", "Wanda", "Yusuf"]
LAST = ["Abbott", "Brandt", "Castell", "Dorsey", "Ekland", "Fairley", "Grove", "Hollis", "Ivers", "Jarrow",
        "Kessler", "Lund", "Marlow", "Norcott", "Oakes", "Pryor", "Quayle", "Rusk", "Stroud", "Tolley"]
WORDS = ["gas", "power", "deal", "contract", "price", "curve", "desk", "pipeline", "capacity", "schedule", "meeting", "review", "draft", "term", "sheet", "credit", "risk", "position", "volume", "basis", "spread", "hedge", "storage", "tariff", "filing", "budget", "forecast", "report", "model", "update", "approval", "issue", "question", "tomorrow", "morning", "week", "month", "plan", "team", "project", "market", "index", "invoice", "payment", "delivery", "balance", "ledger", "margin", "exposure", "limit", "policy", "memo", "summary", "agenda", "status"]
EPOCH = datetime(2000, 1, 3, 9, 0, tzinfo=timezone.utc)


def _people(rng: random.Random, count: int) -> list[tuple[str, str]]:
    pairs = [(f, last) for f in FIRST for last in LAST]
    rng.shuffle(pairs)
    return [(f"{f} {last}", f"{f.lower()}.{last.lower()}@example.com") for f, last in pairs[:count]]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 12))]
    return words[0].capitalize() + " " + " ".join(words[1:]) + "."


def generate(messages: int = 400, seed: int = 7, people: int = 40, negative_share: float = 0.0
             ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Rows (corbt/enron-emails shape) and the answer key, both deterministic in ``seed``.

    ``negative_share`` makes about that share of messages negative (no mention and no signature in subject or body),
    drawn from a second generator so that 0.0 (the default) gives exactly the same corpus as before; the decision
    demo uses it so its 100-document gate sample meets the charter's >= 20 negative documents.
    """
    rng = random.Random(seed)
    negatives = random.Random(f"{seed}-negative")
    everyone = _people(rng, people + 8)
    roster, outsiders = everyone[:people], everyone[people:]  # outsiders never appear in a header: not in any bank
    rows: list[dict[str, Any]] = []
    key: list[dict[str, Any]] = []
    for index in range(messages):
        sender = roster[rng.randrange(len(roster))]
        recipients = rng.sample([p for p in roster if p != sender], rng.randint(1, 3))
        mentions: list[tuple[str, str]] = []
        negative = negatives.random() < negative_share
        lines = [_sentence(rng)]
        for _ in range(rng.randint(0, 3)):
            pool = outsiders if rng.random() < 0.15 else roster
            person = pool[rng.randrange(len(pool))]
            if negative:
                rng.random()  # same draws as a positive message, so the rest of the corpus does not move
                lines.append(f"Please check the {rng.choice(WORDS)} numbers before the review.")
            elif rng.random() < 0.5:
                lines.append(f"Please check with {person[0]} before the {rng.choice(WORDS)} review.")
                mentions.append(("person", person[0]))
            else:
                lines.append(f"Send the {rng.choice(WORDS)} file to {person[1]} today.")
                mentions.append(("contact", person[1]))
        lines.append(_sentence(rng))
        signature = rng.random() < 0.6 and not negative
        body = "\n".join(lines) + ("\n\nThanks,\n" + sender[0] if signature else "") + "\n"
        if signature:
            mentions.append(("person", sender[0]))
        owner = sender[1].split("@")[0].replace(".", "-")
        file_name = f"maildir/{owner}/sent/{index}."
        date = EPOCH + timedelta(hours=7 * index + rng.randint(0, 5))
        rows.append({
            "message_id": f"<demo.{seed}.{index}@example.com>",
            "from": f"{sender[0]} <{sender[1]}>",
            "to": [f"{name} <{address}>" for name, address in recipients],
            "cc": None, "bcc": None,
            "subject": f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} {index}",
            "date": date.isoformat(),
            "body": body,
            "file_name": file_name,
        })
        key.append({"file_name": file_name, "message_id": f"<demo.{seed}.{index}@example.com>", "mentions": [{"entity_class": c, "surface": s} for c, s in mentions]})
    return rows, key


def write(out_dir: Path, messages: int = 400, seed: int = 7, negative_share: float = 0.0) -> tuple[Path, Path]:
    """Write ``corpus.jsonl`` and ``answer-key.jsonl`` under ``out_dir`` (private: 0700 folder, 0600 files)."""
    out_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    rows, key = generate(messages, seed, negative_share=negative_share)
    corpus = out_dir / "corpus.jsonl"
    answers = out_dir / "answer-key.jsonl"
    corpus.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    answers.write_text("".join(json.dumps(k, sort_keys=True) + "\n" for k in key), encoding="utf-8")
    for path in (corpus, answers):
        path.chmod(0o600)
    return corpus, answers
