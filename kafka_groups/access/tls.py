"""Truststores and keystores named by Java client properties, read into PEM text that both
client libraries take: PEM files and inline PEM as they are, PKCS12 through ``cryptography``.

A JKS (or JCEKS) store is refused with the one ``keytool`` command that converts it: no
maintained Python library reads that format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kafka_groups.client_secure import Store
from kafka_groups.errors import ConfigError
from kafka_groups.setting_files import KEYSTORE_LIMIT, TRUSTSTORE_LIMIT, echo, read_setting_file

_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----\r?\n.*?-----END \1-----\r?\n?", re.S)
_JKS_MAGIC = {b"\xfe\xed\xfe\xed": "JKS", b"\xce\xce\xce\xce": "JCEKS"}


@dataclass(frozen=True)
class Identity:
    """A client certificate chain and its private key, PEM; ``key_password`` when encrypted."""

    chain_pem: str
    key_pem: str
    key_password: str | None


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
    """The client certificate chain and key of a keystore, PEM."""
    if store.pem is not None:
        chain, key_text = store.pem, store.key_pem or ""
    else:
        data = _read(store, "keystore")
        if not _is_pem(data):
            key, cert, extra = _pkcs12(data, store.password, "keystore")
            if key is None or cert is None:
                raise ConfigError("ssl.keystore.location holds no private key with its certificate")
            from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

            key_pem = key.private_bytes(  # type: ignore[attr-defined]
                Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()
            ).decode()
            return Identity(_cert_pem([cert, *extra]), key_pem, None)
        chain = key_text = data.decode("ascii", errors="replace")
    keys = _blocks(key_text, "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY")
    certs = _blocks(chain, "CERTIFICATE")
    if len(keys) != 1 or not certs:
        raise ConfigError("the PEM keystore needs exactly one private key and its certificate chain")
    encrypted = "ENCRYPTED" in keys[0].splitlines()[0]
    if encrypted and not key_password:
        raise ConfigError("the keystore's private key is encrypted: set ssl.key.password")
    return Identity("".join(certs), keys[0], key_password if encrypted else None)
