"""kafka-consumer-groups --reset-offsets on the real broker: plans equal the Apache tool's,
executions commit what it commits, bad input changes nothing."""

from __future__ import annotations

import re

import pytest

from kafka_groups.core.javaorder import string_keys_order
from tests.kafka_helpers import (
    TOOL_TIMEOUT_MS,
    ActiveConsumer,
    Record,
    commit_offsets,
    committed,
    consume_and_commit,
    create_topic,
    delete_records_before,
    produce,
    unique,
)

pytestmark = pytest.mark.kafka

T0 = 1_700_000_000_000  # record timestamps: T0 + 1 minute per record index


@pytest.fixture(scope="module")
def topics(broker):
    bs = broker.bootstrap
    orders = create_topic(bs, unique("r-orders"), partitions=3)
    other = create_topic(bs, unique("r-other"), partitions=2)
    produce(bs, orders, [Record(p, f"v{i}", T0 + i * 60_000) for p in range(3) for i in range(10)])
    produce(bs, other, [Record(p, "x", T0) for p in range(2) for _ in range(4)])
    return orders, other


def _group(bs, topics, name="r", group=None):
    """A new Empty group with offsets committed on every partition of both topics."""
    orders, other = topics
    group = group or unique(name)
    commit_offsets(bs, group, {(orders, 0): 5, (orders, 1): 7, (orders, 2): 2, (other, 0): 1, (other, 1): 3})
    return group


def _two_groups(bs, topics):
    """Two new groups whose ids fall in different buckets of the Apache tool's HashMap. Where two
    share a bucket, its order follows a JVM identity hash (README), which no other program can
    know; elsewhere the order is the ids' and must match."""
    while True:
        a, b = unique("r-a"), unique("r-b")
        if string_keys_order([a, b]) == string_keys_order([b, a]):
            return _group(bs, topics, group=a), _group(bs, topics, group=b)


def _reset(runner, bs, *args):
    return runner("kafka-consumer-groups", "--bootstrap-server", bs, "--reset-offsets", *args)


SCENARIOS = [
    ["--to-earliest"],
    ["--to-latest"],
    ["--to-current"],
    ["--to-offset", "3"],
    ["--to-offset", "50"],
    ["--shift-by", "-3"],
    ["--shift-by", "4"],
    ["--to-datetime", "2023-11-14T22:17:20.000"],  # T0 + 4 minutes
    ["--to-datetime", "2030-01-01T00:00:00.000"],  # after every record: falls back to latest
    ["--by-duration", "P1000D"],  # after every record: latest
    ["--by-duration", "P5000D"],  # before every record: the first offset
]


@pytest.fixture(scope="module")
def planned(broker, topics):
    """The group the dry runs below plan for: they write nothing, so one serves them all (and it
    holds the offsets it was given when they are done)."""
    group = _group(broker.bootstrap, topics)
    given = committed(broker.bootstrap, group)
    yield group
    assert committed(broker.bootstrap, group) == given


@pytest.mark.parametrize("scenario", SCENARIOS, ids=" ".join)
@pytest.mark.parametrize("scope", ["all-topics", "topic", "partitions", "two-topics"])
def test_dry_run_plan_equals_the_apache_tool(broker, topics, planned, apache, ours, scenario, scope):
    bs, group = broker.bootstrap, planned
    orders, other = topics
    scope_args = {
        "all-topics": ["--all-topics"],
        "topic": ["--topic", orders],
        "partitions": ["--topic", f"{orders}:0,2"],
        "two-topics": ["--topic", f"{orders}:1", "--topic", other],
    }[scope]
    # A --timeout for both: the module's first Apache call, in its runner's cold JVM, has timed out
    # at the Apache tool's 5 s default on a loaded machine (in FindCoordinator).
    args = ["--group", group, *scenario, *scope_args, "--dry-run", "--timeout", TOOL_TIMEOUT_MS]
    theirs = _reset(apache, bs, *args)
    mine = _reset(ours, bs, *args)
    assert mine.returncode == 0, mine.stderr
    assert same_output(mine.stdout, theirs.stdout)
    assert "GROUP" in mine.stdout
    assert same_output(
        _reset(ours, bs, *args, "--export").stdout, _reset(apache, bs, *args, "--export").stdout
    )


