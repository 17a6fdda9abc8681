"""Ready-made command lines for real agent CLIs: Claude Code, Codex, Gemini CLI, aider.

A preset turns one agent step into the argv that runs the tool non-interactively, able to
edit files and run the step's test command but never to commit, push or move HEAD: the
executor verifies each step and makes the session's one commit itself.
docs/agent-command.md, "Presets", explains every flag and how the engine runs one.

Only the standard library is imported: this runs once per agent step.
"""

from __future__ import annotations

import functools
import json
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from executor.errors import PresetError

#: Linux refuses a single argument longer than this (MAX_ARG_STRLEN is 128 KiB); a brief
#: passed as an argument must stay below it, with room for the rest of the command line.
MAX_ARG_BYTES = 120_000

#: git commands that move HEAD or throw work away: the executor stops when HEAD moves
#: behind its back, so no preset lets the agent run them.
GIT_FORBIDDEN = (
    "git commit",
    "git push",
    "git pull",
    "git merge",
    "git rebase",
    "git reset",
    "git checkout",
    "git switch",
    "git stash",
    "git cherry-pick",
    "git revert",
    "git am",
)

#: A test command whose runner is one of these is allowed only as written: `python *`
#: or `sh *` would allow any command at all.
_WRAPPERS = frozenset(
    {
        *("sh", "bash", "zsh", "dash", "env", "sudo", "exec", "xargs"),
        *("time", "timeout", "nice", "nohup"),
        *("python", "python3", "node", "ruby", "perl", "npx", "uv", "poetry", "pipenv"),
    }
)


#: Spellings of one runner: an agent told to run `pytest` may well type `python3 -m pytest`.
_SPELLINGS = (
    ("pytest", "py.test", "python -m pytest", "python3 -m pytest", "uv run pytest"),
    ("npm test", "npm run test", "npm t"),
    ("pnpm test", "pnpm run test"),
    ("yarn test", "yarn run test"),
    ("npx vitest", "vitest", "npx vitest run", "vitest run"),
    ("npx jest", "jest"),
    ("go test",),
    ("cargo test",),
)


@dataclass(frozen=True)
class PresetRequest:
    """What a preset needs for one agent step."""

    #: The brief (markdown) on disk; tools that read a message file get this path.
    prompt_file: Path
    #: The brief's text; tools that take the prompt as an argument or on stdin get this.
    prompt: str
    #: The repository root: the agent's working directory.
    repo: Path
    #: The command the executor will run for this step (None: the agent runs no command).
    test_command: str | None
    #: The plan's and the project's other test commands (the agent may run them too).
    test_commands: tuple[str, ...] = ()

    def allowed(self) -> list[str]:
        """The commands the agent may run, with any further arguments: each test
        command's runner (`runner_prefix`), in every common spelling of that runner."""
        commands = [c for c in (self.test_command, *self.test_commands) if c]
        out: list[str] = []
        for command in commands:
            prefix = runner_prefix(command)
            for spelling in next((s for s in _SPELLINGS if prefix in s), (prefix,)):
                if spelling not in out:
                    out.append(spelling)
        return out


@dataclass(frozen=True)
class PresetCommand:
    """How to run one step: argv (cwd = the repository), stdin, extra environment."""

    argv: tuple[str, ...]
    #: Written to stdin, which is then closed ("" = nothing; never leave stdin open).
    stdin_text: str = ""
    env_additions: dict[str, str] = field(default_factory=dict)
    #: Patterns for `.git/info/exclude`: files the tool writes in the repository that must
    #: never reach the session commit (aider's `.aider*` chat history and tag cache).
    git_excludes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Preset:
    """A named way to run an agent CLI."""

    name: str
    #: The program looked up on PATH (`on_path`).
    executable: str
    #: The argv with placeholders, as shown by `describe` and in the docs.
    template: str
    summary: str
    #: Where each flag is documented (docs/agent-command.md has the details).
    sources: tuple[str, ...]
    build: Callable[[PresetRequest], PresetCommand]


PRESETS: dict[str, Preset] = {}


def register(preset: Preset, *, replace: bool = False) -> None:
    """Add a preset (for instance `replay`); an existing name needs `replace=True`."""
    if preset.name in PRESETS and not replace:
        raise PresetError(f"preset {preset.name!r} is already registered")
    PRESETS[preset.name] = preset


