"""A child process's output, read as it comes: bounded in memory, whole on disk.

`run_captured` runs a command (an agent, a test run) in its own process group and keeps
each stream's head and tail (`Captured`): a gigabyte of output costs about a megabyte, and
the final report a tool prints at the end is still there; a `sink` file gets every byte as
it arrives. When the command ends, times out or is interrupted, its group is killed, and
on Linux so is what it left outside the group (the executor is a child subreaper), so no
leftover process can swap code while the tests run (docs/reliability.md, "Nothing an
agent writes passes unseen"). With `warden` it dies with the executor too
(`executor.die_with_parent`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from executor.die_with_parent import Warden

#: What each stream keeps of a long output: its beginning and its end.
HEAD_BYTES = 256 * 1024
TAIL_BYTES = 1024 * 1024
#: The most of one line handed to `on_line` (a live progress display).
LINE_BYTES = 64 * 1024
_CHUNK = 64 * 1024
#: Once the group is killed, how long to wait for the output still in the pipes (a
#: process that left the group with `setsid` can hold them open for ever).
_DRAIN_SECONDS = 5.0


class Captured:
    """One output stream as kept: its head, its tail, and how many bytes it had."""

    def __init__(self, head: int = HEAD_BYTES, tail: int = TAIL_BYTES) -> None:
        self._head_max = head
        self._tail_max = tail
        self._head = bytearray()
        self._tail = bytearray()
        self._lock = threading.Lock()
        #: Every byte the stream carried, kept or not.
        self.total = 0

    def add(self, chunk: bytes) -> None:
        with self._lock:
            self.total += len(chunk)
            room = self._head_max - len(self._head)
            if room > 0:
                self._head += chunk[:room]
                chunk = chunk[room:]
            self._tail += chunk
            if len(self._tail) > 2 * self._tail_max:  # trimmed now and then, not per chunk
                del self._tail[: len(self._tail) - self._tail_max]

    def last(self, n: int) -> bytes:
        """The stream's last `n` bytes, as far as they were kept."""
        if n <= 0:
            return b""
        with self._lock:
            data = bytes(self._tail[-n:])
            whole = len(self._head) + len(self._tail) == self.total  # nothing left out
            if len(data) < n and whole:
                data = bytes(self._head[-(n - len(data)) :]) + data
            return data

    def text(self) -> str:
        """The output as text: all of it, or its head and its tail around a line that
        says how many bytes were left out."""
        with self._lock:
            head = bytes(self._head)
            tail = bytes(self._tail[-self._tail_max :])
            cut = self.total - len(head) - len(tail)
        middle = f"\n[... {cut} bytes of output left out ...]\n".encode() if cut else b""
        return (head + middle + tail).decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Finished:
    """How a command ended, and what it printed."""

    returncode: int
    out: Captured
    #: Empty when stderr was merged into `out`.
    err: Captured
    timed_out: bool
    seconds: float
    #: Processes the command started outside its group that were still running when it
    #: ended (and were killed): Linux only, empty elsewhere.
    left: tuple[int, ...] = ()
    #: Bytes of output not copied to the `sink` (past its `sink_limit`).
    sink_cut: int = 0
    #: Seconds it was given beyond its timeout (`run_captured`'s `more_time`).
    extended: float = 0.0


def run_captured(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    stdin: bytes | None = None,
    merge: bool = False,
    sink: IO[bytes] | None = None,
    sink_limit: int | None = None,
    on_line: Callable[[str], None] | None = None,
    warden: bool = False,
    on_start: Callable[[int], None] | None = None,
    pass_fds: Sequence[int] = (),
    more_time: Callable[[], float] | None = None,
) -> Finished:
    """Run `argv` in its own process group and read what it prints (module docstring).

    `stdin`: bytes written to it (None: no input). `merge`: stderr goes into the stdout
    stream. `sink`: a file every byte of output is written to as it arrives (a write that
    fails ends the copy, never the run), up to `sink_limit` bytes when given (what is
    left out is counted: `Finished.sink_cut`). `on_line`: called with each line of stdout
    as it comes. `warden`: the command's group is killed if the executor dies before it
    ends (module docstring). `on_start`: called with its pid once it runs. `pass_fds`:
    descriptors it inherits (no other one does). `more_time`: asked once when `timeout`
    is reached, the seconds the command gets beyond it (`Finished.extended`). Raises
    OSError when the command cannot be started.
    """
    started = time.monotonic()
    with _LIVE_LOCK:  # no other command's end takes this one for its orphan meanwhile
        before = _children() if _subreaper() else None
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merge else subprocess.PIPE,
            start_new_session=True,
            pass_fds=tuple(pass_fds),
        )
        _LIVE.add(proc.pid)
    try:
        return _follow(proc, before, started, timeout=timeout, stdin=stdin, sink=sink,
                       sink_limit=sink_limit, on_line=on_line, warden=warden,
                       on_start=on_start, more_time=more_time)  # fmt: skip
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(proc.pid)


