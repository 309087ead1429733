"""The write discipline's pure parts: classifying what was read back, naming what moved, the
exit a verdict ends with, the send/read-back sequence (with stand-ins for the cluster) and the
test-only fault points."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from kafka_groups.commands.guard import (
    FAULT_DIR_ENV,
    Landed,
    Verdict,
    Write,
    classify,
    fault_point,
    moved,
    name_some,
)
from kafka_groups.errors import ClusterError, ExitCode, OutcomeUnknown, PartialFailure, TopicCommandError
from kafka_groups.settings import ConnectionSettings

keys = st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 5))
offsets = st.dictionaries(keys, st.integers(0, 100), max_size=8)


@given(offsets, offsets)
def test_reading_the_new_state_is_done(old, new):
    assert classify(dict(new), old, new) is Landed.DONE


@given(offsets, offsets)
def test_reading_the_old_state_is_not_applied_unless_it_is_also_the_new(old, new):
    assert classify(dict(old), old, new) is (Landed.DONE if old == new else Landed.NOT_APPLIED)


@given(offsets, offsets)
def test_nothing_read_is_unknown(old, new):
    assert classify(None, old, new) is Landed.UNKNOWN


@given(offsets, offsets, st.data())
def test_a_mix_of_old_and_new_is_unknown(old, new, data):
    changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    assume(len(changed) >= 2)
    split = data.draw(st.integers(1, len(changed) - 1))
    read = dict(old)  # the first keys written, the rest not
    for k in changed[:split]:
        if k in new:
            read[k] = new[k]
        else:
            read.pop(k, None)
    assert classify(read, old, new) is Landed.UNKNOWN


def test_a_deletion_is_the_key_gone():
    assert classify({}, {"t": True}, {}) is Landed.DONE
    assert classify({"t": True}, {"t": True}, {}) is Landed.NOT_APPLIED
    # a partition that is neither the old nor the new value: someone else wrote it
    assert classify({("t", 0): 7}, {("t", 0): 3}, {("t", 0): 0}) is Landed.UNKNOWN


@given(offsets, offsets)
def test_moved_names_exactly_the_keys_that_differ(before, after):
    found = moved(before, after)
    assert sorted(found) == sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    assert (found == []) == (before == after)


def test_name_some_counts_the_rest():
    assert name_some(["a", "b"]) == "a, b"
    assert name_some([str(i) for i in range(8)], limit=3) == "0, 1, 2 and 5 more"


def _verdict(**units: Landed) -> Verdict:
    return Verdict(
        "reset",
        {f"group '{g}'": landed for g, landed in units.items()},
        {f"group '{g}'": "Local: Timed out" for g in units},
        "kafka-consumer-groups --bootstrap-server B --describe --group g --offsets",
        "kafka-consumer-groups --bootstrap-server B --group g --reset-offsets --from-file F --execute",
    )


def test_all_done_is_exit_0():
    _verdict(g=Landed.DONE, h=Landed.DONE).conclude()


def test_unknown_is_exit_4_with_the_check_and_the_undo():
    with pytest.raises(OutcomeUnknown) as raised:
        _verdict(g=Landed.UNKNOWN, h=Landed.DONE).conclude()
    assert raised.value.exit_code == ExitCode.UNKNOWN == 4
    message = raised.value.message
    assert message.startswith("outcome unknown: the reset of group 'g' was sent and could not be verified")
    assert "group 'h' done (verified)" in message
    assert "check with: kafka-consumer-groups --bootstrap-server B --describe --group g --offsets" in message
    assert message.endswith(
        "undo: kafka-consumer-groups --bootstrap-server B --group g --reset-offsets --from-file F --execute"
    )
    assert "\n" not in message


def test_not_applied_is_exit_1_and_partly_applied_is_exit_3():
    with pytest.raises(Exception) as none:
        _verdict(g=Landed.NOT_APPLIED).conclude()
    assert none.value.exit_code == ExitCode.ERROR
    assert "was not applied, nothing changed (Local: Timed out)" in none.value.message
    with pytest.raises(PartialFailure):
        _verdict(g=Landed.NOT_APPLIED, h=Landed.DONE).conclude()
    with pytest.raises(OutcomeUnknown):  # unknown outranks the rest
        _verdict(g=Landed.NOT_APPLIED, h=Landed.UNKNOWN).conclude()


class _Stand:
    """Stands in for KafkaAccess: the sequence only reads its settings."""

    def __init__(self, timeout_ms: int) -> None:
        self.settings = ConnectionSettings("127.0.0.1:1", timeout_ms)

    def close(self) -> None:
        pass


def test_an_acknowledged_send_is_not_read_back_unless_asked():
    reads = []
    sent = Write(_Stand(5000), send=lambda: "ok", read_back=lambda r: reads.append(r) or {}).run()
    assert (sent.answer, sent.send_error, sent.state, reads) == ("ok", None, None, [])
    again = Write(_Stand(5000), send=lambda: "ok", read_back=lambda r: {"t": 1}, verify_always=True).run()
    assert again.state == {"t": 1}


def _lost() -> None:
    raise ClusterError("cannot reach the cluster")


def test_a_lost_answer_is_read_back_on_a_fresh_connection():
    stand = _Stand(5000)
    readers = []

    def read(reader: object) -> dict[str, int]:
        readers.append(reader)
        return {"t": 1}

    sent = Write(stand, send=_lost, read_back=read).run()
    assert sent.send_error == "cannot reach the cluster" and sent.state == {"t": 1}
    assert readers and readers[0] is not stand
    assert readers[0].settings.timeout_ms <= 5000


def test_an_answer_in_doubt_is_read_back_on_a_fresh_connection_given_at_least_half_the_timeout():
    """A send that answered with an error for a unit (the commit's "Local: Timed out", late) is read
    back as a lost one is: not on the connection that stalled, but on a fresh one that waits what
    remains of the timeout or half of it, whichever is longer. A clean answer is read back on the
    command's own connection."""
    stand = _Stand(400)
    readers = []

    def read(reader: object) -> dict[str, int]:
        readers.append(reader)
        return {"t": 1}

    def late() -> dict[str, str | None]:
        time.sleep(0.3)  # less than half the timeout remains
        return {"g": "Local: Timed out"}

    def doubt(answer: dict[str, str | None]) -> bool:
        return any(answer.values())

    doubtful = Write(stand, send=late, read_back=read, in_doubt=doubt).run()
    assert doubtful.send_error is None and doubtful.state == {"t": 1}
    assert readers[-1] is not stand and readers[-1].settings.timeout_ms == 200
    prompt = Write(_Stand(5000), send=lambda: {"g": "Local: Timed out"}, read_back=read, in_doubt=doubt).run()
    assert prompt.state == {"t": 1} and readers[-1] is not stand
    assert 2500 < readers[-1].settings.timeout_ms <= 5000  # what remains, more than half
    clean = Write(stand, send=lambda: {"g": None}, read_back=read, in_doubt=doubt, verify_always=True).run()
    assert clean.state == {"t": 1} and readers[-1] is stand


def test_no_read_back_when_no_time_is_left():
    sent = Write(_Stand(100), send=_lost, read_back=lambda r: {"t": 1}).run()
    assert sent.state is None and "no time was left" in (sent.read_error or "")


def test_a_failed_read_back_is_reported_not_raised():
    def read(_reader: object) -> dict[str, int]:
        raise ClusterError("fetching committed offsets failed: RequestTimedOutError")

    sent = Write(_Stand(5000), send=_lost, read_back=read).run()
    assert sent.state is None and sent.read_error == "fetching committed offsets failed: RequestTimedOutError"


def test_a_definite_refusal_is_raised():
    def refuse() -> None:
        raise TopicCommandError("Topic 't' does not exist", 3)

    with pytest.raises(TopicCommandError):
        Write(_Stand(5000), send=refuse, read_back=lambda r: {}, definite=(TopicCommandError,)).run()


def test_fault_points_cost_nothing_unset(monkeypatch):
    monkeypatch.delenv(FAULT_DIR_ENV, raising=False)
    fault_point("after-send")  # returns at once; nothing to wait for


def test_a_fault_point_waits_until_released(monkeypatch, tmp_path: Path):
    monkeypatch.setenv(FAULT_DIR_ENV, str(tmp_path))
    passed = threading.Event()

    def at_point() -> None:
        fault_point("after-backup")
        passed.set()

    runner = threading.Thread(target=at_point)
    runner.start()
    marker = tmp_path / "after-backup"
    while not marker.exists():
        time.sleep(0.01)
    assert not passed.is_set()
    marker.unlink()
    runner.join(10)
    assert passed.is_set()
