"""A short-lived on-disk cache of group and topic names for shell completion.

One small JSON file per connection and kind under ``$XDG_CACHE_HOME/kafka-group-tools/names``
(``~/.cache`` when unset), readable by the user only. What a cluster shows depends on who asks,
so the names are kept under a key made of everything that decides it: the bootstrap servers and
every client property (the credentials, the identity, the security settings). The key is a slow
salted hash of them; no credential is stored, in the file or its name, which holds names and the
time they were listed. A lookup the cluster refused (credentials, TLS) forgets the names kept
under its key, so that a TAB never offers names after a refused login.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kafka_groups.settings import ConnectionSettings

TTL_S = 30.0
READ_LIMIT = 32 * 1024 * 1024  # tens of thousands of names
# PBKDF2 rounds of the key: a weak password is not found back from a file name in a moment, and a
# TAB spends about 10 ms on it.
_ROUNDS = 10_000
_SALT = b"kafka-group-tools completion names"


def cache_dir(environ: Mapping[str, str]) -> Path:
    base = environ.get("XDG_CACHE_HOME") or os.path.join(environ.get("HOME") or "~", ".cache")
    return Path(base).expanduser() / "kafka-group-tools" / "names"


def key_of(settings: ConnectionSettings) -> str:
    """The cache key of a connection: the bootstrap servers and every property, hashed."""
    material = json.dumps([settings.bootstrap_servers, sorted(settings.properties.items())])
    return hashlib.pbkdf2_hmac("sha256", material.encode(), _SALT, _ROUNDS).hex()[:32]


def _path(key: str, kind: str, environ: Mapping[str, str]) -> Path:
    return cache_dir(environ) / f"{key}-{kind}.json"


def read(key: str, kind: str, environ: Mapping[str, str], now: float | None = None) -> object:
    """The names listed less than ``TTL_S`` ago, or None. Only a regular file is read (never a
    FIFO or a device put in its place), and only up to ``READ_LIMIT``."""
    from kafka_groups.errors import ConfigError
    from kafka_groups.setting_files import read_setting_file

    try:
        data = json.loads(read_setting_file(str(_path(key, kind, environ)), "name cache", READ_LIMIT, "it"))
        age = (time.time() if now is None else now) - float(data["at"])
        return data["names"] if 0 <= age < TTL_S else None
    except (ConfigError, ValueError, KeyError, TypeError):
        return None


def write(key: str, kind: str, names: object, environ: Mapping[str, str]) -> None:
    try:
        path = _path(key, kind, environ)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump({"at": time.time(), "names": names}, f)
        os.replace(tmp, path)
    except OSError:
        pass


def forget(key: str, environ: Mapping[str, str]) -> None:
    """Drop every kind of names kept under ``key`` (the cluster refused its credentials)."""
    try:
        for path in cache_dir(environ).glob(f"{key}-*.json"):
            path.unlink(missing_ok=True)
    except OSError:
        pass
