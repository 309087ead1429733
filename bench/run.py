"""Side-by-side benchmarks: our command and the pinned Apache tool, same broker, same run.

Each case prepares cluster state once, then runs the commands alternately (ours, Apache, the
floor, ...) several times, and reports median wall time, median CPU time, peak RSS and the
ratios ours/floor and ours/Apache. The floor is what no Python tool built on confluent-kafka
can go under: ``python -c "import confluent_kafka"`` with the same interpreter, measured in
every case beside ours; a second reference adds kafka-python's protocol layer, which the
commands that read committed offsets or list groups load. Ours runs this checkout's code
(compiled first), whatever the environment has installed. Results replace the case's section
in bench/RESULTS.md.

    python -m bench.run                      # every case, on a broker it starts itself
    python -m bench.run --case list-groups-100 --runs 9
    python -m bench.run --bootstrap 127.0.0.1:9092   # an already running broker
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from infra import kafka as local_kafka  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"


@dataclass(frozen=True)
class Case:
    name: str
    description: str
    setup: Callable[[str], None]
    tool: str
    args: Callable[[str], list[str]]
    # Ours only (no peer has the command): then measured beside this command of ours instead
    # of the Apache tool's (the plain describe the new view adds to).
    baseline: Callable[[str], list[str]] | None = None
    # Exit codes that count as a run that did its work (the Apache tools' --help exits 1).
    apache_exits: tuple[int, ...] = (0,)


@dataclass(frozen=True)
class Sample:
    wall_s: float
    max_rss_kb: int
    exit_code: int
    cpu_s: float = 0.0


FLOORS = {
    "floor": 'python -c "import confluent_kafka"',
    "floor+protocol": 'python -c "import confluent_kafka, kafka.admin"',
}
FLOOR_CODE = {"floor": "import confluent_kafka", "floor+protocol": "import confluent_kafka, kafka.admin"}


def our_env() -> dict[str, str]:
    """This checkout's code first on the path (the console scripts then import it, not an
    installed copy), with output as a script sees it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("KAFKA_TOOLS_OUTPUT", None)
    return env


def compile_sources() -> None:
    """Bytecode for this checkout, as scripts/setup leaves it: no run compiles at start-up."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "kafka_groups", "kafka_topics"],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def our_command(tool: str) -> list[str]:
    script = Path(sys.executable).parent / tool
    if script.exists():
        return [str(script)]
    found = shutil.which(tool)
    if found:
        return [found]
    module = {
        "kafka-consumer-groups": "kafka_groups.cli.consumer_groups",
        "kafka-streams-groups": "kafka_groups.cli.streams_groups",
        "kafka-topics": "kafka_topics.cli",
    }[tool]
    return [sys.executable, "-m", module]


def measure(argv: list[str], env: dict[str, str] | None = None) -> Sample:
    """Wall time, CPU time and the peak RSS of exactly this child (os.wait4 gives its own
    rusage). CPU time (user + system) moves less than wall time on a busy machine."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Sample(wall, usage.ru_maxrss, proc.returncode, usage.ru_utime + usage.ru_stime)


# -- cases ------------------------------------------------------------------------------
def _setup_groups(count: int) -> Callable[[str], None]:
    def setup(bootstrap: str) -> None:
        from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient({"bootstrap.servers": bootstrap})
        topic = f"bench-groups-{count}"
        created = admin.create_topics([NewTopic(topic, 1, 1)])
        try:
            created[topic].result(30)
        except Exception as exc:  # an earlier run made it already
            if "TOPIC_ALREADY_EXISTS" not in str(exc):
                raise
        time.sleep(1)
        # One group per request (the client's limit); send them all, then wait for all.
        futures = [
            admin.alter_consumer_group_offsets(
                [ConsumerGroupTopicPartitions(f"bench-group-{i:05d}", [TopicPartition(topic, 0, 0)])],
                request_timeout=60,
            )
            for i in range(count)
        ]
        for batch in futures:
            for future in batch.values():
                future.result(60)

    return setup


