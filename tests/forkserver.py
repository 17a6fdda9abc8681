"""Start `python -m executor` for a test without paying its imports each time.

Most of this suite's CPU went to starting the CLI: about a thousand `python -m executor`
processes, each spending ~0.2 s importing pydantic, markdown-it-py, GitPython, rich and
the executor before doing anything (docs/performance.md). A fork server imports all of
that once per test worker; for each CLI call it forks, and the child becomes the CLI run
exactly as `python -m executor ARGS` would run it: its own process and pid, the caller's
working directory, environment and standard streams (passed over a unix socket), sys.argv
and `__main__` set by runpy, a normal interpreter exit (threads joined, atexit handlers,
buffers flushed) and its exit status or signal handed back.

`popen` and `run_process` are `subprocess.Popen` and `subprocess.run` for `python -m executor`:
pipes, `communicate`, timeouts and signals (by pid) are Popen's own; only the start
differs. What a fork cannot give the same way is decided at interpreter start: the hash
seed, the flags and paths the `PYTHON*` variables set, the locale; and a few Popen
options (a new session, a preexec function). A call that differs from the server in any
of those starts a new interpreter instead, and so does every call when
PE_TESTS_FRESH_PROCESSES=1 (to check that the server hides nothing: the whole suite
passes both ways, docs/performance.md).

Every process `popen` starts is kept until `left_behind`, which kills one still running
and closes the pipes left open (tests/conftest.py fails the test that left them).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: variables the interpreter reads once, at its start
_STARTUP = ("PYTHON", "LC_", "LANG")
FRESH = os.environ.get("PE_TESTS_FRESH_PROCESSES") == "1"


def _startup_env(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(_STARTUP)}


class ForkServer:
    """One server process (started on first use) for this test worker; `close` ends it
    and removes its folder."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._folder: Path | None = None
        self._env: dict[str, str] = {}

    @property
    def socket(self) -> Path:
        assert self._folder is not None, "the fork server has not started"
        return self._folder / "socket"

    def usable(self, env: Mapping[str, str], options: Mapping[str, object]) -> bool:
        """Whether a call with `env` and these Popen options can be a forked child."""
        if FRESH or any(options.get(k) for k in _OWN_START):
            return False
        if self._proc is None or self._proc.poll() is not None:
            self._start(env)
        return _startup_env(env) == self._env

    def fds(self) -> set[int]:
        """The descriptors this process holds for the server (its stdout pipe)."""
        if self._proc is None or self._proc.stdout is None:
            return set()
        return {self._proc.stdout.fileno()}

    def _start(self, env: Mapping[str, str]) -> None:
        self._stop()
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="pe-forkserver-"))
        self._env = _startup_env(env)
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _SERVER, str(self.socket)],
            env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        )  # fmt: skip
        assert self._proc.stdout is not None
        ready = self._proc.stdout.readline()
        if ready != b"ready\n":
            self._stop()
            raise RuntimeError(f"the test fork server did not start: {ready!r}")

    def _stop(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            assert self._proc.stdout is not None
            self._proc.stdout.close()
            self._proc = None
        if self._folder is not None:
            with contextlib.suppress(OSError):
                self.socket.unlink()

    def close(self) -> None:
        self._stop()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


#: Popen options only a process of its own gives
_OWN_START = ("preexec_fn", "start_new_session", "process_group", "pass_fds", "user", "group")
SERVER = ForkServer()


class ForkedPopen(subprocess.Popen[Any]):
    """A Popen of `python -m executor ...` whose child the fork server makes: everything
    else (pipes, communicate, timeouts, signals by pid) is Popen's own."""

    # fmt: off
    def _execute_child(
        self, args: Sequence[str], executable: object, preexec_fn: object, close_fds: bool,
        pass_fds: object, cwd: str | os.PathLike[str] | None, env: Mapping[str, str] | None,
        startupinfo: object, creationflags: int, shell: bool,
        p2cread: int, p2cwrite: int, c2pread: int, c2pwrite: int, errread: int,
        errwrite: int, *_rest: object,
    ) -> None:
        # fmt: on
        argv = list(args)
        assert argv[:3] == [sys.executable, "-m", "executor"], argv
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            fds = [p2cread if p2cread != -1 else null,
                   c2pwrite if c2pwrite != -1 else 1, errwrite if errwrite != -1 else 2]
            request = json.dumps({"args": argv[3:], "cwd": os.fspath(cwd or os.getcwd()),
                                  "env": dict(os.environ if env is None else env)})
            self._server.connect(str(SERVER.socket))
            socket.send_fds(self._server, [request.encode("utf-8") + b"\n"], fds)
            self._said = b""
            self.pid = int(self._line(None) or "0")
            if not self.pid:
                raise RuntimeError("the test fork server did not start the executor")
        except BaseException:
            self._server.close()
            raise
        finally:
            os.close(null)
            self._close_pipe_fds(  # type: ignore[attr-defined]
                p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite
            )

    def _line(self, timeout: float | None) -> str | None:
        """The server's next line (the pid, then the exit status), None past `timeout`."""
        self._server.settimeout(timeout)
        while b"\n" not in self._said:
            try:
                part = self._server.recv(64)
            except (BlockingIOError, TimeoutError):
                return None
            if not part:
                self._server.close()
                raise RuntimeError("the test fork server went away")
            self._said += part
        line, _, self._said = self._said.partition(b"\n")
        return line.decode()

    def _internal_poll(self, _deadstate: int | None = None, **_: object) -> int | None:
        if self.returncode is None and hasattr(self, "_server"):
            line = self._line(0)
            if line is not None:
                self.returncode = int(line)
                self._server.close()
        return self.returncode

    def _wait(self, timeout: float | None) -> int:
        if self.returncode is None:
            line = self._line(timeout)
            if line is None:
                assert timeout is not None
                raise subprocess.TimeoutExpired(self.args, timeout)
            self.returncode = int(line)
            self._server.close()
        return self.returncode


def popen(
    args: Sequence[str], *, env: Mapping[str, str] | None = None, **options: Any
) -> subprocess.Popen[Any]:
    """`subprocess.Popen(args, ...)` for `python -m executor ...`: forked from the server
    where that gives the same process, a new interpreter where it may not."""
    full = dict(os.environ if env is None else env)
    proc: subprocess.Popen[Any]
    if list(args[:3]) == [sys.executable, "-m", "executor"] and SERVER.usable(full, options):
        proc = ForkedPopen(list(args), env=full, **options)
    else:
        proc = subprocess.Popen(list(args), env=env, **options)
    _STARTED.append((proc, list(args)))
    return proc


#: Every process `popen` started since `left_behind` last looked.
_STARTED: list[tuple[subprocess.Popen[Any], list[str]]] = []


def left_behind() -> list[str]:
    """End what the processes `popen` started were left with: one still running is
    killed and waited for, every pipe closed. One line for each that was left so."""
    said = []
    for proc, args in _STARTED:
        what = []
        with contextlib.suppress(RuntimeError):  # its server gone: nothing more to learn
            if proc.poll() is None:
                proc.kill()
                what.append("still running (killed)")
            proc.wait()
        pipes = [f for f in (proc.stdin, proc.stdout, proc.stderr) if f and not f.closed]
        for pipe in pipes:
            pipe.close()
        if pipes:
            what.append(f"{len(pipes)} pipe(s) open")
        if what:
            said.append(f"{shlex.join(args)}: {', '.join(what)}")
    _STARTED.clear()
    return said


def run_process(
    args: Sequence[str],
    *,
    input: str | bytes | None = None,
    capture_output: bool = False,
    timeout: float | None = None,
    check: bool = False,
    **options: Any,
) -> subprocess.CompletedProcess[Any]:
    """`subprocess.run(args, ...)` through `popen` (its own code, but for the start)."""
    if input is not None:
        options["stdin"] = subprocess.PIPE
    if capture_output:
        options["stdout"] = options["stderr"] = subprocess.PIPE
    with popen(args, **options) as proc:
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        code = proc.poll()
        assert code is not None
    if check and code:
        raise subprocess.CalledProcessError(code, proc.args, output=out, stderr=err)
    return subprocess.CompletedProcess(proc.args, code, out, err)


#: The server: imports everything a CLI run imports, then forks one child a request.
_SERVER = r"""
import contextlib, gc, json, os, runpy, select, socket, sys
import git, markdown_it, pydantic, questionary, rich  # noqa: F401
import pkgutil, importlib, executor
for info in pkgutil.walk_packages(executor.__path__, "executor."):
    if info.name not in ("executor.__main__",):
        importlib.import_module(info.name)
# what the imports built is no garbage: a child's collections (and its exit's) skip it
gc.freeze()
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(sys.argv[1])
listener.listen()
sys.stdout.write("ready\n")
sys.stdout.flush()

def serve():
    # requests accepted and children's ends reported as they come: several children of
    # one test may run at once (a run, and a `logs -f` following it)
    waiting = {}  # pidfd -> (pid, the caller's connection)
    while True:
        ready, _, _ = select.select([listener, *waiting], [], [])
        for fd in ready:
            if fd is not listener:
                pid, conn = waiting.pop(fd)
                _, status = os.waitpid(pid, 0)
                os.close(fd)
                with contextlib.suppress(OSError):  # gone: the caller gave up (its timeout)
                    conn.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
                conn.close()
                continue
            conn, _ = listener.accept()
            data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 22, 3)
            while not data.endswith(b"\n"):
                data += conn.recv(1 << 22)
            request = json.loads(data)
            pid = os.fork()
            if pid == 0:
                listener.close()
                conn.close()
                for other, (_, held) in waiting.items():
                    os.close(other)
                    held.close()
                for target, fd in enumerate(fds):
                    os.dup2(fd, target)
                    os.close(fd)
                os.chdir(request["cwd"])
                os.environ.clear()
                os.environ.update(request["env"])
                return request["args"]
            for fd in fds:
                os.close(fd)
            waiting[os.pidfd_open(pid)] = (pid, conn)
            with contextlib.suppress(OSError):
                conn.sendall(f"{pid}\n".encode())

args = serve()
sys.argv = ["executor", *args]
runpy.run_module("executor", run_name="__main__", alter_sys=True)
"""
