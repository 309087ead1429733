"""The two client packages, registered without running their ``__init__`` until someone asks
the package itself for a name it has not got yet.

Both packages' ``__init__`` load far more than the tools use:

- confluent-kafka's loads its serializing producer and deserializing consumer, and with them
  the serialization framework and ``asyncio``: about two thirds of what importing
  ``confluent_kafka.admin`` costs, paid by every command.
- kafka-python's loads its consumer, producer, serializers and record formats: about a quarter
  of what importing ``kafka.admin`` costs, paid by every command that reads committed offsets or
  lists groups.

:func:`defer_init` registers a package's module in ``sys.modules`` with its ``__init__`` not yet
run, so that ``import pkg.sub`` (and ``from pkg.sub import name``) loads only the modules named.
The first name anyone in the process takes from the package itself that it does not have yet
(``from kafka import KafkaConsumer``, ``confluent_kafka.__version__``), or ``dir(pkg)``, runs the
``__init__`` then, in full and once; threads that ask meanwhile wait for it. The names the caller
lists are answered without it: each from the submodule the ``__init__`` takes it from, or a
submodule itself (``from pkg import sub`` asks the package first). Until then only the
package's ``__dict__`` (``vars(pkg)``) shows less. What an application that imports the package
after the tools did gets is therefore the whole package, a few milliseconds later.

:func:`prepare_client` does this for confluent-kafka; the names its ``__init__`` takes from the
C extension and the model module are taken from those alone (the admin client loads both
anyway). ``protocol_layer.prepare`` does it for kafka-python.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Mapping

CLIENT = "confluent_kafka"
_MISSING = object()

# What confluent-kafka's __init__ binds from its C extension and its model module, by module:
# the admin client's own __init__ takes three of them from the package, and the tools take
# others. Each is taken from its module when first asked for, the same object the __init__
# binds; one an installed version's module lacks is asked of the __init__.
CLIENT_NAMES: dict[str, tuple[str, ...]] = {
    "cimpl": (
        "OFFSET_BEGINNING",
        "OFFSET_END",
        "OFFSET_INVALID",
        "OFFSET_STORED",
        "TIMESTAMP_CREATE_TIME",
        "TIMESTAMP_LOG_APPEND_TIME",
        "TIMESTAMP_NOT_AVAILABLE",
        "Consumer",
        "KafkaError",
        "KafkaException",
        "Message",
        "Producer",
        "TopicPartition",
        "Uuid",
        "libversion",
        "version",
    ),
    "_model": (
        "ConsumerGroupState",
        "ConsumerGroupTopicPartitions",
        "ConsumerGroupType",
        "ElectionType",
        "IsolationLevel",
        "Node",
        "TopicCollection",
        "TopicPartitionInfo",
    ),
}


def defer_init(package: str, parts: Mapping[str, str] | None = None) -> None:
    """Register ``package`` with its ``__init__`` not yet run (a no-op once it is imported).
    ``parts`` maps names the ``__init__`` would take from its submodules to those submodules
    (relative to the package): asked for first, such a name is taken from there alone. A name
    mapped to itself is a submodule, imported when asked for (``from package import sub`` asks
    the package first). A subpackage's parent is imported now, as for any import of it."""
    if package in sys.modules:
        return
    spec = importlib.util.find_spec(package)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader
    lock = threading.RLock()
    running = threading.local()  # set while this thread runs the __init__
    parts = dict(parts or {})

    def run_init() -> None:
        # Once, under the lock: a thread that asks while another runs it waits here, as it
        # would for any import. The hooks stay until the __init__ is done; a name the __init__
        # itself asks for before it defines it is missing, as in any module being imported.
        if getattr(running, "now", False):
            return
        with lock:
            if "__getattr__" not in module.__dict__:
                return
            # What was set on the package before (a name taken from its module, a test's patch)
            # stays: had the __init__ run first, it would have been set over the __init__'s.
            before = {k: v for k, v in module.__dict__.items() if not k.startswith("__")}
            running.now = True
            try:
                loader.exec_module(module)
            finally:
                running.now = False
            module.__dict__.update(before)
            del module.__dict__["__getattr__"], module.__dict__["__dir__"]

    def complete(name: str) -> object:
        # PEP 562: called for a name the module does not have yet.
        if not getattr(running, "now", False) and not name.startswith("__"):
            part = parts.get(name)
            if part == name:
                return _load(f"{package}.{part}")
            if part is not None:
                value = getattr(_load(f"{package}.{part}"), name, _MISSING)
                if value is not _MISSING:
                    module.__dict__.setdefault(name, value)
                    return value
        run_init()
        try:
            return module.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    def listing() -> list[str]:
        run_init()
        return sorted(module.__dict__)

    module.__getattr__ = complete  # type: ignore[method-assign]
    module.__dir__ = listing  # type: ignore[method-assign]
    sys.modules[package] = module
    parent, _, child = package.rpartition(".")
    if parent:  # a subpackage is its parent's attribute, as the import system makes it
        setattr(sys.modules[parent], child, module)


def _load(name: str) -> object:
    """Import a module as an ``import`` statement does (``importlib.import_module`` takes
    another way, which ``python -X importtime`` does not report: the import budget tests read
    that report)."""
    __import__(name)
    return sys.modules[name]


def prepare_client() -> None:
    """Register confluent-kafka's package without its serializing clients (see above)."""
    if CLIENT in sys.modules:
        return
    parts = {name: part for part, names in CLIENT_NAMES.items() for name in names}
    # The admin client's modules take the C extension itself from the package.
    defer_init(CLIENT, parts | {"cimpl": "cimpl"})
    # Its error and serialization modules import each other, and load only in the order the
    # __init__ gives them: error first. Loaded now (a millisecond), an application that imports
    # the serializers after the tools did gets them.
    _load(f"{CLIENT}.error")
