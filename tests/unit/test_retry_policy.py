"""The retry policy (kafka_groups/access/retry.py) with plain data: a fake clock and sleep, the
client libraries' real exception types."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.access import retry
from kafka_groups.access.retry import Deadline, NotAvailableInTime, Unavailable, retry_until
from kafka_groups.errors import ClusterError


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.pauses: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0
        self.pauses.append(seconds)
        self.now += seconds


def _failing(clock: FakeClock, errors: list[BaseException], cost_s: float = 0.0):
    """An attempt that raises ``errors`` in turn (each taking ``cost_s``), then returns "ok"."""
    calls: list[float] = []

    def attempt(deadline: Deadline) -> str:
        calls.append(deadline.remaining_s())
        clock.now += cost_s
        if len(calls) <= len(errors):
            raise errors[len(calls) - 1]
        return "ok"

    return attempt, calls


@given(
    timeout_ms=st.integers(min_value=0, max_value=120_000),
    cost_ms=st.integers(min_value=0, max_value=5_000),
    jitter=st.floats(min_value=0.0, max_value=1.0),
)
def test_backoff_never_reaches_past_the_deadline(timeout_ms, cost_ms, jitter):
    clock = FakeClock()
    deadline = Deadline(timeout_ms, clock=clock)
    start = clock.now
    attempt, calls = _failing(
        clock, [Unavailable("the leader of t-0", "LEADER_NOT_AVAILABLE")] * 10_000, cost_ms / 1000
    )
    with pytest.raises(NotAvailableInTime) as raised:
        retry_until(attempt, deadline, "x", sleep=clock.sleep, rng=lambda: jitter)
    # Pauses alone never pass the deadline; the only overrun is the last attempt's own cost.
    assert sum(clock.pauses) <= timeout_ms / 1000 + 1e-9
    assert clock.now - start <= timeout_ms / 1000 + cost_ms / 1000 + 1e-9
    assert all(p <= retry.MAX_BACKOFF_S * 1.2 + 1e-9 for p in clock.pauses)
    assert len(calls) >= 1
    assert (
        raised.value.message
        == f"the leader of t-0 not available within {timeout_ms} ms (LEADER_NOT_AVAILABLE)"
    )


@given(st.integers(min_value=1, max_value=200), st.floats(min_value=0.0, max_value=1.0))
def test_backoff_grows_and_is_capped(attempt, jitter):
    pause = retry.backoff_s(attempt, rng=lambda: jitter)
    base = min(retry.FIRST_BACKOFF_S * 2 ** (attempt - 1), retry.MAX_BACKOFF_S)
    assert base * 0.8 - 1e-12 <= pause <= base * 1.2 + 1e-12
    assert retry.backoff_s(attempt + 1, rng=lambda: jitter) >= pause - 1e-12


def _non_retriable_errors() -> list[BaseException]:
    from confluent_kafka import KafkaError, KafkaException
    from kafka import errors as kerrors

    return [
        ValueError("a bug"),
        ClusterError("group 'g': not authorized"),
        KafkaException(KafkaError(29)),  # TOPIC_AUTHORIZATION_FAILED
        KafkaException(KafkaError(69)),  # GROUP_ID_NOT_FOUND
        KafkaException(KafkaError(3)),  # UNKNOWN_TOPIC_OR_PARTITION: a missing topic is not waited for
        KafkaException(KafkaError(-169)),  # _AUTHENTICATION
        KafkaException(KafkaError(-181)),  # _SSL
        kerrors.GroupAuthorizationFailedError(),
        kerrors.UnknownTopicOrPartitionError(),
        kerrors.UnsupportedVersionError(),
        kerrors.SaslAuthenticationFailedError(),
    ]


def _retriable_errors() -> list[BaseException]:
    from confluent_kafka import KafkaError, KafkaException
    from kafka import errors as kerrors

    return [
        KafkaException(KafkaError(-195, "127.0.0.1:1/bootstrap: Connect failed: Connection refused")),
        KafkaException(KafkaError(-185)),  # _TIMED_OUT
        KafkaException(KafkaError(-187)),  # _ALL_BROKERS_DOWN
        KafkaException(KafkaError(15)),  # COORDINATOR_NOT_AVAILABLE
        KafkaException(KafkaError(16)),  # NOT_COORDINATOR
        KafkaException(KafkaError(14)),  # COORDINATOR_LOAD_IN_PROGRESS
        KafkaException(KafkaError(6)),  # NOT_LEADER_OR_FOLLOWER
        kerrors.KafkaConnectionError("111 ECONNREFUSED"),
        kerrors.NodeNotReadyError(2),
        kerrors.KafkaTimeoutError(),
        kerrors.LeaderNotAvailableError(),
        kerrors.NotCoordinatorError(),
        kerrors.CoordinatorLoadInProgressError(),
        kerrors.RequestTimedOutError(),
        ConnectionRefusedError(111, "Connection refused"),
        Unavailable("the coordinator of group 'g'", "NOT_COORDINATOR"),
    ]


@pytest.mark.parametrize("error", _non_retriable_errors(), ids=repr)
def test_non_retriable_errors_are_never_retried(error):
    clock = FakeClock()
    attempt, calls = _failing(clock, [error])
    with pytest.raises(type(error)) as raised:
        retry_until(attempt, Deadline(60_000, clock=clock), "x", sleep=clock.sleep)
    assert raised.value is error
    assert len(calls) == 1
    assert clock.pauses == []


@pytest.mark.parametrize("error", _retriable_errors(), ids=repr)
def test_retriable_errors_are_retried_until_success(error):
    clock = FakeClock()
    attempt, calls = _failing(clock, [error, error])
    assert retry_until(attempt, Deadline(60_000, clock=clock), "x", sleep=clock.sleep) == "ok"
    assert len(calls) == 3
    assert len(clock.pauses) == 2


@given(st.lists(st.sampled_from(range(len(_retriable_errors()))), max_size=6), st.integers(0, 10))
def test_a_non_retriable_error_after_retriable_ones_ends_at_once(retriable_indexes, _ignored):
    retriable = [_retriable_errors()[i] for i in retriable_indexes]
    final = ValueError("not retriable")
    clock = FakeClock()
    attempt, calls = _failing(clock, [*retriable, final])
    with pytest.raises(ValueError):
        retry_until(attempt, Deadline(600_000, clock=clock), "x", sleep=clock.sleep)
    assert len(calls) == len(retriable) + 1
    assert len(clock.pauses) == len(retriable)


def test_the_message_names_what_the_last_attempt_missed():
    clock = FakeClock()
    errors: list[BaseException] = [
        Unavailable("the coordinator of group 'g'", "COORDINATOR_NOT_AVAILABLE"),
        Unavailable("the log end offset of orders-3", "its leader, broker 2, refused the connection"),
    ] * 1000
    attempt, _ = _failing(clock, errors, cost_s=0.3)
    with pytest.raises(NotAvailableInTime) as raised:
        retry_until(attempt, Deadline(2_000, clock=clock), "the cluster", sleep=clock.sleep)
    assert raised.value.missing in ("the coordinator of group 'g'", "the log end offset of orders-3")
    assert raised.value.message.startswith(raised.value.missing + " not available within 2000 ms (")
    assert isinstance(raised.value, ClusterError)


def test_a_library_error_is_named_by_the_caller_and_a_refusal_said_plainly():
    from kafka import errors as kerrors

    clock = FakeClock()
    attempt, _ = _failing(clock, [kerrors.KafkaConnectionError("111 ECONNREFUSED")] * 1000, cost_s=0.1)
    with pytest.raises(NotAvailableInTime) as raised:
        retry_until(
            attempt, Deadline(1_000, clock=clock), "the list of groups on broker 2", sleep=clock.sleep
        )
    assert (
        raised.value.message
        == "the list of groups on broker 2 not available within 1000 ms (connection refused)"
    )


def test_on_retry_runs_before_each_pause():
    clock = FakeClock()
    seen: list[str] = []
    attempt, _ = _failing(clock, [Unavailable("a", "r1"), Unavailable("b", "r2")])
    retry_until(
        attempt,
        Deadline(10_000, clock=clock),
        "x",
        sleep=clock.sleep,
        on_retry=lambda u: seen.append(u.missing),
    )
    assert seen == ["a", "b"]


def test_a_zero_deadline_makes_one_attempt():
    clock = FakeClock()
    attempt, calls = _failing(clock, [Unavailable("the leader of t-0", "LEADER_NOT_AVAILABLE")])
    with pytest.raises(NotAvailableInTime):
        retry_until(attempt, Deadline(0, clock=clock), "x", sleep=clock.sleep)
    assert len(calls) == 1 and clock.pauses == []


@given(st.integers(min_value=-10_000, max_value=10**12))
def test_sentinels_are_every_negative_value_and_none(offset):
    assert retry.is_sentinel(offset) == (offset < 0)
    assert retry.is_sentinel(None)


def test_library_errors_are_described_in_a_few_words():
    from confluent_kafka import KafkaError, KafkaException
    from kafka import errors as kerrors

    assert retry.describe_error(kerrors.KafkaConnectionError("111 ECONNREFUSED")) == "connection refused"
    assert retry.describe_error(kerrors.NodeNotReadyError(2)) == "broker 2 not reachable yet"
    refused = KafkaException(
        KafkaError(-195, "127.0.0.1:9/1: Connect to ipv4#127.0.0.1:9 failed: Connection refused")
    )
    assert retry.describe_error(refused) == "connection refused"
    assert retry.describe_error(KafkaException(KafkaError(15, "Broker: Coordinator not available"))) == (
        "COORDINATOR_NOT_AVAILABLE: Broker: Coordinator not available"
    )