def _setup_active_group(bootstrap: str) -> None:
    """bench-describe: a 10-partition topic with records and an Empty group that committed
    offsets on every partition (the group the describe case reads)."""
    from confluent_kafka import Consumer, Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    topic, group = "bench-describe", "bench-describe-group"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    created = admin.create_topics([NewTopic(topic, 10, 1)])
    try:
        created[topic].result(30)
    except Exception as exc:
        if "TOPIC_ALREADY_EXISTS" not in str(exc):
            raise
        return
    time.sleep(1)
    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(1000):
        producer.produce(topic, value=b"x", partition=i % 10)
    producer.flush(30)
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe([topic])
    read, deadline = 0, time.monotonic() + 60
    while read < 800 and time.monotonic() < deadline:
        msg = consumer.poll(0.5)
        if msg is not None and not msg.error():
            read += 1
    consumer.commit(asynchronous=False)
    consumer.close()


def _setup_reset(partitions: int) -> Callable[[str], None]:
    """bench-reset-<N>: a topic of N partitions, one record each, and an Empty group with an
    offset committed on every partition."""

    def setup(bootstrap: str) -> None:
        from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
        from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

        topic, group = f"bench-reset-{partitions}", f"bench-reset-{partitions}-group"
        admin = AdminClient({"bootstrap.servers": bootstrap, "socket.timeout.ms": 300000})
        # The controller refuses more than 10,000 records in one operation: grow in steps.
        step = 5000
        created = admin.create_topics([NewTopic(topic, min(partitions, step), 1)], operation_timeout=300)
        try:
            created[topic].result(600)
        except Exception as exc:
            if "TOPIC_ALREADY_EXISTS" not in str(exc):
                raise
        for total in range(2 * step, partitions + step, step):
            current = len(admin.list_topics(topic, timeout=30).topics[topic].partitions)
            if current < min(total, partitions):
                grown = admin.create_partitions(
                    [NewPartitions(topic, min(total, partitions))], operation_timeout=300
                )
                grown[topic].result(600)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            described = admin.list_topics(topic, timeout=30).topics[topic].partitions
            if len(described) == partitions and all(p.leader >= 0 for p in described.values()):
                break
            time.sleep(1)
        request = ConsumerGroupTopicPartitions(
            group, [TopicPartition(topic, p, 0) for p in range(partitions)]
        )
        for attempt in range(3):  # a fresh broker may still be loading its offsets topic
            try:
                admin.alter_consumer_group_offsets([request], request_timeout=300)[group].result(600)
                break
            except Exception:
                if attempt == 2:
                    raise
                time.sleep(5)

    return setup


def _reset_args(partitions: int, *extra: str) -> Callable[[str], list[str]]:
    group, topic = f"bench-reset-{partitions}-group", f"bench-reset-{partitions}"
    return lambda bs: [
        "--bootstrap-server",
        bs,
        "--reset-offsets",
        "--group",
        group,
        "--topic",
        topic,
        "--to-earliest",
        *extra,
    ]


def _setup_topics(count: int, partitions: int) -> Callable[[str], None]:
    """bench-topic-NNNN: ``count`` topics of ``partitions`` partitions each (created once)."""

    def setup(bootstrap: str) -> None:
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient({"bootstrap.servers": bootstrap})
        existing = set(admin.list_topics(timeout=30).topics)
        wanted = [f"bench-topic-{i:04d}" for i in range(count)]
        missing = [NewTopic(t, partitions, 1) for t in wanted if t not in existing]
        for start in range(0, len(missing), 100):  # the controller takes them in batches
            futures = admin.create_topics(missing[start : start + 100], operation_timeout=120)
            for future in futures.values():
                future.result(180)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            topics = admin.list_topics(timeout=30).topics
            if all(t in topics and len(topics[t].partitions) == partitions for t in wanted):
                return
            time.sleep(1)
        raise TimeoutError("the benchmark topics did not appear")

    return setup


