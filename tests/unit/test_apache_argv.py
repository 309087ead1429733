import pytest

from kafka_groups.apache_argv import Arg, Opt, is_flag_form, parse
from kafka_groups.errors import UsageError

OPTS = (
    Opt("list"),
    Opt("describe"),
    Opt("group", Arg.REQUIRED),
    Opt("timeout", Arg.REQUIRED),
    Opt("state", Arg.OPTIONAL, available_if=("describe", "list")),
    Opt("members", available_if=("describe",)),
)


def test_single_dash_and_equals_forms():
    p = parse(["-list", "--group=g1", "--group", "g2"], OPTS)
    assert p.has("list")
    assert p.all("group") == ["g1", "g2"]


def test_required_argument_consumes_an_option_looking_token():
    p = parse(["--group", "--list"], OPTS)
    assert p.all("group") == ["--list"]
    assert not p.has("list")


def test_optional_argument_skips_option_looking_token():
    p = parse(["--list", "--state", "--group", "g"], OPTS)
    assert p.one("state") is None
    assert p.all("group") == ["g"]
    assert parse(["--list", "--state", "stable,empty"], OPTS).one("state") == "stable,empty"
    assert parse(["--list", "--state="], OPTS).one("state") == ""


def test_non_options_are_ignored_and_double_dash_ends_parsing():
    p = parse(["stray", "--list", "--", "--describe"], OPTS)
    assert p.has("list")
    assert not p.has("describe")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--desc"], "desc is not a recognized option"),
        (["--list", "--group"], "Option group requires an argument"),
        (["--members"], "Option(s) [members] are unavailable given other options on the command line"),
        (["--state"], "Option(s) [state] are unavailable given other options on the command line"),
    ],
)
def test_parse_errors_carry_jopt_messages(argv, message):
    with pytest.raises(UsageError) as info:
        parse(argv, OPTS)
    assert info.value.message == message


def test_repeated_single_value_option_fails_only_when_used():
    p = parse(["--list", "--timeout", "1", "--timeout", "2"], OPTS)
    with pytest.raises(UsageError, match="Found multiple arguments for option timeout"):
        p.number("timeout", 5000)


@pytest.mark.parametrize("raw", ["abc", " 5", "1_000", "5.0"])
def test_numbers_are_parsed_like_java_long(raw):
    p = parse(["--list", "--timeout", raw], OPTS)
    with pytest.raises(UsageError, match=f"Cannot parse argument '{raw}' of option timeout"):
        p.number("timeout", 5000)


def test_numbers_accept_sign():
    assert parse(["--list", "--timeout", "-3"], OPTS).number("timeout", 0) == -3
    assert parse(["--list"], OPTS).number("timeout", 5000) == 5000


def test_flag_form_detection():
    assert is_flag_form(["--bootstrap-server", "b", "--list"], {"list"})
    assert not is_flag_form(["list", "--bootstrap-server", "b"], {"list"})
    assert not is_flag_form(["--help"], {"list"})
    assert not is_flag_form([], {"list"})
