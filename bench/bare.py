"""A command's requests and nothing else: a reference for bench/run.py, measured beside ours in
the cases that have one (``Case.bare``).

Each mode sends the requests our command sends, in the same order, each through the client ours
uses, both loaded the way the tools load them (kafka_groups/access/packages.py and
protocol_layer.py; the protocol layer logs in while the group description is in flight, as in
ours), and prints the same rows as plain lines. It leaves out everything else our command does:
flag and input checks, retries, error wording, the write guard's reporting, the Apache layouts.
What ours takes above this is what our own code costs. It is not a bound: where ours overlaps its
requests differently, ours can take less.

    python bench/bare.py describe BOOTSTRAP GROUP
    python bench/bare.py list BOOTSTRAP
    python bench/bare.py reset BOOTSTRAP GROUP TOPIC --dry-run|--execute   # --to-earliest

Not a tool: no error is handled (a failure is a traceback and a non-zero exit).
"""

from __future__ import annotations

import concurrent.futures
import gc
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # as the tools run: no cyclic collection while the command works
    gc.disable()

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kafka_groups.access import packages, protocol_layer  # noqa: E402

LIST_OFFSETS_CALL = 250  # the call size of kafka_groups/access/offsets.py
EARLIEST, LATEST = -2, -1  # ListOffsets' specs for the log start and end offsets, as the binding reads them


def admin_config(bootstrap: str) -> dict[str, Any]:
    """The AdminClient's settings as ours makes them for a plain listener
    (kafka_groups/access/config.librdkafka_config; a test holds the two together)."""
    return {"bootstrap.servers": bootstrap, "security.protocol": "PLAINTEXT", "reconnect.backoff.ms": 10}


def admin(bootstrap: str) -> Any:
    packages.prepare_client()
    from confluent_kafka.admin import AdminClient

    return AdminClient(admin_config(bootstrap))


def protocol(bootstrap: str) -> Any:
    protocol_layer.prepare_messages()
    return protocol_layer.ProtocolClient(
        {"bootstrap_servers": bootstrap.split(","), "client_id": "bench-bare", "bootstrap_timeout_ms": 30_000}
    )


def described(client: Any, group: str, bootstrap: str | None) -> tuple[Any, Any]:
    """DescribeConsumerGroups, with the protocol layer logging in while it is in flight (none
    without ``bootstrap``: the command reads no committed offset)."""
    future = client.describe_consumer_groups([group])[group]
    layer = protocol(bootstrap) if bootstrap is not None else None
    return future.result(), layer


def committed(layer: Any, group: str) -> dict[tuple[str, int], int]:
    """OffsetFetch of every partition the group committed, from its coordinator."""

    async def fetch() -> Any:
        node = (await layer.coordinators([group]))[group]
        ((_, request),) = layer.offset_fetch_requests([group])
        return await layer.manager.send(request, node_id=node)

    answer = layer.manager.run(fetch)
    return {
        (topic.name, p.partition_index): p.committed_offset
        for one in answer.groups
        for topic in one.topics
        for p in topic.partitions
        if p.committed_offset >= 0
    }


def list_offsets(
    client: Any, partitions: list[tuple[str, int]], spec: int, topics_known: bool
) -> dict[tuple[str, int], int]:
    """ListOffsets through the binding's batched call, in calls of LIST_OFFSETS_CALL, all in
    flight. When several calls go out for topics the client has read no metadata of
    (``topics_known`` false), one partition of each topic goes first and alone, as ours sends
    it, so that the other calls find the topics known."""
    found: dict[tuple[str, int], int] = {}
    if not topics_known and len(partitions) > LIST_OFFSETS_CALL:
        firsts = list({t: (t, p) for t, p in reversed(partitions)}.values())
        found = _list_offsets_calls(client, firsts, spec)
        partitions = [tp for tp in partitions if tp not in found]
    return found | _list_offsets_calls(client, partitions, spec)


