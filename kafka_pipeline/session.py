"""The Spark session of a landing run, and where Spark's Kafka source comes from.

By default the source is a set of local jars that ``scripts/setup`` fetched with Maven into
``.cache/spark/<pyspark version>/jars`` (``python -m infra.kafka fetch-spark``): a run resolves
nothing and needs no network. ``--packages`` lets Spark resolve the source itself (its Ivy, which
consults ``~/.m2`` first), for clusters that do. Under ``spark-submit`` the submitted ``--jars`` or
``--packages`` apply.

The driver JVM's output is read through a pipe: it is shown under ``--debug`` only, and a JVM that
exits before Spark starts is reported with the last meaningful lines it printed.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from kafka_groups.errors import CliError, UsageError

SOURCE_ARTIFACT = "spark-sql-kafka-0-10_2.13"
SOURCE_CLASS = "org.apache.spark.sql.kafka010.KafkaSourceProvider"
JARS_ENV = "KAFKA_TO_PARQUET_JARS"
CHECKOUT = Path(__file__).resolve().parents[1]
FETCH_HINT = "run scripts/setup (or python -m infra.kafka fetch-spark)"


class SparkStartError(CliError):
    """Spark's JVM or context did not start; the message carries the JVM's own reason."""


def connector_package(spark_version: str) -> str:
    """Spark's Kafka source matching the running Spark (Spark 4 is Scala 2.13 only)."""
    return f"org.apache.spark:{SOURCE_ARTIFACT}:{spark_version}"


def installed_spark_version() -> str:
    """The installed pyspark's version, read without importing pyspark."""
    from importlib import metadata

    try:
        return metadata.version("pyspark")
    except metadata.PackageNotFoundError:
        raise UsageError("kafka-to-parquet needs pyspark: pip install 'kafka-group-tools[spark]'") from None


def default_jars_dir(spark_version: str) -> Path:
    return CHECKOUT / ".cache" / "spark" / spark_version / "jars"


@dataclass(frozen=True)
class KafkaSource:
    """Local jars (``spark.jars``), Maven coordinates for Spark to resolve (``spark.jars.packages``),
    or neither (spark-submit's own)."""

    jars: tuple[str, ...] = ()
    packages: str | None = None

    def conf(self) -> dict[str, str]:
        if self.packages:
            return {"spark.jars.packages": self.packages}
        if self.jars:
            return {"spark.jars": ",".join(self.jars)}
        return {}


def resolve_source(
    jars: str | None,
    packages: str | None,
    spark_version: str,
    submitted: bool = False,
    environ: dict[str, str] | None = None,
) -> KafkaSource:
    """Where the Kafka source comes from; a ``UsageError`` (nothing contacted) when it cannot be."""
    environ = dict(os.environ) if environ is None else environ
    if jars is not None and packages is not None:
        raise UsageError("--jars and --packages are alternatives: give one")
    if submitted and (jars is not None or packages is not None):
        raise UsageError("under spark-submit, give --jars or --packages to spark-submit itself")
    if packages is not None:
        if not packages.strip():
            raise UsageError(
                "--packages is empty: give Maven coordinates, e.g. " + connector_package("X.Y.Z")
            )
        return KafkaSource(packages=packages.strip())
    if submitted:
        return KafkaSource()
    named = "--jars"
    if jars is None and environ.get(JARS_ENV) is not None:
        jars, named = environ[JARS_ENV], JARS_ENV
    if jars is not None:
        if not jars.strip():
            raise UsageError(f"{named} is empty: give a directory of jars or a comma-separated list of jars")
        return KafkaSource(jars=_jar_list(jars, named, spark_version))
    default = default_jars_dir(spark_version)
    # infra.jars writes jars.complete only after a whole copy: an interrupted fetch is not used.
    if not default.is_dir() or not default.with_name("jars.complete").is_file():
        raise UsageError(
            f"Spark's Kafka source is not in {default}: {FETCH_HINT}, or give --jars DIR, "
            f"or --packages {connector_package(spark_version)} to have Spark resolve it"
        )
    return KafkaSource(jars=_jar_list(str(default), "the default jars directory", spark_version))


