"""The one way a command reaches the cluster: resolve the connection settings, open the
access, always close it. Any failure raised inside carries the settings' secrets, so that the
entry point scrubs them from what it prints (there is no process-wide list of secrets)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from kafka_groups.secrets import ScrubFilter, attach_secrets
from kafka_groups.settings import ConnectionArgs, ConnectionSettings

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess


@contextmanager
def cluster_session(
    connection: ConnectionArgs | ConnectionSettings,
    adjust: Callable[[ConnectionSettings], ConnectionSettings] | None = None,
    writes: bool = False,
) -> Iterator[KafkaAccess]:
    """``with cluster_session(self.connection) as access: ...``: the access, closed on the
    way out. ``adjust`` changes the resolved settings first (kafka-topics' API timeout).
    ``writes``: the command will write, so a protected cluster that cannot be confirmed is
    refused now, before anything is contacted (commands/target.py)."""
    settings = connection if isinstance(connection, ConnectionSettings) else connection.resolve()
    if adjust is not None:
        settings = adjust(settings)
    if writes:
        from kafka_groups.commands.target import refuse_unconfirmable

        refuse_unconfirmable(settings)
    from kafka_groups.access.cluster import KafkaAccess

    try:
        with _scrubbed_logs(settings.secrets):
            access = KafkaAccess(settings)
            try:
                yield access
            finally:
                access.close()
    except BaseException as exc:
        attach_secrets(exc, settings.secrets)
        raise


@contextmanager
def describing(what: str, connection: ConnectionArgs, lists: bool) -> Iterator[KafkaAccess]:
    """A describe's session: ``cluster_session`` with the "Describing …" spinner while the
    groups are listed (``lists``: the selection asks the cluster which groups there are)."""
    from kafka_groups.render.progress import working

    with cluster_session(connection) as access, working(f"Describing {what}…", enabled=lists):
        yield access


@contextmanager
def _scrubbed_logs(secrets: frozenset[str]) -> Iterator[None]:
    """While the session lasts, the log handlers the entry point set up (``--debug``) scrub
    this session's secrets; nothing is left behind on the handlers afterwards."""
    handlers = list(logging.getLogger().handlers)
    if not secrets or not handlers:
        yield
        return
    scrubber = ScrubFilter(secrets)
    for handler in handlers:
        handler.addFilter(scrubber)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(scrubber)
