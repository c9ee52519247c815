"""Package layout that pyproject.toml alone cannot express: ship the top-level schemas/ as nerb_verify.schemas."""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["nerb_verify", "nerb_verify.*"]) + ["nerb_verify.schemas"],
    package_dir={"nerb_verify.schemas": "schemas"},
    package_data={"nerb_verify.schemas": ["*.json"], "nerb_verify": ["data/*.json", "data/*.txt"]},
)
