"""In-process engine harness: a real git repository with a small plan, a fake agent and a
fake test runner behind the engine's seams, and scripted people.

The fake agent writes real files (a test for RED, an implementation for GREEN, a touch
for REFACTOR); the fake test runner judges the repository's real contents (a test
fails while its module is missing or contains BROKEN), so scenarios play out the way
real ones do, in milliseconds. Real pytest, real agent processes and the real CLI are
covered by the end-to-end tests.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from executor.bridge.models import Ledger
from executor.choices import Decision
from executor.engine.agents import AgentCall, AgentResult
from executor.prompts import ScriptedPrompter
from executor.runoptions import Overrides
from executor.strength.job import Job
from executor.strength.runner import Measured
from executor.testrun import TestCase, TestRun
from executor.workflows.tdd.record.session import SessionRecord
from executor.workflows.tdd.runner.opening import RunRequest
from executor.workflows.tdd.runner.run import Runner, RunResult
from executor.workflows.tdd.runner.scope import Scope, SessionScope
from tests.conftest import git

PLAN = """# Phase 1: Core

## Session 1: First Thing (TDD)

### Objectives
- [ ] Build s1

### TDD Workflow

#### Step 1: Write Tests FIRST (RED)
Create `tests/test_s1.py`.

**Run tests**: `pytest tests/test_s1.py`

#### Step 2: Implement (GREEN)
Create `pkg/s1.py`.

**Run tests**: Should now PASS

#### Step 3: Refactor (REFACTOR)
- tidy

**Run tests**: Should still PASS

### Files to Create/Modify
- `pkg/s1.py`
- `tests/test_s1.py`

### Dependencies
None

---

## Session 2: Second Thing (TDD)

### Objectives
- [ ] Build s2

### TDD Workflow

#### Step 1: Write Tests FIRST (RED)
Create `tests/test_s2.py`.

**Run tests**: `pytest tests/test_s2.py`

#### Step 2: Implement (GREEN)
Create `pkg/s2.py`.

**Run tests**: Should now PASS

### Files to Create/Modify
- `pkg/s2.py`
- `tests/test_s2.py`

