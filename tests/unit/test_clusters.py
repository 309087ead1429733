"""Named clusters (kafka_groups/clusters.py) on plain data: the file's checks, each naming the file,
the line and the problem; how a named cluster, the flags and the environment combine into the
settings; ``clusters show``'s masking; the subcommand form's friendlier --to-datetime."""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.clusters import SecretRef, cluster_properties, config_path, parse_clusters, read_config
from kafka_groups.commands.clusters import masked
from kafka_groups.core.reset_args import parse_friendly_datetime
from kafka_groups.errors import ConfigError, UsageError
from kafka_groups.secrets import REDACTED
from kafka_groups.settings import resolve_settings

GOOD = """\
# two clusters
[clusters.staging]
bootstrap-server = "staging-1:9092, staging-2:9092"
command-config = "staging.properties"
timeout = 12000

[clusters.prod]
bootstrap-server = "prod-1:9093"
protected = true

[clusters.prod.properties]
"security.protocol" = "SASL_SSL"
"sasl.mechanism" = "SCRAM-SHA-512"
"sasl.jaas.config" = { env = "PROD_JAAS" }
"ssl.truststore.password" = { file = "secrets/ts" }
"request.timeout.ms" = 30000
"enable.ssl.certificate.verification" = true
"""


def write_config(tmp_path: Path, text: str) -> dict[str, str]:
    """A clusters.toml under a fresh XDG_CONFIG_HOME; the environment that finds it."""
    folder = tmp_path / "config" / "kafka-group-tools"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "clusters.toml").write_text(text)
    return {"XDG_CONFIG_HOME": str(tmp_path / "config")}


def test_a_good_file_is_read_in_order_with_paths_resolved_against_it(tmp_path):
    path = str(tmp_path / "clusters.toml")
    known = parse_clusters(GOOD, path, {})
    assert list(known.clusters) == ["staging", "prod"]
    staging, prod = known.clusters["staging"], known.clusters["prod"]
    assert staging.bootstrap_server == "staging-1:9092,staging-2:9092"
    assert staging.command_config == str(tmp_path / "staging.properties")
    assert staging.timeout_ms == 12000 and not staging.protected
    assert prod.protected and prod.timeout_ms is None and prod.command_config is None
    assert prod.properties["sasl.jaas.config"] == SecretRef("env", "PROD_JAAS")
    assert prod.properties["ssl.truststore.password"] == SecretRef("file", str(tmp_path / "secrets" / "ts"))
    assert prod.properties["request.timeout.ms"] == "30000"
    assert prod.properties["enable.ssl.certificate.verification"] == "true"


def test_the_file_lives_in_the_xdg_config_home():
    assert config_path({"XDG_CONFIG_HOME": "/cfg"}) == Path("/cfg/kafka-group-tools/clusters.toml")
    assert config_path({"XDG_CONFIG_HOME": " "}) == Path.home() / ".config/kafka-group-tools/clusters.toml"


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('[clusters.a]\nbootstrap-server = "h:1"\nprotecetd = true\n', 3, "unknown key 'protecetd'"),
        ('[clusters.a]\nbootstrap-server = "h:1"\nprotected = "yes"\n', 3, "protected must be true or false"),
        ('[clusters.a]\nbootstrap-server = "h:99999"\n', 2, "Invalid bootstrap-server of cluster 'a'"),
        ("[clusters.a]\nprotected = true\n", 1, "needs bootstrap-server"),
        ('[clusters.a]\nbootstrap-server = "h:1"\ntimeout = 0\n', 3, "timeout must be a whole number"),
        ('[clusters.a]\nbootstrap-server = "h:1"\ntimeout = "5s"\n', 3, "timeout must be a whole number"),
        ('[clusters.a]\nbootstrap-server = "h:1"\n[clusters.a.properties]\nx = [1]\n', 4, "property 'x'"),
        (
            '[clusters.a]\nbootstrap-server = "h:1"\n[clusters.a.properties]\nx = {env = ""}\n',
            4,
            "property 'x'",
        ),
        (
            '[clusters.a]\nbootstrap-server = "h:1"\ncommand-config = "c"\n'
            '[clusters.a.properties]\nx = "1"\n',
            3,
            "sets both command-config and properties",
        ),
        ('[clusters."a b"]\nbootstrap-server = "h:1"\n', 1, "cluster name 'a b' must be"),
        ('[cluster.a]\nbootstrap-server = "h:1"\n', None, "unknown table or key 'cluster'"),
        ('[clusters.a]\nbootstrap-server = "h:1"\n[clusters.b\n', 3, "not valid TOML"),
        ('[clusters.a]\nbootstrap-server = "h:1"\nbootstrap-server = "h:2"\n', 3, "not valid TOML"),
    ],
)
def test_each_mistake_is_one_line_naming_the_file_the_line_and_the_problem(text, line, words):
    with pytest.raises(ConfigError) as raised:
        parse_clusters(text, "/home/op/.config/kafka-group-tools/clusters.toml", {})
    message = raised.value.message
    assert "\n" not in message
    where = "/home/op/.config/kafka-group-tools/clusters.toml"
    assert message.startswith(f"{where}, line {line}: " if line else f"{where}: "), message
    assert words in message


