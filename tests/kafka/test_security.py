"""Secured clusters: every tool with the same --command-config file the Apache tools take (SASL_SSL
with SCRAM-SHA-512, SASL_PLAINTEXT with PLAIN, mTLS, OAUTHBEARER), one-line errors for refused
credentials, failed TLS handshakes and missing ACLs, and no secret in any output, --debug included.

The broker (infra/security.py) makes its CA, certificates and random passwords when it starts."""

from __future__ import annotations

import os
import re
import shlex
import sys
import time
from pathlib import Path

import pytest
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
)

from tests.kafka_helpers import (
    TOOL_TIMEOUT_MS,
    commit_offsets,
    committed,
    create_topic,
    produce_n,
    unique,
    wait_until,
)

pytestmark = pytest.mark.kafka


def timeout(tool: str) -> tuple[str, ...]:
    """kafka-topics, like the Apache tool, has no --timeout."""
    return () if tool == "kafka-topics" else ("--timeout", TOOL_TIMEOUT_MS)


@pytest.fixture(scope="module")
def cluster(secure_cluster):
    return secure_cluster


@pytest.fixture(scope="module")
def setup(cluster):
    """A topic with records and a group with committed offsets, made as the super user."""
    topic, group = unique("sec-t"), unique("sec-g")
    create_topic(cluster.bootstrap, topic, 3)
    produce_n(cluster.bootstrap, topic, {0: 5, 1: 5, 2: 5})
    commit_offsets(cluster.bootstrap, group, {(topic, p): 3 for p in range(3)})
    return topic, group


def _acl(resource: ResourceType, name: str, operation: AclOperation, principal: str) -> AclBinding:
    return AclBinding(
        resource, name, ResourcePatternType.LITERAL, principal, "*", operation, AclPermissionType.ALLOW
    )


def grant(cluster, principal: str, *acls: tuple[ResourceType, str, AclOperation]) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    bindings = [_acl(r, n, o, principal) for r, n, o in acls]
    for future in admin.create_acls(bindings).values():
        future.result()
    # The authorizer applies new ACLs from the metadata log: wait until it lists them all.
    wait_until(lambda: set(bindings) <= set(_acls_of(admin, principal)), f"the ACLs of {principal} apply")


def revoke(cluster, principal: str) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    pattern = AclBindingFilter(
        ResourceType.ANY,
        None,
        ResourcePatternType.ANY,
        principal,
        None,
        AclOperation.ANY,
        AclPermissionType.ANY,
    )
    for future in admin.delete_acls([pattern]).values():
        future.result()
    wait_until(lambda: not _acls_of(admin, principal), f"the ACLs of {principal} are gone")


def _acls_of(admin: AdminClient, principal: str) -> list[AclBinding]:
    pattern = AclBindingFilter(
        ResourceType.ANY,
        None,
        ResourcePatternType.ANY,
        principal,
        None,
        AclOperation.ANY,
        AclPermissionType.ANY,
    )
    return list(admin.describe_acls(pattern).result())


def config_file(tmp_path: Path, text: str, name: str = "client.properties") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def both(apache, ours, tool: str, bootstrap: str, config: str, *args: str):
    """Ours and the Apache tool with the same arguments, and a --timeout far above the 5 s default
    where the tool has one: a TLS and SCRAM login on a loaded machine can take seconds."""
    connection = ("--bootstrap-server", bootstrap, "--command-config", config, *timeout(tool))
    return ours(tool, *connection, *args), apache(tool, *connection, *args)


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip().splitlines()]


# -- every tool, the same properties file as the Apache tool ---------------------------------------


