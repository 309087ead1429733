"""Java ``.properties`` files, read the way ``java.util.Properties.load`` reads them.

The Apache tools load ``--command-config`` with ``Properties.load``; scripts hand the same file
to our tools, so the same syntax must give the same keys and values: ``#``/``!`` comments,
``=``, ``:`` or white space between key and value, backslash escapes (``\\t``, ``\\n``,
``\\uXXXX``, an escaped separator) and lines continued with a trailing backslash. The
parsing is the maintained ``javaproperties`` library's; this module reads the file (UTF-8, or
Latin-1 when it is not UTF-8) and words the errors.
"""

from __future__ import annotations

from kafka_groups.errors import ConfigError
from kafka_groups.setting_files import PROPERTIES_LIMIT, echo, read_setting_file


def parse_properties(text: str, where: str = "properties") -> dict[str, str]:
    """Parse properties text into a dict; later keys win, as in Java. An escaped surrogate
    pair (``\\ud83d\\ude00``) is one character, as Java reads it."""
    import javaproperties  # here, not at the top: it loads urllib and email (~40 ms) for its XML form

    try:
        return dict(javaproperties.loads(text))
    except javaproperties.InvalidUEscapeError:
        raise ConfigError(f"{where}: malformed \\uxxxx escape") from None


def load_properties(path: str) -> dict[str, str]:
    """Read a properties file; a missing or unreadable file, one that is not a regular file
    (a FIFO, a device, stdin on a terminal) or one over ``PROPERTIES_LIMIT`` is a ConfigError."""
    data = read_setting_file(path, "--command-config file", PROPERTIES_LIMIT, "a properties file")
    # Properties.load(InputStream) reads ISO-8859-1; Utils.loadProps uses a Reader (UTF-8).
    # A UTF-8 byte order mark (editors on Windows write one) is not part of the first key.
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return parse_properties(text, where=echo(path))
