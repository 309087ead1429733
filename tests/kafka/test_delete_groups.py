"""kafka-consumer-groups --delete-offsets (KIP-496) and --delete on the real broker.

Each case builds two identical groups, runs the Apache tool on one and ours on the other,
compares stdout byte for byte (group names aside), then reads both groups' offsets back:
they must match, and exactly the named partitions must be gone."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from infra import kafka as local_kafka
from kafka_groups.core.javaorder import hashmap_bucket, string_hash
from tests.kafka_helpers import ActiveConsumer, commit_offsets, committed, create_topic, produce_n, unique

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def topics(broker):
    bs = broker.bootstrap
    orders = create_topic(bs, unique("d-orders"), partitions=3)
    other = create_topic(bs, unique("d-other"), partitions=2)
    # Records, so that restoring a backup commits the same offsets (not clamped to an empty log).
    produce_n(bs, orders, dict.fromkeys(range(3), 10))
    produce_n(bs, other, dict.fromkeys(range(2), 10))
    return orders, other


def _offsets(topics):
    orders, other = topics
    return {(orders, 0): 5, (orders, 1): 7, (orders, 2): 2, (other, 0): 1, (other, 1): 3}


def _cg(runner, bs, *args, **kw):
    return runner("kafka-consumer-groups", "--bootstrap-server", bs, *args, **kw)


def _twins(bs, topics, case):
    """Two groups with the same committed offsets: one for each tool."""
    pair = unique(f"{case}-apache"), unique(f"{case}-ours")
    for group in pair:
        commit_offsets(bs, group, _offsets(topics))
    return pair


def _side_by_side(apache, ours, bs, groups, args, tmp_path):
    """Run ``args`` (GROUP stands for the group) with each tool on its own group."""
    theirs_group, mine_group = groups
    theirs = _cg(apache, bs, *[a.replace("GROUP", theirs_group) for a in args])
    mine = _cg(
        ours,
        bs,
        *[a.replace("GROUP", mine_group) for a in args],
        env={"KAFKA_TOOLS_STATE_DIR": str(tmp_path)},
    )
    assert theirs.returncode == 0, theirs.stderr
    assert mine.stdout.replace(mine_group, "GROUP") == theirs.stdout.replace(theirs_group, "GROUP")
    return theirs, mine


def _gone(before, after):
    return {tp for tp in before if tp not in after}


@pytest.mark.parametrize(
    ("case", "topic_args", "deleted", "exit_code"),
    [
        ("parts", ["ORDERS:0,1"], {("ORDERS", 0), ("ORDERS", 1)}, 0),
        ("whole", ["OTHER"], {("OTHER", 0), ("OTHER", 1)}, 0),
        ("both", ["OTHER", "ORDERS:2"], {("OTHER", 0), ("OTHER", 1), ("ORDERS", 2)}, 0),
        # an unknown topic named whole, a partition that does not exist: partial success
        ("partial", ["OTHER", "no-such-topic", "ORDERS:7"], {("OTHER", 0), ("OTHER", 1)}, 3),
        ("unknown-topic", ["no-such-topic"], set(), 1),
        ("unknown-partition", ["ORDERS:9"], set(), 1),
    ],
)
def test_delete_offsets_matches_apache(
    broker, topics, apache, ours, tmp_path, case, topic_args, deleted, exit_code
):
    bs = broker.bootstrap
    orders, other = topics
    names = {"ORDERS": orders, "OTHER": other}
    topic_flags = [
        f for arg in topic_args for f in ("--topic", re.sub("ORDERS|OTHER", lambda m: names[m[0]], arg))
    ]
    groups = _twins(bs, topics, case)
    _, mine = _side_by_side(
        apache, ours, bs, groups, ["--delete-offsets", "--group", "GROUP", *topic_flags], tmp_path
    )
    assert mine.returncode == exit_code, mine.stderr
    theirs_after, mine_after = committed(bs, groups[0]), committed(bs, groups[1])
    assert mine_after == theirs_after
    assert _gone(_offsets(topics), mine_after) == {(names[t], p) for t, p in deleted}


def test_delete_offsets_of_a_missing_group(broker, topics, apache, ours, tmp_path):
    bs = broker.bootstrap
    orders, _ = topics
    for topic_args in (["--topic", f"{orders}:1"], ["--topic", "no-such-topic"]):
        args = ["--delete-offsets", "--group", unique("missing"), *topic_args]
        theirs, mine = (
            _cg(apache, bs, *args),
            _cg(ours, bs, *args, env={"KAFKA_TOOLS_STATE_DIR": str(tmp_path)}),
        )
        assert mine.stdout == theirs.stdout
        assert "Error: The group id does not exist." in mine.stdout
        assert mine.returncode == 1
        assert mine.stderr.strip().splitlines()[-1].startswith("Error: no offsets of group")
    assert not list(tmp_path.rglob("*.csv")), "nothing to back up for a group that does not exist"


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
def test_delete_offsets_refuses_topics_an_active_group_reads(
    broker, topics, apache, ours, tmp_path, protocol
):
    bs = broker.bootstrap
    orders, other = topics
    groups = _twins(bs, topics, f"active-{protocol}")
    with ActiveConsumer(bs, groups[0], [orders], protocol), ActiveConsumer(bs, groups[1], [orders], protocol):
        args = ["--delete-offsets", "--group", "GROUP", "--topic", orders, "--topic", other]
        _, mine = _side_by_side(apache, ours, bs, groups, args, tmp_path)
        assert "GroupSubscribedToTopicException" in mine.stdout
        assert mine.returncode == 3
        mine_after = committed(bs, groups[1])
    assert _gone(_offsets(topics), mine_after) == {(other, 0), (other, 1)}
    assert all(mine_after[(orders, p)] == o for (t, p), o in _offsets(topics).items() if t == orders)


def test_delete_offsets_backup_restores_what_was_deleted(broker, topics, ours, tmp_path):
    bs = broker.bootstrap
    _, other = topics
    group = unique("undo")
    commit_offsets(bs, group, _offsets(topics))
    done = _cg(
        ours, bs, "--delete-offsets", "--group", group, "--topic", other, "--backup-dir", str(tmp_path)
    )
    assert done.returncode == 0, done.stderr
    backup = re.search(r"Saved the offsets this deletion removed to (\S+)", done.stderr)[1]
    assert sorted(Path(backup).read_text().splitlines()) == [f"{group},{other},0,1", f"{group},{other},1,3"]
    assert _gone(_offsets(topics), committed(bs, group)) == {(other, 0), (other, 1)}
    undo = shlex.split(re.search(r"Undo: (.*)", done.stderr)[1])
    assert undo[0] == "kafka-consumer-groups"
    restored = ours(*undo)
    assert restored.returncode == 0, restored.stderr
    assert committed(bs, group) == _offsets(topics)


def test_delete_offsets_json(broker, topics, ours, tmp_path):
    bs = broker.bootstrap
    orders, _ = topics
    group = unique("json")
    commit_offsets(bs, group, _offsets(topics))
    args = ["--delete-offsets", "--group", group, "--topic", f"{orders}:0,7", "--output", "json"]
    done = _cg(ours, bs, *args, "--backup-dir", str(tmp_path))
    assert done.returncode == 3
    report = json.loads(done.stdout)
    assert report["schema"] == "kafka-group-tools/offset-delete/v1"
    assert report["outcome"] == "partial"
    assert report["error"]["name"] == "UNKNOWN_TOPIC_OR_PARTITION"
    assert [(p["partition"], p["deleted"]) for p in report["partitions"]] == [(0, True), (7, False)]
    assert report["backup"] and Path(report["backup"]).read_text() == f"{group},{orders},0,5\n"


@pytest.mark.parametrize(
    "args",
    [
        ["--topic", "ORDERS:x"],  # a bad partition
        ["--topic", "ORDERS", "--group", "OTHER-GROUP"],  # one group only
        [],  # no --topic
    ],
)
def test_delete_offsets_bad_input_changes_nothing(broker, topics, ours, tmp_path, args):
    bs = broker.bootstrap
    orders, _ = topics
    group = unique("bad")
    commit_offsets(bs, group, _offsets(topics))
    args = [a.replace("ORDERS", orders).replace("OTHER-GROUP", unique("x")) for a in args]
    done = _cg(
        ours, bs, "--delete-offsets", "--group", group, *args, env={"KAFKA_TOOLS_STATE_DIR": str(tmp_path)}
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert committed(bs, group) == _offsets(topics)
    assert not list(tmp_path.rglob("*"))


# -- --delete -------------------------------------------------------------------------------
def test_delete_groups_matches_apache(broker, topics, apache, ours, tmp_path):
    bs = broker.bootstrap
    orders, _ = topics
    # Each tool: two empty groups, one group with an active member, one that does not exist.
    names = {tool: [unique(f"del-{tool}") for _ in range(3)] for tool in ("apache", "ours")}
    for group in names["apache"] + names["ours"]:
        commit_offsets(bs, group, _offsets(topics))
    missing = unique("never-there")
    with (
        ActiveConsumer(bs, names["apache"][2], [orders]),
        ActiveConsumer(bs, names["ours"][2], [orders], "consumer"),
    ):
        theirs = _cg(
            apache, bs, "--delete", *[f for g in names["apache"] for f in ("--group", g)], "--group", missing
        )
        mine = _cg(
            ours,
            bs,
            "--delete",
            *[f for g in names["ours"] for f in ("--group", g)],
            "--group",
            missing,
            "--backup-dir",
            str(tmp_path),
        )
        assert mine.returncode == 3, mine.stderr
        for tool, out in (("apache", theirs.stdout), ("ours", mine.stdout)):
            lines = out.splitlines()
            assert lines[1] == "Error: Deletion of some consumer groups failed:"
            failures = sorted(lines[2:4])
            assert failures == sorted(
                [
                    f"* Group '{missing}' could not be deleted due to: "
                    "org.apache.kafka.common.errors.GroupIdNotFoundException: The group id does not exist.",
                    f"* Group '{names[tool][2]}' could not be deleted due to: "
                    "org.apache.kafka.common.errors.GroupNotEmptyException: The group is not empty.",
                ]
            )
            assert lines[5].startswith("These consumer groups were deleted successfully: ")
        for tool in ("apache", "ours"):
            a, b, busy = names[tool]
            assert committed(bs, a) == {} and committed(bs, b) == {}
            assert committed(bs, busy) == _offsets(topics)
    # The backup holds exactly the deleted groups' offsets, and restores them.
    backup = re.search(r"Saved the offsets of the deleted groups to (\S+)", mine.stderr)[1]
    assert {line.split(",")[0] for line in Path(backup).read_text().splitlines()} == set(names["ours"][:2])
    restored = ours(*shlex.split(re.search(r"Undo: (.*)", mine.stderr)[1]))
    assert restored.returncode == 0, restored.stderr
    assert all(committed(bs, g) == _offsets(topics) for g in names["ours"][:2])


def _two_groups_apart(prefix: str) -> list[str]:
    """Two group ids in different HashMap buckets: within one bucket the Apache tool's order
    follows a JVM identity hash no other program can know (README, deliberate differences)."""
    first = unique(prefix)
    while hashmap_bucket(string_hash(second := unique(prefix))) == hashmap_bucket(string_hash(first)):
        pass
    return [first, second]


@pytest.mark.parametrize("case", ["all-deleted", "all-missing"])
def test_delete_groups_outcomes(broker, topics, apache, ours, tmp_path, case):
    bs = broker.bootstrap
    groups = _two_groups_apart("gone")
    if case == "all-deleted":
        for g in groups:
            commit_offsets(bs, g, _offsets(topics))
    args = ["--delete", *[f for g in groups for f in ("--group", g)]]
    mine = _cg(ours, bs, *args, "--backup-dir", str(tmp_path))
    if case == "all-deleted":
        assert mine.returncode == 0, mine.stderr
        for g in groups:
            commit_offsets(bs, g, _offsets(topics))
    else:
        assert mine.returncode == 1
    theirs = _cg(apache, bs, *args)
    assert mine.stdout == theirs.stdout
    assert all(committed(bs, g) == {} for g in groups)


def test_delete_all_groups_on_its_own_cluster(apache, ours, tmp_path):
    """--all-groups deletes every consumer group, so it gets a cluster of its own."""
    cluster = local_kafka.start(nodes=1, workdir=local_kafka.RUN_DIR / f"test-delete-all-{unique('c')}")
    try:
        bs = cluster.bootstrap
        topic = create_topic(bs, "all-groups", partitions=2)
        empty = ["idle-1", "idle-2", "idle-3"]

        def arrange():
            for g in [*empty, "busy"]:
                commit_offsets(bs, g, {(topic, 0): 1, (topic, 1): 2})

        arrange()
        with ActiveConsumer(bs, "busy", [topic]):
            mine = _cg(ours, bs, "--delete", "--all-groups", "--backup-dir", str(tmp_path))
            assert mine.returncode == 3, mine.stderr
            assert all(committed(bs, g) == {} for g in empty)
            arrange()
            theirs = _cg(apache, bs, "--delete", "--all-groups")
            assert mine.stdout == theirs.stdout
            assert "GroupNotEmptyException" in mine.stdout
        # Nothing left but the busy group, which has gone idle: ours deletes it, exit 0.
        done = _cg(ours, bs, "--delete", "--all-groups", "--output", "json", "--backup-dir", str(tmp_path))
        report = json.loads(done.stdout)
        assert report["schema"] == "kafka-group-tools/group-delete/v1"
        assert "busy" in report["deleted"] and report["failed"] == []
        assert done.returncode == 0, done.stderr
    finally:
        cluster.stop(grace=0)  # its data is deleted: no controlled shutdown to wait for


def test_delete_with_topic_is_a_usage_error(broker, ours):
    done = _cg(ours, broker.bootstrap, "--delete", "--group", "g", "--topic", "t")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "Error: The consumer does not support topic-specific offset deletion from a consumer group."
    )
