"""Real-text false-positive corpus of the repository profile (issue 17): short lines in the shapes that third-party
source, docs, package metadata and data files really contain, which the repository profile must let through, and
next to each class the nearby shape that is real personal data and must still be found.

The must-pass lines are our own, written from the shapes found when the scan was run over 37.8 MB of installed
packages (``tools/fp_corpus.py``), not copied from those files; hosts are reserved documentation names where the
line names one. Must-find values are never written whole: each is assembled at run time from pieces joined by
:data:`BREAK`, so this file passes the repository's own scan.
"""

from __future__ import annotations

BREAK = "«»"

PHONE = "privacy.phone"
SSN = "privacy.ssn"
EMAIL = "privacy.email"
PERSONAL = "privacy.personal_path"
SHARE = "privacy.network_share"
FILE_URI = "privacy.file_uri"


def assemble(text: str) -> str:
    """The run-time value of a corpus line: the break markers removed."""
    return text.replace(BREAK, "")


# (class, line): the repository profile raises nothing on the line, alone or as a whole text file.
MUST_PASS: list[tuple[str, str]] = [
    # Public web pages under a person's web folder: a published URL, not a local path.
    ("url-tilde-user", "    http://www.cs.example.edu/~jdoe/papers/graph_connectivity.pdf"),
    ("url-tilde-user", ".. [1] <https://people.math.example.ca/~cbm/aands/page_504.htm>`_"),
    ("url-tilde-user", "def zeros(ctx, url='http://www.example.edu/~odl/zeta_tables/zeros1'):"),
    ("url-tilde-user", ".. image:: https://builds.example.org/~maintainer/project.svg"),
    ("url-tilde-user", "See also: http://www.example.de/~mascheck/various/shebang/#length"),
    # Escape runs and regexes in source code read as a UNC share.
    ("escape-run", "    href = r'(?P<rel3>[^>\\\\s\\n]*))\\\\s+)?'"),
    ("escape-run", "        self.out.append('\\\\hline\\n')"),
    ("escape-run", "        a.append('\\\\endfoot\\n\\\\endlastfoot\\n')"),
    ("escape-run", "    return '{\\\\raggedright\\n'"),
    # Byte dumps read as phone numbers.
    ("hexdump", "00000040  01 00 00 00 05 00 00 00  00 00 00 00 00 00 00 00  |................|"),
    ("hexdump", "0000 0010 0020 0030 0040 0050 0060 0070"),
    ("hexdump", "00000000: 7f45 4c46 0201 0100 0000 0000 0000 0000  .ELF............"),
    ("hexdump", "  0x0000:  4500 0034 1a2b 4000 4006 3c1d c0a8 0001  E..4.+@.@.<....."),
    # PyPI classifiers and Windows' shared profile.
    ("classifier", "Classifier: Intended Audience :: End Users/Desktop"),
    ("all-users", "C:\\Documents and Settings\\All Users\\Application Data\\Vendor"),
    ("all-users", "the shared profile (All Users/Start Menu) is not a person's folder"),
    # file: URIs that name no local path: the current folder in an SBOM, a relative file (AWS CLI style).
    ("file-uri-relative", '      "purl": "pkg:cargo/demo-crate@0.1.0?download_url=file://."'),
    ("file-uri-relative", "pkg:cargo/demo-crate@0.1.0?download_url=file://.#src/lib.rs"),
    ("file-uri-relative", "    --configurations file://configurations.json"),
    ("file-uri-relative", "      \"TableMappings\": \"file://mappingfile.json\","),
    # SSH clone URLs and SSH algorithm names.
    ("ssh-clone-url", "    git clone git@github.com:pallets/click.git"),
    ("ssh-clone-url", '    "url": "git@gitlab.com:group/sub/project.git"'),
    ("ssh-algorithm-name", '_CERT_SUFFIX = b"-cert-v01@openssh.com"'),
    ("ssh-algorithm-name", '    b"aes256-gcm@openssh.com": _SSHCipher('),
    ("ssh-algorithm-name", 'The format of a sk-ecdsa-sha2-nistp256@openssh.com public key is:'),
    # Citations: page ranges with a year, DOIs, volume.issue (year).
    ("citation", "   SIAM J. Comput. 10(4), 692-701 (1981)"),
    ("citation", "   Discrete Mathematics, 105, pp. 292-303 (1992)."),
    ("citation", "   Conference 2020, pp. 573-583. 2020."),
    ("citation", "   in Artificial Intelligence (UAI), (pp. 480-487). 1998."),
    ("citation", "   num. math. 12, p. 377-383(1968) by two authors"),
    ("citation", "   Physica A 387.27 (2008): 6869-6875."),
    ("citation", "   https://doi.org/10.1016/0020-0190(88)90066-X."),
    ("citation", "   http://dx.doi.org/10.1016/0021-9991(79)90025-1"),
    ("citation", "   # https://doi.org/10.1111/0081-1750.00098"),
    # Object identifiers and versions written one digit at a time with dots.
    ("dotted-digits", 'SERVER_AUTH = ObjectIdentifier("1.3.6.1.5.5.7.3.1")'),
    ("dotted-digits", "    version = '2.1.9.0.9.9.9.9.9'"),
    # Issue-tracker comment ids in URLs.
    ("url-id", "# See https://github.com/pytest-dev/pytest/issues/12120#issuecomment-2106349096"),
    ("url-id", "https://example.org/forum/thread_4623?post=comment-2474713201"),
    # Lists and runs of ids in data.
    ("number-list", '    "enum": ["256", "512", "1024", "2048", "4096", "8192", "16384"]'),
    ("number-list", "    sizes = 256 512 1024 2048"),
    ("number-list", '  "CacheClusterId": "clustered-redis-0002-002", "CacheNodeId": "0001"'),
    ("ip-like", '      "PublicIp": "198.51.100.333"'),
]

