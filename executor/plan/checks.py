"""Which of a plan's commands may verify a session: checks, and nothing else.

The executor runs a plan's command to measure a step itself, so a command is used that
way only when it is a test run or a check that changes nothing: a test runner, a linter
or type checker, a build (`judge(command)` returns None). Anything else is refused with
the reason, and stays in the plan as context for the agent and the person:
- text that is no command: it does not parse as a shell command, it holds a placeholder
  (`<slug-from-step-1>`, `{{name}}`), or it is a bare variable name (`WORLD_TIDES_API_KEY`);
- a command with an effect: a git command that writes (`git reset HEAD~1`), an install,
  a deploy or publish (`make redeploy-web`), a network call (`curl`), a database change
  (`prisma migrate dev`), files changed (`mkdir`, `> out.txt`), a server that does not
  end (`npm run dev`), a program opened for a person;
- a command that checks nothing (`cat`, `echo`, `ls`, running the program itself).

Each simple command of a line (split at `&&`, `||`, `;` and `|`) is judged after its
wrappers (`cd`, `VAR=x`, `sudo`, `uv run`, `npx`, `docker compose run ...`); the line is
a check when none of its parts is refused and at least one of them checks.
"""

from __future__ import annotations

import re
import shlex

from executor.plan import programs

_PLACEHOLDER = re.compile(r"<[A-Za-z_][^<>\n]*>|\{\{[^}]*\}\}|\bYOUR_[A-Z_]+\b")
_VARIABLE = re.compile(r"^\$?\{?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\}?$|^\$\{?\w+\}?$")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: A command with no quotes, escapes, expansions or comments (most plans' commands).
_SIMPLE = re.compile(r"^[^'\"\\`$#(){}]*$")
_OPERATOR = re.compile(r"(&&|\|\||;;|\|&|&>>|&>|>>|>&|[;|&<>])")
_OPERATORS = frozenset({"&&", "||", ";", "|", "&", ";;", "|&"})


def not_a_check(command: str, why: str) -> str:
    """How `plan validate` names a command that will not verify a session."""
    return (
        f"`{command}` is not run as a check: {why}; the agent and the person see it as "
        "context, and the session is verified by a check (the step's, or the project's "
        "test command)"
    )


def judge(command: str | None) -> str | None:
    """Why `command` may not verify a session (None: it is a check)."""
    if command is None or not command.strip():
        return "it is empty"
    text = command.strip()
    if m := _PLACEHOLDER.search(text):
        return f"it holds a placeholder ({m.group(0)}) to fill in"
    if _VARIABLE.match(text):
        return "it is a variable's name, not a command"
    if _SIMPLE.match(text):  # no quotes, escapes or expansions: words are what spaces part
        tokens = _OPERATOR.sub(r" \1 ", text).split()
    else:
        try:
            lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError as e:
            return f"it does not parse as a shell command ({e})"
    if not tokens:
        return "it is empty"
    if (server := programs.SERVER.search(text)) is not None:
        return f"it starts something that does not end ({server.group(0).strip()})"
    if "<<" in text:
        return "it writes a file (a here-document)"
    for before, after in zip(tokens, [*tokens[1:], ""], strict=True):
        if before in (">", ">>", "&>", ">|", "&>>") and after != "/dev/null":
            return f"it writes a file ({before} {after})"
    verdicts = [_part(part) for part in _parts(tokens)]
    refused = next((v for v in verdicts if v not in (None, "neutral")), None)
    if refused is not None:
        return refused
    if None not in verdicts:
        return "it runs no test, linter, type checker or build"
    return None


def _parts(tokens: list[str]) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    skip = False
    for token in tokens:
        if skip:
            skip = False
        elif token in _OPERATORS or set(token) <= {"&", "|", ";"}:
            parts.append([])
        elif set(token) <= {"<", ">", "&"} or token in ("(", ")"):
            skip = token not in ("(", ")") and not token.endswith("&")  # its target
        else:
            parts[-1].append(token)
    return [p for p in parts if p]


def _unwrap(words: list[str]) -> list[str]:
    """The command a wrapper runs: `sudo x`, `VAR=1 x`, `uv run x`, `npx x`."""
    while words:
        head = words[0]
        if _ASSIGNMENT.match(head) or head in programs.WRAPPERS:
            words = words[1:]
            while words and words[0].startswith("-") and head in {"timeout", "nice", "env"}:
                words = words[1:]
            if words and head == "timeout" and words[0][:1].isdigit():
                words = words[1:]
            continue
        name = _program(head)
        if name in ("npx", "bunx", "pnpx") and len(words) > 1:
            words = [w for w in words[1:] if not w.startswith("-")][:1] + words[2:]
            continue
        runs = programs.RUNNERS.get(name)
        if runs is not None and len(words) > 2 and words[1] in runs:
            words = words[2:]
            continue
        return words
    return words


def _program(word: str) -> str:
    return word.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".exe")


