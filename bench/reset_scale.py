"""``--reset-offsets --execute`` of one group of N partitions (10,000 to 100,000: beyond one
batch of ``__consumer_offsets`` from about 12,000), ours beside references in the same run:

- ``ours``: ``kafka-consumer-groups --group G --topic T --reset-offsets --to-earliest --execute``
  (backup, re-check, commit in one transaction where one batch does not hold it, read-back);
- ``Apache``: the pinned Apache tool, the same arguments;
- ``AdminClient``: confluent-kafka's ``alter_consumer_group_offsets`` of the same offsets in one
  call, what a plain client does (the broker refuses it whole beyond one batch).

The topic and group are bench/scale_setup.py's (``scale-pN``, one record a partition, and
``scale-pN-group`` at offset 1 everywhere). Before each run of each command, outside the
measurement, the group is put back at offset 1, so every run moves every partition to 0; after
it, the group is read back: the table says how many partitions took the new offset (``all``,
``none``, or a count), since an exit status alone does not tell (the Apache tool exits 0 after
the broker refused its commit). Each command runs alternately ``--runs`` times; the table gives
the median wall and CPU time and the peak RSS of the command's process. A broker holds about
14,000 partitions here (20,000 open files per process): 100,000 partitions take eight nodes.

    python -m infra.kafka start --nodes 3 --workdir .cache/run/scale3     # prints B
    nice -n 10 python -m bench.reset_scale --bootstrap B --partitions 30000 --setup
    nice -n 10 python -m bench.reset_scale --bootstrap B --partitions 30000 --runs 3

``--baseline DIR`` runs ours from another checkout too (``git worktree add DIR COMMIT``), as
``baseline``, alternating with the others: a change measured against the code before it in
the same run, on the same cluster and under the same load.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import Sample, measure, our_command, our_env  # noqa: E402
from bench.scale_setup import partition_group, partition_topic  # noqa: E402
from infra import kafka as local_kafka  # noqa: E402

ADMIN_COMMIT = """
import sys
from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
from confluent_kafka.admin import AdminClient
bootstrap, topic, group, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
admin = AdminClient({"bootstrap.servers": bootstrap})
request = ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p, 0) for p in range(count)])
result = admin.alter_consumer_group_offsets([request], request_timeout=120)[group].result(180)
sys.exit(1 if any(tp.error for tp in result.topic_partitions) else 0)
"""

# Prints how many of the group's partitions are at offset 0 (read in a process of its own).
AT_ZERO = """
import sys
sys.path.insert(0, sys.argv[3])
from kafka_groups.access.cluster import KafkaAccess
from kafka_groups.settings import ConnectionArgs
bootstrap, group = sys.argv[1], sys.argv[2]
access = KafkaAccess(ConnectionArgs(bootstrap_server=bootstrap, timeout_ms=120000).resolve())
held = access.committed_positions([group]).get(group, {})
print(sum(1 for offset in held.values() if offset == 0), len(held))
access.close()
"""


def _subprocess(argv: list[str]) -> str:
    done = subprocess.run(argv, cwd=ROOT, check=True, capture_output=True, text=True, env=our_env())
    return done.stdout


def recommit(bootstrap: str, partitions: int) -> None:
    _subprocess([sys.executable, "-m", "bench.scale_setup", bootstrap, "recommit", str(partitions)])


def landed(bootstrap: str, partitions: int) -> int:
    """How many partitions of the group are at offset 0 now."""
    out = _subprocess([sys.executable, "-c", AT_ZERO, bootstrap, partition_group(partitions), str(ROOT)])
    at_zero, held = (int(x) for x in out.split())
    assert held == partitions, f"the group holds {held} offsets, not {partitions}"
    return at_zero


def shown(counts: list[int], partitions: int) -> str:
    def one(count: int) -> str:
        return "all" if count == partitions else "none" if count == 0 else f"{count:,}"

    return ",".join(one(c) for c in counts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--partitions", type=int, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--setup", action="store_true", help="make the topic and the group, then stop")
    parser.add_argument(
        "--without", action="append", default=[], help="leave a command out (Apache, AdminClient)"
    )
    parser.add_argument(
        "--baseline",
        metavar="DIR",
        help="also run ours from another checkout (e.g. the commit before a change), as 'baseline'",
    )
    args = parser.parse_args(argv)
    bs, n = args.bootstrap, args.partitions
    if args.setup:
        _subprocess([sys.executable, "-m", "bench.scale_setup", bs, "partitions", str(n)])
        return 0
    topic, group = partition_topic(n), partition_group(n)
    reset = ["--bootstrap-server", bs, "--group", group, "--topic", topic, "--reset-offsets",
             "--to-earliest", "--execute", "--timeout", "120000"]  # fmt: skip
    state = tempfile.mkdtemp(prefix="reset-scale-")
    commands = {
        "ours": [*our_command("kafka-consumer-groups"), *reset],
        "Apache": local_kafka.apache_command("kafka-consumer-groups", reset),
        "AdminClient": [sys.executable, "-c", ADMIN_COMMIT, bs, topic, group, str(n)],
    }
    for left_out in args.without:
        commands.pop(left_out, None)
    env = {**our_env(), "KAFKA_TOOLS_STATE_DIR": state}
    envs = {}
    if args.baseline:  # the same console script, importing the other checkout's code
        commands = {"ours": commands["ours"], "baseline": commands["ours"], **commands}
        envs["baseline"] = {**env, "PYTHONPATH": str(Path(args.baseline).resolve())}
        # Bytecode for both checkouts, as scripts/setup leaves this one: with
        # PYTHONDONTWRITEBYTECODE set, a checkout without it compiles every module at each start
        # (0.1-0.2 s of CPU here), which would be counted against it.
        for checkout in (ROOT, Path(args.baseline).resolve()):
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", "kafka_groups", "kafka_topics"],
                cwd=checkout,
                check=True,
                stdout=subprocess.DEVNULL,
            )
    samples: dict[str, list[Sample]] = {name: [] for name in commands}
    moved: dict[str, list[int]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, argv_ in commands.items():
            recommit(bs, n)
            assert landed(bs, n) == 0, "the group was not put back at offset 1"
            samples[name].append(measure(argv_, env=envs.get(name, env)))
            moved[name].append(landed(bs, n))
    load = os.getloadavg()
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(
        f"\n`--reset-offsets --to-earliest --execute`, one group of {n:,} partitions (offset 1 -> 0 on "
        f"every partition), {args.runs} alternating runs, measured {when}, load average {load[0]:.1f} "
        f"(1 min) {load[1]:.1f} (5 min)\n"
    )
    print("| command | median wall (s) | min wall (s) | median CPU (s) | peak RSS (MiB) | exit | moved |")
    print("|---|---|---|---|---|---|---|")
    for name, runs in samples.items():
        walls = [s.wall_s for s in runs]
        cpu = statistics.median(s.cpu_s for s in runs)
        peak = max(s.max_rss_kb for s in runs) / 1024
        exits = ",".join(str(s.exit_code) for s in runs)
        wall = statistics.median(walls)
        print(
            f"| {name} | {wall:.2f} | {min(walls):.2f} | {cpu:.2f} | {peak:.0f} | {exits} | "
            f"{shown(moved[name], n)} |"
        )
    ours = statistics.median(s.wall_s for s in samples["ours"])
    for name, runs in samples.items():
        if name != "ours":
            print(
                f"\nratio ours/{name} (median wall): {ours / statistics.median(s.wall_s for s in runs):.2f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
