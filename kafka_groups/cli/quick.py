"""Answers an entry point gives before it loads the runner and the flag tables.

``TOOL --help`` (or ``-h``) alone prints the flag form's help, as ``cli/runner.run_tool``
does for it, without importing the argument parser, the settings or the clients' modules:
help is read by people waiting at a prompt.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence


def help_only(prog: str, argv: Sequence[str]) -> bool:
    """Print the flag form's help when ``argv`` asks for nothing else; False otherwise."""
    if list(argv) not in (["--help"], ["-h"]):
        return False
    from kafka_groups.cli.flag_help import render

    with contextlib.suppress(BrokenPipeError):  # as the runner: a reader that stopped early
        sys.stdout.write(render(prog))
    return True