def _setup_lag(partitions: int) -> Callable[[str], None]:
    """bench-lag-<N>: a topic of N partitions, three records each with timestamps an hour
    old, and an Empty group committed at offset 1 on every partition (lag 2 everywhere)."""

    def setup(bootstrap: str) -> None:
        from confluent_kafka import ConsumerGroupTopicPartitions, Producer, TopicPartition
        from confluent_kafka.admin import AdminClient, NewTopic

        topic, group = f"bench-lag-{partitions}", f"bench-lag-{partitions}-group"
        admin = AdminClient({"bootstrap.servers": bootstrap})
        created = admin.create_topics([NewTopic(topic, partitions, 1)], operation_timeout=120)
        try:
            created[topic].result(180)
        except Exception as exc:
            if "TOPIC_ALREADY_EXISTS" not in str(exc):
                raise
            return
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            described = admin.list_topics(topic, timeout=30).topics[topic].partitions
            if len(described) == partitions and all(p.leader >= 0 for p in described.values()):
                break
            time.sleep(1)
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
        stamp = int(time.time() * 1000) - 3_600_000
        for p in range(partitions):
            for i in range(3):
                producer.produce(topic, value=b"x" * 100, partition=p, timestamp=stamp + i)
        producer.flush(60)
        request = ConsumerGroupTopicPartitions(
            group, [TopicPartition(topic, p, 1) for p in range(partitions)]
        )
        admin.alter_consumer_group_offsets([request], request_timeout=120)[group].result(180)

    return setup


def _setup_all(*setups: Callable[[str], None]) -> Callable[[str], None]:
    def setup(bootstrap: str) -> None:
        for one in setups:
            one(bootstrap)

    return setup


def _no_setup(_bootstrap: str) -> None:
    return None


def _cg(*args: str) -> Callable[[str], list[str]]:
    return lambda bs: ["--bootstrap-server", bs, *args]