@pytest.mark.parametrize("listener", ["SASL_SSL", "SASL_PLAINTEXT"])
def test_every_tool_connects_with_the_apache_tools_properties_file(cluster, setup, apache, ours, listener):
    """SCRAM-SHA-512 over TLS and PLAIN: ours and the Apache tool, given the file the broker's
    start wrote for the super user, see and do the same."""
    topic, group = setup
    bootstrap, config = cluster.bootstrap_for(listener), str(cluster.client_config(listener, "admin"))

    mine, theirs = both(apache, ours, "kafka-topics", bootstrap, config, "--describe", "--topic", topic)
    assert mine.returncode == 0, mine.stderr
    assert _lines(mine.stdout)[1:] == _lines(theirs.stdout)[1:]  # the first line carries the topic id alike
    assert "PartitionCount: 3" in mine.stdout

    mine, theirs = both(
        apache, ours, "kafka-consumer-groups", bootstrap, config, "--describe", "--group", group
    )
    assert mine.returncode == 0, mine.stderr
    assert _lines(mine.stdout) == _lines(theirs.stdout)

    reset = ("--reset-offsets", "--group", group, "--topic", topic, "--to-offset", "1", "--dry-run")
    mine, theirs = both(apache, ours, "kafka-consumer-groups", bootstrap, config, *reset)
    assert mine.returncode == 0, mine.stderr
    assert sorted(_lines(mine.stdout)) == sorted(_lines(theirs.stdout))

    mine, theirs = both(apache, ours, "kafka-streams-groups", bootstrap, config, "--list")
    assert (mine.returncode, mine.stdout.strip()) == (0, theirs.stdout.strip())

    created = unique("sec-new")
    mine = ours("kafka-topics", "--bootstrap-server", bootstrap, "--command-config", config,
                "--create", "--topic", created, "--partitions", "2")  # fmt: skip
    assert mine.returncode == 0, mine.stderr
    theirs = apache("kafka-topics", "--bootstrap-server", bootstrap, "--command-config", config, "--list")
    assert created in theirs.stdout.split()
    mine = ours("kafka-topics", "--bootstrap-server", bootstrap, "--command-config", config,
                "--delete", "--topic", created)  # fmt: skip
    assert mine.returncode == 0, mine.stderr


def test_a_reset_executes_over_scram_and_tls(cluster, apache, ours):
    topic, group = unique("sec-r"), unique("sec-rg")
    create_topic(cluster.bootstrap, topic, 2)
    produce_n(cluster.bootstrap, topic, {0: 10, 1: 10})
    commit_offsets(cluster.bootstrap, group, {(topic, 0): 10, (topic, 1): 10})
    bootstrap, config = cluster.bootstrap_for("SASL_SSL"), str(cluster.client_config("SASL_SSL", "admin"))
    done = ours("kafka-consumer-groups", "--bootstrap-server", bootstrap, "--command-config", config,
                "--reset-offsets", "--group", group, "--topic", topic,
                "--to-offset", "4", "--execute", "--timeout", TOOL_TIMEOUT_MS)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert committed(cluster.bootstrap, group) == {(topic, 0): 4, (topic, 1): 4}
    deleted = ours("kafka-consumer-groups", "--bootstrap-server", bootstrap, "--command-config", config,
                   "--delete-offsets", "--group", group, "--topic", topic,
                   "--timeout", TOOL_TIMEOUT_MS)  # fmt: skip
    assert deleted.returncode == 0, deleted.stderr
    theirs = apache("kafka-consumer-groups", "--bootstrap-server", bootstrap, "--command-config", config,
                    "--describe", "--group", group, "--timeout", TOOL_TIMEOUT_MS)  # fmt: skip
    assert topic not in theirs.stdout


def test_client_certificate_identity_in_pem_and_pkcs12(cluster, setup, ours, apache, tmp_path):
    """mTLS: the principal is the certificate's DN; the keystore may be PEM or PKCS12, the
    truststore PEM or PKCS12, as the Java client takes them."""
    topic, _ = setup
    material = cluster.material
    grant(cluster, "User:CN=alice", (ResourceType.TOPIC, topic, AclOperation.DESCRIBE))
    try:
        pem = config_file(tmp_path, (cluster.workdir / "clients" / "ssl-alice.properties").read_text(), "pem")
        pkcs12 = config_file(
            tmp_path,
            "security.protocol=SSL\n"
            f"ssl.keystore.type=PKCS12\nssl.keystore.location={material.path('alice.p12')}\n"
            f"ssl.keystore.password={material.store_password}\n"
            f"ssl.key.password={material.store_password}\n"
            f"ssl.truststore.type=PKCS12\nssl.truststore.location={material.path('truststore.p12')}\n"
            f"ssl.truststore.password={material.store_password}\n",
            "p12",
        )
        for config in (pem, pkcs12):
            mine, theirs = both(apache, ours, "kafka-topics", cluster.bootstrap_for("SSL"), config, "--list")
            assert mine.returncode == 0, mine.stderr
            assert _lines(mine.stdout) == _lines(theirs.stdout) == [topic]
            assert material.store_password not in mine.stdout + mine.stderr
    finally:
        revoke(cluster, "User:CN=alice")


