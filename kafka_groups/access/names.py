"""Group and topic names for shell completion: one quick request, a hard time budget, and
None (never an exception) when the cluster does not answer in time."""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from typing import Any

from kafka_groups.access import clients
from kafka_groups.settings import ConnectionSettings

# Properties that need the full client configuration (TLS, SASL, OAuth); without any of them
# the lookup skips loading it, which would cost more than the whole TAB may take.
_SECURITY_PREFIXES = ("security.", "ssl.", "sasl.")


def _config(settings: ConnectionSettings) -> dict[str, Any]:
    if any(k.startswith(_SECURITY_PREFIXES) for k in settings.properties):
        from kafka_groups.access.config import librdkafka_config

        return librdkafka_config(settings)
    return {"bootstrap.servers": settings.bootstrap_servers}


# What a lookup returns when the cluster refused the credentials or the TLS handshake: the names
# cached for these settings are not to be offered any more.
REFUSED = "refused"
_STEP_S = 0.02  # how often a lookup in flight looks for a refusal


class _Refused(Exception):
    pass


def list_names(
    settings: ConnectionSettings, kind: str, deadline: float
) -> list[str] | dict[str, int] | str | None:
    """``groups`` and ``streams-groups``: group ids; ``topics``: topic -> partition count;
    ``REFUSED`` when the cluster refused the login or the TLS handshake (at once, not at the
    deadline). ``deadline`` is a ``time.monotonic()`` value."""
    from kafka_groups.access.diagnose import ConnectionWatch

    watch = ConnectionWatch()
    try:
        config = _config(settings)  # first: stores that cannot be read end the TAB before a client loads
        from confluent_kafka.admin import AdminClient

        if deadline - time.monotonic() <= 0.05:
            return None
        quiet = logging.getLogger("kafka_groups.librdkafka.completion")
        quiet.setLevel(logging.CRITICAL + 1)
        config |= {"socket.connection.setup.timeout.ms": 1000, "logger": quiet, "error_cb": watch.on_error}
        held = [AdminClient(config)]
    except Exception:
        return None
    try:
        return _ask(held[0], kind, deadline, watch)
    except _Refused:
        return REFUSED
    except Exception:
        held[0].poll(0)  # serves error_cb: a refusal reported as the call gave up
        return REFUSED if watch.failed else None
    finally:
        clients.retire(held.pop())
        clients.sweep()


def _ask(admin: Any, kind: str, deadline: float, watch: Any) -> list[str] | dict[str, int] | None:
    left = deadline - time.monotonic()
    if left <= 0.05:
        return None
    if kind == "topics":
        metadata = _awaited(admin, _in_thread(lambda: admin.list_topics(timeout=left)), deadline, watch)
        return {name: len(t.partitions) for name, t in metadata.topics.items()}
    listed = _awaited(admin, admin.list_consumer_groups(request_timeout=left), deadline, watch)
    # A listing with any error (a timeout, a broker down) is no list of the groups: librdkafka
    # answers a timed-out one with no group and the error beside. It is never offered or cached.
    if listed.errors:
        return None
    return [g.group_id for g in listed.valid if _kind_matches(g, kind)]


def _awaited(admin: Any, future: concurrent.futures.Future[Any], deadline: float, watch: Any) -> Any:
    """The future's result; ``_Refused`` as soon as librdkafka reports a refused login or TLS
    handshake (its error callback, served by ``poll``)."""
    while not future.done() and time.monotonic() < deadline:
        admin.poll(0)
        if watch.failed:
            raise _Refused
        concurrent.futures.wait([future], timeout=_STEP_S)
    return future.result(timeout=max(deadline - time.monotonic(), 0.0))


def _in_thread(call: Any) -> concurrent.futures.Future[Any]:
    """A blocking call run on a thread of its own, as a future (the process ends with the TAB)."""
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def run() -> None:
        try:
            future.set_result(call())
        except BaseException as exc:
            future.set_exception(exc)

    threading.Thread(target=run, daemon=True).start()
    return future


def _kind_matches(listing: object, kind: str) -> bool:
    # confluent-kafka names consumer and classic groups; streams (and share) groups come as
    # UNKNOWN, so a streams lookup takes those and a consumer one leaves them out.
    group_type = str(getattr(getattr(listing, "type", None), "name", "")).upper()
    if kind == "streams-groups":
        return group_type in ("STREAMS", "UNKNOWN")
    return group_type not in ("STREAMS", "SHARE", "UNKNOWN")
