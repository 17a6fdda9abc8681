"""git plumbing shared by the repository classes: running git, its errors, paths.

Cheap reads run the `git` CLI through `subprocess` (the exit-42 resume path must not
pay GitPython's import); writes go through GitPython, imported inside `_repo`.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from executor import errors

if TYPE_CHECKING:
    import git

_TRAILER_LINE_RE = re.compile(r"^(?P<key>[A-Za-z0-9][A-Za-z0-9-]*):\s*(?P<value>.*?)\s*$")

#: Environment for every git call: stable messages, and no opportunistic index
#: refresh by `git status` (it would take index.lock behind the user's back).
_BASE_ENV = {"LC_ALL": "C", "LANGUAGE": "C", "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
#: Configuration no git call of ours obeys (an agent can set either in `.git/config`, or
#: write a hook into `.git/hooks`): `core.fsmonitor` runs a program on every status, add
#: and diff; hooks run on reads too: `post-index-change` whenever an index is written
#: (our private ones included), `reference-transaction` on every ref update.
_SAFE_CONFIG = ("-c", "core.fsmonitor=false", "-c", f"core.hooksPath={os.devnull}")
#: git commands that may run a program a file's attributes name: a clean filter (on what
#: they read from the worktree: `status`, a refresh, `add`), a smudge filter (on what they
#: write there: `checkout`, `reset`, `merge`, `worktree add`, `read-tree -u`), a merge
#: driver (`merge`, `merge-tree`). Before each, the drivers configured (anywhere git reads
#: config: an agent can write `.git/config`) are switched off for that command
#: (`_no_attribute_programs`); `diff` runs with `--no-textconv --no-ext-diff`.
_RUN_ATTRIBUTE_PROGRAMS = frozenset(
    {"status", "checkout", "checkout-index", "reset", "merge", "merge-tree", "worktree",
     "read-tree", "update-index", "add", "stash", "restore", "switch", "submodule", "apply",
     "cherry-pick", "rebase", "commit", "diff", "clone"}
)  # fmt: skip
#: Configured programs a file's attributes can name (`filter=x`, `merge=x`), by kind.
_DRIVER_RE = re.compile(r"^(filter|merge)\.(.+)\.(clean|smudge|process|driver)$")


def _raise_for(args: Sequence[str], returncode: int, stderr: str, git_dir: Path | None) -> None:
    if "No space left on device" in stderr or "Input/output error" in stderr:
        where = git_dir or Path(".")
        raise errors.StorageError(
            f"git could not write ({stderr.strip().splitlines()[-1]}): the disk is full or "
            f"failing. Nothing was committed; the state is intact. Free space and re-run.",
            path=where,
        )
    if any(m in stderr for m in ("identity unknown", "tell me who you are", "empty ident")):
        raise errors.UserError(_identity_message(git_dir.parent if git_dir else Path(".")))
    if "index.lock" in stderr:
        lock = (git_dir / "index.lock") if git_dir else Path("index.lock")
        raise errors.GitBusyError(_busy_message(lock))
    raise errors.GitCommandError(args, returncode, stderr)


def _identity_message(root: Path) -> str:
    return (
        f"git does not know who is committing in {root}: every session ends in a commit, "
        f'which needs a name and an email. Set them (git config user.name "Your Name"; '
        f"git config user.email you@example.com; add --global for every repository) and "
        f"run the same command again. Nothing was touched."
    )


def _busy_message(lock: Path) -> str:
    return (
        f"git is busy: {lock} exists (another git command is running, or one crashed). "
        "Retry when it has finished; if no git process is running, remove that file yourself."
    )


def _under(path: str, prefixes: Sequence[str]) -> bool:
    return any(path == p or path.startswith(p + "/") for p in prefixes)


def _split_z(out: str) -> list[str]:
    """The paths of a `-z` listing. A name that is not UTF-8 (git's bytes, decoded with
    surrogateescape) cannot be recorded in the state or shown: a clear error, not a crash
    at the next save that would repeat on every run."""
    paths = [p for p in out.split("\0") if p]
    for path in paths:
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            raise errors.UserError(
                f"a file name in the repository is not UTF-8 ({os.fsencode(path)!r}): the "
                f"executor records file names as text. Rename or remove it, then run the "
                f"same command again."
            ) from None
    return paths


def _trailers_of(message: str) -> dict[str, str]:
    """`Key: value` lines of the message's last paragraph (git's trailer block)."""
    paragraphs = [p for p in re.split(r"\n\s*\n", message.strip()) if p.strip()]
    if len(paragraphs) < 2:
        return {}
    found: dict[str, str] = {}
    for line in paragraphs[-1].splitlines():
        m = _TRAILER_LINE_RE.match(line)
        if m is None:
            return {}
        found.setdefault(m["key"].lower(), m["value"])
    return found


def _git_subprocess(
    args: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    input_text: str | None = None,
) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **_BASE_ENV, **(env or {})}
    if _subcommand(args) in _RUN_ATTRIBUTE_PROGRAMS:
        full.update(_no_attribute_programs(cwd, full))
    try:
        return subprocess.run(
            ["git", *_SAFE_CONFIG, *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="surrogateescape",
            env=full,
            input=input_text,
            stdin=None if input_text is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError as e:
        raise errors.PathNotFoundError(
            "git is not installed (no `git` on PATH); the executor needs it", path=Path("git")
        ) from e


def _subcommand(args: Sequence[str]) -> str:
    """The git command `args` run (`worktree` of `-c x=y worktree add ...`)."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("-c", "-C"):
            skip = True
        elif not arg.startswith("-"):
            return arg
    return ""