def test_oauthbearer_unsecured_token(cluster, setup, ours, apache, tmp_path):
    """OAUTHBEARER with the Java client's unsecured login (a development broker): the principal
    is the token's subject, for ours (librdkafka and kafka-python) as for the Apache tool."""
    _, group = setup
    config = config_file(
        tmp_path,
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
        "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \\\n"
        '    unsecuredLoginStringClaim_sub="admin";\n',
    )
    bootstrap = cluster.bootstrap_for("SASL_PLAINTEXT")
    mine, theirs = both(
        apache, ours, "kafka-consumer-groups", bootstrap, config, "--describe", "--group", group
    )
    assert mine.returncode == 0, mine.stderr
    assert _lines(mine.stdout) == _lines(theirs.stdout)
    assert group in mine.stdout


def test_settings_from_the_environment_without_a_file(cluster, setup, ours):
    """CI can keep the JAAS line in a secret variable: KAFKA_CLIENT_<KEY> per property and
    KAFKA_BOOTSTRAP_SERVERS; a flag beats the environment."""
    topic, _ = setup
    material = cluster.material
    env = {
        "KAFKA_BOOTSTRAP_SERVERS": cluster.bootstrap_for("SASL_SSL"),
        "KAFKA_CLIENT_SECURITY_PROTOCOL": "SASL_SSL",
        "KAFKA_CLIENT_SASL_MECHANISM": "SCRAM-SHA-512",
        "KAFKA_CLIENT_SASL_JAAS_CONFIG": "org.apache.kafka.common.security.scram.ScramLoginModule required "
        f'username="admin" password="{material.passwords["admin"]}";',
        "KAFKA_CLIENT_SSL_TRUSTSTORE_LOCATION": material.ca,
    }
    listed = ours("kafka-topics", "--list", env=env)
    assert listed.returncode == 0, listed.stderr
    assert topic in listed.stdout.split()
    # The flag wins: with the environment naming a listener whose certificate is for another
    # host, the flag's address is the one used.
    env["KAFKA_BOOTSTRAP_SERVERS"] = cluster.bootstrap_for("BADHOST")
    assert ours("kafka-topics", "--list", env=env).returncode == 1
    flagged = ours("kafka-topics", "--bootstrap-server", cluster.bootstrap_for("SASL_SSL"), "--list", env=env)
    assert flagged.returncode == 0, flagged.stderr
    assert topic in flagged.stdout.split()


def test_tls_at_a_listener_without_tls_is_named(cluster, ours):
    result = ours("kafka-consumer-groups", "--bootstrap-server", cluster.bootstrap_for("SASL_PLAINTEXT"),
                  "--command-config", str(cluster.client_config("SASL_SSL", "alice")), "--list",
                  "--timeout", TOOL_TIMEOUT_MS)  # fmt: skip
    assert result.returncode == 1
    assert "the listener does not speak it" in result.stderr


# -- failures: one line naming the cause, without waiting out the timeout -----------------------------


def _one_error_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(("Error: ", "Error while executing topic command : ")), result.stderr
    return lines[0]


