"""Watch mode's output: one JSON document per refresh (JSON Lines), the Apache text block per
refresh under a separator line, or a live Rich view redrawn in place on a terminal.

Rich is imported only by :class:`LiveScreen`, so the piped forms load none of it.
"""

from __future__ import annotations

import json as _json
import time
from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, TextIO

from kafka_groups.core.watch import (
    CatchUp,
    DescribeFrame,
    GroupTotals,
    ListFrame,
    PartitionWatch,
    WatchedGroup,
)
from kafka_groups.escape import escape_controls

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live

DESCRIBE_SCHEMA = "kafka-group-tools/group-watch/v1"
LIST_SCHEMA = "kafka-group-tools/group-list-watch/v1"
Frame = DescribeFrame | ListFrame


def iso_utc(ms: int) -> str:
    """2026-11-24T03:55:00.123Z"""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


def _clock(ms: int | None) -> str:
    return "-" if ms is None else time.strftime("%H:%M:%S", time.gmtime(ms // 1000))


def _stamp(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ms // 1000))


def _rate(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _partition_json(p: PartitionWatch) -> dict[str, Any]:
    s = p.sample
    return {
        "topic": s.topic,
        "partition": s.partition,
        "current_offset": s.current_offset,
        "log_end_offset": s.log_end_offset,
        "lag": s.lag,
        "lag_delta": p.lag_delta,
        "consume_rate": _rate(p.consume_rate),
        "produce_rate": _rate(p.produce_rate),
        "rate_window_s": _rate(p.rate_window_s),
        "catch_up": p.catch_up.value,
        "catch_up_s": _rate(p.catch_up_s),
        # Lag in time (issue 22, item 2): null until it is measured for watch mode.
        "lag_time_ms": p.lag_time_ms,
    }


def _totals_json(t: GroupTotals) -> dict[str, Any]:
    return {
        "lag": t.lag,
        "lag_delta": t.lag_delta,
        "consume_rate": _rate(t.consume_rate),
        "produce_rate": _rate(t.produce_rate),
        "catch_up": t.catch_up.value,
        "catch_up_s": _rate(t.catch_up_s),
    }


def _frame_head(schema: str, frame: Frame) -> dict[str, Any]:
    return {
        "schema": schema,
        "timestamp": iso_utc(frame.timestamp_ms),
        "timestamp_ms": frame.timestamp_ms,
        "elapsed_s": frame.elapsed_s,
        "interval_s": frame.interval_s,
        "error": frame.error,
    }


def describe_json(frame: DescribeFrame) -> dict[str, Any]:
    """One document of the stream; a failed refresh carries its error and no data (null)."""
    doc = _frame_head(DESCRIBE_SCHEMA, frame)
    if frame.error is not None:
        doc.update(groups=None, missing_groups=None)
        return doc
    doc["groups"] = [group_json(g) for g in frame.groups]
    doc["missing_groups"] = list(frame.missing)
    return doc


def group_json(g: WatchedGroup) -> dict[str, Any]:
    return {
        "group": g.group,
        "state": g.state,
        **_totals_json(g.totals),
        "partitions": [_partition_json(p) for p in g.partitions],
    }


def _dumps(value: object) -> str:
    return _json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def describe_json_start(frame: DescribeFrame) -> str:
    """The line of a good refresh written in parts (the same characters as :func:`json_line` of
    :func:`describe_json`): this, then :func:`describe_json_groups` of each part, then
    :func:`describe_json_end`."""
    return _dumps(_frame_head(DESCRIBE_SCHEMA, frame))[:-1] + ',"groups":['


def describe_json_groups(groups: Sequence[WatchedGroup], first: bool) -> str:
    text = ",".join(_dumps(group_json(g)) for g in groups)
    return text if first or not text else "," + text


def describe_json_end(missing: Sequence[str]) -> str:
    return '],"missing_groups":' + _dumps(list(missing)) + "}\n"


def list_json(frame: ListFrame) -> dict[str, Any]:
    doc = _frame_head(LIST_SCHEMA, frame)
    if frame.error is not None:
        doc.update(groups=None, appeared=None, disappeared=None, changed=None)
        return doc
    doc["groups"] = [{"group": g.group_id, "type": g.type, "state": g.state} for g in frame.groups]
    doc.update(
        appeared=list(frame.appeared), disappeared=list(frame.disappeared), changed=list(frame.changed)
    )
    return doc


def json_line(doc: dict[str, Any]) -> str:
    return _dumps(doc) + "\n"


def separator(frame: Frame) -> str:
    """The line above each text block, in the manner of watch(1)'s header."""
    line = f"Every {frame.interval_s:g}s: {iso_utc(frame.timestamp_ms)}"
    if frame.error is not None:
        line += f": refresh failed: {frame.error}"
    return escape_controls(line) + "\n"


# --- a person at a terminal ---------------------------------------------------------------


def _int(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _delta(value: int | None) -> str:
    return "-" if value is None else f"{value:+,}" if value else "0"


def _per_s(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.1f}/s" if value < 1000 else f"{value:,.0f}/s"


def duration(seconds: float) -> str:
    """4s, 3m 20s, 2h 05m, 3d 04h."""
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h {s % 3600 // 60:02d}m"
    return f"{s // 86400}d {s % 86400 // 3600:02d}h"


def catch_up_text(state: CatchUp, seconds: float | None) -> str:
    if state is CatchUp.CATCHING_UP and seconds is not None:
        return duration(seconds)
    return {CatchUp.CAUGHT_UP: "caught up", CatchUp.NOT_CATCHING_UP: "not catching up"}.get(state, "-")


COLUMNS: tuple[str, ...] = ("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG")
COLUMNS += ("LAG-DELTA", "CONSUME", "PRODUCE", "CATCH-UP")


def describe_rows(frame: DescribeFrame) -> tuple[list[str], list[list[str]], list[str]]:
    """Columns, rows and row styles of the live table (a LAG-TIME column when it is measured)."""
    with_lag_time = any(p.lag_time_ms is not None for g in frame.groups for p in g.partitions)
    columns = [*COLUMNS, "LAG-TIME"] if with_lag_time else list(COLUMNS)
    rows: list[list[str]] = []
    styles: list[str] = []
    for group in frame.groups:
        for p in group.partitions:
            s = p.sample
            cells = [s.group, s.topic, str(s.partition), _int(s.current_offset), _int(s.log_end_offset)]
            cells += [_int(s.lag), _delta(p.lag_delta), _per_s(p.consume_rate), _per_s(p.produce_rate)]
            cells.append(catch_up_text(p.catch_up, p.catch_up_s))
            if with_lag_time:
                cells.append("-" if p.lag_time_ms is None else duration(p.lag_time_ms / 1000))
            rows.append(cells)
            styles.append("red" if p.catch_up is CatchUp.NOT_CATCHING_UP else "")
    return columns, rows, styles


def describe_header(frame: DescribeFrame) -> str:
    parts = [f"Every {frame.interval_s:g}s", _stamp(frame.timestamp_ms)]
    partitions = [p for g in frame.groups for p in g.partitions]
    parts.append(f"{len(frame.groups)} group(s), {len(partitions)} partition(s)")
    if partitions:
        from kafka_groups.core.watch import totals

        t = totals(partitions)
        parts.append(f"lag {_int(t.lag)} ({_delta(t.lag_delta)})")
        parts.append(f"consume {_per_s(t.consume_rate)}, produce {_per_s(t.produce_rate)}")
        parts.append(f"catch-up {catch_up_text(t.catch_up, t.catch_up_s)}")
    return "  ·  ".join(parts)


def status_line(frame: Frame) -> str | None:
    if frame.error is not None:
        shown = (
            f"showing data from {_clock(frame.data_timestamp_ms)}"
            if frame.data_timestamp_ms
            else "no data yet"
        )
        return f"Refresh at {_clock(frame.timestamp_ms)} failed: {frame.error} ({shown}; still trying)"
    if isinstance(frame, DescribeFrame) and frame.missing:
        names = ", ".join(f"'{g}'" for g in frame.missing)
        return f"No such group (yet): {names}"
    return None


def list_header(frame: ListFrame) -> str:
    parts = [f"Every {frame.interval_s:g}s", _stamp(frame.timestamp_ms)]
    parts.append(f"{len(frame.groups)} group(s)")
    if frame.appeared or frame.disappeared or frame.changed:
        parts.append(
            f"+{len(frame.appeared)} -{len(frame.disappeared)} ~{len(frame.changed)} since last refresh"
        )
    return "  ·  ".join(parts)


class LiveScreen:
    """The Rich view, redrawn in place on each refresh; the cursor comes back on exit. Asked
    for where no terminal is (``--output table`` into a pipe or a file), each refresh is printed
    below the last instead: a view redrawn in place would show nothing there until the end."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._live: Live | None = None
        self._blocks: Console | None = None  # no terminal: each refresh printed as a block

    def __enter__(self) -> LiveScreen:
        from rich.console import Console
        from rich.live import Live
        from rich.text import Text

        console = Console(file=self._stream, highlight=False)
        if not console.is_terminal:
            self._blocks = console
            return self
        waiting = Text("Reading the groups… (Ctrl-C to stop)", style="dim")
        self._live = Live(
            waiting, console=console, auto_refresh=False, redirect_stdout=False, redirect_stderr=False
        )
        self._live.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._live is not None:
            self._live.stop()

    def show(self, frame: Frame) -> None:
        if self._blocks is not None:
            self._blocks.print(self._renderable(frame))
            self._stream.flush()
            return
        assert self._live is not None
        self._live.update(self._renderable(frame), refresh=True)

    def _renderable(self, frame: Frame) -> RenderableType:
        from rich import box
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        parts: list[RenderableType] = []
        header = describe_header(frame) if isinstance(frame, DescribeFrame) else list_header(frame)
        parts.append(Text(header, style="bold"))
        status = status_line(frame)
        if status is not None:
            parts.append(Text(escape_controls(status), style="red" if frame.error else "yellow"))
        table = Table(box=box.SIMPLE_HEAD)
        if isinstance(frame, DescribeFrame):
            columns, rows, styles = describe_rows(frame)
        else:
            columns, rows, styles = list_rows(frame)
        for i, name in enumerate(columns):
            table.add_column(
                name, overflow="fold", justify="right" if i >= 2 and rows_numeric(frame) else "left"
            )
        for cells, style in zip(rows, styles, strict=True):
            table.add_row(*(Text(escape_controls(c)) for c in cells), style=style or None)
        parts.append(table)
        parts.append(Text("Ctrl-C to stop", style="dim"))
        return Group(*parts)


def rows_numeric(frame: Frame) -> bool:
    return isinstance(frame, DescribeFrame)


def list_rows(frame: ListFrame) -> tuple[list[str], list[list[str]], list[str]]:
    appeared, changed = set(frame.appeared), set(frame.changed)
    groups = sorted(frame.groups, key=lambda g: g.group_id)
    rows = [[g.group_id, g.type, g.state] for g in groups]
    styles = [
        "green" if g.group_id in appeared else "yellow" if g.group_id in changed else "" for g in groups
    ]
    rows += [[g, "-", "(gone)"] for g in frame.disappeared]
    styles += ["dim" for _ in frame.disappeared]
    return ["GROUP", "TYPE", "STATE"], rows, styles
