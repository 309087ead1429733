"""Many groups on three brokers: ``--describe --all-groups`` streamed a chunk of groups at a time
(kafka_groups/commands/describe_groups.py) prints what the pinned Apache tool prints, byte for byte,
in every view, and what the same describe printed whole.

A few hundred groups, spread over the three coordinators, with names whose Java order (UTF-16 code
units) differs from Python's (code points); two of them have members. The chunk size is lowered so
that the groups cross many chunk boundaries; the describe of this many groups goes through the
protocol layer's batched requests, which are checked against librdkafka's describe of the same
groups.
"""

from __future__ import annotations

import time

import pytest

from tests import inprocess
from tests.kafka_helpers import (
    ActiveConsumer,
    admin,
    create_topic,
    produce_n,
    restore_nodes,
    unique,
)

pytestmark = pytest.mark.kafka

GROUPS = 300
VIEWS = [[], ["--offsets", "--verbose"], ["--members"], ["--members", "--verbose"], ["--state"]]
# Names whose order differs between Java's String.compareTo (UTF-16) and Python's str order: a
# character above U+FFFF is a surrogate pair (0xD83D...), below U+FF21 in UTF-16, above it in code points.
# (A name with such a character is padded as the Apache tool pads it only when its width counts
# UTF-16 units, which the text layouts do not: those names are left out of the byte comparison.)
ODD_SUFFIXES = ("\uff21", "Z", "a", "\u00e9", "\u4e2d", "-", "_")


@pytest.fixture(scope="module")
def many(three_nodes):
    cluster = three_nodes
    restore_nodes(cluster)
    bs = cluster.bootstrap
    prefix = unique("mg")
    orders = create_topic(bs, f"{prefix}-orders", partitions=6)
    audit = create_topic(bs, f"{prefix}-audit", partitions=2)
    produce_n(bs, orders, {p: 3 + p for p in range(6)})
    produce_n(bs, audit, {0: 2, 1: 2})
    names = [f"{prefix}-{i:04d}" for i in range(GROUPS)] + [f"{prefix}-{s}" for s in ODD_SUFFIXES]
    _commit_many(bs, names, orders, audit)
    return bs, prefix, names, orders, audit


def _commit_many(bs: str, names: list[str], orders: str, audit: str) -> None:
    """Every group commits on some partitions of ``orders`` (a different set per group) and some
    on ``audit`` too; the requests go out together. On a new cluster a commit can be acknowledged
    while the offsets topic is still being made, and then not be there: the groups are listed
    until every one is, and those missing are committed again."""
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition

    client = admin(bs)
    wanted = {}
    for i, name in enumerate(names):
        offsets = [TopicPartition(orders, p, (i + p) % 3) for p in range(i % 6 + 1)]
        if i % 4 == 0:
            offsets.append(TopicPartition(audit, i % 2, 1))
        wanted[name] = ConsumerGroupTopicPartitions(name, offsets)
    todo = list(names)
    for _ in range(20):
        futures = [client.alter_consumer_group_offsets([wanted[name]], request_timeout=60) for name in todo]
        for batch in futures:
            for future in batch.values():
                future.result(120)
        listed = {g.group_id for g in client.list_consumer_groups(request_timeout=60).result(120).valid}
        todo = [name for name in names if name not in listed]
        if not todo:
            return
        time.sleep(1)
    raise TimeoutError(f"{len(todo)} groups did not take their offsets, e.g. {todo[0]}")


def _apache(apache, bs, *args):
    result = apache("kafka-consumer-groups", "--bootstrap-server", bs, "--describe", "--all-groups", *args)
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture
def small_chunks(monkeypatch):
    from kafka_groups.commands import describe_groups, health

    monkeypatch.setattr(describe_groups, "STREAM_CHUNK", 37)
    # The radar checks each chunk in parts of this many partitions (a larger group alone).
    monkeypatch.setattr(health, "STREAM_ROWS", 5)


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
def test_streamed_describe_equals_apache_in_every_view(many, apache, small_chunks, protocol):
    bs, prefix, names, orders, audit = many
    active = f"{prefix}-active-{protocol}"
    with ActiveConsumer(bs, active, [orders, audit], protocol=protocol):
        for view in VIEWS:
            theirs = _apache(apache, bs, *view)
            mine = inprocess.run(
                "kafka-consumer-groups", "--bootstrap-server", bs, "--describe", "--all-groups", *view
            )
            assert mine.returncode == 0, mine.stderr
            assert mine.stdout == theirs.stdout, view
            if "--members" not in view:  # an Empty group has a members header and no rows
                assert all(name in mine.stdout for name in names)
            if not view:  # the Apache tool's notices on stderr, in its order

                def notices(text: str) -> list[str]:
                    return [line for line in text.splitlines() if "has no active members" in line]

                assert notices(mine.stderr) == notices(theirs.stderr)


