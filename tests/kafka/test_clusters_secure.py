"""Named clusters on the secured broker: `clusters show` masks every secret (a referenced one is
never read), and a cluster whose credentials come from the environment, a file or the clusters file
itself logs in with none of them printed, --debug included. (A module of its own: it shares the
secured session cluster with test_security.py.)"""

from __future__ import annotations

import re

import pytest

from tests.kafka.test_clusters import clusters_env, table

pytestmark = pytest.mark.kafka


def test_secrets_are_masked_by_show_and_never_printed_with_debug(secure_cluster, ours, tmp_path):
    listener = "SASL_PLAINTEXT"
    properties = dict(
        line.split("=", 1)
        for line in secure_cluster.client_config(listener, "admin").read_text().splitlines()
        if "=" in line and not line.startswith("#")
    )
    password = secure_cluster.material.passwords["admin"]
    jaas = properties.pop("sasl.jaas.config")
    properties.pop("bootstrap.servers", None)
    jaas_file = tmp_path / "jaas"
    jaas_file.write_text(jaas + "\n")
    inline = "".join(f'"{k}" = "{v}"\n' for k, v in properties.items())
    bootstrap = secure_cluster.bootstrap_for(listener)
    env = clusters_env(
        tmp_path,
        table("by-env", bootstrap, timeout=20000)
        + f'[clusters.by-env.properties]\n{inline}"sasl.jaas.config" = {{ env = "CL_TEST_JAAS" }}\n\n'
        + table("by-file", bootstrap, timeout=20000)
        + f'[clusters.by-file.properties]\n{inline}"sasl.jaas.config" = {{ file = "{jaas_file}" }}\n\n'
        + table("inline", bootstrap, timeout=20000)
        + f"[clusters.inline.properties]\n{inline}\"sasl.jaas.config\" = '{jaas}'\n"
        + '"sasl.oauthbearer.token.endpoint.url" = "https://op:hunter2-xyz@idp.example/token"\n',
    ) | {"CL_TEST_JAAS": jaas}
    for name in ("by-env", "by-file", "inline"):
        shown = ours("kafka-consumer-groups", "clusters", "show", name, env=env)
        assert shown.returncode == 0, shown.stderr
        assert "sasl.jaas.config = [hidden]" in shown.stdout
        for output in (shown.stdout, shown.stderr):
            assert password not in output and "hunter2" not in output
        listed = ours("kafka-consumer-groups", "--cluster", name, "--list", "--debug", env=env)
        assert listed.returncode == 0, listed.stderr[-2000:]
        assert re.search(r'"(sasl\.password|sasl_plain_password)": "\[hidden\]"', listed.stderr), name
        for output in (listed.stdout, listed.stderr):
            assert password not in output and jaas not in output
    checked = ours("kafka-consumer-groups", "clusters", "check", "-o", "json", env=env)
    assert checked.returncode == 0, checked.stderr
    assert password not in checked.stdout + checked.stderr
