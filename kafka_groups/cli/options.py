"""Typer options shared by every subcommand (imported only on the subcommand path)."""

from typing import Annotated

import typer

from kafka_groups import __version__
from kafka_groups.render import OutputFormat
from kafka_groups.settings import ENV_BOOTSTRAP, ENV_COMMAND_CONFIG, ConnectionArgs
from kafka_groups.timeouts import ENV_TIMEOUT, GROUPS_TIMEOUT_MS, STREAMS_TIMEOUT_MS

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
ClusterOpt = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        help="Ours: a cluster named in clusters.toml (its servers, properties and timeout; or set "
        "KAFKA_TOOLS_CLUSTER). --bootstrap-server and --command-config given too win over it.",
        show_default=False,
    ),
]
YesOpt = Annotated[
    bool,
    typer.Option(
        "--yes",
        help="Ours: confirm a write to a cluster marked protected in clusters.toml without being asked "
        "(required where there is no terminal to ask on).",
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


def _timeout_help(default_ms: int) -> str:
    return f"Timeout for each request, in ms (default {default_ms}; {ENV_TIMEOUT} sets another)."


# None when not given: KAFKA_TOOLS_TIMEOUT_MS, else the tool's default (settings.default_timeout).
TimeoutOpt = Annotated[
    int | None, typer.Option("--timeout", help=_timeout_help(GROUPS_TIMEOUT_MS), show_default=False)
]
StreamsTimeoutOpt = Annotated[
    int | None, typer.Option("--timeout", help=_timeout_help(STREAMS_TIMEOUT_MS), show_default=False)
]


def connection(
    bootstrap_server: str | None,
    command_config: str | None,
    timeout_ms: int | None,
    debug: bool,
    default_timeout_ms: int = GROUPS_TIMEOUT_MS,
    cluster: str | None = None,
    assume_yes: bool = False,
) -> ConnectionArgs:
    return ConnectionArgs(
        bootstrap_server, command_config, timeout_ms, debug, default_timeout_ms, cluster, assume_yes
    )


def streams_connection(
    bootstrap_server: str | None,
    command_config: str | None,
    timeout_ms: int | None,
    debug: bool,
    cluster: str | None = None,
    assume_yes: bool = False,
) -> ConnectionArgs:
    """kafka-streams-groups' connection: its --timeout defaults to 30 s, as in the Apache tool."""
    return connection(
        bootstrap_server, command_config, timeout_ms, debug, STREAMS_TIMEOUT_MS, cluster, assume_yes
    )


def new_app(name: str, help_text: str) -> typer.Typer:
    """A tool's Typer app with ``--version`` on the root."""
    app = typer.Typer(
        name=name,
        help=help_text,
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        pretty_exceptions_show_locals=False,
        context_settings={"help_option_names": ["--help", "-h"], "max_content_width": 100},
    )

    def show_version(value: bool) -> None:
        if value:
            print(f"{name} {__version__} (kafka-group-tools)")
            raise typer.Exit()

    @app.callback()
    def _root(
        version: Annotated[
            bool | None,
            typer.Option("--version", callback=show_version, is_eager=True, help="Show the version."),
        ] = None,
    ) -> None:
        pass

    return app


HealthOpt = Annotated[
    bool,
    typer.Option(
        "--health",
        help="Ours: the loss radar. Per partition: lost (committed offset outside the log, with "
        "how many records), at risk (the next record near deletion by retention; records on a partition "
        "with no committed offset), unconsumed new partitions, the lag in time; the group's recorded "
        "policy and start. Exit 0 healthy, 5 at risk, 6 lost (the worst group decides).",
    ),
]


WatchOpt = Annotated[
    str | None,
    typer.Option(
        "--watch",
        metavar="[SECONDS]",
        help="Refresh every SECONDS (default 2; fractions allowed, from 0.5): a live view on a terminal, "
        "one JSON document per refresh (JSON Lines) when piped. Ctrl-C stops it (exit 0).",
        show_default=False,
    ),
]


def watch_interval(raw: str | None) -> float | None:
    """The seconds between refreshes, or None without --watch."""
    if raw is None:
        return None
    from kafka_groups.core.watch import parse_interval

    return parse_interval(raw)
