"""Watch mode on the real broker: the JSON Lines stream while records arrive and the group
commits between refreshes (deltas and rates recomputed from the documents' own offsets and
clocks), ``--list --watch``, a real terminal (tmux) redrawn in place, Ctrl-C and SIGTERM ending
with exit 0 and whole lines, and bad intervals refused before anything is contacted."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from kafka_groups.core.watch import RATE_WINDOW
from tests.conftest import OUR_TOOLS, ROOT
from tests.kafka_helpers import (
    Record,
    admin,
    commit_offsets,
    create_topic,
    produce,
    produce_n,
    unique,
    wait_until,
)
from tests.watch_helpers import Watch, partitions_of

pytestmark = pytest.mark.kafka


@pytest.fixture
def watches():
    started: list[Watch] = []
    yield started
    for w in started:
        w.close()


def _check_arithmetic(docs, group):
    """Every number of every document, from the offsets and elapsed_s of the documents."""
    history: dict[tuple[str, int], list[tuple[float, dict]]] = {}
    moving = 0
    for doc in docs:
        assert doc["error"] is None
        for tp, p in partitions_of(doc, group).items():
            assert p["lag"] == p["log_end_offset"] - p["current_offset"]
            seen = history.setdefault(tp, [])
            if not seen:
                assert p["lag_delta"] is p["consume_rate"] is p["produce_rate"] is None
            else:
                assert p["lag_delta"] == p["lag"] - seen[-1][1]["lag"]
                t0, old = seen[-RATE_WINDOW:][0]
                span = doc["elapsed_s"] - t0
                assert p["rate_window_s"] == pytest.approx(span, abs=2e-3)
                consume = (p["current_offset"] - old["current_offset"]) / span
                produce = (p["log_end_offset"] - old["log_end_offset"]) / span
                assert p["consume_rate"] == pytest.approx(consume, abs=2e-3)
                assert p["produce_rate"] == pytest.approx(produce, abs=2e-3)
                if p["lag"] == 0:
                    assert p["catch_up"] == "caught-up"
                elif consume > produce:
                    assert p["catch_up"] == "catching-up"
                    assert p["catch_up_s"] == pytest.approx(p["lag"] / (consume - produce), rel=1e-2)
                else:
                    assert (p["catch_up"], p["catch_up_s"]) == ("not-catching-up", None)
                moving += consume > 0 and produce > 0
            seen.append((doc["elapsed_s"], p))
        (totals,) = [g for g in doc["groups"] if g["group"] == group]
        assert totals["lag"] == sum(p["lag"] for p in totals["partitions"])
    assert moving, "no interval saw both records produced and offsets committed"


def test_json_lines_follow_the_offsets_and_ctrl_c_ends_with_whole_lines(broker, watches):
    topic, group = create_topic(broker.bootstrap, unique("watch"), partitions=2), unique("watch")
    produce_n(broker.bootstrap, topic, {0: 10, 1: 10})
    offsets = {(topic, 0): 2, (topic, 1): 5}
    commit_offsets(broker.bootstrap, group, offsets)
    watch = Watch(["--bootstrap-server", broker.bootstrap, "--describe", "--group", group, "--watch", "0.5"])
    watches.append(watch)
    first = watch.next_doc()
    assert first["schema"] == "kafka-group-tools/group-watch/v1" and first["interval_s"] == 0.5
    assert {tp: p["current_offset"] for tp, p in partitions_of(first, group).items()} == offsets
    ends = {0: 10, 1: 10}
    for step in range(1, 4):  # records arrive and the group commits between refreshes
        produce_n(broker.bootstrap, topic, {0: 6 * step, 1: 2})
        ends = {0: ends[0] + 6 * step, 1: ends[1] + 2}
        offsets = {(topic, 0): offsets[(topic, 0)] + 7 * step, (topic, 1): offsets[(topic, 1)] + 1}
        commit_offsets(broker.bootstrap, group, offsets)

        def shows(doc, offsets=offsets, ends=ends):
            now = partitions_of(doc, group)
            return all(
                now.get(tp, {}).get("current_offset") == o and now[tp]["log_end_offset"] == ends[tp[1]]
                for tp, o in offsets.items()
            )

        watch.until(shows, f"step {step}'s offsets")
    watch.next_doc()  # one more refresh over unchanged offsets
    code, stderr = watch.stop(signal.SIGINT)
    assert (code, stderr) == (0, "")
    assert watch.raw and all(line.endswith("\n") for line in watch.raw)
    for line in watch.raw[len(watch.docs) :]:  # lines written while it stopped: whole documents too
        assert line.startswith("{") and line.rstrip().endswith("}")
    _check_arithmetic(watch.docs, group)


def test_list_watch_shows_groups_appear_and_go_and_sigterm_ends_it(broker, watches):
    topic, group = create_topic(broker.bootstrap, unique("watch-list"), partitions=1), unique("watch-list")
    watch = Watch(["--bootstrap-server", broker.bootstrap, "--list", "--watch", "0.5"])
    watches.append(watch)
    first = watch.next_doc()
    assert first["schema"] == "kafka-group-tools/group-list-watch/v1" and first["appeared"] == []
    assert group not in {g["group"] for g in first["groups"]}
    commit_offsets(broker.bootstrap, group, {(topic, 0): 0})
    appeared = watch.until(lambda d: group in d["appeared"], "the new group")
    assert {"group": group, "type": "Classic", "state": "Empty"} in appeared["groups"]
    client = admin(broker.bootstrap)  # kept: its futures end with it
    client.delete_consumer_groups([group])[group].result(30)
    gone = watch.until(lambda d: group in d["disappeared"], "the deleted group")
    assert group not in {g["group"] for g in gone["groups"]}
    code, stderr = watch.stop(signal.SIGTERM)
    assert (code, stderr) == (0, "")
    assert all(line.endswith("\n") for line in watch.raw)


@pytest.mark.parametrize(
    "interval", [["--watch", "0"], ["--watch=-1"], ["--watch", "-2"], ["--watch", "soon"], ["--watch="]]
)
def test_bad_intervals_are_usage_errors_before_anything_is_contacted(ours, interval):
    # Port 1: nothing listens there, so any attempt to connect would fail differently.
    bootstrap = ("--bootstrap-server", "127.0.0.1:1")
    lines = [
        ("kafka-consumer-groups", *bootstrap, "--describe", "--group", "g"),
        ("kafka-consumer-groups", *bootstrap, "--list"),
        ("kafka-consumer-groups", "describe", *bootstrap, "--group", "g"),  # through Typer
        ("kafka-streams-groups", *bootstrap, "--describe", "--group", "g"),
        ("kafka-streams-groups", "list", *bootstrap),
    ]
    for tool, *args in lines:
        result = ours(tool, *args, *interval)
        assert result.returncode == 2 and result.stdout == "", (args, result)
        assert result.stderr.startswith("Error: Invalid --watch interval") and result.stderr.count("\n") == 1


def test_text_blocks_are_the_apache_describe_under_a_separator(broker, apache, watches):
    topic, group = create_topic(broker.bootstrap, unique("watch-text"), partitions=2), unique("watch-text")
    produce_n(broker.bootstrap, topic, {0: 4, 1: 6})
    commit_offsets(broker.bootstrap, group, {(topic, 0): 1, (topic, 1): 6})
    args = ["--bootstrap-server", broker.bootstrap, "--describe", "--group", group]
    watch = Watch([*args, "--watch", "0.5", "--output", "text"])
    watches.append(watch)
    separator = re.compile(r"Every 0.5s: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n")
    assert separator.fullmatch(watch.next_line())
    block = []
    while not separator.fullmatch(line := watch.next_line()):
        block.append(line)
    assert watch.stop()[0] == 0
    assert "".join(block) == apache("kafka-consumer-groups", *args).stdout


class Screen:
    """One command in a tmux pane (a real terminal), kept open after it exits."""

    def __init__(self, argv: list[str]) -> None:
        if shutil.which("tmux") is None:
            pytest.skip("tmux is not installed (scripts/setup installs it)")
        self.socket = unique("kgt-watch")
        command = " ".join(f"'{a}'" for a in argv) + "; echo EXIT=$?; sleep 600"
        env = ["env", "-i", "PATH=/usr/bin:/bin", f"PYTHONPATH={ROOT}", "TERM=xterm-256color"]
        self._tmux("new-session", "-d", "-x", "200", "-y", "40", *env, "bash", "-c", command)

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args], capture_output=True, text=True
        )
        return done.stdout

    def text(self) -> str:
        return self._tmux("capture-pane", "-p")

    def cursor_visible(self) -> bool:
        return self._tmux("display-message", "-p", "#{cursor_flag}").strip() == "1"

    def wait_for(self, pattern: str, what: str) -> str:
        found: list[str] = []

        def seen() -> bool:
            screen = self.text()
            found[:] = [screen]
            return re.search(pattern, screen, re.M) is not None

        wait_until(seen, what, timeout=60)
        return found[0]

    def close(self) -> None:
        self._tmux("kill-server")


def test_a_terminal_gets_a_live_table_redrawn_in_place_and_ctrl_c_ends_it(broker):
    topic, group = create_topic(broker.bootstrap, unique("watch-tty"), partitions=1), unique("watch-tty")
    produce_n(broker.bootstrap, topic, {0: 40})
    commit_offsets(broker.bootstrap, group, {(topic, 0): 17})
    argv = [sys.executable, "-m", OUR_TOOLS["kafka-consumer-groups"], "--bootstrap-server", broker.bootstrap]
    # Long enough between refreshes for the screen that first shows a change to be read with it.
    screen = Screen([*argv, "--describe", "--group", group, "--watch", "1.5"])
    try:
        row = rf"{re.escape(group)}\s+{re.escape(topic)}\s+0\s+{{current}}\s+40\s+{{lag}}\s"
        first = screen.wait_for(row.format(current=17, lag=23), "the first table")
        assert "Every 1.5s" in first and "LAG-DELTA" in first and "CATCH-UP" in first
        assert not screen.cursor_visible()  # the live view hides it while it draws
        commit_offsets(broker.bootstrap, group, {(topic, 0): 31})
        later = screen.wait_for(row.format(current=31, lag=9), "the new offset")
        # Redrawn in place: one header and one row for the partition, not a second table below.
        assert later.count("Every 1.5s") == 1 and len(re.findall(re.escape(topic), later)) == 1
        assert re.search(r"\s-14\s", later)  # the lag delta of that refresh
        screen._tmux("send-keys", "C-c")
        end = screen.wait_for(r"^EXIT=\d+", "the watch to end")
        assert "EXIT=0" in end and "Traceback" not in end and "Aborted" not in end
        assert screen.cursor_visible()
    finally:
        screen.close()


def test_a_watch_of_a_group_that_does_not_exist_keeps_going_and_says_so(broker, watches):
    group = unique("watch-none")
    watch = Watch(["--bootstrap-server", broker.bootstrap, "--describe", "--group", group, "--watch", "0.5"])
    watches.append(watch)
    docs = [watch.next_doc(), watch.next_doc()]
    assert all(d["groups"] == [] and d["missing_groups"] == [group] for d in docs)
    assert watch.proc.poll() is None  # two refreshes came and the watch still runs
    assert watch.stop()[0] == 0


def test_lag_time_joins_the_watch_with_lag_time(broker, watches):
    """--watch --lag-time: each document carries now minus the next record's timestamp."""
    bs = broker.bootstrap
    topic, group = create_topic(bs, unique("watch-lt"), partitions=1), unique("watch-lt")
    stamp = int(time.time() * 1000) - 600_000  # ten minutes old
    produce(bs, topic, [Record(0, f"v{i}", stamp + i) for i in range(5)])
    commit_offsets(bs, group, {(topic, 0): 2})
    before = int(time.time() * 1000)
    watch = Watch(["--bootstrap-server", bs, "--describe", "--group", group, "--watch", "0.5", "--lag-time"])
    watches.append(watch)
    doc = watch.until(lambda d: bool(d["groups"]), "the group")
    after = int(time.time() * 1000)
    (row,) = partitions_of(doc, group).values()
    # The next record is offset 2, stamped stamp + 2; the document was read between before and after.
    assert before - (stamp + 2) <= row["lag_time_ms"] <= after - (stamp + 2)
    assert watch.stop()[0] == 0


