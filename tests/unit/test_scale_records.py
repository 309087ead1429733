"""How bench/scale.py keeps and labels a case's record: a run beside rpk without the Apache tool,
or with ours' timeout set (--timeout-ms), is kept apart from the default run and named so."""

from __future__ import annotations

from bench import scale


def test_default_runs_keep_their_key() -> None:
    assert scale.record_key("partitions", "describe", 100000, True, None) == "partitions/describe/100000"
    assert scale.record_key("groups", "list", 1000, False, None) == "groups/list/001000/no-apache"


def test_a_run_with_a_timeout_is_kept_apart_from_the_default_one() -> None:
    keys = {
        scale.record_key("partitions", "describe", 100000, apache, timeout)
        for apache in (True, False)
        for timeout in (None, 60000, 30000)
    }
    assert len(keys) == 6
    assert scale.record_key("partitions", "describe", 100000, False, 60000) == (
        "partitions/describe/100000/no-apache/timeout-60000"
    )


def test_the_label_names_the_timeout_only_where_one_was_set() -> None:
    assert scale.command_label({"command": "describe"}) == "describe"
    assert (
        scale.command_label({"command": "describe", "timeout_ms": 60000}) == "describe (ours --timeout 60000)"
    )


def test_the_table_shows_a_timeout_row_beside_the_default_row() -> None:
    def record(timeout: int | None, exits: list[int]) -> dict[str, object]:
        ours = {"wall_s": 2.0, "cpu_s": 1.0, "rss_mib": 100.0, "exits": exits, "runs": 1}
        got: dict[str, object] = {
            "family": "partitions",
            "command": "describe",
            "size": 100000,
            "nodes": 8,
            "runs": 1,
            "measured": "2026-11-28 18:00 UTC",
            "load": "load 20.0/20.0 (busy)",
            "results": {"ours": ours},
        }
        if timeout is not None:
            got["timeout_ms"] = timeout
        return got

    text = scale.tables({"a": record(None, [1]), "b": record(60000, [0])})
    rows = [line for line in text.splitlines() if line.startswith("| describe")]
    assert len(rows) == 2
    assert any("x1" in row and "--timeout" not in row for row in rows)
    assert any("(ours --timeout 60000)" in row and "x1" not in row for row in rows)


def test_a_failed_run_of_ours_gives_no_ratio() -> None:
    ours = {"wall_s": 2.0, "cpu_s": 1.0, "rss_mib": 100.0, "exits": [0], "runs": 1}
    floor = {"wall_s": 1.0, "cpu_s": 0.5, "rss_mib": 20.0, "exits": [0], "runs": 1}
    assert scale._ratio(ours, floor) == "2.00x (2.00x CPU)"
    assert scale._ratio({**ours, "exits": [-11]}, floor) == "-"
    assert scale._ratio(ours, {**floor, "exits": [1]}) == "-"