def test_streamed_describe_equals_the_whole_describe(many, small_chunks):
    """The chunks printed one after another are the describe printed at once (the path every
    other format takes), for the groups chosen by pattern."""
    from kafka_groups.commands.describe_groups import DescribeGroupsRequest
    from kafka_groups.core.describe import View
    from kafka_groups.render import describe as render_describe
    from kafka_groups.settings import ConnectionArgs

    bs, prefix, names, _orders, _audit = many
    for view_flags, view in (([], View.OFFSETS), (["--state"], View.STATE), (["--members"], View.MEMBERS)):
        request = DescribeGroupsRequest(
            ConnectionArgs(bootstrap_server=bs),
            group_patterns=(f"{prefix}-.*",),
            offsets=view is View.OFFSETS,
            state=view is View.STATE,
            members=view is View.MEMBERS,
        )
        whole = request.execute()  # no show callback: gathered whole
        mine = inprocess.run(
            "kafka-consumer-groups",
            "--bootstrap-server",
            bs,
            "--describe",
            "--group-pattern",
            f"{prefix}-.*",
            *view_flags,
        )
        assert mine.returncode == 0, mine.stderr
        assert mine.stdout == render_describe.text(whole.result)
        assert {g.group_id for g in whole.result.groups} >= set(names)


def test_many_groups_described_through_the_protocol_layer_as_librdkafka_describes_them(many, monkeypatch):
    """Above FEW_GROUPS groups the batched requests of the protocol layer describe them: the same
    descriptions as librdkafka's, field for field (reduced to the fields librdkafka has: no
    epochs, member types or creation times, as the plain views show them)."""
    from kafka_groups.access import groups
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.settings import ConnectionArgs

    bs, _prefix, names, _orders, _audit = many
    settings = ConnectionArgs(bootstrap_server=bs).resolve()
    access = KafkaAccess(settings)
    try:
        batched, gone = access.describe_groups([*names, "mg-never-made"])
        monkeypatch.setattr(groups, "FEW_GROUPS", 10**9)
        plain, plain_gone = access.describe_groups([*names, "mg-never-made"])
    finally:
        access.close()
    assert gone == plain_gone == ["mg-never-made"]  # both in the order given
    assert set(batched) == set(plain) == set(names)
    for name in names:
        assert batched[name] == plain[name]


def test_streamed_health_equals_the_whole_radar(many, small_chunks):
    """--health streamed in chunks prints the radar printed at once, and ends with the same status
    and summary (the lag in time and the time to deletion move with the clock: masked)."""
    import re

    from kafka_groups.commands.describe_groups import DescribeGroupsRequest
    from kafka_groups.render import health as render_health
    from kafka_groups.settings import ConnectionArgs

    bs, prefix, names, _orders, _audit = many
    pattern = f"{prefix}-.*"
    whole = DescribeGroupsRequest(
        ConnectionArgs(bootstrap_server=bs), group_patterns=(pattern,), health=True
    ).execute()
    mine = inprocess.run(
        "kafka-consumer-groups",
        "--bootstrap-server",
        bs,
        "--describe",
        "--group-pattern",
        pattern,
        "--health",
    )

    def masked(text: str) -> list[list[str]]:
        lines = []
        for line in text.splitlines():
            cells = line.split()
            if cells and cells[0] not in ("GROUP", "SUMMARY"):
                cells[8] = cells[10] = "T"  # LAG-TIME-MS, DELETE-IN-MS
            lines.append([re.sub(r"max-lag-time-ms=\d+", "max-lag-time-ms=T", c) for c in cells])
        return lines

    assert masked(mine.stdout) == masked(render_health.text(whole.result))
    assert mine.returncode == whole.status
    assert sum(line.startswith("SUMMARY") for line in mine.stdout.splitlines()) >= len(names)
