"""One spec-kit task line (`- [ ] T012 [P] [US1] ...`) -> `PlanTask`, and the step its
tasks make.

A task is a checkbox item at the top of a phase. Its id comes in many shapes (`T001`,
`T006a`, `**T-101**`, `**任务 1.1**:`, `1.2`); a task with none is numbered by its place in
the file. Its text runs over several lines; `Depends:` / `Files:` lines under it are
metadata, and its detail bullets hold its files and commands. A task writes tests when
its words say so or every file it names is a test file. A person's check: a task that
says so (`manual verification`, a `**Test**: Manual` field), or a verification no check
can run of what a person looks at (`確認資產總覽頁面顯示 MEXC 餘額`: the page shows it).
"""

from __future__ import annotations

import re

from executor.plan.commands.checks import judge
from executor.plan.commands.written import detail_command, join, text_command
from executor.plan.models import FileSpec, PlanCommand, PlanTask, Step, StepRole
from executor.plan.text import stepwords, words
from executor.plan.text import vocabulary as voc
from executor.plan.text.files import as_file, is_source_name, is_test_name, prose_paths
from executor.plan.text.inline import plain, read_label
from executor.plan.text.markdown import Block

_MANUAL = re.compile(r"\bmanual(?:ly)?\s+(?:verification|test|check)|\bby hand\b", re.I)
_MANUAL_WORD = re.compile(words.MANUAL, re.I)
#: A check a person walks through (`following them end-to-end`).
_WALK = re.compile(r"\bend-to-end\b|\bfollowing\s+them\b|\bwalk\s+through\b", re.I)
_DEPENDS = re.compile(
    rf"\((?:depends on|{words.DEPENDS}) ([^)]*)\)|(?:\bdepends(?:\s+on)?|{words.DEPENDS})"
    r"\s*(?:\*\*)?\s*[:：]?\s*(?:\*\*)?\s*([^\n]*)",
    re.I,
)
_META = re.compile(
    rf"^\s*(?:depends(?:\s+on)?|dependencies|deps|files?|blocked\s+by|{words.DEPENDS})\s*:",
    re.I,
)
_TASK_REF = re.compile(r"\bT-?(\d{2,})([a-z]?)(?:\s*[-–—]\s*T-?(\d{2,}))?|\b(\d+(?:\.\d+)+)\b")
#: An open box whose line ends on a done mark (`- [ ] Project structure created ✅`).
_CLAIMED = re.compile(r"[✅✔☑]\uFE0F?\s*$")
#: A task's files label and what follows it (`**建立檔案**: ...`, `Files: ...`).
_FILES_LINE = re.compile(
    rf"^\s*(?:[-*+]\s+)?\**\s*(?:[^\s:：*`]{{1,8}}\s?)?(?:{words.FILES_LABEL})\s*\**\s*[:：]"
    r"\s*\**\s*(.*)$",
    re.I,
)
_NONE = re.compile(r"^(?:無|无|なし|없음|none|n/a|-|—|keine|aucun|ninguno|nenhum)\b", re.I)
_MARKERS = re.compile(r"^(?:\[[^\]]*\]\s*)+")
#: A task that writes tests (not test fixtures, helpers or configuration).
_WRITES_TESTS = re.compile(
    r"^(?:write|add|create)\b[^.]*\b(?:tests?|failing)\b(?!\s+(?:fixtures?|helpers?|utils?"
    r"|utilities|data|scaffold\w*|infrastructure|setup|config\w*|harness|doubles?))",
    re.I,
)


def task_label(text: str) -> tuple[str | None, str]:
    """(the task's own id or None, the text after it)."""
    m = voc.SPECKIT_TASK.match(text)
    if m is None:
        return None, text
    ident = m.group(1)
    unit = voc.TASK_ID_WORD.match(ident)
    return (unit.group(1) if unit else ident), m.group(2)


def task_words(text: str) -> str:
    """A task's words: no id, markers or code spans (`T001 [P] Create `specs/x/`` ->
    `Create`)."""
    return re.sub(r"`[^`]*`", "", _MARKERS.sub("", task_label(text)[1])).strip()


def commits(text: str) -> bool:
    """A task that only commits (`Commit all changes`): the executor's own, never left to do."""
    return stepwords.step_meaning(task_words(text)) == "commit"


def writes_tests(text: str, files: list[str]) -> bool:
    """A task that writes tests: its words say so (`Write unit tests for X`), or every file
    it names is a test file (`创建配置管理模块测试 internal/config/config_test.go`)."""
    if _WRITES_TESTS.match(task_words(text)):
        return True
    return bool(files) and all(is_test_name(f) for f in files)


def checked(command: str, line: int, refused: list[PlanCommand]) -> tuple[int, str] | None:
    """(line, command) when it is a check; else None, and it is kept with why."""
    why = judge(command)
    if why is None:
        return line, command
    if command not in {c.command for c in refused}:
        refused.append(PlanCommand(command=command, line=line, why_not=why))
    return None


