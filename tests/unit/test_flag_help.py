"""The flag form's --help teaches: every Apache option, grouped by action, one working example
per action, our additions named as ours."""

from __future__ import annotations

import re
import shlex

import pytest

from kafka_groups.cli import consumer_groups_flags, flag_help, streams_groups_flags
from kafka_groups.errors import UsageError
from kafka_topics import flags as topics_flags

TRANSLATE = {
    "kafka-consumer-groups": (consumer_groups_flags.translate, consumer_groups_flags.OPTIONS),
    "kafka-streams-groups": (streams_groups_flags.translate, streams_groups_flags.OPTIONS),
    "kafka-topics": (topics_flags.translate, topics_flags.OPTIONS),
}
OURS = {"output", "o", "debug", "backup-dir", "to-start-time", "to-nearest", "dry-run", "allow-non-atomic"}


@pytest.mark.parametrize("prog", sorted(TRANSLATE))
def test_every_flag_form_option_is_explained(prog):
    text = flag_help.render(prog, width=100)
    shown = set(re.findall(r"--([a-z][a-z-]*)", text))
    options = {o.name for o in TRANSLATE[prog][1]} - {"o"}
    assert options <= shown, options - shown


@pytest.mark.parametrize("prog", sorted(TRANSLATE))
def test_our_additions_are_named_as_ours(prog):
    text = flag_help.render(prog, width=100)
    ours_part = text.split("Ours (not in the Apache tool)", 1)[1]
    apache_part = text.split("Ours (not in the Apache tool)", 1)[0]
    options = {o.name for o in TRANSLATE[prog][1]}
    for name in OURS & options - {"o", "dry-run"}:
        assert f"--{name}" in ours_part
        assert not re.search(rf"^  --{name}\b", apache_part, re.M), name


@pytest.mark.parametrize("prog", sorted(TRANSLATE))
def test_each_action_has_one_example_the_tool_accepts(prog, monkeypatch):
    monkeypatch.delenv("KAFKA_BOOTSTRAP_SERVERS", raising=False)
    translate, _ = TRANSLATE[prog]
    tool = flag_help.TOOLS[prog]
    actions = [s for s in tool.sections if s.title.startswith("--")]
    assert len(actions) >= 5
    for section in actions:
        argv = shlex.split(section.example)
        assert argv[0] == prog
        action = section.title.split(":")[0].split()[0]
        assert action in argv, section.example
        try:
            translate(argv[1:])
        except UsageError as exc:  # an example must be a valid command line
            pytest.fail(f"{section.example}: {exc.message}")
        except Exception:
            pass  # valid, and refused later for another reason (e.g. not available yet)


@pytest.mark.parametrize("width", [60, 80, 100, 200])
def test_help_fits_the_width(width):
    for prog in TRANSLATE:
        for line in flag_help.render(prog, width=width).splitlines():
            assert len(line) <= max(width, 60) or " " not in line.strip(), line
