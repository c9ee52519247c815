"""Private-side producers: prepare an authorized email corpus, split it into leakage-safe roles, build banks.

Preparation and splitting (``sources``, ``cleaning``, ``preparation``, ``splitting``, ``sealed``,
``public_sections``) use only the standard library. Everything they write that holds message text goes under a
private ``.nerb/`` root; only the aggregate manifest sections (``source``, ``preparation``, ``splits``) are public.
"""
