"""What the tools leave to Python's garbage collector: AdminClients they opened and let go of
without freeing them (kafka_groups/access/clients.py says why none may be).

``tracked_admin_clients`` tracks every AdminClient opened while it lasts; ``without_collector``
runs a command with the collector off, so that a client left in a reference cycle is still
there to be counted when the command returns."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pytest

T = TypeVar("T")


class Tracker:
    def __init__(self) -> None:
        self.opened: list[weakref.ref[Any]] = []

    def alive(self) -> int:
        return sum(1 for ref in self.opened if ref() is not None)


@contextmanager
def tracked_admin_clients() -> Iterator[Tracker]:
    """Every AdminClient opened while this lasts is tracked (the test helpers' too: open them
    outside it)."""
    from confluent_kafka.admin import AdminClient

    tracker = Tracker()
    real_init = AdminClient.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        tracker.opened.append(weakref.ref(self))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(AdminClient, "__init__", init)
        yield tracker


def without_collector(run: Callable[[], T]) -> T:
    enabled = gc.isenabled()
    gc.disable()
    try:
        return run()
    finally:
        if enabled:
            gc.enable()
