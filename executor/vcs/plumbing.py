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
    try:
        return subprocess.run(
            ["git", *_SAFE_CONFIG, *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="surrogateescape",
            env={**os.environ, **_BASE_ENV, **(env or {})},
            input=input_text,
            stdin=None if input_text is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError as e:
        raise errors.PathNotFoundError(
            "git is not installed (no `git` on PATH); the executor needs it", path=Path("git")
        ) from e


class GitBase:
    """A git working tree, addressed by its top-level folder: the plumbing."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self._git_dir: Path | None = None
        #: What `record_tree` removed because git would wait on it for ever (a FIFO named
        #: `.gitignore`), each a line for a person; whoever reports it empties the list.
        self.cleared: list[str] = []

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
