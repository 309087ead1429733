"""kafka-topics --describe, --create, --alter and --delete on the real broker, side by side with
the Apache tool. Where the Apache tool prints an error on stdout, ours prints the same line on
stderr (and exits 1, or 2 for arguments it refuses before connecting)."""

from __future__ import annotations

import json

import pytest

from tests.kafka_helpers import (
    ActiveConsumer,
    admin,
    commit_offsets,
    committed,
    create_topic,
    produce_n,
    unique,
)

pytestmark = pytest.mark.kafka


def _kt(runner, bs, *args):
    return runner("kafka-topics", "--bootstrap-server", bs, *args)


def _topics(bs):
    return set(admin(bs).list_topics(timeout=10).topics)


def _partition_count(bs, topic):
    return len(admin(bs).list_topics(topic, timeout=10).topics[topic].partitions)


@pytest.fixture(scope="module")
def described(broker):
    bs = broker.bootstrap
    prefix = unique("kt")
    plain = create_topic(bs, f"{prefix}-plain", partitions=3)
    client = admin(bs)
    from confluent_kafka.admin import NewTopic

    futures = client.create_topics(
        [NewTopic(f"{prefix}-compact", 2, 1, config={"cleanup.policy": "compact", "retention.ms": "1000"})]
    )
    futures[f"{prefix}-compact"].result(30)
    return prefix, plain


@pytest.mark.parametrize(
    "args",
    [
        ["--describe", "--topic", "PREFIX-.*"],
        ["--describe", "--topic", "PREFIX-compact, PREFIX-plain"],
        ["--describe", "--topic", "PREFIX-.*", "--topics-with-overrides"],
        ["--describe", "--topic", "PREFIX-.*", "--at-min-isr-partitions"],
        ["--describe", "--topic", "PREFIX-.*", "--under-replicated-partitions"],
        ["--describe", "--topic", "PREFIX-.*", "--unavailable-partitions"],
        ["--describe", "--topic", "PREFIX-.*", "--under-min-isr-partitions"],
        ["--describe", "--topic", "PREFIX-nothing", "--if-exists"],
        ["--describe"],
        ["--describe", "--exclude-internal"],
        ["--list", "--topic", "PREFIX-.*"],
    ],
    ids=lambda a: " ".join(a),
)
def test_describe_matches_apache(broker, described, apache, ours, args):
    prefix, _ = described
    args = [a.replace("PREFIX", prefix) for a in args]
    theirs, mine = _kt(apache, broker.bootstrap, *args), _kt(ours, broker.bootstrap, *args)
    assert theirs.returncode == mine.returncode == 0, mine.stderr
    assert mine.stdout == theirs.stdout


def test_describe_by_topic_id_matches_apache(broker, described, apache, ours):
    _, plain = described
    line = _kt(ours, broker.bootstrap, "--describe", "--topic", plain).stdout.splitlines()[0]
    topic_id = line.split("\tTopicId: ")[1].split("\t")[0]
    theirs = _kt(apache, broker.bootstrap, "--describe", "--topic-id", topic_id)
    mine = _kt(ours, broker.bootstrap, "--describe", "--topic-id", topic_id)
    assert mine.stdout == theirs.stdout
    assert "Elr: N/A" in mine.stdout  # by id the Apache tool reads Metadata, which has no ELR


