"""Group and topic names for shell completion: one quick request, a hard time budget, and
None (never an exception) when the cluster does not answer in time."""

from __future__ import annotations

import logging
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


def list_names(settings: ConnectionSettings, kind: str, deadline: float) -> list[str] | dict[str, int] | None:
    """``groups`` and ``streams-groups``: group ids; ``topics``: topic -> partition count.
    ``deadline`` is a ``time.monotonic()`` value."""
    try:
        from confluent_kafka.admin import AdminClient

        config = _config(settings)
        if deadline - time.monotonic() <= 0.05:
            return None
        quiet = logging.getLogger("kafka_groups.librdkafka.completion")
        quiet.setLevel(logging.CRITICAL + 1)
        config |= {"socket.connection.setup.timeout.ms": 1000, "logger": quiet}
        held = [AdminClient(config)]
    except Exception:
        return None
    try:
        return _ask(held[0], kind, deadline)
    except Exception:
        return None
    finally:
        clients.retire(held.pop())
        clients.sweep()


def _ask(admin: Any, kind: str, deadline: float) -> list[str] | dict[str, int] | None:
    left = deadline - time.monotonic()
    if left <= 0.05:
        return None
    if kind == "topics":
        metadata = admin.list_topics(timeout=left)
        return {name: len(t.partitions) for name, t in metadata.topics.items()}
    future = admin.list_consumer_groups(request_timeout=left)
    # A listing with any error (a timeout, a broker down) is no list of the groups: librdkafka
    # answers a timed-out one with no group and the error beside. It is never offered or cached.
    listed = future.result(timeout=left)
    if listed.errors:
        return None
    return [g.group_id for g in listed.valid if _kind_matches(g, kind)]


def _kind_matches(listing: object, kind: str) -> bool:
    # confluent-kafka names consumer and classic groups; streams (and share) groups come as
    # UNKNOWN, so a streams lookup takes those and a consumer one leaves them out.
    group_type = str(getattr(getattr(listing, "type", None), "name", "")).upper()
    if kind == "streams-groups":
        return group_type in ("STREAMS", "UNKNOWN")
    return group_type not in ("STREAMS", "SHARE", "UNKNOWN")
