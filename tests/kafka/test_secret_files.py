"""Secrets and the files settings name, on the secure cluster (infra/security.py):

- the protocol layer's TLS identity reaches Python's ``ssl`` without its key in any file: a
  SIGKILL at the very moment it is loaded leaves nothing under TMPDIR;
- a password in a token endpoint's URL (``https://user:password@host``) never appears, --debug
  included, through either client;
- a wrong ``ssl.key.password`` reads the same through both clients;
- ``/dev/zero``, a FIFO, ``/dev/stdin`` and a 100 MB file as ``--command-config`` or as
  ``ssl.truststore.location``: one short line and an exit at once, and a TAB that answers
  without reading them;
- the completion name cache is keyed by the credentials, and a refused login forgets it.

Bounds here are generous limits that tell a hang from an answer, not timings of speed."""

from __future__ import annotations

import base64
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)

from tests.conftest import OUR_TOOLS, ROOT
from tests.kafka_helpers import TOOL_TIMEOUT_MS, commit_offsets, create_topic, unique, wait_until

pytestmark = pytest.mark.kafka

HANG_LIMIT_S = 60  # far above any answer; a read of /dev/zero or a FIFO would run past it
CONSUMER_GROUPS = OUR_TOOLS["kafka-consumer-groups"]


@pytest.fixture(scope="module")
def cluster(secure_cluster):
    return secure_cluster


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **extra}
    for name in ("KAFKA_COMMAND_CONFIG", "KAFKA_BOOTSTRAP_SERVERS", "_KAFKA_TOOLS_COMPLETE"):
        env.pop(name, None)
    return {k: v for k, v in env.items() if not k.startswith("KAFKA_CLIENT_")} | extra


@contextmanager
def _quiet_stdin() -> Iterator[int]:
    """A pipe as stdin whose writer stays open and silent: reading it blocks until the test ends."""
    read_end, write_end = os.pipe()
    try:
        yield read_end
    finally:
        os.close(read_end)
        os.close(write_end)


def run_tool(*args: str, env: dict[str, str] | None = None, module: str = CONSUMER_GROUPS):
    """Our tool as a process of its own, its stdin a pipe nobody writes to."""
    with _quiet_stdin() as stdin:
        return subprocess.run(
            [sys.executable, "-m", module, *args],
            capture_output=True,
            text=True,
            timeout=HANG_LIMIT_S,
            env=env or _env(),
            stdin=stdin,
        )


def tab(line: str, cache: Path, budget_ms: str = "15000") -> subprocess.CompletedProcess[str]:
    """One TAB in bash's protocol at the end of ``line``, its stdin a silent pipe."""
    env = _env(
        _KAFKA_TOOLS_COMPLETE="bash",
        COMP_LINE=line,
        COMP_POINT=str(len(line)),
        XDG_CACHE_HOME=str(cache),
        KAFKA_TOOLS_TAB_BUDGET_MS=budget_ms,
    )
    with _quiet_stdin() as stdin:
        return subprocess.run(
            [sys.executable, "-m", CONSUMER_GROUPS],
            capture_output=True,
            text=True,
            timeout=HANG_LIMIT_S,
            env=env,
            stdin=stdin,
        )


