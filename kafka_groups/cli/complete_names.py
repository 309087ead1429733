"""Live group and topic names for completion, from the cluster named on the line (or in the
environment), through a short on-disk cache and within the TAB's time budget: whatever hangs,
the shell gets its answer in time.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kafka_groups.cli.complete import Line


class NameSource:
    """Live names for the cluster named on the line (or in the environment), through a short
    on-disk cache; never raises."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ

    def _connection(self, line: Line) -> tuple[str | None, str | None]:
        return line.values.get("bootstrap-server"), line.values.get("command-config")

    def lookup(self, kind: str, line: Line) -> list[str]:
        found = self._fetch(kind, line)
        return sorted(found) if isinstance(found, (list, dict)) else []

    def topics(self, line: Line) -> dict[str, int]:
        found = self._fetch("topics", line)
        return {str(k): int(v) for k, v in found.items()} if isinstance(found, dict) else {}

    def _fetch(self, kind: str, line: Line) -> object:
        import time

        from kafka_groups.cli import name_cache

        # From here on nothing may hold the TAB past its budget: the settings name files, the
        # cache is a file, the cluster may not answer.
        left = tab_budget_s(self.environ) - _process_age_s()
        _hard_stop(max(left, 0.0))
        deadline = time.monotonic() + left - LOOKUP_MARGIN_S
        bootstrap, config = self._connection(line)
        try:
            from kafka_groups.settings import resolve_settings

            # Files named by settings are read only when regular (never stdin, a FIFO or a device).
            cluster = line.values.get("cluster")
            settings = resolve_settings(bootstrap, config, 1000, environ=self.environ, cluster=cluster)
        except Exception:
            return None
        key = name_cache.key_of(settings)
        cached = name_cache.read(key, kind, self.environ)
        if cached is not None:
            return cached
        from kafka_groups.access.names import REFUSED, list_names

        found = list_names(settings, kind, deadline)
        if found == REFUSED:
            name_cache.forget(key, self.environ)
            return None
        if found is not None:
            name_cache.write(key, kind, found, self.environ)
        return found


# The whole TAB, counted from the process start, ends within this; a live lookup gets what
# is left of it less a margin for printing and exiting. KAFKA_TOOLS_TAB_BUDGET_MS sets another
# (a cluster far away, a slow machine); a value that is not a positive whole number is ignored,
# as a TAB never prints an error.
TAB_BUDGET_S = 0.95
ENV_TAB_BUDGET = "KAFKA_TOOLS_TAB_BUDGET_MS"
LOOKUP_MARGIN_S = 0.15


def tab_budget_s(environ: Mapping[str, str]) -> float:
    from kafka_groups.timeouts import whole_ms

    given = whole_ms(environ.get(ENV_TAB_BUDGET, ""), 600_000)
    return TAB_BUDGET_S if given is None else given / 1000.0


def _process_age_s() -> float:
    """Seconds since this process started (0 where /proc cannot tell)."""
    try:
        with open("/proc/self/stat") as f:
            started_ticks = int(f.read().rpartition(")")[2].split()[19])
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(uptime - started_ticks / os.sysconf("SC_CLK_TCK"), 0.0)
    except (OSError, ValueError, IndexError):
        return 0.0


_stopping: list[object] = []  # the timer, once started


def _hard_stop(after_s: float) -> None:
    """Whatever hangs (a paused broker, a slow disk), the shell gets its answer: the process
    ends silently ``after_s`` from now (once per process)."""
    import threading

    if _stopping:
        return
    killer = threading.Timer(after_s, lambda: os._exit(0))
    killer.daemon = True
    killer.start()
    _stopping.append(killer)
