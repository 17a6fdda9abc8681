"""The steps of one task-plan task (format C) and what each verifies.

Each step is mapped by meaning (`stepwords.step_meaning`) to RED, GREEN or REFACTOR; a
`Commit` step is the executor's own. A step's commands are its `Run:` / `**Verify:**`
spans and shell block; RED runs the first failing check, GREEN the task's final one.
docs/plan-format.md describes the format as read."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from executor.plan.commands.checks import judge
from executor.plan.commands.written import SHELL, block_command
from executor.plan.models import FileSpec, PlanCommand, Step, StepRole
from executor.plan.text import stepwords, words
from executor.plan.text.files import as_file
from executor.plan.text.inline import code_spans, plain, read_label
from executor.plan.text.markdown import Block

_RUN = re.compile(
    rf"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?:{words.RUN_LABEL})(?:\s*\([^)]*\))?"
    r"(?:\*\*|__)?\s*:(?:\*\*|__)?\s*(.*)$",
    re.I,
)
_EXPECTED = re.compile(
    rf"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?:{words.EXPECTED_LABEL})(?:\*\*|__)?\s*:"
    r"(?:\*\*|__)?\s*(.*)$",
    re.I,
)
_IMPLEMENTS = re.compile(rf"^(?:implement|{words.IMPLEMENT})", re.I)
_FAILS = re.compile(words.FAILS, re.I)
_PASSES = re.compile(words.PASSES, re.I)
_CHANGE = re.compile(
    r"^(?:create|modify|update|edit|rewrite|in|at (?:the )?(?:top|end|bottom) of|add (?:\w+ )?to)"
    r"\s*[:：]?\s+`([^`]+)`",
    re.I,
)
_TEST_KINDS = re.compile(r"tests?|测试|測試|テスト|테스트|prueba|teste|ki[eể]m", re.I)
_RED_KINDS = ("write_test", "verify_fail")
_ROLE_MEANING: dict[StepRole, stepwords.StepMeaning] = {
    "red": "write_test",
    "green": "implement",
    "refactor": "refactor",
}


@dataclass
class _Step:
    number: str
    title: str
    raw_title: str
    line: int
    checked: bool | None
    end: int = 0
    commands: list[tuple[int, str]] = field(default_factory=list)
    expected: str | None = None
    #: The step shows code that is not a shell command (a test or an implementation).
    code: bool = False
    #: What the task's shape says the step does, when its words say nothing.
    shape: stepwords.StepMeaning | None = None

    @property
    def meaning(self) -> stepwords.StepMeaning:
        if self.shape is not None:
            return self.shape
        said = stepwords.step_meaning(self.title)
        role = stepwords.step_role(self.title).role  # `Write docs acceptance check (RED)`
        if role is None or said == "commit" or stepwords.MEANING_ROLE.get(said) == role:
            return said
        checks = said.startswith("verify")
        if role == "red":
            return "verify_fail" if checks else "write_test"
        return "verify_pass" if role == "green" and checks else _ROLE_MEANING[role]

    @property
    def by_hand(self) -> bool:
        """A verification a person makes: said so (`Manual API test`, `Expected: manual
        review shows ...`), or one no check can run of what a person looks at (`Verify
        the page renders on a phone`)."""
        if self.meaning == "commit":
            return False
        if stepwords.is_manual(self.title) or stepwords.is_manual(self.expected or ""):
            return True
        said = f"{self.title} {self.expected or ''}"
        return (
            self.meaning.startswith("verify")
            and not self.commands
            and stepwords.looks_at_product(said)
        )

    @property
    def verifies(self) -> bool:
        return self.meaning.startswith("verify") and not stepwords.is_manual(self.title)


class TaskSteps:
    """The steps of a task, their roles and commands."""

    def __init__(self, blocks: list[Block], end: int) -> None:
        self.steps = _find(blocks)
        self.text_lines = [
            pair for b in blocks if b.kind in ("item", "paragraph") for pair in b.lines()
        ]
        for i, step in enumerate(self.steps):
            step.end = self.steps[i + 1].line - 1 if i + 1 < len(self.steps) else end
        first = self.steps[0].line if self.steps else end + 1
        #: commands the task states outside its steps (`**Verify:** `cargo test``)
        self.task_commands: list[tuple[int, str]] = []
        #: commands it names that are not checks (context only)
        self.not_checks: list[PlanCommand] = []
        outside = [b for b in blocks if b.line < first or not self.steps]
        _read_commands(outside, self.task_commands, self.not_checks)
        for step in self.steps:
            inside = [b for b in blocks if step.line <= b.line <= step.end]
            refused = [] if step.meaning == "commit" else self.not_checks
            step.expected = _read_commands(inside, step.commands, refused, bare=step.verifies)
            step.code = any(b.kind == "code" and b.info.split(" ")[0].lower() not in SHELL
                            for b in inside)  # fmt: skip
        _shape(self.steps)
        self.roles = _roles(self.steps)
        meanings = [s.meaning for s in self.steps]
        failing = [
            i
            for i, s in enumerate(self.steps)
            if s.meaning == "verify_fail"
            or (s.meaning == "write_test" and _FAILS.search(words.normal(s.title)))
        ]
        if (
            failing
            and not any(  # a failing run with no test written first checks an error path
                s.meaning == "write_test" or s.code for s in self.steps[: failing[0] + 1]
            )
        ):
            failing = []
        implemented = [
            i
            for i, m in enumerate(meanings)
            if m == "implement" and _IMPLEMENTS.match(words.normal(self.steps[i].title))
        ]
        self.tdd = bool(failing) and not (implemented and implemented[0] < failing[0])
        if not self.tdd:
            self.roles = [None if r is None else "green" for r in self.roles]

    @staticmethod
    def numbers(blocks: list[Block]) -> list[int]:
        """The step numbers written in `blocks` (`Step 3` -> 3)."""
        return [int(re.match(r"\d+", s.number).group()) for s in _find(blocks)]  # type: ignore[union-attr]

    def commit_lines(self) -> list[range]:
        return [range(s.line, s.end + 1) for s, r in zip(self.steps, self.roles, strict=True)
                if r is None]  # fmt: skip

    def changed_files(self, files: list[FileSpec]) -> list[tuple[str, int]]:
        """Files the steps say they create or change that the Files list leaves out."""
        known = {f.path for f in files}
        found: list[tuple[str, int]] = []
        for step in self.steps:
            if step.meaning in ("implement", "write_test"):
                for span in code_spans(step.raw_title):
                    found.append((span, step.line))
        for line, text in self.text_lines:
            if m := _CHANGE.match(plain(text)):
                found.append((m.group(1), line))
        out: list[tuple[str, int]] = []
        for raw, line in found:
            path = as_file(raw)
            if path is None or path in known or any(k.endswith("/" + path) for k in known):
                continue
            known.add(path)
            out.append((path, line))
        return out

    def session_steps(self, title: str, line: int, files: list[FileSpec]) -> dict[StepRole, Step]:
        """RED / GREEN / REFACTOR of the session (a task without steps: one GREEN)."""
        test_files = [f.path for f in files if _TEST_KINDS.fullmatch(f.note.split(" ")[0])]
        work_files = [f.path for f in files if f.path not in test_files]
        chosen: dict[StepRole, list[_Step]] = {"red": [], "green": [], "refactor": []}
        for step, role in zip(self.steps, self.roles, strict=True):
            if role is not None:
                chosen[role].append(step)
        made: dict[StepRole, Step] = {}
        for role, steps in chosen.items():
            if not steps:
                continue
            command_line, command, expected = self._command(role, steps)
            paths = test_files if role == "red" else work_files
            made[role] = Step(
                role=role,
                heading=f"Step {steps[0].number}: {steps[0].title}",
                tasks=[f"Step {s.number}: {s.title}" for s in steps],
                files=list(paths),
                test_command=command,
                command_line=command_line,
                expected=expected,
                line=steps[0].line,
            )
        last = self.task_commands[-1] if self.task_commands else (None, None)
        if "green" not in made and not self.tdd:
            made["green"] = Step(
                role="green", heading=title, line=line, test_command=last[1], command_line=last[0]
            )
        elif "green" in made and made["green"].test_command is None and self.task_commands:
            made["green"].test_command, made["green"].command_line = last[1], last[0]
        return made

    def _command(
        self, role: StepRole, steps: list[_Step]
    ) -> tuple[int | None, str | None, str | None]:
        """(line, command, expected) of the check that verifies `role`."""
        verifying = [s for s in steps if s.verifies and s.commands]
        if role == "red":
            first = next((s for s in verifying if s.meaning == "verify_fail"), None)
            # else the run a test-writing step names itself (`Write the check (RED)`, `Run: ...`)
            chosen = (
                first or next(iter(verifying), None) or next((s for s in steps if s.commands), None)
            )
            if chosen is None:
                return None, None, None
            return chosen.commands[0][0], chosen.commands[0][1], chosen.expected
        found = [(ln, c, s.expected) for s in verifying for ln, c in s.commands]
        found += [(ln, c, None) for ln, c in self.task_commands if role == "green"]
        if not found and role == "green":  # only `Run:` lines inside work steps
            found = [(ln, c, s.expected) for s in steps for ln, c in s.commands]
        if not found:
            return None, None, None
        return max(found, key=lambda f: f[0])


def _find(blocks: list[Block]) -> list[_Step]:
    found: list[_Step] = []
    for block in blocks:
        if block.kind == "item" and block.level:
            continue
        if block.kind not in ("item", "paragraph", "heading"):
            continue
        raw = block.first
        m = stepwords.STEP_LINE.match(plain(raw, ticks=False))
        written = stepwords.STEP_LINE.match(raw.strip())
        if m is None:
            continue
        title = m.group(2).strip().strip("*_").strip()
        raw_title = (written.group(2) if written else raw).strip().rstrip("*_").strip()
        checked = block.checked if block.kind == "item" else None
        found.append(_Step(m.group(1), title, raw_title, block.line, checked))
    if found:
        return found
    listed = False
    for block in blocks:
        if block.kind == "paragraph":
            label = read_label(block.first)
            listed = label is not None and label.label.lower() == "steps" and not label.rest
        elif block.kind == "item" and listed and block.level == 0 and block.info:
            found.append(_Step(block.info, plain(block.first, ticks=False), block.first,
                               block.line, block.checked))  # fmt: skip
    return found


def _read_commands(
    blocks: list[Block],
    into: list[tuple[int, str]],
    refused: list[PlanCommand],
    *,
    bare: bool = False,
) -> str | None:
    """Checks of `blocks` (`Run:` spans, the block after `Run:`, with `bare` any shell
    block) into `into`, the commands that are not checks into `refused`; returns the
    first `Expected:` text after a check."""
    awaiting = bare
    expected: str | None = None
    ran = False  # a command was named (a check or not): an `Expected:` after it is its

    def take(line: int, command: str) -> None:
        nonlocal ran
        ran = True
        why = judge(command)
        if why is None:
            into.append((line, command))
        elif command not in {r.command for r in refused}:
            refused.append(PlanCommand(command=command, line=line, why_not=why))

    for block in blocks:
        if block.kind == "code":
            command = block_command(block.text, block.info) if awaiting else None
            if command:
                take(block.line, command)
            awaiting = False
            continue
        if block.kind not in ("item", "paragraph"):
            continue
        for line, text in block.lines():
            for part in re.split(r"(?<=\S)\s+(?=(?:Run|Expected)\s*:)", text):
                if run := _RUN.match(words.normal(part)):
                    spans = code_spans(re.split(r"[:：]", part, maxsplit=1)[-1])
                    if spans:
                        take(line, spans[0])
                    awaiting = not spans and not plain(run.group(1))
                elif (exp := _EXPECTED.match(words.normal(part))) and ran and expected is None:
                    expected = plain(exp.group(1), ticks=False) or None
    return expected


def _shape(steps: list[_Step]) -> None:
    """Structure before vocabulary: when the words name no failing run, a task shaped
    code, run, code, the same run again (the first not expected to pass) is a RED run
    and a GREEN run in any language: the first run is `verify_fail`, the code before it
    `write_test`, the code between `implement`, the second run `verify_pass`."""
    if any(s.meaning in ("verify_fail", "write_test") for s in steps):
        return
    runs = [(i, s.commands[0][1]) for i, s in enumerate(steps) if s.commands]
    for a, (i, command) in enumerate(runs):
        again = next((j for j, c in runs[a + 1 :] if c == command), None)
        if again is None or _PASSES.search(words.normal(steps[i].expected or "")):
            continue
        before = [k for k in range(i) if steps[k].code]
        between = [k for k in range(i + 1, again) if steps[k].code]
        if before and between:
            for k in before:
                steps[k].shape = "write_test"
            steps[i].shape = "verify_fail"
            for k in between:
                steps[k].shape = "implement"
            steps[again].shape = "verify_pass"
            return


def _roles(steps: list[_Step]) -> list[StepRole | None]:
    """Each step's role by meaning (None: a commit step, the executor's own)."""
    meanings = [s.meaning for s in steps]
    first_red = next((i for i, m in enumerate(meanings) if m in _RED_KINDS), None)
    roles: list[StepRole | None] = []
    seen_green = False
    current: StepRole = "green"
    for i, meaning in enumerate(meanings):
        role: StepRole | None
        if meaning == "commit":
            role = None
        elif first_red is None:
            role = "green"
        elif meaning in _RED_KINDS or i < first_red:
            role = "red"
        elif (meaning == "refactor" and seen_green) or (
            meaning == "verify_pass" and current == "refactor"
        ):
            role = "refactor"
        else:
            role = "green"
        seen_green = seen_green or role == "green"
        if role is not None:
            current = role
        roles.append(role)
    return roles
