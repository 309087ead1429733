"""Java client properties read into connection settings for both client libraries (plain data)."""

from __future__ import annotations

import datetime
import logging

import pytest

from kafka_groups.access import tls
from kafka_groups.access.config import kafka_python_config, librdkafka_config, unsecured_token
from kafka_groups.client_config import client_security
from kafka_groups.client_secure import Store
from kafka_groups.errors import ConfigError
from kafka_groups.jaas import parse_jaas
from kafka_groups.properties import parse_properties
from kafka_groups.secrets import ScrubFilter, redact, scrub, secret_values
from kafka_groups.settings import ConnectionSettings, environment_properties, resolve_settings

SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"
PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"
OAUTH = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"


def settings(**props: str) -> ConnectionSettings:
    return ConnectionSettings("b:9092", 5000, {k.replace("_", "."): v for k, v in props.items()})


def test_jaas_options_quoted_unquoted_and_escaped():
    entry = parse_jaas(f'{SCRAM} required username=alice password="p\\"a ss;=x" extension_t="1";')
    assert entry.module == SCRAM
    assert entry.flag == "required"
    assert dict(entry.options) == {"username": "alice", "password": 'p"a ss;=x', "extension_t": "1"}


@pytest.mark.parametrize(
    "text",
    [
        f'{SCRAM} required username="a" password="secret-x"',  # no closing ;
        f'{SCRAM} needed username="a" password="secret-x";',
        f'{SCRAM} required username "a" password="secret-x";',
        f'{SCRAM} required username="a"; {PLAIN} required password="secret-x";',
    ],
)
def test_malformed_jaas_is_refused_without_quoting_it(text):
    with pytest.raises(ConfigError) as raised:
        parse_jaas(text)
    assert "secret-x" not in raised.value.message


def test_a_continued_jaas_line_in_a_properties_file():
    props = parse_properties(
        "security.protocol: SASL_SSL\n"
        "sasl.mechanism SCRAM-SHA-512\n"
        f"sasl.jaas.config = {SCRAM} required \\\n"
        '    username="alice" \\\n'
        '    password="pw";\n'
    )
    sec = client_security(props)
    assert (sec.protocol, sec.mechanism, sec.username, sec.password) == (
        "SASL_SSL",
        "SCRAM-SHA-512",
        "alice",
        "pw",
    )


def test_librdkafka_and_kafka_python_get_the_same_scram_login():
    s = settings(
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="SCRAM-SHA-256",
        sasl_jaas_config=f'{SCRAM} required username="u" password="p";',
        request_timeout_ms="7000",
    )
    rd = librdkafka_config(s)
    assert {k: rd[k] for k in ("security.protocol", "sasl.mechanisms", "sasl.username", "sasl.password")} == {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanisms": "SCRAM-SHA-256",
        "sasl.username": "u",
        "sasl.password": "p",
    }
    assert rd["socket.timeout.ms"] == "7000"
    kp = kafka_python_config(s)
    assert (kp["sasl_mechanism"], kp["sasl_plain_username"], kp["sasl_plain_password"]) == (
        "SCRAM-SHA-256",
        "u",
        "p",
    )
    assert "ssl_context" not in kp