@pytest.mark.parametrize("tool", ["kafka-topics", "kafka-consumer-groups", "kafka-streams-groups"])
@pytest.mark.parametrize("listener", ["SASL_SSL", "SASL_PLAINTEXT"])
def test_wrong_password_is_one_line_and_fast(cluster, ours, apache, tmp_path, tool, listener):
    text = cluster.client_config(listener, "alice").read_text()
    wrong = config_file(tmp_path, text.replace(cluster.material.passwords["alice"], "not-the-password"))
    args = ["--list"] if tool != "kafka-consumer-groups" else ["--describe", "--group", "g"]
    began = time.monotonic()
    result = ours(tool, "--bootstrap-server", cluster.bootstrap_for(listener), "--command-config", wrong,
                  *timeout(tool), *args)  # fmt: skip
    assert time.monotonic() - began < 15
    assert result.returncode == 1
    line = _one_error_line(result)
    mechanism = "SCRAM-SHA-512" if listener == "SASL_SSL" else "PLAIN"
    assert f"authentication with SASL {mechanism} as alice failed" in line
    assert "not-the-password" not in result.stdout + result.stderr
    if tool == "kafka-topics":  # the Apache tool fails too (exit 1, as ours)
        theirs = apache(
            tool, "--bootstrap-server", cluster.bootstrap_for(listener), "--command-config", wrong, *args
        )
        assert theirs.returncode == 1
        assert "Authentication failed" in theirs.stdout + theirs.stderr


def test_unknown_ca_and_hostname_mismatch(cluster, ours, apache, tmp_path):
    material = cluster.material
    text = cluster.client_config("SASL_SSL", "alice").read_text()
    other_ca = config_file(tmp_path, text.replace(material.ca, material.path("other-ca.pem")), "other")
    result = ours("kafka-consumer-groups", "--bootstrap-server", cluster.bootstrap_for("SASL_SSL"),
                  "--command-config", other_ca, "--list", "--timeout", TOOL_TIMEOUT_MS)  # fmt: skip
    assert result.returncode == 1
    assert "is not signed by a CA in the truststore" in _one_error_line(result)

    badhost = cluster.bootstrap_for("BADHOST")
    result = ours("kafka-topics", "--bootstrap-server", badhost, "--command-config",
                  str(cluster.client_config("SASL_SSL", "alice")), "--list")  # fmt: skip
    assert result.returncode == 1
    assert "certificate is not valid for the host name 127.0.0.1" in _one_error_line(result)
    theirs = apache("kafka-topics", "--bootstrap-server", badhost, "--command-config",
                    str(cluster.client_config("SASL_SSL", "alice")), "--list")  # fmt: skip
    assert theirs.returncode == 1

    # With host name verification off, as in the Java client, the same listener is accepted.
    lax = config_file(tmp_path, text + "ssl.endpoint.identification.algorithm=\n", "lax")
    mine, theirs = both(apache, ours, "kafka-topics", badhost, lax, "--list")
    assert (mine.returncode, theirs.returncode) == (0, 0), mine.stderr
    assert _lines(mine.stdout) == _lines(theirs.stdout)


def test_a_jks_store_is_refused_with_the_conversion_command(cluster, ours, tmp_path):
    material = cluster.material
    jks = material.path("truststore.jks")
    config = config_file(
        tmp_path,
        "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
        f'username="alice" password="{material.passwords["alice"]}";\n'
        f"ssl.truststore.location={jks}\nssl.truststore.password={material.store_password}\n",
    )
    result = ours("kafka-topics", "--bootstrap-server", cluster.bootstrap_for("SASL_SSL"),
                  "--command-config", config, "--list")  # fmt: skip
    assert result.returncode == 2
    line = _one_error_line(result)
    assert f"keytool -importkeystore -srckeystore {jks} -srcstoretype JKS" in line
    assert "-deststoretype PKCS12" in line
    assert material.store_password not in result.stderr


def test_unsupported_security_keys_are_named_once(cluster, ours, tmp_path):
    text = cluster.client_config("SASL_SSL", "admin").read_text()
    config = config_file(tmp_path, text + "ssl.cipher.suites=TLS_AES_256_GCM_SHA384\nlinger.ms=5\n")
    result = ours("kafka-topics", "--bootstrap-server", cluster.bootstrap_for("SASL_SSL"),
                  "--command-config", config, "--list")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        "Warning: ignoring security settings the tools cannot apply: ssl.cipher.suites; "
        "unsupported client properties: linger.ms"
    ]


# -- ACLs ------------------------------------------------------------------------------------------


