"""The privacy scanner: a bounded fixed-point normaliser, rules per family, two profiles sharing one engine, and
scanners for parsed JSON (pointers from key positions) and text (line and column). Nothing here ever returns or
prints the matched value, a raw key, or a hash of either.

Entry points: :func:`nerb_verify.privacy.engine.scan_string`, :func:`nerb_verify.privacy.json_scan.scan_json`,
:func:`nerb_verify.privacy.text_scan.scan_text`, :data:`nerb_verify.privacy.profiles.PROFILES`.
"""
