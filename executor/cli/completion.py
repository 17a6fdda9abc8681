"""Shell completion: `executor --install-completion` / `--show-completion`, and the
answers to the script they install, from the command tables (`executor.cli.spec`).

The scripts and the protocol are typer's, which the CLI used before: the shell runs
`executor` with `_EXECUTOR_COMPLETE=complete_bash` (or `_zsh`, `_fish`, `_powershell`,
`_pwsh`) and the words typed so far in `COMP_WORDS` / `COMP_CWORD` (bash) or
`_TYPER_COMPLETE_ARGS`, so a script a person installed then still works. Completed:
commands, a group's commands, a command's options and the choices of an option's
value; anything else is left to the shell (files).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from executor.cli.spec import Command, Commands

PROG = "executor"
VAR = "_EXECUTOR_COMPLETE"
SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")

_BASH = """
%(func)s() {
    local IFS=$'\\n'
    COMPREPLY=( $( env COMP_WORDS="${COMP_WORDS[*]}" \\
                   COMP_CWORD=$COMP_CWORD \\
                   %(var)s=complete_bash $1 ) )
    return 0
}

complete -o default -F %(func)s %(prog)s
"""
_ZSH = """
#compdef %(prog)s

%(func)s() {
  eval $(env _TYPER_COMPLETE_ARGS="${words[1,$CURRENT]}" %(var)s=complete_zsh %(prog)s)
}