def test_missing_acls_are_named(cluster, ours, apache):
    """Each action names the ACL it lacks, one step at a time, until the reset goes through;
    the Apache tool is refused at the same steps."""
    topic, group = unique("acl-t"), unique("acl-g")
    create_topic(cluster.bootstrap, topic, 2)
    produce_n(cluster.bootstrap, topic, {0: 5, 1: 5})
    commit_offsets(cluster.bootstrap, group, {(topic, 0): 5, (topic, 1): 5})
    bootstrap, config = cluster.bootstrap_for("SASL_SSL"), str(cluster.client_config("SASL_SSL", "bob"))
    connection = ("--bootstrap-server", bootstrap, "--command-config", config)
    describe = ("--describe", "--group", group, "--timeout", TOOL_TIMEOUT_MS)
    execute = ("--reset-offsets", "--group", group, "--topic", topic, "--to-earliest",
               "--timeout", TOOL_TIMEOUT_MS, "--execute")  # fmt: skip
    dry_run = (*execute[:-1], "--dry-run")
    try:
        result = ours("kafka-consumer-groups", *connection, *describe)
        assert result.returncode == 1
        assert _one_error_line(result).endswith(
            f"not authorized: the principal needs DESCRIBE on group '{group}' (GROUP_AUTHORIZATION_FAILED)"
        )
        theirs = apache("kafka-consumer-groups", *connection, *describe)
        assert "GroupAuthorizationException" in theirs.stdout + theirs.stderr

        grant(cluster, "User:bob", (ResourceType.GROUP, group, AclOperation.DESCRIBE))
        result = ours("kafka-consumer-groups", *connection, *dry_run)
        assert result.returncode == 1
        assert f"needs DESCRIBE on topic '{topic}' (TOPIC_AUTHORIZATION_FAILED)" in _one_error_line(result)

        grant(cluster, "User:bob", (ResourceType.TOPIC, topic, AclOperation.DESCRIBE))
        assert ours("kafka-consumer-groups", *connection, *dry_run).returncode == 0
        result = ours("kafka-consumer-groups", *connection, *execute)
        assert result.returncode == 1
        assert f"needs READ on group '{group}' (GROUP_AUTHORIZATION_FAILED)" in result.stderr.splitlines()[-1]
        theirs = apache("kafka-consumer-groups", *connection, *execute)
        assert "GroupAuthorizationException" in theirs.stdout + theirs.stderr

        grant(cluster, "User:bob", (ResourceType.GROUP, group, AclOperation.READ))
        result = ours("kafka-consumer-groups", *connection, *execute)
        assert result.returncode == 1
        assert f"needs READ on topic '{topic}' (TOPIC_AUTHORIZATION_FAILED)" in result.stderr.splitlines()[-1]
        assert committed(cluster.bootstrap, group) == {(topic, 0): 5, (topic, 1): 5}

        grant(cluster, "User:bob", (ResourceType.TOPIC, topic, AclOperation.READ))
        result = ours("kafka-consumer-groups", *connection, *execute)
        assert result.returncode == 0, result.stderr
        assert committed(cluster.bootstrap, group) == {(topic, 0): 0, (topic, 1): 0}

        result = ours("kafka-consumer-groups", *connection, "--delete", "--group", group,
                      "--timeout", TOOL_TIMEOUT_MS)  # fmt: skip
        assert result.returncode == 1
        assert f"needs DELETE on group '{group}'" in result.stderr.splitlines()[-1]

        result = ours("kafka-topics", *connection, "--alter", "--topic", topic, "--partitions", "3")
        assert result.returncode == 1
        assert _one_error_line(result) == (
            f"Error while executing topic command : Topic authorization failed: "
            f"the principal needs ALTER on topic '{topic}'"
        )
        result = ours("kafka-topics", *connection, "--describe", "--topic", topic)
        assert result.returncode == 1
        assert f"needs DESCRIBE_CONFIGS on topic '{topic}'" in _one_error_line(result)
        result = ours("kafka-topics", *connection, "--create", "--topic", unique("bob-t"))
        assert result.returncode == 1
        assert "needs CREATE on topic" in _one_error_line(result)
    finally:
        revoke(cluster, "User:bob")


