"""Shell completion in real shells: bash, zsh and fish run in tmux (a pseudo-terminal), with
the checked-in scripts sourced and our tools on PATH, against a broker of this module's own
(it is paused with SIGSTOP to play a dead cluster).

A shell that is not installed skips with the reason (scripts/setup installs zsh and fish)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from infra import kafka as local_kafka
from tests.conftest import OUR_TOOLS, ROOT, Broker
from tests.kafka_helpers import commit_offsets, create_topic, unique

pytestmark = pytest.mark.kafka

SCRIPTS = ROOT / "completions"
SHELLS = {
    "bash": (["bash", "--norc", "--noprofile"], "bash/{prog}.bash"),
    "zsh": (["zsh", "-f"], "zsh/_{prog}"),
    "fish": (["fish", "--no-config"], "fish/{prog}.fish"),
}
WAIT_S = 30.0  # how long a screen may take to show what is awaited (a loaded machine)
# A TAB that asks the broker gets this long (KAFKA_TOOLS_TAB_BUDGET_MS): under a second by default,
# which a saturated machine spends starting Python. The dead-broker test keeps the default.
LIVE_TAB_BUDGET_MS = "15000"


@pytest.fixture(scope="module")
def paused_cluster() -> Iterator[local_kafka.Cluster]:
    """A broker of this module's own, to pause."""
    started = local_kafka.start(nodes=1, workdir=local_kafka.RUN_DIR / f"pytest-completion-{unique('c')}")
    try:
        yield started
    finally:
        started.stop(grace=0)  # its data is deleted: no controlled shutdown to wait for


@pytest.fixture(scope="module")
def names(broker: Broker) -> dict[str, str]:
    prefix = unique("tab")
    topic = create_topic(broker.bootstrap, f"{prefix}-orders", partitions=3)
    groups = {"alpha": f"{prefix}-alpha", "beta": f"{prefix}-beta"}
    for group in groups.values():
        commit_offsets(broker.bootstrap, group, {(topic, 0): 1})
    return {"prefix": prefix, "topic": topic, **groups}


