"""Finding messages for privacy codes: fixed templates filled only with labels our code wrote (never input text)."""

from __future__ import annotations

from nerb_verify import codes
from nerb_verify.findings import Collector, Finding, Label

MAX_FINDINGS_PER_FILE = 1000

TRUNCATED = codes.register(
    "privacy.findings_truncated", "More privacy findings in this file than the report limit; the rest are omitted.",
    "At most 1,000 privacy findings are reported per file so a hostile file cannot flood the output. The file is "
    "already rejected; fix the reported places and scan again to see the rest.", severity="warning")

# Where in a file a finding sits, as our own words.
VALUE = Label("A string value")
KEY = Label("An object key")
NUMBER = Label("A number")
LINE = Label("The line")
LINK = Label("The symbolic link's target")
NAME = Label("The file or folder name")
JOINED = Label("Adjacent strings or lines read together")
ARRAY = Label("An array read as text (character codes or single characters)")


def add(collector: Collector, code: str, artifact: str, pointer: str, where: Label, profile: str,
        line: int | None = None, column: int | None = None) -> Finding:
    """Record one privacy finding: '<where>: <code title> (<profile> profile)'. No value, key or hash is included."""
    title = codes.get(code).title.rstrip(".")
    template = "{where}: " + title.replace("{", "{{").replace("}", "}}") + " ({profile} profile)."
    return collector.add(code, artifact, pointer, template, line=line, column=column, where=where,
                         profile=Label(profile))