def _follow(
    proc: subprocess.Popen[bytes],
    before: set[int] | None,
    started: float,
    *,
    timeout: float,
    stdin: bytes | None,
    sink: IO[bytes] | None,
    sink_limit: int | None,
    on_line: Callable[[str], None] | None,
    warden: bool,
    on_start: Callable[[int], None] | None,
    more_time: Callable[[], float] | None,
) -> Finished:
    """`run_captured` once its command runs: read it, wait for it, end what it left."""
    watcher = Warden(proc.pid) if warden else None
    if watcher is not None and watcher.pid is not None:
        with _LIVE_LOCK:
            _LIVE.add(watcher.pid)
        if before is not None:
            before.add(watcher.pid)
    if on_start is not None:
        on_start(proc.pid)
    out, err = Captured(), Captured()
    copy = _Sink(sink, sink_limit)
    assert proc.stdout is not None
    threads = [_start(_read, proc.stdout, out, copy, _Lines(on_line) if on_line else None)]
    if proc.stderr is not None:
        threads.append(_start(_read, proc.stderr, err, copy, None))
    if proc.stdin is not None and stdin is not None:
        threads.append(_start(_write, proc.stdin, stdin))
    timed_out, extended = False, 0.0
    try:
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            extended = max(0.0, more_time()) if more_time is not None else 0.0
            if not extended:
                raise
            proc.wait(timeout=extended)
    except subprocess.TimeoutExpired:
        timed_out = True
    except BaseException:  # Ctrl+C / SIGTERM: leave no orphan process behind
        _kill_group(proc)
        proc.wait()
        if watcher is not None:
            _release(watcher)
        if before is not None:
            _end_orphans(before)
        raise
    _kill_group(proc)  # what it started may not go on changing files after its step
    proc.wait()
    if watcher is not None:
        _release(watcher)
    left = _end_orphans(before) if before is not None else ()
    deadline = time.monotonic() + _DRAIN_SECONDS
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    seconds = time.monotonic() - started
    return Finished(proc.returncode, out, err, timed_out, seconds, left, copy.cut, extended)


def _start(target: Callable[..., None], *args: object) -> threading.Thread:
    thread = threading.Thread(target=target, args=args, daemon=True)
    thread.start()
    return thread


def _read(pipe: IO[bytes], kept: Captured, copy: _Sink, lines: _Lines | None) -> None:
    with pipe:
        while chunk := os.read(pipe.fileno(), _CHUNK):
            kept.add(chunk)
            copy.write(chunk)
            if lines is not None:
                lines.feed(chunk)
    if lines is not None:
        lines.close()


def _write(pipe: IO[bytes], data: bytes) -> None:
    with contextlib.suppress(OSError), pipe:  # it exited or closed its input: nothing to do
        pipe.write(data)


class _Sink:
    """The file every byte of output is copied to (up to `limit` bytes), shared by the
    stream readers."""

    def __init__(self, file: IO[bytes] | None, limit: int | None = None) -> None:
        self._file = file
        self._room = limit
        self._lock = threading.Lock()
        #: Bytes not copied because the limit was reached.
        self.cut = 0

    def write(self, chunk: bytes) -> None:
        with self._lock:
            if self._file is None:
                return
            if self._room is not None:
                kept, self.cut = chunk[: self._room], self.cut + max(0, len(chunk) - self._room)
                self._room -= len(kept)
                chunk = kept
                if not chunk:
                    return
            try:
                self._file.write(chunk)
            except (OSError, ValueError):  # disk full, or closed: the copy ends here
                self._file = None


