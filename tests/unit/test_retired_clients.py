"""kafka_groups/access/clients.py: with the garbage collector off, a retired client is freed by the
sweep itself, whatever still held it: nothing (freed at once), a reference cycle (the sweep runs
the collector), something alive (kept until let go); and not while an exception is on its way."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import ClassVar

import pytest

from kafka_groups.access import clients


class Client:
    """Stands for an AdminClient: records that it was freed, and on which thread."""

    freed_on: ClassVar[list[str]] = []

    def __del__(self) -> None:
        Client.freed_on.append(threading.current_thread().name)


@pytest.fixture(autouse=True)
def isolated(monkeypatch) -> Iterator[list[int]]:
    """An empty registry, the collector off (it must not free anything behind the sweep's back),
    and a count of the collector runs the sweep asks for."""
    monkeypatch.setattr(clients, "_RETIRED", [])
    Client.freed_on = []
    runs: list[int] = []
    real = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: runs.append(1) or real(*a))
    enabled = gc.isenabled()
    gc.disable()
    yield runs
    if enabled:
        gc.enable()


def test_a_client_nothing_else_holds_is_freed_without_running_the_collector(isolated):
    clients.retire(Client())
    assert Client.freed_on == []
    clients.sweep()
    assert Client.freed_on == [threading.current_thread().name]
    assert clients.retired() == 0
    assert isolated == []


def retire_one_in_a_cycle() -> None:
    """A retired client that a reference cycle holds once this returns (the collector is off)."""
    client = Client()
    cycle: list[object] = [client]
    cycle.append(cycle)
    clients.retire(client)


def test_a_client_in_a_reference_cycle_is_freed_on_the_sweeping_thread(isolated):
    retire_one_in_a_cycle()
    clients.sweep()
    assert Client.freed_on == [threading.current_thread().name]
    assert clients.retired() == 0
    assert len(isolated) == 1


def test_a_client_something_alive_holds_stays_retired_until_let_go(isolated):
    client = Client()
    clients.retire(client)
    clients.sweep()
    assert Client.freed_on == []
    assert clients.retired() == 1
    del client
    clients.sweep()
    assert Client.freed_on == [threading.current_thread().name]
    assert clients.retired() == 0


def test_with_an_exception_on_its_way_the_collector_waits_for_the_next_sweep(isolated):
    """What the exception's traceback holds cannot be freed while it propagates: the collector
    would run for nothing. The sweep after the exception is handled frees it."""

    def fails(client: Client) -> None:
        raise RuntimeError("the request failed")

    client = Client()
    clients.retire(client)
    try:
        try:
            fails(client)
        finally:
            del client
            clients.sweep()
            assert isolated == []
            assert clients.retired() == 1
    except RuntimeError:
        pass
    clients.sweep()
    assert Client.freed_on == [threading.current_thread().name]
    assert clients.retired() == 0


def test_many_clients_each_freed_once(isolated):
    kept = [Client() for _ in range(3)]
    for client in [*kept, Client(), Client()]:
        clients.retire(client)
    del client
    clients.sweep()
    assert len(Client.freed_on) == 2
    assert clients.retired() == 3
    kept.clear()
    clients.sweep()
    assert len(Client.freed_on) == 5
    assert clients.retired() == 0


def test_a_client_retired_twice_is_freed_once(isolated):
    client = Client()
    clients.retire(client)
    clients.retire(client)
    del client
    clients.sweep()
    assert Client.freed_on  # the two entries did not hold each other
    assert clients.retired() == 0
    assert isolated == []


def test_a_sweep_on_another_thread_frees_there(isolated):
    """The thread that sweeps is the one that frees: the tools sweep on their main thread."""
    retire_one_in_a_cycle()
    sweeper = threading.Thread(target=clients.sweep, name="sweeper")
    sweeper.start()
    sweeper.join()
    assert Client.freed_on == ["sweeper"]


def test_a_sweep_that_does_not_wait_frees_on_a_thread_of_its_own_and_settle_waits(isolated):
    """A command's connection is freed while the command goes on to print: not on the caller's
    thread (nor librdkafka's), and ``settle`` returns only once it is freed."""
    release = threading.Event()

    class Slow(Client):
        def __del__(self) -> None:
            release.wait(5)  # freeing takes a while, as librdkafka's does after a large topic
            super().__del__()

    clients.retire(Slow())
    clients.sweep(wait=False)
    assert clients.retired() == 0
    assert Client.freed_on == []  # the caller went on before the client was freed
    release.set()
    clients.settle()
    assert Client.freed_on == ["kafka-groups-free-clients"]
    clients.settle()  # nothing left to wait for


def test_a_sweep_that_does_not_wait_still_keeps_what_something_alive_holds(isolated):
    client = Client()
    clients.retire(client)
    clients.sweep(wait=False)
    clients.settle()
    assert Client.freed_on == []
    assert clients.retired() == 1