def _jar_list(value: str, named: str, spark_version: str) -> tuple[str, ...]:
    path = Path(value.strip())
    if "," not in value and path.is_dir():
        found = tuple(str(p.resolve()) for p in sorted(path.glob("*.jar")))
    else:
        found = tuple(str(Path(p.strip()).resolve()) for p in value.split(","))
        missing = [p for p in found if not Path(p).is_file() or not p.endswith(".jar")]
        if missing or any(not p.strip() for p in value.split(",")):
            raise UsageError(f"{named}: not a jar file or directory: {missing[0] if missing else value!r}")
    names = [Path(p).name for p in found]
    wanted = f"{SOURCE_ARTIFACT}-{spark_version}.jar"
    if wanted not in names:
        others = sorted(n for n in names if n.startswith(SOURCE_ARTIFACT))
        detail = f" (it has {', '.join(others)})" if others else ""
        raise UsageError(
            f"{named} ({value.strip()}) lacks {wanted} for pyspark {spark_version}{detail}: {FETCH_HINT}"
        )
    return found


def parse_conf(pairs: Sequence[str]) -> dict[str, str]:
    """``--conf KEY=VALUE`` pairs, as spark-submit takes them (spark.* keys only)."""
    conf: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        key = key.strip()
        if not eq or not key.startswith("spark.") or key == "spark.":
            raise UsageError(f"--conf {pair!r}: expected KEY=VALUE with a spark.* key")
        if key in ("spark.jars", "spark.jars.packages", "spark.master"):
            raise UsageError(f"--conf {key}: use --jars, --packages or --master instead")
        conf[key] = value
    return conf


def is_local_master(master: str | None) -> bool:
    return master is None or master == "local" or master.startswith("local[")


# --------------------------------------------------------------------------------------------------
# The JVM's output


_NOISE = (
    re.compile(r"^\s*$"),
    re.compile(r"^[\s:]*$"),  # Ivy's frames
    re.compile(r"^\s+at \S"),  # stack frames
    re.compile(r"^\s*\.\.\. \d+ more"),
    re.compile(r"^Picked up (JAVA_TOOL_OPTIONS|_JAVA_OPTIONS)"),
)
_CAUSE = re.compile(r"^(Exception in thread \"[^\"]*\" )?(Caused by: )?([\w$.]+(Exception|Error))(: (.*))?$")


def meaningful(lines: Iterable[str]) -> list[str]:
    """The lines that say something: no blanks, frames of colons, or stack frames."""
    return [line.rstrip() for line in lines if not any(p.match(line) for p in _NOISE)]


def failure_summary(lines: Iterable[str], keep: int = 8) -> tuple[str, list[str]]:
    """The JVM's reason (its last exception, or its last meaningful line) and its last lines."""
    said = meaningful(lines)
    cause = ""
    for line in reversed(said):
        found = _CAUSE.match(line.strip())
        if found:
            cause = found.group(6) or found.group(3)
            break
    if not cause:
        cause = said[-1].strip() if said else "it printed nothing"
    return cause, said[-keep:]