CASES = {
    c.name: c
    for c in (
        Case(
            "list-groups-100",
            "kafka-consumer-groups --list, 100 groups",
            _setup_groups(100),
            "kafka-consumer-groups",
            _cg("--list"),
        ),
        Case(
            "list-groups-1000",
            "kafka-consumer-groups --list, 1,000 groups",
            _setup_groups(1000),
            "kafka-consumer-groups",
            _cg("--list"),
        ),
        Case(
            "describe-group-10p",
            "kafka-consumer-groups --describe --group G, one group on 10 partitions",
            _setup_active_group,
            "kafka-consumer-groups",
            _cg("--describe", "--group", "bench-describe-group"),
        ),
        Case(
            "describe-all-groups-1000",
            "kafka-consumer-groups --describe --all-groups, 1,000 groups",
            _setup_groups(1000),
            "kafka-consumer-groups",
            _cg("--describe", "--all-groups"),
        ),
        Case(
            "topics-describe-1000x10",
            "kafka-topics --describe, 1,000 topics of 10 partitions",
            _setup_topics(1000, 10),
            "kafka-topics",
            _cg("--describe", "--topic", "bench-topic-.*"),
        ),
        Case(
            "topics-list-1000",
            "kafka-topics --list, 1,000+ topics",
            _setup_topics(1000, 10),
            "kafka-topics",
            _cg("--list"),
        ),
        Case(
            "health-all-groups-1000",
            "kafka-consumer-groups --describe --all-groups --health (ours only), 1,000 groups; "
            "beside our plain --describe --all-groups",
            _setup_groups(1000),
            "kafka-consumer-groups",
            _cg("--describe", "--all-groups", "--health"),
            baseline=_cg("--describe", "--all-groups"),
        ),
        Case(
            "lag-time-1000p",
            "kafka-consumer-groups --describe --group G --lag-time (ours only), one group with lag on "
            "1,000 partitions; beside our plain --describe --group G",
            _setup_lag(1000),
            "kafka-consumer-groups",
            _cg("--describe", "--group", "bench-lag-1000-group", "--lag-time"),
            baseline=_cg("--describe", "--group", "bench-lag-1000-group"),
        ),
        *(
            Case(
                f"reset-{mode}-{n}p",
                f"kafka-consumer-groups --reset-offsets --to-earliest --{mode}, one group, {n:,} partitions",
                _setup_reset(n),
                "kafka-consumer-groups",
                _reset_args(n, f"--{mode}"),
            )
            for n in (10, 1000, 10000)
            for mode in ("dry-run", "execute")
        ),
        Case(
            "describe-group-10000p",
            "kafka-consumer-groups --describe --group G, one group on 10,000 partitions",
            _setup_reset(10000),
            "kafka-consumer-groups",
            _cg("--describe", "--group", "bench-reset-10000-group"),
        ),
        Case(
            "describe-all-groups-1000-and-10000p",
            "kafka-consumer-groups --describe --all-groups, 1,000 groups and one group on 10,000 partitions "
            "(every group on the broker: a few more from the other cases)",
            _setup_all(_setup_groups(1000), _setup_reset(10000)),
            "kafka-consumer-groups",
            _cg("--describe", "--all-groups"),
        ),
        Case(
            "topics-describe-400x10",
            "kafka-topics --describe, 400 topics of 10 partitions (a regex over 1,000)",
            _setup_topics(1000, 10),
            "kafka-topics",
            _cg("--describe", "--topic", "bench-topic-0[0-3].*"),
        ),
        *(
            Case(
                f"help-{tool.removeprefix('kafka-')}",
                f"{tool} --help (no broker contacted; the Apache tool exits 1 after its usage)",
                _no_setup,
                tool,
                lambda _bs: ["--help"],
                apache_exits=(1,),
            )
            for tool in ("kafka-consumer-groups", "kafka-streams-groups", "kafka-topics")
        ),
    )
}


def run_case(case: Case, bootstrap: str, runs: int) -> dict[str, list[Sample]]:
    # The setup runs in a process of its own: a child forked from this one would otherwise
    # count this process's memory (the setup's clients and data) in its peak RSS.
    subprocess.run(
        [sys.executable, "-c", f"from bench.run import CASES; CASES[{case.name!r}].setup({bootstrap!r})"],
        cwd=ROOT,
        check=True,
    )
    args = case.args(bootstrap)
    commands = {
        "ours": [*our_command(case.tool), *args],
        "apache": local_kafka.apache_command(case.tool, args)
        if case.baseline is None
        else [*our_command(case.tool), *case.baseline(bootstrap)],
        **{who: [sys.executable, "-c", code] for who, code in FLOOR_CODE.items()},
    }
    envs = {"ours": our_env()}
    for who, argv in commands.items():  # warm-up: page cache, broker-side caches
        measure(argv, envs.get(who))
    samples: dict[str, list[Sample]] = {who: [] for who in commands}
    for _ in range(runs):
        for who, argv in commands.items():
            samples[who].append(measure(argv, envs.get(who)))
    for who, got in samples.items():
        allowed = case.apache_exits if who == "apache" else (0,)
        failed = [s for s in got if s.exit_code not in allowed]
        if failed:
            raise SystemExit(f"{case.name}: {who} exited {failed[0].exit_code}: {' '.join(commands[who])}")
    return samples


def load_note() -> str:
    """The machine's load when the case finished: results from a busy machine say so."""
    one, five, _ = os.getloadavg()
    busy = " (busy: other work shared the cores)" if five > 0.5 * (os.cpu_count() or 1) else ""
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min){busy}"