def preset_argv(
    name: str,
    *,
    prompt_file: Path,
    prompt: str,
    repo: Path,
    test_command: str | None,
    test_commands: tuple[str, ...] = (),
) -> PresetCommand:
    """The command that runs preset `name` for one step (see `PresetRequest`).

    The gemini preset also writes its policy file next to `prompt_file`.
    """
    preset = PRESETS.get(name)
    if preset is None:
        raise PresetError(f"unknown agent preset {name!r}; known: {', '.join(sorted(PRESETS))}")
    command = preset.build(PresetRequest(prompt_file, prompt, repo, test_command, test_commands))
    too_long = [a for a in command.argv if len(a.encode("utf-8")) > MAX_ARG_BYTES]
    if too_long:
        raise PresetError(
            f"preset {name!r} passes the brief as an argument, and this brief is "
            f"{len(too_long[0].encode('utf-8'))} bytes (the limit is {MAX_ARG_BYTES})"
        )
    return command


def on_path(name: str) -> str | None:
    """Where the preset's program is on PATH, or None (unknown preset included)."""
    preset = PRESETS.get(name)
    return shutil.which(preset.executable) if preset else None


def describe(name: str | None = None) -> str:
    """Each preset (or one): what it does, its argv template and its sources."""
    if name is None:
        chosen = list(PRESETS.values())
    elif name in PRESETS:
        chosen = [PRESETS[name]]
    else:
        raise PresetError(f"unknown agent preset {name!r}; known: {', '.join(sorted(PRESETS))}")
    blocks = []
    for p in chosen:
        sources = "\n".join(f"    {url}" for url in p.sources)
        blocks.append(f"{p.name}: {p.summary}\n  {p.template}\n  sources:\n{sources}")
    return "\n\n".join(blocks)


def runner_prefix(test_command: str) -> str:
    """The part of the test command the agent may run with any further arguments.

    That is its runner (`python -m pytest tests/test_x.py -q` -> `python -m pytest`,
    `npm run test -- --ci` -> `npm run test`), so the agent can run one test or a few;
    a bare shell or interpreter (`sh -c ...`, `python script.py`) is too broad, so then
    the command is allowed only as written (plus extra arguments).
    """
    try:
        tokens = shlex.split(test_command)
    except ValueError:
        return test_command.strip()
    if not tokens:
        return test_command.strip()
    keep = [tokens[0]]
    rest = tokens[1:]
    while rest:
        if rest[0] == "-m" and len(rest) > 1:
            keep += rest[:2]
            rest = rest[2:]
        elif _is_word(rest[0]):
            keep.append(rest.pop(0))
        else:
            break
    if len(keep) == 1 and Path(keep[0]).name in _WRAPPERS and len(tokens) > 1:
        return shlex.join(tokens)
    return shlex.join(keep)


def _is_word(token: str) -> bool:
    """A subcommand-like token (`test`, `run`, `test:unit`), not a path, option or setting."""
    return (
        token[:1].isalpha() and not any(c in token for c in "/\\=*") and not token.endswith(".py")
    )


# -- the presets ------------------------------------------------------------------------


def _claude_rule(command: str) -> list[str]:
    """`Bash(cmd)` and `Bash(cmd *)`: the command alone, and followed by arguments."""
    literal = command.replace("\\", "\\\\").replace("*", "\\*")
    return [f"Bash({literal})", f"Bash({literal} *)"]


def _claude(req: PresetRequest) -> PresetCommand:
    """The brief goes on stdin (an argument is visible in `ps` and capped at 128 KiB;
    Claude Code reads up to 10 MB of stdin as the prompt when `-p` has none)."""
    argv = ["claude", "-p", "--output-format", "json", "--permission-mode", "acceptEdits"]
    allowed = req.allowed()
    if allowed:
        argv += ["--allowedTools", *(r for c in allowed for r in _claude_rule(c))]
    argv += ["--disallowedTools", *(r for git in GIT_FORBIDDEN for r in _claude_rule(git))]
    return PresetCommand(argv=tuple(argv), stdin_text=req.prompt)


def _codex(req: PresetRequest) -> PresetCommand:
    argv = ("codex", "exec", "--json", "--sandbox", "workspace-write", "--cd", str(req.repo), "-")
    return PresetCommand(argv=argv, stdin_text=req.prompt)


def gemini_policy(allowed: list[str]) -> str:
    """The Gemini CLI policy (TOML) for one step: the test commands allowed, git denied."""
    lines = [
        "# plan-executor: policy for one agent step (`executor docs agent-command`)",
        "[[rule]]",
        'toolName = "run_shell_command"',
        f"commandPrefix = {json.dumps(list(GIT_FORBIDDEN))}",
        'decision = "deny"',
        "priority = 900",
        'denyMessage = "plan-executor verifies this step and makes the commit itself"',
    ]
    if allowed:
        lines += [
            "",
            "[[rule]]",
            'toolName = "run_shell_command"',
            f"commandPrefix = {json.dumps(allowed)}",
            'decision = "allow"',
            "priority = 500",
        ]
    return "\n".join(lines) + "\n"