@given(st.text(min_size=1, max_size=40))
def test_any_text_is_read_or_refused_with_one_line(text):
    try:
        parse_clusters(text, "/c.toml", {})
    except ConfigError as exc:
        assert exc.message.startswith("/c.toml") and "\n" not in exc.message


def test_a_fifo_or_a_device_or_a_huge_file_is_refused_without_reading_it(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="is not a regular file"):
        read_config(fifo)  # returns at once: nothing is read from a FIFO
    with pytest.raises(ConfigError, match="is not a regular file"):
        read_config(Path("/dev/zero"))
    huge = tmp_path / "huge.toml"
    with open(huge, "wb") as file:
        file.truncate(2 << 20)
    with pytest.raises(ConfigError, match=r"more than the 1\.0 MB the tools read of a clusters file"):
        read_config(huge)
    assert read_config(tmp_path / "missing.toml") is None


def _settings(env, bootstrap=None, config=None, timeout=None, **kwargs):
    return resolve_settings(bootstrap, config, timeout, environ=env, **kwargs)


def test_a_named_cluster_gives_servers_properties_timeout_and_protection(tmp_path):
    env = write_config(tmp_path, GOOD)
    secrets = tmp_path / "config" / "kafka-group-tools" / "secrets"
    secrets.mkdir()
    (secrets / "ts").write_text("trust-me-not\n")
    jaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="op" password="pw-123";'
    settings = _settings({**env, "PROD_JAAS": jaas}, cluster="prod")
    assert settings.bootstrap_servers == "prod-1:9093"
    assert settings.cluster_name == "prod" and settings.protected
    assert settings.properties["ssl.truststore.password"] == "trust-me-not"
    assert settings.properties["sasl.jaas.config"] == jaas
    assert {"trust-me-not", "pw-123"} <= settings.secrets  # scrubbed from whatever is printed
    (tmp_path / "config" / "kafka-group-tools" / "staging.properties").write_text("client.id=ops\n")
    staging = _settings(env, cluster="staging")
    assert staging.timeout_ms == 12000 and staging.properties["client.id"] == "ops" and not staging.protected
    assert _settings(env, cluster="staging", timeout=700).timeout_ms == 700  # --timeout wins
    os.remove(tmp_path / "config" / "kafka-group-tools" / "staging.properties")
    with pytest.raises(ConfigError, match=r"cannot read the command-config file of cluster 'staging' \("):
        _settings(env, cluster="staging")


def test_flags_win_over_the_named_cluster_and_the_cluster_over_the_variables(tmp_path):
    env = write_config(tmp_path, GOOD) | {"PROD_JAAS": "x", "KAFKA_BOOTSTRAP_SERVERS": "elsewhere:1"}
    (tmp_path / "config" / "kafka-group-tools" / "secrets").mkdir()
    (tmp_path / "config" / "kafka-group-tools" / "secrets" / "ts").write_text("t")
    given_flag = _settings(env, cluster="prod", bootstrap="prod-2:9093")
    assert given_flag.bootstrap_servers == "prod-2:9093" and given_flag.protected  # still prod's protection
    assert _settings(env, cluster="prod").bootstrap_servers == "prod-1:9093"  # --cluster beats the variable
    assert _settings(env).bootstrap_servers == "elsewhere:1"  # no cluster named: as before


def test_the_cluster_variable_beside_a_bootstrap_variable_is_refused(tmp_path):
    env = write_config(tmp_path, GOOD) | {
        "KAFKA_TOOLS_CLUSTER": "staging",
        "KAFKA_BOOTSTRAP_SERVERS": "prod-1:9093",
    }
    (tmp_path / "config" / "kafka-group-tools" / "staging.properties").write_text("")
    with pytest.raises(
        ConfigError, match="KAFKA_TOOLS_CLUSTER=staging and KAFKA_BOOTSTRAP_SERVERS are both set"
    ):
        _settings(env)
    assert _settings(env, bootstrap="h:1").bootstrap_servers == "h:1"  # a flag says which
    assert _settings(env, cluster="staging").cluster_name == "staging"


def test_an_unknown_or_blank_cluster_is_one_line_naming_the_file(tmp_path):
    env = write_config(tmp_path, GOOD)
    with pytest.raises(
        UsageError,
        match=r"no cluster 'prd' in .*clusters.toml \(did you mean prod\?\); it has: staging, prod",
    ):
        _settings(env, cluster="prd")
    with pytest.raises(UsageError, match="--cluster is blank"):
        _settings(env, cluster="  ")
    empty = {"XDG_CONFIG_HOME": str(tmp_path / "nowhere")}
    with pytest.raises(UsageError, match="defines no clusters"):
        _settings(empty, cluster="prod")
    assert (
        _settings({**env, "KAFKA_TOOLS_CLUSTER": "", "KAFKA_BOOTSTRAP_SERVERS": "h:1"}).cluster_name is None
    )


