"""The entry points without a broker: help, version, usage errors, start-up imports."""

import subprocess
import sys

import pytest

from kafka_groups.cli import consumer_groups, streams_groups
from kafka_topics import cli as topics_cli

TOOLS = [
    ("kafka-consumer-groups", consumer_groups.main),
    ("kafka-streams-groups", streams_groups.main),
    ("kafka-topics", topics_cli.main),
]


def _exit_code(main, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    return info.value.code


@pytest.mark.parametrize(("prog", "main"), TOOLS)
def test_version(prog, main, capsys):
    assert _exit_code(main, ["--version"]) == 0
    assert capsys.readouterr().out.startswith(f"{prog} ")


@pytest.mark.parametrize(("prog", "main"), TOOLS)
def test_help_lists_the_subcommands(prog, main, capsys):
    assert _exit_code(main, ["--help"]) == 0
    out = capsys.readouterr().out
    assert "list" in out
    assert "--bootstrap-server" in out  # the flag form is explained


@pytest.mark.parametrize(
    ("main", "argv", "message"),
    [
        (consumer_groups.main, ["--list"], 'Error: Missing required argument "[bootstrap-server]"'),
        (consumer_groups.main, ["--bootstrap-server", "b", "--lst"], "Error: lst is not a recognized option"),
        (
            consumer_groups.main,
            ["list", "--bootstrap-server", "b", "--nope"],
            "Error: No such option",
        ),
        (
            consumer_groups.main,
            ["--bootstrap-server", "b", "--list", "--state", "bogus"],
            "Error: Invalid state list 'bogus'. Valid states are: ",
        ),
        (
            topics_cli.main,
            ["--bootstrap-server", "b", "--list", "--describe"],
            "Error: Command must include exactly one action",
        ),
        (streams_groups.main, ["--bootstrap-server", "b"], "Error: Command must include exactly one action"),
        (
            consumer_groups.main,
            ["--bootstrap-server", "b", "--list", "--command-config", "/nonexistent/x.properties"],
            "Error: cannot read --command-config file /nonexistent/x.properties",
        ),
    ],
)
def test_usage_errors_are_one_line_on_stderr(main, argv, message, capsys, monkeypatch):
    monkeypatch.delenv("KAFKA_BOOTSTRAP_SERVERS", raising=False)
    assert _exit_code(main, argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(message)


@pytest.mark.parametrize(
    "prog", ["kafka_groups.cli.consumer_groups", "kafka_groups.cli.streams_groups", "kafka_topics.cli"]
)
@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["list", "--help"]])
def test_help_and_version_do_not_load_kafka_clients(prog, argv):
    code = (
        "import sys\n"
        f"from {prog} import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "loaded = [m for m in ('confluent_kafka', 'kafka') if m in sys.modules]\n"
        "print('LOADED', loaded, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "LOADED []" in proc.stderr


def test_unreachable_cluster_is_one_line_and_exit_1(capsys):
    # Port 1 on loopback: nothing listens there, the connection is refused at once.
    assert (
        _exit_code(consumer_groups.main, ["--bootstrap-server", "127.0.0.1:1", "--list", "--timeout", "500"])
        == 1
    )
    captured = capsys.readouterr()
    assert (
        captured.err.strip()
        == "Error: cannot reach the cluster at 127.0.0.1:1 within 500 ms: connection refused"
    )
    assert captured.out == ""


@pytest.mark.parametrize("action", [["--list"], ["--describe", "--topic", "t"]])
def test_kafka_topics_waits_the_default_api_timeout_it_is_given(action, capsys, monkeypatch):
    """kafka-topics has no --timeout: each action waits default.api.timeout.ms, as the Apache
    tool's Admin client does (60 s unless --command-config or the environment sets it)."""
    monkeypatch.setenv("KAFKA_CLIENT_DEFAULT_API_TIMEOUT_MS", "400")
    assert _exit_code(topics_cli.main, ["--bootstrap-server", "127.0.0.1:1", *action]) == 1
    assert capsys.readouterr().err.strip() == (
        "Error: cannot reach the cluster at 127.0.0.1:1 within 400 ms: connection refused"
    )


def test_flag_form_does_not_load_typer():
    """Scripts use the flag form: it goes straight to the request, without Typer or Rich."""
    code = (
        "import sys\n"
        "from kafka_groups.cli.consumer_groups import main\n"
        "try:\n"
        "    main(['--bootstrap-server', '127.0.0.1:1', '--describe', '--group', 'g', '--timeout', '300'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('LOADED', [m for m in ('typer', 'click', 'rich') if m in sys.modules], file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "LOADED []" in proc.stderr


def test_an_error_is_one_line_and_its_detail_follows_escaped(capsys):
    """A failure's context (a JVM's last lines) comes after the one error line, line by line,
    with control characters made visible; the error line itself stays one line."""
    from kafka_groups.cli.runner import run_tool
    from kafka_groups.errors import CliError

    def fail(argv):
        raise CliError("it broke\non two lines", "  the JVM's last lines:\n  | boom\x1b[2J")

    code = run_tool("tool", ["--x"], (), fail, lambda: None)
    err = capsys.readouterr().err.splitlines()
    assert code == 1
    assert err == ["Error: it broke\\non two lines", "  the JVM's last lines:", "  | boom\\x1b[2J"]


@pytest.mark.parametrize(
    ("main", "argv", "line"),
    [
        (
            consumer_groups.main,
            ["--bootstrap-server", "b", "--describ", "--group", "g"],
            "Error: describ is not a recognized option (did you mean --describe?)",
        ),
        (
            topics_cli.main,
            ["--bootstrap-server", "b", "--lst"],
            "Error: lst is not a recognized option (did you mean --list?)",
        ),
        (
            streams_groups.main,
            ["--bootstrap-server", "b", "--all-group", "--list"],
            "Error: all-group is not a recognized option (did you mean --all-groups?)",
        ),
        (
            topics_cli.main,
            ["reset", "--help"],
            "Error: No such command 'reset'; the commands are: "
            "list, describe, create, alter, delete, clusters",
        ),
        (
            consumer_groups.main,
            ["lsit"],
            "Error: No such command 'lsit' (did you mean list?); the commands are: "
            "list, describe, reset-offsets, delete-offsets, delete, validate-regex, clusters",
        ),
    ],
)
def test_typos_get_a_hint_on_the_one_error_line(main, argv, line, capsys):
    assert _exit_code(main, argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [line]
