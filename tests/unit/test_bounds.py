"""Bounded, strict input: --to-datetime and --by-duration exactly as the Apache tool reads
them, Long-range numbers, plan files read as a bounded stream, bootstrap addresses, numeric
client properties, a byte order mark, and control characters kept off the terminal."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups import properties as properties_module
from kafka_groups.access.retry import Deadline
from kafka_groups.apache_argv import parse_long
from kafka_groups.client_config import client_security
from kafka_groups.core import reset
from kafka_groups.core.reset import (
    backup_csv,
    by_duration_timestamp,
    few,
    parse_datetime,
    parse_duration_ms,
    parse_plan_csv,
    plan_lines,
)
from kafka_groups.errors import ConfigError, UsageError
from kafka_groups.escape import escape_controls
from kafka_groups.settings import check_bootstrap, resolve_settings
from kafka_topics.core import api_timeout

# -- --to-datetime: the Apache tool's verdicts, recorded ---------------------------------
# Recorded with Kafka 4.3.1 against a topic `dt` of one partition holding 5 records with
# timestamps T0 + i seconds (T0 = 1_700_000_000_000 = 2023-11-14T22:13:20Z), for each X:
#   kafka-consumer-groups --bootstrap-server B --group dtg --reset-offsets --dry-run \
#       --topic dt --to-datetime X
# An int is the NEW-OFFSET the Apache tool printed (5: the latest, by the empty-partition
# fallback), None that it failed with "java.text.ParseException: Unparseable date" or
# "... does not contain a 'T' ...".
T0 = 1_700_000_000_000
APACHE_TO_DATETIME: dict[str, int | None] = {
    "2026-11-23T11:19:04": None,
    "2026-11-23T11:19:13.933150Z": None,
    "2023-11-14T22:13:21.000": 1,
    "2023-11-14T22:13:21.000Z": 1,
    "2023-11-14T23:13:21.000+01:00": 1,
    "2023-11-14T23:13:21.000+0130": 1,  # +hhmm: the minutes are dropped
    "2023-11-14T23:13:21.000+01": 1,
    "2023-11-14T23:13:21.000+1:00": None,
    "2023-11-14T22:13:21,000": None,
    "2023-11-14T22:13:21.1000": None,
    "2023-11-14T22:13:21.0001": 2,  # the fraction counts milliseconds: 21.001
    "2023-11-14T22:13:21.123456": None,
    "2023-11-14T22:13:21.000Zgarbage": 1,
    "2023-11-14T22:13:21.000 +00:00": 1,
    "2023-11-14T22:13:21.000z": None,
    "2023-11-14T22:13:21.000+05:99": 0,  # +hh:99 read as +05
    "2023-11-14T24:00:00.000": None,
    "2023-02-29T00:00:00.000": None,
    "2023-11-14T22:13:60.000": None,
    "2023-11-14T 22:13:21.000": 1,  # spaces before a number are skipped
    " 2023-11-14T22:13:21.000": 1,
    "2023-11-14T22:13:21. 001": 2,
    "2023-11-14T22:13:21.000+24:00": None,
    "2023-11-14t22:13:21.000": None,
    "2023-11-14T22:13:21.000-00:00": 1,
    "2023-11-14T22:13:21.000+05:3": 0,
    "2023-11-14T22:13:21.000\t+01:00": 0,
    "99999-01-01T00:00:00.000": 5,
    "1970-01-01T00:00:00.000": 0,
    "2023-1-5T1:2:3.4": 0,
    "+2023-11-14T22:13:21.000": None,
    "2023-11-14T22:13:21.000+01:00:00": 0,
    "2023-11-14T22:13:21.-1": None,
    "2023-11-14T22:13:21.000+0": None,
    "2023-11-14T22:13:21.000 ": 1,
    "2023-11-14T22:13:21": None,
    "2023-11-14T22:13": None,
    "2023-11-14": None,
    "2023-11-14T": None,
    "0000-01-01T00:00:00.000": None,
    "2023-11-14T22:13:21.000+00:00Z": 1,
}
RECORDS = [T0 + i * 1000 for i in range(5)]


def _first_offset_at_or_after(instant: int) -> int:
    return next((i for i, ts in enumerate(RECORDS) if ts >= instant), len(RECORDS))


@pytest.mark.parametrize("text", sorted(APACHE_TO_DATETIME))
def test_to_datetime_accepts_what_the_apache_tool_accepts(text):
    verdict = APACHE_TO_DATETIME[text]
    if verdict is None:
        with pytest.raises(UsageError, match="Invalid --to-datetime"):
            parse_datetime(text)
    else:
        assert _first_offset_at_or_after(parse_datetime(text)) == verdict


@pytest.mark.parametrize(
    "text", ["1969-12-31T23:59:59.999", "1969-12-31T23:59:59.998", "1900-01-01T00:00:00.000"]
)
def test_instants_before_the_epoch_are_refused(text):
    # The Apache tool sends -1 and -2, which the broker reads as latest (5) and earliest (0).
    with pytest.raises(UsageError, match="before 1970-01-01"):
        parse_datetime(text)


@given(
    st.datetimes(
        min_value=__import__("datetime").datetime(1970, 1, 1),
        max_value=__import__("datetime").datetime(9999, 12, 31),
    )
)
def test_any_apache_formatted_instant_round_trips(moment):
    import datetime as dt

    text = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"
    expected = (
        moment.replace(tzinfo=dt.timezone.utc) - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    ) // dt.timedelta(milliseconds=1)
    assert parse_datetime(text) == expected
    shifted = expected - 150 * 60_000
    if shifted >= 0:
        assert parse_datetime(text + "+02:30") == shifted
    else:  # the same wall time at +02:30 is before the epoch
        with pytest.raises(UsageError, match="before 1970-01-01"):
            parse_datetime(text + "+02:30")


# -- --by-duration: java.time.Duration.parse, recorded ------------------------------------
# Recorded with Kafka 4.3.1 as above, with --by-duration X instead of --to-datetime: True when
# the Apache tool printed a plan, False when it failed ("Text cannot be parsed to a Duration",
# "... Duration: hours", "Instant exceeds minimum or maximum instant").
APACHE_BY_DURATION = {
    "PT1H": True,
    "PT99999999999999999999H": False,
    "PT1.5H": False,
    "P1W": False,
    "-PT1M": True,
    "+PT1H": True,
    "pt1h": True,
    "P1DT2H": True,
    "PT0.1S": True,
    "PT1M-30S": True,
    "PT": False,
    "P": False,
    "P1D": True,
    "PT-0.5S": True,
    "P106751991167300D": False,  # the duration parses; now - duration is no instant
    "P106751991167301D": False,
}


@pytest.mark.parametrize("text", sorted(APACHE_BY_DURATION))
def test_by_duration_accepts_what_the_apache_tool_accepts(text):
    now = 1_763_900_000_000
    if APACHE_BY_DURATION[text]:
        assert by_duration_timestamp(text, now) >= 0
    else:
        with pytest.raises(UsageError, match="Invalid --by-duration"):
            by_duration_timestamp(text, now)


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("PT1M-30S", 30_000),
        ("PT-0.5S", -500),
        ("-P-1D", 86_400_000),
        ("PT1,5S", 1500),
        ("PT0.0005S", 1),  # rounded up: Java floors now - duration
        ("PT9223372036854775807S", 9223372036854775807000),
        ("PT-9223372036854775808S", -9223372036854775808000),
    ],
)
def test_duration_values(text, ms):
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize(
    "text",
    [
        "PT9223372036854775808S",
        "PT2562047788015216H",
        "P106751991167301D",
        "PT1H1H",
        "PT1S ",
        "PT1.0000000001S",
    ],
)
def test_durations_java_refuses(text):
    with pytest.raises(UsageError, match="Invalid --by-duration"):
        parse_duration_ms(text)


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=23), st.integers(0, 59))
def test_durations_are_their_parts(days, hours, minutes):
    text = f"P{days}DT{hours}H{minutes}M"
    assert parse_duration_ms(text) == ((days * 24 + hours) * 60 + minutes) * 60_000


# -- Long options -------------------------------------------------------------------------
@pytest.mark.parametrize("raw", ["99999999999999999999999", "9223372036854775808", "-9223372036854775809"])
def test_long_options_beyond_java_long_are_refused(raw):
    with pytest.raises(UsageError, match=f"Cannot parse argument '{raw}' of option shift-by"):
        parse_long(raw, "shift-by")


def test_long_options_at_the_bounds():
    assert parse_long("9223372036854775807", "shift-by") == 2**63 - 1
    assert parse_long("-9223372036854775808", "shift-by") == -(2**63)


# -- plan files ---------------------------------------------------------------------------
NAMES = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x00\ufeff"),
    min_size=1,
    max_size=20,
)
PLANS = st.dictionaries(
    NAMES,
    st.dictionaries(
        st.tuples(NAMES, st.integers(0, 2**31 - 1)), st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=5
    ),
    min_size=1,
    max_size=4,
)


@given(PLANS)
def test_any_backup_round_trips_through_the_plan_parser(plan):
    text = backup_csv(plan)
    assert parse_plan_csv(text, sorted(plan), "backup") == plan
    # the same bytes read as a stream, with a byte order mark
    stream = io.BytesIO(b"\xef\xbb\xbf" + text.encode())
    assert reset.parse_plan(plan_lines(stream, "backup"), sorted(plan), "backup") == plan


@given(
    st.text(min_size=1, max_size=10).filter(
        lambda s: (
            not s.strip().lstrip("+-").isdigit()
            and "," not in s
            and '"' not in s
            and s.strip() == s
            and "\n" not in s
            and "\r" not in s
        )
    )
)
def test_a_non_number_offset_is_named(offset):
    with pytest.raises(UsageError) as info:
        parse_plan_csv(f"orders,0,{offset}\n", ["g"], "f")
    assert "line 1:" in info.value.message
    assert f"the offset '{offset}' is not a number" in info.value.message
    with pytest.raises(UsageError, match="line 2: the offset"):
        parse_plan_csv(f"orders,0,1\norders,1,{offset}\n", ["g"], "f")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("orders,0,abc\n", "line 1: expected 4 columns (group,topic,partition,offset) or 3"),
        ("orders,x,1\n", "the partition 'x' is not a number"),
        ("orders,-1,1\n", "partition -1 is out of range"),
        ("orders,2147483648,1\n", "partition 2147483648 is out of range"),
        ("orders,0,9223372036854775808\n", "offset 9223372036854775808 is out of range"),
        ("g,orders,0,1\ng,orders,1,x\n", "line 2: the offset 'x' is not a number"),
    ],
)
def test_plan_numbers(text, message):
    with pytest.raises(UsageError) as info:
        parse_plan_csv(text, ["g"], "f")
    assert message in info.value.message


def test_a_byte_order_mark_starts_a_plan():
    stream = io.BytesIO(b"\xef\xbb\xbforders,0,5\r\norders,1,6\r\n\r\n")
    assert reset.parse_plan(plan_lines(stream, "f"), ["g"], "f") == {
        "g": {("orders", 0): 5, ("orders", 1): 6}
    }


class _Endless(io.RawIOBase):
    """Like /dev/zero: bytes without end, counting how many were read."""

    def __init__(self, byte: bytes) -> None:
        self.byte, self.read_bytes = byte, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        buffer[:] = self.byte * len(buffer)
        self.read_bytes += len(buffer)
        return len(buffer)


@pytest.mark.parametrize("byte", [b"\0", b"a"])
def test_an_endless_line_fails_fast_with_bounded_reading(byte):
    raw = _Endless(byte)
    with pytest.raises(UsageError, match="line 1 is longer than 64 KiB"):
        reset.parse_plan(plan_lines(io.BufferedReader(raw), "/dev/zero"), ["g"], "/dev/zero")
    assert raw.read_bytes < 4 * reset.MAX_PLAN_LINE_BYTES


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"orders,0,1\n\x00\x01\x02\n", "line 2 holds a NUL byte"),
        (b"orders,0,1\n\xff\xfe,1\n", "line 2 is not UTF-8"),
    ],
)
def test_binary_input_stops_at_its_line(data, message):
    with pytest.raises(UsageError, match=message):
        reset.parse_plan(plan_lines(io.BytesIO(data), "f"), ["g"], "f")


def test_too_many_rows_are_refused_while_reading(monkeypatch):
    monkeypatch.setattr(reset, "MAX_PLAN_ROWS", 3)
    consumed = []

    def rows():
        for i in range(10**9):
            consumed.append(i)
            yield f"orders,{i},1\n"

    with pytest.raises(UsageError, match="has more than 3 rows, the most one reset takes"):
        reset.parse_plan(rows(), ["g"], "f")
    assert len(consumed) == 4


def test_few_lists_a_few_and_counts_the_rest():
    items = [f"t-{i}" for i in range(5_900_000)]
    assert few(items) == "t-0,t-1,t-2,t-3,t-4 and 5,899,995 more"
    assert few(items[:5]) == "t-0,t-1,t-2,t-3,t-4"
    assert few([]) == ""


# -- connection settings ------------------------------------------------------------------
@pytest.mark.parametrize(
    "value", ["host:abc", "host:", ":9092", "host:99999", "host:0", "host", "a:1,,b:2", "h:1 2"]
)
def test_malformed_bootstrap_addresses(value):
    with pytest.raises(UsageError, match="Invalid --bootstrap-server address"):
        check_bootstrap(value)


@pytest.mark.parametrize("value", ["", " ", "\t"])
def test_blank_bootstrap(value):
    with pytest.raises(UsageError, match="--bootstrap-server is blank"):
        check_bootstrap(value)


def test_good_bootstrap_addresses():
    assert check_bootstrap(" a:1, b.example:65535 ") == "a:1,b.example:65535"
    assert check_bootstrap("[::1]:9092,127.0.0.1:9092") == "[::1]:9092,127.0.0.1:9092"


def test_bootstrap_errors_escape_control_characters():
    with pytest.raises(UsageError) as info:
        check_bootstrap("\x1b[2J:x")
    assert "\x1b" not in info.value.message and "\\x1b[2J:x" in info.value.message


def test_timeout_zero_and_negative_have_their_own_messages():
    with pytest.raises(ConfigError, match="--timeout 0 leaves no time"):
        resolve_settings("h:1", None, 0, environ={})
    with pytest.raises(ConfigError, match="must not be negative"):
        resolve_settings("h:1", None, -5, environ={})


@given(st.integers(2**31, 2**63 - 1))
def test_a_timeout_longer_than_the_clients_can_wait_is_refused(timeout_ms):
    # librdkafka times out at once on a call given more than 2**31 - 1 ms; the retries that
    # follow would run until a deadline that never comes.
    with pytest.raises(ConfigError) as info:
        resolve_settings("h:1", None, timeout_ms, environ={})
    expected = f"--timeout must be at most 2147483647 ms (about 24.8 days), got {timeout_ms}"
    assert info.value.message == expected


def test_the_longest_timeout_the_clients_can_wait_is_taken_as_calls_of_an_hour():
    # confluent-kafka refuses an Admin request_timeout over 3600 s (a ValueError, once an
    # "unexpected failure" of --timeout 4000000): one call waits an hour at most, and the
    # deadline's retries go on until the timeout runs out.
    settings = resolve_settings("h:1", None, 2**31 - 1, environ={})
    assert settings.timeout_ms == 2**31 - 1 and settings.timeout_s == 3600.0
    assert Deadline(2**31 - 1).remaining_s() == 3600.0 and not Deadline(2**31 - 1).expired
    assert resolve_settings("h:1", None, 3_599_999, environ={}).timeout_s == 3599.999


@pytest.mark.parametrize("value", ["abc", "-1", "1.5", "99999999999", "2147483648", "\u00b2", "1e3"])
def test_kafka_topics_refuses_a_default_api_timeout_that_is_not_whole_milliseconds(value):
    settings = resolve_settings("h:1", None, 60000, environ={}, default_timeout_ms=60000)
    with pytest.raises(ConfigError) as info:
        api_timeout(replace(settings, properties={"default.api.timeout.ms": value}))
    assert info.value.message.startswith("default.api.timeout.ms=")
    assert info.value.message.endswith("is not a valid number (whole milliseconds, 0 to 2147483647)")


@pytest.mark.parametrize(("value", "expected"), [("", 60000), (" ", 60000), ("0", 60000), ("1500", 1500)])
def test_kafka_topics_takes_its_default_api_timeout(value, expected):
    settings = resolve_settings("h:1", None, 60000, environ={}, default_timeout_ms=60000)
    assert api_timeout(replace(settings, properties={"default.api.timeout.ms": value})).timeout_ms == expected


@pytest.mark.parametrize("key", ["request.timeout.ms", "metadata.max.age.ms", "retry.backoff.ms"])
@pytest.mark.parametrize("value", ["abc", "-1", "1.5", "99999999999", ""])
def test_numeric_client_properties_name_their_key(key, value):
    with pytest.raises(ConfigError) as info:
        client_security({key: value})
    assert info.value.message.startswith(f"{key}={value} is not a valid number")


def test_numeric_client_properties_accepted():
    assert client_security({"request.timeout.ms": " 30000 ", "client.id": "x y"}).tuning == {
        "request.timeout.ms": "30000",
        "client.id": "x y",
    }


def test_a_properties_file_may_start_with_a_byte_order_mark(tmp_path):
    path = tmp_path / "client.properties"
    path.write_bytes(b"\xef\xbb\xbfsecurity.protocol=PLAINTEXT\nclient.id=\xc3\xa9\n")
    assert properties_module.load_properties(str(path)) == {
        "security.protocol": "PLAINTEXT",
        "client.id": "é",
    }


# -- control characters ---------------------------------------------------------------------
def test_control_characters_are_escaped():
    assert escape_controls("a\x1b[2Jb\r\nc\x00\x7f\x9b\td") == "a\\x1b[2Jb\\r\\nc\\x00\\x7f\\x9b\td"


@given(st.text())
def test_escaped_text_has_no_control_characters(text):
    out = escape_controls(text)
    assert not any((ord(c) < 32 and c != "\t") or 0x7F <= ord(c) <= 0x9F for c in out)
    if not any((ord(c) < 32 and c != "\t") or 0x7F <= ord(c) <= 0x9F for c in text):
        assert out == text


def test_the_row_limit_can_be_raised_but_not_blanked_into_nothing():
    assert reset.max_plan_rows({}) == reset.MAX_PLAN_ROWS
    assert reset.max_plan_rows({reset.ENV_MAX_PLAN_ROWS: " "}) == reset.MAX_PLAN_ROWS
    assert reset.max_plan_rows({reset.ENV_MAX_PLAN_ROWS: "2000000"}) == 2_000_000
    for bad in ("0", "-1", "1e6", "many"):
        with pytest.raises(UsageError, match="KAFKA_TOOLS_MAX_PLAN_ROWS must be a positive whole number"):
            reset.max_plan_rows({reset.ENV_MAX_PLAN_ROWS: bad})


def test_rich_tables_show_names_escaped_and_never_as_markup():
    from kafka_groups.render.table import TableSpec, print_table

    out = io.StringIO()
    spec = TableSpec("group \x1b]0;title\x07", ["GROUP"], [["a\x1b[2J[red]b[/red]"]])
    print_table(spec, out)
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text
    assert "a\\x1b[2J[red]b[/red]" in text
    assert "group \\x1b]0;title\\x07" in text


def test_notices_keep_their_lines_and_lose_their_controls():
    assert escape_controls("a\x1b[2J\nb\r", keep_newlines=True) == "a\\x1b[2J\nb\\r"


def test_a_blank_bootstrap_flag_never_falls_back_to_the_environment():
    env = {"KAFKA_BOOTSTRAP_SERVERS": "good:9092"}
    with pytest.raises(UsageError, match="--bootstrap-server is blank"):
        resolve_settings("  ", None, 5000, environ=env)
    assert resolve_settings(None, None, 5000, environ=env).bootstrap_servers == "good:9092"
    with pytest.raises(UsageError, match="Invalid KAFKA_BOOTSTRAP_SERVERS address 'good:x'"):
        resolve_settings(None, None, 5000, environ={"KAFKA_BOOTSTRAP_SERVERS": "good:x"})
    with pytest.raises(UsageError, match="Missing required argument"):
        resolve_settings(None, None, 5000, environ={"KAFKA_BOOTSTRAP_SERVERS": ""})
