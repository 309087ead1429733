"""AdminClients are freed on the thread that is done with them, never on librdkafka's.

confluent-kafka delivers an AdminClient's results on librdkafka's background thread, in
Python. A client left in a reference cycle (a future whose result raised keeps the frames that
held the client, and they keep the future) is freed by Python's garbage collector, which runs on
whatever thread happens to allocate: when that is the client's own background thread, delivering
a late answer, librdkafka aborts the whole process ("rd_kafka_destroy() called from librdkafka
owned thread"). So no owner simply lets go of a client: it ``retire``s it, and ``sweep`` frees
the retired ones on the calling thread, running the garbage collector there first when anything
else still holds one. A retired client that something alive still holds stays retired (held
here, so that no collector run elsewhere can free it) until a later sweep.

Freeing a client waits for librdkafka to stop its threads and drop its metadata (about 10 ms
after a topic of 10,000 partitions), so a command's own connection is freed on a thread of this
module while the command goes on to print (``sweep(wait=False)``); ``settle`` waits for that,
and the tools' entry point calls it last.
"""

from __future__ import annotations

import gc
import sys
import threading
from typing import Any

_RETIRED: list[Any] = []
_LOCK = threading.RLock()  # a finalizer run by the collector inside sweep may retire another
_FREEING: list[threading.Thread] = []  # threads freeing clients that a sweep let go of


def retire(client: Any) -> None:
    """Its owner is done with ``client``: keep it until ``sweep`` frees it on an application thread."""
    with _LOCK:
        if not any(held is client for held in _RETIRED):
            _RETIRED.append(client)


def _refs(items: list[Any], index: int) -> int:
    return sys.getrefcount(items[index])


def _held_elsewhere() -> list[bool]:
    """For each retired client, whether anything but this module holds it. Measured against an
    object that only a list holds, through the same call, so that the count does not depend on
    how the interpreter counts its own temporary references."""
    alone = _refs([object()], 0)
    return [_refs(_RETIRED, i) > alone for i in range(len(_RETIRED))]


def sweep(wait: bool = True) -> None:
    """Free every retired client that nothing alive holds: here and now, or (not ``wait``) on a
    thread of this module, while the caller goes on (:func:`settle` waits for it). While an
    exception is being raised or handled, what its traceback holds is alive: those clients wait
    for a later sweep (the tools' entry point sweeps last, once the failure is printed)."""
    with _LOCK:
        if not _RETIRED:
            return
        if any(_held_elsewhere()) and sys.exc_info()[0] is None:
            gc.collect()  # the cycles that hold them are freed on this thread, not on librdkafka's
        held = _held_elsewhere()
        free = [client for client, kept in zip(_RETIRED, held, strict=True) if not kept]
        _RETIRED[:] = [client for client, kept in zip(_RETIRED, held, strict=True) if kept]
    if not wait and free:
        thread = threading.Thread(target=free.clear, name="kafka-groups-free-clients")
        with _LOCK:
            _FREEING.append(thread)
        thread.start()
    del free  # when not handed to the thread, the clients are freed here


def settle() -> None:
    """Wait until the clients that sweeps handed to threads are freed."""
    with _LOCK:
        threads, _FREEING[:] = list(_FREEING), []
    for thread in threads:
        thread.join()


def retired() -> int:
    """How many retired clients are still held."""
    return len(_RETIRED)
