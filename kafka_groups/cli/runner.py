"""The entry point every tool shares, and the one place where errors become a line on
stderr and an exit code. Typer is loaded only for the subcommand form and for help."""

from __future__ import annotations

import functools
import gc
import logging
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol

from kafka_groups import interrupts
from kafka_groups.apache_argv import did_you_mean, is_flag_form
from kafka_groups.errors import CliError, ExitCode, UsageError
from kafka_groups.escape import escape_controls
from kafka_groups.render.stdio import StreamClosed
from kafka_groups.secrets import ScrubFilter, scrub, secrets_of

if TYPE_CHECKING:
    from kafka_groups.render.outcome import Outcome, Show
    from kafka_groups.render.stdio import StdoutFailed


P = ParamSpec("P")


class Request(Protocol):
    def execute(self, show: Show | None = None) -> Outcome: ...


def show_now(outcome: Outcome) -> None:
    """The :data:`~kafka_groups.render.outcome.Show` callback commands get: print what must be
    seen before a write (the reset plan in the Apache text layout) or shown as it comes (a
    streamed describe's groups), through the one renderer. When stdout cannot take what a write
    shows before it is sent, nothing is sent (a closed or full stdout is an error); a reader
    that went away (``| head``) is none, as for any read, and the write goes on."""
    from kafka_groups.render.registry import deliver
    from kafka_groups.render.stdio import StdoutFailed

    try:
        deliver(outcome)
    except StdoutFailed as exc:
        if exc.broken_pipe or interrupts.sent():
            return  # the command's own report says what became of its output
        if outcome.streamed:  # rows of a read shown as they come (a streamed describe)
            raise
        raise StdoutFailed(exc.reason, consequence="; nothing was sent") from None


def perform(request: Request) -> int:
    """Run a request and print its outcome; its failure, if any, is raised for
    :func:`run_tool` to print as the last line, with its exit code. ``--watch`` runs until
    stopped, so it turns Python's cyclic garbage collector back on (see :func:`_one_shot`).
    An output that cannot be written fails a read (exit 1; a reader gone is no failure); after
    a write it is said on stderr, and the exit status still says what the cluster holds."""
    try:
        outcome = _perform(request)
    except KeyboardInterrupt as exc:  # an error, so that Typer passes it on as it came
        raise interrupts.stopped(exc) from None
    sent = interrupts.sent()
    if sent and interrupts.requested() and outcome.status == ExitCode.OK:
        from kafka_groups.render import say

        say([f"The {sent[0]} is done (the interrupt came after it was sent)."])
    if outcome.failure is not None:
        raise outcome.failure
    return outcome.status


def _perform(request: Request) -> Outcome:
    from kafka_groups.render import check_output_env

    check_output_env()
    if getattr(request, "watch", None) is not None:
        gc.enable()
    outcome = request.execute(show_now)
    from kafka_groups.render.registry import deliver
    from kafka_groups.render.stdio import StdoutFailed

    try:
        deliver(outcome)
    except StdoutFailed as exc:
        _output_lost(exc, outcome)
    return outcome


def _output_lost(exc: StdoutFailed, outcome: Outcome) -> None:
    from kafka_groups.render import say

    sent = interrupts.sent()
    if not sent:
        if exc.broken_pipe:
            return  # | head: the status stands
        raise exc
    what = sent[0]
    if outcome.status == ExitCode.OK:
        say([f"Note: the {what} is done, but its output could not be written to stdout ({exc.reason})."])
    else:
        say([f"Note: the output of the {what} could not be written to stdout ({exc.reason})."])


# What a flag-form translation returns when the user asked for help or the version.
HELP = ("--help",)
VERSION = ("--version",)


def _print_error(message: str, label: str = "Error: ", secrets: frozenset[str] = frozenset()) -> None:
    # One line, with no control character that could act on the terminal (a group id, a file
    # or a property can hold ESC sequences).
    print(escape_controls(scrub(f"{label}{message}", secrets)), file=sys.stderr)


def _print_traceback(secrets: frozenset[str]) -> None:
    print(scrub(traceback.format_exc(), secrets), file=sys.stderr, end="")


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

    command = typer.main.get_command(load_app())
    try:
        returned = command.main(args=list(args), prog_name=prog, standalone_mode=False)
        if isinstance(returned, int):  # Typer's own Exit, returned (its Ctrl-C while parsing: 130)
            return returned
    except typer.Exit as exc:
        return int(exc.exit_code)
    except typer.Abort as exc:
        cause = exc.__cause__ or exc.__context__
        if isinstance(cause, KeyboardInterrupt):  # Click's wording of an interrupt: ours instead
            raise cause from None
        print("Aborted.", file=sys.stderr)
        return 130
    except Exception as exc:
        # A usage error from the Click inside Typer (click's, or Typer's own copy from 0.21 on):
        # known by its interface, so that no private module is imported.
        format_message = getattr(exc, "format_message", None)
        if isinstance(exc, CliError) or not callable(format_message):
            raise
        _print_error(str(format_message()).replace("\n", " "))
        return ExitCode.USAGE
    return ExitCode.OK


