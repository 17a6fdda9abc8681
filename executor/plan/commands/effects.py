"""What one program does, from its name and words: the rules `executor.plan.commands.checks`
applies to each simple command once its wrappers are unwrapped.

Each function returns why the command is no check, or None when its rule finds nothing
(another rule, or the program's kind, decides). Flags and sub-commands that write are
named here: a formatter or fixer without its check flag (`black .`, `cargo fix`, `eslint
--fix`), a snapshot update (`jest -u`), a version bump (`npm version patch`), a git
write, a database change (`manage.py flush`, `alembic upgrade`), a run target whose name
changes things (`make deploy`, `npm run lint:fix`).
"""

from __future__ import annotations

import re

from executor.plan.commands import programs


def rewrites(name: str, args: list[str], sub: str) -> str | None:
    """A formatter or fixer that rewrites files (`black .`, `eslint --fix`, `cargo fix`)."""
    flags = set(args)
    if fix := next((a for a in args if programs.FIX_FLAG.match(a)), None):
        return f"it rewrites files ({name} {fix})"
    if name == "rubocop" and flags & {"-a", "-A"}:
        return f"it rewrites files ({name} {'-a' if '-a' in flags else '-A'})"
    if {"--check", "-check", "--diff", "-l", "--list", "--dry-run", "--verify-no-changes"} & flags:
        return None
    if name in programs.FORMATTERS and (name not in ("gofmt", "goimports") or "-w" in flags):
        return f"it rewrites files ({name})"
    if (name, sub) in programs.FORMAT_SUBS:
        return f"it rewrites files ({name} {sub})"
    if sub in programs.FIX_SUBS or (sub == "audit" and "fix" in args):
        return f"it rewrites files ({name} {sub}{' fix' if sub == 'audit' else ''})"
    if name == "go" and sub == "mod" and not {"verify", "graph", "why"} & flags:
        return f"it changes dependencies (go mod {_after(args, 'mod')})".replace(" )", ")")
    return None


def snapshot_update(name: str, args: list[str], target: str | None) -> str | None:
    """A test run told to rewrite its expectations (`jest -u`, `npm test -- -u`)."""
    tests = name in programs.TEST_TOOLS or (
        target is not None and programs.CHECK_SUB.match(target) is not None
    )
    flag = next((a for a in args if a in programs.SNAPSHOT_FLAGS), None)
    if flag is None and name in programs.TEST_TOOLS:
        flag = next((a for a in args if a.startswith("--update")), None)
    if tests and flag is not None:
        return f"it updates snapshots ({' '.join(filter(None, (name, target, flag)))})"
    if name == "insta" or (name == "cargo" and args[:1] == ["insta"]):
        return "it updates snapshots (cargo insta)"
    return None


def assignment_effect(word: str) -> str | None:
    """`UPDATE_SNAPSHOTS=1 pytest`: an environment switch that rewrites expectations."""
    key, _, value = word.partition("=")
    if programs.SNAPSHOT_ENV.search(key) and value.lower() not in ("", "0", "false", "no", "never"):
        return f"it updates snapshots ({word})"
    return None


def version_bump(name: str, args: list[str], sub: str) -> str | None:
    """`npm version patch`, `poetry version minor`, `bump2version`: the version changes."""
    if name in programs.VERSION_BUMPERS:
        return f"it bumps the version ({name})"
    operands = _operands(args)
    if sub in ("version", "set-version") and len(operands) > 1:
        return f"it bumps the version ({name} {sub} {operands[1]})"
    if (name, sub) in {("npm", "pkg"), ("cargo", "release"), ("lerna", "version")}:
        return f"it changes the package's metadata ({name} {sub})"
    return None


def git(args: list[str]) -> str | None:
    sub = next((a for a in args if not a.startswith("-")), "")
    if sub == "diff" and {"--exit-code", "--check", "--quiet"} & set(args):
        return None
    if sub in programs.GIT_READS or sub == "":
        return "neutral"
    if sub in ("push", "pull", "fetch", "clone", "ls-remote"):
        return f"it is a network call (git {sub})"
    return f"it is a git command that writes (git {sub})"


_MIGRATES = re.compile(
    r"\bmigrate\b|\bmakemigrations\b|\bdb\s+(?:push|reset|seed|migrate|upgrade|downgrade"
    r"|drop|stamp)\b"
)
_ONLY_LOOKS = re.compile(r"--check\b|--dry-run\b|\bstatus\b|--plan\b")


def migrates(name: str, args: list[str]) -> bool:
    joined = " ".join(args)
    if name == "prisma" and bool(args) and args[0] in ("migrate", "db"):
        return True
    return bool(_MIGRATES.search(joined) and not _ONLY_LOOKS.search(joined))


def script_target(name: str, args: list[str]) -> str | None:
    """The script or target a runner runs: `npm run dev` -> dev, `make deploy` -> deploy,
    `python manage.py flush` -> flush."""
    plain = _operands(args)
    if name in ("npm", "pnpm", "yarn", "bun") and plain:
        if plain[0] in ("run", "run-script") and len(plain) > 1:
            return plain[1]
        return plain[0]
    if name in ("make", "just", "task", "rake", "mix", "invoke", "nox", "tox") and plain:
        return next((p for p in plain if "=" not in p), None)
    if name in ("python", "python3") and plain[:1] == ["manage.py"] and len(plain) > 1:
        return plain[1]
    if name in ("django-admin", "rails") and plain:
        return plain[0]
    if name == "php" and plain[:1] == ["artisan"] and len(plain) > 1:
        return plain[1]
    return None


def target_effect(name: str, args: list[str], target: str) -> str | None:
    """Why a run target is no check: its name changes things (`deploy`, `lint:fix`), or it
    is a framework's management command that is not one of its checks (`flush`)."""
    words = [w for w in re.split(r"[:_\-]", target.lower()) if w]
    if programs.MUTATE_WORD.match(target) or any(w in programs.MUTATE_PARTS for w in words):
        return f"it runs `{target}`, which changes things rather than checking them"
    managed = (name in ("python", "python3") and "manage.py" in args) or name in (
        "django-admin",
        "rails",
    ) or (name == "php" and "artisan" in args)  # fmt: skip
    if managed and not (programs.CHECK_SUB.match(target) or target in programs.MANAGE_READS):
        if target == "makemigrations" and {"--check", "--dry-run"} & set(args):
            return None
        return f"it runs a management command ({target}) that changes data or files"
    return None


def _after(args: list[str], word: str) -> str:
    rest = args[args.index(word) + 1 :] if word in args else []
    return next((a for a in rest if not a.startswith("-")), "")


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
