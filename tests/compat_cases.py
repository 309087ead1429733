"""The compatibility cases: every action of the three tools on one broker line, ours beside the
pinned Apache 4.3.1 tool (identical stdout, or a difference the README documents), and what each
line cannot do refused in one true line.

Each tests/kafka/test_compat_<line>.py runs them against its own broker: it defines the ``line``
fixture (a conftest.Broker) and a ``Test...`` class that inherits ``CompatCases``. The class's
fixtures are class-scoped, so each module sets up its topics and groups once.

What a line can do comes from the release here (``can``), as an oracle the tools themselves never
use: they decide from the broker's ApiVersions answer (kafka_groups/core/capabilities.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.kafka_helpers import (
    TOOL_TIMEOUT_MS,
    ActiveConsumer,
    admin,
    commit_offsets,
    committed,
    consume_and_commit,
    create_topic,
    produce_n,
    unique,
)

# The first release with each capability (kafka_groups/core/capabilities.py names the APIs).
FIRST = {
    "offset_delete": (2, 4),  # OffsetDelete
    "default_replication": (2, 4),  # CreateTopics v4 (KIP-464)
    "list_states": (2, 6),  # ListGroups v4
    "topic_ids": (2, 8),  # Metadata v10 (KIP-516)
    "metadata_by_id": (3, 1),  # Metadata v12: topics asked for by id
    "list_types": (3, 8),  # ListGroups v5
    "describe_partitions": (3, 8),  # DescribeTopicPartitions
    "streams": (4, 2),  # StreamsGroupDescribe
}
STREAMS_REFUSAL = (
    "Error: The broker does not support streams groups (StreamsGroupDescribe); they need Kafka 4.2 or newer\n"
)


def can(version: str, what: str) -> bool:
    major, minor = (int(p) for p in version.split(".")[:2])
    return (major, minor) >= FIRST[what]


@dataclass(frozen=True)
class World:
    bs: str
    version: str
    topic: str  # 2 partitions, 3 + 2 records
    other: str  # 1 partition, 4 records
    classic: str  # an Empty classic group with offsets on both topics
    simple: str  # offsets committed without joining (protocol type "")


def _cg(runner, bs, *args):
    return runner("kafka-consumer-groups", "--bootstrap-server", bs, *args)


def _sg(runner, bs, *args):
    return runner("kafka-streams-groups", "--bootstrap-server", bs, *args)


def _kt(runner, bs, *args):
    return runner("kafka-topics", "--bootstrap-server", bs, *args)


def _clean(result) -> None:
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, result.stderr


def _same_groups_order(mine: str, theirs: str) -> None:
    """Identical, except where two of the groups share a bucket of the Apache tool's HashMap: its
    order there follows a JVM identity hash (README, deliberate differences), so the rows must
    match in any order. The ids are random, so that happens now and then."""
    from kafka_groups.core.javaorder import string_keys_order

    rows = [line.split() for line in theirs.splitlines() if line and not line.startswith("GROUP")]
    ids = list(dict.fromkeys(row[0] for row in rows if row))
    if string_keys_order(ids) == string_keys_order(list(reversed(ids))):
        assert mine == theirs
    else:
        assert sorted(mine.splitlines()) == sorted(theirs.splitlines())


def _apache_cause(stdout: str) -> str:
    """What an Apache error line on stdout says after its exception's name and where."""
    line = next(x for x in stdout.splitlines() if x.startswith("Error: "))
    return line.rsplit("): ", 1)[-1] if "): " in line else line.split("Exception: ")[-1]


