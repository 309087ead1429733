"""Truststores and keystores named by Java client properties, read into PEM text that both
client libraries take: PEM files and inline PEM as they are, PKCS12 through ``cryptography``.

A JKS (or JCEKS) store is refused with the one ``keytool`` command that converts it: no
maintained Python library reads that format.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from kafka_groups.client_secure import Store
from kafka_groups.errors import ConfigError
from kafka_groups.setting_files import KEYSTORE_LIMIT, TRUSTSTORE_LIMIT, echo, read_setting_file

if TYPE_CHECKING:
    import ssl

_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----\r?\n.*?-----END \1-----\r?\n?", re.S)
_JKS_MAGIC = {b"\xfe\xed\xfe\xed": "JKS", b"\xce\xce\xce\xce": "JCEKS"}


@dataclass(frozen=True)
class Identity:
    """A client certificate chain and its private key, PEM (the key not encrypted: it is held
    in memory only)."""

    chain_pem: str
    key_pem: str


def _read(store: Store, kind: str) -> bytes:
    assert store.location is not None
    limit = TRUSTSTORE_LIMIT if kind == "truststore" else KEYSTORE_LIMIT
    data = read_setting_file(store.location, f"ssl.{kind}.location", limit, f"a {kind}")
    java_format = _JKS_MAGIC.get(data[:4])
    if java_format or store.type == "JKS":
        location = echo(store.location)
        target = echo(str(Path(store.location).with_suffix(".p12")))
        raise ConfigError(
            f"ssl.{kind}.location {location} is a {java_format or 'JKS'} store, which the tools cannot "
            f"read; convert it with: keytool -importkeystore -srckeystore {location} "
            f"-srcstoretype {java_format or 'JKS'} -destkeystore {target} -deststoretype PKCS12 "
            f"(then set ssl.{kind}.location={target} and ssl.{kind}.type=PKCS12)"
        )
    return data


def _is_pem(data: bytes) -> bool:
    return b"-----BEGIN " in data[:4096]


def _blocks(text: str, *labels: str) -> list[str]:
    return [m.group(0).strip() + "\n" for m in _PEM_BLOCK.finditer(text) if m.group(1) in labels]


def _pkcs12(data: bytes, password: str | None, kind: str) -> tuple[object, object, list[object]]:
    from cryptography.hazmat.primitives.serialization import pkcs12

    try:
        key, cert, extra = pkcs12.load_key_and_certificates(data, password.encode() if password else None)
    except ValueError:
        raise ConfigError(
            f"ssl.{kind}.location is not a PKCS12 store that ssl.{kind}.password opens "
            "(wrong password, or not PKCS12)"
        ) from None
    return key, cert, list(extra)


def _cert_pem(certs: list[object]) -> str:
    from cryptography.hazmat.primitives.serialization import Encoding

    return "".join(c.public_bytes(Encoding.PEM).decode() for c in certs)  # type: ignore[attr-defined]


@lru_cache(maxsize=4)  # each client of a command takes the same store: read and decode it once
def trusted_pem(store: Store) -> str:
    """The CA certificates of a truststore, PEM."""
    if store.pem is not None:
        text = store.pem
    else:
        data = _read(store, "truststore")
        if _is_pem(data):
            text = data.decode("ascii", errors="replace")
        else:
            _key, cert, extra = _pkcs12(data, store.password, "truststore")
            return _cert_pem([c for c in (cert, *extra) if c is not None])
    certs = _blocks(text, "CERTIFICATE")
    if not certs:
        raise ConfigError("the truststore holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
    return "".join(certs)


@lru_cache(maxsize=4)
def identity(store: Store, key_password: str | None) -> Identity:
    """The client certificate chain and key of a keystore, PEM, the key decrypted here (with
    ``ssl.key.password``) so that both clients take the same key and a wrong password reads the
    same through either."""
    if store.pem is not None:
        chain, key_text = store.pem, store.key_pem or ""
    else:
        data = _read(store, "keystore")
        if not _is_pem(data):
            key, cert, extra = _pkcs12(data, store.password, "keystore")
            if key is None or cert is None:
                raise ConfigError("ssl.keystore.location holds no private key with its certificate")
            return Identity(_cert_pem([cert, *extra]), _key_pem(key))
        chain = key_text = data.decode("ascii", errors="replace")
    keys = _blocks(key_text, "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY")
    certs = _blocks(chain, "CERTIFICATE")
    if len(keys) != 1 or not certs:
        raise ConfigError("the PEM keystore needs exactly one private key and its certificate chain")
    key_pem = keys[0]
    # PKCS#8 (BEGIN ENCRYPTED PRIVATE KEY) or the older OpenSSL form (Proc-Type: 4,ENCRYPTED).
    if "ENCRYPTED" in "".join(key_pem.splitlines()[:2]):
        if not key_password:
            raise ConfigError("the keystore's private key is encrypted: set ssl.key.password")
        key_pem = _decrypted(key_pem, key_password)
    return Identity("".join(certs), key_pem)


WRONG_KEY_PASSWORD = "ssl.key.password does not open the keystore's private key (wrong password)"


def _decrypted(key_pem: str, password: str) -> str:
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        key = load_pem_private_key(key_pem.encode(), password.encode())
    except (ValueError, TypeError):
        raise ConfigError(WRONG_KEY_PASSWORD) from None
    return _key_pem(key)


def _key_pem(key: object) -> str:
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    return key.private_bytes(  # type: ignore[attr-defined, no-any-return]
        Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()
    ).decode()


def load_identity(context: ssl.SSLContext, ident: Identity) -> None:
    """Give ``context`` the client certificate chain and its key without the key ever being
    written to a file system. Python's ``ssl`` loads a certificate and key only from a path, so
    they are written to an anonymous file in memory (``memfd_create``: linked in no directory,
    gone with the process, whatever ends it) and loaded through its ``/proc/self/fd`` path.
    Where there is no such file (not Linux, or no ``/proc``), the key goes to a private
    temporary file only encrypted, under a random password that exists in this process alone."""
    import ssl

    data = (ident.key_pem + ident.chain_pem).encode()
    try:
        if _load_from_memory(context, data):
            return
        _load_encrypted_copy(context, ident)
    except ssl.SSLError as exc:
        reason = exc.reason or exc.strerror or type(exc).__name__
        raise ConfigError(f"the keystore's certificate and private key cannot be used: {reason}") from None


def _load_from_memory(context: ssl.SSLContext, data: bytes) -> bool:
    """Whether the identity was loaded through an anonymous in-memory file."""
    memfd_create = getattr(os, "memfd_create", None)
    if memfd_create is None:
        return False
    try:
        fd = memfd_create("kafka-tools-identity", os.MFD_CLOEXEC)
    except OSError:
        return False
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        path = f"/proc/self/fd/{fd}"
        if not os.path.exists(path):
            return False
        context.load_cert_chain(path)
        return True
    finally:
        os.close(fd)


def _load_encrypted_copy(context: ssl.SSLContext, ident: Identity) -> None:
    import secrets
    import tempfile

    from cryptography.hazmat.primitives.serialization import (
        BestAvailableEncryption,
        Encoding,
        PrivateFormat,
        load_pem_private_key,
    )

    once = secrets.token_hex(32)
    key = load_pem_private_key(ident.key_pem.encode(), None)
    sealed = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(once.encode()))
    fd, path = tempfile.mkstemp(prefix="kafka-tools-identity-", suffix=".pem")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(sealed + ident.chain_pem.encode())
        context.load_cert_chain(path, password=once)
    finally:
        os.unlink(path)
