"""Where the shipped data files live, both in an installed wheel and in a source checkout."""

from __future__ import annotations

from importlib import resources as importlib_resources
from pathlib import Path

_SOURCE_SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"


def schema_dir() -> Path:
    """The folder holding the JSON Schema files: the installed ``nerb_verify.schemas`` package, else ``schemas/``.

    A source checkout run without installing (``python -m nerb_verify`` from the repo root) uses the top-level folder.
    """
    try:
        installed = Path(str(importlib_resources.files("nerb_verify.schemas")))
    except (ModuleNotFoundError, TypeError):
        return _SOURCE_SCHEMAS
    return installed if installed.is_dir() else _SOURCE_SCHEMAS


def schema_files() -> list[Path]:
    """Every shipped schema file, sorted by name."""
    return sorted(schema_dir().glob("*.json"))


def data_dir() -> Path:
    """Package data folder (``nerb_verify/data``)."""
    return Path(__file__).resolve().parent / "data"
