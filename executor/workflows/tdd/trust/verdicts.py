"""What the executor decides from what it measured itself: nothing an agent says is trusted.
Pure functions of test reports and file contents, applied by the session's guard.

RED must fail because tests fail; GREEN and REFACTOR must pass with the whole suite. The
session's own tests are the definitions RED added or changed (`session_keys`), each
fingerprinted by meaning (`test_fingerprints`) and a change judged by `testchanges`;
docs/engine.md has the rules."""

from __future__ import annotations

import ast
import hashlib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from executor.fsutil import read_regular
from executor.words import plural
from executor.workflows.tdd.trust import testchanges
from executor.workflows.tdd.trust.redfacts import RedFacts
from executor.workflows.tdd.trust.testfiles import is_test_file

if TYPE_CHECKING:  # the host's step does not load the test runner
    from executor.testrun import TestCase, TestRun


def file_sha(path: Path) -> str:
    data = read_regular(path)
    if data is None:
        return "-" if not os.path.lexists(path) else "?"
    return hashlib.sha256(data).hexdigest()


def describe(paths: Sequence[str], limit: int = 10) -> str:
    shown = ", ".join(paths[:limit])
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


# -- tests, by meaning -------------------------------------------------------------------


def test_fingerprints(root: Path, files: Iterable[str]) -> dict[str, str]:
    """`file::name` (and `file::Class::name`) -> a hash of that definition's syntax, plus
    `file::<module>` for what a test file does at import (what it imports, skips,
    `__test__`, marks), `file::Class` for a class's head and `file::Class::<class>` for
    its own settings; a file Python cannot parse (or not Python) is one `file::<file>`
    hash of its bytes (`testchanges.definitions`). A file read before with the same
    content is not parsed again (a session fingerprints every test file several times)."""
    out: dict[str, str] = {}
    for rel in sorted(set(files)):
        data = read_regular(root / rel)
        if data is None:  # gone, or no file (a FIFO is never waited on): not the test
            continue
        key = (rel, hashlib.blake2b(data, digest_size=16).digest())
        known = _FINGERPRINTS.get(key)
        if known is None:
            if len(_FINGERPRINTS) > 4096:
                _FINGERPRINTS.clear()
            defs = testchanges.definitions(rel, data)
            known = _FINGERPRINTS[key] = {k: testchanges.digest(v) for k, v in defs.items()}
        out.update(known)
    return out


#: (file, content hash) -> its fingerprints (`test_fingerprints`).
_FINGERPRINTS: dict[tuple[str, bytes], dict[str, str]] = {}


def named_tests(fingerprints: dict[str, str], files: Iterable[str]) -> list[str]:
    """The test functions (`file::name`, `file::Class::name`) `files` define, from their
    fingerprints: the tests a run that could not collect them did not count."""
    wanted = set(files)
    named = (k for k in fingerprints if k.split("::", 1)[0] in wanted)
    return [k for k in named if k.rsplit("::", 1)[1].startswith("test")]  # pytest's test*


def changed_keys(before: dict[str, str], now: dict[str, str]) -> dict[str, list[str]]:
    """Test file -> the definitions of `before` it no longer holds as they were (changed
    or gone), and those added to a file `before` knew."""
    files = {k.split("::", 1)[0] for k in before}
    out: dict[str, list[str]] = {}
    for key in sorted(set(before) | {k for k in now if k.split("::", 1)[0] in files}):
        if before.get(key) != now.get(key):
            out.setdefault(key.split("::", 1)[0], []).append(key)
    return out


def session_keys(before: dict[str, str], now: dict[str, str]) -> list[str]:
    """The session's own tests: test definitions in `now` that `before` did not hold as
    they are (added, or changed)."""
    return sorted(k for k, d in now.items() if _is_test_key(k) and before.get(k) != d)


def _is_test_key(key: str) -> bool:
    last = key.rsplit("::", 1)[-1]
    return last.startswith("test") or last == "<file>"