class CompatCases:
    # -- the world --------------------------------------------------------------------------------
    @pytest.fixture(scope="class")
    @classmethod
    def world(cls, line) -> World:
        bs = line.bootstrap
        topic = create_topic(bs, unique("compat-t"), partitions=2)
        other = create_topic(bs, unique("compat-o"), partitions=1)
        produce_n(bs, topic, {0: 3, 1: 2})
        produce_n(bs, other, {0: 4})
        classic = unique("compat-classic")
        assert consume_and_commit(bs, classic, [topic, other], expected=9, protocol="classic") == 9
        simple = unique("compat-simple")
        commit_offsets(bs, simple, {(topic, 0): 1, (topic, 1): 2})
        return World(bs, line.version, topic, other, classic, simple)

    def twin_groups(self, world: World, offsets: dict[int, int]) -> tuple[str, str]:
        """Two simple groups with the same offsets on world.topic: one for each tool to change (names
        of one length, so that the columns line up alike)."""
        pair = unique("twin-a"), unique("twin-b")
        for group in pair:
            commit_offsets(world.bs, group, {(world.topic, p): o for p, o in offsets.items()})
        return pair

    # -- kafka-consumer-groups --list -------------------------------------------------------------
    @pytest.mark.parametrize(
        "filters",
        [
            [],
            ["--state"],
            ["--type"],
            ["--state", "--type"],
            ["--type", "classic"],
            ["--type", "classic,consumer"],
        ],
        ids=lambda f: " ".join(f) or "plain",
    )
    def test_list_matches_apache(self, world, apache, ours, filters):
        theirs, mine = _cg(apache, world.bs, "--list", *filters), _cg(ours, world.bs, "--list", *filters)
        _clean(mine)
        assert mine.returncode == 0, mine.stderr
        assert world.classic in mine.stdout and world.simple in mine.stdout
        assert mine.stdout == theirs.stdout

    def test_list_type_column_says_what_the_broker_says(self, world, ours):
        """Before ListGroups v5 the broker does not say a group's type: Unknown, as the Apache
        tool prints it (the groups there are classic, but the broker does not say so)."""
        mine = _cg(ours, world.bs, "--list", "--type")
        row = next(x.split() for x in mine.stdout.splitlines() if x.startswith(world.classic))
        assert row[1] == ("Classic" if can(world.version, "list_types") else "Unknown")

    @pytest.mark.parametrize(
        "filters", [["--state", "Empty"], ["--state", "stable,empty", "--type"]], ids=" ".join
    )
    def test_list_by_state(self, world, apache, ours, filters):
        theirs, mine = _cg(apache, world.bs, "--list", *filters), _cg(ours, world.bs, "--list", *filters)
        _clean(mine)
        if can(world.version, "list_states"):
            assert mine.returncode == 0, mine.stderr
            assert world.classic in mine.stdout
            assert mine.stdout == theirs.stdout
        else:  # ListGroups before v4 cannot filter by state: refused in the Apache Admin client's words
            assert (mine.returncode, mine.stdout) == (1, "")
            assert mine.stderr == f"Error: {_apache_cause(theirs.stdout)}\n"
            assert "but we need v4 or newer to request groups by states." in mine.stderr

    def test_list_by_consumer_type(self, world, apache, ours):
        theirs = _cg(apache, world.bs, "--list", "--type", "consumer")
        mine = _cg(ours, world.bs, "--list", "--type", "consumer")
        _clean(mine)
        if can(world.version, "list_types"):
            assert mine.returncode == 0, mine.stderr
            assert mine.stdout == theirs.stdout
        else:  # a classic group is not a consumer-protocol one, and the broker cannot filter by type
            assert (mine.returncode, mine.stdout) == (1, "")
            assert mine.stderr == f"Error: {_apache_cause(theirs.stdout)}\n"
            assert "Requested group types: [Consumer]." in mine.stderr

    def test_list_json(self, world, ours):
        mine = _cg(ours, world.bs, "--list", "--state", "--type", "-o", "json")
        assert mine.returncode == 0, mine.stderr
        listed = {g["group"]: g for g in json.loads(mine.stdout)["groups"]}
        stated, typed = can(world.version, "list_states"), can(world.version, "list_types")
        assert listed[world.classic]["state"] == ("Empty" if stated else "Unknown")
        assert listed[world.classic]["type"] == ("Classic" if typed else "Unknown")

    # -- kafka-consumer-groups --describe ---------------------------------------------------------
    @pytest.mark.parametrize(
        "view",
        [[], ["--offsets", "--verbose"], ["--members"], ["--members", "--verbose"], ["--state"]],
        ids=lambda v: " ".join(v) or "offsets",
    )
    def test_describe_matches_apache(self, world, apache, ours, view):
        # Both groups in one call: each group's block, and how the Apache tool puts two together.
        args = ["--group", world.classic, "--group", world.simple]
        theirs = _cg(apache, world.bs, "--describe", *args, *view)
        mine = _cg(ours, world.bs, "--describe", *args, *view)
        _clean(mine)
        assert mine.returncode == 0, mine.stderr
        assert mine.stdout == theirs.stdout

    @pytest.mark.parametrize("view", [[], ["--members"], ["--state"]], ids=lambda v: " ".join(v) or "offsets")
    def test_describe_all_groups_matches_apache(self, world, apache, ours, view):
        theirs = _cg(apache, world.bs, "--describe", "--all-groups", *view)
        mine = _cg(ours, world.bs, "--describe", "--all-groups", *view)
        _clean(mine)
        assert mine.returncode == 0, mine.stderr
        assert (world.classic in mine.stdout) == (view != ["--members"])  # a group without members
        assert mine.stdout == theirs.stdout

    def test_describe_active_group_matches_apache(self, world, apache, ours):
        group = unique("compat-active")
        with ActiveConsumer(world.bs, group, [world.topic]):
            for view in ([], ["--members", "--verbose"], ["--state"], ["--offsets"]):
                theirs = _cg(apache, world.bs, "--describe", "--group", group, *view)
                mine = _cg(ours, world.bs, "--describe", "--group", group, *view)
                _clean(mine)
                assert mine.returncode == 0, mine.stderr
                assert mine.stdout == theirs.stdout

    def test_describe_missing_group(self, world, apache, ours):
        missing = unique("compat-missing")
        theirs = _cg(apache, world.bs, "--describe", "--group", missing)
        mine = _cg(ours, world.bs, "--describe", "--group", missing)
        assert (mine.returncode, mine.stdout) == (1, "")
        assert mine.stderr == f"Error: Consumer group '{missing}' does not exist.\n"
        # Its words: "Consumer group 'g' does not exist." before 4.0, "Group g not found." from 4.0.
        assert "Error: " in theirs.stdout and missing in theirs.stdout

    @pytest.mark.parametrize(
        "extra", [["--health"], ["--lag-time"], ["-o", "json"], ["--members", "-o", "json"]], ids=" ".join
    )
    def test_describe_ours_only(self, world, ours, extra):
        """Our additions run on every line: no traceback, no sentinel, the group named."""
        mine = _cg(ours, world.bs, "--describe", "--group", world.classic, *extra)
        _clean(mine)
        assert mine.returncode == 0, mine.stderr
        assert world.classic in mine.stdout and "-1001" not in mine.stdout
        if "json" in extra:
            json.loads(mine.stdout)

    # -- kafka-consumer-groups --reset-offsets ----------------------------------------------------
    @pytest.mark.parametrize(
        "scenario",
        [
            ["--to-earliest", "--all-topics"],
            ["--to-latest", "--all-topics"],
            ["--to-current", "--all-topics"],
            ["--to-offset", "1", "--all-topics"],
            ["--shift-by", "-1", "--all-topics"],
            ["--to-datetime", "2020-01-01T00:00:00.000", "--all-topics"],
            ["--by-duration", "PT1H", "--all-topics"],
            ["--to-earliest", "--topic", "TOPIC:1"],
            ["--to-latest", "--topic", "TOPIC", "--export"],
        ],
        ids=" ".join,
    )
    def test_reset_plans_match_apache(self, world, apache, ours, scenario):
        scenario = [a.replace("TOPIC", world.topic) for a in scenario]
        args = ["--group", world.classic, "--reset-offsets", *scenario, "--dry-run"]
        theirs, mine = _cg(apache, world.bs, *args), _cg(ours, world.bs, *args)
        _clean(mine)
        assert mine.returncode == 0, mine.stderr
        assert mine.stdout == theirs.stdout

    def test_reset_from_file_and_all_groups_match_apache(self, world, apache, ours, tmp_path):
        plan = tmp_path / "plan.csv"
        plan.write_text(f"{world.classic},{world.topic},0,1\n{world.classic},{world.topic},1,0\n")
        for args in (
            ["--group", world.classic, "--reset-offsets", "--from-file", str(plan), "--dry-run"],
            ["--all-groups", "--reset-offsets", "--to-earliest", "--topic", world.topic, "--dry-run"],
        ):
            theirs, mine = _cg(apache, world.bs, *args), _cg(ours, world.bs, *args)
            _clean(mine)
            assert mine.returncode == 0, mine.stderr
            _same_groups_order(mine.stdout, theirs.stdout)

    def test_reset_execute_matches_apache(self, world, apache, ours, tmp_path):
        theirs_group, mine_group = self.twin_groups(world, {0: 3, 1: 2})
        args = ["--reset-offsets", "--to-offset", "1", "--topic", world.topic, "--execute"]
        theirs = _cg(apache, world.bs, "--group", theirs_group, *args)
        mine = _cg(ours, world.bs, "--group", mine_group, *args, "--backup-dir", str(tmp_path))
        _clean(mine)
        assert mine.returncode == 0, mine.stderr
        assert mine.stdout.replace(mine_group, "G") == theirs.stdout.replace(theirs_group, "G")
        assert (
            committed(world.bs, mine_group)
            == committed(world.bs, theirs_group)
            == {
                (world.topic, 0): 1,
                (world.topic, 1): 1,
            }
        )

    def test_reset_to_group(self, world, ours, tmp_path):
        target = unique("compat-copy")
        mine = _cg(
            ours,
            world.bs,
            *("--group", target, "--reset-offsets", "--to-group", world.simple, "--all-topics", "--execute"),
            *("--backup-dir", str(tmp_path)),
        )
        _clean(mine)
        assert mine.returncode == 0, mine.stderr
        assert committed(world.bs, target) == {(world.topic, 0): 1, (world.topic, 1): 2}

    # -- kafka-consumer-groups --delete-offsets and --delete --------------------------------------
    def test_delete_offsets(self, world, apache, ours, tmp_path):
        theirs_group, mine_group = self.twin_groups(world, {0: 3, 1: 2})
        args = ["--delete-offsets", "--topic", f"{world.topic}:0"]
        mine = _cg(ours, world.bs, "--group", mine_group, *args, "--backup-dir", str(tmp_path))
        _clean(mine)
        if can(world.version, "offset_delete"):
            theirs = _cg(apache, world.bs, "--group", theirs_group, *args)
            assert mine.returncode == 0, mine.stderr
            assert mine.stdout.replace(mine_group, "G") == theirs.stdout.replace(theirs_group, "G")
            left = {(world.topic, 1): 2}
            assert committed(world.bs, mine_group) == committed(world.bs, theirs_group) == left
        else:
            # No OffsetDelete: one true line, before any backup or announcement; nothing changes.
            assert (mine.returncode, mine.stdout) == (1, "")
            assert mine.stderr == (
                "Error: The broker does not support deleting committed offsets (OffsetDelete, KIP-496); "
                "it needs Kafka 2.4 or newer. Nothing was deleted.\n"
            )
            assert list(tmp_path.iterdir()) == []
            assert committed(world.bs, mine_group) == {(world.topic, 0): 3, (world.topic, 1): 2}

    def test_delete_groups_matches_apache(self, world, apache, ours, tmp_path):
        theirs_group, mine_group = self.twin_groups(world, {0: 1})
        theirs = _cg(apache, world.bs, "--delete", "--group", theirs_group)
        mine = _cg(ours, world.bs, "--delete", "--group", mine_group, "--backup-dir", str(tmp_path))
        _clean(mine)
        assert mine.returncode == 0, mine.stderr
        assert mine.stdout.replace(mine_group, "G") == theirs.stdout.replace(theirs_group, "G")
        assert committed(world.bs, mine_group) == committed(world.bs, theirs_group) == {}

    # -- kafka-topics ------------------------------------------------------------------------------
    @pytest.mark.parametrize(
        "args",
        [
            ["--list"],
            ["--list", "--exclude-internal"],
            ["--describe"],
            ["--describe", "--exclude-internal"],
            ["--describe", "--topic", "TOPIC"],
            ["--describe", "--topic", "compat-.*"],
            ["--describe", "--under-replicated-partitions"],
            ["--describe", "--unavailable-partitions"],
            ["--describe", "--under-min-isr-partitions"],
            ["--describe", "--at-min-isr-partitions"],
            ["--describe", "--topics-with-overrides"],
        ],
        ids=" ".join,
    )
    def test_topics_match_apache(self, world, apache, ours, args):
        args = [a.replace("TOPIC", world.topic) for a in args]
        theirs, mine = _kt(apache, world.bs, *args), _kt(ours, world.bs, *args)
        _clean(mine)
        assert mine.returncode == 0, mine.stderr
        assert mine.stdout == theirs.stdout
        if args[0] == "--describe" and len(args) == 1:
            assert world.topic in mine.stdout
            elr = "Elr: N/A\tLastKnownElr: N/A" in mine.stdout
            assert elr == (not can(world.version, "describe_partitions"))
            assert ("TopicId: " in mine.stdout) == can(world.version, "topic_ids")

    def test_describe_by_topic_id_matches_apache(self, world, apache, ours):
        if not can(world.version, "topic_ids"):
            pytest.skip("brokers before 2.8 have no topic ids")
        line = _kt(ours, world.bs, "--describe", "--topic", world.topic).stdout.splitlines()[0]
        topic_id = line.split("\tTopicId: ")[1].split("\t")[0]
        theirs = _kt(apache, world.bs, "--describe", "--topic-id", topic_id)
        mine = _kt(ours, world.bs, "--describe", "--topic-id", topic_id)
        assert mine.returncode == 0, mine.stderr
        if can(world.version, "metadata_by_id"):
            assert mine.stdout == theirs.stdout
        else:
            # A documented difference: the broker lists topic ids (Metadata v10) but cannot be asked
            # by id (v12, 3.1): the Apache tool fails, ours finds the id among the listed topics.
            assert theirs.stdout == (
                "Error while executing topic command : MetadataRequest version 11 does not support "
                "non-zero topic IDs.\n"
            )
            assert mine.stdout == _kt(ours, world.bs, "--describe", "--topic", world.topic).stdout

    def test_describe_topics_json(self, world, ours):
        mine = _kt(ours, world.bs, "--describe", "--topic", world.topic, "-o", "json")
        assert mine.returncode == 0, mine.stderr
        (entry,) = json.loads(mine.stdout)["topics"]
        assert [p["partition"] for p in entry["partitions"]] == [0, 1]

    @pytest.mark.parametrize(
        "create",
        [["--partitions", "2", "--replication-factor", "1", "--config", "retention.ms=100000"], []],
        ids=["explicit", "defaults"],
    )
    def test_create_alter_delete_match_apache(self, world, apache, ours, create):
        names = {"apache": unique("kt-a"), "ours": unique("kt-b")}  # one length: the columns line up alike
        run = {"apache": apache, "ours": ours}

        def both(*args: str) -> dict[str, object]:
            return {k: _kt(run[k], world.bs, *(a.replace("NAME", names[k]) for a in args)) for k in run}

        def same(done: dict[str, object]) -> None:
            theirs, mine = done["apache"], done["ours"]
            _clean(mine)
            assert mine.stdout.replace(names["ours"], "T") == theirs.stdout.replace(names["apache"], "T")

        created = both("--create", "--topic", "NAME", *create)
        if not create and not can(world.version, "default_replication"):
            # KIP-464 defaults need CreateTopics v4: the Apache tool's error line, on our stderr.
            theirs, mine = created["apache"], created["ours"]
            assert (mine.returncode, mine.stdout) == (1, "")
            assert mine.stderr == theirs.stdout.replace(names["apache"], names["ours"])
            assert "CreateTopicRequest version 4+" in mine.stderr
            return
        same(created)
        assert created["ours"].returncode == 0, created["ours"].stderr
        # The creation times are recorded: no warning that the record topic could not be made.
        assert "Warning" not in created["ours"].stderr, created["ours"].stderr
        altered = both("--alter", "--topic", "NAME", "--partitions", "3")
        same(altered)
        assert altered["ours"].returncode == 0, altered["ours"].stderr
        assert "Warning" not in altered["ours"].stderr, altered["ours"].stderr
        described = both("--describe", "--topic", "NAME")
        strip = {
            k: "\n".join(x.split("\tTopicId: ")[0] for x in described[k].stdout.splitlines()) for k in run
        }
        assert strip["ours"].replace(names["ours"], "T") == strip["apache"].replace(names["apache"], "T")
        deleted = both("--delete", "--topic", "NAME")
        same(deleted)
        assert deleted["ours"].returncode == 0, deleted["ours"].stderr

    def test_creation_time_topic_has_replicas_the_broker_accepts(self, world, ours):
        name = unique("kt-rf")
        made = _kt(
            ours, world.bs, "--create", "--topic", name, "--partitions", "1", "--replication-factor", "1"
        )
        assert made.returncode == 0 and "Warning" not in made.stderr, made.stderr
        topics = admin(world.bs).list_topics(timeout=30).topics
        record = topics["_kgt_partition_creation_times"]
        assert len(record.partitions[0].replicas) == 1  # one broker: -1 (its default) or min(3, 1)

    def test_policy_consumer_records_its_group_where_the_broker_allows(self, world):
        """The policy library's registry topics (group start times, policies) are made with a
        replication factor the broker accepts: before 2.4 its default (-1, KIP-464) is refused."""
        import time

        from kafka_groups.policy import CreationRegistry, Policy, PolicyConsumer
        from kafka_groups.settings import ConnectionSettings

        topic = create_topic(world.bs, unique("compat-policy"), partitions=1)
        produce_n(world.bs, topic, {0: 2})  # before the group starts: to_start_time skips them
        group = unique("compat-policy")
        config = {"bootstrap.servers": world.bs, "group.id": group, "group.protocol": "classic"}
        consumer = PolicyConsumer(config, Policy.parse("to_start_time"))
        offsets: list[int] = []
        assigned: list[object] = []
        try:
            consumer.subscribe([topic], on_assign=lambda _, partitions: assigned.extend(partitions))
            deadline = time.monotonic() + 60
            while not assigned and time.monotonic() < deadline:
                consumer.poll(0.2)
            produce_n(world.bs, topic, {0: 1})
            while not offsets and time.monotonic() < deadline:
                message = consumer.poll(0.2)
                if message is not None and message.error() is None:
                    offsets.append(message.offset())
        finally:
            consumer.close()
        assert offsets == [2]  # the one record written after the group started
        registry = CreationRegistry(ConnectionSettings(world.bs, 30_000))
        assert registry.group_start_time(group) is not None
        assert registry.recorded_policies([group]) == {group: ("to_start_time", True)}
        topics = admin(world.bs).list_topics(timeout=30).topics
        for name in ("_kgt_group_start_times", "_kgt_group_policies"):
            assert len(topics[name].partitions[0].replicas) == 1  # one broker

    # -- kafka-streams-groups ----------------------------------------------------------------------
    @pytest.mark.parametrize(
        "args",
        [
            ["--list"],
            ["--list", "--state"],
            ["--list", "--state", "stable"],
            ["--describe", "--group", "CLASSIC"],
            ["--describe", "--all-groups"],
            ["--reset-offsets", "--group", "CLASSIC", "--input-topic", "TOPIC", "--to-earliest", "--dry-run"],
            ["--delete", "--group", "CLASSIC"],
        ],
        ids=" ".join,
    )
    def test_streams_tool(self, world, apache, ours, args):
        args = [a.replace("CLASSIC", world.classic).replace("TOPIC", world.topic) for a in args]
        mine = _sg(ours, world.bs, *args)
        _clean(mine)
        if not can(world.version, "streams"):
            # The broker cannot have streams groups: said in one line, not an empty list with exit 0.
            assert (mine.returncode, mine.stdout, mine.stderr) == (1, "", STREAMS_REFUSAL)
            return
        if args[0] == "--list":
            theirs = _sg(apache, world.bs, *args)
            assert mine.returncode == 0, mine.stderr
            assert mine.stdout == theirs.stdout
        elif args[1] == "--all-groups":
            assert mine.returncode == 0, mine.stderr
            assert world.classic not in mine.stdout
        elif args[0] == "--delete":  # the Apache tool's report on stdout, and one line on stderr
            theirs = _sg(apache, world.bs, *args)
            assert mine.returncode == 1
            assert mine.stdout == theirs.stdout and len(mine.stderr.splitlines()) == 1, mine.stderr
        else:  # a classic group is not a streams group: one line, exit 1, for every action
            assert mine.returncode == 1
            assert mine.stdout == "" and len(mine.stderr.splitlines()) == 1, mine.stderr

    @pytest.mark.parametrize("action", [["--list"], ["--describe", "--all-groups"]], ids=" ".join)
    def test_streams_watch_ends_where_the_broker_has_no_streams_groups(self, world, ours, action):
        """Not one failed refresh after another: the watch ends with the one line."""
        if can(world.version, "streams"):
            pytest.skip("the broker has streams groups: the watch would go on")
        mine = _sg(ours, world.bs, *action, "--watch", "1")
        assert (mine.returncode, mine.stdout, mine.stderr) == (1, "", STREAMS_REFUSAL)

    def test_streams_delete_offsets_refuses_a_classic_group(self, world, ours, tmp_path):
        """The Apache tool deletes a classic group's offsets here; ours refuses, on every line."""
        group, _ = self.twin_groups(world, {0: 3, 1: 2})
        mine = _sg(
            ours,
            world.bs,
            *("--delete-offsets", "--group", group, "--input-topic", world.topic),
            *("--backup-dir", str(tmp_path), "--timeout", TOOL_TIMEOUT_MS),
        )
        _clean(mine)
        assert (mine.returncode, mine.stdout) == (1, "")
        if can(world.version, "streams"):
            assert len(mine.stderr.splitlines()) == 1 and group in mine.stderr, mine.stderr
        else:
            assert mine.stderr == STREAMS_REFUSAL
        assert list(Path(tmp_path).iterdir()) == []
        assert committed(world.bs, group) == {(world.topic, 0): 3, (world.topic, 1): 2}
