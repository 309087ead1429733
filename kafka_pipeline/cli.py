"""``kafka-to-parquet``: land Kafka topics in Parquet, with progress kept in a consumer group."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer

from kafka_groups.cli.runner import run_tool

PROG = "kafka-to-parquet"
PIPELINE_TIMEOUT_MS = 30_000  # --timeout's default where neither the cluster nor the environment sets one

app = typer.Typer(add_completion=False, context_settings={"help_option_names": ["-h", "--help"]})


@app.command()
def main_command(
    topic: Annotated[list[str], typer.Option("--topic", help="A topic to land (repeat for several).")],
    group: Annotated[str, typer.Option("--group", help="The consumer group that keeps the progress.")],
    output: Annotated[
        str, typer.Option("--output", help="The output path (any Hadoop path: /dir, file:, hdfs:).")
    ],
    bootstrap_server: Annotated[
        str | None,
        typer.Option("--bootstrap-server", help="The Kafka cluster (or KAFKA_BOOTSTRAP_SERVERS)."),
    ] = None,
    policy: Annotated[
        str,
        typer.Option(
            "--policy",
            help="Where partitions without a committed offset start: earliest, latest, to_start_time, "
            "by_duration:<ISO-8601>, earliest_on_start, latest_on_start or none.",
        ),
    ] = "earliest",
    max_age: Annotated[
        str | None,
        typer.Option(
            "--max-age",
            help="With --policy latest: partitions younger than this (e.g. PT10M) start at their "
            "earliest offset.",
        ),
    ] = None,
    invalid: Annotated[
        str,
        typer.Option(
            "--invalid",
            help="For a committed offset outside the log: same, nearest, earliest, latest or none.",
        ),
    ] = "same",
    master: Annotated[
        str | None,
        typer.Option(
            "--master", help="The Spark master (default local[*]; spark-submit's own when submitted)."
        ),
    ] = None,
    jars: Annotated[
        str | None,
        typer.Option(
            "--jars",
            help="Spark's Kafka source as local jars: a directory or a comma-separated list (or "
            "KAFKA_TO_PARQUET_JARS; default: the jars scripts/setup fetched into .cache/spark/).",
        ),
    ] = None,
    packages: Annotated[
        str | None,
        typer.Option(
            "--packages",
            help="Have Spark resolve its Kafka source from Maven instead (spark.jars.packages), e.g. "
            "org.apache.spark:spark-sql-kafka-0-10_2.13:4.0.0.",
        ),
    ] = None,
    conf: Annotated[
        list[str] | None,
        typer.Option(
            "--conf",
            help="A Spark setting KEY=VALUE, as for spark-submit (repeat), e.g. spark.executor.memory=2g.",
        ),
    ] = None,
    command_config: Annotated[
        str | None, typer.Option("--command-config", help="Java client properties, as for the Apache tools.")
    ] = None,
    every: Annotated[
        float | None,
        typer.Option(
            "--every",
            metavar="SECONDS",
            help="Run as a service: a landing every SECONDS on one Spark session, until SIGTERM or "
            "Ctrl-C (which stop after the landing in progress); a line per landing on a terminal, "
            "JSON Lines when piped.",
        ),
    ] = None,
    max_records: Annotated[
        int | None,
        typer.Option(
            "--max-records",
            metavar="N",
            help="Land at most N offsets per run, spread over the partitions in proportion to their "
            "backlog (as Spark's maxOffsetsPerTrigger); the next run goes on from there.",
        ),
    ] = None,
    min_partitions: Annotated[
        int | None,
        typer.Option(
            "--min-partitions",
            metavar="N",
            help="Read with about N Spark tasks, splitting large Kafka partitions (Spark's minPartitions).",
        ),
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster",
            help="A cluster named in clusters.toml (its servers, properties and timeout; or set "
            "KAFKA_TOOLS_CLUSTER). --bootstrap-server and --command-config given too win over it.",
        ),
    ] = None,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            help="Commit to a cluster marked protected in clusters.toml without being asked "
            "(required where there is no terminal to ask on).",
        ),
    ] = False,
    timeout: Annotated[
        int | None,
        typer.Option(
            "--timeout",
            help="Kafka request timeout, ms (default: the cluster's timeout, KAFKA_TOOLS_TIMEOUT_MS, "
            "or 30000).",
            show_default=False,
        ),
    ] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Tracebacks and client logs.")] = False,
) -> None:
    """Land new records of the topics in Parquet: from the group's committed offsets (or where the
    policy says) to the current end, then commit. `kafka-consumer-groups --describe --group G`
    shows the lag; `--reset-offsets ... --execute` makes the next run land from there again.

    Example: kafka-to-parquet --bootstrap-server localhost:9092 --topic orders --group orders-landing
    --output /data/orders [--every 60] [--max-records 5000000]
    """
    import gc

    from kafka_groups.commands.target import refuse_unconfirmable
    from kafka_groups.core.policy import Policy
    from kafka_groups.settings import resolve_settings
    from kafka_pipeline.job import LandingRequest
    from kafka_pipeline.service import check_bounds, check_every, run_every, run_once, warn_policy
    from kafka_pipeline.session import (
        SparkLaunch,
        installed_spark_version,
        parse_conf,
        resolve_source,
        under_spark_submit,
    )

    check_every(every)
    check_bounds(max_records, min_partitions)
    parsed = Policy.parse(policy, invalid, max_age)
    source = resolve_source(jars, packages, installed_spark_version(), under_spark_submit())
    launch = SparkLaunch(master, source, parse_conf(conf or []), debug)
    settings = resolve_settings(
        bootstrap_server, command_config, timeout, debug, default_timeout_ms=PIPELINE_TIMEOUT_MS,
        cluster=cluster, assume_yes=yes,
    )  # fmt: skip
    # A protected cluster with no terminal to confirm on and no --yes: refused before anything
    # is contacted (the cluster line and the confirmation come before the first commit).
    refuse_unconfirmable(settings)
    request = LandingRequest(
        settings, tuple(dict.fromkeys(topic)), group, parsed, output, max_records, min_partitions
    )
    if every is None:
        status = run_once(request, launch)
    else:
        gc.enable()  # the tools run without the cyclic collector; a service runs for days
        warn_policy(parsed)
        status = run_every(request, launch, every)
    if status:
        raise typer.Exit(status)


def load_app() -> Any:
    return app


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["--help"], ["-h"]):
        # The tools' own flag help has no page for this command: Typer's is its help.
        typer.main.get_command(app).main(args=args, prog_name=PROG, standalone_mode=False)
        sys.exit(0)
    # A landing is not under the write discipline (its progress survives a stop at any point):
    # SIGINT and SIGTERM keep Python's own handling (the service installs its own stop handlers).
    sys.exit(run_tool(PROG, args, (), lambda a: tuple(a), load_app, signals=False))


if __name__ == "__main__":
    main()
