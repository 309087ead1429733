"""Kafka protocol message schemas for the requests kafka-python does not define.

Each file describes one request or response in Kafka's JSON message-schema format, which
kafka-python's schema-driven protocol layer encodes and decodes. Versions beyond what any
released broker speaks (ConsumerGroupDescribe v2, KIP-1282) are defined as the KIP specifies;
they are only ever sent when a broker's ApiVersions response says it supports them.
"""
