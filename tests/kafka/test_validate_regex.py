"""kafka-consumer-groups --validate-regex beside the pinned Apache tool, and our RE2J rules
beside the broker's own RE2J library (re2j-1.8.jar from the pinned Kafka)."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from infra import kafka as local_kafka
from kafka_groups.core.re2j import re2j_error

pytestmark = pytest.mark.kafka

HARNESS = Path(__file__).resolve().parent.parent / "re2j" / "Re2jVerdicts.java"

# A handful across the refusals (and a few the Python `re` module would judge differently).
PATTERNS = [
    "orders-.*",
    "[foo.*",
    "(?<=a)b",
    "a**",
    r"\p{Greek}+",
    "(?P<a>x)(?P<a>y)",
    r"\1",
    "{*",
]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_output_is_byte_identical_to_apache(apache, ours, pattern: str) -> None:
    theirs = apache("kafka-consumer-groups", "--validate-regex", pattern)
    mine = ours("kafka-consumer-groups", "--validate-regex", pattern)
    assert mine.stdout == theirs.stdout
    assert theirs.returncode == 0  # the Apache tool exits 0 either way
    valid = theirs.stdout.endswith("is valid.\n")
    # Ours exits 1 for a pattern the broker would refuse, with one line on stderr.
    assert mine.returncode == (0 if valid else 1)
    assert mine.stderr.count("\n") == (0 if valid else 1)


def test_no_bootstrap_needed_and_other_options_ignored(apache, ours) -> None:
    args = ["--validate-regex", "t.*", "--group", "g", "--command-config", "/nonexistent.properties"]
    theirs = apache("kafka-consumer-groups", *args)
    mine = ours("kafka-consumer-groups", *args)
    assert (
        (mine.returncode, mine.stdout)
        == (theirs.returncode, theirs.stdout)
        == (
            0,
            "The regular expression `t.*` is valid.\n",
        )
    )


def test_a_second_action_is_refused_as_apache_refuses_it(apache, ours) -> None:
    args = ["--bootstrap-server", "localhost:1", "--validate-regex", "t.*", "--list"]
    theirs = apache("kafka-consumer-groups", *args)
    mine = ours("kafka-consumer-groups", *args)
    first_line = theirs.stdout.splitlines()[0] if theirs.stdout else theirs.stderr.splitlines()[0]
    assert mine.stderr.strip() == f"Error: {first_line}"
    assert mine.returncode == 2 and mine.stdout == ""


def test_subcommand_form_matches_flag_form(ours) -> None:
    for pattern in ("orders-.*", "[foo"):
        flag = ours("kafka-consumer-groups", "--validate-regex", pattern)
        sub = ours("kafka-consumer-groups", "validate-regex", pattern)
        assert (sub.returncode, sub.stdout, sub.stderr) == (flag.returncode, flag.stdout, flag.stderr)


def _random_patterns(count: int, seed: int) -> list[str]:
    pieces = [
        *"()[]{}|*+?^$.\\-:,<>=!#PpQEbBAzCdDswxn0179aLZ_é",
        "(?",
        "(?P<",
        "(?<",
        "[:alpha:]",
        "\\p{",
        "Latin}",
        "{2}",
        "{1,3}",
        "\\Q",
        "\\E",
        "\\x{",
        "(?i",
    ]
    rnd = random.Random(seed)
    return sorted({"".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 10))) for _ in range(count)})


def test_verdicts_match_the_brokers_re2j_library() -> None:
    """The same verdict and reason as RE2J itself, on thousands of random patterns."""
    libs = local_kafka.ensure_jars()
    patterns = _random_patterns(4000, seed=19)
    run = subprocess.run(
        [local_kafka._java(), "-cp", f"{libs}/*", str(HARNESS)],
        input="".join(p.encode().hex() + "\n" for p in patterns),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    verdicts = run.stdout.splitlines()
    assert len(verdicts) == len(patterns)
    expected = [None if v == "OK" else v.removeprefix("ERR ") for v in verdicts]
    assert sum(e is None for e in expected) > 200  # both kinds are well represented
    mismatches = [
        (p, e, re2j_error(p)) for p, e in zip(patterns, expected, strict=True) if re2j_error(p) != e
    ]
    assert mismatches == []
