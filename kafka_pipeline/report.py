"""What a landing run prints: one row per partition, then a summary line."""

from __future__ import annotations

from kafka_pipeline.job import LandingReport


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
    return "\n".join([*lines, "", summary])


def print_report(report: LandingReport) -> None:
    print(report_text(report))
