"""Control characters made visible before text reaches a terminal.

Group ids, topic names, file contents, properties and arguments can hold any character; an
escape sequence among them (``ESC[2J`` clears the screen) must not act on the terminal of the
person reading an error. Every such character is shown as a Python-style escape instead."""

from __future__ import annotations

import re

# C0 controls except tab, DEL, and C1 controls (ESC's 8-bit forms); newlines too, so that one
# error stays one line.
_CONTROLS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    return {"\n": "\\n", "\r": "\\r"}.get(char) or f"\\x{ord(char):02x}"


def escape_controls(text: str, keep_newlines: bool = False) -> str:
    """``text`` with every control character (but tab) written as ``\\n``, ``\\r`` or ``\\xNN``;
    with ``keep_newlines``, text of several lines keeps its line breaks."""
    if keep_newlines:
        return "\n".join(_CONTROLS.sub(_escaped, line) for line in text.split("\n"))
    return _CONTROLS.sub(_escaped, text)
