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
    from typer._completion_shared import get_completion_script

    complete_var = "_{}_COMPLETE".format(prog.replace("-", "_").upper())
    return get_completion_script(prog_name=prog, complete_var=complete_var, shell=shell).rstrip() + "\n"


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
