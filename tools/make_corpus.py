#!/usr/bin/env python3
"""Deterministic generator of an Enron-like email corpus with its answer key (for tests, demos and benchmarks).

The corpus has threads (replies in four quoting styles, forwards), copies of one message in several mailboxes
(exact duplicates), byte-identical repeated rows, near duplicates (a long announcement re-sent with one word changed
and a new subject, so only the near-duplicate edge can join it), HTML-only and multipart/alternative messages,
attachments, quoted-printable Latin-1, base64 UTF-8, Windows-1252 8-bit bodies, malformed and missing dates, and
Unicode display names. Current bodies never mention an address; quoted parts do.

Outputs (``--form jsonl`` rows in the corbt/enron-emails shape, ``--form maildir`` RFC 5322 files under
``maildir/<owner>/<folder>/<n>.``) and an answer key (``answer-key.jsonl``): one line per distinct message with its
``file_name``, true ``group``, true ``current_body`` and ``current_body_core``. ``--broken`` adds hostile units
(truncated MIME, an unknown charset, a 10 MB body, binary junk, malformed JSON lines) listed in the key with
``"expect": "rejected"`` or ``"expect": "truncated"``.

Usage: ``python tools/make_corpus.py OUT_DIR --messages 500 --seed 7 --form jsonl [--broken]``
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import quopri
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

FIRST = ["Phillip", "Jeff", "Sara", "Kay", "Vince", "Louise", "John", "Tana", "Mark", "Susan", "José", "Zoë",
         "Björn", "Renée", "Łukasz", "Søren", "Chloé", "Dmitri", "Aiko", "Nuño", "Grace", "Omar", "Ingrid", "Raúl"]
LAST = ["Allen", "Dasovich", "Shackleton", "Mann", "Kaminski", "Kitchen", "Arnold", "Jones", "Taylor", "Scott",
        "Müller", "García", "Nørgaard", "O'Neil", "Dubois", "Kowalski", "Ivanova", "Tanaka", "Peña", "Lindqvist"]
FOLDERS = ["inbox", "sent_items", "deleted_items", "all_documents", "discussion_threads", "notes_inbox", "projects"]
WORDS = ('gas power deal contract price curve desk trader pipeline capacity schedule meeting call review '
         'draft term sheet counterparty credit risk position volume basis spread hedge storage transport '
         'tariff filing regulatory comment budget forecast report model update approval legal issue question '
         'answer tomorrow morning afternoon week month quarter plan team project west east north south market '
         'index settle confirm invoice payment delivery point nomination imbalance balance ledger account '
         'margin exposure limit policy memo summary agenda minutes follow action item status change request').split()  # noqa: SIM905
SUBJECT_WORDS = ('Gas deal Power curve Meeting Contract Review Schedule Budget Report Update Tariff '
                 'Filing Credit Storage Transport Approval Question Agenda Minutes Forecast Hedge Capacity Nomination').split()  # noqa: SIM905
EPOCH = datetime(1999, 1, 1, tzinfo=timezone.utc)


@dataclass
class Person:
    name: str
    address: str
    owner: str


@dataclass
class Msg:
    file_name: str
    message_id: str
    sender: Person
    to: list[Person]
    cc: list[Person]
    subject: str
    date: datetime | str | None
    current: str
    core: str
    quoted: str = ""
    in_reply_to: str | None = None
    form: str = "plain"
    group: str = ""
    expect: str = "prepared"
    extra: dict[str, Any] = field(default_factory=dict)


def _sentence(rng: random.Random, low: int = 6, high: int = 14) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    return words[0].capitalize() + " " + " ".join(words[1:]) + "."


def _paragraphs(rng: random.Random, count: int) -> str:
    return "\n\n".join(" ".join(_sentence(rng) for _ in range(rng.randint(1, 3))) for _ in range(count))


def _date_text(value: datetime | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return value.strftime("%a, %d %b %Y %H:%M:%S -0700 (PDT)") if value.month in range(4, 11) else \
        value.strftime("%a, %d %b %Y %H:%M:%S -0800 (PST)")


def _local(value: datetime | str | None) -> str:
    if isinstance(value, datetime):
        return value.strftime("%m/%d/%Y %I:%M %p")
    return "unknown date"


def _quote_block(rng: random.Random, parent: Msg, style: int) -> str:
    text = parent.current + ("\n\n" + parent.quoted if parent.quoted else "")
    to_line = "; ".join(p.address for p in parent.to)
    if style == 0:
        return ("-----Original Message-----\nFrom: " + parent.sender.name + " [mailto:" + parent.sender.address +
                "]\nSent: " + _local(parent.date) + "\nTo: " + to_line + "\nSubject: " + parent.subject + "\n\n" + text)
    if style == 1:
        return ("On " + _local(parent.date) + ", " + parent.sender.name + " <" + parent.sender.address +
                "> wrote:\n" + "\n".join("> " + line if line else ">" for line in text.split("\n")))
    if style == 2:
        return ("________________________________\nFrom: " + parent.sender.address + "\nSent: " + _local(parent.date) +
                "\nTo: " + to_line + "\nSubject: " + parent.subject + "\n\n" + text)
    return ("---------------------- Forwarded by " + parent.sender.name + "/HOU/ECT on " + _local(parent.date) +
            " ---------------------------\n\n\n" + parent.sender.address + " on " + _local(parent.date) +
            "\nTo: " + to_line + "\ncc:\nSubject: " + parent.subject + "\n\n" + text)


class Generator:
    """Builds the message list deterministically from ``seed``."""

    def __init__(self, messages: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.target = messages
        self.people = self._people(max(12, messages // 6))
        self.msgs: list[Msg] = []
        self.counter = 0
        self.group_counter = 0
        self.file_counters: dict[tuple[str, str], int] = {}
        self.subject_counter = 0

    def _people(self, count: int) -> list[Person]:
        people = []
        for index in range(count):
            first, last = self.rng.choice(FIRST), self.rng.choice(LAST)
            ascii_first = first.encode("ascii", "ignore").decode().lower() or "user"
            ascii_last = last.encode("ascii", "ignore").decode().lower().replace("'", "") or "name"
            people.append(Person(f"{first} {last}", f"{ascii_first}.{ascii_last}.{index}@enron.com",
                                 f"{ascii_last}-{ascii_first[0]}{index}"))
        return people

    def _file(self, owner: str, folder: str) -> str:
        key = (owner, folder)
        self.file_counters[key] = self.file_counters.get(key, 0) + 1
        return f"maildir/{owner}/{folder}/{self.file_counters[key]}."

    def _mid(self) -> str:
        self.counter += 1
        return f"<{self.counter}.{self.rng.randrange(10**9)}.JavaMail.evans@thyme>"

    def _group(self) -> str:
        self.group_counter += 1
        return f"g{self.group_counter:07d}"

    def _subject(self) -> str:
        self.subject_counter += 1
        return f"{self.rng.choice(SUBJECT_WORDS)} {self.rng.choice(WORDS)} {self.subject_counter}"

    def _date(self, base: datetime | None = None) -> datetime:
        if base is None:
            return EPOCH + timedelta(minutes=self.rng.randrange(3 * 365 * 24 * 60))
        return base + timedelta(minutes=self.rng.randrange(5, 5 * 24 * 60))

    def _body(self) -> tuple[str, str]:
        current = _paragraphs(self.rng, self.rng.randint(1, 3))
        roll = self.rng.random()
        if roll < 0.15:
            return current + "\n\n--\n" + self.rng.choice(FIRST) + "\nEnron North America", current
        if roll < 0.22:
            return current + "\n\nSent from my BlackBerry Wireless Handheld", current
        return current, current

    def _form(self) -> str:
        roll = self.rng.random()
        for form, limit in (("alt", 0.10), ("html", 0.15), ("mixed_attach", 0.20), ("qp_latin1", 0.25),
                            ("b64_utf8", 0.30), ("cp1252_8bit", 0.33)):
            if roll < limit:
                return form
        return "plain"

    def _date_value(self) -> datetime | str | None:
        roll = self.rng.random()
        if roll < 0.05:
            return None
        if roll < 0.07:
            return "sometime next week"
        return self._date()

    def build(self) -> list[Msg]:
        while len(self.msgs) < self.target:
            roll = self.rng.random()
            if roll < 0.45:
                self._thread()
            elif roll < 0.60:
                self._copies()
            elif roll < 0.70:
                self._near_duplicates()
            else:
                self._single(self._group())
        return self.msgs[: self.target]

    def _single(self, group: str, subject: str | None = None) -> Msg:
        sender = self.rng.choice(self.people)
        to = self.rng.sample(self.people, self.rng.randint(1, 3))
        current, core = self._body()
        msg = Msg(self._file(sender.owner, self.rng.choice(FOLDERS)), self._mid(), sender, to, [],
                  subject or self._subject(), self._date_value(), current, core, form=self._form(), group=group)
        self.msgs.append(msg)
        return msg

    def _thread(self) -> None:
        group = self._group()
        root = self._single(group)
        if not isinstance(root.date, datetime):
            root.date = self._date()
        parent = root
        for _ in range(self.rng.randint(1, 4)):
            style = self.rng.randrange(4)
            sender = self.rng.choice(parent.to)
            current, core = self._body()
            prefix = "FW: " if style == 3 else "RE: "
            reply = Msg(self._file(sender.owner, self.rng.choice(["sent_items", "inbox", "all_documents"])),
                        self._mid(), sender, [parent.sender] + self.rng.sample(self.people, self.rng.randint(0, 1)),
                        [], prefix + root.subject, self._date(parent.date if isinstance(parent.date, datetime)
                                                             else None),
                        current, core, quoted=_quote_block(self.rng, parent, style),
                        in_reply_to=parent.message_id, form=self.rng.choice(["plain", "plain", "alt", "qp_latin1"]),
                        group=group)
            self.msgs.append(reply)
            parent = reply

    def _copies(self) -> None:
        group = self._group()
        original = self._single(group)
        for person in original.to[:2]:
            copy = Msg(**{**original.__dict__, "file_name": self._file(person.owner, "inbox"), "extra": {}})
            self.msgs.append(copy)
        if self.rng.random() < 0.5:
            twin = Msg(**{**original.__dict__, "extra": {"identical_row": True}})
            self.msgs.append(twin)

    def _near_duplicates(self) -> None:
        group = self._group()
        words = [self.rng.choice(WORDS) for _ in range(self.rng.randint(220, 320))]
        base = " ".join(words)
        sender = self.rng.choice(self.people)
        for variant in range(self.rng.randint(2, 3)):
            edited = list(words)
            if variant == 1:  # same tokens, different case and punctuation: a normalised near duplicate
                edited = [w.upper() if i % 7 == 0 else w + ("," if i % 11 == 0 else "") for i, w in enumerate(edited)]
            elif variant == 2:  # same tokens reflowed with extra punctuation
                edited = [w + (" -" if i % 5 == 0 else "") for i, w in enumerate(edited)]
            cut = 100 + variant * 17
            text = " ".join(edited[:cut]) + "\n\n" + " ".join(edited[cut:])
            subject = f"Announcement {self.subject_counter + 1}-{variant} {self.rng.choice(SUBJECT_WORDS)}"
            self.subject_counter += 1
            to = [p for p in self.rng.sample(self.people, 3) if p is not sender][:2]
            msg = Msg(self._file(sender.owner, "sent_items"), self._mid(), sender, to, [], subject, self._date(),
                      text, text, form="plain", group=group)
            self.msgs.append(msg)
        del base


# ---------------------------------------------------------------- rendering

def _full_text(msg: Msg) -> str:
    return msg.current + ("\n\n" + msg.quoted if msg.quoted else "")


def _html(text: str) -> str:
    paragraphs = "".join("<p>" + para.replace("&", "&amp;").replace("<", "&lt;").replace("\n", "<br>") + "</p>\n"
                         for para in text.split("\n\n"))
    return "<html><head><style>p {margin:0}</style></head><body>\n" + paragraphs + "</body></html>"


def mime_body(msg: Msg) -> tuple[list[tuple[str, str]], str]:
    """(MIME headers, body text) for the message's form; the body text may carry Latin-1 code points as bytes."""
    text = _full_text(msg)
    boundary = "----=_Part_" + hashlib.sha256(msg.message_id.encode()).hexdigest()[:12]
    if msg.form == "plain":
        return [("Content-Type", "text/plain; charset=utf-8"), ("Content-Transfer-Encoding", "8bit")], text
    if msg.form == "html":
        return [("Content-Type", "text/html; charset=utf-8"), ("Content-Transfer-Encoding", "8bit")], _html(text)
    if msg.form == "alt":
        body = (f"--{boundary}\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n{text}\n"
                f"--{boundary}\nContent-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n"
                f"{_html(text)}\n--{boundary}--\n")
        return [("Content-Type", f'multipart/alternative; boundary="{boundary}"'), ("MIME-Version", "1.0")], body
    if msg.form == "mixed_attach":
        attachment = base64.encodebytes(bytes(range(256)) * 4).decode("ascii")
        body = (f"--{boundary}\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n{text}\n"
                f"--{boundary}\nContent-Type: application/octet-stream; name=\"deal.xls\"\n"
                f"Content-Disposition: attachment; filename=\"deal.xls\"\nContent-Transfer-Encoding: base64\n\n"
                f"{attachment}--{boundary}--\n")
        return [("Content-Type", f'multipart/mixed; boundary="{boundary}"'), ("MIME-Version", "1.0")], body
    if msg.form == "qp_latin1":
        latin = text.encode("latin-1", "replace")
        return [("Content-Type", "text/plain; charset=iso-8859-1"), ("Content-Transfer-Encoding", "quoted-printable")], \
            quopri.encodestring(latin).decode("ascii")
    if msg.form == "b64_utf8":
        return [("Content-Type", "text/plain; charset=utf-8"), ("Content-Transfer-Encoding", "base64")], \
            base64.encodebytes(text.encode("utf-8")).decode("ascii")
    if msg.form == "cp1252_8bit":
        return [("Content-Type", "text/plain; charset=windows-1252"), ("Content-Transfer-Encoding", "8bit")], \
            text.encode("cp1252", "replace").decode("latin-1")
    raise ValueError(msg.form)


