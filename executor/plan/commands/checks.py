"""Which of a plan's commands may verify a session: checks, and nothing else.

The executor runs such a command itself to measure a step, so only a test run or a check
that changes nothing qualifies (`judge(command)` returns None); anything else (not a
command, a command with an effect, one that checks nothing) is refused with the reason
and stays in the plan as context. Each simple command of a line is judged after its
wrappers (`cd`, `VAR=x`, `uv run`, `npx`, ...) (docs/plan-format.md)."""

from __future__ import annotations

import re
import shlex

from executor.plan.commands import effects, embedded, programs

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
    why = _verdict(command, 0)
    return "it runs no test, linter, type checker or build" if why == "neutral" else why


def _verdict(command: str | None, depth: int) -> str | None:
    """None: a check; "neutral": it changes nothing and checks nothing; else why not.
    `depth`: how many shells (`bash -c`, `eval`) the command runs inside."""
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
    verdicts = [_part(part, depth) for part in _parts(tokens)]
    refused = next((v for v in verdicts if v not in (None, "neutral")), None)
    if refused is not None:
        return refused
    return "neutral" if None not in verdicts else None


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


def _part(words: list[str], depth: int = 0) -> str | None:
    """None: a check; "neutral": changes nothing and checks nothing; else why not."""
    switch = next((w for w in words if _ASSIGNMENT.match(w)), None)
    if switch is not None and (why := effects.assignment_effect(switch)) is not None:
        return why
    words = _unwrap(words)
    if not words:
        return "neutral"
    name = _program(words[0])
    args = words[1:]
    sub = next((a for a in args if not a.startswith("-")), "")
    if (inner := _inner_command(name, args)) is not None:
        return _judge_inner(name, inner, depth)
    if name in ("xargs", "parallel") and args:
        return _part(_after_options(args), depth + 1)
    if name == "find" and (action := next((a for a in args if a in _FIND_ACTS), None)):
        return f"it runs commands or deletes files (find {action})"
    if (program := _embedded(name, args)) is not None:
        return program
    if name in programs.SHELL_BUILTINS or name in programs.READERS:
        return "neutral"
    if name in ("sed", "awk", "perl") and not any(a.startswith("-i") for a in args):
        return "neutral"
    target = effects.script_target(name, args)
    for rule in (
        effects.rewrites(name, args, sub),
        effects.snapshot_update(name, args, target),
        effects.version_bump(name, args, sub),
    ):
        if rule is not None:
            return rule
    if name in programs.READ_CHECKS:
        return None
    if name == "git":
        return effects.git(args)
    if name in programs.NETWORK:
        return f"it is a network call ({name})"
    if name in programs.DEPLOYERS:
        return f"it deploys or publishes ({name})"
    if name in programs.DATABASES:
        return f"it changes a database ({name})"
    if name in programs.EDITORS:
        return f"it opens a program for a person ({name})"
    if name in ("docker", "podman"):
        return _container(args, depth)
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
    if name in programs.WRITERS:
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
    if effects.migrates(name, args):
        return f"it changes a database ({' '.join(words[:3])})"
    if target is not None and (why := effects.target_effect(name, args, target)) is not None:
        return why
    if name in programs.TEST_TOOLS or name in programs.LINTERS:
        return None
    if name in programs.BUILDERS or programs.CHECK_WORD.search(name):
        return _builder(name, args, target)
    if programs.CHECK_SUB.match(sub):  # `mkdocs build --strict`, `hugo check`, `sam validate`
        return None
    if programs.SETUP_SCRIPT.search(name):
        return f"it runs a setup script ({name}), not a check"
    return "neutral"  # the project's own program or script: it checks nothing by itself


_FIND_ACTS = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
#: Flags that hand an interpreter its program as the next word.
_INLINE = {
    "python": ("-c",),
    "node": ("-e", "--eval", "-p", "--print"),
    "deno": ("eval",),
    "bun": ("-e", "--eval", "-p", "--print"),
    "ruby": ("-e",),
    "perl": ("-e", "-E"),
    "php": ("-r",),
}
_MAX_DEPTH = 4


def _inner_command(name: str, args: list[str]) -> str | None:
    """The command string a shell (`bash -c '...'`, `sh -lc '...'`) or `eval` runs."""
    if name == "eval":
        return " ".join(args)
    if name not in programs.SHELLS:
        return None
    for i, a in enumerate(args):
        if re.fullmatch(r"-[a-z]*c[a-z]*", a) and not a.startswith("--"):
            return args[i + 1] if i + 1 < len(args) else ""
        if not a.startswith("-"):
            return None  # a script: `bash scripts/check.sh`
    return None


def _judge_inner(name: str, command: str, depth: int) -> str | None:
    if depth >= _MAX_DEPTH:
        return f"it nests shells too deep to read ({name} -c)"
    why = _verdict(command, depth + 1)
    if why is None or why == "neutral":
        return why
    return f"{why} (inside `{name}{'' if name == 'eval' else ' -c'}`)"


_PYTHON = re.compile(r"python(?:\d(?:\.\d+)?)?|pypy3?")


