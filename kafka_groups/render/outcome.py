"""What a command returns: its result and everything that is said around it, as one frozen
value. Commands build it and print nothing of it; :func:`kafka_groups.render.registry.deliver`
prints it, and the runner (:mod:`kafka_groups.cli.runner`) turns its status into the exit code.

A command that must say something before it writes (the reset plan in the Apache text layout
is printed before the commit) is handed a :data:`Show` callback by the runner and calls it with
an :class:`Outcome` of what is known so far; the outcome it returns then says ``shown=True`` so
that its rows are not printed twice. The backup and its undo are announced by the write
discipline itself (``kafka_groups.commands.guard.announce``), before anything is sent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kafka_groups.errors import CliError, ExitCode
from kafka_groups.render import OutputFormat


@dataclass(frozen=True)
class Outcome:
    # The rows, printed by the renderer registered for their type (None: nothing on stdout).
    result: object | None = None
    output: OutputFormat = OutputFormat.AUTO
    # Lines on stderr before the rows (escaped: they may quote names from the cluster).
    warnings: tuple[str, ...] = ()
    # Lines on stderr after the rows, as worded (notes on what a write did).
    notices: tuple[str, ...] = ()
    # Lines on stdout before the rows (the Apache tools print some warnings there).
    preface: tuple[str, ...] = ()
    # The closing error line, whose exit code is the command's status.
    failure: CliError | None = None
    # Shown through the Show callback before a write: the rows only (what the write did, and
    # the closing lines, come with the outcome the command returns).
    before_write: bool = False
    # Rows of a read shown as they are made (a streamed describe's groups): the rows only, as
    # ``before_write``, but nothing is being written.
    streamed: bool = False
    # The rows were already shown that way: the returned outcome prints only what follows them.
    shown: bool = False

    @property
    def status(self) -> int:
        return self.failure.exit_code if self.failure is not None else ExitCode.OK


# Prints an outcome now, before the command goes on to write.
Show = Callable[[Outcome], None]
