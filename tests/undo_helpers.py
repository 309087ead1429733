"""The undo a write prints, taken from its stderr and run as printed: by bash, from a directory of
the test's choosing, each of our tools a shell function that runs it as the installed command
does."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import OUR_TOOLS, ROOT
from tests.inprocess import DROPPED_ENV


def undo_line(stderr: str) -> str:
    """The one ``Undo:`` line; it holds no control character (ids are ``$'...'`` escapes)."""
    found = re.findall(r"^Undo: (.*)$", stderr, re.M)
    assert len(found) == 1, stderr
    line = found[0]
    assert line.isprintable(), line
    return line


def run_undo(line: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``line`` run by bash from ``cwd``."""
    prelude = "".join(
        f'{name}() {{ "$KGT_PYTHON" -m {module} "$@"; }}\n' for name, module in OUR_TOOLS.items()
    )
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "KGT_PYTHON": sys.executable}
    for name in DROPPED_ENV:
        full_env.pop(name, None)
    full_env.update(env or {})
    return subprocess.run(
        ["bash", "-c", prelude + line],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=full_env,
        stdin=subprocess.DEVNULL,
    )
