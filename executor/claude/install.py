"""`executor install-claude`: write slash commands, subagents and hooks into a project.

The command files are short prose rendered from the templates in `commands/` (package
files); the subagents are the shipped `agents/*.md`; the hooks are merged into
`.claude/settings.json` (`executor.claude.settings`). `--remove` takes the hooks out and
deletes the files that are still exactly what install-claude writes
(`executor.claude.uninstall`). Nothing here imports rich or git: the CLI module wires
this to the terminal.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from executor import fsutil
from executor.claude.frontmatter import parse_frontmatter
from executor.errors import (
    ExecutorError,
    FrontmatterError,
    PathNotFoundError,
    PlanInvalidError,
    UserError,
)
from executor.resources import data_path
from executor.words import plural

#: The subagents we ship, by the name the executor puts in a request's `agent_name`.
AGENT_NAMES: tuple[str, ...] = (
    "backend-builder",
    "frontend-builder",
    "mobile-builder",
    "integration-tester",
    "architectural-reviewer",
    "agent-content-enhancer",
)

#: Command files written for every project (execute-phase-N.md come from the plan).
GENERIC_COMMANDS: tuple[str, ...] = (
    "execute-session",
    "execute-plan",
    "resume-session",
    "show-progress",
    "template-create",
)

#: Command templates that embed the relay loop.
_LOOP_COMMANDS = frozenset(
    {"execute-phase", "execute-session", "execute-plan", "resume-session", "template-create"}
)

_TEMPLATES = Path(__file__).resolve().parent / "commands"
_PHASE_FILE_RE = re.compile(r"^execute-phase-(?P<n>\d+)\.md$")
_PHASE_TITLE_RE = re.compile(r"^# Execute phase \d+: (?P<name>.*)$", re.MULTILINE)
_PLAN_RE = re.compile(r"--plan ('(?:[^']|'\\'')*'|\S+)")

_NO_PLAN_NOTE = (
    "No plan is named here: the executor runs the one plan it finds from the repository\n"
    "root (the root itself, `project-plans/*/`, `docs/plans/`, `specs/*/`). If it says it\n"
    "found none or several, ask the person for the plan folder and add `--plan DIR`.\n"
)


@dataclass
class InstallResult:
    """What `install_claude` did, by absolute path."""

    target: Path
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "target": str(self.target),
            "written": [str(p) for p in self.written],
            "unchanged": [str(p) for p in self.unchanged],
            "skipped": [str(p) for p in self.skipped],
            "removed": [str(p) for p in self.removed],
            "kept": [str(p) for p in self.kept],
            "notes": list(self.notes),
        }


def find_target(cwd: Path) -> Path:
    """The root of the git repository containing `cwd` (a `.git` folder or file), else `cwd`."""
    cwd = cwd.resolve()
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def _template(name: str) -> str:
    return (_TEMPLATES / f"{name}.md").read_text(encoding="utf-8")


def _quote_safe(text: str) -> str:
    """Make text safe inside a double-quoted frontmatter value."""
    return " ".join(text.replace('"', "'").replace("\\", "/").split())


def render_command(
    name: str,
    *,
    plan_arg: str | None,
    phase: int | None = None,
    phase_name: str = "",
) -> str:
    """Render one command template (`execute-phase` needs `phase`).

    `plan_arg` is the plan folder as the command line should name it (relative to the
    project root when inside it), or None: the executor then finds the one plan itself.
    """
    text = _template(name)
    if name in _LOOP_COMMANDS:
        text = text.replace("{{loop}}", _template("_loop").rstrip("\n"))
    if name == "execute-phase":
        if phase is None:
            raise ValueError("execute-phase needs a phase number")
        text = text.replace("{{phase}}", str(phase))
        text = text.replace("{{phase_name}}", _quote_safe(phase_name) or f"Phase {phase}")
    plan_option = f" --plan {_shell_word(plan_arg)}" if plan_arg else ""
    text = text.replace("{{plan_option}}", plan_option)
    text = text.replace("{{plan_note}}", "" if plan_arg else _NO_PLAN_NOTE)
    return text


def _shell_word(text: str) -> str:
    """Quote a path for a shell command line only when it needs it."""
    safe = all(c.isalnum() or c in "-_./+=:@%" for c in text)
    return text if safe and text else "'" + text.replace("'", "'\\''") + "'"


def render_all(*, plan_arg: str | None, phases: Sequence[tuple[int, str]] = ()) -> dict[str, str]:
    """Every file to write, keyed by its path relative to the target (posix)."""
    files: dict[str, str] = {}
    for number, name in phases:
        files[f".claude/commands/execute-phase-{number}.md"] = render_command(
            "execute-phase", plan_arg=plan_arg, phase=number, phase_name=name
        )
    for name in GENERIC_COMMANDS:
        files[f".claude/commands/{name}.md"] = render_command(name, plan_arg=plan_arg)
    for name, text in shipped_agents().items():
        files[f".claude/agents/{name}.md"] = text
    return files


def command_is_ours(path: Path) -> bool | None:
    """Whether a command file is exactly what install-claude writes, for the plan it
    names or for none (None: not one of the names it writes): such a file nobody
    changed is refreshed by an install and removed by `--remove`."""
    m = _PHASE_FILE_RE.match(path.name)
    if path.stem not in GENERIC_COMMANDS and m is None:
        return None
    text = path.read_text("utf-8")
    plans: list[str | None] = [None]
    for found in _PLAN_RE.findall(text):
        with contextlib.suppress(ValueError):
            plans += shlex.split(found)
    for plan_arg in dict.fromkeys(plans):
        if m is None:
            if text == render_command(path.stem, plan_arg=plan_arg):
                return True
            continue
        title = _PHASE_TITLE_RE.search(text)
        if title and plan_arg is not None:
            rendered = render_command(
                "execute-phase", plan_arg=plan_arg, phase=int(m["n"]), phase_name=title["name"]
            )
            if text == rendered:
                return True
    return False


def shipped_agents() -> dict[str, str]:
    """The shipped subagent files by name, checked: frontmatter parses and names match."""
    folder = data_path("agents")
    agents: dict[str, str] = {}
    for name in AGENT_NAMES:
        path = folder / f"{name}.md"
        try:
            text = path.read_text(encoding="utf-8")
            fields, _ = parse_frontmatter(text, source=str(path))
        except (OSError, FrontmatterError) as e:
            raise ExecutorError(f"the shipped subagent {name} is unusable: {e}") from e
        if fields.get("name") != name:
            raise ExecutorError(f"{path}: frontmatter name is {fields.get('name')!r}, not {name!r}")
        agents[name] = text
    return agents


def _plan_phases(plan: Path) -> tuple[list[tuple[int, str]], list[str]]:
    from executor.plan import load_plan

    loaded = load_plan(plan)
    phases = [(p.number, p.name) for p in loaded.phases if p.sessions]
    if not phases:
        raise PlanInvalidError(
            f"no phases with sessions found in {plan}; check it with `executor plan validate "
            f"{plan}`",
            path=plan,
        )
    notes = []
    if loaded.errors:
        notes.append(
            f"the plan has {plural(len(loaded.errors), 'error')}; run "
            f"`executor plan validate {plan}` before executing it"
        )
    return phases, notes


def _plan_arg(plan: Path, target: Path) -> str:
    try:
        return plan.relative_to(target).as_posix() or "."
    except ValueError:
        return plan.as_posix()


def target_root(target: Path | None, cwd: Path | None = None) -> Path:
    """The project folder `.claude/` goes in: `target` (which must exist), else the git
    repository root containing `cwd` (else `cwd`)."""
    base = Path(cwd) if cwd is not None else Path.cwd()
    if target is None:
        return find_target(base)
    root = (base / target).resolve()
    if not root.is_dir():
        raise PathNotFoundError(f"target folder not found: {root}", path=root)
    return root


def install_claude(
    target: Path | None = None,
    *,
    plan: Path | None = None,
    force: bool = False,
    cwd: Path | None = None,
    hooks: bool = True,
) -> InstallResult:
    """Write `.claude/commands/` and `.claude/agents/` under `target`, and (`hooks`) our
    hooks into `.claude/settings.json`.

    `target` defaults to the git repository root containing `cwd` (else `cwd`). With
    `plan`, one `execute-phase-<N>.md` per phase and the plan path baked into every
    command. Existing files that differ are skipped unless `force`, or unless they are
    commands an earlier install wrote for another `--plan` (or none) that nobody changed
    since: those are refreshed; identical ones are reported unchanged. The settings file
    is merged, never skipped: the person's keys stay, ours are replaced. A settings file
    that cannot be read is refused (ConfigError) before anything is written. Every write
    is atomic.
    """
    base = Path(cwd) if cwd is not None else Path.cwd()
    root = target_root(target, base)
    result = InstallResult(target=root)
    settings_text = _merged_settings(root) if hooks else None
    phases: list[tuple[int, str]] = []
    plan_arg: str | None = None
    found = _found_plan(base) if plan is None else None
    plan_path = (base / plan).resolve() if plan is not None else found
    if plan_path is not None:
        if not plan_path.exists():
            raise PathNotFoundError(f"plan not found: {plan_path}", path=plan_path)
        phases, result.notes = _plan_phases(plan_path)
        plan_arg = _plan_arg(plan_path, root)
        if found is not None:
            result.notes.append(
                f"no --plan given: the commands run the one plan found, {display_path(found)} "
                f"(--plan PLAN names another)"
            )
    else:
        result.notes.append(
            "no --plan given and no single plan found: no /execute-phase-N commands were "
            "written, and the other commands run the one plan the executor finds when they "
            "run; re-run with --plan PLAN to name it"
        )
    for rel, text in render_all(plan_arg=plan_arg, phases=phases).items():
        path = root / rel
        data = text.encode("utf-8")
        if path.exists():
            if path.is_file() and path.read_bytes() == data:
                result.unchanged.append(path)
                continue
            if not force and not (path.is_file() and command_is_ours(path)):
                result.skipped.append(path)
                continue
        path.parent.mkdir(parents=True, exist_ok=True)
        fsutil.atomic_write_bytes(path, data, fault="claude_install")
        result.written.append(path)
    if hooks:
        _write_settings(root, settings_text, result)
    return result


def _found_plan(cwd: Path) -> Path | None:
    """The one plan other commands would run from `cwd`, if there is exactly one."""
    from executor.plan.discover import discover_plan

    try:
        return discover_plan(cwd).resolve()
    except UserError:
        return None


def _merged_settings(root: Path) -> str | None:
    """The settings file's new text with our hooks (None: it has them already)."""
    from executor.claude.settings import SETTINGS, read_settings, render, with_ours

    current = read_settings(root / SETTINGS)
    merged = with_ours(current or {})
    return None if merged == current else render(merged)


def _write_settings(root: Path, text: str | None, result: InstallResult) -> None:
    from executor.claude.settings import OUR_HOOKS, SETTINGS

    path = root / SETTINGS
    if text is None:
        result.unchanged.append(path)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fsutil.atomic_write_text(path, text, fault="claude_settings")
    result.written.append(path)
    result.notes.append(
        f"{SETTINGS}: plan-executor's hooks ({', '.join(OUR_HOOKS)}) merged in, each "
        f"running `executor hook ...` (executor must be on Claude Code's PATH); anything "
        f"else in the file is kept; `install-claude --remove` takes them out"
    )


def display_path(path: Path, cwd: Path | None = None) -> str:
    """`path` relative to `cwd` when below it, else absolute."""
    base = (cwd or Path.cwd()).resolve()
    try:
        return os.fspath(path.relative_to(base))
    except ValueError:
        return os.fspath(path)
