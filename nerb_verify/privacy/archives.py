"""Zip and tar archives: every member read as it is decompressed, in bounded memory, and scanned like the file it
holds.

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
Tar archives (POSIX and GNU, named by the ``ustar`` magic at offset 257), plain or gzip, bzip2 or xz compressed,
are read the same way through :mod:`tarfile`; a member that is a symbolic or hard link has its target text scanned,
as a link on disk has. Not read: tar archives of the old v7 format (no magic).

An archive inside an archive (a ``.docx`` or a wheel in a zip, a ``.tar.gz`` of tarballs) is read the same way, its
members named ``outer.zip!/inner.zip!/member``: the member is read to its end into its spool (:meth:`MemberBytes.
seekable`) and opened from there. Everything inside one file on disk shares that file's limits (:class:`Nest`): the
decompressed-byte budget (an inner archive's bytes are charged as the outer member, and its members' bytes again as
they are read: the work done stays within the budget), the member count and the report limit. An archive nested
``MAX_DEPTH`` archives deep (the file on disk is the first) is not opened, and its member is not scanned
(``load.too_deep``): an archive that holds itself ends there. A zip archive compressed as a whole (``x.zip.gz``,
``x.zip.xz``; on disk or as a member) is decompressed into a spool under the same budget and read as a zip
(:func:`decompressed_whole`); a compressed tar needs no spool, :mod:`tarfile` reads it as a stream.
"""

from __future__ import annotations

import lzma
import zlib
from collections.abc import Callable, Iterator
from typing import IO, Any, NamedTuple

from nerb_verify.loader import TOO_LARGE, UNREADABLE, LoadFailure, LoadProblem

# A local file header (a member follows), or the end of the central directory of an empty archive.
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
MAX_MEMBERS = 100_000
MAX_DEPTH = 8
TAR_PROBE = 512  # a tar header's size: its magic lies at 257 to 262
_ENCRYPTED = 0x1  # general purpose flag bit 0 (APPNOTE 4.4.4)


def is_zip(head: bytes) -> bool:
    """Whether a file's first bytes are those of a zip archive."""
    return head.startswith(_ZIP_MAGIC)


def is_tar(head: bytes) -> bool:
    """Whether a file's (or a decompressed stream's) first bytes are a POSIX or GNU tar header (``ustar`` at 257)."""
    return head[257:262] == b"ustar"


class Member(NamedTuple):
    """One member of an archive: its name as stored, and either its bytes (``read``, read once and replayed) or, for
    a link, its target text (``link``)."""

    name: str
    read: MemberBytes | None
    link: str | None


# What reading an archive's directory or a member can raise besides LoadFailure: corrupt or truncated data.
_CORRUPT = (zlib.error, lzma.LZMAError, NotImplementedError, RuntimeError, OSError, EOFError, ValueError)


def members(handle: IO[bytes], kind: str, read_size: int, budget: Budget) -> Iterator[Member]:
    """The members of the zip (``kind == "zip"``) or tar archive open in ``handle`` (seekable), in stored order;
    directories and special files left out. Raises :class:`LoadFailure` (``load.unreadable``) when the archive does
    not open or its directory cannot be read on (a tar header after corrupt data)."""
    try:
        if kind == "zip":
            yield from _zip_members(handle, read_size, budget)
        else:
            yield from _tar_members(handle, read_size, budget)
    except LoadFailure:
        raise
    except Exception as error:  # (zipfile.BadZipFile, tarfile.TarError and the decompressors' errors)
        raise _unreadable(error, "The archive cannot be read.") from None


def _unreadable(error: Exception, message: str) -> LoadFailure:
    """``load.unreadable`` for an error that corrupt or truncated data raises (``_CORRUPT``, or an error class of
    :mod:`zipfile` or :mod:`tarfile`); any other error is a defect and is raised again."""
    if not isinstance(error, _CORRUPT) and type(error).__module__ not in ("zipfile", "tarfile"):
        raise error
    return LoadFailure(LoadProblem(UNREADABLE, message=message))


def _zip_members(handle: IO[bytes], read_size: int, budget: Budget) -> Iterator[Member]:
    import zipfile

    with zipfile.ZipFile(handle) as archive:
        for info in archive.infolist():
            if not info.is_dir():
                yield Member(info.filename, MemberBytes(lambda info=info: archive.open(info), read_size, budget,
                                                        encrypted=bool(info.flag_bits & _ENCRYPTED)), None)


def _tar_members(handle: IO[bytes], read_size: int, budget: Budget) -> Iterator[Member]:
    import tarfile

    with tarfile.open(fileobj=handle, mode="r:*") as archive:
        for info in archive:
            if info.issym() or info.islnk():
                yield Member(info.name, None, info.linkname)
            elif info.isreg():
                yield Member(info.name, MemberBytes(lambda info=info: archive.extractfile(info), read_size, budget),
                             None)


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


