"""The demo behind scripts/demo: a local broker, a consumer group, a partition expansion,
and our tools showing the result. Run through scripts/demo (which installs first)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from infra import kafka as local_kafka  # noqa: E402

BIN = Path(sys.executable).parent
TOPIC = "demo-orders"
GROUP = "demo-billing"


def step(text: str) -> None:
    print(f"\n==> {text}", flush=True)


def show(tool: str, *args: str) -> None:
    argv = [str(BIN / tool), *args]
    print("$ " + " ".join([tool, *args]), flush=True)
    result = subprocess.run(argv, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{tool} exited {result.returncode}")


def main() -> None:
    from confluent_kafka import Consumer, Producer
    from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

    step(f"Starting a local Kafka {local_kafka.KAFKA_VERSION} broker (KRaft, single node)")
    started = time.monotonic()
    cluster = local_kafka.start(nodes=1, workdir=ROOT / ".cache" / "run" / "demo")
    bs = cluster.bootstrap
    print(f"broker ready at {bs} in {time.monotonic() - started:.1f}s")
    try:
        quiet = {"bootstrap.servers": bs, "log_level": 0}  # the demo's own clients stay silent
        admin = AdminClient(quiet)
        step(f"Creating topic {TOPIC} with 3 partitions and producing 30 records")
        admin.create_topics([NewTopic(TOPIC, 3, 1)])[TOPIC].result(30)
        time.sleep(1)
        producer = Producer(quiet)
        for i in range(30):
            producer.produce(TOPIC, value=f"order-{i}", partition=i % 3)
        producer.flush(30)

        step(f"Group {GROUP} consumes everything and commits")
        consumer = Consumer(
            {
                **quiet,
                "group.id": GROUP,
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
            }
        )
        consumer.subscribe([TOPIC])
        read, deadline = 0, time.monotonic() + 60
        while read < 30 and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and not msg.error():
                read += 1
        consumer.commit(asynchronous=False)
        consumer.close()
        print(f"consumed {read} records, committed, consumer stopped")

        step(f"Expanding {TOPIC} to 6 partitions and producing 12 more records across all of them")
        admin.create_partitions([NewPartitions(TOPIC, 6)])[TOPIC].result(30)
        while len(producer.list_topics(TOPIC, timeout=10).topics[TOPIC].partitions) < 6:
            time.sleep(0.2)
        for i in range(12):
            producer.produce(TOPIC, value=f"late-order-{i}", partition=i % 6)
        producer.flush(30)
        print(
            "partitions 3-5 now hold records the group has never committed; a consumer with\n"
            "auto.offset.reset=latest would skip them when it discovers the new partitions"
        )

        step("Our tools against the broker")
        show("kafka-topics", "--bootstrap-server", bs, "--list", "--exclude-internal")
        show("kafka-consumer-groups", "--bootstrap-server", bs, "--list")
        show("kafka-consumer-groups", "--bootstrap-server", bs, "--list", "--state", "--type")
        show("kafka-consumer-groups", "--bootstrap-server", bs, "--describe", "--group", GROUP)
        show(
            "kafka-consumer-groups",
            "--bootstrap-server",
            bs,
            "--describe",
            "--group",
            GROUP,
            "--state",
            "--verbose",
        )

        step("A reset plan that re-reads the new partitions from their start (dry run), and its CSV export")
        reset = ["--bootstrap-server", bs, "--group", GROUP, "--reset-offsets", "--topic", f"{TOPIC}:3,4,5"]
        show("kafka-consumer-groups", *reset, "--to-earliest", "--dry-run")
        show("kafka-consumer-groups", *reset, "--to-earliest", "--dry-run", "--export")
    finally:
        step("Stopping the broker")
        cluster.stop()


if __name__ == "__main__":
    main()
