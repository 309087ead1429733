"""A tool run as a whole process ends as soon as it is done (kafka_groups/cli/process.py), and
the ending loses nothing: all of its output, its exit status, the exit handlers, and a thread
still at work is waited for. Each case is a fresh interpreter running a stand-in ``main``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(body: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "tool.py"
    script.write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "from kafka_groups.cli.process import run_as_process\n" + body
    )
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)


def test_output_status_and_exit_handlers_survive_the_quick_end(tmp_path):
    proc = _run(
        "import atexit\n"
        "atexit.register(lambda: print('handler ran', file=sys.stderr))\n"
        "atexit.register(lambda: sys.stdout.write('y'))\n"
        "def main():\n"
        "    sys.stdout.write('x' * 200_000)  # more than any pipe or buffer holds, no newline\n"
        "    sys.stderr.write('last words')\n"
        "    sys.exit(3)\n"
        "run_as_process(main)\n",
        tmp_path,
    )
    assert proc.returncode == 3
    assert proc.stdout == "x" * 200_000 + "y"
    assert proc.stderr == "last wordshandler ran\n"


def test_a_closed_stdout_keeps_the_status_and_runs_the_handlers_once(tmp_path):
    proc = _run(
        "import atexit\n"
        "atexit.register(lambda: sys.stderr.write('handler ran;'))\n"
        "def main():\n"
        "    sys.stdout.close()\n"
        "    sys.exit(5)\n"
        "run_as_process(main)\n",
        tmp_path,
    )
    assert (proc.returncode, proc.stderr) == (5, "handler ran;")


def test_a_main_that_returns_is_status_zero(tmp_path):
    proc = _run("run_as_process(lambda: print('done'))\n", tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "done\n")


def test_a_thread_still_at_work_is_waited_for(tmp_path):
    marker = tmp_path / "written"
    proc = _run(
        "import threading, time\n"
        "def late():\n"
        "    time.sleep(0.5)\n"
        f"    open({str(marker)!r}, 'w').write('done')\n"
        "def main():\n"
        "    threading.Thread(target=late).start()\n"
        "    sys.exit(4)\n"
        "run_as_process(main)\n",
        tmp_path,
    )
    assert proc.returncode == 4
    assert marker.read_text() == "done"


def test_a_message_as_exit_code_is_printed_as_python_prints_it(tmp_path):
    proc = _run("run_as_process(lambda: sys.exit('gave up'))\n", tmp_path)
    assert (proc.returncode, proc.stderr) == (1, "gave up\n")


@pytest.mark.parametrize(
    "module", ["kafka_groups.cli.consumer_groups", "kafka_groups.cli.streams_groups", "kafka_topics.cli"]
)
def test_each_tool_as_a_process_ends_without_the_interpreter_teardown(module):
    """An object alive at the end says when it is torn down: the tool's process ends before
    that, with its help printed and status 0; its main called from Python still raises
    SystemExit and leaves the teardown to the interpreter."""
    probe = (
        "import sys\n"
        "class Probe:\n"
        "    def __del__(self):\n"
        "        sys.stderr.write('torn down')\n"
        "probe = Probe()\n"
        "sys.argv = ['tool', '--help']\n"
        f"import {module} as tool\n"
    )
    ended = subprocess.run(
        [sys.executable, "-c", probe + "tool.console()\n"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert ended.returncode == 0 and "--bootstrap-server" in ended.stdout
    assert "torn down" not in ended.stderr
    called = subprocess.run(
        [sys.executable, "-c", probe + "tool.main()\n"], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert called.returncode == 0 and "torn down" in called.stderr


def test_the_installed_commands_are_the_process_entries():
    from importlib.metadata import entry_points

    installed = {e.name: e.value for e in entry_points(group="console_scripts")}
    assert installed["kafka-consumer-groups"] == "kafka_groups.cli.consumer_groups:console"
    assert installed["kafka-streams-groups"] == "kafka_groups.cli.streams_groups:console"
    assert installed["kafka-topics"] == "kafka_topics.cli:console"


def _shell(body: str, tmp_path: Path, redirect: str) -> subprocess.CompletedProcess[str]:
    """As :func:`_run`, with the process's standard streams redirected by the shell."""
    script = tmp_path / "tool.py"
    script.write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "from kafka_groups.cli.process import run_as_process\n" + body
    )
    command = f"exec {sys.executable} {script} {redirect}"
    return subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=60)


def test_a_process_started_with_stdout_closed_says_so_and_opens_nothing_in_its_place(tmp_path):
    """Python leaves sys.stdout None: a print would be dropped without a word. The descriptor is
    held by /dev/null, so a file the tool opens never takes it (nor what C code writes to it)."""
    proc = _shell(
        "def main():\n"
        f"    with open({str(tmp_path / 'backup')!r}, 'w') as f:\n"
        "        sys.stderr.write(f'fd={f.fileno()};')\n"
        "    print('rows')\n"
        "run_as_process(main)\n",
        tmp_path,
        ">&-",
    )
    fd = int(proc.stderr.split(";")[0].removeprefix("fd="))
    assert fd > 2
    assert (proc.returncode, proc.stderr.split(";", 1)[1]) == (
        1,
        "Error: the output could not be written to stdout (stdout is closed)\n",
    )


@pytest.mark.parametrize(("status", "expected"), [(0, 1), (3, 3)])
def test_output_refused_at_the_last_flush_is_one_line(tmp_path, status, expected):
    """Not yet reported by the tool: one line, and a status 0 becomes 1 (a failure stays)."""
    proc = _shell(
        "def main():\n"
        "    sys.stdout = open('/dev/full', 'w', buffering=65536)  # a buffer that holds the rows\n"
        "    print('rows')\n"
        f"    sys.exit({status})\n"
        "run_as_process(main)\n",
        tmp_path,
        "",
    )
    assert (proc.returncode, proc.stderr) == (
        expected,
        "Error: the output could not be written to stdout (No space left on device)\n",
    )


def test_a_full_stdout_the_tool_reported_is_not_reported_again(tmp_path):
    proc = _shell(
        "from kafka_groups.render.stdio import report_stdout_failure\n"
        "def main():\n"
        "    sys.stdout = open('/dev/full', 'w', buffering=65536)\n"
        "    print('rows')\n"
        "    report_stdout_failure()\n"
        "run_as_process(main)\n",
        tmp_path,
        "",
    )
    assert (proc.returncode, proc.stderr) == (0, "")


def test_no_traceback_when_stdout_and_stderr_both_fail(tmp_path):
    proc = _shell("run_as_process(lambda: print('rows'))\n", tmp_path, ">/dev/full 2>&-")
    assert proc.returncode == 1


def test_an_interrupt_before_the_tool_took_over_stops_it_with_nothing_sent(tmp_path):
    proc = _run("def main():\n    raise KeyboardInterrupt\nrun_as_process(main)\n", tmp_path)
    assert (proc.returncode, proc.stderr) == (
        130,
        "Interrupted (SIGINT): stopped before any change was sent; nothing changed.\n",
    )