def key_prefix(key: str) -> str:
    """The test id (without parameters) a runner reports for a definition: pytest's
    `tests.test_x.Class::test_y` for `tests/test_x.py::Class::test_y`; for a file that is
    not Python (`file::<file>`), the file: its cases are `file::...`."""
    file, _, rest = key.partition("::")
    if rest == "<file>" or not file.endswith(".py"):
        return file
    parts = rest.split("::")
    module = file[:-3].replace("/", ".")
    return ".".join([module, *parts[:-1]]) + "::" + parts[-1]


def matching(keys: Iterable[str]) -> Callable[[str], bool]:
    """Whether a test id (a case of a parametrisation too) comes from one of `keys`."""
    keys = list(keys)
    exact = {key_prefix(k) for k in keys if not k.endswith("::<file>")}
    files = {k.split("::", 1)[0] for k in keys if k.endswith("::<file>")}
    files |= {_module_prefix(f) for f in files if f.endswith(".py")}

    def mine(tid: str) -> bool:
        return tid.split("[", 1)[0] in exact or tid.split("::", 1)[0] in files

    return mine


# -- RED, GREEN, REFACTOR ------------------------------------------------------------------


def _module_prefix(path: str) -> str:
    p = path[:-3] if path.endswith(".py") else path
    return p.replace("/", ".")


def session_ids(test_files: Sequence[str]) -> Callable[[str], bool]:
    """Whether a test id (pytest's `tests.test_x::name` or `tests/test_x.py::name`, a
    JS runner's file path) comes from one of `test_files`."""
    prefixes = tuple(p for f in test_files for p in (_module_prefix(f), f))

    def mine(tid: str) -> bool:
        return any(tid == p or tid.startswith((p + "::", p + ".")) for p in prefixes)

    return mine


def session_cases(run: TestRun, red: RedFacts) -> list[TestCase]:
    """The session's cases in `run`: those of the definitions RED added or changed, and
    the tests RED made fail. For a RED that changed no test definition (a test file that
    is not Python, one setting), recorded before the session's tests were, or no RED at
    all: every case of its test files (every case, without test files)."""
    if red.session:
        mine, failing = matching(red.session), set(red.failing)
        return [c for c in run.cases if mine(c.id) or c.id in failing]
    prefixes = tuple(_module_prefix(f) for f in red.files)
    if not prefixes:
        return list(run.cases)
    return [
        c
        for c in run.cases
        if any(c.id.startswith((p + "::", p + ".")) or c.id == p for p in prefixes)
    ]


def collects(suite: TestRun, red: RedFacts) -> bool:
    """Whether a suite run holds the session's tests, so one run judges both."""
    if not red.files or not suite.structured:
        return False
    ids = {c.id for c in suite.cases}
    return bool(session_cases(suite, red)) and set(red.failing) <= ids


def red_facts(run: TestRun, changed: Sequence[str], *, tree: str) -> RedFacts:
    """What RED measured in `tree`: its test files, the tests that failed and passed."""
    files = [f for f in changed if is_test_file(f)]
    failing = [c for c in run.cases if c.outcome in {"failed", "error"}]
    return RedFacts(
        tree=tree,
        files=files,
        # real tests only: a collection failure is reported as a case without "::"
        failing=[c.id for c in failing if "::" in c.id],
        why={c.id: _one_line(c.message) for c in failing[:60]},
        passed=[c.id for c in run.cases if c.outcome == "passed"],
    )


def _one_line(message: str) -> str:
    line = next((ln.strip() for ln in message.splitlines() if ln.strip()), "")
    return line[:160] or "fails"


