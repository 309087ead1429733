"""Java client properties (``--command-config``) read into one description of how to connect
securely, and the secrets they hold. Pure: no files are read here and nothing is printed.

Scripts pass the Apache tools a Java client properties file; this module understands what such
a file says about security (``security.protocol``, ``sasl.*``, ``sasl.jaas.config``, ``ssl.*``),
client id and timeouts, and names every key it does not understand so that the caller warns
about it once. The client libraries' own configurations are built from the result in
``kafka_groups.access.config``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafka_groups.errors import ConfigError
from kafka_groups.setting_files import echo
from kafka_groups.timeouts import LONGEST_MS, whole_ms

if TYPE_CHECKING:  # made only where the properties set them (client_secure.py)
    from kafka_groups.client_secure import OAuth, Store

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI")
_LOGIN_MODULES = {
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "OAUTHBEARER": "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule",
    "GSSAPI": "com.sun.security.auth.module.Krb5LoginModule",
}
# The callback handlers the Apache clients ship for OAUTHBEARER logins; ours do what they do.
_OAUTH_LOGIN_HANDLERS = frozenset(
    {
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
        "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler",
    }
)


# Keys that change nothing the tools send, or that the tools set themselves.
_NO_EFFECT = frozenset(
    {
        "bootstrap.servers",
        "default.api.timeout.ms",
        "retries",
        "connections.max.idle.ms",
        "receive.buffer.bytes",
        "send.buffer.bytes",
        "ssl.keymanager.algorithm",
        "ssl.trustmanager.algorithm",
        "sasl.login.class",
        "sasl.login.refresh.window.factor",
        "sasl.login.refresh.window.jitter",
        "sasl.login.refresh.min.period.seconds",
        "sasl.login.refresh.buffer.seconds",
    }
)
# Java client keys the clients take under the same meaning (librdkafka name when it differs).
TUNING = {
    "client.id": "client.id",
    "metadata.max.age.ms": "metadata.max.age.ms",
    "reconnect.backoff.ms": "reconnect.backoff.ms",
    "reconnect.backoff.max.ms": "reconnect.backoff.max.ms",
    "retry.backoff.ms": "retry.backoff.ms",
    "retry.backoff.max.ms": "retry.backoff.max.ms",
    "socket.connection.setup.timeout.ms": "socket.connection.setup.timeout.ms",
    "socket.connection.setup.timeout.max.ms": "socket.connection.setup.timeout.max.ms",
    "request.timeout.ms": "socket.timeout.ms",
}
_UNDERSTOOD = frozenset(
    {
        "security.protocol",
        "sasl.mechanism",
        "sasl.jaas.config",
        "sasl.kerberos.service.name",
        "sasl.login.callback.handler.class",
        "sasl.oauthbearer.token.endpoint.url",
        "sasl.oauthbearer.scope",
        "sasl.oauthbearer.scope.claim.name",
        "sasl.oauthbearer.sub.claim.name",
        "sasl.oauthbearer.client.credentials.client.id",
        "sasl.oauthbearer.client.credentials.client.secret",
        "ssl.truststore.location",
        "ssl.truststore.password",
        "ssl.truststore.type",
        "ssl.truststore.certificates",
        "ssl.keystore.location",
        "ssl.keystore.password",
        "ssl.keystore.type",
        "ssl.keystore.key",
        "ssl.keystore.certificate.chain",
        "ssl.key.password",
        "ssl.endpoint.identification.algorithm",
    }
)


@dataclass(frozen=True)
class ClientSecurity:
    """Everything a properties file says about how to connect."""

    protocol: str = "PLAINTEXT"
    mechanism: str | None = None
    username: str | None = None
    password: str | None = None
    oauth: OAuth | None = None
    kerberos: Mapping[str, str] = field(default_factory=dict)  # service.name, keytab, principal
    truststore: Store | None = None
    keystore: Store | None = None
    key_password: str | None = None
    check_hostname: bool = True
    tuning: Mapping[str, str] = field(default_factory=dict)  # Java key -> value (TUNING keys)
    ignored: tuple[str, ...] = ()  # keys understood by no client we use, sorted

    @property
    def uses_tls(self) -> bool:
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def uses_sasl(self) -> bool:
        return self.protocol in ("SASL_PLAINTEXT", "SASL_SSL")


# -- the properties ------------------------------------------------------------------------------


def _store(props: Mapping[str, str], kind: str) -> Store | None:
    location = props.get(f"ssl.{kind}.location") or None
    inline = props.get(
        "ssl.truststore.certificates" if kind == "truststore" else "ssl.keystore.certificate.chain"
    )
    key_pem = props.get("ssl.keystore.key") if kind == "keystore" else None
    if not location and not inline:
        return None
    store_type = props.get(f"ssl.{kind}.type", "").strip().upper()
    if inline and location:
        raise ConfigError(f"ssl.{kind}.location and the inline PEM form cannot both be set")
    if inline and store_type not in ("", "PEM"):
        raise ConfigError(f"inline PEM {kind} certificates need ssl.{kind}.type=PEM, got {echo(store_type)}")
    if store_type not in ("", "PEM", "PKCS12", "JKS"):
        raise ConfigError(f"ssl.{kind}.type={echo(store_type)} is not supported (PEM, PKCS12 or JKS)")
    if kind == "keystore" and inline and not key_pem:
        raise ConfigError("ssl.keystore.certificate.chain needs ssl.keystore.key")
    from kafka_groups.client_secure import Store

    return Store(
        type=store_type or ("PEM" if inline else ""),
        location=location,
        password=props.get(f"ssl.{kind}.password"),
        pem=inline,
        key_pem=key_pem,
    )


def _oauth(props: Mapping[str, str], options: Mapping[str, str]) -> OAuth:
    from kafka_groups.client_secure import OAuth

    handler = props.get("sasl.login.callback.handler.class")
    endpoint = props.get("sasl.oauthbearer.token.endpoint.url")
    extensions = {k[len("extension_") :]: v for k, v in options.items() if k.startswith("extension_")}
    if endpoint:
        scheme = endpoint.partition(":")[0].lower() if ":" in endpoint else ""
        if scheme not in ("http", "https"):
            # The Java client also takes a file: URL (a token read from a file); librdkafka does
            # not, and no file is read for it: one line, before either client starts.
            from kafka_groups.secrets import hide_url_user_info

            raise ConfigError(
                f"sasl.oauthbearer.token.endpoint.url={echo(hide_url_user_info(endpoint))} is not an "
                "http(s) URL: the tools fetch tokens from a token endpoint only (no token file)"
            )
        if handler and handler not in _OAUTH_LOGIN_HANDLERS:
            raise ConfigError(
                f"sasl.login.callback.handler.class={echo(handler)} is a custom class the tools cannot run"
            )
        client_id = props.get("sasl.oauthbearer.client.credentials.client.id") or options.get("clientId")
        secret = props.get("sasl.oauthbearer.client.credentials.client.secret") or options.get("clientSecret")
        if not client_id or not secret:
            raise ConfigError(
                "OAUTHBEARER with sasl.oauthbearer.token.endpoint.url needs clientId and clientSecret "
                "in sasl.jaas.config"
            )
        scope = props.get("sasl.oauthbearer.scope") or options.get("scope")
        return OAuth(endpoint, client_id, secret, scope, extensions=extensions)
    if handler:
        raise ConfigError(
            f"sasl.login.callback.handler.class={echo(handler)} needs sasl.oauthbearer.token.endpoint.url"
            if handler in _OAUTH_LOGIN_HANDLERS
            else f"sasl.login.callback.handler.class={echo(handler)} is a custom class the tools cannot run"
        )
    principal = options.get("unsecuredLoginStringClaim_sub")
    if not principal:
        raise ConfigError(
            "OAUTHBEARER needs either sasl.oauthbearer.token.endpoint.url (client credentials) or "
            'unsecuredLoginStringClaim_sub="..." in sasl.jaas.config'
        )
    lifetime = options.get("unsecuredLoginLifetimeSeconds", "3600")
    if not lifetime.isdigit():
        raise ConfigError("sasl.jaas.config: unsecuredLoginLifetimeSeconds must be a number of seconds")
    scope = options.get("unsecuredLoginListClaim_scope")
    return OAuth(principal=principal, lifetime_s=int(lifetime), scope=scope, extensions=extensions)


def _sasl(props: Mapping[str, str], mechanism: str) -> dict[str, object]:
    jaas_text = props.get("sasl.jaas.config")
    if not jaas_text:
        if mechanism == "GSSAPI":  # a JAAS file given to the JVM: the ticket cache is used
            return {"kerberos": {"service.name": props.get("sasl.kerberos.service.name", "kafka")}}
        raise ConfigError(f"sasl.mechanism={mechanism} needs sasl.jaas.config")
    from kafka_groups.jaas import parse_jaas  # only where SASL is configured

    jaas = parse_jaas(jaas_text)
    expected = _LOGIN_MODULES[mechanism]
    if jaas.module != expected:
        raise ConfigError(
            f"sasl.mechanism={mechanism} needs {expected} in sasl.jaas.config, not {echo(jaas.module)}"
        )
    opts = jaas.options
    if mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"):
        if "username" not in opts or "password" not in opts:
            raise ConfigError(f"sasl.jaas.config for {mechanism} needs username and password")
        return {"username": opts["username"], "password": opts["password"]}
    if mechanism == "OAUTHBEARER":
        return {"oauth": _oauth(props, opts)}
    kerberos = {"service.name": props.get("sasl.kerberos.service.name", "kafka")}
    if opts.get("useKeyTab", "false").lower() == "true" and "keyTab" in opts:
        kerberos["keytab"] = opts["keyTab"]
    if "principal" in opts:
        kerberos["principal"] = opts["principal"]
    return {"kerberos": kerberos}


def _tuning_value(key: str, value: str) -> str:
    """A TUNING value as the clients take it; the numeric ones (all but ``client.id``) must be
    whole numbers from 0 to Java's int range, and the error names the key, not the client's
    own name for it."""
    return value if key == "client.id" else str(property_ms(key, value))


def property_ms(key: str, value: str) -> int:
    """A property of whole milliseconds, 0 to Java's int range (the clients take no more);
    ConfigError names the key."""
    ms = whole_ms(value, LONGEST_MS, least=0)
    if ms is None:
        shown = echo(value)
        raise ConfigError(f"{key}={shown} is not a valid number (whole milliseconds, 0 to {LONGEST_MS})")
    return ms


def client_security(props: Mapping[str, str]) -> ClientSecurity:
    """Read what the properties say about security; ConfigError names the first problem."""
    protocol = props.get("security.protocol", "PLAINTEXT").strip().upper()
    if protocol not in PROTOCOLS:
        raise ConfigError(f"security.protocol={echo(protocol)} is not one of {', '.join(PROTOCOLS)}")
    values: dict[str, object] = {"protocol": protocol}
    if protocol.startswith("SASL_"):
        mechanism = props.get("sasl.mechanism", "GSSAPI").strip().upper()  # Java's default
        if mechanism not in MECHANISMS:
            raise ConfigError(f"sasl.mechanism={echo(mechanism)} is not supported ({', '.join(MECHANISMS)})")
        values["mechanism"] = mechanism
        values |= _sasl(props, mechanism)
    if protocol in ("SSL", "SASL_SSL"):
        values["truststore"] = _store(props, "truststore")
        values["keystore"] = _store(props, "keystore")
        values["key_password"] = props.get("ssl.key.password")
        values["check_hostname"] = props.get("ssl.endpoint.identification.algorithm", "https").strip() != ""
    values["tuning"] = {k: _tuning_value(k, v) for k, v in props.items() if k in TUNING}
    values["ignored"] = tuple(
        sorted(k for k in props if k not in TUNING and k not in _UNDERSTOOD and k not in _NO_EFFECT)
    )
    return ClientSecurity(**values)  # type: ignore[arg-type]
