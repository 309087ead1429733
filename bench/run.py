"""Side-by-side benchmarks: our command and the pinned Apache tool, same broker, same run.

Each case prepares cluster state once, then runs the commands alternately (ours, Apache, the
floor, ...) several times, and reports median wall time, median CPU time, peak RSS and the
ratios ours/floor and ours/Apache. The floor is ``python -c "import confluent_kafka"`` with
the same interpreter, measured in every case beside ours: the start-up of a Python tool built
on confluent-kafka. The tools load less of it than that (the package's ``__init__``, with its
serializing clients and asyncio, is skipped: kafka_groups/access/packages.py), so a short
command can come in under the floor. A second reference adds kafka-python's admin client, the
protocol layer as the commands that read committed offsets or list groups loaded it before they
opened it with the library's connection manager alone (kafka_groups/access/protocol_layer.py):
kept for comparison with earlier results. Where a case has one, a third reference sends the
command's requests through the same clients, loaded as the tools load them, with none of our
code around them (bench/bare.py): ours/bare is what our own code costs (flags, checks, retries,
rendering) on top of the two libraries and the round trips. It is a reference, not a bound: a
command that orders its requests better than the plain sequence can come in under it. Ours runs
this checkout's code (compiled first), whatever the environment has installed. Results replace
the case's section in bench/RESULTS.md.

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
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cases import CASES, Case  # noqa: E402
from infra import kafka as local_kafka  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"


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
# bench/bare.py: the same requests through the same clients, and nothing else (Case.bare).
BARE = "bare: same requests, same clients (bench/bare.py)"
FLOOR_CODE = {"floor": "import confluent_kafka", "floor+protocol": "import confluent_kafka, kafka.admin"}


def our_env() -> dict[str, str]:
    """This checkout's code first on the path (the console scripts then import it, not an
    installed copy), with output as a script sees it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("KAFKA_TOOLS_OUTPUT", None)
    return env


# A broker holds about one open file per partition, and a machine may allow it no more than
# 20,000 (``ulimit -n``; the broker stops when its log directory runs out of them). The cases of
# 10,000 partitions and those of 1,000 topics of 10 would need more together, so before a case
# is set up on a broker holding more than this many partitions, the benchmark topics it does
# not read are deleted (an earlier case sets them up again when run again).
FREE_ABOVE = 8000
# A broker closes a deleted partition's files about a minute after the deletion (seen here: 10,000
# files open 55 s after, none at 64 s; file.delete.delay.ms at 1 s did not shorten it).
FILES_CLOSED_S = 70


def make_room(case: Case, bootstrap: str) -> None:
    from confluent_kafka.admin import AdminClient

    if not case.topics:
        return
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topics = admin.list_topics(timeout=30).topics
    if sum(len(t.partitions) for t in topics.values()) <= FREE_ABOVE:
        return
    others = sorted(t for t in topics if t.startswith("bench-") and not case.uses(t))
    for start in range(0, len(others), 100):
        for future in admin.delete_topics(others[start : start + 100], operation_timeout=120).values():
            future.result(180)
    deadline = time.monotonic() + 300
    while any(t in admin.list_topics(timeout=30).topics for t in others):
        if time.monotonic() > deadline:
            raise TimeoutError("the deleted benchmark topics did not go")
        time.sleep(1)
    time.sleep(FILES_CLOSED_S)


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


def run_case(case: Case, bootstrap: str, runs: int) -> dict[str, list[Sample]]:
    # The setup runs in a process of its own: a child forked from this one would otherwise
    # count this process's memory (the setup's clients and data) in its peak RSS. A case made
    # elsewhere (bench/secure.py, set up before) is not in CASES: its setup runs here.
    if CASES.get(case.name) is case:
        subprocess.run(
            [
                sys.executable,
                "-c",
                f"from bench.cases import CASES; from bench.run import make_room; "
                f"case = CASES[{case.name!r}]; make_room(case, {bootstrap!r}); case.setup({bootstrap!r})",
            ],
            cwd=ROOT,
            check=True,
        )
    else:
        case.setup(bootstrap)
    args = case.args(bootstrap)
    commands = {
        "ours": [*our_command(case.tool), *args],
        "apache": local_kafka.apache_command(case.tool, args)
        if case.baseline is None
        else [*our_command(case.tool), *case.baseline(bootstrap)],
        **{who: [sys.executable, "-c", code] for who, code in FLOOR_CODE.items()},
    }
    if case.bare is not None:
        commands["bare"] = [sys.executable, str(ROOT / "bench" / "bare.py"), *case.bare(bootstrap)]
    envs = {"ours": our_env(), "bare": our_env()}
    for who, argv in commands.items():  # warm-up: page cache, broker-side caches
        measure(argv, envs.get(who))
    samples: dict[str, list[Sample]] = {who: [] for who in commands}
    for _ in range(runs):
        for who, argv in commands.items():
            samples[who].append(measure(argv, envs.get(who)))
    for who, got in samples.items():
        allowed = {"apache": case.apache_exits, "ours": case.our_exits}.get(who, (0,))
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
    names = {"ours": "ours", "apache": "Apache", **FLOORS, "bare": BARE}
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
        + (
            f"\n**ratio ours/bare (median wall): {med['ours'] / med['bare']:.2f}x**\n"
            if "bare" in med
            else ""
        )
    )


def write_results(sections: dict[str, str]) -> None:
    """Replace each case's section in RESULTS.md, keeping the others."""
    header = (
        "# Benchmark results\n\n"
        "Written by `python -m bench.run` (see bench/run.py). Each case runs our command, the\n"
        'pinned Apache tool and the floor (`python -c "import confluent_kafka"`, and the same\n'
        "with kafka-python's admin client) against the same local broker in the same run,\n"
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
