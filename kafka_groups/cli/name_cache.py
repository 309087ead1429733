"""A short-lived on-disk cache of group and topic names for shell completion.

One small JSON file per cluster and kind under ``$XDG_CACHE_HOME/kafka-group-tools/names``
(``~/.cache`` when unset), readable by the user only. The file name is a hash of the
bootstrap servers and the kind: no credential is part of the key or of the file, which
holds names and the time they were listed.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path

TTL_S = 30.0


def cache_dir(environ: Mapping[str, str]) -> Path:
    base = environ.get("XDG_CACHE_HOME") or os.path.join(environ.get("HOME") or "~", ".cache")
    return Path(base).expanduser() / "kafka-group-tools" / "names"


def _path(bootstrap: str, kind: str, environ: Mapping[str, str]) -> Path:
    key = hashlib.sha256(f"{bootstrap}\0{kind}".encode()).hexdigest()[:32]
    return cache_dir(environ) / f"{key}.json"


def read(bootstrap: str, kind: str, environ: Mapping[str, str], now: float | None = None) -> object:
    """The names listed less than ``TTL_S`` ago, or None."""
    try:
        data = json.loads(_path(bootstrap, kind, environ).read_text())
        age = (time.time() if now is None else now) - float(data["at"])
        return data["names"] if 0 <= age < TTL_S else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write(bootstrap: str, kind: str, names: object, environ: Mapping[str, str]) -> None:
    try:
        path = _path(bootstrap, kind, environ)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump({"at": time.time(), "names": names}, f)
        os.replace(tmp, path)
    except OSError:
        pass