def same_output(mine: str, theirs: str) -> bool:
    """Byte for byte, except the order of the "Warn: ... Falling back to latest" lines: the
    Apache tool prints those in an order that follows Java hash-bucket collisions in several
    intermediate maps, which the plan rows (compared exactly) do not depend on."""
    warn = "Falling back to latest known offset."

    def split(text: str) -> tuple[list[str], list[str]]:
        lines = text.split("\n")
        return sorted(x for x in lines if x.endswith(warn)), [x for x in lines if not x.endswith(warn)]

    return split(mine) == split(theirs)


@pytest.mark.parametrize(
    "scenario",
    [
        ["--to-earliest"],
        ["--shift-by", "-2"],
        ["--to-datetime", "2023-11-14T22:17:20.000"],
        ["--to-offset", "99"],
    ],
    ids=" ".join,
)
def test_execute_commits_what_the_apache_tool_commits(broker, topics, apache, ours, scenario):
    bs = broker.bootstrap
    mine_group, their_group = _group(bs, topics), _group(bs, topics)
    before = committed(bs, mine_group)
    args = [*scenario, "--all-topics", "--execute"]
    assert _reset(apache, bs, "--group", their_group, *args).returncode == 0
    mine = _reset(ours, bs, "--group", mine_group, *args, "--backup-dir", "/tmp/kgt-test-backups")
    assert mine.returncode == 0, mine.stderr
    assert committed(bs, mine_group) == committed(bs, their_group)
    assert committed(bs, mine_group) != before or scenario == ["--to-offset", "99"]


def test_multi_group_plans_and_exports_match(broker, topics, apache, ours):
    bs = broker.bootstrap
    a, b = _two_groups(bs, topics)
    for extra in ([], ["--export"]):
        args = ["--group", a, "--group", b, "--to-latest", "--topic", topics[0], "--dry-run", *extra]
        theirs, mine = _reset(apache, bs, *args), _reset(ours, bs, *args)
        assert mine.returncode == 0, mine.stderr
        assert mine.stdout == theirs.stdout


def test_exports_execute_across_tools(broker, topics, apache, ours, tmp_path):
    bs = broker.bootstrap
    source = _group(bs, topics)
    plan = _reset(
        ours, bs, "--group", source, "--shift-by", "-1", "--all-topics", "--export", "--dry-run"
    ).stdout
    their_plan = _reset(
        apache, bs, "--group", source, "--shift-by", "-1", "--all-topics", "--export", "--dry-run"
    )
    assert plan == their_plan.stdout
    (tmp_path / "plan.csv").write_text(plan)
    x, y = _group(bs, topics), _group(bs, topics)
    assert (
        _reset(apache, bs, "--group", x, "--from-file", str(tmp_path / "plan.csv"), "--execute").returncode
        == 0
    )
    mine = _reset(
        ours,
        bs,
        "--group",
        y,
        "--from-file",
        str(tmp_path / "plan.csv"),
        "--execute",
        "--backup-dir",
        str(tmp_path),
    )
    assert mine.returncode == 0, mine.stderr
    assert committed(bs, x) == committed(bs, y) == {tp: o - 1 for tp, o in committed(bs, source).items()}


