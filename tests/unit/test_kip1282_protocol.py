"""KIP-1282 at the protocol level: ConsumerGroupDescribe v2 carries GroupCreationTimeMs.

No released broker speaks v2, so this encodes and decodes the messages the KIP defines, the way
a v2 broker would send them, and follows the value through to what the CLI shows. Nothing here
claims a real broker supports it; the real-broker tests show the `-` today's brokers get."""

import pytest

from kafka_groups.access.cluster import _consumer_group
from kafka_groups.access.messages import ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse
from kafka_groups.core.describe import Coordinator, DescribedGroup, DescribeResult, View
from kafka_groups.render import describe as render

R = ConsumerGroupDescribeResponse
COORD = Coordinator("127.0.0.1", 9092, 1)


def _response(version, creation_ms):
    member = R.DescribedGroup.Member(
        member_id="m1",
        instance_id=None,
        rack_id=None,
        member_epoch=3,
        client_id="c1",
        client_host="/127.0.0.1",
        subscribed_topic_names=["t"],
        subscribed_topic_regex=None,
        assignment=R.DescribedGroup.Member.Assignment(topic_partitions=[]),
        target_assignment=R.DescribedGroup.Member.Assignment(topic_partitions=[]),
        member_type=1,
    )
    fields = dict(
        error_code=0,
        error_message=None,
        group_id="g",
        group_state="Stable",
        group_epoch=5,
        assignment_epoch=5,
        assignor_name="uniform",
        members=[member],
        authorized_operations=-2147483648,
    )
    if creation_ms is not None:
        fields["group_creation_time_ms"] = creation_ms
    return R(version=version, throttle_time_ms=0, groups=[R.DescribedGroup(**fields)])


def _round_trip(version, creation_ms):
    encoded = _response(version, creation_ms).encode()
    return R[version].decode(encoded)


@pytest.mark.parametrize("creation_ms", [1_767_225_600_123, -1])
def test_v2_round_trip_carries_the_creation_time(creation_ms):
    decoded = _round_trip(2, creation_ms)
    assert decoded.groups[0].group_creation_time_ms == creation_ms
    desc = _consumer_group(decoded.groups[0], COORD, version=2)
    assert desc.creation_time_ms == creation_ms


def test_v2_field_is_on_the_wire_and_v1_does_not_have_it():
    v2 = _response(2, 1_767_225_600_123).encode()
    v1 = _response(1, None).encode()
    assert len(v2) == len(v1) + 8  # one int64 more per group
    decoded = _round_trip(1, None)
    assert _consumer_group(decoded.groups[0], COORD, version=1).creation_time_ms is None


def test_request_is_the_same_in_every_version():
    encodings = {
        bytes(
            ConsumerGroupDescribeRequest(
                version=v, group_ids=["a", "b"], include_authorized_operations=False
            ).encode()
        )
        for v in (0, 1, 2)
    }
    assert len(encodings) == 1


@pytest.mark.parametrize(
    ("creation_ms", "shown"),
    [(1_767_225_600_123, "2026-01-01T00:00:00.123Z"), (-1, "-"), (None, "-")],
)
def test_state_verbose_shows_iso_utc_or_dash(creation_ms, shown):
    decoded = _round_trip(2, creation_ms if creation_ms is not None else -1)
    desc = _consumer_group(decoded.groups[0], COORD, version=2 if creation_ms is not None else 1)
    text = render.text(DescribeResult(View.STATE, True, (DescribedGroup(desc),)))
    header, row = text.strip("\n").split("\n")
    at = header.index("GROUP-CREATION-TIME")
    assert row[at:].split()[0] == shown
