"""Private-side producers: prepare an authorized email corpus, split it into leakage-safe roles, build banks.

Preparation and splitting (``sources``, ``cleaning``, ``preparation``, ``splitting``, ``sealed``,
``public_sections``) use only the standard library. Everything they write that holds message text goes under a
private ``.nerb/`` root; only the aggregate manifest sections (``source``, ``preparation``, ``splits``) are public.
"""

# How to install the producers' extra (the RE2 engine, google-re2). No release of nerb-verify is published on a package
# index yet, so it is installed from a clone (its root, or its path: pip install 'DIR[producers]'); a bare
# distribution name would find nothing, or a squatter's package. Error messages and --help texts use this string.
INSTALL_PRODUCERS = "pip install '.[producers]'"
