"""`executor install-claude`: slash commands, subagents and hooks for Claude Code."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from executor.cli.spec import Commands
from executor.params import Param

if TYPE_CHECKING:
    from pathlib import Path


def _listed(groups: Sequence[tuple[str, Sequence[Path], str]], notes: Sequence[str]) -> None:
    """Each file under what was done to it (`wrote   .claude/...`), then the notes."""
    from executor import console
    from executor.claude.install import display_path

    for label, paths, why in groups:
        for path in paths:
            console.out(f"{label:<10} {display_path(path)}{why}")
    for note in notes:
        console.out(f"note: {note}")


def _install(
    target: Path | None, plan: Path | None, force: bool, hooks: bool, json_output: bool
) -> int:
    from executor import console
    from executor.claude.install import install_claude

    result = install_claude(target, plan=plan, force=force, hooks=hooks)
    if json_output:
        console.out_json(result.as_dict())
        return 0
    _listed(
        [("wrote", result.written, ""), ("unchanged", result.unchanged, ""),
         ("skipped", result.skipped, " (exists and differs; --force overwrites)")],
        result.notes,
    )  # fmt: skip
    console.out(
        f"{len(result.written)} written, {len(result.unchanged)} unchanged, "
        f"{len(result.skipped)} skipped in {result.target / '.claude'}"
    )
    if result.written:  # a session starts only from a clean worktree
        _commit_hint(result.target, "Claude Code commands for the plan")
    return 0


def _remove(target: Path | None, json_output: bool) -> int:
    from executor import console
    from executor.claude.uninstall import remove_claude

    result = remove_claude(target)
    if json_output:
        console.out_json(result.as_dict())
        return 0
    _listed(
        [("removed", result.removed, ""), ("updated", result.written, ""),
         ("kept", result.kept, " (changed since install-claude wrote it)")],
        result.notes,
    )  # fmt: skip
    console.out(
        f"{len(result.removed)} removed, {len(result.written)} updated, "
        f"{len(result.kept)} kept in {result.target / '.claude'}"
    )
    if result.removed or result.written:
        _commit_hint(result.target, "Remove the plan-executor Claude Code commands and hooks")
    return 0


def _commit_hint(root: Path, message: str) -> None:
    """The git commands that commit `.claude/`, when git sees a change there (after
    `git init` where there is no repository yet and there is a `.claude/` to commit)."""
    from executor import console
    from executor.errors import UserError
    from executor.fsutil import quote
    from executor.vcs import GitRepo

    folder, git = quote(root / ".claude"), f"git -C {quote(root)}"
    commit = f"{git} add -A {folder} && {git} commit -m {quote(message)}"
    try:
        repo = GitRepo.discover(root)
    except UserError:  # `git add` would fail here
        if (root / ".claude").exists():
            console.out(
                f"next: the executor runs a plan in a git repository, and {quote(root)} is "
                f"not in one yet: {git} init && {commit}"
            )
        return
    claude = (root / ".claude").resolve()
    if not any((repo.root / f).resolve().is_relative_to(claude) for f in repo.dirty_files()):
        return  # an install or removal of files git never tracked: nothing to commit
    console.out(
        f"next: commit the change before running a session, which starts only from a clean "
        f"worktree: {commit}"
    )


commands = Commands()


@commands(
    "install-claude",
    Param("target", "--target", kind="path",
          help="Project folder to write .claude/ into (default: the root of the git "
          "repository containing the current folder, else the current folder)."),
    Param("plan", "--plan", kind="path",
          help="Plan folder or file: writes /execute-phase-N for each phase and names the "
          "plan in every command."),
    Param("force", "--force", kind="flag", help="Overwrite existing files that differ."),
    Param("no_hooks", "--no-hooks", kind="flag",
          help="Leave .claude/settings.json alone (no Stop, PostToolUse, SessionStart or "
          "PreToolUse hooks)."),
    Param("remove", "--remove", kind="flag",
          help="Take our hooks out of .claude/settings.json and delete the command and "
          "subagent files that are still exactly as written; keep changed ones."),
    Param("json_output", "--json", kind="flag", help="Print what was written as JSON."),
)  # fmt: skip
def install_claude_cmd(
    target: Path | None, plan: Path | None, force: bool, no_hooks: bool, remove: bool,
    json_output: bool,
) -> None:  # fmt: skip
    """Install Claude Code slash commands (.claude/commands), subagents (.claude/agents)
    and hooks (.claude/settings.json, merged into what is there).

    Existing command and subagent files are left alone unless --force; the output
    lists them. A settings file that is not valid JSON is refused: nothing is written.
    """
    from executor.cli import common

    if remove:
        common.run(lambda: _remove(target, json_output), json_output=json_output)
    common.run(
        lambda: _install(target, plan, force, not no_hooks, json_output),
        json_output=json_output,
    )
