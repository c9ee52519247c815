"""Broken-fixture declarations, one module per finding family (CASES lists and optional TRANSFORMS)."""
