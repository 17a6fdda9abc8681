"""What a person sees at each checkpoint (a question's `detail`): the same text on a
terminal and in a bridge request (long detail goes to a file the request names).

Seed 004's "Detailed Session Execution" is the model: before the start, what will be
built and how it is checked; after RED, the tests written by name and why each fails;
after GREEN, what was measured and what changed; before the commit, the diff stat and
the exact message; at the end, a summary and what comes next.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from executor.plan.models import Session
from executor.words import plural
from executor.workflows.tdd.record.counts import NOT_MEASURED, duration, elapsed, tests_line
from executor.workflows.tdd.record.session import SessionRecord
from executor.workflows.tdd.record.state import RunState
from executor.workflows.tdd.step import Step


def before_start(
    session: Session,
    command: Callable[[str], str | None],
    suite_command: str | None,
    state: RunState,
) -> str:
    lines = [f"Session {session.number}: {session.title}", "", "What will be built:"]
    lines += [f"- {o.text}" for o in session.objectives] or ["- (no objectives listed)"]
    lines += ["", "Files:"] + ([f"- {f.path}" for f in session.files] or ["- (none listed)"])
    lines += ["", "Test commands the executor will run itself (and where each comes from):"]
    every: tuple[Literal["red", "green", "refactor"], ...] = ("red", "green", "refactor")
    roles = [r for r in every if session.step(r) is not None]
    for r in roles or ["green"]:
        v = session.verification(r, None)
        origin = v.origin(session.source_file, r)
        if v.command is None and (default := command(r)):
            origin = session.verification(r, default).origin(session.source_file, r)
        lines.append(f"- {r.upper()}: {command(r) or '(none)'} ({origin})")
    if suite_command:
        lines.append(f"- the whole suite after GREEN and REFACTOR: {suite_command}")
    if session.not_checks:
        lines += ["", "Commands in the plan that are not checks (context for the agent, not run):"]
        lines += [f"- line {c.line}: {c.command} ({c.why_not})" for c in session.not_checks]
    estimates = []
    if session.estimated_hours is not None:
        estimates.append(f"about {session.estimated_hours:g} h")
    if session.estimated_tests is not None:
        estimates.append(f"about {plural(session.estimated_tests, 'test')}")
    if estimates:
        lines += ["", "The plan estimates " + " and ".join(estimates) + "."]
    if session.dependencies:
        lines += ["", "Builds on:"]
        for d in session.dependencies:
            entry = state.entry(d)
            commit = entry.commit_hash[:12] if entry and entry.commit_hash else "not committed"
            lines.append(f"- session {d} ({commit})")
    if session.refactor is None and session.tdd:
        lines += ["", "The plan has no REFACTOR step: after GREEN comes the commit question."]
    return "\n".join(lines)


def test_names(root: Path, files: Sequence[str]) -> dict[str, list[str]]:
    """The tests each Python test file defines, read from its source (so they show even
    when running them failed at import); other files: nothing."""
    import ast  # only after RED: not on the resume path of the other checkpoints

    from executor.fsutil import read_regular
    from executor.workflows.tdd.trust.testchanges import definitions

    found: dict[str, list[str]] = {}
    for f in files:
        if not f.endswith(".py"):
            continue
        data = read_regular(root / f)
        defs = definitions(f, data)  # parsed once per content
        if data is None or f"{f}::<file>" in defs:
            why = "SyntaxError" if data is not None else "FileNotFoundError"
            found[f] = [f"(cannot be read: {why})"]
            continue
        names: list[str] = []
        for key, node in defs.items():
            parts = key.split("::")[1:]
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if len(parts) == 1 and parts[0].startswith("test"):
                names.append(parts[0])
            elif len(parts) == 2 and parts[0].startswith("Test") and parts[1].startswith("test"):
                names.append(".".join(parts))
        found[f] = names
    return found


def why_failed(rec: SessionRecord, file: str, name: str) -> str:
    """Why the test `name` of `file` failed in RED (by id), else the file's own error."""
    module = file.removesuffix(".py").replace("/", ".")  # pytest's junit classname
    short = name.split(".")[-1]
    for test_id, why in rec.red.why.items():
        owner = test_id.split("::")[0]
        if owner.startswith((module, file)) and test_id.split("::")[-1].split("[")[0] == short:
            return why
    own = (module, file)
    whole_file = next((w for i, w in rec.red.why.items() if i in own), None)
    if whole_file is not None:  # the file failed as a whole (at import, say)
        return whole_file
    seen = [*rec.red.why, *rec.red.failing, *rec.red.passed]
    if not any(i.split("::")[0].startswith(own) for i in seen):
        return "not run: the RED test command does not run this file"
    return "fails"


