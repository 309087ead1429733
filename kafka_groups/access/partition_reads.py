"""Leaders and log offsets of many partitions, through the protocol layer, held compactly.

librdkafka keeps every partition of a topic it is asked about in its metadata cache: measured
with confluent-kafka 2.16.1, reading the metadata of a topic of 10,000 partitions grows the
process by 21 MB, and ListOffsets of them (start and end) by 14 MB more, in the library's own
memory: a reset of 100,000 partitions would need over 350 MB for its reads alone. Here the
partitions' leaders come from DescribeTopicPartitions in pages of 2,000, and the offsets from
ListOffsets sent straight to each leader in requests of at most :data:`LIST_OFFSETS_PARTITIONS`
partitions, all in flight together; the answers go into the compact tables of
:mod:`kafka_groups.core.offset_table` as they arrive, so what stays is 4 bytes a partition for
a leader and 9 for an offset.

Conditions that pass (a leader moved or not elected yet, a broker that does not answer) are
asked again, after the leaders are read again, until ``--timeout``; then the error names the
partitions and their leaders, as the reads of offsets.py do.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict, deque
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from kafka_groups.access.decode import DESCRIBE_PAGE, _protocol_error
from kafka_groups.access.naming import _common_reason, _offsets_missing
from kafka_groups.access.retry import RETRIABLE_KAFKA_CODES, Deadline, Unavailable
from kafka_groups.access.topics import TopicsAccess
from kafka_groups.core.kafka_errors import denied
from kafka_groups.errors import ClusterError

if TYPE_CHECKING:
    from kafka_groups.core.describe import TopicPartition
    from kafka_groups.core.offset_table import LeaderTable, OffsetTable

LIST_OFFSETS_PARTITIONS = 5000  # per ListOffsets request: its decoded answer stays small
PAGES_AT_ONCE = 16  # DescribeTopicPartitions pages of one topic asked for in one window
PAGES_IN_FLIGHT = 32  # DescribeTopicPartitions requests in flight at once, over every topic
LATEST, EARLIEST = -1, -2  # ListOffsets' timestamps for the log end and start
UNKNOWN_TOPIC_OR_PARTITION = 3
TOPIC_AUTHORIZATION_FAILED = 29
# Per partition: the leader moved, is being elected, or the metadata was stale: ask again.
RETRIED = frozenset(RETRIABLE_KAFKA_CODES) | {UNKNOWN_TOPIC_OR_PARTITION}
# A describe, a watch or the loss radar that reads the log offsets of more partitions than this
# reads them here (log_offsets_bulk), as a reset does (commands/reset_gather.BULK_READS_ABOVE):
# through librdkafka a watch would hold the metadata of the topics for as long as it runs.
BULK_OFFSETS_ABOVE = 2000


class PartitionReads(TopicsAccess):
    """What a reset of thousands of partitions reads of them, without librdkafka's metadata."""

    def partition_leaders(self, topics: Iterable[str]) -> dict[str, LeaderTable]:
        """Partition -> leader id (-1: none) of each named topic that exists, every partition
        (DescribeTopicPartitions, Kafka 3.7 and later; before, librdkafka's metadata). A topic
        the principal may not describe is an error naming that ACL."""
        names = sorted(set(topics))
        if not names:
            return {}
        _ = self._protocol  # logged in: the brokers' API versions are known
        from kafka_groups.core.capabilities import DESCRIBE_TOPIC_PARTITIONS

        if not self.supports(DESCRIBE_TOPIC_PARTITIONS):
            from kafka_groups.core.offset_table import LeaderTable

            return {
                t: LeaderTable(leaders[p] for p in range(len(leaders)))
                for t, leaders in self.topic_partitions(set(names)).items()
            }
        found: dict[str, LeaderTable] = self._via_protocol(
            "reading the partitions of the topics", self._run, self._leaders, names
        )
        return found

    async def _leaders(self, names: list[str]) -> dict[str, LeaderTable]:
        from kafka_groups.access.messages import DescribeTopicPartitionsRequest
        from kafka_groups.access.partition_answers import topic_leaders
        from kafka_groups.core.offset_table import LeaderTable

        manager = self._protocol.manager
        tables: dict[str, LeaderTable] = {}

        def page(name: str, start: int) -> Any:
            cursor = None
            if start:
                cursor = DescribeTopicPartitionsRequest.Cursor(topic_name=name, partition_index=start)
            request = DescribeTopicPartitionsRequest(
                topics=[DescribeTopicPartitionsRequest.TopicRequest(name=name)],
                response_partition_limit=DESCRIBE_PAGE,
                cursor=cursor,
            )
            return manager.send(topic_leaders(request))  # the leaders alone, into arrays

        # Every topic's first page goes out together. A topic with more partitions than a page
        # holds is then read a window of pages at a time, each page starting where the one
        # before it ends (a cursor past the last partition answers no partitions): a topic of
        # 30,000 partitions takes two rounds of requests, not fifteen. A page that ends
        # early (a broker that gives fewer) is followed by its own cursor.
        queue: deque[tuple[str, int, int | None]] = deque((name, 0, None) for name in names)
        in_flight: deque[tuple[str, int, int | None, Any]] = deque()
        reach: dict[str, int] = {}  # per topic, where the pages asked for so far end
        ended: set[str] = set()  # topics whose last partition has been read

        def window(name: str, at: int, size: int) -> None:
            queue.extend((name, at + k * size, at + (k + 1) * size) for k in range(PAGES_AT_ONCE))
            reach[name] = at + PAGES_AT_ONCE * size

        while queue or in_flight:
            while queue and len(in_flight) < PAGES_IN_FLIGHT:
                name, start, end = queue.popleft()
                in_flight.append((name, start, end, page(name, start)))
            name, start, end, future = in_flight.popleft()
            response = await self._answer(future, f"the partitions of topic '{name}'")
            for topic in response.topics:
                if topic.error_code == UNKNOWN_TOPIC_OR_PARTITION:
                    continue  # no such topic: left out, as the metadata leaves it out
                if topic.error_code:
                    hint = denied(topic.error_code, {"topic": f"DESCRIBE on topic '{topic.name}'"})
                    if hint:
                        raise ClusterError(f"reading the partitions of topic '{topic.name}' failed: {hint}")
                    if topic.error_code in RETRIED:
                        missing = f"the partitions of topic '{topic.name}'"
                        raise Unavailable(missing, _protocol_error(topic.error_code).name)
                    raise ClusterError(
                        f"reading the partitions of topic '{topic.name}' failed: "
                        f"{_protocol_error(topic.error_code).message}"
                    )
                table = tables.setdefault(topic.name, LeaderTable())
                table.set_many(topic.partitions, topic.leaders)
            cursor = response.next_cursor
            if cursor is None:
                ended.add(name)
                continue
            at = cursor[1]
            if end is None:  # the first page: the rest in windows of its size
                window(name, at, max(at - start, 1))
            elif at < end:  # this page ended early: the rest of its share
                queue.appendleft((name, at, end))
            elif end == reach[name] and name not in ended:
                window(name, end, end - start)
        return tables

    def log_offsets_of(
        self,
        partitions: Iterable[TopicPartition],
        leaders: Mapping[str, Mapping[int, int]],
        earliest: bool = False,
        latest: bool = True,
    ) -> tuple[OffsetTable, OffsetTable]:
        """Log end (``latest``) and start (``earliest``) offsets of ``partitions``, each of
        which exists (``leaders`` has it). Partitions asked again until ``--timeout`` are named
        with their leaders when it runs out."""
        from kafka_groups.core.offset_table import OffsetTable

        ends, starts = OffsetTable(), OffsetTable()
        asked = list(partitions)
        kinds = [("end", LATEST, ends)] if latest else []
        kinds += [("start", EARLIEST, starts)] if earliest else []
        for kind, spec, target in kinds:
            self._list_offsets_into(asked, leaders, kind, spec, target)
        return ends.settle(), starts.settle()

    def offsets_for_time_of(
        self,
        partitions: Iterable[TopicPartition],
        leaders: Mapping[str, Mapping[int, int]],
        timestamp_ms: int,
    ) -> OffsetTable:
        """The first offset at or after ``timestamp_ms`` per partition; a partition with no
        record there is left out (as None in offsets.py's answer)."""
        from kafka_groups.core.offset_table import OffsetTable

        found = OffsetTable()
        # Before 1970 means "from the first record": negative values are ListOffsets sentinels.
        asked = list(partitions)
        self._list_offsets_into(asked, leaders, "by-time", max(timestamp_ms, 0), found, empty_ok=True)
        return found.settle()

    def _list_offsets_into(
        self,
        partitions: list[TopicPartition],
        leaders: Mapping[str, Mapping[int, int]],
        kind: str,
        spec: int,
        target: OffsetTable,
        empty_ok: bool = False,
    ) -> None:
        """ListOffsets of ``spec`` for ``partitions`` into ``target``, retried as the module
        says. ``empty_ok``: an answer of -1 (no record) leaves the partition out."""
        answered: set[TopicPartition] = set()  # by-time: answered with no record
        state = {"leaders": leaders, "refreshed": False}

        def attempt(_deadline: Deadline) -> None:
            if target or answered:  # an attempt after a failure: what is still missing
                todo = [tp for tp in partitions if tp not in target and tp not in answered]
            else:
                todo = partitions
            if not todo:
                return
            current = state["leaders"]
            if state["refreshed"]:  # an attempt after a failure: the leaders read again
                current = state["leaders"] = self.partition_leaders({t for t, _ in todo})
            failures: dict[tuple[str, TopicPartition], str] = {}
            self._run(
                self._send_offset_requests, todo, current, kind, spec, target, answered, failures, empty_ok
            )
            if failures:
                state["refreshed"] = True
                raise Unavailable(_offsets_missing(failures), _common_reason(failures))

        what = "the offsets by timestamp" if kind == "by-time" else "the log offsets"
        self._retrying(what, attempt)

    async def _send_offset_requests(
        self,
        todo: list[TopicPartition],
        leaders: Any,
        kind: str,
        spec: int,
        target: OffsetTable,
        answered: set[TopicPartition],
        failures: dict[tuple[str, TopicPartition], str],
        empty_ok: bool,
    ) -> None:
        from kafka.errors import KafkaError
        from kafka.protocol.consumer.offsets import ListOffsetsRequest

        from kafka_groups.access.partition_answers import list_offsets

        topic_type = ListOffsetsRequest.ListOffsetsTopic
        partition_type = topic_type.ListOffsetsPartition
        by_leader: dict[int, list[TopicPartition]] = defaultdict(list)
        for tp in todo:
            table = leaders.get(tp[0])
            leader = table.get(tp[1], -1) if table is not None else -1
            if leader < 0:
                failures[(kind, tp)] = "no leader"
            else:
                by_leader[leader].append(tp)
        manager = self._protocol.manager
        for leader in by_leader:  # every leader's connection opens at once (the versions wait for them)
            with contextlib.suppress(KafkaError):
                manager.get_connection(leader)
        pending = []
        for leader, tps in by_leader.items():
            # In partition order, so the answers fill the compact tables in order (their fast path).
            tps.sort()
            probe = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[], min_version=1)
            version = await self._version_on(leader, probe)
            for start in range(0, len(tps), LIST_OFFSETS_PARTITIONS):
                part = tps[start : start + LIST_OFFSETS_PARTITIONS]
                by_topic: dict[str, list[int]] = defaultdict(list)
                for topic, partition in part:
                    by_topic[topic].append(partition)
                if version is None:  # the version is not known: the layer encodes the request
                    topics = [
                        topic_type(
                            name=t, partitions=[partition_type(partition_index=p, timestamp=spec) for p in ps]
                        )
                        for t, ps in by_topic.items()
                    ]
                    request = ListOffsetsRequest(
                        replica_id=-1, isolation_level=0, topics=topics, min_version=1
                    )
                    sent = list_offsets(request)
                else:  # encoded here, for the version the connection speaks
                    request = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[], min_version=1)
                    request.API_VERSION = version
                    sent = list_offsets(request, by_topic, spec)
                # the answer decoded into arrays (access/partition_answers.py)
                pending.append((leader, part, by_topic, manager.send(sent, node_id=leader)))
        for leader, part, asked, future in pending:
            try:
                response = await future
            except Exception as exc:  # the leader did not answer: asked again after fresh leaders
                reason = f"leader broker {leader}: {type(exc).__name__}: {exc}".rstrip(": ")
                for tp in part:
                    failures[(kind, tp)] = reason
                continue
            whole = True  # so far every partition answered with an offset, each asked one once
            seen: set[str] = set()
            for topic in response.topics:
                name = topic.name
                codes, offsets = topic.error_codes, topic.offsets
                if not any(codes) and (not offsets or min(offsets) >= 0):
                    target.put_topic(name, topic.partitions, offsets)  # every one answered
                    whole = whole and name not in seen and sorted(topic.partitions) == asked.get(name)
                    seen.add(name)
                    continue
                whole = False
                for partition, code, offset in zip(topic.partitions, codes, offsets, strict=True):
                    tp = (name, partition)
                    if code == 0:
                        if offset >= 0:
                            target.put(tp, offset)
                        elif empty_ok and offset == -1:
                            answered.add(tp)
                        else:
                            failures[(kind, tp)] = f"leader broker {leader} answered {offset}, not an offset"
                    elif code in RETRIED:
                        failures[(kind, tp)] = f"leader broker {leader}: {_protocol_error(code).name}"
                    else:
                        needs = {"topic": f"DESCRIBE on topic '{name}'"}
                        reason = denied(code, needs) or _protocol_error(code).message
                        raise ClusterError(f"reading the log offsets of {name}-{partition} failed: {reason}")
            if whole and seen == asked.keys():  # the answer is the request's partitions, each with its offset
                continue
            for tp in part:
                if tp not in target and tp not in answered and (kind, tp) not in failures:
                    failures[(kind, tp)] = f"leader broker {leader}: no answer for this partition"
