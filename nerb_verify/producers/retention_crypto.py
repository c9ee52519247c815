"""Optional encryption at rest of recorded private artifacts: AES-256-GCM in 1 MiB chunks (``cryptography``).

Installed with the ``encryption`` extra (``pip install '.[encryption]'``). The key is 32 bytes, read from a key file
(32 raw bytes, or 64 hex digits and an optional newline) or from the environment variable ``NERB_RETENTION_KEY``
(64 hex digits). It is never printed, logged, hashed into a record or written anywhere by this module; errors say
only what is wrong with it (missing, wrong length), never any of it.

File format ``aes_256_gcm_stream_v1`` (a STREAM-style construction, so a file of any size is processed in bounded
memory and a truncated, reordered or swapped file fails authentication):

* header: magic ``NERBENC1`` + a 7-byte random nonce prefix;
* then chunks of at most 1 MiB plaintext, each sealed with nonce = prefix + 4-byte big-endian chunk counter + one
  byte that is 1 on the last chunk and 0 otherwise, and associated data = header + the artifact's path relative to
  the private root (a ciphertext copied onto another artifact's name does not decrypt). An empty file is one empty
  last chunk.

Encryption replaces the file atomically (temporary file, fsync, rename) and marks the retention entry
``encrypted: true``. The producers read plaintext, so a root is encrypted *between* runs (``retention encrypt`` after
a run, ``retention decrypt`` before the next); the append-only sealed-access lineage (hashes and times only, no
text) stays plaintext because the sealed-test guard appends to it. The trade-offs are documented in
``docs/producers.md`` ("Retention").
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from nerb_verify.producers.retention import (
    PLAINTEXT_ONLY,
    RetentionError,
    _live,
    _write_record,
    load_record,
)

MAGIC = b"NERBENC1"
PREFIX_BYTES = 7
CHUNK = 1 << 20
TAG = 16
KEY_ENV = "NERB_RETENTION_KEY"
INSTALL_ENCRYPTION = "pip install '.[encryption]'"


def _aesgcm(key: bytes):  # type: ignore[no-untyped-def]
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        raise RetentionError("encryption at rest needs the cryptography package: " + INSTALL_ENCRYPTION) from None
    return AESGCM(key)


def load_key(key_file: Path | None = None, environ: dict[str, str] | None = None) -> bytes:
    """The 32-byte key from ``key_file`` or ``NERB_RETENTION_KEY``; refused (never echoed) when absent or malformed."""
    env = os.environ if environ is None else environ
    if key_file is not None:
        try:
            raw = key_file.read_bytes()
        except OSError:
            raise RetentionError("the key file cannot be read") from None
        if len(raw) == 32:
            return raw
        text = raw.strip()
    elif env.get(KEY_ENV):
        text = env[KEY_ENV].strip().encode("ascii", "replace")
    else:
        raise RetentionError(f"no key: pass --key-file or set {KEY_ENV}")
    if len(text) != 64:
        raise RetentionError("the key must be 32 bytes (or 64 hexadecimal digits)")
    try:
        return bytes.fromhex(text.decode("ascii"))
    except ValueError:
        raise RetentionError("the key must be 32 bytes (or 64 hexadecimal digits)") from None


def _nonce(prefix: bytes, counter: int, last: bool) -> bytes:
    return prefix + struct.pack(">I", counter) + (b"\x01" if last else b"\x00")


def is_encrypted(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(len(MAGIC)) == MAGIC


def encrypt_file(source: Path, target: Path, key: bytes, associated: str) -> None:
    """Encrypt ``source`` into ``target`` (0600) under ``key``, bound to the name ``associated``."""
    aead = _aesgcm(key)
    header = MAGIC + os.urandom(PREFIX_BYTES)
    aad = header + associated.encode("utf-8")
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with source.open("rb") as reader, os.fdopen(fd, "wb") as writer:
        writer.write(header)
        counter = 0
        chunk = reader.read(CHUNK)
        while True:
            following = reader.read(CHUNK) if len(chunk) == CHUNK else b""
            last = not following
            writer.write(aead.encrypt(_nonce(header[len(MAGIC):], counter, last), chunk, aad))
            if last:
                break
            chunk, counter = following, counter + 1
        writer.flush()
        os.fsync(writer.fileno())


def decrypt_file(source: Path, target: Path, key: bytes, associated: str) -> None:
    """Decrypt ``source`` into ``target`` (0600); a wrong key, name, truncation or edit is refused."""
    from cryptography.exceptions import InvalidTag

    aead = _aesgcm(key)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with source.open("rb") as reader, os.fdopen(fd, "wb") as writer:
            header = reader.read(len(MAGIC) + PREFIX_BYTES)
            if len(header) != len(MAGIC) + PREFIX_BYTES or not header.startswith(MAGIC):
                raise RetentionError("a file is not in the aes_256_gcm_stream_v1 format")
            aad = header + associated.encode("utf-8")
            counter = 0
            sealed = reader.read(CHUNK + TAG)
            while True:
                following = reader.read(CHUNK + TAG) if len(sealed) == CHUNK + TAG else b""
                last = not following
                try:
                    writer.write(aead.decrypt(_nonce(header[len(MAGIC):], counter, last), sealed, aad))
                except InvalidTag:
                    raise RetentionError("a file does not authenticate (wrong key, renamed, truncated or "
                                         "edited)") from None
                if last:
                    break
                sealed, counter = following, counter + 1
            writer.flush()
            os.fsync(writer.fileno())
    except BaseException:
        target.unlink(missing_ok=True)
        raise


def _replace(root: Path, relative: str, key: bytes, encrypt: bool) -> None:
    path = root / relative
    temporary = path.with_name(path.name + ".partial")
    (encrypt_file if encrypt else decrypt_file)(path, temporary, key, relative)
    os.replace(temporary, path)


def encrypt_root(root: Path, key: bytes) -> list[str]:
    """Encrypt every live, present, plaintext artifact of the record (not the lineage); returns the paths done."""
    return _apply(root, key, encrypt=True)


def decrypt_root(root: Path, key: bytes) -> list[str]:
    """Decrypt every artifact the record marks encrypted; returns the paths done."""
    return _apply(root, key, encrypt=False)


def _apply(root: Path, key: bytes, *, encrypt: bool) -> list[str]:
    record = load_record(root)
    if record is None:
        raise RetentionError("the private root has no retention record")
    _aesgcm(key)
    done: list[str] = []
    try:
        for relative, entry in sorted(_live(record).items()):
            path = root / relative
            if path.is_symlink() or not path.is_file() or relative.split("/")[-1] in PLAINTEXT_ONLY:
                continue
            if bool(entry.get("encrypted")) == encrypt:
                continue
            if encrypt and is_encrypted(path):
                raise RetentionError("a plaintext entry already holds an encrypted file; the record is stale")
            _replace(root, relative, key, encrypt)
            entry["encrypted"] = encrypt
            done.append(relative)
    finally:
        _write_record(root, record)  # whatever was done is on record, even if a later file failed
    return done
