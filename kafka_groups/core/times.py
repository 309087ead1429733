"""Timestamps as the tools print them."""

from __future__ import annotations

import datetime as dt

MISSING = "-"


def iso_utc_ms(ms: int | None) -> str:
    """Epoch milliseconds as ISO-8601 UTC with milliseconds (``2026-01-31T00:00:00.000Z``);
    ``-`` when unknown (None or negative, as brokers send -1)."""
    if ms is None or ms < 0:
        return MISSING
    moment = dt.datetime.fromtimestamp(ms // 1000, tz=dt.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
