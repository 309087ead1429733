"""Files named by settings: only regular files, read within a bound for their kind, one short
line for anything else; values quoted in errors are cut; URLs lose their user info in every
output; the TLS identity reaches Python's ssl without a key in any file system."""

from __future__ import annotations

import os
import ssl
import threading

import pytest

from kafka_groups.access import tls
from kafka_groups.access.config import librdkafka_config
from kafka_groups.client_config import client_security
from kafka_groups.client_secure import Store
from kafka_groups.errors import ConfigError
from kafka_groups.properties import load_properties
from kafka_groups.secrets import ScrubFilter, hide_url_user_info, redact, scrub, secret_values
from kafka_groups.setting_files import (
    ECHO_LIMIT,
    PROPERTIES_LIMIT,
    TRUSTSTORE_LIMIT,
    echo,
    read_setting_file,
)
from kafka_groups.settings import ConnectionSettings


def _refused(call, *args) -> str:
    with pytest.raises(ConfigError) as raised:
        call(*args)
    message = raised.value.message
    assert "\n" not in message and len(message) < 400, message
    return message


@pytest.mark.parametrize(
    ("path", "kind"),
    [("/dev/zero", "a character device"), ("/dev/null", "a character device"), ("/", "a directory")],
)
def test_a_device_or_a_directory_is_refused_naming_the_setting(path, kind):
    message = _refused(load_properties, path)
    assert message == f"--command-config file {path} is not a regular file: it is {kind}"


def test_a_fifo_nobody_writes_to_is_refused_at_once(tmp_path):
    fifo = tmp_path / "client.properties"
    os.mkfifo(fifo)
    done = threading.Event()
    messages: list[str] = []

    def read() -> None:
        messages.append(_refused(load_properties, str(fifo)))
        done.set()

    threading.Thread(target=read, daemon=True).start()
    assert done.wait(30), "reading a FIFO blocked"
    assert messages[0].startswith(f"--command-config file {fifo} is not a regular file: it is a FIFO or pipe")


def test_stdin_as_a_pipe_is_refused(tmp_path):
    read_end, write_end = os.pipe()
    try:
        message = _refused(read_setting_file, f"/proc/self/fd/{read_end}", "--command-config file", 10, "x")
    finally:
        os.close(read_end)
        os.close(write_end)
    assert "is not a regular file: it is a FIFO or pipe" in message


