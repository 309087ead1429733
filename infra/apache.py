"""The Apache CLI tools (kafka-consumer-groups.sh & co.) of a release, for infra/kafka.py: their argv, a
run per JVM (`run_apache`) and a persistent JVM running them in-process (`ApacheRunner`)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import locale
import os
import re
import shutil
import subprocess
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path

from infra.jars import (
    INFRA_DIR,
    KAFKA_VERSION,
    REPO_ROOT,
    RUN_DIR,
    TOOL_JVM_OPTS,
    KafkaInfraError,
    _file_lock,
    _java,
    _line,
    _log_config_opt,
    ensure_jars,
    extra_jvm_opts,
    tools_version,
)

# bin/kafka-*.sh script name -> main class, as in the newest release line ...
TOOL_CLASSES = {
    "kafka-consumer-groups": "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
    "kafka-topics": "org.apache.kafka.tools.TopicCommand",
    "kafka-streams-groups": "org.apache.kafka.tools.streams.StreamsGroupCommand",
    "kafka-share-groups": "org.apache.kafka.tools.consumer.group.ShareGroupCommand",
    "kafka-groups": "org.apache.kafka.tools.GroupsCommand",
    "kafka-delete-records": "org.apache.kafka.tools.DeleteRecordsCommand",
    "kafka-configs": "org.apache.kafka.tools.ConfigCommand",
    "kafka-features": "org.apache.kafka.tools.FeatureCommand",
    "kafka-get-offsets": "org.apache.kafka.tools.GetOffsetShell",
    "kafka-console-producer": "org.apache.kafka.tools.ConsoleProducer",
    "kafka-console-consumer": "org.apache.kafka.tools.consumer.ConsoleConsumer",
    "kafka-streams-application-reset": "org.apache.kafka.tools.StreamsResetter",
}
# ... and where older lines differ (None: the tool does not exist in that line).
# Checked with `unzip -l` against the 4.3.1 and 3.9.2 jars. org.apache.kafka.tools.ConfigCommand (4.4)
# could not be checked: kafka-tools 4.4.0 is not on Maven Central.
TOOL_CLASS_OVERRIDES: dict[str, dict[str, str | None]] = {
    "4.3": {"kafka-configs": "kafka.admin.ConfigCommand"},
    "3.9": {
        "kafka-configs": "kafka.admin.ConfigCommand",
        "kafka-console-producer": "kafka.tools.ConsoleProducer",
        "kafka-streams-groups": None,
        "kafka-share-groups": None,
        "kafka-groups": None,
    },
}


# --------------------------------------------------------------------------------------------------
# Apache CLI tools


def main_class(tool: str, version: str = KAFKA_VERSION) -> str:
    """Main class of an Apache tool ("kafka-topics", "kafka-topics.sh" or a class name) in `version`'s jars.

    `version` is the release the tool runs from, i.e. usually `tools_version(broker_version)`.
    """
    name = tool.removesuffix(".sh")
    overrides = TOOL_CLASS_OVERRIDES.get(_line(version), {})
    if name in overrides:
        found = overrides[name]
        if found is None:
            raise KafkaInfraError(f"{name} does not exist in Kafka {version}")
        return found
    if name in TOOL_CLASSES:
        return TOOL_CLASSES[name]
    if "." in name:  # a fully qualified main class
        return name
    raise KafkaInfraError(f"unknown Apache tool {tool!r}; known: {', '.join(sorted(TOOL_CLASSES))}")


def apache_command(tool: str, args: Sequence[str], version: str = KAFKA_VERSION) -> list[str]:
    """argv running an Apache tool against a `version` broker the way the release's bin/*.sh scripts do.

    Fetches the jars if needed. The tool runs from `tools_version(version)`'s jars.
    """
    release = tools_version(version)
    main = main_class(tool, release)
    libs = ensure_jars(release)
    jvm = [_java(), *TOOL_JVM_OPTS, *extra_jvm_opts(), _log_config_opt(release, "tools")]
    return [*jvm, "-cp", f"{libs}/*", main, *args]


def run_apache(
    tool: str,
    args: Sequence[str],
    version: str = KAFKA_VERSION,
    timeout: float = 120,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run an Apache tool and capture stdout/stderr as text. A non-zero exit code is returned, not raised.

    `input` is sent to the tool's stdin (e.g. for kafka-console-producer); otherwise stdin is empty.
    Raises subprocess.TimeoutExpired if the tool runs longer than `timeout` seconds.
    """
    cmd = apache_command(tool, args, version)
    stdin = None if input is not None else subprocess.DEVNULL
    return subprocess.run(
        cmd, input=input, stdin=stdin, capture_output=True, text=True, timeout=timeout, check=False
    )