def _unmeasured(rec: SessionRecord) -> list[str]:
    """What a run measured by its exit code alone could not tell (none: it was counted)."""
    if rec.tests_counted != "exit_code":
        return []
    return [
        f"Tests: {NOT_MEASURED}: the command writes no report the executor reads (pytest, "
        f"node --test, vitest and jest do; make the test command run one of them "
        f"directly to have the tests counted). Check the tests yourself."
    ]


def after_red(root: Path, rec: SessionRecord) -> str:
    lines = [rec.last_summary, *_unmeasured(rec)]
    names_of = test_names(root, rec.red.files)
    for file in rec.red.files:  # other languages: the failing ids the report named
        if file not in names_of:
            ids = [i for i in rec.red.why if i.split("::")[0] == file]
            names_of[file] = [i.split("::", 1)[-1] for i in ids]
    for file, names in names_of.items():
        lines += ["", f"{file}: {plural(len(names), 'test')}"]
        lines += [f"- {n}: {why_failed(rec, file, n)}" for n in names[:40]]
        if len(names) > 40:
            lines.append(f"- ... and {len(names) - 40} more")
    if rec.red.passed:
        lines += [
            "",
            f"Careful: {plural(len(rec.red.passed), 'test')} already "
            f"{'passes' if len(rec.red.passed) == 1 else 'pass'} before any "
            f"implementation (a test that passes now proves nothing new): "
            + ", ".join(rec.red.passed[:10]),
        ]
    if rec.red.infra:
        lines += [
            "",
            "Test infrastructure this step added or changed (GREEN and REFACTOR may not "
            "change it): " + ", ".join(sorted(rec.red.infra)),
        ]
    return "\n".join(lines + agent_said(rec, Step.RED_AGENT))


def agent_said(rec: SessionRecord, step: Step) -> list[str]:
    """The agent's own final message for the step's last call, and its transcript."""
    call = next((c for c in reversed(rec.agent_calls) if c.step == step), None)
    if call is None or not (call.message.strip() or call.log):
        return []
    out = [""]
    if call.message.strip():
        said = " ".join(call.message.split())
        out.append(f"The agent said (attempt {call.attempt}): " + _clip(said, 400))
    if call.log:
        out.append(f"Its transcript: {call.log}")
    return out


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def after_green(rec: SessionRecord, diff_stat: str, *, hint: str | None = None) -> str:
    from executor.workflows.tdd.session.checks.strength import strength_lines

    lines = [rec.last_summary, *_unmeasured(rec)]
    if rec.coverage is not None:
        lines.append(f"Coverage: {rec.coverage:g}%")
    elif hint:
        lines.append(hint)
    lines += strength_lines(rec)
    lines += ["", "Changed files:", diff_stat or "(none)"]
    return "\n".join(lines + agent_said(rec, Step.GREEN_AGENT))


def after_refactor(session: Session, rec: SessionRecord, diff_stat: str, message: str) -> str:
    lines = [rec.last_summary, "", "The session's changes:", diff_stat or "(none)"]
    if session.checkpoints:
        lines += ["", "The plan asks you to check before this is committed:"]
        lines += [f"- {c}" for c in session.checkpoints]
    lines += ["", "The commit message will be:", message]
    return "\n".join(lines + agent_said(rec, Step.REFACTOR_AGENT))


def session_complete(rec: SessionRecord, subject: str, following: str | None) -> str:
    lines = [
        f"Committed {rec.commit_hash[:12] if rec.commit_hash else '?'}: {subject}",
        f"Tests: {tests_line(rec.tests_written, rec.tests_passing, rec.tests_counted)}; "
        f"the session took {duration(elapsed(rec))} from its start to its commit.",
    ]
    lines += [f"Not verified: a person's check: {c}" for c in rec.unchecked]
    lines.append(f"Next: {following}" if following else "That was the last session of this run.")
    return "\n".join(lines)


def test_files_text(root: Path, files: Sequence[str], limit: int = 4000) -> str:
    parts = []
    for f in files[:5]:
        try:
            parts.append(f"--- {f}\n" + (root / f).read_text("utf-8")[:limit])
        except OSError as e:
            parts.append(f"--- {f}: {e}")
    return "\n".join(parts) or "(no test files recorded)"
