"""Layer 2, cross-artifact: the bindings between artifacts and the decisions computed from layer 1's figures.

``binding`` (the hashes tying the artifacts to each other), ``gates`` with ``performance_gate_policy`` (every
promotion check re-evaluated against the recomputed quality, conformance and performance figures) and
``decisions`` (the verifier's own known-bank and open-world verdicts). Imports layers 0 and 1, never layer 3.
"""
