"""Git access for the engine: the ONLY module that imports git (GitPython), lazily.

Cheap reads (HEAD, branch, status, ancestry, log) run the `git` CLI through
`subprocess`: the exit-42 resume path must not pay GitPython's import (~115 ms).
Operations that write history or the worktree (commit, snapshot, reset) go through
GitPython, imported inside those methods.

Paths the executor owns (its state, request/response and brief files beside the plan)
are passed as `ignore` / `keep`: they never make the worktree dirty, are never swept
into a commit and survive a rollback. Such a path may be absolute or relative to the
repository root; a directory covers everything under it.

Commits are made with `--no-verify`: the executor has already verified the session by
running its tests, and a hook that rewrote files would commit a tree nobody verified.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from executor import errors, fsutil

if TYPE_CHECKING:
    import git

#: Backup refs made before any destructive operation (RELIABILITY P18).
BACKUP_REF_PREFIX = "refs/executor/backup/"

_TRAILER_KEY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*$")
_TRAILER_LINE_RE = re.compile(r"^(?P<key>[A-Za-z0-9][A-Za-z0-9-]*):\s*(?P<value>.*?)\s*$")
_LABEL_UNSAFE_RE = re.compile(r"[^A-Za-z0-9._-]+")

#: Environment for every git call: stable messages, and no opportunistic index
#: refresh by `git status` (it would take index.lock behind the user's back).
_BASE_ENV = {"LC_ALL": "C", "LANGUAGE": "C", "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}


def _raise_for(args: Sequence[str], returncode: int, stderr: str, git_dir: Path | None) -> None:
    if "index.lock" in stderr:
        lock = (git_dir / "index.lock") if git_dir else Path("index.lock")
        raise errors.GitBusyError(_busy_message(lock))
    raise errors.GitCommandError(args, returncode, stderr)


def _busy_message(lock: Path) -> str:
    return (
        f"git is busy: {lock} exists (another git command is running, or one crashed). "
        "Retry when it has finished; if no git process is running, remove that file yourself."
    )


def _under(path: str, prefixes: Sequence[str]) -> bool:
    return any(path == p or path.startswith(p + "/") for p in prefixes)


def _split_z(out: str) -> list[str]:
    return [p for p in out.split("\0") if p]


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


class GitRepo:
    """One git working tree, addressed by its top-level folder."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self._git_dir: Path | None = None

    @classmethod
    def discover(cls, start: Path) -> GitRepo:
        """The repository containing `start` (a file or folder)."""
        start = Path(start)
        if not start.exists():
            raise errors.PathNotFoundError(f"{start} does not exist", path=start)
        folder = start if start.is_dir() else start.parent
        proc = _git_subprocess(["rev-parse", "--show-toplevel"], cwd=folder)
        if proc.returncode != 0 or not proc.stdout.strip():
            raise errors.PathNotFoundError(
                f"{start.resolve()} is not inside a git repository "
                "(run `git init` there, or pass --repo)",
                path=start,
            )
        return cls(Path(proc.stdout.strip()))

    def __repr__(self) -> str:
        return f"GitRepo({str(self.root)!r})"

    # ------------------------------------------------------------------ plumbing

    def _run(
        self,
        *args: str,
        check: bool = True,
        env: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        proc = _git_subprocess(list(args), cwd=self.root, env=env)
        if check and proc.returncode != 0:
            _raise_for(args, proc.returncode, proc.stderr, self._git_dir)
        return proc

    def _out(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        return self._run(*args, env=env).stdout

    @contextlib.contextmanager
    def _repo(self) -> Iterator[git.Repo]:
        import git  # GitPython: only for the operations that write

        repo = git.Repo(self.root)
        try:
            yield repo
        finally:
            repo.close()

    def _write(self, repo: git.Repo, *args: str, env: Mapping[str, str] | None = None) -> str:
        """Run a git command through GitPython; map its failures to our errors."""
        import git

        try:
            out = repo.git.execute(["git", *args], env={**_BASE_ENV, **(env or {})})
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

    @contextlib.contextmanager
    def _temp_index(self) -> Iterator[dict[str, str]]:
        """Env for a throwaway copy of the index, so the real index is never touched."""
        tmp = self.git_dir / f"executor-tmp-{os.getpid()}.index"
        real = self.git_dir / "index"
        try:
            if real.exists():
                shutil.copyfile(real, tmp)
            yield {"GIT_INDEX_FILE": str(tmp)}
        finally:
            for leftover in (tmp, tmp.with_name(tmp.name + ".lock")):
                with contextlib.suppress(FileNotFoundError):
                    leftover.unlink()

    # ------------------------------------------------------------------ reads

    def head(self) -> str:
        """Full SHA of HEAD."""
        sha = self.resolve("HEAD")
        if sha is None:
            raise errors.UserError(
                f"the repository {self.root} has no commits yet; make an initial commit first"
            )
        return sha

    def resolve(self, rev: str) -> str | None:
        """Full SHA of the commit `rev` names, or None when there is no such commit."""
        proc = self._run("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
        if proc.returncode != 0:
            return None
        return proc.stdout.strip() or None

    def _require_commit(self, rev: str) -> str:
        sha = self.resolve(rev)
        if sha is None:
            raise errors.StaleWorkspaceError(
                f"commit {rev} is not in the repository {self.root} any more "
                "(history was rewritten?); nothing was changed"
            )
        return sha

    def head_and_branch(self) -> tuple[str, str | None]:
        """HEAD's full SHA and the current branch (None when detached), in one git call."""
        proc = self._run("rev-parse", "HEAD", "--symbolic-full-name", "HEAD", check=False)
        lines = proc.stdout.split()
        if proc.returncode != 0 or not lines:
            return self.head(), self.branch()
        ref = lines[1] if len(lines) > 1 else ""
        return lines[0], ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None

    def exclude_run_folder(self, folder: Path) -> None:
        """Hide the executor's files in `folder` via .git/info/exclude (local, never
        committed), so they never show in `git status` or enter a commit."""
        rel = self._rel(folder.resolve())
        prefix = "" if rel is None else rel + "/"
        if rel is None and folder.resolve() != self.root:
            return  # the folder is outside this repository
        path = Path(self._out("rev-parse", "--git-path", "info/exclude").strip())
        path = path if path.is_absolute() else self.root / path
        lines = [f"/{prefix}.agent-*"]
        existing = path.read_text("utf-8") if path.exists() else ""
        missing = [ln for ln in lines if ln not in existing.splitlines()]
        if missing:
            path.parent.mkdir(parents=True, exist_ok=True)
            sep = "" if not existing or existing.endswith("\n") else "\n"
            fsutil.atomic_write_text(
                path,
                existing + sep + "# plan-executor's own files\n" + "\n".join(missing) + "\n",
                fault="exclude",
            )

    def branch(self) -> str | None:
        """Current branch name; None when HEAD is detached."""
        proc = self._run("symbolic-ref", "--quiet", "--short", "HEAD", check=False)
        if proc.returncode != 0:
            return None
        return proc.stdout.strip() or None

    def ensure_not_busy(self) -> None:
        """Raise GitBusyError while `.git/index.lock` exists. Never deletes it (P21)."""
        lock = self.git_dir / "index.lock"
        if lock.exists():
            raise errors.GitBusyError(_busy_message(lock))

    def dirty_files(self, ignore: Sequence[Path] = ()) -> list[str]:
        """Changed tracked files and untracked files (not .gitignored), sorted, repo-relative."""
        out = self._out("status", "--porcelain=v1", "-z", "-uall", "--no-renames")
        skip = self._rels(ignore)
        files = {entry[3:] for entry in _split_z(out) if len(entry) > 3}
        return sorted(f for f in files if not _under(f, skip))

    def untracked_files(self, ignore: Sequence[Path] = ()) -> list[str]:
        """Untracked files that .gitignore does not exclude, sorted, repo-relative."""
        out = self._out("ls-files", "--others", "--exclude-standard", "-z", "--full-name", ":/")
        skip = self._rels(ignore)
        return sorted(f for f in _split_z(out) if not f.endswith("/") and not _under(f, skip))

    def changed_since(self, base: str, ignore: Sequence[Path] = ()) -> list[str]:
        """Files that differ between commit `base` and the working tree, incl. untracked."""
        base = self._require_commit(base)
        out = self._out("diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", base, "--")
        skip = self._rels(ignore)
        changed = {f for f in _split_z(out) if not _under(f, skip)}
        changed.update(self.untracked_files(ignore))
        return sorted(changed)

    def find_commit_by_trailers(self, trailers: dict[str, str], *, since: str) -> str | None:
        """Newest commit in `since..HEAD` carrying ALL these trailers (P20 adoption)."""
        since = self._require_commit(since)
        out = self._out("log", "--format=%H%x1f%B%x1e", f"{since}..HEAD", "--")
        wanted = {k.lower(): v for k, v in trailers.items()}
        for record in out.split("\x1e"):
            sha, sep, message = record.strip("\n").partition("\x1f")
            if not sep:
                continue
            found = _trailers_of(message)
            if all(found.get(k) == v for k, v in wanted.items()):
                return sha.strip()
        return None

    def is_ancestor(self, commit: str, of: str = "HEAD") -> bool:
        """True when `commit` is reachable from `of` (equal counts); False if unknown."""
        proc = self._run("merge-base", "--is-ancestor", commit, of, check=False)
        return proc.returncode == 0

    def is_merge(self, commit: str) -> bool:
        """True when `commit` has more than one parent (P18: never roll one back)."""
        sha = self._require_commit(commit)
        return len(self._out("rev-list", "--parents", "-n1", sha).split()) > 2

    def is_pushed(self, commit: str) -> bool:
        """True when a remote-tracking branch already contains `commit` (P18)."""
        sha = self._require_commit(commit)
        return bool(self._out("branch", "-r", "--contains", sha, "--format=%(refname)").strip())

    def diff_text(self, base: str, ignore: Sequence[Path] = (), max_chars: int = 20000) -> str:
        """Unified diff from `base` to the working tree, new untracked files included."""
        base = self._require_commit(base)
        specs = self._exclude_specs(self._visible(self._rels(ignore)))
        with self._temp_index() as env:
            self._run("add", "-A", "--", *specs, env=env)
            text = self._out(
                "diff", "--cached", "--no-color", "--no-ext-diff", base, "--", *specs, env=env
            )
        if len(text) > max_chars:
            rest = len(text) - max_chars
            text = text[:max_chars] + f"\n... [diff truncated: {rest} more characters]\n"
        return text

    def log_oneline(self, n: int = 20) -> list[str]:
        """`git log --oneline -n N` lines, newest first; [] in a repository without commits."""
        if self.resolve("HEAD") is None:
            return []
        return self._out("log", "--oneline", "--no-decorate", f"-n{n}").splitlines()

    def _visible(self, rels: Sequence[str]) -> list[str]:
        """The paths git does not ignore: naming an ignored path in `git add`, even to
        exclude it, makes the command fail ("paths are ignored by one of your .gitignore
        files"). One `git check-ignore` call for all of them."""
        if not rels:
            return []
        proc = _git_subprocess(
            ["check-ignore", "--no-index", "-z", "--stdin"],
            cwd=self.root,
            input_text="\0".join(rels) + "\0",
        )
        if proc.returncode not in (0, 1):
            _raise_for(["check-ignore"], proc.returncode, proc.stderr, self._git_dir)
        ignored = set(_split_z(proc.stdout))
        return [r for r in rels if r not in ignored]

    # ------------------------------------------------------------------ writes

    def commit_all(
        self, message: str, *, trailers: dict[str, str], ignore: Sequence[Path] = ()
    ) -> str:
        """Stage every change except `ignore`d paths and commit; return the new SHA.

        Trailers go in a final paragraph as `Key: value` lines. Nothing to commit
        raises VerificationFailedError: a session that changed nothing is not done.
        """
        for key, value in trailers.items():
            if not _TRAILER_KEY_RE.match(key) or "\n" in value or "\r" in value:
                raise ValueError(f"invalid commit trailer {key!r}: {value!r}")
        self.ensure_not_busy()
        skip = self._rels(ignore)
        body = message.strip()
        if trailers:
            body += "\n\n" + "\n".join(f"{k}: {v}" for k, v in trailers.items())
        with self._repo() as repo:
            self._write(repo, "add", "-A", "--", *self._exclude_specs(self._visible(skip)))
            staged = _split_z(self._out("diff", "--cached", "--name-only", "-z", "--no-renames"))
            staged_ignored = [f for f in staged if _under(f, skip)]
            if staged_ignored:  # staged before we came: keep them out of the session commit
                if self.resolve("HEAD") is None:
                    self._write(repo, "rm", "-q", "--cached", "--", *staged_ignored)
                else:
                    self._write(repo, "reset", "-q", "HEAD", "--", *staged_ignored)
            if self._run("diff", "--cached", "--quiet", check=False).returncode == 0:
                raise errors.VerificationFailedError(
                    f"nothing to commit in {self.root}: the worktree has no changes "
                    "besides the executor's own files"
                )
            self._write(repo, "commit", "-q", "--no-verify", "--cleanup=whitespace", "-m", body)
        return self.head()

    def snapshot(self, label: str) -> str:
        """Back up the whole worktree (tracked + untracked) under a ref; return the ref.

        Built through a temporary index (GIT_INDEX_FILE) whose parent is HEAD, so the
        worktree and the real index are untouched (P18). Files .gitignore excludes are
        not included.
        """
        self.ensure_not_busy()
        head = self.resolve("HEAD")
        parents = ["-p", head] if head else []
        msg = f"executor backup: {label}\n\nWorktree snapshot taken before a destructive step."
        safe = _LABEL_UNSAFE_RE.sub("-", label).strip(".-") or "snapshot"
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        ref = f"{BACKUP_REF_PREFIX}{safe}-{stamp}"
        n = 1
        while self.resolve(ref) is not None:
            n += 1
            ref = f"{BACKUP_REF_PREFIX}{safe}-{stamp}-{n}"
        with self._repo() as repo, self._temp_index() as env:
            self._write(repo, "add", "-A", "--", ":/", env=env)
            tree = self._write(repo, "write-tree", env=env).strip()
            sha = self._write(repo, "commit-tree", tree, *parents, "-m", msg).strip()
            # zero old value: create only, never move an existing backup
            self._write(repo, "update-ref", "-m", msg.splitlines()[0], ref, sha, "0" * 40)
        return ref

    def reset_hard(self, commit: str, *, keep: Sequence[Path] = ()) -> str:
        """Return the worktree to `commit`, after a snapshot; return the backup ref.

        Tracked files are reset and untracked (not ignored) files removed, except the
        `keep` paths, which end exactly as they were before. Refuses with
        StaleWorkspaceError when `commit` is not an ancestor of HEAD.
        """
        self.ensure_not_busy()
        target = self.resolve(commit)
        if target is None or not self.is_ancestor(target, "HEAD"):
            raise errors.StaleWorkspaceError(
                f"refusing to roll back to {commit}: it is not a commit on the current "
                f"history of {self.root} (HEAD moved, or the commit is unknown)"
            )
        kept = self._read_keep(keep)
        ref = self.snapshot(f"reset-to-{target[:12]}")
        with self._repo() as repo:
            self._write(repo, "reset", "-q", "--hard", target)
        for rel in self.untracked_files(ignore=keep):
            path = self.root / rel
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            self._prune_empty_parents(path.parent)
        self._restore_keep(keep, kept)
        return ref

    # ------------------------------------------------------------------ keep helpers

    def _keep_files(self, keep: Sequence[Path]) -> list[str]:
        files: list[str] = []
        for rel in self._rels(keep):
            path = self.root / rel
            if path.is_file() and not path.is_symlink():
                files.append(rel)
            elif path.is_dir():
                files += [
                    p.relative_to(self.root).as_posix()
                    for p in sorted(path.rglob("*"))
                    if p.is_file() and not p.is_symlink()
                ]
        return files

    def _read_keep(self, keep: Sequence[Path]) -> dict[str, tuple[bytes, int]]:
        saved: dict[str, tuple[bytes, int]] = {}
        for rel in self._keep_files(keep):
            path = self.root / rel
            saved[rel] = (path.read_bytes(), path.stat().st_mode & 0o7777)
        return saved

    def _restore_keep(self, keep: Sequence[Path], saved: dict[str, tuple[bytes, int]]) -> None:
        for rel in self._keep_files(keep):
            if rel not in saved:  # the reset brought back a file that was not there
                (self.root / rel).unlink()
        for rel, (data, mode) in saved.items():
            path = self.root / rel
            if path.is_file() and path.read_bytes() == data:
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            fsutil.atomic_write_bytes(path, data, fault="vcs.keep")
            os.chmod(path, mode)

    def _prune_empty_parents(self, folder: Path) -> None:
        while folder != self.root and self.root in folder.parents:
            try:
                folder.rmdir()
            except OSError:
                return
            folder = folder.parent


def _git_subprocess(
    args: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    input_text: str | None = None,
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", *args],
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
