"""Broken-fixture library: a fixture is a patch (ops) against a base bundle, materialized on demand.

A case is a dict ``{"code", "slug", "base", "ops", "reseal", "expect"}`` (see CONTRIBUTING.md). The real bundle is
4.6 MB, so fixtures are stored as patches under ``fixtures/invalid/<CODE>-<slug>/case.json`` and applied to a fresh
copy of ``fixtures/bundles/<base>/`` in a temporary folder when a test needs them.

Ops:

* ``json_set`` {file, pointer, value}: set the value at an RFC 6901 pointer (the parent must exist; ``-`` appends);
* ``json_remove`` {file, pointer}; ``json_insert`` {file, pointer, value}: list insert before the index;
* ``json_copy`` {file, from, pointer}: copy a value inside one file (duplicate a lineage entry, say);
* ``json_edit`` {transform, args?}: a named Python transform registered by a mutation module
  (``TRANSFORMS = {name: fn(bundle_dir: Path, **args)}``);
* ``replace_text`` {file, old, new, count?}: exact text replacement (must occur);
* ``write_text`` {file, text}; ``write_bytes`` {file, base64}; ``append_bytes`` {file, base64};
* ``delete`` {file}; ``symlink`` {file, target}; ``mkdir`` {file}; ``chmod`` {file, mode (octal string)};
* ``hardlink`` {file, target}: make ``file`` a hard link to bundle file ``target``;
* ``hardlink_external`` {file}: give ``file`` a second name outside the bundle folder;
* ``prepend_bytes`` {file, base64}; ``write_repeat`` {file, prefix, unit, count, suffix} (streamed large files);
* ``mkfifo`` {file}; ``json_set_masked`` {file, pointer, value_masked} (the value's JSON text, UTF-8, every byte
  XOR 0x80, then base64: not a text encoding, so the repository's own scanner, which decodes base64, sees nothing);
* ``json_reformat`` {file, indent, sort_keys, reverse_keys, ensure_ascii, separators, trailer};
* ``replace_bytes`` {file, old_b64, new_b64}.

After ``reseal``, ``post_ops`` run, then ``post_seal`` (a list of :func:`nerb_verify.seal.seal_steps` steps such
as ``["publication"]``), so hostile bytes written by a post-op survive while the publication list is refreshed.

JSON edits re-serialise the file in NERB's pretty form (indent 2, sorted keys, trailing newline), which is
byte-identical to the published artifacts, so an unrelated edit changes nothing else. ``reseal: true`` then runs
:func:`nerb_verify.seal.seal_bundle` so every binding hash is recomputed (a hash-aware mutant).
"""

from __future__ import annotations

import base64
import copy
import importlib
import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BUNDLES = REPO / "fixtures" / "bundles"
INVALID = REPO / "fixtures" / "invalid"

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from nerb_verify.canonical import nerb_pretty_bytes  # noqa: E402
from nerb_verify.pointers import unescape  # noqa: E402
from nerb_verify.seal import seal_bundle, seal_steps  # noqa: E402

Transform = Callable[..., None]



def mask(text: str) -> str:
    """Store ``text`` so no scanner can read it: UTF-8 bytes XOR 0x80, base64 (decoding gives non-UTF-8 bytes)."""
    return base64.b64encode(bytes(b ^ 0x80 for b in text.encode("utf-8"))).decode("ascii")


def unmask(stored: str) -> str:
    """Inverse of :func:`mask`."""
    return bytes(b ^ 0x80 for b in base64.b64decode(stored)).decode("utf-8")

def _transforms() -> dict[str, Transform]:
    """Every named transform from every module in tools/mutations (TRANSFORMS dicts)."""
    found: dict[str, Transform] = {}
    for path in sorted((REPO / "tools" / "mutations").glob("*.py")):
        if path.stem.startswith("_"):
            continue
        module = importlib.import_module(f"tools.mutations.{path.stem}")
        for name, fn in getattr(module, "TRANSFORMS", {}).items():
            if name in found and found[name] is not fn:
                raise ValueError(f"transform {name} defined twice")
            found[name] = fn
    return found


