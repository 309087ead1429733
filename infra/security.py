"""A secured local cluster for the security tests: TLS material made at start time, SASL users,
and ACLs enforced by the standard authorizer.

Listeners of a secure node (all on 127.0.0.1):

- ``PLAINTEXT``: unauthenticated, its principal ``User:ANONYMOUS`` is a super user. The tests
  set up users and ACLs through it; it is the cluster's ``bootstrap``.
- ``SASL_SSL``: SCRAM-SHA-512 and SCRAM-SHA-256 over TLS; the broker certificate names
  ``127.0.0.1`` and ``localhost``.
- ``SASL_PLAINTEXT``: PLAIN and OAUTHBEARER (the broker's unsecured-token validator, which is
  what a development cluster runs; it accepts tokens without a signature).
- ``SSL``: TLS with client certificates required; the principal is the certificate's DN.
- ``BADHOST``: like ``SASL_SSL`` but its certificate names ``kafka.invalid`` only, for the
  hostname-mismatch test.

Users: ``admin`` (a super user) and ``alice``, ``bob``; every password is random per start. A
client properties file for each (listener, user) is written under ``<workdir>/clients/``, in the
form the Apache tools read with ``--command-config``. Uses only ``openssl`` and ``keytool``.
"""

from __future__ import annotations

import json
import secrets
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

LISTENERS = ("SASL_SSL", "SASL_PLAINTEXT", "SSL", "BADHOST")
PROTOCOLS = {"SASL_SSL": "SASL_SSL", "SASL_PLAINTEXT": "SASL_PLAINTEXT", "SSL": "SSL", "BADHOST": "SASL_SSL"}
USERS = ("admin", "alice", "bob")
SUPER_USERS = "User:ANONYMOUS;User:admin"
STATE_FILE = "secure.json"
TLS_DIR = "tls"
CLIENTS_DIR = "clients"
_DAYS = "3"


@dataclass(frozen=True)
class Material:
    """Paths of the TLS files and the random secrets of one secure cluster."""

    tls_dir: str
    passwords: dict[str, str]  # user -> password (SCRAM and PLAIN alike)
    store_password: str  # of every PKCS12/JKS store made here

    @property
    def ca(self) -> str:
        return f"{self.tls_dir}/ca.pem"

    def path(self, name: str) -> str:
        return f"{self.tls_dir}/{name}"

    def save(self, workdir: Path) -> None:
        (workdir / STATE_FILE).write_text(json.dumps(asdict(self), indent=2) + "\n")

    @classmethod
    def load(cls, workdir: Path) -> Material:
        return cls(**json.loads((workdir / STATE_FILE).read_text()))


def _run(*cmd: str, cwd: Path) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])} failed: {proc.stderr.strip()[-500:]}")


def _key_and_cert(tls: Path, name: str, subject: str, san: str | None, ca: str) -> None:
    """<name>.key (PKCS#8, unencrypted) and <name>.pem signed by the CA ``ca``."""
    req = ["openssl", "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key"]
    req += ["-subj", subject, "-out", f"{name}.csr"]
    if san:
        req += ["-addext", f"subjectAltName={san}"]
    _run(*req, cwd=tls)
    sign = ["openssl", "x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key"]
    sign += ["-CAcreateserial", "-days", _DAYS, "-out", f"{name}.pem", "-copy_extensions", "copy"]
    _run(*sign, cwd=tls)
    (tls / f"{name}.csr").unlink()


def _ca(tls: Path, name: str, subject: str) -> None:
    _run(
        "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key",
        "-out", f"{name}.pem", "-days", _DAYS, "-subj", subject, cwd=tls,
    )  # fmt: skip


