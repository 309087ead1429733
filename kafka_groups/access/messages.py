"""Protocol messages kafka-python lacks, defined by our schemas (kafka_groups/access/schemas)."""

from __future__ import annotations

from kafka.protocol.api_message import ApiMessage

from kafka_groups.access import schemas


class ConsumerGroupDescribeRequest(ApiMessage, load_json=schemas):  # type: ignore[misc,call-arg]
    pass


class ConsumerGroupDescribeResponse(ApiMessage, load_json=schemas):  # type: ignore[misc,call-arg]
    pass


class DescribeTopicPartitionsRequest(ApiMessage, load_json=schemas):  # type: ignore[misc,call-arg]
    pass


class DescribeTopicPartitionsResponse(ApiMessage, load_json=schemas):  # type: ignore[misc,call-arg]
    pass


class StreamsGroupDescribeRequest(ApiMessage, load_json=schemas):  # type: ignore[misc,call-arg]
    pass


class StreamsGroupDescribeResponse(ApiMessage, load_json=schemas):  # type: ignore[misc,call-arg]
    pass
