"""Zip archives: every member read as it is decompressed, in bounded memory, and scanned like the file it holds.

A committed ``contacts.zip`` (or a ``.docx``, ``.xlsx``, ``.odt`` or ``.epub``, which are zip archives of XML text,
or a wheel) was binary to the scanner, so the hook passed whatever it holds. Each member is read through
:mod:`zipfile` in windows and goes to the streaming readers (:mod:`nerb_verify.privacy.stream`), as a compressed
file's content does: text line by line, ``*.json`` members as JSON, binary members skipped; a gzip, bzip2 or xz
member is decompressed too. A member's findings name the archive and the member (``archive.zip!/dir/file.txt``,
with the member's line numbers); a path component of a member's name that is itself personal data is reported as a
name finding and shown as ``@name:<index>``, as file names on disk are.

Fail closed, one ``privacy.not_scanned`` finding per member: an encrypted member, a compression method Python does
not read, data that does not decompress or fails its CRC, and every member once the archive's decompressed bytes
pass ``NERB_SCAN_DECOMPRESSED_BYTES`` (default 1 GiB, the compressed files' limit: a zip bomb) or its members pass
``MAX_MEMBERS``. A file that starts like a zip archive and is not one (no central directory) is not scanned either.
Not read: an archive inside an archive (a zip member that is a zip; it is counted as binary), tar archives.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from nerb_verify.loader import TOO_LARGE, UNREADABLE, LoadFailure, LoadProblem

if TYPE_CHECKING:  # (zipfile is imported where an archive is read: most scans read none)
    import zipfile

# A local file header (a member follows), or the end of the central directory of an empty archive.
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
MAX_MEMBERS = 100_000
_ENCRYPTED = 0x1  # general purpose flag bit 0 (APPNOTE 4.4.4)


def is_zip(head: bytes) -> bool:
    """Whether a file's first bytes are those of a zip archive."""
    return head.startswith(_ZIP_MAGIC)


def member_parts(name: str) -> list[str]:
    """The path components of a member's name (either slash; empty, ``.`` and ``..`` components left out)."""
    return [part for part in name.replace("\\", "/").split("/") if part not in ("", ".", "..")]


def shown_member(archive_shown: str, parts: list[str], flagged: set[int]) -> str:
    """How a member is named in findings: the archive, ``!/``, then its components, each flagged one (by index)
    replaced by ``@name:<index>``."""
    shown = [f"@name:{index}" if index in flagged else part for index, part in enumerate(parts)]
    return archive_shown + "!/" + "/".join(shown)


class Budget:
    """The decompressed bytes an archive may still yield (shared by its members)."""

    def __init__(self, limit: int) -> None:
        self.left = limit


def member_windows(archive: zipfile.ZipFile, info: zipfile.ZipInfo, read_size: int,
                   budget: Budget) -> Callable[[], Iterator[bytes]]:
    """A factory of the member's decompressed bytes, ``read_size`` at a time (each call reads it again from its
    start, as a streamed file is read again when its JSON does not parse). Raises :class:`LoadFailure`: encrypted,
    an unknown compression method, data that does not decompress or fails its CRC (``load.unreadable``), or more
    bytes than the archive's budget has left (``load.too_large``; a read again is not charged twice)."""
    import zipfile

    charged = [0]  # bytes of this member already charged to the budget (by an earlier read of it)

    def windows() -> Iterator[bytes]:
        if info.flag_bits & _ENCRYPTED:
            raise LoadFailure(LoadProblem(UNREADABLE, message="The archive member is encrypted."))
        produced = 0
        try:
            with archive.open(info) as member:
                while True:
                    window = member.read(read_size)
                    if not window:
                        return
                    produced += len(window)
                    if produced > charged[0]:
                        budget.left -= produced - charged[0]
                        charged[0] = produced
                        if budget.left < 0:
                            raise LoadFailure(LoadProblem(TOO_LARGE, message="The archive's decompressed data is "
                                                                             "larger than the limit."))
                    yield window
        except LoadFailure:
            raise
        except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, OSError, EOFError, ValueError):
            raise LoadFailure(LoadProblem(UNREADABLE, message="The archive member does not decompress.")) from None

    return windows
