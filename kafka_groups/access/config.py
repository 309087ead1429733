"""The client libraries' configurations, built from the connection settings: confluent-kafka
(librdkafka) for most requests, kafka-python's protocol layer for the rest. Both connect the same
way, as the Java client given the same ``--command-config`` file would."""

from __future__ import annotations

import base64
import sys
import threading
import time
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from kafka_groups.client_config import TUNING, ClientSecurity, client_security
from kafka_groups.errors import ClusterError
from kafka_groups.secrets import redact
from kafka_groups.setting_files import echo
from kafka_groups.settings import ConnectionSettings

if TYPE_CHECKING:  # ssl, urllib, json and the stores load only where TLS, OAuth or --debug is used
    import ssl

    from kafka_groups.client_secure import OAuth

_FIRST_RECONNECT_BACKOFF_MS = 10
MAX_IN_FLIGHT = 64
_SECURITY_KEYS = ("ssl.", "sasl.", "security.")
_TOKEN_ANSWER_LIMIT = 1024 * 1024  # a token endpoint's answer is a few kilobytes


def security_of(settings: ConnectionSettings) -> ClientSecurity:
    return _security(tuple(sorted(settings.properties.items())))


@lru_cache(maxsize=8)
def _security(items: tuple[tuple[str, str], ...]) -> ClientSecurity:
    return client_security(dict(items))


def warn_unmapped(settings: ConnectionSettings) -> None:
    """Name, once, the properties the tools cannot apply (never their values); those that
    concern security are called out, since ignoring them changes how the tools connect."""
    ignored = security_of(settings).ignored
    if not ignored:
        return
    security = [k for k in ignored if k.startswith(_SECURITY_KEYS)]
    other = [k for k in ignored if not k.startswith(_SECURITY_KEYS)]
    parts = []
    if security:
        parts.append(f"security settings the tools cannot apply: {_key_list(security)}")
    if other:
        parts.append(f"unsupported client properties: {_key_list(other)}")
    print(f"Warning: ignoring {'; '.join(parts)}", file=sys.stderr)


_KEYS_NAMED = 20  # a warning names this many keys of a kind, and counts the rest


def _key_list(keys: list[str]) -> str:
    named = ", ".join(echo(k, 100) for k in keys[:_KEYS_NAMED])
    return named if len(keys) <= _KEYS_NAMED else f"{named} and {len(keys) - _KEYS_NAMED} more"


def librdkafka_config(settings: ConnectionSettings) -> dict[str, Any]:
    """Configuration for confluent-kafka clients."""
    sec = security_of(settings)
    config: dict[str, Any] = {"bootstrap.servers": settings.bootstrap_servers}
    config |= {TUNING[k]: v for k, v in sec.tuning.items()}
    config["security.protocol"] = sec.protocol
    if sec.uses_sasl:
        config["sasl.mechanisms"] = sec.mechanism
        if sec.username is not None:
            config["sasl.username"] = sec.username
            config["sasl.password"] = sec.password
        if sec.oauth is not None:
            config |= _librdkafka_oauth(sec.oauth)
        if sec.kerberos:
            config |= {f"sasl.kerberos.{k}": v for k, v in sec.kerberos.items()}
    if sec.uses_tls:
        from kafka_groups.access import tls

        config["ssl.endpoint.identification.algorithm"] = "https" if sec.check_hostname else "none"
        if sec.truststore is not None:
            config["ssl.ca.pem"] = tls.trusted_pem(sec.truststore)
        else:  # the Java client trusts the JVM's CAs; librdkafka is told to find the system's
            config["ssl.ca.location"] = "probe"
        if sec.keystore is not None:
            ident = tls.identity(sec.keystore, sec.key_password)  # the key decrypted, in memory
            config["ssl.certificate.pem"] = ident.chain_pem
            config["ssl.key.pem"] = ident.key_pem
    # librdkafka holds back its first connection to a broker learned from metadata for half of
    # this (50 ms at the default 100), which every short-lived command pays once per client.
    # The backoff still doubles up to reconnect.backoff.max.ms when a broker is down.
    config.setdefault("reconnect.backoff.ms", _FIRST_RECONNECT_BACKOFF_MS)
    if settings.debug:
        _show_config("librdkafka", config)
    return config


def _librdkafka_oauth(oauth: OAuth) -> dict[str, Any]:
    extensions = ",".join(f"{k}={v}" for k, v in oauth.extensions.items())
    if oauth.token_endpoint is None:
        parts = [f"principal={oauth.principal}", f"lifeSeconds={oauth.lifetime_s}"]
        if oauth.scope:
            parts.append(f"scope={oauth.scope}")
        parts += [f"extension_{k}={v}" for k, v in oauth.extensions.items()]
        return {"enable.sasl.oauthbearer.unsecure.jwt": True, "sasl.oauthbearer.config": " ".join(parts)}
    config: dict[str, Any] = {
        "sasl.oauthbearer.method": "oidc",
        "sasl.oauthbearer.token.endpoint.url": oauth.token_endpoint,
        "sasl.oauthbearer.client.id": oauth.client_id,
        "sasl.oauthbearer.client.secret": oauth.client_secret,
    }
    if oauth.scope:
        config["sasl.oauthbearer.scope"] = oauth.scope
    if extensions:
        config["sasl.oauthbearer.extensions"] = extensions
    return config


