"""The checked-in completion scripts are exactly what the apps generate."""

from pathlib import Path

from kafka_groups.cli.completions import expected_files

ROOT = Path(__file__).resolve().parents[2] / "completions"


def test_completion_scripts_are_current():
    expected = expected_files()
    on_disk = {str(p.relative_to(ROOT)): p.read_text() for p in ROOT.rglob("*") if p.is_file()}
    assert sorted(on_disk) == sorted(expected), "run: python -m kafka_groups.cli.completions"
    for rel, text in expected.items():
        assert on_disk[rel] == text, f"{rel} is stale; run: python -m kafka_groups.cli.completions"


def test_every_program_has_a_script_per_shell():
    names = set(expected_files())
    for prog in ("kafka-consumer-groups", "kafka-streams-groups", "kafka-topics"):
        assert {f"bash/{prog}.bash", f"zsh/_{prog}", f"fish/{prog}.fish"} <= names
