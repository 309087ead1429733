"""Bounded and strict input against the real broker: plan files with a byte order mark, a
plan of 200,000 rows executed and exported within 150 MB and one beyond the row limit refused, unknown
partitions reported as a few and a count, properties files with a byte order mark, and
malformed connection settings refused in every tool before anything connects."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition

from kafka_groups.core.reset import ENV_MAX_PLAN_ROWS, MAX_PLAN_ROWS
from tests.kafka_helpers import Record, admin, commit_offsets, committed, create_topic, produce, unique

pytestmark = pytest.mark.kafka

ROOT = Path(__file__).resolve().parents[2]
TOOLS = {
    "kafka-consumer-groups": ("kafka_groups.cli.consumer_groups", ["--list"]),
    "kafka-streams-groups": ("kafka_groups.cli.streams_groups", ["--list"]),
    "kafka-topics": ("kafka_topics.cli", ["--list"]),
}
BUDGET_MB = 100
PLAN_BUDGET_MB = 150  # plans, backups, --export and --from-file of 200,000 rows


# Runs the tool as its child and writes the child's peak RSS (KiB, from wait4) to argv[1].
# The measuring process is small and fresh: a process forked straight from pytest would count
# pytest's own pages, which the fork shares until exec, in its peak.
_MEASURE = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
open(sys.argv[1], "w").write(f"{usage.ru_maxrss}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _peak_rss(
    tmp_path: Path, tool: str, *args: str, env: dict[str, str] | None = None
) -> tuple[int, str, str, float]:
    """Run one of our tools; its exit code, stdout, stderr and peak RSS in MB."""
    out, err, peak = tmp_path / "stdout", tmp_path / "stderr", tmp_path / "peak"
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    env.pop("KAFKA_TOOLS_OUTPUT", None)
    argv = [sys.executable, "-c", _MEASURE, str(peak), sys.executable, "-m", TOOLS[tool][0], *args]
    with out.open("w") as so, err.open("w") as se:
        code = subprocess.run(
            argv, stdout=so, stderr=se, stdin=subprocess.DEVNULL, env=env, timeout=600
        ).returncode
    return code, out.read_text(), err.read_text(), int(peak.read_text()) / 1024


@pytest.fixture(scope="module")
def topic(broker):
    name = create_topic(broker.bootstrap, unique("b-orders"), partitions=3)
    produce(broker.bootstrap, name, [Record(p, f"v{i}") for p in range(3) for i in range(10)])
    return name


def test_a_plan_with_a_byte_order_mark_executes(broker, topic, ours, tmp_path):
    bs = broker.bootstrap
    group = unique("b-bom")
    commit_offsets(bs, group, {(topic, p): 1 for p in range(3)})
    plan = tmp_path / "plan.csv"
    plan.write_bytes(b"\xef\xbb\xbf" + f"{topic},0,7\r\n{topic},2,4\r\n".encode())
    result = ours(
        "kafka-consumer-groups", "--bootstrap-server", bs, "--group", group, "--reset-offsets",
        "--from-file", str(plan), "--execute", "--backup-dir", str(tmp_path),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert committed(bs, group) == {(topic, 0): 7, (topic, 1): 1, (topic, 2): 4}


def test_a_non_number_offset_is_named_and_changes_nothing(broker, topic, ours, tmp_path):
    bs = broker.bootstrap
    group = unique("b-nan")
    commit_offsets(bs, group, {(topic, 0): 1})
    plan = tmp_path / "plan.csv"
    plan.write_text(f"{topic},0,2\n{topic},1,abc\n")
    result = ours(
        "kafka-consumer-groups", "--bootstrap-server", bs, "--group", group, "--reset-offsets",
        "--from-file", str(plan), "--execute", "--backup-dir", str(tmp_path),
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"Error: --from-file {plan} line 2: the offset 'abc' is not a number "
        "(partition and offset must be whole numbers)"
    )
    assert result.stdout == ""
    assert committed(bs, group) == {(topic, 0): 1}


PLAN_ROWS = 200_000  # the rows of a plan that must work by default within PLAN_BUDGET_MB
WIDE_PARTITIONS = 200


@pytest.fixture(scope="module")
def wide(broker):
    """A plan of PLAN_ROWS valid rows: 200 partitions of one topic for each of PLAN_ROWS / 200
    groups, every group with committed offsets. (One broker here holds about 14,000
    partitions: the rows of so large a plan are spread over groups; a single group of 200,000
    partitions is measured in bench/reset_scale.py and tests/unit/test_offset_table.py.)"""
    bs = broker.bootstrap
    partitions = WIDE_PARTITIONS
    name = create_topic(bs, unique("b-wide"), partitions=partitions)
    produce(bs, name, [Record(p, "x") for p in range(partitions) for _ in range(2)])
    groups = [unique("b-wide") for _ in range(PLAN_ROWS // partitions)]
    client = admin(bs)
    for start in range(0, len(groups), 50):
        futures = []
        for group in groups[start : start + 50]:
            offsets = [TopicPartition(name, p, 0) for p in range(partitions)]
            request = ConsumerGroupTopicPartitions(group, offsets)
            futures += client.alter_consumer_group_offsets([request], request_timeout=30).values()
        for future in futures:
            future.result(timeout=60)
    rows = "".join(f"{g},{name},{p},1\n" for g in groups for p in range(partitions))
    return name, groups, rows


def test_a_plan_of_200000_rows_executes_within_the_memory_budget(broker, wide, tmp_path):
    """--from-file of 200,000 rows, with --execute: read, planned, backed up, committed, read
    back; and its --export, within PLAN_BUDGET_MB, the default row limit far away."""
    name, groups, rows = wide
    plan = tmp_path / "plan.csv"
    plan.write_text(rows)
    flags = [f for g in groups for f in ("--group", g)]
    code, out, err, peak = _peak_rss(
        tmp_path, "kafka-consumer-groups", "--bootstrap-server", broker.bootstrap, "--reset-offsets", *flags,
        "--from-file", str(plan), "--execute", "--backup-dir", str(tmp_path / "backups"),
        "--timeout", "60000",
    )  # fmt: skip
    assert code == 0, err[-500:]
    assert out.count(f" {name} ") == PLAN_ROWS
    assert peak < PLAN_BUDGET_MB, f"peak RSS {peak:.1f} MB"
    [backup] = (tmp_path / "backups").glob("*.csv")
    assert sum(1 for _ in backup.open()) == PLAN_ROWS
    code, out, err, peak = _peak_rss(
        tmp_path, "kafka-consumer-groups", "--bootstrap-server", broker.bootstrap, "--reset-offsets", *flags,
        "--from-file", str(plan), "--dry-run", "--export", "--timeout", "60000",
    )  # fmt: skip
    assert code == 0, err[-500:]
    assert sorted(out.split()) == sorted(rows.split())
    assert peak < PLAN_BUDGET_MB, f"peak RSS {peak:.1f} MB"


def test_a_plan_beyond_the_row_limit_is_refused_within_the_memory_budget(broker, tmp_path):
    """The default limit is far above any cluster: a lowered one shows the refusal, and its
    message says how to apply such a plan."""
    limit = 50_000
    plan = tmp_path / "plan.csv"
    with plan.open("w") as f:  # twenty times the limit: refused once the limit is passed
        for i in range(limit * 20):
            f.write(f"t,{i},0\n")
    code, out, err, peak = _peak_rss(
        tmp_path, "kafka-consumer-groups", "--bootstrap-server", broker.bootstrap, "--group", "g",
        "--reset-offsets", "--from-file", str(plan), "--execute", env={ENV_MAX_PLAN_ROWS: str(limit)},
    )  # fmt: skip
    assert code == 2
    assert out == ""
    assert err.strip() == (
        f"Error: --from-file {plan} has more than {limit:,} rows, the most one reset takes (the default, "
        f"{MAX_PLAN_ROWS:,}, is more partitions than a Kafka cluster holds): to apply it, set "
        f"{ENV_MAX_PLAN_ROWS} to its number of rows, or split it by group or topic"
    )
    assert peak < BUDGET_MB / 2, f"peak RSS {peak:.1f} MB"


@pytest.mark.parametrize("source", ["/dev/zero", "binary"])
def test_a_file_that_is_no_plan_fails_on_its_first_line(broker, tmp_path, source):
    if source == "binary":
        source = str(tmp_path / "plan.bin")
        Path(source).write_bytes(bytes(range(256)) * 40_000)
    code, out, err, peak = _peak_rss(
        tmp_path, "kafka-consumer-groups", "--bootstrap-server", broker.bootstrap, "--group", "g",
        "--reset-offsets", "--from-file", source, "--execute",
    )  # fmt: skip
    assert code == 2
    assert out == ""
    assert err.startswith(f"Error: --from-file {source} line 1 ")
    assert err.endswith("not a reset plan (CSV text)\n")
    assert peak < BUDGET_MB / 2, f"peak RSS {peak:.1f} MB"


UNKNOWN_ROWS = 50_000


def test_unknown_partitions_are_a_few_and_a_count(broker, topic, tmp_path):
    plan = tmp_path / "plan.csv"
    plan.write_text("".join(f"{topic},{p},0\n" for p in range(UNKNOWN_ROWS)))
    group = unique("b-unknown")
    code, _out, err, peak = _peak_rss(
        tmp_path, "kafka-consumer-groups", "--bootstrap-server", broker.bootstrap, "--group", group,
        "--reset-offsets", "--from-file", str(plan), "--execute", "--backup-dir", str(tmp_path),
    )  # fmt: skip
    assert code == 1
    shown = ",".join(f"{topic}-{p}" for p in range(3, 8))
    assert err.strip() == f'Error: The partitions "{shown} and {UNKNOWN_ROWS - 8:,} more" do not exist'
    assert peak < BUDGET_MB, f"peak RSS {peak:.1f} MB"


def test_a_properties_file_with_a_byte_order_mark(broker, ours, tmp_path):
    config = tmp_path / "client.properties"
    config.write_bytes(b"\xef\xbb\xbfclient.id=bounds-bom\nsecurity.protocol=PLAINTEXT\n")
    for tool in TOOLS:
        result = ours(tool, "--bootstrap-server", broker.bootstrap, "--command-config", str(config), "--list")
        assert result.returncode == 0, (tool, result.stderr)
        assert result.stderr == "", tool  # no "unsupported client properties: \ufeffclient.id"


BAD_BOOTSTRAP = {
    "host:abc": "Invalid --bootstrap-server address 'host:abc'",
    "host:": "Invalid --bootstrap-server address 'host:'",
    ":9092": "Invalid --bootstrap-server address ':9092'",
    "host:99999": "Invalid --bootstrap-server address 'host:99999'",
    "good:1,host:x": "Invalid --bootstrap-server address 'host:x'",
    " ": "--bootstrap-server is blank",
}


@pytest.mark.parametrize("tool", sorted(TOOLS))
@pytest.mark.parametrize("value", sorted(BAD_BOOTSTRAP))
def test_malformed_bootstrap_is_a_usage_error_in_every_tool(ours, tool, value):
    result = ours(tool, "--bootstrap-server", value, *TOOLS[tool][1])
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith(f"Error: {BAD_BOOTSTRAP[value]}")
    assert len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.stderr and "unexpected failure" not in result.stderr


@pytest.mark.parametrize("tool", ["kafka-consumer-groups", "kafka-streams-groups"])
def test_timeout_zero_has_its_own_message(broker, ours, tool):
    result = ours(tool, "--bootstrap-server", broker.bootstrap, "--list", "--timeout", "0")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "Error: --timeout 0 leaves no time to reach the cluster: give milliseconds, e.g. 5000"
    )


LONGEST = "Error: --timeout must be at most 2147483647 ms (about 24.8 days), got 9223372036854775807"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("kafka-consumer-groups", ["--list"]),
        ("kafka-consumer-groups", ["--delete-offsets", "--group", "g", "--topic", "no-such-topic"]),
        ("kafka-streams-groups", ["--list"]),
    ],
)
def test_a_timeout_longer_than_the_clients_can_wait_is_refused(broker, ours, tool, args):
    """A call given more than 2**31 - 1 ms times out at once in librdkafka: a --delete-offsets of
    a missing topic then retried until a deadline that never came (found by the argv fuzz)."""
    result = ours(tool, "--bootstrap-server", broker.bootstrap, *args, "--timeout", "9223372036854775807")
    assert (result.returncode, result.stdout, result.stderr.strip()) == (2, "", LONGEST)


@pytest.mark.parametrize("timeout", ["3700000", "2147483647"])
def test_a_timeout_over_an_hour_gives_what_the_default_gives(broker, ours, timeout):
    """confluent-kafka takes a request_timeout of an hour at most: a longer --timeout once ended
    in "unexpected failure: ValueError"; each call now waits an hour at most."""
    group = unique("long-timeout")
    commit_offsets(broker.bootstrap, group, {(create_topic(broker.bootstrap, unique("lt")), 0): 0})
    args = ["--bootstrap-server", broker.bootstrap, "--describe", "--group", group]
    longer = ours("kafka-consumer-groups", *args, "--timeout", timeout)
    default = ours("kafka-consumer-groups", *args)
    assert longer.returncode == default.returncode == 0, longer.stderr
    assert longer.stdout == default.stdout


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_a_non_numeric_timing_property_names_its_key(broker, ours, tool, tmp_path):
    config = tmp_path / "client.properties"
    config.write_text("request.timeout.ms=abc\n")
    result = ours(tool, "--bootstrap-server", broker.bootstrap, "--command-config", str(config), "--list")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "Error: request.timeout.ms=abc is not a valid number (whole milliseconds, 0 to 2147483647)"
    )


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_control_characters_from_a_properties_file_are_escaped(broker, ours, tool, tmp_path):
    config = tmp_path / "client.properties"
    config.write_bytes(b"\x1b[2Jcustom.key=1\n")
    result = ours(tool, "--bootstrap-server", broker.bootstrap, "--command-config", str(config), "--list")
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stderr
    assert "unsupported client properties: \\x1b[2Jcustom.key" in result.stderr
