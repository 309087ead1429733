"""Files named by settings (``--command-config``, ``ssl.truststore.location``,
``ssl.keystore.location``), read only when they are regular files and only up to a bound for
their kind; and values quoted back in errors, cut to a few hundred characters.

A setting can name anything: ``/dev/zero``, a FIFO no one writes to, ``/dev/stdin`` on a
terminal, a 100 MB file. Each is one line naming the setting and the file, at once: the path is
looked at before it is opened (a FIFO or a device is never opened), opened without blocking,
looked at again (it may have been swapped meanwhile), and read to its bound and no further.
Shell completion resolves the same settings, so a TAB never reads stdin, a FIFO or a device
either. The bounds are far above any real file of the kind (docs/security.md says them).
"""

from __future__ import annotations

import os
import stat

from kafka_groups.errors import ConfigError
from kafka_groups.escape import escape_controls

_MIB = 1024 * 1024
# A properties file is a few hundred bytes, a keystore a few kilobytes; a truststore that holds a
# whole system CA bundle (about 150 certificates) is about 220 KB.
PROPERTIES_LIMIT = 1 * _MIB
TRUSTSTORE_LIMIT = 4 * _MIB
KEYSTORE_LIMIT = 1 * _MIB
# What an error quotes of a value or a path (a setting's value can be a megabyte).
ECHO_LIMIT = 200

# Not blocking (a FIFO swapped in after the look), never a controlling terminal, not inherited.
_OPEN_FLAGS = os.O_RDONLY
for _flag in ("O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC"):
    _OPEN_FLAGS |= getattr(os, _flag, 0)
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO or pipe"),
    (stat.S_ISSOCK, "a socket"),
)


def echo(value: str, limit: int = ECHO_LIMIT) -> str:
    """``value`` as an error quotes it: control characters escaped, and cut after ``limit``
    characters, saying how long it was."""
    if len(value) > limit:
        return f"{escape_controls(value[:limit])}... ({len(value)} characters)"
    return escape_controls(value)


def _size(n: int) -> str:
    return f"{n / _MIB:.1f} MB" if n >= _MIB else f"{n} bytes"


def _not_regular(setting: str, shown: str, mode: int) -> ConfigError:
    kind = next((name for test, name in _KINDS if test(mode)), "not a file")
    hint = " (settings can also come from KAFKA_CLIENT_* variables)" if stat.S_ISFIFO(mode) else ""
    return ConfigError(f"{setting} {shown} is not a regular file: it is {kind}{hint}")


def _too_big(setting: str, shown: str, size: int | None, limit: int, what: str) -> ConfigError:
    """``size`` None: the file grew past the bound while it was read."""
    found = "is larger than" if size is None else f"is {_size(size)}, more than"
    return ConfigError(f"{setting} {shown} {found} the {_size(limit)} the tools read of {what}")


def read_setting_file(path: str, setting: str, limit: int, what: str) -> bytes:
    """The bytes of the regular file ``path`` that ``setting`` names, at most ``limit`` of them
    (``what``: the kind of file, for the error). ConfigError when it is missing, unreadable, not
    a regular file or larger than ``limit``; never blocks on a FIFO, a terminal or a device."""
    shown = echo(path)
    try:
        mode = os.stat(path).st_mode  # before opening: a FIFO or a device is never opened
        if not stat.S_ISREG(mode):
            raise _not_regular(setting, shown, mode)
        fd = os.open(path, _OPEN_FLAGS)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"cannot read {setting} {shown}: {echo(reason)}") from None
    try:
        info = os.fstat(fd)  # what was opened, which may not be what was looked at
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(setting, shown, info.st_mode)
        if info.st_size > limit:
            raise _too_big(setting, shown, info.st_size, limit, what)
        chunks, total = [], 0
        while total <= limit:  # the file may grow while it is read
            chunk = os.read(fd, min(limit + 1 - total, _MIB))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise _too_big(setting, shown, None, limit, what)
        return b"".join(chunks)
    except OSError as exc:
        raise ConfigError(f"cannot read {setting} {shown}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