def read_task(
    block: Block,
    ordinal: int,
    role: StepRole,
    details: list[tuple[int, str]],
    refused: list[PlanCommand],
    *,
    manual_checks: bool = False,
) -> PlanTask:
    """One task line; `details`: its nested lines; `manual_checks`: the file says its
    verification is manual."""
    ident, _ = task_label(block.text)
    lines = block.text.split("\n")
    meta = next((i for i, ln in enumerate(lines) if i and _META.match(ln)), len(lines))
    text = " ".join(lines[:meta])  # `Depends: T001` / `Files: ...` lines are not the title
    named = text_command(text)
    command = checked(named, block.line, refused) if named else None
    runs: list[tuple[int, str]] = []
    for line, detail in details if named is None else []:  # detail lines that run checks
        said = text_command(detail) or detail_command(text, detail)
        if said is not None:
            named = said
            runs += [found] if (found := checked(said, line, refused)) else []
    if runs:  # `執行 `pnpm build``, then `執行 `pnpm test``: both, in order
        command = (runs[0][0], join([c for _, c in runs]) or runs[0][1])
    words_ = task_words(text)
    checking = stepwords.step_meaning(words_).startswith("verify")
    walked = (named is not None and command is None) or _WALK.search(text) is not None
    watched = " ".join([words_, *(d for _, d in details)])
    looked_at = checking and command is None and stepwords.looks_at_product(watched)
    body = "\n".join([block.text.replace("\n", " "), *(d for _, d in details)])
    labeled = _labeled_files(text, [*lines[1:], *(d for _, d in details)])
    return PlanTask(
        label=ident if ident is not None else str(ordinal),
        text=task_label(text)[1].strip(),
        line=block.line,
        done=bool(block.checked) or _CLAIMED.search(text) is not None,
        role=role,
        files=task_paths(body, checking=checking) if labeled is None else labeled,
        command=command[1] if command else None,
        manual=bool(_MANUAL.search(text))
        or (manual_checks and checking and walked)
        or looked_at
        or any(_says_manual(d) for _, d in details),
        depends_on=depends_on("\n".join([block.text, *(d for _, d in details)])),
    )


def _labeled_files(title: str, lines: list[str]) -> list[str] | None:
    """With a files label (`**修改檔案**: `src/lib/logger.ts``, `Files: none`), the
    files its title and that label name: its other lines (a description, acceptance
    criteria) talk about them. None with no label: then all its prose says."""
    said = [m.group(1) for ln in lines if (m := _FILES_LINE.match(ln)) and m.group(1).strip()]
    if not said:
        return None
    return task_paths("\n".join([title, *(s for s in said if not _NONE.match(s.strip()))]))


def _says_manual(detail: str) -> bool:
    """A detail line whose test field says a person checks: `**測試**: 手動驗證`,
    `Test: E2E + Manual`."""
    label = read_label(detail)
    return (
        label is not None
        and stepwords.is_test_word(label.label)
        and _MANUAL_WORD.search(label.rest) is not None
    )


def task_paths(text: str, *, checking: bool = False) -> list[str]:
    """The files a task names. In code spans: the paths with a folder (relative, or
    absolute under the author's checkout), else the first file name (`Add X to
    `package.json``: other names in it are files the task talks about). With no code
    span, the paths written plainly (`Docs skeleton (docs/README.md, SECURITY.md)`),
    unless the task is a check (`Execute quickstart.md §1`: it reads them)."""
    spans = prose_paths(text)
    written = [] if checking else [p for p in prose_paths(text, bare=True) if p not in spans]
    if spans:
        found = [p for p in spans if "/" in p.rstrip("/") or p.endswith("/")]
        found = [p for p in found if not p.startswith("/") or "/Users/" in p or "/home/" in p]
        return found or [p for p in spans if is_source_name(p) and "/" not in p][:1]
    return [p for p in written if not p.startswith("/")]


def depends_on(text: str) -> list[str]:
    """The task ids a task says it needs: `(depends on T003-T005)`, `依赖任务 1.3`."""
    refs: list[str] = []
    for group in (a or b for a, b in _DEPENDS.findall(text)):
        for m in _TASK_REF.finditer(group):
            if m.group(4):
                refs.append(m.group(4))
                continue
            width, dash = len(m.group(1)), "-" if m.group(0)[1:2] == "-" else ""
            if m.group(3):
                span = range(int(m.group(1)), int(m.group(3)) + 1)
                refs += [f"T{dash}{n:0{width}d}" for n in span]
            else:
                refs.append(f"T{dash}{m.group(1)}{m.group(2)}")
    return refs


def make_step(
    role: StepRole, tasks: list[PlanTask], line: int, *, always: bool = False
) -> Step | None:
    if not tasks and not always:
        return None
    files = list(dict.fromkeys(f for t in tasks for f in t.files))
    return Step(
        role=role,
        heading={"red": "Write the tests", "green": "Implement the tasks"}.get(role, "Refactor"),
        tasks=[plain(f"{t.label} {t.text}") for t in tasks],
        files=files,
        test_command=join([t.command for t in tasks if t.command]),
        command_line=next((t.line for t in tasks if t.command), None),
        line=tasks[0].line if tasks else line,
    )


def file_specs(tasks: list[PlanTask]) -> list[FileSpec]:
    seen: dict[str, FileSpec] = {}
    for task in tasks:
        for path in task.files:
            if as_file(path) is not None:
                seen.setdefault(path, FileSpec(path=path, note=task.label, line=task.line))
    return list(seen.values())