def _flag_help(prog: str) -> int:
    from kafka_groups.cli.flag_help import render

    sys.stdout.write(render(prog))
    return ExitCode.OK


def _check_subcommand(argv: Sequence[str], subcommands: Sequence[str]) -> None:
    """A bare first word names a subcommand; one we do not have is a usage error (the flag
    form starts with an option, so a stray word there is a typo, not a flag-form token)."""
    if argv and not argv[0].startswith("-") and argv[0] not in subcommands:
        word = argv[0]
        hint = did_you_mean(word, subcommands, prefix="")
        raise UsageError(f"No such command '{word}'{hint}; the commands are: {', '.join(subcommands)}")


def _one_shot(run: Callable[P, int]) -> Callable[P, int]:
    """A command runs without Python's cyclic garbage collector: it ends within moments, and on
    thousands of partitions the collector's passes over the objects it holds cost a tenth of
    its time (a watch turns it back on, see :func:`perform`). Once the command is over and its
    failure, if any, printed and let go, the AdminClients it is done with are freed here, on
    this thread (kafka_groups/access/clients.py says why), those it handed to a thread of its
    own are waited for, and the collector is as it was. A command that never loaded that module
    opened none."""

    @functools.wraps(run)
    def running(*args: P.args, **kwargs: P.kwargs) -> int:
        from kafka_groups.render.stdio import standard_streams

        collecting = gc.isenabled()
        gc.disable()
        with standard_streams(), interrupts.handling(enabled=bool(kwargs.get("signals", True))):
            try:
                return run(*args, **kwargs)
            except KeyboardInterrupt as exc:  # one that came while an error was being printed
                return report_interrupt(exc)
            finally:
                interrupts.finished()
                _settle(collecting)

    return running


def _settle(collecting: bool) -> None:
    clients = sys.modules.get("kafka_groups.access.clients")
    if clients is not None:
        clients.sweep()
        clients.settle()
    if collecting:
        gc.enable()
    else:
        gc.disable()


def _output_failed(exc: Exception) -> bool:
    """Whether ``exc`` is a write to stdout that failed outside a command's report (help, through
    Typer and Rich, into a full disk): stderr never raises (render/stdio.py), and the files the
    commands write report their own failures."""
    from kafka_groups.render.stdio import FULL_ERRNOS, report_stdout_failure

    if isinstance(exc, OSError) and exc.errno in FULL_ERRNOS:
        report_stdout_failure()
        return True
    return False


def report_interrupt(exc: KeyboardInterrupt) -> int:
    """The line and the exit status of an interrupt that stopped the command
    (:func:`kafka_groups.interrupts.stopped`)."""
    error = interrupts.stopped(exc)
    _print_error(error.message, error.label)
    return error.exit_code


@_one_shot
def run_tool(
    prog: str,
    argv: Sequence[str],
    subcommands: Sequence[str],
    translate: Callable[[Sequence[str]], Request | tuple[str, ...]],
    load_app: Callable[[], Any],
    *,
    signals: bool = True,
) -> int:
    """Run a tool. The Apache flag form is translated straight into a request; the
    subcommand form goes through Typer. Either way every failure is one line on stderr and a
    documented exit code (a traceback only with ``--debug``). ``signals``: SIGINT and SIGTERM
    as kafka_groups/interrupts.py takes them, for tools whose writes go through the write
    discipline; without it, Python's own handling."""
    debug = "--debug" in argv
    configure_logging(debug)
    try:
        if argv and argv[0] in ("--show-completion", "--install-completion"):
            from kafka_groups.cli.completions import install_or_show

            return install_or_show(prog, argv[0] == "--install-completion", argv[1:])
        _check_subcommand(argv, subcommands)
        if list(argv) in (["--help"], ["-h"]):
            return _flag_help(prog)
        if is_flag_form(argv, subcommands):
            request = translate(argv)
            if request == HELP:
                return _flag_help(prog)
            if isinstance(request, tuple):
                return _run_typer(load_app, prog, request)
            return perform(request)
        return _run_typer(load_app, prog, argv)
    except CliError as exc:
        secrets = secrets_of(exc)  # those of the settings it was raised under
        if debug:
            _print_traceback(secrets)
        _print_error(exc.message + getattr(exc, "hint", ""), exc.label, secrets)
        if exc.detail:
            print(escape_controls(scrub(exc.detail, secrets), keep_newlines=True), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt as exc:
        return report_interrupt(exc)
    except StreamClosed as exc:  # help or a completion script, with stdout closed
        _print_error(f"the output could not be written to stdout ({exc.strerror})")
        return ExitCode.ERROR
    except BrokenPipeError:
        return ExitCode.OK
    except Exception as exc:
        if _output_failed(exc):
            _print_error(f"the output could not be written to stdout ({getattr(exc, 'strerror', exc)})")
            return ExitCode.ERROR
        secrets = secrets_of(exc)
        if debug:
            _print_traceback(secrets)
        message = f"unexpected failure: {type(exc).__name__}: {exc} (run with --debug for details)"
        _print_error(message, secrets=secrets)
        return ExitCode.ERROR
