"""How the access layer sends ListOffsets and reads the answers, without a broker: the calls it
makes (at most LIST_OFFSETS_CALL partitions each, as few as that allows) and what each kind of
answer becomes (an offset, a reason to try again, or an error no attempt gets past), through
confluent-kafka's batched call and through the public AdminClient.list_offsets it falls back to."""

from __future__ import annotations

import concurrent.futures
from types import SimpleNamespace

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka import TopicPartition as ConfluentTP
from confluent_kafka.admin._listoffsets import OffsetSpec
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_groups.access import offsets
from kafka_groups.access.cluster import KafkaAccess
from kafka_groups.access.retry import Deadline
from kafka_groups.settings import ConnectionSettings

NOT_LEADER = KafkaError(KafkaError.NOT_LEADER_FOR_PARTITION)
DENIED = KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED)


def _access(admin=None) -> KafkaAccess:
    access = KafkaAccess(ConnectionSettings("127.0.0.1:9", 1000))
    access.__dict__["_admin"] = admin or object()  # never connects
    return access


class Binding:
    """Stands in for confluent-kafka's batched ListOffsets: records each call's partitions and
    answers from ``answer(call)``: a dict, or an exception for the whole call."""

    def __init__(self, answer=None):
        self.calls: list[list[tuple[str, int]]] = []
        self.answer = answer or (lambda call: {tp: SimpleNamespace(offset=tp.partition * 10) for tp in call})

    def __call__(self, admin, requested, future, timeout):
        self.calls.append([(tp.topic, tp.partition) for tp in requested])
        answered = self.answer(requested)
        if isinstance(answered, BaseException):
            future.set_exception(answered)
        else:
            future.set_result(answered)


def _send(monkeypatch, binding, partitions, admin=None):
    monkeypatch.setattr(offsets, "_binding_list_offsets", binding)
    return _access(admin)._send_list_offsets(partitions, OffsetSpec.latest(), Deadline(1000))()


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2600))
def test_the_fewest_calls_of_at_most_the_limit_in_order(count):
    partitions = [("t", p) for p in range(count)]
    binding = Binding()
    with pytest.MonkeyPatch.context() as monkeypatch:
        answers = _send(monkeypatch, binding, partitions)
    assert [tp for call in binding.calls for tp in call] == partitions
    assert len(binding.calls) == -(-count // offsets.LIST_OFFSETS_CALL)
    assert all(0 < len(call) <= offsets.LIST_OFFSETS_CALL for call in binding.calls)
    # Even calls: no short last call, which would more likely meet only leaderless partitions.
    assert max(map(len, binding.calls), default=0) - min(map(len, binding.calls), default=0) <= 1
    assert answers == {tp: tp[1] * 10 for tp in partitions}


def test_each_answer_becomes_an_offset_a_reason_or_an_error(monkeypatch):
    def answer(call):
        return {
            call[0]: SimpleNamespace(offset=7),
            call[1]: NOT_LEADER,
            call[2]: DENIED,
            # call[3] is left out of the answer
        }

    answers = _send(monkeypatch, Binding(answer), [("t", p) for p in range(4)])
    assert answers[("t", 0)] == 7
    assert "NOT_LEADER_OR_FOLLOWER" in answers[("t", 1)]
    assert isinstance(answers[("t", 2)], KafkaException)
    assert answers[("t", 2)].args[0].code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert answers[("t", 3)] == "no answer for this partition"


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        (KafkaException(KafkaError(KafkaError._TIMED_OUT)), "_TIMED_OUT"),
        (KafkaException(KafkaError(KafkaError._NOENT, "No leaders found")), "no leader"),
    ],
)
def test_a_whole_call_that_may_work_later_is_a_reason_for_each_of_its_partitions(
    monkeypatch, failure, expected
):
    answers = _send(monkeypatch, Binding(lambda call: failure), [("t", 0), ("t", 1)])
    assert set(answers) == {("t", 0), ("t", 1)}
    assert all(isinstance(a, str) and expected in a for a in answers.values()), answers


def test_a_whole_call_refused_for_good_is_the_error(monkeypatch):
    failure = KafkaException(DENIED)
    answers = _send(monkeypatch, Binding(lambda call: failure), [("t", 0)])
    assert answers == {("t", 0): failure}


def test_a_failure_that_is_not_kafkas_is_raised_not_taken_for_an_offset(monkeypatch):
    with pytest.raises(RuntimeError, match="broken"):
        _send(monkeypatch, Binding(lambda call: RuntimeError("broken")), [("t", 0)])


class PublicAdmin:
    """AdminClient.list_offsets: a future per partition."""

    def __init__(self):
        self.calls: list[dict] = []

    def list_offsets(self, specs, request_timeout):
        self.calls.append(specs)
        futures = {}
        for tp in specs:
            future = concurrent.futures.Future()
            if tp.partition == 1:
                future.set_exception(KafkaException(NOT_LEADER))
            elif tp.partition == 2:
                future.set_exception(KafkaException(DENIED))
            elif tp.partition == 3:
                future.set_exception(RuntimeError("Results length 1 is different from future-map length 2"))
            else:
                future.set_result(SimpleNamespace(offset=5))
            futures[ConfluentTP(tp.topic, tp.partition)] = future
        return futures


@pytest.mark.parametrize("form", [TypeError, AttributeError, ImportError])
def test_a_binding_of_another_form_falls_back_to_the_public_call(monkeypatch, form):
    def binding(*_args):
        raise form("another form")

    admin = PublicAdmin()
    answers = _send(monkeypatch, binding, [("t", p) for p in range(3)], admin)
    assert len(admin.calls) == 1
    assert all(isinstance(spec, OffsetSpec) for spec in admin.calls[0].values())
    assert answers[("t", 0)] == 5
    assert "NOT_LEADER_OR_FOLLOWER" in answers[("t", 1)]
    assert isinstance(answers[("t", 2)], KafkaException)


def test_the_public_calls_failure_that_is_not_kafkas_is_raised(monkeypatch):
    def binding(*_args):
        raise TypeError("another form")

    with pytest.raises(RuntimeError, match="future-map"):
        _send(monkeypatch, binding, [("t", 0), ("t", 3)], PublicAdmin())
