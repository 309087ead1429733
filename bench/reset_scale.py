"""``--reset-offsets --execute`` of one group of N partitions (10,000 to 100,000: beyond one
batch of ``__consumer_offsets`` from about 12,000), ours beside references in the same run:

- ``ours``: ``kafka-consumer-groups --group G --topic T --reset-offsets --to-earliest --execute``
  (backup, re-check, commit in one transaction where one batch does not hold it, read-back);
- ``Apache``: the pinned Apache tool, the same arguments;
- ``AdminClient``: confluent-kafka's ``alter_consumer_group_offsets`` of the same offsets in one
  call, what a plain client does (the broker refuses it whole beyond one batch).

Each command runs alternately ``--runs`` times; the table gives the median wall time, the peak
RSS of the command's process and its exit statuses. A broker holds about 14,000 partitions here
(20,000 open files per process): 100,000 partitions take eight nodes
(``python -m infra.kafka start --nodes 8``).

    python -m bench.reset_scale --bootstrap B --partitions 30000 --setup
    python -m bench.reset_scale --bootstrap B --partitions 30000 --runs 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import measure  # noqa: E402
from infra import kafka as local_kafka  # noqa: E402

STEP = 5000  # partitions per CreatePartitions and per setup commit (the controller takes 10,000)

ADMIN_COMMIT = """
import sys
from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
from confluent_kafka.admin import AdminClient
bootstrap, topic, group, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
admin = AdminClient({"bootstrap.servers": bootstrap})
request = ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p, 0) for p in range(count)])
result = admin.alter_consumer_group_offsets([request], request_timeout=120)[group].result(180)
sys.exit(1 if any(tp.error for tp in result.topic_partitions) else 0)
"""


def names(partitions: int) -> tuple[str, str]:
    return f"scale-reset-{partitions}", f"scale-reset-{partitions}-group"


def setup(bootstrap: str, partitions: int) -> None:
    """The topic (grown in steps, no records) and the group, offsets committed in slices."""
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

    topic, group = names(partitions)
    admin = AdminClient({"bootstrap.servers": bootstrap, "socket.timeout.ms": 300000})
    try:
        admin.create_topics([NewTopic(topic, min(partitions, STEP), 1)], operation_timeout=600)[topic].result(
            900
        )
    except Exception as exc:
        if "TOPIC_ALREADY_EXISTS" not in str(exc):
            raise
    for total in range(2 * STEP, partitions + STEP, STEP):
        current = len(admin.list_topics(topic, timeout=120).topics[topic].partitions)
        if current < min(total, partitions):
            grown = admin.create_partitions(
                [NewPartitions(topic, min(total, partitions))], operation_timeout=600
            )
            grown[topic].result(900)
        print(f"{min(total, partitions)} partitions", flush=True)
    deadline = time.monotonic() + 1800
    while time.monotonic() < deadline:
        described = admin.list_topics(topic, timeout=120).topics[topic].partitions
        if len(described) == partitions and all(p.leader >= 0 for p in described.values()):
            break
        time.sleep(5)
    for start in range(0, partitions, STEP):
        offsets = [TopicPartition(topic, p, 0) for p in range(start, min(partitions, start + STEP))]
        for attempt in range(5):
            try:
                request = ConsumerGroupTopicPartitions(group, offsets)
                admin.alter_consumer_group_offsets([request], request_timeout=300)[group].result(600)
                break
            except Exception:
                if attempt == 4:
                    raise
                time.sleep(5)
    print("set up", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--partitions", type=int, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--setup", action="store_true", help="make the topic and the group, then stop")
    parser.add_argument(
        "--without", action="append", default=[], help="leave a command out (Apache, AdminClient)"
    )
    args = parser.parse_args(argv)
    if args.setup:
        setup(args.bootstrap, args.partitions)
        return 0
    topic, group = names(args.partitions)
    reset = ["--bootstrap-server", args.bootstrap, "--group", group, "--topic", topic, "--reset-offsets",
             "--to-earliest", "--execute", "--timeout", "120000"]  # fmt: skip
    state = tempfile.mkdtemp(prefix="reset-scale-")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KAFKA_TOOLS_STATE_DIR": state}
    commands = {
        "ours": [sys.executable, "-m", "kafka_groups.cli.consumer_groups", *reset],
        "Apache": local_kafka.apache_command("kafka-consumer-groups", reset),
        "AdminClient": [
            sys.executable,
            "-c",
            ADMIN_COMMIT,
            args.bootstrap,
            topic,
            group,
            str(args.partitions),
        ],
    }
    for left_out in args.without:
        commands.pop(left_out, None)
    samples: dict[str, list] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, argv_ in commands.items():
            samples[name].append(measure(argv_, env=env))
    load = os.getloadavg()
    print(
        f"\n--reset-offsets --to-earliest --execute, one group of {args.partitions:,} partitions, "
        f"{args.runs} alternating runs, load average {load[0]:.1f} (1 min) {load[1]:.1f} (5 min)\n"
    )
    print("| command | median wall (s) | min wall (s) | median CPU (s) | peak RSS (MiB) | exit |")
    print("|---|---|---|---|---|---|")
    for name, runs in samples.items():
        walls = [s.wall_s for s in runs]
        cpu = statistics.median(s.cpu_s for s in runs)
        peak = max(s.max_rss_kb for s in runs) / 1024
        exits = ",".join(str(s.exit_code) for s in runs)
        wall = statistics.median(walls)
        print(f"| {name} | {wall:.2f} | {min(walls):.2f} | {cpu:.2f} | {peak:.0f} | {exits} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