@pytest.mark.parametrize(
    "args",
    [
        ["--describe", "--topic", "PREFIX-nothing"],
        ["--describe", "--topic-id", "AAAAAAAAAAAAAAAAAAAAAQ"],
        ["--describe", "--topic-id", "not-a-uuid"],
        ["--alter", "--topic", "PREFIX-nothing", "--partitions", "5"],
        ["--delete", "--topic", "PREFIX-nothing"],
    ],
    ids=lambda a: " ".join(a),
)
def test_errors_are_the_apache_lines_on_stderr(broker, described, apache, ours, args):
    prefix, _ = described
    args = [a.replace("PREFIX", prefix) for a in args]
    theirs, mine = _kt(apache, broker.bootstrap, *args), _kt(ours, broker.bootstrap, *args)
    assert theirs.returncode == mine.returncode == 1
    assert theirs.stdout.startswith("Error while executing topic command : ")
    assert mine.stderr == theirs.stdout and mine.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ["--partitions", "3", "--replication-factor", "1"],
        ["--replica-assignment", "1,1"],
        ["--config", "retention.ms = 5", "--config", "cleanup.policy=compact"],
        [],
    ],
    ids=lambda a: " ".join(a) or "defaults",
)
def test_create_matches_apache(broker, apache, ours, args):
    bs = broker.bootstrap
    theirs_name, mine_name = unique("c-apache"), unique("c-ours")
    theirs, mine = (
        _kt(apache, bs, "--create", "--topic", theirs_name, *args),
        _kt(ours, bs, "--create", "--topic", mine_name, *args),
    )
    assert theirs.returncode == mine.returncode == 0, mine.stderr
    assert mine.stdout.replace(mine_name, "T") == theirs.stdout.replace(theirs_name, "T")
    described = [
        _kt(apache, bs, "--describe", "--topic", name).stdout.replace(name, "T")
        for name in (theirs_name, mine_name)
    ]
    strip_id = [
        (
            "\n".join(
                line.split("\tTopicId: ")[0] + line.split("\tPartitionCount")[-1] for line in d.splitlines()
            )
        )
        for d in described
    ]
    assert strip_id[0] == strip_id[1]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--partitions", "0"], 1),
        (["--partitions", "-2"], 1),
        (["--replication-factor", "0"], 1),
        (["--replication-factor", "3"], 1),  # one broker
        (["--replication-factor", "40000"], 1),
        (["--config", "foo=bar"], 1),
        (["--config", "cleanup.policy=bogus"], 1),
        (["--config", "a=b=c"], 2),
        (["--replica-assignment", "1:1"], 2),
        (["--replica-assignment", "x"], 2),
        (["--replica-assignment", "5"], 1),
    ],
    ids=lambda a: " ".join(a) if isinstance(a, list) else str(a),
)
def test_create_refusals_match_apache_and_create_nothing(broker, apache, ours, args, code):
    bs = broker.bootstrap
    name = unique("bad.create")  # the collision warning comes first, on stdout, from both tools
    theirs, mine = (
        _kt(apache, bs, "--create", "--topic", name, *args),
        _kt(ours, bs, "--create", "--topic", name, *args),
    )
    assert theirs.returncode == 1
    assert mine.returncode == code
    # The name warning (stdout) comes only where the Apache tool gets past its argument checks.
    warning = [line + "\n" for line in theirs.stdout.splitlines() if line.startswith("WARNING")]
    error = [line + "\n" for line in theirs.stdout.splitlines() if line.startswith("Error while")]
    assert mine.stdout == "".join(warning)
    assert mine.stderr == "".join(error)
    assert name not in _topics(bs)


def test_create_existing_topic(broker, described, apache, ours):
    _, plain = described
    theirs, mine = (
        _kt(apache, broker.bootstrap, "--create", "--topic", plain),
        _kt(ours, broker.bootstrap, "--create", "--topic", plain),
    )
    assert (
        mine.stderr
        == theirs.stdout
        == f"Error while executing topic command : Topic '{plain}' already exists.\n"
    )
    quiet = _kt(ours, broker.bootstrap, "--create", "--topic", plain, "--if-not-exists")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


