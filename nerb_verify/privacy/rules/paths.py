"""Local paths: personal locations (both profiles), network shares and file URIs (both), and, for the contract
profile, any absolute local path.

Rules run on normalised text (look-alike slashes such as U+2215 are ``/`` by then) with every http(s) URL blanked
out: remote hosts and paths are permitted, while the URL's payloads are checked separately (``urls.py``).

Personal (both profiles): ``/home/<name>``, ``/Users/<name>``, ``Users/<name>`` and ``C:\\Users\\<name>`` in any
slash direction, the root account's home folder, ``~<name>/``, WSL and ``/var/home`` forms. Generic system paths
(``/tmp/out``, ``/usr/bin``) are not personal. Contract only: every absolute POSIX path (not a lone ``/`` between
spaces, not a closing tag ``</b>``, not a Markdown root link ``](/x)``), drive paths, rooted backslash paths, ``~/``,
``$HOME``, ``%USERPROFILE%``, option-attached paths (``-I/usr/include``, ``--outC:\\x``) and relative ``home/<name>``.

Parent-directory segments (``../``, ``..\\``): every one in the contract and rendered profiles, only escaped ones
(an escaped slash after ``..``, overlong UTF-8, ...) in the repository profile, where ``../`` is an ordinary relative link.
"""

from __future__ import annotations

import regex

from nerb_verify.codes import register
from nerb_verify.privacy.lazy import LazyPattern
from nerb_verify.privacy.rules.anchored import WordWindowPattern
from nerb_verify.privacy.rules.base import Rule, compile_rule

PERSONAL_PATH = register(
    "privacy.personal_path", "Text contains a local path that reveals a person or a private location.",
    "Home directories (/home/<name>, /Users/<name>, C:\\Users\\<name>, ~<name>/), the root account's home and their "
    "relative forms name a person or a private machine. Look-alike slashes and escapes are decoded first. Use a "
    "relative path inside the project or a generic placeholder.")
LOCAL_PATH = register(
    "privacy.local_path", "Text contains an absolute local path.",
    "Public evidence may not contain any absolute local path: POSIX absolute paths, drive paths, rooted backslash "
    "paths, ~/ and $HOME forms, and paths attached to command options. Relative paths, http(s) URLs, slashes between "
    "words (TCP/IP, 07/10/2026) and promotion-gate targets that resolve into the evidence are permitted.")
NETWORK_SHARE = register(
    "privacy.network_share", "Text contains a network share (UNC path or smb/nfs/afp URI).",
    "A UNC path (two backslashes, a server name, a backslash, a share name) or an smb, nfs, afp or cifs URI names a "
    "private host and share.")
FILE_URI = register(
    "privacy.file_uri", "Text contains a file: URI.",
    "A file: URI points into a local file system, also when it hides inside the path of an http(s) URL. The "
    "repository profile needs a slash-rooted path, a drive or a share after the scheme; the contract profile rejects "
    "the scheme followed by anything.")

PATH_TRAVERSAL = register(
    "privacy.path_traversal", "Text contains a parent-directory (..) path segment.",
    "A '..' segment (../, ..\\, x/.., or an option such as --out../x) leaves the folder it is relative to, so in "
    "public evidence it points at the workstation outside the published bundle. The contract and rendered profiles "
    "reject every such segment, also when escaped (a slash written %2F or %252F, dots written %2E, overlong UTF-8, "
    "fullwidth dots); the "
    "repository profile only escaped ones, which are written to get a traversal past a filter, never as a relative "
    "link. Use a path inside the bundle or a logical artifact id.")

# A ".." path segment: ".." after a non-word, non-dot character (or at the start) and before a slash or backslash
# (";" between, the Tomcat path-parameter form "..;/"), after a slash at the end of a path, or right after a command
# option ("-o../x", "--out..\\x"). Not "HEAD~3..HEAD~1", "1..10", an ellipsis or a bare "cd ..".
_TRAVERSAL = (r"(?:(?<![\w.])|(?<=(?:^|[\s=,;\[\](){}])(?:-[A-Za-z]|--[A-Za-z][\w-]*)))\.\.(?=;?[\\/])"
              r"|(?<=[\\/])\.\.(?=$|[\s\"'<>)\]},;|`])")
# The same shape in text as written (the engine masks these before it normalises the escaped-traversal view).
PLAIN_TRAVERSAL = LazyPattern(_TRAVERSAL)

# A run of dots, slashes and backslashes holding ".." before a separator (a whole run: nothing of it before it): what
# a filter that deletes "../" (or "..\\", or both) once leaves of it can be a traversal segment the run itself is
# not: four dots and two slashes, or three dots, a slash, a dot and a slash, leave one (the filter-evasion shapes
# written to pass such a filter). Ellipses next to a slash ("docs/.../x", "./...") leave none.
_EVASION_RUN = r"(?<![.\\/])[.\\/]*\.\.[\\/][.\\/]*"
_FILTERED = (("../",), ("..\\",), ("../", "..\\"), ("..\\", "../"))