# (class, text, code): must still be found by the repository profile (assembled at run time).
MUST_FIND: list[tuple[str, str, str]] = [
    ("url-tilde-user", "~jd«»oe/notes/plan.txt", PERSONAL),
    ("escape-run", "copy it to \\\\fileserver«»\\scans before Friday", SHARE),
    ("escape-run", "\\\\srv«»\\c$\\users", SHARE),
    ("classifier", "C:\\Us«»ers\\jroe\\Desktop", PERSONAL),
    ("all-users", "/Us«»ers/allison/Library", PERSONAL),
    ("file-uri-relative", "file:«»///ho«»me/jroe/report.pdf", FILE_URI),
    ("file-uri-relative", "file:«»//fileserver/scans/report.pdf", FILE_URI),
    ("ssh-clone-url", "mail jane.roe@«»corp-mail.co.uk about the repo", EMAIL),
    ("ssh-algorithm-name", "jane.roe@«»openssh.com", EMAIL),
    ("citation", "call (713) 555-«»2368 today", PHONE),
    ("citation", "(713)(555)(«»2368)", PHONE),
    ("citation", "219-09-«»9999", SSN),
    ("citation", "[219][«»09][9999]", SSN),
    ("dotted-digits", "7 1 3 5 5 «»5 2 3 6 8", PHONE),
    ("url-id", "https://example.org/contact?phone=713«»5552368", PHONE),
    ("hexdump", "01 23 45 «»67 89", PHONE),
    ("number-list", "713 555 «»2368", PHONE),
    ("ip-like", "079.«»123.45.67", PHONE),
    ("copyright", "# Copyright (c) 2011 Jane Roe <jane.roe@«»corp-mail.co.uk>", EMAIL),
    ("metadata", "Author-email: Jane Roe <jroe@«»mailbox.org>", EMAIL),
    ("home-path", "'/ho«»me/jroe/usr/lib/python3/site-packages'", PERSONAL),
]
