"""Where the time of one ``--reset-offsets --execute`` goes: the command run in this process
with each step of the reset path timed (wall and CPU of the whole process, every thread), then a
table of the steps in the order they ran, nested as they call each other.

    python -m bench.reset_phases --bootstrap B --partitions 30000 [--recommit]

The command is bench/reset_scale.py's (``--group scale-pN-group --topic scale-pN
--reset-offsets --to-earliest --execute``, the plan on stdout sent to /dev/null as the
benchmarks do); ``--recommit`` first puts the group back at offset 1 (bench/scale_setup.py), so
the run moves every partition. Only for finding where time goes: the wrapping adds a few
microseconds a call, and the benchmarks (bench/reset_scale.py, bench/scale.py) measure the
command itself.
"""

from __future__ import annotations

import argparse
import functools
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

START = time.perf_counter()

from bench.scale_setup import partition_group, partition_topic  # noqa: E402

# (module, owner in it or "", function): the steps of the reset path that are timed.
STEPS: tuple[tuple[str, str, str], ...] = (
    ("kafka_groups.commands.reset_offsets", "", "cluster_session"),
    ("kafka_groups.commands.reset_offsets", "", "gather"),
    ("kafka_groups.commands.reset_offsets", "", "plan_reset"),
    ("kafka_groups.commands.reset_apply", "", "name_target"),
    ("kafka_groups.commands.reset_apply", "", "back_up"),
    ("kafka_groups.commands.reset_apply", "", "announce"),
    ("kafka_groups.commands.reset_apply", "", "recheck"),
    ("kafka_groups.commands.reset_apply", "Write", "run"),
    ("kafka_groups.commands.reset_commit", "", "route"),
    ("kafka_groups.commands.reset_gather", "", "gather_groups"),
    ("kafka_groups.commands.reset_commit", "", "commit"),
    ("kafka_groups.commands.reset_commit", "", "read_back"),
    ("kafka_groups.commands.reset_commit", "", "_recheck_group"),
    ("kafka_groups.access.cluster", "KafkaAccess", "describe_groups"),
    ("kafka_groups.access.cluster", "KafkaAccess", "committed_positions"),
    ("kafka_groups.access.cluster", "KafkaAccess", "partition_leaders"),
    ("kafka_groups.access.cluster", "KafkaAccess", "topic_partitions"),
    ("kafka_groups.access.cluster", "KafkaAccess", "log_offsets_of"),
    ("kafka_groups.access.cluster", "KafkaAccess", "offsets_topic_limit"),
    ("kafka_groups.access.cluster", "KafkaAccess", "begin_transaction"),
    ("kafka_groups.access.cluster", "KafkaAccess", "add_offsets_to_transaction"),
    ("kafka_groups.access.cluster", "KafkaAccess", "commit_offsets_in_transaction"),
    ("kafka_groups.access.cluster", "KafkaAccess", "commit_parts_in_transaction"),
    # a coroutine: its line says when each attempt began (how often the read was asked again)
    ("kafka_groups.access.cluster", "KafkaAccess", "_stable_fetch"),
    ("kafka_groups.access.cluster", "KafkaAccess", "end_transaction"),
    ("kafka_groups.access.cluster", "KafkaAccess", "committed_stable"),
    ("kafka_groups.access.cluster", "KafkaAccess", "alter_offsets"),
    ("kafka_groups.access.cluster", "KafkaAccess", "close"),
    ("kafka_groups.commands.backup", "", "save_backup"),
    ("kafka_groups.render.registry", "", "deliver"),
)

# depth, name, wall start, wall, cpu start, cpu, thread (main, or the one the step ran on)
Record = tuple[int, str, float, float, float, float, str]
records: list[Record] = []
nesting = threading.local()  # each thread's depth: a coroutine of the protocol layer runs on its own


def _thread() -> str:
    thread = threading.current_thread()
    return "main" if thread is threading.main_thread() else thread.name[:10]


def timed(name: str, function: Any) -> Any:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        level = getattr(nesting, "depth", 0)
        nesting.depth = level + 1
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            nesting.depth = level
            took, used = time.perf_counter() - wall, time.process_time() - cpu
            records.append((level, name, wall - START, took, cpu, used, _thread()))

    return wrapper


def wrap_steps() -> None:
    import importlib

    for module_name, owner_name, name in STEPS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        owner = getattr(module, owner_name) if owner_name else module
        function = getattr(owner, name, None)
        if function is None:
            continue
        label = f"{owner_name}.{name}" if owner_name else name
        setattr(owner, name, timed(label, function))
        if not owner_name:  # the modules that imported it by name call their own binding
            for other in list(sys.modules.values()):
                if other is not None and getattr(other, name, None) is function:
                    setattr(other, name, getattr(owner, name))


def report(total_wall: float, total_cpu: float) -> str:
    """The steps by start time; ``thread``: the one a step ran on (main, or the protocol
    layer's network thread for a coroutine). The CPU is the whole process's while the step ran,
    so steps that overlap share theirs."""
    lines = [f"{'start s':>8} {'wall s':>7} {'cpu s':>6} {'thread':>10}  step"]
    for level, name, start, wall, _cpu_start, cpu, where in sorted(records, key=lambda r: (r[2], r[0])):
        lines.append(f"{start:8.3f} {wall:7.3f} {cpu:6.3f} {where:>10}  {'  ' * level}{name}")
    lines.append(
        f"{0:8.3f} {total_wall:7.3f} {total_cpu:6.3f} {'':>10}  the whole run (from this script's start)"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--partitions", type=int, default=30000)
    parser.add_argument("--recommit", action="store_true", help="put the group back at offset 1 first")
    parser.add_argument("--backup-dir", default=None)
    args = parser.parse_args()
    n = args.partitions
    if args.recommit:
        subprocess.run(
            [sys.executable, "-m", "bench.scale_setup", args.bootstrap, "recommit", str(n)],
            cwd=ROOT,
            check=True,
        )
    global START
    START = time.perf_counter()
    cpu0 = time.process_time()
    import tempfile

    backups = args.backup_dir or tempfile.mkdtemp(prefix="reset-phases-")
    argv = [
        "--bootstrap-server",
        args.bootstrap,
        "--group",
        partition_group(n),
        "--topic",
        partition_topic(n),
        "--reset-offsets",
        "--to-earliest",
        "--execute",
        "--backup-dir",
        backups,
    ]
    # Imported here so their functions can be wrapped before the command runs.
    import kafka_groups.access.cluster
    import kafka_groups.commands.backup
    import kafka_groups.commands.reset_apply
    import kafka_groups.commands.reset_commit
    import kafka_groups.commands.reset_offsets
    import kafka_groups.render.registry  # noqa: F401
    from kafka_groups.cli import consumer_groups

    wrap_steps()
    imported = time.perf_counter() - START
    stdout = sys.stdout
    code: int | str | None = 0
    with open(os.devnull, "w") as sink:
        sys.stdout = sink
        try:
            consumer_groups.main(argv)
        except SystemExit as exc:
            code = exc.code
        finally:
            sys.stdout = stdout
    total = time.perf_counter() - START
    print(f"exit {code}; imports before the run {imported:.3f} s", file=sys.stderr)
    print(report(total, time.process_time() - cpu0), file=sys.stderr)


if __name__ == "__main__":
    main()
