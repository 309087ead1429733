"""The Typer app of ``kafka-topics``."""

from __future__ import annotations

from kafka_groups.cli import clusters_cmd
from kafka_groups.cli.options import new_app
from kafka_topics import change_cmds, list_cmd

app = new_app(
    "kafka-topics",
    "Create, delete, describe, or change a topic.\n\n"
    "Accepts the Apache kafka-topics.sh flags unchanged (kafka-topics --bootstrap-server B --list) "
    "as well as subcommands (kafka-topics list --bootstrap-server B).",
)
app.command("list")(list_cmd.list_command)
app.command("describe")(change_cmds.describe_command)
app.command("create")(change_cmds.create_command)
app.command("alter")(change_cmds.alter_command)
app.command("delete")(change_cmds.delete_command)
app.add_typer(clusters_cmd.app)
