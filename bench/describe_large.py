"""``--describe --group`` (and ``--health``) of one large group: this checkout beside another
checkout of the tools (the code before a change) and rpk, alternating, in one run, on a cluster
already running (the group made beforehand, e.g. committed on every partition of bench/scale.py's
topic). Prints a Markdown table: median wall, median CPU (user + system), peak RSS, exit codes,
and the ratios of this checkout's medians to the others'.

    python -m bench.describe_large --bootstrap B --group G --before /work/main --rpk /tmp/rpk --runs 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import Sample, measure  # noqa: E402


def _tools(checkout: Path) -> tuple[list[str], dict[str, str]]:
    python = checkout / ".venv" / "bin" / "python"
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    env.pop("KAFKA_TOOLS_OUTPUT", None)
    # -P: the working directory is not put first on the path (it would import this checkout's
    # code in place of the other's)
    interpreter = str(python if python.exists() else sys.executable)
    return [interpreter, "-P", "-m", "kafka_groups.cli.consumer_groups"], env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--before", type=Path, help="a checkout of the code before (its .venv, if any)")
    parser.add_argument("--rpk", help="an rpk binary, run beside the plain describe")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--health", action="store_true", help="--describe --health as well")
    args = parser.parse_args()
    views = {"describe": ["--describe", "--group", args.group]}
    if args.health:
        views["health"] = ["--describe", "--health", "--group", args.group]
    for view, flags in views.items():
        argvs: dict[str, tuple[list[str], dict[str, str] | None]] = {}
        ours, env = _tools(ROOT)
        argvs["ours"] = ([*ours, "--bootstrap-server", args.bootstrap, *flags, "--timeout", "120000"], env)
        if args.before is not None:
            before, before_env = _tools(args.before)
            argvs["before"] = (
                [*before, "--bootstrap-server", args.bootstrap, *flags, "--timeout", "120000"],
                before_env,
            )
        if args.rpk and view == "describe":
            argvs["rpk"] = (
                [args.rpk, "group", "describe", args.group, "-X", f"brokers={args.bootstrap}"],
                None,
            )
        samples: dict[str, list[Sample]] = {who: [] for who in argvs}
        loads = []
        for _ in range(args.runs):
            for who, (argv, run_env) in argvs.items():
                samples[who].append(measure(argv, run_env))
                loads.append(os.getloadavg()[0])
        print(
            f"\n{view} of {args.group}, {args.runs} run(s) each, alternating; load (1 min) during the runs "
            f"{min(loads):.1f}-{max(loads):.1f}\n"
        )
        print("| command | wall (s) | CPU (s) | peak RSS (MiB) | exits |")
        print("|---|---|---|---|---|")
        medians = {}
        for who, runs in samples.items():
            wall = statistics.median(s.wall_s for s in runs)
            cpu = statistics.median(s.cpu_s for s in runs)
            rss = max(s.max_rss_kb for s in runs) / 1024
            medians[who] = (wall, cpu, rss)
            exits = ",".join(str(c) for c in sorted({s.exit_code for s in runs}))
            print(f"| {who} | {wall:.2f} | {cpu:.2f} | {rss:.0f} | {exits} |")
        wall, cpu, rss = medians["ours"]
        for who, (w, c, r) in medians.items():
            if who != "ours":
                print(f"\nours/{who}: wall {wall / w:.2f}x, CPU {cpu / c:.2f}x, peak RSS {rss / r:.2f}x")
    subprocess.run(["uptime"], check=False)


if __name__ == "__main__":
    main()
