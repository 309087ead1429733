"""The Typer app of ``kafka-streams-groups``."""

from __future__ import annotations

from kafka_groups.cli import clusters_cmd, sg_commands, sg_list
from kafka_groups.cli.options import new_app

app = new_app(
    "kafka-streams-groups",
    "List, describe, reset and delete Kafka Streams groups (KIP-1071).\n\n"
    "Accepts the Apache kafka-streams-groups.sh flags unchanged "
    "(kafka-streams-groups --bootstrap-server B --list) as well as subcommands "
    "(kafka-streams-groups list --bootstrap-server B).",
)
app.command("list")(sg_list.list_command)
app.command("describe")(sg_commands.describe_command)
app.command("reset-offsets")(sg_commands.reset_command)
app.command("delete-offsets")(sg_commands.delete_offsets_command)
app.command("delete")(sg_commands.delete_command)
app.add_typer(clusters_cmd.app)