def _part(words: list[str]) -> str | None:
    """None: a check; "neutral": changes nothing and checks nothing; else why not."""
    words = _unwrap(words)
    if not words:
        return "neutral"
    name = _program(words[0])
    args = words[1:]
    sub = next((a for a in args if not a.startswith("-")), "")
    if name in programs.SHELL_BUILTINS or name in programs.READERS:
        return "neutral"
    if (
        name in ("sed", "awk", "perl")
        and "-i" not in args
        and not any(a.startswith("-i") for a in args)
    ):
        return "neutral"
    if (writes := _formats(name, args, sub)) is not None:
        return writes
    if name in programs.READ_CHECKS:
        return None
    if name == "git":
        return _git(args)
    if name in programs.NETWORK:
        return f"it is a network call ({name})"
    if name in programs.DEPLOYERS:
        return f"it deploys or publishes ({name})"
    if name in programs.DATABASES:
        return f"it changes a database ({name})"
    if name in programs.EDITORS:
        return f"it opens a program for a person ({name})"
    if name in ("docker", "podman"):
        return _container(args)
    if name in ("terraform", "tofu") and sub == "init":
        return "neutral"  # fetches providers; `terraform init && terraform validate` checks
    if sub in ("install", "uninstall") or (
        name in programs.INSTALLERS and sub in programs.INSTALL_VERBS
    ):
        return f"it installs or changes dependencies ({name} {sub})"
    if sub in ("add", "init", "create", "new", "generate", "scaffold") and name not in (
        "git",
        "docker",
        "podman",
    ):
        return f"it creates or adds files ({name} {sub})"
    if name in ("pip", "pip3", "pipx", "brew", "apt", "apt-get", "gem", "conda"):
        return f"it installs or changes dependencies ({name})"
    if name in programs.WRITERS and not (name in ("sed", "perl", "awk") and "-i" not in args):
        if name in ("sed", "perl", "awk"):
            return f"it edits files ({name} -i)"
        return f"it changes files ({name})"
    words_named = [name.rsplit(".", 1)[0], sub if re.fullmatch(r"[\w:-]+", sub) else ""]
    if any(programs.DEPLOY_WORD.search(a) for a in words_named if a):
        return f"it deploys or publishes ({' '.join(words[:2])})"
    if sub in ("publish", "deploy", "push", "upload"):
        return f"it deploys or publishes ({name} {sub})"
    if name in ("terraform", "tofu", "pulumi") and sub not in ("validate", "plan", "fmt", "init"):
        return f"it changes infrastructure ({name} {sub})"
    if _migrates(name, args):
        return f"it changes a database ({' '.join(words[:3])})"
    target = _script_target(name, args)
    if target is not None and programs.MUTATE_WORD.match(target):
        return f"it runs `{target}`, which changes things rather than checking them"
    if name in programs.TEST_TOOLS or name in programs.LINTERS:
        return None
    if name in programs.BUILDERS or programs.CHECK_WORD.search(name):
        return _builder(name, args, target)
    if programs.CHECK_SUB.match(sub):  # `mkdocs build --strict`, `hugo check`, `sam validate`
        return None
    if programs.SETUP_SCRIPT.search(name):
        return f"it runs a setup script ({name}), not a check"
    return "neutral"  # the project's own program or script: it checks nothing by itself


def _formats(name: str, args: list[str], sub: str) -> str | None:
    """A formatter or fixer that rewrites files (`black .`, `eslint --fix`), not a check."""
    flags = set(args)
    if {"--fix", "--write", "--fix-dry-run"} & flags - {"--fix-dry-run"}:
        return f"it rewrites files ({name} {'--fix' if '--fix' in flags else '--write'})"
    checking = {"--check", "--diff", "-l", "--list", "--dry-run", "--verify-no-changes"} & flags
    if checking:
        return None
    if name in programs.FORMATTERS and (name not in ("gofmt", "goimports") or "-w" in flags):
        return f"it rewrites files ({name})"
    if (name, sub) in {
        ("ruff", "format"),
        ("cargo", "fmt"),
        ("go", "fmt"),
        ("dotnet", "format"),
        ("deno", "fmt"),
        ("dart", "format"),
        ("mix", "format"),
        ("swift", "format"),
    }:
        return f"it rewrites files ({name} {sub})"
    return None


def _git(args: list[str]) -> str | None:
    sub = next((a for a in args if not a.startswith("-")), "")
    if sub == "diff" and {"--exit-code", "--check", "--quiet"} & set(args):
        return None
    if sub in programs.GIT_READS or sub == "":
        return "neutral"
    if sub in ("push", "pull", "fetch", "clone", "ls-remote"):
        return f"it is a network call (git {sub})"
    return f"it is a git command that writes (git {sub})"