def _leaves_traversal(match: regex.Match[str]) -> bool:
    """Whether what a filter that deletes ``../``, ``..\\`` or both (each once over the run, left to right, as
    ``str.replace`` does) leaves of the run holds a traversal segment (``_TRAVERSAL``), for a run with a component
    of three dots or more. Every shape written to pass such a filter has one; a plain relative path (``../../x``,
    ``a/../..``) has only ``.`` and ``..`` components, and what the filter leaves of it (``/..``) is no more written
    to evade it than the path was: the repository profile, where a plain segment is a relative link, is not widened."""
    run = match.group(0)
    if "..." not in run:  # (the run holds only dots and separators: three dots in a row are such a component)
        return False
    for deleted in _FILTERED:
        left = run
        for piece in deleted:
            left = left.replace(piece, "")
        if left != run and PLAIN_TRAVERSAL.search(left) is not None:
            return True
    return False


_NAME = r"[A-Za-z0-9_][\w.$-]*"
_SEG = r"[\\/]+"
_TILDE_USER = compile_rule(r"(?<![\w~])~[A-Za-z_][\w.-]*[\\/]")
_UNC = compile_rule(rf"(?<![\w\\])\\\\(?P<server>{_NAME})\\(?P<share>[\w.$-]+)")
# A UNC path written with forward slashes (Windows accepts ``//server/share``): two slashes at the start of a token
# (not after a scheme's colon, a word character, a dot or another slash), a server name with no dot, or a dotted one
# ending in a private network's suffix, then a slash and a share name. A dotted public host is a protocol-relative
# URL (``//cdn.example.org/lib.js``), not a share. Contract and rendered profiles only: a repository is full of
# ``//`` labels (Bazel targets ``//tools/build:rule``, ``//go:build``, comments glued to words).
_PRIVATE_SUFFIX = r"(?i:local|lan|corp|internal|intranet|home|localdomain|private)"
_UNC_SLASH = compile_rule(rf"(?<![\w:/.\\])//(?P<server>[A-Za-z0-9_][\w$-]*(?:(?:\.[\w-]+)*\.{_PRIVATE_SUFFIX})?)"
                          r"/(?P<share>[\w$-][\w.$-]*)")


def _has_dot_dot(text: str) -> bool:
    """Both alternatives of ``_TRAVERSAL`` consume two dots in a row (``\\.\\.``), so the traversal rules cannot match
    a text without ``..``: a test in C before the pattern is compiled or searched (the rules' trigger, any ``.``,
    holds in most prose and in every dotted name)."""
    return ".." in text


_ROOT_HOME = "/r" + "oot"  # (split so this file passes its own scan)


def _has_root_home(text: str) -> bool:
    """The root-home rule's pattern consumes ``/`` ``r`` ``o`` ``o`` ``t`` in a row (case-sensitive), so it cannot match a
    text without that literal: a test in C before the pattern is compiled or searched (its trigger, any slash, holds
    in every path and URL)."""
    return _ROOT_HOME in text


def _not_escape_run(match: regex.Match[str]) -> bool:
    """A UNC path whose server or share is one character is a run of escapes in source text (``\\\\s\\n``,
    ``\\\\hline\\n``): real shares have longer names (``\\\\server\\c$`` keeps its ``$``)."""
    return len(match.group("server")) > 1 and len(match.group("share")) > 1


