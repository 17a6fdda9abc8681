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

_PLACEHOLDER = re.compile(r"<[A-Za-z_][^<>\n]*>|\{\{[^}]*\}\}|\bYOUR_[A-Z_]+\b")
_VARIABLE = re.compile(r"^\$?\{?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\}?$|^\$\{?\w+\}?$")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: A command with no quotes, escapes, expansions or comments (most plans' commands).
_SIMPLE = re.compile(r"^[^'\"\\`$#(){}]*$")
_OPERATOR = re.compile(r"(&&|\|\||;;|\|&|&>>|&>|>>|>&|[;|&<>])")
_OPERATORS = frozenset({"&&", "||", ";", "|", "&", ";;", "|&"})
#: Programs and sub-commands named by what they are.
_WRAPPERS = frozenset({"sudo", "time", "env", "nice", "exec", "command", "xvfb-run", "timeout"})
_RUNNERS: dict[str, tuple[str, ...]] = {
    "uv": ("run",),
    "poetry": ("run",),
    "pipenv": ("run",),
    "pdm": ("run",),
    "hatch": ("run",),
    "rye": ("run",),
    "bundle": ("exec",),
    "pnpm": ("exec", "dlx"),
    "yarn": ("dlx", "exec"),
    "npm": ("exec",),
    "dotnet": ("tool", "run"),
}
_SHELL_BUILTINS = frozenset(
    {"cd", "pushd", "popd", "export", "source", ".", "set", "unset", "true"}
)
_READERS = frozenset(
    {"echo", "printf", "cat", "ls", "pwd", "which", "head", "tail", "wc", "find", "sort",
     "tree", "stat", "du", "file", "less", "more", "type", "sleep", "date", "whoami", "env",
     "grep", "egrep", "rg", "ag", "jq", "yq", "uname", "id", "hostname", "ps", "history"}
)  # fmt: skip
_READ_CHECKS = frozenset({"test", "[", "[[", "diff", "cmp"})
_TEST_TOOLS = frozenset(
    {"pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "ava", "tap", "karma",
     "jasmine", "cypress", "playwright", "rspec", "phpunit", "pest", "ctest", "bats",
     "busted", "prove", "nextest", "unittest", "behave", "robot", "testthat", "gotestsum"}
)  # fmt: skip
_LINTERS = frozenset(
    {"ruff", "flake8", "pylint", "mypy", "pyright", "black", "isort", "bandit", "eslint",
     "tsc", "vue-tsc", "svelte-check", "stylelint", "prettier", "biome", "golangci-lint",
     "staticcheck", "gofmt", "go-vet", "rustfmt", "clippy", "ktlint", "detekt", "shellcheck",
     "hadolint", "tflint", "yamllint", "markdownlint", "rubocop", "phpstan", "psalm",
     "swiftlint", "swiftformat", "dartanalyzer", "lint", "typecheck", "pydocstyle", "vulture",
     "pre-commit", "actionlint", "xmllint", "cppcheck", "clang-tidy", "checkov", "semgrep",
     "gosec", "govulncheck", "lychee", "markdown-link-check", "codespell", "cspell", "knip",
     "depcheck", "madge", "htmlhint", "sqlfluff", "ansible-lint", "kubeconform", "kubeval"}
)  # fmt: skip
_BUILDERS = frozenset(
    {"make", "just", "task", "cmake", "ninja", "meson", "bazel", "gradle", "gradlew",
     "mvn", "mvnw", "ant", "sbt", "msbuild", "xcodebuild", "swift", "cargo", "go", "dotnet",
     "deno", "bun", "flutter", "dart", "mix", "rebar3", "stack", "cabal", "dune", "zig",
     "gcc", "g++", "clang", "javac", "kotlinc", "rustc", "scons", "godot", "elm", "gleam",
     "nim", "crystal", "lein", "clj", "raco", "Rscript", "R", "julia", "terraform", "tofu",
     "packer", "helm", "docker", "podman", "npm", "pnpm", "yarn", "node", "python", "python3",
     "php", "ruby", "perl", "bash", "sh", "zsh", "pwsh", "composer", "rake", "artisan", "tsx",
     "ts-node", "webpack", "vite", "rollup", "esbuild", "parcel", "turbo", "nx", "lerna"}
)  # fmt: skip
_INSTALL_VERBS = frozenset(
    {"install", "i", "add", "ci", "remove", "rm", "uninstall", "update", "upgrade", "link",
     "sync", "lock", "get", "restore", "require", "dlx-install", "init", "create", "new"}
)  # fmt: skip
_INSTALLERS = frozenset(
    {"npm", "pnpm", "yarn", "bun", "pip", "pip3", "uv", "poetry", "pipenv", "pdm", "cargo",
     "go", "gem", "bundle", "brew", "apt", "apt-get", "yum", "dnf", "apk", "pacman", "choco",
     "winget", "scoop", "composer", "dotnet", "conda", "mamba", "pipx", "deno", "flutter",
     "dart", "mix", "nuget", "vcpkg", "conan", "rustup", "sdk", "asdf", "nvm", "volta"}
)  # fmt: skip
_NETWORK = frozenset(
    {"curl", "wget", "http", "https", "httpie", "xh", "nc", "ncat", "netcat", "telnet",
     "ssh", "scp", "sftp", "rsync", "ping", "ftp", "gh", "glab", "aws", "gcloud", "az",
     "doctl", "heroku", "grpcurl", "websocat", "wscat", "nslookup", "dig", "open", "xdg-open",
     "start"}
)  # fmt: skip
_DEPLOYERS = frozenset(
    {"kubectl", "fly", "flyctl", "vercel", "netlify", "firebase", "serverless", "sls",
     "ansible-playbook", "ansible", "pulumi", "wrangler", "railway", "eas", "fastlane",
     "twine", "cdk", "sam", "copilot", "skaffold", "tilt", "argocd", "supabase", "render"}
)  # fmt: skip
_DATABASES = frozenset(
    {"psql", "mysql", "mongosh", "mongo", "redis-cli", "sqlite3", "sqlcmd", "cqlsh", "alembic",
     "flyway", "liquibase", "knex", "sequelize", "typeorm", "migrate", "goose", "dbmate",
     "atlas", "diesel", "sqlx"}
)  # fmt: skip
_WRITERS = frozenset(
    {"mkdir", "touch", "cp", "mv", "rm", "ln", "chmod", "chown", "tee", "dd", "truncate",
     "rmdir", "install", "patch", "unzip", "tar", "wget", "git-lfs", "sed", "perl", "awk"}
)  # fmt: skip
_EDITORS = frozenset({"code", "vim", "vi", "nano", "emacs", "idea", "subl", "nvim"})
_GIT_READS = frozenset(
    {"status", "diff", "log", "show", "rev-parse", "ls-files", "grep", "describe", "blame",
     "shortlog", "cat-file", "ls-tree", "check-ignore", "whatchanged", "reflog", "config"}
)  # fmt: skip
_DEPLOY_WORD = re.compile(r"deploy|release|publish|upload|push|ship|rollout|provision", re.I)
_MUTATE_WORD = re.compile(
    r"^(?:install|setup|bootstrap|init|migrate|seed|clean|reset|format|fmt|fix|generate|gen"
    r"|codegen|dev|start|serve|watch|up|down|destroy|apply|prune|db:.*|prisma:.*"
    r"|run|server|backend|frontend|app)$",
    re.I,
)
_CHECK_WORD = re.compile(
    r"test|spec|check|lint|verify|validate|vet|build|compile|type|tsc|ci\b|smoke|audit|e2e",
    re.I,
)
_SETUP_SCRIPT = re.compile(
    r"init|seed|migrat|setup|install|bootstrap|reset|clean|deploy|release|publish", re.I
)
_CHECK_SUB = re.compile(
    r"^(?:test|tests|check|lint|build|validate|verify|typecheck|type-check|vet|spec|compile"
    r"|audit|doctor)(?:[:_-]\w+)?$",
    re.I,
)
_SERVER = re.compile(
    r"\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:dev|start|serve|preview)\b|\buvicorn\b"
    r"|--reload\b|\brunserver\b|\bflask\s+run\b|\bnodemon\b|\bnext\s+(?:dev|start)\b"
    r"|\bvite(?:\s*$|\s+(?:dev|serve|preview|--))|\bng\s+serve\b|\bhugo\s+server\b"
    r"|\bjekyll\s+serve\b|\bhttp\.server\b|\bgunicorn\b|\bwatch\b|--watch\b",
    re.I,
)
_FORMATTERS = frozenset({"black", "isort", "rustfmt", "autopep8", "yapf", "gofmt", "goimports"})


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
    if (server := _SERVER.search(text)) is not None:
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
        if _ASSIGNMENT.match(head) or head in _WRAPPERS:
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
        runs = _RUNNERS.get(name)
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
    if name in _SHELL_BUILTINS or name in _READERS:
        return "neutral"
    if (
        name in ("sed", "awk", "perl")
        and "-i" not in args
        and not any(a.startswith("-i") for a in args)
    ):
        return "neutral"
    if (writes := _formats(name, args, sub)) is not None:
        return writes
    if name in _READ_CHECKS:
        return None
    if name == "git":
        return _git(args)
    if name in _NETWORK:
        return f"it is a network call ({name})"
    if name in _DEPLOYERS:
        return f"it deploys or publishes ({name})"
    if name in _DATABASES:
        return f"it changes a database ({name})"
    if name in _EDITORS:
        return f"it opens a program for a person ({name})"
    if name in ("docker", "podman"):
        return _container(args)
    if name in ("terraform", "tofu") and sub == "init":
        return "neutral"  # fetches providers; `terraform init && terraform validate` checks
    if sub in ("install", "uninstall") or (name in _INSTALLERS and sub in _INSTALL_VERBS):
        return f"it installs or changes dependencies ({name} {sub})"
    if sub in ("add", "init", "create", "new", "generate", "scaffold") and name not in (
        "git",
        "docker",
        "podman",
    ):
        return f"it creates or adds files ({name} {sub})"
    if name in ("pip", "pip3", "pipx", "brew", "apt", "apt-get", "gem", "conda"):
        return f"it installs or changes dependencies ({name})"
    if name in _WRITERS and not (name in ("sed", "perl", "awk") and "-i" not in args):
        if name in ("sed", "perl", "awk"):
            return f"it edits files ({name} -i)"
        return f"it changes files ({name})"
    words_named = [name.rsplit(".", 1)[0], sub if re.fullmatch(r"[\w:-]+", sub) else ""]
    if any(_DEPLOY_WORD.search(a) for a in words_named if a):
        return f"it deploys or publishes ({' '.join(words[:2])})"
    if sub in ("publish", "deploy", "push", "upload"):
        return f"it deploys or publishes ({name} {sub})"
    if name in ("terraform", "tofu", "pulumi") and sub not in ("validate", "plan", "fmt", "init"):
        return f"it changes infrastructure ({name} {sub})"
    if _migrates(name, args):
        return f"it changes a database ({' '.join(words[:3])})"
    target = _script_target(name, args)
    if target is not None and _MUTATE_WORD.match(target):
        return f"it runs `{target}`, which changes things rather than checking them"
    if name in _TEST_TOOLS or name in _LINTERS:
        return None
    if name in _BUILDERS or _CHECK_WORD.search(name):
        return _builder(name, args, target)
    if _CHECK_SUB.match(sub):  # `mkdocs build --strict`, `hugo check`, `sam validate`
        return None
    if _SETUP_SCRIPT.search(name):
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
    if name in _FORMATTERS and (name not in ("gofmt", "goimports") or "-w" in flags):
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
    if sub in _GIT_READS or sub == "":
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


#: Options whose value is the next word (`npm --prefix frontend run test`).
_VALUED = frozenset(
    {"--prefix", "-C", "--dir", "--cwd", "--filter", "-F", "-w", "--workspace", "-f", "--file",
     "-p", "--project", "--config", "-c", "--manifest-path", "--directory"}
)  # fmt: skip


def _operands(args: list[str]) -> list[str]:
    """The words that are not options or option values."""
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in _VALUED:
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
        if name in ("tsx", "ts-node") and not _CHECK_WORD.search(" ".join(plain)):
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
                not in _TEST_TOOLS
                | _LINTERS
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
                and not _CHECK_WORD.search(module)
            ):
                return f"it runs a module ({module}), not a check"
            return None
        script = sub
        if target is not None or _CHECK_WORD.search(script):
            return None
        if _SETUP_SCRIPT.search(script.rsplit("/", 1)[-1]):
            return f"it runs a setup script ({script}), not a check"
        return "neutral"  # running the program itself checks nothing
    return None