def make_material(workdir: Path) -> Material:
    """Generate a CA, the broker and client certificates, the stores, and the passwords."""
    tls = workdir / TLS_DIR
    tls.mkdir(parents=True, exist_ok=True)
    store_password = secrets.token_urlsafe(12)
    _ca(tls, "ca", "/CN=kafka-group-tools test CA")
    _ca(tls, "other-ca", "/CN=an unrelated CA")
    _key_and_cert(tls, "broker", "/CN=localhost", "IP:127.0.0.1,DNS:localhost", "ca")
    _key_and_cert(tls, "badhost", "/CN=kafka.invalid", "DNS:kafka.invalid", "ca")
    _key_and_cert(tls, "alice", "/CN=alice", None, "ca")
    _key_and_cert(tls, "stranger", "/CN=alice", None, "other-ca")
    for name in ("broker", "badhost", "alice"):  # PEM keystores: key + chain in one file
        (tls / f"{name}-keystore.pem").write_text(
            (tls / f"{name}.key").read_text()
            + (tls / f"{name}.pem").read_text()
            + (tls / "ca.pem").read_text()
        )
    # The same client identity as PKCS12 and JKS, and the CA as PKCS12 and JKS truststores.
    _run(
        "openssl", "pkcs12", "-export", "-in", "alice.pem", "-inkey", "alice.key", "-certfile", "ca.pem",
        "-name", "alice", "-out", "alice.p12", "-passout", f"pass:{store_password}", cwd=tls,
    )  # fmt: skip
    for store_type, suffix in (("PKCS12", "p12"), ("JKS", "jks")):
        _run(
            "keytool", "-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem",
            "-keystore", f"truststore.{suffix}", "-storetype", store_type, "-storepass", store_password,
            cwd=tls,
        )  # fmt: skip
    _run(
        "keytool", "-importkeystore", "-noprompt", "-srckeystore", "alice.p12", "-srcstoretype", "PKCS12",
        "-srcstorepass", store_password, "-destkeystore", "alice.jks", "-deststoretype", "JKS",
        "-deststorepass", store_password, cwd=tls,
    )  # fmt: skip
    passwords = {user: secrets.token_urlsafe(12) for user in USERS}
    material = Material(str(tls), passwords, store_password)
    material.save(workdir)
    return material


def scram_format_args(material: Material) -> list[str]:
    """``kafka-storage format`` arguments that create every user's SCRAM credentials."""
    args = []
    for user, password in material.passwords.items():
        for mechanism in ("SCRAM-SHA-512", "SCRAM-SHA-256"):
            args += ["--add-scram", f"{mechanism}=[name={user},password={password}]"]
    return args


def server_properties(material: Material) -> dict[str, object]:
    """The SASL, TLS and authorizer settings a secure node adds (its caller sets the listeners)."""
    plain_users = " ".join(f'user_{u}="{p}"' for u, p in material.passwords.items())
    scram = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
    props: dict[str, object] = {
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": SUPER_USERS,
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": material.path("broker-keystore.pem"),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": material.ca,
        "listener.name.ssl.ssl.client.auth": "required",
        "listener.name.sasl_ssl.sasl.enabled.mechanisms": "SCRAM-SHA-512,SCRAM-SHA-256",
        "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config": scram,
        "listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config": scram,
        "listener.name.badhost.ssl.keystore.location": material.path("badhost-keystore.pem"),
        "listener.name.badhost.ssl.keystore.type": "PEM",
        "listener.name.badhost.sasl.enabled.mechanisms": "SCRAM-SHA-512",
        "listener.name.badhost.scram-sha-512.sasl.jaas.config": scram,
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN,OAUTHBEARER",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": (
            f"org.apache.kafka.common.security.plain.PlainLoginModule required {plain_users};"
        ),
        "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config": (
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"
        ),
    }
    return props


def client_properties(material: Material, listener: str, user: str) -> str:
    """A ``--command-config`` file's text for ``user`` on ``listener``."""
    password = material.passwords[user]
    lines = [f"security.protocol={PROTOCOLS[listener]}"]
    if listener in ("SASL_SSL", "BADHOST"):
        lines += [
            "sasl.mechanism=SCRAM-SHA-512",
            "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
            f'username="{user}" password="{password}";',
        ]
    elif listener == "SASL_PLAINTEXT":
        lines += [
            "sasl.mechanism=PLAIN",
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
            f'username="{user}" password="{password}";',
        ]
    else:  # SSL: the client certificate is the identity (CN=alice)
        lines += [
            "ssl.keystore.type=PEM",
            f"ssl.keystore.location={material.path('alice-keystore.pem')}",
        ]
    if PROTOCOLS[listener] in ("SASL_SSL", "SSL"):
        lines += ["ssl.truststore.type=PEM", f"ssl.truststore.location={material.ca}"]
    return "\n".join(lines) + "\n"


def write_client_files(material: Material, workdir: Path) -> None:
    clients = workdir / CLIENTS_DIR
    clients.mkdir(exist_ok=True)
    for listener in ("SASL_SSL", "SASL_PLAINTEXT"):
        for user in USERS:
            path = clients / f"{listener.lower()}-{user}.properties"
            path.write_text(client_properties(material, listener, user))
            path.chmod(0o600)
    (clients / "ssl-alice.properties").write_text(client_properties(material, "SSL", "alice"))
