"""Retrying what a failover makes fail for a while, in one place for every command.

While a broker dies, restarts or hands a role over, Kafka answers for a few seconds with
conditions that pass by themselves: a group's coordinator is loading or has moved, a partition
has no leader or a stale one, the metadata still names the dead broker, a connection is refused.
An attempt that meets one of them is made again, with exponential backoff and jitter, until it
succeeds, fails with an error that retrying cannot change, or the command's deadline (its
``--timeout``) passes; then the error names what was missing ("the coordinator of group 'g'",
"the log end offset of orders-3"), never just "cannot reach the cluster".

The API, for the commands' access layer and the pipeline alike:

- :class:`Deadline` -- when to give up, from the timeout in milliseconds;
- :class:`Unavailable` -- what an attempt raises for a retriable condition it saw itself
  (a per-partition error code, a sentinel offset), naming what is missing;
- :func:`is_retriable` -- whether a client library's exception is worth another attempt;
- :func:`retry_until` -- run an attempt until it succeeds, fails for good, or time is up
  (then :class:`NotAvailableInTime`, a one-line ``ClusterError``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from kafka_groups.errors import ClusterError
from kafka_groups.timeouts import LONGEST_CALL_S

T = TypeVar("T")

# Kafka protocol error codes that a client retries (the Java client's RetriableException
# subclasses that a read or an offset commit can meet during a failover).
RETRIABLE_KAFKA_CODES: dict[int, str] = {
    5: "LEADER_NOT_AVAILABLE",
    6: "NOT_LEADER_OR_FOLLOWER",
    7: "REQUEST_TIMED_OUT",
    13: "NETWORK_EXCEPTION",
    14: "COORDINATOR_LOAD_IN_PROGRESS",
    15: "COORDINATOR_NOT_AVAILABLE",
    16: "NOT_COORDINATOR",
    41: "NOT_CONTROLLER",
    56: "KAFKA_STORAGE_ERROR",
    74: "FENCED_LEADER_EPOCH",
    75: "UNKNOWN_LEADER_EPOCH",
    78: "OFFSET_NOT_AVAILABLE",
    80: "PREFERRED_LEADER_NOT_AVAILABLE",
}

# librdkafka's own (negative) error codes for the same conditions seen from the client: no
# connection, no answer in time, no coordinator yet, metadata still being fetched.
RETRIABLE_LIBRDKAFKA_CODES: dict[int, str] = {
    -195: "_TRANSPORT",
    -193: "_RESOLVE",
    -187: "_ALL_BROKERS_DOWN",
    -185: "_TIMED_OUT",
    -180: "_WAIT_COORD",
    -178: "_IN_PROGRESS",
    -166: "_TIMED_OUT_QUEUE",
    -164: "_WAIT_CACHE",
    -153: "_RETRY",
    -146: "_UNKNOWN_BROKER",
}

# Negative values a per-partition offset lookup answers with when it has no offset to give:
# -1001 is librdkafka's OFFSET_INVALID, -1 / -2 the latest / earliest specs echoed back. None of
# them is ever an offset; the access layer treats them as "unknown" (retried, then named).
OFFSET_SENTINELS = frozenset({-1001, -1, -2, -3})

FIRST_BACKOFF_S = 0.05
MAX_BACKOFF_S = 1.0


def is_sentinel(offset: int | None) -> bool:
    """True when ``offset`` is not an offset at all (None or any negative value)."""
    return offset is None or offset < 0


class Deadline:
    """When an operation gives up: ``timeout_ms`` after it was made."""

    def __init__(self, timeout_ms: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.timeout_ms = max(timeout_ms, 0)
        self._clock = clock
        self._end = clock() + self.timeout_ms / 1000.0

    def remaining_s(self) -> float:
        """What is left, as one call's wait: at most what the clients take for one call (a
        longer deadline is several calls)."""
        return min(max(self._end - self._clock(), 0.0), LONGEST_CALL_S)

    def remaining_ms(self) -> int:
        return int(self.remaining_s() * 1000)

    @property
    def expired(self) -> bool:
        return self.remaining_s() <= 0.0


class Unavailable(ClusterError):
    """An attempt met a retriable condition. ``missing`` names what it could not get (the
    coordinator of group 'g', the leader of orders-3); ``reason`` says why, in a few words.
    :func:`retry_until` retries it; should one ever escape, it is still a one-line error."""

    def __init__(self, missing: str, reason: str) -> None:
        super().__init__(f"{missing} not available ({reason})")
        self.missing = missing
        self.reason = reason


class NotAvailableInTime(ClusterError):
    """The deadline passed with something still missing; the message names it."""

    def __init__(self, missing: str, reason: str, timeout_ms: int) -> None:
        super().__init__(f"{missing} not available within {timeout_ms} ms ({reason})")
        self.missing = missing
        self.reason = reason


def retriable_code(code: int | None) -> bool:
    """Whether a Kafka or librdkafka error code names a condition that passes by itself."""
    return code is not None and (code in RETRIABLE_KAFKA_CODES or code in RETRIABLE_LIBRDKAFKA_CODES)


def error_code(exc: BaseException) -> int | None:
    """The error code carried by a confluent-kafka KafkaException / KafkaError or a kafka-python
    error, if any."""
    error: Any = exc.args[0] if exc.args and hasattr(exc.args[0], "code") else exc
    code = getattr(error, "code", None)
    if callable(code):  # confluent-kafka's KafkaError.code()
        code = code()
    if isinstance(code, int):
        return code
    errno = getattr(exc, "errno", None)  # kafka-python's BrokerResponseError
    return errno if isinstance(errno, int) and getattr(exc, "__module__", "").startswith("kafka") else None


def is_retriable(exc: BaseException) -> bool:
    """Whether another attempt may succeed where ``exc`` failed: a retriable Kafka or librdkafka
    code, a kafka-python error that says it is retriable or that the metadata is stale, or a
    connection the operating system refused or reset."""
    if isinstance(exc, Unavailable):
        return True
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return True
    code = error_code(exc)
    if code is not None and code != -1:
        return retriable_code(code)
    return bool(getattr(exc, "retriable", False) or getattr(exc, "invalid_metadata", False))


def describe_error(exc: BaseException) -> str:
    """A few words for a retriable library error: the protocol name and the library's text."""
    code = error_code(exc)
    name = RETRIABLE_KAFKA_CODES.get(code or 0) or RETRIABLE_LIBRDKAFKA_CODES.get(code or 0)
    error: Any = exc.args[0] if exc.args else exc
    text = error.str() if hasattr(error, "str") else str(error)
    text = str(text).strip() or type(exc).__name__
    if "ECONNREFUSED" in text or "Connection refused" in text:
        return "connection refused"
    if type(exc).__name__ == "NodeNotReadyError":  # kafka-python, backing off after a failure
        return f"broker {text.removeprefix('NodeNotReadyError: ')} not reachable yet"
    return f"{name}: {text}" if name and name not in text else text


