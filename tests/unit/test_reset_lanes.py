"""The reset's reads in flight together (commands/reset_lanes.py, the ReadsAhead of
commands/reset_gather.py): values and errors come back where they are taken, each thread keeps
its own running deadline, and a read ahead is used only where it is the read the steps make."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.commands.reset_gather import ReadsAhead
from kafka_groups.commands.reset_lanes import Ahead, chain, lanes_for
from kafka_groups.core.offset_table import LeaderTable


def test_a_value_comes_back_where_it_is_taken() -> None:
    ran_on: list[str] = []

    def call(x: int) -> int:
        ran_on.append(threading.current_thread().name)
        return x * 2

    assert Ahead(call, 21).take() == 42
    assert ran_on == ["reset-lane"]


def test_an_error_is_raised_only_where_it_is_taken() -> None:
    gate = threading.Event()

    def fails() -> None:
        gate.set()
        raise ValueError("no leader")

    ahead = Ahead(fails)
    gate.wait(5)
    with pytest.raises(ValueError, match="no leader"):
        ahead.take()


def test_not_started_runs_on_the_taking_thread_and_only_then() -> None:
    calls: list[str] = []
    ahead = Ahead(lambda: calls.append(threading.current_thread().name) or 1, started=False)
    assert calls == []
    assert ahead.take() == 1
    assert calls == [threading.current_thread().name]


def test_taken_once() -> None:
    ahead = Ahead(lambda: 1)
    ahead.take()
    with pytest.raises(RuntimeError):
        ahead.take()


def test_chain_gives_the_first_value_while_the_second_runs() -> None:
    release = threading.Event()

    def second(value: int) -> int:
        release.wait(5)
        return value + 1

    first, then = Ahead(chain(lambda: 1, second)).take()
    assert first == 1
    assert not then.done()  # the first value came before the second call ended
    release.set()
    assert then.take() == 2


class Operation:
    """What Connection._retrying does with the running deadline: set it for the operation's
    length, run inside it, clear it."""

    def __init__(self) -> None:
        self._deadline: Any = None

    def run(self, label: str, inside: Any) -> Any:
        outer = self._deadline
        self._deadline = label
        try:
            return inside()
        finally:
            self._deadline = outer


def test_each_thread_keeps_its_own_running_deadline() -> None:
    access: Any = lanes_for(Operation())  # type: ignore[arg-type]
    assert isinstance(access, Operation) and type(access).__name__ == "Operation"
    assert lanes_for(access) is access  # once is enough
    seen: dict[str, Any] = {}
    inside_lane = threading.Event()
    lane_may_end = threading.Event()

    def lane_work() -> None:
        inside_lane.set()
        lane_may_end.wait(5)
        seen["lane inside"] = access._deadline

    def lane() -> None:
        seen["lane before"] = access._deadline  # the main thread's operation is running
        access.run("lane", lane_work)

    def on_main() -> None:
        lane_ahead = Ahead(lane)
        inside_lane.wait(5)
        seen["main inside"] = access._deadline
        lane_may_end.set()
        lane_ahead.take()

    access.run("main", on_main)
    assert seen == {"lane before": None, "lane inside": "lane", "main inside": "main"}
    assert access._deadline is None


def test_an_operation_running_when_lanes_start_keeps_its_deadline() -> None:
    access: Any = Operation()
    access._deadline = "running"
    lanes_for(access)
    assert access._deadline == "running"
    assert Ahead(lambda: access._deadline).take() is None


class Reads:
    """The reads ReadsAhead makes, counted; each answers from plain data."""

    def __init__(self, leaders: dict[str, LeaderTable], committed: dict[str, dict[Any, int]]) -> None:
        self.leaders = leaders
        self.committed = committed
        self.calls: list[str] = []

    def partition_leaders(self, names: set[str]) -> dict[str, LeaderTable]:
        self.calls.append("leaders")
        return {t: self.leaders[t] for t in names if t in self.leaders}

    def committed_positions(self, groups: list[str]) -> dict[str, dict[Any, int]]:
        self.calls.append("committed")
        return {g: self.committed[g] for g in groups if g in self.committed}

    def log_offsets_of(self, every: set[Any], leaders: Any, earliest: bool, latest: bool) -> Any:
        self.calls.append("log")
        return ("ends", len(every)), ("starts", len(every))


def reads_ahead(reads: Reads, whole: list[str], topics: tuple[str, ...] | None = None) -> ReadsAhead:
    ahead = ReadsAhead(reads, (True, False), committed_wanted=True)  # type: ignore[arg-type]
    every_whole = len(whole) == len(topics if topics is not None else whole)
    from kafka_groups.commands.reset_gather import _nothing

    ahead.leaders = Ahead(
        chain(lambda: reads.partition_leaders(set(whole)), ahead._offsets_of if every_whole else _nothing)
    )
    return ahead


def test_the_log_offsets_read_ahead_serve_exactly_the_whole_topics() -> None:
    big = LeaderTable([1, 2, 3] * 1000)  # 3,000 partitions, above BULK_READS_ABOVE
    reads = Reads({"t": big}, {})
    ahead = reads_ahead(reads, ["t"])
    leaders = ahead.take_leaders()
    every = {("t", p) for p in range(3000)}
    assert ahead.take_log_offsets(every - {("t", 0)}) is None  # another scope: not used
    assert ahead.take_log_offsets(every) == (("ends", 3000), ("starts", 3000))
    assert leaders == {"t": big}


def test_no_log_offsets_read_ahead_for_few_partitions_or_a_leaderless_one() -> None:
    reads = Reads({"small": LeaderTable([1] * 10)}, {})
    ahead = reads_ahead(reads, ["small"])
    ahead.take_leaders()
    assert ahead.take_log_offsets({("small", p) for p in range(10)}) is None
    leaderless = LeaderTable([1] * 2999 + [-1])
    reads = Reads({"t": leaderless}, {})
    ahead = reads_ahead(reads, ["t"])
    ahead.take_leaders()
    assert ahead.take_log_offsets({("t", p) for p in range(3000)}) is None
    assert "log" not in reads.calls  # the steps refuse it themselves


def test_topics_named_with_partitions_read_no_log_offsets_ahead() -> None:
    reads = Reads({"t": LeaderTable([1] * 3000)}, {})
    ahead = reads_ahead(reads, ["t"], topics=("t", "u:0"))
    ahead.take_leaders()
    assert ahead.take_log_offsets({("t", p) for p in range(3000)}) is None
    assert "log" not in reads.calls


@given(
    held=st.dictionaries(
        st.sampled_from([f"g{i}" for i in range(8)]),
        st.dictionaries(st.tuples(st.just("t"), st.integers(0, 5)), st.integers(0, 99), max_size=4),
        max_size=8,
    ),
    asked=st.lists(st.sampled_from([f"g{i}" for i in range(8)]), unique=True, max_size=8),
    data=st.data(),
)
def test_committed_read_ahead_equals_the_read_of_the_groups_allowed(
    held: dict[str, dict[Any, int]], asked: list[str], data: st.DataObject
) -> None:
    """Whatever groups the describe then refuses, the offsets taken for those allowed are what
    a read of the allowed groups alone answers, and a group outside those read is read again."""
    reads = Reads({}, held)
    ahead = ReadsAhead(reads, (True, False), committed_wanted=True)  # type: ignore[arg-type]
    ahead.read_committed(asked)
    allowed = data.draw(st.lists(st.sampled_from(asked), unique=True) if asked else st.just([]))
    assert ahead.has_committed(allowed) == (bool(asked) and set(allowed) <= set(asked))
    if ahead.has_committed(allowed):
        assert ahead.take_committed(allowed) == reads.committed_positions(allowed)
    outsider = "g-not-asked"
    assert not ahead.has_committed([*allowed, outsider])


def test_many_groups_are_not_read_ahead() -> None:
    reads = Reads({}, {})
    ahead = ReadsAhead(reads, (True, False), committed_wanted=True)  # type: ignore[arg-type]
    ahead.read_committed([f"g{i}" for i in range(100)])
    assert ahead.committed is None and not ahead.has_committed(["g1"])
