"""Reads of many groups (Connection._read_groups) with plain data: a fake clock, batches that
take time and fail for a while, no client. Each batch of groups is read under a deadline of its
own; the first batch that cannot be read in its own time ends the read."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kafka_groups.access import connection
from kafka_groups.access.connection import GROUPS_PER_REQUEST
from kafka_groups.access.groups import GroupsAccess
from kafka_groups.access.retry import Deadline, NotAvailableInTime, Unavailable, retry_until

TIMEOUT_MS = 5000


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Reads(GroupsAccess):
    """The access layer's batching and retries, its requests played by ``answer``: each batch
    costs ``cost_s`` of the fake clock per attempt and fails retriably ``failures(batch)`` times."""

    def __init__(self, clock: Clock, cost_s: float, failures: Any) -> None:
        self.settings = SimpleNamespace(timeout_ms=TIMEOUT_MS, bootstrap_servers="broker:9092")
        self._deadline = None
        self._cached_metadata = None
        self._topic_metadata: dict[str, Any] = {}
        self.clock, self.cost_s, self.failures = clock, cost_s, failures
        self.attempts: dict[str, int] = {}
        self.forgotten: list[list[str]] = []

    def _run(self, coro: Any, *args: Any) -> Any:  # the protocol layer's network thread
        return coro(*args)

    def answer(self, batch: list[str]) -> dict[str, int]:
        self.clock.now += self.cost_s
        tries = self.attempts[batch[0]] = self.attempts.get(batch[0], 0) + 1
        if tries <= self.failures(batch):
            raise Unavailable(f"the coordinators of {batch[0]}..", "COORDINATOR_LOAD_IN_PROGRESS")
        return {g: len(g) for g in batch}

    def _refresh_protocol_metadata(self) -> None:
        pass

    def _forget_coordinators(self, group_ids: list[str]) -> None:
        self.forgotten.append(group_ids)


@pytest.fixture
def clock(monkeypatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(connection, "Deadline", lambda ms: Deadline(ms, clock=fake))
    pause = retry_until

    def paused_on_the_clock(*args: Any, **kwargs: Any) -> Any:
        return pause(*args, sleep=lambda s: setattr(fake, "now", fake.now + s), **kwargs)

    monkeypatch.setattr(connection, "retry_until", paused_on_the_clock)
    return fake


GROUPS = [f"g-{i:05d}" for i in range(5 * GROUPS_PER_REQUEST + 7)]


def test_each_batch_has_a_deadline_of_its_own(clock):
    """Six batches, each 0.6 of the timeout and refused once: three timeouts in all, and every
    group read (one deadline for them all ran out in the second batch)."""
    reads = Reads(clock, cost_s=0.6 * TIMEOUT_MS / 1000 / 2, failures=lambda batch: 1)
    began = clock.now
    answers = reads._read_groups("reading", reads.answer, GROUPS)
    assert [len(a) for a in answers] == [GROUPS_PER_REQUEST] * 5 + [7]
    assert {g for a in answers for g in a} == set(GROUPS)
    assert clock.now - began > 3 * TIMEOUT_MS / 1000
    # A retry forgets the coordinators of its own batch only.
    assert [len(f) for f in reads.forgotten] == [GROUPS_PER_REQUEST] * 5 + [7]


def test_the_first_batch_not_read_in_its_own_time_ends_the_read(clock):
    """The third batch never gets through: the read fails after its timeout, naming what it
    waited for, and the batches after it are not asked."""
    third = GROUPS[2 * GROUPS_PER_REQUEST]
    reads = Reads(clock, cost_s=0.1, failures=lambda batch: 10**9 if batch[0] == third else 0)
    began = clock.now
    with pytest.raises(NotAvailableInTime) as failed:
        reads._read_groups("reading", reads.answer, GROUPS)
    assert failed.value.message.startswith(
        f"the coordinators of {third}.. not available within {TIMEOUT_MS} ms"
    )
    assert set(reads.attempts) == {GROUPS[0], GROUPS[GROUPS_PER_REQUEST], third}
    # Two batches read in 0.1 s each, then one timeout (and the last attempt's cost) for the third.
    assert clock.now - began <= 0.2 + TIMEOUT_MS / 1000 + 0.1 + 1e-9


def test_a_group_named_twice_is_read_once(clock):
    reads = Reads(clock, cost_s=0.0, failures=lambda batch: 0)
    answers = reads._read_groups("reading", reads.answer, ["b", "a", "b"])
    assert answers == [{"b": 1, "a": 1}]
