"""kafka-to-parquet as a service: ``--every SECONDS`` lands once per interval on one Spark session
until SIGTERM or Ctrl-C, and a single run stops the same clean way.

Each landing is the ordinary exactly-once run (:class:`kafka_pipeline.job.Lander`). What the
service adds:

- **Signals.** SIGINT and SIGTERM only ask for a stop (:class:`kafka_pipeline.job.StopControl`).
  Between landings the service ends at once. A landing still reading is cancelled and abandoned
  (nothing of it published; the group's offsets are where they were); one publishing or committing
  is finished first. Either way the exit status is 0.
- **Transient failures** (a coordinator loading or moving, a broker restarting, a leader changing,
  a Spark read that timed out on a paused broker) are retried with backoff within the interval, on
  new connections; a landing that still fails when the interval is over is reported as failed, and
  the next interval tries again. Failures that retrying cannot mend (bad input, a missing topic,
  an authorization, Spark itself gone, the sink refusing a write) end the service with exit 1.
- **Progress**: one line per landing on a terminal, one JSON document per landing when piped
  (``kafka-group-tools/landing/v1``, docs/json.md), each flushed as it is written.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from kafka_groups.access.retry import is_retriable
from kafka_groups.core.policy import Policy, Start
from kafka_groups.errors import CliError, UsageError
from kafka_pipeline.job import Abandoned, Lander, LandingRequest, StopControl
from kafka_pipeline.report import Landing, landing_document_line, landing_line, report_text
from kafka_pipeline.session import SparkLaunch, SparkStartError

log = logging.getLogger(__name__)

LONGEST_EVERY_S = 86400.0
FIRST_RETRY_S = 0.5
LONGEST_RETRY_S = 10.0
# Spark keeps what it knows of finished jobs, stages and queries up to these counts (its defaults
# are 1,000 each): a service that lands every few seconds would grow the driver for hours before
# reaching them. --conf overrides each.
SERVICE_SPARK_CONF = {
    "spark.ui.retainedJobs": "50",
    "spark.ui.retainedStages": "50",
    "spark.sql.ui.retainedExecutions": "50",
}

# What a failed Spark read says when the cause passes by itself: the Kafka client's retriable
# exceptions (a paused or restarting broker, a moved leader), records deleted between planning and
# reading (the next attempt plans again and applies the --invalid strategy), an executor lost.
TRANSIENT_SPARK_SIGNS = (
    "org.apache.kafka.common.errors.TimeoutException",
    "org.apache.kafka.common.errors.NotLeaderOrFollowerException",
    "org.apache.kafka.common.errors.LeaderNotAvailableException",
    "org.apache.kafka.common.errors.NetworkException",
    "org.apache.kafka.common.errors.DisconnectException",
    "org.apache.kafka.common.errors.UnknownLeaderEpochException",
    "org.apache.kafka.common.errors.FencedLeaderEpochException",
    "org.apache.kafka.common.errors.KafkaStorageException",
    "org.apache.kafka.common.errors.OffsetNotAvailableException",
    "org.apache.kafka.common.errors.UnknownTopicOrPartitionException",
    "KAFKA_DATA_LOSS",
    "ExecutorLostFailure",
)


def check_every(every_s: float | None) -> None:
    if every_s is not None and not 0 < every_s <= LONGEST_EVERY_S:
        raise UsageError(
            f"--every {every_s:g}: give the seconds between landings, more than 0 and at most 86400"
        )


def check_bounds(max_records: int | None, min_partitions: int | None) -> None:
    limits = (("--max-records", max_records, 2**63 - 1), ("--min-partitions", min_partitions, 2**31 - 1))
    for flag, value, largest in limits:
        if value is not None and not 1 <= value <= largest:
            raise UsageError(f"{flag} {value}: give a whole number from 1 to {largest}")


def warn_policy(policy: Policy) -> None:
    """A service whose policy starts a partition added while it runs at the partition's end
    skips what was written there before the next landing found it: say so once."""
    if policy.start in (Start.LATEST, Start.LATEST_ON_START) and policy.max_age_ms is None:
        print(
            f"Warning: with --policy {policy.start.value}, a partition added while the service runs "
            "starts at its end when a landing finds it: records written to it before then are "
            "skipped. --policy earliest or to_start_time (or latest with --max-age) land them.",
            file=sys.stderr,
        )


def service_conf(launch: SparkLaunch) -> SparkLaunch:
    """The launch with the service's Spark settings under those given with --conf."""
    return SparkLaunch(launch.master, launch.source, {**SERVICE_SPARK_CONF, **launch.conf}, launch.debug)