@pytest.mark.parametrize(
    ("partitions", "ok"), [("5", True), ("3", False), ("2", False), ("-1", False)], ids=lambda v: str(v)
)
def test_alter_matches_apache(broker, apache, ours, partitions, ok):
    bs = broker.bootstrap
    names = {tool: create_topic(bs, unique(f"a-{tool}"), partitions=3) for tool in ("apache", "ours")}
    theirs = _kt(apache, bs, "--alter", "--topic", names["apache"], "--partitions", partitions)
    mine = _kt(ours, bs, "--alter", "--topic", names["ours"], "--partitions", partitions)
    assert theirs.returncode == mine.returncode == (0 if ok else 1)
    assert mine.stdout == "" and theirs.stdout.replace(names["apache"], "T") == (
        mine.stderr.replace(names["ours"], "T") if not ok else ""
    )
    expected = int(partitions) if ok else 3
    assert _partition_count(bs, names["apache"]) == _partition_count(bs, names["ours"]) == expected


def test_alter_by_regex_and_if_exists(broker, ours):
    bs = broker.bootstrap
    prefix = unique("many")
    for i in range(2):
        create_topic(bs, f"{prefix}-{i}", partitions=1)
    done = _kt(ours, bs, "--alter", "--topic", f"{prefix}-.*", "--partitions", "3")
    assert done.returncode == 0, done.stderr
    assert [_partition_count(bs, f"{prefix}-{i}") for i in range(2)] == [3, 3]
    quiet = _kt(ours, bs, "--alter", "--topic", f"{prefix}-none", "--partitions", "3", "--if-exists")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


