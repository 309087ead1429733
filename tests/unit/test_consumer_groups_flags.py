"""The flag form is validated in the Apache tool's order, with its messages."""

import pytest

from kafka_groups.cli.consumer_groups_flags import translate
from kafka_groups.commands.delete_groups import DeleteGroupsRequest, DeleteOffsetsRequest
from kafka_groups.commands.describe_groups import DescribeGroupsRequest
from kafka_groups.commands.list_groups import ListGroupsRequest
from kafka_groups.commands.validate_regex import ValidateRegexRequest
from kafka_groups.errors import UsageError
from kafka_groups.render import OutputFormat
from kafka_groups.settings import ConnectionArgs

B = ["--bootstrap-server", "b:9092"]


@pytest.fixture(autouse=True)
def _no_env_bootstrap(monkeypatch):
    monkeypatch.delenv("KAFKA_BOOTSTRAP_SERVERS", raising=False)
    monkeypatch.delenv("KAFKA_COMMAND_CONFIG", raising=False)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--list"], 'Missing required argument "[bootstrap-server]"'),
        ([*B, "--describe"], "Option [describe] takes one of these options: [all-groups], [group]"),
        (
            [*B, "--describe", "--group", "g", "--members", "--state"],
            "Option [describe] takes at most one of these options: [members], [offsets], [state]",
        ),
        (
            [*B, "--describe", "--group", "g", "--state", "x"],
            "Option [describe] does not take a value for [state]",
        ),
        ([*B, "--delete"], "Option [delete] takes one of these options: [all-groups], [group]"),
        (
            [*B, "--delete", "--group", "g", "--topic", "t"],
            "The consumer does not support topic-specific offset deletion from a consumer group.",
        ),
        (
            [*B, "--delete-offsets", "--group", "g"],
            "Option [delete-offsets] takes the following options: [topic], [group]",
        ),
        (
            [*B, "--reset-offsets", "--group", "g", "--dry-run", "--execute"],
            "Option [reset-offsets] only accepts one of [execute] and [dry-run]",
        ),
        (
            [*B, "--reset-offsets", "--to-earliest"],
            "Option [reset-offsets] takes one of these options: [all-groups], [group]",
        ),
        (
            [*B, "--reset-offsets", "--group", "g", "--to-earliest", "--to-latest"],
            'Option "[to-earliest]" can\'t be used with option "[to-latest]"',
        ),
        (
            [*B, "--reset-offsets", "--group", "g", "--to-offset", "3", "--to-latest", "--shift-by", "3"],
            'Option "[to-offset]" can\'t be used with option "[to-latest]"',
        ),
        (
            [*B, "--describe", "--group", "g", "--all-groups"],
            'Option "[group]" can\'t be used with option "[all-groups]"',
        ),
        (
            [*B, "--list", "--describe", "--group", "g"],
            'Option "[group]" can\'t be used with option "[list]"',
        ),
        ([*B, "--list", "--topic", "t"], 'Option "[topic]" can\'t be used with option "[list]"'),
        (
            [*B, "--describe", "--all-groups", "--topic", "t"],
            'Option "[topic]" can\'t be used with option "[describe]"',
        ),
        (
            B,
            "Command must include exactly one action: --list, --describe, --delete, --reset-offsets, "
            "--delete-offsets, --validate-regex",
        ),
        ([*B, "--type"], "Option(s) [type] are unavailable given other options on the command line"),
    ],
)
def test_validation_messages(argv, message):
    with pytest.raises(UsageError) as info:
        translate(argv)
    assert info.value.message == message


CONN = ConnectionArgs("b:9092", None, None, False)  # --timeout not given


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([*B, "--list"], ListGroupsRequest(CONN)),
        ([*B, "--list", "--state"], ListGroupsRequest(CONN, show_state=True)),
        (
            [*B, "--list", "--state", "stable,empty", "--type"],
            ListGroupsRequest(CONN, state="stable,empty", show_state=True, show_type=True),
        ),
        ([*B, "-list", "--type=classic"], ListGroupsRequest(CONN, group_type="classic", show_type=True)),
        ([*B, "--list", "--state="], ListGroupsRequest(CONN, show_state=True)),
    ],
)
def test_list_translates_to_the_list_request(argv, expected):
    assert translate(argv) == expected


