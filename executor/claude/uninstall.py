"""`executor install-claude --remove`: take out what install-claude put in.

Our hooks leave `.claude/settings.json` (the person's settings stay; a file left with
nothing in it goes). A command or subagent file goes only when it is still exactly what
install-claude writes: a subagent equal to the shipped one; a command equal to its
rendering for the plan it names (read back from the file: the `--plan` of its command
line, and for `execute-phase-N.md` the phase's name from its title). A file the person
changed is kept and listed, theirs to delete. Folders left empty go.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from executor.claude.install import InstallResult, command_is_ours, shipped_agents, target_root


def remove_claude(target: Path | None = None, *, cwd: Path | None = None) -> InstallResult:
    """Remove our hooks and our unchanged files from `target`'s `.claude/`."""
    from executor.claude.settings import SETTINGS, read_settings, render, without_ours

    root = target_root(target, cwd)
    result = InstallResult(target=root)
    settings = root / SETTINGS
    current = read_settings(settings)  # refuses a broken file before anything is removed
    if current is not None:
        rest = without_ours(current)
        if rest == current:
            pass  # nothing of ours in it
        elif rest:
            from executor import fsutil

            fsutil.atomic_write_text(settings, render(rest), fault="claude_settings")
            result.written.append(settings)
            result.notes.append(f"{SETTINGS}: plan-executor's hooks taken out; the rest is kept")
        else:
            settings.unlink()
            result.removed.append(settings)
    agents = shipped_agents()
    for path in sorted((root / ".claude" / "agents").glob("*.md")):
        if path.stem in agents:
            _settle(path, path.read_text("utf-8") == agents[path.stem], result)
    for path in sorted((root / ".claude" / "commands").glob("*.md")):
        mine = command_is_ours(path)
        if mine is not None:
            _settle(path, mine, result)
    for folder in (root / ".claude" / "agents", root / ".claude" / "commands", root / ".claude"):
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty
    return result


def _settle(path: Path, ours: bool, result: InstallResult) -> None:
    if ours:
        path.unlink()
        result.removed.append(path)
    else:
        result.kept.append(path)
