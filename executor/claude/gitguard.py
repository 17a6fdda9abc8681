"""Which git commands a Bash command line runs that move history (for the PreToolUse hook).

A subagent of ours must not commit, push or otherwise move the repository's history: the
executor verifies each step and makes the session's one commit itself (and refuses a
session whose history an agent moved). Claude Code cannot scope a subagent's Bash tool
in its frontmatter (`tools: Bash(git diff:*)` is read as plain `Bash`, a Bash pattern in
`disallowedTools` is reported to take Bash away entirely or to be ignored), so a
PreToolUse hook reads the command line instead.

The reading is a best effort, as any reading of shell is: the line is split at `;`,
`&&`, `||`, `|`, `&`, newlines, `$(`, backticks and parentheses; each part is split
into words (shlex); leading `VAR=value` words and wrappers (`env`, `command`, `time`,
`timeout N`, `nice`, `nohup`, `sudo`, ...) are skipped; `sh -c '...'`/`bash -c` is read
again; git's own options before the subcommand (`-C DIR`, `-c k=v`, `--git-dir=...`)
are skipped. A script file that runs git, an alias or `eval` is not seen: the
executor's own check is what guarantees no agent's commit reaches a session.
"""

from __future__ import annotations

import re
import shlex

#: git subcommands that make, move or publish commits, or hide the worktree's changes.
FORBIDDEN = frozenset(
    {
        "commit",
        "push",
        "reset",
        "rebase",
        "merge",
        "cherry-pick",
        "revert",
        "am",
        "stash",
        "checkout",
        "switch",
        "pull",
        "update-ref",
        "commit-tree",
    }
)
_SPLIT_RE = re.compile(r"&&|\|\||\$\(|[;|&\n`()]")
_ASSIGN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_WRAPPERS = frozenset({"env", "command", "builtin", "exec", "time", "nice", "nohup", "sudo",
                       "stdbuf", "xargs", "caffeinate"})  # fmt: skip
#: wrapper options that take the next word as their value (`nice -n 5`, `env -u NAME`)
_WRAPPER_VALUE_OPTIONS = frozenset({"-n", "-u", "-C", "-o", "-e", "-s", "-k", "-g"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
#: git options before the subcommand that take the next word as their value
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace",
                                "--exec-path", "--config-env"})  # fmt: skip


def forbidden_git(command: str, depth: int = 0) -> list[str]:
    """The history-moving git commands `command` runs, as `git <subcommand>` strings."""
    found: list[str] = []
    for part in _SPLIT_RE.split(command):
        try:
            words = shlex.split(part, comments=True)
        except ValueError:  # an unclosed quote (a split inside one): word by word
            words = [w.strip("'\"") for w in part.split()]
        words = _strip_prefix(words)
        if not words:
            continue
        name = words[0].rsplit("/", 1)[-1]
        if name in _SHELLS and depth < 3:
            script = _shell_script(words[1:])
            if script is not None:
                found += forbidden_git(script, depth + 1)
            continue
        if name == "git":
            sub = _git_subcommand(words[1:])
            if sub in FORBIDDEN:
                found.append(f"git {sub}")
    return found


def _strip_prefix(words: list[str]) -> list[str]:
    i = 0
    while i < len(words):
        word = words[i]
        if _ASSIGN_RE.match(word):
            i += 1
        elif word in _WRAPPERS:
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in _WRAPPER_VALUE_OPTIONS else 1
        elif word == "timeout":
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
            i += 1  # the duration
        else:
            break
    return words[i:]


def _shell_script(args: list[str]) -> str | None:
    for i, arg in enumerate(args):
        if arg.startswith("-") and "c" in arg[1:] and not arg.startswith("--"):
            return args[i + 1] if i + 1 < len(args) else None
    return None


def _git_subcommand(args: list[str]) -> str | None:
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _GIT_VALUE_OPTIONS:
            i += 2
        elif arg.startswith("-"):
            i += 1
        else:
            return arg
    return None
