"""Layer 0, raw: what is checked on the bundle's files and parsed JSON as they are, before any re-derivation.

The closed file set (``files``), JSON Schema validity (``schema_check``), the privacy scan of every artifact and
rendered file (``privacy_scan``), and the two helpers every higher layer shares: type-defensive readers
(``_access``) and the pure evaluation of one stated gate comparison (``gate_eval``). Imports no other check module.
"""
