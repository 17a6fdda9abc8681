"""Which git commands of a Bash command line our subagents may not run (the PreToolUse hook).

It allows, it does not forbid: a subagent may run only git that reads or stages
(`READ_ONLY`), because a list of what to forbid let through what nobody foresaw. The line
is split into words as the shell splits them (`shlex`), every word naming git, wherever it
stands, starts a git command line that must be on the list, script text is read again, and
what cannot be read (a program named by an expansion) is refused. It reads text, not what
runs: the executor's own check of each step is the guarantee (docs/claude-code.md, "What
keeps a subagent from committing").
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterator

#: git subcommands a subagent may run whatever their arguments: they read the
#: repository, or (`add`, `rm`, `mv`, `apply`) change only the worktree and the index.
READ_ONLY = frozenset(
    {
        "status", "diff", "log", "show", "blame", "annotate", "grep", "shortlog",
        "ls-files", "ls-tree", "ls-remote", "cat-file", "rev-parse", "rev-list",
        "describe", "name-rev", "merge-base", "diff-files", "diff-index", "diff-tree",
        "range-diff", "whatchanged", "cherry", "show-ref", "for-each-ref", "show-branch",
        "check-ignore", "check-attr", "check-ref-format", "check-mailmap", "count-objects",
        "var", "help", "version", "fsck", "verify-commit", "verify-tag",
        "add", "rm", "mv", "apply",
    }
)  # fmt: skip
#: subcommands allowed in some forms only (`_LISTING` says which)
LISTING_ONLY = frozenset(
    {"branch", "tag", "stash", "worktree", "remote", "reflog", "config", "notes",
     "submodule", "symbolic-ref"}
)  # fmt: skip
#: git's options before the subcommand that take the next word as their value
_GIT_VALUE_OPTIONS = frozenset({"-C", "--git-dir", "--work-tree", "--namespace",
                                "--super-prefix", "--list-cmds"})  # fmt: skip
#: git's options that make any subcommand run a program of the caller's choosing
_GIT_PROGRAM_OPTIONS = ("-c", "--config-env", "--exec-path")
#: words that end one command and start the next
_OPERATORS = frozenset({";", "&", "|", "&&", "||", ";;", "(", ")", "|&", "\n"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"})
#: programs whose `-c` argument is script text
_RUNS_SCRIPT = _SHELLS | {"su", "script", "flock", "runuser"}
_EXPANSION_RE = re.compile(r"^\$|^`")
_GIT_WORD_RE = re.compile(r"(?i)\bgit\b")
#: what the shell removes from a word: `g''it`, `"g"it` and `g\\it` are `git`
_QUOTING_RE = re.compile(r"[\"'\\]")
_DASHED_RE = re.compile(r"^git-[a-z][a-z-]*$")
#: how deep script text inside script text is read
_DEPTH = 4


def forbidden_git(command: str, depth: int = 0) -> list[str]:
    """What in `command` a subagent may not run, each as a short phrase (`git push`,
    `git branch -f`, `a command line it cannot read`); empty when all of it may run."""
    if not (_GIT_WORD_RE.search(_QUOTING_RE.sub("", command)) or "$" in command or "`" in command):
        return []  # no git however it is quoted, and no expansion that could make one
    try:
        words = _words(command)
    except ValueError:  # an unclosed quote
        return ["a command line that names git and that it cannot read (an unclosed quote)"]
    found: list[str] = []
    for argv in _commands(words):
        found += _judge(argv, depth)
    if depth < _DEPTH:
        stdin_script = _reads_stdin_script(words)
        for word in words:
            for script in _substitutions(word):  # `"$(git push)"` runs in double quotes
                found += forbidden_git(script, depth + 1)
            if stdin_script and _GIT_WORD_RE.search(word):  # a shell reading stdin
                found += forbidden_git(word, depth + 1)
    return list(dict.fromkeys(found))


def _substitutions(word: str) -> Iterator[str]:
    """The command texts of `$(...)` and backquotes in `word` (outermost ones; an
    unclosed one runs to the end)."""
    i = 0
    while i < len(word):
        if word.startswith("$(", i):
            depth, j = 1, i + 2
            while j < len(word) and depth:
                depth += {"(": 1, ")": -1}.get(word[j], 0)
                j += 1
            yield word[i + 2 : j - 1 if depth == 0 else j]
            i = j
        elif word[i] == "`":
            end = word.find("`", i + 1)
            end = len(word) if end < 0 else end
            yield word[i + 1 : end]
            i = end + 1
        else:
            i += 1


def _words(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""  # `#` starts a comment only at a word's start: read it as words
    return list(lexer)


def _commands(words: list[str]) -> Iterator[list[str]]:
    """`words` cut at the shell's operators into the words of each command."""
    current: list[str] = []
    for word in words:
        if word in _OPERATORS or (word and set(word) <= set(";&|()")):
            if current:
                yield current
            current = []
        else:
            current.append(word)
    if current:
        yield current


def _judge(argv: list[str], depth: int) -> list[str]:
    """What of one command's words may not run: each git command line among them, the
    script text it hands a shell or `eval`, and a command name that is an expansion."""
    found: list[str] = []
    first = _command_name(argv)
    if first is not None and ("$" in argv[first] or "`" in argv[first]):
        shown = "$(...)" if argv[first] == "$" else argv[first]
        found.append(f"{shown} (a program named by an expansion: it cannot tell which)")
    for i, word in enumerate(argv):
        name = _base(word)
        if name == "git":
            bad = _git_line(argv[i + 1 :])
            if bad:
                found.append(bad)
        elif _DASHED_RE.match(name) and name[4:] not in READ_ONLY:
            found.append(f"git {name[4:]}")  # /usr/lib/git-core/git-push
    if depth < _DEPTH and first is not None:
        for script in _scripts(argv[first:]):
            found += forbidden_git(script, depth + 1)
    return found