#: What the gemini preset needs, and the Gemini CLI version that has it all.
_GEMINI_NEEDS = ("--approval-mode", "--policy", "--output-format")
_GEMINI_VERSION = "0.30"


@functools.cache
def gemini_flags() -> frozenset[str]:
    """The long flags the installed `gemini --help` lists (asked once per process; empty
    when it cannot be asked)."""
    try:
        done = subprocess.run(["gemini", "--help"], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=60, check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(re.findall(r"(?<![\w-])--[a-z][a-z-]*", done.stdout + done.stderr))


def _gemini(req: PresetRequest) -> PresetCommand:
    """Only flags the installed Gemini CLI lists: `--skip-trust` (folder trust, 0.41 on)
    when it has it; without `--policy` and the rest, a clear error naming the version.
    The brief goes on stdin (headless reads up to 8 MB of it)."""
    flags = gemini_flags()
    missing = [f for f in _GEMINI_NEEDS if flags and f not in flags]
    if missing:
        raise PresetError(
            f"the installed Gemini CLI has no {', '.join(missing)} (its `gemini --help`); "
            f"the gemini preset needs Gemini CLI {_GEMINI_VERSION} or later: "
            f"npm install -g @google/gemini-cli@latest"
        )
    policy = req.prompt_file.with_name(req.prompt_file.stem + ".gemini-policy.toml")
    policy.write_text(gemini_policy(req.allowed()), encoding="utf-8")
    trust = ("--skip-trust",) if not flags or "--skip-trust" in flags else ()
    argv = ("gemini", *trust, "--approval-mode", "auto_edit", "--policy", str(policy),
            "--output-format", "json")  # fmt: skip
    return PresetCommand(argv=argv, stdin_text=req.prompt)


def _aider(req: PresetRequest) -> PresetCommand:
    argv = (
        "aider",
        "--message-file",
        str(req.prompt_file),
        "--yes-always",
        "--no-auto-commits",
        "--no-dirty-commits",
        "--no-gitignore",
        "--no-suggest-shell-commands",
        "--no-stream",
        "--no-pretty",
        "--no-check-update",
        "--no-show-release-notes",
        "--no-analytics",
    )
    return PresetCommand(argv=argv, git_excludes=(".aider*",))


for _preset in (
    Preset(
        name="claude",
        executable="claude",
        template=(
            "claude -p --output-format json --permission-mode acceptEdits --allowedTools "
            '"Bash(<runner>)" "Bash(<runner> *)" ... --disallowedTools "Bash(git commit)" '
            '"Bash(git commit *)" ...  (brief on stdin; each test command\'s runner, in its '
            "common spellings)"
        ),
        summary="Claude Code headless; edits approved, Bash only for the test command",
        sources=(
            "https://code.claude.com/docs/en/headless",
            "https://code.claude.com/docs/en/cli-reference",
            "https://code.claude.com/docs/en/permissions",
            "https://code.claude.com/docs/en/permission-modes",
        ),
        build=_claude,
    ),
    Preset(
        name="codex",
        executable="codex",
        template="codex exec --json --sandbox workspace-write --cd <repo> -  (brief on stdin)",
        summary="Codex CLI exec; workspace-write sandbox (.git read-only), approvals never",
        sources=(
            "https://developers.openai.com/codex/noninteractive",
            "https://github.com/openai/codex/blob/main/codex-rs/exec/src/cli.rs",
            "https://github.com/openai/codex/blob/main/codex-rs/exec/src/exec_events.rs",
        ),
        build=_codex,
    ),
    Preset(
        name="gemini",
        executable="gemini",
        template=(
            "gemini [--skip-trust] --approval-mode auto_edit --policy "
            "<brief>.gemini-policy.toml --output-format json  (brief on stdin; flags checked "
            "against `gemini --help`)"
        ),
        summary="Gemini CLI headless; workspace trusted for the run, policy allows the tests",
        sources=(
            "https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/headless.md",
            "https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/trusted-folders.md",
            "https://github.com/google-gemini/gemini-cli/blob/main/docs/reference/policy-engine.md",
            "https://github.com/google-gemini/gemini-cli/pull/18500",
        ),
        build=_gemini,
    ),
    Preset(
        name="aider",
        executable="aider",
        template=(
            "aider --message-file <brief> --yes-always --no-auto-commits --no-dirty-commits "
            "--no-gitignore --no-suggest-shell-commands --no-stream --no-pretty "
            "--no-check-update --no-show-release-notes --no-analytics"
        ),
        summary="aider one-shot message; no commits of its edits nor of dirty files",
        sources=(
            "https://aider.chat/docs/scripting.html",
            "https://aider.chat/docs/config/options.html",
            "https://aider.chat/docs/git.html",
        ),
        build=_aider,
    ),
):
    register(_preset)
