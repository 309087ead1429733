"""A describe of many groups, ours beside rpk and beside an earlier checkout of this code, in one
run, alternating: median wall time, CPU time (user + system) and peak RSS of each, and the ratios.

    python -m bench.many_groups BOOTSTRAP --pattern 'scale-g-00[0-9].*' --rpk /tmp/rpk \\
        --before /tmp/earlier-checkout --runs 5

``--pattern``: the groups (``--describe --group-pattern``, rpk ``group describe -r '^...$'``);
the groups of ``python -m bench.scale_setup BOOTSTRAP groups 10000`` are ``scale-g-000000`` on.
``--before``: a source tree of this project (``git archive <commit> | tar -x -C DIR``), run with
this checkout's virtualenv and that tree first on the path. Before the timed runs, ours and the
earlier code's outputs are compared byte for byte (stdout and stderr), and their exit statuses.
rpk is built elsewhere for the comparison only: nothing here builds or ships it.
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

from bench.run import Sample, compile_sources, measure, our_command, our_env  # noqa: E402


def _commands(opts: argparse.Namespace) -> dict[str, tuple[list[str], dict[str, str] | None]]:
    ours = [*our_command("kafka-consumer-groups"), "--bootstrap-server", opts.bootstrap, "--describe"]
    ours += ["--group-pattern", opts.pattern, *opts.extra]
    commands: dict[str, tuple[list[str], dict[str, str] | None]] = {"ours": (ours, our_env())}
    if opts.before:
        commands["before"] = (ours, {**our_env(), "PYTHONPATH": str(Path(opts.before).resolve())})
    if opts.rpk:
        rpk = [opts.rpk, "group", "describe", "-r", f"^{opts.pattern}$", "-X", f"brokers={opts.bootstrap}"]
        commands["rpk"] = (rpk, None)
    return commands


def _same_output(commands: dict[str, tuple[list[str], dict[str, str] | None]]) -> str:
    """Ours and the earlier code's outputs, compared byte for byte."""
    if "before" not in commands:
        return "no earlier code given"
    outputs = {
        who: subprocess.run(commands[who][0], env=commands[who][1], capture_output=True, check=False)
        for who in ("ours", "before")
    }
    ours, before = outputs["ours"], outputs["before"]
    same = (ours.stdout, ours.stderr, ours.returncode) == (before.stdout, before.stderr, before.returncode)
    lines = ours.stdout.count(b"\n")
    return f"{'identical' if same else 'DIFFERENT'} ({lines} lines of stdout, exit {ours.returncode})"


def main() -> None:
    form = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=form)
    parser.add_argument("bootstrap")
    parser.add_argument("--pattern", default="scale-g-00[0-9].*")
    parser.add_argument("--rpk", help="an rpk binary to run beside ours")
    parser.add_argument("--before", help="a source tree of this project to run beside ours")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("extra", nargs="*", help="more flags of ours (after --)")
    opts = parser.parse_args()
    compile_sources()
    if opts.before:
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", "kafka_groups", "kafka_topics"],
            cwd=opts.before,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    commands = _commands(opts)
    print(f"output, ours against the earlier code: {_same_output(commands)}", flush=True)
    samples: dict[str, list[Sample]] = {who: [] for who in commands}
    for run in range(opts.runs):
        # Each run in another order, so that no command always follows the same one.
        order = list(commands)[run % len(commands) :] + list(commands)[: run % len(commands)]
        for who in order:
            argv, env = commands[who]
            samples[who].append(measure(argv, env))
            last = samples[who][-1]
            print(
                f"run {run + 1} {who}: {last.wall_s:.2f} s, {last.cpu_s:.2f} s CPU, "
                f"{last.max_rss_kb / 1024:.0f} MiB, exit {last.exit_code}",
                flush=True,
            )
    medians = {
        who: (
            statistics.median(s.wall_s for s in got),
            statistics.median(s.cpu_s for s in got),
            max(s.max_rss_kb for s in got) / 1024,
        )
        for who, got in samples.items()
    }
    load = os.getloadavg()
    print(f"\nmedians of {opts.runs} runs (load average {load[0]:.1f}/{load[1]:.1f} at the end):")
    for who, (wall, cpu, rss) in medians.items():
        print(f"  {who}: {wall:.2f} s, {cpu:.2f} s CPU, peak {rss:.0f} MiB")
    wall, cpu, _ = medians["ours"]
    for other in ("before", "rpk"):
        if other in medians:
            print(f"  ours/{other}: {wall / medians[other][0]:.2f}x wall, {cpu / medians[other][1]:.2f}x CPU")


if __name__ == "__main__":
    main()