def _command_name(argv: list[str]) -> int | None:
    """Where the command's name is: after `VAR=value` words and shell keywords."""
    for i, word in enumerate(argv):
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
            continue
        if word in {"then", "do", "else", "elif", "if", "while", "until", "{", "}", "!",
                    "time", "exec", "command", "builtin"}:  # fmt: skip
            continue
        return i
    return None


def _base(word: str) -> str:
    return word.strip("`").rsplit("/", 1)[-1].lower()


def _scripts(argv: list[str]) -> Iterator[str]:
    """Script text this command hands a shell: `sh -c TEXT`, `eval WORDS`."""
    name = _base(argv[0])
    if name == "eval":
        yield " ".join(argv[1:])
        return
    for i, word in enumerate(argv):
        if _base(word) in _RUNS_SCRIPT or (i == 0 and name in _RUNS_SCRIPT):
            for j in range(i + 1, len(argv) - 1):
                arg = argv[j]
                if arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]:
                    yield argv[j + 1]
                    break


def _reads_stdin_script(words: list[str]) -> bool:
    """A shell in the line without `-c`: it may read its script from stdin (a pipe, a
    here-string), which is then some string of the line."""
    for argv in _commands(words):
        first = _command_name(argv)
        if first is None or _base(argv[first]) not in _SHELLS:
            continue
        if not any(w.startswith("-") and "c" in w.lstrip("-") for w in argv[first + 1 :]):
            return True
    return False


def _git_line(args: list[str]) -> str | None:
    """Why `git ARGS` may not run, or None when it is on the list."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith(_GIT_PROGRAM_OPTIONS):
            return f"git {arg.split('=', 1)[0]} (an option that runs a program)"
        if arg in _GIT_VALUE_OPTIONS:
            i += 2
        elif arg.startswith("-"):
            if arg in {"-h", "--help", "--version"}:
                return None
            i += 1
        else:
            break
    if i >= len(args):
        return None  # `git` alone (or a word such as a folder named git at the end)
    sub, rest = args[i], args[i + 1 :]
    if _EXPANSION_RE.match(sub):
        return f"git {sub} (a subcommand it cannot read)"
    if sub in READ_ONLY:
        return None
    sub = sub.strip("`")
    if sub in READ_ONLY:
        return None
    if sub in LISTING_ONLY:
        return _LISTING[sub](rest)
    return f"git {sub}"


_LIST_FLAGS = ("-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged",
               "--points-at")  # fmt: skip


def _short_flags(args: list[str]) -> set[str]:
    return {c for a in args if a.startswith("-") and not a.startswith("--") for c in a[1:]}


Check = Callable[[list[str]], "str | None"]


def _listing_refs(what: str, writes: frozenset[str], long_writes: tuple[str, ...]) -> Check:
    """`git branch` / `git tag`: listing only (no write option; names only to list)."""

    def check(args: list[str]) -> str | None:
        bad = sorted(_short_flags(args) & writes)
        if bad:
            return f"git {what} -{bad[0]}"
        for arg in args:
            if arg.startswith(long_writes):
                return f"git {what} {arg.split('=', 1)[0]}"
        names = [a for a in args if not a.startswith("-")]
        if names and not any(a.startswith(_LIST_FLAGS) for a in args):
            return f"git {what} {names[0]} (it makes or moves a ref)"
        return None

    return check


def _first_word_in(what: str, allowed: frozenset[str], *, bare: bool = True) -> Check:
    """`git worktree list`, `git stash show`, ...: the listed actions only."""

    def check(args: list[str]) -> str | None:
        action = next((a for a in args if not a.startswith("-")), None)
        if action is None:
            return None if bare else f"git {what}"
        return None if action in allowed else f"git {what} {action}"

    return check


def _config(args: list[str]) -> str | None:
    reads = ("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l")
    if any(a.startswith(reads) for a in args) or (args and args[0] in {"get", "list"}):
        return None
    return "git config (other than reading it)"


def _symbolic_ref(args: list[str]) -> str | None:
    if any(a in {"-d", "--delete", "-m"} for a in args):
        return "git symbolic-ref (other than reading it)"
    names = [a for a in args if not a.startswith("-")]
    return None if len(names) <= 1 else "git symbolic-ref (other than reading it)"


_BRANCH_LONG_WRITES = ("--force", "--delete", "--move", "--copy", "--set-upstream",
                       "--unset-upstream", "--edit-description", "--track", "--no-track",
                       "--create-reflog", "--recurse")  # fmt: skip
_TAG_LONG_WRITES = ("--force", "--delete", "--annotate", "--sign", "--local-user",
                    "--message", "--file", "--edit")  # fmt: skip
_LISTING: dict[str, Check] = {
    "branch": _listing_refs("branch", frozenset("fdDmMcCut"), _BRANCH_LONG_WRITES),
    "tag": _listing_refs("tag", frozenset("fdasumFe"), _TAG_LONG_WRITES),
    "stash": _first_word_in("stash", frozenset({"list", "show"}), bare=False),
    "worktree": _first_word_in("worktree", frozenset({"list"}), bare=False),
    "remote": _first_word_in("remote", frozenset({"get-url", "show"})),
    "reflog": _first_word_in("reflog", frozenset({"show", "exists"})),
    "notes": _first_word_in("notes", frozenset({"list", "show"})),
    "submodule": _first_word_in("submodule", frozenset({"status", "summary"})),
    "config": _config,
    "symbolic-ref": _symbolic_ref,
}
