"""Java client properties (``--command-config``) mapped to the Python clients' settings."""

from __future__ import annotations

import re
import sys
from typing import Any

from kafka_groups.settings import ConnectionSettings

# Java client keys that librdkafka understands under the same name and meaning.
_LIBRDKAFKA_SAME = frozenset(
    {
        "security.protocol",
        "client.id",
        "ssl.endpoint.identification.algorithm",
        "ssl.key.password",
        "ssl.keystore.password",
        "sasl.kerberos.service.name",
        "metadata.max.age.ms",
        "reconnect.backoff.ms",
        "reconnect.backoff.max.ms",
        "retry.backoff.ms",
        "socket.connection.setup.timeout.ms",
        "ssl.keystore.location",
    }
)
_LIBRDKAFKA_RENAMED = {
    "sasl.mechanism": "sasl.mechanisms",
    "request.timeout.ms": "socket.timeout.ms",
    "ssl.truststore.location": "ssl.ca.location",
}
# Java-only keys that change nothing we send; accepted without a warning.
_NO_EFFECT = frozenset(
    {
        "bootstrap.servers",
        "default.api.timeout.ms",
        "retries",
        "connections.max.idle.ms",
        "receive.buffer.bytes",
        "send.buffer.bytes",
        "ssl.truststore.type",
        "ssl.keystore.type",
    }
)
_FIRST_RECONNECT_BACKOFF_MS = 10
_JAAS_OPTION = re.compile(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"')


def _jaas_credentials(value: str) -> dict[str, str]:
    return dict(_JAAS_OPTION.findall(value))


def warn_unmapped(settings: ConnectionSettings) -> None:
    """Name, once, the properties the tools cannot apply (never their values)."""
    unknown = sorted(
        k
        for k in settings.properties
        if k not in _LIBRDKAFKA_SAME
        and k not in _LIBRDKAFKA_RENAMED
        and k not in _NO_EFFECT
        and k != "sasl.jaas.config"
    )
    if unknown:
        print(
            f"Warning: ignoring unsupported client properties: {', '.join(unknown)}",
            file=sys.stderr,
        )


def librdkafka_config(settings: ConnectionSettings) -> dict[str, Any]:
    """Configuration for confluent-kafka clients."""
    config: dict[str, Any] = {}
    for key, value in settings.properties.items():
        if key in _LIBRDKAFKA_SAME:
            config[key] = value
        elif key in _LIBRDKAFKA_RENAMED:
            config[_LIBRDKAFKA_RENAMED[key]] = value
        elif key == "sasl.jaas.config":
            creds = _jaas_credentials(value)
            if "username" in creds:
                config["sasl.username"] = creds["username"]
            if "password" in creds:
                config["sasl.password"] = creds["password"]
    config["bootstrap.servers"] = settings.bootstrap_servers
    # librdkafka holds back its first connection to a broker learned from metadata for half of
    # this (50 ms at the default 100), which every short-lived command pays once per client.
    # The backoff still doubles up to reconnect.backoff.max.ms when a broker is down.
    config.setdefault("reconnect.backoff.ms", _FIRST_RECONNECT_BACKOFF_MS)
    return config


MAX_IN_FLIGHT = 64


def kafka_python_config(settings: ConnectionSettings) -> dict[str, Any]:
    """Configuration for kafka-python's protocol client (the APIs confluent-kafka lacks)."""
    props = settings.properties
    timeout = max(settings.timeout_ms, 1)
    config: dict[str, Any] = {
        "bootstrap_servers": settings.bootstrap_servers.split(","),
        "client_id": props.get("client.id", "kafka-group-tools"),
        "request_timeout_ms": timeout,
        "bootstrap_timeout_ms": timeout,
        "security_protocol": props.get("security.protocol", "PLAINTEXT").upper(),
        # Admin requests that go out together (pages of a large describe) share a connection;
        # the library refuses a request beyond this many instead of queueing it.
        "max_in_flight_requests_per_connection": MAX_IN_FLIGHT,
    }
    if "sasl.mechanism" in props:
        config["sasl_mechanism"] = props["sasl.mechanism"]
    creds = _jaas_credentials(props.get("sasl.jaas.config", ""))
    if "username" in creds:
        config["sasl_plain_username"] = creds["username"]
    if "password" in creds:
        config["sasl_plain_password"] = creds["password"]
    if "ssl.truststore.location" in props:
        config["ssl_cafile"] = props["ssl.truststore.location"]
    if props.get("ssl.endpoint.identification.algorithm", "https") == "":
        config["ssl_check_hostname"] = False
    return config