def test_oauthbearer_client_credentials_and_unsecured():
    oidc = settings(
        security_protocol="SASL_SSL",
        sasl_mechanism="OAUTHBEARER",
        sasl_oauthbearer_token_endpoint_url="https://idp.example/token",
        sasl_login_callback_handler_class="org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
        sasl_jaas_config=(
            f'{OAUTH} required clientId="app" clientSecret="s3cret" scope="kafka" extension_x="1";'
        ),
    )
    rd = librdkafka_config(oidc)
    assert rd["sasl.oauthbearer.method"] == "oidc"
    assert (rd["sasl.oauthbearer.client.id"], rd["sasl.oauthbearer.client.secret"]) == ("app", "s3cret")
    assert (rd["sasl.oauthbearer.scope"], rd["sasl.oauthbearer.extensions"]) == ("kafka", "x=1")
    assert rd["ssl.ca.location"] == "probe"  # no truststore: the system's CAs, as the JVM's

    dev = settings(
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="OAUTHBEARER",
        sasl_jaas_config=f'{OAUTH} required unsecuredLoginStringClaim_sub="svc";',
    )
    rd = librdkafka_config(dev)
    assert rd["enable.sasl.oauthbearer.unsecure.jwt"] is True
    assert rd["sasl.oauthbearer.config"] == "principal=svc lifeSeconds=3600"
    token = unsecured_token("svc", 60, None, now=1000.0)
    header, claims, signature = token.split(".")
    assert signature == ""
    import base64
    import json

    def decode(part: str) -> dict[str, object]:
        return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))

    assert decode(header) == {"alg": "none"}
    assert decode(claims) == {"sub": "svc", "iat": 1000, "exp": 1060}


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"security.protocol": "SASL_TLS"}, "security.protocol=SASL_TLS is not one of"),
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "AWS_MSK_IAM"}, "sasl.mechanism=AWS_MSK_IAM"),
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN"}, "needs sasl.jaas.config"),
        (
            {
                "security.protocol": "SASL_SSL",
                "sasl.mechanism": "PLAIN",
                "sasl.jaas.config": f"{SCRAM} required;",
            },
            f"needs {PLAIN}",
        ),
        (
            {
                "security.protocol": "SASL_SSL",
                "sasl.mechanism": "OAUTHBEARER",
                "sasl.jaas.config": f"{OAUTH} required;",
            },
            "unsecuredLoginStringClaim_sub",
        ),
        (
            {"security.protocol": "SSL", "ssl.truststore.location": "x", "ssl.truststore.type": "BKS"},
            "ssl.truststore.type=BKS is not supported",
        ),
    ],
)
def test_settings_that_cannot_work_are_refused(props, message):
    with pytest.raises(ConfigError) as raised:
        client_security(props)
    assert message in raised.value.message


def test_unknown_keys_are_collected_and_known_ones_are_not():
    sec = client_security(
        {
            "security.protocol": "SSL",
            "ssl.truststore.location": "/ca.pem",
            "ssl.cipher.suites": "X",
            "client.id": "me",
            "default.api.timeout.ms": "1",
            "linger.ms": "5",
        }
    )
    assert sec.ignored == ("linger.ms", "ssl.cipher.suites")
    assert dict(sec.tuning) == {"client.id": "me"}


def test_host_name_verification_follows_the_java_setting():
    on = client_security({"security.protocol": "SSL"})
    off = client_security({"security.protocol": "SSL", "ssl.endpoint.identification.algorithm": ""})
    assert (on.check_hostname, off.check_hostname) == (True, False)
    assert (
        librdkafka_config(settings(security_protocol="SSL", ssl_endpoint_identification_algorithm=""))[
            "ssl.endpoint.identification.algorithm"
        ]
        == "none"
    )


def test_environment_properties_and_precedence(tmp_path):
    env = {
        "KAFKA_CLIENT_SASL_JAAS_CONFIG": "j",
        "KAFKA_CLIENT_SECURITY_PROTOCOL": "SASL_SSL",
        "KAFKA_CLIENT_": "ignored",
        "KAFKA_OPTS": "-Xmx1g",
    }
    assert environment_properties(env) == {"sasl.jaas.config": "j", "security.protocol": "SASL_SSL"}
    config = tmp_path / "c.properties"
    config.write_text("security.protocol=SSL\nbootstrap.servers=file:1\n")
    env |= {"KAFKA_BOOTSTRAP_SERVERS": "env:1", "KAFKA_COMMAND_CONFIG": str(config)}
    resolved = resolve_settings(None, None, 5000, environ=env)
    assert resolved.bootstrap_servers == "env:1"
    assert dict(resolved.properties) == {
        "sasl.jaas.config": "j",
        "security.protocol": "SSL",  # the file wins over its variable
        "bootstrap.servers": "file:1",
    }
    assert resolve_settings("flag:1", None, 5000, environ=env).bootstrap_servers == "flag:1"


def test_secrets_are_redacted_and_scrubbed():
    props = {
        "sasl.jaas.config": f'{PLAIN} required username="u" password="hunter22";',
        "ssl.key.password": "kp-123",
        "client.id": "visible",
    }
    assert secret_values(props) == {props["sasl.jaas.config"], "hunter22", "kp-123"}
    assert redact({"sasl.password": "hunter22", "client.id": "visible"}) == {
        "sasl.password": "[hidden]",
        "client.id": "visible",
    }
    assert scrub("login hunter22 failed", secret_values(props)) == "login [hidden] failed"

    record = logging.LogRecord(
        "kafka", logging.DEBUG, "f", 1, "config %s", ({"sasl_plain_password": "hunter22"},), None
    )
    assert ScrubFilter({"hunter22"}).filter(record)
    assert record.getMessage() == "config {'sasl_plain_password': '[hidden]'}"
    sasl = logging.LogRecord(
        "kafka", logging.DEBUG, "f", 1, "Sending SaslAuthenticateRequest(b'\\x00u\\x00x')", (), None
    )
    ScrubFilter(set()).filter(sasl)
    assert "\\x00u" not in sasl.getMessage()