def _addr(person: Person) -> str:
    return f'"{person.name}" <{person.address}>'


def to_row(msg: Msg) -> dict[str, Any]:
    """The corbt/enron-emails shaped row: bare addresses, the MIME header block in front of the body."""
    headers, body = mime_body(msg)
    if msg.form in ("plain",):
        body_text = body
    else:
        body_text = "\n".join(f"{name}: {value}" for name, value in headers) + "\n\n" + body
    return {"message_id": msg.message_id, "from": msg.sender.address, "to": [p.address for p in msg.to],
            "cc": [p.address for p in msg.cc] or None, "bcc": None, "subject": msg.subject,
            "date": _date_text(msg.date) if not isinstance(msg.date, datetime) else msg.date.isoformat(),
            "body": body_text, "file_name": msg.file_name}


def to_rfc5322(msg: Msg) -> bytes:
    """A raw message: RFC 2047-encoded Unicode names, In-Reply-To/References for replies."""
    from email.header import Header

    def encoded(person: Person) -> str:
        try:
            person.name.encode("ascii")
            return _addr(person)
        except UnicodeEncodeError:
            return Header(person.name, "utf-8").encode() + f" <{person.address}>"

    headers, body = mime_body(msg)
    lines = [f"Message-ID: {msg.message_id}"]
    date_text = _date_text(msg.date)
    if date_text is not None:
        lines.append(f"Date: {date_text}")
    lines.append(f"From: {encoded(msg.sender)}")
    lines.append("To: " + ", ".join(encoded(p) for p in msg.to))
    lines.append("Subject: " + msg.subject)
    if msg.in_reply_to:
        lines.append(f"In-Reply-To: {msg.in_reply_to}")
        lines.append(f"References: {msg.in_reply_to}")
    lines.extend(f"{name}: {value}" for name, value in headers)
    payload = body.encode("latin-1") if msg.form == "cp1252_8bit" else body.encode("utf-8")
    return ("\n".join(lines) + "\n\n").encode("utf-8") + payload