@dataclass
class JvmOutput:
    """Drains the JVM's stdout+stderr (one pipe) into a bounded tail; forwards it under --debug."""

    forward: TextIO | None = None
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=200))

    def __post_init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        self._thread = threading.Thread(target=self._drain, name="spark-jvm-output", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        with os.fdopen(self.read_fd, "r", errors="replace") as stream:
            for line in stream:
                self.tail.append(line)
                if self.forward is not None:
                    self.forward.write(line)
                    self.forward.flush()

    def detach(self) -> None:
        """Close our copy of the write end (the JVM keeps its own)."""
        if self.write_fd >= 0:
            os.close(self.write_fd)
            self.write_fd = -1

    def finish(self, timeout: float = 5.0) -> list[str]:
        self.detach()
        self._thread.join(timeout)
        return list(self.tail)


def _start_error(what: str, lines: list[str]) -> SparkStartError:
    cause, last = failure_summary(lines)
    shown = "".join(f"\n  | {line}" for line in last)
    return SparkStartError(f"{what}: {cause}", f"  the JVM's last lines:{shown}" if shown else "")


def _java_message(exc: BaseException) -> str:
    """The first line of a Java exception that py4j carries (``java.lang.X: message``)."""
    java = getattr(exc, "java_exception", None)
    if java is not None:
        try:
            return str(java.toString())
        except Exception:  # the JVM is gone
            pass
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


# --------------------------------------------------------------------------------------------------
# The session


@dataclass(frozen=True)
class SparkLaunch:
    """How to start Spark for a run (ignored when the caller hands in a session)."""

    master: str | None = None
    source: KafkaSource = KafkaSource()
    conf: dict[str, str] = field(default_factory=dict)
    debug: bool = False


def under_spark_submit() -> bool:
    """spark-submit started this Python with its JVM already running."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


BASE_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
}


def start_session(launch: SparkLaunch, app_name: str = "kafka-to-parquet") -> Any:
    """A Spark session with the Kafka source loadable, or a ``CliError`` saying why not."""
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    if under_spark_submit() or SparkContext._active_spark_context is not None:
        builder = SparkSession.builder.appName(app_name)
        if launch.master:
            builder = builder.master(launch.master)
        for key, value in {**BASE_CONF, **launch.source.conf(), **launch.conf}.items():
            builder = builder.config(key, value)
        session = builder.getOrCreate()
    else:
        session = _launch(launch, app_name, SparkConf, SparkContext, SparkSession)
    session.sparkContext.setLogLevel("ERROR")
    _check_source(session)
    return session


def _launch(launch: SparkLaunch, app_name: str, conf_cls: Any, context_cls: Any, session_cls: Any) -> Any:
    from pyspark.errors import PySparkRuntimeError
    from pyspark.java_gateway import launch_gateway

    if is_local_master(launch.master):
        # Local mode needs no address but the loopback; without this the driver binds to the
        # host's first non-loopback address.
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    conf = conf_cls().setAppName(app_name)
    if launch.master:
        conf.setMaster(launch.master)
    for key, value in {**BASE_CONF, **launch.source.conf(), **launch.conf}.items():
        conf.set(key, value)
    output = JvmOutput(forward=sys.stderr if launch.debug else None)
    try:
        # Its own session: a SIGTERM sent to our process group (timeout(1), a shell's job
        # control) reaches this process only, which then ends the landing cleanly while the JVM
        # still serves it. The JVM ends when our end of its stdin closes.
        kwargs = {"stdout": output.write_fd, "stderr": output.write_fd, "start_new_session": True}
        gateway = launch_gateway(conf, popen_kwargs=kwargs)  # type: ignore[no-untyped-call]
    except PySparkRuntimeError as exc:
        lines = output.finish()
        raise _start_error("Spark's JVM exited before it started", lines) from exc
    output.detach()
    try:
        context = context_cls(conf=conf, gateway=gateway)
    except Exception as exc:
        raise SparkStartError(f"Spark did not start: {_java_message(exc)}") from exc
    return session_cls(context)


def _check_source(session: Any) -> None:
    """Before any write: the Kafka source is on the driver's class path."""
    jvm = session.sparkContext._jvm
    if not jvm.org.apache.spark.util.Utils.classIsLoadable(SOURCE_CLASS):
        raise SparkStartError(
            f"Spark's Kafka source ({SOURCE_CLASS}) is not loaded: give spark-submit --jars with "
            f"the jars in {default_jars_dir(session.version)} (scripts/setup or "
            "python -m infra.kafka fetch-spark fetches them) "
            f"or --packages {connector_package(session.version)}"
        )
