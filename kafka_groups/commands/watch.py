"""Watch mode: ``--describe --watch [SECONDS]`` and ``--list --watch [SECONDS]``.

One session for the whole watch: the access (and so its clients and their logins) is opened
once and every refresh reuses it. Each refresh runs the same gather step as the one-shot
command, so whatever selects the groups there selects them here. A refresh that fails (a
paused broker, a timeout) is shown as such with the last good data, and the watch goes on; only
Ctrl-C (SIGINT) or SIGTERM ends it, with exit status 0, after the line or view being written is
complete. A second signal while a refresh hangs ends it at once, still cleanly.

Where the output goes:
- a terminal: the live Rich view (``table``, the default there);
- a pipe: one JSON document per refresh (JSON Lines, the default there, and ``--output json``
  anywhere), flushed after each line;
- ``--output text``: the Apache text block per refresh under a separator line, like watch(1);
- ``--output csv`` is refused.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from types import FrameType
from typing import TYPE_CHECKING

from kafka_groups.commands.session import cluster_session
from kafka_groups.core.describe import DescribedGroup, DescribeResult, LagTimes, View
from kafka_groups.core.groups import GroupListing, GroupListResult
from kafka_groups.core.lagtime import lag_time_ms
from kafka_groups.core.watch import (
    DescribeFrame,
    ListFrame,
    PartitionSample,
    RateTracker,
    WatchedGroup,
    list_changes,
)
from kafka_groups.errors import CliError, UnsupportedByBroker, UsageError
from kafka_groups.render.watch_sinks import Frame, Sink, sink_for
from kafka_groups.secrets import scrub
from kafka_groups.settings import ConnectionArgs

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.commands.describe_groups import DescribeGroupsRequest
    from kafka_groups.commands.describe_streams import DescribeStreamsRequest
    from kafka_groups.commands.list_groups import ListGroupsRequest

log = logging.getLogger(__name__)


class _Stop:
    """SIGINT and SIGTERM: the first asks the loop to stop after what it is doing; a second one
    (a refresh hanging on a paused broker) interrupts it."""

    def __init__(self) -> None:
        self.event = threading.Event()

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.event.is_set():
            raise KeyboardInterrupt
        self.event.set()


@contextmanager
def _stop_on_signals() -> Iterator[_Stop]:
    stop = _Stop()
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass
class _Refresher:
    """What a watch does at each refresh: ``read`` one (with the one-shot command's gather step),
    or say that it ``failed`` (with the last good data). Both keep what the next one needs."""

    # None: the refresh was written as it was read (Sink.parts).
    read: Callable[[KafkaAccess, float, int, float, Sink], tuple[Frame, object] | None]
    failed: Callable[[float, int, float, str], Frame]


def _loop(connection: ConnectionArgs, interval: float, sink: Sink, refresher: _Refresher) -> None:
    started = time.monotonic()
    with _stop_on_signals() as stop:
        try:
            with cluster_session(connection) as access, sink:
                secrets = access.settings.secrets
                due = started
                while not stop.event.is_set():
                    # The rates' clock, rounded as the JSON shows it, so that a reader of the stream
                    # recomputes every rate from the documents.
                    elapsed, wall_ms = round(time.monotonic() - started, 3), _wall_ms()
                    try:
                        shown = refresher.read(access, elapsed, wall_ms, interval, sink)
                        if shown is not None:
                            sink.show(*shown)
                    except BrokenPipeError:  # the reader went away (| head): done
                        _silence_stdout()
                        return
                    except (KeyboardInterrupt, SystemExit, UnsupportedByBroker):
                        raise  # what the broker cannot do at all ends the watch, in one line
                    except Exception as exc:  # a failed refresh never ends the watch
                        log.debug("refresh failed", exc_info=True)
                        message = exc.message if isinstance(exc, CliError) else f"{type(exc).__name__}: {exc}"
                        frame = refresher.failed(elapsed, wall_ms, interval, scrub(message, secrets))
                        try:
                            sink.show(frame, None)
                        except BrokenPipeError:
                            _silence_stdout()
                            return
                    due = max(due + interval, time.monotonic())
                    while not stop.event.is_set():
                        left = due - time.monotonic()
                        if left <= 0:
                            break
                        stop.event.wait(min(left, 0.2))
        except KeyboardInterrupt:
            pass  # a second Ctrl-C: the session and the view were closed on the way out


def _silence_stdout() -> None:
    """Nothing more can reach the closed pipe; the interpreter's own flush at exit must not
    complain about it."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)


# --- --describe --watch -------------------------------------------------------------------


@dataclass
class _DescribeWatch:
    request: DescribeGroupsRequest
    tracker: RateTracker = field(default_factory=RateTracker)
    last: tuple[WatchedGroup, ...] = ()
    last_missing: tuple[str, ...] = ()
    last_ms: int | None = None

    def read(
        self, access: KafkaAccess, elapsed: float, now_ms: int, interval: float, sink: Sink
    ) -> tuple[Frame, object] | None:
        """One refresh: the groups read ``STREAM_CHUNK`` at a time, in the describe order (the
        sorted ids), with the one-shot command's own gather step (patterns and selections apply
        alike; the offsets view warns of nothing, and --health is refused before a watch
        starts). JSON Lines and text blocks are written part by part as the groups are read
        (``Sink.parts``): memory holds one part's rows and the rate window's compact history,
        whatever the number of groups. The live view shows whole frames, and gets them."""
        from kafka_groups.commands.describe_groups import STREAM_CHUNK
        from kafka_groups.commands.select import as_given, unordered_consumer_group_ids
        from kafka_groups.core.describe import java_sorted

        request = self.request
        given, listed = unordered_consumer_group_ids(access, request.selection)
        ids = java_sorted(given)
        parts = sink.parts(DescribeFrame(now_ms, elapsed, interval))
        kept: list[WatchedGroup] = []
        every: list[DescribedGroup] = []
        missing: list[str] = []
        lag_times: LagTimes | None = None
        stamps: dict[tuple[str, str, int], int] = {}
        self.tracker.begin(elapsed)
        try:
            for start in range(0, len(ids), STREAM_CHUNK):
                described, gone, lag_times = request._gather_groups(
                    access, ids[start : start + STREAM_CHUNK], View.OFFSETS, []
                )
                missing.extend(gone)
                if parts is not None:  # group by group: one group's rates and lines at a time
                    for one in described:
                        result = DescribeResult(View.OFFSETS, False, (one,), (), lag_times)
                        parts.add(self._watched([one], lag_times), result)
                    continue
                kept.extend(self._watched(described, lag_times))
                every.extend(described)
                if lag_times is not None:
                    stamps.update(lag_times.timestamps)
            self.tracker.end()
            as_given(missing, given, listed)  # named as the one-shot describe names them
            self.last_ms = now_ms
            if parts is not None:
                parts.end(missing)
                return None
        finally:
            if parts is not None:
                parts.close()
        self.last, self.last_missing = tuple(kept), tuple(missing)
        frame = DescribeFrame(now_ms, elapsed, interval, self.last, self.last_missing, None, now_ms)
        if lag_times is not None:
            lag_times = LagTimes(lag_times.now_ms, stamps)
        return frame, DescribeResult(View.OFFSETS, False, tuple(every), tuple(missing), lag_times)

    def _watched(self, described: list[DescribedGroup], lag_times: LagTimes | None) -> list[WatchedGroup]:
        samples = [
            PartitionSample(r.group, r.topic, r.partition, r.current_offset, r.log_end_offset, r.lag)
            for g in described
            for r in g.rows
        ]
        watched = iter(self.tracker.feed(samples))
        if lag_times is not None:  # --lag-time: now minus the next record's timestamp
            stamps, at = lag_times.timestamps, lag_times.now_ms
            watched = iter(
                replace(
                    w,
                    lag_time_ms=lag_time_ms(
                        stamps.get((w.sample.group, w.sample.topic, w.sample.partition)), at
                    ),
                )
                for w in watched
            )
        return [
            WatchedGroup(g.group_id, g.description.state, tuple(next(watched) for _ in g.rows))
            for g in described
        ]

    def failed(self, elapsed: float, now_ms: int, interval: float, message: str) -> Frame:
        return DescribeFrame(now_ms, elapsed, interval, self.last, self.last_missing, message, self.last_ms)


def _check_watchable(health: bool, offsets_view: bool, verbose: bool) -> None:
    """What --watch refuses: it follows the offsets view (rates only make sense there)."""
    if health:
        raise UsageError("--watch cannot be used with --health")
    if not offsets_view or verbose:
        raise UsageError(
            "--watch follows the offsets view: it cannot be used with --members, --state or --verbose"
        )


def watch_describe(request: DescribeGroupsRequest, view: View, interval: float) -> None:
    _check_watchable(request.health, view is View.OFFSETS, request.verbose)
    sink = sink_for(request.output, sys.stdout)
    state = _DescribeWatch(request)
    _loop(request.connection, interval, sink, _Refresher(state.read, state.failed))


# --- kafka-streams-groups --describe --watch --------------------------------------------


@dataclass
class _StreamsWatch:
    request: DescribeStreamsRequest
    tracker: RateTracker = field(default_factory=RateTracker)
    last: tuple[WatchedGroup, ...] = ()
    last_missing: tuple[str, ...] = ()
    last_ms: int | None = None

    def read(
        self, access: KafkaAccess, elapsed: float, now_ms: int, interval: float, sink: Sink
    ) -> tuple[Frame, object] | None:
        from kafka_groups.core.streams import StreamsDescribeResult

        described, missing = self.request._gather(access)
        # The Apache tool repeats a group named twice; a watch shows it once.
        unique = list({g.group.group_id: g for g in described}.values())
        samples = [
            PartitionSample(g.group.group_id, r.topic, r.partition, r.current_offset, r.log_end_offset, r.lag)
            for g in unique
            for r in g.rows
        ]
        watched = iter(self.tracker.update(elapsed, samples))
        groups = tuple(
            WatchedGroup(g.group.group_id, g.group.state, tuple(next(watched) for _ in g.rows))
            for g in unique
        )
        self.last, self.last_missing, self.last_ms = groups, tuple(missing), now_ms
        frame = DescribeFrame(now_ms, elapsed, interval, groups, tuple(missing), None, now_ms)
        return frame, StreamsDescribeResult("offsets", False, tuple(described), tuple(missing))

    def failed(self, elapsed: float, now_ms: int, interval: float, message: str) -> Frame:
        return DescribeFrame(now_ms, elapsed, interval, self.last, self.last_missing, message, self.last_ms)


def watch_streams(request: DescribeStreamsRequest, interval: float) -> None:
    _check_watchable(request.health, request.view == "offsets", request.verbose)
    sink = sink_for(request.output, sys.stdout)
    state = _StreamsWatch(request)
    _loop(request.connection, interval, sink, _Refresher(state.read, state.failed))


# --- --list --watch -----------------------------------------------------------------------


@dataclass
class _ListWatch:
    request: ListGroupsRequest
    states: frozenset[str]
    types: frozenset[str]
    before: dict[str, str] | None = None
    last: tuple[GroupListing, ...] = ()
    last_ms: int | None = None

    def read(
        self, access: KafkaAccess, elapsed: float, now_ms: int, interval: float, sink: Sink
    ) -> tuple[Frame, object] | None:
        chosen = self.request._chosen(access, self.states, self.types)
        now = {g.group_id: g.state for g in chosen}
        appeared, gone, changed = list_changes(self.before, now)
        self.before, self.last, self.last_ms = now, tuple(chosen), now_ms
        frame = ListFrame(
            now_ms,
            elapsed,
            interval,
            tuple(chosen),
            tuple(appeared),
            tuple(gone),
            tuple(changed),
            None,
            now_ms,
        )
        request = self.request
        result = GroupListResult(
            groups=tuple(chosen),
            show_type=request.show_type or request.group_type is not None,
            show_state=request.show_state or request.state is not None,
            streams=request.streams,
        )
        return frame, result

    def failed(self, elapsed: float, now_ms: int, interval: float, message: str) -> Frame:
        return ListFrame(now_ms, elapsed, interval, self.last, error=message, data_timestamp_ms=self.last_ms)


def watch_list(
    request: ListGroupsRequest, states: frozenset[str], types: frozenset[str], interval: float
) -> None:
    sink = sink_for(request.output, sys.stdout)
    state = _ListWatch(request, states, types)
    _loop(request.connection, interval, sink, _Refresher(state.read, state.failed))