def section(case: Case, samples: dict[str, list[Sample]], runs: int) -> str:
    med = {who: statistics.median(s.wall_s for s in got) for who, got in samples.items()}
    cpu = {who: statistics.median(s.cpu_s for s in got) for who, got in samples.items()}
    rss = {who: max(s.max_rss_kb for s in got) / 1024 for who, got in samples.items()}
    low = {who: min(s.wall_s for s in got) for who, got in samples.items()}
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    names = {"ours": "ours", "apache": "Apache", **FLOORS}
    if case.baseline is not None:  # ours only: beside the plain command the new view adds to
        names["ours"] = f"ours, {' '.join(case.args('B')[2:])}"
        names["apache"] = f"ours, {' '.join(case.baseline('B')[2:])}"
    rows = "".join(
        f"| {names[who]} | {med[who]:.3f} | {low[who]:.3f} | {cpu[who]:.3f} | {rss[who]:.0f} |\n"
        for who in samples
    )
    compared = "new view / plain describe" if case.baseline is not None else "ours/Apache"
    return (
        f"## {case.name}\n\n"
        f"{case.description}. Kafka {local_kafka.KAFKA_VERSION}, {runs} alternating runs each "
        f"after one warm-up, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"measured {stamp}, {load_note()}.\n\n"
        "| command | median wall (s) | min wall (s) | median CPU (s) | peak RSS (MiB) |\n"
        "|---|---|---|---|---|\n"
        f"{rows}\n"
        f"**ratio {compared} (median wall): {med['ours'] / med['apache']:.2f}x**\n\n"
        f"**ratio ours/floor (median wall): {med['ours'] / med['floor']:.2f}x; "
        f"ours/(floor+protocol): {med['ours'] / med['floor+protocol']:.2f}x**\n"
    )


def write_results(sections: dict[str, str]) -> None:
    """Replace each case's section in RESULTS.md, keeping the others."""
    header = (
        "# Benchmark results\n\n"
        "Written by `python -m bench.run` (see bench/run.py). Each case runs our command, the\n"
        'pinned Apache tool and the floor (`python -c "import confluent_kafka"`, and the same\n'
        "with kafka-python's protocol layer) against the same local broker in the same run,\n"
        "alternating; ratio < 1 means ours is faster. CPU time (user + system of the process)\n"
        "moves less than wall time when other work shares the machine: each case names the load.\n"
    )
    existing: dict[str, str] = {}
    if RESULTS.exists():
        current_name = None
        for line in RESULTS.read_text().splitlines(keepends=True):
            if line.startswith("## "):
                current_name = line[3:].strip()
                existing[current_name] = ""
            if current_name:
                existing[current_name] += line
    existing.update(sections)
    body = "\n".join(text.rstrip() + "\n" for _, text in sorted(existing.items()))
    RESULTS.write_text(header + "\n" + body)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--case", action="append", choices=sorted(CASES), help="case(s) to run (default: all)"
    )
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--bootstrap", help="use this running broker instead of starting one")
    parser.add_argument("--no-write", action="store_true", help="print results without updating RESULTS.md")
    opts = parser.parse_args()
    # Our --execute saves a backup of the offsets it replaces; keep those out of the home directory.
    os.environ.setdefault("KAFKA_TOOLS_STATE_DIR", str(ROOT / ".cache" / "bench-state"))
    chosen = [CASES[name] for name in (opts.case or list(CASES))]  # setup order: fewest groups first
    compile_sources()
    cluster = None
    bootstrap = opts.bootstrap
    if not bootstrap:
        cluster = local_kafka.start(nodes=1, workdir=ROOT / ".cache" / "run" / "bench")
        bootstrap = cluster.bootstrap
    try:
        for case in chosen:
            samples = run_case(case, bootstrap, opts.runs)
            text = section(case, samples, opts.runs)
            print(text, flush=True)
            if not opts.no_write:  # each case as it ends: a later case's failure keeps it
                write_results({case.name: text})
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