def _java_texts(exc: BaseException) -> list[str]:
    """The Java exception behind a PySpark or py4j error and its causes, as text (empty for
    other errors, or when the JVM cannot be asked)."""
    origin = getattr(exc, "_origin", None) or getattr(exc, "java_exception", None)
    texts: list[str] = []
    while origin is not None and len(texts) < 20:
        try:
            texts.append(str(origin.toString()))
            origin = origin.getCause()
        except Exception:
            break
    return texts


def _from_spark(exc: BaseException) -> bool:
    return type(exc).__module__.split(".")[0] in ("pyspark", "py4j")


def worth_retrying(exc: BaseException) -> bool:
    """Whether another attempt of the landing, on new connections, may succeed."""
    if isinstance(exc, (UsageError, SparkStartError)):
        return False
    if isinstance(exc, CliError):  # the cluster's answer, after the access layer's own retries
        return "not authorized" not in exc.message
    if _from_spark(exc):
        said = "\n".join([str(exc), *_java_texts(exc)])
        return any(sign in said for sign in TRANSIENT_SPARK_SIGNS)
    return is_retriable(exc)


def failure_text(exc: BaseException) -> str:
    """One line for a failed attempt."""
    if isinstance(exc, CliError):
        return exc.message
    texts = _java_texts(exc)
    if texts:
        kafka = [t for t in texts if "org.apache.kafka" in t or "KAFKA_" in t]
        first = (kafka or texts)[-1]
    else:
        first = str(exc).strip() or type(exc).__name__
    line = first.strip().splitlines()[0] if first.strip() else type(exc).__name__
    return line if len(line) <= 300 else line[:297] + "..."


def _spark_is_gone(lander: Lander) -> bool:
    spark = lander.spark
    if spark is None:
        return False
    try:
        return bool(spark.sparkContext._jsc.sc().isStopped())
    except Exception:
        return True