compdef %(func)s %(prog)s
"""
_FISH = (
    'complete --command %(prog)s --no-files --arguments "(env %(var)s=complete_fish '
    '_TYPER_COMPLETE_FISH_ACTION=get-args _TYPER_COMPLETE_ARGS=(commandline -cp) %(prog)s)" '
    '--condition "env %(var)s=complete_fish _TYPER_COMPLETE_FISH_ACTION=is-args '
    '_TYPER_COMPLETE_ARGS=(commandline -cp) %(prog)s"'
)
_POWERSHELL = """
Import-Module PSReadLine
Set-PSReadLineKeyHandler -Chord Tab -Function MenuComplete
$scriptblock = {
    param($wordToComplete, $commandAst, $cursorPosition)
    $Env:%(var)s = "complete_powershell"
    $Env:_TYPER_COMPLETE_ARGS = $commandAst.ToString()
    $Env:_TYPER_COMPLETE_WORD_TO_COMPLETE = $wordToComplete
    %(prog)s | ForEach-Object {
        $commandArray = $_ -Split ":::"
        $command = $commandArray[0]
        $helpString = $commandArray[1]
        [System.Management.Automation.CompletionResult]::new(
            $command, $command, 'ParameterValue', $helpString)
    }
    $Env:%(var)s = ""
    $Env:_TYPER_COMPLETE_ARGS = ""
    $Env:_TYPER_COMPLETE_WORD_TO_COMPLETE = ""
}
Register-ArgumentCompleter -Native -CommandName %(prog)s -ScriptBlock $scriptblock
"""
_SCRIPTS = {"bash": _BASH, "zsh": _ZSH, "fish": _FISH, "powershell": _POWERSHELL,
            "pwsh": _POWERSHELL}  # fmt: skip


def script(shell: str) -> str:
    return (_SCRIPTS[shell] % {"func": "_executor_completion", "prog": PROG, "var": VAR}).strip()


def complete(env: Mapping[str, str]) -> int:
    """Answer the shell (`env[VAR]`: `complete_SHELL`, or `source_SHELL` for the script)."""
    instruction, _, shell = env[VAR].partition("_")
    if shell not in SHELLS or instruction not in ("complete", "source"):
        print(f"{VAR}={env[VAR]}: expected complete_SHELL or source_SHELL, SHELL one of "
              f"{', '.join(SHELLS)}", file=sys.stderr)  # fmt: skip
        return 1
    if instruction == "source":
        print(script(shell))
        return 0
    if shell == "bash":
        words = _split(env.get("COMP_WORDS", ""))
        at = int(env.get("COMP_CWORD", "0") or 0)
        args, incomplete = words[1:at], (words[at] if at < len(words) else "")
    else:
        line = env.get("_TYPER_COMPLETE_ARGS", "")
        args = _split(line)[1:]
        if shell in ("powershell", "pwsh"):
            incomplete = env.get("_TYPER_COMPLETE_WORD_TO_COMPLETE", "")
            args = args[:-1] if incomplete else args
        else:
            incomplete = args.pop() if args and not line.endswith(" ") else ""
    items = candidates(args, incomplete)
    if shell == "bash":
        print("\n".join(value for value, _ in items))
    elif shell == "zsh":
        if items:
            shown = "\n".join(f'"{_zsh(v)}":"{_zsh(h)}"' if h else f'"{_zsh(v)}"' for v, h in items)
            print(f"_arguments '*: :(({shown}))'")
        else:
            print("_files")
    elif shell == "fish":
        if env.get("_TYPER_COMPLETE_FISH_ACTION") == "is-args":
            return 0 if items else 1
        print("\n".join(f"{v}\t{' '.join(h.split())}" if h else v for v, h in items))
    else:
        print("\n".join(f"{v}:::{h or ' '}" for v, h in items))
    return 0


def candidates(args: list[str], incomplete: str) -> list[tuple[str, str]]:
    """What may come next after `args` (the words typed before the cursor), starting with
    `incomplete`: (word, what it is)."""
    from executor.cli.catalog import OPTIONS, entry, root

    words = [a for a in args if not a.startswith("-")]
    found: Command | Commands | None = None
    for position, word in enumerate(words):
        table = found if isinstance(found, Commands) else None
        found = table.entries.get(word) if table is not None else entry(word)
        if found is None:
            return []
        if isinstance(found, Command):
            return _of_command(found, args[args.index(word, position) + 1 :], incomplete)
    if incomplete.startswith("-"):
        flags = [(f, h) for fs, _, h in (OPTIONS if found is None else ()) for f in fs.split(", ")]
        return [(f, h) for f, h in [*flags, ("--help", "")] if f.startswith(incomplete)]
    group = found if isinstance(found, Commands) else root()
    return [
        (name, e.summary)
        for name, e in group.entries.items()
        if not e.hidden and name.startswith(incomplete)
    ]


def _of_command(command: Command, args: list[str], incomplete: str) -> list[tuple[str, str]]:
    takes = {f: p for p in command.params if p.kind != "flag" for f in p.flags}
    if args and args[-1] in takes:  # the value of an option
        return [(c, "") for c in takes[args[-1]].choices if c.startswith(incomplete)]
    if not incomplete.startswith("-"):
        return []
    flags = [(f, _first(p.help)) for p in command.params for f in (*p.flags, *p.off)]
    return [(f, h) for f, h in [*flags, ("--help", "")] if f.startswith(incomplete)]


def install_or_show(option: str, shell: str | None) -> int:
    """`--install-completion [SHELL]` / `--show-completion [SHELL]` (default: the shell
    this runs in)."""
    from executor import console
    from executor.errors import UserError

    shell = shell or _shell()
    if shell not in SHELLS:
        raise UserError(
            f"{option}: cannot tell the shell ({shell or 'none found'}); name it: "
            f"executor {option} {'|'.join(SHELLS)}"
        )
    if option == "--show-completion":
        console.out(script(shell))
        return 0
    path = _install(shell)
    console.out(f"{shell} completion installed in {path}")
    console.out("Completion will take effect once you restart the terminal")
    return 0


def _install(shell: str) -> Path:
    """Where typer installed each shell's script, and the line that loads it."""
    home = Path.home()
    if shell == "bash":
        path = home / ".bash_completions" / f"{PROG}.sh"
        _add_lines(home / ".bashrc", [f"source '{path}'"])
    elif shell == "zsh":
        path = home / ".zfunc" / f"_{PROG}"
        _add_lines(home / ".zshrc", ["fpath+=~/.zfunc; autoload -Uz compinit; compinit"])
    elif shell == "fish":
        path = home / ".config" / "fish" / "completions" / f"{PROG}.fish"
    else:
        import subprocess

        asked = [shell, "-NoProfile", "-Command", "echo", "$profile"]
        found = subprocess.run(asked, check=True, capture_output=True, text=True)
        path = Path(found.stdout.strip())
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as f:
            f.write(script(shell) + "\n")
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script(shell) + "\n", encoding="utf-8")
    return path


def _add_lines(rc: Path, lines: list[str]) -> None:
    text = rc.read_text(encoding="utf-8") if rc.is_file() else ""
    missing = [line for line in lines if line not in text]
    if missing:
        rc.parent.mkdir(parents=True, exist_ok=True)
        rc.write_text(text + "".join(f"\n{line}\n" for line in missing), encoding="utf-8")


def _shell() -> str | None:
    """The shell `executor` was started from (the parent process), else the login one."""
    try:
        with open(f"/proc/{os.getppid()}/comm", encoding="utf-8") as f:
            name = f.read().strip().lstrip("-")
    except OSError:
        name = ""
    if name in SHELLS:
        return name
    login = os.path.basename(os.environ.get("SHELL", ""))
    return login or None


def _split(line: str) -> list[str]:
    """Words as the shell split them; an unclosed quote ends the last word."""
    import shlex

    lexer = shlex.shlex(line, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    words: list[str] = []
    try:
        words.extend(lexer)
    except ValueError:
        words.append(lexer.token)
    return words


def _zsh(text: str) -> str:
    return (
        text.replace('"', '""').replace("'", "''").replace("$", "\\$").replace("`", "\\`")
        .replace(":", r"\\:")
    )  # fmt: skip


def _first(text: str) -> str:
    """The first sentence of a help text."""
    return text.split(". ")[0].rstrip(".")
