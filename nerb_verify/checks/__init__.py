"""The check families, grouped by the derivation graph: a subpackage only imports from its own layer or lower ones.

0. ``raw``: the files, schemas, privacy scan and shared readers (what is read as it is).
1. ``quality``, ``performance``, ``capacity``, ``provenance``: each artifact re-derived from its own raw leaves.
2. ``cross_artifact``: the bindings between artifacts, the promotion gates and the verifier's decisions.
3. ``presentation``: claims, the publication seal, summary.md and the figures, checked against layers 0 to 2.

``contract_tests/test_import_graph.py`` pins this order; ``docs/derivation.md`` has the table.
"""