def _container(args: list[str]) -> str | None:
    words = [a for a in args if not a.startswith("-")]
    if words[:1] == ["compose"]:
        words = words[1:]
    sub = words[0] if words else ""
    if sub in ("build", "images", "ps", "version", "info", "config", "inspect", "logs"):
        return None if sub in ("build", "config") else "neutral"
    if sub in ("run", "exec"):
        inner = [a for a in args[args.index(sub) + 1 :]]
        for i in range(len(inner)):  # the first word that judges as a check
            if _part(inner[i:]) is None and not inner[i].startswith("-"):
                return None
        return f"it runs a container ({' '.join(['docker', *words[:2]])})"
    if sub in ("push", "login"):
        return f"it is a network call (docker {sub})"
    return f"it starts or changes containers (docker {' '.join(words[:1]) or sub})".replace(
        " )", ")"
    )


def _migrates(name: str, args: list[str]) -> bool:
    joined = " ".join(args)
    return bool(
        re.search(r"\bmigrate\b|\bmakemigrations\b|\bdb\s+(?:push|reset|seed|migrate)", joined)
        and not re.search(r"--check\b|--dry-run\b|\bstatus\b|--plan\b", joined)
    ) or (name == "prisma" and bool(args) and args[0] in ("migrate", "db"))


def _script_target(name: str, args: list[str]) -> str | None:
    """The script or target a runner runs: `npm run dev` -> dev, `make deploy` -> deploy."""
    plain = _operands(args)
    if name in ("npm", "pnpm", "yarn", "bun") and plain:
        if plain[0] in ("run", "run-script") and len(plain) > 1:
            return plain[1]
        return plain[0]
    if name in ("make", "just", "task", "rake", "mix", "invoke", "nox", "tox") and plain:
        return next((p for p in plain if "=" not in p), None)
    if name in ("python", "python3") and plain[:1] == ["manage.py"] and len(plain) > 1:
        return plain[1]
    return None


def _operands(args: list[str]) -> list[str]:
    """The words that are not options or option values."""
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in programs.VALUED:
            skip = True
        elif not a.startswith("-"):
            out.append(a)
    return out


def _builder(name: str, args: list[str], target: str | None) -> str | None:
    """A build tool, a language's runner or a script: a check when what it runs is one."""
    plain = [a for a in args if not a.startswith("-")]
    sub = plain[0] if plain else ""
    if name in ("make", "just", "task", "npm", "pnpm", "yarn", "bun", "rake", "mix", "gradle",
                "gradlew", "mvn", "mvnw", "cargo", "go", "dotnet", "swift", "deno", "flutter",
                "dart", "cmake", "ninja", "meson", "bazel", "xcodebuild", "sbt", "ant",
                "msbuild", "stack", "cabal", "dune", "zig", "turbo", "nx", "lerna", "composer",
                "artisan", "elm", "gleam", "helm", "terraform", "tofu", "packer", "godot",
                "webpack", "vite", "rollup", "esbuild", "parcel", "scons", "lein", "tsx",
                "ts-node"):  # fmt: skip
        if name in ("go", "cargo", "dotnet", "swift", "deno", "flutter", "dart", "mix") and sub in (
            "run",
            "start",
            "serve",
        ):
            return f"it runs the program ({name} {sub}), not a check"
        if name in ("tsx", "ts-node") and not programs.CHECK_WORD.search(" ".join(plain)):
            return f"it runs the program ({name}), not a check"
        return None
    if name in ("node", "python", "python3", "php", "ruby", "perl", "bash", "sh", "zsh", "pwsh",
                "Rscript", "R", "julia", "gcc", "g++", "clang", "javac", "kotlinc", "rustc",
                "clj", "raco", "nim", "crystal"):  # fmt: skip
        if name in ("bash", "sh", "zsh") and "-n" in args:
            return None  # a syntax check: `sh -n bin/harness`
        if {"-c", "-e", "--eval", "--test", "-m"} & set(args) or name in (
            "gcc",
            "g++",
            "clang",
            "javac",
            "kotlinc",
            "rustc",
        ):
            module = args[args.index("-m") + 1] if "-m" in args[:-1] else None
            if (
                module is not None
                and module
                not in programs.TEST_TOOLS
                | programs.LINTERS
                | {
                    "compileall",
                    "py_compile",
                    "doctest",
                    "unittest",
                    "pytest",
                    "build",
                    "mypy",
                    "json.tool",
                    "tabnanny",
                    "pyflakes",
                    "pycodestyle",
                    "coverage",
                }
                and not programs.CHECK_WORD.search(module)
            ):
                return f"it runs a module ({module}), not a check"
            return None
        script = sub
        if target is not None or programs.CHECK_WORD.search(script):
            return None
        if programs.SETUP_SCRIPT.search(script.rsplit("/", 1)[-1]):
            return f"it runs a setup script ({script}), not a check"
        return "neutral"  # running the program itself checks nothing
    return None