@pytest.mark.smoke
def test_execute_saves_a_backup_that_undoes_the_reset(broker, topics, ours, tmp_path):
    bs = broker.bootstrap
    group = _group(bs, topics)
    before = committed(bs, group)
    done = _reset(
        ours,
        bs,
        "--group",
        group,
        "--to-earliest",
        "--all-topics",
        "--execute",
        "--backup-dir",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    assert set(committed(bs, group).values()) == {0}
    backup = re.search(r"replaced to (\S+)", done.stderr)[1]
    undo = re.search(r"Undo: (.*)", done.stderr)[1].split()
    assert undo[:1] == ["kafka-consumer-groups"] and "--from-file" in undo
    assert undo[undo.index("--backup-dir") + 1] == str(tmp_path)  # the undo's own backup goes there too
    restored = ours(*undo)
    assert restored.returncode == 0, restored.stderr
    assert len(list(tmp_path.iterdir())) == 2
    assert committed(bs, group) == before
    with open(backup) as saved:
        assert saved.read().count("\n") == len(before)


def test_json_plan(broker, topics, ours):
    import json

    bs = broker.bootstrap
    group = _group(bs, topics)
    doc = json.loads(
        _reset(ours, bs, "--group", group, "--to-latest", "--topic", topics[1], "-o", "json").stdout
    )
    assert doc["schema"] == "kafka-group-tools/reset-plan/v1"
    assert doc["executed"] is False
    rows = doc["groups"][0]["partitions"]
    assert [(r["partition"], r["current_offset"], r["new_offset"], r["log_end_offset"]) for r in rows] == [
        (0, 1, 4, 4),
        (1, 3, 4, 4),
    ]


def test_consumer_protocol_group_is_reset(broker, topics, ours):
    bs = broker.bootstrap
    group = unique("r-kip848")
    assert consume_and_commit(bs, group, [topics[1]], expected=8, protocol="consumer") == 8
    done = _reset(
        ours, bs, "--group", group, "--to-earliest", "--all-topics", "--execute", "--backup-dir", "/tmp/kgt-b"
    )
    assert done.returncode == 0, done.stderr
    assert committed(bs, group) == {(topics[1], 0): 0, (topics[1], 1): 0}


def test_active_group_is_refused_and_unchanged(broker, topics, apache, ours):
    bs = broker.bootstrap
    group = _group(bs, topics)
    before = committed(bs, group)
    with ActiveConsumer(bs, group, [topics[1]]):
        mine = _reset(ours, bs, "--group", group, "--to-earliest", "--all-topics", "--execute")
        assert mine.returncode == 1
        refusal = f"Error: Assignments can only be reset if the group '{group}' is inactive"
        assert f"{refusal}, but the current state is Stable." in mine.stderr
        assert committed(bs, group) == before


def test_to_nearest_moves_only_out_of_range_offsets(broker, ours):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("r-near"), partitions=3)
    produce(bs, topic, [Record(p, "x") for p in range(3) for _ in range(10)])
    delete_records_before(bs, topic, 1, 6)
    group = unique("r-near")
    commit_offsets(bs, group, {(topic, 0): 4, (topic, 1): 2, (topic, 2): 500})
    done = _reset(
        ours, bs, "--group", group, "--to-nearest", "--all-topics", "--execute", "--backup-dir", "/tmp/kgt-b"
    )
    assert done.returncode == 0, done.stderr
    assert committed(bs, group) == {(topic, 0): 4, (topic, 1): 6, (topic, 2): 10}


def test_to_start_time_fails_with_the_kip_message_on_todays_brokers(broker, topics, ours):
    bs = broker.bootstrap
    group = _group(bs, topics)
    before = committed(bs, group)
    mine = _reset(ours, bs, "--group", group, "--to-start-time", "--all-topics", "--execute")
    assert mine.returncode == 1
    # The KIP's error line, then the hint (no start was recorded for this group: no helper of
    # ours started it; tests/kafka/test_start_time.py covers groups that have one).
    error, hint = mine.stderr.strip().splitlines()[-2:]
    assert error == (
        "Error: Cannot reset offsets using --to-start-time. The broker does not support to_start_time "
        "(requires ConsumerGroupDescribe v2+ or StreamsGroupDescribe v1+). Please upgrade the broker."
    )
    assert hint.startswith("Hint: ")
    assert committed(bs, group) == before