def test_a_reset_beyond_one_batch_names_the_permissions_of_its_transaction(cluster, ours, tmp_path):
    """A reset larger than one batch of __consumer_offsets (lowered to 20,000 bytes here) commits
    in a transaction, which takes WRITE on the TransactionalId ``kafka-group-tools-reset-<group>``
    (a PREFIXED ACL on ``kafka-group-tools-reset-`` covers every group) besides what every reset
    takes; reading the limit takes DESCRIBE_CONFIGS on the offsets topic. Without those, each step
    names what is missing, and --allow-non-atomic commits in steps with a journal instead."""
    from tests.large_commits import commit_in_slices, offsets_limit

    count = 400  # three parts of a transaction at 20,000 bytes
    bs = cluster.bootstrap
    with offsets_limit(bs, probe=count) as topic:
        produce_n(bs, topic, dict.fromkeys(range(count), 2))
        group = unique("acl-big")
        old = {(topic, p): 2 for p in range(count)}
        commit_in_slices(bs, group, old)
        connection = ("--bootstrap-server", cluster.bootstrap_for("SASL_SSL"),
                      "--command-config", str(cluster.client_config("SASL_SSL", "bob")))  # fmt: skip
        reset = ("--group", group, "--reset-offsets", "--topic", topic, "--to-earliest", "--execute",
                 "--timeout", TOOL_TIMEOUT_MS)  # fmt: skip
        backups = tmp_path / "backups"
        try:
            grant(cluster, "User:bob", (ResourceType.GROUP, group, AclOperation.DESCRIBE),
                  (ResourceType.GROUP, group, AclOperation.READ),
                  (ResourceType.TOPIC, topic, AclOperation.DESCRIBE),
                  (ResourceType.TOPIC, topic, AclOperation.READ))  # fmt: skip
            # The limit cannot be read: the default is assumed, one commit is tried and refused whole.
            result = ours("kafka-consumer-groups", *connection, *reset, "--backup-dir", str(backups / "1"))
            assert result.returncode == 1
            last = result.stderr.splitlines()[-1]
            assert "not applied, nothing changed" in last and "UNKNOWN" in last.upper()
            assert "DESCRIBE_CONFIGS on topic '__consumer_offsets'" in last
            assert committed(bs, group) == old

            # The limit read: refused before anything is written, backup included.
            grant(
                cluster, "User:bob", (ResourceType.TOPIC, "__consumer_offsets", AclOperation.DESCRIBE_CONFIGS)
            )
            # (After the line naming the cluster: starting the transaction's producer ends one that
            # an earlier run of the group left open, a change said and confirmed as every write.)
            result = ours("kafka-consumer-groups", *connection, *reset, "--backup-dir", str(backups / "2"))
            assert result.returncode == 1
            target, line = result.stderr.splitlines()
            assert target.startswith("Writing to the cluster at ")
            assert line.startswith(
                f"Error: nothing was reset: group '{group}' commits 400 partitions, more than"
            )
            assert f"needs WRITE on TransactionalId 'kafka-group-tools-reset-{group}'" in line
            assert "--allow-non-atomic" in line
            assert not (backups / "2").exists()

            # --allow-non-atomic: steps, each journaled; the undo takes the flag too.
            result = ours("kafka-consumer-groups", *connection, *reset, "--allow-non-atomic",
                          "--backup-dir", str(backups / "3"))  # fmt: skip
            assert result.returncode == 0, result.stderr
            assert (
                "steps, not atomically (--allow-non-atomic; the cluster refused the transaction"
                in result.stderr
            )
            [journal] = (backups / "3").glob("*.journal.csv")
            assert sorted(journal.read_text().splitlines()) == sorted(
                f"{group},{topic},{p},0" for p in range(count)
            )
            assert committed(bs, group) == dict.fromkeys(old, 0)
            undo = re.search(r"^Undo: (.*)$", result.stderr, re.M)
            assert undo and "--execute --allow-non-atomic --backup-dir " in undo[1], result.stderr
            assert undo[1].count("--allow-non-atomic") == 1
            restored = ours(*shlex.split(undo[1]), "--timeout", TOOL_TIMEOUT_MS)
            assert restored.returncode == 0, restored.stderr
            assert committed(bs, group) == old

            # WRITE on the transactional ids of the tools (PREFIXED): one transaction.
            admin = AdminClient({"bootstrap.servers": bs})
            prefixed = AclBinding(ResourceType.TRANSACTIONAL_ID, "kafka-group-tools-reset-",
                                  ResourcePatternType.PREFIXED, "User:bob", "*", AclOperation.WRITE,
                                  AclPermissionType.ALLOW)  # fmt: skip
            for future in admin.create_acls([prefixed]).values():
                future.result()
            wait_until(lambda: prefixed in _acls_of(admin, "User:bob"), "the ACL applies")
            result = ours("kafka-consumer-groups", *connection, *reset, "--backup-dir", str(backups / "4"))
            assert result.returncode == 0, result.stderr
            assert "was committed in one transaction of" in result.stderr
            assert committed(bs, group) == dict.fromkeys(old, 0)
        finally:
            revoke(cluster, "User:bob")


