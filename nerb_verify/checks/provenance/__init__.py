"""Layer 1, provenance: the manifest, the lineage and the bank card, each re-derived from its own leaves.

``manifest_rules`` (manifest v2 semantics, sample design, release identity via ``release_identity``), ``lineage``
(sealed-test access, the append-only lineage and audit chain) and ``bank_card`` (the card's arithmetic and its
binding to the evaluated bank). Imports only layer 0 (``raw``) and this package.
"""