def _parent(doc: Any, pointer: str) -> tuple[Any, str]:
    parts = [unescape(p) for p in pointer.split("/")[1:]]
    node = doc
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node, parts[-1]


def _get(doc: Any, pointer: str) -> Any:
    node = doc
    for part in [unescape(p) for p in pointer.split("/")[1:]]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _load(root: Path, rel: str) -> Any:
    return json.loads((root / rel).read_text(encoding="utf-8"))


def _store(root: Path, rel: str, data: Any) -> None:
    (root / rel).write_bytes(nerb_pretty_bytes(data))


def apply_op(root: Path, op: dict[str, Any]) -> None:
    """Apply one op (see module docstring) to the bundle folder ``root``."""
    kind = op["op"]
    rel = op.get("file", "")
    target = root / rel
    if kind in ("json_set", "json_remove", "json_insert", "json_copy"):
        doc = _load(root, rel)
        if kind == "json_copy":
            value = copy.deepcopy(_get(doc, op["from"]))
            parent, key = _parent(doc, op["pointer"])
            if isinstance(parent, list):
                parent.insert(len(parent) if key == "-" else int(key), value)
            else:
                parent[key] = value
        elif op["pointer"] == "" and kind == "json_set":
            doc = op["value"]
        else:
            parent, key = _parent(doc, op["pointer"])
            if kind == "json_set":
                if isinstance(parent, list):
                    if key == "-":
                        parent.append(op["value"])
                    else:
                        parent[int(key)] = op["value"]
                else:
                    parent[key] = op["value"]
            elif kind == "json_remove":
                del parent[int(key) if isinstance(parent, list) else key]
            else:
                parent.insert(int(key), op["value"])
        _store(root, rel, doc)
    elif kind == "json_edit":
        _transforms()[op["transform"]](root, **op.get("args", {}))
    elif kind == "replace_text":
        text = target.read_text(encoding="utf-8")
        if op["old"] not in text:
            raise ValueError(f"replace_text: text not found in {rel}")
        target.write_text(text.replace(op["old"], op["new"], op.get("count", 1)), encoding="utf-8")
    elif kind == "write_text":
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(op["text"], encoding="utf-8")
    elif kind == "write_bytes":
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(op["base64"]))
    elif kind == "append_bytes":
        with open(target, "ab") as handle:
            handle.write(base64.b64decode(op["base64"]))
    elif kind == "delete":
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        else:
            target.unlink()
    elif kind == "symlink":
        if target.exists() or target.is_symlink():
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            else:
                target.unlink()
        os.symlink(op["target"], target)
    elif kind == "hardlink":
        if target.exists():
            target.unlink()
        os.link(root / op["target"], target)
    elif kind == "json_set_masked":
        # Same as json_set, with the value stored as base64 of its JSON text (keeps payloads such as injected
        # identifiers out of the repository's plain text, which the repository scans itself).
        apply_op(root, {"op": "json_set", "file": rel, "pointer": op["pointer"],
                        "value": json.loads(unmask(op["value_masked"]))})
    elif kind == "json_reformat":
        doc = _load(root, rel)
        if op.get("reverse_keys"):
            doc = _reverse_keys(doc)
        text = json.dumps(doc, indent=op.get("indent"), sort_keys=bool(op.get("sort_keys", False)),
                          ensure_ascii=bool(op.get("ensure_ascii", False)), separators=op.get("separators"))
        target.write_text(text + op.get("trailer", ""), encoding="utf-8")
    elif kind == "replace_bytes":
        data = target.read_bytes()
        old, new = base64.b64decode(op["old_b64"]), base64.b64decode(op["new_b64"])
        if old not in data:
            raise ValueError(f"replace_bytes: bytes not found in {rel}")
        target.write_bytes(data.replace(old, new, op.get("count", 1)))
    elif kind == "prepend_bytes":
        target.write_bytes(base64.b64decode(op["base64"]) + target.read_bytes())
    elif kind == "write_repeat":
        # prefix + unit * count + suffix, streamed: large hostile files without storing them in the case.
        target.parent.mkdir(parents=True, exist_ok=True)
        unit = op["unit"].encode("utf-8")
        with open(target, "wb") as handle:
            handle.write(op.get("prefix", "").encode("utf-8"))
            remaining = int(op["count"])
            block = unit * 65536
            while remaining >= 65536:
                handle.write(block)
                remaining -= 65536
            handle.write(unit * remaining)
            handle.write(op.get("suffix", "").encode("utf-8"))
    elif kind == "mkfifo":
        if target.exists():
            target.unlink()
        os.mkfifo(target)
    elif kind == "hardlink_external":
        os.link(target, root.parent / ("external-link-" + target.name))
    elif kind == "mkdir":
        target.mkdir(parents=True, exist_ok=True)
    elif kind == "chmod":
        os.chmod(target, int(op["mode"], 8))
    else:
        raise ValueError(f"unknown op {kind}")