def test_alter_dry_run_changes_nothing(broker, ours):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("dry"), partitions=2)
    done = _kt(ours, bs, "--alter", "--topic", topic, "--partitions", "4", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"Dry run: topic {topic} would go from 2 to 4 partitions; nothing was changed.\n"
    assert _partition_count(bs, topic) == 2
    refused = _kt(ours, bs, "--alter", "--topic", topic, "--partitions", "1", "--dry-run")
    assert refused.returncode == 1 and "would not be an increase" in refused.stderr
    assert _partition_count(bs, topic) == 2


def test_partition_expansion_guard(broker, ours):
    """The guard names the groups with offsets on the topic, and its reset command makes an empty
    group start the new partitions at their beginning, so records written there before its
    consumers notice are not skipped."""
    bs = broker.bootstrap
    topic = create_topic(bs, unique("grow"), partitions=2)
    produce_n(bs, topic, {0: 3, 1: 3})
    idle, busy = unique("idle"), unique("busy")
    commit_offsets(bs, idle, {(topic, 0): 3, (topic, 1): 3})
    commit_offsets(bs, busy, {(topic, 0): 1})
    with ActiveConsumer(bs, busy, [topic]):
        done = _kt(ours, bs, "--alter", "--topic", topic, "--partitions", "4")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert f"{idle} (Empty)" in done.stderr and busy in done.stderr
    assert "auto.offset.reset=latest" in done.stderr
    command = next(line for line in done.stderr.splitlines() if line.startswith("To read the new partitions"))
    reset = command.split("run: ", 1)[1].split()
    assert reset[0] == "kafka-consumer-groups"
    assert f"{topic}:2,3" in reset and busy not in reset
    produce_n(bs, topic, {2: 4, 3: 2})  # written before any consumer of the group saw the partitions
    applied = ours(*reset)
    assert applied.returncode == 0, applied.stderr
    assert committed(bs, idle) == {(topic, 0): 3, (topic, 1): 3, (topic, 2): 0, (topic, 3): 0}


@pytest.mark.smoke
def test_delete_matches_apache(broker, apache, ours):
    bs = broker.bootstrap
    names = {tool: create_topic(bs, unique(f"del-{tool}"), partitions=1) for tool in ("apache", "ours")}
    theirs = _kt(apache, bs, "--delete", "--topic", names["apache"])
    mine = _kt(ours, bs, "--delete", "--topic", names["ours"])
    assert theirs.returncode == mine.returncode == 0
    assert mine.stdout == theirs.stdout == ""
    quiet = _kt(ours, bs, "--delete", "--topic", names["ours"], "--if-exists")
    assert (quiet.returncode, quiet.stdout) == (0, "")


def test_json_outputs(broker, ours):
    bs = broker.bootstrap
    topic = unique("js")
    created = json.loads(
        _kt(ours, bs, "--create", "--topic", topic, "--partitions", "2", "-o", "json").stdout
    )
    assert created == {"schema": "kafka-group-tools/topic-create/v1", "topic": topic, "created": True}
    described = json.loads(_kt(ours, bs, "--describe", "--topic", topic, "-o", "json").stdout)
    assert described["schema"] == "kafka-group-tools/topic-describe/v1"
    (entry,) = described["topics"]
    assert entry["partition_count"] == 2
    assert [p["partition"] for p in entry["partitions"]] == [0, 1]
    assert all(p["creation_time_ms"] is None for p in entry["partitions"])  # no broker sends KIP-1327 yet
    altered = json.loads(_kt(ours, bs, "--alter", "--topic", topic, "--partitions", "3", "-o", "json").stdout)
    assert altered["topics"] == [
        {"topic": topic, "partitions_before": 2, "partitions_after": 3, "new_partitions": [2]}
    ]
    deleted = json.loads(_kt(ours, bs, "--delete", "--topic", topic, "-o", "json").stdout)
    assert deleted == {"schema": "kafka-group-tools/topic-delete/v1", "deleted": [topic]}


@pytest.mark.parametrize(
    "args",
    [
        ["--list", "--describe"],
        ["--create"],
        ["--describe", "--partitions", "3", "--topic", "x"],
        ["--list", "--if-exists"],
        ["--create", "--topic", "x", "--if-exists"],
        ["--describe", "--topics-with-overrides", "--under-replicated-partitions"],
        ["--alter", "--topic", "x"],
        ["--alter", "--topic", "x", "--partitions", "6", "--config", "retention.ms=1000"],
        ["--create", "--topic", "x", "--replica-assignment", "1", "--partitions", "2"],
        ["--describe", "--if-exists"],
        ["--describe", "--topic", "x", "--if-not-exists"],
    ],
    ids=lambda a: " ".join(a),
)
def test_usage_errors_match_apache(broker, apache, ours, args):
    theirs, mine = _kt(apache, broker.bootstrap, *args), _kt(ours, broker.bootstrap, *args)
    assert theirs.returncode == 1 and mine.returncode == 2
    expected = theirs.stderr.splitlines()[0]
    # The Apache tool names this pair from a Set.of, whose order changes from one JVM to the next.
    expected = expected.replace("[[config], [bootstrap-server]]", "[[bootstrap-server], [config]]")
    assert mine.stderr.splitlines() == [f"Error: {expected}"]


@pytest.mark.parametrize(
    "action",
    [("--delete",), ("--alter", "--partitions", "99"), ("--alter", "--partitions", "99", "--dry-run")],
    ids=["delete", "alter", "alter-dry-run"],
)
def test_internal_topics_are_never_altered_or_deleted(broker, ours, action):
    """A regex that reaches __consumer_offsets (the Apache tool deletes it, and every group's
    offsets with it) is refused before anything is sent: the topics, their partition counts and
    the groups' offsets stay as they were."""
    bs = broker.bootstrap
    mine = create_topic(bs, unique("beside-internal"), partitions=1)
    group = unique("keeps-offsets")
    commit_offsets(bs, group, {(mine, 0): 0})
    before = (_topics(bs), _partition_count(bs, "__consumer_offsets"), _partition_count(bs, mine))
    refused = _kt(ours, bs, *action, "--topic", f"__consumer_offsets|{mine}")
    assert refused.returncode == 1, refused.stderr
    assert "__consumer_offsets" in refused.stderr and "nothing was changed" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert (_topics(bs), _partition_count(bs, "__consumer_offsets"), _partition_count(bs, mine)) == before
    assert committed(bs, group) == {(mine, 0): 0}
