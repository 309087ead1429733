"""What every tool's command line shares: connection options, output choice, the one
place where errors become a line on stderr and an exit code."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Annotated

import typer

from kafka_groups import __version__
from kafka_groups.apache_argv import is_flag_form
from kafka_groups.errors import CliError, ExitCode
from kafka_groups.render import OutputFormat
from kafka_groups.settings import ENV_BOOTSTRAP, ENV_COMMAND_CONFIG, ConnectionSettings, resolve_settings

BootstrapOpt = Annotated[
    str | None,
    typer.Option(
        "--bootstrap-server",
        envvar=ENV_BOOTSTRAP,
        help="The server(s) to connect to, host:port[,host:port]. Example: --bootstrap-server localhost:9092",
        show_default=False,
    ),
]
CommandConfigOpt = Annotated[
    str | None,
    typer.Option(
        "--command-config",
        envvar=ENV_COMMAND_CONFIG,
        help="Java client properties file (the one the Apache tools take): security, SASL, TLS, client id.",
        show_default=False,
    ),
]
OutputOpt = Annotated[
    OutputFormat,
    typer.Option(
        "--output",
        "-o",
        help="text: the Apache tool's layout (default when piped); table: Rich (default on a terminal); "
        "json: versioned schema (docs/json.md); csv.",
        case_sensitive=False,
    ),
]
DebugOpt = Annotated[
    bool,
    typer.Option(
        "--debug", help="Show client logs and a traceback on unexpected errors (secrets stay hidden)."
    ),
]


def settings_from(
    bootstrap_server: str | None, command_config: str | None, timeout_ms: int, debug: bool
) -> ConnectionSettings:
    return resolve_settings(bootstrap_server, command_config, timeout_ms, debug)


def version_callback(prog: str) -> Callable[[bool], None]:
    def show(value: bool) -> None:
        if value:
            print(f"{prog} {__version__} (kafka-group-tools)")
            raise typer.Exit()

    return show


def new_app(name: str, help_text: str) -> typer.Typer:
    return typer.Typer(
        name=name,
        help=help_text,
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        pretty_exceptions_show_locals=False,
        context_settings={"help_option_names": ["--help", "-h"], "max_content_width": 100},
    )


def _print_error(message: str) -> None:
    print(f"Error: {message}", file=sys.stderr)


def run(
    app: typer.Typer,
    prog: str,
    argv: Sequence[str],
    translate: Callable[[Sequence[str]], list[str]],
) -> int:
    """Run a tool: translate the Apache flag form, dispatch, and turn every failure into
    one line on stderr and a documented exit code (a traceback only under ``--debug``)."""
    from click.exceptions import Abort, ClickException, Exit

    debug = "--debug" in argv
    command = typer.main.get_command(app)
    subcommands = getattr(command, "commands", {})
    try:
        args = translate(argv) if is_flag_form(argv, subcommands) else list(argv)
        command.main(args=args, prog_name=prog, standalone_mode=False)
        return ExitCode.OK
    except CliError as exc:
        if debug:
            traceback.print_exc()
        _print_error(exc.message)
        return exc.exit_code
    except Exit as exc:
        return exc.exit_code
    except ClickException as exc:
        _print_error(exc.format_message().replace("\n", " "))
        return ExitCode.USAGE
    except (Abort, KeyboardInterrupt):
        print("Aborted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return ExitCode.OK
    except Exception as exc:
        if debug:
            traceback.print_exc()
        _print_error(f"unexpected failure: {type(exc).__name__}: {exc} (run with --debug for details)")
        return ExitCode.ERROR
