"""A real Kafka Streams application (tests/streams_app/TestStreamsApp.java), compiled at test
time against the pinned jars, that makes streams groups (KIP-1071) for the tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType

from infra import kafka as local_kafka

SOURCE = Path(__file__).resolve().parent / "streams_app" / "TestStreamsApp.java"
BUILD_DIR = local_kafka.REPO_ROOT / ".cache" / "streams-app"
START_TIMEOUT_S = 90.0


def compiled_app() -> tuple[Path, Path]:
    """Compile the app once per source version; returns (classes dir, Kafka libs dir)."""
    libs = local_kafka.ensure_tool_jars(local_kafka.KAFKA_VERSION)
    return local_kafka.compiled_classes(SOURCE, libs, BUILD_DIR), libs


class StreamsApp:
    """One JVM running one instance of the application per id; each id is its own group.

    ``with StreamsApp(...) as app:`` waits until every instance is RUNNING; leaving the block
    closes them, and each instance leaves its group. One JVM for many groups: Kafka Streams is
    loaded once, not once per group, which on two cores is most of the cost of a group."""

    def __init__(self, bootstrap: str, app_ids: str | list[str], inputs: list[str], output: str) -> None:
        self.bootstrap = bootstrap
        self.app_ids = [app_ids] if isinstance(app_ids, str) else list(app_ids)
        self.inputs = inputs
        self.output = output
        self._state_dir = tempfile.mkdtemp(prefix="ks-state-")
        self._log = Path(self._state_dir) / "app.log"
        self._proc: subprocess.Popen[str] | None = None
        self._closed: set[str] = set()  # the ids the app said it closed (close())
        self._closed_lock = threading.Condition()

    def start(self) -> StreamsApp:
        classes, libs = compiled_app()
        java = local_kafka._java()
        cmd = [
            java,
            "-Xmx512m",
            *local_kafka.extra_jvm_opts(),
            local_kafka._log_config_opt(local_kafka.KAFKA_VERSION, "tools"),
            "-cp",
            f"{classes}{os.pathsep}{libs}/*",
            "TestStreamsApp",
            self.bootstrap,
            ",".join(self.app_ids),
            ",".join(self.inputs),
            self.output,
            self._state_dir,
        ]
        with self._log.open("w") as log:  # the child keeps its own copy of the descriptor
            self._proc = subprocess.Popen(
                cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True
            )
        waiting = set(self.app_ids)  # the ids not RUNNING yet; read and changed under `lock`
        lock = threading.Lock()
        ready = threading.Event()
        proc = self._proc

        def watch() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                word, _, app_id = line.strip().partition(" ")
                if word == "RUNNING":
                    with lock:
                        waiting.discard(app_id)
                        if not waiting:
                            ready.set()
                elif word == "CLOSED":
                    with self._closed_lock:
                        self._closed.add(app_id)
                        self._closed_lock.notify_all()

        threading.Thread(target=watch, daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not ready.wait(0.2):
            if self._proc.poll() is not None or time.monotonic() > deadline:
                log = self._log.read_text()[-3000:]
                with lock:
                    late = sorted(waiting)
                self.stop()
                raise RuntimeError(f"streams app instances did not start: {late}: {log}")
        return self

    def close(self, app_ids: list[str], timeout: float = 60.0) -> None:
        """Close these instances only (each leaves its group); the others keep running."""
        assert self._proc is not None and self._proc.stdin is not None
        unknown = set(app_ids) - set(self.app_ids)
        assert not unknown, f"not instances of this app: {sorted(unknown)}"
        self._proc.stdin.write(f"close {','.join(app_ids)}\n")
        self._proc.stdin.flush()
        deadline = time.monotonic() + timeout
        with self._closed_lock:
            while not set(app_ids) <= self._closed:
                left = deadline - time.monotonic()
                if left <= 0 or self._proc.poll() is not None:
                    log = self._log.read_text()[-3000:]
                    late = sorted(set(app_ids) - self._closed)
                    raise RuntimeError(f"streams app instances did not close: {late}: {log}")
                self._closed_lock.wait(min(left, 0.5))

    def stop(self) -> None:
        if self._proc is None:
            return
        proc, self._proc = self._proc, None
        if proc.poll() is None and proc.stdin is not None:
            proc.stdin.close()  # the app closes its instances, and each leaves its group
            try:
                proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(self._state_dir, ignore_errors=True)

    def __enter__(self) -> StreamsApp:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def make_groups(
    bootstrap: str,
    app_ids: list[str],
    inputs: list[str],
    output: str,
    expected: dict[tuple[str, int], int],
    running: list[str] | None = None,
) -> StreamsApp | None:
    """Run one instance of the application per id, all in one JVM, until each group has
    committed ``expected`` on the input partitions; then stop them all: the groups are Empty.

    ``running``: more ids whose instances start in the same JVM and keep running (their groups
    Stable) after the others closed; the app is returned for the caller to stop. One JVM
    start serves both."""
    from tests.kafka_helpers import committed

    app = StreamsApp(bootstrap, [*app_ids, *(running or [])], inputs, output).start()
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        for app_id in app_ids:
            while True:
                held = committed(bootstrap, app_id)
                if all(held.get(tp) == offset for tp, offset in expected.items()):
                    break
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{app_id} did not commit {expected}: {held}")
                time.sleep(0.3)
        if running:
            app.close(app_ids)
        else:
            app.stop()
    except BaseException:
        app.stop()
        raise
    wait_until_empty(bootstrap, app_ids)
    return app if running else None


def wait_until_empty(bootstrap: str, app_ids: list[str], timeout: float = 90.0) -> None:
    """Wait until every group is Empty: an instance that could not leave cleanly (closing
    under load) stays a member until its session times out."""
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.settings import ConnectionArgs

    access = KafkaAccess(ConnectionArgs(bootstrap_server=bootstrap, timeout_ms=10000).resolve())
    try:
        deadline = time.monotonic() + timeout
        while True:
            states = {g.group_id: g.state for g in access.list_groups(frozenset({"Streams"}))}
            waiting = [g for g in app_ids if states.get(g) != "Empty"]
            if not waiting:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"streams groups not Empty: {[(g, states.get(g)) for g in waiting]}")
            time.sleep(0.5)
    finally:
        access.close()
