"""commands.session: the settings' secrets travel with a failure to the entry point, which
scrubs them; nothing about them stays in the process between runs."""

from dataclasses import dataclass

from kafka_groups.cli.runner import run_tool
from kafka_groups.commands.session import cluster_session
from kafka_groups.errors import CliError, ExitCode
from kafka_groups.secrets import secrets_of
from kafka_groups.settings import ConnectionSettings

JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="hunter22";'
SECURE = ConnectionSettings(
    "127.0.0.1:9",
    1000,
    {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": JAAS},
)


@dataclass
class Failing:
    settings: ConnectionSettings
    failure: Exception

    def execute(self, show: object = None) -> None:
        with cluster_session(self.settings):  # opens no connection until a call needs one
            raise self.failure


def _run(request: Failing) -> int:
    return run_tool("prog", ["--flag"], (), lambda _argv: request, lambda: None)


def test_the_settings_carry_their_secrets():
    assert "hunter22" in SECURE.secrets
    assert ConnectionSettings("127.0.0.1:9", 1000).secrets == frozenset()


def test_a_failure_in_a_session_is_printed_without_the_secrets(capsys):
    code = _run(Failing(SECURE, CliError("authentication as u with hunter22 failed")))
    err = capsys.readouterr().err
    assert code == ExitCode.ERROR
    assert "hunter22" not in err
    assert err == "Error: authentication as u with [hidden] failed\n"


def test_an_unexpected_failure_in_a_session_is_scrubbed_too(capsys):
    code = _run(Failing(SECURE, RuntimeError(f"library said {JAAS}")))
    err = capsys.readouterr().err
    assert code == ExitCode.ERROR
    assert "hunter22" not in err and "[hidden]" in err


def test_a_failure_keeps_only_the_secrets_of_its_own_settings():
    exc = CliError("x")
    try:
        with cluster_session(ConnectionSettings("127.0.0.1:9", 1000)):
            raise exc
    except CliError:
        pass
    _ = SECURE.secrets  # another run's settings, made before: nothing global to pick up
    assert secrets_of(exc) == frozenset()
