"""The entry point every tool shares, and the one place where errors become a line on
stderr and an exit code. Typer is loaded only for the subcommand form and for help."""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from kafka_groups.apache_argv import is_flag_form
from kafka_groups.client_config import KNOWN_SECRETS, ScrubFilter, scrub
from kafka_groups.errors import CliError, ExitCode
from kafka_groups.escape import escape_controls


class Request(Protocol):
    def execute(self) -> None: ...


# What a flag-form translation returns when the user asked for help or the version.
HELP = ("--help",)
VERSION = ("--version",)


def _print_error(message: str, label: str = "Error: ") -> None:
    # One line, with no control character that could act on the terminal (a group id, a file
    # or a property can hold ESC sequences).
    print(escape_controls(scrub(f"{label}{message}", KNOWN_SECRETS)), file=sys.stderr)


def _print_traceback() -> None:
    print(scrub(traceback.format_exc(), KNOWN_SECRETS), file=sys.stderr, end="")


def configure_logging(debug: bool) -> None:
    """The tools' logging, set here and nowhere in the library: the Kafka clients' logs are
    silent unless ``--debug``, which shows them (and ours) with every secret scrubbed."""
    level = logging.DEBUG if debug else logging.CRITICAL + 1
    logging.getLogger("kafka").setLevel(level)
    logging.getLogger("kafka_groups.librdkafka").setLevel(level)
    if debug:
        logging.basicConfig(level=logging.DEBUG)
        for handler in logging.getLogger().handlers:
            if not any(isinstance(f, ScrubFilter) for f in handler.filters):
                handler.addFilter(ScrubFilter())


def _run_typer(load_app: Callable[[], Any], prog: str, args: Sequence[str]) -> int:
    import typer
    from click.exceptions import Abort, ClickException, Exit

    command = typer.main.get_command(load_app())
    try:
        command.main(args=list(args), prog_name=prog, standalone_mode=False)
    except Exit as exc:
        return int(exc.exit_code)
    except ClickException as exc:
        _print_error(exc.format_message().replace("\n", " "))
        return ExitCode.USAGE
    except Abort:
        print("Aborted.", file=sys.stderr)
        return 130
    return ExitCode.OK


def run_tool(
    prog: str,
    argv: Sequence[str],
    subcommands: Sequence[str],
    translate: Callable[[Sequence[str]], Request | tuple[str, ...]],
    load_app: Callable[[], Any],
) -> int:
    """Run a tool. The Apache flag form is translated straight into a request; the
    subcommand form goes through Typer. Either way every failure is one line on stderr and a
    documented exit code (a traceback only with ``--debug``)."""
    debug = "--debug" in argv
    configure_logging(debug)
    try:
        if is_flag_form(argv, subcommands):
            request = translate(argv)
            if isinstance(request, tuple):
                return _run_typer(load_app, prog, request)
            request.execute()
            return ExitCode.OK
        return _run_typer(load_app, prog, argv)
    except CliError as exc:
        if debug:
            _print_traceback()
        _print_error(exc.message, exc.label)
        if exc.detail:
            print(escape_controls(scrub(exc.detail, KNOWN_SECRETS), keep_newlines=True), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("Aborted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return ExitCode.OK
    except Exception as exc:
        if debug:
            _print_traceback()
        _print_error(f"unexpected failure: {type(exc).__name__}: {exc} (run with --debug for details)")
        return ExitCode.ERROR