def test_a_file_over_its_bound_is_refused_without_reading_it(tmp_path):
    big = tmp_path / "big.properties"
    with open(big, "wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # sparse: 100 MB that take no disk
    message = _refused(load_properties, str(big))
    assert message == (
        f"--command-config file {big} is 100.0 MB, more than the 1.0 MB the tools read of a properties file"
    )
    store = Store("PEM", str(big))
    message = _refused(tls.trusted_pem, store)
    assert message.startswith(f"ssl.truststore.location {big} is 100.0 MB, more than the 4.0 MB")


def test_a_file_at_its_bound_is_read(tmp_path):
    path = tmp_path / "c.properties"
    line = b"client.id=x\n"
    path.write_bytes(b"#" * (PROPERTIES_LIMIT - len(line) - 1) + b"\n" + line)
    assert load_properties(str(path)) == {"client.id": "x"}
    assert TRUSTSTORE_LIMIT >= 1024 * 1024  # a whole system CA bundle is about 220 KB


def test_stores_are_refused_when_they_are_no_regular_file(tmp_path):
    assert _refused(tls.trusted_pem, Store("PEM", "/dev/zero")) == (
        "ssl.truststore.location /dev/zero is not a regular file: it is a character device"
    )
    assert _refused(tls.identity, Store("PKCS12", "/dev/zero", "pw"), None) == (
        "ssl.keystore.location /dev/zero is not a regular file: it is a character device"
    )
    fifo = tmp_path / "trust.pem"
    os.mkfifo(fifo)
    assert "is not a regular file: it is a FIFO or pipe" in _refused(tls.trusted_pem, Store("PEM", str(fifo)))


def test_errors_quote_a_long_value_cut_short(tmp_path):
    huge = "x" * 1_000_000
    assert len(echo(huge)) < ECHO_LIMIT + 40 and echo(huge).endswith("... (1000000 characters)")
    assert echo("a\x1b[2Jb") == "a\\x1b[2Jb"
    for props in (
        {"security.protocol": huge},
        {"security.protocol": "SASL_SSL", "sasl.mechanism": huge},
        {"security.protocol": "SSL", "ssl.truststore.location": "x", "ssl.truststore.type": huge},
        {"request.timeout.ms": huge},
    ):
        _refused(client_security, props)
    path = tmp_path / huge[:200]
    assert len(_refused(load_properties, str(path) + huge)) < 400


def test_a_warning_names_at_most_twenty_keys_of_a_kind(capsys):
    from kafka_groups.access.config import warn_unmapped

    props = {f"linger.{'k' * 300}.{i}": "1" for i in range(1000)}
    warn_unmapped(ConnectionSettings("b:1", 1000, props))
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and len(line) < 3000
    assert line.rstrip().endswith("and 980 more")


# -- URLs ------------------------------------------------------------------------------------------

ENDPOINT = "https://svc:t0k3n%40pass@idp.example:8443/oauth2/token"


def test_url_user_info_is_hidden_everywhere():
    assert (
        hide_url_user_info(f"POST {ENDPOINT} failed")
        == "POST https://[hidden]@idp.example:8443/oauth2/token failed"
    )
    assert hide_url_user_info('{"a": "https://host/x", "b": "x@y"}') == '{"a": "https://host/x", "b": "x@y"}'
    assert hide_url_user_info("mail alice@example.com") == "mail alice@example.com"
    props = {"sasl.oauthbearer.token.endpoint.url": ENDPOINT}
    secrets = secret_values(props)
    assert {"t0k3n%40pass", "t0k3n@pass"} <= secrets
    # However a library quotes it: decoded, without its scheme, alone.
    assert "t0k3n" not in scrub("token request as svc:t0k3n@pass refused", secrets)
    assert "t0k3n" not in scrub(f"GET {ENDPOINT}", set())
    shown = redact({"sasl.oauthbearer.token.endpoint.url": ENDPOINT, "client.id": "visible"})
    assert shown == {
        "sasl.oauthbearer.token.endpoint.url": "https://[hidden]@idp.example:8443/oauth2/token",
        "client.id": "visible",
    }


def test_log_records_lose_url_user_info_without_any_secret_known():
    import logging

    record = logging.LogRecord("kafka", logging.DEBUG, "f", 1, "fetching %s", (ENDPOINT,), None)
    ScrubFilter().filter(record)
    assert "t0k3n" not in record.getMessage()


def test_the_debug_configuration_shows_no_url_password(capsys):
    oauth = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
    settings = ConnectionSettings(
        "b:1",
        1000,
        {
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": "OAUTHBEARER",
            "sasl.oauthbearer.token.endpoint.url": ENDPOINT,
            "sasl.jaas.config": f'{oauth} required clientId="app" clientSecret="cs-secret";',
        },
        debug=True,
    )
    librdkafka_config(settings)
    err = capsys.readouterr().err
    assert "https://[hidden]@idp.example:8443/oauth2/token" in err
    assert "t0k3n" not in err and "cs-secret" not in err


# -- the TLS identity --------------------------------------------------------------------------------


def _pkcs12(tmp_path):
    from tests.unit.test_client_config import _identity

    return _identity(tmp_path, b"store-pw")


def test_the_identity_is_loaded_from_memory_and_no_file_is_made(tmp_path, monkeypatch):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    ident = tls.identity(Store("PKCS12", str(_pkcs12(tmp_path)), "store-pw"), None)
    seen: list[str] = []
    real = ssl.SSLContext.load_cert_chain

    def load(self, certfile, keyfile=None, password=None):
        seen.append(os.readlink(certfile))
        assert list(tmp.iterdir()) == []
        return real(self, certfile, keyfile, password)

    monkeypatch.setattr(ssl.SSLContext, "load_cert_chain", load)
    tls.load_identity(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT), ident)
    assert len(seen) == 1 and seen[0].startswith("/memfd:kafka-tools-identity")
    assert list(tmp.iterdir()) == []


def test_without_memfd_the_key_touches_disk_only_encrypted(tmp_path, monkeypatch):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.delattr(os, "memfd_create")
    ident = tls.identity(Store("PKCS12", str(_pkcs12(tmp_path)), "store-pw"), None)
    written: list[bytes] = []
    real = ssl.SSLContext.load_cert_chain

    def load(self, certfile, keyfile=None, password=None):
        with open(certfile, "rb") as handle:
            written.append(handle.read())
        return real(self, certfile, keyfile, password)

    monkeypatch.setattr(ssl.SSLContext, "load_cert_chain", load)
    tls.load_identity(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT), ident)
    assert b"-----BEGIN ENCRYPTED PRIVATE KEY-----" in written[0]
    assert b"-----BEGIN PRIVATE KEY-----" not in written[0]
    body = "".join(ident.key_pem.splitlines()[1:-1]).encode()
    assert body[:40] not in written[0]
    assert list(tmp.iterdir()) == []


@pytest.mark.parametrize("url", ["file:///dev/zero", "file:/var/run/token.jwt", "ftp://u:pw-123@idp/token"])
def test_a_token_endpoint_that_is_no_http_url_is_refused_unread(url):
    oauth = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
    props = {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "OAUTHBEARER",
        "sasl.oauthbearer.token.endpoint.url": url,
        "sasl.jaas.config": f'{oauth} required clientId="app" clientSecret="cs";',
    }
    message = _refused(client_security, props)
    assert message.endswith(
        "is not an http(s) URL: the tools fetch tokens from a token endpoint only (no token file)"
    )
    assert "pw-123" not in message