def test_a_reference_that_gives_nothing_is_refused_naming_the_property(tmp_path):
    known = parse_clusters(GOOD, str(tmp_path / "clusters.toml"), {})
    with pytest.raises(
        ConfigError, match=r"property 'sasl.jaas.config' of cluster 'prod' comes from \$PROD_JAAS"
    ):
        cluster_properties(known.clusters["prod"], {})
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "ts").write_text("\n")
    with pytest.raises(ConfigError, match="is empty"):
        cluster_properties(known.clusters["prod"], {"PROD_JAAS": "j"})
    os.remove(tmp_path / "secrets" / "ts")
    os.mkfifo(tmp_path / "secrets" / "ts")
    with pytest.raises(ConfigError, match="is not a regular file"):
        cluster_properties(known.clusters["prod"], {"PROD_JAAS": "j"})


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        ("sasl.jaas.config", "x password=y", REDACTED),
        ("ssl.truststore.password", "p", REDACTED),
        ("sasl.oauthbearer.client.credentials.client.secret", "s", REDACTED),
        ("sasl.oauthbearer.token.endpoint.url", "https://op:pw@idp/token", f"https://{REDACTED}@idp/token"),
        ("security.protocol", "SASL_SSL", "SASL_SSL"),
    ],
)
def test_show_masks_every_secret(key, value, shown):
    assert masked(key, value) == shown


TODAY = (2026, 11, 28)


@pytest.mark.parametrize(
    ("text", "iso", "friendly"),
    [
        ("2026-01-31T12:00:00.000", "2026-01-31T12:00:00+00:00", False),  # the Apache format, as before
        ("2026-01-31 12:00", "2026-01-31T12:00:00+00:00", True),
        ("Jan 31 2026 12:00 UTC", "2026-01-31T12:00:00+00:00", True),
        ("2026-01-31T12:00+05:30", "2026-01-31T06:30:00+00:00", True),
        ("12:30", "2026-11-28T12:30:00+00:00", True),
    ],
)
def test_the_subcommand_form_reads_what_dateutil_reads(text, iso, friendly):
    millis, used = parse_friendly_datetime(text, TODAY)
    assert dt.datetime.fromtimestamp(millis / 1000, dt.timezone.utc).isoformat() == iso
    assert used is friendly


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Jan 31 2026 12:00 PST", "give an offset such as +05:30"),
        ("yesterday-ish", "not a date and time python-dateutil reads"),
        ("1969-12-31 23:00", "before 1970"),
        ("", "does not contain a 'T'"),
    ],
)
def test_what_dateutil_cannot_read_exactly_is_refused(text, words):
    with pytest.raises(UsageError, match=re.escape(words)):
        parse_friendly_datetime(text, TODAY)


@given(
    st.datetimes(
        min_value=dt.datetime(1971, 1, 1),
        max_value=dt.datetime(2999, 12, 31),
        timezones=st.just(dt.timezone(dt.timedelta(hours=5, minutes=30))),
    )
)
def test_an_instant_written_with_an_offset_reads_back_exactly(moment):
    moment = moment.replace(microsecond=0)
    for text in (moment.strftime("%Y-%m-%d %H:%M:%S%z"), moment.strftime("%d %b %Y %H:%M:%S %z")):
        millis, _ = parse_friendly_datetime(text, TODAY)
        assert millis == int(moment.timestamp()) * 1000


class _Stderr:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("flag", "environ", "tty", "quiet"),
    [
        ("h:9092", {}, False, True),  # the Apache form, piped: the command line names the servers
        ("h:9092", {}, True, False),  # someone reads stderr on a terminal
        (None, {"KAFKA_BOOTSTRAP_SERVERS": "h:9092"}, False, False),  # exported earlier: said
    ],
)
def test_kafka_topics_names_its_target_unless_the_command_line_does(monkeypatch, flag, environ, tty, quiet):
    from kafka_groups.commands import target

    monkeypatch.setattr(target.sys, "stderr", _Stderr(tty))
    settings = resolve_settings(flag, None, None, environ=environ)
    assert target.quiet_target(settings) is quiet


def test_a_named_cluster_is_always_said(tmp_path, monkeypatch):
    from kafka_groups.commands import target

    monkeypatch.setattr(target.sys, "stderr", _Stderr(False))
    home = tmp_path / "kafka-group-tools"
    home.mkdir()
    (home / "clusters.toml").write_text('[clusters.prod]\nbootstrap-server = "h:9092"\n')
    settings = resolve_settings(None, None, None, environ={"XDG_CONFIG_HOME": str(tmp_path)}, cluster="prod")
    assert not target.quiet_target(settings)
    assert target.target_line(settings, "abc") == "Writing to cluster 'prod' at h:9092 (cluster id abc)"