@contextmanager
def stop_on_signals(stop: StopControl) -> Iterator[None]:
    """SIGINT and SIGTERM ask ``stop``; the handlers before are restored afterwards."""

    def asked(signum: int, frame: Any) -> None:
        stop.ask()
        if stop.prompting:  # the answer read from the terminal is not waited for
            raise Abandoned()

    previous = {sig: signal.signal(sig, asked) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class Progress:
    """Where each landing is told: a line on a terminal, JSON Lines otherwise (or as
    KAFKA_TOOLS_OUTPUT says: ``json`` or ``text``)."""

    def __init__(
        self, out: TextIO, every_s: float, request: LandingRequest, as_json: bool | None = None
    ) -> None:
        self.out = out
        self.every_s = every_s
        self.request = request
        if as_json is None:
            chosen = os.environ.get("KAFKA_TOOLS_OUTPUT", "").strip().lower()
            as_json = chosen == "json" or (chosen not in ("text", "table") and not _isatty(out))
        self.as_json = as_json

    def tell(self, landing: Landing) -> None:
        if self.as_json:
            text = landing_document_line(landing, self.every_s, self.request.group, self.request.output)
        else:
            text = landing_line(landing)
        self.out.write(text + "\n")
        self.out.flush()


def _isatty(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False


def run_once(request: LandingRequest, launch: SparkLaunch) -> int:
    """One landing (no --every): the table of what it landed; a stop asked while it reads
    abandons it cleanly (exit 0)."""
    stop = StopControl()
    lander = Lander(request, launch=launch, stop=stop)
    with stop_on_signals(stop):
        try:
            report = lander.land()
        except Abandoned:
            print(
                "Stopped: the landing was abandoned before anything of it was published; "
                "the next run lands the same records.",
                file=sys.stderr,
            )
            return 0
        finally:
            lander.close()
    print(report_text(report))
    return 0


class Service:
    """``--every``: landings on one :class:`Lander` until a stop."""

    def __init__(
        self,
        request: LandingRequest,
        every_s: float,
        progress: Progress,
        lander: Lander | None = None,
        stop: StopControl | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.request = request
        self.every_s = every_s
        self.progress = progress
        self.stop = stop or (lander.stop if lander is not None else StopControl())
        self.lander = lander or Lander(request, stop=self.stop)
        self.clock = clock
        self.began = clock()
        self.landings = 0

    def run(self, limit: int | None = None) -> int:
        """Land until stopped (or ``limit`` landings, for tests and benchmarks); exit status."""
        next_at = self.clock()
        try:
            while not self.stop.asked.is_set() and (limit is None or self.landings < limit):
                self.landings += 1
                deadline = next_at + self.every_s
                landing = self._interval(self.landings, deadline)
                try:
                    self.progress.tell(landing)
                except BrokenPipeError:  # whoever read the progress is gone: stop, cleanly
                    _quiet_stdout()
                    break
                if landing.status == "abandoned":
                    print(
                        f"Stopped: landing {landing.number} was abandoned before anything of it was "
                        "published; the next run lands the same records.",
                        file=sys.stderr,
                    )
                    return 0
                next_at = max(deadline, self.clock())  # an overrun is not made up by a burst
                if limit is None or self.landings < limit:
                    self.rest(max(next_at - self.clock(), 0.0))
        finally:
            self.lander.close()
        if self.stop.asked.is_set():
            print(f"Stopped after {self.landings} landing(s).", file=sys.stderr)
        return 0

    def _interval(self, number: int, deadline: float) -> Landing:
        started_ms, began = int(time.time() * 1000), self.clock()
        since = began - self.began
        attempts, error = 0, None
        while True:
            attempts += 1
            try:
                report = self.lander.land()
                return Landing(number, "landed", started_ms, since, report, attempts, error)
            except Abandoned:
                return Landing(number, "abandoned", started_ms, since, None, attempts, error)
            except Exception as exc:
                if _spark_is_gone(self.lander):
                    raise CliError(f"Spark stopped; the service cannot go on ({failure_text(exc)})") from exc
                if not worth_retrying(exc):
                    raise
                error = failure_text(exc)
                log.info("landing %d, attempt %d failed", number, attempts, exc_info=True)
            self.lander.reconnect()
            pause = min(FIRST_RETRY_S * 2 ** (attempts - 1), LONGEST_RETRY_S)
            # A stop after a failed attempt ends the service; that attempt may have published
            # ranges before it failed (the next run adopts them), so it is reported as failed.
            if self.stop.asked.is_set() or self.clock() + pause >= deadline:
                seconds = self.clock() - began
                return Landing(number, "failed", started_ms, since, None, attempts, error, seconds)
            print(
                f"Landing {number}: attempt {attempts} failed ({error}); trying again in {pause:.1f} s",
                file=sys.stderr,
                flush=True,
            )
            if self.stop.asked.wait(pause):
                return Landing(
                    number, "failed", started_ms, since, None, attempts, error, self.clock() - began
                )

    def rest(self, seconds: float) -> None:
        """The wait between landings; a stop ends it."""
        self.stop.asked.wait(seconds)


def _quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so that the exit's flush says nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def run_every(request: LandingRequest, launch: SparkLaunch, every_s: float) -> int:
    """``--every``: land every ``every_s`` seconds until SIGTERM or Ctrl-C."""
    stop = StopControl()
    with stop_on_signals(stop):
        lander = Lander(request, launch=service_conf(launch), stop=stop)
        progress = Progress(sys.stdout, every_s, request)
        topics = ", ".join(request.topics)
        print(
            f"Landing {topics} into {request.output} every {every_s:g} s (group {request.group}); "
            "SIGTERM or Ctrl-C stops after the landing in progress",
            file=sys.stderr,
            flush=True,
        )
        return Service(request, every_s, progress, lander, stop).run()
