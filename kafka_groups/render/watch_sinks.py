"""Where watch mode's refreshes go: a sink per output format, chosen once before anything is
contacted (kafka_groups/commands/watch.py runs the refreshes). JSON Lines on a pipe, the Apache
text block per refresh, or the live Rich view on a terminal (kafka_groups/render/watch.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, TextIO

from kafka_groups.core.watch import DescribeFrame, ListFrame, WatchedGroup
from kafka_groups.errors import UsageError
from kafka_groups.render import OutputFormat, output_default

Frame = DescribeFrame | ListFrame


class Sink:
    """Where the refreshes go; a context for the live view's setup and teardown."""

    def __enter__(self) -> Sink:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def show(self, frame: Frame, result: object | None) -> None:
        raise NotImplementedError

    def parts(self, frame: DescribeFrame) -> Parts | None:
        """A good ``--describe`` refresh written part by part (None: this sink shows whole frames)."""
        return None


# What a refresh written in parts holds in memory at most; beyond it, a file of its own.
SPOOL_BYTES = 4 << 20


class Parts:
    """One ``--describe`` refresh written as its groups are read, part by part, for a watch of
    many groups: its text goes to a temporary file (in memory up to ``SPOOL_BYTES``) and reaches
    the stream only once the refresh is complete, in one piece, so that a refresh that fails half
    way writes nothing (its failure is written instead) and a line of JSON is whole or absent."""

    def __init__(self, stream: TextIO, first: str) -> None:
        import tempfile

        self.stream = stream
        # Closed by end() or close(), which the refresh calls whatever happens.
        self.spool: IO[str] = tempfile.SpooledTemporaryFile(  # noqa: SIM115
            SPOOL_BYTES, mode="w+", encoding="utf-8"
        )
        self.spool.write(first)
        self.empty = True

    def add(self, groups: Sequence[WatchedGroup], result: object) -> None:
        raise NotImplementedError

    def end(self, missing: Sequence[str]) -> None:
        """The refresh is complete: written to the stream, and flushed."""
        self.spool.seek(0)
        while piece := self.spool.read(1 << 20):
            self.stream.write(piece)
        self.stream.flush()
        self.close()

    def close(self) -> None:
        self.spool.close()


class _JsonParts(Parts):
    def add(self, groups: Sequence[WatchedGroup], result: object) -> None:
        from kafka_groups.render.watch import describe_json_groups

        if groups:
            self.spool.write(describe_json_groups(groups, self.empty))
            self.empty = False

    def end(self, missing: Sequence[str]) -> None:
        from kafka_groups.render.watch import describe_json_end

        self.spool.write(describe_json_end(missing))
        super().end(missing)


class _TextParts(Parts):
    def add(self, groups: Sequence[WatchedGroup], result: object) -> None:
        from kafka_groups.render import registry

        self.spool.write(registry.renderer_for(result).text(result))


class JsonLines(Sink):
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def parts(self, frame: DescribeFrame) -> Parts | None:
        from kafka_groups.render.watch import describe_json_start

        return _JsonParts(self.stream, describe_json_start(frame))

    def show(self, frame: Frame, result: object | None) -> None:
        from kafka_groups.render.watch import describe_json, json_line, list_json

        doc = describe_json(frame) if isinstance(frame, DescribeFrame) else list_json(frame)
        self.stream.write(json_line(doc))  # one write: a line is whole or absent
        self.stream.flush()


class TextBlocks(Sink):
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def parts(self, frame: DescribeFrame) -> Parts | None:
        from kafka_groups.render.watch import separator

        return _TextParts(self.stream, separator(frame))

    def show(self, frame: Frame, result: object | None) -> None:
        from kafka_groups.render import registry
        from kafka_groups.render.watch import separator

        block = separator(frame)
        if result is not None:
            block += registry.renderer_for(result).text(result)
        self.stream.write(block)
        self.stream.flush()


class Live(Sink):
    def __init__(self, stream: TextIO) -> None:
        from kafka_groups.render.watch import LiveScreen

        self.screen = LiveScreen(stream)

    def __enter__(self) -> Live:
        self.screen.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.screen.__exit__(None, None, None)

    def show(self, frame: Frame, result: object | None) -> None:
        self.screen.show(frame)


def sink_for(requested: OutputFormat, stream: TextIO) -> Sink:
    """The sink of ``--output`` (or, without it, of ``KAFKA_TOOLS_OUTPUT``, which the entry
    point has checked): json, text or table as asked; otherwise the live view on a terminal and
    JSON Lines anywhere else. csv is refused when asked for; as the shell's default it leaves
    the watch its own. Raises the usage error before anything is contacted."""
    fmt = requested if requested is not OutputFormat.AUTO else output_default()
    if requested is OutputFormat.AUTO and fmt is OutputFormat.CSV:
        fmt = OutputFormat.AUTO
    if fmt is OutputFormat.AUTO:
        return Live(stream) if stream.isatty() else JsonLines(stream)
    if fmt is OutputFormat.CSV:
        raise UsageError("--watch writes table, json (JSON Lines) or text, not csv")
    if fmt is OutputFormat.JSON:
        return JsonLines(stream)
    if fmt is OutputFormat.TEXT:
        return TextBlocks(stream)
    return Live(stream)