def broken_units(rng: random.Random) -> Iterator[tuple[str, dict[str, Any] | None, bytes | None, str]]:
    """(name, jsonl row or None, raw line/message bytes or None, expectation) for the hostile part of the corpus."""
    truncated = ("Content-Type: multipart/mixed; boundary=\"XYZ\"\nMIME-Version: 1.0\n\n--XYZ\nContent-Type: text/plain\n"
                 "Content-Transfer-Encoding: base64\n\nSGVsbG8gd29ybGQgdGhp")
    base = {"message_id": "<broken@x>", "from": "a.b@enron.com", "to": ["c.d@enron.com"], "cc": None, "bcc": None,
            "subject": "broken", "date": "2001-05-01T10:00:00+00:00"}
    yield "truncated_mime", {**base, "body": truncated, "file_name": "maildir/broken-a/inbox/1."}, None, "rejected"
    bad_charset = "Content-Type: text/plain; charset=x-no-such-charset\nContent-Transfer-Encoding: 8bit\n\nhello"
    yield "bad_charset", {**base, "body": bad_charset, "file_name": "maildir/broken-a/inbox/2."}, None, "rejected"
    huge = ("word " * (10 * 1024 * 1024 // 5))
    yield "huge_body", {**base, "body": huge, "file_name": "maildir/broken-a/inbox/3."}, None, "truncated"
    junk = bytes(rng.randrange(256) for _ in range(4096))
    yield "binary_junk", None, junk, "rejected"
    yield "duplicate_key", None, b'{"body": "a", "body": "b"}', "rejected"
    yield "nan", None, b'{"message_id": NaN}', "rejected"
    yield "nonobject", None, b"[1, 2, 3]", "rejected"
    yield "blank", None, b"   ", "rejected"
    yield "unknown_field", {**base, "body": "hi", "file_name": "x/y/1.", "spam": 1}, None, "rejected"
    yield "bad_type", {**base, "body": 7, "file_name": "x/y/2."}, None, "rejected"


def write_corpus(out: Path, messages: int, seed: int, form: str, broken: bool = False) -> dict[str, Any]:
    """Write the corpus and ``answer-key.jsonl`` under ``out``; returns a summary of unit counts."""
    out.mkdir(parents=True, exist_ok=True)
    msgs = Generator(messages, seed).build()
    units = 0
    key_lines: list[str] = []
    seen_files: set[str] = set()
    for msg in msgs:
        if msg.file_name in seen_files:
            continue
        seen_files.add(msg.file_name)
        lossy = {"qp_latin1": "latin-1", "cp1252_8bit": "cp1252"}.get(msg.form)
        current = msg.current.encode(lossy, "replace").decode(lossy) if lossy else msg.current
        core = msg.core.encode(lossy, "replace").decode(lossy) if lossy else msg.core
        key_lines.append(json.dumps({"file_name": msg.file_name, "group": msg.group, "current_body": current,
                                     "current_body_core": core, "expect": "prepared",
                                     "header_addresses": sorted({p.address for p in [msg.sender, *msg.to, *msg.cc]})},
                                    ensure_ascii=False, sort_keys=True))
    rng = random.Random(seed + 1)
    if form == "jsonl":
        path = out / "corpus.jsonl"
        with open(path, "wb") as handle:
            for msg in msgs:
                handle.write(json.dumps(to_row(msg), ensure_ascii=False, sort_keys=True).encode("utf-8") + b"\n")
                units += 1
            if broken:
                for name, row, raw, expect in broken_units(rng):
                    handle.write((json.dumps(row).encode("utf-8") if row is not None else raw.replace(b"\n", b" "))
                                 + b"\n")
                    units += 1
                    key_lines.append(json.dumps({"broken": name, "expect": expect}, sort_keys=True))
    else:
        root = out / "maildir"
        for msg in msgs:
            path = out / msg.file_name
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists():  # an identical-row twin is the same file in maildir form
                continue
            path.write_bytes(to_rfc5322(msg))
            units += 1
        if broken:
            broken_dir = root / "broken-b" / "inbox"
            broken_dir.mkdir(parents=True, exist_ok=True)
            for name, row, raw, expect in broken_units(rng):
                if name in ("duplicate_key", "nan", "nonobject", "blank", "unknown_field", "bad_type"):
                    continue
                if row is not None:
                    head = (f"Message-ID: <{name}@x>\nFrom: a.b@enron.com\nTo: c.d@enron.com\nSubject: {name}\n"
                            f"Date: Tue, 1 May 2001 10:00:00 +0000\n")
                    data = (head + row["body"]).encode("utf-8") if row["body"].startswith("Content-Type") else \
                        (head + "\n" + row["body"]).encode("utf-8")
                    if name == "huge_body":
                        expect = "rejected"
                else:
                    data = raw or b""
                (broken_dir / f"{name}.").write_bytes(data)
                units += 1
                key_lines.append(json.dumps({"broken": name, "expect": expect}, sort_keys=True))
    (out / "answer-key.jsonl").write_text("\n".join(key_lines) + "\n", encoding="utf-8")
    summary = {"messages": len(msgs), "units": units, "groups": len({m.group for m in msgs}), "form": form,
               "seed": seed, "broken": broken}
    (out / "corpus-summary.json").write_text(json.dumps(summary, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--messages", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--form", choices=["jsonl", "maildir"], default="jsonl")
    parser.add_argument("--broken", action="store_true", help="append hostile units (counted rejections)")
    args = parser.parse_args(argv)
    summary = write_corpus(args.out, args.messages, args.seed, args.form, args.broken)
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