def _embedded(name: str, args: list[str]) -> str | None:
    """Why a program given inline (`python -c CODE`, `node -e CODE`) is no check."""
    language = "python" if _PYTHON.fullmatch(name) else name
    flags = _INLINE.get(language)
    if flags is None:
        return None
    i = next((k for k, a in enumerate(args) if a in flags), None)
    if i is None:
        return None
    code = args[i + 1] if i + 1 < len(args) else ""
    if language == "python":
        return embedded.python_effect(code)
    if language in ("node", "deno", "bun"):
        return embedded.javascript_effect(code)
    return f"it runs a program given inline in a language the executor does not read ({name})"


def _after_options(args: list[str]) -> list[str]:
    """What `xargs -n 1 -I {} CMD` runs: the words from the first that is no option."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a") else 1
    return args[i:]


def _container(args: list[str], depth: int) -> str | None:
    words = [a for a in args if not a.startswith("-")]
    if words[:1] == ["compose"]:
        words = words[1:]
    sub = words[0] if words else ""
    if sub in ("build", "images", "ps", "version", "info", "config", "inspect", "logs"):
        return None if sub in ("build", "config") else "neutral"
    if sub in ("run", "exec"):
        inner = [a for a in args[args.index(sub) + 1 :]]
        for i in range(len(inner)):  # the first word whose rule decides
            if inner[i].startswith("-"):
                continue
            found = _part(inner[i:], depth + 1)
            if found is None or (found != "neutral" and _program(inner[i]) in _KNOWN):
                return found
        return f"it runs a container ({' '.join(['docker', *words[:2]])})"
    if sub in ("push", "login"):
        return f"it is a network call (docker {sub})"
    return f"it starts or changes containers (docker {' '.join(words[:1]) or sub})".replace(
        " )", ")"
    )


#: Programs whose verdict inside a container is their own (a service name is not one).
_KNOWN = (
    programs.SHELLS
    | programs.BUILDERS
    | programs.TEST_TOOLS
    | programs.LINTERS
    | programs.INSTALLERS
    | programs.WRITERS
    | programs.NETWORK
    | programs.DATABASES
    | {"git", "eval", "xargs", "find"}
)


def _builder(name: str, args: list[str], target: str | None) -> str | None:
    """A build tool, a language's runner or a script: a check when what it runs is one."""
    plain = [a for a in args if not a.startswith("-")]
    sub = plain[0] if plain else ""
    if name in _BUILD_TOOLS:
        if name in ("go", "cargo", "dotnet", "swift", "deno", "flutter", "dart", "mix") and sub in (
            "run",
            "start",
            "serve",
        ):
            return f"it runs the program ({name} {sub}), not a check"
        if name in ("tsx", "ts-node") and not programs.CHECK_WORD.search(" ".join(plain)):
            return f"it runs the program ({name}), not a check"
        return None
    if name in _RUNTIMES:
        if name in ("bash", "sh", "zsh") and "-n" in args:
            return None  # a syntax check: `sh -n bin/harness`
        if "-m" in args[:-1]:
            module = args[args.index("-m") + 1]
            if module in _CHECK_MODULES or programs.CHECK_WORD.search(module):
                return None
            return f"it runs a module ({module}), not a check"
        if {"-c", "-e", "--eval", "--test"} & set(args) or name in _COMPILERS:
            return None  # an inline program already judged (`_embedded`), or a compile
        if target is not None or programs.CHECK_WORD.search(sub):
            return None
        if programs.SETUP_SCRIPT.search(sub.rsplit("/", 1)[-1]):
            return f"it runs a setup script ({sub}), not a check"
        return "neutral"  # running the program itself checks nothing
    return None


_BUILD_TOOLS = frozenset(
    {"make", "just", "task", "npm", "pnpm", "yarn", "bun", "rake", "mix", "gradle", "gradlew",
     "mvn", "mvnw", "cargo", "go", "dotnet", "swift", "deno", "flutter", "dart", "cmake",
     "ninja", "meson", "bazel", "xcodebuild", "sbt", "ant", "msbuild", "stack", "cabal", "dune",
     "zig", "turbo", "nx", "lerna", "composer", "artisan", "elm", "gleam", "helm", "terraform",
     "tofu", "packer", "godot", "webpack", "vite", "rollup", "esbuild", "parcel", "scons",
     "lein", "tsx", "ts-node"}
)  # fmt: skip
_COMPILERS = frozenset({"gcc", "g++", "clang", "javac", "kotlinc", "rustc"})
_RUNTIMES = frozenset(
    {"node", "python", "python3", "php", "ruby", "perl", "bash", "sh", "zsh", "pwsh", "Rscript",
     "R", "julia", "clj", "raco", "nim", "crystal"}
) | _COMPILERS  # fmt: skip
_CHECK_MODULES = (
    programs.TEST_TOOLS
    | programs.LINTERS
    | {"compileall", "py_compile", "doctest", "unittest", "pytest", "build", "mypy",
       "json.tool", "tabnanny", "pyflakes", "pycodestyle", "coverage"}
)  # fmt: skip