RULES = (
    # Searched only near the words every match holds (``WordWindowPattern``, condition (w)): the first alternative
    # holds "home" at most 8 characters after its start ("/export/"), the other two "Users", "Documents and
    # Settings" or "users" after at most a drive (2 characters) and the run of slashes before the word; in every
    # alternative the word is followed by ``_SEG``, a slash or a backslash (``follow``).
    Rule("path.home", PERSONAL_PATH, WordWindowPattern(
        rf"(?:/home|/var/home|/export/home|/usr/home){_SEG}(?!\$)[A-Za-z0-9_][\w.-]*"
        rf"|(?<![\w.-])(?<!(?i:all|end) )(?:[A-Za-z]:)?(?:{_SEG})?(?:Users|Documents and Settings){_SEG}"
        rf"(?!(?:Public|Shared|Default|All Users)\b)"
        rf"[A-Za-z0-9_][\w.-]*"
        rf"|(?i:[A-Za-z]:){_SEG}(?i:users){_SEG}(?!(?i:public|shared|default|all users)\b)[A-Za-z0-9_][\w.-]*",
        ("users", "home", "documents and settings"), 8, r"[\\/]", follow="\\/"),
         ("remainder",)),
    Rule("path.root_home", PERSONAL_PATH, compile_rule(r"(?<![\w.~-])/r[o]ot(?![\w.-])"), ("remainder",), trigger="/",
         prefilter=_has_root_home),
    Rule("path.tilde_user", PERSONAL_PATH, _TILDE_USER, ("remainder",), trigger="~"),
    # Contract and rendered profiles: a ``~<name>/`` inside an http(s) URL's path too. The repository profile lets a
    # public web page such as ``https://host/~name/paper.pdf`` through: it is a published address, not a local path.
    Rule("path.tilde_user_in_url", PERSONAL_PATH, _TILDE_USER, ("url_path",), trigger="~"),
    Rule("path.unc", NETWORK_SHARE, _UNC, ("remainder", "url_path"), trigger="\\"),
    # Repository profile: not an escape sequence in source text (``'\\\\hline\\n'``, a regex's ``[^\\\\s\\n]``).
    Rule("path.unc_public", NETWORK_SHARE, _UNC, ("remainder", "url_path"), trigger="\\", validate=_not_escape_run),
    Rule("path.unc_slash", NETWORK_SHARE, _UNC_SLASH, ("remainder",), trigger="/"),
    Rule("path.share_uri", NETWORK_SHARE, compile_rule(r"(?i)(?<![\w+.-])(?:smb|nfs|afp|cifs)://"),
         ("remainder", "url_path"), trigger=":"),
    # Repository profile: a rooted path, a drive, a share or a host followed by a path; not ``file://.`` (the
    # current folder, as an SBOM writes it) nor ``file://name`` with no path after it (a relative file, the AWS
    # CLI's convention).
    Rule("path.file_uri", FILE_URI, compile_rule(
        r"(?i)(?<![\w+.-])file:(?:/(?!/)[\w.~$%-]|///[\w.~$%-]|//(?!\.{1,2}(?![\w~$%-]))[\w.~$%-]+/|[A-Za-z]:|\\\\)"),
         ("remainder", "url_path"), trigger=":"),
    Rule("path.file_uri_any", FILE_URI, compile_rule(r"(?i)(?<![\w+.-])file:(?=[^\s])"), ("remainder", "url_path"),
         trigger=":"),
    # Escaped traversal (repository profile): run by the engine on the text normalised after its plain ".."
    # segments were masked, so only a segment an escape or a look-alike produced is left to match.
    Rule("path.traversal_escaped", PATH_TRAVERSAL, compile_rule(_TRAVERSAL), ("escaped",), trigger=".",
         prefilter=_has_dot_dot),
    # Every profile: a shape written to pass a filter that deletes "../" (``_leaves_traversal``), in text as
    # normalised (so escaped and look-alike forms too); never a relative link.
    Rule("path.traversal_evasion", PATH_TRAVERSAL, compile_rule(_EVASION_RUN), ("remainder", "url_path"), trigger=".",
         prefilter=_has_dot_dot, validate=_leaves_traversal),
    # Contract and rendered profiles from here on.
    Rule("path.traversal", PATH_TRAVERSAL, compile_rule(_TRAVERSAL), ("remainder", "url_path"), trigger=".",
         prefilter=_has_dot_dot),
    Rule("path.posix_absolute", LOCAL_PATH, compile_rule(
        r"(?<![\w.~%+\-/\\<#])(?<!\]\()/(?=[\w.~$-])"), ("remainder",), trigger="/"),
    Rule("path.drive", LOCAL_PATH, compile_rule(r"(?<![\w])[A-Za-z]:[\\/]"), ("remainder", "url_path"),
         trigger=":"),
    Rule("path.rooted_backslash", LOCAL_PATH, compile_rule(
        r"(?<![\w\\])\\[A-Za-z0-9_$][\w.$-]+\\[A-Za-z0-9_$][\w.$-]+"), ("remainder",), trigger="\\"),
    Rule("path.home_shorthand", LOCAL_PATH, compile_rule(
        r"(?<![\w~])~[\\/]|(?<![\w~])~(?=[ \t]*(?:\n|$))|(?i:\$\{?home\}?)(?!\w)"
        r"|(?i:%(?:userprofile|homepath|homedrive|appdata|localappdata)%)|(?i:\$env:(?:userprofile|homepath|home))"),
        ("remainder", "url_path")),
    Rule("path.option_attached", LOCAL_PATH, compile_rule(
        r"(?:^|(?<=[\s=,;\[\](){}]))(?:-[A-Za-z]|--[A-Za-z][\w-]*?)(?:/|~[\\/]|[A-Za-z]:[\\/]|\\\\)"),
        ("remainder",)),
    Rule("path.relative_home", PERSONAL_PATH, compile_rule(rf"(?<![\w.-])(?:home|users){_SEG}{_NAME}"),
         ("remainder",), gate=regex.compile(r"home|users")),
)
