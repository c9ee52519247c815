"""Package layout that pyproject.toml alone cannot express, and validators precompiled into the wheel.

* The top-level ``schemas/`` folder ships inside the wheel as the package ``nerb_verify.schemas``.
* ``build_py`` also writes ``nerb_verify/_compiled/``: the fastjsonschema validators generated from those schemas
  (see ``nerb_verify.schema_validation.write_precompiled``), so a fresh install verifies without generating code.
"""

import sys
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildWithValidators(build_py):
    """Standard build, then the precompiled schema validators."""

    def run(self) -> None:
        super().run()
        sys.path.insert(0, str(HERE))
        from nerb_verify import schema_validation

        schema_validation.write_precompiled(Path(self.build_lib) / "nerb_verify" / "_compiled")


setup(
    packages=find_packages(include=["nerb_verify", "nerb_verify.*"]) + ["nerb_verify.schemas"],
    package_dir={"nerb_verify.schemas": "schemas"},
    package_data={"nerb_verify.schemas": ["*.json"], "nerb_verify": ["data/*.json", "data/*.txt"]},
    cmdclass={"build_py": BuildWithValidators},
)
