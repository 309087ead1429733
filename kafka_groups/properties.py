"""Java ``.properties`` files, read the way ``java.util.Properties.load`` reads them.

The Apache tools load ``--command-config`` with ``Properties.load``; scripts hand the same file
to our tools, so the same syntax must give the same keys and values: ``#``/``!`` comments,
``=``, ``:`` or white space between key and value, backslash escapes (``\\t``, ``\\n``,
``\\uXXXX``, an escaped separator) and lines continued with a trailing backslash.
"""

from __future__ import annotations

from pathlib import Path

from kafka_groups.errors import ConfigError

_WHITESPACE = " \t\f"
_SEPARATORS = "=:"
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _logical_lines(text: str) -> list[str]:
    """Join continued lines; drop blank and comment lines (as Properties.load does)."""
    lines: list[str] = []
    current: str | None = None
    for raw in text.splitlines():
        line = raw.lstrip(_WHITESPACE)
        if current is None and (not line or line[0] in "#!"):
            continue
        if _ends_with_continuation(line):
            current = (current or "") + line[:-1]
            continue
        lines.append((current or "") + line)
        current = None
    if current is not None:
        lines.append(current)
    return lines


def _ends_with_continuation(line: str) -> bool:
    backslashes = len(line) - len(line.rstrip("\\"))
    return backslashes % 2 == 1


def _unescape(text: str, where: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        i += 1
        if i >= len(text):
            break
        esc = text[i]
        if esc == "u":
            digits = text[i + 1 : i + 5]
            if len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise ConfigError(f"{where}: malformed \\uxxxx escape")
            out.append(chr(int(digits, 16)))
            i += 5
            continue
        out.append(_ESCAPES.get(esc, esc))
        i += 1
    return "".join(out)


def _split_key_value(line: str) -> tuple[str, str]:
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch in _SEPARATORS or ch in _WHITESPACE:
            break
        i += 1
    key = line[:i]
    if i < len(line) and line[i] in _SEPARATORS:
        i += 1
    else:
        while i < len(line) and line[i] in _WHITESPACE:
            i += 1
        if i < len(line) and line[i] in _SEPARATORS:
            i += 1
    rest = line[i:].lstrip(_WHITESPACE)
    return key, rest


def parse_properties(text: str, where: str = "properties") -> dict[str, str]:
    """Parse properties text into a dict; later keys win, as in Java."""
    result: dict[str, str] = {}
    for line in _logical_lines(text):
        raw_key, raw_value = _split_key_value(line)
        result[_unescape(raw_key, where)] = _unescape(raw_value, where)
    return result


def load_properties(path: str) -> dict[str, str]:
    """Read a properties file; a missing or unreadable file is a ConfigError."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read --command-config file {path}: {exc.strerror or exc}") from None
    # Properties.load(InputStream) reads ISO-8859-1; Utils.loadProps uses a Reader (UTF-8).
    # A UTF-8 byte order mark (editors on Windows write one) is not part of the first key.
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return parse_properties(text, where=path)
