"""The iteration order of a ``java.util.HashMap``, which several Apache tool outputs follow.

The Apache tools collect some results in a HashMap and print them in its iteration order
(group listings, describe rows, reset plans, ...). To print the same bytes we order keys the
same way: ``String.hashCode``, the map's hash spreading, its bucket count after growth, and
insertion order inside a bucket (which a resize keeps). Pure code.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

_MASK = 0xFFFFFFFF


def _int32(value: int) -> int:
    value &= _MASK
    return value - (1 << 32) if value & 0x80000000 else value


@functools.lru_cache(maxsize=4096)
def string_hash(text: str) -> int:
    """Java ``String.hashCode`` (over UTF-16 code units, 32-bit wraparound)."""
    h = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & _MASK
    return _int32(h)


def topic_partition_hash(topic: str, partition: int) -> int:
    """Java ``TopicPartition.hashCode``."""
    return _int32(31 * (31 + partition) + string_hash(topic))


def _spread(h: int) -> int:
    u = h & _MASK
    return u ^ (u >> 16)


def hashmap_bucket(h: int, capacity: int = 16) -> int:
    """The bucket of a key with ``hashCode`` ``h`` in a ``HashMap`` of ``capacity`` buckets."""
    return _spread(h) & (capacity - 1)


def hashmap_order(keys: Iterable[K], hash_of: Callable[[K], int], initial_capacity: int = 16) -> list[K]:
    """Keys (inserted in the given order, duplicates ignored) in HashMap iteration order."""
    unique: dict[K, None] = {}
    capacity = max(1, initial_capacity)
    for key in keys:
        if key in unique:
            continue
        unique[key] = None
        if len(unique) > int(capacity * 0.75):
            capacity *= 2
    mask = capacity - 1

    def bucket(key: K) -> int:  # hashmap_bucket, inline: it runs once per key (10,000 partitions)
        u = hash_of(key) & _MASK
        return (u ^ (u >> 16)) & mask

    # A stable sort keeps insertion order inside a bucket.
    return sorted(unique, key=bucket)


def string_keys_order(keys: Iterable[str]) -> list[str]:
    """Iteration order of a ``HashMap<String, ...>`` built with ``new HashMap<>()``."""
    return hashmap_order(keys, string_hash)