def test_the_pipeline_lands_over_scram_and_tls(cluster, ours, tmp_path):
    """kafka-to-parquet: our clients and Spark's Java Kafka source both take the properties file."""
    pytest.importorskip("pyspark")
    import subprocess

    topic, group = unique("sec-land"), unique("sec-land-g")
    create_topic(cluster.bootstrap, topic, 2)
    produce_n(cluster.bootstrap, topic, {0: 7, 1: 5})
    bootstrap, config = cluster.bootstrap_for("SASL_SSL"), str(cluster.client_config("SASL_SSL", "admin"))
    out = tmp_path / "sink"
    run = subprocess.run(
        [sys.executable, "-m", "kafka_pipeline.cli",
         "--bootstrap-server", bootstrap, "--command-config", config,
         "--topic", topic, "--group", group, "--output", str(out), "--master", "local[1]"],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert committed(cluster.bootstrap, group) == {(topic, 0): 7, (topic, 1): 5}
    assert cluster.material.passwords["admin"] not in run.stdout + run.stderr
    described = ours("kafka-consumer-groups", "--bootstrap-server", bootstrap, "--command-config", config,
                     "--describe", "--group", group, "--timeout", TOOL_TIMEOUT_MS)  # fmt: skip
    assert described.returncode == 0, described.stderr
    assert sorted(p.name for p in out.glob(f"topic={topic}/partition=*")) == ["partition=0", "partition=1"]
    assert [line.split()[5] for line in _lines(described.stdout)[1:]] == ["0", "0"]


# -- secrets ---------------------------------------------------------------------------------------

COMMANDS = [
    ("kafka-topics", "--list"),
    ("kafka-topics", "--describe", "--topic", "__consumer_offsets"),
    ("kafka-consumer-groups", "--list"),
    ("kafka-consumer-groups", "--describe", "--all-groups"),
    ("kafka-streams-groups", "--list"),
]


@pytest.mark.parametrize("listener", ["SASL_SSL", "SASL_PLAINTEXT"])
def test_debug_output_holds_no_secret(cluster, ours, tmp_path, listener):
    """Right and wrong credentials, every tool, --debug: the password and the JAAS line never
    appear, while the --debug output does show the (redacted) client configuration."""
    right_text = cluster.client_config(listener, "admin").read_text()
    password = cluster.material.passwords["admin"]
    wrong_password = "Wr0ng-" + password[::-1]
    configs = {
        "right": config_file(tmp_path, right_text, "right"),
        "wrong": config_file(tmp_path, right_text.replace(password, wrong_password), "wrong"),
    }
    jaas = next(line for line in right_text.splitlines() if line.startswith("sasl.jaas.config="))
    secrets = (password, wrong_password, jaas.split("=", 1)[1], f'password="{password}"')
    for which, config in configs.items():
        for tool, *args in COMMANDS:
            result = ours(tool, "--bootstrap-server", cluster.bootstrap_for(listener),
                          "--command-config", config,
                          *args, "--debug", *timeout(tool))  # fmt: skip
            output = result.stdout + result.stderr
            assert result.returncode == (0 if which == "right" else 1), (tool, args, result.stderr[-2000:])
            # The configuration of whichever client logged in first: librdkafka's or the protocol layer's.
            assert re.search(r'"(sasl\.password|sasl_plain_password)": "\[hidden\]"', output), (tool, args)
            for secret in secrets:
                assert secret not in output, (which, tool, args)
