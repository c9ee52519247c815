"""Where the shipped data files live, both in an installed wheel and in a source checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_INSTALLED_SCHEMAS = _PACKAGE / "schemas"  # the wheel ships schemas/ as nerb_verify/schemas/ (see setup.py)
_SOURCE_SCHEMAS = _PACKAGE.parent / "schemas"  # a source checkout keeps them at the repository root


def schema_dir() -> Path:
    """The folder holding the JSON Schema files: inside the installed package, else the checkout's ``schemas/``."""
    if _INSTALLED_SCHEMAS.is_dir():
        return _INSTALLED_SCHEMAS
    return _SOURCE_SCHEMAS


def schema_files() -> list[Path]:
    """Every shipped schema file, sorted by name."""
    return sorted(schema_dir().glob("*.json"))


def data_dir() -> Path:
    """Package data folder (``nerb_verify/data``)."""
    return _PACKAGE / "data"
