"""Side-by-side on a secured broker: our command and the pinned Apache tool given the same
--command-config file (SASL_SSL with SCRAM-SHA-512, and mTLS), alternately, in the same run.

    python -m bench.secure [--runs 7] [--workdir .cache/run/secure-dev]

Starts a secure broker (infra/security.py) unless --workdir names a running one; results replace
their sections in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cases import Case  # noqa: E402
from bench.run import run_case, section, write_results  # noqa: E402
from infra import kafka as local_kafka  # noqa: E402
from tests.kafka_helpers import commit_offsets, create_topic, produce_n  # noqa: E402

TOPIC, GROUP = "bench-secure-t", "bench-secure-g"


def _setup(admin_bootstrap: str) -> None:
    from confluent_kafka.admin import AdminClient

    if TOPIC in AdminClient({"bootstrap.servers": admin_bootstrap}).list_topics(timeout=10).topics:
        return  # a reused cluster set up by an earlier run
    create_topic(admin_bootstrap, TOPIC, 10)
    produce_n(admin_bootstrap, TOPIC, dict.fromkeys(range(10), 100))
    commit_offsets(admin_bootstrap, GROUP, {(TOPIC, p): 50 for p in range(10)})


def cases(cluster: local_kafka.Cluster) -> list[Case]:
    out = []
    for listener, user in (("SASL_SSL", "admin"), ("SSL", "alice")):
        config = str(cluster.client_config(listener, user))
        bootstrap = cluster.bootstrap_for(listener)
        prefix = ["--bootstrap-server", bootstrap, "--command-config", config]
        name = listener.lower().replace("_", "-")
        out.append(
            Case(
                f"secure-{name}-describe-group-10p",
                f"`--describe --group` (10 partitions) over {listener}, the Apache tool's properties file",
                lambda _b: None,
                "kafka-consumer-groups",
                lambda _b, p=prefix: [*p, "--describe", "--group", GROUP],
            )
        )
        out.append(
            Case(
                f"secure-{name}-topics-describe",
                f"`kafka-topics --describe --topic` (10 partitions) over {listener}",
                lambda _b: None,
                "kafka-topics",
                lambda _b, p=prefix: [*p, "--describe", "--topic", TOPIC],
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--workdir", help="a running secure cluster (python -m infra.kafka start --secure)")
    args = parser.parse_args()
    started = args.workdir is None
    if started:
        cluster = local_kafka.start(workdir=local_kafka.RUN_DIR / "bench-secure", secure=True)
    else:
        cluster = local_kafka.Cluster.load(args.workdir)
    try:
        _setup(cluster.bootstrap)
        # mTLS identity (User:CN=alice) may describe the group and topic.
        from confluent_kafka.admin import (
            AclBinding,
            AclOperation,
            AclPermissionType,
            AdminClient,
            ResourcePatternType,
            ResourceType,
        )

        acls = [
            AclBinding(r, n, ResourcePatternType.LITERAL, "User:CN=alice", "*", op, AclPermissionType.ALLOW)
            for r, n, op in (
                (ResourceType.GROUP, GROUP, AclOperation.DESCRIBE),
                (ResourceType.TOPIC, TOPIC, AclOperation.DESCRIBE),
                (ResourceType.TOPIC, TOPIC, AclOperation.DESCRIBE_CONFIGS),
            )
        ]
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        for future in admin.create_acls(acls).values():
            future.result()
        sections = {}
        for case in cases(cluster):
            samples = run_case(case, cluster.bootstrap, args.runs)
            sections[case.name] = section(case, samples, args.runs)
            print(sections[case.name])
        write_results(sections)
    finally:
        if started:
            cluster.stop()


if __name__ == "__main__":
    main()
