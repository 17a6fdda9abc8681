"""Reads of a git working tree, through the `git` CLI (no GitPython import: the resume
path is measured). Paths the executor owns are passed as `ignore`: they never count as
changes. Such a path may be absolute or relative to the repository root; a directory
covers everything under it."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from executor import errors, fsutil
from executor.vcs.plumbing import (
    GitBase,
    _busy_message,
    _git_subprocess,
    _identity_message,
    _raise_for,
    _split_z,
    _trailers_of,
    _under,
)

_HEX = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def is_object_id(text: str) -> bool:
    """A full object id (SHA-1 or SHA-256), which always names the same content."""
    return _HEX.fullmatch(text) is not None


@dataclass(frozen=True)
class Facts:
    """What one `git status` says: HEAD, the branch (None: detached), changed files."""

    head: str
    branch: str | None
    changed: list[str]


@dataclass(frozen=True)
class Commit:
    sha: str
    parents: list[str]
    trailers: dict[str, str]  # keys lower-cased
    message: str = ""


class GitReads(GitBase):
    def head(self) -> str:
        """Full SHA of HEAD."""
        sha = self.resolve("HEAD")
        if sha is None:
            raise errors.UserError(
                f"the repository {self.root} has no commits yet; make an initial commit first"
            )
        return sha

    def resolve(self, rev: str) -> str | None:
        """Full SHA of the commit `rev` names, or None when there is no such commit. A
        full SHA found once is not asked of git again (an object does not change; a
        session asks for the same few commits dozens of times)."""
        if rev == "HEAD":
            read = self._head_from_files()
            if read is not None and read in self._commits:
                return read
        if rev in self._commits:
            return rev
        proc = self._run("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
        sha = proc.stdout.strip() if proc.returncode == 0 else ""
        if not sha:
            return None
        self._commits.add(sha)
        return sha

    def _head_from_files(self) -> str | None:
        """The SHA HEAD names, read as git reads it (HEAD, a loose ref, packed-refs) where
        that is the plain case: a branch under refs/heads or a detached HEAD, files refs.
        None wherever anything is less plain (reftable, GIT_DIR, a symbolic ref, no such
        ref yet): git is asked then. A SHA read here is trusted only once git has said it
        names a commit (`resolve`)."""
        if "GIT_DIR" in os.environ or "GIT_COMMON_DIR" in os.environ:
            return None
        try:
            gd = self.git_dir
            head = (gd / "HEAD").read_text(encoding="utf-8").strip()
            common = gd
            if (gd / "commondir").is_file():  # a linked worktree: its branches live there
                common = gd / (gd / "commondir").read_text(encoding="utf-8").strip()
            if (common / "reftable").exists():
                return None
            if _HEX.fullmatch(head):
                return head
            name = head.removeprefix("ref: ")
            if name == head or not name.startswith("refs/heads/"):
                return None
            loose = common / name
            if loose.is_file():
                sha = loose.read_text(encoding="utf-8").strip()
                return sha if _HEX.fullmatch(sha) else None
            for line in (common / "packed-refs").read_text(encoding="utf-8").splitlines():
                sha, _, ref = line.partition(" ")
                if ref == name and _HEX.fullmatch(sha):
                    return sha
        except (OSError, UnicodeDecodeError):
            return None
        return None

    def _require_commit(self, rev: str) -> str:
        sha = self.resolve(rev)
        if sha is None:
            raise errors.StaleWorkspaceError(
                f"commit {rev} is not in the repository {self.root} any more "
                "(history was rewritten?); nothing was changed"
            )
        return sha

    def head_and_branch(self) -> tuple[str, str | None]:
        """HEAD's full SHA and the current branch (None when detached), in one git call;
        the commit it names is known from then on (`resolve("HEAD")` asks git no more)."""
        proc = self._run("rev-parse", "HEAD^{commit}", "--symbolic-full-name", "HEAD", check=False)
        lines = proc.stdout.split()
        if proc.returncode != 0 or not lines:
            return self.head(), self.branch()
        self._commits.add(lines[0])
        ref = lines[1] if len(lines) > 1 else ""
        return lines[0], ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None

    def exclude_run_folder(self, folder: Path, *, state_name: str = "") -> None:
        """Hide the executor's files in `folder` via .git/info/exclude (local, never
        committed), so they never show in `git status` or enter a commit. `state_name`:
        a state file not named `.agent-*` (template-create's), hidden with its `.bak`
        and lock file."""
        rel = self._rel(folder.resolve())
        if rel is None and folder.resolve() != self.root:
            return  # the folder is outside this repository
        prefix = "" if rel is None else rel + "/"
        stem = state_name.removesuffix(".json")
        self.exclude([f"/{prefix}.agent-*", *([f"/{prefix}{stem}.*"] if stem else [])])

    def exclude(self, patterns: Sequence[str]) -> None:
        """Add `patterns` to .git/info/exclude (once each; local, never committed)."""
        path = Path(self._out("rev-parse", "--git-path", "info/exclude").strip())
        path = path if path.is_absolute() else self.root / path
        existing = path.read_text("utf-8") if path.exists() else ""
        missing = [ln for ln in patterns if ln not in existing.splitlines()]
        if missing:
            path.parent.mkdir(parents=True, exist_ok=True)
            sep = "" if not existing or existing.endswith("\n") else "\n"
            fsutil.atomic_write_text(
                path,
                existing + sep + "# plan-executor\n" + "\n".join(missing) + "\n",
                fault="exclude",
            )

    def branch(self) -> str | None:
        """Current branch name; None when HEAD is detached."""
        proc = self._run("symbolic-ref", "--quiet", "--short", "HEAD", check=False)
        if proc.returncode != 0:
            return None
        return proc.stdout.strip() or None

    def ensure_identity(self) -> None:
        """UserError unless git knows the author and committer a commit here would name
        (checked before a session's work, not found out at its commit)."""
        for who in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"):
            proc = self._run("var", who, check=False)
            if proc.returncode != 0:
                raise errors.UserError(_identity_message(self.root))

    def ensure_not_busy(self) -> None:
        """Raise GitBusyError while `.git/index.lock` exists. Never deletes it (P21)."""
        lock = self.git_dir / "index.lock"
        if lock.exists():
            raise errors.GitBusyError(_busy_message(lock))

    def facts(self, ignore: Sequence[Path] = ()) -> Facts:
        """HEAD, branch and the changed files (tracked and untracked), in ONE git call."""
        out = self._out("status", "--porcelain=v2", "--branch", "-z", "-uall", "--no-renames")
        head, branch, files = "", None, set()
        for entry in _split_z(out):
            if entry.startswith("# branch.oid "):
                head = entry.removeprefix("# branch.oid ")
            elif entry.startswith("# branch.head "):
                name = entry.removeprefix("# branch.head ")
                branch = None if name == "(detached)" else name
            elif entry.startswith("? "):
                files.add(entry[2:])
            elif entry[:2] in {"1 ", "u "}:
                files.add(entry.split(" ", 8 if entry[0] == "1" else 10)[-1])
        if not head or head == "(initial)":
            head = self.head()  # raises the clear "no commits yet" error
        skip = self._rels(ignore)
        return Facts(head, branch, sorted(f for f in files if not _under(f, skip)))

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

    def ignored_entries(self, ignore: Sequence[Path] = ()) -> list[str]:
        """What git ignores in the worktree: files, and wholly ignored folders as one
        `folder/` entry each (a `.venv` is one line, not thousands)."""
        out = self._out(
            "ls-files", "--others", "--ignored", "--exclude-standard", "--directory", "-z", ":/"
        )
        skip = self._rels(ignore)
        return sorted(f for f in _split_z(out) if not _under(f.rstrip("/"), skip))

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

    def common_dir(self) -> Path:
        """The repository's git folder (a linked worktree's `.git` names its own folder
        inside it)."""
        found = Path(self._out("rev-parse", "--git-common-dir").strip())
        return (found if found.is_absolute() else self.root / found).resolve()

    def trailers(self, commit: str) -> dict[str, str]:
        """The trailers of `commit`'s message (keys lower-cased); {} when there is no
        such commit."""
        proc = self._run("log", "-1", "--format=%B", commit, "--", check=False)
        return _trailers_of(proc.stdout) if proc.returncode == 0 else {}

    def subject(self, commit: str) -> str:
        """The first line of `commit`'s message."""
        return self._out("log", "-1", "--format=%s", commit, "--").strip()

    def is_ancestor(self, commit: str, of: str = "HEAD") -> bool:
        """True when `commit` is reachable from `of` (equal counts); False if unknown."""
        proc = self._run("merge-base", "--is-ancestor", commit, of, check=False)
        return proc.returncode == 0

    def is_pushed(self, commit: str) -> bool:
        """True when a remote-tracking branch already contains `commit` (P18)."""
        sha = self._require_commit(commit)
        return bool(self._out("branch", "-r", "--contains", sha, "--format=%(refname)").strip())

    def tracked_at(self, commit: str, path: Path) -> bool:
        """True when `path` is a file in `commit`'s tree."""
        rel = self._rel(path)
        if rel is None:
            return False
        proc = self._run("cat-file", "-e", f"{commit}:{rel}", check=False)
        return proc.returncode == 0

    def commits_since(self, base: str) -> list[Commit]:
        """The commits in `base..HEAD`, newest first, with their parents and trailers."""
        out = self._out("log", "--format=%H%x1f%P%x1f%B%x1e", f"{base}..HEAD", "--")
        found = []
        for record in out.split("\x1e"):
            fields = record.strip("\n").split("\x1f")
            if len(fields) == 3:
                sha, parents, message = fields
                found.append(Commit(sha, parents.split(), _trailers_of(message), message.strip()))
        return found

    def log_oneline(self, n: int = 20) -> list[str]:
        """`git log --oneline -n N` lines, newest first; [] in a repository without commits."""
        if self.resolve("HEAD") is None:
            return []
        return self._out("log", "--oneline", "--no-decorate", f"-n{n}").splitlines()

    def words_in(self, rev: str, words: Sequence[str]) -> dict[str, set[str]]:
        """Which of `words` (whole words) each Python file of `rev` (a commit or a tree)
        mentions: path -> words. One `git grep`."""
        if not words:
            return {}
        patterns = [arg for w in sorted(set(words)) for arg in ("-e", w)]
        proc = self._run("grep", "-o", "-w", "-I", "-F", "--full-name", *patterns, rev, "--",
                         "*.py", check=False)  # fmt: skip
        found: dict[str, set[str]] = {}
        for line in proc.stdout.splitlines():
            path, _, word = line.removeprefix(f"{rev}:").rpartition(":")
            found.setdefault(path, set()).add(word)
        return found

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
