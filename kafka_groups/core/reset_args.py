"""``--reset-offsets`` values as the Apache tool reads them: ``--topic`` (``topic`` or
``topic:0,1,2``), ``--to-datetime`` and ``--by-duration``, each refusing what the pinned Apache
tool refuses (and instants before 1970, which Kafka would read as special offsets)."""

from __future__ import annotations

import re

from kafka_groups.core.groups import split_java
from kafka_groups.errors import UsageError

JAVA_INT_MAX = 2**31 - 1
JAVA_LONG_MIN, JAVA_LONG_MAX = -(2**63), 2**63 - 1


def parse_topic_arg(arg: str) -> tuple[str, list[int] | None]:
    """``topic`` (every partition) or ``topic:0,1,2``, with the Apache tool's errors."""
    if ":" not in arg:
        return arg, None
    parts = arg.split(":")
    while parts and parts[-1] == "":
        parts.pop()
    if len(parts) != 2:
        raise UsageError(f"Invalid topic arg '{arg}', expected topic name and partitions")
    topic, listed = parts
    partitions = []
    for raw in listed.split(","):
        if not re.fullmatch(r"[+-]?[0-9]+", raw) or not -(2**31) <= int(raw) < 2**31:
            raise UsageError(f"Invalid partition '{raw}' specified in topic arg '{arg}''")
        partitions.append(int(raw))
    return topic, partitions


# ``Utils.getDateTime``: SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSSXXX"), then "...SSSX",
# non-lenient. Every numeric field takes any number of digits after optional spaces or tabs,
# the literals must be exact, and text after the zone is ignored.
_FIELD = r"[ \t]*([0-9]+)"
_APACHE_DATETIME = re.compile(
    rf"{_FIELD}-{_FIELD}-{_FIELD}T{_FIELD}:{_FIELD}:{_FIELD}\.{_FIELD}[ \t]*(Z|[+-][0-9]{{2}})(:[0-9]{{2}})?"
)
DATETIME_FORMAT = (
    "yyyy-MM-ddTHH:mm:ss.SSS with an optional zone Z, +hh:mm or +hh, e.g. 2024-01-31T12:00:00.000Z"
)
# The Apache tool sends an instant before 1970 as a negative timestamp, which brokers read as a
# special offset (-1 latest, -2 earliest, -3 max timestamp...): refused here instead.
BEFORE_EPOCH = (
    "the instant is before 1970-01-01T00:00:00.000Z, which Kafka would read as a special offset "
    "(latest, earliest): use --to-earliest"
)
_JAVA_MAX_YEAR = 292_278_994  # GregorianCalendar's largest year
_MS_PER_DAY = 86_400_000


def parse_datetime(text: str) -> int:
    """``--to-datetime`` as epoch milliseconds, accepting exactly what the Apache tool accepts
    (``yyyy-MM-dd'T'HH:mm:ss.SSS``, UTC when no zone is given, the fraction read as a count of
    milliseconds up to 999, ``+hhmm`` read as ``+hh``) and refusing the rest, so that a value
    the Apache tool refuses never resets offsets here."""
    if len(split_java(text, "T")) < 2:
        raise UsageError(
            f"Invalid --to-datetime '{text}': it does not contain a 'T' according to ISO8601 format"
        )
    after_t = text.split("T", 1)[1]
    candidate = text if any(c in after_t for c in "+-Z") else text + "Z"
    match = _APACHE_DATETIME.match(candidate)
    millis = _apache_instant(match) if match else None
    if millis is None:
        raise UsageError(f"Invalid --to-datetime '{text}': Unparseable date (expected {DATETIME_FORMAT})")
    if millis > JAVA_LONG_MAX:
        raise UsageError(f"Invalid --to-datetime '{text}': out of range")
    if millis < 0:
        raise UsageError(f"Invalid --to-datetime '{text}': {BEFORE_EPOCH}")
    return millis


