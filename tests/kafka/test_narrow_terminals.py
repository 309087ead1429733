"""Our tools in a real terminal (a tmux pane) 20, 24, 30 and 80 columns wide: every value of
the describe, the loss radar, the reset plan, the group list and the topic describe is on the
screen whole, whatever the width (at 20 columns Rich drew the tables with no values, exit 0; at
24-30 it folded an offset of 99 into two lines of 9)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time

import pytest

from tests.conftest import OUR_TOOLS, ROOT
from tests.kafka_helpers import TOOL_TIMEOUT_MS, commit_offsets, create_topic, produce_n, unique

pytestmark = pytest.mark.kafka

WIDTHS = (20, 24, 30, 80)


def on_screen(width: int, argv: list[str]) -> tuple[int, str]:
    """Run ``argv`` in a tmux pane ``width`` columns wide; its exit status and the whole screen
    and scrollback, with the lines the terminal wrapped joined again."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (scripts/setup installs it)")
    socket = unique("kgt-narrow")

    def tmux(*args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", socket, "-f", "/dev/null", *args], capture_output=True, text=True
        )
        return done.stdout

    command = " ".join(f"'{a}'" for a in argv) + "; echo EXIT=$?; sleep 600"
    env = ["env", "-i", "PATH=/usr/bin:/bin", f"PYTHONPATH={ROOT}", "TERM=xterm-256color"]
    tmux("new-session", "-d", "-x", str(width), "-y", "50", *env, "bash", "-c", command)
    tmux("set-option", "-g", "history-limit", "10000")
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            screen = tmux("capture-pane", "-p", "-J", "-S", "-")
            found = re.search(r"^EXIT=(\d+)", screen, re.M)
            if found:
                return int(found.group(1)), screen
            time.sleep(0.2)
        raise TimeoutError(f"the command did not end in a {width}-column terminal: {screen}")
    finally:
        tmux("kill-server")


@pytest.fixture(scope="module")
def state(broker):
    """A group 99 records into a partition of 120, and 3 records behind on another."""
    bs = broker.bootstrap
    topic = create_topic(bs, unique("nt"), partitions=2)
    produce_n(bs, topic, {0: 120, 1: 3})
    group = unique("nt")
    commit_offsets(bs, group, {(topic, 0): 99})
    return topic, group


def _tool(tool: str, *args: str) -> list[str]:
    return [sys.executable, "-m", OUR_TOOLS[tool], *args]


def _lines_holding(screen: str, *values: str) -> None:
    for value in values:
        assert re.search(rf"(^|\s){re.escape(value)}(\s|$)", screen, re.M), (
            f"{value!r} is not whole on:\n{screen}"
        )


@pytest.mark.parametrize("width", WIDTHS)
def test_describe_and_health_show_every_value_whole(broker, state, width):
    topic, group = state
    bs = broker.bootstrap
    connection = ["--bootstrap-server", bs, "--timeout", TOOL_TIMEOUT_MS]
    code, screen = on_screen(
        width, _tool("kafka-consumer-groups", *connection, "--describe", "--group", group)
    )
    assert code == 0, screen
    _lines_holding(screen, group, topic, "99", "120", "21")
    code, screen = on_screen(
        width, _tool("kafka-consumer-groups", *connection, "--describe", "--group", group, "--health")
    )
    assert code == 5, screen  # partition 1 holds records and has no committed offset: at risk
    _lines_holding(screen, group, topic, "99", "21", "at-risk", "0..120", "0..3")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_reset_plan_and_the_topic_show_every_value_whole(broker, state, width):
    topic, group = state
    bs = broker.bootstrap
    reset = ["--bootstrap-server", bs, "--timeout", TOOL_TIMEOUT_MS, "--reset-offsets", "--group", group]
    code, screen = on_screen(
        width,
        _tool("kafka-consumer-groups", *reset, "--topic", f"{topic}:0", "--to-offset", "9", "--dry-run"),
    )
    assert code == 0, screen
    _lines_holding(screen, group, topic, "99", "9", "-90")
    code, screen = on_screen(
        width, _tool("kafka-topics", "--bootstrap-server", bs, "--describe", "--topic", topic)
    )
    assert code == 0, screen
    _lines_holding(screen, topic, "0", "1", "2")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_group_list_shows_every_name_whole(broker, state, width):
    _topic, group = state
    argv = ["--bootstrap-server", broker.bootstrap, "--list", "--state"]
    code, screen = on_screen(width, _tool("kafka-consumer-groups", *argv))
    assert code == 0, screen
    _lines_holding(screen, group, "Empty")
