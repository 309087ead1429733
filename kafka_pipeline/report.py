"""What kafka-to-parquet prints: for one run, a row per partition and a summary line; with
``--every``, one line per landing on a terminal or one JSON document per landing
(``kafka-group-tools/landing/v1``, docs/json.md)."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

from kafka_pipeline.job import LandingReport

LANDING_SCHEMA = "kafka-group-tools/landing/v1"


def report_text(report: LandingReport) -> str:
    header = ("TOPIC", "PARTITION", "START", "END", "OFFSETS", "FROM")
    rows = [
        (p.topic, str(p.partition), str(p.start), str(p.end), str(p.end - p.start), p.how)
        for p in report.partitions
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    lines = [
        " ".join(c.ljust(w) for c, w in zip(r[:-1], widths, strict=True)) + " " + r[-1]
        for r in [header, *rows]
    ]
    summary = (
        f"Landed {report.offsets_landed} offsets of {len(report.partitions)} partitions "
        f"in {report.output} (run {report.run_id})"
    )
    if report.superseded:
        summary += f"; {report.superseded} earlier range(s) moved to _superseded after a reset"
    if report.limited:
        left = sum(p.log_end - p.end for p in report.partitions)
        summary += f"; --max-records left {left} offsets for the next run"
    return "\n".join([*lines, "", summary])


def print_report(report: LandingReport) -> None:
    print(report_text(report))


@dataclass(frozen=True)
class Landing:
    """One interval of ``--every``: a landing, or why there was none."""

    number: int  # 1 for the service's first landing
    status: str  # landed, failed (transient failures until the interval ended) or abandoned (a stop)
    started_ms: int
    elapsed_s: float  # from the service's start to this landing's (monotonic clock)
    report: LandingReport | None
    attempts: int = 1
    error: str | None = None  # the last failed attempt's reason
    seconds: float | None = None  # the time spent, when there is no report


def _timestamp(ms: int) -> str:
    moment = dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def landing_line(landing: Landing) -> str:
    """The terminal's line: records, records/s and the lag left, and anything unusual."""
    head = f"{_timestamp(landing.started_ms)[:19]}Z landing {landing.number}"
    report = landing.report
    if landing.status == "abandoned":
        return f"{head}: abandoned on the stop, nothing of it published"
    if report is None:
        tries = f"{landing.attempts} attempts" if landing.attempts > 1 else "1 attempt"
        return f"{head}: failed ({tries}): {landing.error}"
    lag = "unknown" if report.lag is None else str(report.lag)
    line = (
        f"{head}: {report.offsets_landed} records in {report.seconds:.2f} s "
        f"({report.offsets_per_s:.0f} records/s), lag {lag}"
    )
    notes = []
    if report.limited:
        notes.append("limited by --max-records")
    new = [f"{p.topic}-{p.partition}" for p in report.partitions if p.new]
    if new:
        notes.append(f"new partitions {', '.join(new)}")
    if report.superseded:
        notes.append(f"{report.superseded} range(s) superseded after a reset")
    if landing.attempts > 1:
        notes.append(f"after {landing.attempts - 1} failed attempt(s): {landing.error}")
    return line + "".join(f"; {n}" for n in notes)


def landing_document(landing: Landing, every_s: float, group: str, output: str) -> dict[str, Any]:
    report = landing.report
    document: dict[str, Any] = {
        "schema": LANDING_SCHEMA,
        "landing": landing.number,
        "status": landing.status,
        "timestamp": _timestamp(landing.started_ms),
        "timestamp_ms": landing.started_ms,
        "elapsed_s": round(landing.elapsed_s, 3),
        "interval_s": every_s,
        "group": group,
        "output": report.output if report is not None else output,
        "run_id": report.run_id if report is not None else None,
        "records": report.offsets_landed if report is not None else None,
        "seconds": round(report.seconds if report is not None else landing.seconds or 0.0, 3),
        "records_per_s": round(report.offsets_per_s, 1) if report is not None else None,
        "lag": report.lag if report is not None else None,
        "limited": report.limited if report is not None else None,
        "tasks": report.tasks if report is not None else None,
        "superseded": report.superseded if report is not None else None,
        "new_partitions": (
            [{"topic": p.topic, "partition": p.partition} for p in report.partitions if p.new]
            if report is not None
            else None
        ),
        "attempts": landing.attempts,
        "error": landing.error,
        "partitions": (
            [
                {
                    "topic": p.topic,
                    "partition": p.partition,
                    "start": p.start,
                    "end": p.end,
                    "records": p.end - p.start,
                    "log_end_offset": p.log_end,
                    "lag": p.lag,
                    "from": p.how,
                    "new": p.new,
                }
                for p in report.partitions
            ]
            if report is not None
            else None
        ),
    }
    return document


def landing_document_line(landing: Landing, every_s: float, group: str, output: str) -> str:
    return json.dumps(landing_document(landing, every_s, group, output), separators=(",", ":"))