RUNNER_SOURCE = INFRA_DIR / "ApacheToolRunner.java"
RUNNER_BUILD_DIR = REPO_ROOT / ".cache" / "apache-runner"
_RUNNER_MAGIC = 0x4B544F4F


def compiled_classes(source: Path, libs: Path, build_dir: Path, tag: str = "") -> Path:
    """Compile the one-file Java program `source` against the jars in `libs`, once per source and libs
    (the classes dir is named by their digest, after `tag`); returns the classes dir. Processes that ask
    at once wait on a file lock while one compiles, into a staging dir renamed when javac succeeds."""
    digest = hashlib.sha256(source.read_bytes() + str(libs).encode()).hexdigest()[:12]
    classes = build_dir / f"{tag}{digest}"
    main_class = classes / f"{source.stem}.class"
    if main_class.is_file():
        return classes
    build_dir.mkdir(parents=True, exist_ok=True)
    with _file_lock(build_dir / ".lock"):
        if not main_class.is_file():
            java_home = os.environ.get("JAVA_HOME")
            javac = str(Path(java_home, "bin", "javac")) if java_home else shutil.which("javac")
            if not javac or not os.access(javac, os.X_OK):
                raise KafkaInfraError(f"javac is not on PATH; compiling {source.name} needs a JDK 17+")
            staging = build_dir / f".staging-{uuid.uuid4().hex[:8]}"
            proc = subprocess.run(
                [javac, "-d", str(staging), "-cp", f"{libs}/*", str(source)],
                capture_output=True,
                text=True,
                check=False,
            )
            if proc.returncode != 0:
                shutil.rmtree(staging, ignore_errors=True)
                raise KafkaInfraError(f"javac could not compile {source.name}:\n{proc.stderr}")
            staging.rename(classes)
    return classes


def compiled_runner(version: str = KAFKA_VERSION) -> tuple[Path, Path]:
    """Compile infra/ApacheToolRunner.java against `version`'s tool jars (once per source and release);
    returns (classes dir, libs dir)."""
    release = tools_version(version)
    libs = ensure_jars(release)
    return compiled_classes(RUNNER_SOURCE, libs, RUNNER_BUILD_DIR, tag=f"{release}-"), libs


