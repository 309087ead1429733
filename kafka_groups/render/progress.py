"""A transient progress line on stderr for long operations at a terminal."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def working(message: str, enabled: bool = True) -> Iterator[None]:
    """Show ``message`` with a spinner on stderr while the block runs, only when stderr is a
    terminal; it disappears when the block ends, so nothing is left in the output."""
    if not (enabled and sys.stderr.isatty()):
        yield
        return
    from rich.console import Console

    with Console(stderr=True).status(message, spinner="dots"):
        yield