def kafka_python_config(settings: ConnectionSettings) -> dict[str, Any]:
    """Configuration for kafka-python's protocol client (the APIs confluent-kafka lacks)."""
    sec = security_of(settings)
    timeout = max(settings.timeout_ms, 1)
    config: dict[str, Any] = {
        "bootstrap_servers": settings.bootstrap_servers.split(","),
        "client_id": sec.tuning.get("client.id", "kafka-group-tools"),
        "request_timeout_ms": timeout,
        "bootstrap_timeout_ms": timeout,
        # A connection opened again after one was lost (a broker that stopped answering) is
        # given no longer than a request: the library's own 10 s, doubled per failure up to
        # 30 s, made a read of a paused broker outlast --timeout.
        "socket_connection_setup_timeout_ms": min(timeout, 10_000),
        "socket_connection_setup_timeout_max_ms": min(timeout, 30_000),
        "security_protocol": sec.protocol,
        # Admin requests that go out together (pages of a large describe) share a connection;
        # the library refuses a request beyond this many instead of queueing it.
        "max_in_flight_requests_per_connection": MAX_IN_FLIGHT,
    }
    if sec.uses_sasl:
        config["sasl_mechanism"] = sec.mechanism
        if sec.username is not None:
            config["sasl_plain_username"] = sec.username
            config["sasl_plain_password"] = sec.password
        if sec.oauth is not None:
            config["sasl_oauth_token_provider"] = _token_provider(sec.oauth, settings.timeout_s)
        if sec.kerberos:
            config["sasl_kerberos_service_name"] = sec.kerberos["service.name"]
    if sec.uses_tls:
        config["ssl_context"] = ssl_context(sec)
        config["ssl_check_hostname"] = sec.check_hostname
    if settings.debug:
        _show_config("protocol layer", config)
    return config


def _show_config(client: str, config: dict[str, Any]) -> None:
    """``--debug``: a client's configuration on stderr, secrets hidden, PEM texts and objects
    (an SSL context, a token provider) named rather than shown."""
    import json

    shown = {k: ("<PEM>" if k.endswith(".pem") else v) for k, v in redact(config).items()}
    text = json.dumps(shown, sort_keys=True, default=lambda value: type(value).__name__)
    print(f"debug: {client} configuration: {text}", file=sys.stderr)


def ssl_context(sec: ClientSecurity) -> ssl.SSLContext:
    """The TLS context kafka-python connects with (and a failed handshake is diagnosed with)."""
    import ssl

    from kafka_groups.access import tls

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = sec.check_hostname
    context.verify_mode = ssl.CERT_REQUIRED
    if sec.truststore is not None:
        context.load_verify_locations(cadata=tls.trusted_pem(sec.truststore))
    else:
        context.load_default_certs()
    if sec.keystore is not None:
        tls.load_identity(context, tls.identity(sec.keystore, sec.key_password))
    return context


def _token_provider(oauth: OAuth, timeout_s: float) -> Any:
    from kafka.net.sasl.oauth import AbstractTokenProvider

    class Provider(AbstractTokenProvider):  # type: ignore[misc]
        """OAUTHBEARER tokens as the Java login module makes them: unsecured (unsigned, for
        development clusters) or fetched with the client-credentials grant, reused until
        shortly before they expire."""

        def __init__(self) -> None:
            self._lock = threading.Lock()
            self._token: str | None = None
            self._expires = 0.0

        def token(self) -> str:
            with self._lock:
                if self._token is None or time.time() > self._expires - 30:
                    self._token, self._expires = _fetch_token(oauth, timeout_s)
                return self._token

        def extensions(self) -> dict[str, str]:
            return dict(oauth.extensions)

    return Provider()


def _b64(data: dict[str, Any]) -> str:
    import json

    return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).rstrip(b"=").decode()


def unsecured_token(principal: str, lifetime_s: int, scope: str | None, now: float) -> str:
    """An unsigned JWT (``alg: none``), as the Java client's unsecured login makes it."""
    claims: dict[str, Any] = {"sub": principal, "iat": int(now), "exp": int(now) + lifetime_s}
    if scope:
        claims["scope"] = scope.split(",") if "," in scope else scope
    return f"{_b64({'alg': 'none'})}.{_b64(claims)}."


def _fetch_token(oauth: OAuth, timeout_s: float) -> tuple[str, float]:
    import json
    import urllib.parse
    import urllib.request

    now = time.time()
    if oauth.token_endpoint is None:
        assert oauth.principal is not None
        return unsecured_token(oauth.principal, oauth.lifetime_s, oauth.scope, now), now + oauth.lifetime_s
    form = {"grant_type": "client_credentials"}
    if oauth.scope:
        form["scope"] = oauth.scope
    pair = f"{urllib.parse.quote(oauth.client_id or '')}:{urllib.parse.quote(oauth.client_secret or '')}"
    basic = base64.b64encode(pair.encode()).decode()
    # User info in the URL is not sent (the Java client's HTTP connection leaves it out too): the
    # client id and secret are the credentials.
    parts = urllib.parse.urlsplit(oauth.token_endpoint)
    endpoint = parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()
    request = urllib.request.Request(
        endpoint,
        data=urllib.parse.urlencode(form).encode(),
        headers={"Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded"},
    )
    try:
        with urllib.request.urlopen(request, timeout=max(timeout_s, 1.0)) as response:
            body = response.read(_TOKEN_ANSWER_LIMIT + 1)
        if len(body) > _TOKEN_ANSWER_LIMIT:
            raise ClusterError(f"OAUTHBEARER: the token endpoint {endpoint} answered with more than 1 MB")
        answer = json.loads(body)
        token = str(answer["access_token"])
    except (OSError, ValueError, KeyError) as exc:
        reason = getattr(exc, "code", None) or type(exc).__name__
        raise ClusterError(f"OAUTHBEARER: no token from the token endpoint {endpoint} ({reason})") from None
    return token, now + float(answer.get("expires_in", 3600))