class Nest:
    """What every archive read from one file on disk shares: the file's name as shown (``top``), the decompressed
    bytes left (``budget``), the members read so far (every archive's), the number of findings the collector held
    before the file was read (``first_finding``, for the file's one report limit) and whether a limit stopped the
    reading (``stopped``: no archive of the file reads another member)."""

    def __init__(self, top: str, budget: Budget, first_finding: int) -> None:
        self.top = top
        self.budget = budget
        self.members = 0
        self.first_finding = first_finding
        self.stopped = False


# A member's bytes are kept, as they are read, in a spooled temporary file (in memory up to this size, then on
# disk), so a member read again (a JSON member that does not parse, a text member that is not UTF-8) is replayed
# from there, never read again from the archive: a compressed tar archive cannot seek back without decompressing
# from its start, which would make every second read cost the whole archive so far (quadratic in its members).
SPOOL_MEMORY = 1 << 20


class MemberBytes:
    """The bytes of one archive member, read once from the archive (``open_member`` opens it, at the first read) and
    replayed from a spool for every further read: :meth:`windows` gives them from the start, ``read_size`` at a
    time, as often as asked. Raises :class:`LoadFailure`: an encrypted member (``encrypted``), an unknown
    compression method, data that does not decompress or fails its CRC (``load.unreadable``), or more bytes than
    the archive's budget has left (``load.too_large``; each byte is charged once). :meth:`close` releases the
    spool."""

    def __init__(self, open_member: Callable[[], Any], read_size: int, budget: Budget,
                 encrypted: bool = False) -> None:
        self.open_member = open_member
        self.read_size = read_size
        self.budget = budget
        self.encrypted = encrypted
        self.source: Any = None
        self.spool: Any = None
        self.spooled = 0  # bytes in the spool
        self.done = False  # the source was read to its end

    def _more(self) -> bytes:
        """The next window from the archive, appended to the spool (b"" at the member's end)."""
        if self.encrypted:
            raise LoadFailure(LoadProblem(UNREADABLE, message="The archive member is encrypted."))
        try:
            if self.source is None:
                self.source = self.open_member()
            window = self.source.read(self.read_size)
        except Exception as error:  # (zipfile.BadZipFile, tarfile.ReadError and the decompressors' errors)
            raise _unreadable(error, "The archive member does not decompress.") from None
        if not window:
            self.done = True
            self.source.close()
            return b""
        self.budget.left -= len(window)
        if self.budget.left < 0:
            raise LoadFailure(LoadProblem(TOO_LARGE, message="The archive's decompressed data is larger than the "
                                                             "limit."))
        if self.spool is None:
            import tempfile

            self.spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY)
        self.spool.seek(self.spooled)
        self.spool.write(window)
        self.spooled += len(window)
        return window

    def windows(self) -> Iterator[bytes]:
        """The member's bytes from its start: the spool first, then what is still unread of the archive."""
        offset = 0
        while True:
            if offset < self.spooled:
                self.spool.seek(offset)
                window = self.spool.read(min(self.read_size, self.spooled - offset))
            elif self.done:
                return
            else:
                window = self._more()
                if not window:
                    return
            offset += len(window)
            yield window

    def seekable(self) -> IO[bytes]:
        """The member's bytes as a seekable file positioned at its start (an archive inside an archive is opened
        from it): the member is read to its end into the spool first, each byte charged to the budget once. Raises
        :class:`LoadFailure` as reading does. Valid until :meth:`close`."""
        while not self.done:
            self._more()
        if self.spool is None:
            import tempfile

            self.spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY)
        self.spool.seek(0)
        return self.spool

    def close(self) -> None:
        if self.spool is not None:
            self.spool.close()
        if self.source is not None and not self.done:
            self.source.close()


class _Windows:
    """A reader over byte windows (``read`` gives the next window, whatever size is asked; b"" at the end), as
    :class:`MemberBytes` reads its source."""

    def __init__(self, windows: Iterator[bytes]) -> None:
        self.windows = windows

    def read(self, _size: int) -> bytes:
        return next(self.windows, b"")

    def close(self) -> None:
        close = getattr(self.windows, "close", None)
        if close is not None:
            close()


def decompressed_whole(source: IO[bytes], compression: str, read_size: int, budget: Budget) -> MemberBytes:
    """The decompressed bytes of ``source`` (gzip, bzip2 or xz data: ``compression``), as a member's bytes are kept:
    a zip archive compressed as a whole (``x.zip.gz``) is read from its end (the central directory), so it is
    decompressed into a spool first (:meth:`MemberBytes.seekable`), each byte charged to ``budget``, and opened from
    there. Data that does not decompress raises :class:`LoadFailure` when it is read, as a member's does."""
    from nerb_verify.privacy.compressed import decompressed

    def compressed_windows() -> Iterator[bytes]:
        while window := source.read(read_size):
            yield window

    return MemberBytes(lambda: _Windows(decompressed(compressed_windows(), compression, read_size, budget.left + 1)),
                       read_size, budget)
