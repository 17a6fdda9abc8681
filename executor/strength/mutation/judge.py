"""The judge of a mutation run: the process the executor started, which never runs a
line of the project. It asks the worker (`worker`) over a pair of pipes, keeps the score,
and writes the results over its socket to the executor (the package's docstring)."""

from __future__ import annotations

import base64
import contextlib
import json
import marshal
import os
import select
import time
from typing import Any

from .source import Codes, Files, session_tests

#: The most of one answer of the worker that is read.
ANSWER_BYTES = 64 * 1024 * 1024
STATUSES = {"killed", "survived", "timeout", "error"}


class Broken(Exception):
    """The worker did not answer as asked: nothing it said is taken."""


class Judge:
    def __init__(
        self, spec: dict[str, Any], channel: int, ask: int, hear: int, started: float
    ) -> None:
        self.spec, self.channel, self.ask_fd, self.hear_fd = spec, channel, ask, hear
        self.deadline = started + float(spec["seconds"])
        #: past the deadline, the question it waits for and a sham may still end
        self.slack = float(spec["slack"])
        self.parent = os.getppid()
        self.root = os.getcwd()
        self.mutants: list[dict[str, Any]] = spec["mutants"]
        self.files = Files(self.root, self.mutants)
        self.codes = [self.files.mutated(m) for m in self.mutants]
        self.heard = b""
        self.listed: list[tuple[str, str, str]] = []
        #: nodeid -> (mutant lines it reaches, seconds, failed)
        self.traced: dict[str, tuple[set[tuple[str, int]], float, bool]] = {}
        self.mine: list[str] = []
        self.others: list[str] = []
        self.others_traced = False
        #: (file, statement, tests...) -> whether those tests passed a sham
        self.shams: dict[tuple[Any, ...], bool] = {}
        self.asked: list[tuple[Any, ...]] = []  # the shams run

    def main(self, worker: int) -> None:
        records = 0
        try:
            problem = self.baseline()
            for i, mutant in enumerate(self.mutants if not problem else []):
                if os.getppid() != self.parent:
                    return  # the executor is gone: nobody reads this any more
                judged = None if time.monotonic() > self.deadline else self.judge(i, mutant)
                if judged is None:
                    self.put({"stopped": "budget"})
                    break
                self.put(judged)
                records += 1
        except Broken as e:
            problem = str(e) or "the test process stopped answering"
        if problem:
            self.put({"error": problem})
        self.put({"end": {"records": records, "shams": len(self.asked)}})
        os.close(self.channel)
        self.stop(worker)

    def baseline(self) -> str:
        """The worker's baseline; why nothing can be measured ("" when it can)."""
        said = self.hear(self.deadline + self.slack)
        try:
            self.listed = [(str(n), str(f), str(j)) for n, f, j in said["items"]]
            errors = int(said["errors"])
        except (TypeError, KeyError, ValueError) as e:
            raise Broken("the tests did not report their baseline") from e
        if errors:
            return "the tests do not collect in a copy of the tested tree"
        self.merge(said)
        files, ids = self.spec["session"]["files"], self.spec["session"].get("ids")
        self.mine = session_tests(self.listed, files, ids)
        if self.spec.get("hold"):
            self.hold()
        mine = set(self.mine)
        self.others = [n for n, _, _ in self.listed if n not in mine]
        failing = [n for n in self.mine if self.traced.get(n, (set(), 0.0, True))[2]]
        self.put({"baseline": {"tests": len(self.mine), "failing": len(failing),
                               "others": len(self.others)}})  # fmt: skip
        if self.mine and len(failing) == len(self.mine):
            return "the session's tests do not pass in a copy of the tree"
        return ""

    def hold(self) -> None:
        """Wait while the spec's `hold` folder exists: the run started beside the
        session's verification, whose test runs could disturb a mutant's (a fixed port,
        a file in /tmp). Then the session's tests are those the verification passed
        (`hold_ids`, written before the hold goes: a JSON list, or null for every test of
        the session's files); those not traced yet are traced now."""
        while os.path.exists(self.spec["hold"]) and time.monotonic() < self.deadline:
            if os.getppid() != self.parent:
                os._exit(3)
            time.sleep(0.005)
        try:
            with open(self.spec["hold_ids"], encoding="utf-8") as f:
                ids = json.load(f)
        except (OSError, ValueError, KeyError):
            return  # stopped, or no verdict to go by: the spec's own
        if ids is not None and not (isinstance(ids, list) and all(isinstance(i, str) for i in ids)):
            return
        self.mine = session_tests(self.listed, self.spec["session"]["files"], ids)
        self.trace([n for n in self.mine if n not in self.traced])

    def judge(self, i: int, mutant: dict[str, Any]) -> dict[str, Any] | None:
        """The record of mutant `i` (None: the budget ran out while it was asked)."""
        started = time.monotonic()
        if self.codes[i] is None:
            return {"i": i, "status": "error", "why": "the mutant does not compile"}
        mine = self.reaching(mutant, self.mine)
        got = self.attempt(i, mine)
        tests, suite = len(mine), False
        if got is not None and got[0] == "survived" and self.others:
            if not self.others_traced:
                self.others_traced = True
                self.trace(self.others)
            theirs = self.reaching(mutant, self.others)
            tests += len(theirs)
            other = self.attempt(i, theirs)
            if other is None or other[0] != "survived":
                got, suite = other, True
        if got is None:
            return None
        status, why = got
        return {"i": i, "status": status, "why": why, "tests": tests, "suite": suite,
                "seconds": round(time.monotonic() - started, 3)}  # fmt: skip

    def reaching(self, mutant: dict[str, Any], nodeids: list[str]) -> list[str]:
        """Of `nodeids`, those that passed in the baseline and reached the mutant's line,
        the fastest first."""
        spot = (os.path.realpath(os.path.join(self.root, mutant["path"])), int(mutant["line"]))
        found = [n for n in nodeids if n in self.traced and not self.traced[n][2]
                 and spot in self.traced[n][0]]  # fmt: skip
        return sorted(found, key=lambda n: self.traced[n][1])

    def attempt(self, i: int, nodeids: list[str]) -> tuple[str, str] | None:
        """Ask the worker to run `nodeids` with mutant `i`: (status, why). A kill stands
        only if the test that failed passes, run the same way, with the statement's code
        unmutated (a sham, once per statement and test; for a timeout, all of them).
        None when the budget ran out."""
        if not nodeids:
            return "survived", ""
        limit = 3.0 + 10.0 * sum(self.traced[n][1] for n in nodeids)
        got = self.ask_try(nodeids, self.codes[i] or {}, limit)
        if got is None or got[0] not in {"killed", "timeout"}:
            return None if got is None else got[:2]
        status, _, by = got
        mutant = self.mutants[i]
        tests = nodeids if by is None else [nodeids[by]]
        key = (mutant["path"], tuple(mutant["scope"]), *tests)
        if key not in self.shams:
            codes = self.files.original(mutant["path"], mutant["scope"])
            self.asked.append(key)
            sham = self.ask_try(tests, codes, limit)
            if sham is None:
                return None
            self.shams[key] = sham[0] == "survived"
        if not self.shams[key]:
            return "error", "its tests fail without the mutant too"
        return status, ""

    # -- talking to the worker ---------------------------------------------------------
    def ask_try(
        self, nodeids: list[str], codes: Codes, limit: float
    ) -> tuple[str, str, int | None] | None:
        """(status, why, the index of the test that failed when killed); None when the
        budget ran out first."""
        left = self.deadline + self.slack - time.monotonic()
        if left <= 0:
            return None
        packed = marshal.dumps([(p, n, line, c) for (p, n, line), c in codes.items()])
        self.ask({"try": nodeids, "codes": base64.b64encode(packed).decode(),
                  "limit": min(limit, left)})  # fmt: skip
        said = self.hear(time.monotonic() + min(limit, left) + 10.0)
        status, why, by = said.get("status"), said.get("why", ""), said.get("by")
        if (
            status not in STATUSES
            or not isinstance(why, str)
            or (status == "killed" and not (type(by) is int and 0 <= by < len(nodeids)))
        ):
            raise Broken("the test process answered what it was not asked")
        if status == "timeout" and limit > left:
            return None  # cut by the budget, not the mutant's own limit
        return status, why, by if status == "killed" else None

    def trace(self, nodeids: list[str]) -> None:
        if nodeids and time.monotonic() < self.deadline:
            self.ask({"trace": nodeids})
            self.merge(self.hear(self.deadline + self.slack))

    def merge(self, said: dict[str, Any]) -> None:
        try:
            for nodeid, t in said["traced"].items():
                lines = {(str(p), int(k)) for p, k in t["lines"]}
                self.traced[str(nodeid)] = (lines, float(t["seconds"]), bool(t["failed"]))
        except (TypeError, KeyError, ValueError, AttributeError) as e:
            raise Broken("the tests did not report what they reach") from e

    def ask(self, question: dict[str, Any]) -> None:
        data = (json.dumps(question) + "\n").encode()
        try:
            while data:
                data = data[os.write(self.ask_fd, data) :]
        except OSError as e:
            raise Broken("the test process is gone") from e

    def hear(self, until: float) -> dict[str, Any]:
        """The worker's next answer (one JSON line), waited for until `until`."""
        while b"\n" not in self.heard:
            left = until - time.monotonic()
            if left <= 0 or os.getppid() != self.parent:
                raise Broken("the test process stopped answering")
            if select.select([self.hear_fd], [], [], min(left, 0.5))[0]:
                chunk = os.read(self.hear_fd, 1 << 16)
                if not chunk:
                    raise Broken("the test process is gone")
                self.heard += chunk
                if len(self.heard) > ANSWER_BYTES:
                    raise Broken("the test process said too much")
        line, self.heard = self.heard.split(b"\n", 1)
        try:
            said = json.loads(line)
        except ValueError as e:
            raise Broken("the test process answered what it was not asked") from e
        if not isinstance(said, dict):
            raise Broken("the test process answered what it was not asked")
        return said

    def put(self, record: dict[str, Any]) -> None:
        data = (json.dumps(record) + "\n").encode()
        try:
            while data:
                data = data[os.write(self.channel, data) :]
        except OSError:
            os._exit(3)  # the executor is gone

    def stop(self, worker: int) -> None:
        """No more questions: let the worker end as pytest does (its output), for a few
        seconds (the executor ends what is left with the run)."""
        os.close(self.ask_fd)
        ends = time.monotonic() + 10.0
        with contextlib.suppress(ChildProcessError):
            while time.monotonic() < ends and os.waitpid(worker, os.WNOHANG)[0] == 0:
                time.sleep(0.01)
