"""kafka-python's protocol layer, loaded without the rest of kafka-python.

The package's ``__init__`` imports its consumer, producer, serializers and record formats
before anything else, none of which the tools use: about a quarter of what importing
``kafka.admin`` costs, paid by every command that reads committed offsets or lists groups.
:func:`prepare` registers the package without running that ``__init__``, so that
``from kafka.admin import KafkaAdminClient`` (and the other ``kafka.*`` imports of this layer)
load only the modules they name. The first name anyone in the process takes from the package
itself (``from kafka import KafkaConsumer``, ``kafka.__version__``), or ``dir(kafka)``, runs the
``__init__`` then, in full and once (threads that ask meanwhile wait for it). Until then only
the package's ``__dict__`` (``vars(kafka)``) shows less: the submodules loaded so far.
:class:`~kafka_groups.access.connection.Connection` registers it when it is made, so that an
application that builds one (``PolicyConsumer`` does) and then imports kafka-python itself gets
this package.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
import threading
from typing import Any

PACKAGE = "kafka"


def prepare() -> None:
    """Register kafka-python's package, its ``__init__`` not yet run (a no-op once imported)."""
    if PACKAGE in sys.modules:
        return
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader
    lock = threading.RLock()
    running = threading.local()  # set while this thread runs the __init__

    def run_init() -> None:
        # Once, under the lock: a thread that asks while another runs it waits here, as it
        # would for any import. The hooks stay until the __init__ is done; a name the __init__
        # itself asks for before it defines it is missing, as in any module being imported.
        if getattr(running, "now", False):
            return
        with lock:
            if "__getattr__" not in module.__dict__:
                return
            running.now = True
            try:
                loader.exec_module(module)
            finally:
                running.now = False
            del module.__dict__["__getattr__"], module.__dict__["__dir__"]

    def complete(name: str) -> object:
        # PEP 562: called for a name the module does not have yet.
        run_init()
        try:
            return module.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}") from None

    def listing() -> list[str]:
        run_init()
        return sorted(module.__dict__)

    module.__getattr__ = complete  # type: ignore[method-assign]
    module.__dir__ = listing  # type: ignore[method-assign]
    # What the package's __init__ does first: its loggers stay quiet unless configured.
    logging.getLogger(PACKAGE).addHandler(logging.NullHandler())
    sys.modules[PACKAGE] = module


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
