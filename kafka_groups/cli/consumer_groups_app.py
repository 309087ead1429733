"""The Typer app of ``kafka-consumer-groups`` (the subcommand form, help and completion)."""

from __future__ import annotations

from kafka_groups.cli import cg_delete, cg_describe, cg_list, cg_reset, cg_validate, clusters_cmd
from kafka_groups.cli.options import new_app

app = new_app(
    "kafka-consumer-groups",
    "List, describe, reset and delete consumer groups.\n\n"
    "Accepts the Apache kafka-consumer-groups.sh flags unchanged "
    "(kafka-consumer-groups --bootstrap-server B --list) as well as subcommands "
    "(kafka-consumer-groups list --bootstrap-server B).",
)
app.command("list")(cg_list.list_command)
app.command("describe")(cg_describe.describe_command)
app.command("reset-offsets")(cg_reset.reset_command)
app.command("delete-offsets")(cg_delete.delete_offsets_command)
app.command("delete")(cg_delete.delete_command)
app.command("validate-regex")(cg_validate.validate_regex_command)
app.add_typer(clusters_cmd.app)