class ApacheRunner:
    """One long-lived JVM running one release's Apache CLI tools in-process (infra/ApacheToolRunner.java).

    `run` gives what `run_apache` gives (a CompletedProcess with text stdout/stderr and the exit status)
    without starting a JVM per call. Calls are serialised. A call that outlives its timeout kills the
    JVM (the next call starts a new one) and raises subprocess.TimeoutExpired, as `run_apache` does.
    """

    def __init__(self, version: str = KAFKA_VERSION, log_dir: Path | None = None) -> None:
        self.version = version
        self.release = tools_version(version)
        self.log_dir = log_dir or RUN_DIR
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self.calls = 0
        self._scaffold_frames = 0

    def _launch(self) -> subprocess.Popen[bytes]:
        classes, libs = compiled_runner(self.version)
        cmd = [
            _java(),
            *TOOL_JVM_OPTS,
            *extra_jvm_opts(),
            _log_config_opt(self.release, "tools"),
            "-cp",
            f"{classes}{os.pathsep}{libs}/*",
            "ApacheToolRunner",
        ]
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with (self.log_dir / f"apache-runner-{self.release}.log").open("ab") as log:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
        assert proc.stdout is not None
        try:
            head = _read_exact(proc.stdout, 8)
        except EOFError:
            proc.wait(10)
            raise KafkaInfraError(
                f"the Apache tool runner did not start (see {self.log_dir}/apache-runner-{self.release}.log)"
            ) from None
        if int.from_bytes(head[:4], "big") != _RUNNER_MAGIC:
            proc.kill()
            raise KafkaInfraError("the Apache tool runner answered out of step")
        self._scaffold_frames = int.from_bytes(head[4:], "big")
        return proc

    def run(
        self, tool: str, args: Sequence[str], timeout: float = 120, input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        if input is not None:  # the runner gives every tool an empty stdin
            return run_apache(tool, args, version=self.version, timeout=timeout, input=input)
        main = main_class(tool, self.release)
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._proc = self._launch()
            proc = self._proc
            assert proc.stdin is not None and proc.stdout is not None
            request = [main, *args]
            payload = bytearray(len(request).to_bytes(4, "big"))
            for item in request:
                data = item.encode("utf-8")
                payload += len(data).to_bytes(4, "big") + data
            result: list[object] = []

            def exchange() -> None:
                assert proc.stdin is not None and proc.stdout is not None
                try:
                    proc.stdin.write(bytes(payload))
                    proc.stdin.flush()
                    head = _read_exact(proc.stdout, 12)
                    magic, status, out_len = (
                        int.from_bytes(head[i : i + 4], "big", signed=True) for i in (0, 4, 8)
                    )
                    if magic != _RUNNER_MAGIC:
                        raise KafkaInfraError("the Apache tool runner answered out of step")
                    out = _read_exact(proc.stdout, out_len)
                    err = _read_exact(proc.stdout, int.from_bytes(_read_exact(proc.stdout, 4), "big"))
                    result.append((status, out, err))
                except BaseException as exc:
                    result.append(exc)

            worker = threading.Thread(target=exchange, daemon=True)
            worker.start()
            worker.join(timeout)
            if worker.is_alive() or not result or isinstance(result[0], BaseException):
                self._kill()
                if worker.is_alive():
                    raise subprocess.TimeoutExpired([tool, *args], timeout)
                failure = result[0] if result else None
                raise KafkaInfraError(f"the Apache tool runner died running {tool}: {failure!r}")
            status, out, err = result[0]  # type: ignore[misc]
            self.calls += 1
        frames = self._scaffold_frames
        return subprocess.CompletedProcess(
            [tool, *args], status, _unscaffold(_decode(out), frames), _unscaffold(_decode(err), frames)
        )

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(10)

    def close(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            assert proc.stdin is not None
            proc.stdin.close()  # end of requests: the runner returns from main
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _read_exact(stream: object, n: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < n:
        chunk = stream.read(n - len(chunks))  # type: ignore[attr-defined]
        if not chunk:
            raise EOFError("the Apache tool runner closed its output")
        chunks += chunk
    return bytes(chunks)


_SCAFFOLD_FRAME = re.compile(
    r"\s+at (ApacheToolRunner[.$]"
    r"|java\.base/jdk\.internal\.reflect\."
    r"|java\.base/java\.lang\.reflect\.Method\.invoke\()"
)
_MORE_FRAMES = re.compile(r"(\s+)\.\.\. (\d+) more")


def _unscaffold(text: str, frames: int) -> str:
    """Printed stack traces as a fresh JVM prints them: without the runner's frames below the tool's main.

    A nested trace ("Caused by:") elides the frames it shares with the enclosing one ("... N more");
    the runner's frames are among those shared, so N counts them too."""
    if frames <= 0 or "\tat " not in text:
        return text
    kept: list[str] = []
    for line in text.splitlines(keepends=True):
        if _SCAFFOLD_FRAME.match(line):
            continue
        more = _MORE_FRAMES.fullmatch(line.rstrip("\r\n"))
        if more and int(more.group(2)) >= frames:
            left = int(more.group(2)) - frames
            if left == 0:
                continue
            line = f"{more.group(1)}... {left} more" + line[len(line.rstrip("\r\n")) :]
        kept.append(line)
    return "".join(kept)


def _decode(data: bytes) -> str:
    """Bytes to text the way subprocess.run(text=True) does it (locale encoding, universal newlines)."""
    return io.TextIOWrapper(io.BytesIO(data), encoding=locale.getpreferredencoding(False)).read()