BAD_INPUT = {
    "invalid datetime": (["--to-datetime", "yesterday", "--all-topics"], "Invalid --to-datetime"),
    "invalid duration": (["--by-duration", "P1W", "--all-topics"], "Invalid --by-duration"),
    "two scenarios": (["--to-earliest", "--to-latest", "--all-topics"], "can't be used with option"),
    "dry-run and execute": (
        ["--to-earliest", "--all-topics", "--dry-run"],
        "only accepts one of [execute] and [dry-run]",
    ),
    "no scope": (["--to-earliest"], "One of the reset scopes should be defined"),
    "unknown topic": (
        ["--to-earliest", "--topic", "no-such-topic-x"],
        "Topic 'no-such-topic-x' does not exist",
    ),
    "missing partition": (["--to-earliest", "--topic", "ORDERS:0,9"], "do not exist"),
    "bad topic arg": (["--to-earliest", "--topic", "ORDERS:x"], "Invalid partition 'x'"),
    "csv columns": (["--from-file", "FILE:t,0\n"], "expected 4 columns"),
    "csv non-numeric": (["--from-file", "FILE:ORDERS,0,five\n"], "expected 4 columns"),
    "csv duplicates": (["--from-file", "FILE:ORDERS,0,1\nORDERS,0,2\n"], "appears twice"),
    "csv other group": (
        ["--from-file", "FILE:someone-else,ORDERS,0,1\n"],
        "is not one of the groups being reset",
    ),
    "csv empty": (["--from-file", "FILE:"], "is empty"),
    "csv unreadable": (["--from-file", "/nonexistent/plan.csv"], "cannot read --from-file"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_is_one_line_and_changes_nothing(broker, topics, ours, tmp_path, case):
    bs = broker.bootstrap
    group = _group(bs, topics)
    before = committed(bs, group)
    args, message = BAD_INPUT[case]
    args = [a.replace("ORDERS", topics[0]) for a in args]
    if args[0] == "--from-file" and args[1].startswith("FILE:"):
        (tmp_path / "plan.csv").write_text(args[1][5:])
        args = ["--from-file", str(tmp_path / "plan.csv"), *args[2:]]
    mine = _reset(ours, bs, "--group", group, *args, "--execute", "--backup-dir", str(tmp_path))
    assert mine.returncode != 0
    assert mine.stdout == ""
    assert message in mine.stderr
    assert len(mine.stderr.strip().splitlines()) == 1, mine.stderr
    assert "Traceback" not in mine.stderr
    assert committed(bs, group) == before


def test_unreachable_cluster_changes_nothing(ours):
    mine = _reset(
        ours, "127.0.0.1:1", "--group", "g", "--to-earliest", "--all-topics", "--execute", "--timeout", "500"
    )
    assert mine.returncode == 1
    assert (
        mine.stderr.strip()
        == "Error: cannot reach the cluster at 127.0.0.1:1 within 500 ms: connection refused"
    )


def test_a_two_group_plan_replayed_for_each_group_alone(broker, topics, apache, ours, tmp_path):
    """The Apache tool's testResetOffsetsExportImportPlan: a plan exported for two groups,
    imported with one --group at a time, resets that group from its own rows; ours says on
    stderr how many rows of the other group it left out."""
    bs = broker.bootstrap
    first, second = _group(bs, topics, "two-a"), _group(bs, topics, "two-b")
    export = [
        "--group",
        first,
        "--group",
        second,
        "--all-topics",
        "--to-offset",
        "2",
        "--dry-run",
        "--export",
    ]
    theirs = _reset(apache, bs, *export)
    assert theirs.returncode == 0, theirs.stderr
    plan = tmp_path / "two-groups.csv"
    plan.write_text(theirs.stdout)
    for group, other in ((first, second), (second, first)):
        replay = ["--group", group, "--from-file", str(plan)]
        expected = _reset(apache, bs, *replay, "--dry-run")
        mine = _reset(ours, bs, *replay, "--dry-run")
        assert mine.returncode == 0, mine.stderr
        assert mine.stdout == expected.stdout
        assert f"skipped 5 row(s) of groups that are not being reset ('{other}')" in mine.stderr
    before = committed(bs, second)
    done = _reset(
        ours, bs, "--group", first, "--from-file", str(plan), "--execute", "--backup-dir", str(tmp_path)
    )
    assert done.returncode == 0, done.stderr
    assert set(committed(bs, first).values()) == {2}
    assert committed(bs, second) == before  # the other group's rows were left alone
