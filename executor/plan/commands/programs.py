"""The programs and words `executor.plan.commands.checks` judges a command by: what runs tests,
lints, builds, installs, deploys, calls the network, changes a database or files."""

from __future__ import annotations

import re

#: Programs and sub-commands named by what they are.
WRAPPERS = frozenset({"sudo", "time", "env", "nice", "exec", "command", "xvfb-run", "timeout"})
RUNNERS: dict[str, tuple[str, ...]] = {
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
SHELL_BUILTINS = frozenset({"cd", "pushd", "popd", "export", "source", ".", "set", "unset", "true"})
READERS = frozenset(
    {"echo", "printf", "cat", "ls", "pwd", "which", "head", "tail", "wc", "find", "sort",
     "tree", "stat", "du", "file", "less", "more", "type", "sleep", "date", "whoami", "env",
     "grep", "egrep", "rg", "ag", "jq", "yq", "uname", "id", "hostname", "ps", "history"}
)  # fmt: skip
READ_CHECKS = frozenset({"test", "[", "[[", "diff", "cmp"})
TEST_TOOLS = frozenset(
    {"pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "ava", "tap", "karma",
     "jasmine", "cypress", "playwright", "rspec", "phpunit", "pest", "ctest", "bats",
     "busted", "prove", "nextest", "unittest", "behave", "robot", "testthat", "gotestsum"}
)  # fmt: skip
LINTERS = frozenset(
    {"ruff", "flake8", "pylint", "mypy", "pyright", "black", "isort", "bandit", "eslint",
     "tsc", "vue-tsc", "svelte-check", "stylelint", "prettier", "biome", "golangci-lint",
     "staticcheck", "gofmt", "go-vet", "rustfmt", "clippy", "ktlint", "detekt", "shellcheck",
     "hadolint", "tflint", "yamllint", "markdownlint", "rubocop", "phpstan", "psalm",
     "swiftlint", "swiftformat", "dartanalyzer", "lint", "typecheck", "pydocstyle", "vulture",
     "pre-commit", "actionlint", "xmllint", "cppcheck", "clang-tidy", "checkov", "semgrep",
     "gosec", "govulncheck", "lychee", "markdown-link-check", "codespell", "cspell", "knip",
     "depcheck", "madge", "htmlhint", "sqlfluff", "ansible-lint", "kubeconform", "kubeval"}
)  # fmt: skip
BUILDERS = frozenset(
    {"make", "just", "task", "cmake", "ninja", "meson", "bazel", "gradle", "gradlew",
     "mvn", "mvnw", "ant", "sbt", "msbuild", "xcodebuild", "swift", "cargo", "go", "dotnet",
     "deno", "bun", "flutter", "dart", "mix", "rebar3", "stack", "cabal", "dune", "zig",
     "gcc", "g++", "clang", "javac", "kotlinc", "rustc", "scons", "godot", "elm", "gleam",
     "nim", "crystal", "lein", "clj", "raco", "Rscript", "R", "julia", "terraform", "tofu",
     "packer", "helm", "docker", "podman", "npm", "pnpm", "yarn", "node", "python", "python3",
     "php", "ruby", "perl", "bash", "sh", "zsh", "pwsh", "composer", "rake", "artisan", "tsx",
     "ts-node", "webpack", "vite", "rollup", "esbuild", "parcel", "turbo", "nx", "lerna"}
)  # fmt: skip
INSTALL_VERBS = frozenset(
    {"install", "i", "add", "ci", "remove", "rm", "uninstall", "update", "upgrade", "link",
     "sync", "lock", "get", "restore", "require", "dlx-install", "init", "create", "new"}
)  # fmt: skip
INSTALLERS = frozenset(
    {"npm", "pnpm", "yarn", "bun", "pip", "pip3", "uv", "poetry", "pipenv", "pdm", "cargo",
     "go", "gem", "bundle", "brew", "apt", "apt-get", "yum", "dnf", "apk", "pacman", "choco",
     "winget", "scoop", "composer", "dotnet", "conda", "mamba", "pipx", "deno", "flutter",
     "dart", "mix", "nuget", "vcpkg", "conan", "rustup", "sdk", "asdf", "nvm", "volta"}
)  # fmt: skip
NETWORK = frozenset(
    {"curl", "wget", "http", "https", "httpie", "xh", "nc", "ncat", "netcat", "telnet",
     "ssh", "scp", "sftp", "rsync", "ping", "ftp", "gh", "glab", "aws", "gcloud", "az",
     "doctl", "heroku", "grpcurl", "websocat", "wscat", "nslookup", "dig", "open", "xdg-open",
     "start"}
)  # fmt: skip
DEPLOYERS = frozenset(
    {"kubectl", "fly", "flyctl", "vercel", "netlify", "firebase", "serverless", "sls",
     "ansible-playbook", "ansible", "pulumi", "wrangler", "railway", "eas", "fastlane",
     "twine", "cdk", "sam", "copilot", "skaffold", "tilt", "argocd", "supabase", "render"}
)  # fmt: skip
DATABASES = frozenset(
    {"psql", "mysql", "mongosh", "mongo", "redis-cli", "sqlite3", "sqlcmd", "cqlsh", "alembic",
     "flyway", "liquibase", "knex", "sequelize", "typeorm", "migrate", "goose", "dbmate",
     "atlas", "diesel", "sqlx"}
)  # fmt: skip
WRITERS = frozenset(
    {"mkdir", "touch", "cp", "mv", "rm", "ln", "chmod", "chown", "tee", "dd", "truncate",
     "rmdir", "install", "patch", "unzip", "tar", "wget", "git-lfs", "sed", "perl", "awk"}
)  # fmt: skip
EDITORS = frozenset({"code", "vim", "vi", "nano", "emacs", "idea", "subl", "nvim"})
GIT_READS = frozenset(
    {"status", "diff", "log", "show", "rev-parse", "ls-files", "grep", "describe", "blame",
     "shortlog", "cat-file", "ls-tree", "check-ignore", "whatchanged", "reflog", "config"}
)  # fmt: skip
DEPLOY_WORD = re.compile(r"deploy|release|publish|upload|push|ship|rollout|provision", re.I)
MUTATE_WORD = re.compile(
    r"^(?:install|setup|bootstrap|init|migrate|seed|clean|reset|format|fmt|fix|generate|gen"
    r"|codegen|dev|start|serve|watch|up|down|destroy|apply|prune|db:.*|prisma:.*"
    r"|run|server|backend|frontend|app)$",
    re.I,
)
CHECK_WORD = re.compile(
    r"test|spec|check|lint|verify|validate|vet|build|compile|type|tsc|ci\b|smoke|audit|e2e",
    re.I,
)
SETUP_SCRIPT = re.compile(
    r"init|seed|migrat|setup|install|bootstrap|reset|clean|deploy|release|publish", re.I
)
CHECK_SUB = re.compile(
    r"^(?:test|tests|check|lint|build|validate|verify|typecheck|type-check|vet|spec|compile"
    r"|audit|doctor)(?:[:_-]\w+)?$",
    re.I,
)
SERVER = re.compile(
    r"\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:dev|start|serve|preview)\b|\buvicorn\b"
    r"|--reload\b|\brunserver\b|\bflask\s+run\b|\bnodemon\b|\bnext\s+(?:dev|start)\b"
    r"|\bvite(?:\s*$|\s+(?:dev|serve|preview|--))|\bng\s+serve\b|\bhugo\s+server\b"
    r"|\bjekyll\s+serve\b|\bhttp\.server\b|\bgunicorn\b|\bwatch\b|--watch\b",
    re.I,
)
FORMATTERS = frozenset(
    {"black", "isort", "rustfmt", "autopep8", "yapf", "gofmt", "goimports", "phpcbf"}
)
#: `(program, sub-command)` pairs that format files in place.
FORMAT_SUBS = frozenset(
    {("ruff", "format"), ("cargo", "fmt"), ("go", "fmt"), ("dotnet", "format"), ("deno", "fmt"),
     ("dart", "format"), ("mix", "format"), ("swift", "format"), ("terraform", "fmt"),
     ("tofu", "fmt"), ("sqlfluff", "fix"), ("php-cs-fixer", "fix")}
)  # fmt: skip
#: Sub-commands that rewrite sources or lock files (`cargo fix`, `npm dedupe`).
FIX_SUBS = frozenset({"fix", "tidy", "vendor", "dedupe", "prune", "autocorrect"})
#: Flags that make a linter rewrite what it checks (`--fix`, `--write`, `--autocorrect`).
FIX_FLAG = re.compile(
    r"^--(?:fix|fix-only|unsafe-fixes|write|apply|autocorrect(?:-all)?|auto-correct(?:-all)?)"
    r"(?:=\S*)?$"
)
#: Flags that make a test runner rewrite its snapshots instead of comparing with them.
SNAPSHOT_FLAGS = frozenset(
    {"-u", "--updateSnapshot", "--update-snapshot", "--update-snapshots", "--snapshot-update",
     "--force-regen", "--regen-all", "--update", "--accept", "--bless", "--update-goldens"}
)  # fmt: skip
#: Environment switches that make tests rewrite what they compare with.
SNAPSHOT_ENV = re.compile(r"UPDATE|BLESS|REGEN|ACCEPT|OVERWRITE|RECORD", re.I)
#: Programs whose only job is to change the version (and often tag or publish).
VERSION_BUMPERS = frozenset(
    {"bumpversion", "bump2version", "bump-my-version", "standard-version", "semantic-release",
     "release-it", "changeset", "changesets", "tbump", "dch"}
)  # fmt: skip
#: Words of a run target (`lint:fix`, `test-update`, `db_reset`) that change things.
MUTATE_PARTS = frozenset(
    {"fix", "write", "format", "fmt", "update", "upgrade", "bump", "release", "publish",
     "deploy", "migrate", "seed", "reset", "flush", "drop", "destroy", "apply", "prune",
     "install", "setup", "bootstrap", "generate", "codegen", "snapshot", "snapshots"}
)  # fmt: skip
#: Management commands (Django, Rails, Laravel) that only read or report.
MANAGE_READS = frozenset(
    {"showmigrations", "sqlmigrate", "diffsettings", "inspectdb", "dumpdata", "sqlflush",
     "about", "routes", "stats", "version", "help", "list", "route:list", "schema:dump"}
)  # fmt: skip
#: Shells that run a command string given with `-c`.
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "fish", "busybox"})

#: Options whose value is the next word (`npm --prefix frontend run test`).
VALUED = frozenset(
    {"--prefix", "-C", "--dir", "--cwd", "--filter", "-F", "-w", "--workspace", "-f", "--file",
     "-p", "--project", "--config", "-c", "--manifest-path", "--directory"}
)  # fmt: skip
