"""Shell completion scripts for the three tools, generated from the Typer apps.

``python -m kafka_groups.cli.completions`` rewrites ``completions/``; a test regenerates them
and compares, so the checked-in scripts never drift from the apps.
"""

from __future__ import annotations

import sys
from pathlib import Path

PROGRAMS = ("kafka-consumer-groups", "kafka-streams-groups", "kafka-topics")
SHELLS = {"bash": "{prog}.bash", "zsh": "_{prog}", "fish": "{prog}.fish"}


def completion_script(prog: str, shell: str) -> str:
    """The script ``_<PROG>_COMPLETE=source_<shell> <prog>`` prints: Typer's own, asked for
    the documented way its installed scripts use, so no private Typer or Click helper is
    imported (Typer 0.21 and later carry their own Click). The variable is set only while the
    script is made; this runs when the completions are regenerated, never in the tools."""
    import contextlib
    import io
    import os

    import typer

    from kafka_groups.cli.options import new_app

    command = typer.main.get_command(new_app(prog, ""))
    complete_var = "_{}_COMPLETE".format(prog.replace("-", "_").upper())
    out = io.StringIO()
    os.environ[complete_var] = f"source_{shell}"
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            command.main([], prog_name=prog, complete_var=complete_var, standalone_mode=False)
    finally:
        del os.environ[complete_var]
    return out.getvalue().strip() + "\n"


def expected_files() -> dict[str, str]:
    """Relative path under completions/ -> script text."""
    return {
        f"{shell}/{pattern.format(prog=prog)}": completion_script(prog, shell)
        for prog in PROGRAMS
        for shell, pattern in SHELLS.items()
    }


def write(root: Path) -> None:
    for rel, text in expected_files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "completions")
