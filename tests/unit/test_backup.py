"""The undo and check commands printed beside a backup: pasted into a shell, they restore
exactly the backup's groups, whatever the names hold."""

import shlex

from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.commands.backup import check_command, undo_command
from kafka_groups.core.reset import ENV_MAX_PLAN_ROWS
from kafka_groups.settings import ConnectionArgs

NAMES = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20)
CONNECTION = ConnectionArgs(bootstrap_server="127.0.0.1:9092", command_config="my client.properties")


@given(st.lists(NAMES, min_size=1, max_size=4, unique=True))
def test_the_undo_command_survives_the_shell(groups):
    argv = shlex.split(undo_command("/tmp/back up.csv", groups, CONNECTION))
    assert argv[0] == "kafka-consumer-groups"
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--group"] == sorted(groups)
    assert argv[argv.index("--from-file") + 1] == "/tmp/back up.csv"
    assert argv[argv.index("--command-config") + 1] == "my client.properties"
    check = shlex.split(check_command(groups, CONNECTION))
    assert [check[i + 1] for i, a in enumerate(check) if a == "--group"] == sorted(groups)


def test_a_backup_over_the_plan_row_limit_raises_the_limit_in_its_undo(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_MAX_PLAN_ROWS, "3")
    small, large = tmp_path / "small.csv", tmp_path / "large.csv"
    small.write_text("g,t,0,1\ng,t,1,1\ng,t,2,1\n")
    large.write_text("g,t,0,1\ng,t,1,1\ng,t,2,1\ng,t,3,1\n")
    assert shlex.split(undo_command(str(small), ["g"], CONNECTION))[0] == "kafka-consumer-groups"
    assert shlex.split(undo_command(str(large), ["g"], CONNECTION))[:2] == [
        f"{ENV_MAX_PLAN_ROWS}=4",
        "kafka-consumer-groups",
    ]
