"""Render a verified bundle into files, and write them into a new output folder safely."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from nerb_verify.context import VerifyContext
from nerb_verify.render.markdown import FIGURES, render_markdown
from nerb_verify.render.model import build_model
from nerb_verify.render.svg import (
    contract_figure,
    coverage_figure,
    gates_figure,
    scale_figure,
)


def render_files(ctx: VerifyContext) -> dict[str, bytes]:
    """Every output file (relative path -> UTF-8 bytes) for a verified bundle; deterministic."""
    model = build_model(ctx)
    files = {
        "summary.md": render_markdown(model),
        FIGURES["contract"]: contract_figure(model),
        FIGURES["coverage"]: coverage_figure(model),
        FIGURES["gates"]: gates_figure(model),
        FIGURES["scale"]: scale_figure(model),
    }
    return {path: text.encode("utf-8") for path, text in sorted(files.items())}


# Our renderer's figure names -> the names of the bundle contract's closed file set.
BUNDLE_FIGURE_NAMES = {"figures/coverage-decomposition.svg": "figures/bank-coverage.svg",
                       "figures/standalone-redaction-gates.svg": "figures/standalone-redaction.svg",
                       "figures/throughput-by-bank-size.svg": "figures/performance-scale.svg"}
# The summary's opening sentence as `render` writes it for a verified bundle, and as assembly writes it (assembly
# renders before the final verdict exists).
VERIFIED_SENTENCE = "after the bundle passed verification"
ASSEMBLY_SENTENCE = ("from the figures it recomputed from this bundle at assembly time (run `nerb-verify verify` for "
                     "the verdict)")


def bundle_files(files: dict[str, bytes], *, assembly: bool) -> dict[str, bytes]:
    """Rendered files under the bundle contract's names (summary links rewritten to match); with ``assembly`` the
    opening sentence says the figures were recomputed at assembly time rather than after verification."""
    out: dict[str, bytes] = {}
    for rel, raw in files.items():
        if rel == "summary.md":
            text = raw.decode("utf-8")
            for old, new in BUNDLE_FIGURE_NAMES.items():
                text = text.replace(old, new)
            if assembly:
                text = text.replace(VERIFIED_SENTENCE, ASSEMBLY_SENTENCE)
            raw = text.encode("utf-8")
        out[BUNDLE_FIGURE_NAMES.get(rel, rel)] = raw
    return out


class OutputError(Exception):
    """The output folder cannot be used (exists and is not empty, parent missing, write failed)."""


def write_files(out_dir: Path, files: dict[str, bytes]) -> None:
    """Create ``out_dir`` (must not exist, or be an empty folder) and write ``files``; undo everything on failure."""
    created = False
    if os.path.lexists(out_dir):
        if out_dir.is_symlink() or not out_dir.is_dir() or any(out_dir.iterdir()):
            raise OutputError("the output folder exists and is not an empty folder")
    else:
        if not out_dir.parent.is_dir():
            raise OutputError("the output folder's parent does not exist")
        out_dir.mkdir(mode=0o755)
        created = True
    written: list[Path] = []
    try:
        for rel, data in files.items():
            path = out_dir / rel
            path.parent.mkdir(mode=0o755, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            written.append(path)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
    except OSError as exc:
        if created:
            shutil.rmtree(out_dir, ignore_errors=True)
        else:
            for path in written:
                path.unlink(missing_ok=True)
        raise OutputError("writing the output failed") from exc