### Dependencies
- Session 1
"""


@dataclass
class FakeAgent:
    """Does the step's work in the repository; `script[(session, role)]` overrides calls
    in order with a status (`"error:TYPE"`, `"timeout"`, `"cancelled"`), `"broken"`
    (GREEN writes a failing implementation), `"nothing"` or a callable(repo)."""

    repo: Path
    script: dict[tuple[int, str], deque[Any]] = field(default_factory=lambda: defaultdict(deque))
    calls: list[AgentCall] = field(default_factory=list)

    def plan(self, session: int, role: str, *actions: Any) -> None:
        self.script[(session, role)].extend(actions)

    def call(self, call: AgentCall, ledger: Ledger) -> AgentResult:
        self.calls.append(call)
        queue = self.script.get((call.session, call.tdd_step))
        action = queue.popleft() if queue else "ok"
        if callable(action):
            action(self.repo)
            return AgentResult("success", "custom")
        if isinstance(action, str) and action.startswith("error:"):
            return AgentResult("error", error_type=action[6:], error_message="boom")
        if action in {"timeout", "cancelled"}:
            return AgentResult(action, error_type="TIMEOUT", error_message=action)
        if action == "nothing":
            return AgentResult("success", "I did it (I did not)")
        n = call.session
        if call.tdd_step == "red":
            write(self.repo / f"tests/test_s{n}.py", f"from pkg import s{n}\n")
        elif call.tdd_step == "green":
            write(self.repo / "pkg/__init__.py", "")
            write(self.repo / f"pkg/s{n}.py", "BROKEN\n" if action == "broken" else "OK = 1\n")
        else:
            path = self.repo / f"pkg/s{n}.py"
            write(path, path.read_text("utf-8") + "# tidied\n")
        return AgentResult("success", f"did {call.tdd_step} for session {n}")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


_TEST_FILE = re.compile(r"tests/test_(s\d+)\.py")


def fake_pytest(command: str, root: Path) -> TestRun:
    """A test run judged from the repository: tests/test_sN.py passes when pkg/sN.py
    exists without BROKEN (and fails to import `fancydep` where it imports it); `pytest`
    alone runs every test file; a `skip` marker in a test file skips it."""
    named = _TEST_FILE.findall(command)
    files = (
        [f"tests/test_{n}.py" for n in named]
        if named
        else sorted(p.relative_to(root).as_posix() for p in root.glob("tests/test_*.py"))
    )
    cases: list[TestCase] = []
    collection_error = False
    for f in files:
        test = root / f
        if not test.exists():
            continue
        module = root / "pkg" / (Path(f).name.removeprefix("test_"))
        mod_id = f.removesuffix(".py").replace("/", ".")
        if "skip" in test.read_text("utf-8"):
            cases.append(TestCase(id=f"{mod_id}::test_it", outcome="skipped"))
        elif not module.exists():
            collection_error = True
            cases.append(TestCase(id=mod_id, outcome="error", message="No module named pkg"))
        elif "import fancydep" in module.read_text("utf-8"):  # a dependency not installed
            message = "ModuleNotFoundError: No module named 'fancydep'"
            cases.append(TestCase(id=mod_id, outcome="error", message=message))
        elif "BROKEN" in module.read_text("utf-8"):
            cases.append(TestCase(id=f"{mod_id}::test_it", outcome="failed", message="broken"))
        else:
            cases.append(TestCase(id=f"{mod_id}::test_it", outcome="passed"))
    count = {
        o: sum(c.outcome == o for c in cases) for o in ("passed", "failed", "error", "skipped")
    }
    failing = count["failed"] or count["error"]
    return TestRun(
        command=command,
        exit_code=(1 if failing else 0) if cases else 5,
        duration_s=0.0,
        collected=sum(1 for c in cases if "::" in c.id),
        passed=count["passed"],
        failed=count["failed"],
        errors=count["error"],
        skipped=count["skipped"],
        collection_error=collection_error,
        structured=True,
        cases=cases,
        output_tail="fake pytest output",
    )


class Confirming(ScriptedPrompter):
    """A scripted person who answers "yes" when the terminal asks to confirm a rollback,
    unless the script itself answers that question ("yes" or "no")."""

    def ask(self, question: str, options: Any, *, detail: str = "") -> Decision:
        values = [o.value for o in options]
        if values == ["yes", "no"] and (not self._answers or self._answers[0].action not in values):
            self.asked.append((question, list(options), detail))
            return Decision("yes")
        return super().ask(question, options, detail=detail)


class World:
    """A repository with the two-session plan committed, and the fakes to run it."""

    def __init__(self, root: Path, plan_text: str = PLAN) -> None:
        #: every (step, outcome) transition the driver logged, rolled-back sessions too
        self.seen: set[tuple[str, str]] = set()
        self.repo = root / "repo"
        self.repo.mkdir()
        git(self.repo, "init", "-q", "-b", "main")
        write(self.repo / ".gitignore", "__pycache__/\n")
        self.plan = self.repo / "plans" / "demo"
        write(self.plan / "PHASE_1_CORE.md", plan_text)
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "-m", "plan")
        self.agent = FakeAgent(self.repo)
        self.lines: list[str] = []
        self.prompter: Confirming | None = None
        #: the mutation step's seam: a job -> what it measured (None: not measured)
        self.measure: Callable[[Job], Measured] | None = None

    def runner(
        self,
        scope: Scope = SessionScope(1),  # noqa: B008 - a frozen dataclass, never mutated
        *,
        answers: Iterable[Decision | str] | None = None,
        yes: bool = False,
        resume: bool = False,
        bridge: bool = False,
        **overrides: Any,
    ) -> Runner:
        self.prompter = Confirming(answers) if answers is not None else None
        req = RunRequest(
            plan=self.plan,
            scope=scope,
            resume=resume,
            yes=yes,
            overrides=Overrides(**overrides),
            prompter=self.prompter,
            backoff=0,
            agents=None if bridge else self.agent,
            run_tests=fake_pytest,
            measure=self.measure,
        )
        return Runner(req, report=self.lines.append)

    def run(self, scope: Scope = SessionScope(1), **kw: Any) -> RunResult:  # noqa: B008
        return self.runner(scope, **kw).execute()

    def commits(self) -> list[str]:
        return git(self.repo, "log", "--format=%s").splitlines()

    def state(self) -> dict[str, Any]:
        import json

        data: dict[str, Any] = json.loads((self.plan / ".agent-state.json").read_text("utf-8"))
        return data

    def records(self) -> dict[str, dict[str, Any]]:
        from tests.engine.helpers import records

        return records(self.plan)

    def record(self, number: int) -> dict[str, Any]:
        return dict(self.records()[str(number)])

    def watch(self, monkeypatch: Any) -> World:
        """Record every transition the driver logs (they vanish with a rolled-back record)."""
        original = SessionRecord.log

        def log(rec: SessionRecord, step: Any, edge: str, seconds: float, note: str) -> None:
            self.seen.add((step.value, edge))
            original(rec, step, edge, seconds, note)

        monkeypatch.setattr(SessionRecord, "log", log)
        return self