def _reverse_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _reverse_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reverse_keys(v) for v in value]
    return value


def materialize(case: dict[str, Any], dest: Path) -> Path:
    """Copy the case's base bundle into ``dest/bundle``, apply its ops, reseal if asked; return the folder."""
    bundle = dest / "bundle"
    base = case.get("base")
    if base:
        shutil.copytree(BUNDLES / base, bundle, symlinks=True)
        for path in bundle.rglob("*"):
            if path.is_file() and not path.is_symlink():
                os.chmod(path, 0o644)
    else:
        bundle.mkdir(parents=True)
    for op in case.get("ops", []):
        apply_op(bundle, op)
    if case.get("reseal"):
        seal_bundle(bundle)
    for op in case.get("post_ops", []):
        apply_op(bundle, op)
    if case.get("post_seal"):
        seal_steps(bundle, list(case["post_seal"]))
    return bundle


def make_case(code: str, slug: str, ops: list, description: str, *, reseal: bool = True,
              post_ops: list | None = None, post_seal: list | None = None, codes: list | None = None,
              base: str = "nerb-enron") -> dict:
    """A broken-fixture declaration against a base bundle (default the real one; ``synthetic-smoke`` is the small
    bundle ``tools/make_synthetic_bundle.py`` generates), expected to be rejected with ``codes`` (default: its own
    code only). Shared by the mutation modules so every CASES entry has the same shape."""
    case: dict[str, Any] = {"code": code, "slug": slug, "base": base, "ops": ops, "reseal": reseal,
                            "description": description,
                            "expect": {"codes": codes if codes is not None else [code], "verdict": "rejected"}}
    if post_ops:
        case["post_ops"] = post_ops
    if post_seal:
        case["post_seal"] = post_seal
    return case


def all_cases() -> list[dict[str, Any]]:
    """Every case declared by every ``tools/mutations/*.py`` module (CASES lists), in a stable order."""
    cases: list[dict[str, Any]] = []
    for path in sorted((REPO / "tools" / "mutations").glob("*.py")):
        if path.stem.startswith("_"):
            continue
        module = importlib.import_module(f"tools.mutations.{path.stem}")
        cases.extend(getattr(module, "CASES", []))
    from tools.mutations._presentation import PRESENTATION_ALSO

    for case in cases:
        also = PRESENTATION_ALSO.get((case["code"], case["slug"]))
        if also:
            case["expect"]["codes"] = sorted(set(case["expect"]["codes"]) | set(also))
    return sorted(cases, key=lambda c: (c["code"], c["slug"]))


def case_dir_name(case: dict[str, Any]) -> str:
    """Folder name of a case under fixtures/invalid: ``<CODE>-<slug>``."""
    return f"{case['code']}-{case['slug']}"
