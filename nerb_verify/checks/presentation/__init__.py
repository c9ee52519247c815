"""Layer 3, presentation: what the bundle says about its results, checked against the figures of layers 0 to 2.

``claims`` (no structured claim says more than its evidence), ``publication`` (the seal over the bundle, every field
recomputed), ``summary`` with ``summary_model``, ``summary_layout`` and ``summary_prose`` (every number, position
and sentence of summary.md and the figures bound to a verified figure). Nothing in ``checks`` imports this layer.
"""
