"""``--reset-offsets``: reads that do not depend on each other, in flight together.

A reset of thousands of partitions spends most of its time waiting for brokers, one request
after another: the group's description, the topics' leaders, the committed offsets, the log
start offsets, then the route of its commit. :class:`Ahead` starts one such call on a thread of
its own (a *lane*); the reset's sequential code takes its answer where it would have made the
call itself, so what is decided, refused and printed, and in which order, stays that of the
sequential code:

* a call taken returns what it returned on its lane, or raises what it raised there, at the
  point where the sequential code would have called it (an error of a read started early never
  comes before the errors of the steps before it);
* a call never taken (the plan went another way, an earlier step failed) is left to finish on
  its lane; only reads and the route's producer start (before any offset is written) are ever
  started ahead.

Every call on a lane runs under its own ``--timeout`` and retries, as it would alone: the
access's running deadline is kept per thread (:func:`lanes_for`), the one thing of its state an
operation holds while it runs. The clients are shared: librdkafka's AdminClient and the protocol
layer's network thread both take requests from several threads.

An interrupt (Ctrl-C, SIGTERM) reaches the main thread while it waits for a lane, as it reaches a
wait on a request (kafka_groups/interrupts.py); the lanes are daemon threads, never waited for at
exit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess

T = TypeVar("T")


class _PerThread:
    """A data descriptor: the attribute holds one value per thread and instance (the access's
    running ``_deadline``), None until a thread sets it."""

    def __init__(self) -> None:
        self._local = threading.local()

    def _values(self) -> dict[int, Any]:
        values: dict[int, Any] | None = getattr(self._local, "values", None)
        if values is None:
            values = self._local.values = {}
        return values

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:
            return self
        return self._values().get(id(instance))

    def __set__(self, instance: object, value: Any) -> None:
        values = self._values()
        if value is None:
            values.pop(id(instance), None)
        else:
            values[id(instance)] = value


_LANED: dict[type, type] = {}
_LANED_LOCK = threading.Lock()


def lanes_for(access: KafkaAccess) -> KafkaAccess:
    """Make ``access`` take calls from several threads: its running deadline becomes per thread
    (a subclass of its class with that one attribute changed). Call it on the main thread,
    outside any operation; returns the same object."""
    kind = type(access)
    if getattr(kind, "_per_thread_deadline", False):
        return access
    with _LANED_LOCK:
        laned = _LANED.get(kind)
        if laned is None:
            laned = type(
                kind.__name__,
                (kind,),
                {"_deadline": _PerThread(), "_per_thread_deadline": True, "__module__": kind.__module__},
            )
            _LANED[kind] = laned
    running = access.__dict__.pop("_deadline", None)
    access.__class__ = laned
    access._deadline = running
    return access


class Ahead(Generic[T]):
    """``call(*args)`` started now on a lane; :meth:`take` waits for it and returns its value or
    raises its exception. ``started`` False: nothing runs until :meth:`take`, which then calls
    it on the calling thread (so a caller can treat both the same)."""

    def __init__(self, call: Callable[..., T], *args: Any, started: bool = True) -> None:
        self._call = call
        self._args = args
        self._done = threading.Event()
        self._value: T | None = None
        self._error: BaseException | None = None
        self._taken = False
        self.started = started
        if started:
            threading.Thread(target=self._run, name="reset-lane", daemon=True).start()

    def _run(self) -> None:
        try:
            self._value = self._call(*self._args)
        except BaseException as exc:  # raised where it is taken
            self._error = exc
        finally:
            self._done.set()

    def done(self) -> bool:
        return self._done.is_set()

    def take(self) -> T:
        """The call's value (it ran on its lane, or runs now when it was not started)."""
        if self._taken:
            raise RuntimeError("an Ahead is taken once")
        self._taken = True
        if not self.started:
            return self._call(*self._args)
        self._done.wait()
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return self._value  # type: ignore[return-value]


def chain(first: Callable[[], T], then: Callable[[T], Any]) -> Callable[[], tuple[T, Ahead[Any]]]:
    """A lane's call that runs ``first``, then starts ``then(first's value)`` on a lane of its
    own, and returns both: ``first``'s value is ready to take as soon as it is known, while the
    call that depends on it goes on (the leaders of a topic, then its log start offsets)."""

    def run() -> tuple[T, Ahead[Any]]:
        value = first()
        return value, Ahead(then, value)

    return run