def test_streams_groups_watch_the_active_tasks_offsets(broker, watches):
    """kafka-streams-groups --describe --watch: one running instance of the test application,
    its active tasks' partitions refreshed as the same JSON Lines stream; Ctrl-C ends it."""
    from tests.kafka_helpers import Record, produce
    from tests.streams_helpers import StreamsApp

    source = create_topic(broker.bootstrap, unique("watch-sg-in"), partitions=2)
    sink = create_topic(broker.bootstrap, unique("watch-sg-out"), partitions=1)
    produce(broker.bootstrap, source, [Record(i % 2, f"v{i % 3}") for i in range(8)])
    app_id = unique("watch-sg")
    with StreamsApp(broker.bootstrap, app_id, [source], sink):
        args = ["--bootstrap-server", broker.bootstrap, "--describe", "--group", app_id, "--watch", "0.5"]
        watch = Watch(args, tool="kafka-streams-groups")
        watches.append(watch)
        docs = [watch.until(lambda d: partitions_of(d, app_id), "the active tasks"), watch.next_doc()]
        code, stderr = watch.stop()
    assert (code, stderr) == (0, "")
    for doc in docs:
        assert doc["schema"] == "kafka-group-tools/group-watch/v1" and doc["error"] is None
        # The input topic's partitions (and the repartition topic's, as --describe shows them).
        assert {(source, 0), (source, 1)} <= set(partitions_of(doc, app_id))
    before, after = (partitions_of(d, app_id) for d in docs)
    assert all(after[tp]["lag_delta"] == after[tp]["lag"] - before[tp]["lag"] for tp in after if tp in before)
