"""Group patterns, --skip-active and --to-group on the real broker: the groups selected are
exactly the intended ones (ids that differ in one character), a copy lands exactly the
source's offsets, and bad input writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.kafka_helpers import (
    ActiveConsumer,
    commit_offsets,
    committed,
    committed_of,
    create_topic,
    produce_n,
    unique,
)

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def topic(broker):
    name = create_topic(broker.bootstrap, unique("sel-orders"), partitions=3)
    produce_n(broker.bootstrap, name, {0: 10, 1: 10, 2: 10})
    return name


@pytest.fixture(scope="module")
def family(broker, topic):
    """Three Empty groups whose ids differ in one character: <p>-a1, <p>-a2, <p>-b1."""
    prefix = unique("sel")
    groups = {name: f"{prefix}-{name}" for name in ("a1", "a2", "b1")}
    for i, group in enumerate(groups.values()):
        commit_offsets(broker.bootstrap, group, {(topic, 0): i + 1})
    return prefix, groups


def _cg(ours, broker, *args):
    return ours("kafka-consumer-groups", "--bootstrap-server", broker.bootstrap, *args)


def test_patterns_select_exactly_the_intended_groups_for_describe_and_reset(ours, broker, family, topic):
    prefix, g = family
    described = _cg(
        ours, broker, "--describe", "--group-pattern", f"{prefix}-a.", "--exclude-group", ".*2", "-o", "json"
    )
    assert described.returncode == 0, described.stderr
    assert [d["group"] for d in json.loads(described.stdout)["groups"]] == [g["a1"]]

    plan = _cg(
        ours,
        broker,
        "--reset-offsets",
        "--group-pattern",
        f"{prefix}-.1",
        "--topic",
        topic,
        "--to-latest",
        "--dry-run",
        "-o",
        "json",
    )
    assert plan.returncode == 0, plan.stderr
    assert sorted(p["group"] for p in json.loads(plan.stdout)["groups"]) == sorted([g["a1"], g["b1"]])

    none = _cg(ours, broker, "--describe", "--group-pattern", f"{prefix}-c.")
    assert none.returncode == 1
    assert none.stderr.strip().splitlines() == [
        f"Error: No consumer group matches --group-pattern '{prefix}-c.'."
    ]


def test_delete_by_pattern_names_the_groups_before_it_deletes_only_them(ours, broker, topic, tmp_path):
    prefix = unique("seld")
    groups = [f"{prefix}-x1", f"{prefix}-x2", f"{prefix}-y1"]
    for group in groups:
        commit_offsets(broker.bootstrap, group, {(topic, 1): 3})
    result = _cg(ours, broker, "--delete", "--group-pattern", f"{prefix}-x.", "--backup-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    selected = lines.index(f"Selected 2 consumer group(s): {prefix}-x1, {prefix}-x2")
    assert selected < next(i for i, line in enumerate(lines) if line.startswith("Undo: "))
    left = committed_of(broker.bootstrap, groups)
    assert left == {groups[0]: {}, groups[1]: {}, groups[2]: {(topic, 1): 3}}

    nothing = _cg(ours, broker, "--delete", "--group-pattern", f"{prefix}-z.", "--backup-dir", str(tmp_path))
    assert nothing.returncode == 1
    assert len(nothing.stderr.strip().splitlines()) == 1
    assert committed(broker.bootstrap, groups[2]) == {(topic, 1): 3}


def test_skip_active_resets_the_empty_groups_and_names_the_stable_one(ours, broker, topic, tmp_path):
    prefix = unique("sels")
    busy, idle1, idle2 = f"{prefix}-1", f"{prefix}-2", f"{prefix}-3"
    for group in (busy, idle1, idle2):
        commit_offsets(broker.bootstrap, group, {(topic, 0): 4, (topic, 1): 4, (topic, 2): 4})
    args = ("--reset-offsets", "--group-pattern", f"{prefix}-.", "--all-topics", "--to-earliest")
    with ActiveConsumer(broker.bootstrap, busy, [topic]):
        today = _cg(ours, broker, *args, "--dry-run")
        assert today.returncode == 3  # without --skip-active: the Stable group fails the run
        done = _cg(ours, broker, *args, "--execute", "--skip-active", "--backup-dir", str(tmp_path))
        assert done.returncode == 0, done.stderr
        assert [line for line in done.stderr.splitlines() if "Skipped" in line or "inactive" in line] == [
            f"Skipped 1 active group: {busy} (Stable)"
        ]
        assert "Error" not in done.stderr
    after = committed_of(broker.bootstrap, [busy, idle1, idle2])
    earliest = {(topic, p): 0 for p in range(3)}
    assert after[idle1] == earliest and after[idle2] == earliest
    assert all(after[busy][(topic, p)] != 0 for p in range(3))  # never reset (its consumer commits its own)


def test_to_group_execute_lands_exactly_the_source_offsets(ours, broker, topic, tmp_path):
    source, target = unique("selc-src"), unique("selc-dst")
    commit_offsets(broker.bootstrap, source, {(topic, 0): 4, (topic, 1): 25})  # 25: past the log end
    commit_offsets(broker.bootstrap, target, {(topic, 0): 1, (topic, 2): 6})
    result = _cg(
        ours,
        broker,
        "--reset-offsets",
        "--group",
        target,
        "--to-group",
        source,
        "--all-topics",
        "--execute",
        "--backup-dir",
        str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    assert committed(broker.bootstrap, target) == {(topic, 0): 4, (topic, 1): 10, (topic, 2): 6}
    lines = result.stderr.splitlines()
    saved = [line for line in lines if line.startswith("Saved the offsets this reset replaced to ")]
    assert len(saved) == 1
    backup = saved[0].rsplit(" ", 1)[1]
    assert Path(backup).read_text().splitlines() == [f"{target},{topic},0,1"]  # what the undo puts back
    notice = f"Notice: --to-group '{source}' has no committed offset for 1 partition(s) in scope"
    assert f"{notice}; left out: {topic}-2" in lines
    assert "higher than latest offset" in result.stderr  # clamped as --to-offset is
    export = _cg(
        ours,
        broker,
        "--reset-offsets",
        "--group",
        unique("selc-new"),
        "--to-group",
        source,
        "--topic",
        f"{topic}:0",
        "--dry-run",
        "--export",
    )
    assert export.stdout.strip() == f"{topic},0,4"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--describe", "--exclude-group", "x"), "--exclude-group only narrows a selection"),
        (("--describe", "--group", "g", "--group-pattern", "g.*"), 'Option "[group-pattern]" can\'t be used'),
        (("--delete", "--group-pattern", "a("), "--group-pattern 'a(' is not a valid regular expression"),
        (("--delete", "--group-pattern", " "), "--group-pattern ' ' is blank"),
        (("--reset-offsets", "--group", "g", "--topic", "t", "--to-group", ""), "--to-group '' is empty"),
        (
            ("--reset-offsets", "--group", "g", "--topic", "t", "--to-group", "g"),
            "--to-group 'g' is also a group being reset",
        ),
        (("--describe", "--group", "g", "--skip-active"), "Option(s) [skip-active] are unavailable"),
        (("--delete-offsets", "--group", "g", "--topic", "t", "--group-pattern", "g"), "are unavailable"),
    ],
)
def test_usage_errors_are_one_line_exit_2(ours, broker, args, message):
    result = _cg(ours, broker, *args)
    assert result.returncode == 2
    assert result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert message in line


def test_to_group_without_committed_offsets_writes_nothing(ours, broker, topic):
    target = unique("selc-none")
    result = _cg(
        ours,
        broker,
        "--reset-offsets",
        "--group",
        target,
        "--to-group",
        unique("absent"),
        "--topic",
        topic,
        "--execute",
    )
    assert result.returncode == 2
    assert "has no committed offsets" in result.stderr
    assert committed(broker.bootstrap, target) == {}


def test_streams_tool_takes_patterns_in_both_forms(ours, broker):
    pattern = unique("no-app") + ".*"
    for argv in (("--describe", "--group-pattern", pattern), ("describe", "--group-pattern", pattern)):
        result = ours("kafka-streams-groups", *argv[:1], "--bootstrap-server", broker.bootstrap, *argv[1:])
        assert result.returncode == 1, result.stderr
        assert result.stderr.strip() == f"Error: No streams group matches --group-pattern '{pattern}'."


def test_streams_groups_by_pattern_and_to_group(ours, broker, tmp_path):
    from tests.streams_helpers import make_groups

    bs = broker.bootstrap
    tag = unique("sgsel").split("-")[1]
    source_topic = create_topic(bs, f"sgsel-in-{tag}", partitions=2)
    output = create_topic(bs, f"sgsel-out-{tag}", partitions=1)
    produce_n(bs, source_topic, {0: 6, 1: 6})
    apps = [f"sgsel-{tag}-a1", f"sgsel-{tag}-a2"]
    make_groups(bs, apps, [source_topic], output, {(source_topic, 0): 6, (source_topic, 1): 6})
    commit_offsets(bs, apps[0], {(source_topic, 0): 2, (source_topic, 1): 5})  # Empty: a plain commit

    described = ours(
        "kafka-streams-groups",
        "--bootstrap-server",
        bs,
        "--describe",
        "--group-pattern",
        f"sgsel-{tag}-a.",
        "--exclude-group",
        ".*1",
        "-o",
        "json",
    )
    assert described.returncode == 0, described.stderr
    assert [d["group"] for d in json.loads(described.stdout)["groups"]] == [apps[1]]

    copied = ours(
        "kafka-streams-groups",
        "reset-offsets",
        "--bootstrap-server",
        bs,
        "--group",
        apps[1],
        "--to-group",
        apps[0],
        "--all-input-topics",
        "--execute",
        "--backup-dir",
        str(tmp_path),
    )
    assert copied.returncode == 0, copied.stderr
    held = {tp: o for tp, o in committed(bs, apps[1]).items() if tp[0] == source_topic}
    assert held == {(source_topic, 0): 2, (source_topic, 1): 5}  # its repartition topic is its own

    deleted = ours(
        "kafka-streams-groups",
        "--bootstrap-server",
        bs,
        "--delete",
        "--group-pattern",
        f"sgsel-{tag}-a.",
        "--exclude-group",
        ".*1",
        "--backup-dir",
        str(tmp_path),
    )
    assert deleted.returncode == 0, deleted.stderr
    assert f"Selected 1 streams group(s): {apps[1]}" in deleted.stderr.splitlines()
    left = committed_of(bs, apps)
    assert left[apps[1]] == {}
    assert {tp: o for tp, o in left[apps[0]].items() if tp[0] == source_topic} == {
        (source_topic, 0): 2,
        (source_topic, 1): 5,
    }
