"""``<tool> clusters list|show|check``: the named clusters of clusters.toml (the same in the three
tools, and in none of the Apache ones)."""

from __future__ import annotations

from typing import Annotated

import typer

from kafka_groups.cli.options import DebugOpt, OutputOpt
from kafka_groups.cli.runner import perform
from kafka_groups.render import OutputFormat


def _names(incomplete: str) -> list[tuple[str, str]]:
    from kafka_groups.cli.complete import _cluster_names

    return [(n, b) for n, b in _cluster_names() if n.startswith(incomplete)]


app = typer.Typer(
    name="clusters",
    help="Ours: the named clusters of clusters.toml ($XDG_CONFIG_HOME/kafka-group-tools/), used with "
    "--cluster NAME or KAFKA_TOOLS_CLUSTER.",
    no_args_is_help=True,
)


@app.command("list")
def list_command(output: OutputOpt = OutputFormat.AUTO) -> None:
    """List the named clusters: servers, protection, default timeout, where their properties come from.

    Example: kafka-consumer-groups clusters list
    """
    from kafka_groups.commands.clusters import ListClustersRequest

    perform(ListClustersRequest(output))


@app.command("show")
def show_command(
    name: Annotated[
        str, typer.Argument(help="The cluster's name.", show_default=False, autocompletion=_names)
    ],
    output: OutputOpt = OutputFormat.AUTO,
) -> None:
    """Show one cluster's settings, every secret masked (a referenced one is never read).

    Example: kafka-consumer-groups clusters show prod
    """
    from kafka_groups.commands.clusters import ShowClusterRequest

    perform(ShowClusterRequest(name, output))


@app.command("check")
def check_command(
    names: Annotated[
        list[str] | None,
        typer.Argument(
            help="The clusters to check (default: every one).", show_default=False, autocompletion=_names
        ),
    ] = None,
    timeout: Annotated[
        int | None,
        typer.Option(
            "--timeout", help="ms to wait for each (default: the cluster's, else 5000).", show_default=False
        ),
    ] = None,
    output: OutputOpt = OutputFormat.AUTO,
    debug: DebugOpt = False,
) -> None:
    """Connect to each cluster and print its cluster id and broker count (exit 1 when none answers,
    3 when some do not).

    Example: kafka-consumer-groups clusters check prod staging
    """
    from kafka_groups.commands.clusters import CheckClustersRequest

    perform(CheckClustersRequest(tuple(names or ()), timeout, debug, output))
