"""nerb-verify: standalone verification of NERB known-entity bank benchmark bundles."""

__version__ = "0.1.0"
