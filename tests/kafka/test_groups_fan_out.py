"""Reads of many groups on three brokers (Connection._read_groups): the batches are made per
coordinator and are in flight together, each under a deadline of its own, so that a coordinator
that is paused holds up only its own groups' batches (which fail after their own --timeout, the
others having ended long before), and a coordinator that moves (its broker stopped) is found
again by its batches' retries while the other batches are read.

The batch size is lowered so that a few hundred groups make batches of every coordinator."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter

import pytest

from kafka_groups.access import connection
from tests.kafka_helpers import commit_many, commit_offsets, create_topic, produce_n, restore_nodes, unique

pytestmark = pytest.mark.kafka

GROUPS = 240
PER_REQUEST = 20  # GROUPS_PER_REQUEST in these tests: 12 batches over three coordinators


@pytest.fixture(scope="module")
def spread(three_nodes):
    cluster = three_nodes
    restore_nodes(cluster)
    bs = cluster.bootstrap
    topic = create_topic(bs, unique("fan"), partitions=3, replication=3)
    produce_n(bs, topic, {0: 4, 1: 4, 2: 4})
    groups = [f"{unique('fan')}-{i:04d}" for i in range(GROUPS)]
    offsets = {(topic, 0): 1, (topic, 1): 2, (topic, 2): 3}
    commit_offsets(bs, groups[0], offsets)  # waits out a new cluster's offsets topic
    commit_many(bs.split(",")[0], groups, offsets)
    yield cluster, topic, groups
    restore_nodes(cluster)


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(connection, "GROUPS_PER_REQUEST", PER_REQUEST)


def _access(bs: str, timeout_ms: int):
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.settings import ConnectionArgs

    return KafkaAccess(ConnectionArgs(bootstrap_server=bs, timeout_ms=timeout_ms).resolve())


class _Recorded:
    """A read of groups that notes, for each batch, its groups, when it began and ended, its
    outcome, and how many batches were in flight at its start."""

    def __init__(self, access) -> None:
        self.access = access
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.batches: list[dict] = []

    async def read(self, group_ids: list[str]):
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
            note = {"groups": list(group_ids), "began": time.monotonic(), "ok": False}
            self.batches.append(note)
        try:
            answer = await self.access._describe_groups(group_ids)
            note["ok"] = True
            return answer
        finally:
            note["ended"] = time.monotonic()
            with self.lock:
                self.running -= 1


def _coordinators(access, groups: list[str]) -> dict[str, int]:
    access.locate_coordinators(groups)
    from kafka.protocol.metadata import CoordinatorType

    cluster = access._protocol.manager.cluster
    return {g: cluster.get_coordinator(g, CoordinatorType.GROUP) for g in groups}


def test_batches_are_made_per_coordinator_and_read_together(spread, small_batches, monkeypatch):
    cluster, _topic, groups = spread
    access = _access(cluster.bootstrap, 30_000)
    try:
        where = _coordinators(access, groups)
        assert len(set(where.values())) == 3, Counter(where.values())
        recorded = _Recorded(access)
        answers = access._read_groups("describing groups", recorded.read, groups)
        for note in recorded.batches:
            assert len(note["groups"]) <= PER_REQUEST
            assert len({where[g] for g in note["groups"]}) == 1, note["groups"]
        assert sorted(g for n in recorded.batches for g in n["groups"]) == sorted(groups)
        assert recorded.most > 1  # in flight together
        # The first batches in flight reach every coordinator.
        first = recorded.batches[:3]
        assert {where[n["groups"][0]] for n in first} == set(where.values())
        found = {g: d for described, _gone in answers for g, d in described.items()}
        assert set(found) == set(groups)
        # The same as one batch after another.
        monkeypatch.setattr(connection, "BATCHES_IN_FLIGHT", 1)
        one_by_one = _access(cluster.bootstrap, 30_000)
        try:
            many, gone = one_by_one.describe_groups_detailed(groups)
            assert not gone and many == found
        finally:
            one_by_one.close()
    finally:
        access.close()


def test_a_paused_coordinator_holds_up_only_its_own_groups(spread, small_batches):
    """One broker paused (SIGSTOP) once the coordinators are known: the batches of the two
    others end well within the timeout, each of the paused one's fails after its own timeout,
    and the read fails within about one timeout and the last attempt's (not a timeout per
    batch), naming what it waited for."""
    from kafka_groups.errors import ClusterError

    cluster, _topic, groups = spread
    timeout_ms = 4000  # well within the 9 s after which the controller fences the paused broker
    access = _access(cluster.bootstrap, timeout_ms)
    paused_pid = None
    try:
        where = _coordinators(access, groups)
        access.describe_groups_detailed(groups)  # connections to every coordinator open
        # Pause a broker that coordinates some groups and is not the one the metadata came from
        # first (any of them would do; the bootstrap stays reachable).
        node_id = max(set(where.values()))
        paused_pid = cluster.node(node_id).pid
        assert paused_pid is not None
        os.kill(paused_pid, signal.SIGSTOP)
        recorded = _Recorded(access)
        began = time.monotonic()
        with pytest.raises(ClusterError) as failed:
            access._read_groups("describing groups", recorded.read, groups)
        took = time.monotonic() - began
        assert f"not available within {timeout_ms} ms" in failed.value.message, failed.value.message
        # Each batch ends at its deadline or with the attempt under way then (a request's own
        # timeout): four batches of the paused coordinator read one after another would take
        # four timeouts at least.
        assert took < 3 * timeout_ms / 1000, took
        others = [n for n in recorded.batches if where[n["groups"][0]] != node_id]
        stalled = [n for n in recorded.batches if where[n["groups"][0]] == node_id]
        assert others and stalled
        assert all(n["ok"] for n in others)
        assert not any(n["ok"] for n in stalled)
        # The other coordinators' groups did not wait for the paused one.
        assert max(n["ended"] for n in others) < min(n["ended"] for n in stalled)
        # The paused coordinator's batches were tried until their own deadline.
        assert max(n["ended"] for n in stalled) - min(n["began"] for n in stalled) >= timeout_ms / 1000 * 0.9
    finally:
        if paused_pid is not None:
            os.kill(paused_pid, signal.SIGCONT)
        access.close()


def test_a_coordinator_that_moves_is_found_again(spread, small_batches):
    """A broker stopped once the coordinators are known: its groups' coordinators move to the
    others, whose batches find them again (retries under each batch's own deadline); every
    group is read, as before the stop."""
    cluster, _topic, groups = spread
    access = _access(cluster.bootstrap, 60_000)
    try:
        where = _coordinators(access, groups)
        before, gone = access.describe_groups_detailed(groups)
        assert not gone
        node_id = max(set(where.values()))
        cluster.stop_node(node_id, grace=0)
        recorded = _Recorded(access)
        answers = access._read_groups("describing groups", recorded.read, groups)
        after = {g: d for described, _gone in answers for g, d in described.items()}
        assert set(after) == set(groups)
        assert all(after[g].coordinator.node_id != node_id for g in groups)
        assert {g: (d.state, d.members) for g, d in after.items()} == {
            g: (d.state, d.members) for g, d in before.items()
        }
        # Only the moved groups' batches needed more than their first answer; the others ended
        # before any of them.
        moved = [n for n in recorded.batches if where[n["groups"][0]] == node_id]
        stayed = [n for n in recorded.batches if where[n["groups"][0]] != node_id]
        assert moved and stayed
        assert sum(1 for n in recorded.batches if not n["ok"]) >= 1  # a moved batch was retried
        assert all(n["ok"] for n in stayed)
    finally:
        access.close()
        restore_nodes(cluster)
