"""kafka-python's protocol layer, loaded without the rest of kafka-python.

The package's ``__init__`` imports its consumer, producer, serializers and record formats
before anything else, none of which the tools use. :func:`prepare` registers the package without
running that ``__init__`` (packages.py says how, and what an application that imports
kafka-python itself then gets), so that ``from kafka.admin import KafkaAdminClient`` (and the
other ``kafka.*`` imports of this layer) load only the modules they name.
:class:`~kafka_groups.access.connection.Connection` registers it when it is made, so that an
application that builds one (``PolicyConsumer`` does) and then imports kafka-python itself gets
this package.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from kafka_groups.access.packages import defer_init

PACKAGE = "kafka"


def prepare() -> None:
    """Register kafka-python's package, its ``__init__`` not yet run (a no-op once imported)."""
    if PACKAGE in sys.modules:
        return
    defer_init(PACKAGE)
    # What the package's __init__ does first: its loggers stay quiet unless configured.
    logging.getLogger(PACKAGE).addHandler(logging.NullHandler())


def admin_client(config: dict[str, Any]) -> Any:
    """kafka-python's ``KafkaAdminClient`` with its network thread started. A bootstrap that
    times out (``bootstrap_timeout_ms``) does not raise: the client is left with ``bootstrapped``
    false and the error in ``bootstrap_error``, to be bootstrapped again (``bootstrap(ms)``, which
    raises when it times out) or closed."""
    prepare()
    from kafka.admin import KafkaAdminClient
    from kafka.errors import KafkaTimeoutError

    class Admin(KafkaAdminClient):  # type: ignore[misc]
        bootstrap_error: KafkaTimeoutError | None = None

        def __init__(self, **settings: Any) -> None:
            try:
                super().__init__(**settings)
            except KafkaTimeoutError as exc:  # raised by the bootstrap, the constructor's last step
                if not hasattr(self, "_manager"):
                    raise
                self.bootstrap_error = exc
                self._closed = False
                self._controller_id = None

        @property
        def bootstrapped(self) -> bool:
            return bool(self._manager.bootstrapped)

        def bootstrap(self, timeout_ms: int) -> None:
            self._manager.bootstrap(timeout_ms)

    return Admin(**config)