def offered(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert result.returncode == 0 and result.stderr == "", result.stderr
    lines = result.stdout.splitlines()
    assert lines[:1] == ["plain"], result.stdout
    return lines[1:]


# -- the TLS identity: never in a file ----------------------------------------------------------------

# Runs the tool with Python's ssl held at the moment the protocol layer loads the client
# certificate and key: it records what it was given and what TMPDIR holds, then waits to be killed.
HOLD_AT_LOAD = """
import json, os, runpy, ssl, sys, time
marker = os.environ["KGT_TEST_MARKER"]
def held(self, certfile, keyfile=None, password=None):
    seen = {"certfile": certfile, "link": os.readlink(certfile) if certfile.startswith("/proc/") else None,
            "tmp": sorted(os.listdir(os.environ["TMPDIR"]))}
    with open(marker + ".part", "w") as out:
        json.dump(seen, out)
    os.rename(marker + ".part", marker)
    time.sleep(600)
ssl.SSLContext.load_cert_chain = held
sys.argv = ["kafka-consumer-groups", *sys.argv[1:]]
runpy.run_module("kafka_groups.cli.consumer_groups", run_name="__main__", alter_sys=True)
"""


def _key_material(p12: str, password: str) -> list[bytes]:
    """What would betray the key in a file: PEM markers, its DER bytes, its PEM text's lines."""
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, pkcs12

    key = pkcs12.load_key_and_certificates(Path(p12).read_bytes(), password.encode())[0]
    assert key is not None
    der = key.private_bytes(Encoding.DER, PrivateFormat.PKCS8, NoEncryption())
    pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode()
    body = [line.encode() for line in pem.splitlines()[1:-1]]
    return [b"PRIVATE KEY", der[-64:], *body]


def _files_under(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() or p.is_symlink()]


def _pkcs12_config(cluster, tmp_path: Path) -> Path:
    material = cluster.material
    config = tmp_path / "p12.properties"
    config.write_text(
        "security.protocol=SSL\n"
        f"ssl.keystore.type=PKCS12\nssl.keystore.location={material.path('alice.p12')}\n"
        f"ssl.keystore.password={material.store_password}\n"
        f"ssl.truststore.location={material.ca}\n"
    )
    return config


def test_a_kill_while_the_protocol_layer_loads_its_tls_identity_leaves_no_key_on_disk(cluster, tmp_path):
    """SIGKILL at the moment the key is handed to Python's ssl (PKCS12 keystore, decrypted in
    memory): TMPDIR, fresh for the run, holds no file then or after, and what ssl was given is
    an anonymous in-memory file, linked in no directory."""
    tmpdir, marker = tmp_path / "tmpdir", tmp_path / "marker.json"
    tmpdir.mkdir()
    config = _pkcs12_config(cluster, tmp_path)
    args = ["--bootstrap-server", cluster.bootstrap_for("SSL"), "--command-config", str(config), "--list"]
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD_AT_LOAD, *args, "--timeout", TOOL_TIMEOUT_MS],
        env=_env(TMPDIR=str(tmpdir), KGT_TEST_MARKER=str(marker)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_until(lambda: marker.exists() or proc.poll() is not None, "the identity is being loaded", 60)
        assert marker.exists(), proc.communicate()[1].decode()[-2000:]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
    assert proc.returncode == -signal.SIGKILL
    seen = json.loads(marker.read_text())
    assert seen["tmp"] == [], f"TMPDIR while the key was loaded: {seen['tmp']}"
    assert seen["certfile"].startswith("/proc/self/fd/"), seen
    assert seen["link"].startswith("/memfd:"), seen
    leftovers = _files_under(tmpdir)
    material = _key_material(cluster.material.path("alice.p12"), cluster.material.store_password)
    betrayed = [str(p) for p in leftovers for m in material if m in p.read_bytes()]
    assert (leftovers, betrayed) == ([], [])


def test_a_pkcs12_identity_logs_in_through_both_clients_and_leaves_tmpdir_empty(cluster, tmp_path):
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    config = _pkcs12_config(cluster, tmp_path)
    connection = ("--bootstrap-server", cluster.bootstrap_for("SSL"), "--command-config", str(config))
    env = _env(TMPDIR=str(tmpdir))
    protocol_layer = run_tool(*connection, "--list", "--timeout", TOOL_TIMEOUT_MS, env=env)
    admin_client = run_tool(*connection, "--list", env=env, module=OUR_TOOLS["kafka-topics"])
    for result in (protocol_layer, admin_client):
        assert result.returncode == 0, result.stderr
        assert cluster.material.store_password not in result.stdout + result.stderr
    assert _files_under(tmpdir) == []


def test_a_wrong_key_password_reads_the_same_through_both_clients(cluster, tmp_path):
    material = cluster.material
    key = tmp_path / "alice-encrypted.key"
    subprocess.run(
        ["openssl", "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", material.path("alice.key"),
         "-out", str(key), "-passout", "pass:key-pw-1"],
        check=True, capture_output=True,
    )  # fmt: skip
    keystore = tmp_path / "alice-keystore.pem"
    keystore.write_text(key.read_text() + Path(material.path("alice.pem")).read_text())
    lines = {}
    for password in ("key-pw-1", "Wr0ng-key-pw"):
        config = tmp_path / f"{password}.properties"
        config.write_text(
            f"security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.location={keystore}\n"
            f"ssl.key.password={password}\nssl.truststore.location={material.ca}\n"
        )
        connection = ("--bootstrap-server", cluster.bootstrap_for("SSL"), "--command-config", str(config))
        for tool in ("kafka-consumer-groups", "kafka-topics"):  # the protocol layer; librdkafka
            extra = ("--timeout", TOOL_TIMEOUT_MS) if tool != "kafka-topics" else ()
            result = run_tool(*connection, "--list", *extra, module=OUR_TOOLS[tool])
            lines[(password, tool)] = (result.returncode, result.stderr.strip())
            assert password not in result.stdout + result.stderr
    assert lines[("key-pw-1", "kafka-consumer-groups")][0] == 0
    assert lines[("key-pw-1", "kafka-topics")][0] == 0
    wrong = (2, "Error: ssl.key.password does not open the keystore's private key (wrong password)")
    assert (
        lines[("Wr0ng-key-pw", "kafka-consumer-groups")] == lines[("Wr0ng-key-pw", "kafka-topics")] == wrong
    )


# -- a password in a URL ----------------------------------------------------------------------------


class _TokenEndpoint(BaseHTTPRequestHandler):
    """A client-credentials token endpoint handing out unsecured tokens for ``admin`` (the
    SASL_PLAINTEXT listener's validator accepts them). Records what it was sent."""

    requests: ClassVar[list[dict[str, str]]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        self.requests.append({"path": self.path, "authorization": self.headers.get("Authorization", ""),
                              "body": self.rfile.read(length).decode()})  # fmt: skip
        now = int(time.time())

        def b64(value: dict[str, object]) -> str:
            return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

        token = f"{b64({'alg': 'none'})}.{b64({'sub': 'admin', 'iat': now, 'exp': now + 600})}."
        body = json.dumps({"access_token": token, "token_type": "bearer", "expires_in": 600}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def token_endpoint() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _TokenEndpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


URL_PASSWORD = "Url-Pa55word-" + unique("x")[-6:]
CLIENT_SECRET = "Client-5ecret-" + unique("y")[-6:]


def _oidc_config(tmp_path: Path, endpoint: str) -> Path:
    config = tmp_path / "oidc.properties"
    config.write_text(
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
        f"sasl.oauthbearer.token.endpoint.url=http://svc:{URL_PASSWORD}@{endpoint}/oauth2/token\n"
        "sasl.login.callback.handler.class="
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler\n"
        "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
        f'clientId="app" clientSecret="{CLIENT_SECRET}";\n'
    )
    return config


@pytest.mark.parametrize(
    "command",
    [
        ("kafka-topics", "--list"),  # librdkafka fetches the token
        ("kafka-consumer-groups", "--list", "--timeout", TOOL_TIMEOUT_MS),  # the protocol layer does
    ],
)
def test_debug_output_never_shows_a_password_in_the_token_endpoint_url(
    cluster, tmp_path, token_endpoint, command
):
    """OAUTHBEARER with client credentials, the token endpoint's URL carrying user:password:
    the login works through either client, --debug shows the URL with its user info hidden, and
    the password is nowhere in the output; a token endpoint that does not answer is no different."""
    tool, *args = command
    config = _oidc_config(tmp_path, token_endpoint)
    _TokenEndpoint.requests.clear()
    connection = (
        "--bootstrap-server",
        cluster.bootstrap_for("SASL_PLAINTEXT"),
        "--command-config",
        str(config),
    )
    result = run_tool(*connection, *args, "--debug", module=OUR_TOOLS[tool])
    output = result.stdout + result.stderr
    assert result.returncode == 0, result.stderr[-3000:]
    assert _TokenEndpoint.requests and _TokenEndpoint.requests[0]["path"] == "/oauth2/token"
    assert URL_PASSWORD not in output and CLIENT_SECRET not in output
    assert f"http://[hidden]@{token_endpoint}/oauth2/token" in output or tool != "kafka-topics"

    dead = _oidc_config(tmp_path, "127.0.0.1:1")
    failed = run_tool("--bootstrap-server", cluster.bootstrap_for("SASL_PLAINTEXT"), "--command-config",
                      str(dead), *args, "--debug", module=OUR_TOOLS[tool])  # fmt: skip
    assert failed.returncode == 1
    assert "token" in failed.stderr.strip().splitlines()[-1]
    assert URL_PASSWORD not in failed.stdout + failed.stderr and CLIENT_SECRET not in failed.stderr


# -- files named by settings --------------------------------------------------------------------------


@pytest.fixture
def awkward_files(tmp_path: Path) -> dict[str, str]:
    fifo = tmp_path / "fifo.properties"
    os.mkfifo(fifo)
    big = tmp_path / "big.properties"
    with open(big, "wb") as handle:  # 100 MB of one long line: no key the tools would take
        block = b"k" * (1024 * 1024)
        for _ in range(100):
            handle.write(block)
    return {"/dev/zero": "/dev/zero", "FIFO": str(fifo), "/dev/stdin": "/dev/stdin", "100 MB": str(big)}


KINDS = ["/dev/zero", "FIFO", "/dev/stdin", "100 MB"]
EXPECTED = {
    "/dev/zero": "is not a regular file: it is a character device",
    "FIFO": "is not a regular file: it is a FIFO or pipe",
    "/dev/stdin": "is not a regular file: it is a FIFO or pipe",  # the silent pipe run_tool gives it
    "100 MB": "is 100.0 MB, more than the",
}


def _truststore_config(tmp_path: Path, location: str) -> Path:
    config = tmp_path / "truststore.properties"
    config.write_text(f"security.protocol=SSL\nssl.truststore.location={location}\n")
    return config


@pytest.mark.parametrize("setting", ["--command-config", "ssl.truststore.location"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_file_no_setting_should_read_is_one_short_line(cluster, tmp_path, awkward_files, setting, kind):
    path = awkward_files[kind]
    config = path if setting == "--command-config" else str(_truststore_config(tmp_path, path))
    named = "--command-config file" if setting == "--command-config" else "ssl.truststore.location"
    connection = ("--bootstrap-server", cluster.bootstrap_for("SSL"), "--command-config", config)
    result = run_tool(*connection, "--list", "--timeout", TOOL_TIMEOUT_MS)
    assert result.returncode == 2, result.stderr[-500:]
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and len(lines[0]) < 300, result.stderr[:500]
    assert lines[0].startswith(f"Error: {named} {path} {EXPECTED[kind]}"), lines[0]


@pytest.mark.parametrize("setting", ["--command-config", "ssl.truststore.location"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_tab_never_reads_them(cluster, tmp_path, awkward_files, setting, kind):
    """The TAB's budget is a minute here, so an answer long before it is no hard stop's doing:
    the file was refused unread."""
    path = awkward_files[kind]
    config = path if setting == "--command-config" else str(_truststore_config(tmp_path, path))
    line = (
        f"kafka-consumer-groups --bootstrap-server {cluster.bootstrap_for('SSL')} --command-config {config} "
    )
    began = time.monotonic()
    result = tab(line + "--describe --group ", tmp_path / "cache", budget_ms="120000")
    assert time.monotonic() - began < HANG_LIMIT_S - 10
    assert offered(result) == []


# -- the name cache -------------------------------------------------------------------------------------


@contextmanager
def scram_user(cluster, password: str) -> Iterator[str]:
    """A SCRAM-SHA-512 user of its own, allowed to describe every group, removed afterwards."""
    user = unique("carol")
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    set_password(cluster, user, password)
    acl = AclBinding(ResourceType.GROUP, "*", ResourcePatternType.LITERAL, f"User:{user}", "*",
                     AclOperation.DESCRIBE, AclPermissionType.ALLOW)  # fmt: skip
    for future in admin.create_acls([acl]).values():
        future.result()
    # The authorizer applies ACLs from the metadata log: wait until it lists this one.
    wanted = AclBindingFilter(ResourceType.GROUP, "*", ResourcePatternType.LITERAL, f"User:{user}", None,
                              AclOperation.ANY, AclPermissionType.ANY)  # fmt: skip
    wait_until(lambda: bool(admin.describe_acls(wanted).result()), f"the ACL of {user} applies")
    try:
        yield user
    finally:
        for future in admin.delete_acls([wanted]).values():
            future.result()
        deletion = UserScramCredentialDeletion(user, ScramMechanism.SCRAM_SHA_512)
        for future in admin.alter_user_scram_credentials([deletion]).values():
            future.result()


def set_password(cluster, user: str, password: str) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    info = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096)
    upsert = UserScramCredentialUpsertion(user, info, password.encode())
    for future in admin.alter_user_scram_credentials([upsert]).values():
        future.result()


def _scram_properties(cluster, user: str, password: str) -> dict[str, str]:
    return {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required "
        f'username="{user}" password="{password}";',
        "ssl.truststore.location": cluster.material.ca,
    }


def _scram_config(cluster, tmp_path: Path, user: str, password: str, name: str) -> Path:
    config = tmp_path / f"{name}.properties"
    config.write_text("".join(f"{k}={v}\n" for k, v in _scram_properties(cluster, user, password).items()))
    return config


def logs_in(cluster, user: str, password: str) -> bool:
    """Whether the SASL_SSL listener takes these credentials now (its answer, not a timeout)."""
    refused = threading.Event()
    config = {
        "bootstrap.servers": cluster.bootstrap_for("SASL_SSL"),
        "security.protocol": "SASL_SSL",
        "sasl.mechanisms": "SCRAM-SHA-512",
        "sasl.username": user,
        "sasl.password": password,
        "ssl.ca.location": cluster.material.ca,
        "error_cb": lambda error: refused.set() if error.code() == KafkaError._AUTHENTICATION else None,
        "logger": logging.getLogger("tests.quiet"),
    }
    admin = AdminClient(config)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            admin.list_topics(timeout=0.5)
            return True
        except KafkaException:
            admin.poll(0)
            if refused.is_set():
                return False
    raise TimeoutError(f"the listener neither took nor refused {user}'s login")


def test_the_name_cache_is_keyed_by_the_credentials_and_forgotten_on_a_refused_login(cluster, tmp_path):
    topic, group = unique("tab-sec-t"), unique("tab-sec-g")
    create_topic(cluster.bootstrap, topic, 1)
    commit_offsets(cluster.bootstrap, group, {(topic, 0): 1})
    cache, names = tmp_path / "cache", tmp_path / "cache" / "kafka-group-tools" / "names"
    bootstrap = cluster.bootstrap_for("SASL_SSL")
    first, second = "Pw-one-" + unique("p")[-6:], "Pw-two-" + unique("q")[-6:]
    with scram_user(cluster, first) as user:
        wait_until(lambda: logs_in(cluster, user, first), f"{user} can log in", 60)
        right = _scram_config(cluster, tmp_path, user, first, "right")
        wrong = _scram_config(cluster, tmp_path, user, "not-" + first, "wrong")

        def groups(config: Path) -> list[str]:
            line = f"kafka-consumer-groups --bootstrap-server {bootstrap} --command-config {config}"
            return offered(tab(f"{line} --describe --group {group[:-2]}", cache))

        assert groups(right) == [group]
        cached = sorted(p.name for p in names.iterdir())
        assert len(cached) == 1 and cached[0].endswith("-groups.json")
        assert first not in cached[0] and user not in cached[0]
        # Wrong credentials, same cluster: nothing offered, the names listed with the right ones untouched.
        assert groups(wrong) == []
        assert sorted(p.name for p in names.iterdir()) == cached
        assert groups(right) == [group]
        # The password changes on the cluster: the next lookup with the old one is refused, and
        # the names kept for it are forgotten, so no TAB with it offers them again.
        set_password(cluster, user, second)
        wait_until(lambda: not logs_in(cluster, user, first), "the old password is refused", 60)
        line = f"kafka-consumer-groups --bootstrap-server {bootstrap} --command-config {right}"
        assert (
            offered(tab(f"{line} --reset-offsets --topic ", cache)) == []
        )  # topics: not cached, so the cluster is asked
        assert not list(names.glob("*.json"))
        assert groups(right) == []
