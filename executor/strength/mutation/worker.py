"""The worker of a mutation run: the pytest process, forked from the judge before any
conftest.py or test module is imported. It collects, runs the session's tests once
traced, then answers the judge's questions: trace these tests; run these tests with
these code objects swapped in (in a forked child each time)."""

from __future__ import annotations

import base64
import contextlib
import json
import marshal
import os
import signal
import time
from typing import Any

from .source import Codes, Files, item_path, junit_id, live, session_tests


class Worker:
    def __init__(self, session: Any, spec: dict[str, Any], questions: int, answers: int) -> None:
        from _pytest.runner import runtestprotocol

        self.protocol = runtestprotocol
        self.session, self.spec = session, spec
        self.questions, self.answers = questions, answers
        self.root = os.getcwd()
        self.files = Files(self.root, self.spec["mutants"])
        self.items: dict[str, Any] = {item.nodeid: item for item in session.items}
        #: the functions made from the mutated files, found once after each trace
        self.functions: list[Any] | None = None

    def serve(self) -> None:
        listed = []
        for item in self.items.values():
            rel = os.path.normpath(os.path.relpath(str(item_path(item)), self.root))
            listed.append((item.nodeid, rel, junit_id(item, rel)))
        session = self.spec["session"]
        mine = session_tests(listed, session["files"], session.get("ids"))
        traced = {} if self.session.testsfailed else self.trace(mine)
        self.answer({"items": listed, "errors": self.session.testsfailed, "traced": traced})
        buffered = b""
        while True:
            while b"\n" not in buffered:
                chunk = os.read(self.questions, 1 << 16)
                if not chunk:
                    return  # the judge has asked all it will
                buffered += chunk
            line, buffered = buffered.split(b"\n", 1)
            question = json.loads(line)
            if "trace" in question:
                self.answer({"traced": self.trace(question["trace"])})
            else:
                codes = {(p, n, k): c for p, n, k, c
                         in marshal.loads(base64.b64decode(question["codes"]))}  # fmt: skip
                status, why = self.attempt(question["try"], codes, float(question["limit"]))
                by = int(why) if status == "killed" else None
                self.answer({"status": status, "why": "" if by is not None else why, "by": by})

    def answer(self, said: dict[str, Any]) -> None:
        data = (json.dumps(said) + "\n").encode()
        while data:
            data = data[os.write(self.answers, data) :]

    def trace(self, nodeids: list[str]) -> dict[str, Any]:
        items = [self.items[n] for n in nodeids if n in self.items]
        self.functions = None  # a test may import what makes more of them
        return self.files.trace(items, self.protocol)

    def attempt(self, nodeids: list[str], codes: Codes, limit: float) -> tuple[str, str]:
        """Run `nodeids` with `codes` swapped in, in a child process: (status, why); the
        why of a kill is the index of the test that failed."""
        items = [self.items[n] for n in nodeids if n in self.items]
        if self.functions is None:
            self.functions = live(self.files.real)  # a walk of every object: once
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(read)
            self.child(codes, items, write)
        os.close(write)
        ends = time.monotonic() + limit
        nap = 0.001
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > ends:
                for kill in (os.killpg, os.kill):
                    with contextlib.suppress(OSError):
                        kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                os.close(read)
                return "timeout", ""
            time.sleep(nap)
            nap = min(nap * 2, 0.02)
        said = b""
        while chunk := os.read(read, 65536):
            said += chunk
        os.close(read)
        code = os.waitstatus_to_exitcode(status)
        if code == 1:
            return "killed", said.decode()
        if code == 0:
            return "survived", ""
        return "error", said.decode("utf-8", "replace") or f"exit {code}"

    def child(self, codes: Codes, items: list[Any], write: int) -> None:
        try:
            os.setpgid(0, 0)
            quiet = os.open(os.devnull, os.O_WRONLY)
            os.dup2(quiet, 1)
            os.dup2(quiet, 2)
            swapped = 0
            for f in self.functions or ():
                c = f.__code__
                new = codes.get((os.path.realpath(c.co_filename), c.co_name, c.co_firstlineno))
                if new is not None:
                    f.__code__ = new
                    swapped += 1
            if not swapped:
                os.write(write, b"no live function holds it")
                os._exit(3)
            option = items[0].config.option
            option.tbstyle, option.showlocals = "native", False  # a failure is not shown
            for n, item in enumerate(items):
                if any(r.failed for r in self.protocol(item, nextitem=None, log=False)):
                    os.write(write, str(n).encode())
                    os._exit(1)
            os._exit(0)
        except BaseException as e:
            os.write(write, repr(e).encode("utf-8", "replace")[:500])
            os._exit(2)
