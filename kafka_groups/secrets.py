"""The secrets a command's settings hold, and keeping them out of what the tools print: the
error lines, tracebacks (``--debug``), log records and the clients' configurations shown by
``--debug``. A failure carries the secrets of the settings it was raised under to the entry
point, which scrubs what it prints; nothing is kept process-wide."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

from kafka_groups.errors import ConfigError

# Keys whose values are secret, in Java properties and in the clients' own configurations.
SECRET_KEYS = frozenset(
    {
        "sasl.jaas.config",
        "ssl.key.password",
        "ssl.keystore.password",
        "ssl.truststore.password",
        "ssl.keystore.key",
        "sasl.oauthbearer.client.credentials.client.secret",
        "sasl.oauthbearer.assertion.private.key.passphrase",
        # librdkafka
        "sasl.password",
        "ssl.key.pem",
        "sasl.oauthbearer.client.secret",
        "sasl.oauthbearer.config",
        # kafka-python
        "sasl_plain_password",
        "ssl_password",
    }
)
REDACTED = "[hidden]"
# The user info of a URL (``scheme://user:password@host``), up to the last ``@`` before the path:
# a token endpoint's URL can carry a password there, and a library may quote any URL it was given.
_URL_USER_INFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s\"'<>]*@")


def hide_url_user_info(text: str) -> str:
    """``text`` with the user info of every URL in it hidden: ``https://[hidden]@host/...``."""
    return _URL_USER_INFO.sub(rf"\1{REDACTED}@", text) if "@" in text else text


def _url_user_info(value: str) -> set[str]:
    """The user info of the URLs in a value, as written and percent-decoded, whole and its
    password alone: secrets however a library quotes them."""
    found: set[str] = set()
    for match in _URL_USER_INFO.finditer(value):
        info = match.group(0)[len(match.group(1)) : -1]
        from urllib.parse import unquote  # only where a URL carries user info

        for text in (info, unquote(info)):
            if ":" in text:  # a user name alone is no secret
                found |= {text, text.partition(":")[2]}
    return found


def secret_values(props: Mapping[str, str]) -> set[str]:
    """Every secret text in the properties: whole secret values and the secret JAAS options,
    so that output can be scrubbed of them even when a library quotes one back."""
    secrets = {v for k, v in props.items() if k in SECRET_KEYS and v}
    for value in props.values():
        if "@" in value and "://" in value:
            secrets |= _url_user_info(value)
    jaas = props.get("sasl.jaas.config")
    if jaas:
        from kafka_groups.jaas import parse_jaas  # only where SASL is configured

        try:
            options = parse_jaas(jaas).options
        except ConfigError:
            options = {}
        secrets |= {v for k, v in options.items() if k.lower() in ("password", "clientsecret") and v}
    return {s for s in secrets if len(s) >= 3}


def redact(config: Mapping[str, object]) -> dict[str, object]:
    """A copy of a configuration with the secret values, and the user info of URLs, hidden (for
    --debug)."""
    return {
        k: REDACTED if k in SECRET_KEYS and v else hide_url_user_info(v) if isinstance(v, str) else v
        for k, v in config.items()
    }


def scrub(text: str, secrets: set[str] | frozenset[str]) -> str:
    """``text`` with every secret replaced, longest first (one may contain another), and the
    user info of every URL hidden."""
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return hide_url_user_info(text)


_SECRETS_ATTRIBUTE = "kafka_tools_secrets"


def attach_secrets(exc: BaseException, secrets: frozenset[str]) -> None:
    """Let a failure carry the secrets of the settings it was raised under, so that the entry
    point scrubs its message and traceback of them (whichever library quoted one)."""
    if secrets:
        setattr(exc, _SECRETS_ATTRIBUTE, secrets_of(exc) | secrets)


def secrets_of(exc: BaseException) -> frozenset[str]:
    """The secrets :func:`attach_secrets` put on ``exc`` (none when it was raised elsewhere)."""
    found: object = getattr(exc, _SECRETS_ATTRIBUTE, frozenset())
    return found if isinstance(found, frozenset) else frozenset()


class ScrubFilter(logging.Filter):
    """Scrubs secrets from log records; hides SASL exchanges, whose bytes can hold a password."""

    def __init__(self, secrets: set[str] | frozenset[str] | None = None) -> None:
        super().__init__()
        self._secrets = set(secrets or ())

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "SaslAuthenticateRequest" in message or "SaslBytesRequest" in message:
            message = "(a SASL authentication request; its bytes are not shown)"
        record.msg, record.args = scrub(message, self._secrets), ()
        return True
