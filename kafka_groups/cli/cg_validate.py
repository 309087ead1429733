"""``kafka-consumer-groups validate-regex`` (Apache: ``--validate-regex REGEX``)."""

from __future__ import annotations

from typing import Annotated

import typer

from kafka_groups.cli.options import OutputOpt
from kafka_groups.cli.runner import perform
from kafka_groups.commands.validate_regex import ValidateRegexRequest
from kafka_groups.render import OutputFormat


def validate_regex_command(
    regex: Annotated[str, typer.Argument(help="The pattern, as a consumer would subscribe with it.")],
    output: OutputOpt = OutputFormat.AUTO,
) -> None:
    """Check a KIP-848 subscription pattern with the broker's rules (RE2J syntax), offline.

    Exits 0 when the broker would accept it, 1 when not (with RE2J's reason).

    Example: kafka-consumer-groups validate-regex 'orders-.*'
    """
    request = ValidateRegexRequest(regex, output=output)
    perform(request)
