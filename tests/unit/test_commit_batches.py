"""How offsets are cut into writes of one batch of __consumer_offsets each (core/commit_batches.py),
and the pure parts of the commit route (commands/reset_commit.py), with plain data."""

from __future__ import annotations

import itertools
import shlex
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.commands.backup import Undo
from kafka_groups.commands.reset_commit import (
    NON_ATOMIC_FLAG,
    TXN_TIMEOUT_CEILING_MS,
    TXN_TIMEOUT_FLOOR_MS,
    transaction_timeout_ms,
)
from kafka_groups.core.commit_batches import (
    BATCH_HEADER,
    budget,
    chunks,
    commit_records,
    fits,
    group_records,
    tombstone_records,
)
from kafka_groups.settings import ConnectionArgs

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=40)
offsets = st.dictionaries(
    st.tuples(names, st.integers(0, 10_000)), st.integers(0, 2**63 - 1), min_size=0, max_size=300
)


def _size(group: str, topic: str, metadata: str = "") -> int:
    """The bound by hand: framing 12, key 10 + names, value 43 + metadata (UTF-8 bytes)."""
    return 12 + 10 + len(group.encode()) + len(topic.encode()) + 43 + len(metadata.encode())


def test_the_bound_is_above_what_the_broker_was_measured_to_write():
    # Kafka 4.3.1, max.message.bytes 20,000: an OffsetCommit of group g-2-p277 (8 bytes) on topic
    # big took 72 bytes a partition, 277 partitions fit and 278 did not.
    records = list(commit_records("g-2-p277", {("big", p): 5 for p in range(277)}))
    assert all(size == _size("g-2-p277", "big") >= 72 for _, size in records)
    assert not fits(records, 20_000)  # the margin keeps the planned write below what fits
    # ... and a tombstone of group del-1-600 (9 bytes) took about 30: 600 fitted.
    assert all(size >= 30 for _, size in tombstone_records("del-1-600", [("big", p) for p in range(600)]))


def test_names_count_in_utf8_bytes_and_metadata_counts():
    [(_, size)] = commit_records("gé", [("tö", 0)], {("tö", 0): "ü"})
    assert size == _size("gé", "tö", "ü") == 12 + 10 + 3 + 3 + 43 + 2


@given(st.integers(1, 20), names, st.integers(20_000, 2_000_000))
def test_a_group_that_fits_is_one_chunk(count, group, limit):
    records = list(commit_records(group, {("t", p): 1 for p in range(count)}))
    if fits(records, limit):
        assert chunks(records, limit) == [[("t", p) for p in range(count)]]


@given(names, offsets, st.integers(5_000, 200_000))
def test_chunks_keep_order_cover_everything_and_each_fits(group, planned, limit):
    records = list(commit_records(group, planned))
    runs = chunks(records, limit)
    assert [tp for run in runs for tp in run] == list(planned)  # every partition once, in order
    sizes = dict(records)
    for run in runs:
        one = [(tp, sizes[tp]) for tp in run]
        assert fits(one, limit) or len(run) == 1  # a record too large for any batch is alone
        assert all(run)
    # No run could have taken the first record of the next one.
    for run, following in itertools.pairwise(runs):
        with_next = [(tp, sizes[tp]) for tp in [*run, following[0]]]
        assert not fits(with_next, limit)


def test_the_margin_is_ten_percent_and_the_header_counts():
    assert budget(1_048_588) == 943_729
    assert fits([("a", budget(20_000) - BATCH_HEADER)], 20_000)
    assert not fits([("a", budget(20_000) - BATCH_HEADER + 1)], 20_000)


def test_a_group_deletion_reserves_its_own_records():
    partitions = [("t", p) for p in range(100)]
    records = list(tombstone_records("g", partitions))
    exact = BATCH_HEADER + sum(s for _, s in records)
    assert fits(records, 100_000)
    tight = int((exact + 1) / 0.9) + 1
    assert fits(records, tight) and not fits(records, tight, group_records("g"))


@given(st.integers(0, 2**31 - 1))
def test_the_transaction_timeout_is_bounded(timeout_ms):
    value = transaction_timeout_ms(timeout_ms)
    assert TXN_TIMEOUT_FLOOR_MS <= value <= TXN_TIMEOUT_CEILING_MS
    assert value >= min(2 * timeout_ms, TXN_TIMEOUT_CEILING_MS)


def test_the_undo_of_a_non_atomic_reset_commits_in_steps_too():
    connection = ConnectionArgs(bootstrap_server="b")
    folder = Path("/x --execute")  # a path holding the flag's words is one quoted word
    undo = Undo(
        connection,
        folder,
        restore="/x --execute/b.csv",
        restore_groups=("g",),
        created="/x --execute/b-created.csv",
        non_atomic=True,
    )
    line = undo.command()
    assert line is not None
    restore, delete_offsets = (shlex.split(part) for part in line.split(" && "))
    assert restore[restore.index("--execute") + 1] == NON_ATOMIC_FLAG
    assert restore[restore.index("--from-file") + 1] == "/x --execute/b.csv"
    assert restore.count(NON_ATOMIC_FLAG) == 1 and NON_ATOMIC_FLAG not in delete_offsets
    atomic = Undo(connection, folder, restore="/x --execute/b.csv", restore_groups=("g",)).command()
    assert atomic is not None and NON_ATOMIC_FLAG not in atomic