def backoff_s(attempt: int, rng: Callable[[], float] | None = None) -> float:
    """The pause after failed attempt number ``attempt`` (1, 2, ...): exponential from 50 ms,
    at most 1 s, with +/-20 % jitter so that many clients do not retry in step."""
    base = min(FIRST_BACKOFF_S * 2.0 ** min(max(attempt - 1, 0), 64), MAX_BACKOFF_S)
    if rng is None:
        import random  # at the first retry: a command that needs none does not load it

        rng = random.random
    return base * (0.8 + 0.4 * rng())


def retry_until(
    attempt: Callable[[Deadline], T],
    deadline: Deadline,
    what: str,
    *,
    on_retry: Callable[[Unavailable], None] | None = None,
    retriable: Callable[[BaseException], bool] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    rng: Callable[[], float] | None = None,
) -> T:
    """Run ``attempt(deadline)`` until it returns, raises an error that is not retriable (which
    propagates unchanged), or ``deadline`` passes (:class:`NotAvailableInTime`, naming what the
    last attempt missed). ``what`` names what is missing when a library error does not say it
    (e.g. "the cluster metadata"). ``on_retry`` runs before each pause (refresh metadata, forget
    a cached coordinator). ``retriable`` narrows what is tried again (default
    :func:`is_retriable`; a write whose outcome a lost answer would leave unknown retries only
    what the broker refused). The pauses never reach past the deadline."""
    worth_retrying = retriable or is_retriable
    tries = 0
    while True:
        tries += 1
        try:
            return attempt(deadline)
        except Exception as exc:
            if not worth_retrying(exc):
                raise
            missing = exc if isinstance(exc, Unavailable) else Unavailable(what, describe_error(exc))
        pause = min(backoff_s(tries, rng), deadline.remaining_s())
        if deadline.expired or pause <= 0:
            raise NotAvailableInTime(missing.missing, missing.reason, deadline.timeout_ms) from None
        if on_retry is not None:
            on_retry(missing)
        sleep(pause)
        if deadline.expired:
            raise NotAvailableInTime(missing.missing, missing.reason, deadline.timeout_ms) from None