@pytest.fixture(scope="module")
def bin_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Our tools on PATH under their installed names, running this checkout."""
    path = tmp_path_factory.mktemp("bin")
    for prog, module in OUR_TOOLS.items():
        script = path / prog
        script.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m {module} "$@"\n')
        script.chmod(0o755)
    return path


class Terminal:
    """One shell in a tmux session of its own."""

    def __init__(self, shell: str, bin_dir: Path, home: Path, tab_budget_ms: str | None) -> None:
        argv, pattern = SHELLS[shell]
        if shutil.which(argv[0]) is None:
            pytest.skip(f"{shell} is not installed (scripts/setup installs it when run as root)")
        if shutil.which("tmux") is None:
            pytest.skip("tmux is not installed")
        self.socket = f"kgt-{unique(shell)}"
        env = {
            "PATH": f"{bin_dir}:{os.environ['PATH']}",
            "HOME": str(home),
            "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_CONFIG_HOME": str(home / "config"),
            "TERM": "xterm-256color",
        }
        if tab_budget_ms is not None:
            env["KAFKA_TOOLS_TAB_BUDGET_MS"] = tab_budget_ms
        command = ["env", "-i", *(f"{k}={v}" for k, v in env.items()), *argv]
        self._tmux("new-session", "-d", "-x", "220", "-y", "50", *command)
        script = SCRIPTS / pattern.format(prog="kafka-consumer-groups")
        setup = {
            "bash": f"PS1='$ '; bind 'set show-all-if-ambiguous on'; source {script}",
            "zsh": f"PS1='$ '; autoload -U compinit; compinit -u; source {script}",
            "fish": f"function fish_prompt; echo '$ '; end; source {script}",
        }[shell]
        self.type(setup + "; clear", enter=True)
        self.wait_for(lambda screen: screen.strip() == "$" or screen.strip().endswith("$"))

    def _tmux(self, *args: str) -> str:
        proc = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args], capture_output=True, text=True, timeout=30
        )
        return proc.stdout

    def type(self, text: str, enter: bool = False) -> None:
        self._tmux("send-keys", "-l", text)
        if enter:
            self._tmux("send-keys", "Enter")

    def tab(self) -> None:
        self._tmux("send-keys", "Tab")

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p")

    def wait_for(self, done: Callable[[str], bool]) -> str:
        end = time.monotonic() + WAIT_S
        while True:
            screen = self.screen()
            if done(screen) or time.monotonic() > end:
                return screen
            time.sleep(0.1)

    def close(self) -> None:
        self._tmux("kill-server")


@pytest.fixture
def tab_budget_ms() -> str | None:
    return LIVE_TAB_BUDGET_MS


@pytest.fixture(params=list(SHELLS))
def terminal(
    request: pytest.FixtureRequest, bin_dir: Path, tmp_path: Path, tab_budget_ms: str | None
) -> Iterator[Terminal]:
    term = Terminal(request.param, bin_dir, tmp_path, tab_budget_ms)
    try:
        yield term
    finally:
        term.close()


def test_tab_completes_the_apache_action_flag(terminal: Terminal) -> None:
    terminal.type("kafka-consumer-groups --res")
    terminal.tab()
    screen = terminal.wait_for(lambda s: "--reset-offsets" in s)
    assert "kafka-consumer-groups --reset-offsets" in screen


def test_tab_after_reset_offsets_offers_its_scenarios(terminal: Terminal) -> None:
    terminal.type("kafka-consumer-groups --bootstrap-server b --reset-offsets --to-e")
    terminal.tab()
    screen = terminal.wait_for(lambda s: "--to-earliest" in s)
    assert "--reset-offsets --to-earliest" in screen


def test_tab_after_group_lists_the_brokers_groups(
    terminal: Terminal, broker: Broker, names: dict[str, str]
) -> None:
    terminal.type(
        f"kafka-consumer-groups --bootstrap-server {broker.bootstrap} --describe --group {names['prefix']}-"
    )
    terminal.tab()

    def offered(screen: str) -> bool:
        # fish's pager shows a long common prefix as "…": the group ids' own ends are compared.
        listing = screen.split("--group ", 1)[-1].split()[1:]
        return all(any(t.endswith(f"-{end}") for t in listing) for end in ("alpha", "beta"))

    screen = terminal.wait_for(offered)
    assert offered(screen), screen


def test_tab_after_topic_colon_offers_the_partitions(
    terminal: Terminal, broker: Broker, names: dict[str, str]
) -> None:
    topic = names["topic"]
    terminal.type(
        f"kafka-consumer-groups --bootstrap-server {broker.bootstrap} --reset-offsets --topic {topic}:"
    )
    terminal.tab()

    def offered(screen: str) -> bool:
        # bash lists what follows the colon (a word break for it); zsh and fish the whole word
        # (fish's pager shortening the common prefix to "…").
        listing = screen.split(f"--topic {topic}:", 1)[-1].split()
        return all(any(t == str(p) or t.endswith(f"-orders:{p}") for t in listing) for p in range(3))

    screen = terminal.wait_for(offered)
    assert offered(screen), screen


@pytest.mark.parametrize("tab_budget_ms", [None])  # the default budget
def test_dead_broker_makes_tab_offer_nothing_quickly(
    terminal: Terminal, paused_cluster: local_kafka.Cluster
) -> None:
    cluster = paused_cluster
    pid = cluster.node(1).pid
    assert pid is not None
    line = f"kafka-consumer-groups --bootstrap-server {cluster.bootstrap} --describe --group "
    terminal.type(line)
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        terminal.tab()
        terminal.type("END")  # typed behind the TAB: shown once the completion has answered
        screen = terminal.wait_for(lambda s: "--group END" in s)
        elapsed = time.monotonic() - started
    finally:
        os.kill(pid, signal.SIGCONT)
    assert "--group END" in screen, screen
    shown = [row for row in screen.splitlines() if row.strip()]
    assert len(shown) == 1, f"TAB offered something with the broker paused:\n{screen}"
    # Not a timing test: the completion stops itself after its budget (under a second); this
    # only tells a hang (librdkafka's own timeouts are a minute) from an answer.
    assert elapsed < 20, f"TAB took {elapsed:.1f} s with the broker paused"