def _no_attribute_programs(cwd: Path, env: Mapping[str, str]) -> dict[str, str]:
    """Configuration, as environment (`GIT_CONFIG_COUNT`: any key, read after every
    config file), that switches off every filter and merge driver configured where git
    runs in `cwd`: a filter's commands are emptied (git then copies content as it is)
    and not required; a merge driver becomes `false` (a conflict for a person, never a
    side chosen by a program)."""
    proc = subprocess.run(
        ["git", "config", "--name-only", "--get-regexp", r"^(filter|merge)\."],
        cwd=cwd, capture_output=True, text=True, encoding="utf-8", errors="surrogateescape",
        env=dict(env),
        stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    pairs: dict[str, str] = {}
    for key in proc.stdout.splitlines():
        m = _DRIVER_RE.match(key.strip())
        if m is None:
            continue
        kind, name = m[1], m[2]
        if kind == "filter":
            for part in ("clean", "smudge", "process"):
                pairs[f"filter.{name}.{part}"] = ""
            pairs[f"filter.{name}.required"] = "false"
        else:
            pairs[f"merge.{name}.driver"] = "false"
    if not pairs:
        return {}
    start = int(env.get("GIT_CONFIG_COUNT", "0") or 0)
    out = {"GIT_CONFIG_COUNT": str(start + len(pairs))}
    for i, (key, value) in enumerate(pairs.items(), start):
        out[f"GIT_CONFIG_KEY_{i}"], out[f"GIT_CONFIG_VALUE_{i}"] = key, value
    return out


class GitBase:
    """A git working tree, addressed by its top-level folder: the plumbing."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self._git_dir: Path | None = None
        #: What `record_tree` removed because git would wait on it for ever (a FIFO named
        #: `.gitignore`), each a line for a person; whoever reports it empties the list.
        self.cleared: list[str] = []
        #: full SHAs known to name commits here (`resolve`)
        self._commits: set[str] = set()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.root)!r})"

    def _run(
        self,
        *args: str,
        check: bool = True,
        env: Mapping[str, str] | None = None,
        input_text: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        proc = _git_subprocess(list(args), cwd=self.root, env=env, input_text=input_text)
        if check and proc.returncode != 0:
            _raise_for(args, proc.returncode, proc.stderr, self._git_dir)
        return proc

    def _out(
        self, *args: str, env: Mapping[str, str] | None = None, input_text: str | None = None
    ) -> str:
        return self._run(*args, env=env, input_text=input_text).stdout

    @contextlib.contextmanager
    def _repo(self) -> Iterator[git.Repo]:
        import git  # GitPython: only for the operations that write

        repo = git.Repo(self.root)
        try:
            yield repo
        finally:
            repo.close()

    def _write(self, repo: git.Repo, *args: str, env: Mapping[str, str] | None = None) -> str:
        """Run a git command through GitPython; map its failures to our errors.

        No hook runs (`core.hooksPath` points nowhere): a pre-commit, prepare-commit-msg,
        post-commit or reference-transaction hook, the user's or one an agent wrote into
        `.git/hooks`, could change a commit after it was verified and approved.
        """
        import git

        argv = ["git", *_SAFE_CONFIG, *args]
        try:
            out = repo.git.execute(argv, env={**_BASE_ENV, **(env or {})})
        except git.GitCommandError as e:
            stderr = e.stderr if isinstance(e.stderr, str) else str(e.stderr)
            status = e.status if isinstance(e.status, int) else -1
            _raise_for(args, status, stderr, self.git_dir)
            raise  # pragma: no cover - _raise_for always raises
        return out if isinstance(out, str) else str(out)

    @property
    def git_dir(self) -> Path:
        """This worktree's git directory (where index and index.lock live)."""
        if self._git_dir is None:
            dot_git = self.root / ".git"
            if dot_git.is_dir() and "GIT_DIR" not in os.environ:  # the common case: no git call
                self._git_dir = dot_git
            else:  # a linked worktree or submodule (`.git` is a file), or GIT_DIR set
                self._git_dir = Path(self._out("rev-parse", "--absolute-git-dir").strip())
        return self._git_dir

    def _rel(self, path: Path) -> str | None:
        """`path` as a repo-relative posix string, or None when it is outside the repo."""
        p = Path(path)
        if p.is_absolute():
            try:
                p = p.resolve().relative_to(self.root)
            except ValueError:
                return None
        rel = p.as_posix().strip("/")
        return None if rel in ("", ".") else rel

    def _rels(self, paths: Sequence[Path]) -> list[str]:
        return [r for r in (self._rel(p) for p in paths) if r is not None]

    @staticmethod
    def _exclude_specs(rels: Sequence[str]) -> list[str]:
        return [":/", *(f":(top,exclude,literal){r}" for r in rels)]
