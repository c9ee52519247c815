"""Broken fixtures for the bundle family: the bundle as a closed set of regular files."""

from __future__ import annotations


def _case(code: str, slug: str, ops: list, description: str, *, codes: list | None = None, reseal: bool = False,
          verdict: str = "rejected", warnings: list | None = None) -> dict:
    expect: dict = {"codes": codes if codes is not None else [code], "verdict": verdict}
    if warnings:
        expect["warnings"] = warnings
    return {"code": code, "slug": slug, "base": "nerb-enron", "ops": ops, "reseal": reseal,
            "description": description, "expect": expect}


CASES = [
    _case("bundle.unexpected_file", "ds-store", [{"op": "write_text", "file": ".DS_Store", "text": "x"}],
          "A stray .DS_Store file."),
    _case("bundle.unexpected_file", "declared-extra",
          [{"op": "write_text", "file": "notes.txt", "text": "extra\n"},
           {"op": "json_insert", "file": "publication.json", "pointer": "/artifacts/16",
            "value": {"path": "notes.txt", "sha256": "sha256:" + "1" * 64, "bytes": 6}}],
          "An extra file that publication.json declares (resealed): the contract does not expect it.", reseal=True),
    _case("bundle.missing_file", "figure-removed",
          [{"op": "delete", "file": "figures/bank-coverage.svg"},
           {"op": "json_remove", "file": "publication.json", "pointer": "/artifacts/4"}],
          "A required figure deleted and removed from the publication list (resealed).", reseal=True),
    _case("bundle.symlink", "summary-is-link", [{"op": "symlink", "file": "summary.md", "target": "publication.json"}],
          "summary.md replaced by a symbolic link (never followed)."),
    _case("bundle.symlink", "dir-link-outside", [{"op": "symlink", "file": "extras", "target": "../"}],
          "A directory link pointing out of the bundle."),
    _case("bundle.special_file", "fifo", [{"op": "mkfifo", "file": "pipe"}], "A FIFO inside the bundle."),
    _case("bundle.unsafe_name", "newline-in-name", [{"op": "write_text", "file": "bad\nname", "text": "x"}],
          "A file name with a control character."),
    _case("bundle.too_large", "1001-entries",
          [{"op": "write_text", "file": f"flood/{i:04d}", "text": ""} for i in range(1001)],
          "More than 1,000 entries in the bundle: the walk stops, so files after the cap are unread.",
          codes=["bundle.too_large", "bundle.unexpected_file", "binding.declared_missing"]),
    _case("bundle.file_mode", "group-writable", [{"op": "chmod", "file": "summary.md", "mode": "664"}],
          "A group-writable file: a hygiene warning, not tampering.", codes=[], verdict="verified",
          warnings=["bundle.file_mode"]),
    _case("bundle.hard_link", "second-name-outside", [{"op": "hardlink_external", "file": "summary.md"}],
          "A file with a second hard link outside the bundle: a warning, not tampering.", codes=[],
          verdict="verified", warnings=["bundle.hard_link"]),
]
