"""kafka-streams-groups (KIP-1071) against the pinned Apache tool, on streams groups made by a
real Kafka Streams application (tests/streams_app): one running (Stable), others stopped (Empty).

Views and dry runs are compared byte for byte on the same group. Actions that change a group
run each tool on its own twin (same history, names of the same length) and compare stdout
with the names swapped, then read both groups back."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from kafka_groups.core.javaorder import hashmap_bucket, string_hash, topic_partition_hash
from tests.kafka.test_describe_groups import with_creation_time_column
from tests.kafka_helpers import (
    Record,
    admin,
    commit_offsets,
    committed,
    create_topic,
    produce,
    unique,
)
from tests.streams_helpers import make_groups

pytestmark = pytest.mark.kafka

PARTITIONS = 3
PER_PARTITION = 10
STORE = "KSTREAM-AGGREGATE-STATE-STORE-0000000002"


class World:
    """The topics and groups every test here reads (made once for the module)."""

    def __init__(self, bs: str, tag: str) -> None:
        self.bs = bs
        self.input = create_topic(bs, f"sg-in-{tag}", partitions=PARTITIONS)
        self.output = create_topic(bs, f"sg-out-{tag}", partitions=1)
        self.other = create_topic(bs, f"sg-other-{tag}", partitions=2)
        produce(
            bs, self.input, [Record(i % PARTITIONS, f"v{i % 5}") for i in range(PARTITIONS * PER_PARTITION)]
        )
        self.expected = {(self.input, p): PER_PARTITION for p in range(PARTITIONS)}
        roles = (
            "empty",
            "exec-a",
            "exec-b",
            "int-a",
            "int-b",
            "do-a",
            "do-b",
            "del-a",
            "del-b",
            "dit-a",
            "dit-b",
            "undo",
        )
        self.groups = {role: f"sg-{role}-{tag}" for role in roles}
        self.stable_id = f"sg-stable-{tag}"
        # The twelve groups made Empty and the Stable one in one JVM: its instance keeps running
        # after the others left their groups.
        stable = make_groups(
            bs, list(self.groups.values()), [self.input], self.output, self.expected, [self.stable_id]
        )
        assert stable is not None
        self.stable = stable

    def internal(self, group: str) -> set[str]:
        return {f"{group}-{STORE}-repartition", f"{group}-{STORE}-changelog"}


@pytest.fixture(scope="module")
def world(broker):
    w = World(broker.bootstrap, unique("t").split("-")[1])
    try:
        yield w
    finally:
        w.stable.stop()


def _sg(runner, bs, *args, **kw):
    return runner("kafka-streams-groups", "--bootstrap-server", bs, *args, **kw)


def _topics(bs: str) -> set[str]:
    return set(admin(bs).list_topics(timeout=10).topics)


def _bucket(line: str, rows: int) -> int:
    """The bucket of a row's partition in the HashMap of ``rows`` entries the offsets view
    iterates (``new HashMap<>()``, grown as entries arrive)."""
    _group, topic, partition = line.split()[:3]
    capacity = 16
    while rows > capacity * 0.75:
        capacity *= 2
    return hashmap_bucket(topic_partition_hash(topic, int(partition)), capacity)


def assert_same_rows(mine: str, theirs: str, what: object) -> None:
    """Byte for byte, except that rows sharing a HashMap bucket may come in either order.

    The Apache offsets view puts partitions that collide in one bucket in the order the Admin
    client's ListOffsets futures iterate, an immutable map whose order is randomised in each
    JVM; two runs of the Apache tool itself differ there. Every other byte must match."""
    if mine == theirs:
        return
    ours_lines, their_lines = mine.split("\n"), theirs.split("\n")
    assert len(ours_lines) == len(their_lines), what
    block: list[int] = []  # indexes of the data rows of the current group's table
    blocks = []
    for i, line in enumerate(their_lines):
        if line.startswith("GROUP ") or not line.strip() or line.startswith("Error:"):
            assert ours_lines[i] == line, what
            if block:
                blocks.append(block)
            block = []
        else:
            block.append(i)
    if block:
        blocks.append(block)
    for rows in blocks:
        theirs_rows = [their_lines[i] for i in rows]
        ours_rows = [ours_lines[i] for i in rows]
        assert sorted(ours_rows) == sorted(theirs_rows), what
        assert [_bucket(r, len(rows)) for r in ours_rows] == [_bucket(r, len(rows)) for r in theirs_rows], (
            what
        )


# -- list and describe ----------------------------------------------------------------------
def test_list_with_and_without_state(world, apache, ours):
    for args in (
        ["--list"],
        ["--list", "--state"],
        ["--list", "--state", "Stable"],
        ["--list", "--state", "empty"],
    ):
        theirs, mine = _sg(apache, world.bs, *args), _sg(ours, world.bs, *args)
        assert theirs.returncode == 0, theirs.stderr
        assert mine.returncode == 0, mine.stderr
        assert mine.stdout == theirs.stdout, args
    listed = _sg(ours, world.bs, "--list", "--state", "Stable").stdout
    assert world.stable_id in listed and world.groups["empty"] not in listed


VIEWS = [(), ("--offsets",), ("--verbose",), ("--offsets", "--verbose"), ("--members",)]
VIEWS += [("--members", "--verbose"), ("--state",), ("--state", "--verbose")]


@pytest.mark.parametrize("which", ["stable", "empty"])
def test_describe_every_view(world, apache, ours, which):
    group = world.stable_id if which == "stable" else world.groups["empty"]
    for view in VIEWS:
        args = ["--describe", "--group", group, *view]
        theirs, mine = _sg(apache, world.bs, *args), _sg(ours, world.bs, *args)
        assert theirs.returncode == 0, theirs.stderr
        assert mine.returncode == 0, mine.stderr
        expected = theirs.stdout
        if view == ("--state", "--verbose"):  # ours adds KIP-1282's column
            expected = with_creation_time_column(expected)
        assert_same_rows(mine.stdout, expected, view)
    if which == "stable":  # the running app's tasks: both source and repartition partitions
        rows = _sg(ours, world.bs, "--describe", "--group", group).stdout
        assert f"{world.input} " in rows and f"{group}-{STORE}-repartition" in rows


def test_describe_several_and_all_groups(world, apache, ours):
    for args in (
        ["--describe", "--group", world.stable_id, "--group", world.groups["empty"], "--state"],
        ["--describe", "--all-groups", "--state"],
        ["--describe", "--all-groups", "--members"],
        ["--describe", "--all-groups"],
    ):
        theirs, mine = _sg(apache, world.bs, *args), _sg(ours, world.bs, *args)
        assert theirs.returncode == 0, theirs.stderr
        assert_same_rows(mine.stdout, theirs.stdout, args)


@pytest.mark.smoke  # the command's smoke test needs no Streams app, so `--fast` starts none
def test_describe_missing_and_classic_groups(broker, apache, ours):
    bs, classic = broker.bootstrap, unique("sg-classic")
    commit_offsets(bs, classic, {(create_topic(bs, unique("sg-other")), 0): 1})
    for group, why in ((unique("sg-missing"), "not found."), (classic, "is not a streams group.")):
        theirs = _sg(apache, bs, "--describe", "--group", group)
        mine = _sg(ours, bs, "--describe", "--group", group)
        assert theirs.returncode == 1 and why in theirs.stdout
        assert mine.returncode == 1
        assert mine.stdout == ""
        assert mine.stderr.strip() == f"Error: Group {group} {why}"
        assert "Traceback" not in mine.stderr


def test_describe_json(world, ours):
    mine = _sg(ours, world.bs, "--describe", "--group", world.stable_id, "--output", "json")
    assert mine.returncode == 0, mine.stderr
    doc = json.loads(mine.stdout)
    assert doc["schema"] == "kafka-group-tools/streams-group-describe/v1"
    (group,) = doc["groups"]
    assert group["state"] == "Stable" and group["creation_time_ms"] is None
    inputs = [r for r in group["offsets"] if r["topic"] == world.input]
    assert sorted(r["partition"] for r in inputs) == list(range(PARTITIONS))
    assert all(r["log_end_offset"] == PER_PARTITION and r["lag"] == 0 for r in inputs)
    assert {s["subtopology"] for s in group["subtopologies"]} == {"0", "1"}


# -- reset ---------------------------------------------------------------------------------
DRY_RUNS = [
    ["--all-input-topics", "--to-earliest"],
    ["--all-input-topics", "--to-latest"],
    ["--all-input-topics", "--to-offset", "2"],
    ["--all-input-topics", "--to-offset", "99"],
    ["--all-input-topics", "--shift-by", "-3"],
    ["--all-input-topics", "--to-current"],
    ["--all-input-topics", "--by-duration", "PT1H"],
    ["--all-input-topics", "--to-datetime", "2020-01-01T00:00:00.000"],
    ["--input-topic", "INPUT:0,2", "--to-earliest"],
    ["--input-topic", "INPUT", "--shift-by", "1"],
    ["--input-topic", "OTHER", "--to-earliest"],
    ["--all-input-topics", "--to-earliest", "--export"],
]


@pytest.mark.parametrize("args", DRY_RUNS, ids=lambda a: " ".join(a))
def test_reset_dry_run(world, apache, ours, args):
    group = world.groups["empty"]
    args_given = args
    args = [a.replace("INPUT", world.input).replace("OTHER", world.other) for a in args]
    full = ["--reset-offsets", "--group", group, *args, "--dry-run"]
    theirs, mine = _sg(apache, world.bs, *full), _sg(ours, world.bs, *full)
    assert theirs.returncode == 0, theirs.stderr
    if "OTHER" in args_given:  # topics that are not the group's: the Apache notice, and exit 1 (README)
        assert mine.returncode == 1, mine.stderr
        assert mine.stderr.strip().startswith("Error: not reset: the --input-topic topics are not all part")
    else:
        assert mine.returncode == 0, mine.stderr
    assert mine.stdout == theirs.stdout
    assert committed(world.bs, group)[(world.input, 0)] == PER_PARTITION  # nothing moved


def test_reset_export_two_groups_and_from_file(world, apache, ours, tmp_path):
    both = ["--group", world.groups["empty"], "--group", world.groups["exec-a"]]
    export = ["--reset-offsets", *both, "--all-input-topics", "--to-offset", "4", "--dry-run", "--export"]
    theirs, mine = _sg(apache, world.bs, *export), _sg(ours, world.bs, *export)
    ids = (world.groups["empty"], world.groups["exec-a"])
    if len({hashmap_bucket(string_hash(group)) for group in ids}) == 1:
        # Both ids in one HashMap bucket (1 run in 16): the Apache tool's order of the two groups was
        # then not the command line's in every run (seen on a loaded machine); the rows must match.
        assert sorted(mine.stdout.splitlines()) == sorted(theirs.stdout.splitlines())
    else:
        assert mine.stdout == theirs.stdout
    plan = tmp_path / "plan.csv"
    plan.write_text(theirs.stdout)
    replay = ["--reset-offsets", *both, "--from-file", str(plan), "--dry-run"]
    theirs, mine = _sg(apache, world.bs, *replay), _sg(ours, world.bs, *replay)
    assert theirs.returncode == 0, theirs.stderr
    # The Apache tool's row order for a replayed file changes between its JVM runs (README).
    assert sorted(mine.stdout.splitlines()) == sorted(theirs.stdout.splitlines())
    assert mine.stdout.count(" 4  ") == 2 * PARTITIONS


def test_reset_refuses_a_running_group(world, apache, ours):
    args = ["--reset-offsets", "--group", world.stable_id, "--all-input-topics", "--to-earliest", "--execute"]
    before = committed(world.bs, world.stable_id)
    theirs, mine = _sg(apache, world.bs, *args), _sg(ours, world.bs, *args)
    assert mine.stdout == theirs.stdout
    assert "is inactive, but the current state is Stable." in mine.stdout
    assert mine.returncode == 1
    after = committed(world.bs, world.stable_id)
    assert all(after[tp] >= before[tp] for tp in before)  # not reset to 0


def _twin_run(world, apache, ours, roles, args, tmp_path):
    """Run ``args`` (GROUP is the group) with the Apache tool on one twin and ours on the other;
    stdout must be the same once the names are swapped."""
    theirs_group, mine_group = (world.groups[r] for r in roles)
    theirs = _sg(apache, world.bs, *[a.replace("GROUP", theirs_group) for a in args])
    mine = _sg(
        ours,
        world.bs,
        *[a.replace("GROUP", mine_group) for a in args],
        env={"KAFKA_TOOLS_STATE_DIR": str(tmp_path)},
    )
    assert theirs.returncode == 0, theirs.stderr
    assert mine.stdout.replace(mine_group, theirs_group) == theirs.stdout
    return theirs_group, mine_group, mine


def test_reset_execute_reads_back_and_undoes(world, apache, ours, tmp_path):
    args = ["--reset-offsets", "--group", "GROUP", "--input-topic", f"{world.input}:0,1", "--to-offset", "3"]
    theirs_group, mine_group, mine = _twin_run(
        world, apache, ours, ("exec-a", "exec-b"), [*args, "--execute"], tmp_path
    )
    assert mine.returncode == 0, mine.stderr
    for group in (theirs_group, mine_group):
        held = committed(world.bs, group)
        assert [held[(world.input, p)] for p in range(PARTITIONS)] == [3, 3, PER_PARTITION]
    undo = re.search(r"^Undo: (.*)$", mine.stderr, re.M)
    assert undo, mine.stderr
    command = shlex.split(undo.group(1))
    assert command[0] == "kafka-streams-groups"
    restored = ours(*command)
    assert restored.returncode == 0, restored.stderr
    held = committed(world.bs, mine_group)
    assert [held[(world.input, p)] for p in range(PARTITIONS)] == [PER_PARTITION] * PARTITIONS


def test_reset_undo_removes_the_offsets_the_reset_created(world, ours, tmp_path):
    """A streams reset from a file that gives an input partition its first offset: the undo,
    run as printed by a real shell, puts the group back exactly (that offset deleted again, by
    group id, through kafka-consumer-groups --delete-offsets --from-file)."""
    from tests.undo_helpers import run_undo, undo_line

    group = world.groups["undo"]
    dropped = _sg(ours, world.bs, "--delete-offsets", "--group", group, "--input-topic", f"{world.input}:2")
    assert dropped.returncode == 0, dropped.stderr
    before = committed(world.bs, group)
    assert (world.input, 2) not in before
    plan = tmp_path / "plan.csv"
    plan.write_text("".join(f"{group},{world.input},{p},4\n" for p in range(PARTITIONS)))
    done = _sg(ours, world.bs, "--reset-offsets", "--group", group, "--from-file", str(plan), "--execute",
               "--backup-dir", str(tmp_path / "b"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert all(committed(world.bs, group)[(world.input, p)] == 4 for p in range(PARTITIONS))
    line = undo_line(done.stderr)
    assert line.startswith("kafka-streams-groups") and "&& kafka-consumer-groups" in line
    undone = run_undo(line, tmp_path)
    assert undone.returncode == 0, undone.stderr
    assert committed(world.bs, group) == before


def test_reset_execute_deletes_internal_topics(world, apache, ours, tmp_path):
    args = ["--reset-offsets", "--group", "GROUP", "--all-input-topics", "--to-earliest", "--execute"]
    theirs_group, mine_group, mine = _twin_run(
        world, apache, ours, ("int-a", "int-b"), [*args, "--delete-all-internal-topics"], tmp_path
    )
    assert mine.returncode == 0, mine.stderr
    remaining = _topics(world.bs)
    for group in (theirs_group, mine_group):
        assert not world.internal(group) & remaining
        assert all(committed(world.bs, group)[(world.input, p)] == 0 for p in range(PARTITIONS))


def test_delete_internal_topic_only_deletes_the_groups_own(world, ours, tmp_path):
    group = world.groups["empty"]
    args = ["--reset-offsets", "--group", group, "--all-input-topics", "--to-earliest", "--execute"]
    mine = _sg(
        ours,
        world.bs,
        *args,
        "--delete-internal-topic",
        world.other,
        env={"KAFKA_TOOLS_STATE_DIR": str(tmp_path)},
    )
    assert mine.returncode == 1
    assert mine.stderr.strip().startswith(
        f"Error: --delete-internal-topic {world.other} is not an internal topic"
    )
    assert world.other in _topics(world.bs)
    assert committed(world.bs, group)[(world.input, 0)] == PER_PARTITION  # nothing was reset
    assert not any(tmp_path.iterdir())


# -- delete-offsets and delete -----------------------------------------------------------------
def test_delete_offsets_all_input_topics(world, apache, ours, tmp_path):
    args = ["--delete-offsets", "--group", "GROUP", "--all-input-topics"]
    theirs_group, mine_group, mine = _twin_run(world, apache, ours, ("do-a", "do-b"), args, tmp_path)
    assert mine.returncode == 0, mine.stderr
    for group in (theirs_group, mine_group):
        held = committed(world.bs, group)
        assert not any(t == world.input for t, _ in held)
        assert any(t.endswith("-repartition") for t, _ in held)  # only the input topics went
    assert "Undo: kafka-streams-groups" in mine.stderr


def test_delete_offsets_running_group_and_unknown_topic(world, apache, ours):
    for extra in (["--all-input-topics"], ["--input-topic", world.input], ["--input-topic", "no-such-topic"]):
        args = ["--delete-offsets", "--group", world.stable_id, *extra]
        theirs, mine = _sg(apache, world.bs, *args), _sg(ours, world.bs, *args)
        assert mine.stdout == theirs.stdout, extra
        assert mine.returncode == 1, extra
    assert committed(world.bs, world.stable_id)[(world.input, 0)] >= PER_PARTITION


def test_delete_empty_running_and_missing(world, apache, ours, tmp_path):
    missing = unique("sg-gone")
    args = ["--delete", "--group", "GROUP", "--group", missing, "--group", world.stable_id]
    theirs_group, mine_group, mine = _twin_run(world, apache, ours, ("del-a", "del-b"), args, tmp_path)
    assert mine.returncode == 3
    listed = _sg(ours, world.bs, "--list").stdout.split()
    assert theirs_group not in listed and mine_group not in listed and world.stable_id in listed
    # The deleted group is gone, so the undo commits its offsets with kafka-consumer-groups; the
    # application takes them over when it next starts.
    undo = re.search(r"^Undo: (.*)$", mine.stderr, re.M)
    assert undo, mine.stderr
    command = shlex.split(undo.group(1))
    assert command[0] == "kafka-consumer-groups"
    restored = ours(*command)
    assert restored.returncode == 0, restored.stderr
    assert all(committed(world.bs, mine_group)[(world.input, p)] == PER_PARTITION for p in range(PARTITIONS))


def test_delete_with_internal_topics(world, apache, ours, tmp_path):
    args = ["--delete", "--group", "GROUP", "--delete-all-internal-topics"]
    theirs_group, mine_group, mine = _twin_run(world, apache, ours, ("dit-a", "dit-b"), args, tmp_path)
    assert mine.returncode == 0, mine.stderr
    remaining = _topics(world.bs)
    for group in (theirs_group, mine_group):
        assert not world.internal(group) & remaining


# -- KIP-1282 and bad input ---------------------------------------------------------------------
def test_to_start_time_without_broker_support(world, ours, tmp_path):
    group = world.groups["empty"]
    mine = _sg(
        ours,
        world.bs,
        "--reset-offsets",
        "--group",
        group,
        "--all-input-topics",
        "--to-start-time",
        "--execute",
    )
    assert mine.returncode == 1
    assert mine.stderr.strip().startswith(
        "Error: Cannot reset offsets using --to-start-time. The broker does not support to_start_time"
    )
    assert "StreamsGroupDescribe v1+" in mine.stderr
    assert committed(world.bs, group)[(world.input, 0)] == PER_PARTITION


def test_to_start_time_uses_a_recorded_start(world, ours):
    """A streams group whose start kafka-group-tools recorded: --to-start-time is --to-datetime
    at that start, and stderr names the source. (Runs after the test above, which needs the
    group without a recorded start; the dry runs elsewhere do not read it.)"""
    from kafka_groups.core.times import iso_utc_ms
    from kafka_groups.policy import CreationRegistry
    from kafka_groups.settings import ConnectionSettings

    group = world.groups["empty"]
    start = CreationRegistry(ConnectionSettings(world.bs, 30_000)).record_group_start(group)
    args = ["--reset-offsets", "--group", group, "--all-input-topics", "--dry-run"]
    mine = _sg(ours, world.bs, *args, "--to-start-time")
    assert mine.returncode == 0, mine.stderr
    assert (
        f"Notice: --to-start-time for group '{group}' uses the start kafka-group-tools recorded"
        in mine.stderr
    )
    same = _sg(ours, world.bs, *args, "--to-datetime", iso_utc_ms(start).removesuffix("Z"))
    assert same.returncode == 0, same.stderr
    assert mine.stdout == same.stdout and group in mine.stdout


USAGE = [
    [],
    ["--list", "--describe"],
    ["--describe"],
    ["--describe", "--group", "g", "--members", "--offsets"],
    ["--describe", "--group", "g", "--state", "Stable"],
    ["--reset-offsets", "--group", "g", "--all-input-topics", "--to-earliest"],
    ["--reset-offsets", "--group", "g", "--all-input-topics", "--to-earliest", "--to-latest", "--dry-run"],
    ["--reset-offsets", "--group", "g", "--dry-run", "--execute", "--to-earliest"],
    ["--reset-offsets", "--all-input-topics", "--to-earliest", "--dry-run"],
    ["--delete-offsets", "--group", "g"],
    ["--delete-offsets", "--group", "a", "--group", "b", "--all-input-topics"],
    ["--delete", "--group", "g", "--input-topic", "t"],
    ["--delete"],
    ["--describe", "--group", "g", "--delete-all-internal-topics"],
    [
        "--reset-offsets",
        "--group",
        "g",
        "--all-input-topics",
        "--to-earliest",
        "--dry-run",
        "--delete-all-internal-topics",
    ],
    [
        "--reset-offsets",
        "--group",
        "g",
        "--all-input-topics",
        "--to-earliest",
        "--dry-run",
        "--delete-internal-topic",
        "t",
    ],
    ["--list", "--execute"],
    ["--list", "--group", "g"],
    ["--list", "--input-topic", "t"],
    ["--describe", "--group", "g", "--all-groups"],
]


@pytest.mark.parametrize("args", USAGE, ids=lambda a: " ".join(a) or "no-action")
def test_usage_errors(world, apache, ours, args, tmp_path):
    theirs = _sg(apache, world.bs, *args)
    mine = _sg(ours, world.bs, *args, env={"KAFKA_TOOLS_STATE_DIR": str(tmp_path)})
    assert theirs.returncode == 1
    assert mine.returncode == 2
    first = theirs.stderr.splitlines()[0]
    assert mine.stderr.strip() == f"Error: {first}"
    assert mine.stdout == ""
    assert not any(tmp_path.iterdir())


def test_bad_values(world, ours, tmp_path):
    base = ["--reset-offsets", "--group", world.groups["empty"], "--all-input-topics", "--dry-run"]
    for bad in (
        ["--to-offset", "abc"],
        ["--by-duration", "bogus"],
        ["--to-datetime", "bogus"],
        ["--from-file", str(Path(tmp_path, "none.csv"))],
    ):
        mine = _sg(ours, world.bs, *base, *bad)
        assert mine.returncode == 2, bad
        assert len(mine.stderr.strip().splitlines()) == 1, mine.stderr
        assert mine.stdout == ""
