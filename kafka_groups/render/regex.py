"""``--validate-regex``: the Apache tool's line (piped), the same line made safe for a terminal,
or the verdict as JSON or CSV."""

from __future__ import annotations

from typing import Any

from kafka_groups.core.re2j import RegexVerdict, validate_regex_report
from kafka_groups.escape import escape_controls

JSON_SCHEMA = "kafka-group-tools/validate-regex/v1"


def text(verdict: RegexVerdict) -> str:
    return validate_regex_report(verdict.regex) + "\n"


def terminal_text(verdict: RegexVerdict) -> str:
    # Nothing in the pattern may act on the terminal.
    return escape_controls(validate_regex_report(verdict.regex)) + "\n"


def table(verdict: RegexVerdict) -> Any:  # pragma: no cover - the terminal gets terminal_text
    raise TypeError("--validate-regex prints a line, not a table")


def json(verdict: RegexVerdict) -> dict[str, Any]:
    valid = verdict.error is None
    return {"schema": JSON_SCHEMA, "regex": verdict.regex, "valid": valid, "error": verdict.error}


def csv(verdict: RegexVerdict) -> list[list[str]]:
    valid = str(verdict.error is None).lower()
    return [["regex", "valid", "error"], [verdict.regex, valid, verdict.error or ""]]
