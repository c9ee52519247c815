"""Module-level patterns of the scanner that a clean bundle never reaches are compiled on first use (issue 16, speed:
the ``verify --jobs 2`` child pays for every pattern it compiles), and they work when they are reached."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SCRIPT = """
import json
from nerb_verify.privacy import engine, json_scan, normalise, text_scan
from nerb_verify.privacy.lazy import LazyPattern
from nerb_verify.privacy.profiles import CONTRACT, PROFILES
from nerb_verify.privacy.rules import email, paths
lazy = {"normalise._BACKSLASH": normalise._BACKSLASH, "normalise._ENCLOSED_LETTER": normalise._ENCLOSED_LETTER,
        "normalise._OVERLONG_ASCII": normalise._OVERLONG_ASCII, "email._RESERVED": email._RESERVED,
        "email._SSH_REPO_PATH": email._SSH_REPO_PATH, "email._SSH_NAME_LOCAL": email._SSH_NAME_LOCAL,
        "email._SSH_NAME_DOMAIN": email._SSH_NAME_DOMAIN, "paths.PLAIN_TRAVERSAL": paths.PLAIN_TRAVERSAL,
        "engine._BARE_ADDRESS": engine._BARE_ADDRESS, "engine._WRAPPED_BASE64": engine._WRAPPED_BASE64,
        "json_scan._QUANTITY_KEY": json_scan._QUANTITY_KEY}
before = {name: isinstance(p, LazyPattern) and p._compiled is None for name, p in lazy.items()}
import base64
at = "@"
encoded = base64.b64encode(("jane.roe" + at + "corp-mail.co.uk").encode()).decode()
found = {
    "escaped address": sorted(engine.scan_string("jane.roe" + chr(92) + "u00" + "40" + "corp-mail.co.uk", CONTRACT)),
    "traversal": sorted(engine.scan_string("../../etc/passwd", CONTRACT)),
    "reserved domain": sorted(engine.scan_string("jane" + at + "example.com", PROFILES["repository"])),
    "public domain": sorted(engine.scan_string("jane" + at + "corp-mail.co.uk", PROFILES["repository"])),
    "wrapped base64": sorted(engine.scan_string(encoded[:24] + "\\n" + encoded[24:], CONTRACT)),
}
print(json.dumps({"before": before, "found": found}))
"""


def test_unreached_patterns_are_compiled_on_first_use_and_still_catch() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert all(out["before"].values()), out["before"]
    found = out["found"]
    assert "privacy.email" in found["escaped address"]
    assert "privacy.path_traversal" in found["traversal"]
    assert found["reserved domain"] == [] and "privacy.email" in found["public domain"]
    assert "privacy.email" in found["wrapped base64"]