def _list_offsets_calls(
    client: Any, partitions: list[tuple[str, int]], spec: int
) -> dict[tuple[str, int], int]:
    from confluent_kafka import TopicPartition
    from confluent_kafka.cimpl import _AdminClientImpl

    count = -(-len(partitions) // LIST_OFFSETS_CALL)
    calls = []
    for index in range(count):
        call = partitions[index * len(partitions) // count : (index + 1) * len(partitions) // count]
        answer: Any = concurrent.futures.Future()
        _AdminClientImpl.list_offsets(
            client, [TopicPartition(t, p, spec) for t, p in call], answer, request_timeout=30
        )
        calls.append(answer)
    return {(tp.topic, tp.partition): info.offset for answer in calls for tp, info in answer.result().items()}


def describe(bootstrap: str, group: str) -> None:
    client = admin(bootstrap)
    group_info, layer = described(client, group, bootstrap)
    current = committed(layer, group)
    ends = list_offsets(client, sorted(current), LATEST, topics_known=False)
    rows = [f"\nGROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG ({group_info.state.name})\n"]
    rows += [
        f"{group} {t} {p} {o} {ends[(t, p)]} {ends[(t, p)] - o}\n" for (t, p), o in sorted(current.items())
    ]
    sys.stdout.write("".join(rows))
    layer.close()


def list_groups(bootstrap: str) -> None:
    layer = protocol(bootstrap)
    from kafka.protocol.admin import ListGroupsRequest

    async def every_broker() -> list[Any]:
        request = ListGroupsRequest(types_filter=["classic", "consumer"], min_version=5)
        nodes = [b.node_id for b in layer.manager.cluster.brokers()]
        sent = [layer.manager.send(request, node_id=node) for node in nodes]
        return [group for future in sent for group in (await future).groups]

    groups = layer.manager.run(every_broker)
    sys.stdout.write("".join(f"{name}\n" for name in sorted(g.group_id for g in groups)))
    layer.close()


def reset(bootstrap: str, group: str, topic: str, mode: str) -> None:
    """--to-earliest of one group on one whole topic. A dry run reads no committed offset (a
    plain one does not need them), so it never opens the protocol layer."""
    execute = mode == "--execute"
    client = admin(bootstrap)
    group_info, layer = described(client, group, bootstrap if execute else None)
    if group_info.state.name not in ("EMPTY", "DEAD"):
        raise SystemExit(f"group {group} is {group_info.state.name}")
    partitions = [(topic, p) for p in sorted(client.list_topics(topic, timeout=30).topics[topic].partitions)]
    current = committed(layer, group) if execute else {}
    target = list_offsets(client, partitions, EARLIEST, topics_known=True)  # read just above
    rows = ["\nGROUP TOPIC PARTITION NEW-OFFSET\n"]
    rows += [f"{group} {t} {p} {o}\n" for (t, p), o in sorted(target.items())]
    sys.stdout.write("".join(rows))
    sys.stdout.flush()
    if not execute:
        return
    folder = Path(os.environ.get("KAFKA_TOOLS_STATE_DIR", tempfile.gettempdir())) / "bench-bare"
    folder.mkdir(parents=True, exist_ok=True)
    backup = folder / f"reset-{group}-{time.time_ns()}.csv"
    backup.write_text("".join(f"{group},{t},{p},{o}\n" for (t, p), o in sorted(current.items())))
    print(f"Saved to {backup}", file=sys.stderr, flush=True)
    if committed(layer, group) != current:  # the re-check right before the commit
        raise SystemExit("the committed offsets changed")
    from bench.setup_helpers import offset_commit_request

    # The request ours sends (kafka_groups/access/commits.py, _offset_commit), built by the
    # benchmarks' own helper on purpose: the reference runs none of our code.
    request = offset_commit_request(group, topic, ((p, o) for (_, p), o in target.items()))

    async def commit() -> Any:
        node = (await layer.coordinators([group]))[group]
        return await layer.manager.send(request, node_id=node)

    answer = layer.manager.run(commit)
    if any(p.error_code for t in answer.topics for p in t.partitions):
        raise SystemExit("the commit was refused")
    after = committed(layer, group)  # the read-back
    if any(after.get(tp) != o for tp, o in target.items()):
        raise SystemExit("the offsets read back are not the new ones")
    layer.close()


def main(argv: list[str]) -> None:
    mode, *rest = argv
    if mode == "describe":
        describe(*rest)
    elif mode == "list":
        list_groups(*rest)
    elif mode == "reset":
        reset(*rest)
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(0)  # as the tools end: without the interpreter's teardown
