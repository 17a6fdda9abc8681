"""The person's own commit hooks, run on the tested tree before "Commit?".

Every git write of the executor runs with hooks off (an agent could plant one), so the
hooks the repository had when the session started run here instead: pre-commit with the
config as committed, or an executable `pre-commit` hook whose content is unchanged. What
they run may be the agent's script, so a hook run is sealed as a test run is: only the
files it was given may change (a formatter's work), and those are tested again.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from executor.engine.machine import Outcome
from executor.workflows.tdd.record.session import PersonHook
from executor.workflows.tdd.session.checks.guard import Guard
from executor.workflows.tdd.session.context import SessionPart, SessionRun
from executor.workflows.tdd.trust import tampering, verdicts

if TYPE_CHECKING:
    from executor.sandbox import Sandbox
    from executor.vcs import GitRepo

O = Outcome  # noqa: E741
HOOK_CONFIG = ".pre-commit-config.yaml"
#: Hook runs in a row that may change files before the hooks count as failing.
MAX_REWRITES = 2
#: The output of a hook the agent and the person are shown (its tail).
OUTPUT_CHARS = 6000


def find_hooks(repo: GitRepo, head: str) -> tuple[PersonHook | None, str]:
    """The hooks a session starting at `head` runs, and a note for the person ("")."""
    config = repo.blob_at(head, HOOK_CONFIG)
    if config is not None:
        if shutil.which("pre-commit") is None:
            return None, (
                f"{HOOK_CONFIG} is here but pre-commit is not installed, so its hooks do not "
                f"run (pip install pre-commit)"
            )
        return PersonHook(kind="pre-commit", source=config), ""
    hook = repo.hooks_folder() / "pre-commit"
    if hook.is_file() and os.access(hook, os.X_OK):
        digest = hashlib.sha256(hook.read_bytes()).hexdigest()
        return PersonHook(kind="hook", source=str(hook), digest=digest), ""
    return None, ""


@dataclass(frozen=True)
class HookRun:
    ok: bool
    what: str  # "pre-commit run" or the hook's path
    output: str


def run_hooks(
    hook: PersonHook,
    repo: GitRepo,
    tree: str,
    files: list[str],
    timeout: float,
    sandbox: Sandbox | None = None,
) -> HookRun:
    """Run the hooks on `files` (repo-relative, present) of the tested `tree`, inside
    `sandbox` when there is one."""
    from executor.capture import run_captured

    def wrap(argv: list[str]) -> list[str]:
        return sandbox.wrap(argv) if sandbox is not None else argv

    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="executor-hooks-") as tmp:
        if hook.kind == "pre-commit":
            config = Path(tmp) / HOOK_CONFIG
            config.write_bytes(repo.blob_bytes(hook.source))
            what = "pre-commit run"
            argv = ["pre-commit", "run", "--config", str(config), "--files", *files]
            done = run_captured(wrap(argv), cwd=repo.root, env=env, timeout=timeout, merge=True)
        else:
            path = Path(hook.source)
            what = str(path)
            try:
                now = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError:
                now = ""
            if now != hook.digest:
                return HookRun(False, what, "the hook changed (or went) since the session "
                               "started; only the hook you had then is run")  # fmt: skip
            with repo.index_holding(tree) as index:
                done = run_captured(wrap([str(path)]), cwd=repo.root, env={**env, **index},
                                    timeout=timeout, merge=True)  # fmt: skip
    output = done.out.text()[-OUTPUT_CHARS:]
    if done.timed_out:
        return HookRun(False, what, output + f"\n[executor: timed out after {timeout:g} s]")
    return HookRun(done.returncode == 0, what, output)


class Hooks(SessionPart):
    """The `hooks` step of a session (`executor.workflows.tdd.table`). It reports OK,
    RECHECK (they changed files: tested again first), FAILED (they failed: the table
    retries REFACTOR with their output while `retries_left`, else a person decides) or
    NEEDS_PERSON (tampering: what they run may be the agent's own script)."""

    def __init__(self, run: SessionRun, guard: Guard) -> None:
        super().__init__(run)
        self.guard = guard
        #: why the last hook run failed (`retry`, `give_up` say it)
        self.failed = ""

    def person_hooks(self) -> Outcome:
        hook, repo = self.rec.hooks, self.r.repo
        if hook is None or self.r.options.no_verify:
            return O.OK
        tree = self.rec.verified or self.rec.tree
        base = repo.tree_of(self.rec.base_commit or "HEAD")
        diff = repo.tree_diff(base, tree)
        planned = set(tampering.plan_paths(Path(self.r.state.run.plan), repo.root, diff))
        files = [f for f in diff if f not in planned and (repo.root / f).is_file()]
        if not files:
            return O.OK
        limit = self.r.options.test_timeout or 3600
        seal = self.guard.seal()
        ran = run_hooks(hook, repo, tree, files, limit, self.r.sandbox)
        tampered = self.guard.break_seal(seal, given=set(files), who="they")
        if tampered:
            return self._hooks_tampered(tampered, ran.output)
        changed = repo.tree_diff(tree, repo.record_tree(exclude=self._ignore()).tree)
        if changed and self.rec.hook_rewrites < MAX_REWRITES:
            self.rec.hook_rewrites += 1
            self._say(f"your hooks changed {verdicts.describe(changed)}; the tests run again "
                      f"on them before they are taken in")  # fmt: skip
            return O.RECHECK
        if ran.ok and not changed:
            self.rec.hook_rewrites = self.rec.hook_retries = 0
            self._say(f"your commit hooks passed ({ran.what})")
            return O.OK
        why = (f"your commit hooks changed {verdicts.describe(changed)} again"
               if changed else f"your commit hooks failed ({ran.what})")  # fmt: skip
        return self._hooks_failed(why, ran.output)

    def _hooks_tampered(self, problems: list[str], output: str) -> Outcome:
        """A hook run that did more than check: a person decides (what it runs may be
        the agent's own script)."""
        why = "tampering during your commit hooks: " + "; ".join(problems)
        self.rec.hook_rewrites = self.rec.hook_retries = 0
        self.rec.last_failure = f"{why}\n{output}".strip()
        self.rec.errors.append(why)
        self.rec.feedback.append(
            f"{why}. The hooks run scripts of the repository: do not make them change the "
            f"plan, the executor's settings or files outside the session's."
        )
        self.rec.problem = f"Session {self.s.number}: {why}"
        self._say(why)
        return O.NEEDS_PERSON

    def _hooks_failed(self, why: str, output: str) -> Outcome:
        self.rec.hook_rewrites = 0
        self.rec.last_failure = f"{why}\n{output}".strip()
        self.rec.errors.append(why)
        self.rec.feedback.append(f"{why}; make them pass. Their output:\n{output.strip()}")
        self.failed = why
        return O.FAILED

    def retries_left(self) -> bool:
        return self.rec.hook_retries < self.r.options.max_retries

    def retry(self) -> None:
        """REFACTOR goes again with their output: counted and said."""
        self.rec.hook_retries += 1
        self.rec.attempt += 1
        self._say(f"{self.failed}; automatic retry {self.rec.hook_retries}/"
                  f"{self.r.options.max_retries} with their output")  # fmt: skip

    def give_up(self) -> None:
        """No retry left: the problem a person is shown; the count starts again."""
        self.rec.hook_retries = 0
        self.rec.problem = f"Session {self.s.number}: {self.failed} (--no-verify skips them)"
