"""kafka-to-parquet --every without Kafka or Spark: the service loop (retries within the interval,
stops, what it prints) around a scripted stand-in for the landing runs, the JSON Lines document,
and the flags' validation."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from kafka_groups.access.retry import NotAvailableInTime
from kafka_groups.errors import ClusterError, UsageError
from kafka_pipeline import service
from kafka_pipeline.cli import main
from kafka_pipeline.job import Abandoned, LandingReport, PartitionReport, StopControl
from kafka_pipeline.report import LANDING_SCHEMA, Landing, landing_document, landing_line
from kafka_pipeline.service import Progress, Service, failure_text, worth_retrying


def _report(records: int = 30, lag: int | None = 5, new: bool = False) -> LandingReport:
    report = LandingReport("1-abc", "file:/out", seconds=1.5, tasks=2, started_ms=1_795_000_000_123)
    report.partitions = [
        PartitionReport("orders", 0, 10, 10 + records, "committed", log_end=10 + records, lag=lag),
        PartitionReport("orders", 1, 0, 0, "no committed offset; earliest", log_end=0, lag=0, new=new),
    ]
    return report


class ScriptedLander:
    """Plays the given outcomes, one per landing attempt: a report, or an exception to raise."""

    def __init__(self, outcomes: list[object], stop: StopControl) -> None:
        self.outcomes = list(outcomes)
        self.stop = stop
        self.spark = None
        self.attempts = 0
        self.reconnects = 0
        self.closed = False

    def land(self) -> LandingReport:
        self.attempts += 1
        outcome = self.outcomes.pop(0)
        if callable(outcome):
            outcome = outcome()
        if isinstance(outcome, BaseException):
            raise outcome
        assert isinstance(outcome, LandingReport)
        return outcome

    def reconnect(self) -> None:
        self.reconnects += 1

    def close(self) -> None:
        self.closed = True


def _service(outcomes: list[object], every_s: float = 0.01) -> tuple[Service, ScriptedLander, io.StringIO]:
    stop = StopControl()
    lander = ScriptedLander(outcomes, stop)
    out = io.StringIO()
    progress = Progress(out, every_s, _request(), as_json=True)
    return Service(_request(), every_s, progress, lander, stop), lander, out  # type: ignore[arg-type]


def _request():
    from kafka_groups.core.policy import Policy
    from kafka_groups.settings import ConnectionSettings
    from kafka_pipeline.job import LandingRequest

    return LandingRequest(
        ConnectionSettings("b:9092", 1000), ("orders",), "g", Policy.parse("earliest"), "/out"
    )


def _documents(out: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch):
    monkeypatch.setattr(service, "FIRST_RETRY_S", 0.001)


def test_a_transient_failure_is_retried_within_the_interval(capsys):
    svc, lander, out = _service(
        [NotAvailableInTime("the coordinator of group 'g'", "COORDINATOR_LOAD_IN_PROGRESS", 1000), _report()],
        every_s=5.0,
    )
    assert svc.run(limit=1) == 0
    [doc] = _documents(out)
    assert doc["status"] == "landed" and doc["attempts"] == 2
    assert "COORDINATOR_LOAD_IN_PROGRESS" in doc["error"]
    assert lander.reconnects == 1 and lander.closed
    assert "Landing 1: attempt 1 failed" in capsys.readouterr().err


def test_failures_until_the_interval_ends_make_a_failed_landing_and_the_next_one_goes_on():
    failure = ClusterError("reading the log end offset of orders-0 failed: broker down")
    svc, lander, out = _service([failure] * 50 + [_report()], every_s=0.05)
    svc.run(limit=2)
    first, second = _documents(out)
    assert first["status"] == "failed" and first["attempts"] >= 1 and "broker down" in first["error"]
    assert first["records"] is None and first["partitions"] is None
    assert second["landing"] == 2
    assert lander.attempts == first["attempts"] + second["attempts"]


def test_a_failure_retrying_cannot_mend_ends_the_service():
    svc, lander, out = _service([UsageError("Topic(s) orders do not exist")])
    with pytest.raises(UsageError):
        svc.run()
    assert out.getvalue() == "" and lander.closed


def test_an_abandoned_landing_ends_the_service_with_status_0(capsys):
    svc, _, out = _service([_report(), Abandoned()])
    assert svc.run() == 0
    first, second = _documents(out)
    assert first["status"] == "landed" and second["status"] == "abandoned"
    assert "abandoned before anything of it was published" in capsys.readouterr().err


def test_a_stop_between_landings_ends_the_wait_at_once(capsys):
    svc, lander, out = _service([], every_s=60.0)

    def land_then_stop():
        lander.stop.ask()
        return _report()

    lander.outcomes = [land_then_stop]
    assert svc.run() == 0  # does not wait the 60 s
    assert [d["status"] for d in _documents(out)] == ["landed"]
    assert "Stopped after 1 landing(s)." in capsys.readouterr().err


def test_a_stop_after_a_failed_attempt_reports_it_as_failed():
    """The attempt may have published ranges before it failed: never called abandoned."""
    svc, lander, out = _service([], every_s=60.0)

    def fail_and_stop():
        lander.stop.ask()
        return ClusterError("committing the offsets of 'g' failed: timed out")

    lander.outcomes = [fail_and_stop]
    assert svc.run() == 0
    [doc] = _documents(out)
    assert doc["status"] == "failed" and doc["attempts"] == 1


def test_a_broken_pipe_stops_the_service_cleanly():
    class Closed(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    svc, lander, _ = _service([_report(), _report()])
    svc.progress.out = Closed()
    assert svc.run() == 0
    assert lander.attempts == 1 and lander.closed


LANDING_KEYS = {
    "schema": str,
    "landing": int,
    "status": str,
    "timestamp": str,
    "timestamp_ms": int,
    "elapsed_s": float,
    "interval_s": float,
    "group": str,
    "output": str,
    "run_id": (str, type(None)),
    "records": (int, type(None)),
    "seconds": float,
    "records_per_s": (float, type(None)),
    "lag": (int, type(None)),
    "limited": (bool, type(None)),
    "tasks": (int, type(None)),
    "superseded": (int, type(None)),
    "new_partitions": (list, type(None)),
    "attempts": int,
    "error": (str, type(None)),
    "partitions": (list, type(None)),
}
PARTITION_KEYS = {
    "topic": str,
    "partition": int,
    "start": int,
    "end": int,
    "records": int,
    "log_end_offset": int,
    "lag": (int, type(None)),
    "from": str,
    "new": bool,
}


def _check(obj, spec):
    assert set(obj) == set(spec)
    for key, kind in spec.items():
        assert isinstance(obj[key], kind), (key, obj[key])


def test_the_landing_document_has_the_documented_keys():
    doc = landing_document(
        Landing(3, "landed", 1_795_000_000_123, 12.5, _report(new=True)), 10.0, "g", "/out"
    )
    _check(doc, LANDING_KEYS)
    assert doc["schema"] == LANDING_SCHEMA == "kafka-group-tools/landing/v1"
    assert doc["timestamp"] == "2026-11-18T11:06:40.123Z"
    assert (doc["records"], doc["lag"], doc["records_per_s"]) == (30, 5, 20.0)
    assert doc["new_partitions"] == [{"topic": "orders", "partition": 1}]
    for row in doc["partitions"]:
        _check(row, PARTITION_KEYS)
    failed = landing_document(
        Landing(4, "failed", 1_795_000_000_123, 13.0, None, 3, "down", 4.25), 10.0, "g", "/o"
    )
    _check(failed, LANDING_KEYS)
    assert (failed["records"], failed["partitions"], failed["seconds"], failed["output"]) == (
        None,
        None,
        4.25,
        "/o",
    )
    docs = (DOCS / "json.md").read_text()
    section = docs[docs.index("### `kafka-group-tools/landing/v1`") :]
    for key in LANDING_KEYS:
        assert f"| `{key}` |" in section, f"docs/json.md does not document {key}"
    for key in PARTITION_KEYS:
        assert f"`partitions[].{key}`" in section or f", `{key}` |" in section, f"partitions[].{key}"


def test_the_terminal_line_says_records_rate_and_lag():
    line = landing_line(Landing(3, "landed", 1_795_000_000_123, 12.5, _report(new=True), 2, "timed out"))
    assert line.startswith("2026-11-18T11:06:40Z landing 3: 30 records in 1.50 s (20 records/s), lag 5")
    assert "new partitions orders-1" in line and "after 1 failed attempt(s): timed out" in line
    unknown = landing_line(Landing(1, "landed", 0, 0.0, _report(lag=None)))
    assert "lag unknown" in unknown
    assert "failed (3 attempts): down" in landing_line(Landing(4, "failed", 0, 1.0, None, 3, "down"))


def test_what_is_worth_another_attempt():
    assert worth_retrying(NotAvailableInTime("the leader of orders-0", "no leader", 1000))
    assert worth_retrying(ClusterError("committing the offsets of 'g' failed: NOT_COORDINATOR"))
    assert not worth_retrying(ClusterError("reading ... failed: not authorized (TOPIC_AUTHORIZATION_FAILED)"))
    assert not worth_retrying(UsageError("Topic(s) orders do not exist"))
    assert not worth_retrying(OSError("could not publish"))
    assert worth_retrying(ConnectionRefusedError())

    class CapturedException(Exception):
        pass

    CapturedException.__module__ = "pyspark.errors.exceptions.captured"
    read_timeout = CapturedException(
        "Job aborted due to stage failure: Task 0 in stage 3.0 failed 1 times, most recent failure: "
        "org.apache.kafka.common.errors.TimeoutException: Timeout of 60000ms expired before the "
        "position for partition orders-0 could be determined"
    )
    assert worth_retrying(read_timeout)
    assert "TimeoutException" in failure_text(read_timeout)
    assert not worth_retrying(CapturedException("[PATH_NOT_FOUND] Path does not exist"))


def test_the_service_settings_keep_the_drivers_memory_bounded_and_conf_wins():
    from kafka_pipeline.session import SparkLaunch

    launch = service.service_conf(SparkLaunch(conf={"spark.ui.retainedJobs": "7"}))
    assert launch.conf["spark.ui.retainedJobs"] == "7"
    assert launch.conf["spark.sql.ui.retainedExecutions"] == "50"


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--every", "0"], "--every 0: give the seconds between landings"),
        (["--every", "-5"], "--every -5: give the seconds"),
        (["--every", "86401"], "at most 86400"),
        (["--every", "soon"], "Invalid value for '--every'"),
        (["--every", ""], "Invalid value for '--every'"),
        (["--max-records", "0"], "--max-records 0: give a whole number from 1"),
        (["--max-records", "1e3"], "Invalid value for '--max-records'"),
        (["--min-partitions", "0"], "--min-partitions 0: give a whole number from 1 to 2147483647"),
        (["--min-partitions", "2147483648"], "--min-partitions 2147483648"),
    ],
)
def test_bad_values_are_one_line_and_exit_2(capsys, tmp_path, extra, says):
    argv = ["--bootstrap-server", "b:1", "--topic", "t", "--group", "g", "--output", str(tmp_path / "o")]
    with pytest.raises(SystemExit) as exited:
        main([*argv, *extra])
    said = capsys.readouterr()
    assert exited.value.code == 2, said.err
    assert said.out == "" and len(said.err.strip().splitlines()) == 1 and says in said.err, said.err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_names_the_service_flags(capsys, flag):
    with pytest.raises(SystemExit) as exited:
        main([flag])
    said = capsys.readouterr()
    assert exited.value.code == 0, said.err
    assert all(f in said.out for f in ("--every", "--max-records", "--min-partitions")), said.out


def _settings_of_a_run(monkeypatch, tmp_path, argv: list[str], environ: dict[str, str]):
    """The exit status, and the connection settings kafka-to-parquet's command line resolved to
    (the run itself not made), with clusters.toml in a temporary XDG_CONFIG_HOME."""
    folder = tmp_path / "xdg" / "kafka-group-tools"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "clusters.toml").write_text(
        '[clusters.dev]\nbootstrap-server = "dev:9092"\ntimeout = 12000\n\n'
        '[clusters.prod]\nbootstrap-server = "prod:9092"\nprotected = true\n'
    )
    for name in (
        "KAFKA_TOOLS_CLUSTER",
        "KAFKA_BOOTSTRAP_SERVERS",
        "KAFKA_COMMAND_CONFIG",
        "KAFKA_TOOLS_TIMEOUT_MS",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    seen = []
    monkeypatch.setattr(service, "run_once", lambda request, launch: seen.append(request.settings) or 0)
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--topic", "t", "--group", "g", "--output", str(tmp_path / "o")])
    return exited.value.code, seen


@pytest.mark.parametrize(
    ("argv", "environ", "servers", "name", "timeout_ms"),
    [
        (["--cluster", "dev"], {}, "dev:9092", "dev", 12000),
        ([], {"KAFKA_TOOLS_CLUSTER": "dev"}, "dev:9092", "dev", 12000),
        (["--cluster", "dev", "--bootstrap-server", "b:1", "--timeout", "5000"], {}, "b:1", "dev", 5000),
        (["--cluster", "dev"], {"KAFKA_BOOTSTRAP_SERVERS": "env:1"}, "dev:9092", "dev", 12000),
        ([], {"KAFKA_BOOTSTRAP_SERVERS": "env:1", "KAFKA_TOOLS_TIMEOUT_MS": "7000"}, "env:1", None, 7000),
        (["--bootstrap-server", "b:1"], {}, "b:1", None, 30000),
        (["--cluster", "prod", "--yes"], {}, "prod:9092", "prod", 30000),
    ],
)
def test_a_named_cluster_and_the_flags_resolve_as_in_the_other_tools(
    monkeypatch, tmp_path, argv, environ, servers, name, timeout_ms
):
    """Flags win over the cluster, the cluster over the environment; --timeout's default is the
    cluster's, else KAFKA_TOOLS_TIMEOUT_MS, else 30 s."""
    code, seen = _settings_of_a_run(monkeypatch, tmp_path, argv, environ)
    assert (code, len(seen)) == (0, 1)
    settings = seen[0]
    assert (settings.bootstrap_servers, settings.cluster_name, settings.timeout_ms) == (
        servers,
        name,
        timeout_ms,
    )
    assert settings.protected == (name == "prod") and settings.assume_yes == ("--yes" in argv)


def test_a_protected_cluster_without_a_terminal_or_yes_is_one_line_and_exit_2(monkeypatch, tmp_path, capsys):
    code, seen = _settings_of_a_run(monkeypatch, tmp_path, ["--cluster", "prod"], {})
    said = capsys.readouterr()
    assert (code, seen) == (2, [])
    assert said.out == ""
    assert said.err.splitlines() == [
        "Error: cluster 'prod' is protected: a write to it needs --yes where there is no terminal to "
        "confirm on; nothing was sent"
    ]


def test_a_signal_while_the_operator_is_asked_abandons_the_run_at_once():
    """The confirmation of a protected cluster waits on the terminal: SIGTERM or Ctrl-C there does
    not wait for an answer (nothing is written before it)."""
    import os
    import signal

    stop = StopControl()
    with service.stop_on_signals(stop), pytest.raises(Abandoned), stop.prompt():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises in here
    assert stop.asked.is_set() and not stop.prompting

    # Outside a prompt a signal only asks for the stop.
    stop = StopControl()
    with service.stop_on_signals(stop):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.1)
    assert stop.asked.is_set()
