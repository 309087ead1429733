"""A fork server for our tools: one Python process imports the tools once, then forks a fresh child
per request, so each run is a real process (its own environment, module state and native Kafka
clients, which die with it) without paying for the interpreter's start-up and the imports.

Run as ``python -m tests.forkserver`` (PYTHONPATH at the checkout). Requests are JSON lines on
stdin: {"tool", "args", "env", "cwd", "out", "err"}; the child runs the tool's ``main(args)`` with the
environment ``env`` (the server's own, changed by the caller), stdin from /dev/null and stdout /
stderr written to the files ``out`` and ``err`` (not terminals). The answer is a JSON line
{"code": exit status} on the server's original stdout. The server holds no threads and no
Kafka clients, so forking it is safe.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback

TOOLS = {
    "kafka-consumer-groups": "kafka_groups.cli.consumer_groups",
    "kafka-streams-groups": "kafka_groups.cli.streams_groups",
    "kafka-topics": "kafka_topics.cli",
}


def _child(request: dict[str, object], entry: object) -> None:
    code = 1
    try:
        os.environ.clear()
        os.environ.update(request["env"])  # type: ignore[arg-type]
        os.chdir(str(request["cwd"]))
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, key in ((1, "out"), (2, "err")):
            target = os.open(str(request[key]), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(target, fd)
            os.close(target)
        sys.argv = [str(request["tool"]), *request["args"]]  # type: ignore[misc]
        try:
            entry(list(request["args"]))  # type: ignore[operator, call-overload]
            code = 0
        except SystemExit as exc:
            if exc.code is None:
                code = 0
            elif isinstance(exc.code, int):
                code = exc.code
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code % 256)


def main() -> None:
    entries = {tool: importlib.import_module(module).main for tool, module in TOOLS.items()}
    replies = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # nothing the server or a child prints can reach the reply channel
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            replies.close()
            _child(request, entries[request["tool"]])
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        replies.write(json.dumps({"code": code}) + "\n")
        replies.flush()


if __name__ == "__main__":
    main()


class ForkServer:
    """The client side, used by the ``ours`` fixture: ``run`` gives what ``subprocess.run`` gives."""

    def __init__(self, root: str, timeout: float = 120) -> None:
        import subprocess
        import tempfile
        import threading

        self._subprocess = subprocess
        self.root = root
        self.timeout = timeout
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None
        self._dir = tempfile.TemporaryDirectory(prefix="ours-")

    def _start(self) -> None:
        env = {**os.environ, "PYTHONPATH": self.root}
        self._proc = self._subprocess.Popen(
            [sys.executable, "-m", "tests.forkserver"],
            stdin=self._subprocess.PIPE,
            stdout=self._subprocess.PIPE,
            text=True,
            env=env,
            cwd=os.getcwd(),
            start_new_session=True,
        )

    def run(self, tool: str, *args: str, env: dict[str, str] | None = None) -> object:
        import selectors
        import signal

        from tests.inprocess import DROPPED_ENV, decode

        full_env = {**os.environ, "PYTHONPATH": self.root}
        for name in DROPPED_ENV:
            full_env.pop(name, None)
        full_env.update(env or {})
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start()
            proc = self._proc
            assert proc is not None and proc.stdin is not None and proc.stdout is not None
            out, err = os.path.join(self._dir.name, "out"), os.path.join(self._dir.name, "err")
            request = {
                "tool": tool,
                "args": list(args),
                "env": full_env,
                "cwd": os.getcwd(),
                "out": out,
                "err": err,
            }
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            with selectors.DefaultSelector() as sel:
                sel.register(proc.stdout, selectors.EVENT_READ)
                if not sel.select(self.timeout):
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    self._proc = None
                    raise self._subprocess.TimeoutExpired([tool, *args], self.timeout)
            reply = proc.stdout.readline()
            if not reply:
                self._proc = None
                raise RuntimeError(f"the fork server for our tools died running {tool}")
            code = json.loads(reply)["code"]
            with open(out, "rb") as o, open(err, "rb") as e:
                stdout, stderr = decode(o.read()), decode(e.read())
        return self._subprocess.CompletedProcess([tool, *args], code, stdout, stderr)

    def close(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is not None:
            assert proc.stdin is not None
            proc.stdin.close()
            try:
                proc.wait(10)
            except self._subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._dir.cleanup()
