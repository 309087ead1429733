"""Real Apache Kafka for tests and side-by-side comparisons, from the jars on Maven Central.

Fetches the jars with Maven, runs KRaft brokers (combined broker+controller nodes) on 127.0.0.1 as
detached JVMs, and runs the Apache CLI tools (kafka-consumer-groups.sh & co.) from the same release.
Brokers of the older lines (2.1 to 3.8, LEGACY_LINES in infra/jars.py) start too, beside the pinned
release's tools: the lines before 3.3 on a ZooKeeper server from the broker's own jars.
Standard library only; needs `java` (17+) and `mvn` on PATH. Everything lives under the git-ignored
`.cache/` of the checkout: jars in `.cache/kafka/<version>/libs/`, clusters in `.cache/run/`.

Library use::

    from infra import kafka

    with kafka.start() as cluster:                # single-node Kafka, the pinned release
        kafka.run_apache("kafka-topics", ["--bootstrap-server", cluster.bootstrap, "--list"])

    cluster = kafka.start(nodes=3)                 # three nodes, replication factor 3 for internal topics
    cluster.stop_node(2); cluster.start_node(2); cluster.stop()

Command line::

    python -m infra.kafka fetch [--version V]
    python -m infra.kafka fetch-spark [--version V]                                  # stdout: the jars dir
    python -m infra.kafka produce --bootstrap-server B --topic T --records N [--partitions P]
    python -m infra.kafka start [--nodes N] [--version V] [--workdir D] [--secure]   # stdout: the bootstrap
    python -m infra.kafka stop [--workdir D | --version V --nodes N | --all] [--keep-logs]
    python -m infra.kafka status [--workdir D | --version V --nodes N]
    python -m infra.kafka apache [--kafka-version V] TOOL [ARGS...]

The pinned release (KAFKA_VERSION, infra/pom.xml) is the newest whose broker, tools and Streams jars
are all on Maven Central. `start --version 2.8.2` (or 2.1.x, 3.0.x, 3.3.x, 3.6.x, 3.7.x, 3.8.x) starts an
older broker from infra/pom-legacy.xml. A 4.4.0 broker can be started too: Maven Central has only its broker
modules so far, so its Apache tools come from 4.3.1 (see TOOLS_FROM in infra/jars.py and
infra/pom-4.4.xml).

This module is the command line, and imports the rest from infra/jars.py (releases, jars, Maven, the
JVM), infra/apache.py (the Apache tools and ApacheRunner), infra/nodes.py (a node's ports, properties,
process and readiness timeout), infra/cluster.py (Cluster) and infra/launch.py (start, produce). Import
them from here (`from infra import kafka`); patch a name where it is defined, in those modules.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from infra import cds, security
from infra.apache import TOOL_CLASSES, ApacheRunner, apache_command, main_class, run_apache
from infra.apache import compiled_classes as compiled_classes
from infra.cluster import STATE_FILE, Cluster
from infra.jars import (
    COMPAT_LINES,
    COMPAT_VERSION,
    JVM_OPTS_ENV,
    KAFKA_VERSION,
    KafkaInfraError,
    ensure_jars,
    ensure_spark_jars,
    ensure_tool_jars,
    extra_jvm_opts,
    tools_version,
)
from infra.jars import REPO_ROOT as REPO_ROOT
from infra.jars import RUN_DIR as RUN_DIR
from infra.jars import _java as _java
from infra.jars import _log_config_opt as _log_config_opt
from infra.launch import default_workdir, produce, start
from infra.nodes import READY_TIMEOUT_ENV as READY_TIMEOUT_ENV
from infra.nodes import READY_TIMEOUT_S as READY_TIMEOUT_S
from infra.nodes import Node, _kill_strays
from infra.nodes import ready_timeout as ready_timeout

__all__ = [
    "COMPAT_LINES",
    "COMPAT_VERSION",
    "JVM_OPTS_ENV",
    "KAFKA_VERSION",
    "ApacheRunner",
    "Cluster",
    "KafkaInfraError",
    "Node",
    "apache_command",
    "default_workdir",
    "ensure_jars",
    "ensure_spark_jars",
    "ensure_tool_jars",
    "extra_jvm_opts",
    "main_class",
    "produce",
    "run_apache",
    "start",
    "tools_version",
]

log = logging.getLogger("infra.kafka")


# --------------------------------------------------------------------------------------------------
# Command line


def _workdir_arg(args: argparse.Namespace) -> Path:
    if args.workdir is not None:
        return Path(args.workdir).resolve()
    return default_workdir(args.version, args.nodes)


def _cmd_fetch(args: argparse.Namespace) -> int:
    for version in dict.fromkeys([args.version, tools_version(args.version)]):
        print(ensure_jars(version))
    return 0


def _cmd_fetch_spark(args: argparse.Namespace) -> int:
    print(ensure_spark_jars(args.version))
    return 0


def _cmd_cds(args: argparse.Namespace) -> int:
    from concurrent.futures import ThreadPoolExecutor

    # Side by side: the broker's and the Spark job's JVMs are separate processes.
    with ThreadPoolExecutor(2) as pool:
        broker = pool.submit(cds.build_broker_archive, args.version, args.force)
        spark = pool.submit(cds.build_spark_archive, args.force) if args.spark else None
        archive = broker.result()
        print(archive if archive is not None else f"no archive for {args.version} (a ZooKeeper line)")
        if spark is not None:
            print(spark.result())
    return 0


def _cmd_produce(args: argparse.Namespace) -> int:
    counts = produce(args.bootstrap_server, args.topic, args.records, args.partitions)
    spread = ", ".join(f"{p}: {n}" for p, n in counts.items())
    log.info("%d records to %s (per partition %s)", args.records, args.topic, spread)
    return 0


def _cmd_start(args: argparse.Namespace) -> int:
    cluster = start(
        nodes=args.nodes, version=args.version, workdir=args.workdir, timeout=args.timeout, secure=args.secure
    )
    if cluster.secure:
        for name in security.LISTENERS:
            print(f"{name} {cluster.bootstrap_for(name)}", file=sys.stderr)
        print(f"client configs in {cluster.workdir / security.CLIENTS_DIR}", file=sys.stderr)
    print(cluster.bootstrap)
    return 0


def _cmd_stop(args: argparse.Namespace) -> int:
    if args.all:
        workdirs = sorted(p for p in RUN_DIR.iterdir() if p.is_dir()) if RUN_DIR.is_dir() else []
    else:
        workdirs = [_workdir_arg(args)]
    for workdir in workdirs:
        if (workdir / STATE_FILE).exists():
            log.info("stopping the Kafka cluster in %s", workdir)
            Cluster.load(workdir).stop(keep_logs=args.keep_logs)
        elif workdir.exists():  # a start that died before writing its state
            _kill_strays(workdir)
            if not args.keep_logs:
                shutil.rmtree(workdir, ignore_errors=True)
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    explicit = args.workdir is not None or args.version is not None or args.nodes is not None
    if explicit:
        args.version = args.version or KAFKA_VERSION
        args.nodes = args.nodes or 1
        workdirs = [_workdir_arg(args)]
    else:
        workdirs = sorted(p.parent for p in RUN_DIR.glob(f"*/{STATE_FILE}"))
        if not workdirs:
            print("no Kafka clusters")
    all_running = True
    for workdir in workdirs:
        try:
            cluster = Cluster.load(workdir)
        except KafkaInfraError as err:
            print(err)
            all_running = False
            continue
        running = cluster.is_running()
        all_running &= running
        state = "running" if running else "NOT fully running"
        print(f"{workdir}: Kafka {cluster.version}, {cluster.nodes} node(s), {state}")
        print(f"  bootstrap {cluster.bootstrap}")
        if cluster.zookeeper is not None:
            print(f"  zookeeper {cluster.zookeeper.connect}, pid {cluster.zookeeper.pid}")
        for node in cluster.node_list:
            alive = "running" if cluster.is_running(node.node_id) else "stopped"
            print(
                f"  node {node.node_id}: {alive}, pid {node.pid}, broker {node.bootstrap}, "
                f"controller 127.0.0.1:{node.controller_port}"
            )
    return 0 if all_running or not explicit else 1


def _cmd_apache(args: argparse.Namespace) -> int:
    cmd = apache_command(args.tool, args.args, args.kafka_version)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(cmd[0], cmd)  # the tool's stdout, stderr and exit code are ours


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m infra.kafka", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    fetch = sub.add_parser("fetch", help="copy the Kafka jars into .cache/kafka (Maven)")
    fetch.add_argument("--version", default=KAFKA_VERSION)
    fetch.set_defaults(func=_cmd_fetch)

    fetch_spark = sub.add_parser(
        "fetch-spark", help="copy Spark's Kafka source jars into .cache/spark (Maven); prints the dir"
    )
    fetch_spark.add_argument("--version", help="Spark version (default: the installed pyspark's)")
    fetch_spark.set_defaults(func=_cmd_fetch_spark)

    cds_ = sub.add_parser(
        "cds",
        help="make the class-data sharing archives of a release's brokers and of pyspark's driver JVM"
        " (once; infra/cds.py)",
    )
    cds_.add_argument("--version", default=KAFKA_VERSION)
    cds_.add_argument("--force", action="store_true", help="make them again even if current")
    cds_.add_argument(
        "--no-spark", dest="spark", action="store_false", help="only the broker's (not pyspark's driver's)"
    )
    cds_.set_defaults(func=_cmd_cds)

    produce_ = sub.add_parser("produce", help="write N small JSON records to a topic (created if missing)")
    produce_.add_argument("--bootstrap-server", required=True)
    produce_.add_argument("--topic", required=True)
    produce_.add_argument("--records", type=int, required=True)
    produce_.add_argument("--partitions", type=int, help="for a new topic (default 1); checked otherwise")
    produce_.set_defaults(func=_cmd_produce)

    start_ = sub.add_parser("start", help="start a fresh cluster; prints its bootstrap address")
    start_.add_argument("--nodes", type=int, default=1)
    start_.add_argument("--version", default=KAFKA_VERSION)
    start_.add_argument("--workdir", help="default: .cache/run/kafka-<version>-<nodes>n")
    start_.add_argument(
        "--timeout",
        type=float,
        default=None,
        help=f"seconds to wait for readiness (default ${READY_TIMEOUT_ENV}, else {READY_TIMEOUT_S:.0f})",
    )
    start_.add_argument(
        "--secure", action="store_true", help="add SASL/TLS listeners, users and ACL enforcement"
    )
    start_.set_defaults(func=_cmd_start)

    stop = sub.add_parser("stop", help="stop a cluster and delete its data")
    stop.add_argument("--workdir")
    stop.add_argument("--version", default=KAFKA_VERSION)
    stop.add_argument("--nodes", type=int, default=1)
    stop.add_argument("--all", action="store_true", help="every cluster under .cache/run")
    stop.add_argument("--keep-logs", action="store_true", help="delete only the data, keep the node logs")
    stop.set_defaults(func=_cmd_stop)

    status = sub.add_parser("status", help="show clusters (exit 1 if the named one is not fully running)")
    status.add_argument("--workdir")
    status.add_argument("--version")
    status.add_argument("--nodes", type=int)
    status.set_defaults(func=_cmd_status)

    apache = sub.add_parser("apache", help="run an Apache Kafka CLI tool, e.g. kafka-consumer-groups")
    apache.add_argument("--kafka-version", default=KAFKA_VERSION, help="broker version the tool is for")
    apache.add_argument("tool", help=f"one of: {', '.join(sorted(TOOL_CLASSES))} (or a main class)")
    apache.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the tool")
    apache.set_defaults(func=_cmd_apache)
    return parser


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds like Ctrl-C, so a half-started cluster is killed


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="infra.kafka: %(message)s", stream=sys.stderr)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    args = _parser().parse_args(argv)
    try:
        result: int = args.func(args)
    except KafkaInfraError as err:
        print(f"infra.kafka: error: {err}", file=sys.stderr)
        return 1
    return result


if __name__ == "__main__":
    sys.exit(main())