def red_problem(
    run: TestRun | None,
    files: Sequence[str] = (),
    root: Path | None = None,
    *,
    project: Sequence[str] = (),
    environment: str = "",
) -> str | None:
    """Why this is not RED, or None when it is. `files`: the session's test files (the
    test files RED changed), in `root`: RED is those tests failing, not a test file that
    cannot be read, nor only other sessions' tests failing, nor a dependency missing
    from the `environment` the tests ran in (a module that is none of the `project`'s
    files: the repository's and those the plan lists)."""
    if run is None:
        return "no test command is known for this session"
    if run.timed_out:
        return f"the tests {run.summary()}, so this is not RED: a hanging test proves nothing fails"
    if run.disagreement:
        return f"{run.summary()}, so this is not RED: the failure may be forged"
    if run.verdict == "red":
        missing = missing_dependency(run, project)
        if missing is not None:
            return (
                f"the tests cannot import {missing!r}, which is no part of the project (not in "
                f"the repository, not among the files the plan lists) and is not installed in "
                f"{environment or 'the environment the tests ran in'}, so this is not RED: a "
                f"dependency is missing. Install it there, or activate the project's "
                f"environment, and run again"
            )
        return _not_theirs(run, files, root)
    if run.verdict == "green":
        return f"the tests did not fail, so this is not RED: {run.summary()}"
    return f"no tests ran (empty run), so this is not RED: {run.summary()}"


def _not_theirs(run: TestRun, files: Sequence[str], root: Path | None) -> str | None:
    """Why a failing run is still no RED of the session's tests `files` (None: it is)."""
    if root is not None and run.collection_error:
        for rel in (f for f in files if f.endswith(".py")):
            try:
                ast.parse(read_regular(root / rel) or b"")
            except SyntaxError as e:
                return (
                    f"{rel} does not parse (line {e.lineno}: {e.msg}), so this is not RED: "
                    f"tests must fail when they run, not when they are read"
                )
            except ValueError:
                continue
    mine = [c for c in run.cases if session_ids(files)(c.id)] if files and run.structured else []
    if mine and not any(c.outcome in {"failed", "error"} for c in mine):
        failing = [c.id for c in run.cases if c.outcome in {"failed", "error"}]
        return (
            f"{plural(len(failing), 'test')} fail ({describe(failing, 3)}), but none of them "
            f"is this session's, so this is not RED: this session's tests must fail"
        )
    return None


_NO_MODULE = re.compile(r"No module named '([\w.]+)'")


def missing_dependency(run: TestRun, project: Sequence[str]) -> str | None:
    """The module a failing run could not import, when every failure is that kind of
    failure and the module is none of the `project`'s files (repository-relative paths:
    what is there, and what the plan says the session makes). None: a real failure."""
    failing = [c for c in run.cases if c.outcome in {"failed", "error"}]
    named = [_NO_MODULE.search(c.message) for c in failing]
    if not failing and run.collection_error:
        named = [_NO_MODULE.search(run.output_tail)]
    if not named or any(m is None for m in named):
        return None
    ours = {part.removesuffix(".py") for path in project for part in path.split("/")}
    for found in named:
        assert found is not None
        if found[1].split(".")[0] not in ours:
            return found[1]
    return None


@dataclass
class PassVerdict:
    problems: list[str]
    output: str
    cases: list[TestCase]  # the session's cases, as measured