def test_timeout_and_our_options_are_passed_on():
    argv = [*B, "--list", "--timeout", "250", "--output", "json", "--debug"]
    assert translate(argv) == ListGroupsRequest(
        ConnectionArgs("b:9092", None, 250, True), output=OutputFormat.JSON
    )
    assert translate([*B, "--list", "-o", "CSV"]).output is OutputFormat.CSV


def test_invalid_output_is_a_usage_error():
    with pytest.raises(UsageError, match="Invalid value for --output: 'xml'"):
        translate([*B, "--list", "--output", "xml"])


def test_bootstrap_from_environment_satisfies_the_required_flag(monkeypatch):
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", "env:9092")
    assert translate(["--list"]) == ListGroupsRequest(ConnectionArgs(None, None, None, False))


def test_describe_translates_to_the_describe_request():
    argv = [*B, "--describe", "--group", "a", "--group", "b", "--members", "--verbose"]
    assert translate(argv) == DescribeGroupsRequest(CONN, groups=("a", "b"), members=True, verbose=True)


def test_help_and_version():
    assert translate(["--help"]) == ("--help",)
    assert translate([*B, "--version"]) == ("--version",)


def test_delete_actions_translate_to_their_requests():
    assert translate([*B, "--delete", "--group", "a", "--group", "b"]) == DeleteGroupsRequest(
        CONN, groups=("a", "b")
    )
    assert translate([*B, "--delete", "--all-groups", "--output", "json"]) == DeleteGroupsRequest(
        CONN, all_groups=True, output=OutputFormat.JSON
    )
    argv = [*B, "--delete-offsets", "--group", "g", "--topic", "t:0,1", "--topic", "u", "--backup-dir", "/b"]
    assert translate(argv) == DeleteOffsetsRequest(CONN, group="g", topics=("t:0,1", "u"), backup_dir="/b")


def test_delete_offsets_takes_one_group():
    # The Apache tool fails on this too (with a stack trace, after connecting); ours is a usage error.
    with pytest.raises(
        UsageError, match="Found multiple arguments for option group, but you asked for only one"
    ):
        translate([*B, "--delete-offsets", "--group", "g", "--group", "h", "--topic", "t"])


def test_validate_regex_needs_no_bootstrap_and_ignores_other_options():
    # As the Apache tool: --bootstrap-server is required for every action but this one.
    assert translate(["--validate-regex", "a.*", "--group", ""]) == ValidateRegexRequest("a.*")
    assert translate([*B, "--validate-regex", "[a", "-o", "json"]) == ValidateRegexRequest(
        "[a", output=OutputFormat.JSON
    )
    with pytest.raises(UsageError, match=r"exactly one action: .*--delete-offsets, --validate-regex$"):
        translate(["--validate-regex", "a.*", "--list"])
    with pytest.raises(UsageError, match="Found multiple arguments for option validate-regex"):
        translate(["--validate-regex", "a", "--validate-regex", "b"])


def test_delete_offsets_from_a_file_takes_the_file_and_its_groups():
    from kafka_groups.commands.delete_file_offsets import DeleteFileOffsetsRequest

    argv = [*B, "--delete-offsets", "--from-file", "/p.csv", "--backup-dir", "/b"]
    assert translate(argv) == DeleteFileOffsetsRequest(CONN, path="/p.csv", backup_dir="/b")
    argv = [*B, "--delete-offsets", "--from-file", "/p.csv", "--group", "a", "--group", "b"]
    assert translate(argv) == DeleteFileOffsetsRequest(CONN, path="/p.csv", groups=("a", "b"))
    for other in ("topic", "all-groups"):
        with pytest.raises(
            UsageError, match=rf'Option "\[from-file\]" can\'t be used with option "\[{other}\]"'
        ):
            translate(
                [*B, "--delete-offsets", "--from-file", "/p.csv", f"--{other}", *(["t"] * (other == "topic"))]
            )
