"""Tests RED deleted or thinned, run as the session found them against its code (P30):
an unrelated failure in RED never excuses a removed assertion. One that fails is a
regression unless the session's own tests, its plan or what it removed need the change
(found by undoing the session's code one definition at a time: `revert`)."""

from __future__ import annotations

import ast
import os
import re
import shlex
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from executor.fsutil import read_regular
from executor.vcs.trees import VOLATILE_DIRS
from executor.workflows.tdd.session.checks.guard import Guard, weakened_problems
from executor.workflows.tdd.session.context import SessionPart, SessionRun
from executor.workflows.tdd.trust import revert, testchanges, verdicts
from executor.workflows.tdd.trust.testfiles import is_test_file

if TYPE_CHECKING:
    from executor.testrun import TestRun

#: A definition's syntax (`testchanges.definitions`).
Syntax = ast.AST | list[ast.stmt] | bytes
#: Test runs one judgement may take to find which change breaks a test (each is one
#: pytest process over a few tests); past it, a person decides.
MAX_TRIALS = 40
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass
class Verdict:
    """Why a test RED took from is accepted (`accepted`) or goes to a person (`problem`)."""

    key: str
    accepted: str = ""
    problem: str = ""


class Losses(SessionPart):
    """Judges the tests RED deleted or thinned against the code as it stands."""

    def __init__(self, run: SessionRun, guard: Guard) -> None:
        super().__init__(run)
        self.guard = guard

    def lost_tests(self, role: str) -> list[str]:
        """Tests RED deleted or thinned, judged against the code as it stands (module
        docstring); the problems for a person. Sets `rec.weakened` for their files."""
        rec, red = self.rec, self.rec.red
        keys = [*red.deleted, *red.thinned]
        if not keys or not rec.base_commit:
            return []
        seal = self.guard.seal()
        with tempfile.TemporaryDirectory(prefix="executor-earlier-") as tmp:
            trials = self._trials(Path(tmp))
            verdicts_ = _judge(keys, set(red.deleted), trials, self._context())
        tampered = self.guard.break_seal(seal, who="the run of the tests RED took from")
        if tampered:
            return tampered
        found: dict[str, list[str]] = {}
        for v in verdicts_:
            file, name = v.key.split("::", 1)
            if v.problem:
                found.setdefault(file, []).append(f"{name} ({v.problem})")
                continue
            if v.accepted and v.key in red.deleted:
                red.deleted.remove(v.key)
            if v.accepted:
                self._say(f"{v.key}: {v.accepted}; accepted")
                if v.key in red.thinned:
                    red.thinned.remove(v.key)
        rec.weakened = sorted({*rec.weakened, *found})
        return weakened_problems(role, found)

    def _trials(self, folder: Path) -> _Trials:
        """The session's tree written to `folder`, with the checkout's ignored files
        linked in; runs pytest on test ids there (`_Trials`)."""
        from executor.pinning import interpreter
        from executor.testrun import DEFAULT_TEST_TIMEOUT, run_tests

        repo, rec = self.r.repo, self.rec
        repo.export_tree(rec.tree, folder, repository=True)
        for entry in repo.ignored_entries(ignore=self._ignore()):
            parts = entry.rstrip("/").split("/")
            if parts[0] == ".git" or any(p in VOLATILE_DIRS for p in parts):
                continue
            link = folder / entry.rstrip("/")
            if not os.path.lexists(link):
                link.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(repo.root / entry.rstrip("/"), link)
        env = rec.environment
        python = interpreter(env) if env else None  # the pinned plugins, and only those
        limit = self.r.options.test_timeout or DEFAULT_TEST_TIMEOUT

        def run(ids: Sequence[str]) -> TestRun:
            argv = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *ids]
            return run_tests(shlex.join(argv), cwd=folder, interpreter=python,
                             timeout_s=limit, sandbox=self.r.sandbox)  # fmt: skip

        return _Trials(folder, run)

    def _context(self) -> _Context:
        """What the judgement reads: the session's changes to the code and the earlier
        versions of its test files, its own tests that failed in RED, the plan's words."""
        repo, rec = self.r.repo, self.rec
        base = rec.base_commit
        assert base is not None
        changed = repo.tree_diff(repo.tree_of(base), rec.tree)
        code = [f for f in changed if not is_test_file(f)]
        units: list[revert.Unit] = []
        versions: dict[str, tuple[bytes | None, bytes | None]] = {}
        for path in code:
            pair = versions[path] = (
                self.guard.source(base, path),
                self.guard.source(rec.tree, path),
            )
            units += revert.units(path, *pair)
        files = {k.split("::", 1)[0] for k in [*rec.red.deleted, *rec.red.thinned]}
        failing = rec.red.failing
        spec = [k for k in rec.red.session or () if any(map(verdicts.matching([k]), failing))]
        written: dict[str, Syntax] = {}
        for file in sorted({k.split("::", 1)[0] for k in rec.red.session or ()}):
            defs = testchanges.definitions(file, self.guard.source(rec.tree, file))
            written.update((k, defs[k]) for k in rec.red.session or () if k in defs)
        return _Context(
            units=units,
            versions=versions,
            earlier={f: self.guard.source(base, f) for f in files},
            spec=spec,
            named=plan_names(self.s.source_text),
            written=written,
        )


def plan_names(text: str) -> set[str]:
    """The names the plan's session gives as code (`sub`, `lib.OLD_LIMIT`, `test_sub`)."""
    return {w for span in _CODE_SPAN.findall(text) for w in _WORD.findall(span)}