def pass_verdict(
    role: str,
    *,
    session_run: TestRun | None,
    suite_run: TestRun | None,
    red: RedFacts,
    green_passed: Sequence[str],
    root: Path,
) -> PassVerdict:
    """GREEN/REFACTOR: the session's tests pass, the suite does not regress, nothing RED
    wrote was deleted, and no test that ran in RED is skipped or xfailed now (a test
    skipped in RED as well keeps its outcome: a project's own skips are its own).

    `session_run` may be None when the suite run collected the session's tests: they are
    then judged from the suite's report (one test run instead of two).
    """
    measured = session_run or suite_run
    if measured is None:
        return PassVerdict(["no test command is known for this session"], "", [])
    cases = session_cases(measured, red)
    problems: list[str] = []
    output = ""
    if not red.files and all(r is None or r.verdict == "empty" for r in (session_run, suite_run)):
        # a session without tests of its own (spec-kit Setup) in a project without any
        # yet: nothing to run; what it made is judged by the evidence check and the person
        return PassVerdict([], "", [])
    if session_run is not None and session_run.verdict != "green":
        problems.append(f"session tests are not green: {session_run.summary()}")
        output = session_run.output_tail
    if suite_run is not None and suite_run.verdict == "red":
        problems.append(f"the whole suite has failures: {suite_run.summary()}")
        output = output or suite_run.output_tail
    if suite_run is not None and suite_run.verdict == "empty" and session_run is None:
        problems.append(f"the suite ran no tests: {suite_run.summary()}")
    problems += [f"test file {f} written in RED was deleted" for f in red.files
                 if not (root / f).exists()]  # fmt: skip
    passed = {c.id for c in measured.cases if c.outcome == "passed"}
    must = set(red.failing) | (set(green_passed) if role == "refactor" else set())
    missing = sorted(must - passed)
    if missing:
        problems.append(
            f"{plural(len(missing), 'test')} seen earlier no longer pass or exist: "
            + ", ".join(missing[:5])
        )
    ran = {*red.passed, *red.failing, *(green_passed if role == "refactor" else ())}
    dodged = [c.id for c in measured.cases if c.outcome in _DODGES and c.id in ran]
    if dodged:
        problems.append(
            f"{plural(len(dodged), 'test')} that ran in RED "
            f"{'is' if len(dodged) == 1 else 'are'} skipped or xfail now: " + ", ".join(dodged[:5])
        )
    return PassVerdict(problems, output, cases)


_DODGES = frozenset({"skipped", "xfailed", "xpassed"})


def not_run(cases: Sequence[TestCase]) -> list[TestCase]:
    """The session's cases that did not run here (skipped or xfail in RED and now): they
    prove nothing, and the checkpoint says so."""
    return [c for c in cases if c.outcome in _DODGES]


def evidence_problems(
    listed: Sequence[str], changed: set[str], present: set[str], *, gone: Sequence[str] = ()
) -> list[str]:
    """Every file the plan lists must be in the session's tree and changed by it
    (`present`: the files of the tree; a listed folder: something under it; a bare file
    name the plan gives without its folder, `Settings.vue`: a file of that name); one
    the plan says goes (`gone`: `path (delete)`) must be gone from it, by this session."""
    problems = []
    for listed_path in listed:
        path = listed_path.rstrip("/")

        def under(names: set[str], p: str = path) -> bool:
            if any(n == p or n.startswith(p + "/") for n in names):
                return True
            return "/" not in p and any(n.rsplit("/", 1)[-1] == p for n in names)

        if listed_path in gone:
            if under(present):
                problems.append(f"{path} (the plan says it goes) is still there")
            elif not under(changed):
                problems.append(f"{path} (the plan says it goes) was never there")
        elif not under(present):
            problems.append(f"{path} (listed in the plan) does not exist")
        elif not under(changed):
            problems.append(f"{path} (listed in the plan) is not changed by this session")
    return problems


def says_gone(note: str) -> bool:
    """A plan's note on a file that says the session removes it (`(delete)`, `Remove:`)."""
    return note.split(" ", 1)[0].lower().strip(":") in {"delete", "deleted", "remove", "removed"}


def verified_summary(
    role: str,
    cases: Sequence[TestCase],
    session_run: TestRun | None,
    suite_run: TestRun | None,
    command: str | None,
) -> str:
    """What GREEN/REFACTOR measured, for the next checkpoint: the session's tests and the
    whole suite, and where each count came from."""
    passed = sum(c.outcome == "passed" for c in cases)
    source = f"`{command}`" if session_run is not None else "the suite's report"
    lines = [f"{role.upper()} verified: the session's tests: {passed} of {len(cases)} pass "
             f"(from {source})"]  # fmt: skip
    if suite_run is not None:
        lines.append(f"The whole suite (`{suite_run.command}`): {suite_run.summary()}")
    return "\n".join(lines)