@contextlib.contextmanager
def transcript(log: Path | None, header: str) -> Iterator[IO[bytes] | None]:
    """A transcript file at `log` (never committed: `.agent-logs/` is the executor's),
    starting with `header`; None when there is no log or it could not be made (the
    command runs without it). `end_transcript` writes how it ended."""
    sink = _new_file(log) if log is not None else None
    if sink is None:
        yield None
        return
    with sink:
        write_transcript(sink, header)
        yield sink


def end_transcript(sink: IO[bytes] | None, how: str) -> None:
    if sink is not None:
        write_transcript(sink, f"\n# {how}\n")


def write_transcript(sink: IO[bytes], text: str | bytes) -> None:
    data = text.encode() if isinstance(text, str) else text
    with contextlib.suppress(OSError, ValueError):  # a full disk ends it, not the run
        sink.write(data)


def _new_file(path: Path) -> IO[bytes] | None:
    """A new, empty file at `path`: whatever an agent left under that name (a link, say)
    is removed first, never written through."""
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        return os.fdopen(os.open(path, flags, 0o644), "wb", buffering=0)
    except OSError:
        return None


class _Lines:
    """Output chunks -> lines for `on_line`, each cut at LINE_BYTES."""

    def __init__(self, on_line: Callable[[str], None]) -> None:
        self._on_line = on_line
        self._partial = b""

    def feed(self, chunk: bytes) -> None:
        *lines, rest = (self._partial + chunk).split(b"\n")
        self._partial = rest[:LINE_BYTES]
        for line in lines:
            self._say(line[:LINE_BYTES])

    def close(self) -> None:
        if self._partial:
            self._say(self._partial)
            self._partial = b""

    def _say(self, raw: bytes) -> None:
        with contextlib.suppress(Exception):  # a display problem never stops a run
            self._on_line(raw.decode("utf-8", errors="replace"))


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


#: `prctl` option: orphaned descendants are re-parented to this process, not to init.
_PR_SET_CHILD_SUBREAPER = 36
#: How many times the orphans are looked for again (each killed one's own children
#: become ours in turn).
_ORPHAN_ROUNDS = 50


@functools.cache
def _subreaper() -> bool:
    """Make this process a child subreaper (once); whether it is one (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _children() -> set[int]:
    """The processes whose parent is this one (from /proc)."""
    me, found = os.getpid(), set[int]()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and int(fields[1]) == me:
            found.add(int(name))
    return found


def _release(watcher: Warden) -> None:
    pid = watcher.pid
    watcher.release()
    with _LIVE_LOCK:
        _LIVE.discard(pid or 0)


#: Commands (and their wardens) running now, from any thread: two may run side by side
#: (the mutation run beside GREEN's verification), and one's end must not take the
#: other for an orphan of its own.
_LIVE: set[int] = set()
_LIVE_LOCK = threading.Lock()


def _orphans(before: set[int]) -> set[int]:
    """Children of ours that appeared since `before`, are no command running now, and
    are not in our own process group. A command runs in a session of its own, so nothing
    it starts can join our group: a process there is one the executor started itself
    (a git command of another thread), which only that thread may wait for."""
    with _LIVE_LOCK:
        found = _children() - before - _LIVE
    mine = os.getpgrp()
    out = set()
    for pid in found:
        try:
            if os.getpgid(pid) == mine:
                continue
        except ProcessLookupError:
            continue  # reaped meanwhile by whoever started it
        out.add(pid)
    return out


def _end_orphans(before: set[int]) -> tuple[int, ...]:
    """Kill and reap every child of ours that is not in `before`: what a command left
    behind outside its group, re-parented to us (`_orphans`). The pids found running."""
    ended: list[int] = []
    for _ in range(_ORPHAN_ROUNDS):
        found = _orphans(before)
        if not found:
            break
        running = {pid for pid in found if _running(pid)}  # before the kill makes zombies
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                group = os.getpgid(pid)
                if group != os.getpgrp():  # never our own group
                    os.killpg(group, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for pid in found:
            _reap(pid)
        ended.extend(sorted(running))
    return tuple(ended)


def _running(pid: int) -> bool:
    """Whether child `pid` still runs (is not a zombie waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def _reap(pid: int) -> None:
    """Wait (briefly) for a killed child."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            break
        if done:
            break
        time.sleep(0.01)