# -- stores ------------------------------------------------------------------------------------------


def _self_signed():
    """A fresh EC key and a one-day self-signed certificate for it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "unit")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    return key, cert


def _identity(tmp_path, password: bytes | None):
    from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, NoEncryption, pkcs12

    key, cert = _self_signed()
    encryption = BestAvailableEncryption(password) if password else NoEncryption()
    path = tmp_path / "id.p12"
    path.write_bytes(pkcs12.serialize_key_and_certificates(b"id", key, cert, None, encryption))
    return path


def test_pkcs12_keystore_and_truststore_become_pem(tmp_path):
    path = _identity(tmp_path, b"store-pw")
    ident = tls.identity(Store("PKCS12", str(path), "store-pw"), None)
    assert ident.chain_pem.startswith("-----BEGIN CERTIFICATE-----")
    assert ident.key_pem.startswith("-----BEGIN PRIVATE KEY-----")
    assert tls.trusted_pem(Store("PKCS12", str(path), "store-pw")) == ident.chain_pem
    with pytest.raises(ConfigError, match="wrong password"):
        tls.identity(Store("PKCS12", str(path), "nope"), None)


def _encrypted_keystore(tmp_path, password: bytes, legacy: bool = False):
    """A PEM keystore whose key is encrypted: PKCS#8, or the older OpenSSL form (Proc-Type)."""
    from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, Encoding, PrivateFormat

    key, cert = _self_signed()
    form = PrivateFormat.TraditionalOpenSSL if legacy else PrivateFormat.PKCS8
    store = tmp_path / ("legacy.pem" if legacy else "ks.pem")
    store.write_bytes(
        key.private_bytes(Encoding.PEM, form, BestAvailableEncryption(password))
        + cert.public_bytes(Encoding.PEM)
    )
    return store


@pytest.mark.parametrize("legacy", [False, True])
def test_an_encrypted_pem_key_needs_its_password_and_is_decrypted_once(tmp_path, legacy):
    store = _encrypted_keystore(tmp_path, b"kp", legacy)
    assert "ENCRYPTED" in store.read_text()
    with pytest.raises(ConfigError, match=r"encrypted: set ssl\.key\.password"):
        tls.identity(Store("PEM", str(store)), None)
    with pytest.raises(ConfigError) as wrong:
        tls.identity(Store("PEM", str(store)), "not-kp")
    assert wrong.value.message == "ssl.key.password does not open the keystore's private key (wrong password)"
    ident = tls.identity(Store("PEM", str(store)), "kp")
    assert ident.key_pem.startswith("-----BEGIN PRIVATE KEY-----")  # in memory only, for both clients
    import ssl

    tls.load_identity(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT), ident)


def test_a_wrong_key_password_reads_the_same_through_both_clients(tmp_path):
    store = _encrypted_keystore(tmp_path, b"kp")
    wrong = settings(security_protocol="SSL", ssl_keystore_location=str(store), ssl_key_password="not-kp")
    messages = set()
    for build in (librdkafka_config, kafka_python_config):
        tls.identity.cache_clear()
        with pytest.raises(ConfigError) as raised:
            build(wrong)
        messages.add(raised.value.message)
    assert messages == {"ssl.key.password does not open the keystore's private key (wrong password)"}
    right = settings(security_protocol="SSL", ssl_keystore_location=str(store), ssl_key_password="kp")
    assert "ssl.key.password" not in librdkafka_config(right)  # librdkafka gets the key decrypted


@pytest.mark.parametrize(("magic", "kind"), [(b"\xfe\xed\xfe\xed", "JKS"), (b"\xce\xce\xce\xce", "JCEKS")])
def test_a_java_keystore_gets_the_conversion_command(tmp_path, magic, kind):
    path = tmp_path / "trust.jks"
    path.write_bytes(magic + b"\x00" * 20)
    with pytest.raises(ConfigError) as raised:
        tls.trusted_pem(Store("", str(path), "pw"))
    assert raised.value.message.startswith(f"ssl.truststore.location {path} is a {kind} store")
    assert (
        f"keytool -importkeystore -srckeystore {path} -srcstoretype {kind} -destkeystore {tmp_path}/trust.p12"
        in (raised.value.message)
    )
