"""The scale benchmark: how the cost of each command grows with the cluster, on several brokers.

Two families of cases, on a cluster of 3 nodes (8 for 100,000 partitions: a process may open
20,000 files here, so a broker holds about 14,000 partitions):

- one group of N partitions (N = 1,000 / 10,000 / 30,000 / 100,000; topic scale-pN, replication
  1, spread over the nodes, group scale-pN-group committed on every partition):
  ``--describe --group``, ``--reset-offsets --to-earliest --dry-run`` and ``--execute``,
  ``kafka-topics --describe --topic``;
- N groups (N = 1,000 / 10,000 / 50,000; each committed on the 10 partitions of scale-groups,
  made by bench/scale_setup.py through the protocol layer, no consumer): ``--list`` and
  ``--describe --all-groups`` (which also reads the few groups of the other family).

Every case runs ours beside the pinned Apache tool and the floor (``python -c "import
confluent_kafka"``, bench/run.py) in the same run, alternating, with bench/bare.py where it has the
command, and rpk where ``--rpk PATH`` gives one (built locally for the comparison only; nothing
here builds it). Each measurement is kept in bench/scale_results.json (a later run of some cases
replaces theirs only); bench/RESULTS.md gets the tables and bench/scale.png the plot (time and
peak RSS against size, log scales; matplotlib, a dev dependency).

    python -m bench.scale --sizes small                  # 1,000 and 10,000: a few minutes
    python -m bench.scale --sizes 30000,50000 --runs 1   # the larger ones (heavy: nice -n 10)
    python -m bench.scale --sizes 100000 --nodes 8 --runs 1
    python -m bench.scale --bootstrap B --case describe-all  # a cluster already running
    python -m bench.scale --rpk /tmp/rpk                 # rpk beside ours
    python -m bench.scale --report                       # tables and plot from the kept results
    python -m bench.scale --bootstrap B --sizes 100000 --timeout-ms 60000  # ours waits 60 s

``--timeout-ms`` sets ours' wait for the cluster (``KAFKA_TOOLS_TIMEOUT_MS``; the tool's default
is 5,000 ms, which a loaded cluster of 100,000 partitions does not always answer within); such
rows are kept apart from the default's and the table names the timeout.

A run whose exit status is not 0 is kept and shown as failed (``x`` and its status): the Apache
tool exits 0 after some failures (its error is in its output), which the table notes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import FLOOR_CODE, Sample, compile_sources, measure, our_command, our_env  # noqa: E402
from bench.scale_setup import partition_group, partition_topic  # noqa: E402
from infra import kafka as local_kafka  # noqa: E402

DATA = ROOT / "bench" / "scale_results.json"
PLOT = ROOT / "bench" / "scale.png"
PARTITION_SIZES = (1000, 10000, 30000, 100000)
GROUP_SIZES = (1000, 10000, 50000)
SMALL = (1000, 10000)
# Partitions one broker takes here (20,000 open files per process): a larger case needs more nodes.
PARTITIONS_PER_NODE = 14000
SECTION = "scale: a multi-broker cluster (bench/scale.py)"


@dataclass(frozen=True)
class Command:
    """One command of a case: ours (always), and how each peer says the same (None: none)."""

    name: str  # describe, reset-dry-run, ...
    family: str  # "partitions" or "groups"
    tool: str
    args: Callable[[str, int], list[str]]
    rpk: Callable[[str, int], list[str]] | None = None
    bare: Callable[[str, int], list[str]] | None = None
    apache: bool = True
    # Before each run of each tool, outside the measurement: the group at offset 1 again (a
    # reset's --execute must move the partitions every time).
    recommit: bool = False


def _describe_group(bs: str, n: int) -> list[str]:
    return ["--bootstrap-server", bs, "--describe", "--group", partition_group(n)]


def _reset(mode: str) -> Callable[[str, int], list[str]]:
    return lambda bs, n: [
        "--bootstrap-server",
        bs,
        "--reset-offsets",
        "--group",
        partition_group(n),
        "--topic",
        partition_topic(n),
        "--to-earliest",
        mode,
    ]


COMMANDS = (
    Command(
        "describe",
        "partitions",
        "kafka-consumer-groups",
        _describe_group,
        rpk=lambda bs, n: ["group", "describe", partition_group(n), "-X", f"brokers={bs}"],
        bare=lambda bs, n: ["describe", bs, partition_group(n)],
    ),
    Command(
        "reset-dry-run",
        "partitions",
        "kafka-consumer-groups",
        _reset("--dry-run"),
        bare=lambda bs, n: ["reset", bs, partition_group(n), partition_topic(n), "--dry-run"],
    ),
    Command(
        "reset-execute",
        "partitions",
        "kafka-consumer-groups",
        _reset("--execute"),
        # rpk's seek commits at once (it has no dry run).
        rpk=lambda bs, n: [
            "group",
            "seek",
            partition_group(n),
            "--to",
            "start",
            "--topics",
            partition_topic(n),
            "-X",
            f"brokers={bs}",
        ],
        bare=lambda bs, n: ["reset", bs, partition_group(n), partition_topic(n), "--execute"],
        recommit=True,
    ),
    Command(
        "topics-describe",
        "partitions",
        "kafka-topics",
        lambda bs, n: ["--bootstrap-server", bs, "--describe", "--topic", partition_topic(n)],
        rpk=lambda bs, n: ["topic", "describe", partition_topic(n), "-p", "-X", f"brokers={bs}"],
    ),
    Command(
        "list",
        "groups",
        "kafka-consumer-groups",
        lambda bs, n: ["--bootstrap-server", bs, "--list"],
        rpk=lambda bs, n: ["group", "list", "-X", f"brokers={bs}"],
        bare=lambda bs, n: ["list", bs],
    ),
    Command(
        "describe-all",
        "groups",
        "kafka-consumer-groups",
        lambda bs, n: ["--bootstrap-server", bs, "--describe", "--all-groups"],
        rpk=lambda bs, n: ["group", "describe", "-r", ".*", "-X", f"brokers={bs}"],
    ),
)


def nodes_for(partitions: int) -> int:
    return max(3, -(-(partitions + 2000) // PARTITIONS_PER_NODE))


def setup(bootstrap: str, family: str, size: int) -> None:
    """In a process of its own (its memory is not the measured children's)."""
    kind = "partitions" if family == "partitions" else "groups"
    subprocess.run(
        [sys.executable, "-m", "bench.scale_setup", bootstrap, kind, str(size)],
        cwd=ROOT,
        check=True,
    )


def run_command(
    command: Command,
    size: int,
    bootstrap: str,
    runs: int,
    rpk: str | None,
    warm_up: bool,
    apache: bool = True,
    timeout_ms: int | None = None,
) -> dict[str, list[Sample]]:
    args = command.args(bootstrap, size)
    argvs: dict[str, list[str]] = {"ours": [*our_command(command.tool), *args]}
    if command.apache and apache:
        argvs["apache"] = local_kafka.apache_command(command.tool, args)
    argvs.update({who: [sys.executable, "-c", code] for who, code in FLOOR_CODE.items() if who == "floor"})
    if command.bare is not None:
        argvs["bare"] = [sys.executable, str(ROOT / "bench" / "bare.py"), *command.bare(bootstrap, size)]
    if rpk is not None and command.rpk is not None:
        argvs["rpk"] = [rpk, *command.rpk(bootstrap, size)]
    envs = {"ours": our_env(), "bare": our_env()}
    if timeout_ms is not None:
        envs["ours"]["KAFKA_TOOLS_TIMEOUT_MS"] = str(timeout_ms)

    def run(who: str, argv: list[str]) -> Sample:
        if command.recommit and who != "floor":
            subprocess.run(
                [sys.executable, "-m", "bench.scale_setup", bootstrap, "recommit", str(size)],
                cwd=ROOT,
                check=True,
            )
        return measure(argv, envs.get(who))

    if warm_up:
        for who, argv in argvs.items():
            run(who, argv)
    samples: dict[str, list[Sample]] = {who: [] for who in argvs}
    for _ in range(runs):
        for who, argv in argvs.items():
            samples[who].append(run(who, argv))
    return samples


def load() -> dict[str, dict[str, object]]:
    if DATA.exists():
        loaded: dict[str, dict[str, object]] = json.loads(DATA.read_text())
        return loaded
    return {}


def keep(key: str, record: dict[str, object]) -> None:
    data = load()
    data[key] = record
    DATA.write_text(json.dumps(dict(sorted(data.items())), indent=1) + "\n")


def summary(samples: list[Sample]) -> dict[str, object]:
    return {
        "wall_s": statistics.median(s.wall_s for s in samples),
        "cpu_s": statistics.median(s.cpu_s for s in samples),
        "rss_mib": max(s.max_rss_kb for s in samples) / 1024,
        "exits": sorted({s.exit_code for s in samples}),
        "runs": len(samples),
    }


def load_note() -> str:
    one, five, _ = os.getloadavg()
    busy = " (busy)" if five > 0.5 * (os.cpu_count() or 1) else ""
    return f"load {one:.1f}/{five:.1f}{busy}"


def _cell(entry: dict[str, object] | None) -> str:
    if entry is None:
        return "-"
    exits = entry["exits"]
    failed = "" if exits == [0] else f" x{','.join(str(e) for e in exits)}"  # type: ignore[union-attr]
    return f"{entry['wall_s']:.2f} s ({entry['cpu_s']:.2f} CPU), {entry['rss_mib']:.0f} MiB{failed}"


def _ratio(entry: dict[str, object], other: dict[str, object] | None) -> str:
    if entry["exits"] != [0]:
        return "-"  # ours failed: no ratio
    if other is None or not other["wall_s"] or not other["cpu_s"] or other["exits"] != [0]:
        return "-"  # none, or it failed: no ratio
    wall = float(entry["wall_s"]) / float(other["wall_s"])  # type: ignore[arg-type]
    cpu = float(entry["cpu_s"]) / float(other["cpu_s"])  # type: ignore[arg-type]
    return f"{wall:.2f}x ({cpu:.2f}x CPU)"


def command_label(record: dict[str, object]) -> str:
    """The case's command, with ours' timeout where the run set one (``--timeout-ms``)."""
    timeout = record.get("timeout_ms")
    return str(record["command"]) if timeout is None else f"{record['command']} (ours --timeout {timeout})"


def record_key(family: str, command: str, size: int, apache: bool, timeout_ms: int | None) -> str:
    """Where a case's record is kept: a run without the Apache tool (beside rpk), or with ours'
    timeout set, apart from the default run's."""
    key = f"{family}/{command}/{size:06d}" + ("" if apache else "/no-apache")
    return key if timeout_ms is None else f"{key}/timeout-{timeout_ms}"


def tables(data: dict[str, dict[str, object]]) -> str:
    out = [
        f"## {SECTION}\n\n"
        "Written by `python -m bench.scale` (see its docstring). Per case: median wall time, median "
        "CPU time (user + system) and the peak RSS over the runs of each command, all run "
        "alternately in the same run against the same cluster; `x N` marks runs that exited N "
        "(the Apache tool exits 0 after some failures, see the notes). Ratios are ours over the "
        "other command's median wall (and CPU) time. The plot is bench/scale.png.\n\n![scale](scale.png)\n"
    ]
    for family, title in (("partitions", "One group of N partitions"), ("groups", "N groups")):
        rows = sorted(
            (v for v in data.values() if v["family"] == family),
            key=lambda v: (str(v["command"]), int(v["size"])),  # type: ignore[call-overload]
        )
        if not rows:
            continue
        out.append(
            f"\n### {title}\n\n"
            "| command | N | nodes | ours | Apache | floor | bare | rpk "
            "| ours/Apache | ours/floor | ours/rpk | measured |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        )
        for v in rows:
            got: dict[str, dict[str, object]] = v["results"]  # type: ignore[assignment]
            ours = got["ours"]
            out.append(
                f"| {command_label(v)} | {int(v['size']):,} | {v['nodes']} | {_cell(ours)} | "  # type: ignore[call-overload]
                f"{_cell(got.get('apache'))} | {_cell(got.get('floor'))} | {_cell(got.get('bare'))} | "
                f"{_cell(got.get('rpk'))} | {_ratio(ours, got.get('apache'))} | "
                f"{_ratio(ours, got.get('floor'))} | {_ratio(ours, got.get('rpk'))} | "
                f"{v['measured']}, {v['runs']} run(s), {v['load']} |\n"
            )
    return "".join(out)


def plot(data: dict[str, dict[str, object]]) -> None:
    """Wall time, CPU time and peak RSS against size, log scales: one colour per command, one
    line style per tool (ours solid, Apache dashed, rpk dotted, the bare reference dash-dot)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(16, 9))
    styles = {"ours": "-", "apache": "--", "rpk": ":", "bare": "-."}
    colours = plt.get_cmap("tab10").colors
    for row, family in enumerate(("partitions", "groups")):
        entries = [v for v in data.values() if v["family"] == family]
        for index, command in enumerate(sorted({str(v["command"]) for v in entries})):
            for who, style in styles.items():
                # A size measured twice (beside the Apache tool, and beside rpk without it): the
                # run with the Apache tool, for the tools both runs have.
                by_size: dict[int, dict[str, object]] = {}
                for v in sorted(entries, key=lambda v: "apache" not in v["results"]):  # type: ignore[operator]
                    got = v["results"].get(who)  # type: ignore[attr-defined]
                    if v["command"] == command and got is not None and got["exits"] == [0]:
                        by_size.setdefault(int(v["size"]), got)  # type: ignore[call-overload]
                points = sorted(by_size.items())
                if not points:
                    continue
                xs = [size for size, _ in points]
                for col, field in enumerate(("wall_s", "cpu_s", "rss_mib")):
                    axes[row][col].plot(
                        xs,
                        [entry[field] for _, entry in points],
                        style,
                        color=colours[index % len(colours)],
                        marker="o",
                        label=f"{command} ({who})",
                    )
        what = "partitions in one group" if family == "partitions" else "groups"
        for col, unit in enumerate(("median wall time (s)", "median CPU time (s)", "peak RSS (MiB)")):
            ax = axes[row][col]
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(what)
            ax.set_ylabel(unit)
            ax.grid(True, which="both", alpha=0.3)
        axes[row][0].legend(fontsize=7)
    fig.suptitle(
        "kafka-group-tools (solid) beside the Apache tools (dashed), rpk (dotted) and the bare "
        "reference (dash-dot): cost against cluster size"
    )
    fig.tight_layout()
    fig.savefig(PLOT, dpi=80)


def write_report() -> None:
    data = load()
    from bench.run import write_results

    write_results({SECTION: tables(data)})
    if data:
        plot(data)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="all", help="'all', 'small' (1,000 and 10,000) or a comma list")
    parser.add_argument("--case", action="append", choices=[c.name for c in COMMANDS], help="default: all")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--nodes", type=int, help="nodes of the cluster started (default: what the sizes need)"
    )
    parser.add_argument("--bootstrap", help="a running cluster instead of one started here")
    parser.add_argument("--rpk", help="an rpk binary to run beside ours")
    parser.add_argument(
        "--apache-up-to",
        type=int,
        help="leave the Apache tool out of the cases above this size (it takes minutes)",
    )
    parser.add_argument(
        "--timeout-ms",
        type=int,
        help="ours waits this long for the cluster (KAFKA_TOOLS_TIMEOUT_MS; default: the tool's 5,000)",
    )
    parser.add_argument(
        "--report", action="store_true", help="only write the tables and plot from the kept results"
    )
    parser.add_argument("--no-write", action="store_true", help="print, keep nothing")
    opts = parser.parse_args()
    if opts.report:
        write_report()
        return
    if opts.sizes == "all":
        sizes = set(PARTITION_SIZES) | set(GROUP_SIZES)
    elif opts.sizes == "small":
        sizes = set(SMALL)
    else:
        sizes = {int(s.replace("_", "")) for s in opts.sizes.split(",")}
    chosen = [c for c in COMMANDS if opts.case is None or c.name in opts.case]
    # The groups first, smallest first (each size adds groups to the last); then the partitions.
    plan = [
        (family, size, [c for c in chosen if c.family == family])
        for family, family_sizes in (("groups", GROUP_SIZES), ("partitions", PARTITION_SIZES))
        for size in family_sizes
        if size in sizes
    ]
    plan = [step for step in plan if step[2]]
    os.environ.setdefault("KAFKA_TOOLS_STATE_DIR", str(ROOT / ".cache" / "bench-state"))
    compile_sources()
    nodes = opts.nodes or max([3, *(nodes_for(size) for family, size, _ in plan if family == "partitions")])
    cluster = None
    bootstrap = opts.bootstrap
    if not bootstrap:
        cluster = local_kafka.start(nodes=nodes, workdir=ROOT / ".cache" / "run" / f"scale-{nodes}n")
        bootstrap = cluster.bootstrap
    try:
        brokers = int(
            subprocess.run(
                [sys.executable, "-m", "bench.scale_setup", bootstrap, "brokers", "0"],
                cwd=ROOT,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
        for family, size, commands in plan:
            setup(bootstrap, family, size)
            for command in commands:
                warm = size <= 1000
                apache = opts.apache_up_to is None or size <= opts.apache_up_to
                samples = run_command(
                    command, size, bootstrap, opts.runs, opts.rpk, warm, apache, opts.timeout_ms
                )
                record: dict[str, object] = {
                    "family": family,
                    "command": command.name,
                    "size": size,
                    "nodes": brokers,
                    "runs": opts.runs,
                    "measured": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                    "load": load_note(),
                    "python": platform.python_version(),
                    "results": {who: summary(got) for who, got in samples.items()},
                }
                if opts.timeout_ms is not None:
                    record["timeout_ms"] = opts.timeout_ms
                print(json.dumps(record), flush=True)
                if not opts.no_write:
                    keep(record_key(family, command.name, size, "apache" in samples, opts.timeout_ms), record)
        if not opts.no_write:
            write_report()
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
