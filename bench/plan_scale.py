"""A plan of many rows, end to end: ``--reset-offsets --from-file`` of 200,000 rows (1,000 groups
of 200 partitions each; one broker here holds about 14,000 partitions, so the rows of so large a
plan are spread over groups), ours beside the pinned Apache tool in the same run:

- ``execute``: ``--group`` for each group, ``--from-file PLAN --execute``: the file read, planned,
  backed up (200,000 rows), committed (1,000 OffsetCommits), read back;
- ``export``: the same with ``--dry-run --export``: the plan printed as CSV (200,000 lines).

Every row moves a partition from offset 1 to 0: before each run of each command (outside the
measurement) the groups are put back at offset 1 through the protocol layer
(bench/scale_setup.py). The table gives the median wall and CPU time, the peak RSS of the
command's process (the Apache tool's under coreutils ``timeout``, which waits for it) and its
exit statuses (124: the Apache tool ran out of its ``--apache-timeout``, and is not run again);
ours must stay within 150 MB (issue 39).

    nice -n 10 python -m bench.plan_scale --bootstrap B --setup
    nice -n 10 python -m bench.plan_scale --bootstrap B --runs 2
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
from infra import kafka as local_kafka  # noqa: E402

TOPIC = "scale-plan"
PARTITIONS = 200
GROUPS = 1000


def group_names() -> list[str]:
    return [f"scale-plan-g-{i:04d}" for i in range(GROUPS)]


def setup(bootstrap: str) -> None:
    from bench import scale_setup

    scale_setup.ensure_topic(bootstrap, TOPIC, PARTITIONS)
    if min(scale_setup._log_ends(bootstrap, TOPIC, PARTITIONS).values()) < 2:
        scale_setup.produce(bootstrap, TOPIC, PARTITIONS, 2)
    recommit(bootstrap)


def recommit(bootstrap: str) -> None:
    from bench import scale_setup

    offsets = dict.fromkeys(range(PARTITIONS), 1)
    scale_setup.commit(bootstrap, [(g, TOPIC, offsets) for g in group_names()])


def _in_own_process(bootstrap: str, what: str) -> None:
    code = f"from bench.plan_scale import {what}; {what}({bootstrap!r})"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, env=our_env())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--setup", action="store_true", help="make the topic and the groups, then stop")
    parser.add_argument("--without-apache", action="store_true")
    parser.add_argument(
        "--apache-timeout",
        type=int,
        default=300,
        help="seconds the Apache tool is given a run (coreutils timeout; exit 124 when it ran out)",
    )
    args = parser.parse_args(argv)
    bs = args.bootstrap
    if args.setup:
        _in_own_process(bs, "setup")
        return 0
    work = Path(tempfile.mkdtemp(prefix="plan-scale-"))
    plan = work / "plan.csv"
    with plan.open("w") as out:
        for group in group_names():
            out.write("".join(f"{group},{TOPIC},{p},0\n" for p in range(PARTITIONS)))
    flags = [f for g in group_names() for f in ("--group", g)]
    base = [
        "--bootstrap-server",
        bs,
        *flags,
        "--reset-offsets",
        "--from-file",
        str(plan),
        "--timeout",
        "120000",
    ]
    cases = {
        "execute": [*base, "--execute"],
        "export": [*base, "--dry-run", "--export"],
    }
    env = {**our_env(), "KAFKA_TOOLS_STATE_DIR": str(work / "state")}
    results: dict[tuple[str, str], list[Sample]] = {}
    for case, args_ in cases.items():
        commands = {"ours": [*our_command("kafka-consumer-groups"), *args_]}
        if not args.without_apache:
            apache = local_kafka.apache_command("kafka-consumer-groups", args_)
            commands["Apache"] = ["timeout", str(args.apache_timeout), *apache]
        for run in range(args.runs):
            for who, command in commands.items():
                if who == "Apache" and run and any(s.exit_code == 124 for s in results[(case, who)]):
                    continue  # it ran out of time once: not again
                if case == "execute":
                    _in_own_process(bs, "recommit")
                results.setdefault((case, who), []).append(measure(command, env=env))
    load = os.getloadavg()
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(
        f"\n`--reset-offsets --from-file` of {GROUPS * PARTITIONS:,} rows ({GROUPS:,} groups of {PARTITIONS} "
        f"partitions), {args.runs} alternating runs, measured {when}, load average {load[0]:.1f} (1 min) "
        f"{load[1]:.1f} (5 min)\n"
    )
    print("| case | command | median wall (s) | median CPU (s) | peak RSS (MiB) | exit |")
    print("|---|---|---|---|---|---|")
    for (case, who), runs in results.items():
        wall = statistics.median(s.wall_s for s in runs)
        cpu = statistics.median(s.cpu_s for s in runs)
        peak = max(s.max_rss_kb for s in runs) / 1024
        exits = ",".join(str(s.exit_code) for s in runs)
        print(f"| {case} | {who} | {wall:.2f} | {cpu:.2f} | {peak:.0f} | {exits} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