@dataclass
class _Context:
    units: list[revert.Unit]
    versions: dict[str, tuple[bytes | None, bytes | None]]  # path -> (base, session)
    earlier: dict[str, bytes | None]  # test file -> as the session found it
    spec: list[str]  # the session's tests that failed in RED
    named: set[str]
    written: dict[str, Syntax]  # the session's tests (RED added or changed them)

    def heir(self, key: str) -> str | None:
        """A test of the session's that holds every assertion of the earlier `key`."""
        file = key.split("::", 1)[0]
        old = testchanges.definitions(file, self.earlier.get(file)).get(key)
        return next((k for k, node in self.written.items() if testchanges.lives_on(old, node)),
                    None)  # fmt: skip

    def undone(self, chosen: Sequence[revert.Unit]) -> dict[str, bytes | None]:
        """The files whose content changes when `chosen` are undone."""
        paths = {u.path for u in chosen}
        return {p: revert.undo(p, *self.versions[p], chosen) for p in paths}


class _Trials:
    """Test runs in the copy: some files written as asked, the tests run, the files put
    back as the session has them."""

    def __init__(self, folder: Path, run: Callable[[Sequence[str]], TestRun]) -> None:
        self.folder, self.run, self.count = folder, run, 0

    def failing(self, files: dict[str, bytes | None], keys: Sequence[str]) -> set[str] | None:
        """Those of `keys` that fail (or are not run) with `files` written; None: no more
        runs may be made, or the run did not end."""
        if self.count >= MAX_TRIALS:
            return None
        self.count += 1
        kept = {p: read_regular(self.folder / p) for p in files}
        try:
            _write(self.folder, files)
            run = self.run(keys)
        finally:
            _write(self.folder, kept)
        if run.timed_out:
            return None
        return {k for k in keys if _fails(run, k)}


def _write(folder: Path, files: dict[str, bytes | None]) -> None:
    for rel, data in files.items():
        path = folder / rel
        if data is None:
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def _fails(run: TestRun, key: str) -> bool:
    mine = [c for c in run.cases if verdicts.matching([key])(c.id)]
    return not mine or any(c.outcome in {"failed", "error"} for c in mine)


def _judge(keys: list[str], deleted: set[str], trials: _Trials, ctx: _Context) -> list[Verdict]:
    earlier = trials.failing(ctx.earlier, keys)
    if earlier is None:
        return [Verdict(k, problem="its earlier version did not finish against the new code")
                for k in keys]  # fmt: skip
    out = []
    for key in keys:
        what = "deleted in RED" if key in deleted else "assertions or cases taken out in RED"
        if key not in earlier:
            heir = ctx.heir(key) if key in deleted else None
            if heir is not None:
                out.append(Verdict(key, accepted=f"{what}; its assertions live on in {heir}"))
            elif key in deleted:
                out.append(Verdict(key, problem=(
                    f"{what}, yet it still passes against the new code: what it pinned is "
                    f"still there")))  # fmt: skip
            continue  # what it asked still holds, and it asks more now
        out.append(_explain(key, what, trials, ctx))
    return out


def _explain(key: str, what: str, trials: _Trials, ctx: _Context) -> Verdict:
    """Why `key` (failing against the new code) fails: the session's own change, or not."""
    fails = f"{what}, and it fails against the new code"
    if key.rsplit("::", 1)[-1] in ctx.named:
        return Verdict(key, accepted=f"{what}; the plan's session names it")
    if not ctx.units:
        return Verdict(key, problem=f"{fails}, though the session changed no code")
    culprits = _culprits(key, trials, ctx)
    if culprits is None:
        return Verdict(key, problem=f"{fails}; which change breaks it could not be told")
    if not culprits:
        return Verdict(key, problem=f"{fails} even with the session's code changes undone")
    shown = ", ".join(u.label() for u in culprits)
    because = f"{what}; it fails because of the change to {shown}"
    if any(u.name and u.short in ctx.named for u in culprits):
        return Verdict(key, accepted=f"{because}, which the plan's session names")
    if all(u.kind == "removed" for u in culprits):
        return Verdict(key, accepted=f"{what}; the session removed what it tested ({shown})")
    needed = trials.failing(ctx.undone(culprits), ctx.spec) if ctx.spec else set()
    if needed:
        return Verdict(key, accepted=f"{because}, which this session's tests need")
    if needed is None:
        return Verdict(key, problem=f"{fails} ({shown}); whether the session needs it is unknown")
    return Verdict(key, problem=(
        f"{fails} because of the change to {shown}, which none of this session's tests asks "
        f"for and the plan does not name: a regression unless you say otherwise"))  # fmt: skip


def _culprits(key: str, trials: _Trials, ctx: _Context) -> list[revert.Unit] | None:
    """The fewest of the session's changes that, undone, let the earlier `key` pass (greedy,
    by halves); [] when undoing them all does not; None when runs ran out."""
    units = list(ctx.units)

    def passes(chosen: list[revert.Unit]) -> bool | None:
        failing = trials.failing({**ctx.earlier, **ctx.undone(chosen)}, [key])
        return None if failing is None else key not in failing

    every = passes(units)
    if not every:
        return None if every is None else []
    size = max(len(units) // 2, 1)
    while True:
        at = 0
        while at < len(units):
            rest = units[:at] + units[at + size :]
            ok = passes(rest) if rest else False
            if ok is None:
                return None
            if ok:
                units = rest
            else:
                at += size
        if size == 1:
            return units
        size = max(size // 2, 1)
