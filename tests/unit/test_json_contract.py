"""The documented JSON keys and types (docs/json.md) of --describe."""

import io
import json

from kafka_groups.render import OutputFormat, emit
from tests.unit.test_golden_tables import CASES

GROUP_KEYS = {
    "group": str,
    "state": str,
    "type": str,
    "coordinator": dict,
    "assignment_strategy": (str, type(None)),
    "group_epoch": (int, type(None)),
    "target_assignment_epoch": (int, type(None)),
    "creation_time_ms": (int, type(None)),
    "start": (dict, type(None)),
    "members": list,
}
MEMBER_KEYS = {
    "member_id": str,
    "group_instance_id": (str, type(None)),
    "client_id": str,
    "host": str,
    "member_epoch": (int, type(None)),
    "upgraded": (bool, type(None)),
    "assignment": list,
    "target_assignment": list,
}
OFFSET_KEYS = {
    "topic": str,
    "partition": int,
    "current_offset": (int, type(None)),
    "leader_epoch": (int, type(None)),
    "log_start_offset": (int, type(None)),
    "log_end_offset": (int, type(None)),
    "lag": (int, type(None)),
    "out_of_range": bool,
    "member_id": (str, type(None)),
    "host": (str, type(None)),
    "client_id": (str, type(None)),
}


def _doc(name):
    out = io.StringIO()
    emit(CASES[name], OutputFormat.JSON, out)
    return json.loads(out.getvalue())


def _check(obj, spec):
    assert set(obj) == set(spec)
    for key, kind in spec.items():
        assert isinstance(obj[key], kind), (key, obj[key])


def test_describe_offsets_document():
    doc = _doc("describe-offsets")
    assert doc["schema"] == "kafka-group-tools/group-describe/v1"
    assert doc["view"] == "offsets"
    assert doc["missing_groups"] == []
    (group,) = doc["groups"]
    _check({k: v for k, v in group.items() if k != "offsets"}, GROUP_KEYS)
    _check(group["coordinator"], {"id": int, "host": str, "port": int})
    for member in group["members"]:
        _check(member, MEMBER_KEYS)
        for tp in member["assignment"]:
            _check(tp, {"topic": str, "partition": int})
    assert len(group["offsets"]) == 3
    for row in group["offsets"]:
        _check(row, OFFSET_KEYS)
    assert [r["out_of_range"] for r in group["offsets"]] == [False, False, True]


def test_other_views_have_no_offsets_key():
    for name in ("describe-members", "describe-state"):
        for group in _doc(name)["groups"]:
            _check(group, GROUP_KEYS)


def test_state_document_gives_the_start_and_its_source():
    """The broker's creation time wins; else the start kafka-group-tools recorded; else null."""
    doc = _doc("describe-state-recorded")
    starts = {g["group"]: (g["creation_time_ms"], g["start"]) for g in doc["groups"]}
    assert starts == {
        "audit": (None, {"time_ms": 1_767_225_600_123, "source": "recorded"}),
        "billing": (1_767_225_000_000, {"time_ms": 1_767_225_000_000, "source": "broker"}),
        "orphan": (None, None),
    }
    for group in doc["groups"]:
        _check(group, GROUP_KEYS)