def parse_friendly_datetime(text: str, today: tuple[int, int, int]) -> tuple[int, bool]:
    """``--to-datetime`` in the subcommand form: the Apache format as :func:`parse_datetime` reads
    it, else what python-dateutil reads (``2026-01-31 12:00``, ``Jan 31 2026 12:00 UTC``, an
    offset such as ``+05:30``; UTC when no zone is given, ``today`` -- year, month, day -- for a
    missing date). Returns the instant in epoch milliseconds and whether dateutil read it (the
    command then says which instant it took). A zone name dateutil does not know is refused,
    never read as UTC."""
    try:
        return parse_datetime(text), False
    except UsageError as apache:
        if not text.strip():
            raise
        refused = apache
    import datetime as dt
    import warnings

    from dateutil import parser as dateparser

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # dateutil warns of a zone name it does not know
            moment = dateparser.parse(text, default=dt.datetime(*today))
    except dateparser.UnknownTimezoneWarning as exc:
        named = re.search(r"tzname (\S+)", str(exc))
        zone = f" '{named[1]}'" if named else ""
        raise UsageError(
            f"Invalid --to-datetime '{text}': the time zone{zone} is not known; give an offset such as +05:30"
        ) from None
    except (ValueError, OverflowError):
        raise UsageError(f"{refused.message}, and it is not a date and time python-dateutil reads") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    millis = (moment - epoch) // dt.timedelta(milliseconds=1)
    if millis < 0:
        raise UsageError(f"Invalid --to-datetime '{text}': {BEFORE_EPOCH}")
    return millis, True


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_epoch(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 in the proleptic Gregorian calendar (any year)."""
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146_097 + doe - 719_468


def _apache_instant(m: re.Match[str]) -> int | None:
    year, month, day, hour, minute, second, ms = (int(g) for g in m.groups()[:7])
    if not (
        1 <= year <= _JAVA_MAX_YEAR
        and 1 <= month <= 12
        and 1 <= day <= _days_in_month(year, month)
        and hour <= 23
        and minute <= 59
        and second <= 59
        and ms <= 999
    ):
        return None
    zone, zone_minutes = m[8], m[9]
    offset_min = 0
    if zone != "Z":
        hours = int(zone[1:])
        if hours > 23:
            return None
        # "+hh:mm" (pattern XXX) when the minutes are valid, else "+hh" (pattern X): the
        # minutes of "+hhmm" or of "+hh:99" are dropped, as Java drops them.
        minutes = int(zone_minutes[1:]) if zone_minutes else 0
        offset_min = hours * 60 + (minutes if minutes <= 59 else 0)
        offset_min = -offset_min if zone[0] == "-" else offset_min
    days = _days_from_epoch(year, month, day)
    local = days * _MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + ms
    return local - offset_min * 60_000


# java.time.Duration.parse
_DURATION = re.compile(
    r"([-+]?)P(?:([-+]?[0-9]+)D)?"
    r"(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?",
    re.IGNORECASE,
)


def parse_duration_ms(text: str) -> int:
    """``--by-duration`` (``java.time.Duration.parse``: ``PnDTnHnMn.nS``) in milliseconds,
    rounded up so that ``now - duration`` is floored as Java floors it. A duration whose
    seconds do not fit a Java long is refused, as Java refuses it."""
    m = _DURATION.fullmatch(text)
    if not m or (m[2] is None and m[3] is None) or (m[3] is not None and m[3].upper() == "T"):
        raise UsageError(f"Invalid --by-duration '{text}': expected ISO-8601 PnDTnHnMnS, e.g. PT1H30M")
    overflow = UsageError(f"Invalid --by-duration '{text}': out of range (seconds beyond a Java long)")
    seconds = 0
    for group, per in ((m[2], 86_400), (m[4], 3_600), (m[5], 60), (m[6], 1)):
        if group:
            part = int(group) * per
            if not JAVA_LONG_MIN <= int(group) <= JAVA_LONG_MAX or not JAVA_LONG_MIN <= part <= JAVA_LONG_MAX:
                raise overflow
            seconds += part
            if not JAVA_LONG_MIN <= seconds <= JAVA_LONG_MAX:
                raise overflow
    nanos = int(m[7].ljust(9, "0")) if m[7] else 0
    if m[6] and m[6].startswith("-"):
        nanos = -nanos
    total_ns = seconds * 10**9 + nanos
    if m[1] == "-":
        total_ns = -total_ns
    if not JAVA_LONG_MIN <= total_ns // 10**9 <= JAVA_LONG_MAX:
        raise overflow
    # Java floors now - duration to milliseconds: the duration is rounded up.
    return -(-total_ns // 10**6)


def by_duration_timestamp(text: str, now_ms: int) -> int:
    """``--by-duration``: the instant ``now - duration`` in epoch milliseconds (a Java long)."""
    stamp = now_ms - parse_duration_ms(text)
    if not JAVA_LONG_MIN <= stamp <= JAVA_LONG_MAX:
        raise UsageError(f"Invalid --by-duration '{text}': out of range (the instant is beyond a Java long)")
    if stamp < 0:
        raise UsageError(f"Invalid --by-duration '{text}': {BEFORE_EPOCH}")
    return stamp
