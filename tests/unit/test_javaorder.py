"""Java HashMap iteration order, checked against orders Java 17 printed."""

from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.core.javaorder import hashmap_bucket, hashmap_order, string_hash, topic_partition_hash


def test_string_hash_matches_java():
    assert string_hash("") == 0
    assert string_hash("a") == 97
    assert string_hash("hello") == 99162322
    # wraps around to a negative int like Java
    assert string_hash("polygenelubricants") == -2147483648
    assert string_hash("é") == 233


def _tp_order(pairs):
    return hashmap_order(pairs, lambda tp: topic_partition_hash(*tp))


def test_partition_orders_from_java():
    assert [p for _, p in _tp_order([("orders", p) for p in range(6)])] == [0, 1, 2, 3, 4, 5]
    assert [p for _, p in _tp_order([("orders", p) for p in range(13)])] == [
        7,
        8,
        9,
        10,
        11,
        12,
        0,
        1,
        2,
        3,
        4,
        5,
        6,
    ]
    assert [p for _, p in _tp_order([("foo", p) for p in range(10)])] == [6, 7, 4, 5, 2, 3, 0, 1, 8, 9]


def test_two_topics_interleave_as_in_java():
    pairs = [("foo", p) for p in range(10)] + [("bar", p) for p in range(10)]
    got = [f"{t}-{p}" for t, p in _tp_order(pairs)]
    expected = "foo-6 foo-7 foo-4 foo-5 foo-2 foo-3 foo-0 foo-1 bar-9 bar-7 bar-8 bar-5 bar-6 bar-3 bar-4"
    expected += " bar-1 bar-2 bar-0 foo-8 foo-9"
    assert got == expected.split(" ")


def test_duplicates_keep_their_first_place():
    assert hashmap_order(["b", "a", "b"], string_hash) == hashmap_order(["b", "a"], string_hash)


@given(
    st.lists(st.tuples(st.text(max_size=6), st.integers(0, 20_000)), max_size=300),
    st.sampled_from([1, 16, 64]),
)
def test_order_is_by_bucket_then_first_insertion(pairs, initial_capacity):
    """The definition the tools rely on, spelled out: the map's bucket (after it grew past
    three quarters full), then first insertion; duplicates count once."""
    got = hashmap_order(pairs, lambda tp: topic_partition_hash(*tp), initial_capacity)
    first: dict[tuple[str, int], int] = {}
    for tp in pairs:
        first.setdefault(tp, len(first))
    capacity = initial_capacity
    while len(first) > int(capacity * 0.75):
        capacity *= 2
    bucket = {tp: hashmap_bucket(topic_partition_hash(*tp), capacity) for tp in first}
    assert got == sorted(first, key=lambda tp: (bucket[tp], first[tp]))
